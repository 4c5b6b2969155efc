/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace on plain programs: the program's output and exit code pass through untouched, and
 * the summary says there was no CUDA activity. */
#include "test_support.h"
#include "test_json_file.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static const char expected_stdout[] = "hello from the traced program: 2 arguments\n";

static void test_exit_code_and_stdout_pass_through(void **state)
{
    (void)state;
    zc_test_output r;
    /* The program's own options come after its name and must reach it untouched. */
    zc_test_run_zc((const char *[]){"trace", "--", ZC_TEST_EXIT_SEVEN, "--json", "x", NULL}, NULL,
                   &r);
    fprintf(stderr, "stderr was:\n%s", r.err);
    assert_int_equal(r.exit_code, 7);
    assert_string_equal(r.out, expected_stdout);
    assert_non_null(strstr(r.err, "exited with code 7"));
    assert_non_null(strstr(r.err, "no CUDA activity"));
    zc_test_output_free(&r);

    /* Without "--" the first word that is not an option is the program. */
    zc_test_run_zc((const char *[]){"trace", ZC_TEST_EXIT_SEVEN, "-h", "x", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 7);
    assert_string_equal(r.out, expected_stdout);
    zc_test_output_free(&r);
}

static void test_json_says_not_traced(void **state)
{
    (void)state;
    char path[] = "/tmp/zc-trace-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--force", "--json", path, "--", ZC_TEST_EXIT_SEVEN,
                                    "a", "b", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 7);
    assert_string_equal(r.out, expected_stdout);
    zc_test_output_free(&r);

    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    unlink(path);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text);
    if (doc == NULL)
        fail_msg("not JSON: %s", text);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.trace/1");
    assert_int_equal(cJSON_GetObjectItem(doc, "exit_code")->valueint, 7);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "traced")));
    assert_non_null(strstr(cJSON_GetObjectItem(doc, "why_not_traced")->valuestring, "no CUDA"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "findings")), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "program")), 3);
    cJSON_Delete(doc);
}

static void test_summary_to_file(void **state)
{
    (void)state;
    char path[] = "/tmp/zc-trace-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--force", "--output", path, "--", ZC_TEST_EXIT_SEVEN,
                                    "a", "b", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 7);
    assert_string_equal(r.out, expected_stdout);
    assert_string_equal(r.err, "");
    zc_test_output_free(&r);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    unlink(path);
    text[n] = '\0';
    assert_non_null(strstr(text, "no CUDA activity"));
}

static void test_missing_library_runs_nothing(void **state)
{
    (void)state;
    zc_test_output r;
    /* A library given with --lib that is not there is a bad command line: nothing runs. */
    zc_test_run_zc((const char *[]){"trace", "--lib", "/nonexistent/libzerocopy_trace.so", "--",
                                    ZC_TEST_EXIT_SEVEN, "a", "b", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "--lib"));
    assert_non_null(strstr(r.err, "cannot be read"));
    zc_test_output_free(&r);
    /* So is one set in the environment: the program is not run untraced
     * (cpu_trace_before_run has the other cases). */
    zc_test_run_zc((const char *[]){"trace", "--", ZC_TEST_EXIT_SEVEN, "a", "b", NULL},
                   (const char *[]){"ZC_TRACE_LIB=/nonexistent/lib.so", NULL}, &r);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "ZC_TRACE_LIB"));
    zc_test_output_free(&r);
}

static void test_signals_and_missing_programs(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--", "/bin/sh", "-c", "kill -TERM $$", NULL}, NULL,
                   &r);
    assert_int_equal(r.exit_code, 128 + 15);
    assert_non_null(strstr(r.err, "killed by signal 15"));
    zc_test_output_free(&r);

    zc_test_run_zc((const char *[]){"trace", "--", "/nonexistent/program", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 127);
    assert_non_null(strstr(r.err, "cannot run '/nonexistent/program'"));
    zc_test_output_free(&r);
}

