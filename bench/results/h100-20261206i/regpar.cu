// SPDX-License-Identifier: Apache-2.0
// Probe: does the driver register disjoint chunks of one touched range faster from several
// threads than the whole range in one cudaHostRegister? And does a copy that spans two
// registrations run at the pinned speed? Sizes in GiB = 2^30 B; GB/s with GB = 1e9 B.
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_));                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
static double now()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct job {
    char *p;
    size_t n;
    int mode;
    double secs;
    cudaError_t err;
};
static void *run(void *a)
{
    struct job *j = (struct job *)a;
    double t = now();
    if (j->mode == 0)
        memset(j->p, 1, j->n);
    else if (j->mode == 1)
        j->err = cudaHostRegister(j->p, j->n, cudaHostRegisterDefault);
    else
        j->err = cudaHostUnregister(j->p);
    j->secs = now() - t;
    return NULL;
}
static double par(char *p, size_t n, int k, int mode)
{
    pthread_t t[64];
    struct job j[64];
    size_t per = n / k;
    double s = now();
    for (int i = 0; i < k; i++) {
        j[i] = (struct job){p + i * per, per, mode, 0, cudaSuccess};
        pthread_create(&t[i], NULL, run, &j[i]);
    }
    for (int i = 0; i < k; i++) {
        pthread_join(t[i], NULL);
        if (j[i].err != cudaSuccess) {
            printf("FAIL mode %d chunk %d: %s\n", mode, i, cudaGetErrorString(j[i].err));
            exit(1);
        }
    }
    return now() - s;
}
static double copy_gbps(char *host, void *dev, size_t n, int to_dev)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float best = 1e9;
    for (int r = 0; r < 4; r++) {
        CK(cudaEventRecord(a));
        CK(cudaMemcpyAsync(to_dev ? dev : (void *)host, to_dev ? (void *)host : dev, n,
                           to_dev ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0 && ms < best)
            best = ms;
    }
    return n / (best * 1e-3) / 1e9;
}
int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t gib = argc > 1 ? atoi(argv[1]) : 8, n = gib << 30, span = 1ul << 30;
    CK(cudaFree(0));
    void *dev;
    CK(cudaMalloc(&dev, span));
    int ks[] = {1, 2, 4, 8, 16};
    for (int huge = 1; huge >= 0; huge--) {
        char *p = (char *)mmap(NULL, n + (2 << 20), PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            printf("FAIL mmap\n");
            return 1;
        }
        p = (char *)(((unsigned long)p + (2 << 20) - 1) & ~((2ul << 20) - 1));
        madvise(p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        double t = par(p, n, 16, 0);
        printf("%s: touch %zu GiB by 16 threads %.4f s (%.4f s/GiB)\n", huge ? "THP" : "4KiB", gib,
               t, t / gib);
        for (unsigned i = 0; i < sizeof ks / sizeof *ks; i++) {
            int k = ks[i];
            double r = par(p, n, k, 1);
            char *mid = p + n / k - span / 2; // spans the first two chunks when k > 1
            cudaPointerAttributes at;
            CK(cudaPointerGetAttributes(&at, mid));
            double h2d = copy_gbps(k > 1 ? mid : p, dev, span, 1),
                   d2h = copy_gbps(k > 1 ? mid : p, dev, span, 0);
            double u = par(p, n, k, 2);
            printf("%s: register in %2d chunks by %2d threads %.4f s (%.4f s/GiB); unregister %.4f "
                   "s; 1 GiB copy %s: H2D %.2f GB/s D2H %.2f GB/s (attr type %d)\n",
                   huge ? "THP" : "4KiB", k, k, r, r / gib, u,
                   k > 1 ? "across two chunks" : "inside", h2d, d2h, (int)at.type);
        }
        munmap(p, n);
    }
    CK(cudaFree(dev));
    printf("done\n");
    return 0;
}
