/* SPDX-License-Identifier: Apache-2.0 */
/* The entry point the CUDA driver calls in a traced program (CUDA_INJECTION64_PATH), and the
 * flush at exit. */
#include "trace_inject.h"

#include <pthread.h>
#include <stdlib.h>

/* The folder zc trace created for the logs; each process writes "<pid>.log" in it. */
#define ZC__LOG_DIR_ENV "ZC_TRACE_DIR"

static pthread_once_t zc__once = PTHREAD_ONCE_INIT;

/* Runs once, after the program's main has returned or exit() was called, while the CUDA
 * driver is still loaded: every record still buffered in CUPTI is written, then the log ends.
 * A program that leaves through _exit() or a signal loses what was still buffered; the missing
 * end line tells zc trace so. */
static void zc__at_exit(void)
{
    zc__trace_activity_flush();
    zc__trace_launch_refusals_note();
    zc__trace_host_copies_note();
    zc__trace_writer_close();
}

static void zc__initialize(void)
{
    const char *dir = getenv(ZC__LOG_DIR_ENV);
    if (dir == NULL || dir[0] == '\0')
        return; /* loaded outside zc trace: record nothing */
    if (zc__trace_writer_open(dir) != 0)
        return;
    zc__trace_callbacks_start();
    zc__trace_activity_start();
    zc__trace_host_copies_start();
    /* After CUPTI's own refusals, which say first why nothing may have been recorded. */
    zc__trace_counters_note();
    atexit(zc__at_exit);
}

/* The CUDA driver calls this once when it initialises in the program; 1 means success, and the
 * trace never makes the program fail. */
__attribute__((visibility("default"))) int InitializeInjection(void);

int InitializeInjection(void)
{
    pthread_once(&zc__once, zc__initialize);
    return 1;
}
