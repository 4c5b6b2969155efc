/* SPDX-License-Identifier: Apache-2.0 */
/* What zc run says after the program: the summary on stderr and the --report document. */
#ifndef ZC_RUN_OUTPUT_H
#define ZC_RUN_OUTPUT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "zerocopy/run.h"

/* One zc run, as it went. */
typedef struct zc_cli_run {
    char *const *argv; /* the program and its arguments */
    unsigned fixes;    /* asked for */
    int exit_code;
    int signal;         /* that ended it, or 0 */
    int start_errno;    /* why it could not be started, or 0 */
    int have_summary;   /* the logs were read */
    int library_loaded; /* a process of the program left a log */
    char why_not[512];  /* when nothing was cured: the logs were not read, there were none, or
                           they counted no call */
    zc_run_summary summary;
} zc_cli_run;

/*
 * zc run's reading of its logs from dir after the program ran: have_summary, library_loaded
 * and why_not set from what was found; 0, or -1 when they could not be read (why_not says
 * why).
 */
int zc_cli_run_read_logs(zc_cli_run *run, const char *dir);

/* The summary: what each cure did (calls, bytes, time, and what the same calls would have cost as
 * they were, with how that was found), then what was left as it was and why. */
void zc_cli_run_print_summary(FILE *out, const zc_cli_run *run);

/* The --report document, schema ZC_RUN_SCHEMA (docs/json.md); NULL when out of memory. */
cJSON *zc_cli_run_json(const zc_cli_run *run);

#endif
