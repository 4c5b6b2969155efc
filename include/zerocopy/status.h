/* SPDX-License-Identifier: Apache-2.0 */
/* Status codes returned by every zerocopy call, and the detail of the last failure. */
#ifndef ZEROCOPY_STATUS_H
#define ZEROCOPY_STATUS_H

#include "zerocopy/export.h"

/*
 * The one list of statuses. Each entry is X(NAME, value, "description"); the enum and the
 * strings below are generated from it so that they cannot drift apart.
 */
#define ZC_STATUS_MAP(X)                                                                           \
    X(OK, 0, "success")                                                                            \
    X(ERR_INVALID_ARG, -1, "invalid argument")                                                     \
    X(ERR_OVERFLOW, -2, "size overflow")                                                           \
    X(ERR_NO_DEVICE, -3, "no usable CUDA device or driver")                                        \
    X(ERR_CUDA, -4, "CUDA call failed")                                                            \
    X(ERR_NO_MEMORY, -5, "out of memory")                                                          \
    X(ERR_UNSUPPORTED, -6, "not supported on this device")                                         \
    X(ERR_WRONG_KIND, -7, "pointer or buffer of the wrong kind")                                   \
    X(ERR_OVERLAP, -8, "range overlaps memory already registered")                                 \
    X(ERR_NOT_BASE, -9, "pointer is not the base of an allocation or registration")                \
    X(ERR_DOUBLE_FREE, -10, "handle already freed")                                                \
    X(ERR_TIMEOUT, -11, "timed out")                                                               \
    X(ERR_KERNEL, -12, "GPU kernel failed or stopped")                                             \
    X(ERR_VERIFY, -13, "data verification failed")                                                 \
    X(ERR_IO, -14, "input or output error")                                                        \
    X(ERR_PARSE, -15, "malformed input")                                                           \
    X(ERR_NOT_FOUND, -16, "not found")                                                             \
    X(ERR_STATE, -17, "call not valid in the object's current state")                              \
    X(ERR_DROPPED, -18, "frame dropped by policy")

#define ZC__STATUS_ENUM(name, value, text) ZC_##name = value,

/* 0 is success; every failure is negative. */
typedef enum zc_status { ZC_STATUS_MAP(ZC__STATUS_ENUM) } zc_status;

#undef ZC__STATUS_ENUM

ZC_BEGIN_DECLS

/* A fixed description of a status ("out of memory"); never NULL, "unknown status" if unknown. */
ZC_EXTERN const char *zc_status_str(zc_status status);

/* The status's name as written in the enum without its prefix ("ERR_NO_MEMORY"). */
ZC_EXTERN const char *zc_status_name(zc_status status);

/*
 * What the last failing zerocopy call on this thread said: the call that failed, the cause
 * (for CUDA, the error's name and text) and the source location. Empty when nothing failed.
 * The string belongs to the thread and is overwritten by the next failure.
 */
ZC_EXTERN const char *zc_last_error(void);

/* Forget the last failure's detail on this thread. */
ZC_EXTERN void zc_clear_error(void);

ZC_END_DECLS

/*
 * Propagate a failed status in one line, in a function that itself returns zc_status: evaluate
 * expr (a zc_status) once and return it when it is not ZC_OK. The failure's detail stays in
 * zc_last_error() for the caller to report.
 */
#define ZC_CHECK(expr)                                                                             \
    do {                                                                                           \
        zc_status zc__check_s = (expr);                                                            \
        if (zc__check_s != ZC_OK)                                                                  \
            return zc__check_s;                                                                    \
    } while (0)

#endif
