/* SPDX-License-Identifier: Apache-2.0 */
/* Persistent-kernel control on a GPU: stop within 1 ms, the watchdog, a kernel that never
 * started or died, and a host killed mid-stream leaving no kernel behind. */
#include "test_support.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_ring_support.h"
#include "zerocopy/clock.h"

extern char **environ;

static zc_ring_config small_config(void)
{
    zc_ring_config c;
    zc_ring_config_init(&c);
    c.slots = 4;
    c.in_bytes = c.out_bytes = 64;
    return c;
}

static void test_stop_within_one_millisecond(void **state)
{
    (void)state;
    const zc_ring_protocol protocols[2] = {ZC_RING_PROTO_LL, ZC_RING_PROTO_FLAG};
    double worst_us = 0.0;
    for (int round = 0; round < 6; round++) {
        zc_ring_config c = small_config();
        c.protocol = protocols[round % 2];
        c.consumers = 2; /* one per block of the kernel */
        zc_echo_run r;
        zc_echo_start(&c, 2, 32, 0, 0, &r);
        zc_echo_traffic(r.ring, 1000, 3);
        /* Idle now: the kernel polls for frame 1000, as a real-time kernel between frames. */
        struct timespec idle = {0, 5000000};
        nanosleep(&idle, NULL);
        uint64_t t0 = zc_clock_ns();
        zc_status st = zc_ring_stop(r.ring, 1000000000ull);
        double us = (double)(zc_clock_ns() - t0) / 1e3;
        if (st != ZC_OK) {
            zc_rt_print_state(r.ring, "stop");
            fail_msg("stop (round %d): %s: %s", round, zc_status_str(st), zc_last_error());
        }
        fprintf(stderr, "stop round %d (%s): kernel ended %.1f us after the request\n", round,
                c.protocol == ZC_RING_PROTO_LL ? "LL" : "FLAG", us);
        if (us > worst_us)
            worst_us = us;
        zc_echo_counts k;
        zc_echo_finish(&r, &k);
        assert_int_equal(k.bad_seq + k.torn, 0);
    }
    fprintf(stderr, "stop: worst %.1f us (target 1000 us)\n", worst_us);
    if (!zc_rt_under_sanitizer())
        assert_true(worst_us <= 1000.0);
}

static void test_watchdog_ends_kernel_when_heartbeat_stops(void **state)
{
    (void)state;
    zc_ring_config c = small_config();
    c.watchdog_ns = 100000000ull; /* 100 ms */
    zc_echo_run r;
    zc_echo_start(&c, 1, 32, 0, 0, &r);
    zc_echo_traffic(r.ring, 100, 2);
    zc__ring_heartbeat_pause(r.ring, 1);
    uint64_t t0 = zc_clock_ns();
    zc_ring_kernel_state s;
    do {
        assert_int_equal(zc_ring_kernel_state_get(r.ring, &s), ZC_OK);
    } while (s.running && zc_clock_ns() - t0 < 10000000000ull);
    double ms = (double)(zc_clock_ns() - t0) / 1e6;
    fprintf(stderr,
            "watchdog: kernel ended %.1f ms after the heartbeat stopped (watchdog 100 ms), "
            "reason %s\n",
            ms, zc_ring_exit_reason_str(s.exit_reason));
    assert_int_equal(s.running, 0);
    assert_int_equal(s.exit_reason, ZC_RING_EXIT_WATCHDOG);
    assert_true(ms >= 50.0); /* not before the heartbeat was really stale */
    if (!zc_rt_under_sanitizer())
        assert_true(ms <= 600.0);
    /* Every host call now says the kernel is gone instead of waiting. */
    uint32_t frame[16] = {0}, out[16];
    zc_fake_fill(frame, 16, 100, 100);
    assert_int_equal(zc_ring_push(r.ring, frame, sizeof frame, 100000000ull, NULL), ZC_OK);
    assert_int_equal(zc_ring_pop(r.ring, out, sizeof out, 2000000000ull, NULL), ZC_ERR_KERNEL);
    assert_non_null(strstr(zc_last_error(), "watchdog"));
    zc_ring_destroy(r.ring);
    assert_int_equal(cudaFree(r.counts), cudaSuccess);
}

