/* SPDX-License-Identifier: Apache-2.0 */
/* The FIR kernels: one launch per frame, or persistent on a mapped-memory ring. */
#include "stream/fir_kernels.h"

#include "device/cuda_check.h"
#include "zerocopy/ring_device.cuh"

/* Shared memory: taps (padded to 4), then tile + halo4 inputs, then tile outputs. */
static size_t zc__fir_smem(const zc__fir_shape *s)
{
    return ((size_t)(s->ntaps + 3u) / 4u * 4u + 2u * s->tile + s->halo4) * sizeof(float);
}

/*
 * One channel, four consecutive outputs per thread: each input is loaded from shared memory
 * once and used by all four (a sliding window in registers), so loads per FMA fall from two to
 * a half. The filter is bound by those loads, not by its FMAs. The window's next input depends
 * only on k, so unrolling lets the loads run ahead of the FMAs.
 */
__device__ static void zc__fir_tile_mono4(const float *taps, const float *x, float *y, uint32_t n,
                                          const zc__fir_shape &s)
{
    for (uint32_t q = threadIdx.x; q < n / 4u; q += blockDim.x) {
        const float *xp = x + s.halo4 + 4u * q; /* output 4q + r at tap k reads xp[r - k] */
        float x0 = xp[0], x1 = xp[1], x2 = xp[2], x3 = xp[3];
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
#pragma unroll 8
        for (uint32_t k = 0;; k++) {
            const float t = taps[k];
            a0 = fmaf(t, x0, a0);
            a1 = fmaf(t, x1, a1);
            a2 = fmaf(t, x2, a2);
            a3 = fmaf(t, x3, a3);
            if (k + 1u == s.ntaps)
                break;
            x3 = x2;
            x2 = x1;
            x1 = x0;
            x0 = xp[-(int)k - 1];
        }
        y[4u * q] = a0;
        y[4u * q + 1u] = a1;
        y[4u * q + 2u] = a2;
        y[4u * q + 3u] = a3;
    }
}

/*
 * n outputs of one tile: x[halo4 + j] is the tile's j-th input, earlier inputs before it. Four
 * accumulators, not one: a single chain of ntaps dependent FMAs is what a frame's latency waits
 * for when every thread makes one output; four chains overlap.
 */
__device__ static void zc__fir_tile(const float *taps, const float *x, float *y, uint32_t n,
                                    const zc__fir_shape &s)
{
    /* Four outputs per thread only when every thread has that many anyway: with one output
     * per thread (small frames, where latency counts) the shorter FMA chains below win. */
    if (s.channels == 1u && (n & 3u) == 0 && n >= 4u * blockDim.x) {
        zc__fir_tile_mono4(taps, x, y, n, s);
        return;
    }
    const int ch = (int)s.channels;
    for (uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
        const float *xp = x + s.halo4 + j;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        uint32_t k = 0;
#pragma unroll 2
        for (; k + 4u <= s.ntaps; k += 4u) {
            const float *xk = xp - (int)k * ch;
            a0 = fmaf(taps[k], xk[0], a0);
            a1 = fmaf(taps[k + 1u], xk[-ch], a1);
            a2 = fmaf(taps[k + 2u], xk[-2 * ch], a2);
            a3 = fmaf(taps[k + 3u], xk[-3 * ch], a3);
        }
        for (; k < s.ntaps; k++)
            a0 = fmaf(taps[k], xp[-(int)k * ch], a0);
        y[j] = (a0 + a1) + (a2 + a3);
    }
}

__device__ static float *zc__fir_load_taps(float *smem, const float *taps, uint32_t ntaps)
{
    for (uint32_t k = threadIdx.x; k < ntaps; k += blockDim.x)
        smem[k] = taps[k];
    return smem + (ntaps + 3u) / 4u * 4u;
}

__global__ void zc__fir_frame_kernel(zc__fir_shape s, const float *in, float *out,
                                     const float *hist_in, float *hist_out, const float *taps)
{
    extern __shared__ __align__(16) float zc__fir_smem_frame[];
    float *taps_sh = zc__fir_smem_frame;
    float *x = zc__fir_load_taps(taps_sh, taps, s.ntaps);
    float *y = x + s.tile + s.halo4;
    const uint32_t t0 = blockIdx.x * s.tile;
    const uint32_t n = min(s.tile, s.words - t0);
    for (uint32_t i = threadIdx.x; i < n + s.halo4; i += blockDim.x) {
        int64_t g = (int64_t)t0 - (int64_t)s.halo4 + i;
        float v = 0.0f;
        if (g >= 0)
            v = in[g];
        else if (g >= -(int64_t)s.halo)
            v = hist_in[(int64_t)s.halo + g];
        x[i] = v;
    }
    __syncthreads();
    zc__fir_tile(taps_sh, x, y, n, s);
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < n; j += blockDim.x)
        out[t0 + j] = y[j];
    /* The next frame's history: this frame's tail, into the other half of the double buffer so
     * that no block reads what another is writing. */
    if (blockIdx.x == 0) {
        for (uint32_t i = threadIdx.x; i < s.halo; i += blockDim.x)
            hist_out[i] = in[s.words - s.halo + i];
    }
}

