/* SPDX-License-Identifier: Apache-2.0 */
/* What zc run checks before the program runs: that the library is the interposition library,
 * that the dynamic loader will preload it into the program, and what must be preloaded first. */
#ifndef ZC_RUN_CHECKS_H
#define ZC_RUN_CHECKS_H

#include <stddef.h>

/*
 * Whether the loader takes path whole as one LD_PRELOAD entry: it splits the list at spaces and
 * colons and expands names that start with '$' ($ORIGIN, $LIB), so a path with any of them
 * (or a tab or newline) is not preloaded as it is written.
 */
int zc_cli_run_preload_safe(const char *path);

/* The copy library (memcpy and memmove replaced: src/run/run_copy_hooks.c), which zc run
 * preloads after its library only for the hostcopy cure (src/run/run_copy_entry.c says why not
 * always) and zc trace to hear of host copies; both find it beside their own library. */
#define ZC_CLI_COPY_LIB_NAME "libzerocopy_run_copy.so"

/* name in the folder of path (the current folder when path has no slash), in out; 0, or -1 when
 * it does not fit. */
int zc_cli_sibling_path(const char *path, const char *name, char *out, size_t size);

/*
 * 0 when path is a 64-bit ELF shared object of this machine whose dynamic symbol table defines
 * the entry points the interposition library must have (cuMemcpyHtoD_v2, dlsym); else -1 and
 * what is wrong in why ("it is not an ELF file"), a phrase that follows "'PATH' is not the
 * interposition library: ". Read from the file: nothing of it runs.
 */
int zc_cli_run_check_library(const char *path, char *why, size_t why_size);

/*
 * Whether the loader will preload a library into program (argv[0], found on PATH as execvp
 * finds it): 0 when it will, or when it is not found or not readable (starting it says why);
 * else -1 and a sentence in why: a statically linked program, a setuid or setgid one whose ids
 * change at exec (the loader then ignores LD_PRELOAD), a 64-bit library into a program of
 * another kind, an AddressSanitizer program whose runtime cannot be found. A script (#!) is
 * judged by nothing here: its interpreter is what the loader starts.
 *
 * A program that loads the AddressSanitizer runtime as a shared library requires it first in
 * LD_PRELOAD: its path is then in asan_runtime_p (taken from LD_PRELOAD when the user put it
 * there, else where the program's own loader finds it), else asan_runtime_p is "".
 */
int zc_cli_run_check_program(const char *program, char *asan_runtime_p, size_t asan_size, char *why,
                             size_t why_size);

#endif
