/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream --budget: how many frames a run keeps, taking the budget, and its table (the JSON's
 * "budget" is the library's, zc_stream_to_json). */
#ifndef ZC_STREAM_BUDGET_H
#define ZC_STREAM_BUDGET_H

#include <stdint.h>
#include <stdio.h>

#include "stream_cli.h"

/* The most measured frames a run keeps the budget of. */
#define ZC_CLI_STREAM_BUDGET_FRAMES 16384u

/* The engine's budget_frames for a zerocopy run under o (0: --budget not given). */
uint64_t zc_cli_stream_budget_frames(const zc_cli_stream_opts *o);

/* After the run is pulled dry: its budget, or why there is none, into r. */
void zc_cli_stream_budget_take(zc_stream *s, zc_cli_stream_result *r);

/* The budget's table (zerocopy runs with measured frames; nothing otherwise). */
void zc_cli_stream_budget_print(FILE *f, const zc_cli_stream_result *r);

#endif
