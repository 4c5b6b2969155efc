/* zc trace --pcie-counters: run the program again under Nsight Compute (ncu), limited to the
 * kernels that were given host memory, and read back the PCIe bytes each one read. */
#include "trace_ncu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ZC__NCU_METRIC "pcie__read_bytes.sum"
#define ZC__NCU_FIELDS 32

/* Split one CSV line (fields in double quotes, "" for a quote) into fields, in place. */
static size_t zc__csv_fields(char *line, char **fields, size_t max)
{
    size_t count = 0;
    char *p = line;
    while (*p != '\0' && *p != '\n' && *p != '\r' && count < max) {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            start = out = p;
            while (*p != '\0' && !(p[0] == '"' && p[1] != '"')) {
                if (p[0] == '"' && p[1] == '"')
                    p++;
                *out++ = *p++;
            }
            if (*p == '"')
                p++;
        } else {
            while (*p != '\0' && *p != ',' && *p != '\n' && *p != '\r')
                *out++ = *p++;
        }
        char next = *p;
        *out = '\0';
        fields[count++] = start;
        if (next != ',')
            break;
        p++;
    }
    return count;
}

static int zc__column(char **fields, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(fields[i], name) == 0)
            return (int)i;
    }
    return -1;
}

size_t zc_cli_trace_ncu_parse(const char *text, zc_cli_trace_ncu *out)
{
    out->count = 0;
    char *copy = strdup(text != NULL ? text : "");
    if (copy == NULL)
        return 0;
    int name_at = -1, metric_at = -1, value_at = -1;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != '"')
            continue; /* ncu's own ==PROF== lines */
        char *fields[ZC__NCU_FIELDS];
        size_t n = zc__csv_fields(line, fields, ZC__NCU_FIELDS);
        if (name_at < 0) {
            name_at = zc__column(fields, n, "Kernel Name");
            metric_at = zc__column(fields, n, "Metric Name");
            value_at = zc__column(fields, n, "Metric Value");
            if (metric_at < 0 || value_at < 0)
                name_at = -1;
            continue;
        }
        if ((size_t)name_at >= n || (size_t)metric_at >= n || (size_t)value_at >= n ||
            strcmp(fields[metric_at], ZC__NCU_METRIC) != 0)
            continue;
        /* ncu writes thousands separators in its numbers. */
        char digits[64];
        size_t d = 0;
        for (const char *c = fields[value_at]; *c != '\0' && d + 1 < sizeof digits; c++) {
            if (*c != ',')
                digits[d++] = *c;
        }
        digits[d] = '\0';
        char *end = NULL;
        double value = strtod(digits, &end);
        if (d == 0 || end == NULL || *end != '\0' || value < 0)
            continue;
        char name[ZC_TRACE_LAUNCH_NAME];
        snprintf(name, sizeof name, "%s", fields[name_at]);
        size_t k = 0;
        while (k < out->count && strcmp(out->reads[k].name, name) != 0)
            k++;
        if (k == out->count) {
            if (k == ZC_CLI_TRACE_NCU_KERNELS)
                continue;
            memset(&out->reads[k], 0, sizeof out->reads[k]);
            /* Cut as the log cuts the names of launch records, so that the two compare equal. */
            snprintf(out->reads[k].name, sizeof out->reads[k].name, "%s", name);
            out->count++;
        }
        out->reads[k].launches++;
        out->reads[k].read_bytes += (uint64_t)value;
        if ((uint64_t)value > out->reads[k].max_read_bytes)
            out->reads[k].max_read_bytes = (uint64_t)value;
    }
    free(copy);
    return out->count;
}

/* The kernels named by launch records, as one ncu regex "regex:^(a|b)": a prefix, since the log
 * keeps at most 63 characters of a name (ncu's report is cut the same way when read); 0 when
 * none. */
static int zc__kernel_filter(const zc_trace_log *log, char *out, size_t size)
{
    char names[ZC_CLI_TRACE_NCU_KERNELS][ZC_TRACE_LAUNCH_NAME];
    size_t count = 0;
    for (size_t i = 0; i < log->launch_count && count < ZC_CLI_TRACE_NCU_KERNELS; i++) {
        const char *name = log->launches[i].name;
        int usable = name[0] != '\0' && strcmp(name, "?") != 0;
        for (const char *c = name; *c != '\0' && usable; c++)
            usable = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || *c == '_';
        for (size_t j = 0; j < count && usable; j++)
            usable = strcmp(names[j], name) != 0;
        if (usable)
            snprintf(names[count++], sizeof names[0], "%s", name);
    }
    if (count == 0)
        return 0;
    size_t at = (size_t)snprintf(out, size, "regex:^(");
    for (size_t j = 0; j < count && at < size; j++)
        at += (size_t)snprintf(out + at, size - at, "%s%s", j ? "|" : "", names[j]);
    return at < size && snprintf(out + at, size - at, ")") < (int)(size - at);
}

/* A whole small file, NUL-terminated, or NULL when it is missing (ncu writes no report when it
 * fails early): no message, the caller says why. */
