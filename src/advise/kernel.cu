/* SPDX-License-Identifier: Apache-2.0 */
/* The workload kernel: reads each word of its input passes times in a chosen order, writes a
 * result, and sums what it read so that no read can be optimised away. */
#include "advise/kernel_internal.h"

#include "device/cuda_check.h"
#include "device/walk.h"

/* The word a thread's i-th step visits: the walk of the workload's pattern (device/walk.h, which
 * the bench's device.*.strided and device.*.random cases walk too). */
static __device__ size_t zc__visit(size_t i, size_t words, int pattern, size_t mul)
{
    if (pattern == ZC_ACCESS_STRIDED)
        return zc__walk_index(i, words, ZC__WALK_STRIDED, mul);
    if (pattern == ZC_ACCESS_RANDOM)
        return zc__walk_index(i, words, ZC__WALK_RANDOM, mul);
    return i;
}

static __global__ void zc__work_kernel(zc__work w)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
    if (w.in != NULL) {
        int read_only_passes = w.out != NULL ? w.passes - 1 : w.passes;
        for (int p = 0; p < read_only_passes; p++) {
            if (w.pattern == ZC_ACCESS_COALESCED) {
                const uint4 *in4 = (const uint4 *)w.in;
                for (size_t i = tid; i < w.words / 4; i += threads) {
                    uint4 v = in4[i];
                    acc += v.x + v.y + v.z + v.w;
                }
            } else {
                for (size_t i = tid; i < w.words; i += threads)
                    acc += w.in[zc__visit(i, w.words, w.pattern, w.stride_mul)];
            }
            /* Keep each pass a separate walk over memory: no load may be merged across it. */
            asm volatile("" ::: "memory");
        }
        if (w.out != NULL) {
            /* The last pass reads and writes the result: out = in ^ 0x5a5a5a5a. */
            if (w.pattern == ZC_ACCESS_COALESCED) {
                const uint4 *in4 = (const uint4 *)w.in;
                uint4 *out4 = (uint4 *)w.out;
                for (size_t i = tid; i < w.words / 4; i += threads) {
                    uint4 v = in4[i];
                    acc += v.x + v.y + v.z + v.w;
                    out4[i] = make_uint4(v.x ^ 0x5a5a5a5au, v.y ^ 0x5a5a5a5au, v.z ^ 0x5a5a5a5au,
                                         v.w ^ 0x5a5a5a5au);
                }
            } else {
                for (size_t i = tid; i < w.words; i += threads) {
                    size_t j = zc__visit(i, w.words, w.pattern, w.stride_mul);
                    uint32_t v = w.in[j];
                    acc += v;
                    w.out[j] = v ^ 0x5a5a5a5au;
                }
            }
        }
    } else if (w.out != NULL) {
        for (int p = 0; p < w.passes; p++) {
            for (size_t i = tid; i < w.words; i += threads) {
                size_t j = w.pattern == ZC_ACCESS_COALESCED
                               ? i
                               : zc__visit(i, w.words, w.pattern, w.stride_mul);
                w.out[j] = (w.seed ^ (uint32_t)j) + (uint32_t)p;
            }
            asm volatile("" ::: "memory");
        }
    }
    if (w.sink != NULL && acc != 0)
        atomicAdd(w.sink, acc);
}

static __global__ void zc__empty_kernel(void) {}

extern "C" size_t zc__pattern_granule(zc_access pattern)
{
    return pattern == ZC_ACCESS_COALESCED ? 16 : 128;
}

extern "C" zc_status zc__work_launch(const zc__work *work, cudaStream_t stream)
{
    int sms = work->sm_count;
    if (sms <= 0) {
        int device = 0;
        ZC_CUDA_RETURN(cudaGetDevice(&device));
        ZC_CUDA_RETURN(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    size_t units = work->pattern == ZC_ACCESS_COALESCED ? work->words / 4 : work->words;
    zc__work_kernel<<<zc__walk_blocks(units, sms), ZC__WALK_THREADS, 0, stream>>>(*work);
    return ZC_CUDA_LAUNCH_CHECK("zc__work_kernel");
}

extern "C" zc_status zc__empty_launch(cudaStream_t stream)
{
    zc__empty_kernel<<<1, 1, 0, stream>>>();
    return ZC_CUDA_LAUNCH_CHECK("zc__empty_kernel");
}

extern "C" void zc__fill(uint32_t *data, size_t words, uint32_t seed)
{
    for (size_t i = 0; i < words; i++)
        data[i] = zc__fill_word(seed, i);
}
