/* SPDX-License-Identifier: Apache-2.0 */
/* Case selection, size lists, names and the measuring method of each mode. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "core/error.h"
#include "zerocopy/size.h"

ZC_EXTERN size_t zc_bench_case_count(void)
{
    return zc__bench_case_total;
}

ZC_EXTERN const zc_bench_case_info *zc_bench_case_at(size_t index)
{
    if (index >= zc__bench_case_total)
        return NULL;
    return &zc__bench_cases[index].info;
}

ZC_EXTERN const zc_bench_case_info *zc_bench_case_find(const char *key)
{
    for (size_t i = 0; key != NULL && i < zc__bench_case_total; i++) {
        if (strcmp(zc__bench_cases[i].info.key, key) == 0)
            return &zc__bench_cases[i].info;
    }
    return NULL;
}

ZC_EXTERN zc_status zc_bench_case_id_of(const char *key, zc_bench_case_id *id_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(id_p);
    for (size_t i = 0; i < zc__bench_case_total; i++) {
        if (zc__bench_cases[i].info.key != NULL && strcmp(zc__bench_cases[i].info.key, key) == 0) {
            *id_p = (zc_bench_case_id)i;
            return ZC_OK;
        }
    }
    return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_bench_case_id_of: no bench case '%s'", key);
}

/*
 * A small glob: '*' any run of characters, '?' one character. Linear in the pattern times the
 * text: on a mismatch only the last '*' is moved on (a later star makes earlier ones final), so a
 * pattern of many stars cannot make it backtrack exponentially, as a recursive one did (found by
 * fuzz_cli_args: "--case '*****...#'" ran for minutes).
 */
