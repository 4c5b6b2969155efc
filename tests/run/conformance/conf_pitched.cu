/* SPDX-License-Identifier: Apache-2.0 */
/* Pitched pageable copies, both ways: cudaMemcpy2D and cudaMemcpy2DAsync on cudaMallocPitch
 * memory, cudaMemcpy3D and cudaMemcpy3DAsync on cudaMalloc3D memory, with the box at an x, y
 * and z offset on both sides (srcPos and dstPos), rows narrower and wider than a page and wider
 * than a 4 MiB staging buffer, and a box one slice deep copied from slice 2 to slice 3.
 *
 * Each case's host volume (with an odd pitch of its own) and device allocation have a model on
 * the CPU; after every copy the whole host volume and the whole device allocation (read back
 * through pinned memory) must equal their models, which the copy changed only in the box at the
 * destination's position. Every case runs 3 times each way and each kind, so that the register
 * cure pins the host volume of the case whose box starts at its first byte. */
#include "conformance.h"

/* A position in bytes, rows and slices, as cudaPos for linear memory. */
typedef struct spot {
    size_t x, y, z;
} spot;

typedef struct pitched_case {
    const char *name;
    int three_d;
    size_t w, h, d; /* the box: bytes, rows, slices */
    spot src, dst;  /* srcPos and dstPos, both ways */
} pitched_case;

static const pitched_case cases[] = {
    {"2d small", 0, 100, 7, 1, {3, 2, 0}, {1, 1, 0}},
    {"2d 4095", 0, 4095, 300, 1, {1, 3, 0}, {7, 2, 0}},
    {"2d 4097", 0, 4097, 300, 1, {5, 1, 0}, {0, 4, 0}},
    {"2d first-byte", 0, 6000, 400, 1, {0, 0, 0}, {3, 0, 0}},
    {"2d wide", 0, (4 << 20) + 100, 3, 1, {9, 1, 0}, {1, 1, 0}},
    {"3d small", 1, 64, 5, 3, {3, 1, 1}, {5, 2, 0}},
    {"3d depth-1 slice 2 to 3", 1, 4097, 257, 1, {0, 0, 2}, {0, 0, 3}},
    {"3d depth-1 offsets", 1, 1000, 50, 1, {11, 3, 2}, {2, 5, 3}},
    {"3d medium", 1, 5000, 100, 4, {1, 2, 1}, {7, 0, 2}},
    {"3d first-byte", 1, 3000, 200, 4, {0, 0, 0}, {0, 1, 1}},
    {"3d wide", 1, (4 << 20) + 64, 2, 2, {3, 1, 0}, {0, 0, 1}},
};

/* One side of a copy: its memory, pitch and rows per slice. */
typedef struct side {
    unsigned char *base;
    size_t pitch, rows;
} side;

static unsigned char *at(side s, spot p)
{
    return s.base + (p.z * s.rows + p.y) * s.pitch + p.x;
}

/* What the copy of the box from src at sp to dst at dp does, on the CPU. */
static void model(side dst, spot dp, side src, spot sp, const pitched_case *c)
{
    for (size_t z = 0; z < c->d; z++)
        for (size_t y = 0; y < c->h; y++)
            memcpy(at(dst, {dp.x, dp.y + y, dp.z + z}), at(src, {sp.x, sp.y + y, sp.z + z}), c->w);
}

/* The buffers of one case. */
typedef struct rig {
    const pitched_case *c;
    side host, dev, host_model, dev_model;
    size_t host_bytes, dev_bytes, slices;
    unsigned char *pinned;
    cudaStream_t stream;
    unsigned seed;
} rig;

static void copy(rig *r, side dst, spot dp, side src, spot sp, cudaMemcpyKind kind, int async)
{
    const pitched_case *c = r->c;
    if (!c->three_d) {
        if (async)
            CONF_CUDA(cudaMemcpy2DAsync(at(dst, dp), dst.pitch, at(src, sp), src.pitch, c->w, c->h,
                                        kind, r->stream));
        else
            CONF_CUDA(
                cudaMemcpy2D(at(dst, dp), dst.pitch, at(src, sp), src.pitch, c->w, c->h, kind));
    } else {
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(src.base, src.pitch, src.pitch, src.rows);
        p.srcPos = make_cudaPos(sp.x, sp.y, sp.z);
        p.dstPtr = make_cudaPitchedPtr(dst.base, dst.pitch, dst.pitch, dst.rows);
        p.dstPos = make_cudaPos(dp.x, dp.y, dp.z);
        p.extent = make_cudaExtent(c->w, c->h, c->d);
        p.kind = kind;
        if (async)
            CONF_CUDA(cudaMemcpy3DAsync(&p, r->stream));
        else
            CONF_CUDA(cudaMemcpy3D(&p));
    }
    if (async)
        CONF_CUDA(cudaStreamSynchronize(r->stream));
}

