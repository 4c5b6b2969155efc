/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ways a process ends or makes another while it copies, each in a child of its own (this
 * program run again through /proc/self/exe with the mode's name), whose exit status is printed:
 *   exit-thread  exit(0) from a second thread while the main one copies 16 MiB again and again
 *   return-main  return from main while a second thread copies
 *   fork         fork() just after copies: the child reads and writes a buffer pinned in place
 *                and _exit(0)s; the parent goes on copying
 *   spawn        system("true") and posix_spawn of /bin/true while a 64 MiB copy is in flight
 *   exec         execv of /bin/echo after copies
 * Plain, every child exits 0; under zc run each must end the same way, with the same output.
 */
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include "conf_support_life.h"

extern char **environ;

static const size_t BIG = 16u << 20;

static int copies_done; /* by the copying thread */
static int ending;      /* set before the process starts to end */

/* A copy in a loop failed: expected once the process has started to end (CUDA is torn down
 * under the thread), so the thread waits for the end; otherwise a failure. */
static void copy_failed(const char *mode, cudaError_t error)
{
    if (__atomic_load_n(&ending, __ATOMIC_ACQUIRE)) {
        for (;;)
            pause();
    }
    printf("FAIL %s: a copy failed: %s\n", mode, cudaGetErrorName(error));
    fflush(stdout);
    _exit(1);
}

/* Wait (at most 10 s) until the copying thread has done three copies. */
static void wait_for_copies(const char *mode)
{
    double start = conf_now_s();
    while (__atomic_load_n(&copies_done, __ATOMIC_ACQUIRE) < 3) {
        if (conf_now_s() - start > 10) {
            printf("FAIL %s: no three copies within 10 s\n", mode);
            fflush(stdout);
            _exit(1);
        }
        usleep(1000);
    }
}

static void *exit_soon(void *unused)
{
    (void)unused;
    wait_for_copies("exit-thread");
    usleep(20000);
    printf("exit-thread: exit(0) from a second thread\n");
    __atomic_store_n(&ending, 1, __ATOMIC_RELEASE);
    exit(0);
}

static int mode_exit_thread(void)
{
    unsigned char *host = (unsigned char *)malloc(BIG), *dev;
    CONF_NEED(host != NULL, "malloc");
    conf_fill(host, BIG, 1);
    CONF_CUDA(cudaMalloc((void **)&dev, BIG));
    printf("exit-thread: copying\n");
    pthread_t thread;
    CONF_NEED(pthread_create(&thread, NULL, exit_soon, NULL) == 0, "pthread_create");
    for (double start = conf_now_s(); conf_now_s() - start < 20;) {
        cudaError_t error = cudaMemcpy(dev, host, BIG, cudaMemcpyHostToDevice);
        if (error != cudaSuccess)
            copy_failed("exit-thread", error);
        __atomic_add_fetch(&copies_done, 1, __ATOMIC_RELEASE);
    }
    printf("FAIL exit-thread: the process did not end within 20 s\n");
    fflush(stdout);
    _exit(1);
}

static void *copy_round_trips(void *unused)
{
    (void)unused;
    unsigned char *host = (unsigned char *)malloc(BIG), *back = (unsigned char *)malloc(BIG);
    unsigned char *dev;
    CONF_NEED(host != NULL && back != NULL, "malloc");
    conf_fill(host, BIG, 2);
    CONF_CUDA(cudaMalloc((void **)&dev, BIG));
    for (;;) {
        cudaError_t error = cudaMemcpy(dev, host, BIG, cudaMemcpyHostToDevice);
        if (error == cudaSuccess)
            error = cudaMemcpy(back, dev, BIG, cudaMemcpyDeviceToHost);
        if (error != cudaSuccess)
            copy_failed("return-main", error);
        if (memcmp(back, host, BIG) != 0 && !__atomic_load_n(&ending, __ATOMIC_ACQUIRE)) {
            printf("FAIL return-main: a round trip changed the bytes\n");
            fflush(stdout);
            _exit(1);
        }
        __atomic_add_fetch(&copies_done, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static int mode_return_main(void)
{
    pthread_t thread;
    CONF_NEED(pthread_create(&thread, NULL, copy_round_trips, NULL) == 0, "pthread_create");
    wait_for_copies("return-main");
    printf("return-main: returning from main while a thread copies\n");
    __atomic_store_n(&ending, 1, __ATOMIC_RELEASE);
    return 0;
}

/* Copies both ways through host (pinned in place first); host ends holding pattern seed + 1. */
static int round_trips(unsigned char *host, unsigned char *back, unsigned char *dev, size_t n,
                       unsigned seed)
{
    conf_fill(host, n, seed);
    conf_pin_in_place(host, n, dev);
    CONF_CUDA(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
    conf_generate_on(dev, n, seed + 1, 0);
    CONF_CUDA(cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost));
    return conf_differs(back, n, seed) == n && conf_differs(host, n, seed + 1) == n;
}

/* The status of child pid, waited for at most seconds (then killed); -1 if it had to be. */
static int wait_child(pid_t pid, double seconds, int *status)
{
    double start = conf_now_s();
    for (;;) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid)
            return 0;
        CONF_NEED(got == 0, "waitpid");
        if (conf_now_s() - start > seconds) {
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            return -1;
        }
        usleep(2000);
    }
}

static void report_status(const char *what, int waited, int status)
{
    if (waited < 0)
        conf_report(0, what, "no end within its time bound");
    else if (WIFEXITED(status))
        conf_report(WEXITSTATUS(status) == 0, what, "exit %d", WEXITSTATUS(status));
    else
        conf_report(0, what, "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

static int mode_fork(void)
{
    unsigned char *host = (unsigned char *)malloc(BIG), *back = (unsigned char *)malloc(BIG);
    unsigned char *dev;
    CONF_NEED(host != NULL && back != NULL, "malloc");
    CONF_CUDA(cudaMalloc((void **)&dev, BIG));
    conf_report(round_trips(host, back, dev, BIG, 10), "fork: copies before", "wrong bytes");
    fflush(NULL);
    pid_t pid = fork();
    CONF_NEED(pid >= 0, "fork");
    if (pid == 0) {
        /* CPU work only: CUDA may not be used in a child made by fork. */
        size_t at = conf_differs(host, BIG, 11);
        conf_report(at == BIG, "fork child: the buffer as the parent left it", "byte %zu", at);
        memset(host, 0x5A, BIG);
        at = BIG;
        for (size_t i = 0; i < BIG && at == BIG; i++)
            at = host[i] == 0x5A ? BIG : i;
        conf_report(at == BIG, "fork child: writes to the buffer", "byte %zu", at);
        fflush(stdout);
        _exit(__atomic_load_n(&conf_failures, __ATOMIC_RELAXED) ? 1 : 0);
    }
    int status = 0;
    report_status("fork: the child ends with exit 0", wait_child(pid, 30, &status), status);
    size_t at = conf_differs(host, BIG, 11);
    conf_report(at == BIG, "fork: the parent's buffer kept from the child's writes", "byte %zu",
                at);
    int right = 1;
    for (unsigned round = 0; round < 3; round++)
        right &= round_trips(host, back, dev, BIG, 20 + 2 * round);
    conf_report(right, "fork: copies after the child", "wrong bytes");
    return __atomic_load_n(&conf_failures, __ATOMIC_RELAXED) ? 1 : 0;
}

static int copy_issued, spawned; /* the spawn mode's two threads' signals */

/* A 64 MiB copy from a buffer pinned in place, queued and not waited for until the main
 * thread has started its processes; then checked. */
static void *copy_in_flight(void *unused)
{
    (void)unused;
    const size_t n = 64u << 20;
    unsigned char *host = (unsigned char *)malloc(n), *back = (unsigned char *)malloc(n), *dev;
    CONF_NEED(host != NULL && back != NULL, "malloc");
    CONF_CUDA(cudaMalloc((void **)&dev, n));
    cudaStream_t stream;
    CONF_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    conf_fill(host, n, 30);
    conf_pin_in_place(host, n, dev);
    conf_generate_on(dev, n, 0, stream); /* bytes the copy must replace */
    CONF_CUDA(cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, stream));
    __atomic_store_n(&copy_issued, 1, __ATOMIC_RELEASE);
    for (double start = conf_now_s(); !__atomic_load_n(&spawned, __ATOMIC_ACQUIRE);) {
        CONF_NEED(conf_now_s() - start < 30, "spawn: the processes within 30 s");
        usleep(1000);
    }
    CONF_CUDA(cudaStreamSynchronize(stream));
    CONF_CUDA(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
    size_t at = conf_differs(back, n, 30);
    conf_report(at == n, "spawn: the copy in flight meanwhile", "byte %zu", at);
    CONF_CUDA(cudaStreamDestroy(stream));
    return NULL;
}

static int mode_spawn(void)
{
    pthread_t thread;
    CONF_NEED(pthread_create(&thread, NULL, copy_in_flight, NULL) == 0, "pthread_create");
    for (double start = conf_now_s(); !__atomic_load_n(&copy_issued, __ATOMIC_ACQUIRE);) {
        CONF_NEED(conf_now_s() - start < 30, "spawn: the copy queued within 30 s");
        usleep(100);
    }
    fflush(NULL);
    int status = system("true");
    report_status("spawn: system(\"true\") exits 0", status == -1 ? -1 : 0, status);
    pid_t pid;
    char *const args[] = {(char *)"true", NULL};
    int error = posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ);
    CONF_NEED(error == 0, "posix_spawn");
    report_status("spawn: posix_spawn of /bin/true exits 0", wait_child(pid, 30, &status), status);
    __atomic_store_n(&spawned, 1, __ATOMIC_RELEASE);
    CONF_NEED(pthread_join(thread, NULL) == 0, "pthread_join");
    return __atomic_load_n(&conf_failures, __ATOMIC_RELAXED) ? 1 : 0;
}

static int mode_exec(void)
{
    unsigned char *host = (unsigned char *)malloc(BIG), *back = (unsigned char *)malloc(BIG);
    unsigned char *dev;
    CONF_NEED(host != NULL && back != NULL, "malloc");
    CONF_CUDA(cudaMalloc((void **)&dev, BIG));
    conf_report(round_trips(host, back, dev, BIG, 40), "exec: copies before", "wrong bytes");
    fflush(NULL);
    char *const args[] = {(char *)"echo", (char *)"exec: echo ran after the copies", NULL};
    execv("/bin/echo", args);
    printf("FAIL exec: execv of /bin/echo failed\n");
    return 1;
}

static const struct mode {
    const char *name;
    int (*run)(void);
} modes[] = {{"exit-thread", mode_exit_thread},
             {"return-main", mode_return_main},
             {"fork", mode_fork},
             {"spawn", mode_spawn},
             {"exec", mode_exec}};

int main(int argc, char **argv)
{
    const size_t count = sizeof modes / sizeof modes[0];
    if (argc == 2) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (size_t i = 0; i < count; i++) {
            if (strcmp(argv[1], modes[i].name) == 0)
                return modes[i].run();
        }
        fprintf(stderr, "usage: conf_exit [exit-thread | return-main | fork | spawn | exec]\n");
        return 64;
    }
    conf_skip_without_gpu("conf_exit");
    for (size_t i = 0; i < count; i++) {
        fflush(NULL);
        pid_t pid = fork();
        CONF_NEED(pid >= 0, "fork");
        if (pid == 0) {
            execl("/proc/self/exe", "conf_exit", modes[i].name, (char *)NULL);
            _exit(127);
        }
        int status = 0;
        char what[64];
        snprintf(what, sizeof what, "mode %s ends with exit 0", modes[i].name);
        report_status(what, wait_child(pid, 60, &status), status);
    }
    return __atomic_load_n(&conf_failures, __ATOMIC_RELAXED) ? 1 : 0;
}
