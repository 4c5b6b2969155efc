/* SPDX-License-Identifier: Apache-2.0 */
/* Synchronous pageable cudaMemcpy keeps its place in the order of the legacy default stream, as
 * CUDA's "API synchronization behavior" page says: "For transfers from pageable host memory to
 * device memory, a stream sync is performed before the copy is initiated", so a host function
 * (cudaLaunchHostFunc) queued before the copy has written the source by the time it is read,
 * however late it runs; and a copy either way comes after the kernels queued before it, on the
 * legacy stream or on a blocking stream (the legacy stream waits for those).
 * Each check runs 3 times on the same host buffers, so that the register cure pins them in
 * place (1 MiB and 16 MiB) and must keep the order too. */
#include <time.h>

#include "conformance.h"

#define REPS 3

static const size_t sizes[] = {64 << 10, 1 << 20, 16 << 20};

/* What a host function writes into the copy's source, and how long it sleeps first. */
typedef struct writer {
    unsigned char *p;
    size_t n;
    unsigned seed;
    int sleep_ms;
} writer;

static void CUDART_CB write_source(void *arg)
{
    const writer *w = (const writer *)arg;
    struct timespec t = {0, (long)w->sleep_ms * 1000000L};
    while (w->sleep_ms > 0 && nanosleep(&t, &t) != 0) {
    }
    conf_fill(w->p, w->n, w->seed); /* host memory only: no CUDA call in a host function */
}

__global__ void triple_into(unsigned char *out, const unsigned char *in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (unsigned char)(in[i] * 3u + 1u);
}

/* The buffers of one size. */
typedef struct rig {
    size_t n;
    unsigned char *dev, *out, *pinned, *host, *want;
} rig;

static void note(char *why, size_t why_size, int rep, const char *detail)
{
    if (why[0] == '\0')
        snprintf(why, why_size, "rep %d: %s", rep, detail);
}

/* d[0, n) read back through pinned memory equals want; else the detail in why. */
static void expect_device(rig *r, const unsigned char *d, const unsigned char *want, char *why,
                          size_t why_size, int rep)
{
    char detail[160];
    CONF_CUDA(cudaMemcpy(r->pinned, d, r->n, cudaMemcpyDeviceToHost));
    if (!conf_same(r->pinned, want, r->n, detail, sizeof detail))
        note(why, why_size, rep, detail);
}

/* A host function on the legacy stream writes the source (after spin_ms of kernel, then sleep_ms
 * of its own) before cudaMemcpy reads it. */
static void after_host_function(rig *r, int spin_ms, int sleep_ms, unsigned seed)
{
    char why[240] = "";
    for (int rep = 0; rep < REPS; rep++) {
        conf_fill(r->host, r->n, seed + 500 + rep); /* what the copy must not see */
        writer w = {r->host, r->n, seed + rep, sleep_ms};
        conf_fill(r->want, r->n, seed + rep);
        if (spin_ms > 0)
            conf_spin(cudaStreamLegacy, spin_ms);
        CONF_CUDA(cudaLaunchHostFunc(cudaStreamLegacy, write_source, &w));
        CONF_CUDA(cudaMemcpy(r->dev, r->host, r->n, cudaMemcpyHostToDevice));
        /* The host function may not have returned yet, though it wrote: w must outlive it. */
        CONF_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
        expect_device(r, r->dev, r->want, why, sizeof why, rep);
    }
    conf_result(why, "%zu h2d after host function (kernel %d ms, sleep %d ms)", r->n, spin_ms,
                sleep_ms);
}

/* A kernel still reading the device buffer when cudaMemcpy is called must read the old bytes. */
static void after_reading_kernel(rig *r, cudaStream_t s, const char *stream_name, unsigned seed)
{
    char why[240] = "";
    for (int rep = 0; rep < REPS; rep++) {
        conf_fill(r->pinned, r->n, seed + rep);
        for (size_t i = 0; i < r->n; i++)
            r->want[i] = (unsigned char)(r->pinned[i] * 3u + 1u);
        CONF_CUDA(cudaMemcpy(r->dev, r->pinned, r->n, cudaMemcpyHostToDevice));
        conf_spin(s, 20);
        triple_into<<<264, 256, 0, s>>>(r->out, r->dev, r->n);
        CONF_CUDA(cudaGetLastError());
        conf_fill(r->host, r->n, seed + 700 + rep);
        CONF_CUDA(cudaMemcpy(r->dev, r->host, r->n, cudaMemcpyHostToDevice));
        CONF_CUDA(cudaDeviceSynchronize());
        expect_device(r, r->out, r->want, why, sizeof why, rep);
        expect_device(r, r->dev, r->host, why, sizeof why, rep);
    }
    conf_result(why, "%zu h2d after a kernel reading the buffer on the %s stream", r->n,
                stream_name);
}

/* A kernel writing the device buffer when cudaMemcpy to the host is called: its bytes copied. */
static void after_writing_kernel(rig *r, cudaStream_t s, const char *stream_name, unsigned seed)
{
    char why[240] = "", detail[160];
    for (int rep = 0; rep < REPS; rep++) {
        conf_fill(r->want, r->n, seed + rep);
        conf_fill(r->host, r->n, seed + 900 + rep);
        conf_spin(s, 20);
        conf_fill_device(r->dev, r->n, seed + rep, s);
        CONF_CUDA(cudaMemcpy(r->host, r->dev, r->n, cudaMemcpyDeviceToHost));
        if (!conf_same(r->host, r->want, r->n, detail, sizeof detail))
            note(why, sizeof why, rep, detail);
        CONF_CUDA(cudaDeviceSynchronize());
    }
    conf_result(why, "%zu d2h after a kernel writing the buffer on the %s stream", r->n,
                stream_name);
}

int main(void)
{
    conf_begin("conf_sync_order");
    cudaStream_t blocking;
    CONF_CUDA(cudaStreamCreate(&blocking));
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        rig r;
        r.n = sizes[k];
        CONF_CUDA(cudaMalloc((void **)&r.dev, r.n));
        CONF_CUDA(cudaMalloc((void **)&r.out, r.n));
        CONF_CUDA(cudaMallocHost((void **)&r.pinned, r.n));
        r.host = (unsigned char *)conf_malloc(r.n);
        r.want = (unsigned char *)conf_malloc(r.n);
        unsigned seed = (unsigned)k * 10000u;
        after_host_function(&r, 0, 50, seed);
        after_host_function(&r, 20, 0, seed + 1000);
        after_reading_kernel(&r, cudaStreamLegacy, "legacy", seed + 2000);
        after_reading_kernel(&r, blocking, "blocking", seed + 3000);
        after_writing_kernel(&r, cudaStreamLegacy, "legacy", seed + 4000);
        after_writing_kernel(&r, blocking, "blocking", seed + 5000);
        free(r.want);
        free(r.host);
        CONF_CUDA(cudaFreeHost(r.pinned));
        CONF_CUDA(cudaFree(r.out));
        CONF_CUDA(cudaFree(r.dev));
    }
    CONF_CUDA(cudaStreamDestroy(blocking));
    return conf_end("conf_sync_order");
}
