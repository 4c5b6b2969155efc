/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Releases of a buffer pinned in place where CUDA may not be called or must not be waited for:
 * (a) free() and munmap() inside a host function (cudaLaunchHostFunc), where CUDA calls are
 * forbidden: a release that called CUDA there would fail or deadlock, and one that left the
 * buffer registered would make the next block at those addresses copy stale pages; (b) free()
 * while a kernel runs that waits for the host: a release that waited for the device would keep
 * the kernel from ever seeing the flag set after it.
 */
#include <malloc.h>
#include <sys/mman.h>

#include "conf_support_life.h"

static const size_t N = 8u << 20;

static unsigned char *dev_buf;
static unsigned char *back; /* the device's bytes read back */

typedef struct release {
    unsigned char *p;
    int mapped; /* munmap, not free */
    int done;
} release;

static void CUDART_CB release_in_host_fn(void *arg)
{
    release *r = (release *)arg;
    if (r->mapped)
        (void)munmap(r->p, N);
    else
        free(r->p);
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static unsigned char *allocate(int mapped)
{
    if (!mapped) {
        unsigned char *p = (unsigned char *)malloc(N);
        CONF_NEED(p != NULL, "malloc");
        return p;
    }
    void *m = mmap(NULL, N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CONF_NEED(m != MAP_FAILED, "mmap");
    return (unsigned char *)m;
}

/* New content both ways through p, pinned in place first. */
static void copies_right(const char *name, unsigned char *p, unsigned seed, cudaStream_t stream)
{
    conf_fill(p, N, seed);
    conf_pin_in_place(p, N, dev_buf);
    CONF_CUDA(cudaMemcpy(back, dev_buf, N, cudaMemcpyDeviceToHost));
    size_t up = conf_differs(back, N, seed);
    conf_generate_on(dev_buf, N, seed + 1, stream);
    CONF_CUDA(cudaMemcpyAsync(p, dev_buf, N, cudaMemcpyDeviceToHost, stream));
    CONF_CUDA(cudaStreamSynchronize(stream));
    size_t down = conf_differs(p, N, seed + 1);
    conf_report(up == N && down == N, name,
                "to the device byte %zu wrong, from it byte %zu (%zu: none)", up, down, N);
}

/* (a): a copy from the buffer, the host function releasing it, and a copy back, in stream
 * order; then a new block of the same size, often at the same addresses. */
static void release_in_host_function(int mapped, cudaStream_t stream)
{
    const char *how = mapped ? "munmap" : "free";
    char name[128];
    unsigned char *p = allocate(mapped);
    snprintf(name, sizeof name, "%s in a host function: copies before", how);
    copies_right(name, p, 10, stream);
    conf_fill(p, N, 12);
    const uintptr_t was = (uintptr_t)p;
    release r = {p, mapped, 0};
    memset(back, 0xEE, N);
    CONF_CUDA(cudaMemcpyAsync(dev_buf, p, N, cudaMemcpyHostToDevice, stream));
    CONF_CUDA(cudaLaunchHostFunc(stream, release_in_host_fn, &r));
    CONF_CUDA(cudaMemcpyAsync(back, dev_buf, N, cudaMemcpyDeviceToHost, stream));
    snprintf(name, sizeof name, "%s in a host function: the stream completes", how);
    conf_watch(name, 10);
    CONF_CUDA(cudaStreamSynchronize(stream));
    conf_watch("conf_host_fn", 60);
    conf_report(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE), name, "the host function never ran");
    size_t at = conf_differs(back, N, 12);
    snprintf(name, sizeof name, "%s in a host function: the copy queued before it", how);
    conf_report(at == N, name, "byte %zu wrong", at);

    unsigned char *q = allocate(mapped);
    fprintf(stderr, "%s in a host function: the next block is at %s address\n", how,
            (uintptr_t)q == was ? "the same" : "another");
    snprintf(name, sizeof name, "%s in a host function: copies of the next block", how);
    copies_right(name, q, 20, stream);
    if (mapped)
        CONF_NEED(munmap(q, N) == 0, "munmap");
    else
        free(q);
}

/* The time, from the GPU's global timer, in nanoseconds. */
__device__ static unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* words[0]: the flag the host sets; words[1]: set when the kernel runs; words[2]: 1 if the
 * kernel saw the flag, 0 if it gave up. Bounded by 2 s of the global timer, and by 2 s of
 * clock64 at the peak clock in case that timer stands still. */
__global__ void wait_for_flag(volatile unsigned *words, long long max_cycles)
{
    words[1] = 1;
    __threadfence_system();
    const unsigned long long start_ns = global_ns();
    const long long start = clock64();
    unsigned saw = 0;
    while (global_ns() - start_ns < 2000000000ull && clock64() - start < max_cycles) {
        if (words[0] != 0) {
            saw = 1;
            break;
        }
        __nanosleep(1000);
    }
    words[2] = saw;
    __threadfence_system();
}

/* (b): free() of a pinned buffer while a kernel waits for the host. */
static void free_while_kernel_waits(cudaStream_t stream)
{
    unsigned char *p = allocate(0);
    copies_right("free while a kernel waits: copies before", p, 30, stream);
    volatile unsigned *words = NULL;
    CONF_CUDA(cudaHostAlloc((void **)&words, 64, cudaHostAllocMapped));
    unsigned *dev_words = NULL;
    CONF_CUDA(cudaHostGetDevicePointer((void **)&dev_words, (void *)words, 0));
    int khz = 0;
    CONF_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    words[0] = 0;
    words[1] = 0;
    words[2] = 2;
    __sync_synchronize();
    wait_for_flag<<<1, 1, 0, stream>>>(dev_words, 2000ll * khz);
    CONF_CUDA(cudaGetLastError());
    double start = conf_now_s();
    while (words[1] == 0 && conf_now_s() - start < 5)
        usleep(100);
    conf_report(words[1] != 0, "free while a kernel waits: the kernel started", "not within 5 s");
    double t = conf_now_s();
    free(p);
    double took = conf_now_s() - t;
    words[0] = 1;
    __sync_synchronize();
    fprintf(stderr, "free while a kernel waits: free took %.3f ms\n", took * 1e3);
    conf_watch("free while a kernel waits: the kernel ends", 10);
    CONF_CUDA(cudaStreamSynchronize(stream));
    conf_watch("conf_host_fn", 60);
    conf_report(words[2] == 1, "free while a kernel waits: the kernel saw the flag",
                "its result is %u (0: it gave up after 2 s)", words[2]);
    /* Plain, free never waits; a cured run agrees only if it does not either. */
    conf_report(took < 1.0, "free did not wait for the kernel", "it took more than 1 s");
    CONF_CUDA(cudaFreeHost((void *)words));
    unsigned char *q = allocate(0);
    copies_right("free while a kernel waits: copies of the next block", q, 40, stream);
    free(q);
}

int main(void)
{
    conf_skip_without_gpu("conf_host_fn");
    conf_watch("conf_host_fn", 60);
    CONF_CUDA(cudaMalloc((void **)&dev_buf, N));
    back = (unsigned char *)malloc(N);
    CONF_NEED(back != NULL, "malloc");
    cudaStream_t stream;
    CONF_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    /* A fixed threshold: a freed block is unmapped and the next one of its size is mapped,
     * often at the same addresses (glibc otherwise raises it after the first free). */
    CONF_NEED(mallopt(M_MMAP_THRESHOLD, 1 << 20) == 1, "mallopt");
    release_in_host_function(0, stream);
    release_in_host_function(1, stream);
    free_while_kernel_waits(stream);

    CONF_CUDA(cudaStreamDestroy(stream));
    CONF_CUDA(cudaFree(dev_buf));
    free(back);
    conf_watch_done();
    return __atomic_load_n(&conf_failures, __ATOMIC_RELAXED) ? 1 : 0;
}
