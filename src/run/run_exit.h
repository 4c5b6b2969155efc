/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: what is ours is given back before the program's CUDA
 * goes away at exit, so that a memory checker finds no pinned memory the program did not
 * leave itself. */
#ifndef ZC_RUN_EXIT_H
#define ZC_RUN_EXIT_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: DESIGN.md's layers (src/CMakeLists.txt)"
#endif

/*
 * Ask for the exit cleanup: called each time the library pins memory of its own (staging),
 * keeps the program's (cache) or pins the program's in place (register). The first call registers
 * it with atexit, after the CUDA runtime and driver have started, so that it runs before their own
 * teardown.
 */
void zc__run_exit_arm(void);

/* The parts the cleanup calls: every staging given back, every kept block freed. */
void zc__run_staging_forget_all(void);
void zc__run_pinning_release_kept(void);

#endif
