/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: what the host gives this process: the CPUs it may run on, and its page size. */
#ifndef ZC_CORE_HOST_H
#define ZC_CORE_HOST_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

/*
 * The CPUs in this process's affinity mask (taskset, a container's cpuset), else the CPUs
 * online; at least 1. Threads sized by it use the CPUs the process may run on, not the
 * machine's: a program held to 4 of 64 cores that started 63 threads would have them wait for
 * each other.
 */
unsigned zc__usable_cpus(void);

/* The system's page size (4096 when it cannot be read), read once; any thread may call it. */
size_t zc__page_size(void);

#endif
