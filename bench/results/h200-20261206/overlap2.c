// SPDX-License-Identifier: Apache-2.0
// Probe: fresh huge pages touched by N threads while the caller registers the range in one
// cudaHostRegister (the way zerocopy's pinning path works), against touching then registering in
// sequence; N = every CPU, every CPU but one, and 3/4 of them. s/GiB, GiB = 2^30 bytes.
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    char *base;
    size_t steps;
    atomic_size_t next;
} work;

static void *toucher(void *arg)
{
    work *w = arg;
    for (;;) {
        size_t s = atomic_fetch_add(&w->next, 1);
        if (s >= w->steps)
            return NULL;
        for (size_t o = 0; o < (2u << 20); o += 4096)
            w->base[s * (2u << 20) + o] = 1;
    }
}

static char *fresh(size_t n)
{
    char *p =
        mmap(NULL, n + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    p = (char *)(((unsigned long)p + (2u << 20) - 1) & ~((2ul << 20) - 1));
    madvise(p, n, MADV_HUGEPAGE);
    return p;
}

/* threads touchers; beside: register while they run (else after they finish). */
static double run(size_t n, int threads, int beside)
{
    char *p = fresh(n);
    if (p == NULL)
        return -1;
    work w = {.base = p, .steps = n >> 21};
    pthread_t t[256];
    double start = now();
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, toucher, &w);
    if (beside)
        while (atomic_load(&w.next) < (size_t)threads * 2)
            ;
    if (!beside)
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
    cudaError_t e = cudaHostRegister(p, n, cudaHostRegisterDefault);
    if (beside)
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
    double s = now() - start;
    if (e != cudaSuccess) {
        printf("FAIL cudaHostRegister: %s\n", cudaGetErrorString(e));
        return -1;
    }
    cudaHostUnregister(p);
    munmap(p, n);
    return s;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t gib = argc > 1 ? (size_t)atoi(argv[1]) : 8, n = gib << 30;
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cudaFree(0) != cudaSuccess)
        return 1;
    int counts[] = {cpus, cpus - 1, cpus * 3 / 4, cpus / 2};
    for (int rep = 0; rep < 2; rep++)
        for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++)
            for (int beside = 0; beside <= 1; beside++) {
                double s = run(n, counts[k], beside);
                printf("%zu GiB, %2d touching threads, register %s: %.4f s/GiB\n", gib, counts[k],
                       beside ? "beside" : "after ", s / gib);
            }
    return 0;
}
