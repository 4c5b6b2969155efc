/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's samples out: filtered samples in the output format to a file or stdout, written
 * as they come; to a pipe, FIFO or terminal each write is flushed at once, so that a player
 * downstream (sox, aplay) gets every frame as soon as it is filtered. */
#include "stream_cli.h"

#include "cli.h"
#include "cli_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct zc_cli_stream_sink {
    zc_cli_output out; /* a regular file is made whole beside its target, then renamed */
    FILE *f;
    const char *name;
    int flush_each;
    zc_cli_format format;
    size_t channels;
    unsigned char *raw;
    size_t raw_cap;
};

/* The status for an exit code of the output module, so that the command exits with it. */
static zc_status zc__exit_status(int code)
{
    switch (code) {
    case ZC_EXIT_OK:
        return ZC_OK;
    case ZC_EXIT_USAGE:
        return ZC_ERR_INVALID_ARG;
    case ZC_EXIT_TIMEOUT:
        return ZC_ERR_TIMEOUT;
    default:
        return ZC_ERR_IO;
    }
}

zc_status zc_cli_stream_sink_open(const zc_cli_stream_opts *o, zc_cli_stream_sink **sink_p)
{
    zc_cli_stream_sink *k = calloc(1, sizeof *k);
    if (k == NULL)
        return ZC_CLI_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for the output");
    k->name = o->output;
    k->format = o->output_format;
    k->channels = o->channels;
    const char *const inputs[] = {o->source, o->taps_file};
    int code = zc_cli_output_open(&k->out, "stream", o->output, o->force, inputs, 2);
    if (code != 0) {
        free(k);
        return zc__exit_status(code); /* said on stderr */
    }
    k->f = k->out.f;
    struct stat info;
    k->flush_each = !(fstat(fileno(k->f), &info) == 0 && S_ISREG(info.st_mode));
    *sink_p = k;
    return ZC_OK;
}

zc_status zc_cli_stream_sink_write(zc_cli_stream_sink *k, const float *samples, size_t count,
                                   uint64_t *clipped_p)
{
    const size_t values = count * k->channels;
    const size_t bytes = values * zc_cli_format_value_bytes(k->format.type);
    const void *data = samples;
    if (k->format.type != ZC_CLI_VALUE_F32) {
        if (k->raw_cap < bytes) {
            unsigned char *grown = realloc(k->raw, bytes);
            if (grown == NULL)
                return ZC_CLI_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for %zu output bytes",
                                          bytes);
            k->raw = grown;
            k->raw_cap = bytes;
        }
        *clipped_p += zc_cli_format_encode(k->format.type, samples, values, k->raw);
        data = k->raw;
    }
    if (fwrite(data, 1, bytes, k->f) != bytes || (k->flush_each && fflush(k->f) != 0))
        return ZC_CLI_STREAM_FAIL(ZC_ERR_IO, "writing %s: %s", k->name, strerror(errno));
    return ZC_OK;
}

zc_status zc_cli_stream_sink_close(zc_cli_stream_sink *k, int succeeded)
{
    if (k == NULL)
        return ZC_OK;
    /* Samples still buffered are written here: a full disk shows only now (said by commit). A
     * failed run's samples never replace a file. */
    zc_status st = zc__exit_status(zc_cli_output_finish(&k->out, succeeded));
    free(k->raw);
    free(k);
    return st;
}
