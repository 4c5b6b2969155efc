/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What zc run's allocation hooks cost a program that allocates small blocks all the time, as an
 * interpreter or a framework does (scripts/bench.d/42-run-hooks.sh runs it uncured and cured):
 * PAIRS malloc and free pairs of 16 B to 4 KiB, 64 blocks live at a time and freed out of the
 * order they were made, beside one large block the cures track (64 MiB, touched), as a real
 * program holds. Every block is written when made and checked when freed. Prints one JSON line:
 * the nanoseconds per pair of each timed run (after one warm-up), their median, and whether
 * every block read back what was written.
 *   alloc_churn [PAIRS] [RUNS]      (defaults 5000000 and 7)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIVE       64u
#define LARGE      ((size_t)64 << 20)
#define MAX_RUNS   31
#define MIN_BYTES  16u
#define SIZE_STEPS 256u /* 16 B apart: 16 B to 4 KiB */

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct block {
    unsigned char *p;
    size_t bytes;
    unsigned char mark;
} block;

/* The block's first and last bytes hold its mark: a block handed out twice, or moved, would
 * not read back what was written. */
static int check_and_free(block *b)
{
    int ok = b->p[0] == b->mark && b->p[b->bytes - 1] == (unsigned char)~b->mark;
    free(b->p);
    b->p = NULL;
    return ok;
}

static int make(block *b, size_t bytes, unsigned char mark)
{
    b->p = malloc(bytes);
    if (b->p == NULL)
        return 0;
    b->bytes = bytes;
    b->mark = mark;
    b->p[0] = mark;
    b->p[bytes - 1] = (unsigned char)~mark;
    return 1;
}

/* pairs malloc and free pairs; gives the seconds, or a negative number on a failure. */
static double churn(unsigned long pairs, block *live)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int ok = 1;
    double start = seconds_now();
    for (unsigned long i = 0; i < pairs; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        block *b = &live[seed % LIVE];
        if (b->p != NULL)
            ok &= check_and_free(b);
        if (!make(b, MIN_BYTES * (1u + (unsigned)(seed >> 32) % SIZE_STEPS), (unsigned char)i))
            return -1.0;
    }
    double took = seconds_now() - start;
    for (unsigned k = 0; k < LIVE; k++) {
        if (live[k].p != NULL)
            ok &= check_and_free(&live[k]);
    }
    return ok ? took : -2.0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    unsigned long pairs = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000000ul;
    long runs = argc > 2 ? strtol(argv[2], NULL, 10) : 7;
    if (pairs == 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: alloc_churn [PAIRS > 0] [RUNS 1..%d]\n", MAX_RUNS);
        return 2;
    }
    unsigned char *volatile large = malloc(LARGE);
    if (large == NULL) {
        fprintf(stderr, "alloc_churn: malloc of %zu bytes failed\n", LARGE);
        return 1;
    }
    memset(large, 1, LARGE);
    block live[LIVE];
    memset(live, 0, sizeof live);
    double ns[MAX_RUNS], sorted[MAX_RUNS];
    int checked = 1;
    for (long r = -1; r < runs; r++) { /* run -1: the warm-up */
        double took = churn(pairs, live);
        if (took < 0) {
            fprintf(stderr, "alloc_churn: %s\n",
                    took == -1.0 ? "malloc failed" : "a block did not read back what was written");
            checked = 0;
            break;
        }
        if (r >= 0)
            ns[r] = took / (double)pairs * 1e9;
    }
    int large_ok = large[0] == 1 && large[LARGE - 1] == 1;
    free(large);
    if (!checked || !large_ok) {
        printf("{\"checked\": false}\n");
        return 1;
    }
    memcpy(sorted, ns, (size_t)runs * sizeof ns[0]);
    qsort(sorted, (size_t)runs, sizeof sorted[0], by_value);
    printf("{\"pairs\": %lu, \"ns_per_pair\": [", pairs);
    for (long r = 0; r < runs; r++)
        printf("%s%.2f", r ? ", " : "", ns[r]);
    printf("], \"median_ns\": %.2f, \"checked\": true}\n", sorted[runs / 2]);
    return 0;
}