static void test_kernel_never_started(void **state)
{
    (void)state;
    zc_ring_config c = small_config();
    zc_ring *ring = NULL;
    assert_int_equal(zc_ring_create(&c, &ring), ZC_OK);
    uint64_t t0 = zc_clock_ns();
    assert_int_equal(zc_ring_wait_started(ring, 50000000ull), ZC_ERR_KERNEL);
    fprintf(stderr, "never started: %s\n", zc_last_error());
    assert_true(zc_clock_ns() - t0 < 2000000000ull);
    uint32_t frame[16] = {0}, out[16];
    assert_int_equal(zc_ring_push(ring, frame, sizeof frame, 0, NULL), ZC_OK);
    assert_int_equal(zc_ring_pop(ring, out, sizeof out, 1000000000ull, NULL), ZC_ERR_KERNEL);
    zc_ring_destroy(ring);
}

static void test_grid_mismatch_is_refused(void **state)
{
    (void)state;
    zc_ring_config c = small_config();
    c.consumers = 2; /* the trap kernel has one block: it must refuse to run (before trapping) */
    zc_ring *ring = NULL;
    assert_int_equal(zc_ring_create(&c, &ring), ZC_OK);
    zc_ring_dev view;
    cudaStream_t stream;
    zc_ring_device_view(ring, &view);
    zc_ring_stream(ring, &stream);
    assert_int_equal(zc_trap_launch(&view, stream), cudaSuccess);
    assert_int_equal(zc_ring_wait_started(ring, 5000000000ull), ZC_ERR_KERNEL);
    fprintf(stderr, "grid mismatch: %s\n", zc_last_error());
    assert_non_null(strstr(zc_last_error(), "refused to run"));
    zc_ring_destroy(ring);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess); /* the context is intact */
}

/* Start this program again as a child with one argument; its stdout comes back on *out_fd. */
static pid_t spawn_self(const char *mode, int *out_fd)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    char *argv[] = {self, (char *)mode, NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, self, &actions, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    *out_fd = fds[0];
    return pid;
}

/* Read what fd gives within timeout_ms into buf (NUL-terminated); stop at "\n" if line. */
static void read_child(int fd, char *buf, size_t size, int timeout_ms, int line)
{
    size_t got = 0;
    uint64_t end = zc_clock_ns() + (uint64_t)timeout_ms * 1000000ull;
    while (got + 1 < size && zc_clock_ns() < end) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(fd, buf + got, size - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        buf[got] = '\0';
        if (line && strchr(buf, '\n') != NULL)
            break;
    }
    buf[got] = '\0';
}

/* Is a process with this pid listed by nvidia-smi as using a GPU? -1 when it cannot tell. */
static int gpu_lists_pid(pid_t pid)
{
    FILE *p = popen("nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null", "r");
    if (p == NULL)
        return -1;
    char line[64];
    int found = 0, lines = 0;
    while (fgets(line, sizeof line, p) != NULL) {
        lines++;
        if (atol(line) == (long)pid)
            found = 1;
    }
    int rc = pclose(p);
    if (rc != 0 && lines == 0)
        return -1;
    return found;
}

static void test_killed_host_leaves_no_kernel(void **state)
{
    (void)state;
    if (zc_rt_under_sanitizer()) {
        /* The child would run under the sanitizer too, and its kill be reported as its fault. */
        fprintf(stderr, "killed-host test skipped under compute-sanitizer\n");
        skip();
    }
    int fd;
    pid_t pid = spawn_self("--child-hold", &fd);
    char buf[512];
    read_child(fd, buf, sizeof buf, 30000, 1);
    if (strstr(buf, "running") == NULL) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("child never said it was running; it said: '%s'", buf);
    }
    fprintf(stderr, "child %d: %s", (int)pid, buf);
    int listed = gpu_lists_pid(pid);
    fprintf(stderr, "nvidia-smi lists the child before the kill: %s\n",
            listed < 0 ? "cannot tell"
            : listed   ? "yes"
                       : "no");
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(fd);

    /* The GPU must be free for others within seconds: the dead host's kernel ends with its
     * context, and its watchdog ends it in any case when the heartbeat stops. */
    uint64_t t0 = zc_clock_ns();
    while (listed >= 0 && (listed = gpu_lists_pid(pid)) == 1 && zc_clock_ns() - t0 < 10000000000ull)
        usleep(100000);
    fprintf(stderr, "child gone from nvidia-smi after %.0f ms: %s\n",
            (double)(zc_clock_ns() - t0) / 1e6,
            listed < 0 ? "cannot tell (no nvidia-smi)"
            : listed   ? "NO, still listed"
                       : "yes");
    assert_true(listed != 1);
    int sms = 0;
    assert_int_equal(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    t0 = zc_clock_ns();
    assert_int_equal(zc_fill_launch((uint32_t)sms * 2u, 1000000ull, 0), cudaSuccess);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    double ms = (double)(zc_clock_ns() - t0) / 1e6;
    fprintf(stderr, "a kernel filling all %d SMs for 1 ms ran in %.1f ms after the kill\n", sms,
            ms);
    assert_true(ms < 2000.0);
}

