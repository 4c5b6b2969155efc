/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program under a library of ours (zc trace, zc run): finding the library, a private
 * folder for its logs, fork and wait. */
#include "program_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* The library folder of a Debian multiarch install, where GNUInstallDirs puts libraries. */
#if defined(__x86_64__)
#define ZC__MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define ZC__MULTIARCH "aarch64-linux-gnu"
#else
#define ZC__MULTIARCH ""
#endif

static int zc__readable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

int zc_cli_find_library(const char *name, const char *kind, const char *env, const char *hint,
                        const char *explicit_path, char *path_p, size_t path_size, char *why,
                        size_t why_size)
{
    const char *given = explicit_path ? explicit_path : getenv(env);
    if (given != NULL && given[0] != '\0') {
        if (zc__readable(given) && strlen(given) < path_size) {
            /* The driver (dlopen) and the loader (LD_PRELOAD) want a path that works from
             * anywhere. */
            char *absolute = realpath(given, NULL);
            snprintf(path_p, path_size, "%s", absolute ? absolute : given);
            free(absolute);
            return ZC_EXIT_OK;
        }
        snprintf(why, why_size, "the %s '%s' (%s) cannot be read", kind, given,
                 explicit_path ? "--lib" : env);
        return ZC_EXIT_USAGE;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(why, why_size,
                 "cannot tell where zc is installed (/proc/self/exe); give the "
                 "%s with --lib or %s",
                 kind, env);
        return ZC_EXIT_FAILURE;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    static const char *const places[] = {"", "/../lib", "/../lib64", ("/../lib/" ZC__MULTIARCH)};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        char candidate[PATH_MAX + 64];
        snprintf(candidate, sizeof candidate, "%s%s/%s", exe, places[i], name);
        if (zc__readable(candidate)) {
            char *absolute = realpath(candidate, NULL);
            if (absolute != NULL && strlen(absolute) < path_size) {
                snprintf(path_p, path_size, "%s", absolute);
                free(absolute);
                return ZC_EXIT_OK;
            }
            free(absolute);
        }
    }
    snprintf(why, why_size, "%s was not found next to zc or in ../lib%s; give it with --lib or %s",
             name, hint, env);
    return ZC_EXIT_FAILURE;
}

const char *zc_cli_tmp_base(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
}

int zc_cli_make_private_dir(const char *prefix, char *dir_p, size_t size)
{
    int n = snprintf(dir_p, size, "%s/%s-XXXXXX", zc_cli_tmp_base(), prefix);
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(dir_p) != NULL ? 0 : -1;
}

void zc_cli_remove_private_dir(const char *dir, const char *suffix)
{
    size_t suffix_length = strlen(suffix);
    DIR *folder = opendir(dir);
    if (folder != NULL) {
        struct dirent *entry;
        while ((entry = readdir(folder)) != NULL) {
            size_t length = strlen(entry->d_name);
            if (length <= suffix_length ||
                strcmp(entry->d_name + length - suffix_length, suffix) != 0)
                continue;
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", dir, entry->d_name) < (int)sizeof path)
                unlink(path);
        }
        closedir(folder);
    }
    rmdir(dir);
}

/* The folder name of dir_fd, opened without following a link; one the program made unreadable
 * is given back its owner's rights (never through a link: AT_SYMLINK_NOFOLLOW). */
static int zc__open_folder(int dir_fd, const char *name)
{
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(dir_fd, name, flags);
    if (fd < 0 && errno == EACCES && fchmodat(dir_fd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) == 0)
        fd = openat(dir_fd, name, flags);
    return fd;
}

/* Remove every entry of the open folder dir_fd, depth folders deep at most (a bound on what a
 * program can make us walk); 0 when it is empty, else -1 with errno. Entries are unlinked by
 * name in the folder, never through a link: a link is removed, not what it points to. */
static int zc__empty_folder(int dir_fd, int depth)
{
    int result = 0, error = 0;
    /* The folder is ours and going: one the program made read-only is made writable first. */
    fchmod(dir_fd, S_IRWXU);
    DIR *folder = fdopendir(dir_fd);
    if (folder == NULL) {
        close(dir_fd);
        return -1;
    }
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (unlinkat(dirfd(folder), name, 0) == 0 || errno == ENOENT)
            continue;
        int inner = -1;
        if ((errno == EISDIR || errno == EPERM) && depth > 0)
            inner = zc__open_folder(dirfd(folder), name);
        if (inner >= 0 && zc__empty_folder(inner, depth - 1) == 0 &&
            unlinkat(dirfd(folder), name, AT_REMOVEDIR) == 0)
            continue;
        result = -1;
        error = errno;
    }
    closedir(folder);
    errno = error;
    return result;
}

