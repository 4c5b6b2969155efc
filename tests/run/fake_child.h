/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU tests of zc run's library against the stand-in driver: each case runs in a child
 * process of the test program (its own executable, given the case's name) with the library
 * preloaded as zc run would start it; the parent reads what it printed and the log it left. */
#ifndef ZC_TESTS_RUN_FAKE_CHILD_H
#define ZC_TESTS_RUN_FAKE_CHILD_H

#include <stdint.h>
#include <stdio.h>

#include <cuda.h>

#include "zerocopy/run.h"

/* In a child: a driver call that must succeed, else the case fails (exit 1). */
#define CHECK_CU(call)                                                                             \
    do {                                                                                           \
        CUresult check_r = (call);                                                                 \
        if (check_r != CUDA_SUCCESS) {                                                             \
            printf("FAIL %s: %d\n", #call, (int)check_r);                                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Bytes that never repeat with a period a chunk could share, so that a chunk copied from the
 * wrong place cannot match by chance. */
void fake_child_fill(unsigned char *p, size_t n, unsigned seed);

/* In a child: copies of a buffer from its first byte to the device, three times (the first
 * staged, the second the sample, the third finds it copied twice its size over), so that the
 * register cure pins it in place. 0, or 1 when a copy failed. */
int fake_child_pin_by_copies(unsigned char *host, CUdeviceptr dev, size_t n);

typedef struct child_run {
    char out[4096];
    char err[8192];
    int exit_code;
    zc_run_summary summary;
} child_run;

/*
 * Run this program again as `argv0 mode` with the library and the copy library preloaded, small
 * staging (chunks of 256 KiB, two buffers, three threads, cures from 64 KiB) and the extra
 * variables given (name, value, ..., NULL); wait for it and read its output, its exit and its
 * log.
 */
void run_child(const char *mode, const char *const *extra_env, child_run *r);

/* A counter's calls in a child's log. */
uint64_t child_calls(const child_run *r, zc_run_counter c);

#endif
