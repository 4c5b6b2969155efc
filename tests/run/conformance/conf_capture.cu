/* SPDX-License-Identifier: Apache-2.0 */
/* Stream capture (cudaStreamBeginCapture, global mode) around pageable copies, where zc run may
 * not stage (the copy would run at each launch of the graph, not now) and may have pinned the
 * buffer in place (then the driver sees page-locked memory where the program has pageable
 * memory): every capture must end as it ends without zc run. Each line gives the results of the
 * captured calls and of cudaStreamEndCapture by name and number; when a graph was made it is run
 * and its copy checked.
 * - One pageable copy captured, to and from the device, from a fresh malloc'd buffer and from
 *   one copied 3 times (which the register cure pins).
 * - A capture of pinned copies and a kernel while another thread makes a synchronous pageable
 *   copy and frees a large buffer copied 3 times (zc run unpins it): zc run's own calls on that
 *   thread must not end a capture that ends well without it. On a non-blocking stream and a
 *   blocking one (where the other thread's copy on the legacy stream already meets it). */
#include <pthread.h>

#include "conformance.h"

#define N   (2u << 20)
#define BIG (8u << 20)

static unsigned char *dev, *pinned, *check;
static unsigned seed = 1;

__global__ void triple(unsigned char *d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = (unsigned char)(d[i] * 3u + 1u);
}

/* A graph made by a capture, run once on s after dev was given other bytes; then destroyed. */
static void run_graph(cudaGraph_t graph, cudaStream_t s)
{
    cudaGraphExec_t exec;
    CONF_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    conf_fill(check, N, seed++);
    CONF_CUDA(cudaMemcpy(dev, check, N, cudaMemcpyHostToDevice));
    CONF_CUDA(cudaGraphLaunch(exec, s));
    CONF_CUDA(cudaStreamSynchronize(s));
    CONF_CUDA(cudaGraphExecDestroy(exec));
    CONF_CUDA(cudaGraphDestroy(graph));
}

/* One pageable copy, to the device from buf or from the device to buf, captured on s. */
static void capture_one(unsigned char *buf, int to_device, const char *what, cudaStream_t s)
{
    unsigned char *want = (unsigned char *)conf_malloc(N);
    char why[200] = "", detail[160];
    conf_fill(want, N, seed++);
    if (to_device)
        memcpy(buf, want, N);
    else
        conf_fill(buf, N, seed++);
    CONF_CUDA(cudaDeviceSynchronize());
    CONF_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaError_t copied = to_device ? cudaMemcpyAsync(dev, buf, N, cudaMemcpyHostToDevice, s)
                                   : cudaMemcpyAsync(buf, dev, N, cudaMemcpyDeviceToHost, s);
    cudaGraph_t graph = NULL;
    cudaError_t ended = cudaStreamEndCapture(s, &graph);
    cudaError_t last = cudaGetLastError();
    int made = graph != NULL;
    if (made) {
        /* To the device: want must be there. From it: the bytes run_graph left there. */
        run_graph(graph, s);
        if (to_device)
            CONF_CUDA(cudaMemcpy(check, dev, N, cudaMemcpyDeviceToHost));
        if (!conf_same(to_device ? check : buf, to_device ? want : check, N, detail, sizeof detail))
            snprintf(why, sizeof why, "the graph's copy: %s", detail);
    }
    conf_result(why,
                "capture of a copy %s %s: copy -> " CONF_ERR_FMT ", end -> " CONF_ERR_FMT
                ", last " CONF_ERR_FMT ", %s",
                to_device ? "from" : "to", what, CONF_ERR_ARGS(copied), CONF_ERR_ARGS(ended),
                CONF_ERR_ARGS(last), made ? "graph made and run" : "no graph");
    free(want);
}

/* The other thread: a synchronous pageable copy of big, then free(big). */
typedef struct other {
    unsigned char *big, *dev_big;
    cudaError_t copied, last;
} other;

static void *other_thread(void *arg)
{
    other *o = (other *)arg;
    o->copied = cudaMemcpy(o->dev_big, o->big, BIG, cudaMemcpyHostToDevice);
    o->last = cudaGetLastError();
    free(o->big);
    return NULL;
}

