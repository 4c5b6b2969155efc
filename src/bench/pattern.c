/* SPDX-License-Identifier: Apache-2.0 */
/* Filling and checking the verification pattern on the CPU, and the verify/corrupt helpers. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "bench/pattern.h"
#include "core/error.h"

void zc__pattern_fill(void *p, size_t bytes, uint32_t seed)
{
    uint32_t *w = p;
    size_t words = bytes / 4;
    for (size_t i = 0; i < words; i++)
        w[i] = zc__pattern32(seed, i);
    for (size_t b = words * 4; b < bytes; b++)
        ((uint8_t *)p)[b] = zc__pattern_byte(seed, b);
}

int zc__pattern_check(const void *p, size_t bytes, uint32_t seed, uint32_t delta, size_t *bad_p)
{
    const uint32_t *w = p;
    size_t words = bytes / 4;
    for (size_t i = 0; i < words; i++) {
        uint32_t got;
        memcpy(&got, w + i, sizeof got);
        if (got != zc__pattern32(seed, i) + delta) {
            *bad_p = i * 4;
            return 0;
        }
    }
    for (size_t b = words * 4; b < bytes; b++)
        if (((const uint8_t *)p)[b] != zc__pattern_byte(seed, b)) {
            *bad_p = b;
            return 0;
        }
    return 1;
}

uint32_t zc__pattern_sum(size_t bytes, uint32_t seed, size_t stride_words)
{
    uint32_t sum = 0;
    size_t words = bytes / 4;
    for (size_t i = 0; i < words; i += stride_words)
        sum += zc__pattern32(seed, i);
    return sum;
}

const char *zc__bench_size_str(size_t bytes, char *buf, size_t n)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    size_t v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%zu %s", v, units[u]);
    return buf;
}

zc_status zc__verify_fail_host(const char *key, const char *what, size_t bytes, const void *p,
                               size_t bad, uint32_t seed)
{
    char sz[32];
    return ZC_FAIL(ZC_ERR_VERIFY,
                   "%s: %s of %s: byte %zu is 0x%02x, expected 0x%02x (pattern seed 0x%08" PRIx32
                   ")",
                   key, what, zc__bench_size_str(bytes, sz, sizeof sz), bad,
                   ((const uint8_t *)p)[bad], zc__pattern_byte(seed, bad), seed);
}

zc_status zc__corrupt_host(void *p, size_t bytes)
{
    if (p == NULL || bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__corrupt_host: empty buffer");
    ((uint8_t *)p)[bytes / 2] ^= 0xFF;
    return ZC_OK;
}
