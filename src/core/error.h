/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: recording the detail of a failure in the thread's last-error string. */
#ifndef ZC_CORE_ERROR_H
#define ZC_CORE_ERROR_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "zerocopy/status.h"

#if defined(__GNUC__)
#define ZC__PRINTF(fmt_index, args_index) __attribute__((format(printf, fmt_index, args_index)))
#else
#define ZC__PRINTF(fmt_index, args_index)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Record "<message> (file:line)" as this thread's last error and return status unchanged, so
 * that a failure is reported and returned in one statement: return ZC_FAIL(ZC_ERR_..., "...").
 */
zc_status zc__fail(zc_status status, const char *file, int line, const char *fmt, ...)
    ZC__PRINTF(4, 5);

/* Begin (1) or end (0) a stretch whose failures record nothing (ZC_CHECK_IGNORE); they nest. */
void zc__error_hold(int hold);

#ifdef __cplusplus
}
#endif

#define ZC_FAIL(status, ...) zc__fail((status), __FILE__, __LINE__, __VA_ARGS__)

/* Reject a NULL argument with a detail naming the function and the argument. */
#define ZC_REQUIRE_ARG(arg)                                                                        \
    do {                                                                                           \
        if ((arg) == NULL)                                                                         \
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: argument '%s' is NULL", __func__, #arg);       \
    } while (0)

/* ZC_CHECK, the one-line propagation, is public: zerocopy/status.h. */

/* Evaluate expr (a zc_status) for what it does and ignore its failure, leaving the thread's last
 * error as it was: for cleanup after another failure, whose detail is the one to report, and
 * best-effort restoring. ZC_CHECK_IGNORE(ZC_CUDA(cudaFree(p))) also clears the CUDA runtime's
 * last-error slot, as ZC_CUDA does for every failure. */
#define ZC_CHECK_IGNORE(expr)                                                                      \
    do {                                                                                           \
        zc__error_hold(1);                                                                         \
        (void)(expr);                                                                              \
        zc__error_hold(0);                                                                         \
    } while (0)

/* The same for code that unwinds: store the status in status_var and goto label on failure. */
#define ZC_CHECK_GOTO(expr, status_var, label)                                                     \
    do {                                                                                           \
        (status_var) = (expr);                                                                     \
        if ((status_var) != ZC_OK)                                                                 \
            goto label;                                                                            \
    } while (0)

#endif
