/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for the ring's GPU tests. */
#include "gpu_ring_support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "zerocopy/clock.h"

extern char **environ;

int zc_rt_under_sanitizer(void)
{
    for (char **e = environ; *e != NULL; e++) {
        char lower[256];
        size_t n = 0;
        for (; (*e)[n] != '\0' && n + 1 < sizeof lower; n++)
            lower[n] = (char)tolower((unsigned char)(*e)[n]);
        lower[n] = '\0';
        if (strncmp(lower, "asan_", 5) == 0 || strncmp(lower, "lsan_", 5) == 0 ||
            strncmp(lower, "ubsan_", 6) == 0)
            continue;
        if (strstr(lower, "sanitizer") != NULL)
            return 1;
    }
    return 0;
}

uint64_t zc_rt_frames(uint64_t full)
{
    const char *forced = getenv("ZC_TEST_FRAMES");
    if (forced != NULL && *forced != '\0')
        return strtoull(forced, NULL, 10);
    if (zc_rt_under_sanitizer()) {
        uint64_t n = full / 1000;
        return n < 2000 ? (full < 2000 ? full : 2000) : n;
    }
    return full;
}

void zc_rt_print_state(zc_ring *ring, const char *when)
{
    zc_ring_kernel_state s;
    zc_ring_counters c;
    if (zc_ring_kernel_state_get(ring, &s) != ZC_OK) {
        fprintf(stderr, "%s: kernel state unreadable: %s\n", when, zc_last_error());
        return;
    }
    zc_ring_counters_get(ring, &c);
    fprintf(stderr,
            "%s: kernel started=%d running=%d exit=%s error_code=%u detail=%llu; published=%llu "
            "results=%llu dropped=%llu full_waits=%llu\n",
            when, s.started, s.running, zc_ring_exit_reason_str(s.exit_reason), s.error_code,
            (unsigned long long)s.error_detail, (unsigned long long)c.published,
            (unsigned long long)c.results, (unsigned long long)c.dropped,
            (unsigned long long)c.full_waits);
}

void zc_echo_start(const zc_ring_config *c, uint32_t blocks, uint32_t threads, int interleave,
                   uint64_t delay_ns, zc_echo_run *run)
{
    memset(run, 0, sizeof *run);
    zc_status st = zc_ring_create(c, &run->ring);
    if (st != ZC_OK)
        fail_msg("zc_ring_create: %s: %s", zc_status_str(st), zc_last_error());
    assert_int_equal(cudaMalloc((void **)&run->counts, sizeof *run->counts), cudaSuccess);
    assert_int_equal(cudaMemset(run->counts, 0, sizeof *run->counts), cudaSuccess);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    zc_ring_dev view;
    assert_int_equal(zc_ring_device_view(run->ring, &view), ZC_OK);
    assert_int_equal(zc_ring_stream(run->ring, &run->stream), ZC_OK);
    cudaError_t e =
        zc_echo_launch(&view, blocks, threads, interleave, delay_ns, run->counts, run->stream);
    if (e != cudaSuccess)
        fail_msg("echo launch (%u blocks x %u threads): %s", blocks, threads,
                 cudaGetErrorString(e));
    st = zc_ring_wait_started(run->ring, 5000000000ull);
    if (st != ZC_OK) {
        zc_rt_print_state(run->ring, "echo start");
        fail_msg("zc_ring_wait_started: %s: %s", zc_status_str(st), zc_last_error());
    }
}

void zc_echo_finish(zc_echo_run *run, zc_echo_counts *counts_p)
{
    zc_status st = zc_ring_stop(run->ring, 1000000000ull);
    if (st != ZC_OK) {
        zc_rt_print_state(run->ring, "echo stop");
        fail_msg("zc_ring_stop: %s: %s", zc_status_str(st), zc_last_error());
    }
    zc_ring_kernel_state s;
    assert_int_equal(zc_ring_kernel_state_get(run->ring, &s), ZC_OK);
    assert_int_equal(s.running, 0);
    assert_int_equal(s.exit_reason, ZC_RING_EXIT_STOP);
    assert_int_equal(s.error_code, 0);
    assert_int_equal(cudaMemcpy(counts_p, run->counts, sizeof *counts_p, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    zc_ring_destroy(run->ring);
    assert_int_equal(cudaFree(run->counts), cudaSuccess);
    run->ring = NULL;
}

double zc_echo_traffic(zc_ring *ring, uint64_t frames, uint32_t window)
{
    zc_ring_dev view;
    assert_int_equal(zc_ring_device_view(ring, &view), ZC_OK);
    const size_t words = view.in_bytes / 4;
    uint32_t frame[1024], out[1024];
    assert_true(words <= 1024);
    uint64_t next = 0, start = zc_clock_ns();
    for (uint64_t seq = 0; seq < frames || next < frames;) {
        uint64_t outstanding = seq - next;
        if (seq < frames && outstanding < window) {
            zc_fake_fill(frame, words, seq, (uint32_t)seq);
            uint64_t got = 0;
            zc_status st = zc_ring_push(ring, frame, words * 4, 2000000000ull, &got);
            if (st != ZC_OK) {
                zc_rt_print_state(ring, "push");
                fail_msg("push of frame %llu: %s: %s", (unsigned long long)seq, zc_status_str(st),
                         zc_last_error());
            }
            assert_int_equal(got, seq);
            seq++;
            continue;
        }
        uint64_t rseq = 0;
        zc_status st = zc_ring_pop(ring, out, words * 4, 2000000000ull, &rseq);
        if (st != ZC_OK) {
            zc_rt_print_state(ring, "pop");
            fail_msg("result %llu: %s: %s", (unsigned long long)next, zc_status_str(st),
                     zc_last_error());
        }
        assert_int_equal(rseq, next);
        size_t bad = zc_fake_check(out, words, rseq, (uint32_t)rseq);
        if (bad) {
            uint32_t want[1024];
            zc_fake_fill(want, words, rseq, (uint32_t)rseq);
            fail_msg("result %llu word %zu: got 0x%08x, expected 0x%08x", (unsigned long long)rseq,
                     bad - 1, out[bad - 1], want[bad - 1] ^ ZC_FAKE_MASK);
        }
        next++;
    }
    return (double)(zc_clock_ns() - start) / 1e9;
}
