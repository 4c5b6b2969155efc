/* The profile zc advise measures when none is given. */
#ifndef ZC_ADVISE_QUICK_H
#define ZC_ADVISE_QUICK_H

#include <stddef.h>

#include "zerocopy/advise.h"

/*
 * Measure a profile on GPU device: `zc bench --quick` as a child process, or, when that gives
 * nothing usable, zc_advise_calibrate. The result is completed (notes hold the assumptions);
 * *measured_p (may be NULL) gets it as measured, before completion; how says which of the two
 * it was.
 */
zc_status zc_advise_quick_profile(int device, zc_profile *profile_p, zc_profile *measured_p,
                                  char *notes, size_t notes_size, char *how, size_t how_size);

#endif