static int zc__glob(const char *pattern, const char *text)
{
    const char *star = NULL, *resume = NULL;
    while (*text != '\0') {
        if (*pattern == '*') {
            star = pattern++;
            resume = text;
        } else if (*pattern == '?' || *pattern == *text) {
            pattern++;
            text++;
        } else if (star != NULL) {
            pattern = star + 1;
            text = ++resume;
        } else {
            return 0;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

ZC_EXTERN int zc_bench_key_matches(const char *pattern, const char *key)
{
    if (pattern == NULL || key == NULL || pattern[0] == '\0')
        return 0;
    if (strchr(pattern, '*') != NULL || strchr(pattern, '?') != NULL)
        return zc__glob(pattern, key);
    size_t n = strlen(pattern);
    if (strncmp(pattern, key, n) != 0)
        return 0;
    return key[n] == '\0' || key[n] == '.';
}

ZC_EXTERN zc_status zc_bench_select(const char *patterns, unsigned char *selected, size_t count,
                                    size_t *matched_p)
{
    ZC_REQUIRE_ARG(selected);
    ZC_REQUIRE_ARG(matched_p);
    if (count != zc__bench_case_total)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_select: count is %zu, the catalogue has %zu",
                       count, zc__bench_case_total);
    unsigned char *chosen = calloc(count, 1);
    if (chosen == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_bench_select: out of memory");
    size_t matched = 0;
    if (patterns == NULL || patterns[0] == '\0') {
        memset(chosen, 1, count);
    } else {
        const char *p = patterns;
        while (*p != '\0') {
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            char one[128];
            if (len == 0 || len >= sizeof one) {
                free(chosen);
                return ZC_FAIL(ZC_ERR_NOT_FOUND,
                               "zc_bench_select: empty or overlong pattern in '%s'", patterns);
            }
            memcpy(one, p, len);
            one[len] = '\0';
            int hit = 0;
            for (size_t i = 0; i < count; i++)
                if (zc_bench_key_matches(one, zc__bench_cases[i].info.key)) {
                    chosen[i] = 1;
                    hit = 1;
                }
            if (!hit) {
                free(chosen);
                return ZC_FAIL(ZC_ERR_NOT_FOUND,
                               "no case matches '%s' (zc bench --list shows the keys)", one);
            }
            p += len;
            if (*p == ',')
                p++;
        }
    }
    for (size_t i = 0; i < count; i++)
        matched += chosen[i];
    memcpy(selected, chosen, count);
    free(chosen);
    *matched_p = matched;
    return ZC_OK;
}

/* One size of the list, in the one size grammar (zerocopy/size.h), 1 B to 64 GiB; 0 on error. */
static size_t zc__parse_size(const char *text, size_t len)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    uint64_t bytes = 0;
    if (zc_size_parse(buf, (uint64_t)64 << 30, &bytes) != ZC_OK)
        return 0;
    return (size_t)bytes;
}

ZC_EXTERN zc_status zc_bench_sizes_parse(const char *text, size_t *sizes, size_t capacity,
                                         size_t *count_p)
{
    ZC_REQUIRE_ARG(text);
    ZC_REQUIRE_ARG(sizes);
    ZC_REQUIRE_ARG(count_p);
    size_t count = 0;
    const char *p = text;
    if (*p == '\0')
        return ZC_FAIL(ZC_ERR_PARSE, "sizes: the list is empty");
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t value = zc__parse_size(p, len);
        if (value == 0)
            return ZC_FAIL(ZC_ERR_PARSE,
                           "sizes: '%.*s' is not a size from 1 B to 64 GiB (a number with an "
                           "optional unit B, K, M or G: 4096, 4K, 4KiB, 1.5M)",
                           (int)len, p);
        if (count == capacity)
            return ZC_FAIL(ZC_ERR_PARSE, "sizes: more than %zu sizes", capacity);
        sizes[count++] = value;
        if (end == NULL)
            break;
        p = end + 1;
    }
    *count_p = count;
    return ZC_OK;
}

ZC_EXTERN void zc_bench_config_init(zc_bench_config *config_p)
{
    if (config_p == NULL)
        return;
    memset(config_p, 0, sizeof *config_p);
    config_p->device = 0;
    config_p->mode = ZC_BENCH_DEFAULT;
    config_p->cov_target = 0.0;     /* 0: the mode's own */
    config_p->gate_timeout_s = 0.0; /* 0: the mode's own */
}

ZC_EXTERN zc_status zc_bench_method_get(zc_bench_mode mode, zc_bench_method *method_p)
{
    ZC_REQUIRE_ARG(method_p);
    zc_bench_method m;
    memset(&m, 0, sizeof m);
    m.gate_timeout_s = 5.0;
    m.gb_bytes = 1e9;
    switch (mode) {
    case ZC_BENCH_QUICK:
        m.warmups = 1;
        m.min_samples = 3;
        m.max_samples = 10;
        m.cov_target = 0.02;
        m.point_cap_s = 0.4;
        m.latency_samples = 200;
        m.pingpong_samples = 5000;
        break;
    case ZC_BENCH_DEFAULT:
        m.warmups = 2;
        m.min_samples = 5;
        m.max_samples = 30;
        m.cov_target = 0.01;
        m.point_cap_s = 1.5;
        m.latency_samples = 1000;
        m.pingpong_samples = 20000;
        break;
    case ZC_BENCH_FULL:
        m.warmups = 3;
        m.min_samples = 10;
        m.max_samples = 100;
        m.cov_target = 0.005;
        m.point_cap_s = 10.0;
        m.latency_samples = 10000;
        m.pingpong_samples = 200000;
        break;
    default:
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_method_get: unknown mode %d", (int)mode);
    }
    *method_p = m;
    return ZC_OK;
}

ZC_EXTERN const char *zc_bench_method_text(void)
{
    return "Copies queued with cudaMemcpyAsync (pinned, write-combined, registered memory) are "
           "timed with CUDA events behind a gate: a one-thread spin kernel holds each stream "
           "until every copy of the sample is queued, then the host releases it through a word "
           "of mapped memory, so the figure is the copy engine's and not the launch path's (the "
           "gate gives up after a timeout, measured with %globaltimer). Kernels are timed the "
           "same way. Synchronous calls (pageable cudaMemcpy, small-copy and launch latency, "
           "ping-pong) are timed by the host clock (CLOCK_MONOTONIC). Each point starts with "
           "warm-up samples that are thrown away, then repeats until the coefficient of "
           "variation falls below the mode's target, or a cap on samples or time; the median "
           "is the figure, with min, max, CoV and percentiles beside it. Every case fills its "
           "source with a fresh pseudo-random pattern (a new seed each run, never zeros), "
           "poisons its destination, and checks every byte (or a checksum of every word a "
           "kernel read) after measuring; a case whose data is wrong reports FAIL and no "
           "number. GB = 1e9 bytes; KiB, MiB, GiB are powers of 1024.";
}

ZC_EXTERN const char *zc_bench_mode_name(zc_bench_mode mode)
{
    switch (mode) {
    case ZC_BENCH_QUICK:
        return "quick";
    case ZC_BENCH_DEFAULT:
        return "default";
    case ZC_BENCH_FULL:
        return "full";
    }
    return "unknown";
}

ZC_EXTERN const char *zc_bench_outcome_name(zc_bench_outcome outcome)
{
    switch (outcome) {
    case ZC_BENCH_OK:
        return "ok";
    case ZC_BENCH_SKIPPED:
        return "skipped";
    case ZC_BENCH_FAIL:
        return "FAIL";
    case ZC_BENCH_ERROR:
        return "error";
    }
    return "unknown";
}

ZC_EXTERN const char *zc_bench_metric_unit(zc_bench_metric metric)
{
    return metric == ZC_BENCH_BANDWIDTH ? "GB/s" : "us";
}

ZC_EXTERN const char *zc_bench_metric_name(zc_bench_metric metric)
{
    switch (metric) {
    case ZC_BENCH_BANDWIDTH:
        return "bandwidth";
    case ZC_BENCH_LATENCY:
        return "latency";
    case ZC_BENCH_DURATION:
        return "duration";
    }
    return "unknown";
}
