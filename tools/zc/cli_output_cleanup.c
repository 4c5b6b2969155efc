/* SPDX-License-Identifier: Apache-2.0 */
/* The temporaries of outputs not yet committed, removed when a signal ends the process: a
 * stream stopped with Ctrl-C or killed by its supervisor leaves the old file as it was and no
 * hidden half-written copy beside it. */
#include "cli_output_internal.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

/* More outputs than any command opens at once. */
#define ZC__CLEANUP_SLOTS 16

/* Each path is held in the slot itself, never freed, so that a handler running on any thread
 * reads only memory that stays valid; `used` is the single word the handler trusts. */
static struct {
    int used;
    char path[PATH_MAX];
} zc__cleanup[ZC__CLEANUP_SLOTS];

/* Every signal whose default action ends the process and that a program can be sent or earn
 * while it writes: a user's or supervisor's (INT, TERM, HUP, QUIT, USR1, USR2), a reader gone
 * (PIPE), and the limits and timers of setrlimit, ulimit and timeout(1) (XFSZ: the file size
 * limit reached by a write; XCPU: the CPU time limit; ALRM, VTALRM, PROF: timers). The faults
 * (SEGV, BUS, FPE, ILL, ABRT) are left alone: after one, nothing in the process is trusted. */
static const int zc__cleanup_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,   SIGXFSZ,
                                          SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF};
#define ZC__CLEANUP_SIGNAL_COUNT (sizeof zc__cleanup_signals / sizeof zc__cleanup_signals[0])

/* Only async-signal-safe calls: unlink, then the signal again with its default action, so the
 * process ends as it would have (the shell sees 128 + N). */
static void zc__on_signal(int sig)
{
    for (int i = 0; i < ZC__CLEANUP_SLOTS; i++) {
        if (__atomic_load_n(&zc__cleanup[i].used, __ATOMIC_ACQUIRE))
            (void)unlink(zc__cleanup[i].path);
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    (void)sigaction(sig, &dfl, NULL);
    (void)raise(sig);
}

static void zc__install_handlers(void)
{
    static int installed;
    if (installed)
        return;
    installed = 1;
    for (size_t i = 0; i < ZC__CLEANUP_SIGNAL_COUNT; i++) {
        struct sigaction old, act;
        if (sigaction(zc__cleanup_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* nohup's SIGHUP, a shell's ignored SIGPIPE: kept as they were */
        if (old.sa_handler != SIG_DFL)
            continue; /* a handler of the program's own: not ours to replace */
        memset(&act, 0, sizeof act);
        act.sa_handler = zc__on_signal;
        sigemptyset(&act.sa_mask);
        /* The raise inside the handler must take effect at once. */
        act.sa_flags = SA_NODEFER;
        (void)sigaction(zc__cleanup_signals[i], &act, NULL);
    }
}

int zc__output_cleanup_add(const char *tmp_path)
{
    zc__install_handlers();
    if (strlen(tmp_path) >= PATH_MAX)
        return -1;
    for (int i = 0; i < ZC__CLEANUP_SLOTS; i++) {
        if (__atomic_load_n(&zc__cleanup[i].used, __ATOMIC_ACQUIRE))
            continue;
        strcpy(zc__cleanup[i].path, tmp_path);
        __atomic_store_n(&zc__cleanup[i].used, 1, __ATOMIC_RELEASE);
        return i;
    }
    return -1;
}

void zc__output_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < ZC__CLEANUP_SLOTS)
        __atomic_store_n(&zc__cleanup[slot].used, 0, __ATOMIC_RELEASE);
}
