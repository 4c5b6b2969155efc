/* zc report: one self-contained HTML page from zc bench, zc stream and profile results. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "advise_json.h"
#include "cli.h"
#include "report_page.h"

static const char zc__report_usage[] =
    "zc report [-o FILE] [--title TEXT] [--picture-dot FILE] RESULT.json...";

static void zc__report_help(void)
{
    printf("usage: %s\n\n"
           "Write one self-contained HTML page (every picture embedded) from zc bench and\n"
           "zc stream JSON results, or from a machine profile (\"%s\"): the machine, the\n"
           "chapter's comparison table with measured numbers, plots of copy bandwidth against\n"
           "size, zero-copy access patterns, the crossover, latency per stream mode and\n"
           "allocation cost, the picture of the techniques, and advice for typical workloads.\n"
           "Plots need gnuplot and the picture graphviz (dot); without them the page says\n"
           "which is missing and keeps its tables.\n\n"
           "Options:\n"
           "  -o, --output FILE    where to write the page (default zc-report.html)\n"
           "  --title TEXT         the page's title\n"
           "  --picture-dot FILE   also write the picture's graphviz source to FILE\n"
           "  -h, --help           this help\n\n"
           "Environment: ZC_GNUPLOT and ZC_DOT name other programs to run instead.\n",
           zc__report_usage, ZC_PROFILE_SCHEMA);
}

/* Add one input document to the report's inputs; the document is kept (owned by docs). */
static int zc__add_input(zc_report_input *in, const char *path, cJSON *doc)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const char *s = cJSON_IsString(schema) ? schema->valuestring : "";
    zc_profile p;
    zc_status status;
    if (strncmp(s, "zerocopy.bench/", 15) == 0 || strncmp(s, "zerocopy.profile/", 17) == 0) {
        int bench = s[9] == 'b';
        if (bench && in->bench == NULL) {
            in->bench = doc;
            const cJSON *machine = cJSON_GetObjectItemCaseSensitive(doc, "machine");
            if (cJSON_IsObject(machine))
                in->machine = machine;
        }
        if (in->have_profile) {
            fprintf(stderr, "zc report: %s: using the figures of the first result only\n", path);
            return 1;
        }
        status = bench ? zc_profile_from_bench_json(doc, &p) : zc_profile_from_json(doc, &p);
        if (status != ZC_OK) {
            fprintf(stderr, "zc report: %s: no usable profile in it (%s)\n", path,
                    zc_status_str(status));
            return bench; /* a bench result still gives the machine and the comparison */
        }
        if (p.source[0] == '\0')
            snprintf(p.source, sizeof p.source, "%s", path);
        in->measured = p;
        status = zc_profile_fill_gaps(&p, in->notes, sizeof in->notes);
        if (status == ZC_OK) {
            in->profile = p;
            in->have_profile = 1;
        }
        return 1;
    }
    if (strncmp(s, "zerocopy.stream/", 16) == 0) {
        if (in->stream_count >= sizeof in->streams / sizeof in->streams[0]) {
            fprintf(stderr, "zc report: %s: too many stream results, ignored\n", path);
            return 1;
        }
        in->streams[in->stream_count++] = doc;
        return 1;
    }
    if (strncmp(s, "zerocopy.pinning", 16) == 0) {
        if (in->pinning == NULL)
            in->pinning = doc;
        return 1;
    }
    if (strncmp(s, "zerocopy.info/", 14) == 0) {
        if (in->machine == NULL)
            in->machine = doc;
        return 1;
    }
    fprintf(
        stderr,
        "zc report: %s: schema \"%s\" is not a bench, stream, pinning, profile or info result\n",
        path, s);
    return 0;
}

int zc_cmd_report(int argc, char **argv)
{
    enum { OPT_TITLE = 256, OPT_DOT };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"title", required_argument, NULL, OPT_TITLE},
        {"picture-dot", required_argument, NULL, OPT_DOT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out_path = "zc-report.html", *title = NULL, *dot_path = NULL;
    int opt;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":ho:", options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            out_path = optarg;
            break;
        case OPT_TITLE:
            title = optarg;
            break;
        case OPT_DOT:
            dot_path = optarg;
            break;
        case 'h':
            zc__report_help();
            return ZC_EXIT_OK;
        case ':':
            return zc_cli_usage_error("report", zc__report_usage, "%s needs a value",
                                      argv[optind - 1]);
        default:
            return zc_cli_usage_error("report", zc__report_usage, "unknown option '%s'",
                                      argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return zc_cli_usage_error("report", zc__report_usage,
                                  "give at least one zc bench, zc stream or profile JSON file");
    int count = argc - optind;
    cJSON **docs = calloc((size_t)count, sizeof *docs);
    zc_report_input *in = calloc(1, sizeof *in);
    int code = ZC_EXIT_OK;
    if (docs == NULL || in == NULL) {
        code = zc_cli_fail("report", "starting", ZC_ERR_NO_MEMORY);
        goto done;
    }
    for (int i = 0; i < count; i++) {
        const char *path = argv[optind + i];
        char *text = zc_advise_read_file(path);
        if (text == NULL) {
            fprintf(stderr, "zc report: cannot read %s\n", path);
            code = ZC_EXIT_USAGE;
            goto done;
        }
        docs[i] = cJSON_Parse(text);
        free(text);
        if (docs[i] == NULL || !zc__add_input(in, path, docs[i])) {
            if (docs[i] == NULL)
                fprintf(stderr, "zc report: %s is not JSON\n", path);
            code = ZC_EXIT_USAGE;
            goto done;
        }
        size_t used = strlen(in->sources);
        snprintf(in->sources + used, sizeof in->sources - used, "%s%s", used ? ", " : "", path);
    }
    if (title == NULL) {
        static char made[200];
        snprintf(made, sizeof made, "Moving data to and from %s",
                 in->measured.device_name[0] ? in->measured.device_name : "the GPU");
        title = made;
    }
    if (dot_path != NULL) {
        char link[160];
        zc_report_link_text(in->machine, link, sizeof link);
        char *dot = zc_picture_dot(&in->measured, link);
        FILE *f = dot != NULL ? fopen(dot_path, "w") : NULL;
        int ok = f != NULL && fputs(dot, f) >= 0;
        if (f != NULL && fclose(f) != 0)
            ok = 0;
        free(dot);
        if (!ok) {
            fprintf(stderr, "zc report: cannot write %s\n", dot_path);
            code = ZC_EXIT_FAILURE;
            goto done;
        }
    }
    zc_buf page = {0};
    char why[256];
    if (!zc_report_html(in, title, &page, why, sizeof why)) {
        zc_buf_free(&page);
        fprintf(stderr, "zc report: %s\n", why);
        code = ZC_EXIT_FAILURE;
        goto done;
    }
    FILE *f = fopen(out_path, "w");
    int ok = f != NULL && fwrite(page.data, 1, page.len, f) == page.len;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    zc_buf_free(&page);
    if (!ok) {
        fprintf(stderr, "zc report: cannot write %s\n", out_path);
        code = ZC_EXIT_FAILURE;
        goto done;
    }
    printf("report: %s\n", out_path);
done:
    for (int i = 0; docs != NULL && i < count; i++)
        cJSON_Delete(docs[i]);
    free(docs);
    free(in);
    return code;
}
