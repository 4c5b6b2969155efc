/* SPDX-License-Identifier: Apache-2.0 */
/* Measures the cost of pinning host memory per size and method (cudaHostAlloc against
 * registering touched pages, zerocopy's choice and its pool), checks every pinned buffer by a
 * round trip through the GPU, and prints a table (and JSON with --json). Also a GPU test. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "mem/pages.h"
#include "test_support.h"
#include "zerocopy/zerocopy.h"

#define MIB ((size_t)1024 * 1024)

enum { EXIT_USAGE = 2, EXIT_NO_GPU = 77, EXIT_VERIFY = 5 };

/* One way to get pinned memory and give it back. */
typedef struct method {
    const char *key;
    const char *text;
    /* Pin size bytes; *handle_p is what release needs. Returns 0 on success. */
    int (*pin)(size_t size, void **host_p, void **handle_p);
    int (*release)(size_t size, void *host, void *handle);
} method;

static int check_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "%s failed: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

static int pin_host_alloc(size_t size, void **host_p, void **handle_p)
{
    *handle_p = NULL;
    return check_cuda(cudaHostAlloc(host_p, size, cudaHostAllocDefault), "cudaHostAlloc");
}

static int free_host_alloc(size_t size, void *host, void *handle)
{
    (void)size;
    (void)handle;
    return check_cuda(cudaFreeHost(host), "cudaFreeHost");
}

static int register_range(void *host, size_t size)
{
    return check_cuda(cudaHostRegister(host, size, cudaHostRegisterDefault), "cudaHostRegister");
}

static int pin_malloc_register(size_t size, void **host_p, void **handle_p)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, size) != 0)
        return -1;
    if (register_range(p, size) != 0) {
        free(p);
        return -1;
    }
    *host_p = *handle_p = p;
    return 0;
}

static int pin_malloc_touch_register(size_t size, void **host_p, void **handle_p)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, size) != 0)
        return -1;
    zc__pages_touch(p, size, 1);
    if (register_range(p, size) != 0) {
        free(p);
        return -1;
    }
    *host_p = *handle_p = p;
    return 0;
}

static int free_malloc_register(size_t size, void *host, void *handle)
{
    (void)size;
    int rc = check_cuda(cudaHostUnregister(host), "cudaHostUnregister");
    free(handle);
    return rc;
}

static int pin_mmap_variant(size_t size, void **host_p, int huge, unsigned threads, int touch)
{
    void *p = NULL;
    if (zc__pages_map("measure", size, huge, &p) != ZC_OK) {
        fprintf(stderr, "%s\n", zc_last_error());
        return -1;
    }
    if (touch)
        zc__pages_touch(p, size, threads);
    if (register_range(p, size) != 0) {
        (void)zc__pages_unmap(p, size);
        return -1;
    }
    *host_p = p;
    return 0;
}

static int pin_mmap_touch1(size_t size, void **host_p, void **handle_p)
{
    *handle_p = NULL;
    return pin_mmap_variant(size, host_p, 0, 1, 1);
}

static int pin_mmap_huge_touch1(size_t size, void **host_p, void **handle_p)
{
    *handle_p = NULL;
    return pin_mmap_variant(size, host_p, 1, 1, 1);
}

static int pin_mmap_huge_notouch(size_t size, void **host_p, void **handle_p)
{
    *handle_p = NULL;
    return pin_mmap_variant(size, host_p, 1, 1, 0);
}

static int pin_mmap_huge_touchn(size_t size, void **host_p, void **handle_p)
{
    *handle_p = NULL;
    return pin_mmap_variant(size, host_p, 1, 0, 1);
}

static int free_mmap(size_t size, void *host, void *handle)
{
    (void)handle;
    int rc = check_cuda(cudaHostUnregister(host), "cudaHostUnregister");
    if (zc__pages_unmap(host, size) != ZC_OK)
        rc = -1;
    return rc;
}

static int pin_zc(size_t size, void **host_p, void **handle_p)
{
    zc_buffer *buf = NULL;
    if (zc_buffer_alloc(size, ZC_BUFFER_PINNED, 0, 0, &buf) != ZC_OK) {
        fprintf(stderr, "zc_buffer_alloc: %s\n", zc_last_error());
        return -1;
    }
    *host_p = zc_buffer_host_ptr(buf);
    *handle_p = buf;
    return 0;
}

