/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --blocks: the block mover's engines ranked for a move, from the profile fitted to a
 * zc bench document's block family. */
#ifndef ZC_ADVISE_BLOCKS_H
#define ZC_ADVISE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "cli_output.h"

/* What the command line asked for. */
typedef struct zc_cli_blocks_args {
    uint64_t block_bytes; /* --blocks; 0: not given */
    uint64_t count;       /* --count; 0: not given */
    int to_host;          /* --to-host: device to host (default: host to device) */
    int both_ways;        /* --both-ways: count blocks each way at once */
    int beside;           /* --beside-compute */
    const char *bench;    /* --bench FILE (- for stdin) */
} zc_cli_blocks_args;

/* The largest block and count the options take; their product is checked by the library. */
#define ZC_CLI_BLOCKS_BYTES_MAX ((uint64_t)1 << 50)
#define ZC_CLI_BLOCKS_COUNT_MAX ((uint64_t)1000000000000)

/* The bench document read, the profile fitted, the engines ranked and printed (not with
 * --json -), and the "zerocopy.advise-blocks/1" document into json_out when given; a zc exit
 * code (2 for a document that is not a bench document, lacks the block family or holds
 * nonsense, and for a move of no size or one that overflows). */
int zc_cli_advise_blocks(const zc_cli_blocks_args *args, zc_cli_output *json_out);

#endif
