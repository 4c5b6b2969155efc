/* SPDX-License-Identifier: Apache-2.0 */
/* Pageable cudaMemcpy and cudaMemcpyAsync, both ways, at sizes on either side of every threshold
 * of zc run (a page, the 64 KiB and 256 KiB small-copy bounds, the 1 MiB and 4 MiB chunk and
 * staging sizes, and a size no chunk divides), at odd host and device offsets.
 *
 * Each size has one malloc'd host buffer and one device allocation, both with room around the
 * copied range, and a model of each on the CPU: after every copy the whole host buffer and the
 * whole device allocation (read back through pinned memory, which zc run leaves as it is) must
 * equal their models, so a byte written outside the range is caught as surely as a wrong one.
 * The copies that start at the buffer's first byte come first and move 8 times its size, so that
 * the register cure pins the buffer in place (it pins after twice its size), and the copies at
 * offsets then run on the pinned buffer; freeing it unpins it before the next size. */
#include "conformance.h"

static const size_t sizes[] = {1,
                               4095,
                               4096,
                               4097,
                               (64 << 10) - 1,
                               64 << 10,
                               (64 << 10) + 1,
                               (256 << 10) - 1,
                               256 << 10,
                               (256 << 10) + 1,
                               (1 << 20) - 1,
                               1 << 20,
                               (1 << 20) + 1,
                               (4 << 20) - 1,
                               4 << 20,
                               (4 << 20) + 1,
                               (17 << 20) + 5};

/* Room after the copied range, on the host and on the device. */
#define GUARD     64
#define HOST_ROOM 4093 /* the largest host offset */
#define DEV_ROOM  7    /* the largest device offset */

/* Where a copy starts: bytes from the host buffer's and the device allocation's first byte. */
typedef struct place {
    size_t host, dev;
} place;

static const place places[] = {{0, 7}, {1, 1}, {3, 7}, {4093, 0}, {4093, 1}, {1, 0}};

/* The buffers of one size and their models. */
typedef struct rig {
    size_t n, host_bytes, dev_bytes;
    unsigned char *host, *host_model, *dev, *dev_model, *pinned;
    cudaStream_t stream;
    unsigned seed;
} rig;

/* Both sides equal their models; else why says where they differ. */
static int rig_matches(rig *r, char *why, size_t why_size)
{
    char detail[160];
    if (!conf_same(r->host, r->host_model, r->host_bytes, detail, sizeof detail)) {
        snprintf(why, why_size, "host buffer: %s", detail);
        return 0;
    }
    CONF_CUDA(cudaMemcpy(r->pinned, r->dev, r->dev_bytes, cudaMemcpyDeviceToHost));
    if (!conf_same(r->pinned, r->dev_model, r->dev_bytes, detail, sizeof detail)) {
        snprintf(why, why_size, "device allocation: %s", detail);
        return 0;
    }
    return 1;
}

static void rig_copy(rig *r, unsigned char *dst, const unsigned char *src, cudaMemcpyKind kind,
                     int async)
{
    if (async) {
        CONF_CUDA(cudaMemcpyAsync(dst, src, r->n, kind, r->stream));
        CONF_CUDA(cudaStreamSynchronize(r->stream));
    } else {
        CONF_CUDA(cudaMemcpy(dst, src, r->n, kind));
    }
}

/* New bytes in the host range at p, copied to the device at p. */
static int rig_h2d(rig *r, place p, int async, char *why, size_t why_size)
{
    conf_fill(r->host + p.host, r->n, r->seed++);
    memcpy(r->host_model + p.host, r->host + p.host, r->n);
    rig_copy(r, r->dev + p.dev, r->host + p.host, cudaMemcpyHostToDevice, async);
    memcpy(r->dev_model + p.dev, r->host_model + p.host, r->n);
    return rig_matches(r, why, why_size);
}

