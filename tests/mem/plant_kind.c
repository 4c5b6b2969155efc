/* SPDX-License-Identifier: Apache-2.0 */
/* Built with ZC_PLANT_BUFFER_KIND (tests/mem/CMakeLists.txt): the kind planted at the end of
 * zerocopy/buffer.h's list reaches every table made from the list. */
#include "zerocopy/advise.h"
#include "zerocopy/bench.h"
#include "zerocopy/buffer.h"

_Static_assert(ZC_BUFFER_PLANTED == 8 && ZC_BUFFER_KIND_COUNT == 9,
               "the planted kind follows the published ones");
/* A copy kind: three copy cases (ids made per kind and direction) ... */
_Static_assert(ZC_BENCH_CASE_COPY_H2D_PLANTED == 4 && ZC_BENCH_CASE_COPY_D2H_PLANTED == 9 &&
                   ZC_BENCH_CASE_COPY_BIDIR_PLANTED == 14 && ZC_BENCH_CASE_ID_COUNT == 65,
               "the planted copy kind has its three copy cases");
/* ... and a copy latency in the profile, named by its key. */
_Static_assert(ZC_PF_COPY_LATENCY_PLANTED == ZC_PF_COPY_LATENCY_REGISTERED + 1,
               "the planted copy kind has its copy latency figure");

int zc__plant_kind_unused(void);
int zc__plant_kind_unused(void)
{
    zc_profile p;
    return (int)(sizeof p.copy / sizeof p.copy[0]) - ZC_BUFFER_KIND_COUNT;
}