static void capture_beside_thread(cudaStream_t s, const char *stream_name)
{
    other o;
    o.big = (unsigned char *)conf_malloc(BIG);
    CONF_CUDA(cudaMalloc((void **)&o.dev_big, BIG));
    conf_fill(o.big, BIG, seed++);
    for (int i = 0; i < 3; i++)
        CONF_CUDA(cudaMemcpy(o.dev_big, o.big, BIG, cudaMemcpyHostToDevice));
    unsigned char *want = (unsigned char *)conf_malloc(N);
    conf_fill(pinned, N, seed++);
    for (size_t i = 0; i < N; i++)
        want[i] = (unsigned char)(pinned[i] * 3u + 1u);
    CONF_CUDA(cudaDeviceSynchronize());

    CONF_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    pthread_t thread;
    if (pthread_create(&thread, NULL, other_thread, &o) != 0 || pthread_join(thread, NULL) != 0) {
        printf("FAIL pthread_create or pthread_join\n");
        exit(1);
    }
    cudaError_t copied = cudaMemcpyAsync(dev, pinned, N, cudaMemcpyHostToDevice, s);
    triple<<<264, 256, 0, s>>>(dev, N);
    cudaError_t launched = cudaGetLastError();
    cudaGraph_t graph = NULL;
    cudaError_t ended = cudaStreamEndCapture(s, &graph);
    cudaError_t last = cudaGetLastError();

    char why[200] = "", detail[160];
    int made = graph != NULL;
    if (made) {
        run_graph(graph, s);
        CONF_CUDA(cudaMemcpy(check, dev, N, cudaMemcpyDeviceToHost));
        if (!conf_same(check, want, N, detail, sizeof detail))
            snprintf(why, sizeof why, "the graph's result: %s", detail);
    }
    conf_result(why,
                "capture on a %s stream beside a thread's copy (-> " CONF_ERR_FMT
                ", last " CONF_ERR_FMT ") and free: copy -> " CONF_ERR_FMT
                ", kernel -> " CONF_ERR_FMT ", end -> " CONF_ERR_FMT ", last " CONF_ERR_FMT ", %s",
                stream_name, CONF_ERR_ARGS(o.copied), CONF_ERR_ARGS(o.last), CONF_ERR_ARGS(copied),
                CONF_ERR_ARGS(launched), CONF_ERR_ARGS(ended), CONF_ERR_ARGS(last),
                made ? "graph made and run" : "no graph");
    free(want);
    CONF_CUDA(cudaFree(o.dev_big));
}

int main(void)
{
    conf_begin("conf_capture");
    CONF_CUDA(cudaMalloc((void **)&dev, N));
    CONF_CUDA(cudaMallocHost((void **)&pinned, N));
    CONF_CUDA(cudaMallocHost((void **)&check, N));
    cudaStream_t nonblocking, blocking;
    CONF_CUDA(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    CONF_CUDA(cudaStreamCreate(&blocking));

    unsigned char *copied = (unsigned char *)conf_malloc(N);
    conf_fill(copied, N, seed++);
    for (int i = 0; i < 3; i++)
        CONF_CUDA(cudaMemcpy(dev, copied, N, cudaMemcpyHostToDevice));
    unsigned char *fresh = (unsigned char *)conf_malloc(N);
    for (int to_device = 1; to_device >= 0; to_device--) {
        capture_one(copied, to_device, "a buffer copied 3 times", nonblocking);
        capture_one(fresh, to_device, "a fresh buffer", nonblocking);
    }
    free(fresh);
    free(copied);

    capture_beside_thread(nonblocking, "non-blocking");
    capture_beside_thread(blocking, "blocking");

    CONF_CUDA(cudaStreamDestroy(blocking));
    CONF_CUDA(cudaStreamDestroy(nonblocking));
    CONF_CUDA(cudaFreeHost(check));
    CONF_CUDA(cudaFreeHost(pinned));
    CONF_CUDA(cudaFree(dev));
    return conf_end("conf_capture");
}
