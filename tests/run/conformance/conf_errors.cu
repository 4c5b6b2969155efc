/* SPDX-License-Identifier: Apache-2.0 */
/* Calls that CUDA answers with an error, or that touch memory zc run may have pinned behind the
 * program's back, must be answered as without zc run: each line gives the call's result and then
 * cudaGetLastError()'s, by name and number, so that the runner catches any other answer; a line
 * fails by itself where the documentation names the result (cudaErrorHostMemoryAlreadyRegistered,
 * cudaErrorHostMemoryNotRegistered) or says there is an error.
 * "Copied 3 times" is a malloc'd buffer copied to the device from its first byte until the
 * register cure pins it in place (after twice its size); to the program it is still pageable
 * memory it never registered. Calls whose behaviour CUDA leaves undefined (a destroyed stream)
 * are left out. The copies that name memory CUDA does not have come last: should the driver not
 * catch one, the damage could not spoil the checks before. */
#include <malloc.h>

#include "conformance.h"

#define BIG (4u << 20)

/* Any result is the right one (the runner compares it with the plain run's). */
#define ANY_RESULT ((cudaError_t)-1)
/* Some error, not cudaSuccess. */
#define SOME_ERROR ((cudaError_t)-2)

static void said(cudaError_t got, cudaError_t want, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void said(cudaError_t got, cudaError_t want, const char *format, ...)
{
    char name[200], why[120] = "";
    va_list args;
    va_start(args, format);
    vsnprintf(name, sizeof name, format, args);
    va_end(args);
    cudaError_t last = cudaGetLastError();
    if (want == SOME_ERROR && got == cudaSuccess)
        snprintf(why, sizeof why, "CUDA documents an error");
    else if (want != SOME_ERROR && want != ANY_RESULT && got != want)
        snprintf(why, sizeof why, "CUDA documents " CONF_ERR_FMT, CONF_ERR_ARGS(want));
    conf_result(why, "%s -> " CONF_ERR_FMT ", last " CONF_ERR_FMT, name, CONF_ERR_ARGS(got),
                CONF_ERR_ARGS(last));
}

/* A pointer as an offset from base, never as an address. */
static const char *relative(const void *p, const void *base, char *text, size_t size)
{
    if (p == NULL)
        snprintf(text, size, "null");
    else
        snprintf(text, size, "%+lld", (long long)((const char *)p - (const char *)base));
    return text;
}

static unsigned char *dev, *pinned;
static unsigned seed = 1;

/* buf copied to the device and back through pinned memory, then new bytes from the device. */
static void round_trip(unsigned char *buf, size_t n, const char *what)
{
    char why[200] = "", detail[160];
    conf_fill(buf, n, seed++);
    CONF_CUDA(cudaMemcpy(dev, buf, n, cudaMemcpyHostToDevice));
    CONF_CUDA(cudaMemcpy(pinned, dev, n, cudaMemcpyDeviceToHost));
    if (!conf_same(pinned, buf, n, detail, sizeof detail))
        snprintf(why, sizeof why, "to the device: %s", detail);
    conf_fill(pinned, n, seed++);
    CONF_CUDA(cudaMemcpy(dev, pinned, n, cudaMemcpyHostToDevice));
    CONF_CUDA(cudaMemcpy(buf, dev, n, cudaMemcpyDeviceToHost));
    if (why[0] == '\0' && !conf_same(buf, pinned, n, detail, sizeof detail))
        snprintf(why, sizeof why, "from the device: %s", detail);
    conf_result(why, "copies of %s", what);
}

static void copy_three_times(unsigned char *buf, size_t n)
{
    conf_fill(buf, n, seed++);
    for (int i = 0; i < 3; i++)
        CONF_CUDA(cudaMemcpy(dev, buf, n, cudaMemcpyHostToDevice));
}

/* What CUDA says of a malloc'd buffer copied 3 times: pageable memory it does not know. */
static void questions(unsigned char *copied)
{
    char a[32], b[32];
    cudaPointerAttributes attributes;
    memset(&attributes, 0, sizeof attributes);
    cudaError_t e = cudaPointerGetAttributes(&attributes, copied);
    said(e, ANY_RESULT, "cudaPointerGetAttributes of a buffer copied 3 times");
    if (e == cudaSuccess)
        conf_result(NULL, "its type %d, hostPointer %s, devicePointer %s", (int)attributes.type,
                    relative(attributes.hostPointer, copied, a, sizeof a),
                    relative(attributes.devicePointer, copied, b, sizeof b));
    unsigned int flags = 0;
    e = cudaHostGetFlags(&flags, copied);
    said(e, ANY_RESULT, "cudaHostGetFlags of it");
    if (e == cudaSuccess)
        conf_result(NULL, "its flags 0x%x", flags);
    void *device_pointer = NULL;
    e = cudaHostGetDevicePointer(&device_pointer, copied, 0);
    said(e, ANY_RESULT, "cudaHostGetDevicePointer of it");
    if (e == cudaSuccess)
        conf_result(NULL, "its device pointer %s", relative(device_pointer, copied, a, sizeof a));
}

/* The program registers memory beside a buffer the register cure pinned. Heap chunks (2 MiB is
 * below the mmap threshold raised here) lie end to end, so the second malloc'd buffer shares a
 * page with the first; the page-aligned pair does not. */
static void neighbours(void)
{
    conf_result(mallopt(M_MMAP_THRESHOLD, 64 << 20) == 1 ? NULL : "refused",
                "mallopt M_MMAP_THRESHOLD 64 MiB");
    const size_t n = 2u << 20;
    for (int aligned = 0; aligned < 2; aligned++) {
        unsigned char *first = NULL, *second = NULL;
        if (aligned) {
            if (posix_memalign((void **)&first, 4096, n) != 0 ||
                posix_memalign((void **)&second, 4096, n) != 0) {
                printf("FAIL posix_memalign of 2 MiB\n");
                exit(1);
            }
        } else {
            first = (unsigned char *)conf_malloc(n);
            second = (unsigned char *)conf_malloc(n);
        }
        const char *kind = aligned ? "page-aligned" : "malloc'd";
        copy_three_times(first, n);
        cudaError_t e = cudaHostRegister(second, n, cudaHostRegisterDefault);
        said(e, aligned ? cudaSuccess : ANY_RESULT,
             "cudaHostRegister of a %s buffer beside one copied 3 times", kind);
        if (e == cudaSuccess) {
            round_trip(second, n, "it, registered");
            round_trip(first, n, "its neighbour");
            said(cudaHostUnregister(second), cudaSuccess, "cudaHostUnregister of it");
        }
        round_trip(first, n, "the neighbour after");
        round_trip(second, n, "it after");
        free(second);
        free(first);
    }
}

int main(void)
{
    conf_begin("conf_errors");
    CONF_CUDA(cudaMalloc((void **)&dev, BIG));
    CONF_CUDA(cudaMallocHost((void **)&pinned, BIG));
    unsigned char *host = (unsigned char *)conf_malloc(BIG);
    conf_fill(host, BIG, seed++);

    said(cudaMemcpy(dev, host, 0, cudaMemcpyHostToDevice), ANY_RESULT, "cudaMemcpy h2d of 0 bytes");
    said(cudaMemcpy(host, dev, 0, cudaMemcpyDeviceToHost), ANY_RESULT, "cudaMemcpy d2h of 0 bytes");
    said(cudaMemcpyAsync(dev, host, 0, cudaMemcpyHostToDevice, 0), ANY_RESULT,
         "cudaMemcpyAsync h2d of 0 bytes");

    const size_t block_sizes[] = {64u << 10, BIG};
    for (size_t i = 0; i < 2; i++) {
        void *p = NULL;
        CONF_CUDA(cudaHostAlloc(&p, block_sizes[i], cudaHostAllocDefault));
        said(cudaFreeHost(p), cudaSuccess, "cudaFreeHost of a %zu-byte block", block_sizes[i]);
        said(cudaFreeHost(p), SOME_ERROR, "cudaFreeHost of it again");
    }
    unsigned char *block = NULL;
    CONF_CUDA(cudaMallocHost((void **)&block, 1u << 20));
    said(cudaFreeHost(block + 4096), SOME_ERROR, "cudaFreeHost of a pointer inside a block");
    said(cudaFreeHost(block), cudaSuccess, "cudaFreeHost of the block");

    unsigned char *fresh = (unsigned char *)conf_malloc(BIG);
    unsigned char *copied = (unsigned char *)conf_malloc(BIG);
    copy_three_times(copied, BIG);
    said(cudaFreeHost(fresh), SOME_ERROR, "cudaFreeHost of a malloc'd buffer");
    said(cudaFreeHost(copied), SOME_ERROR, "cudaFreeHost of a malloc'd buffer copied 3 times");
    said(cudaHostUnregister(fresh), cudaErrorHostMemoryNotRegistered,
         "cudaHostUnregister of a malloc'd buffer");
    said(cudaHostUnregister(copied), cudaErrorHostMemoryNotRegistered,
         "cudaHostUnregister of a malloc'd buffer copied 3 times");
    questions(copied);
    round_trip(copied, BIG, "the buffer copied 3 times");

    unsigned char *aligned = NULL;
    if (posix_memalign((void **)&aligned, 4096, 1u << 20) != 0) {
        printf("FAIL posix_memalign of 1 MiB\n");
        return 1;
    }
    said(cudaHostRegister(aligned, 1u << 20, cudaHostRegisterDefault), cudaSuccess,
         "cudaHostRegister of a page-aligned buffer");
    said(cudaHostRegister(aligned, 1u << 20, cudaHostRegisterDefault),
         cudaErrorHostMemoryAlreadyRegistered, "cudaHostRegister of it again");
    said(cudaHostUnregister(aligned), cudaSuccess, "cudaHostUnregister of it");
    said(cudaHostUnregister(aligned), cudaErrorHostMemoryNotRegistered,
         "cudaHostUnregister of it again");
    free(aligned);

    said(cudaHostRegister(copied, BIG, cudaHostRegisterDefault), cudaSuccess,
         "cudaHostRegister of the buffer copied 3 times");
    said(cudaHostRegister(copied, BIG, cudaHostRegisterDefault),
         cudaErrorHostMemoryAlreadyRegistered, "cudaHostRegister of it again");
    round_trip(copied, BIG, "it, registered by the program");
    said(cudaHostUnregister(copied), cudaSuccess, "cudaHostUnregister of it");
    copy_three_times(copied, BIG);
    round_trip(copied, BIG, "it, copied 3 times again");
    neighbours();

    const size_t copy_sizes[] = {4096, BIG};
    unsigned char *freed = NULL, *small = NULL;
    /* No allocation of the program's between the free and the copies: one could be given the
     * freed addresses, and the copies would then be right to succeed. */
    CONF_CUDA(cudaMalloc((void **)&small, 1u << 20));
    CONF_CUDA(cudaMalloc((void **)&freed, BIG));
    CONF_CUDA(cudaFree(freed));
    for (size_t i = 0; i < 2; i++) {
        size_t n = copy_sizes[i];
        said(cudaMemcpy(dev, NULL, n, cudaMemcpyHostToDevice), SOME_ERROR,
             "cudaMemcpy h2d of %zu bytes from NULL", n);
        said(cudaMemcpy(NULL, dev, n, cudaMemcpyDeviceToHost), SOME_ERROR,
             "cudaMemcpy d2h of %zu bytes to NULL", n);
        said(cudaMemcpy(freed, host, n, cudaMemcpyHostToDevice), SOME_ERROR,
             "cudaMemcpy h2d of %zu bytes to freed device memory", n);
        said(cudaMemcpy(host, freed, n, cudaMemcpyDeviceToHost), SOME_ERROR,
             "cudaMemcpy d2h of %zu bytes from freed device memory", n);
        unsigned char *end = small + (1u << 20) - 2048; /* the last 2 KiB of 1 MiB */
        said(cudaMemcpy(end, host, n, cudaMemcpyHostToDevice), SOME_ERROR,
             "cudaMemcpy h2d of %zu bytes past the end of a 1 MiB allocation", n);
        said(cudaMemcpy(host, end, n, cudaMemcpyDeviceToHost), SOME_ERROR,
             "cudaMemcpy d2h of %zu bytes past the end of a 1 MiB allocation", n);
    }
    round_trip(host, BIG, "a buffer after the errors");

    CONF_CUDA(cudaFree(small));
    free(copied);
    free(fresh);
    free(host);
    CONF_CUDA(cudaFreeHost(pinned));
    CONF_CUDA(cudaFree(dev));
    return conf_end("conf_errors");
}
