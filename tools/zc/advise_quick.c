/* SPDX-License-Identifier: Apache-2.0 */
/* The profile of `zc advise` without --profile: the bench engine run in process (the cases
 * the model reads, quick mode), its progress on stderr. */
#include "advise_quick.h"

#include <stdio.h>
#include <string.h>

/* One line per case as it starts, so that the seconds of measuring are not silent. */
static void zc__progress(void *user, const char *key, double fraction)
{
    const char **last = user;
    if (key == NULL || (*last != NULL && strcmp(*last, key) == 0))
        return;
    *last = key;
    fprintf(stderr, "zc advise: measuring %-28s (%3.0f%%)\n", key, 100.0 * fraction);
}

zc_status zc_cli_advise_quick_profile(int device, zc_profile *profile_p, zc_profile *measured_p,
                                      char *notes, size_t notes_size)
{
    fprintf(stderr,
            "zc advise: no --profile given: measuring one on GPU %d with zc bench's "
            "quick cases, in process\n",
            device);
    const char *last = NULL;
    char missing[2048] = "";
    zc_profile p;
    ZC_CHECK(zc_profile_measure(device, ZC_BENCH_QUICK, zc__progress, &last, &p, missing,
                                sizeof missing));
    if (measured_p != NULL)
        *measured_p = p;
    ZC_CHECK(zc_profile_fill_gaps(&p, notes, notes_size));
    size_t used = notes != NULL ? strlen(notes) : 0;
    if (notes != NULL && used < notes_size)
        snprintf(notes + used, notes_size - used, "%s", missing);
    *profile_p = p;
    return ZC_OK;
}
