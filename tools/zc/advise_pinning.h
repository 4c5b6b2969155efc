/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --pinning: the ways of getting pinned memory ranked for a size, from a zc bench
 * document's pinning family. */
#ifndef ZC_ADVISE_PINNING_H
#define ZC_ADVISE_PINNING_H

#include <stdint.h>

#include "cli_output.h"

/* What the command line asked for. */
typedef struct zc_cli_pinning_args {
    uint64_t bytes;    /* --pinning; 0: not given */
    const char *bench; /* --bench FILE (- for stdin) */
} zc_cli_pinning_args;

/* The largest size --pinning takes: 1 PiB, beyond any host's memory. */
#define ZC_CLI_PINNING_BYTES_MAX ((uint64_t)1 << 50)

/* The bench document read, the ways priced and printed (not with --json -), and the
 * "zerocopy.advise-pinning/1" document into json_out when given; a zc exit code (2 for a
 * document that is not a bench document, lacks the pinning family or holds nonsense). */
int zc_cli_advise_pinning(const zc_cli_pinning_args *args, zc_cli_output *json_out);

#endif
