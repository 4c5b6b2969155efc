/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C library's copies (run_libc_copy.h), reached through __memcpy_chk and __memmove_chk with
 * the destination's size equal to the length: they check it, then copy with the C library's own
 * memcpy, never through the process's memcpy symbol. Named by assembler name so that the
 * compiler, which knows them, cannot fold them back into memcpy or memmove, which may be this
 * library's own.
 */
#include "run_libc_copy.h"

extern void *zc__glibc_memcpy_chk(void *dst, const void *src, size_t len,
                                  size_t dst_len) __asm__("__memcpy_chk");
extern void *zc__glibc_memmove_chk(void *dst, const void *src, size_t len,
                                   size_t dst_len) __asm__("__memmove_chk");

void *zc__run_libc_memcpy(void *dst, const void *src, size_t bytes)
{
    return zc__glibc_memcpy_chk(dst, src, bytes, bytes);
}

void *zc__run_libc_memmove(void *dst, const void *src, size_t bytes)
{
    return zc__glibc_memmove_chk(dst, src, bytes, bytes);
}
