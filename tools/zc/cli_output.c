/* SPDX-License-Identifier: Apache-2.0 */
/* Every zc output, committed one way: see cli_output.h for the rules and cli_output_place.c for
 * where a path leads. */
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_output_internal.h"

/* More outputs than one command opens. */
#define ZC__OUTPUTS_MAX 16

/* The places of this process's outputs: a second output naming one of them is refused. zc runs
 * one command per process, so the list is the command's. */
static zc__output_place zc__opened[ZC__OUTPUTS_MAX];
static size_t zc__opened_count;

static int zc__open_timeout_ms = 10000;

void zc__outputs_forget(void)
{
    zc__opened_count = 0;
}

void zc_cli_output_set_open_timeout_ms(int timeout_ms)
{
    zc__open_timeout_ms = timeout_ms > 0 ? timeout_ms : 1;
}

/* "zc CMD: cannot write PATH: WHY", and the exit code: a name, a folder or a permission the
 * user gave is the command line's fault; anything else is a run-time failure. */
static int zc__refuse(const zc_cli_output *out, int e, const char *why)
{
    fprintf(stderr, "zc %s: cannot write %s: %s\n", out->command, out->path, why);
    switch (e) {
    case ENOENT:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case EROFS:
    case EISDIR:
    case ELOOP:
    case ENAMETOOLONG:
    case EEXIST:
    case ENXIO:
        return ZC_EXIT_USAGE;
    default:
        return ZC_EXIT_FAILURE;
    }
}

static int zc__refuse_errno(const zc_cli_output *out, int e)
{
    return zc__refuse(out, e, strerror(e));
}

static long long zc__ms_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A FIFO opened for writing blocks until a reader comes: wait for one, but not for ever. */
static int zc__open_fifo(const char *path, int *fd_p)
{
    const long long deadline = zc__ms_now() + zc__open_timeout_ms;
    for (;;) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            int flags = fcntl(fd, F_GETFL);
            if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
                int e = errno;
                close(fd);
                return e;
            }
            *fd_p = fd;
            return 0;
        }
        if (errno != ENXIO)
            return errno;
        if (zc__ms_now() >= deadline)
            return ETIMEDOUT;
        (void)poll(NULL, 0, 10);
    }
}

/* A FIFO, a device or a socket is written as it is; a descriptor of ours through a copy of it
 * (stdout itself for fd 1, so that its buffer and ours stay in order). */
static int zc__open_in_place(zc_cli_output *out, const zc__output_place *place)
{
    if (place->fd == STDOUT_FILENO) {
        out->f = stdout;
        return ZC_EXIT_OK;
    }
    int fd = -1, e = 0;
    if (place->fd >= 0)
        fd = fcntl(place->fd, F_DUPFD_CLOEXEC, 3);
    else if (S_ISFIFO(place->st.st_mode))
        e = zc__open_fifo(place->target, &fd);
    else
        fd = open(place->target, O_WRONLY | O_CLOEXEC);
    if (e == ETIMEDOUT) {
        char why[96];
        snprintf(why, sizeof why, "a FIFO that no reader opened within %d ms", zc__open_timeout_ms);
        (void)zc__refuse(out, e, why);
        return ZC_EXIT_TIMEOUT;
    }
    if (fd < 0 && e == 0)
        e = errno;
    if (e != 0)
        return zc__refuse_errno(out, e);
    if ((out->f = fdopen(fd, "wb")) == NULL) {
        e = errno;
        close(fd);
        return zc__refuse_errno(out, e);
    }
    return ZC_EXIT_OK;
}

/* A regular file: a temporary beside the target (so that the rename stays on one file system),
 * listed for removal on a signal from the moment it exists. */
