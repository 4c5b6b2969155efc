/* SPDX-License-Identifier: Apache-2.0 */
/* What the host gives this process: its CPUs and its page size (host.h). */
#include "core/host.h"

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

size_t zc__page_size(void)
{
    /* Any thread may be first; they all store the same value, atomically. */
    static size_t page;
    size_t value = __atomic_load_n(&page, __ATOMIC_RELAXED);
    if (value == 0) {
        long read = sysconf(_SC_PAGESIZE);
        value = read > 0 ? (size_t)read : 4096;
        __atomic_store_n(&page, value, __ATOMIC_RELAXED);
    }
    return value;
}
