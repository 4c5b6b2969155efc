/* zc stream --devices: frames spread round-robin over several GPUs, one filter (ring and
 * persistent kernel, or the mode's path) per GPU, results taken back in the order of the
 * stream; latency and throughput per GPU and in total, every result checked or a sample. */
#include <errno.h>
#include <limits.h>
#include <math.h> /* INFINITY only: the tool does not link libm */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "cli_json.h"
#include "stream_cli.h"

#define ZC__MULTI_SCHEMA        "zerocopy.stream-multi/1"
#define ZC__MULTI_VERIFY_BUDGET 1.5e9 /* reference multiply-adds per run, sampled checks */
#define ZC__MULTI_DEFER_BYTES   ((double)(64u << 20))

/* One GPU's filter and what was measured on it. */
typedef struct zc__mgpu {
    int device;
    char name[256];
    zc_filter *f;
    uint32_t buffers, blocks;
    uint64_t published, received; /* its own frame numbers: the filter's seq */
    float *replay;                /* --reuse: the body last written into each buffer */
    double *lat;
    size_t lat_count, lat_cap;
    zc_stats stats;
} zc__mgpu;

typedef struct zc__mrun {
    const zc_stream_opts *o;
    size_t n;
    zc__mgpu g[ZC_DEVICE_LIST_MAX];
    size_t words;  /* values of a frame's body: frame_samples x channels */
    size_t lead;   /* values of the previous frame put before each body (>= halo) */
    size_t halo;   /* values of history the filter needs: (ntaps - 1) x channels */
    uint32_t ring; /* slots of the per-frame records: n x (in_flight + 1) */
    uint64_t next_pub, next_take;
    uint64_t *t_pub;
    unsigned char *measured, *check;
    size_t *rec_of;     /* check 2: the deferred record of a slot */
    float *vin, *vhist; /* check 1: input body and history by slot */
    float *deferred;    /* per record: body, history, result body */
    size_t deferred_count, deferred_cap;
    double *ref;
    double *lat;
    size_t lat_count, lat_cap;
    uint64_t last_ns;
    double max_err;
    uint64_t verified;
    double seconds;   /* from the first measured publication to the last result */
    int order_broken; /* a result came from the wrong frame */
    int current;      /* the device made current last, -1 before the first */
    FILE *out;
    zc_status status;
    char error[512];
} zc__mrun;

static zc_status zc__mfail(zc__mrun *m, zc_status st, const char *what)
{
    m->status = st;
    snprintf(m->error, sizeof m->error, "%s: %s: %s", what, zc_status_str(st), zc_last_error());
    return st;
}

/*
 * Make g's GPU current before any call on its filter: the launch modes launch kernels and queue
 * copies on that GPU's stream, which the runtime takes only with that GPU current.
 */
static zc_status zc__mon(zc__mrun *m, const zc__mgpu *g)
{
    if (m->current == g->device)
        return ZC_OK;
    cudaError_t e = cudaSetDevice(g->device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        m->status = ZC_ERR_CUDA;
        snprintf(m->error, sizeof m->error, "cudaSetDevice(%d): %s", g->device,
                 cudaGetErrorName(e));
        return ZC_ERR_CUDA;
    }
    m->current = g->device;
    return ZC_OK;
}

static double zc__mabs(double x)
{
    return x < 0 ? -x : x;
}

static int zc__mpush(double **v, size_t *count, size_t *cap, double x)
{
    if (*count == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 65536;
        double *grown = realloc(*v, grown_cap * sizeof *grown);
        if (grown == NULL)
            return 0;
        *v = grown;
        *cap = grown_cap;
    }
    (*v)[(*count)++] = x;
    return 1;
}

