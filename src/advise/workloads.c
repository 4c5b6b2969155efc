/* SPDX-License-Identifier: Apache-2.0 */
/* The validation workloads: twelve fixed ones, and any number drawn at random from a seed. */
#include "zerocopy/advise.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define ZC__KIB ((size_t)1024)
#define ZC__MIB ((size_t)1024 * 1024)

/* Name, then: bytes, transfers, rate, direction, accesses, pattern, concurrent, budget. */
static const zc_validation_workload zc__fixed[] = {
    {"sensor frames", {4 * ZC__KIB, 2000, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"small round trips", {8 * ZC__KIB, 2000, 0, ZC_DIR_BOTH, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"64 KiB blocks", {64 * ZC__KIB, 1000, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"64 KiB random reads", {64 * ZC__KIB, 300, 0, ZC_DIR_H2D, 1, ZC_ACCESS_RANDOM, 0, 0}},
    {"256 KiB filter", {256 * ZC__KIB, 500, 0, ZC_DIR_BOTH, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"1 MiB strided", {1 * ZC__MIB, 100, 0, ZC_DIR_H2D, 1, ZC_ACCESS_STRIDED, 0, 0}},
    {"1 MiB results out", {1 * ZC__MIB, 200, 0, ZC_DIR_D2H, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"4 MiB stream", {4 * ZC__MIB, 100, 0, ZC_DIR_BOTH, 2, ZC_ACCESS_COALESCED, 0, 0}},
    {"16 MiB reused", {16 * ZC__MIB, 20, 0, ZC_DIR_H2D, 8, ZC_ACCESS_COALESCED, 0, 0}},
    {"32 MiB batches", {32 * ZC__MIB, 20, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"64 MiB compute", {64 * ZC__MIB, 4, 0, ZC_DIR_H2D, 32, ZC_ACCESS_COALESCED, 0, 0}},
    {"128 MiB once", {128 * ZC__MIB, 1, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
};

ZC_EXTERN size_t zc_validation_fixed_count(void)
{
    return sizeof zc__fixed / sizeof zc__fixed[0];
}

ZC_EXTERN const zc_validation_workload *zc_validation_fixed_at(size_t index)
{
    return index < zc_validation_fixed_count() ? &zc__fixed[index] : NULL;
}

/* splitmix64: a well-mixed stream from any seed, the same on every machine. */
static unsigned long long zc__next(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

ZC_EXTERN zc_status zc_validation_random(unsigned long long seed, size_t index,
                                         zc_validation_workload *workload_p)
{
    ZC_REQUIRE_ARG(workload_p);
    unsigned long long state = seed ^ ((unsigned long long)index * 0xd1b54a32d192ed03ull);
    (void)zc__next(&state);
    zc_validation_workload v;
    memset(&v, 0, sizeof v);
    zc_workload *w = &v.workload;
    /* 4 KiB to 64 MiB, every power of two equally likely: small and large alike. */
    w->bytes = (size_t)4096 << (zc__next(&state) % 15);
    unsigned d = (unsigned)(zc__next(&state) % 10);
    w->direction = d < 5 ? ZC_DIR_H2D : (d < 7 ? ZC_DIR_D2H : ZC_DIR_BOTH);
    static const double accesses[] = {1, 1, 1, 2, 4, 8, 16, 32};
    w->gpu_accesses = accesses[zc__next(&state) % 8];
    unsigned a = (unsigned)(zc__next(&state) % 10);
    w->pattern = a < 6 ? ZC_ACCESS_COALESCED : (a < 8 ? ZC_ACCESS_STRIDED : ZC_ACCESS_RANDOM);
    /* 16 MiB to 1 GiB moved in all, in 1 to 2000 transfers: a run of seconds at most. */
    double total = (double)((size_t)16 << 20 << (zc__next(&state) % 7));
    double n = total / (double)w->bytes;
    w->transfers = n < 1.0 ? 1.0 : (n > 2000.0 ? 2000.0 : (double)(long long)n);
    snprintf(v.name, sizeof v.name, "random %zu (seed %llu)", index, seed);
    *workload_p = v;
    return ZC_OK;
}
