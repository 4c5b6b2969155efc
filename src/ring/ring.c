/* SPDX-License-Identifier: Apache-2.0 */
/* The frame ring's lifetime: configuration, mapped pinned allocation, stream, heartbeat. */
#include "ring/ring_internal.h"
#include "ring/ring_budget_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "core/checked_math.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"
#include "zerocopy/device.h"

#define ZC__RING_ALIGN 128u

ZC_EXTERN void zc_ring_config_init(zc_ring_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->device = 0;
    config->slots = 8;
    config->in_bytes = 4096;
    config->out_bytes = 4096;
    config->consumers = 1;
    config->protocol = ZC_RING_PROTO_LL;
    config->policy = ZC_RING_FULL_WAIT;
    config->watchdog_ns = 1000000000ull;
    config->poll_check_ns = 200000ull;
}

ZC_EXTERN zc_status zc_ring_config_check(const zc_ring_config *c)
{
    ZC_REQUIRE_ARG(c);
    if (c->device < 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_config_check: device %d is negative",
                       c->device);
    if (c->slots < 2 || c->slots > 65536 || !zc_ring_is_pow2(c->slots))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_config_check: slots %u is not a power of two in 2..65536",
                       c->slots);
    if (c->in_bytes == 0 || c->in_bytes % 16 != 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_config_check: in_bytes %zu is not a positive multiple of 16",
                       c->in_bytes);
    if (c->out_bytes == 0 || c->out_bytes % 16 != 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_config_check: out_bytes %zu is not a positive multiple of 16",
                       c->out_bytes);
    if (c->consumers == 0 || c->consumers > ZC_RING_MAX_CONSUMERS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_config_check: consumers %u not in 1..%u",
                       c->consumers, ZC_RING_MAX_CONSUMERS);
    if (c->protocol != ZC_RING_PROTO_FLAG && c->protocol != ZC_RING_PROTO_LL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_config_check: unknown protocol %d",
                       (int)c->protocol);
    if (c->policy != ZC_RING_FULL_WAIT && c->policy != ZC_RING_FULL_DROP)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_config_check: unknown full policy %d",
                       (int)c->policy);
    if (c->results != ZC_RING_RESULTS_MAPPED && c->results != ZC_RING_RESULTS_COPY)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_config_check: unknown results %d",
                       (int)c->results);
    if (c->watchdog_ns < 10000000ull)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_config_check: watchdog_ns %llu is below 10 ms; the heartbeat "
                       "thread could not keep up",
                       (unsigned long long)c->watchdog_ns);
    if (c->poll_check_ns == 0 || c->poll_check_ns > c->watchdog_ns / 4)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_config_check: poll_check_ns %llu must be in 1..watchdog_ns/4",
                       (unsigned long long)c->poll_check_ns);
    size_t bytes;
    if (!zc__size_mul(c->in_bytes, 2u * (size_t)c->slots, &bytes) ||
        !zc__size_mul(c->out_bytes, 2u * (size_t)c->slots, &bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_ring_config_check: slots x frame bytes overflows");
    if (c->in_bytes / 4 > UINT32_MAX || c->out_bytes / 4 > UINT32_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_config_check: frames over 16 GiB");
    return zc__ring_budget_check(c);
}

/* Round n up to ZC__RING_ALIGN; false on overflow. */
static int zc__ring_round(size_t n, size_t *out_p)
{
    size_t r;
    if (!zc__size_add(n, ZC__RING_ALIGN - 1u, &r))
        return 0;
    *out_p = r / ZC__RING_ALIGN * ZC__RING_ALIGN;
    return 1;
}

/* Lay out control, release words, stamps and slots in one allocation; offsets in bytes. */
typedef struct zc__ring_layout {
    size_t released, in_stamp, out_stamp, in, out, total;
} zc__ring_layout;

static zc_status zc__ring_plan(const zc_ring_config *c, size_t in_stride, size_t out_stride,
                               zc__ring_layout *l)
{
    size_t n, at = 0;
    int ok = zc__ring_round(sizeof(zc_ring_ctrl), &at);
    const size_t word = ZC_RING_WORD_STRIDE * sizeof(uint64_t); /* one line per word */
    l->released = at;
    ok = ok && zc__size_mul(c->consumers, word, &n) && zc__ring_round(n, &n) &&
         zc__size_add(at, n, &at);
    l->in_stamp = at;
    ok =
        ok && zc__size_mul(c->slots, word, &n) && zc__ring_round(n, &n) && zc__size_add(at, n, &at);
    l->out_stamp = at;
    ok =
        ok && zc__size_mul(c->slots, word, &n) && zc__ring_round(n, &n) && zc__size_add(at, n, &at);
    l->in = at;
    ok = ok && zc__size_mul(c->slots, in_stride, &n) && zc__size_add(at, n, &at);
    l->out = at;
    /* Results that go by copy live in device memory and pinned host memory of their own. */
    if (c->results == ZC_RING_RESULTS_MAPPED)
        ok = ok && zc__size_mul(c->slots, out_stride, &n) && zc__size_add(at, n, &at);
    l->total = at;
    if (!ok)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_ring_create: ring size overflows size_t");
    return ZC_OK;
}

/* Keep the heartbeat off a core the creating thread has to itself: a latency-critical thread
 * pinned to one core should not be preempted by this one's wake-ups. Best effort. */
static void zc__ring_heartbeat_affinity(const cpu_set_t *creator)
{
    if (CPU_COUNT(creator) != 1)
        return;
    cpu_set_t others;
    CPU_ZERO(&others);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < online && c < CPU_SETSIZE; c++)
        if (!CPU_ISSET((int)c, creator))
            CPU_SET((int)c, &others);
    if (CPU_COUNT(&others) > 0)
        pthread_setaffinity_np(pthread_self(), sizeof others, &others);
}

static void *zc__ring_heartbeat_main(void *arg)
{
    zc_ring *ring = arg;
    zc__ring_heartbeat_affinity(&ring->creator_cpus);
    uint64_t beat = 0;
    struct timespec pause = {0, (long)ring->heartbeat_period_ns};
    while (!__atomic_load_n(&ring->heartbeat_quit, __ATOMIC_ACQUIRE)) {
        if (!__atomic_load_n(&ring->heartbeat_paused, __ATOMIC_ACQUIRE))
            __atomic_store_n(&ring->ctrl->heartbeat, ++beat, __ATOMIC_RELEASE);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

void zc__ring_heartbeat_pause(zc_ring *ring, int paused)
{
    __atomic_store_n(&ring->heartbeat_paused, paused, __ATOMIC_RELEASE);
}

/* Give every LL word the flag of its slot's previous occupant, so that no zeroed word is taken
 * for data of the first frame (whose flag may be anything, as sequence numbers wrap). */
static void zc__ring_ll_init(unsigned char *slots, size_t stride, size_t words, uint32_t count,
                             uint64_t first_seq)
{
    for (uint32_t i = 0; i < count; i++) {
        uint64_t seq = first_seq + i; /* the first frame that will use this slot */
        uint64_t *w = (uint64_t *)(slots + (size_t)zc_ring_slot(seq, count) * stride);
        uint64_t stale = zc_ring_ll_pack(0, zc_ring_ll_stale_flag(seq, count));
        for (size_t k = 0; k < words; k++)
            w[k] = stale;
    }
}

/* The results' protocol: the input's, or FLAG when they go by copy (plain words, one stamp). */
static zc_ring_protocol zc__ring_out_protocol(const zc_ring_config *c)
{
    return c->results == ZC_RING_RESULTS_COPY ? ZC_RING_PROTO_FLAG : c->protocol;
}

void zc__ring_stamps_init(uint64_t *words, uint32_t slots, uint64_t first_seq)
{
    for (uint32_t i = 0; i < slots; i++) {
        uint64_t seq = first_seq + i;
        words[(size_t)zc_ring_slot(seq, slots) * ZC_RING_WORD_STRIDE] = zc_ring_stamp(seq - slots);
    }
}

/* Slot strides for a configuration. */
static zc_status zc__ring_strides(const zc_ring_config *c, size_t *in_p, size_t *out_p)
{
    int ll = c->protocol == ZC_RING_PROTO_LL;
    int out_ll = zc__ring_out_protocol(c) == ZC_RING_PROTO_LL;
    if (!zc__ring_round(ll ? c->in_bytes * 2 : c->in_bytes, in_p) ||
        !zc__ring_round(out_ll ? c->out_bytes * 2 : c->out_bytes, out_p))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_ring_create: slot size overflows");
    return ZC_OK;
}

zc_status zc__ring_bytes(const zc_ring_config *c, size_t *bytes_p)
{
    size_t in_stride = 0, out_stride = 0;
    zc__ring_layout l;
    zc_status st = zc__ring_strides(c, &in_stride, &out_stride);
    if (st == ZC_OK)
        st = zc__ring_plan(c, in_stride, out_stride, &l);
    if (st == ZC_OK)
        *bytes_p = l.total;
    return st;
}

zc_status zc__ring_setup(zc_ring *ring, const zc_ring_config *config, unsigned char *host,
                         unsigned char *dev, uint64_t first_seq)
{
    zc__ring_layout l;
    zc_status st = zc__ring_strides(config, &ring->in_stride, &ring->out_stride);
    if (st == ZC_OK)
        st = zc__ring_plan(config, ring->in_stride, ring->out_stride, &l);
    ZC_CHECK(st);
    ring->config = *config;
    ring->in_words = config->in_bytes / 4;
    ring->out_words = config->out_bytes / 4;
    ring->base = host;
    ring->base_bytes = l.total;
    memset(host, 0, l.total);
    ring->ctrl = (zc_ring_ctrl *)host;
    ring->released = (uint64_t *)(host + l.released);
    ring->in_stamp = (uint64_t *)(host + l.in_stamp);
    ring->out_stamp = (uint64_t *)(host + l.out_stamp);
    ring->in = host + l.in;
    ring->out = host + l.out;
    for (uint32_t i = 0; i < config->consumers; i++)
        ring->released[(size_t)i * ZC_RING_WORD_STRIDE] = first_seq;
    zc__ring_stamps_init(ring->in_stamp, config->slots, first_seq);
    zc__ring_stamps_init(ring->out_stamp, config->slots, first_seq);
    ring->head = ring->tail = ring->released_seen = first_seq;
    if (config->protocol == ZC_RING_PROTO_LL)
        zc__ring_ll_init(ring->in, ring->in_stride, ring->in_words, config->slots, first_seq);
    if (zc__ring_out_protocol(config) == ZC_RING_PROTO_LL)
        zc__ring_ll_init(ring->out, ring->out_stride, ring->out_words, config->slots, first_seq);
    zc_ring_dev *v = &ring->view;
    v->protocol = (uint32_t)config->protocol;
    v->out_protocol = (uint32_t)zc__ring_out_protocol(config);
    v->slots = config->slots;
    v->consumers = config->consumers;
    v->launch = 1;
    v->in_bytes = config->in_bytes;
    v->out_bytes = config->out_bytes;
    v->in_stride = ring->in_stride;
    v->out_stride = ring->out_stride;
    v->ctrl = (zc_ring_ctrl *)dev;
    v->released = (uint64_t *)(dev + l.released);
    v->in_stamp = (uint64_t *)(dev + l.in_stamp);
    v->out_stamp = (uint64_t *)(dev + l.out_stamp);
    v->arrivals = NULL; /* device memory: zc_ring_create (or a CPU test) provides it */
    v->seen = NULL;     /* the same; without it every FLAG block polls the host's stamp */
    v->in = dev + l.in;
    v->out = dev + l.out;
    v->watchdog_ns = config->watchdog_ns;
    v->poll_check_ns = config->poll_check_ns;
    ring->in_stage = aligned_alloc(64, (config->in_bytes + 63) / 64 * 64);
    ring->out_stage = aligned_alloc(64, (config->out_bytes + 63) / 64 * 64);
    if (ring->in_stage == NULL || ring->out_stage == NULL) {
        free(ring->in_stage);
        free(ring->out_stage);
        ring->in_stage = ring->out_stage = NULL;
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_create: no memory for staging frames");
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_ring_create(const zc_ring_config *config, zc_ring **ring_p)
{
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(ring_p);
    ZC_CHECK(zc_ring_config_check(config));
    int count = 0, can_map = 0, sms = 0;
    ZC_CHECK(zc_device_count(&count)); /* says why when there is no GPU or driver */
    if (config->device >= count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_create: device %d does not exist (%d found)",
                       config->device, count);
    ZC_CUDA_RETURN(cudaSetDevice(config->device));
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, config->device));
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, config->device));
    if (!can_map)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "zc_ring_create: device %d cannot map host memory",
                       config->device);
    /* Persistent blocks must all be resident at once, or the late ones never run. */
    if (config->consumers > (uint32_t)sms * 2u)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_create: %u consumer blocks exceed 2 per SM (%d SMs); a persistent "
                       "kernel's blocks must all be resident",
                       config->consumers, sms);
    size_t bytes;
    ZC_CHECK(zc__ring_bytes(config, &bytes));

    zc_ring *ring = calloc(1, sizeof *ring);
    if (ring == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_create: no memory for the ring record");
    void *host = NULL, *dev = NULL;
    zc_status st;
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, bytes, &host), st, fail_record);
    ZC_CHECK_GOTO(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, host, &dev), st, fail_host);
    ZC_CHECK_GOTO(zc__ring_setup(ring, config, host, dev, 0), st, fail_host);
    /* The FLAG results' arrival counters, then the input stamps as block 0 passes them on: only
     * the GPU's blocks touch them, so they live in device memory (atomics on host memory cross
     * PCIe, where they are not even native on every machine). */
    const size_t gpu_words = 2 * (size_t)config->slots;
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, gpu_words * sizeof(uint64_t),
                                      (void **)&ring->arrivals),
                  st, fail_stage);
    ZC_CUDA_GOTO(cudaMemset(ring->arrivals, 0, gpu_words * sizeof(uint64_t)), st, fail_arrivals);
    ring->view.arrivals = ring->arrivals;
    ring->view.seen = ring->arrivals + config->slots;
    /* Non-blocking, so that work on the legacy default stream (cudaMemcpy, a
     * cudaDeviceSynchronize elsewhere) never waits for the kernel that never ends by itself. */
    ZC_CUDA_GOTO(cudaStreamCreateWithFlags(&ring->stream, cudaStreamNonBlocking), st,
                 fail_arrivals);
    if (config->budget_frames > 0)
        ZC_CHECK_GOTO(zc__ring_budget_open(ring), st, fail_stream);
    if (config->results == ZC_RING_RESULTS_COPY)
        ZC_CHECK_GOTO(zc__ring_copy_open(ring), st, fail_copy); /* close undoes a part */

    ring->heartbeat_period_ns = config->watchdog_ns / 8;
    if (ring->heartbeat_period_ns > 50000000ull)
        ring->heartbeat_period_ns = 50000000ull;
    __atomic_store_n(&ring->ctrl->heartbeat, 1, __ATOMIC_RELEASE);
    CPU_ZERO(&ring->creator_cpus);
    pthread_getaffinity_np(pthread_self(), sizeof ring->creator_cpus, &ring->creator_cpus);
    if (pthread_create(&ring->heartbeat_thread, NULL, zc__ring_heartbeat_main, ring) != 0) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_create: cannot start the heartbeat thread");
        goto fail_copy;
    }
    ring->heartbeat_running = 1;
    *ring_p = ring;
    return ZC_OK;

