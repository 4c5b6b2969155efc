/* SPDX-License-Identifier: Apache-2.0 */
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

#include "zerocopy/file.h"

/* A whole small file, NUL-terminated, or NULL when it is missing (ncu writes no report when it
 * fails early): no message, the caller says why. */
static char *zc__slurp(const char *path)
{
    char *text = NULL;
    if (zc_file_read(path, (size_t)64 << 20, &text, NULL) != ZC_OK)
        zc_clear_error();
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

int zc_cli_trace_ncu_measure(char *const *argv, const zc_trace_log *log, zc_cli_trace_ncu *out)
{
    memset(out, 0, sizeof *out);
    char filter[ZC_TRACE_NCU_KERNELS * (ZC_TRACE_LAUNCH_NAME + 1) + 16];
    size_t kernels = 0;
    if (zc_trace_ncu_kernel_filter(log, filter, sizeof filter, &kernels) != ZC_OK) {
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
                          ZC_TRACE_NCU_METRIC,
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
    if (text != NULL &&
        zc_trace_ncu_parse(text, out->reads, ZC_TRACE_NCU_KERNELS, &out->count) != ZC_OK)
        out->count = 0;
    if (out->count == 0) {
        /* ncu says what went wrong in its report file or on stderr, depending on when. */
        int in_report =
            text != NULL && (strstr(text, "==ERROR==") || strstr(text, "ERR_NVGPUCTRPERM"));
        zc_trace_ncu_why(in_report ? text : err_text, code, out->why, sizeof out->why);
    }
    free(text);
    free(err_text);
    unlink(report);
    unlink(errors);
    rmdir(dir);
    return out->count > 0;
}
