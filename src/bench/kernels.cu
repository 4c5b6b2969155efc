/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark's kernels: gate, fill and check, streaming reads and writes, chase, ping-pong. */
#include "bench/kernels.h"

#include <limits.h>

#include "bench/pattern.h"
#include "device/cuda_check.h"
#include "device/walk.h"

/* Nanoseconds of the GPU's global timer: the time bound of every device-side spin. */
__device__ static inline uint64_t zc__globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Loads through asm volatile: each pass over the data really loads it again, the compiler may
 * neither merge passes nor drop loads. Plain ld.global: never the non-coherent path. */
__device__ static inline uint4 zc__ld16(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

__device__ static inline uint32_t zc__ld4(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

__device__ static inline uint32_t zc__ld_acquire_sys(const volatile uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ static inline void zc__st_release_sys(volatile uint32_t *p, uint32_t v)
{
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Sum a warp's values and add them to *slot once per warp: few atomics, all in device memory. */
__device__ static inline void zc__warp_add(uint32_t acc, uint32_t *slot)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if ((threadIdx.x & 31u) == 0)
        atomicAdd(slot, acc);
}

__global__ void zc__gate_kernel(const volatile uint32_t *release, uint32_t seq,
                                volatile uint32_t *status, uint64_t timeout_ns)
{
    uint64_t start = zc__globaltimer();
    for (;;) {
        if (*release == seq)
            return;
        if (zc__globaltimer() - start > timeout_ns) {
            /* The sequence number, not a flag: the host never writes this word, and a stale
             * timeout of an earlier gate cannot be mistaken for this one. */
            *status = seq;
            return;
        }
        __nanosleep(256);
    }
}

__global__ void zc__fill_kernel(uint32_t *p, size_t words, size_t bytes, uint32_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        p[i] = zc__pattern32(seed, i);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (size_t b = words * 4; b < bytes; b++)
            ((uint8_t *)p)[b] = zc__pattern_byte(seed, b);
}

__global__ void zc__check_kernel(const uint32_t *p, size_t words, size_t bytes, uint32_t seed,
                                 uint32_t delta, unsigned long long *report)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ULLONG_MAX;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        if (p[i] != zc__pattern32(seed, i) + delta) {
            bad++;
            if (i * 4 < first)
                first = i * 4;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (size_t b = words * 4; b < bytes; b++)
            if (((const uint8_t *)p)[b] != zc__pattern_byte(seed, b)) {
                bad++;
                if (b < first)
                    first = b;
            }
    if (bad) {
        atomicAdd(&report[0], bad);
        atomicMin(&report[1], first);
    }
}

template <int U>
__global__ void zc__read16_kernel(const uint4 *p, size_t n, int passes, uint32_t *slot)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
    for (int pass = 0; pass < passes; pass++) {
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        /* U independent loads issued before any is used: U x 16 bytes in flight per thread. */
        for (; i + (size_t)(U - 1) * stride < n; i += (size_t)U * stride) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = zc__ld16(p + i + (size_t)u * stride);
#pragma unroll
            for (int u = 0; u < U; u++)
                acc += v[u].x + v[u].y + v[u].z + v[u].w;
        }
        for (; i < n; i += stride) {
            uint4 v = zc__ld16(p + i);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    zc__warp_add(acc, slot);
}

/* The same reads, each warp taking U x 32 consecutive 16-byte words per iteration: U x 512
 * contiguous bytes per warp, so the requests of one warp fill whole pages in order. */
template <int U>
__global__ void zc__read16c_kernel(const uint4 *p, size_t n, int passes, uint32_t *slot)
{
    size_t lane = threadIdx.x & 31u;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    size_t warps = ((size_t)gridDim.x * blockDim.x) / 32;
    size_t chunk = (size_t)32 * U;
    uint32_t acc = 0;
    for (int pass = 0; pass < passes; pass++) {
        for (size_t base = warp * chunk; base < n; base += warps * chunk) {
            if (base + chunk <= n) {
                uint4 v[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                    v[u] = zc__ld16(p + base + (size_t)u * 32 + lane);
#pragma unroll
                for (int u = 0; u < U; u++)
                    acc += v[u].x + v[u].y + v[u].z + v[u].w;
            } else {
                for (int u = 0; u < U; u++) {
                    size_t i = base + (size_t)u * 32 + lane;
                    if (i < n) {
                        uint4 v = zc__ld16(p + i);
                        acc += v.x + v.y + v.z + v.w;
                    }
                }
            }
        }
    }
    zc__warp_add(acc, slot);
}

template <int U>
__global__ void zc__read4_kernel(const uint32_t *p, size_t n, int passes, uint32_t *slot)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
    for (int pass = 0; pass < passes; pass++) {
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        for (; i + (size_t)(U - 1) * stride < n; i += (size_t)U * stride) {
            uint32_t v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = zc__ld4(p + i + (size_t)u * stride);
#pragma unroll
            for (int u = 0; u < U; u++)
                acc += v[u];
        }
        for (; i < n; i += stride)
            acc += zc__ld4(p + i);
    }
    zc__warp_add(acc, slot);
}

__global__ void zc__read_strided_kernel(const uint32_t *p, size_t count, size_t stride_words,
                                        int passes, uint32_t *slot)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
    for (int pass = 0; pass < passes; pass++)
        for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += stride)
            acc += zc__ld4(p + e * stride_words);
    zc__warp_add(acc, slot);
}

/* Segment s of nseg (a power of two) in a scrambled order: an odd multiplier is a bijection
 * modulo a power of two, so every segment is read exactly once per pass. */
__device__ static inline size_t zc__scramble(size_t s, size_t nseg)
{
    return (s * (size_t)0x9E3779B97F4A7C15ull) & (nseg - 1);
}

__global__ void zc__read_random_kernel(const uint32_t *p, size_t nseg, int passes, uint32_t *slot)
{
    size_t warps = ((size_t)gridDim.x * blockDim.x) / 32;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x & 31u;
    uint32_t acc = 0;
    for (int pass = 0; pass < passes; pass++)
        for (size_t s = warp; s < nseg; s += warps)
            acc += zc__ld4(p + zc__scramble(s, nseg) * 32 + lane);
    zc__warp_add(acc, slot);
}

/* Every word once per pass in the walk's order (device/walk.h), as zc advise's workload kernel
 * reads its input. */
__global__ void zc__read_walk_kernel(const uint32_t *p, size_t words, zc__walk walk, size_t mul,
                                     int passes, uint32_t *slot)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
            acc += zc__ld4(p + zc__walk_index(i, words, walk, mul));
    zc__warp_add(acc, slot);
}

