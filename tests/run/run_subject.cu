/* SPDX-License-Identifier: Apache-2.0 */
// An ordinary CUDA program (runtime API only, as a user writes it) with the pitfalls zc run
// cures, for the tests and the benchmark. Its stdout depends only on the data it computed, so
// that a run under zc run and a run without it can be compared byte for byte; timings go to
// stderr, except in the "rate" and "pinonce" modes, whose stdout is the measurement (with the
// digest of the data, to compare).
//
//   run_subject copies        pageable copies of many sizes, sync, async, cudaMemcpyDefault
//   run_subject copies2d      pitched pageable copies (cudaMemcpy2D, cudaMemcpy2DAsync)
//   run_subject copies3d      3D pageable copies (cudaMemcpy3D, cudaMemcpy3DAsync)
//   run_subject reuse         the same pageable buffers copied again and again, then given
//                             back every way a program can (free, realloc, munmap, madvise,
//                             mmap over them), and read by a forked child while pinned
//   run_subject pin N BYTES   cudaHostAlloc and cudaFreeHost of one size, N times
//   run_subject rate BYTES N  median GB/s of N pageable copies each way
//   run_subject pinonce BYTES FLAGS  one cudaHostAlloc of BYTES with FLAGS and its cudaFreeHost,
//                             timed, its data verified through the GPU, the resident memory
//                             and MemAvailable around it
//   run_subject spawn         runs "copies" in a child process (fork and exec)
//   run_subject kill          "copies", then SIGKILL to itself
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t check_error = (call);                                                          \
        if (check_error != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorName(check_error));                                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define VERIFY(condition, what)                                                                    \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            fprintf(stderr, "verify failed: %s\n", what);                                          \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void scale(unsigned char *data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = (unsigned char)(data[i] * 3u + 1u);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Bytes with no period a chunk could share (a multiplicative hash of the index), so that a
 * chunk copied from the wrong place cannot match by chance. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((((uint64_t)i + seed) * 0x9E3779B97F4A7C15ull) >> 56);
}

static void expect_scaled(const unsigned char *in, const unsigned char *out, size_t n,
                          const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (out[i] != (unsigned char)(in[i] * 3u + 1u)) {
            fprintf(stderr, "verify failed: %s: byte %zu of %zu is %u, expected %u\n", what, i, n,
                    out[i], (unsigned char)(in[i] * 3u + 1u));
            exit(2);
        }
    }
}

/* One size through every kind of copy the cure takes: cudaMemcpy both ways, cudaMemcpyAsync
 * on a stream (the source overwritten as soon as the call returns, which CUDA allows for
 * pageable memory), and cudaMemcpyDefault (the driver's unified cuMemcpy). */
static void copies_of(size_t n, cudaStream_t stream, unsigned seed)
{
    unsigned char *in = (unsigned char *)malloc(n), *out = (unsigned char *)malloc(n),
                  *keep = (unsigned char *)malloc(n), *dev = NULL;
    VERIFY(in != NULL && out != NULL && keep != NULL, "malloc");
    CHECK(cudaMalloc((void **)&dev, n));

    fill(in, n, seed);
    CHECK(cudaMemcpy(dev, in, n, cudaMemcpyHostToDevice));
    scale<<<120, 256>>>(dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dev, n, cudaMemcpyDeviceToHost));
    expect_scaled(in, out, n, "cudaMemcpy");
    printf("sync %zu %016llx\n", n, (unsigned long long)fnv1a(out, n));

    fill(in, n, seed + 1);
    memcpy(keep, in, n);
    CHECK(cudaMemcpyAsync(dev, in, n, cudaMemcpyHostToDevice, stream));
    memset(in, 0xA5, n); /* the call has returned: the pageable source may be reused */
    scale<<<120, 256, 0, stream>>>(dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(out, dev, n, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    expect_scaled(keep, out, n, "cudaMemcpyAsync");
    printf("async %zu %016llx\n", n, (unsigned long long)fnv1a(out, n));

    fill(in, n, seed + 2);
    CHECK(cudaMemcpy(dev, in, n, cudaMemcpyDefault));
    scale<<<120, 256>>>(dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dev, n, cudaMemcpyDefault));
    expect_scaled(in, out, n, "cudaMemcpyDefault");
    printf("default %zu %016llx\n", n, (unsigned long long)fnv1a(out, n));

    CHECK(cudaFree(dev));
    free(keep);
    free(out);
    free(in);
}