fail_copy:
    zc__ring_copy_close(ring, 0);
    zc__ring_budget_close(ring, 0);
fail_stream:
    ZC_CUDA_IGNORE(cudaStreamDestroy(ring->stream));
fail_arrivals:
    zc__mem_exact_free(ZC_BUFFER_DEVICE, ring->arrivals);
fail_stage:
    free(ring->in_stage);
    free(ring->out_stage);
fail_host:
    zc__mem_exact_free(ZC_BUFFER_MAPPED, host);
fail_record:
    free(ring);
    return st;
}

ZC_EXTERN void zc_ring_destroy(zc_ring *ring)
{
    if (ring == NULL)
        return;
    int leak = 0;
    if (ring->simulated) {
        /* A CPU-test ring: memory and the stand-in GPU belong to the test. */
        free(ring->in_stage);
        free(ring->out_stage);
        free(ring);
        return;
    }
    if (cudaStreamQuery(ring->stream) == cudaErrorNotReady) {
        /* Ask politely; then let the watchdog end it by stopping the heartbeat. Memory the
         * kernel may still read is never freed under it: it is left behind instead. */
        if (zc_ring_stop(ring, 1000000000ull) != ZC_OK) {
            zc__ring_heartbeat_pause(ring, 1);
            leak = zc__ring_stream_settle(ring->stream, ring->config.watchdog_ns + 1000000000ull,
                                          1000000) == cudaErrorNotReady;
        }
    }
    if (ring->heartbeat_running) {
        __atomic_store_n(&ring->heartbeat_quit, 1, __ATOMIC_RELEASE);
        pthread_join(ring->heartbeat_thread, NULL);
    }
    zc__ring_budget_close(ring, leak);
    zc__ring_copy_close(ring, leak);
    if (!leak) {
        ZC_CUDA_IGNORE(cudaStreamDestroy(ring->stream));
        zc__mem_exact_free(ZC_BUFFER_DEVICE, ring->arrivals);
        zc__mem_exact_free(ZC_BUFFER_MAPPED, ring->base);
    }
    free(ring->in_stage);
    free(ring->out_stage);
    free(ring);
}

ZC_EXTERN zc_status zc_ring_device_view(const zc_ring *ring, zc_ring_dev *view_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(view_p);
    *view_p = ring->view;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_ring_stream(const zc_ring *ring, cudaStream_t *stream_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(stream_p);
    *stream_p = ring->stream;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_ring_counters_get(const zc_ring *ring, zc_ring_counters *counters_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(counters_p);
    *counters_p = ring->counters;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_ring_outstanding(const zc_ring *ring, uint64_t *count_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(count_p);
    /* Either position may belong to another thread (producer and result taker). The tail is
     * read first: it never passes the head, so the difference cannot go negative. */
    uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    *count_p = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE) - tail;
    return ZC_OK;
}
