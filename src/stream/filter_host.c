/* SPDX-License-Identifier: Apache-2.0 */
/* The cpu transport of a filter: the FIR on the host, computed when a frame is published. It
 * makes no CUDA call, so the whole pipeline runs and is tested on machines without a GPU, and
 * it is the baseline every GPU mode is compared against. */
#include "stream/filter_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "core/error.h"

/* Outputs per block: their double accumulators stay in L1 while every tap passes over them. */
#define ZC__HOST_BLOCK 256u

void zc__fir_host_frame(const zc__fir_shape *s, const float *taps, const float *work, float *out)
{
    const size_t ch = s->channels;
    const float *x = work + s->halo;
    double acc[ZC__HOST_BLOCK];
    for (size_t j0 = 0; j0 < s->words; j0 += ZC__HOST_BLOCK) {
        const size_t n = s->words - j0 < ZC__HOST_BLOCK ? s->words - j0 : ZC__HOST_BLOCK;
        for (size_t i = 0; i < n; i++)
            acc[i] = 0.0;
        /* Tap by tap over the whole block (the loop that vectorises), each output summed in
         * the same order as zc_fir_reference. */
        for (size_t k = 0; k < s->ntaps; k++) {
            const double t = (double)taps[k];
            const float *xk = x + j0 - k * ch;
            for (size_t i = 0; i < n; i++)
                acc[i] += t * (double)xk[i];
        }
        for (size_t i = 0; i < n; i++)
            out[j0 + i] = (float)acc[i];
    }
}

static zc_status zc__host_setup(zc_filter *f)
{
    f->slots = f->config.in_flight;
    size_t bytes = 0, work = 0;
    if (!zc__size_mul(f->frame_bytes, f->slots, &bytes) ||
        !zc__size_add(f->frame_bytes, (size_t)f->shape.halo * sizeof(float), &work))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_filter_create: frames x in_flight overflows");
    f->h_in = malloc(bytes);
    f->h_out = malloc(bytes);
    f->h_work = calloc(1, work); /* zeros: the history before the first frame */
    if (f->h_in == NULL || f->h_out == NULL || f->h_work == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_filter_create: no memory for %zu bytes of frames",
                       2 * bytes + work);
    return ZC_OK;
}

static zc_status zc__host_publish(zc_filter *f)
{
    const zc__fir_shape *s = &f->shape;
    memcpy(f->h_work + s->halo, zc__filter_slot(f->h_in, f, f->head), f->frame_bytes);
    zc__fir_host_frame(s, f->taps, f->h_work, zc__filter_slot(f->h_out, f, f->head));
    /* The frame's tail is the next frame's history (frames are at least halo long). */
    memmove(f->h_work, f->h_work + s->words, (size_t)s->halo * sizeof(float));
    return ZC_OK;
}

static zc_status zc__host_wait(zc_filter *f, uint64_t timeout_ns, const float **result_p)
{
    (void)timeout_ns; /* computed at publish: always there */
    *result_p = zc__filter_slot(f->h_out, f, f->tail);
    return ZC_OK;
}

static void zc__host_teardown(zc_filter *f)
{
    free(f->h_in);
    free(f->h_out);
    free(f->h_work);
}

const zc__filter_ops zc__filter_host_ops = {
    .setup = zc__host_setup,
    .acquire = zc__filter_acquire_host_slot,
    .publish = zc__host_publish,
    .submit = NULL,
    .wait = zc__host_wait,
    .release = NULL,
    .buffers = zc__filter_host_slots,
    .teardown = zc__host_teardown,
};