static int copies(void)
{
    /* Below the cure's threshold, at it, across chunk edges, odd sizes, and large. */
    static const size_t sizes[] = {
        1,        4096,           (64u << 10) + 3,   256u << 10, (1u << 20) - 1,
        1u << 20, (1u << 20) + 1, (3u << 20) + 4097, 8u << 20,   (37u << 20) + 11};
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    double start = now_s();
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            copies_of(sizes[i], stream, (unsigned)(i + 10 * round));
    }
    CHECK(cudaStreamDestroy(stream));
    fprintf(stderr, "copies: %.1f ms\n", (now_s() - start) * 1e3);
    return 0;
}

/* An image of width x height bytes in pageable memory with a pitch of its own, to pitched device
 * memory and back, synchronously and on a stream, at a column and row offset on both sides; the
 * bytes between the rows must come back untouched. */
static void copies_2d_of(size_t width, size_t height, cudaStream_t stream, unsigned seed)
{
    const size_t host_pitch = width + 1096, x = 5, y = 3;
    unsigned char *in = (unsigned char *)malloc(host_pitch * height),
                  *out = (unsigned char *)malloc(host_pitch * height), *dev = NULL;
    VERIFY(in != NULL && out != NULL, "malloc");
    size_t dev_pitch = 0;
    CHECK(cudaMallocPitch((void **)&dev, &dev_pitch, width + x, height + y));
    for (int async = 0; async < 2; async++) {
        fill(in, host_pitch * height, seed + async);
        memset(out, 0xEE, host_pitch * height);
        unsigned char *d = dev + y * dev_pitch + x;
        if (async) {
            CHECK(cudaMemcpy2DAsync(d, dev_pitch, in + 5, host_pitch, width, height,
                                    cudaMemcpyHostToDevice, stream));
            CHECK(cudaMemcpy2DAsync(out + 5, host_pitch, d, dev_pitch, width, height,
                                    cudaMemcpyDeviceToHost, stream));
            CHECK(cudaStreamSynchronize(stream));
        } else {
            CHECK(cudaMemcpy2D(d, dev_pitch, in + 5, host_pitch, width, height,
                               cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy2D(out + 5, host_pitch, d, dev_pitch, width, height,
                               cudaMemcpyDeviceToHost));
        }
        uint64_t h = 1469598103934665603ull;
        for (size_t row = 0; row < height; row++) {
            VERIFY(memcmp(in + row * host_pitch + 5, out + row * host_pitch + 5, width) == 0,
                   "a row came back changed");
            VERIFY(out[row * host_pitch + 4] == 0xEE && out[row * host_pitch + 5 + width] == 0xEE,
                   "bytes beside a row were written");
            h = (h ^ fnv1a(out + row * host_pitch + 5, width)) * 1099511628211ull;
        }
        printf("%s2d %zux%zu %016llx\n", async ? "async" : "sync", width, height,
               (unsigned long long)h);
    }
    CHECK(cudaFree(dev));
    free(out);
    free(in);
}

static int copies_2d(void)
{
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    /* A 4K frame of 8-bit pixels (cured), a small one (left), and rows wider than a staging
     * buffer (left). */
    static const size_t shapes[][2] = {{3840, 2160}, {640, 48}, {(5u << 20) + 3, 4}};
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            copies_2d_of(shapes[i][0], shapes[i][1], stream, (unsigned)(round * 4 + i));
    }
    CHECK(cudaStreamDestroy(stream));
    return 0;
}

/* A box of width x height x depth bytes inside a pageable host volume with a pitch and slice
 * height of its own, to a 3D device allocation and back, at an offset on both sides; the bytes
 * around the box must come back untouched. */
