/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --validate: the library's validation run on this GPU, its table and JSON written. */
#ifndef ZC_ADVISE_VALIDATE_H
#define ZC_ADVISE_VALIDATE_H

#include <stddef.h>

#include "zerocopy/advise.h"

/* What --validate was asked for. */
typedef struct zc_cli_validate_args {
    int device;
    const char *out_dir; /* validation.md and validation.json go here */
    int force;
    size_t rounds;
    double seconds_per_run;
    size_t random; /* 0: the fixed workloads; else this many drawn from seed */
    unsigned long long seed;
} zc_cli_validate_args;

/*
 * Validate the profile on the GPU (zc_advise_validate), print the table, and write
 * validation.md and validation.json into out_dir (made when missing; files there are replaced
 * only with force, and that is checked before anything runs). Gives a zc exit code.
 */
int zc_cli_advise_validate(const zc_profile *profile, const char *notes,
                           const zc_cli_validate_args *args);

#endif
