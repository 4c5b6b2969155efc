/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: how many CPUs this process may run on. */
#ifndef ZC_CORE_CPUS_H
#define ZC_CORE_CPUS_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

/*
 * The CPUs in this process's affinity mask (taskset, a container's cpuset), else the CPUs
 * online; at least 1. Threads sized by it use the CPUs the process may run on, not the
 * machine's: a program held to 4 of 64 cores that started 63 threads would have them wait for
 * each other.
 */
unsigned zc__usable_cpus(void);

#endif
