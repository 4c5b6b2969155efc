/* SPDX-License-Identifier: Apache-2.0 */
/* A streaming FIR filter, one frame at a time: configuration, lifetime, and the public calls,
 * which check the state and hand the work to the transport family's operations. */
#include "stream/filter_internal.h"
#include "stream/stream_modes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda_check.h"
#include "mem/exact.h"

ZC_EXTERN void zc_filter_config_init(zc_filter_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->mode = ZC_STREAM_ZEROCOPY;
    config->frame_samples = 1024;
    config->channels = 1;
    config->in_flight = 1;
    config->protocol = ZC_RING_PROTO_LL;
    config->policy = ZC_RING_FULL_WAIT;
    config->timeout_ns = 2000000000ull;
    config->watchdog_ns = 1000000000ull;
}

ZC_EXTERN zc_status zc_filter_config_check(const zc_filter_config *c)
{
    ZC_REQUIRE_ARG(c);
    ZC_REQUIRE_ARG(c->taps);
    if (zc__stream_mode_row_of(c->mode) == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_filter_config_check: unknown mode %d", (int)c->mode);
    if (c->channels != 1 && c->channels != 2)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_filter_config_check: %zu channels (1 real or 2 complex)", c->channels);
    if (c->ntaps == 0 || c->ntaps > ZC_FIR_MAX_TAPS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_filter_config_check: %zu taps not in 1..%d",
                       c->ntaps, ZC_FIR_MAX_TAPS);
    /* A NaN or infinite tap makes every output NaN (and the verification's bound with it):
     * refused here, whether the taps were designed or read from a file. */
    for (size_t k = 0; k < c->ntaps; k++)
        if (!isfinite(c->taps[k]))
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc_filter_config_check: tap %zu of %zu is %g, not a finite number", k,
                           c->ntaps, (double)c->taps[k]);
    size_t words = c->frame_samples * c->channels;
    if (c->frame_samples == 0 || c->frame_samples > ((size_t)1 << 26) || words % 4 != 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_filter_config_check: %zu samples x %zu channels per frame: need a "
                       "multiple of 4 values (16 bytes), at most 2^26 samples",
                       c->frame_samples, c->channels);
    size_t halo4 = ((c->ntaps - 1) * c->channels + 3) / 4 * 4;
    if (words < halo4)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_filter_config_check: frames of %zu values are shorter than the "
                       "filter's history (%zu): use longer frames or fewer taps",
                       words, halo4);
    if (c->in_flight == 0 || c->in_flight > 1024)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_filter_config_check: in_flight %u not in 1..1024",
                       c->in_flight);
    if (c->timeout_ns == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_filter_config_check: timeout_ns is 0");
    if (c->budget_frames > 0 && !zc_stream_mode_on_ring(c->mode))
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "zc_filter_config_check: the time budget is the zerocopy and hybrid "
                       "modes' (their persistent kernel stamps each frame); mode %s keeps none",
                       zc_stream_mode_name(c->mode));
    return ZC_OK;
}

static zc__fir_shape zc__shape_of(const zc_filter_config *c, uint32_t tile)
{
    zc__fir_shape s;
    s.words = (uint32_t)(c->frame_samples * c->channels);
    s.channels = (uint32_t)c->channels;
    s.ntaps = (uint32_t)c->ntaps;
    s.halo = (uint32_t)((c->ntaps - 1) * c->channels);
    s.halo4 = (s.halo + 3u) / 4u * 4u;
    s.tile = tile;
    return s;
}

ZC_EXTERN zc_status zc_filter_create(const zc_filter_config *config, zc_filter **filter_p)
{
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(filter_p);
    ZC_CHECK(zc_filter_config_check(config));
    /* zc_filter_config_check refused a mode without a row. */
    const zc__stream_mode_row *row = zc__stream_mode_row_of(config->mode);
    const int on_gpu = (row->flags & ZC_STREAM_MODE_ON_GPU) != 0;
    if (on_gpu)
        ZC_CUDA_RETURN(cudaSetDevice(config->device));
    zc_filter *f = calloc(1, sizeof *f);
    if (f == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_filter_create: no memory for the filter record");
    f->config = *config;
    f->ops = row->family;
    f->launch = row->launch;
    memcpy(f->taps, config->taps, config->ntaps * sizeof(float));
    f->config.taps = f->taps;
    f->frame_bytes = config->frame_samples * config->channels * sizeof(float);
    f->shape = zc__shape_of(config, ZC__FIR_THREADS);
    f->ring_shape = zc__shape_of(config, ZC__FIR_TILE);

    zc_status st;
    if (on_gpu) {
        /* Every FIR kernel loaded before any transport queues work that holds the GPU:
         * stream-wait queues frames behind waits on words the CPU writes only later, and its
         * first kernel launch, loading the kernel lazily, hung there for ever (only when no
         * earlier run in the process had loaded it); the zerocopy kernel runs until stopped, and
         * a frame kernel first launched beside it (another stream in the process) would hang
         * the same way. */
        ZC_CHECK_GOTO(zc__fir_kernels_load(), st, fail_record);
        ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, config->ntaps * sizeof(float),
                                          (void **)&f->d_taps),
                      st, fail_record);
        ZC_CUDA_GOTO(
            cudaMemcpy(f->d_taps, f->taps, config->ntaps * sizeof(float), cudaMemcpyHostToDevice),
            st, fail_taps);
    }
    st = f->ops->setup(f);
    if (st != ZC_OK) {
        f->ops->teardown(f); /* frees what was made; accepts a partial setup */
        goto fail_taps;
    }
    *filter_p = f;
    return ZC_OK;

