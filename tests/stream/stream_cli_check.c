/* SPDX-License-Identifier: Apache-2.0 */
/* What zc stream's command-line tests share: an input file, a bounded run checked whole. */
#include "stream_cli_check.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "test_support.h"

void stream_cli_input(char *path, size_t samples, size_t nan_at)
{
    strcpy(path, "/tmp/zc_stream_in_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < samples; i++) {
        float v =
            i == nan_at
                ? NAN
                : (float)(0.5 * sin(0.05 * (double)i) + 0.4 * (double)(i % 1000) / 1000.0 - 0.2);
        assert_int_equal(fwrite(&v, sizeof v, 1, f), 1);
    }
    assert_int_equal(fclose(f), 0);
}

/* "zc stream ..." as one line, for failure messages. */
static void command_line(const char *const *argv, char *line, size_t size)
{
    size_t used = (size_t)snprintf(line, size, "zc");
    for (size_t i = 0; argv[i] != NULL && used < size; i++)
        used += (size_t)snprintf(line + used, size - used, " %s", argv[i]);
}

static double number(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

/* Every run of the document (one for the multi-lane schema) took and gave back samples:
 * the count of runs checked, or -1 with why in why. */
static int check_runs(const cJSON *doc, size_t samples, char *why, size_t size)
{
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    int checked = 0, n = runs != NULL ? cJSON_GetArraySize(runs) : 1;
    for (int i = 0; i < n; i++) {
        const cJSON *run = runs != NULL ? cJSON_GetArrayItem(runs, i) : doc;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, runs ? "name" : "mode");
        const char *label = cJSON_IsString(name) ? name->valuestring : "?";
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "skipped")))
            continue; /* --mode all: what this GPU cannot run, with the reason */
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(run, "samples");
        if (number(s, "in") != (double)samples || number(s, "out") != (double)samples) {
            snprintf(why, size, "%s: %.0f samples in, %.0f out, of %zu", label, number(s, "in"),
                     number(s, "out"), samples);
            return -1;
        }
        if (i == 0 && number(s, "written") != (double)samples) {
            snprintf(why, size, "%s: %.0f samples written, of %zu", label, number(s, "written"),
                     samples);
            return -1;
        }
        checked++;
    }
    return checked;
}

int stream_cli_check_all_out(const char *input, size_t samples, size_t channels,
                             stream_cli_from from, const char *const *args, const char *const *env)
{
    char out[] = "/tmp/zc_stream_out_XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    const char *argv[64];
    size_t n = 0;
    argv[n++] = "stream";
    argv[n++] = from == STREAM_CLI_PIPE ? "-" : input;
    for (size_t i = 0; args[i] != NULL && n < 56; i++)
        argv[n++] = args[i];
    const char *tail[] = {"--json", "-", "--output", out, "--force", NULL};
    for (size_t i = 0; i < 6; i++)
        argv[n++] = tail[i];
    char line[1024];
    command_line(argv, line, sizeof line);
    const zc_test_run_opts opts = {.stdin_path = from == STREAM_CLI_PIPE ? input : NULL,
                                   .stdin_pipe = 1,
                                   .timeout_ms = STREAM_CLI_TIMEOUT_MS,
                                   .pause_ms = 1};
    zc_test_output r;
    zc_test_run_zc_bounded(argv, env, &opts, &r);
    struct stat info;
    const long long written = stat(out, &info) == 0 ? (long long)info.st_size : -1;
    unlink(out);
    if (r.exit_code != 0)
        fail_msg("'%s' (%s): exit %d\nstderr: %.3000s", line,
                 from == STREAM_CLI_PIPE ? "from a pipe" : "from a file", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    if (doc == NULL)
        fail_msg("'%s': not JSON: %.300s\nstderr: %.2000s", line, r.out, r.err);
    char why[256] = "";
    int checked = check_runs(doc, samples, why, sizeof why);
    cJSON_Delete(doc);
    const size_t bytes = samples * channels * sizeof(float);
    if (checked < 0 || written != (long long)bytes)
        fail_msg("'%s' (%s): %s; output %lld bytes of %zu\nstderr: %.3000s", line,
                 from == STREAM_CLI_PIPE ? "from a pipe" : "from a file",
                 checked < 0 ? why : "every run whole", written, bytes, r.err);
    zc_test_output_free(&r);
    return checked;
}
