/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fork, replaced so that a row hears of it before it starts (FORK_CALLED), at a point where it
 * may still call CUDA: fork's own handlers (FORK_PREPARE and after) may not, as the driver's
 * handlers, which run before them, may hold its locks. Then the next definition (glibc's, or a
 * wrapper preloaded after this library) forks as it would have. Programs that start others
 * through posix_spawn, system or vfork never copy their memory, and are left to those.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

#include "run_cures.h"
#include "run_driver.h"

typedef pid_t (*zc__fork_fn)(void);

static zc__fork_fn zc__next_fork;

/* Looked up once, as the library loads: fork may be called from a signal handler, where dlsym
 * may not. */
__attribute__((constructor)) static void zc__fork_resolve(void)
{
    zc__fork_fn fn;
    *(void **)&fn = zc__run_real_dlsym(RTLD_NEXT, "fork");
    __atomic_store_n(&zc__next_fork, fn, __ATOMIC_RELEASE);
}

__attribute__((visibility("default"))) pid_t fork(void)
{
    zc__fork_fn fn = __atomic_load_n(&zc__next_fork, __ATOMIC_ACQUIRE);
    if (fn == NULL) { /* called before the library's constructors ran */
        zc__fork_resolve();
        fn = __atomic_load_n(&zc__next_fork, __ATOMIC_ACQUIRE);
    }
    if (fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    zc__run_fork_called();
    return fn();
}
