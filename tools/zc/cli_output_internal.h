/* SPDX-License-Identifier: Apache-2.0 */
/* The output module's parts, apart so that each can be tested alone: where an output path leads
 * (links followed, names checked, in place or through a temporary), and the list of temporaries
 * that a signal removes. */
#ifndef ZC_CLI_OUTPUT_INTERNAL_H
#define ZC_CLI_OUTPUT_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

/* Where an output goes. */
typedef struct zc__output_place {
    int fd;     /* >= 0: one of this process's descriptors (/dev/stdout, /proc/self/fd/N) */
    int exists; /* the path leads to something that is there; st says what */
    struct stat st;
    char target[PATH_MAX];    /* the path with every link followed */
    char canonical[PATH_MAX]; /* the target's folder resolved, then its name: one per file */
} zc__output_place;

/*
 * Where path leads: each link followed (at most 40, as the kernel does) to the file it names,
 * which may not be there yet. Gives 0, or an errno value with the reason in why (ENAMETOOLONG
 * for an empty name or one too long, ELOOP for a loop, or what lstat or readlink said).
 */
int zc__output_place_find(const char *path, zc__output_place *place, char *why, size_t why_size);

/* Is the file at path (an input) the place's file: the same device and inode, or the same
 * canonical name once its links are followed? */
int zc__output_place_is(const zc__output_place *place, const char *path);

/* Are two places one file? Character devices never are (two outputs to /dev/null are fine). */
int zc__output_places_same(const zc__output_place *a, const zc__output_place *b);

/* The temporaries that a signal ending the process removes (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGPIPE, SIGXFSZ, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF) before it ends as
 * the signal says. Add gives a slot (-1 when all are taken: the temporary is then only
 * removed by commit or abort); the handlers are installed at the first add, and a signal that
 * was ignored stays ignored. */
int zc__output_cleanup_add(const char *tmp_path);
void zc__output_cleanup_remove(int slot);

/* Forget the outputs this process opened, so that a fuzz target can open them again. */
void zc__outputs_forget(void);

#endif
