/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copies and allocations at once, from eight threads: four copy their own buffers (1 to 4 MiB,
 * pinned in place under zc run) to the device and back 200 times, each result checked; four
 * allocate, reallocate, free, map and unmap buffers of 256 KiB to 8 MiB and copy them now and
 * then, so that the program's releases race with the copies and pins of the others. Each
 * thread's work is fixed by its index, so its digest is the same in every run; they are printed
 * in thread order at the end.
 */
#include <sys/mman.h>

#include "conf_support_life.h"

#define COPIERS  4
#define CHURNERS 4
#define ROUNDS   200
#define STEPS    100
#define SLOTS    4

static const size_t CHURN_MAX = 8u << 20;

typedef struct worker {
    int index;
    int failed;
    uint64_t digest;
    char detail[160]; /* the first failure */
} worker;

static void worker_fail(worker *w, const char *what, size_t at, size_t n)
{
    if (!w->failed)
        snprintf(w->detail, sizeof w->detail, "%s: byte %zu of %zu wrong", what, at, n);
    w->failed = 1;
}

__global__ void scale(unsigned char *data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = (unsigned char)(data[i] * 3u + 1u);
}

/* Round trips of two buffers of its own, alternating synchronous copies on the legacy stream
 * and asynchronous ones on a stream of its own; each round's result is the next one's input. */
static void *copier(void *arg)
{
    worker *w = (worker *)arg;
    const size_t n = ((size_t)(1 + w->index) << 20) + 4096u * (size_t)w->index + 7;
    unsigned char *in = (unsigned char *)malloc(n), *out = (unsigned char *)malloc(n), *dev;
    CONF_NEED(in != NULL && out != NULL, "malloc");
    CONF_CUDA(cudaMalloc((void **)&dev, n));
    cudaStream_t stream;
    CONF_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    conf_fill(in, n, 100u + (unsigned)w->index);
    for (int round = 0; round < ROUNDS; round++) {
        memset(out, 0xEE, n);
        if (round % 2 == 0) {
            CONF_CUDA(cudaMemcpy(dev, in, n, cudaMemcpyHostToDevice));
            scale<<<66, 256>>>(dev, n);
            CONF_CUDA(cudaGetLastError());
            CONF_CUDA(cudaMemcpy(out, dev, n, cudaMemcpyDeviceToHost));
        } else {
            CONF_CUDA(cudaMemcpyAsync(dev, in, n, cudaMemcpyHostToDevice, stream));
            scale<<<66, 256, 0, stream>>>(dev, n);
            CONF_CUDA(cudaGetLastError());
            CONF_CUDA(cudaMemcpyAsync(out, dev, n, cudaMemcpyDeviceToHost, stream));
            CONF_CUDA(cudaStreamSynchronize(stream));
        }
        for (size_t i = 0; i < n; i++) {
            if (out[i] != (unsigned char)(in[i] * 3u + 1u)) {
                worker_fail(w, round % 2 ? "async round trip" : "sync round trip", i, n);
                break;
            }
        }
        unsigned char *t = in;
        in = out;
        out = t;
    }
    w->digest = conf_mix(conf_fnv1a(in, n), n);
    CONF_CUDA(cudaStreamDestroy(stream));
    CONF_CUDA(cudaFree(dev));
    free(in);
    free(out);
    return NULL;
}

typedef struct slot {
    unsigned char *p;
    size_t size;
    unsigned seed; /* p holds pattern seed */
    int mapped;    /* from mmap, not malloc */
} slot;

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* 256 KiB to 8 MiB, whole pages when mapped. */
static size_t random_size(uint64_t *state, int mapped)
{
    size_t n = (256u << 10) + (size_t)(next_random(state) % (CHURN_MAX - (256u << 10) + 1));
    return mapped ? n & ~(size_t)4095 : n;
}

/* s copied to the device three times (pinned in place under zc run) and checked there, then
 * new content made on the device copied into it and checked. */
static void churn_copy(worker *w, slot *s, unsigned char *dev, unsigned char *back, unsigned seed)
{
    conf_pin_in_place(s->p, s->size, dev);
    CONF_CUDA(cudaMemcpy(back, dev, s->size, cudaMemcpyDeviceToHost));
    size_t at = conf_differs(back, s->size, s->seed);
    if (at != s->size)
        worker_fail(w, "copy to the device", at, s->size);
    conf_generate_on(dev, s->size, seed, 0);
    CONF_CUDA(cudaMemcpy(s->p, dev, s->size, cudaMemcpyDeviceToHost));
    s->seed = seed;
    at = conf_differs(s->p, s->size, seed);
    if (at != s->size)
        worker_fail(w, "copy from the device", at, s->size);
}