static void test_usage_errors(void **state)
{
    (void)state;
    static const struct {
        const char *args[8];
        const char *message;
    } cases[] = {
        {{"trace", NULL}, "no program to run"},
        {{"trace", "--bogus", "true", NULL}, "unknown option '--bogus'"},
        {{"trace", "--json", NULL}, "needs a value"},
        {{"trace", "--ram", "lots", "true", NULL}, "--ram: 'lots' is not a byte count"},
        {{"trace", "--ceiling", "-5", "true", NULL}, "--ceiling needs"},
        {{"trace", "--device", "x", "true", NULL}, "GPU number"},
        {{"trace", "--bench", "b.json", "--ceiling", "50", "true"}, "exclude each other"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zc_test_output r;
        zc_test_run_zc(cases[i].args, NULL, &r);
        if (r.exit_code != 2 || strstr(r.err, cases[i].message) == NULL)
            fail_msg("case %zu: exit %d, stderr '%s', expected '%s'", i, r.exit_code, r.err,
                     cases[i].message);
        assert_non_null(strstr(r.err, "usage: zc trace"));
        assert_string_equal(r.out, "");
        zc_test_output_free(&r);
    }
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--help", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "usage: zc trace"));
    assert_non_null(strstr(r.out, "zerocopy.trace/1"));
    zc_test_output_free(&r);
}

/* The whole pipeline without a GPU: the "program" writes a log into the folder zc trace gives it
 * (as the injection library would), and zc trace reads, analyses and reports it. The library
 * path only has to be readable: the shell never loads CUDA. */
static void test_log_written_in_the_program_is_reported(void **state)
{
    (void)state;
    char keep[] = "/tmp/zc-trace-keep-XXXXXX";
    assert_non_null(mkdtemp(keep));
    char json_path[512];
    snprintf(json_path, sizeof json_path, "%s/out.json", keep);
    const char *script =
        "test -n \"$ZC_TRACE_DIR\" && test -n \"$CUDA_INJECTION64_PATH\" || exit 9; "
        "{ echo 'zctrace 1 pid=1 ram=68719476736'; i=0; "
        "while [ $i -lt 40 ]; do "
        "echo \"copy h2d pageable device 1048576 $((i*200000)) $((i*200000+150000)) 7 0 0\"; "
        "i=$((i+1)); done; echo end; } > \"$ZC_TRACE_DIR/1.log\"; echo program-output; exit 3";
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--ceiling", "50",
                                    "--keep-logs", keep, "--json", json_path, "--", "/bin/sh", "-c",
                                    script, NULL},
                   NULL, &r);
    fprintf(stderr, "stderr was:\n%s", r.err);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "program-output\n");
    assert_non_null(strstr(r.err, "1 process traced"));
    assert_non_null(strstr(r.err, "H2D pageable->device"));
    assert_non_null(strstr(r.err, "[warning] pageable_transfers"));
    assert_non_null(strstr(r.err, "fix:"));
    assert_non_null(strstr(r.err, "50.0 GB/s per direction, given with --ceiling"));
    zc_test_output_free(&r);

    FILE *in = fopen(json_path, "r");
    assert_non_null(in);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text);
    if (doc == NULL)
        fail_msg("not JSON: %s", text);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "traced")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "complete")));
    assert_int_equal(cJSON_GetObjectItem(doc, "exit_code")->valueint, 3);
    cJSON *path = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "paths"), 0);
    assert_string_equal(cJSON_GetObjectItem(path, "src_kind")->valuestring, "pageable");
    assert_int_equal(cJSON_GetObjectItem(path, "count")->valueint, 40);
    assert_int_equal(cJSON_GetObjectItem(path, "sync_count")->valueint, 40);
    assert_double_equal(cJSON_GetObjectItem(path, "bytes")->valuedouble, 40.0 * 1048576, 0.5);
    cJSON *finding = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "findings"), 0);
    assert_string_equal(cJSON_GetObjectItem(finding, "key")->valuestring, "pageable_transfers");
    assert_true(cJSON_GetObjectItem(finding, "saving_s")->valuedouble > 0);
    assert_double_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "ceiling"), "gbps")->valuedouble, 50.0, 1e-12);
    cJSON_Delete(doc);

    /* --keep-logs kept the log where the program wrote it. */
    char log_path[512];
    snprintf(log_path, sizeof log_path, "%s/1.log", keep);
    assert_int_equal(access(log_path, R_OK), 0);
    unlink(log_path);
    unlink(json_path);
    assert_int_equal(rmdir(keep), 0);
}

