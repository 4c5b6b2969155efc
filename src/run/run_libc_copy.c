/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C library's copies (run_libc_copy.h), reached through __memcpy_chk and __memmove_chk with
 * the destination's size equal to the length: they check it, then copy with the C library's own
 * memcpy, never through the process's memcpy symbol. Called through pointers read as volatile:
 * compilers know these functions, and one that sees such a call (clang does, even by assembler
 * name) makes it a call of memcpy or memmove, which would be this library's own again.
 */
#include "run_libc_copy.h"

extern void *__memcpy_chk(void *dst, const void *src, size_t len, size_t dst_len);
extern void *__memmove_chk(void *dst, const void *src, size_t len, size_t dst_len);

typedef void *(*zc__checked_copy_fn)(void *dst, const void *src, size_t len, size_t dst_len);

/* Set by the loader's relocations, before any code of the process can call them. */
static zc__checked_copy_fn volatile zc__memcpy_chk = __memcpy_chk;
static zc__checked_copy_fn volatile zc__memmove_chk = __memmove_chk;

void *zc__run_libc_memcpy(void *dst, const void *src, size_t bytes)
{
    return zc__memcpy_chk(dst, src, bytes, bytes);
}

void *zc__run_libc_memmove(void *dst, const void *src, size_t bytes)
{
    return zc__memmove_chk(dst, src, bytes, bytes);
}
