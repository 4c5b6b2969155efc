/* SPDX-License-Identifier: Apache-2.0 */
/* Writing zc's JSON documents, through the outputs of cli_io.h. */
#ifndef ZC_CLI_JSON_H
#define ZC_CLI_JSON_H

#include <cjson/cJSON.h>

#include "cli_io.h"
#include "zerocopy/status.h"

/*
 * Print doc, indented, into out (opened with zc_cli_output_open) and commit it; delete doc (NULL
 * counts as out of memory). On failure says so on stderr, leaves the target as it was, and gives
 * the exit code; otherwise ZC_EXIT_OK.
 */
int zc_cli_json_commit(const char *command, cJSON *doc, zc_cli_output *out);

/* The same for a document a library call built (zerocopy/json.h): when built is not ZC_OK, say
 * why (the call's detail), leave the target as it was and give the exit code. */
int zc_cli_json_commit_built(const char *command, zc_status built, cJSON *doc, zc_cli_output *out);

/* A new document for a command that ran a program (zc trace, zc run): schema,
 * zerocopy_version, program (argv, NULL-terminated), exit_code and signal (null when 0). NULL
 * when out of memory. */
cJSON *zc_cli_program_doc(const char *schema, char *const *argv, int exit_code, int signal);

/* Open path ("-": stdout) as zc_cli_output_open does, print doc into it and commit. */
int zc_cli_write_json(const char *command, cJSON *doc, const char *path, int force,
                      const char *const *inputs, size_t ninputs);

#endif