/* Check one result body against the reference FIR of its input and history. */
static void zc__mverify(zc__mrun *m, const float *in, const float *hist, const float *res)
{
    const zc_stream_opts *o = m->o;
    zc_fir_reference(o->taps, o->ntaps, o->channels, hist, in, o->frame_samples, m->ref);
    double peak = 0.0;
    for (size_t i = 0; i < m->words; i++)
        peak = zc__mabs(in[i]) > peak ? zc__mabs(in[i]) : peak;
    for (size_t i = 0; i < m->halo; i++)
        peak = zc__mabs(hist[i]) > peak ? zc__mabs(hist[i]) : peak;
    double err = zc_fir_error(m->ref, res, m->words, o->taps, o->ntaps, peak);
    if (!(err <= m->max_err))
        m->max_err = err != err ? INFINITY : err;
    m->verified++;
}

static float *zc__mrecord(zc__mrun *m, size_t k)
{
    return m->deferred + k * (2 * m->words + m->halo);
}

/* Take the stream's next result, from the GPU that has it; as a poll or blocking. A result
 * from the wrong frame (lost, repeated or out of order) ends the run. */
static zc_status zc__mtake(zc__mrun *m, int blocking)
{
    uint64_t k = m->next_take;
    zc__mgpu *g = &m->g[k % m->n];
    const float *res = NULL;
    uint64_t seq = 0;
    zc_status st = zc__mon(m, g);
    if (st != ZC_OK)
        return st;
    st = zc_filter_result_wait(g->f, blocking ? m->o->timeout_ns : 0, &res, &seq);
    if (st == ZC_ERR_TIMEOUT && !blocking)
        return st;
    if (st != ZC_OK)
        return zc__mfail(m, st, "waiting for a result");
    uint64_t now = zc_clock_ns();
    m->last_ns = now;
    if (seq != k / m->n) {
        m->order_broken = 1;
        m->status = ZC_ERR_STATE;
        snprintf(m->error, sizeof m->error,
                 "GPU %d returned its frame %llu where the stream's frame %llu (its frame %llu) "
                 "was due: lost, repeated or out of order",
                 g->device, (unsigned long long)seq, (unsigned long long)k,
                 (unsigned long long)(k / m->n));
        return ZC_ERR_STATE;
    }
    uint32_t slot = (uint32_t)(k % m->ring);
    const float *body = res + m->lead;
    if (m->measured[slot]) {
        double us = (double)(now - m->t_pub[slot]) / 1e3;
        if (!zc__mpush(&g->lat, &g->lat_count, &g->lat_cap, us) ||
            !zc__mpush(&m->lat, &m->lat_count, &m->lat_cap, us))
            return zc__mfail(m, ZC_ERR_NO_MEMORY, "recording latencies");
    }
    if (m->check[slot] == 1)
        zc__mverify(m, m->vin + (size_t)slot * m->words, m->vhist + (size_t)slot * m->halo, body);
    else if (m->check[slot] == 2)
        memcpy(zc__mrecord(m, m->rec_of[slot]) + m->words + m->halo, body,
               m->words * sizeof(float));
    if (m->out != NULL && fwrite(body, sizeof(float), m->words, m->out) != m->words)
        return zc__mfail(m, ZC_ERR_IO, "writing the output");
    st = zc_filter_result_release(g->f);
    if (st != ZC_OK)
        return zc__mfail(m, st, "releasing a result");
    g->received++;
    m->next_take++;
    return ZC_OK;
}

/*
 * The loop. Each GPU's filter keeps its own history, which round-robin makes the history of
 * another part of the stream; so every frame goes out with the end of the stream's previous
 * frame in front of it (lead values, at least the filter's history), and only the body's
 * results are kept: they are exactly the one-GPU filter's.
 */