static void copies_3d_of(size_t width, size_t height, size_t depth, cudaStream_t stream,
                         unsigned seed)
{
    const size_t pitch = width + 328, rows = height + 5, bytes = pitch * rows * (depth + 2);
    unsigned char *in = (unsigned char *)malloc(bytes), *out = (unsigned char *)malloc(bytes);
    VERIFY(in != NULL && out != NULL, "malloc");
    cudaPitchedPtr dev;
    CHECK(cudaMalloc3D(&dev, make_cudaExtent(width + 7, height + 2, depth + 1)));
    for (int async = 0; async < 2; async++) {
        fill(in, bytes, seed + async);
        memset(out, 0xEE, bytes);
        cudaMemcpy3DParms up = {}, down = {};
        up.srcPtr = make_cudaPitchedPtr(in, pitch, width, rows);
        up.srcPos = make_cudaPos(3, 2, 1);
        up.dstPtr = dev;
        up.dstPos = make_cudaPos(7, 2, 1);
        up.extent = make_cudaExtent(width, height, depth);
        up.kind = cudaMemcpyHostToDevice;
        down.srcPtr = dev;
        down.srcPos = up.dstPos;
        down.dstPtr = make_cudaPitchedPtr(out, pitch, width, rows);
        down.dstPos = up.srcPos;
        down.extent = up.extent;
        down.kind = cudaMemcpyDeviceToHost;
        if (async) {
            CHECK(cudaMemcpy3DAsync(&up, stream));
            CHECK(cudaMemcpy3DAsync(&down, stream));
            CHECK(cudaStreamSynchronize(stream));
        } else {
            CHECK(cudaMemcpy3D(&up));
            CHECK(cudaMemcpy3D(&down));
        }
        uint64_t h = 1469598103934665603ull;
        for (size_t z = 0; z < depth + 2; z++) {
            for (size_t y = 0; y < rows; y++) {
                const size_t at = (z * rows + y) * pitch;
                int inside = z >= 1 && z < 1 + depth && y >= 2 && y < 2 + height;
                for (size_t x = 0; x < pitch; x++) {
                    int in_box = inside && x >= 3 && x < 3 + width;
                    VERIFY(in_box ? out[at + x] == in[at + x] : out[at + x] == 0xEE,
                           in_box ? "a byte of the box came back changed"
                                  : "a byte outside the box was written");
                }
                if (inside)
                    h = (h ^ fnv1a(out + at + 3, width)) * 1099511628211ull;
            }
        }
        printf("%s3d %zux%zux%zu %016llx\n", async ? "async" : "sync", width, height, depth,
               (unsigned long long)h);
    }
    CHECK(cudaFree(dev.ptr));
    free(out);
    free(in);
}

static int copies_3d(void)
{
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    /* A volume that is cured, and a small one left as it was. */
    static const size_t shapes[][3] = {{1000, 300, 12}, {64, 8, 3}};
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            copies_3d_of(shapes[i][0], shapes[i][1], shapes[i][2], stream,
                         (unsigned)(round * 4 + i));
    }
    CHECK(cudaStreamDestroy(stream));
    return 0;
}

/* host to the device, scaled there, back into out (synchronous, or asynchronous on stream with
 * host overwritten at once), checked; its checksum printed. */
