/* SPDX-License-Identifier: Apache-2.0 */
/* The exit cleanup (run_exit.h). */
#include "run_exit.h"

#include <pthread.h>
#include <stdlib.h>

#include "run_register.h"

static pthread_once_t zc__once = PTHREAD_ONCE_INIT;

static void zc__at_exit(void)
{
    zc__run_staging_forget_all();
    zc__run_pinning_release_kept();
    zc__run_pins_forget_all();
}

static void zc__register(void)
{
    atexit(zc__at_exit);
}

void zc__run_exit_arm(void)
{
    pthread_once(&zc__once, zc__register);
}