/* Every word written once in the walk's order, with the pattern's value for its place. */
__global__ void zc__write_walk_kernel(uint32_t *p, size_t words, zc__walk walk, size_t mul,
                                      uint32_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        size_t j = zc__walk_index(i, words, walk, mul);
        p[j] = zc__pattern32(seed, j);
    }
}

/* The words of a buffer a walk can take (a whole number of 128-byte lines, at least one):
 * ZC_ERR_INVALID_ARG naming fn otherwise. */
static zc_status zc__walk_words(const char *fn, size_t bytes, size_t *words_p)
{
    if (bytes % 128 != 0 || bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: a walk needs a multiple of 128 bytes, got %zu", fn,
                       bytes);
    *words_p = bytes / 4;
    return ZC_OK;
}

/* The walk of an access pattern; 0 when it is not a walk. */
static zc__walk zc__walk_of(zc__access access)
{
    return access == ZC__ACCESS_WALK_STRIDED  ? ZC__WALK_STRIDED
           : access == ZC__ACCESS_WALK_RANDOM ? ZC__WALK_RANDOM
                                              : (zc__walk)0;
}

/* A 16-byte store of the pattern at uint4 index i, plain or evict-first. */
__device__ static inline void zc__st16(uint4 *p, size_t i, uint32_t seed, int streaming)
{
    uint4 v;
    v.x = zc__pattern32(seed, 4 * i);
    v.y = zc__pattern32(seed, 4 * i + 1);
    v.z = zc__pattern32(seed, 4 * i + 2);
    v.w = zc__pattern32(seed, 4 * i + 3);
    if (streaming)
        __stcs(p + i, v);
    else
        p[i] = v;
}

