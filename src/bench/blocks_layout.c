/* SPDX-License-Identifier: Apache-2.0 */
/* The block family's planning, scattering and pattern, free of CUDA (blocks_bench.h). */
#include <stdio.h>
#include <string.h>

#include "bench/blocks_bench.h"
#include "bench/pattern.h"

/* Add "4 MiB (why)" to the list of sizes left out. */
static void zc__blk_left(char *left_out, size_t left_size, size_t bytes, const char *why)
{
    size_t used = strlen(left_out);
    if (used + 1 >= left_size)
        return;
    snprintf(left_out + used, left_size - used, "%s%zu B left out (%s)", used ? "; " : "", bytes,
             why);
}

size_t zc__blk_plan(const size_t *sizes, size_t n, size_t target, size_t cap, zc__blk_point *out,
                    char *left_out, size_t left_size)
{
    size_t made = 0;
    if (left_size > 0)
        left_out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t b = sizes[i];
        if (b == 0 || b % 4 != 0) {
            zc__blk_left(left_out, left_size, b, "not a whole number of 4-byte words");
            continue;
        }
        if (b > ZC__BLK_SIZE_MAX) {
            zc__blk_left(left_out, left_size, b, "above the family's 64 MiB blocks");
            continue;
        }
        size_t count = target / b;
        if (count < ZC__BLK_COUNT_MIN)
            count = ZC__BLK_COUNT_MIN;
        if (count > ZC__BLK_COUNT_MAX)
            count = ZC__BLK_COUNT_MAX;
        if (count > cap / b)
            count = cap / b;
        if (count < ZC__BLK_COUNT_MIN) {
            zc__blk_left(left_out, left_size, b, "16 blocks do not fit in the memory allowed");
            continue;
        }
        out[made].block_bytes = b;
        out[made].count = count;
        made++;
    }
    return made;
}

size_t zc__blk_add_small_moves(zc__blk_point *out, size_t n, size_t max)
{
    size_t made = n;
    for (size_t i = 0; i < n && made < max; i++) {
        size_t small = out[i].count / 16;
        if (small < ZC__BLK_COUNT_MIN)
            small = ZC__BLK_COUNT_MIN;
        if (small >= out[i].count)
            continue;
        out[made].block_bytes = out[i].block_bytes;
        out[made].count = small;
        made++;
    }
    return made;
}

void zc__blk_shuffle(size_t *perm, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t x = *rng ? *rng : 0x9E3779B97F4A7C15ull;
    for (size_t i = n; i > 1; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    *rng = x;
}

void zc__blk_fill(void *region, size_t block_bytes, size_t count, const size_t *src_index,
                  const size_t *dst_index, uint32_t seed)
{
    size_t words = block_bytes / 4;
    for (size_t i = 0; i < count; i++) {
        uint32_t *w = (uint32_t *)((uint8_t *)region + src_index[i] * block_bytes);
        uint64_t first = (uint64_t)dst_index[i] * words;
        for (size_t j = 0; j < words; j++)
            w[j] = zc__pattern32(seed, first + j);
    }
}
