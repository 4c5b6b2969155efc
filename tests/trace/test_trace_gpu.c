/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace on the planted programs: each planted pitfall is found, the clean program gets no
 * finding at all, and programs linked to the CUDA runtime statically and dynamically are both
 * traced. Every summary is printed so that the GPU machine's log shows what the trace saw. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

typedef struct planted {
    const char *name;
    const char *program;
    const char *runtime;            /* how it links the CUDA runtime */
    const char *expected;           /* the finding it must produce; NULL for the clean program */
    const char *extra[3];           /* extra zc trace options */
    void (*more)(const cJSON *doc); /* further checks of the document, or NULL */
} planted;

static cJSON *read_json(const char *path)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return NULL;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    return cJSON_Parse(text);
}

/* Run zc trace on one program; give its JSON document (the caller deletes it). */
static cJSON *trace(const planted *p)
{
    char json_path[] = "/tmp/zc-trace-gpu-XXXXXX";
    int fd = mkstemp(json_path);
    assert_true(fd >= 0);
    close(fd);
    const char *args[12];
    size_t n = 0;
    args[n++] = "trace";
    args[n++] = "--force"; /* mkstemp made the file */
    args[n++] = "--json";
    args[n++] = json_path;
    for (size_t i = 0; i < 3 && p->extra[i] != NULL; i++)
        args[n++] = p->extra[i];
    args[n++] = "--";
    args[n++] = p->program;
    args[n] = NULL;
    zc_test_output r;
    zc_test_run_zc(args, NULL, &r);
    fprintf(stderr,
            "==== zc trace on planted %s (runtime linked %s)\n-- stdout:\n%s-- summary:\n%s",
            p->name, p->runtime, r.out, r.err);
    if (r.exit_code != 0)
        fail_msg("planted %s: zc trace exited %d, expected the program's 0", p->name, r.exit_code);
    /* The program's own output comes through untouched. */
    assert_true(strncmp(r.out, "planted ", 8) == 0);
    zc_test_output_free(&r);
    cJSON *doc = read_json(json_path);
    unlink(json_path);
    if (doc == NULL)
        fail_msg("planted %s: no JSON document from zc trace", p->name);
    return doc;
}

static int has_finding(const cJSON *doc, const char *key)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings"))
    {
        const cJSON *k = cJSON_GetObjectItem(f, "key");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0)
            return 1;
    }
    return 0;
}

static const cJSON *finding(const cJSON *doc, const char *key)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings"))
    {
        const cJSON *k = cJSON_GetObjectItem(f, "key");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0)
            return f;
    }
    return NULL;
}

/* The kernels' arguments were read (the managed and mapped findings rest on them; without them
 * they fall back to call counts). */
static void expect_arguments_seen(const char *name, const cJSON *doc)
{
    const cJSON *args = cJSON_GetObjectItem(doc, "kernel_arguments");
    const cJSON *inspected = cJSON_GetObjectItem(args, "inspected");
    const cJSON *failed = cJSON_GetObjectItem(args, "failed");
    if (!cJSON_IsTrue(cJSON_GetObjectItem(args, "seen")))
        fail_msg("planted %s: kernel arguments not seen (inspected %d, failed %d)", name,
                 inspected ? inspected->valueint : -1, failed ? failed->valueint : -1);
}

static void check(const planted *p)
{
    cJSON *doc = trace(p);
    if (!cJSON_IsTrue(cJSON_GetObjectItem(doc, "traced")))
        fail_msg("planted %s: not traced: %s", p->name,
                 cJSON_GetStringValue(cJSON_GetObjectItem(doc, "why_not_traced")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "complete")));
    int findings = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "findings"));
    if (p->expected == NULL) {
        if (findings != 0)
            fail_msg("planted %s: %d findings on the clean program (see the summary above)",
                     p->name, findings);
        /* The clean program's copies were seen: the trace did look. */
        assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "paths")) >= 2);
    } else if (!has_finding(doc, p->expected)) {
        fail_msg("planted %s: expected finding '%s' is missing (%d others; see the summary "
                 "above)",
                 p->name, p->expected, findings);
    }
    if (p->more != NULL)
        p->more(doc);
    cJSON_Delete(doc);
}

static void test_clean(void **state)
{
    (void)state;
    check(&(planted){"clean", ZC_PLANTED_CLEAN, "statically", NULL, {NULL}, NULL});
}

static void test_pageable(void **state)
{
    (void)state;
    check(&(planted){
        "pageable", ZC_PLANTED_PAGEABLE, "statically", "pageable_transfers", {NULL}, NULL});
}