static void scaled_round_trip(unsigned char *host, unsigned char *out, unsigned char *dev, size_t n,
                              cudaStream_t stream, const char *what)
{
    unsigned char *keep = (unsigned char *)malloc(n);
    VERIFY(keep != NULL, "malloc");
    memcpy(keep, host, n);
    if (stream == NULL) {
        CHECK(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
        scale<<<120, 256>>>(dev, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out, dev, n, cudaMemcpyDeviceToHost));
    } else {
        CHECK(cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, stream));
        memset(host, 0xA5, n); /* returned: the pageable source may be reused */
        scale<<<120, 256, 0, stream>>>(dev, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(out, dev, n, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
    }
    expect_scaled(keep, out, n, what);
    printf("%s %zu %016llx\n", what, n, (unsigned long long)fnv1a(out, n));
    free(keep);
}

/* The register cure's ground: buffers copied again and again (pinned in place under zc run),
 * read by a forked child, then given back every way a program can while the program goes on
 * copying what takes their place. */
static int reuse(void)
{
    const size_t n = (16u << 20) + 5;
    unsigned char *in = (unsigned char *)malloc(n), *out = (unsigned char *)malloc(n), *dev;
    VERIFY(in != NULL && out != NULL, "malloc");
    CHECK(cudaMalloc((void **)&dev, 2 * n));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (unsigned round = 0; round < 8; round++) {
        fill(in, n, round);
        scaled_round_trip(in, out, dev, n, round % 2 ? stream : NULL, "reuse");
    }
    /* A child made by fork reads the buffers as the parent left them. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        printf("child %016llx\n", (unsigned long long)fnv1a(out, n));
        fflush(NULL);
        _exit(0);
    }
    int status = 0;
    VERIFY(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "the forked child");
    /* Grown in place or moved: the copies see the new block. */
    in = (unsigned char *)realloc(in, 2 * n);
    VERIFY(in != NULL, "realloc");
    fill(in, 2 * n, 77);
    scaled_round_trip(in, out, dev, n, NULL, "realloc");
    free(in);
    free(out);
    /* Mappings of the program's own, copied until pinned, then given back or replaced: the
     * copies after must see the pages the program sees (zeros), not the ones pinned. */
    static const char *const ways[] = {"munmap", "madvise", "map-fixed"};
    unsigned char *back = (unsigned char *)malloc(n);
    VERIFY(back != NULL, "malloc");
    for (int way = 0; way < 3; way++) {
        unsigned char *m = (unsigned char *)mmap(NULL, n, PROT_READ | PROT_WRITE,
                                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        VERIFY(m != MAP_FAILED, "mmap");
        for (unsigned round = 0; round < 4; round++) {
            fill(m, n, round + 20);
            CHECK(cudaMemcpy(dev, m, n, cudaMemcpyHostToDevice));
        }
        if (way == 0) {
            VERIFY(munmap(m, n) == 0, "munmap");
            /* The same addresses again where nothing took them meanwhile, the sharpest test. */
            unsigned char *again =
                (unsigned char *)mmap(m, n, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (again == MAP_FAILED)
                again = (unsigned char *)mmap(NULL, n, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            VERIFY(again != MAP_FAILED, "mmap again");
            m = again;
        } else if (way == 1) {
            VERIFY(madvise(m, n, MADV_DONTNEED) == 0, "madvise");
        } else {
            VERIFY(mmap(m, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                        0) == m,
                   "mmap over");
        }
        CHECK(cudaMemcpy(dev, m, n, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++)
            VERIFY(back[i] == 0, "the pages given back were copied, not the program's");
        printf("%s ok\n", ways[way]);
        munmap(m, n);
    }
    free(back);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dev));
    return 0;
}

static int pin(long count, size_t n)
{
    unsigned char *dev = NULL;
    CHECK(cudaMalloc((void **)&dev, n));
    double pinning = 0;
    uint64_t sum = 0;
    for (long i = 0; i < count; i++) {
        unsigned char *host = NULL;
        double t = now_s();
        CHECK(cudaHostAlloc((void **)&host, n, cudaHostAllocDefault));
        pinning += now_s() - t;
        fill(host, n, (unsigned)i);
        CHECK(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
        scale<<<120, 256>>>(dev, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, 0));
        /* cudaFreeHost waits for the copy still writing into host: reading it afterwards would
         * be a bug, so the sum is taken first, after a synchronize. */
        CHECK(cudaStreamSynchronize(0));
        sum += fnv1a(host, n);
        t = now_s();
        CHECK(cudaFreeHost(host));
        pinning += now_s() - t;
    }
    CHECK(cudaFree(dev));
    printf("pin %ld x %zu %016llx\n", count, n, (unsigned long long)sum);
    fprintf(stderr, "pinning: %.3f ms in cudaHostAlloc and cudaFreeHost\n", pinning * 1e3);
    return 0;
}

/* The number of kB that a line of a /proc file holds (format: "Key: %llu kB"), in bytes (0 when
 * it cannot be read). */
static unsigned long long proc_bytes(const char *path, const char *format)
{
    FILE *f = fopen(path, "r");
    unsigned long long kib = 0;
    char line[128];
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, format, &kib) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kib * 1024;
}

/* The system's available memory (MemAvailable). */
static unsigned long long mem_available(void)
{
    return proc_bytes("/proc/meminfo", "MemAvailable: %llu kB");
}

/* The process's resident memory (VmRSS): unlike MemAvailable, which lags while freed pages sit
 * on the kernel's per-CPU lists, it says at once whether this process still holds the pages. */
static unsigned long long resident_bytes(void)
{
    return proc_bytes("/proc/self/status", "VmRSS: %llu kB");
}

/* One pinned allocation of n bytes with flags, timed, then its data verified through the GPU
 * (every byte to the device, changed there, back: the digest), then freed, timed; the system's
 * available memory before, with the block, and after the free says whether it came back. One
 * JSON line on stdout. */
static int pin_once(size_t n, unsigned flags)
{
    unsigned char *dev = NULL, *host = NULL;
    CHECK(cudaMalloc((void **)&dev, n));
    unsigned long long before = mem_available(), rss_before = resident_bytes();
    double t = now_s();
    CHECK(cudaHostAlloc((void **)&host, n, flags));
    double alloc_s = now_s() - t;
    unsigned flags_seen = 0;
    CHECK(cudaHostGetFlags(&flags_seen, host));
    fill(host, n, 11);
    unsigned long long held = mem_available(), rss_held = resident_bytes();
    CHECK(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
    scale<<<120, 256>>>(dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost));
    /* The first 64 bytes of every page and the last page whole: a digest of 16 GiB byte by byte
     * would take longer than the pinning it checks. */
    uint64_t digest = 1469598103934665603ull;
    for (size_t at = 0; at < n; at += 4096)
        digest = (digest ^ fnv1a(host + at, n - at < 64 ? n - at : 64)) * 1099511628211ull;
    digest =
        (digest ^ fnv1a(host + (n > 4096 ? n - 4096 : 0), n > 4096 ? 4096 : n)) * 1099511628211ull;
    t = now_s();
    CHECK(cudaFreeHost(host));
    double free_s = now_s() - t;
    unsigned long long after = mem_available(), rss_after = resident_bytes();
    CHECK(cudaFree(dev));
    printf("{\"bytes\": %zu, \"flags\": %u, \"flags_seen\": %u, \"alloc_s\": %.6f, "
           "\"free_s\": %.6f, \"mem_available\": {\"before\": %llu, \"held\": %llu, "
           "\"after_free\": %llu}, \"resident\": {\"before\": %llu, \"held\": %llu, "
           "\"after_free\": %llu}, \"digest\": \"%016llx\"}\n",
           n, flags, flags_seen, alloc_s, free_s, before, held, after, rss_before, rss_held,
           rss_after, (unsigned long long)digest);
    return 0;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int rate(size_t n, int count)
{
    unsigned char *host = (unsigned char *)malloc(n), *back = (unsigned char *)malloc(n), *dev;
    VERIFY(host != NULL && back != NULL && count > 0 && count <= 1000, "malloc or count");
    fill(host, n, 5);
    memset(back, 0, n); /* pages touched: the copy pays for the link, not for page faults */
    CHECK(cudaMalloc((void **)&dev, n));
    double h2d[1000], d2h[1000];
    for (int warm = 0; warm < 2; warm++) {
        CHECK(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
    }
    for (int i = 0; i < count; i++) {
        double t = now_s();
        CHECK(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice));
        h2d[i] = now_s() - t;
        t = now_s();
        CHECK(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
        d2h[i] = now_s() - t;
    }
    VERIFY(memcmp(host, back, n) == 0, "round trip changed the data");
    qsort(h2d, (size_t)count, sizeof h2d[0], compare_double);
    qsort(d2h, (size_t)count, sizeof d2h[0], compare_double);
    printf("rate %zu h2d %.3f d2h %.3f GB/s (median of %d; min-max h2d %.3f-%.3f d2h "
           "%.3f-%.3f)\n",
           n, n / h2d[count / 2] / 1e9, n / d2h[count / 2] / 1e9, count, n / h2d[count - 1] / 1e9,
           n / h2d[0] / 1e9, n / d2h[count - 1] / 1e9, n / d2h[0] / 1e9);
    CHECK(cudaFree(dev));
    free(back);
    free(host);
    return 0;
}

static int spawn(const char *self)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "copies", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    VERIFY(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
    printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "copies") == 0)
        return copies();
    if (argc == 2 && strcmp(argv[1], "copies2d") == 0)
        return copies_2d();
    if (argc == 2 && strcmp(argv[1], "copies3d") == 0)
        return copies_3d();
    if (argc == 2 && strcmp(argv[1], "reuse") == 0)
        return reuse();
    if (argc == 4 && strcmp(argv[1], "pin") == 0)
        return pin(atol(argv[2]), (size_t)atoll(argv[3]));
    if (argc == 4 && strcmp(argv[1], "pinonce") == 0)
        return pin_once((size_t)atoll(argv[2]), (unsigned)atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "rate") == 0)
        return rate((size_t)atoll(argv[2]), atoi(argv[3]));
    if (argc == 2 && strcmp(argv[1], "spawn") == 0)
        return spawn(argv[0]);
    if (argc == 2 && strcmp(argv[1], "kill") == 0) {
        copies();
        fflush(NULL);
        raise(SIGKILL);
    }
    fprintf(
        stderr,
        "usage: run_subject copies | copies2d | copies3d | reuse | pin N BYTES | rate BYTES N | "
        "spawn | kill\n");
    return 64;
}
