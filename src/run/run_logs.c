/* SPDX-License-Identifier: Apache-2.0 */
/* The run's side that zc run reads: the cure names, a --fix list, the logs summed. */
#include "zerocopy/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "run_record.h"

ZC_EXTERN const char *zc_run_fix_name(zc_run_fix fix)
{
    return zc__run_fix_name(fix);
}

ZC_EXTERN const char *zc_run_counter_name(zc_run_counter counter)
{
    return zc__run_counter_name(counter);
}

ZC_EXTERN const char *zc_run_counter_meaning(zc_run_counter counter)
{
    return zc__run_counter_meaning(counter);
}

ZC_EXTERN int zc_run_counter_cured(zc_run_counter counter)
{
    return zc__run_counter_cured(counter);
}

ZC_EXTERN zc_run_fix zc_run_counter_fix(zc_run_counter counter)
{
    return zc__run_counter_fix(counter);
}

ZC_EXTERN const char *zc_run_pricing_name(zc_run_pricing pricing)
{
    return zc__run_pricing_name(pricing);
}

/* Whether the n bytes at p are the word "all" or "none". */
static int zc__fixes_word_is_set(const char *p, size_t n)
{
    return (n == 3 && strncmp(p, "all", 3) == 0) || (n == 4 && strncmp(p, "none", 4) == 0);
}

/*
 * A list that names "all" or "none" beside anything else, or one cure twice, says two things
 * at once ("all,none"): which was meant is a guess, so it is refused rather than read as the
 * widest. The shared reader (run_record.c, which the preload also uses) takes such lists as
 * they come, so the rule is here, on the side that reads what people type.
 */
static zc_status zc__fixes_conflict(const char *list)
{
    int several = strchr(list, ',') != NULL;
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        if (several && zc__fixes_word_is_set(p, n))
            return ZC_FAIL(ZC_ERR_PARSE,
                           "zc_run_fixes_parse: '%.*s' cannot be combined with other cures "
                           "in '%.100s'",
                           (int)n, p, list);
        for (const char *q = p + n; *q == ',';) {
            q++;
            size_t m = strcspn(q, ",");
            if (m == n && strncmp(p, q, n) == 0)
                return ZC_FAIL(ZC_ERR_PARSE,
                               "zc_run_fixes_parse: '%.*s' is named twice in '%.100s'", (int)n, p,
                               list);
            q += m;
        }
        p += n;
        if (*p == '\0')
            return ZC_OK;
        p++;
    }
}

ZC_EXTERN zc_status zc_run_fixes_parse(const char *list, unsigned *fixes_p)
{
    ZC_REQUIRE_ARG(list);
    ZC_REQUIRE_ARG(fixes_p);
    unsigned fixes = 0;
    const char *bad;
    size_t n;
    /* Unknown names first: a misspelt cure is the plainer mistake to hear about. */
    if (zc__run_fixes_from_list(list, &fixes, &bad, &n) != 0) {
        char known[128] = "";
        for (int i = 0; i < ZC_RUN_FIX_COUNT; i++) {
            strncat(known, zc__run_fix_name((zc_run_fix)i), sizeof known - strlen(known) - 1);
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        }
        return ZC_FAIL(ZC_ERR_PARSE, "zc_run_fixes_parse: unknown cure '%.*s' (known: %sall, none)",
                       (int)(n > 64 ? 64 : n), bad, known);
    }
    ZC_CHECK(zc__fixes_conflict(list));
    *fixes_p = fixes;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_run_fixes_format(unsigned fixes, char *out, size_t size)
{
    ZC_REQUIRE_ARG(out);
    if (size == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_run_fixes_format: no room (size 0)");
    out[0] = '\0';
    for (int i = 0; i < ZC_RUN_FIX_COUNT; i++) {
        if (!(fixes & (1u << i)))
            continue;
        if (out[0] != '\0')
            strncat(out, ",", size - strlen(out) - 1);
        strncat(out, zc__run_fix_name((zc_run_fix)i), size - strlen(out) - 1);
    }
    if (out[0] == '\0')
        snprintf(out, size, "none");
    return ZC_OK;
}

/* A log's counts added to the summary; the pricing kept is the weakest of those with calls. */
static void zc__add_count(zc_run_count *sum, const zc_run_count *c)
{
    if (c->calls == 0)
        return;
    if (sum->calls == 0 || c->pricing < sum->pricing)
        sum->pricing = c->pricing;
    sum->calls += c->calls;
    sum->bytes += c->bytes;
    sum->ns += c->ns;
    sum->uncured_ns += c->uncured_ns;
}

/* Whether name is "<digits>.run", the only name the library gives a log. */
static int zc__log_name(const char *name)
{
    size_t digits = strspn(name, "0123456789");
    return digits > 0 && strcmp(name + digits, ".run") == 0;
}

/*
 * Open the log name of the folder dir_fd as a regular file, or give -1 with errno 0 when it is
 * something else: the folder is the program's to write in, and a FIFO there would block a
 * plain open for ever, a link would read a file outside it. Checked before opening (a device
 * is not even opened) and again on what was opened (the name may have changed in between).
 */
static int zc__open_log(int dir_fd, const char *name)
{
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            errno = 0;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        errno = 0;
        return -1;
    }
    int fd = openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP || errno == ENXIO)
            errno = 0;
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = 0;
        return -1;
    }
    return fd;
}