__global__ void zc__fir_persistent_kernel(zc__fir_shape s, zc_ring_dev ring, const float *taps)
{
    extern __shared__ __align__(16) float zc__fir_smem_ring[];
    float *taps_sh = zc__fir_smem_ring;
    float *x = zc__fir_load_taps(taps_sh, taps, s.ntaps);
    float *y = x + s.tile + s.halo4;
    zc_ring_dev_watch watch;
    uint32_t why = zc_ring_dev_begin(&ring, &watch); /* its barrier also publishes the taps */

    /* This block's share of every frame, in 16-byte units so that FLAG reads stay wide. */
    uint64_t first4, count4;
    zc_ring_split(s.words / 4u, gridDim.x, blockIdx.x, &first4, &count4);
    const uint64_t first = first4 * 4u, end = (first4 + count4) * 4u;
    for (uint64_t seq = 0; why == ZC_RING_EXIT_NONE; seq++) {
        why = zc_ring_dev_wait(&ring, seq, &watch);
        for (uint64_t t0 = first; t0 < end && why == ZC_RING_EXIT_NONE; t0 += s.tile) {
            uint32_t n = (uint32_t)min((uint64_t)s.tile, end - t0);
            /* The inputs before the tile come with it in the same read; for the first tile of
             * a frame they are the previous frame's tail, which is why frames are released one
             * late (release(seq) below keeps seq for the next frame's history). */
            why = zc_ring_dev_read(&ring, seq, (int64_t)t0 - (int64_t)s.halo4, n + s.halo4,
                                   (uint32_t *)x, &watch);
            if (why != ZC_RING_EXIT_NONE)
                break;
            if (threadIdx.x == 0)
                zc_ring_dev_stamp(&ring, seq, ZC_RING_STAMP_READ);
            zc__fir_tile(taps_sh, x, y, n, s);
            __syncthreads();
            if (threadIdx.x == 0)
                zc_ring_dev_stamp(&ring, seq, ZC_RING_STAMP_COMPUTED);
            zc_ring_dev_write(&ring, seq, t0, n, (const uint32_t *)y);
            __syncthreads();
        }
        if (why != ZC_RING_EXIT_NONE)
            break;
        zc_ring_dev_release(&ring, seq);
        zc_ring_dev_publish(&ring, seq);
        if (threadIdx.x == 0)
            zc_ring_dev_stamp(&ring, seq, ZC_RING_STAMP_WRITTEN);
    }
    zc_ring_dev_end(&ring, why);
}

extern "C" zc_status zc__fir_kernels_load(void)
{
    /* cudaFuncGetAttributes loads the function it is asked about (the CUDA programming guide's
     * way to force loading under lazy loading). */
    cudaFuncAttributes attr;
    ZC_CUDA_RETURN(cudaFuncGetAttributes(&attr, zc__fir_frame_kernel));
    ZC_CUDA_RETURN(cudaFuncGetAttributes(&attr, zc__fir_persistent_kernel));
    return ZC_OK;
}

extern "C" zc_status zc__fir_launch_frame(const zc__fir_shape *shape, const float *in, float *out,
                                          const float *hist_in, float *hist_out, const float *taps,
                                          cudaStream_t stream, uint32_t *blocks_p)
{
    uint32_t blocks = zc__fir_frame_blocks(shape);
    zc__fir_frame_kernel<<<blocks, ZC__FIR_THREADS, zc__fir_smem(shape), stream>>>(
        *shape, in, out, hist_in, hist_out, taps);
    zc_status st = ZC_CUDA_LAUNCH_CHECK("zc__fir_frame_kernel");
    if (st == ZC_OK && blocks_p != NULL)
        *blocks_p = blocks;
    return st;
}

extern "C" zc_status zc__fir_launch_persistent(const zc__fir_shape *shape, const zc_ring_dev *ring,
                                               const float *taps, uint32_t blocks,
                                               cudaStream_t stream)
{
    zc__fir_persistent_kernel<<<blocks, ZC__FIR_THREADS, zc__fir_smem(shape), stream>>>(
        *shape, *ring, taps);
    return ZC_CUDA_LAUNCH_CHECK("zc__fir_persistent_kernel");
}
