/* SPDX-License-Identifier: Apache-2.0 */
/* Where an output path leads: its links followed to the file they name, as `sed -i
 * --follow-symlinks` and compilers do, so that writing through a link writes its target and
 * leaves the link a link; this process's own descriptors (/dev/stdout, /proc/self/fd/N) found
 * on the way, so that they are written as they are instead of renamed over. */
#include "cli_output_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel's own bound on links in one path (MAXSYMLINKS). */
#define ZC__LINK_HOPS_MAX 40

/* Each name in a path fits the file system's limit, and the whole path PATH_MAX. Checked
 * before anything runs, so that a run of minutes does not end at a rename refused for a name
 * (ENAMETOOLONG). */
static int zc__names_fit(const char *path, char *why, size_t why_size)
{
    if (path[0] == '\0') {
        snprintf(why, why_size, "the file name is empty");
        return ENAMETOOLONG;
    }
    if (strlen(path) >= PATH_MAX) {
        snprintf(why, why_size, "the path is longer than %d bytes", PATH_MAX - 1);
        return ENAMETOOLONG;
    }
    for (const char *p = path; *p != '\0';) {
        size_t n = strcspn(p, "/");
        if (n > NAME_MAX) {
            snprintf(why, why_size, "a name in it is %zu bytes, over the %d a file system takes", n,
                     NAME_MAX);
            return ENAMETOOLONG;
        }
        p += n;
        p += strspn(p, "/");
    }
    return 0;
}

/* The descriptor of this process that a path names (/dev/stdout, /dev/fd/N, /proc/self/fd/N,
 * /proc/<our pid>/fd/N), or -1. */
static int zc__own_fd(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    int fd = -1, pid = -1, end = 0;
    if ((sscanf(path, "/dev/fd/%d%n", &fd, &end) == 1 ||
         sscanf(path, "/proc/self/fd/%d%n", &fd, &end) == 1) &&
        path[end] == '\0')
        return fd >= 0 ? fd : -1;
    if (sscanf(path, "/proc/%d/fd/%d%n", &pid, &fd, &end) == 2 && path[end] == '\0' &&
        pid == (int)getpid())
        return fd >= 0 ? fd : -1;
    return -1;
}

/* Replace cur by the link's text, read relative to cur's folder unless it is absolute. */
static int zc__hop(char *cur, char *why, size_t why_size)
{
    char link[PATH_MAX];
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0) {
        int e = errno;
        snprintf(why, why_size, "reading the link: %s", strerror(e));
        return e;
    }
    link[n] = '\0';
    char next[PATH_MAX];
    const char *slash = strrchr(cur, '/');
    int written = link[0] == '/' || slash == NULL
                      ? snprintf(next, sizeof next, "%s", link)
                      : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, link);
    if (written < 0 || (size_t)written >= sizeof next) {
        snprintf(why, why_size, "the path its links lead to is longer than %d bytes", PATH_MAX - 1);
        return ENAMETOOLONG;
    }
    memcpy(cur, next, (size_t)written + 1);
    return 0;
}

/* The target's folder resolved (realpath), then its name; the target itself when the folder
 * cannot be resolved (it is not there: the open says so). */
static void zc__canonical(zc__output_place *place)
{
    const char *slash = strrchr(place->target, '/');
    const char *name = slash != NULL ? slash + 1 : place->target;
    char dir[PATH_MAX], real[PATH_MAX];
    if (slash == place->target)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", slash != NULL ? (int)(slash - place->target) : 1,
                 slash != NULL ? place->target : ".");
    if (realpath(dir, real) == NULL ||
        (size_t)snprintf(place->canonical, sizeof place->canonical, "%s/%s",
                         strcmp(real, "/") == 0 ? "" : real, name) >= sizeof place->canonical)
        snprintf(place->canonical, sizeof place->canonical, "%s", place->target);
}

int zc__output_place_find(const char *path, zc__output_place *place, char *why, size_t why_size)
{
    memset(place, 0, sizeof *place);
    place->fd = -1;
    int e = zc__names_fit(path, why, why_size);
    if (e != 0)
        return e;
    snprintf(place->target, sizeof place->target, "%s", path);
    for (int hops = 0;; hops++) {
        place->fd = zc__own_fd(place->target);
        if (place->fd >= 0) {
            if (fstat(place->fd, &place->st) != 0) {
                e = errno;
                snprintf(why, why_size, "descriptor %d: %s", place->fd, strerror(e));
                return e;
            }
            place->exists = 1;
            return 0;
        }
        if (lstat(place->target, &place->st) != 0) {
            e = errno;
            if (e == ENOENT || e == ENOTDIR)
                break; /* a file to make (its folder, if missing, is said at the open) */
            snprintf(why, why_size, "%s", strerror(e));
            return e;
        }
        if (!S_ISLNK(place->st.st_mode)) {
            place->exists = 1;
            break;
        }
        if (hops == ZC__LINK_HOPS_MAX) {
            snprintf(why, why_size, "more than %d links: a link loop", ZC__LINK_HOPS_MAX);
            return ELOOP;
        }
        if ((e = zc__hop(place->target, why, why_size)) != 0)
            return e;
    }
    if ((e = zc__names_fit(place->target, why, why_size)) != 0)
        return e;
    zc__canonical(place);
    return 0;
}

int zc__output_place_is(const zc__output_place *place, const char *path)
{
    struct stat st;
    if (place->exists && stat(path, &st) == 0)
        return st.st_dev == place->st.st_dev && st.st_ino == place->st.st_ino;
    if (place->fd >= 0)
        return 0;
    zc__output_place in;
    char why[8];
    return zc__output_place_find(path, &in, why, sizeof why) == 0 && in.fd < 0 &&
           strcmp(in.canonical, place->canonical) == 0;
}

int zc__output_places_same(const zc__output_place *a, const zc__output_place *b)
{
    if (a->exists && b->exists) {
        if (S_ISCHR(a->st.st_mode))
            return 0;
        return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino;
    }
    return a->fd < 0 && b->fd < 0 && strcmp(a->canonical, b->canonical) == 0;
}