/* The traced program gets the copy library beside the injection library in LD_PRELOAD, for the
 * host copies; without it there, no LD_PRELOAD from zc trace, and the reason for the log's note.
 * The "injection library" is an empty file: the shell never loads CUDA. */
static void test_copy_library_preloaded(void **state)
{
    (void)state;
    char dir[] = "/tmp/zc-trace-copy-XXXXXX", lib[128], copy[128];
    assert_non_null(mkdtemp(dir));
    snprintf(lib, sizeof lib, "%s/libzerocopy_trace.so", dir);
    snprintf(copy, sizeof copy, "%s/libzerocopy_run_copy.so", dir);
    FILE *f = fopen(lib, "w");
    assert_non_null(f);
    fclose(f);
    const char *script = "printf '%s|%s' \"$LD_PRELOAD\" \"$ZC_TRACE_COPY_HOOKS_ABSENT\"";
    const char *args[] = {"trace", "--lib", lib, "--", "/bin/sh", "-c", script, NULL};
    zc_test_output r;
    zc_test_run_zc(args, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "|libzerocopy_run_copy.so is not beside the injection library"));
    assert_int_equal(r.out[0], '|'); /* no LD_PRELOAD of zc trace's */
    zc_test_output_free(&r);

    assert_int_equal(symlink(ZC_TEST_COPY_LIB, copy), 0);
    zc_test_run_zc(args, NULL, &r);
    char expected[256];
    snprintf(expected, sizeof expected, "%s|", copy);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, expected);
    zc_test_output_free(&r);
    unlink(copy);
    unlink(lib);
    assert_int_equal(rmdir(dir), 0);
}

/* zc trace --bench FILE -- a "program" that writes a log of 256 blocks of 64 KiB copied to the
 * device one call each; findings is the document's findings array (the caller deletes doc). */
static cJSON *trace_blocks(const char *bench, char *err, size_t err_size)
{
    char json_path[] = "/tmp/zc-trace-blocks-XXXXXX";
    int fd = mkstemp(json_path);
    assert_true(fd >= 0);
    close(fd);
    const char *script =
        "{ echo 'zctrace 2 pid=1 ram=68719476736'; i=0; "
        "while [ $i -lt 256 ]; do "
        "echo \"copy h2d pinned device 65536 $((i*4830)) $((i*4830+3830)) 7 1 0\"; "
        "i=$((i+1)); done; echo end; } > \"$ZC_TRACE_DIR/1.log\"";
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--bench", bench,
                                    "--force", "--json", json_path, "--", "/bin/sh", "-c", script,
                                    NULL},
                   NULL, &r);
    fprintf(stderr, "stderr was:\n%s", r.err);
    assert_int_equal(r.exit_code, 0);
    snprintf(err, err_size, "%s", r.err);
    zc_test_output_free(&r);
    size_t len = 0;
    char *text = zc_test_read_file(json_path, &len);
    unlink(json_path);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    return doc;
}

static const cJSON *finding_of(const cJSON *doc, const char *key)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings"))
    {
        if (strcmp(cJSON_GetObjectItem(f, "key")->valuestring, key) == 0)
            return f;
    }
    fail_msg("no finding %s", key);
    return NULL;
}

/* --bench with the block family prices block_copies; a document without it gives the ceiling
 * alone, as before, and the finding unpriced. */
