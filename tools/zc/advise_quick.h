/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise without --profile: a profile measured on the spot by the bench engine. */
#ifndef ZC_ADVISE_QUICK_H
#define ZC_ADVISE_QUICK_H

#include <stddef.h>

#include "zerocopy/advise.h"

/* Measure a quick profile on GPU device in process (zc_profile_measure, quick mode) and
 * complete it; *measured_p (may be NULL) gets it as measured. notes: what was assumed, then the
 * bench cases that gave nothing. */
zc_status zc_cli_advise_quick_profile(int device, zc_profile *profile_p, zc_profile *measured_p,
                                      char *notes, size_t notes_size);

#endif