int zc_cli_remove_private_tree(const char *dir)
{
    /* Twice: a name made while the folder was read (by a process of the program still running)
     * may have been missed the first time. */
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? 0 : -1;
        if (zc__empty_folder(fd, 32) == 0 && rmdir(dir) == 0)
            return 0;
    }
    return -1;
}

/* The program being waited for, to which SIGTERM and SIGHUP sent to zc are passed on. */
static volatile sig_atomic_t zc__child;

/* While zc_cli_signals_hold holds them back: the signal mask from before, the program's. */
static int zc__holding;
static sigset_t zc__mask_before_hold;

static void zc__passed_on_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

void zc_cli_signals_hold(void)
{
    sigset_t held;
    zc__passed_on_signals(&held);
    if (!zc__holding && sigprocmask(SIG_BLOCK, &held, &zc__mask_before_hold) == 0)
        zc__holding = 1;
}

void zc_cli_signals_release(void)
{
    if (!zc__holding)
        return;
    zc__holding = 0;
    sigprocmask(SIG_SETMASK, &zc__mask_before_hold, NULL);
}

/* In the child, before exec: zc's own handler (which removes zc's temporaries) must never run
 * there; an ignored signal stays ignored, as exec keeps it. */
static void zc__child_default(int sig, const struct sigaction *old)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, old->sa_handler == SIG_IGN ? old : &dfl, NULL);
}

static void zc__pass_on(int sig)
{
    if (zc__child > 0)
        kill((pid_t)zc__child, sig);
}

int zc_cli_run_program(char *const *argv, const zc_cli_env_pair *env, size_t env_count,
                       int *signal_p, int *start_errno_p)
{
    *signal_p = 0;
    *start_errno_p = 0;
    /* The child's exec failure comes back through a pipe that a successful exec closes, so
     * that a program that never started is told from one that exited 127 itself. */
    int failed[2];
    if (pipe2(failed, O_CLOEXEC) != 0) {
        *start_errno_p = errno;
        return 127;
    }
    /* Like system(): while the program runs, Ctrl-C is for the program, not for zc. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    /* SIGTERM and SIGHUP sent to zc alone (kill, a closed terminal) end the program, and zc
     * then reports and cleans up as for any end; held back across fork so that none arrives
     * before the child's pid is known. */
    struct sigaction pass = {.sa_handler = zc__pass_on}, old_term, old_hup;
    sigemptyset(&pass.sa_mask);
    sigset_t held, before;
    zc__passed_on_signals(&held);
    sigprocmask(SIG_BLOCK, &held, &before);
    /* The mask the program starts with and zc waits under: the one from before a hold. */
    const sigset_t *waiting = zc__holding ? &zc__mask_before_hold : &before;
    sigaction(SIGTERM, &pass, &old_term);
    sigaction(SIGHUP, &pass, &old_hup);
    fflush(NULL);
    const pid_t parent = getpid();
    pid_t pid = fork();
    const int fork_error = errno;
    if (pid == 0) {
        close(failed[0]);
        /* zc killed outright (SIGKILL) takes the program with it, as a terminal would: left
         * running, it would write logs into a folder nobody reads and hold on to the GPU. The
         * parent may have died before the request was made: then nothing is started. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        zc__child_default(SIGTERM, &old_term);
        zc__child_default(SIGHUP, &old_hup);
        sigprocmask(SIG_SETMASK, waiting, NULL);
        for (size_t i = 0; i < env_count; i++)
            setenv(env[i].name, env[i].value, 1);
        execvp(argv[0], argv);
        int error = errno;
        ssize_t unused = write(failed[1], &error, sizeof error);
        (void)unused;
        _exit(error == ENOENT ? 127 : 126);
    }
    close(failed[1]);
    zc__child = pid > 0 ? pid : 0;
    /* One held back before the program started is passed on now. */
    sigprocmask(SIG_SETMASK, waiting, NULL);
    int code;
    if (pid < 0) {
        *start_errno_p = fork_error;
        code = 127;
    } else {
        int error = 0;
        ssize_t got;
        do {
            got = read(failed[0], &error, sizeof error);
        } while (got < 0 && errno == EINTR);
        if (got == (ssize_t)sizeof error)
            *start_errno_p = error != 0 ? error : ENOEXEC;
        int status = 0;
        pid_t waited;
        do {
            waited = waitpid(pid, &status, 0);
        } while (waited < 0 && errno == EINTR);
        if (waited < 0) {
            code = 127;
        } else if (WIFSIGNALED(status)) {
            *signal_p = WTERMSIG(status);
            code = 128 + WTERMSIG(status);
        } else {
            code = WEXITSTATUS(status);
        }
    }
    close(failed[0]);
    sigprocmask(SIG_BLOCK, &held, NULL);
    zc__child = 0;
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    sigprocmask(SIG_SETMASK, &before, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return code;
}
