/* SPDX-License-Identifier: Apache-2.0 */
/* How many CPUs this process may run on (cpus.h). */
#include "core/cpus.h"

#include <sched.h>
#include <unistd.h>

unsigned zc__usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1u;
}