/* The host copies beside pinned copies: seen through the copy library zc trace preloads. */
static void staging_more(const cJSON *doc)
{
    const cJSON *host = cJSON_GetObjectItem(doc, "host_memory");
    double calls = cJSON_GetNumberValue(cJSON_GetObjectItem(host, "host_copy_calls"));
    if (calls != 8)
        fail_msg("planted staging: %g host copies seen, 8 expected", calls);
    if (has_finding(doc, "pageable_transfers"))
        fail_msg("planted staging: pageable_transfers on copies from and to pinned memory");
}

static void test_staging(void **state)
{
    (void)state;
    check(&(planted){
        "staging", ZC_PLANTED_STAGING, "dynamically", "host_staging_copies", {NULL}, staging_more});
}

static void test_small_copies(void **state)
{
    (void)state;
    check(&(planted){
        "small_copies", ZC_PLANTED_SMALL_COPIES, "dynamically", "small_transfers", {NULL}, NULL});
}

static void test_sync_copies(void **state)
{
    (void)state;
    check(&(planted){"sync_copies",
                     ZC_PLANTED_SYNC_COPIES,
                     "statically",
                     "sync_copies_serialize",
                     {NULL},
                     NULL});
}

static void test_hostalloc_loop(void **state)
{
    (void)state;
    check(&(planted){"hostalloc_loop",
                     ZC_PLANTED_HOSTALLOC_LOOP,
                     "dynamically",
                     "pinned_alloc_in_loop",
                     {NULL},
                     NULL});
}

static void test_managed_faults(void **state)
{
    (void)state;
    check(&(planted){
        "managed_faults", ZC_PLANTED_MANAGED_FAULTS, "statically", "managed_faults", {NULL}, NULL});
}

static void test_over_pinning(void **state)
{
    (void)state;
    /* 1 GiB pinned, held against 1.5 GiB of RAM: 67%, over the 50% line. */
    check(&(planted){"over_pinning",
                     ZC_PLANTED_OVER_PINNING,
                     "dynamically",
                     "over_pinning",
                     {"--ram", "1536M", NULL},
                     NULL});
}

static void mapped_reread_names_its_kernel(const cJSON *doc)
{
    expect_arguments_seen("mapped_reread", doc);
    const cJSON *f = finding(doc, "mapped_memory_reads");
    const char *evidence = cJSON_GetStringValue(cJSON_GetObjectItem(f, "evidence"));
    assert_non_null(evidence);
    if (strstr(evidence, "reread") == NULL)
        fail_msg("mapped_memory_reads should name the kernel reread: %s", evidence);
    /* The 4 MiB buffer the kernel was given, and nothing else. */
    assert_true(cJSON_GetObjectItem(f, "bytes")->valuedouble == 4.0 * 1024 * 1024);
}

static void test_mapped_reread(void **state)
{
    (void)state;
    check(&(planted){"mapped_reread",
                     ZC_PLANTED_MAPPED_REREAD,
                     "dynamically",
                     "mapped_memory_reads",
                     {NULL},
                     mapped_reread_names_its_kernel});
}

static void startup_arguments_seen(const cJSON *doc)
{
    expect_arguments_seen("startup_pinning", doc);
}

static void copied_arguments_seen(const cJSON *doc)
{
    expect_arguments_seen("mapped_copied", doc);
}

static void test_startup_pinning(void **state)
{
    (void)state;
    /* Eight pinned buffers at start-up: no finding at all, pinned_alloc_in_loop least. */
    check(&(planted){"startup_pinning",
                     ZC_PLANTED_STARTUP_PINNING,
                     "statically",
                     NULL,
                     {NULL},
                     startup_arguments_seen});
}

static void managed_mixed_names_the_unprefetched(const cJSON *doc)
{
    expect_arguments_seen("managed_mixed", doc);
    const cJSON *f = finding(doc, "managed_faults");
    const char *evidence = cJSON_GetStringValue(cJSON_GetObjectItem(f, "evidence"));
    assert_non_null(evidence);
    if (strstr(evidence, "touch_unprefetched") == NULL || strstr(evidence, "touch_prefetched"))
        fail_msg("managed_faults should name touch_unprefetched only: %s", evidence);
    assert_int_equal(cJSON_GetObjectItem(f, "count")->valueint, 1);
    assert_true(cJSON_GetObjectItem(f, "bytes")->valuedouble == 32.0 * 1024 * 1024);
}