/* New bytes in the whole device allocation, the range at p copied to the host at p. */
static int rig_d2h(rig *r, place p, int async, char *why, size_t why_size)
{
    conf_fill(r->dev_model, r->dev_bytes, r->seed++);
    memcpy(r->pinned, r->dev_model, r->dev_bytes);
    CONF_CUDA(cudaMemcpy(r->dev, r->pinned, r->dev_bytes, cudaMemcpyHostToDevice));
    rig_copy(r, r->host + p.host, r->dev + p.dev, cudaMemcpyDeviceToHost, async);
    memcpy(r->host_model + p.host, r->dev_model + p.dev, r->n);
    return rig_matches(r, why, why_size);
}

/* A group of copies reported on one line: the first failure's detail, or nothing. */
typedef struct group {
    char why[320];
} group;

static void group_add(group *g, int ok, const char *detail, int rep, place p)
{
    if (!ok && g->why[0] == '\0')
        snprintf(g->why, sizeof g->why, "rep %d host +%zu device +%zu: %s", rep, p.host, p.dev,
                 detail);
}

static void one_size(size_t n, cudaStream_t stream)
{
    rig r;
    r.n = n;
    r.host_bytes = HOST_ROOM + n + GUARD;
    r.dev_bytes = DEV_ROOM + n + GUARD;
    r.host = (unsigned char *)conf_malloc(r.host_bytes);
    r.host_model = (unsigned char *)conf_malloc(r.host_bytes);
    r.dev_model = (unsigned char *)conf_malloc(r.dev_bytes);
    CONF_CUDA(cudaMalloc((void **)&r.dev, r.dev_bytes));
    CONF_CUDA(cudaMallocHost((void **)&r.pinned, r.dev_bytes));
    r.stream = stream;
    r.seed = (unsigned)n * 131u;
    conf_fill(r.host, r.host_bytes, r.seed++);
    memcpy(r.host_model, r.host, r.host_bytes);
    conf_fill(r.dev_model, r.dev_bytes, r.seed++);
    memcpy(r.pinned, r.dev_model, r.dev_bytes);
    CONF_CUDA(cudaMemcpy(r.dev, r.pinned, r.dev_bytes, cudaMemcpyHostToDevice));

    /* From the buffer's first byte, both ways, 4 times: the register cure pins it. */
    char why[240];
    group h2d = {""}, d2h = {""};
    const place first = {0, 0};
    for (int rep = 0; rep < 4; rep++) {
        group_add(&h2d, rig_h2d(&r, first, rep & 1, why, sizeof why), why, rep, first);
        group_add(&d2h, rig_d2h(&r, first, rep & 1, why, sizeof why), why, rep, first);
    }
    conf_result(h2d.why, "size %zu first-byte h2d", n);
    conf_result(d2h.why, "size %zu first-byte d2h", n);

    /* At every offset, each 3 times, synchronous and asynchronous. */
    for (int async = 0; async < 2; async++) {
        group to = {""}, from = {""};
        for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
            for (int rep = 0; rep < 3; rep++) {
                group_add(&to, rig_h2d(&r, places[i], async, why, sizeof why), why, rep, places[i]);
                group_add(&from, rig_d2h(&r, places[i], async, why, sizeof why), why, rep,
                          places[i]);
            }
        }
        conf_result(to.why, "size %zu offsets h2d %s", n, async ? "async" : "sync");
        conf_result(from.why, "size %zu offsets d2h %s", n, async ? "async" : "sync");
    }

    CONF_CUDA(cudaFreeHost(r.pinned));
    CONF_CUDA(cudaFree(r.dev));
    free(r.dev_model);
    free(r.host_model);
    free(r.host);
}

int main(void)
{
    conf_begin("conf_sizes");
    cudaStream_t stream;
    CONF_CUDA(cudaStreamCreate(&stream));
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        one_size(sizes[i], stream);
    CONF_CUDA(cudaStreamDestroy(stream));
    return conf_end("conf_sizes");
}
