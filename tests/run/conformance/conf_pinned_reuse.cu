/* SPDX-License-Identifier: Apache-2.0 */
/* Pinned memory allocated and freed again and again (cudaHostAlloc with each flag, and
 * cudaMallocHost), which the pinning cure serves from the blocks freed before: each allocation
 * must be what CUDA gives without zc run. Its flags (cudaHostGetFlags), its device pointer
 * (cudaHostGetDevicePointer) and its attributes (cudaPointerGetAttributes, pointers printed as
 * offsets from the allocation) are printed; its bytes must go to the device and back, come from
 * the device, and for mapped memory be written by a kernel through the device pointer. The sizes
 * repeat with each flag in turn, so that a block freed with one flag is there when the next
 * flag asks for the same size. Two allocations live at once must never share memory, and a
 * block freed twice (the second cudaFreeHost an error) must not be handed out twice. */
#include "conformance.h"

static const size_t sizes[] = {64 << 10, 1 << 20, 16 << 20};

typedef conf_pinned_way way;

static const way ways[] = {
    {"default", cudaHostAllocDefault, 0},
    {"portable", cudaHostAllocPortable, 0},
    {"mapped", cudaHostAllocMapped, 0},
    {"write-combined", cudaHostAllocWriteCombined, 0},
    {"cudaMallocHost", 0, 1},
};

static unsigned char *dev, *back;
static unsigned seed = 1;

/* p holds pattern s: every byte, or one in 4096 and the last where the CPU reads slowly
 * (write-combined memory); else why says where not. */
static int holds(const unsigned char *p, size_t n, unsigned s, int sampled, const char *what,
                 char *why, size_t why_size)
{
    size_t step = sampled ? 4096 : 1; /* the last byte is always among those read */
    for (size_t i = 0; i < n; i = (i + step < n || i == n - 1) ? i + step : n - 1) {
        if (p[i] != conf_byte(i, s)) {
            if (why[0] == '\0')
                snprintf(why, why_size, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i,
                         n, p[i], conf_byte(i, s));
            return 0;
        }
    }
    return 1;
}

static const char *relative(const void *p, const void *base, char *text, size_t size)
{
    if (p == NULL)
        snprintf(text, size, "null");
    else
        snprintf(text, size, "%+lld", (long long)((const char *)p - (const char *)base));
    return text;
}

/* One allocation: what CUDA says of it, and its bytes every way they can move. */
static void one(const way *w, size_t n, int iter)
{
    unsigned char *p = conf_pinned_alloc(w, n);
    char why[240] = "", a[32], b[32], c[32];
    int wc = (w->flags & cudaHostAllocWriteCombined) != 0;

    unsigned flags = 0;
    CONF_CUDA(cudaHostGetFlags(&flags, p));
    void *device_pointer = NULL;
    cudaError_t e = cudaHostGetDevicePointer(&device_pointer, p, 0);
    (void)cudaGetLastError(); /* its error, if any, is printed below */
    cudaPointerAttributes attributes;
    memset(&attributes, 0, sizeof attributes);
    CONF_CUDA(cudaPointerGetAttributes(&attributes, p));

    unsigned s = seed++;
    conf_fill(p, n, s);
    CONF_CUDA(cudaMemcpy(dev, p, n, cudaMemcpyHostToDevice));
    CONF_CUDA(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
    holds(back, n, s, 0, "to the device", why, sizeof why);
    s = seed++;
    conf_fill_device(dev, n, s, 0);
    CONF_CUDA(cudaMemcpy(p, dev, n, cudaMemcpyDeviceToHost));
    holds(p, n, s, wc, "from the device", why, sizeof why);
    if ((w->flags & cudaHostAllocMapped) && e == cudaSuccess) {
        s = seed++;
        conf_fill_device((unsigned char *)device_pointer, n, s, 0);
        CONF_CUDA(cudaDeviceSynchronize());
        holds(p, n, s, wc, "written by a kernel through the device pointer", why, sizeof why);
    }
    conf_result(why,
                "%zu %s #%d: flags 0x%x, device pointer " CONF_ERR_FMT " %s, type %d, device %d, "
                "hostPointer %s, devicePointer %s",
                n, w->name, iter, flags, CONF_ERR_ARGS(e),
                relative(e == cudaSuccess ? device_pointer : NULL, p, a, sizeof a),
                (int)attributes.type, attributes.device,
                relative(attributes.hostPointer, p, b, sizeof b),
                relative(attributes.devicePointer, p, c, sizeof c));
    CONF_CUDA(cudaFreeHost(p));
}

/* Two blocks of n live at once (the first likely a block freed before): apart, each its own. */
static void apart(unsigned char *x, unsigned char *y, size_t n, const char *what)
{
    char why[240] = "";
    if (!(x + n <= y || y + n <= x))
        snprintf(why, sizeof why, "the two blocks overlap");
    unsigned sx = seed++, sy = seed++;
    conf_fill(x, n, sx);
    conf_fill(y, n, sy);
    holds(x, n, sx, 0, "the first block", why, sizeof why);
    holds(y, n, sy, 0, "the second block", why, sizeof why);
    conf_result(why, "%zu %s: two blocks live at once are apart", n, what);
}

static void reuse(size_t n)
{
    const way *plain = &ways[0];
    unsigned char *p = conf_pinned_alloc(plain, n);
    CONF_CUDA(cudaFreeHost(p));
    unsigned char *x = conf_pinned_alloc(plain, n), *y = conf_pinned_alloc(plain, n);
    apart(x, y, n, "after a free");
    CONF_CUDA(cudaFreeHost(y));
    CONF_CUDA(cudaFreeHost(x));

    p = conf_pinned_alloc(plain, n);
    CONF_CUDA(cudaFreeHost(p));
    cudaError_t e = cudaFreeHost(p);
    cudaError_t last = cudaGetLastError();
    conf_result(e == cudaSuccess ? "CUDA documents an error" : NULL,
                "%zu freed twice: the second cudaFreeHost -> " CONF_ERR_FMT ", last " CONF_ERR_FMT,
                n, CONF_ERR_ARGS(e), CONF_ERR_ARGS(last));
    x = conf_pinned_alloc(plain, n);
    y = conf_pinned_alloc(plain, n);
    apart(x, y, n, "after a block freed twice");
    CONF_CUDA(cudaFreeHost(y));
    CONF_CUDA(cudaFreeHost(x));
}

int main(void)
{
    conf_begin("conf_pinned_reuse");
    const size_t most = sizes[sizeof sizes / sizeof sizes[0] - 1];
    CONF_CUDA(cudaMalloc((void **)&dev, most));
    back = (unsigned char *)conf_malloc(most);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int iter = 0; iter < 3; iter++)
            for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
                one(&ways[i], sizes[k], iter);
        reuse(sizes[k]);
    }
    free(back);
    CONF_CUDA(cudaFree(dev));
    return conf_end("conf_pinned_reuse");
}