static int free_zc(size_t size, void *host, void *handle)
{
    (void)size;
    (void)host;
    if (zc_buffer_free(handle) != ZC_OK) {
        fprintf(stderr, "zc_buffer_free: %s\n", zc_last_error());
        return -1;
    }
    return 0;
}

static zc_pool *the_pool;

static int pin_pool(size_t size, void **host_p, void **handle_p)
{
    zc_buffer *buf = NULL;
    if (zc_pool_alloc(the_pool, size, &buf) != ZC_OK) {
        fprintf(stderr, "zc_pool_alloc: %s\n", zc_last_error());
        return -1;
    }
    *host_p = zc_buffer_host_ptr(buf);
    *handle_p = buf;
    return 0;
}

static int free_pool(size_t size, void *host, void *handle)
{
    (void)size;
    (void)host;
    return zc_pool_free(the_pool, handle) == ZC_OK ? 0 : -1;
}

static const method methods[] = {
    {"host_alloc", "cudaHostAlloc / cudaFreeHost", pin_host_alloc, free_host_alloc},
    {"malloc_register", "malloc + cudaHostRegister (pages untouched)", pin_malloc_register,
     free_malloc_register},
    {"malloc_touch_register", "malloc + touch + cudaHostRegister", pin_malloc_touch_register,
     free_malloc_register},
    {"mmap_touch_register", "mmap + touch (1 thread) + cudaHostRegister", pin_mmap_touch1,
     free_mmap},
    {"mmap_huge_register", "mmap + MADV_HUGEPAGE + cudaHostRegister (untouched)",
     pin_mmap_huge_notouch, free_mmap},
    {"mmap_huge_touch_register", "mmap + MADV_HUGEPAGE + touch (1 thread) + cudaHostRegister",
     pin_mmap_huge_touch1, free_mmap},
    {"mmap_huge_touchn_register", "mmap + MADV_HUGEPAGE + touch (threads) + cudaHostRegister",
     pin_mmap_huge_touchn, free_mmap},
    {"zc_buffer_alloc", "zc_buffer_alloc(PINNED): zerocopy's choice by size", pin_zc, free_zc},
    {"zc_pool_hit", "zc_pool_alloc served from the cache (warm)", pin_pool, free_pool},
};
#define METHOD_COUNT (sizeof methods / sizeof methods[0])

/* The pattern's 64-bit word i for seed: cheap enough to fill and check gigabytes quickly. */
static inline uint64_t pattern_word(size_t i, uint64_t seed)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + seed;
    return x ^ (x >> 29);
}

/* Copy a pattern to the GPU and back through the pinned buffer; 0 when it came back whole. */
static int verify(void *host, size_t size, void *dev, uint64_t seed)
{
    uint64_t *words = host;
    size_t n = size / sizeof *words;
    for (size_t i = 0; i < n; i++)
        words[i] = pattern_word(i, seed);
    if (check_cuda(cudaMemcpy(dev, host, size, cudaMemcpyHostToDevice), "cudaMemcpy H2D") != 0)
        return -1;
    memset(host, 0, size);
    if (check_cuda(cudaMemcpy(host, dev, size, cudaMemcpyDeviceToHost), "cudaMemcpy D2H") != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (words[i] != pattern_word(i, seed)) {
            fprintf(stderr, "verify: word %zu of %zu is 0x%016llx, expected 0x%016llx\n", i, n,
                    (unsigned long long)words[i], (unsigned long long)pattern_word(i, seed));
            return -1;
        }
    }
    struct cudaPointerAttributes attr;
    if (check_cuda(cudaPointerGetAttributes(&attr, host), "cudaPointerGetAttributes") != 0 ||
        attr.type != cudaMemoryTypeHost) {
        fprintf(stderr, "verify: the buffer is not pinned host memory\n");
        return -1;
    }
    return 0;
}

static int parse_size(const char *text, size_t *size_p)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return -1;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30;
    else if (*end != '\0')
        return -1;
    *size_p = (size_t)(v * mul);
    return 0;
}

