/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: whose definition of a function the program's calls
 * reach. */
#ifndef ZC_RUN_REACH_H
#define ZC_RUN_REACH_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

/* 1 when the process's calls of the function name reach the definition in the loaded object that
 * holds the address inside (this library, given one of its own functions), 0 when they reach
 * another's or the question has no answer. */
int zc__run_reaches(const char *name, const void *inside);

#endif