static zc_status zc__mloop(zc__mrun *m, zc_stream_source *src, float *frame, float *tail)
{
    const zc_stream_opts *o = m->o;
    const uint64_t total = o->frames ? o->warmup + o->frames : UINT64_MAX;
    const double planned = o->frames ? (double)o->frames : 100000.0;
    const double per_frame = (double)m->words * (double)o->ntaps;
    const uint64_t inline_budget =
        per_frame > 0 ? (uint64_t)(ZC__MULTI_VERIFY_BUDGET / per_frame) + 3 : UINT64_MAX;
    double defer = planned;
    if (defer * 2 * (double)m->words * sizeof(float) > ZC__MULTI_DEFER_BYTES)
        defer = ZC__MULTI_DEFER_BYTES / (2 * (double)m->words * sizeof(float));
    if (defer * per_frame > ZC__MULTI_VERIFY_BUDGET)
        defer = ZC__MULTI_VERIFY_BUDGET / per_frame;
    if (defer < 2)
        defer = 2;
    const uint64_t dstep = (uint64_t)(planned / defer) + 1;
    if (o->verify == 1) {
        m->deferred_cap = (size_t)defer + 1;
        m->deferred = malloc(m->deferred_cap * (2 * m->words + m->halo) * sizeof(float));
        if (m->deferred == NULL)
            return zc__mfail(m, ZC_ERR_NO_MEMORY, "allocating deferred checks");
    }
    uint64_t measure_start = zc_clock_ns();
    zc_status st = ZC_OK;
    for (uint64_t idx = 0; idx < total; idx++) {
        const int measuring = idx >= o->warmup;
        if (idx == o->warmup)
            measure_start = zc_clock_ns();
        if (!o->frames && measuring &&
            (double)(zc_clock_ns() - measure_start) / 1e9 >= o->duration_s)
            break;
        zc__mgpu *g = &m->g[idx % m->n];
        const int fill = !o->reuse || g->published < g->buffers;
        if (fill) {
            st = zc_stream_source_next(src, frame);
            if (st == ZC_ERR_NOT_FOUND)
                break;
            if (st != ZC_OK)
                return zc__mfail(m, st, "reading the source");
        }
        /* Room on this GPU: take the stream's results in order until it has some. */
        while (g->published - g->received >= o->in_flight)
            if ((st = zc__mtake(m, 1)) != ZC_OK)
                return st;
        uint64_t t0 = zc_clock_ns(), seq = 0;
        float *buf = NULL;
        if ((st = zc__mon(m, g)) != ZC_OK)
            return st;
        if ((st = zc_filter_acquire(g->f, &buf)) != ZC_OK)
            return zc__mfail(m, st, "acquiring a frame buffer");
        const float *input = frame;
        if (o->reuse) {
            float *kept = g->replay + (size_t)(g->published % g->buffers) * m->words;
            if (fill) {
                memcpy(buf + m->lead, frame, m->words * sizeof(float));
                memcpy(kept, frame, m->words * sizeof(float));
            }
            input = kept;
        } else {
            memcpy(buf + m->lead, frame, m->words * sizeof(float));
        }
        memcpy(buf, tail, m->lead * sizeof(float));
        if ((st = zc_filter_publish(g->f, &seq)) != ZC_OK)
            return zc__mfail(m, st, "publishing a frame");
        if (seq != g->published) {
            m->order_broken = 1;
            m->status = ZC_ERR_STATE;
            snprintf(m->error, sizeof m->error, "GPU %d numbered its frame %llu, expected %llu",
                     g->device, (unsigned long long)seq, (unsigned long long)g->published);
            return ZC_ERR_STATE;
        }
        g->published++;
        m->next_pub = idx + 1;
        uint32_t slot = (uint32_t)(idx % m->ring);
        m->t_pub[slot] = t0;
        m->measured[slot] = (unsigned char)measuring;
        unsigned char check = 0;
        if (o->verify == 2 || (o->verify == 1 && !measuring && idx < inline_budget))
            check = 1;
        else if (o->verify == 1 && measuring && (idx - o->warmup) % dstep == 0 &&
                 m->deferred_count < m->deferred_cap)
            check = 2;
        m->check[slot] = check;
        const float *hist = tail + (m->lead - m->halo);
        if (check == 1) {
            memcpy(m->vin + (size_t)slot * m->words, input, m->words * sizeof(float));
            memcpy(m->vhist + (size_t)slot * m->halo, hist, m->halo * sizeof(float));
        } else if (check == 2) {
            float *rec = zc__mrecord(m, m->deferred_count);
            memcpy(rec, input, m->words * sizeof(float));
            memcpy(rec + m->words, hist, m->halo * sizeof(float));
            m->rec_of[slot] = m->deferred_count++;
        }
        memcpy(tail, input + m->words - m->lead, m->lead * sizeof(float));
        /* Take whatever is ready, in order, without waiting. */
        while (m->next_take < m->next_pub && (st = zc__mtake(m, 0)) == ZC_OK)
            ;
        if (st != ZC_OK && st != ZC_ERR_TIMEOUT)
            return st;
        st = ZC_OK;
    }
    while (m->next_take < m->next_pub)
        if ((st = zc__mtake(m, 1)) != ZC_OK)
            return st;
    for (size_t k = 0; k < m->deferred_count; k++) {
        const float *rec = zc__mrecord(m, k);
        zc__mverify(m, rec, rec + m->words, rec + m->words + m->halo);
    }
    m->seconds = (double)(m->last_ns - measure_start) / 1e9;
    if (!(m->seconds > 0) || m->lat_count == 0)
        return zc__mfail(m, ZC_ERR_STATE, "measuring (no measured frame)");
    return ZC_OK;
}