static void test_managed_mixed(void **state)
{
    (void)state;
    check(&(planted){"managed_mixed",
                     ZC_PLANTED_MANAGED_MIXED,
                     "dynamically",
                     "managed_faults",
                     {NULL},
                     managed_mixed_names_the_unprefetched});
}

static void test_mapped_copied(void **state)
{
    (void)state;
    /* Registered with the mapped flag, only copied: no note that kernels read it. */
    check(&(planted){"mapped_copied",
                     ZC_PLANTED_MAPPED_COPIED,
                     "statically",
                     NULL,
                     {NULL},
                     copied_arguments_seen});
}

static void children_reported_one_by_one(const cJSON *doc)
{
    assert_int_equal(cJSON_GetObjectItem(doc, "processes")->valueint, 3);
    const cJSON *list = cJSON_GetObjectItem(doc, "process_list");
    assert_int_equal(cJSON_GetArraySize(list), 3);
    int with_copies = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, list)
    {
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "complete")));
        with_copies += cJSON_GetObjectItem(p, "copies")->valueint > 0;
    }
    assert_int_equal(with_copies, 3);
}

static void test_children(void **state)
{
    (void)state;
    check(&(planted){"children",
                     ZC_PLANTED_CHILDREN,
                     "dynamically",
                     "pageable_transfers",
                     {NULL},
                     children_reported_one_by_one});
}

/* 512 blocks of 64 KiB, one move: no price without --bench (the evidence says how). */
static void blocks_counted(const cJSON *doc)
{
    const cJSON *f = finding(doc, "block_copies");
    assert_int_equal(cJSON_GetObjectItem(f, "count")->valueint, 512);
    assert_true(cJSON_GetObjectItem(f, "bytes")->valuedouble == 512.0 * 64 * 1024);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "saving_s")));
}

static void test_block_copies(void **state)
{
    (void)state;
    check(&(planted){"block_copies",
                     ZC_PLANTED_BLOCK_COPIES,
                     "statically",
                     "block_copies",
                     {NULL},
                     blocks_counted});
}

/* The same program priced with the committed H100 document's block family: a saving, not
 * more than the copies took. */
static void blocks_priced(const cJSON *doc)
{
    const cJSON *f = finding(doc, "block_copies");
    const cJSON *saving = cJSON_GetObjectItem(f, "saving_s");
    assert_true(cJSON_IsNumber(saving));
    assert_true(saving->valuedouble >= 0.0);
    assert_true(saving->valuedouble <= cJSON_GetObjectItem(f, "time_s")->valuedouble);
}

static void test_block_copies_priced(void **state)
{
    (void)state;
    check(&(planted){"block_copies",
                     ZC_PLANTED_BLOCK_COPIES,
                     "statically",
                     "block_copies",
                     {"--bench", ZC_BLOCKS_BENCH, NULL},
                     blocks_priced});
}

/* Another CUDA tool that injects itself (compute-sanitizer, Nsight) would be displaced by zc
 * trace's own injection library in the planted programs: the test means nothing there. */
static const char *other_tool(void)
{
    const char *injection = getenv("CUDA_INJECTION64_PATH");
    const char *preload = getenv("LD_PRELOAD");
    /* compute-sanitizer holds the one CUPTI subscription a process may have. */
    if (zc_test_under_sanitizer())
        return "compute-sanitizer (ZC_UNDER_SANITIZER)";
    if (injection != NULL && injection[0] != '\0')
        return injection;
    if (preload != NULL && (strstr(preload, "anitizer") || strstr(preload, "TreeLauncher")))
        return preload;
    return NULL;
}

int main(void)
{
    zc_test_require_gpu("gpu_trace_planted");
    const char *tool = other_tool();
    if (tool != NULL) {
        fprintf(stderr,
                "SKIP gpu_trace_planted: running under another CUDA tool (%s); zc trace "
                "would replace its injection in the traced programs\n",
                tool);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_pageable),
        cmocka_unit_test(test_staging),
        cmocka_unit_test(test_small_copies),
        cmocka_unit_test(test_sync_copies),
        cmocka_unit_test(test_hostalloc_loop),
        cmocka_unit_test(test_managed_faults),
        cmocka_unit_test(test_over_pinning),
        cmocka_unit_test(test_mapped_reread),
        cmocka_unit_test(test_startup_pinning),
        cmocka_unit_test(test_managed_mixed),
        cmocka_unit_test(test_mapped_copied),
        cmocka_unit_test(test_children),
        cmocka_unit_test(test_block_copies),
        cmocka_unit_test(test_block_copies_priced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