fail_taps:
    zc__mem_exact_free(ZC_BUFFER_DEVICE, f->d_taps);
fail_record:
    free(f);
    return st;
}

ZC_EXTERN void zc_filter_destroy(zc_filter *f)
{
    if (f == NULL)
        return;
    f->ops->teardown(f);
    zc__mem_exact_free(ZC_BUFFER_DEVICE, f->d_taps);
    free(f);
}

zc_status zc__filter_acquire_host_slot(zc_filter *f, float **frame_p)
{
    *frame_p = zc__filter_slot(f->h_in, f, f->head);
    return ZC_OK;
}

uint32_t zc__filter_host_slots(const zc_filter *f)
{
    return f->slots;
}

/* Room for one more frame under in_flight; under the drop policy a frame without room is
 * counted here. */
static zc_status zc__filter_room(zc_filter *f, const char *fn)
{
    if (f->acquired)
        return ZC_FAIL(ZC_ERR_STATE, "%s: a frame is acquired and not published", fn);
    if (f->head - zc__filter_tail(f) < f->config.in_flight)
        return ZC_OK;
    if (f->config.policy == ZC_RING_FULL_DROP) {
        f->counters.dropped++;
        return ZC_ERR_DROPPED;
    }
    return ZC_FAIL(ZC_ERR_STATE, "%s: %u frames already in flight; take a result first", fn,
                   f->config.in_flight);
}

/* Frame head has gone out: number it and count it. */
static void zc__filter_sent(zc_filter *f, uint64_t *seq_p)
{
    if (seq_p != NULL)
        *seq_p = f->head;
    __atomic_store_n(&f->head, f->head + 1, __ATOMIC_RELEASE);
    f->counters.submitted++;
}

ZC_EXTERN zc_status zc_filter_acquire(zc_filter *f, float **frame_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(frame_p);
    ZC_CHECK(zc__filter_room(f, "zc_filter_acquire"));
    zc_status st = f->ops->acquire(f, frame_p);
    if (st == ZC_ERR_DROPPED)
        f->counters.dropped++;
    ZC_CHECK(st);
    f->acquired = 1;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_publish(zc_filter *f, uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(f);
    if (!f->acquired)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_publish: no frame acquired");
    ZC_CHECK(f->ops->publish(f));
    f->acquired = 0;
    zc__filter_sent(f, seq_p);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_submit(zc_filter *f, const float *frame, uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(frame);
    if (f->ops->submit != NULL) {
        ZC_CHECK(zc__filter_room(f, "zc_filter_submit")); /* counts its own drops */
        zc_status st = f->ops->submit(f, frame);
        if (st == ZC_ERR_DROPPED)
            f->counters.dropped++;
        ZC_CHECK(st);
        zc__filter_sent(f, seq_p);
        return ZC_OK;
    }
    float *buffer = NULL;
    ZC_CHECK(zc_filter_acquire(f, &buffer));
    memcpy(buffer, frame, f->frame_bytes);
    return zc_filter_publish(f, seq_p);
}

ZC_EXTERN zc_status zc_filter_result_wait(zc_filter *f, uint64_t timeout_ns, const float **result_p,
                                          uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(result_p);
    if (f->result_held)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_result_wait: the last result is not released");
    if (zc__filter_head(f) == f->tail)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_result_wait: no frame outstanding");
    const float *result = NULL;
    ZC_CHECK(f->ops->wait(f, timeout_ns, &result));
    f->result_held = 1;
    *result_p = result;
    if (seq_p != NULL)
        *seq_p = f->tail;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_result_release(zc_filter *f)
{
    ZC_REQUIRE_ARG(f);
    if (!f->result_held)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_result_release: no result held");
    if (f->ops->release != NULL) {
        ZC_CHECK(f->ops->release(f));
    }
    f->result_held = 0;
    __atomic_store_n(&f->tail, f->tail + 1, __ATOMIC_RELEASE);
    f->counters.received++;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_receive(zc_filter *f, float *out, uint64_t timeout_ns,
                                      uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(out);
    const float *result = NULL;
    ZC_CHECK(zc_filter_result_wait(f, timeout_ns, &result, seq_p));
    memcpy(out, result, f->frame_bytes);
    return zc_filter_result_release(f);
}

ZC_EXTERN zc_status zc_filter_buffers(const zc_filter *f, uint32_t *count_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(count_p);
    *count_p = f->ops->buffers(f);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_outstanding(const zc_filter *f, uint64_t *count_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(count_p);
    *count_p = zc__filter_head(f) - zc__filter_tail(f);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_counters_get(const zc_filter *f, zc_filter_counters *counters_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(counters_p);
    zc_filter_counters c = f->counters;
    if (f->ring != NULL) {
        zc_ring_counters rc;
        zc_ring_counters_get(f->ring, &rc);
        c.full_waits = rc.full_waits;
    }
    *counters_p = c;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_budget(zc_filter *f, uint64_t first_seq, uint64_t count,
                                     zc_ring_budget *budget_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(budget_p);
    if (f->ring == NULL || f->config.budget_frames == 0)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "zc_filter_budget: the filter keeps no budget (a zerocopy filter "
                       "created with budget_frames keeps one)");
    return zc_ring_budget_get(f->ring, first_seq, count, budget_p);
}

ZC_EXTERN zc_status zc_filter_gpu_blocks(const zc_filter *f, uint32_t *blocks_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(blocks_p);
    *blocks_p = f->blocks;
    return ZC_OK;
}
