/* SPDX-License-Identifier: Apache-2.0 */
/* Inputs and outputs of every zc command, by one convention: "-" is stdin for an input and
 * stdout for an output; inputs are read whole up to a stated size; outputs are committed by
 * cli_output.h, included here for every command. */
#ifndef ZC_CLI_IO_H
#define ZC_CLI_IO_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli_output.h"

/* The largest input zc reads (JSON, logs, taps): 64 MiB. */
#define ZC_CLI_INPUT_MAX ((size_t)64 << 20)

/* How long an input that is a FIFO waits for its first bytes before it is given up (exit 2), as
 * long as an output FIFO waits for its reader. */
#define ZC_CLI_INPUT_FIFO_WAIT_MS 10000

/*
 * The whole input at path ("-": stdin), NUL-terminated, its length in *len_p (may be NULL). On
 * failure NULL, a line on stderr ("zc <command>: cannot read <path>: <why>"), and *code_p the
 * exit code: ZC_EXIT_USAGE for an input that is missing, a directory, or over max bytes, or a
 * FIFO nothing was written to within ZC_CLI_INPUT_FIFO_WAIT_MS (said on stderr while it waits);
 * ZC_EXIT_FAILURE for a read error.
 */
/* Wait up to timeout_ms for fd to have something to read, or for its writer to be gone (a FIFO
 * whose writer came and went), through interruptions: poll's answer, > 0 ready, 0 the time
 * ran out, < 0 an error (errno). A FIFO no writer has opened yet reports nothing. */
int zc_cli_wait_readable(int fd, int timeout_ms);

char *zc_cli_read_input(const char *command, const char *path, size_t max, size_t *len_p,
                        int *code_p);

/* The input at path parsed as JSON; NULL as above, or for text that is not JSON (ZC_EXIT_USAGE,
 * with the line and column where it went wrong). */
cJSON *zc_cli_read_json(const char *command, const char *path, int *code_p);

#endif