static cJSON *zc__mstats_json(const zc_stats *s, size_t count)
{
    if (count == 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    cJSON_AddNumberToObject(o, "median", s->median);
    cJSON_AddNumberToObject(o, "p90", s->p90);
    cJSON_AddNumberToObject(o, "p99", s->p99);
    cJSON_AddNumberToObject(o, "p999", s->p999);
    cJSON_AddNumberToObject(o, "min", s->min);
    cJSON_AddNumberToObject(o, "max", s->max);
    cJSON_AddNumberToObject(o, "mean", s->mean);
    return o;
}

static void zc__mrate(cJSON *o, double frames, double seconds, size_t words)
{
    double fps = seconds > 0 ? frames / seconds : 0.0;
    cJSON_AddNumberToObject(o, "frames", frames);
    cJSON_AddNumberToObject(o, "frames_per_s", fps);
    cJSON_AddNumberToObject(o, "gb_per_s", fps * (double)words * sizeof(float) / 1e9);
}

static cJSON *zc__mjson(const zc__mrun *m, const char *mode_name, const zc_stream_host *host,
                        const zc_stats *total, double seconds)
{
    const zc_stream_opts *o = m->o;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", ZC__MULTI_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddStringToObject(doc, "mode", mode_name);
    cJSON *devs = cJSON_AddArrayToObject(doc, "devices");
    for (size_t i = 0; i < m->n; i++)
        cJSON_AddItemToArray(devs, cJSON_CreateNumber(m->g[i].device));
    cJSON_AddNumberToObject(doc, "frame_samples", (double)o->frame_samples);
    cJSON_AddNumberToObject(doc, "channels", (double)o->channels);
    cJSON_AddNumberToObject(doc, "frame_bytes", (double)(m->words * sizeof(float)));
    cJSON_AddNumberToObject(doc, "lead_values", (double)m->lead);
    cJSON_AddNumberToObject(doc, "taps", (double)o->ntaps);
    cJSON_AddNumberToObject(doc, "in_flight_per_gpu", o->in_flight);
    cJSON_AddBoolToObject(doc, "reuse", o->reuse);
    cJSON_AddNumberToObject(doc, "host_cpu", host->cpu);
    cJSON_AddStringToObject(doc, "status", zc_status_name(m->status));
    cJSON_AddStringToObject(doc, "error", m->error);
    cJSON_AddNumberToObject(doc, "seconds", seconds);
    cJSON *t = cJSON_AddObjectToObject(doc, "total");
    zc__mrate(t, (double)m->lat_count, seconds, m->words);
    cJSON_AddItemToObject(t, "latency_us", zc__mstats_json(total, m->lat_count));
    cJSON *per = cJSON_AddArrayToObject(doc, "per_gpu");
    for (size_t i = 0; i < m->n; i++) {
        const zc__mgpu *g = &m->g[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "device", g->device);
        cJSON_AddStringToObject(e, "name", g->name);
        cJSON_AddNumberToObject(e, "gpu_blocks", g->blocks);
        cJSON_AddNumberToObject(e, "buffers", g->buffers);
        zc__mrate(e, (double)g->lat_count, seconds, m->words);
        cJSON_AddItemToObject(e, "latency_us", zc__mstats_json(&g->stats, g->lat_count));
        cJSON_AddItemToArray(per, e);
    }
    cJSON *v = cJSON_AddObjectToObject(doc, "verification");
    cJSON_AddStringToObject(v, "checked", o->verify == 2 ? "all" : o->verify ? "sample" : "none");
    cJSON_AddNumberToObject(v, "frames_checked", (double)m->verified);
    if (m->verified)
        cJSON_AddNumberToObject(v, "max_rel_error", m->max_err);
    else
        cJSON_AddNullToObject(v, "max_rel_error");
    cJSON_AddBoolToObject(v, "in_order", !m->order_broken);
    return doc;
}

/* Which single mode and protocol the options ask for (checked by the parser). */
static void zc__mmode(const zc_stream_opts *o, zc_stream_mode *mode_p, zc_ring_protocol *proto_p)
{
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++)
        if (o->modes[i])
            *mode_p = (zc_stream_mode)i;
    *proto_p = o->protocols == 2 ? ZC_RING_PROTO_FLAG : ZC_RING_PROTO_LL;
}