static void test_bench_prices_block_copies(void **state)
{
    (void)state;
    static char err[16384];
    cJSON *doc = trace_blocks(ZC_BLOCKS_BENCH, err, sizeof err);
    const cJSON *f = finding_of(doc, "block_copies");
    const cJSON *saving = cJSON_GetObjectItem(f, "saving_s");
    assert_true(cJSON_IsNumber(saving));
    assert_true(saving->valuedouble > 0);
    assert_true(saving->valuedouble < cJSON_GetObjectItem(f, "time_s")->valuedouble);
    assert_null(strstr(err, "gives no profile"));
    cJSON_Delete(doc);

    char bench[] = "/tmp/zc-trace-bench-XXXXXX";
    int fd = mkstemp(bench);
    assert_true(fd >= 0);
    const char text[] =
        "{\"schema\":\"zerocopy.bench/1\",\"cases\":["
        "{\"key\":\"copy.h2d.pinned\",\"group\":\"copy\",\"technique\":\"pinned\","
        "\"direction\":\"h2d\",\"outcome\":\"ok\",\"points\":["
        "{\"bytes\":268435456,\"metric\":\"bandwidth\",\"stats\":{\"median\":55.4}}]}]}";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    doc = trace_blocks(bench, err, sizeof err);
    unlink(bench);
    f = finding_of(doc, "block_copies");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "saving_s")));
    assert_non_null(strstr(cJSON_GetObjectItem(f, "evidence")->valuestring, "--bench FILE"));
    assert_null(strstr(err, "gives no profile"));
    assert_double_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "ceiling"), "gbps")->valuedouble, 55.4, 1e-9);
    cJSON_Delete(doc);
}

/* A block family that cannot be fitted (the H100 document with one point's samples negative) is
 * said on stderr; the trace goes on, block_copies unpriced. */
static void test_bench_unfitted_block_family(void **state)
{
    (void)state;
    cJSON *bench_doc = zc_test_json_file(ZC_BLOCKS_BENCH);
    int spoiled = 0;
    const cJSON *c, *pt;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(bench_doc, "cases"))
    {
        if (strcmp(cJSON_GetObjectItem(c, "key")->valuestring, "blocks.d2h") != 0)
            continue;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItem(c, "points"))
        {
            cJSON *sample;
            if (spoiled || strcmp(cJSON_GetObjectItem(pt, "variant")->valuestring, "batch") != 0)
                continue;
            cJSON_ArrayForEach(sample, cJSON_GetObjectItem(pt, "samples"))
                cJSON_SetNumberValue(sample, -sample->valuedouble);
            spoiled = 1;
        }
    }
    assert_true(spoiled);
    char bench[] = "/tmp/zc-trace-bench-XXXXXX";
    int fd = mkstemp(bench);
    assert_true(fd >= 0);
    char *printed = cJSON_PrintUnformatted(bench_doc);
    assert_non_null(printed);
    ssize_t size = (ssize_t)strlen(printed);
    assert_int_equal(write(fd, printed, (size_t)size), size);
    close(fd);
    free(printed);
    cJSON_Delete(bench_doc);
    static char err[16384];
    cJSON *doc = trace_blocks(bench, err, sizeof err);
    unlink(bench);
    assert_non_null(strstr(err, "its block family gives no profile"));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(finding_of(doc, "block_copies"), "saving_s")));
    cJSON_Delete(doc);
}

/* A log zc trace cannot read is reported as such, and the program's exit code still wins. */
static void test_malformed_log_is_reported(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--", "/bin/sh", "-c",
                                    "echo garbage > \"$ZC_TRACE_DIR/9.log\"; exit 4", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 4);
    assert_non_null(strstr(r.err, "could not be read"));
    assert_non_null(strstr(r.err, "9.log:1"));
    zc_test_output_free(&r);
}

/* With --json - stdout holds the document alone: what the program printed on its stdout goes to
 * stderr, so that `zc trace --json - -- ./app | jq` reads JSON. */
