/* SPDX-License-Identifier: Apache-2.0 */
/* The one way every zc command writes an output file: links followed to the file they name,
 * special files (FIFOs, devices, /dev/stdout) written in place, a regular file made whole in a
 * temporary beside it and renamed into place only when the command succeeded, never over an
 * input or another output of the same command, never over an existing file without --force
 * (checked again at the rename), temporaries removed when a signal ends the process. */
#ifndef ZC_CLI_OUTPUT_H
#define ZC_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

typedef struct zc_cli_output {
    FILE *f;
    const char *command;
    const char *path; /* as the user gave it, for messages */
    char *target;     /* the regular file it names, links followed; NULL: written in place */
    char *tmp;        /* the temporary file renamed to target by commit */
    int force;        /* may replace target; without it the rename refuses an existing one */
    int slot;         /* the temporary's entry in the signal cleanup list; -1: none */
} zc_cli_output;

/*
 * Open the output at path for command: "-" is stdout. Refused before any work, with a line on
 * stderr and ZC_EXIT_USAGE: an empty name, a name or component too long for the file system, a
 * link loop, a folder, one of the ninputs inputs (the same file by device and inode, or the same
 * path once links are followed), a file another output of this process already names, and an
 * existing regular file unless force. Gives ZC_EXIT_OK or the exit code.
 */
int zc_cli_output_open(zc_cli_output *out, const char *command, const char *path, int force,
                       const char *const *inputs, size_t ninputs);

/* Flush and close; rename the temporary into place (over an existing file only with force).
 * On failure (a full disk shows here) the target is left as it was, the temporary removed, the
 * reason said on stderr, and the exit code given. */
int zc_cli_output_commit(zc_cli_output *out);

/* Is out a regular file made whole beside its target (not stdout, a FIFO or a device, which are
 * written as they go)? */
int zc_cli_output_is_staged(const zc_cli_output *out);

/* End out by the command's outcome: commit when it succeeded; when it failed, a staged file is
 * not committed (the target left as it was, said on stderr) and an output written in place is
 * flushed, since what went there is already out. Gives the commit's exit code, or ZC_EXIT_OK. */
int zc_cli_output_finish(zc_cli_output *out, int succeeded);

/* Give up: close and remove the temporary; the target is untouched. Accepts a closed one. */
void zc_cli_output_abort(zc_cli_output *out);

/* How long opening a FIFO waits for its reader (default 10 s); zc stream sets --timeout-ms. */
void zc_cli_output_set_open_timeout_ms(int timeout_ms);

#endif
