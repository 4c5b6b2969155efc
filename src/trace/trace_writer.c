/* SPDX-License-Identifier: Apache-2.0 */
/* The trace log of one traced process: a file in the folder zc trace named, one line a record. */
#include "trace_inject.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

/* Each record is written whole under one lock. */
static pthread_mutex_t zc__writer_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *zc__writer_file;

int zc__trace_writer_open(const char *dir)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%ld.log", dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof path) {
        fprintf(stderr, "zc trace (in the traced program): log folder name too long\n");
        return -1;
    }
    FILE *file = fopen(path, "w");
    if (file == NULL) {
        perror("zc trace (in the traced program): opening the trace log");
        return -1;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    unsigned long long ram =
        pages > 0 && page_size > 0 ? (unsigned long long)pages * (unsigned long long)page_size : 0;
    pthread_mutex_lock(&zc__writer_lock);
    zc__writer_file = file;
    zc__trace_write_header(file, (long)getpid(), ram);
    pthread_mutex_unlock(&zc__writer_lock);
    return 0;
}

FILE *zc__trace_writer_lock(void)
{
    pthread_mutex_lock(&zc__writer_lock);
    return zc__writer_file;
}

FILE *zc__trace_writer_trylock(int *locked_p)
{
    *locked_p = pthread_mutex_trylock(&zc__writer_lock) == 0;
    return *locked_p ? zc__writer_file : NULL;
}

void zc__trace_writer_unlock(void)
{
    pthread_mutex_unlock(&zc__writer_lock);
}

void zc__trace_writer_close(void)
{
    uint64_t runtime = 0, inspected = 0, failed = 0;
    zc__trace_launch_counts(&runtime, &inspected, &failed);
    pthread_mutex_lock(&zc__writer_lock);
    if (zc__writer_file != NULL) {
        zc__trace_write_launches(zc__writer_file, runtime, inspected, failed);
        zc__trace_write_end(zc__writer_file);
        fclose(zc__writer_file);
        zc__writer_file = NULL;
    }
    pthread_mutex_unlock(&zc__writer_lock);
}

void zc__trace_note(const char *key, const char *text)
{
    FILE *log = zc__trace_writer_lock();
    if (log != NULL)
        zc__trace_write_note(log, key, text);
    zc__trace_writer_unlock();
}

void zc__trace_note_cupti(const char *key, const char *call, CUptiResult result)
{
    const char *text = NULL;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == NULL)
        text = "unknown CUPTI error";
    char line[240];
    snprintf(line, sizeof line, "%s: %s", call, text);
    zc__trace_note(key, line);
}
