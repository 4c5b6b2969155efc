/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A cure planted in the preload's table (ZC_PLANT_RUN_CURE): its calls and a handler of every
 * event but EXIT, unless ZC_PLANT_RUN_CURE_WHOLE. Built with the preload's sources by
 * tests/run/CMakeLists.txt: the whole cure links, the one missing a handler must not.
 */
#include "run_cures.h"

static zc__plan zc__plan_copy(zc__run_copy *c)
{
    (void)c;
    return ZC__PASS;
}

const zc__run_calls zc__cure_planted_calls = {.plan_copy = zc__plan_copy};

ZC__RUN_IGNORES(planted, HOST_ALLOC)
ZC__RUN_IGNORES(planted, HOST_FREE)
ZC__RUN_IGNORES(planted, HOST_RESIZE)
ZC__RUN_IGNORES(planted, RANGE_UNMAPPED)
ZC__RUN_IGNORES(planted, RANGE_REPLACED)
ZC__RUN_IGNORES(planted, PAGES_DISCARDED)
ZC__RUN_IGNORES(planted, RANGE_REPROTECTED)
ZC__RUN_IGNORES(planted, RANGE_IN_GRAPH)
ZC__RUN_IGNORES(planted, RANGE_REGISTERED)
ZC__RUN_IGNORES(planted, CONTEXT_GONE)
ZC__RUN_IGNORES(planted, FORK_CALLED)
ZC__RUN_IGNORES(planted, FORK_PREPARE)
ZC__RUN_IGNORES(planted, FORK_PARENT)
ZC__RUN_IGNORES(planted, FORK_CHILD)
#ifdef ZC_PLANT_RUN_CURE_WHOLE
ZC__RUN_IGNORES(planted, EXIT)
#endif