static char *zc__slurp(const char *path)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while (text != NULL) {
        if (len + 1 == cap) {
            char *grown = cap < ((size_t)64 << 20) ? realloc(text, cap * 2) : NULL;
            if (grown == NULL)
                break;
            text = grown;
            cap *= 2;
        }
        size_t n = fread(text + len, 1, cap - len - 1, in);
        if (n == 0)
            break;
        len += n;
    }
    if (text != NULL)
        text[len] = '\0';
    fclose(in);
    return text;
}

/* Run argv with stdout to nowhere and stderr to err_path; the exit code as a shell gives it. */
static int zc__run_quiet(char *const *argv, const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
        }
        if (err >= 0)
            dup2(err, STDERR_FILENO);
        execvp(argv[0], argv);
        _exit(errno == ENOENT ? 127 : 126);
    }
    if (pid < 0)
        return 127;
    int status = 0;
    pid_t waited;
    do {
        waited = waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
    if (waited < 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char *zc__ncu_binary(void)
{
    const char *named = getenv(ZC_CLI_TRACE_NCU_ENV);
    if (named != NULL && named[0] != '\0')
        return named;
    static const char toolkit[] = "/usr/local/cuda/bin/ncu";
    const char *path = getenv("PATH");
    char candidate[4096];
    for (const char *p = path; p != NULL && *p != '\0';) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n > 0 && n + 5 < sizeof candidate) {
            snprintf(candidate, sizeof candidate, "%.*s/ncu", (int)n, p);
            if (access(candidate, X_OK) == 0)
                return "ncu";
        }
        p = colon ? colon + 1 : NULL;
    }
    return access(toolkit, X_OK) == 0 ? toolkit : NULL;
}

/* The first line of ncu's that says what went wrong, into why. */
static void zc__ncu_error(const char *text, int code, char *why, size_t size)
{
    if (text != NULL && strstr(text, "ERR_NVGPUCTRPERM") != NULL) {
        snprintf(why, size,
                 "ncu: the driver refused the performance counters "
                 "(ERR_NVGPUCTRPERM: profiling is restricted to administrators)");
        return;
    }
    const char *line = text != NULL ? strstr(text, "==ERROR==") : NULL;
    if (line != NULL) {
        size_t n = strcspn(line, "\n");
        snprintf(why, size, "ncu: %.*s", (int)(n < 200 ? n : 200), line);
        return;
    }
    snprintf(why, size, "ncu exited with code %d and measured none of the kernels", code);
}

int zc_cli_trace_ncu_measure(char *const *argv, const zc_trace_log *log, zc_cli_trace_ncu *out)
{
    memset(out, 0, sizeof *out);
    char filter[ZC_CLI_TRACE_NCU_KERNELS * (ZC_TRACE_LAUNCH_NAME + 1) + 16];
    if (!zc__kernel_filter(log, filter, sizeof filter)) {
        snprintf(out->why, sizeof out->why, "no kernel given host memory had a name to measure");
        return 0;
    }
    const char *ncu = zc__ncu_binary();
    if (ncu == NULL) {
        snprintf(out->why, sizeof out->why,
                 "ncu (Nsight Compute) was not found on PATH, in /usr/local/cuda/bin or in $%s",
                 ZC_CLI_TRACE_NCU_ENV);
        return 0;
    }
    char dir[] = "/tmp/zc-trace-ncu-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        snprintf(out->why, sizeof out->why, "no folder for ncu's report: %s", strerror(errno));
        return 0;
    }
    char report[sizeof dir + 16], errors[sizeof dir + 16];
    snprintf(report, sizeof report, "%s/ncu.csv", dir);
    snprintf(errors, sizeof errors, "%s/ncu.err", dir);
    size_t argc = 0;
    while (argv[argc] != NULL)
        argc++;
    const char *head[] = {ncu,
                          "--csv",
                          "--page",
                          "details",
                          "--print-units",
                          "base",
                          "--metrics",
                          ZC__NCU_METRIC,
                          "--kernel-name-base",
                          "mangled",
                          "--print-kernel-base",
                          "mangled",
                          "--kernel-name",
                          filter,
                          "--launch-count",
                          "64",
                          "--target-processes",
                          "all",
                          "--log-file",
                          report,
                          "--"};
    size_t head_count = sizeof head / sizeof head[0];
    char **full = calloc(head_count + argc + 1, sizeof *full);
    int code = 127;
    if (full != NULL) {
        for (size_t i = 0; i < head_count; i++)
            full[i] = (char *)head[i];
        for (size_t i = 0; i < argc; i++)
            full[head_count + i] = argv[i];
        code = zc__run_quiet(full, errors);
        free(full);
    }
    char *text = zc__slurp(report), *err_text = zc__slurp(errors);
    if (text != NULL)
        zc_cli_trace_ncu_parse(text, out);
    if (out->count == 0) {
        /* ncu says what went wrong in its report file or on stderr, depending on when. */
        int in_report =
            text != NULL && (strstr(text, "==ERROR==") || strstr(text, "ERR_NVGPUCTRPERM"));
        zc__ncu_error(in_report ? text : err_text, code, out->why, sizeof out->why);
    }
    free(text);
    free(err_text);
    unlink(report);
    unlink(errors);
    rmdir(dir);
    return out->count > 0;
}
