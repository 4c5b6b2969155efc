/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: raw samples in any format (zc stream's source), pushed through the streaming
 * engine in cpu mode in pieces whose sizes come from the input: every sample in must come back
 * out, in order, and a NaN or infinite sample must be named by its true index, whatever the
 * pieces that came before it. */
#include "fuzz_support.h"

#include <math.h>

#include "stream_cli.h"

/* Piece sizes: up to 16 of them, 1..256 samples each, cycled. */
typedef struct zc__pieces {
    size_t size[16];
    size_t count, next;
} zc__pieces;

static size_t zc__piece(zc__pieces *p)
{
    return p->size[p->next++ % p->count];
}

/* Every sample of the source, decoded, into a growing buffer; *samples_p how many. A source
 * that fails (a truncated last sample, for one) gives the samples before the failure. */
static float *zc__read_all(zc_cli_stream_source *src, size_t channels, zc__pieces *p,
                           size_t *samples_p)
{
    size_t cap = 256, n = 0;
    float *all = malloc(cap * channels * sizeof(float));
    while (all != NULL) {
        size_t want = zc__piece(p), got = 0;
        if (n + want > cap) {
            float *grown = realloc(all, 2 * (n + want) * channels * sizeof(float));
            if (grown == NULL)
                break;
            all = grown;
            cap = 2 * (n + want);
        }
        /* Its end, or a failure: the samples before it are checked either way. */
        if (zc_cli_stream_source_read(src, all + n * channels, want, &got) != ZC_OK)
            break;
        n += got;
    }
    *samples_p = n;
    return all;
}

/* The first sample holding a NaN or infinite value (samples when none); *channel_p its
 * channel, *count_p how many such values there are. */
static size_t zc__first_bad(const float *x, size_t samples, size_t channels, size_t *channel_p,
                            uint64_t *count_p)
{
    size_t first = samples;
    *count_p = 0;
    for (size_t i = 0; i < samples * channels; i++) {
        if (isfinite(x[i]))
            continue;
        if (first == samples) {
            first = i / channels;
            *channel_p = i % channels;
        }
        (*count_p)++;
    }
    return first;
}

static zc_stream *zc__create(const zc_cli_stream_opts *o, const float *taps, int zero_bad)
{
    zc_stream_config c;
    zc_stream_config_init(&c);
    c.mode = ZC_STREAM_CPU;
    c.taps = taps;
    c.ntaps = o->ntaps;
    c.frame_samples = o->frame_samples;
    c.channels = o->channels;
    c.nonfinite = zero_bad ? ZC_STREAM_NONFINITE_ZERO : ZC_STREAM_NONFINITE_REJECT;
    c.discard_output = 1;
    zc_stream *s = NULL;
    return zc_stream_create(&c, &s) == ZC_OK ? s : NULL;
}

/* Push x in pieces until one fails; gives the samples taken, the failure in *st_p. */
static size_t zc__push_pieces(zc_stream *s, const float *x, size_t samples, size_t channels,
                              zc__pieces *p, zc_status *st_p)
{
    size_t pushed = 0;
    p->next = 0;
    *st_p = ZC_OK;
    while (pushed < samples && *st_p == ZC_OK) {
        size_t n = zc__piece(p), accepted = 0;
        if (n > samples - pushed)
            n = samples - pushed;
        *st_p = zc_stream_push(s, x + pushed * channels, n, &accepted);
        if (*st_p == ZC_OK && accepted != n)
            abort(); /* a push that succeeds takes everything */
        pushed += accepted;
    }
    return pushed;
}

/* Flush, take every result, and check that every sample pushed came out. */
static void zc__finish(zc_stream *s, uint64_t in)
{
    if (zc_stream_flush(s) != ZC_OK)
        abort();
    size_t out = 0;
    while (zc_stream_pull(s, NULL, 0, 0, &out) == ZC_OK)
        ;
    zc_stream_stats stats;
    zc_stream_stats_get(s, &stats);
    if (!stats.finished || stats.samples_in != in || stats.samples_out != in)
        abort(); /* a sample lost or made up */
}

/* Refused: the push that meets the first bad sample stops right before it and names it. */
static void zc__check_reject(zc_stream *s, const zc_cli_stream_opts *o, const float *x,
                             size_t samples, zc__pieces *p, size_t bad, size_t bad_channel)
{
    zc_status st;
    size_t taken = zc__push_pieces(s, x, samples, o->channels, p, &st);
    if (bad == samples) {
        if (st != ZC_OK || taken != samples)
            abort();
        zc__finish(s, samples);
        return;
    }
    if (st != ZC_ERR_PARSE || taken != bad)
        abort();
    char want[128];
    snprintf(want, sizeof want, "sample %zu (frame %zu, channel %zu) is ", bad,
             bad / o->frame_samples, bad_channel);
    if (strstr(zc_last_error(), want) == NULL)
        abort(); /* the wrong place named */
}

/* Filtered as zeros: counted, the first one named, every sample out. */
static void zc__check_zero(zc_stream *s, const zc_cli_stream_opts *o, const float *x,
                           size_t samples, zc__pieces *p, size_t bad, uint64_t bad_values)
{
    zc_status st;
    if (zc__push_pieces(s, x, samples, o->channels, p, &st) != samples || st != ZC_OK)
        abort();
    zc__finish(s, samples);
    zc_stream_stats stats;
    zc_stream_stats_get(s, &stats);
    if (stats.nonfinite != bad_values || (bad_values > 0 && stats.first_nonfinite != bad))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    static const char *const formats[] = {"f32", "s16", "u8", "cf32", "cs16", "cu8"};
    static zc_cli_stream_opts o;
    memset(&o, 0, sizeof o);
    (void)zc_cli_format_parse(formats[data[0] % 6], &o.format);
    o.channels = o.format.complex ? 2 : 1;
    o.frame_samples = 4u * (1u + data[1] % 64u); /* 4..256, a multiple of 4 values */
    o.ntaps = 1 + data[2] % 16;
    o.timeout_ns = 1000000000ull;
    zc__pieces p = {.count = 1u + data[3] % 16u};
    data += 4;
    size -= 4;
    for (size_t i = 0; i < p.count; i++)
        p.size[i] = 1u + (i < size ? data[i] : 0u);
    data += p.count < size ? p.count : size;
    size -= p.count < size ? p.count : size;
    char path[64];
    int fd = zc_fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    o.source = path;
    zc_cli_stream_source *src = NULL;
    if (zc_cli_stream_source_open(&o, &src) != ZC_OK) {
        close(fd);
        return 0;
    }
    size_t samples = 0, bad_channel = 0;
    uint64_t bad_values = 0;
    float *x = zc__read_all(src, o.channels, &p, &samples);
    zc_cli_stream_source_close(src);
    close(fd);
    if (x == NULL)
        return 0;
    const size_t bad = zc__first_bad(x, samples, o.channels, &bad_channel, &bad_values);
    float taps[16];
    for (size_t k = 0; k < o.ntaps; k++)
        taps[k] = 1.0f / (float)o.ntaps;
    zc_stream *s = zc__create(&o, taps, 0);
    if (s != NULL) { /* NULL: frames shorter than the history */
        zc__check_reject(s, &o, x, samples, &p, bad, bad_channel);
        zc_stream_destroy(s);
        s = zc__create(&o, taps, 1);
        if (s != NULL)
            zc__check_zero(s, &o, x, samples, &p, bad, bad_values);
        zc_stream_destroy(s);
    }
    free(x);
    return 0;
}