static void test_dead_kernel_is_reported(void **state)
{
    (void)state;
    if (zc_rt_under_sanitizer()) {
        /* The planted trap is a device error the sanitizer would rightly report. */
        fprintf(stderr, "trapping-kernel test skipped under compute-sanitizer\n");
        skip();
    }
    int fd;
    pid_t pid = spawn_self("--child-trap", &fd);
    char buf[2048];
    read_child(fd, buf, sizeof buf, 60000, 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    close(fd);
    fprintf(stderr, "trap child said: %s", buf);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_non_null(strstr(buf, "pop: ERR_KERNEL"));
}

/* Child: start a ring and its kernel, say so, then wait to be killed. */
static int child_hold(void)
{
    zc_ring_config c = small_config();
    c.watchdog_ns = 200000000ull;
    zc_ring *ring = NULL;
    zc_ring_dev view;
    cudaStream_t stream;
    zc_echo_counts *counts = NULL;
    if (zc_ring_create(&c, &ring) != ZC_OK || cudaMalloc((void **)&counts, sizeof *counts) != 0 ||
        cudaMemset(counts, 0, sizeof *counts) != 0 || cudaDeviceSynchronize() != 0) {
        printf("setup failed: %s\n", zc_last_error());
        return 1;
    }
    zc_ring_device_view(ring, &view);
    zc_ring_stream(ring, &stream);
    if (zc_echo_launch(&view, 1, 32, 0, 0, counts, stream) != cudaSuccess ||
        zc_ring_wait_started(ring, 5000000000ull) != ZC_OK) {
        printf("start failed: %s\n", zc_last_error());
        return 1;
    }
    printf("running (pid %d)\n", (int)getpid());
    fflush(stdout);
    sleep(120);
    return 0;
}

/* Child: a kernel that traps; the ring must report ZC_ERR_KERNEL, not a timeout. */
static int child_trap(void)
{
    zc_ring_config c = small_config();
    zc_ring *ring = NULL;
    zc_ring_dev view;
    cudaStream_t stream;
    if (zc_ring_create(&c, &ring) != ZC_OK) {
        printf("setup failed: %s\n", zc_last_error());
        return 1;
    }
    zc_ring_device_view(ring, &view);
    zc_ring_stream(ring, &stream);
    if (zc_trap_launch(&view, stream) != cudaSuccess) {
        printf("launch failed\n");
        return 1;
    }
    zc_status st = zc_ring_wait_started(ring, 5000000000ull);
    printf("wait_started: %s\n", zc_status_name(st));
    uint32_t frame[16] = {0}, out[16];
    zc_ring_push(ring, frame, sizeof frame, 0, NULL);
    st = zc_ring_pop(ring, out, sizeof out, 5000000000ull, NULL);
    printf("pop: %s: %s\n", zc_status_name(st), zc_last_error());
    zc_ring_destroy(ring);
    return st == ZC_ERR_KERNEL ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--child-hold") == 0)
        return child_hold();
    if (argc == 2 && strcmp(argv[1], "--child-trap") == 0)
        return child_trap();
    zc_test_require_gpu("gpu_ring_control");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_within_one_millisecond),
        cmocka_unit_test(test_watchdog_ends_kernel_when_heartbeat_stops),
        cmocka_unit_test(test_kernel_never_started),
        cmocka_unit_test(test_grid_mismatch_is_refused),
        cmocka_unit_test(test_killed_host_leaves_no_kernel),
        cmocka_unit_test(test_dead_kernel_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
