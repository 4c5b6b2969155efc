/* SPDX-License-Identifier: Apache-2.0 */
/* What the streaming engine's tests share: a signal, a run through a stream, the error. */
#include "stream_check.h"

#include <pthread.h>

#include "test_support.h"

float *stream_check_signal(size_t values, size_t halo, uint64_t seed)
{
    float *v = calloc(values + halo + 1, sizeof(float));
    assert_non_null(v);
    uint64_t x = seed | 1;
    for (size_t i = 0; i < values; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[halo + i] = (float)((double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    return v;
}

size_t stream_check_run(zc_stream *s, const float *x, size_t samples, size_t channels,
                        const size_t *pieces, size_t npieces, float *out)
{
    size_t pushed = 0, got_total = 0, p = 0, got = 0;
    while (pushed < samples) {
        size_t n = pieces[p++ % npieces];
        if (n > samples - pushed)
            n = samples - pushed;
        size_t accepted = 0;
        zc_status st = zc_stream_push(s, x + pushed * channels, n, &accepted);
        if (st != ZC_OK)
            fail_msg("push at sample %zu: %s: %s", pushed, zc_status_str(st), zc_last_error());
        assert_int_equal(accepted, n);
        pushed += n;
        while (zc_stream_pull(s, out + got_total * channels, samples - got_total + 1, 0, &got) ==
               ZC_OK)
            got_total += got;
    }
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    for (;;) {
        zc_status st = zc_stream_pull(s, out + got_total * channels, samples - got_total + 1,
                                      2000000000ull, &got);
        if (st == ZC_ERR_NOT_FOUND)
            break;
        if (st != ZC_OK)
            fail_msg("pull at sample %zu: %s: %s", got_total, zc_status_str(st), zc_last_error());
        got_total += got;
    }
    return got_total;
}

double stream_check_error(const float *taps, size_t ntaps, const float *signal, size_t halo,
                          size_t samples, size_t channels, const float *out)
{
    double *ref = malloc(samples * channels * sizeof(double) + 1);
    assert_non_null(ref);
    assert_int_equal(zc_fir_reference(taps, ntaps, channels, signal, signal + halo, samples, ref),
                     ZC_OK);
    double err = zc_fir_error(ref, out, samples * channels, taps, ntaps, 1.0);
    free(ref);
    return err;
}

typedef struct stream_check_consumer {
    zc_stream *s;
    float *out;
    size_t got, cap, pull_max;
    zc_status st;
    char error[512];
} stream_check_consumer;

static void *stream_check_consume(void *arg)
{
    stream_check_consumer *k = arg;
    for (;;) {
        size_t got = 0;
        zc_status st = zc_stream_pull(k->s, k->out + k->got, k->pull_max, 2000000000ull, &got);
        if (st == ZC_ERR_NOT_FOUND)
            break;
        if (st != ZC_OK) {
            k->st = st;
            snprintf(k->error, sizeof k->error, "%s", zc_last_error());
            break;
        }
        k->got += got;
        if (k->got > k->cap)
            break;
    }
    return NULL;
}

size_t stream_check_two_threads(zc_stream *s, const float *x, size_t samples, size_t max_piece,
                                size_t pull_max, float *out)
{
    stream_check_consumer k = {0};
    k.s = s;
    k.out = out;
    k.cap = samples;
    k.pull_max = pull_max;
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, stream_check_consume, &k), 0);
    size_t pushed = 0;
    while (pushed < samples) {
        size_t n = 1 + (pushed * 7919) % max_piece, accepted = 0;
        if (n > samples - pushed)
            n = samples - pushed;
        zc_status st = zc_stream_push(s, x + pushed, n, &accepted);
        if (st != ZC_OK)
            fail_msg("push at sample %zu: %s", pushed, zc_last_error());
        pushed += accepted;
    }
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    pthread_join(thread, NULL);
    if (k.st != ZC_OK)
        fail_msg("pull: %s: %s", zc_status_str(k.st), k.error);
    return k.got;
}

int stream_check_sanitizer_skips(zc_stream_mode mode, zc_ring_protocol protocol)
{
    if (!zc_test_under_sanitizer() || mode != ZC_STREAM_HYBRID)
        return 0;
    fprintf(stderr, "hybrid %s: left out under the sanitizer (stream_check.h says why)\n",
            protocol == ZC_RING_PROTO_FLAG ? "flag" : "ll");
    return 1;
}
