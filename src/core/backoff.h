/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: how a host thread waits once a wait is no longer latency-critical. */
#ifndef ZC_CORE_BACKOFF_H
#define ZC_CORE_BACKOFF_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>
#include <time.h>

/* Waits shorter than this spin (a frame's round trip is microseconds). */
#define ZC__BACKOFF_SPIN_NS 200000ull

/* The longest nap of a long wait: short against any timeout, long enough to give the core up. */
#define ZC__BACKOFF_NAP_MAX_NS 50000ull

/*
 * One step of a wait that has lasted waited_ns: a CPU pause while it is short; past
 * ZC__BACKOFF_SPIN_NS a nap that grows with the wait (a sixteenth of it, 2 to 50 us). Not
 * sched_yield: with every core busy a yielding thread gets the core straight back (CFS), and
 * the threads it waits for starve; a two-core machine with two busy processes beside the ring's
 * thread test ran its hand-offs 40 times slower with yields than with naps.
 */
static inline void zc__backoff(uint64_t waited_ns)
{
    if (waited_ns < ZC__BACKOFF_SPIN_NS) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
        return;
    }
    uint64_t nap = waited_ns / 16;
    nap = nap < 2000 ? 2000 : nap > ZC__BACKOFF_NAP_MAX_NS ? ZC__BACKOFF_NAP_MAX_NS : nap;
    struct timespec t = {0, (long)nap};
    nanosleep(&t, NULL);
}

#endif
