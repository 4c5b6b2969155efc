/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --trace: a zc trace document's workloads priced, printed as a table. */
#ifndef ZC_ADVISE_TRACE_H
#define ZC_ADVISE_TRACE_H

#include <stdio.h>

#include "cli_output.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"

/* The profile line, one row per workload (size, direction, host kind, count, rate, measured,
 * predicted now, best technique, saving, cure), the total, the pinning cure, what was not
 * priced and why. trace names the document read. */
void zc_cli_advise_trace_print(FILE *out, const zc_profile *profile, const char *notes,
                               const char *trace, const zc_trace_advice *advice);

/* The trace document at path (- for stdin), read and checked before any profile is measured:
 * *doc_p, or a line on stderr and the exit code (2 for a file that is not a trace document). */
int zc_cli_advise_trace_read(const char *path, cJSON **doc_p);

/* Advise on doc (read from path), print the table and, when json_out is given, write the
 * "zerocopy.advise-trace/1" document; a zc exit code. */
int zc_cli_advise_trace(const zc_profile *profile, const char *notes, const cJSON *doc,
                        const char *path, zc_cli_output *json_out);

#endif
