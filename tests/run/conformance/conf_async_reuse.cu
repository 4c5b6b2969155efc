/* SPDX-License-Identifier: Apache-2.0 */
/* cudaMemcpyAsync with pageable memory, on the legacy default stream, the null stream (legacy, or
 * per-thread in the _ptds build), a created stream, a non-blocking stream and cudaStreamPerThread,
 * keeps what CUDA's "API synchronization behavior" page promises:
 * - to the device, "host memory is copied to a staging buffer immediately": the source may be
 *   overwritten as soon as the call returns, and the device gets the bytes it held at the call,
 *   even with a kernel still running before the copy on the stream;
 * - to pageable host memory, "the function will return only once the copy has completed": the
 *   bytes are there when the call returns, without any synchronization, including those a
 *   kernel queued before the copy wrote.
 * Each check runs 4 times on the same host buffers, so that from the third the register cure
 * has pinned them in place (1 MiB and 8 MiB; 64 KiB is below what it pins) and must still keep
 * both promises while the stream is busy. */
#include "conformance.h"

#ifndef CONF_NAME
#define CONF_NAME "conf_async_reuse"
#endif

#define REPS 4

static const size_t sizes[] = {64 << 10, 1 << 20, 8 << 20};

__global__ void triple(unsigned char *d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = (unsigned char)(d[i] * 3u + 1u);
}

/* The buffers of one size. */
typedef struct rig {
    size_t n;
    unsigned char *dev, *pinned, *src, *dst, *want;
} rig;

static void note(char *why, size_t why_size, int rep, const char *detail)
{
    if (why[0] == '\0')
        snprintf(why, why_size, "rep %d: %s", rep, detail);
}

/* To the device, the source overwritten at once; read back after the stream is done. */
static void source_reused(rig *r, const char *stream_name, cudaStream_t s, unsigned seed)
{
    char why[240] = "", detail[160];
    for (int rep = 0; rep < REPS; rep++) {
        conf_fill(r->src, r->n, seed + rep);
        memcpy(r->want, r->src, r->n);
        conf_spin(s, 5); /* the copy stays queued behind it */
        CONF_CUDA(cudaMemcpyAsync(r->dev, r->src, r->n, cudaMemcpyHostToDevice, s));
        conf_fill(r->src, r->n, seed + 1000 + rep);
        CONF_CUDA(cudaStreamSynchronize(s));
        CONF_CUDA(cudaMemcpy(r->pinned, r->dev, r->n, cudaMemcpyDeviceToHost));
        if (!conf_same(r->pinned, r->want, r->n, detail, sizeof detail))
            note(why, sizeof why, rep, detail);
    }
    conf_result(why, "%s %zu h2d source reused at return", stream_name, r->n);
}

/* To pageable memory after a kernel that writes the device buffer: there at return. */
static void there_at_return(rig *r, const char *stream_name, cudaStream_t s, unsigned seed)
{
    char why[240] = "", detail[160];
    for (int rep = 0; rep < REPS; rep++) {
        conf_fill(r->want, r->n, seed + rep);
        conf_fill(r->dst, r->n, seed + 2000 + rep);
        conf_spin(s, 5);
        conf_fill_device(r->dev, r->n, seed + rep, s);
        CONF_CUDA(cudaMemcpyAsync(r->dst, r->dev, r->n, cudaMemcpyDeviceToHost, s));
        if (!conf_same(r->dst, r->want, r->n, detail, sizeof detail))
            note(why, sizeof why, rep, detail);
        CONF_CUDA(cudaStreamSynchronize(s));
    }
    conf_result(why, "%s %zu d2h complete at return", stream_name, r->n);
}

/* Both in one stream: to the device (source overwritten), a kernel, back to the host; the result
 * checked at the return of the last call. */
static void round_trip(rig *r, const char *stream_name, cudaStream_t s, unsigned seed)
{
    char why[240] = "", detail[160];
    for (int rep = 0; rep < REPS; rep++) {
        conf_fill(r->src, r->n, seed + rep);
        for (size_t i = 0; i < r->n; i++)
            r->want[i] = (unsigned char)(r->src[i] * 3u + 1u);
        conf_spin(s, 5);
        CONF_CUDA(cudaMemcpyAsync(r->dev, r->src, r->n, cudaMemcpyHostToDevice, s));
        conf_fill(r->src, r->n, seed + 3000 + rep);
        triple<<<264, 256, 0, s>>>(r->dev, r->n);
        CONF_CUDA(cudaGetLastError());
        CONF_CUDA(cudaMemcpyAsync(r->dst, r->dev, r->n, cudaMemcpyDeviceToHost, s));
        if (!conf_same(r->dst, r->want, r->n, detail, sizeof detail))
            note(why, sizeof why, rep, detail);
        CONF_CUDA(cudaStreamSynchronize(s));
    }
    conf_result(why, "%s %zu h2d kernel d2h in order", stream_name, r->n);
}

int main(void)
{
    conf_begin(CONF_NAME);
    cudaStream_t created, nonblocking;
    CONF_CUDA(cudaStreamCreate(&created));
    CONF_CUDA(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    const struct {
        const char *name;
        cudaStream_t stream;
    } streams[] = {{"legacy", cudaStreamLegacy},
                   {"null", (cudaStream_t)0},
                   {"created", created},
                   {"non-blocking", nonblocking},
                   {"per-thread", cudaStreamPerThread}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        rig r;
        r.n = sizes[k];
        CONF_CUDA(cudaMalloc((void **)&r.dev, r.n));
        CONF_CUDA(cudaMallocHost((void **)&r.pinned, r.n));
        r.src = (unsigned char *)conf_malloc(r.n);
        r.dst = (unsigned char *)conf_malloc(r.n);
        r.want = (unsigned char *)conf_malloc(r.n);
        for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
            unsigned seed = (unsigned)(k * 100000 + i * 10000);
            source_reused(&r, streams[i].name, streams[i].stream, seed);
            there_at_return(&r, streams[i].name, streams[i].stream, seed + 100);
            round_trip(&r, streams[i].name, streams[i].stream, seed + 200);
        }
        free(r.want);
        free(r.dst);
        free(r.src);
        CONF_CUDA(cudaFreeHost(r.pinned));
        CONF_CUDA(cudaFree(r.dev));
    }
    CONF_CUDA(cudaStreamDestroy(nonblocking));
    CONF_CUDA(cudaStreamDestroy(created));
    return conf_end(CONF_NAME);
}
