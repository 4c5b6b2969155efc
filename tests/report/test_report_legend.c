/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 18, item 1: the stream plots stay legible with several input files. Three stream
 * results with the same four modes: one colour per mode in both plots, one line style per
 * file, each mode and each file named once in the key (files by the part of their path that
 * tells them apart), the key outside the plot area and no data series titled on its own. */
#include "test_support.h"

#include <string.h>
#include <sys/stat.h>

#include "report_test.h"

#define STREAM ZC_REPORT_FIXTURES "/stream.json"

/* One item of a plot command: a data series or a key entry. */
typedef struct item {
    int is_key;
    char data[16]; /* the datablock ("$s3"); "" for a key entry */
    char colour[16];
    char dash[32];
    char title[160]; /* "" for notitle */
} item;

/* The value after key in text, up to one of the stop characters, into out. */
static void value_after(const char *text, const char *key, const char *stop, char *out, size_t size)
{
    out[0] = '\0';
    const char *p = strstr(text, key);
    if (p == NULL)
        return;
    p += strlen(key);
    size_t n = strcspn(p, stop);
    snprintf(out, size, "%.*s", (int)(n < size - 1 ? n : size - 1), p);
}

/* The script holding marker, from the stand-in's log (scripts end with a marker line). */
static char *script_with(const char *log, const char *marker)
{
    const char *at = strstr(log, marker);
    if (at == NULL)
        fail_msg("no script holds \"%s\"", marker);
    const char *start = at;
    while (start > log && strncmp(start, "#### end of script", 18) != 0)
        start--;
    const char *end = strstr(at, "#### end of script");
    assert_non_null(end);
    return strndup(start, (size_t)(end - start));
}

/* The items of the script's plot command. */
static int plot_items(const char *script, item *items, int max)
{
    const char *plot = strstr(script, "\nplot ");
    assert_non_null(plot);
    plot += 6;
    const char *eol = strchr(plot, '\n');
    char *line = strndup(plot, eol != NULL ? (size_t)(eol - plot) : strlen(plot));
    int n = 0;
    /* Items are separated by ", " before a datablock or keyentry; dash patterns hold commas. */
    for (char *p = line; p != NULL && *p && n < max;) {
        char *next = p;
        char *cut = NULL;
        while ((next = strstr(next, ", ")) != NULL) {
            if (next[2] == '$' || strncmp(next + 2, "keyentry", 8) == 0) {
                cut = next;
                break;
            }
            next += 2;
        }
        if (cut != NULL)
            *cut = '\0';
        item *it = &items[n++];
        memset(it, 0, sizeof *it);
        it->is_key = strncmp(p, "keyentry", 8) == 0;
        if (!it->is_key)
            value_after(p, "", " ", it->data, sizeof it->data);
        value_after(p, "lc rgb '", "'", it->colour, sizeof it->colour);
        value_after(p, " dt ", " ", it->dash, sizeof it->dash);
        if (strstr(p, "notitle") == NULL)
            value_after(p, "title '", "'", it->title, sizeof it->title);
        p = cut != NULL ? cut + 2 : NULL;
    }
    free(line);
    return n;
}

static const char *const modes[] = {"zerocopy-ll", "zerocopy-flag", "classic-pinned",
                                    "classic-pageable"};
static const char *const files[] = {"a/stream.json", "b/stream.json", "c/stream.json"};

static const item *key_titled(const item *items, int n, const char *title)
{
    const item *found = NULL;
    for (int i = 0; i < n; i++) {
        if (items[i].is_key && strcmp(items[i].title, title) == 0) {
            if (found != NULL)
                fail_msg("the key names %s twice", title);
            found = &items[i];
        }
    }
    if (found == NULL)
        fail_msg("the key does not name %s", title);
    return found;
}