static void test_json_to_stdout_alone(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--json", "-", "--",
                                    ZC_TEST_EXIT_SEVEN, "a", "b", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 7);
    cJSON *doc = cJSON_Parse(r.out);
    if (doc == NULL)
        fail_msg("stdout is not JSON alone: %s", r.out);
    assert_int_equal(cJSON_GetObjectItem(doc, "exit_code")->valueint, 7);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "traced")));
    cJSON_Delete(doc);
    assert_non_null(strstr(r.err, expected_stdout));
    zc_test_output_free(&r);

    /* The JSON in a file: the program's stdout stays on stdout. */
    char path[] = "/tmp/zc-trace-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--force", "--json", path,
                                    "--", ZC_TEST_EXIT_SEVEN, "a", "b", NULL},
                   NULL, &r);
    unlink(path);
    assert_int_equal(r.exit_code, 7);
    assert_string_equal(r.out, expected_stdout);
    zc_test_output_free(&r);
}

/* --json - puts the document on stdout (the program's stdout going to stderr); a trace that
 * failed, or results that could not be written, turn a program's 0 into 1; a program's own
 * failure always wins. */
static void test_json_to_stdout_and_exit_codes(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--json", "-", "--",
                                    "/bin/sh", "-c", "exit 0", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 0);
    cJSON *doc = cJSON_Parse(r.out);
    if (doc == NULL)
        fail_msg("stdout is not JSON: %s", r.out);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.trace/1");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "traced")));
    assert_non_null(
        strstr(cJSON_GetObjectItem(doc, "why_not_traced")->valuestring, "no CUDA activity"));
    cJSON_Delete(doc);
    zc_test_output_free(&r);

    /* A log it cannot read, of a program that succeeded. */
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--", "/bin/sh", "-c",
                                    "echo garbage > \"$ZC_TRACE_DIR/9.log\"", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.err, "could not be read"));
    zc_test_output_free(&r);

    /* A JSON write that fails (a full disk): 1, unless the program failed itself. */
    if (access("/dev/full", W_OK) == 0) {
        zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--json", "/dev/full",
                                        "--", "/bin/sh", "-c", "exit 0", NULL},
                       NULL, &r);
        assert_int_equal(r.exit_code, 1);
        zc_test_output_free(&r);
        zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--json", "/dev/full",
                                        "--", "/bin/sh", "-c", "exit 3", NULL},
                       NULL, &r);
        assert_int_equal(r.exit_code, 3);
        zc_test_output_free(&r);
    }
}

/* Two processes (a program and the child it started) write a log each: both are read and
 * reported one by one. */
static void test_every_process_is_reported(void **state)
{
    (void)state;
    const char *script =
        "for p in 101 102; do { echo \"zctrace 2 pid=$p ram=68719476736\"; "
        "echo \"copy h2d pinned device 4096 100 200 7 1 0\"; echo 'launches 0 0 0'; "
        "echo end; } > \"$ZC_TRACE_DIR/$p.log\"; done";
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--ceiling", "50",
                                    "--json", "-", "--", "/bin/sh", "-c", script, NULL},
                   NULL, &r);
    fprintf(stderr, "stderr was:\n%s", r.err);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "2 processes traced"));
    assert_non_null(strstr(r.err, "process 101: 1 copies"));
    assert_non_null(strstr(r.err, "process 102: 1 copies"));
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    const cJSON *list = cJSON_GetObjectItem(doc, "process_list");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "pid")->valueint, 101);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "pid")->valueint, 102);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

/* A fake ncu for --pcie-counters: writes the report an ncu run would (or its refusal) into the
 * --log-file it is given. */
