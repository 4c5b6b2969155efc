/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise's text output: a ranking, a stream ranking, a stream check table. */
#ifndef ZC_ADVISE_PRINT_H
#define ZC_ADVISE_PRINT_H

#include <stdio.h>

#include "zerocopy/advise.h"

/* The profile line, the workload, every technique ranked, the advice. */
void zc_cli_advise_print(FILE *out, const zc_profile *profile, const char *notes,
                         const zc_workload *w, const zc_recommendation *rec);

/* Every stream mode ranked for one stream workload, and the advice. */
void zc_cli_stream_advice_print(FILE *out, const zc_profile *profile, const zc_stream_workload *w,
                                const zc_stream_advice *a);

/* The stream checks as a Markdown table with a summary line (how many picked the best or tied). */
void zc_cli_stream_check_print(FILE *out, const zc_stream_check *checks, size_t count);

#endif
