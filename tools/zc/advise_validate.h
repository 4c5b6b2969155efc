/* zc advise --validate: run varied workloads for real and hold the predictions against them. */
#ifndef ZC_ADVISE_VALIDATE_H
#define ZC_ADVISE_VALIDATE_H

#include "zerocopy/advise.h"

/* One workload of the validation set, with a short name for the table. */
typedef struct zc_validation_case {
    const char *name;
    zc_workload workload;
} zc_validation_case;

/* The validation set: at least ten workloads varied in size, direction, reuse and pattern. */
extern const zc_validation_case zc_validation_cases[];
extern const size_t zc_validation_case_count;

/*
 * Predict and measure every technique for every case on GPU device, print the table, and write
 * validation.md and validation.json into out_dir (made when missing; files there are replaced
 * only with force, and that is checked before anything runs). Gives a zc exit code.
 */
int zc_advise_validate(const zc_profile *profile, const char *notes, int device,
                       const char *out_dir, double seconds_per_run, int force);

#endif