static int zc__open_temporary(zc_cli_output *out, const zc__output_place *place)
{
    size_t n = strlen(place->target) + 16;
    out->target = strdup(place->target);
    out->tmp = malloc(n);
    if (out->target == NULL || out->tmp == NULL) {
        free(out->target);
        free(out->tmp);
        out->target = out->tmp = NULL;
        return zc__refuse(out, ENOMEM, "out of memory");
    }
    const char *slash = strrchr(place->target, '/');
    int dir_len = slash != NULL ? (int)(slash - place->target + 1) : 0;
    snprintf(out->tmp, n, "%.*s.zc-XXXXXX", dir_len, place->target);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = mkstemp(out->tmp);
    int e = errno;
    if (fd >= 0)
        out->slot = zc__output_cleanup_add(out->tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        /* Nothing was made: the template may name another's file, so it is not removed. */
        free(out->tmp);
        free(out->target);
        out->tmp = out->target = NULL;
        return zc__refuse_errno(out, e);
    }
    if ((out->f = fdopen(fd, "wb")) == NULL) {
        e = errno;
        close(fd);
        zc_cli_output_abort(out);
        return zc__refuse_errno(out, e);
    }
    /* mkstemp makes the file 0600; an output is as readable as any file the user makes. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    return ZC_EXIT_OK;
}

/* The refusals that need no file opened: an input, another output, a folder, an existing file. */
static int zc__check_place(const zc_cli_output *out, const zc__output_place *place,
                           const char *const *inputs, size_t ninputs)
{
    for (size_t i = 0; i < ninputs; i++) {
        if (inputs[i] == NULL || strcmp(inputs[i], "-") == 0)
            continue;
        if (strcmp(inputs[i], out->path) == 0 || zc__output_place_is(place, inputs[i])) {
            fprintf(stderr, "zc %s: %s is also an input (%s): refusing to write over it\n",
                    out->command, out->path, inputs[i]);
            return ZC_EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < zc__opened_count; i++) {
        if (zc__output_places_same(place, &zc__opened[i])) {
            fprintf(stderr,
                    "zc %s: %s is named by two outputs of this command: give each its own\n",
                    out->command, out->path);
            return ZC_EXIT_USAGE;
        }
    }
    if (zc__opened_count == ZC__OUTPUTS_MAX)
        return zc__refuse(out, EMFILE, "too many outputs");
    if (place->exists && S_ISDIR(place->st.st_mode))
        return zc__refuse(out, EISDIR, "it is a directory");
    if (place->exists && S_ISREG(place->st.st_mode) && place->fd < 0 && !out->force) {
        fprintf(stderr, "zc %s: %s exists: give --force to replace it\n", out->command, out->path);
        return ZC_EXIT_USAGE;
    }
    return ZC_EXIT_OK;
}

int zc_cli_output_open(zc_cli_output *out, const char *command, const char *path, int force,
                       const char *const *inputs, size_t ninputs)
{
    memset(out, 0, sizeof *out);
    out->command = command;
    out->path = path;
    out->force = force;
    out->slot = -1;
    zc__output_place place;
    char why[160];
    int e = strcmp(path, "-") == 0 ? zc__output_place_find("/dev/stdout", &place, why, sizeof why)
                                   : zc__output_place_find(path, &place, why, sizeof why);
    if (e != 0)
        return zc__refuse(out, e, why);
    int code = zc__check_place(out, &place, inputs, ninputs);
    if (code != ZC_EXIT_OK)
        return code;
    const int in_place = place.fd >= 0 || (place.exists && !S_ISREG(place.st.st_mode));
    code = in_place ? zc__open_in_place(out, &place) : zc__open_temporary(out, &place);
    if (code == ZC_EXIT_OK)
        zc__opened[zc__opened_count++] = place;
    return code;
}

/* Into place: over the target only with force; without it an existing target, made while the
 * command ran, is refused here too (renameat2's RENAME_NOREPLACE, or a hard link where the file
 * system lacks it: both fail with EEXIST instead of replacing). */
static int zc__rename_into_place(const zc_cli_output *out)
{
    if (out->force)
        return rename(out->tmp, out->target) == 0 ? 0 : errno;
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, out->tmp, AT_FDCWD, out->target, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno;
#endif
    if (link(out->tmp, out->target) != 0)
        return errno;
    (void)unlink(out->tmp);
    return 0;
}

int zc_cli_output_commit(zc_cli_output *out)
{
    if (out->f == NULL)
        return ZC_EXIT_FAILURE;
    const int to_stdout = out->f == stdout, through_tmp = out->tmp != NULL;
    /* A write that failed earlier left the stream's error flag; its errno may be gone. */
    const int failed_before = ferror(out->f) != 0;
    int e = 0;
    if (to_stdout ? fflush(out->f) != 0 : fclose(out->f) != 0)
        e = errno;
    out->f = NULL;
    const char *why = e != 0 ? strerror(e) : failed_before ? "a write failed" : NULL;
    if (why == NULL && through_tmp && (e = zc__rename_into_place(out)) != 0)
        why = strerror(e);
    if (through_tmp) {
        if (why != NULL)
            (void)unlink(out->tmp);
        zc__output_cleanup_remove(out->slot);
        free(out->tmp);
        out->tmp = NULL;
    }
    free(out->target);
    out->target = NULL;
    if (why == NULL)
        return ZC_EXIT_OK;
    if (e == EEXIST) {
        fprintf(stderr,
                "zc %s: %s was made by another program while zc ran: not replaced (give --force "
                "to replace it)\n",
                out->command, out->path);
        return ZC_EXIT_USAGE;
    }
    fprintf(stderr, "zc %s: cannot write %s: %s%s\n", out->command,
            to_stdout ? "stdout" : out->path, why,
            through_tmp ? " (the file was left as it was)" : "");
    return ZC_EXIT_FAILURE;
}

int zc_cli_output_is_staged(const zc_cli_output *out)
{
    return out->tmp != NULL;
}

int zc_cli_output_finish(zc_cli_output *out, int succeeded)
{
    if (out->f == NULL)
        return ZC_EXIT_OK;
    if (succeeded || !zc_cli_output_is_staged(out))
        return zc_cli_output_commit(out);
    fprintf(stderr, "zc %s: %s not written: the command failed (the file was left as it was)\n",
            out->command, out->path);
    zc_cli_output_abort(out);
    return ZC_EXIT_OK;
}

void zc_cli_output_abort(zc_cli_output *out)
{
    if (out->f != NULL && out->f != stdout)
        fclose(out->f);
    out->f = NULL;
    if (out->tmp != NULL) {
        (void)unlink(out->tmp);
        zc__output_cleanup_remove(out->slot);
        free(out->tmp);
        out->tmp = NULL;
    }
    free(out->target);
    out->target = NULL;
}