template <int U>
__global__ void zc__write16_kernel(uint4 *p, size_t n, uint32_t seed, int streaming)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    /* U stores per thread and iteration: U x 16 bytes issued back to back. */
    for (; i + (size_t)(U - 1) * stride < n; i += (size_t)U * stride) {
#pragma unroll
        for (int u = 0; u < U; u++)
            zc__st16(p, i + (size_t)u * stride, seed, streaming);
    }
    for (; i < n; i += stride)
        zc__st16(p, i, seed, streaming);
}

/* Stores laid out as zc__read16c_kernel reads: U x 512 contiguous bytes per warp. */
template <int U>
__global__ void zc__write16c_kernel(uint4 *p, size_t n, uint32_t seed, int streaming)
{
    size_t lane = threadIdx.x & 31u;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    size_t warps = ((size_t)gridDim.x * blockDim.x) / 32;
    size_t chunk = (size_t)32 * U;
    for (size_t base = warp * chunk; base < n; base += warps * chunk) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            size_t i = base + (size_t)u * 32 + lane;
            if (i < n)
                zc__st16(p, i, seed, streaming);
        }
    }
}

__global__ void zc__write4_kernel(uint32_t *p, size_t n, uint32_t seed, int streaming)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (streaming)
            __stcs(p + i, zc__pattern32(seed, i));
        else
            p[i] = zc__pattern32(seed, i);
    }
}

__global__ void zc__write_strided_kernel(uint32_t *p, size_t count, size_t stride_words,
                                         uint32_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += stride)
        p[e * stride_words] = zc__pattern32(seed, e * stride_words);
}

__global__ void zc__write_random_kernel(uint32_t *p, size_t nseg, uint32_t seed)
{
    size_t warps = ((size_t)gridDim.x * blockDim.x) / 32;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x & 31u;
    for (size_t s = warp; s < nseg; s += warps) {
        size_t w = zc__scramble(s, nseg) * 32 + lane;
        p[w] = zc__pattern32(seed, w);
    }
}

__global__ void zc__increment_kernel(const uint4 *in, uint4 *out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v = in[i];
        v.x += 1;
        v.y += 1;
        v.z += 1;
        v.w += 1;
        out[i] = v;
    }
}

__global__ void zc__chase_kernel(const uint32_t *nodes, size_t stride_words, uint32_t start,
                                 uint32_t hops, uint32_t *end)
{
    uint32_t idx = start;
    /* ld.global.cv: fetch again every time, so no hop is served from a cache. */
    for (uint32_t h = 0; h < hops; h++)
        idx = __ldcv(nodes + (size_t)idx * stride_words);
    *end = idx;
}

__global__ void zc__touch_kernel(uint32_t *word, uint32_t value)
{
    *word = value;
}

