/* Inputs and outputs of every zc command, by one convention: "-" is stdin for an input and
 * stdout for an output; inputs are read whole up to a stated size; an output is written to a
 * temporary file beside its target and renamed into place only once it is whole, never over one
 * of the command's inputs, and over an existing file only with --force. */
#ifndef ZC_CLI_IO_H
#define ZC_CLI_IO_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* The largest input zc reads (JSON, logs, taps): 64 MiB. */
#define ZC_CLI_INPUT_MAX ((size_t)64 << 20)

/*
 * The whole input at path ("-": stdin), NUL-terminated, its length in *len_p (may be NULL). On
 * failure NULL, a line on stderr ("zc <command>: cannot read <path>: <why>"), and *code_p the
 * exit code: ZC_EXIT_USAGE for an input that is missing, a directory, or over max bytes;
 * ZC_EXIT_FAILURE for a read error.
 */
char *zc_cli_read_input(const char *command, const char *path, size_t max, size_t *len_p,
                        int *code_p);

/* The input at path parsed as JSON; NULL as above, or for text that is not JSON (ZC_EXIT_USAGE,
 * with the line and column where it went wrong). */
cJSON *zc_cli_read_json(const char *command, const char *path, int *code_p);

typedef struct zc_cli_output {
    FILE *f;
    const char *command;
    const char *path;
    char *tmp; /* the temporary file renamed to path by commit; NULL: written in place */
} zc_cli_output;

/*
 * Open the output at path: "-" is stdout, a FIFO or device is written in place, a regular file
 * goes through a temporary file in the same folder. Refused (ZC_EXIT_USAGE, said on stderr):
 * an output that is one of the ninputs inputs (the same file by device and inode, or the same
 * path), and an existing regular file unless force. Gives ZC_EXIT_OK or the exit code.
 */
int zc_cli_output_open(zc_cli_output *out, const char *command, const char *path, int force,
                       const char *const *inputs, size_t ninputs);

/* Flush and close; rename the temporary file into place. On failure (a full disk shows here)
 * the target is left as it was, the temporary file removed, and the exit code given. */
int zc_cli_output_commit(zc_cli_output *out);

/* Give up: close and remove the temporary file; the target is untouched. Accepts a closed one. */
void zc_cli_output_abort(zc_cli_output *out);

#endif