/* Check one stream plot; the mode colours it uses into colours (for comparing the plots). */
static void check_plot(const char *script, const char *datablock_prefix, char colours[4][16])
{
    item items[64];
    int n = plot_items(script, items, 64);
    /* The key lies outside the plot area, and no line is titled by itself. */
    assert_non_null(strstr(script, "set key outside"));
    int series = 0, keys = 0;
    for (int i = 0; i < n; i++) {
        if (items[i].is_key) {
            keys++;
            continue;
        }
        if (items[i].title[0])
            fail_msg("series %s has its own title '%s': names repeat in the key", items[i].data,
                     items[i].title);
        series++;
    }
    assert_int_equal(series, 12);
    assert_int_equal(keys, 4 + 3);
    /* Series come file by file, four modes each, in the inputs' order; the datablocks hold
     * each file's own p50 (3.17, 3.27, 3.37 for zerocopy-ll). */
    for (int f = 0; f < 3; f++) {
        const item *file_key = key_titled(items, n, files[f]);
        for (int m = 0; m < 4; m++) {
            const item *mode_key = key_titled(items, n, modes[m]);
            const item *s = NULL;
            int index = 0;
            for (int i = 0; i < n; i++) {
                if (!items[i].is_key && index++ == f * 4 + m)
                    s = &items[i];
            }
            assert_non_null(s);
            if (strcmp(s->colour, mode_key->colour) != 0)
                fail_msg("%s of %s is drawn in %s, its key entry in %s", modes[m], files[f],
                         s->colour, mode_key->colour);
            if (strcmp(s->dash, file_key->dash) != 0)
                fail_msg("%s of %s has dash type %s, the file's key entry %s", modes[m], files[f],
                         s->dash, file_key->dash);
            snprintf(colours[m], sizeof colours[m], "%s", s->colour);
            assert_int_equal(strncmp(s->data, datablock_prefix, strlen(datablock_prefix)), 0);
        }
        for (int g = 0; g < f; g++) {
            if (strcmp(key_titled(items, n, files[g])->dash, file_key->dash) == 0)
                fail_msg("%s and %s have the same line style", files[g], files[f]);
        }
    }
    for (int m = 0; m < 4; m++) {
        for (int o = 0; o < m; o++) {
            if (strcmp(colours[m], colours[o]) == 0)
                fail_msg("%s and %s share the colour %s", modes[o], modes[m], colours[m]);
        }
    }
}

static void test_three_stream_files(void **state)
{
    (void)state;
    char dir[512], path[4096], out[4096];
    report_test_tempdir(dir, sizeof dir);
    static const char *const p50[] = {"\"p50\": 3.17", "\"p50\": 3.27", "\"p50\": 3.37"};
    for (int f = 0; f < 3; f++) {
        snprintf(path, sizeof path, "%s/%c", dir, 'a' + f);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        report_test_copy_replacing(STREAM, path, "\"p50\": 3.17", p50[f]);
    }
    snprintf(out, sizeof out, "%s/report.html", dir);
    char a[4096], b[4096], c[4096];
    snprintf(a, sizeof a, "%s/%s", dir, files[0]);
    snprintf(b, sizeof b, "%s/%s", dir, files[1]);
    snprintf(c, sizeof c, "%s/%s", dir, files[2]);
    report_test_zc_fake_plots(dir, (const char *[]){"report", "-o", out,
                                                    ZC_REPORT_FIXTURES "/h200.bench.json", a, b, c,
                                                    NULL});
    snprintf(path, sizeof path, "%s/scripts.gp", dir);
    char *log = zc_test_read_file(path, NULL);
    char *latency = script_with(log, "Frame round-trip latency");
    char *histogram = script_with(log, "Distribution of frame latency");
    /* Each file's values reached the series drawn for it. */
    assert_non_null(strstr(latency, "0 p50 3.17\n"));
    assert_non_null(strstr(latency, "0 p50 3.27\n"));
    assert_non_null(strstr(latency, "0 p50 3.37\n"));
    char lat_colours[4][16], hist_colours[4][16];
    check_plot(latency, "$s", lat_colours);
    check_plot(histogram, "$h", hist_colours);
    /* The same mode, the same colour, in both plots. */
    for (int m = 0; m < 4; m++) {
        if (strcmp(lat_colours[m], hist_colours[m]) != 0)
            fail_msg("%s is %s in the latency plot and %s in the histogram", modes[m],
                     lat_colours[m], hist_colours[m]);
    }
    free(latency);
    free(histogram);
    free(log);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_stream_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