__global__ void zc__pingpong_kernel(const volatile uint32_t *ping, volatile uint32_t *pong,
                                    const volatile uint32_t *stop, volatile uint32_t *status,
                                    uint32_t rounds, uint64_t timeout_ns, int acquire)
{
    for (uint32_t seq = 1; seq <= rounds; seq++) {
        uint64_t since = zc__globaltimer();
        uint32_t polls = 0;
        for (;;) {
            uint32_t v = acquire ? zc__ld_acquire_sys(ping) : *ping;
            if (v == seq)
                break;
            /* The stop flag and the clock are checked every 64 polls only, so that the common
             * case is a single load across the link. */
            if ((++polls & 63u) == 0) {
                if (*stop) {
                    *status = 2;
                    return;
                }
                if (zc__globaltimer() - since > timeout_ns) {
                    *status = 1;
                    return;
                }
            }
        }
        if (acquire)
            zc__st_release_sys(pong, seq);
        else
            *pong = seq;
    }
    __threadfence_system();
    *status = 0;
}

/* A grid for items spread over threads, at most one item per thread and pass. */
static unsigned zc__grid(size_t items, const zc__kshape *shape, int sm_count)
{
    size_t per_block = (size_t)shape->threads * (size_t)shape->unroll;
    size_t needed = (items + per_block - 1) / per_block;
    if (needed == 0)
        needed = 1;
    size_t grid = needed;
    if (shape->blocks_per_sm > 0) {
        size_t cap = (size_t)sm_count * (size_t)shape->blocks_per_sm;
        if (cap < grid)
            grid = cap;
    }
    if (grid > 0x7fffffffu)
        grid = 0x7fffffffu;
    return (unsigned)grid;
}

static const zc__kshape zc__flat_shape = {"flat", 1, 8, 256, 0, 0};

extern "C" zc_status zc__k_gate(const volatile uint32_t *release, uint32_t seq,
                                volatile uint32_t *status, uint64_t timeout_ns, cudaStream_t stream)
{
    zc__gate_kernel<<<1, 1, 0, stream>>>(release, seq, status, timeout_ns);
    return ZC_CUDA_LAUNCH_CHECK("zc__gate_kernel");
}

extern "C" zc_status zc__k_fill(void *p, size_t bytes, uint32_t seed, int sm_count,
                                cudaStream_t stream)
{
    zc__fill_kernel<<<zc__grid(bytes / 4, &zc__flat_shape, sm_count), 256, 0, stream>>>(
        (uint32_t *)p, bytes / 4, bytes, seed);
    return ZC_CUDA_LAUNCH_CHECK("zc__fill_kernel");
}

extern "C" zc_status zc__k_check(const void *p, size_t bytes, uint32_t seed, uint32_t delta,
                                 unsigned long long *report, int sm_count, cudaStream_t stream)
{
    zc__check_kernel<<<zc__grid(bytes / 4, &zc__flat_shape, sm_count), 256, 0, stream>>>(
        (const uint32_t *)p, bytes / 4, bytes, seed, delta, report);
    return ZC_CUDA_LAUNCH_CHECK("zc__check_kernel");
}