/* Sum one open log into summary; f is closed. */
static zc_status zc__sum_log(FILE *f, const char *path, zc_run_summary *summary)
{
    char text[ZC__RUN_LINE_MAX];
    unsigned number = 0;
    int ended = 0, headed = 0;
    zc_status status = ZC_OK;
    while (fgets(text, sizeof text, f) != NULL) {
        number++;
        zc__run_line line;
        if (zc__run_parse_line(text, &line) != 0 || (line.tag != ZC__RUN_HEADER && !headed) ||
            (line.tag == ZC__RUN_HEADER && headed)) {
            status = ZC_FAIL(ZC_ERR_PARSE, "zc_run_logs_read: %s line %u is not a zc run record",
                             path, number);
            break;
        }
        if (line.tag == ZC__RUN_HEADER) {
            headed = 1;
            summary->fixes |= line.header.fixes;
            if (summary->processes == 0) {
                summary->threads = line.header.threads;
                summary->chunk_bytes = line.header.chunk_bytes;
                summary->staging_buffers = line.header.staging_buffers;
                summary->min_bytes = line.header.min_bytes;
                summary->min_d2h_bytes = line.header.min_d2h_bytes;
            }
        } else if (line.tag == ZC__RUN_COUNT) {
            zc__add_count(&summary->counts[line.counter], &line.count);
        } else if (line.tag == ZC__RUN_END) {
            ended = 1;
        }
    }
    fclose(f);
    ZC_CHECK(status);
    if (!headed)
        return ZC_OK; /* created but never written: the process died before its exit */
    summary->processes++;
    if (!ended)
        summary->processes_cut++;
    return ZC_OK;
}

static zc_status zc__read_log(int dir_fd, const char *dir, const char *name,
                              zc_run_summary *summary)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_run_logs_read: path too long in %s", dir);
    int fd = zc__open_log(dir_fd, name);
    if (fd < 0 && errno == 0)
        return ZC_OK; /* not a log, or gone */
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (f == NULL) {
        int error = errno;
        if (fd >= 0)
            close(fd);
        return ZC_FAIL(ZC_ERR_IO, "zc_run_logs_read: cannot open %s: %s", path, strerror(error));
    }
    return zc__sum_log(f, path, summary);
}

ZC_EXTERN zc_status zc_run_logs_read(const char *dir, zc_run_summary *summary_p)
{
    ZC_REQUIRE_ARG(dir);
    ZC_REQUIRE_ARG(summary_p);
    DIR *folder = opendir(dir);
    if (folder == NULL)
        return ZC_FAIL(ZC_ERR_IO, "zc_run_logs_read: cannot open the folder %s: %s", dir,
                       strerror(errno));
    zc_run_summary summary;
    memset(&summary, 0, sizeof summary);
    zc_status status = ZC_OK;
    struct dirent *entry;
    while (status == ZC_OK && (entry = readdir(folder)) != NULL) {
        if (zc__log_name(entry->d_name))
            status = zc__read_log(dirfd(folder), dir, entry->d_name, &summary);
    }
    closedir(folder);
    if (status == ZC_OK)
        *summary_p = summary;
    return status;
}
