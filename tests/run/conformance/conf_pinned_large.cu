/* SPDX-License-Identifier: Apache-2.0 */
/* Large pinned blocks (8 and 72 MiB, each way of asking), which the fastpin cure serves from
 * fresh pages pinned whole when it is on (the suite's tight run): each must answer as the
 * driver's own block does. Printed, to be the same plain and cured: cudaHostGetFlags, pointer
 * attributes (type, device, device pointer against the host pointer), the answers to
 * cudaHostUnregister and cudaHostRegister of the block and of a page inside it, cudaFreeHost of
 * a pointer inside it, of the block and of the block again. Checked: bytes to the device and
 * back, at both ends and across the middle; and a child made by fork shares the block: its
 * writes are seen by the parent, as with the driver's pinned memory. Last, the program's own
 * registration of 72 MiB of malloc'd memory keeps the bytes written before it. */
#include <sys/wait.h>
#include <unistd.h>

#include "conformance.h"

static const size_t sizes[] = {8u << 20, 72u << 20};

typedef conf_pinned_way way;

static const way ways[] = {
    {"default", cudaHostAllocDefault, 0},
    {"portable", cudaHostAllocPortable, 0},
    {"mapped", cudaHostAllocMapped, 0},
    {"portable-mapped", cudaHostAllocPortable | cudaHostAllocMapped, 0},
    {"cudaMallocHost", 0, 1},
};

static void answered(cudaError_t e, const char *what, const way *w, size_t n)
{
    cudaGetLastError(); /* an answer here is not a failure to be carried to the next call */
    printf("%s %zu MiB: %s -> " CONF_ERR_FMT "\n", w->name, n >> 20, what, CONF_ERR_ARGS(e));
}

static void queries(unsigned char *p, const way *w, size_t n)
{
    unsigned flags = 0;
    answered(cudaHostGetFlags(&flags, p), "cudaHostGetFlags", w, n);
    printf("%s %zu MiB: flags 0x%x\n", w->name, n >> 20, flags);
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    answered(cudaPointerGetAttributes(&a, p + n / 2), "cudaPointerGetAttributes", w, n);
    printf("%s %zu MiB: type %d device %d device pointer %s host pointer\n", w->name, n >> 20,
           (int)a.type, a.device, a.devicePointer == (void *)(p + n / 2) ? "is the" : "is not the");
    answered(cudaHostUnregister(p), "cudaHostUnregister of the block", w, n);
    answered(cudaHostRegister(p + 4096, 4096, cudaHostRegisterDefault),
             "cudaHostRegister of a page inside", w, n);
}

/* The block's bytes to the device and back: both ends and the middle. */
static void round_trip(unsigned char *p, size_t n, unsigned char *dev, unsigned seed)
{
    char why[160] = "";
    conf_fill(p, n, seed);
    CONF_CUDA(cudaMemcpy(dev, p, n, cudaMemcpyHostToDevice));
    memset(p, 0, n);
    CONF_CUDA(cudaMemcpy(p, dev, n, cudaMemcpyDeviceToHost));
    unsigned char *want = (unsigned char *)conf_malloc(n);
    conf_fill(want, n, seed);
    conf_same(p, want, n, why, sizeof why);
    free(want);
    conf_result(why, "round trip of %zu MiB", n >> 20);
}

/* A child writes the block's first and last bytes; the parent must see them. */
static void fork_shares(unsigned char *p, size_t n)
{
    memset(p, 0x11, n);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        conf_result("fork failed", "fork with a pinned block of %zu MiB", n >> 20);
        return;
    }
    if (pid == 0) {
        p[0] = 0x22;
        p[n - 1] = 0x33;
        _exit(0);
    }
    int status = 0;
    char why[120] = "";
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(why, sizeof why, "the child did not exit 0");
    else if (p[0] != 0x22 || p[n - 1] != 0x33 || p[n / 2] != 0x11)
        snprintf(why, sizeof why, "the parent sees %02x %02x %02x", p[0], p[n / 2], p[n - 1]);
    conf_result(why, "a forked child's writes to a pinned block of %zu MiB reach the parent",
                n >> 20);
}

/* The program's own registration of a large malloc'd range (which the fastpin cure faults in
 * from every CPU first): the bytes written before it are there after it, and copies work. */
static void own_registration(unsigned char *dev)
{
    const size_t n = (72u << 20) + 5;
    unsigned char *p = (unsigned char *)conf_malloc(n);
    for (size_t at = 0; at < n; at += 64 * 4096)
        p[at] = (unsigned char)(at >> 18 | 1);
    cudaError_t e = cudaHostRegister(p, n, cudaHostRegisterDefault);
    cudaGetLastError();
    printf("cudaHostRegister of %zu bytes of malloc'd memory -> " CONF_ERR_FMT "\n", n,
           CONF_ERR_ARGS(e));
    char why[120] = "";
    for (size_t at = 0; at < n && why[0] == '\0'; at += 64 * 4096)
        if (p[at] != (unsigned char)(at >> 18 | 1))
            snprintf(why, sizeof why, "byte %zu changed", at);
    conf_result(why, "a registration keeps the bytes written before it");
    if (e == cudaSuccess) {
        round_trip(p, n, dev, 99);
        e = cudaHostUnregister(p);
        cudaGetLastError();
        printf("cudaHostUnregister of it -> " CONF_ERR_FMT "\n", CONF_ERR_ARGS(e));
    }
    free(p);
}

int main(void)
{
    conf_begin("conf_pinned_large");
    unsigned char *dev = NULL;
    CONF_CUDA(cudaMalloc((void **)&dev, (72u << 20) + 5));
    unsigned seed = 1;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t k = 0; k < sizeof ways / sizeof ways[0]; k++) {
            const way *w = &ways[k];
            size_t n = sizes[s];
            unsigned char *p = conf_pinned_alloc(w, n);
            queries(p, w, n);
            round_trip(p, n, dev, seed++);
            if (k == 0)
                fork_shares(p, n);
            round_trip(p, n, dev, seed++); /* after a fork too */
            answered(cudaFreeHost(p + 4096), "cudaFreeHost of a pointer inside", w, n);
            answered(cudaFreeHost(p), "cudaFreeHost", w, n);
            answered(cudaFreeHost(p), "cudaFreeHost again", w, n);
        }
    }
    own_registration(dev);
    CONF_CUDA(cudaFree(dev));
    return conf_end("conf_pinned_large");
}