static void zc__mfree(zc__mrun *m)
{
    for (size_t i = m->n; i-- > 0;) {
        if (m->g[i].f != NULL && cudaSetDevice(m->g[i].device) != cudaSuccess)
            (void)cudaGetLastError();
        zc_filter_destroy(m->g[i].f);
        free(m->g[i].replay);
        free(m->g[i].lat);
    }
    free(m->t_pub);
    free(m->measured);
    free(m->check);
    free(m->rec_of);
    free(m->vin);
    free(m->vhist);
    free(m->deferred);
    free(m->ref);
    free(m->lat);
}

int zc_stream_multi(const zc_stream_opts *o, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int count = 0;
    zc_status st = zc_device_count(&count);
    if (st != ZC_OK)
        return zc_cli_fail("stream", "no GPU to stream to", st);
    static zc__mrun m; /* large; one per process */
    memset(&m, 0, sizeof m);
    m.o = o;
    m.current = -1; /* zc_filter_create makes each GPU current in turn */
    int devices[ZC_DEVICE_LIST_MAX];
    if (zc_device_list_parse(o->devices_text, count, devices, ZC_DEVICE_LIST_MAX, &m.n) != ZC_OK) {
        fprintf(stderr, "zc stream: --devices: %s\n", zc_last_error());
        return ZC_EXIT_USAGE;
    }
    zc_stream_mode mode = ZC_STREAM_ZEROCOPY;
    zc_ring_protocol proto = ZC_RING_PROTO_LL;
    zc__mmode(o, &mode, &proto);
    m.words = o->frame_samples * o->channels;
    m.halo = (o->ntaps - 1) * o->channels;
    /* The lead is the history rounded up to whole 16-byte groups, so that every frame the
     * filters see stays a multiple of 4 values. */
    m.lead = (m.halo + 3) & ~(size_t)3;
    if (m.lead > m.words) {
        fprintf(stderr,
                "zc stream: --devices needs frames of at least %zu values (the filter's history "
                "rounded up to 4), not %zu\n",
                m.lead, m.words);
        return ZC_EXIT_USAGE;
    }
    m.ring = (uint32_t)m.n * (o->in_flight + 1);
    m.t_pub = calloc(m.ring, sizeof *m.t_pub);
    m.measured = calloc(m.ring, 1);
    m.check = calloc(m.ring, 1);
    m.rec_of = calloc(m.ring, sizeof *m.rec_of);
    /* Inline checks (every frame with --verify all; warm-up frames when sampling). */
    m.vin = o->verify ? malloc((size_t)m.ring * m.words * sizeof(float)) : NULL;
    m.vhist = malloc(((size_t)m.ring * m.halo + 1) * sizeof(float));
    m.ref = malloc(m.words * sizeof(double));
    float *frame = malloc(m.words * sizeof(float));
    float *tail = calloc(m.lead + 1, sizeof(float));
    int exit_code = ZC_EXIT_OK;
    zc_stream_source *src = NULL;
    if (m.t_pub == NULL || m.measured == NULL || m.check == NULL || m.rec_of == NULL ||
        m.vhist == NULL || m.ref == NULL || frame == NULL || tail == NULL ||
        (o->verify && m.vin == NULL)) {
        exit_code = zc_cli_fail("stream", "allocating the run's buffers", ZC_ERR_NO_MEMORY);
        goto out;
    }
    zc_filter_config fc;
    zc_filter_config_init(&fc);
    fc.mode = mode;
    fc.frame_samples = o->frame_samples + m.lead / o->channels;
    fc.channels = o->channels;
    fc.taps = o->taps;
    fc.ntaps = o->ntaps;
    fc.in_flight = o->in_flight;
    fc.protocol = proto;
    fc.policy = ZC_RING_FULL_WAIT; /* a dropped frame would break the stream's order */
    fc.gpu_blocks = o->gpu_blocks;
    fc.timeout_ns = o->timeout_ns;
    for (size_t i = 0; i < m.n; i++) {
        zc__mgpu *g = &m.g[i];
        g->device = devices[i];
        zc_device_info info;
        if ((st = zc_device_info_get(g->device, &info)) != ZC_OK) {
            exit_code = zc_cli_fail("stream", "reading the GPU", st);
            goto out;
        }
        snprintf(g->name, sizeof g->name, "%s", info.name);
        fc.device = g->device;
        if ((st = zc_filter_create(&fc, &g->f)) != ZC_OK) {
            fprintf(stderr, "zc stream: setting up GPU %d: %s\n", g->device, zc_last_error());
            exit_code = zc_cli_exit_code(st);
            goto out;
        }
        zc_filter_buffers(g->f, &g->buffers);
        zc_filter_gpu_blocks(g->f, &g->blocks);
        if (o->reuse &&
            (g->replay = malloc((size_t)g->buffers * m.words * sizeof(float))) == NULL) {
            exit_code = zc_cli_fail("stream", "allocating replay frames", ZC_ERR_NO_MEMORY);
            goto out;
        }
    }
    if ((st = zc_stream_source_open(o, 0, &src)) != ZC_OK) {
        exit_code = zc_cli_exit_code(st);
        goto out;
    }
    if (o->output != NULL) {
        m.out = strcmp(o->output, "-") == 0 ? stdout : fopen(o->output, "wb");
        if (m.out == NULL) {
            fprintf(stderr, "zc stream: cannot write %s: %s\n", o->output, strerror(errno));
            exit_code = ZC_EXIT_FAILURE;
            goto out;
        }
    }
    FILE *text = (m.out == stdout || (o->json && strcmp(o->json, "-") == 0)) ? stderr : stdout;
    zc_device_info first;
    if ((st = zc_device_info_get(devices[0], &first)) != ZC_OK) {
        exit_code = zc_cli_fail("stream", "reading the GPU", st);
        goto out;
    }
    zc_stream_host host;
    zc_stream_host_pin(o, &first, &host);
    zc_stream_host_sample(&host);
    const char *mode_name = mode == ZC_STREAM_ZEROCOPY
                                ? (proto == ZC_RING_PROTO_FLAG ? "zerocopy-flag" : "zerocopy-ll")
                                : zc_stream_mode_name(mode);
    fprintf(text,
            "zc stream: %s over %zu GPUs, frames round-robin, results in order; host thread on "
            "core %d (%s); %zu samples x %zu channel%s per frame (%zu bytes, each sent with %zu "
            "values of the previous frame in front), %zu taps, %u in flight per GPU\n",
            mode_name, m.n, host.cpu, host.why, o->frame_samples, o->channels,
            o->channels == 1 ? "" : "s", m.words * sizeof(float), m.lead, o->ntaps, o->in_flight);
    fflush(text);

    zc__mloop(&m, src, frame, tail); /* its status is m.status */
    zc_stats total;
    memset(&total, 0, sizeof total);
    if (m.lat_count > 0)
        (void)zc_stats_compute(m.lat, m.lat_count, &total);
    for (size_t i = 0; i < m.n; i++)
        if (m.g[i].lat_count > 0)
            (void)zc_stats_compute(m.g[i].lat, m.g[i].lat_count, &m.g[i].stats);
    if (m.status == ZC_OK && o->verify && !(m.max_err <= ZC_STREAM_TOLERANCE)) {
        m.status = ZC_ERR_VERIFY;
        snprintf(m.error, sizeof m.error,
                 "results differ from the reference: relative error %.3g > %g", m.max_err,
                 ZC_STREAM_TOLERANCE);
    }
    if (m.status != ZC_OK) {
        fprintf(stderr, "zc stream: %s\n", m.error);
        exit_code = zc_cli_exit_code(m.status);
    }
    const double span = m.seconds;
    const double frame_gb = (double)(m.words * sizeof(float)) / 1e9;
    fprintf(text, "%-10s %7s %8s %8s %8s %8s %10s %9s\n", "GPU", "blocks", "p50 us", "p99 us",
            "p99.9 us", "max us", "frames/s", "GB/s");
    for (size_t i = 0; i < m.n; i++) {
        const zc__mgpu *g = &m.g[i];
        double fps = span > 0 ? (double)g->lat_count / span : 0.0;
        fprintf(text, "%-10d %7u %8.2f %8.2f %8.2f %8.1f %10.0f %9.3f\n", g->device, g->blocks,
                g->stats.median, g->stats.p99, g->stats.p999, g->stats.max, fps, fps * frame_gb);
    }
    double fps = span > 0 ? (double)m.lat_count / span : 0.0;
    fprintf(text, "%-10s %7s %8.2f %8.2f %8.2f %8.1f %10.0f %9.3f\n", "total", "", total.median,
            total.p99, total.p999, total.max, fps, fps * frame_gb);
    if (m.status == ZC_OK)
        fprintf(text,
                "%zu frames measured over %.3f s, every result in the stream's order, none lost; "
                "%llu checked against the reference, largest relative error %.2e\n",
                m.lat_count, span, (unsigned long long)m.verified, m.max_err);
    if (o->json != NULL) {
        int rc =
            zc_cli_write_json("stream", zc__mjson(&m, mode_name, &host, &total, span), o->json);
        if (rc != ZC_EXIT_OK && exit_code == ZC_EXIT_OK)
            exit_code = rc;
    }
out:
    if (m.out != NULL && (m.out == stdout ? fflush(m.out) : fclose(m.out)) != 0 &&
        exit_code == ZC_EXIT_OK) {
        fprintf(stderr, "zc stream: writing %s: %s\n", o->output, strerror(errno));
        exit_code = zc_cli_exit_code(ZC_ERR_IO);
    }
    zc_stream_source_close(src);
    zc__mfree(&m);
    free(frame);
    free(tail);
    return exit_code;
}
