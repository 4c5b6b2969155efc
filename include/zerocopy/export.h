/* SPDX-License-Identifier: Apache-2.0 */
/* Symbol visibility for the zerocopy library: only what is marked ZC_EXTERN is exported. */
#ifndef ZEROCOPY_EXPORT_H
#define ZEROCOPY_EXPORT_H

#if defined(__GNUC__)
#define ZC_EXTERN __attribute__((visibility("default")))
#else
#define ZC_EXTERN
#endif

#ifdef __cplusplus
#define ZC_BEGIN_DECLS extern "C" {
#define ZC_END_DECLS   }
#else
#define ZC_BEGIN_DECLS
#define ZC_END_DECLS
#endif

#endif