typedef struct result {
    size_t size;
    double alloc_ms;
    double free_ms;
    double alloc_p90_ms;
    int ok;
    int ran;
} result;

int main(int argc, char **argv)
{
    size_t max_size = 64 * MIB, min_size = 4096;
    int repeats = 3;
    const char *json_path = NULL;
    static const struct option options[] = {
        {"max-size", required_argument, NULL, 'M'}, {"min-size", required_argument, NULL, 'm'},
        {"repeats", required_argument, NULL, 'r'},  {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'M':
            if (parse_size(optarg, &max_size) != 0)
                return EXIT_USAGE;
            break;
        case 'm':
            if (parse_size(optarg, &min_size) != 0)
                return EXIT_USAGE;
            break;
        case 'r':
            repeats = atoi(optarg);
            if (repeats < 1)
                return EXIT_USAGE;
            break;
        case 'j':
            json_path = optarg;
            break;
        case 'h':
            printf("usage: %s [--min-size N[K|M|G]] [--max-size N[K|M|G]] [--repeats N] "
                   "[--json FILE]\n",
                   argv[0]);
            return 0;
        default:
            return EXIT_USAGE;
        }
    }
    zc_test_require_gpu("measure_pinning");
    if (check_cuda(cudaSetDevice(0), "cudaSetDevice") != 0 || check_cuda(cudaFree(0), "init"))
        return 1;

    size_t sizes[32];
    size_t nsizes = 0;
    for (size_t s = 4096; s <= ((size_t)4 << 30) && nsizes < 32; s *= 4) {
        if (s >= min_size && s <= max_size)
            sizes[nsizes++] = s;
        /* 2 MiB and 1 GiB are the points the chapter and the baseline quote. */
        if (s == 1 * MIB && 2 * MIB >= min_size && 2 * MIB <= max_size)
            sizes[nsizes++] = 2 * MIB;
    }
    void *dev = NULL;
    if (check_cuda(cudaMalloc(&dev, max_size), "cudaMalloc scratch") != 0)
        return 1;
    if (zc_pool_create(ZC_BUFFER_PINNED, 0, 0, 0, &the_pool) != ZC_OK) {
        fprintf(stderr, "zc_pool_create: %s\n", zc_last_error());
        return 1;
    }

    static result results[METHOD_COUNT][32];
    int failures = 0;
    uint64_t seed = zc_clock_ns();
    printf("Pinning cost per method and size (host clock; median of N, first run verified by a "
           "GPU round trip)\n");
    printf("%-10s %-28s %5s %11s %11s %11s %9s %s\n", "size", "method", "N", "alloc ms", "p90 ms",
           "free ms", "x faster", "data");
    for (size_t si = 0; si < nsizes; si++) {
        size_t size = sizes[si];
        /* Small sizes are cheap: more repeats give steadier medians. */
        int n = size <= 16 * MIB ? (repeats > 20 ? repeats : 20) : repeats;
        double base_total = 0;
        for (size_t mi = 0; mi < METHOD_COUNT; mi++) {
            const method *m = &methods[mi];
            if (m->pin == pin_pool) {
                /* Warm the pool with one block of this size first. */
                void *h = NULL, *hd = NULL;
                if (pin_pool(size, &h, &hd) != 0 || free_pool(size, h, hd) != 0) {
                    failures++;
                    continue;
                }
            }
            double *a = calloc((size_t)n, sizeof *a), *f = calloc((size_t)n, sizeof *f);
            if (a == NULL || f == NULL)
                return 1;
            int ok = 1, ran = 0;
            for (int r = 0; r < n; r++) {
                void *host = NULL, *handle = NULL;
                uint64_t t0 = zc_clock_ns();
                if (m->pin(size, &host, &handle) != 0) {
                    ok = 0;
                    break;
                }
                uint64_t t1 = zc_clock_ns();
                if (r == 0 && verify(host, size, dev, seed + si * 31 + mi) != 0)
                    ok = 0;
                uint64_t t2 = zc_clock_ns();
                if (m->release(size, host, handle) != 0)
                    ok = 0;
                uint64_t t3 = zc_clock_ns();
                a[ran] = (double)(t1 - t0) / 1e6;
                f[ran] = (double)(t3 - t2) / 1e6;
                ran++;
            }
            zc_stats sa, sf;
            result *res = &results[mi][si];
            res->size = size;
            res->ok = ok;
            res->ran = ran;
            if (ran > 0 && zc_stats_compute(a, (size_t)ran, &sa) == ZC_OK &&
                zc_stats_compute(f, (size_t)ran, &sf) == ZC_OK) {
                res->alloc_ms = sa.median;
                res->alloc_p90_ms = sa.p90;
                res->free_ms = sf.median;
            }
            if (mi == 0)
                base_total = res->alloc_ms;
            if (!ok)
                failures++;
            printf("%-10zu %-28s %5d %11.4f %11.4f %11.4f %9.2f %s\n", size, m->key, ran,
                   res->alloc_ms, res->alloc_p90_ms, res->free_ms,
                   res->alloc_ms > 0 ? base_total / res->alloc_ms : 0.0, ok ? "ok" : "WRONG");
            fflush(stdout);
            free(a);
            free(f);
            if (m->pin == pin_pool)
                (void)zc_pool_trim(the_pool, 0);
        }
    }

    /* The crossing point: the smallest size from which registration after touching (threads)
     * beats cudaHostAlloc at every larger size measured. */
    size_t crossing = 0;
    for (size_t si = nsizes; si-- > 0;) {
        if (results[6][si].alloc_ms + results[6][si].free_ms <
            results[0][si].alloc_ms + results[0][si].free_ms)
            crossing = sizes[si];
        else
            break;
    }
    printf("\nregistration (mmap + huge pages + threads) beats cudaHostAlloc (alloc + free) from "
           "%zu bytes up; ZC_PIN_REGISTER_THRESHOLD is %zu\n",
           crossing, (size_t)ZC_PIN_REGISTER_THRESHOLD);
    for (size_t si = 0; si < nsizes; si++) {
        if (sizes[si] == ((size_t)1 << 30))
            printf("1 GiB: zc_buffer_alloc %.1f ms against cudaHostAlloc %.1f ms: %.1fx "
                   "(target >= 5x)\n",
                   results[7][si].alloc_ms, results[0][si].alloc_ms,
                   results[0][si].alloc_ms / results[7][si].alloc_ms);
        if (sizes[si] == MIB)
            printf("1 MiB from the pool: %.2f us median (target <= 5 us)\n",
                   results[8][si].alloc_ms * 1e3);
    }

    if (json_path != NULL) {
        FILE *out = fopen(json_path, "w");
        if (out == NULL) {
            fprintf(stderr, "%s: %s\n", json_path, strerror(errno));
            return 1;
        }
        fprintf(out, "{\n  \"schema\": \"zerocopy.pinning.v1\",\n  \"unit\": \"ms\",\n");
        fprintf(out, "  \"threshold_bytes\": %zu,\n  \"crossing_bytes\": %zu,\n",
                (size_t)ZC_PIN_REGISTER_THRESHOLD, crossing);
        fprintf(out, "  \"results\": [\n");
        int first = 1;
        for (size_t si = 0; si < nsizes; si++) {
            for (size_t mi = 0; mi < METHOD_COUNT; mi++) {
                const result *res = &results[mi][si];
                fprintf(out,
                        "%s    {\"size\": %zu, \"method\": \"%s\", \"repeats\": %d, "
                        "\"alloc_median_ms\": %.6f, \"alloc_p90_ms\": %.6f, "
                        "\"free_median_ms\": %.6f, \"verified\": %s}",
                        first ? "" : ",\n", sizes[si], methods[mi].key, res->ran, res->alloc_ms,
                        res->alloc_p90_ms, res->free_ms, res->ok ? "true" : "false");
                first = 0;
            }
        }
        fprintf(out, "\n  ]\n}\n");
        fclose(out);
    }
    zc_pool_destroy(the_pool);
    (void)cudaFree(dev);
    if (failures > 0) {
        fprintf(stderr, "%d method/size runs failed or gave wrong data\n", failures);
        return EXIT_VERIFY;
    }
    return 0;
}