/* Both sides equal their models; else why says where they differ. */
static int matches(rig *r, char *why, size_t why_size)
{
    char detail[160];
    if (!conf_same(r->host.base, r->host_model.base, r->host_bytes, detail, sizeof detail)) {
        snprintf(why, why_size, "host volume: %s", detail);
        return 0;
    }
    CONF_CUDA(cudaMemcpy(r->pinned, r->dev.base, r->dev_bytes, cudaMemcpyDeviceToHost));
    if (!conf_same(r->pinned, r->dev_model.base, r->dev_bytes, detail, sizeof detail)) {
        snprintf(why, why_size, "device allocation: %s", detail);
        return 0;
    }
    return 1;
}

/* One copy one way, on new bytes everywhere: both sides filled, then the box copied. */
static int one_copy(rig *r, int to_device, int async, char *why, size_t why_size)
{
    conf_fill(r->host.base, r->host_bytes, r->seed++);
    memcpy(r->host_model.base, r->host.base, r->host_bytes);
    conf_fill(r->pinned, r->dev_bytes, r->seed++);
    memcpy(r->dev_model.base, r->pinned, r->dev_bytes);
    CONF_CUDA(cudaMemcpy(r->dev.base, r->pinned, r->dev_bytes, cudaMemcpyHostToDevice));
    const pitched_case *c = r->c;
    if (to_device) {
        copy(r, r->dev, c->dst, r->host, c->src, cudaMemcpyHostToDevice, async);
        model(r->dev_model, c->dst, r->host_model, c->src, c);
    } else {
        copy(r, r->host, c->dst, r->dev, c->src, cudaMemcpyDeviceToHost, async);
        model(r->host_model, c->dst, r->dev_model, c->src, c);
    }
    return matches(r, why, why_size);
}

static size_t most(size_t a, size_t b)
{
    return a > b ? a : b;
}

static void one_case(const pitched_case *c, cudaStream_t stream, unsigned seed)
{
    rig r;
    r.c = c;
    r.stream = stream;
    r.seed = seed;
    /* Room for the box at either position, and a row and a slice more. */
    size_t width = c->w + most(c->src.x, c->dst.x);
    size_t rows = c->h + most(c->src.y, c->dst.y) + 1;
    r.slices = c->d + most(c->src.z, c->dst.z) + (c->three_d ? 1 : 0);
    r.host.pitch = width + 37;
    r.host.rows = rows;
    r.host_bytes = r.host.pitch * rows * r.slices;
    r.host.base = (unsigned char *)conf_malloc(r.host_bytes);
    r.host_model = r.host;
    r.host_model.base = (unsigned char *)conf_malloc(r.host_bytes);
    if (c->three_d) {
        cudaPitchedPtr p;
        CONF_CUDA(cudaMalloc3D(&p, make_cudaExtent(width + 5, rows, r.slices)));
        r.dev.base = (unsigned char *)p.ptr;
        r.dev.pitch = p.pitch;
    } else {
        CONF_CUDA(cudaMallocPitch((void **)&r.dev.base, &r.dev.pitch, width + 5, rows));
    }
    r.dev.rows = rows;
    r.dev_bytes = r.dev.pitch * rows * r.slices;
    r.dev_model = r.dev;
    r.dev_model.base = (unsigned char *)conf_malloc(r.dev_bytes);
    CONF_CUDA(cudaMallocHost((void **)&r.pinned, r.dev_bytes));

    for (int async = 0; async < 2; async++) {
        char to[320] = "", from[320] = "", why[240];
        for (int rep = 0; rep < 3; rep++) {
            if (!one_copy(&r, 1, async, why, sizeof why) && to[0] == '\0')
                snprintf(to, sizeof to, "rep %d: %s", rep, why);
            if (!one_copy(&r, 0, async, why, sizeof why) && from[0] == '\0')
                snprintf(from, sizeof from, "rep %d: %s", rep, why);
        }
        const char *kind = async ? "async" : "sync";
        conf_result(to, "%s h2d %s (%zu x %zu x %zu)", c->name, kind, c->w, c->h, c->d);
        conf_result(from, "%s d2h %s (%zu x %zu x %zu)", c->name, kind, c->w, c->h, c->d);
    }

    CONF_CUDA(cudaFreeHost(r.pinned));
    CONF_CUDA(cudaFree(r.dev.base));
    free(r.dev_model.base);
    free(r.host_model.base);
    free(r.host.base);
}

int main(void)
{
    conf_begin("conf_pitched");
    cudaStream_t stream;
    CONF_CUDA(cudaStreamCreate(&stream));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        one_case(&cases[i], stream, (unsigned)i * 1000u);
    CONF_CUDA(cudaStreamDestroy(stream));
    return conf_end("conf_pitched");
}