extern "C" zc_status zc__k_read(const void *p, size_t bytes, zc__access access, size_t stride_bytes,
                                int passes, const zc__kshape *shape, int sm_count, uint32_t *slot,
                                cudaStream_t stream)
{
    int threads = shape->threads;
    switch (access) {
    case ZC__ACCESS_16B: {
        size_t n = bytes / 16;
        unsigned grid = zc__grid(n, shape, sm_count);
        const uint4 *q = (const uint4 *)p;
        int c = shape->contiguous;
        switch (shape->unroll) {
        case 1:
            zc__read16_kernel<1><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        case 2:
            if (c)
                zc__read16c_kernel<2><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            else
                zc__read16_kernel<2><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        case 4:
            if (c)
                zc__read16c_kernel<4><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            else
                zc__read16_kernel<4><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        case 8:
            if (c)
                zc__read16c_kernel<8><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            else
                zc__read16_kernel<8><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        default:
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_read: unroll %d is not 1, 2, 4 or 8",
                           shape->unroll);
        }
        return ZC_CUDA_LAUNCH_CHECK("zc__read16_kernel");
    }
    case ZC__ACCESS_4B: {
        size_t n = bytes / 4;
        unsigned grid = zc__grid(n, shape, sm_count);
        const uint32_t *q = (const uint32_t *)p;
        switch (shape->unroll) {
        case 1:
            zc__read4_kernel<1><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        case 2:
            zc__read4_kernel<2><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        case 4:
            zc__read4_kernel<4><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        case 8:
            zc__read4_kernel<8><<<grid, threads, 0, stream>>>(q, n, passes, slot);
            break;
        default:
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_read: unroll %d is not 1, 2, 4 or 8",
                           shape->unroll);
        }
        return ZC_CUDA_LAUNCH_CHECK("zc__read4_kernel");
    }
    case ZC__ACCESS_STRIDED: {
        if (stride_bytes < 4 || stride_bytes % 4 != 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_read: stride %zu is not a multiple of 4",
                           stride_bytes);
        size_t sw = stride_bytes / 4, count = (bytes / 4 + sw - 1) / sw;
        zc__read_strided_kernel<<<zc__grid(count, &zc__flat_shape, sm_count), 256, 0, stream>>>(
            (const uint32_t *)p, count, sw, passes, slot);
        return ZC_CUDA_LAUNCH_CHECK("zc__read_strided_kernel");
    }
    case ZC__ACCESS_RANDOM: {
        size_t nseg = bytes / 128;
        if (nseg == 0 || (nseg & (nseg - 1)) != 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc__k_read: random access needs a power-of-two count of 128-byte "
                           "segments, got %zu bytes",
                           bytes);
        zc__read_random_kernel<<<zc__grid(nseg * 32, &zc__flat_shape, sm_count), 256, 0, stream>>>(
            (const uint32_t *)p, nseg, passes, slot);
        return ZC_CUDA_LAUNCH_CHECK("zc__read_random_kernel");
    }
    case ZC__ACCESS_WALK_STRIDED:
    case ZC__ACCESS_WALK_RANDOM: {
        size_t words = 0;
        ZC_CHECK(zc__walk_words("zc__k_read", bytes, &words));
        zc__read_walk_kernel<<<zc__walk_blocks(words, sm_count), ZC__WALK_THREADS, 0, stream>>>(
            (const uint32_t *)p, words, zc__walk_of(access), zc__walk_multiplier(words), passes,
            slot);
        return ZC_CUDA_LAUNCH_CHECK("zc__read_walk_kernel");
    }
    }
    return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_read: unknown access pattern %d", (int)access);
}