static void write_fake_ncu(const char *path, int refuse)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nlog=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=$2; "
          "[ \"$1\" = -- ] && break; shift; done\n",
          f);
    if (refuse)
        fputs("echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission' >&2\n"
              "exit 1\n",
              f);
    else
        fputs("{ echo '==PROF== Connected to process 1'\n"
              "echo '\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
              "\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
              "\"Metric Value\"'\n"
              "echo '\"0\",\"1\",\"p\",\"h\",\"_Z6rereadPKfPfji\",\"1\",\"7\","
              "\"Command line profiler metrics\",\"pcie__read_bytes.sum\",\"byte\","
              "\"33,554,432\"'\n"
              "} > \"$log\"\n",
              f);
    fclose(f);
    assert_int_equal(chmod(path, 0700), 0);
}

/* --pcie-counters: the kernels given mapped memory are measured (by ncu, here a stand-in); 8
 * times the host memory read is the warning mapped_memory_rereads; a refusal is said. */
static void test_pcie_counters(void **state)
{
    (void)state;
    const char *script =
        "{ echo 'zctrace 2 pid=5 ram=68719476736'; "
        "echo 'api hostalloc 4194304 2 7f4000000000 1000 2000 1 rt'; "
        "echo 'launch 21 3000 _Z6rereadPKfPfji 7f4000000000'; "
        "echo 'kernel 4000 844000 7 _Z6rereadPKfPfji 21'; echo 'launches 1 1 0'; echo end; } "
        "> \"$ZC_TRACE_DIR/5.log\"";
    char fake[] = "/tmp/zc-fake-ncu-XXXXXX";
    int fd = mkstemp(fake);
    assert_true(fd >= 0);
    close(fd);
    char env[128];
    snprintf(env, sizeof env, "ZC_NCU=%s", fake);
    for (int refuse = 0; refuse < 2; refuse++) {
        write_fake_ncu(fake, refuse);
        zc_test_output r;
        zc_test_run_zc((const char *[]){"trace", "--lib", ZC_TEST_EXIT_SEVEN, "--ceiling", "50",
                                        "--pcie-counters", "--json", "-", "--", "/bin/sh", "-c",
                                        script, NULL},
                       (const char *[]){env, NULL}, &r);
        fprintf(stderr, "stderr was:\n%s", r.err);
        assert_int_equal(r.exit_code, 0);
        assert_non_null(strstr(r.err, "again under ncu"));
        cJSON *doc = cJSON_Parse(r.out);
        assert_non_null(doc);
        const cJSON *f, *rereads = NULL, *note = NULL;
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings"))
        {
            const char *key = cJSON_GetObjectItem(f, "key")->valuestring;
            if (strcmp(key, "mapped_memory_rereads") == 0)
                rereads = f;
            if (strcmp(key, "mapped_memory_reads") == 0)
                note = f;
        }
        assert_non_null(note);
        if (!refuse) {
            assert_non_null(rereads);
            assert_double_equal(cJSON_GetObjectItem(rereads, "bytes")->valuedouble, 33554432.0,
                                0.5);
            assert_non_null(strstr(cJSON_GetObjectItem(rereads, "evidence")->valuestring, "8.0x"));
        } else {
            assert_null(rereads);
            assert_non_null(
                strstr(cJSON_GetObjectItem(note, "evidence")->valuestring, "ERR_NVGPUCTRPERM"));
        }
        cJSON_Delete(doc);
        zc_test_output_free(&r);
    }
    unlink(fake);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_code_and_stdout_pass_through),
        cmocka_unit_test(test_json_says_not_traced),
        cmocka_unit_test(test_summary_to_file),
        cmocka_unit_test(test_missing_library_runs_nothing),
        cmocka_unit_test(test_signals_and_missing_programs),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_log_written_in_the_program_is_reported),
        cmocka_unit_test(test_bench_prices_block_copies),
        cmocka_unit_test(test_bench_unfitted_block_family),
        cmocka_unit_test(test_malformed_log_is_reported),
        cmocka_unit_test(test_json_to_stdout_alone),
        cmocka_unit_test(test_json_to_stdout_and_exit_codes),
        cmocka_unit_test(test_every_process_is_reported),
        cmocka_unit_test(test_pcie_counters),
        cmocka_unit_test(test_copy_library_preloaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