static void churn_release(slot *s)
{
    if (s->mapped)
        CONF_NEED(munmap(s->p, s->size) == 0, "munmap");
    else
        free(s->p);
    s->p = NULL;
}

static void *churner(void *arg)
{
    worker *w = (worker *)arg;
    uint64_t state = 0x9E3779B97F4A7C15ull * (uint64_t)(w->index + 1);
    slot slots[SLOTS] = {};
    unsigned char *dev, *back = (unsigned char *)malloc(CHURN_MAX);
    CONF_NEED(back != NULL, "malloc");
    CONF_CUDA(cudaMalloc((void **)&dev, CHURN_MAX));
    uint64_t digest = 1469598103934665603ull;
    for (int step = 0; step < STEPS; step++) {
        slot *s = &slots[next_random(&state) % SLOTS];
        unsigned op = (unsigned)(next_random(&state) % 5);
        unsigned seed = 1000u * (unsigned)(w->index + 1) + (unsigned)step;
        if (op == 0 && s->p == NULL) { /* a new block */
            s->mapped = next_random(&state) % 2 == 0;
            s->size = random_size(&state, s->mapped);
            if (s->mapped) {
                void *m =
                    mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                CONF_NEED(m != MAP_FAILED, "mmap");
                s->p = (unsigned char *)m;
            } else {
                s->p = (unsigned char *)malloc(s->size);
                CONF_NEED(s->p != NULL, "malloc");
            }
            conf_fill(s->p, s->size, seed);
            s->seed = seed;
        } else if (op == 0) { /* resized: realloc, or mremap for a mapping */
            size_t size = random_size(&state, s->mapped), kept = size < s->size ? size : s->size;
            if (s->mapped) {
                void *m = mremap(s->p, s->size, size, MREMAP_MAYMOVE);
                CONF_NEED(m != MAP_FAILED, "mremap");
                s->p = (unsigned char *)m;
            } else {
                s->p = (unsigned char *)realloc(s->p, size);
                CONF_NEED(s->p != NULL, "realloc");
            }
            s->size = size;
            size_t at = conf_differs(s->p, kept, s->seed);
            if (at != kept)
                worker_fail(w, s->mapped ? "content kept by mremap" : "content kept by realloc", at,
                            kept);
            conf_fill(s->p, s->size, seed);
            s->seed = seed;
        } else if (op == 1 && s->p != NULL) {
            churn_release(s);
        } else if (op == 2 && s->p != NULL) {
            churn_copy(w, s, dev, back, seed);
        } else if (op == 4) { /* a mapping of the moment, copied and unmapped */
            slot t = {NULL, random_size(&state, 1), seed, 1};
            void *m =
                mmap(NULL, t.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            CONF_NEED(m != MAP_FAILED, "mmap");
            t.p = (unsigned char *)m;
            conf_fill(t.p, t.size, seed);
            churn_copy(w, &t, dev, back, seed + 500u);
            churn_release(&t);
        }
        digest = conf_mix(digest, ((uint64_t)op << 56) ^ (s->p != NULL ? s->size : 0));
        digest = conf_mix(digest, s->p != NULL ? s->seed : 0);
    }
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].p != NULL)
            churn_release(&slots[i]);
    }
    w->digest = digest;
    CONF_CUDA(cudaFree(dev));
    free(back);
    return NULL;
}

int main(void)
{
    conf_skip_without_gpu("conf_threads");
    CONF_CUDA(cudaFree(0)); /* the context made before the threads race for it */
    conf_watch("conf_threads: every thread done", 240);
    double start = conf_now_s();
    worker workers[COPIERS + CHURNERS] = {};
    pthread_t threads[COPIERS + CHURNERS];
    for (int i = 0; i < COPIERS + CHURNERS; i++) {
        workers[i].index = i < COPIERS ? i : i - COPIERS;
        CONF_NEED(pthread_create(&threads[i], NULL, i < COPIERS ? copier : churner, &workers[i]) ==
                      0,
                  "pthread_create");
    }
    for (int i = 0; i < COPIERS + CHURNERS; i++)
        CONF_NEED(pthread_join(threads[i], NULL) == 0, "pthread_join");
    conf_watch_done();
    fprintf(stderr, "conf_threads: %.2f s\n", conf_now_s() - start);

    for (int i = 0; i < COPIERS + CHURNERS; i++) {
        const worker *w = &workers[i];
        char name[64];
        snprintf(name, sizeof name, "%s %d", i < COPIERS ? "copier" : "churner", w->index);
        conf_report(!w->failed, name, "%s", w->detail);
        printf("%s digest %016llx\n", name, (unsigned long long)w->digest);
    }
    return __atomic_load_n(&conf_failures, __ATOMIC_RELAXED) ? 1 : 0;
}
