/* SPDX-License-Identifier: Apache-2.0 */
/* What every conformance program shares: check lines, byte patterns, digests, the skip code and,
 * in CUDA files, the runtime checks and kernels.
 *
 * A conformance program is run plain and under zc run, and its stdout must be the same byte for
 * byte (run_conformance.sh). So stdout holds only lines that depend on what the program computed:
 * "ok CHECK" or "FAIL CHECK: detail", error codes by name and number, digests; never an address,
 * a time or a thread's id. Diagnostics go to stderr. A program exits 1 when a check failed and
 * CONF_SKIP when there is no GPU. */
#ifndef ZC_CONFORMANCE_H
#define ZC_CONFORMANCE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ctest's SKIP_RETURN_CODE for the project's tests (tests/CMakeLists.txt). */
#define CONF_SKIP 77

#ifdef __CUDACC__
#define CONF_HD __host__ __device__
#else
#define CONF_HD
#endif

/* Byte i of the pattern named seed: a hash of both, so that no two places or seeds share a run of
 * bytes and a chunk copied from the wrong offset, or left from an earlier copy, cannot match. */
static inline CONF_HD unsigned char conf_byte(size_t i, unsigned seed)
{
    uint64_t h =
        ((uint64_t)i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(seed + 1) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (unsigned char)(h >> 56);
}

static inline void conf_fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = conf_byte(i, seed);
}

static inline uint64_t conf_fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#define CONF_FNV_START 1469598103934665603ull

/* Checks failed so far; a program is a single run of checks, so one counter for it is enough. */
static int conf_failed;

/* One check's line: "ok NAME" when why is NULL or empty, else "FAIL NAME: why". */
static inline void conf_result(const char *why, const char *name_format, ...)
    __attribute__((format(printf, 2, 3)));
static inline void conf_result(const char *why, const char *name_format, ...)
{
    va_list args;
    va_start(args, name_format);
    int failed = why != NULL && why[0] != '\0';
    fputs(failed ? "FAIL " : "ok ", stdout);
    vprintf(name_format, args);
    if (failed)
        printf(": %s", why);
    putchar('\n');
    va_end(args);
    conf_failed += failed;
}

/* 1 when got equals want; else 0, and why (why_size bytes) names the first byte that differs. */
static inline int conf_same(const unsigned char *got, const unsigned char *want, size_t n,
                            char *why, size_t why_size)
{
    if (memcmp(got, want, n) == 0)
        return 1;
    size_t i = 0;
    while (got[i] == want[i])
        i++;
    snprintf(why, why_size, "byte %zu of %zu is 0x%02x, expected 0x%02x", i, n, got[i], want[i]);
    return 0;
}

/* The program's exit code, after a closing line that counts the failures. */
static inline int conf_end(const char *program)
{
    printf("%s: %d failed\n", program, conf_failed);
    return conf_failed ? 1 : 0;
}

static inline void *conf_malloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL) {
        printf("FAIL malloc of %zu bytes\n", n);
        exit(1);
    }
    return p;
}

#ifdef __CUDACC__
#include <cuda_runtime.h>

/* An error printed by name and number: a cured run that returns another error is caught. */
#define CONF_ERR_FMT       "%s(%d)"
#define CONF_ERR_ARGS(err) cudaGetErrorName(err), (int)(err)

/* A call that must succeed; otherwise the program cannot go on: its line, then exit 1. */
#define CONF_CUDA(call)                                                                            \
    do {                                                                                           \
        cudaError_t conf_error = (call);                                                           \
        if (conf_error != cudaSuccess) {                                                           \
            printf("FAIL line %d: %s: " CONF_ERR_FMT "\n", __LINE__, #call,                        \
                   CONF_ERR_ARGS(conf_error));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Line-buffered stdout (a crash shows how far the program got), and the skip without a GPU. */
static inline void conf_begin(const char *program)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess || count == 0) {
        fprintf(stderr, "SKIP %s: no CUDA GPU (%s)\n", program,
                error != cudaSuccess ? cudaGetErrorName(error) : "0 devices");
        exit(CONF_SKIP);
    }
}

/* Writes pattern seed into d[0, n) on the device, as conf_fill does on the host. */
__global__ void conf_fill_kernel(unsigned char *d, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = conf_byte(i, seed);
}

/* One thread busy for the given clock cycles, so that work queued after it is still pending
 * when the host goes on. The loop ends on the count of cycles alone. */
__global__ void conf_spin_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

/* A way of asking for pinned memory: cudaHostAlloc with flags, or cudaMallocHost. */
typedef struct conf_pinned_way {
    const char *name;
    unsigned flags;
    int malloc_host; /* cudaMallocHost, not cudaHostAlloc */
} conf_pinned_way;

/* n bytes of pinned memory asked for way w (the program ends, said, when CUDA refuses). */
static inline unsigned char *conf_pinned_alloc(const conf_pinned_way *w, size_t n)
{
    void *p = NULL;
    if (w->malloc_host)
        CONF_CUDA(cudaMallocHost(&p, n));
    else
        CONF_CUDA(cudaHostAlloc(&p, n, w->flags));
    return (unsigned char *)p;
}

/* Queues about ms milliseconds of spinning on stream. */
static inline void conf_spin(cudaStream_t stream, int ms)
{
    int khz = 0;
    CONF_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    conf_spin_kernel<<<1, 1, 0, stream>>>((long long)khz * ms);
    CONF_CUDA(cudaGetLastError());
}

static inline void conf_fill_device(unsigned char *d, size_t n, unsigned seed, cudaStream_t stream)
{
    conf_fill_kernel<<<264, 256, 0, stream>>>(d, n, seed);
    CONF_CUDA(cudaGetLastError());
}
#endif /* __CUDACC__ */

#endif /* ZC_CONFORMANCE_H */
