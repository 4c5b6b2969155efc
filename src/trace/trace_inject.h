/* Internal: the pieces of the zc trace injection library and the log lines they write. */
#ifndef ZC_TRACE_INJECT_H
#define ZC_TRACE_INJECT_H

#include <stdint.h>

#include <cupti.h>

/*
 * The log is plain text, one record a line, so that `zc trace` and its tests can read and
 * write it by hand (docs/pitfalls.md describes each field):
 *   zctrace 1 pid=<pid> ram=<bytes>
 *   copy <dir> <src kind> <dst kind> <bytes> <start ns> <end ns> <stream> <async 0|1> <device>
 *   memset <mem kind> <bytes> <start ns> <end ns> <stream> <async 0|1>
 *   kernel <start ns> <end ns> <stream> <name>
 *   um <counter> <value> <start ns> <end ns>
 *   api <name> <bytes> <flags> <pointer hex> <start ns> <end ns> <ok 0|1> <rt|drv>
 *   note <key> <free text>
 *   dropped <records>
 *   end
 */

/* Open "<dir>/<pid>.log" and write the header; 0 on success, -1 with a message on stderr. */
int zc__trace_writer_open(const char *dir);

/* Write one line (printf format, newline added) under the writer's lock; no-op when closed. */
void zc__trace_writer_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write the end line and close the log. */
void zc__trace_writer_close(void);

/* Enable the activity kinds and register the buffer callbacks; notes what is unavailable. */
void zc__trace_activity_start(void);

/* Deliver every buffered record to the log (cuptiActivityFlushAll) and note dropped records. */
void zc__trace_activity_flush(void);

/* Subscribe to the runtime and driver calls that allocate, pin and map host memory. */
void zc__trace_callbacks_start(void);

/* Log a CUPTI failure as a note line: "note <key> <call>: <CUPTI error text>". */
void zc__trace_note_cupti(const char *key, const char *call, CUptiResult result);

#endif