extern "C" zc_status zc__k_write(void *p, size_t bytes, zc__access access, size_t stride_bytes,
                                 uint32_t seed, const zc__kshape *shape, int sm_count,
                                 cudaStream_t stream)
{
    int threads = shape->threads;
    switch (access) {
    case ZC__ACCESS_16B: {
        size_t n = bytes / 16;
        unsigned grid = zc__grid(n, shape, sm_count);
        uint4 *q = (uint4 *)p;
        int st = shape->streaming, c = shape->contiguous;
        switch (shape->unroll) {
        case 1:
            zc__write16_kernel<1><<<grid, threads, 0, stream>>>(q, n, seed, st);
            break;
        case 2:
            if (c)
                zc__write16c_kernel<2><<<grid, threads, 0, stream>>>(q, n, seed, st);
            else
                zc__write16_kernel<2><<<grid, threads, 0, stream>>>(q, n, seed, st);
            break;
        case 4:
            if (c)
                zc__write16c_kernel<4><<<grid, threads, 0, stream>>>(q, n, seed, st);
            else
                zc__write16_kernel<4><<<grid, threads, 0, stream>>>(q, n, seed, st);
            break;
        case 8:
            if (c)
                zc__write16c_kernel<8><<<grid, threads, 0, stream>>>(q, n, seed, st);
            else
                zc__write16_kernel<8><<<grid, threads, 0, stream>>>(q, n, seed, st);
            break;
        default:
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_write: unroll %d is not 1, 2, 4 or 8",
                           shape->unroll);
        }
        return ZC_CUDA_LAUNCH_CHECK("zc__write16_kernel");
    }
    case ZC__ACCESS_4B: {
        size_t n = bytes / 4;
        zc__write4_kernel<<<zc__grid(n, shape, sm_count), threads, 0, stream>>>(
            (uint32_t *)p, n, seed, shape->streaming);
        return ZC_CUDA_LAUNCH_CHECK("zc__write4_kernel");
    }
    case ZC__ACCESS_STRIDED: {
        if (stride_bytes < 4 || stride_bytes % 4 != 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_write: stride %zu is not a multiple of 4",
                           stride_bytes);
        size_t sw = stride_bytes / 4, count = (bytes / 4 + sw - 1) / sw;
        zc__write_strided_kernel<<<zc__grid(count, &zc__flat_shape, sm_count), 256, 0, stream>>>(
            (uint32_t *)p, count, sw, seed);
        return ZC_CUDA_LAUNCH_CHECK("zc__write_strided_kernel");
    }
    case ZC__ACCESS_RANDOM: {
        size_t nseg = bytes / 128;
        if (nseg == 0 || (nseg & (nseg - 1)) != 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc__k_write: random access needs a power-of-two count of 128-byte "
                           "segments, got %zu bytes",
                           bytes);
        zc__write_random_kernel<<<zc__grid(nseg * 32, &zc__flat_shape, sm_count), 256, 0, stream>>>(
            (uint32_t *)p, nseg, seed);
        return ZC_CUDA_LAUNCH_CHECK("zc__write_random_kernel");
    }
    case ZC__ACCESS_WALK_STRIDED:
    case ZC__ACCESS_WALK_RANDOM: {
        size_t words = 0;
        ZC_CHECK(zc__walk_words("zc__k_write", bytes, &words));
        zc__write_walk_kernel<<<zc__walk_blocks(words, sm_count), ZC__WALK_THREADS, 0, stream>>>(
            (uint32_t *)p, words, zc__walk_of(access), zc__walk_multiplier(words), seed);
        return ZC_CUDA_LAUNCH_CHECK("zc__write_walk_kernel");
    }
    }
    return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__k_write: unknown access pattern %d", (int)access);
}

extern "C" zc_status zc__k_increment(const void *in, void *out, size_t bytes, int sm_count,
                                     cudaStream_t stream)
{
    size_t n = bytes / 16;
    zc__increment_kernel<<<zc__grid(n, &zc__flat_shape, sm_count), 256, 0, stream>>>(
        (const uint4 *)in, (uint4 *)out, n);
    return ZC_CUDA_LAUNCH_CHECK("zc__increment_kernel");
}

extern "C" zc_status zc__k_chase(const uint32_t *nodes, size_t stride_words, uint32_t start,
                                 uint32_t hops, uint32_t *end, cudaStream_t stream)
{
    zc__chase_kernel<<<1, 1, 0, stream>>>(nodes, stride_words, start, hops, end);
    return ZC_CUDA_LAUNCH_CHECK("zc__chase_kernel");
}

extern "C" zc_status zc__k_touch(uint32_t *word, uint32_t value, cudaStream_t stream)
{
    zc__touch_kernel<<<1, 1, 0, stream>>>(word, value);
    return ZC_CUDA_LAUNCH_CHECK("zc__touch_kernel");
}

extern "C" zc_status zc__k_pingpong(const volatile uint32_t *ping, volatile uint32_t *pong,
                                    const volatile uint32_t *stop, volatile uint32_t *status,
                                    uint32_t rounds, uint64_t timeout_ns, int acquire,
                                    cudaStream_t stream)
{
    zc__pingpong_kernel<<<1, 1, 0, stream>>>(ping, pong, stop, status, rounds, timeout_ns, acquire);
    return ZC_CUDA_LAUNCH_CHECK("zc__pingpong_kernel");
}
