/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the lifecycle conformance programs (conf_lifecycle, conf_threads, conf_host_fn,
 * conf_exit) share: the checks and their lines, the skip, the byte patterns, the pin-in-place
 * step and a watchdog. Their stdout must be the same run plain and under zc run, so it holds
 * only "ok <check>", "FAIL <check>: <detail>" and digests; addresses and timings go to stderr.
 */
#ifndef CONF_SUPPORT_LIFE_H
#define CONF_SUPPORT_LIFE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

/* The exit code the project's GPU tests use for "no GPU here" (ZC_TEST_SKIP_CODE). */
#define CONF_SKIP 77

/* Checks failed so far, by any thread. */
static int conf_failures;

/* A CUDA call that must succeed: a failure is a FAIL line naming the call and the error, and
 * exit 1 (nothing after it could be trusted). */
#define CONF_CUDA(call)                                                                            \
    do {                                                                                           \
        cudaError_t conf_error = (call);                                                           \
        if (conf_error != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(conf_error));    \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(conf_error));                          \
            fflush(stdout);                                                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Something the test itself needs (memory, a mapping): without it nothing can be checked. */
#define CONF_NEED(condition, what)                                                                 \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            printf("FAIL %s: could not be done\n", what);                                          \
            fflush(stdout);                                                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* One check's line: "ok NAME", or "FAIL NAME: DETAIL" counted as a failure. */
static inline void conf_report(int passed, const char *name, const char *detail_format, ...)
{
    if (passed) {
        printf("ok %s\n", name);
        return;
    }
    char detail[256];
    va_list ap;
    va_start(ap, detail_format);
    vsnprintf(detail, sizeof detail, detail_format, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", name, detail);
    __atomic_add_fetch(&conf_failures, 1, __ATOMIC_RELAXED);
}

/* Line-buffered stdout (a crash shows how far the program got), and exit 77 (skip) when there
 * is no GPU to run on, with the line the runner shows first. */
static inline void conf_skip_without_gpu(const char *program)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess || count == 0) {
        fprintf(stderr, "SKIP %s: no CUDA GPU (%s)\n", program,
                error != cudaSuccess ? cudaGetErrorName(error) : "none found");
        exit(CONF_SKIP);
    }
}

static inline double conf_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline uint64_t conf_fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Two digests made one, in order. */
static inline uint64_t conf_mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
    return h;
}

/* Byte i of pattern seed: no period a chunk could share, so a chunk copied from the wrong
 * place, or a page left from an earlier content, cannot match by chance. The kernels compute
 * the same bytes on the device. */
__host__ __device__ static inline unsigned char conf_byte(size_t i, unsigned seed)
{
    return (unsigned char)((((uint64_t)i + seed) * 0x9E3779B97F4A7C15ull) >> 56);
}

static inline void conf_fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = conf_byte(i, seed);
}

/* The first index where p is not pattern seed, or n. */
static inline size_t conf_differs(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != conf_byte(i, seed))
            return i;
    }
    return n;
}

/* The first index where p is not zero, or n. */
static inline size_t conf_nonzero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0)
            return i;
    }
    return n;
}

/* The first index where a and b differ, or n. */
static inline size_t conf_mismatch(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i])
            return i;
    }
    return n;
}

/* Device bytes [0, n) set to pattern seed, by the GPU. */
__global__ void conf_generate(unsigned char *dev, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dev[i] = conf_byte(i, seed);
}

static inline void conf_generate_on(unsigned char *dev, size_t n, unsigned seed,
                                    cudaStream_t stream)
{
    conf_generate<<<132, 256, 0, stream>>>(dev, n, seed);
    CONF_CUDA(cudaGetLastError());
}

/* The register cure's trigger: host copied to the device from its first byte, whole, three
 * times (zc run pins a buffer once copies from its start have moved twice its size). */
static inline void conf_pin_in_place(const unsigned char *host, size_t n, unsigned char *dev)
{
    for (int i = 0; i < 3; i++)
        CONF_CUDA(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
}

/* The watchdog: one thread that, once armed, prints a FAIL line and ends the process when the
 * deadline passes, so that a hang is a failure with a name, not a test killed from outside. */
static pthread_mutex_t conf_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static double conf_watch_deadline; /* 0: disarmed */
static char conf_watch_what[128];
static pthread_once_t conf_watch_once = PTHREAD_ONCE_INIT;

static inline void *conf_watchdog_main(void *unused)
{
    (void)unused;
    for (;;) {
        usleep(20000);
        pthread_mutex_lock(&conf_watch_lock);
        if (conf_watch_deadline > 0 && conf_now_s() > conf_watch_deadline) {
            /* write(), not printf: a thread that hangs may hold stdout's lock. */
            char line[200];
            int len = snprintf(line, sizeof line, "FAIL %s: no end within its time bound\n",
                               conf_watch_what);
            if (len > 0 && write(1, line, (size_t)len) < 0)
                _exit(2);
            _exit(1);
        }
        pthread_mutex_unlock(&conf_watch_lock);
    }
    return NULL;
}

static inline void conf_watch_start(void)
{
    pthread_t thread;
    CONF_NEED(pthread_create(&thread, NULL, conf_watchdog_main, NULL) == 0, "watchdog thread");
    pthread_detach(thread);
}

/* Arm the watchdog: what must be over within seconds. */
static inline void conf_watch(const char *what, double seconds)
{
    pthread_once(&conf_watch_once, conf_watch_start);
    pthread_mutex_lock(&conf_watch_lock);
    snprintf(conf_watch_what, sizeof conf_watch_what, "%s", what);
    conf_watch_deadline = conf_now_s() + seconds;
    pthread_mutex_unlock(&conf_watch_lock);
}

static inline void conf_watch_done(void)
{
    pthread_mutex_lock(&conf_watch_lock);
    conf_watch_deadline = 0;
    pthread_mutex_unlock(&conf_watch_lock);
}

#endif /* CONF_SUPPORT_LIFE_H */
