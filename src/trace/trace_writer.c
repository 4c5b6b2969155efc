/* The trace log of one traced process: a file in the folder zc trace named, one line a record. */
#include "trace_inject.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* Records arrive from CUPTI's buffer thread and from every application thread that calls
 * the CUDA API, so each line is written whole under one lock. */
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
    fprintf(file, "zctrace 1 pid=%ld ram=%llu\n", (long)getpid(), ram);
    pthread_mutex_unlock(&zc__writer_lock);
    return 0;
}

void zc__trace_writer_line(const char *fmt, ...)
{
    pthread_mutex_lock(&zc__writer_lock);
    if (zc__writer_file != NULL) {
        va_list args;
        va_start(args, fmt);
        vfprintf(zc__writer_file, fmt, args);
        va_end(args);
        fputc('\n', zc__writer_file);
    }
    pthread_mutex_unlock(&zc__writer_lock);
}

void zc__trace_writer_close(void)
{
    pthread_mutex_lock(&zc__writer_lock);
    if (zc__writer_file != NULL) {
        fputs("end\n", zc__writer_file);
        fclose(zc__writer_file);
        zc__writer_file = NULL;
    }
    pthread_mutex_unlock(&zc__writer_lock);
}

void zc__trace_note_cupti(const char *key, const char *call, CUptiResult result)
{
    const char *text = NULL;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == NULL)
        text = "unknown CUPTI error";
    zc__trace_writer_line("note %s %s: %s", key, call, text);
}
