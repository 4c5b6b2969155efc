/* A streaming FIR filter on the GPU: configuration, lifetime and the zerocopy mode's ring. */
#include "stream/filter_internal.h"

#include <stdlib.h>
#include <string.h>

#include "device/cuda_check.h"

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
    if ((int)c->mode < 0 || (int)c->mode >= ZC_STREAM_MODE_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_filter_config_check: unknown mode %d", (int)c->mode);
    if (c->channels != 1 && c->channels != 2)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_filter_config_check: %zu channels (1 real or 2 complex)", c->channels);
    if (c->ntaps == 0 || c->ntaps > ZC_FIR_MAX_TAPS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_filter_config_check: %zu taps not in 1..%d",
                       c->ntaps, ZC_FIR_MAX_TAPS);
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
    return ZC_OK;
}

static uint32_t zc__pow2_at_least(uint32_t n)
{
    uint32_t p = 2;
    while (p < n)
        p *= 2;
    return p;
}

/* Zerocopy: a ring sized for in_flight frames plus the one kept as history, and the
 * persistent kernel running on it. */
static zc_status zc__filter_ring_setup(zc_filter *f)
{
    const zc_filter_config *c = &f->config;
    int sms = 0;
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device));
    uint32_t blocks = c->gpu_blocks;
    if (blocks == 0) {
        blocks = (f->shape.words + ZC__FIR_THREADS - 1) / ZC__FIR_THREADS;
        if (blocks > (uint32_t)sms)
            blocks = (uint32_t)sms;
    }
    zc_ring_config rc;
    zc_ring_config_init(&rc);
    rc.device = c->device;
    rc.slots = zc__pow2_at_least(c->in_flight + 1);
    rc.in_bytes = f->frame_bytes;
    rc.out_bytes = f->frame_bytes;
    rc.consumers = blocks;
    rc.protocol = c->protocol;
    rc.policy = c->policy;
    rc.watchdog_ns = c->watchdog_ns;
    zc_status st = zc_ring_create(&rc, &f->ring);
    if (st != ZC_OK)
        return st;
    zc_ring_dev view;
    cudaStream_t stream;
    zc_ring_device_view(f->ring, &view);
    zc_ring_stream(f->ring, &stream);
    st = zc__fir_launch_persistent(&f->ring_shape, &view, f->d_taps, blocks, stream);
    if (st == ZC_OK)
        st = zc_ring_wait_started(f->ring, c->timeout_ns);
    if (st != ZC_OK) {
        zc_ring_destroy(f->ring);
        f->ring = NULL;
        return st;
    }
    f->blocks = blocks;
    f->ring_slots = rc.slots;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_create(const zc_filter_config *config, zc_filter **filter_p)
{
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(filter_p);
    zc_status st = zc_filter_config_check(config);
    if (st != ZC_OK)
        return st;
    ZC_CUDA_RETURN(cudaSetDevice(config->device));
    zc_filter *f = calloc(1, sizeof *f);
    if (f == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_filter_create: no memory for the filter record");
    f->config = *config;
    memcpy(f->taps, config->taps, config->ntaps * sizeof(float));
    f->config.taps = f->taps;
    f->frame_bytes = config->frame_samples * config->channels * sizeof(float);
    zc__fir_shape s;
    s.words = (uint32_t)(config->frame_samples * config->channels);
    s.channels = (uint32_t)config->channels;
    s.ntaps = (uint32_t)config->ntaps;
    s.halo = (uint32_t)((config->ntaps - 1) * config->channels);
    s.halo4 = (s.halo + 3u) / 4u * 4u;
    s.tile = ZC__FIR_THREADS;
    f->shape = s;
    s.tile = ZC__FIR_TILE;
    f->ring_shape = s;

    ZC_CUDA_GOTO(cudaMalloc((void **)&f->d_taps, config->ntaps * sizeof(float)), st, fail_record);
    ZC_CUDA_GOTO(
        cudaMemcpy(f->d_taps, f->taps, config->ntaps * sizeof(float), cudaMemcpyHostToDevice), st,
        fail_taps);
    if (config->mode == ZC_STREAM_ZEROCOPY) {
        st = zc__filter_ring_setup(f);
    } else {
        st = zc__filter_launch_setup(f);
        if (st != ZC_OK)
            zc__filter_launch_teardown(f); /* frees what was made; accepts a partial setup */
    }
    if (st != ZC_OK)
        goto fail_taps;
    *filter_p = f;
    return ZC_OK;

fail_taps:
    cudaFree(f->d_taps);
fail_record:
    free(f);
    return st;
}

ZC_EXTERN void zc_filter_destroy(zc_filter *f)
{
    if (f == NULL)
        return;
    if (f->ring != NULL) {
        zc_ring_stop(f->ring, 1000000000ull);
        zc_ring_destroy(f->ring);
    } else {
        zc__filter_launch_teardown(f);
    }
    cudaFree(f->d_taps);
    free(f);
}

ZC_EXTERN zc_status zc_filter_acquire(zc_filter *f, float **frame_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(frame_p);
    if (f->acquired)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_acquire: a frame is acquired and not published");
    if (f->head - f->tail >= f->config.in_flight) {
        if (f->config.policy == ZC_RING_FULL_DROP) {
            f->counters.dropped++;
            return ZC_ERR_DROPPED;
        }
        return ZC_FAIL(ZC_ERR_STATE,
                       "zc_filter_acquire: %u frames already in flight; take a result first",
                       f->config.in_flight);
    }
    if (f->ring != NULL) {
        void *slot = NULL;
        uint64_t seq = 0;
        zc_status st = zc_ring_acquire(f->ring, f->config.timeout_ns, &slot, &seq);
        if (st == ZC_ERR_DROPPED)
            f->counters.dropped++;
        if (st != ZC_OK)
            return st;
        *frame_p = slot;
    } else {
        *frame_p = zc__filter_launch_buffer(f, f->head);
    }
    f->acquired = 1;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_publish(zc_filter *f, uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(f);
    if (!f->acquired)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_publish: no frame acquired");
    zc_status st = f->ring != NULL ? zc_ring_publish(f->ring) : zc__filter_launch_publish(f);
    if (st != ZC_OK)
        return st;
    f->acquired = 0;
    if (seq_p != NULL)
        *seq_p = f->head;
    f->head++;
    f->counters.submitted++;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_submit(zc_filter *f, const float *frame, uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(frame);
    if (f->ring != NULL && f->config.protocol == ZC_RING_PROTO_LL && !f->acquired &&
        f->head - f->tail < f->config.in_flight) {
        /* LL: encode straight from the caller's frame, without the staging copy. */
        zc_status st = zc_ring_push(f->ring, frame, f->frame_bytes, f->config.timeout_ns, NULL);
        if (st == ZC_ERR_DROPPED)
            f->counters.dropped++;
        if (st != ZC_OK)
            return st;
        if (seq_p != NULL)
            *seq_p = f->head;
        f->head++;
        f->counters.submitted++;
        return ZC_OK;
    }
    float *buffer = NULL;
    zc_status st = zc_filter_acquire(f, &buffer);
    if (st != ZC_OK)
        return st;
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
    if (f->head == f->tail)
        return ZC_FAIL(ZC_ERR_STATE, "zc_filter_result_wait: no frame outstanding");
    const void *result = NULL;
    zc_status st;
    if (f->ring != NULL) {
        st = zc_ring_result_wait(f->ring, timeout_ns, &result, NULL);
    } else {
        const float *r = NULL;
        st = zc__filter_launch_wait(f, timeout_ns, &r);
        result = r;
    }
    if (st != ZC_OK)
        return st;
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
    if (f->ring != NULL) {
        zc_status st = zc_ring_result_release(f->ring);
        if (st != ZC_OK)
            return st;
    }
    f->result_held = 0;
    f->tail++;
    f->counters.received++;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_receive(zc_filter *f, float *out, uint64_t timeout_ns,
                                      uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(out);
    const float *result = NULL;
    zc_status st = zc_filter_result_wait(f, timeout_ns, &result, seq_p);
    if (st != ZC_OK)
        return st;
    memcpy(out, result, f->frame_bytes);
    return zc_filter_result_release(f);
}

ZC_EXTERN zc_status zc_filter_buffers(const zc_filter *f, uint32_t *count_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(count_p);
    if (f->ring == NULL)
        *count_p = f->slots;
    else
        *count_p = f->config.protocol == ZC_RING_PROTO_LL ? 1u : f->ring_slots;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_filter_outstanding(const zc_filter *f, uint64_t *count_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(count_p);
    *count_p = f->head - f->tail;
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

ZC_EXTERN zc_status zc_filter_gpu_blocks(const zc_filter *f, uint32_t *blocks_p)
{
    ZC_REQUIRE_ARG(f);
    ZC_REQUIRE_ARG(blocks_p);
    *blocks_p = f->blocks;
    return ZC_OK;
}
