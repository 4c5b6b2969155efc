/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's samples in: a synthetic generator (tones plus noise), raw samples from a file,
 * stdin or a FIFO in any of the formats (read as they come, with a bound on silence), or all of
 * the input held in memory so that every mode sees the same samples. */
#include "stream_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_io.h"

/* Preloading holds at most this much input. */
#define ZC__PRELOAD_MAX ((size_t)2 << 30)

typedef enum { ZC__SRC_SYNTH, ZC__SRC_FD, ZC__SRC_MEMORY } zc__src_kind;

struct zc_cli_stream_source {
    zc__src_kind kind;
    const zc_cli_stream_opts *o;
    size_t channels;
    zc_synth synth;
    /* fd */
    int fd, own_fd, regular;
    size_t value_bytes, sample_bytes;
    unsigned char *raw;
    size_t raw_cap, raw_have; /* bytes of a sample not yet whole stay at the start */
    uint64_t bytes_read;
    /* memory */
    float *values;
    size_t count, next; /* values */
};

static void zc__synth_reset(zc_cli_stream_source *s)
{
    /* The options were checked: tones below rate / 2, 1 or 2 channels. */
    zc_synth_init(&s->synth, s->o->rate, s->o->tones, s->o->tone_count, s->o->noise, s->channels);
}

/* Wait, up to the timeout, for a writer to open the FIFO fd (opened O_NONBLOCK). A FIFO with
 * no writer yet reports nothing to poll on Linux (not even POLLHUP, until a writer has come and
 * gone), so POLLIN or POLLHUP means one came. */
static zc_status zc__wait_writer(const zc_cli_stream_source *s)
{
    const int timeout_ms = (int)(s->o->timeout_ns / 1000000u);
    int r = zc_cli_wait_readable(s->fd, timeout_ms);
    if (r > 0)
        return ZC_OK;
    if (r == 0)
        return ZC_CLI_STREAM_FAIL(ZC_ERR_TIMEOUT,
                                  "no writer came to the FIFO %s within %d ms (--timeout-ms)",
                                  s->o->source, timeout_ms);
    return ZC_CLI_STREAM_FAIL(ZC_ERR_IO, "waiting for a writer of %s: %s", s->o->source,
                              strerror(errno));
}

/*
 * Open the named input. A blocking open of a FIFO waits for a writer with no bound at all, so
 * it is opened O_NONBLOCK (which returns at once for reading), a FIFO's writer is then waited
 * for within --timeout-ms, and reads block again as they do for a pipe.
 */
static zc_status zc__open_input(zc_cli_stream_source *s)
{
    s->fd = open(s->o->source, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (s->fd < 0) /* an input that cannot be opened is bad input (exit 2), as in every command */
        return ZC_CLI_STREAM_FAIL(ZC_ERR_INVALID_ARG, "cannot open %s: %s", s->o->source,
                                  strerror(errno));
    s->own_fd = 1;
    struct stat info;
    if (fstat(s->fd, &info) == 0 && S_ISFIFO(info.st_mode)) {
        ZC_CHECK(zc__wait_writer(s));
    }
    int flags = fcntl(s->fd, F_GETFL);
    if (flags < 0 || fcntl(s->fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
        return ZC_CLI_STREAM_FAIL(ZC_ERR_IO, "cannot make reads of %s blocking: %s", s->o->source,
                                  strerror(errno));
    return ZC_OK;
}

zc_status zc_cli_stream_source_open(const zc_cli_stream_opts *o, zc_cli_stream_source **src_p)
{
    zc_cli_stream_source *s = calloc(1, sizeof *s);
    if (s == NULL)
        return ZC_CLI_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for the source");
    s->o = o;
    s->channels = o->channels;
    s->fd = -1;
    if (strcmp(o->source, "synth") == 0) {
        s->kind = ZC__SRC_SYNTH;
        zc__synth_reset(s);
        *src_p = s;
        return ZC_OK;
    }
    s->kind = ZC__SRC_FD;
    if (strcmp(o->source, "-") == 0) {
        s->fd = STDIN_FILENO;
    } else {
        zc_status st = zc__open_input(s);
        if (st != ZC_OK) {
            zc_cli_stream_source_close(s);
            return st;
        }
    }
    struct stat info;
    s->regular = fstat(s->fd, &info) == 0 && S_ISREG(info.st_mode);
    if (fstat(s->fd, &info) == 0 && S_ISDIR(info.st_mode)) {
        zc_status st =
            ZC_CLI_STREAM_FAIL(ZC_ERR_INVALID_ARG, "cannot read %s: it is a directory", o->source);
        zc_cli_stream_source_close(s);
        return st;
    }
    s->value_bytes = zc_cli_format_value_bytes(o->format.type);
    s->sample_bytes = s->value_bytes * s->channels;
    *src_p = s;
    return ZC_OK;
}

/* Wait until fd has bytes (or its end) for at most the timeout; pipes and FIFOs only. */
static zc_status zc__wait_readable(zc_cli_stream_source *s)
{
    if (s->regular)
        return ZC_OK;
    const int timeout_ms = (int)(s->o->timeout_ns / 1000000u);
    int r = zc_cli_wait_readable(s->fd, timeout_ms);
    if (r > 0)
        return ZC_OK;
    if (r == 0)
        return ZC_CLI_STREAM_FAIL(ZC_ERR_TIMEOUT,
                                  "no input from %s for %d ms (after %llu bytes): the writer "
                                  "stalled (--timeout-ms)",
                                  s->o->source, timeout_ms, (unsigned long long)s->bytes_read);
    return ZC_CLI_STREAM_FAIL(ZC_ERR_IO, "waiting for %s: %s", s->o->source, strerror(errno));
}

/* Up to max samples from the file descriptor: what a pipe has, or all that a file holds. */
static zc_status zc__fd_read(zc_cli_stream_source *s, float *out, size_t max, size_t *got_p)
{
    const size_t want = max * s->sample_bytes;
    if (s->raw_cap < want) {
        unsigned char *grown = realloc(s->raw, want);
        if (grown == NULL)
            return ZC_CLI_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for %zu bytes of input", want);
        s->raw = grown;
        s->raw_cap = want;
    }
    while (s->raw_have < s->sample_bytes || (s->regular && s->raw_have < want)) {
        ZC_CHECK(zc__wait_readable(s));
        ssize_t n = read(s->fd, s->raw + s->raw_have, want - s->raw_have);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return ZC_CLI_STREAM_FAIL(ZC_ERR_IO, "reading %s at byte %llu: %s", s->o->source,
                                      (unsigned long long)s->bytes_read, strerror(errno));
        if (n == 0) {
            if (s->raw_have >= s->sample_bytes)
                break; /* the end: give the whole samples read */
            if (s->raw_have == 0)
                return ZC_ERR_NOT_FOUND;
            return ZC_CLI_STREAM_FAIL(
                ZC_ERR_PARSE,
                "%s ends inside a sample: its last %zu byte%s, from byte offset %llu, are not "
                "a whole %s sample (%zu bytes); everything before was filtered",
                s->o->source, s->raw_have, s->raw_have == 1 ? "" : "s",
                (unsigned long long)(s->bytes_read - s->raw_have), zc_cli_format_name(s->o->format),
                s->sample_bytes);
        }
        s->raw_have += (size_t)n;
        s->bytes_read += (uint64_t)n;
    }
    const size_t samples = s->raw_have / s->sample_bytes, used = samples * s->sample_bytes;
    zc_cli_format_decode(s->o->format.type, s->raw, samples * s->channels, out);
    memmove(s->raw, s->raw + used, s->raw_have - used);
    s->raw_have -= used;
    *got_p = samples;
    return ZC_OK;
}

zc_status zc_cli_stream_source_read(zc_cli_stream_source *s, float *out, size_t max, size_t *got_p)
{
    *got_p = 0;
    zc_status st = ZC_OK;
    if (s->kind == ZC__SRC_SYNTH) {
        zc_synth_fill(&s->synth, out, max);
        *got_p = max;
    } else if (s->kind == ZC__SRC_MEMORY) {
        size_t n = (s->count - s->next) / s->channels;
        if (n == 0)
            return ZC_ERR_NOT_FOUND;
        *got_p = n < max ? n : max;
        memcpy(out, s->values + s->next, *got_p * s->channels * sizeof(float));
        s->next += *got_p * s->channels;
    } else {
        st = zc__fd_read(s, out, max, got_p);
    }
    return st;
}

zc_status zc_cli_stream_source_preload(zc_cli_stream_source *s)
{
    if (s->kind != ZC__SRC_FD)
        return ZC_OK;
    const size_t chunk = 65536;
    size_t cap = 0;
    for (;;) {
        if (s->count + chunk * s->channels > cap) {
            cap = cap ? cap * 2 : chunk * s->channels * 4;
            if (cap * sizeof(float) > ZC__PRELOAD_MAX)
                return ZC_CLI_STREAM_FAIL(ZC_ERR_NO_MEMORY,
                                          "%s holds over 2 GiB of samples: run one mode at a "
                                          "time, which streams any length",
                                          s->o->source);
            float *grown = realloc(s->values, cap * sizeof(float));
            if (grown == NULL)
                return ZC_CLI_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for preloaded samples");
            s->values = grown;
        }
        size_t got = 0;
        zc_status st = zc__fd_read(s, s->values + s->count, chunk, &got);
        if (st == ZC_ERR_NOT_FOUND)
            break;
        ZC_CHECK(st);
        s->count += got * s->channels;
    }
    s->kind = ZC__SRC_MEMORY;
    s->next = 0;
    return ZC_OK;
}

zc_status zc_cli_stream_source_rewind(zc_cli_stream_source *s)
{
    if (s->kind == ZC__SRC_MEMORY) {
        s->next = 0;
        return ZC_OK;
    }
    if (s->kind == ZC__SRC_FD && s->bytes_read > 0)
        return ZC_CLI_STREAM_FAIL(ZC_ERR_STATE, "%s is read once; preload it to run several modes",
                                  s->o->source);
    if (s->kind == ZC__SRC_FD)
        return ZC_OK; /* not read yet: it starts at its first sample */
    zc__synth_reset(s);
    return ZC_OK;
}

void zc_cli_stream_source_close(zc_cli_stream_source *s)
{
    if (s == NULL)
        return;
    if (s->own_fd)
        close(s->fd);
    free(s->raw);
    free(s->values);
    free(s);
}

int zc_cli_stream_parse_list(const char *text, double *out, int max)
{
    int n = 0;
    const char *p = text;
    while (*p != '\0') {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno != 0 || !(v >= 0.0) || n == max)
            return -1;
        out[n++] = v;
        p = end;
        if (*p == ',' && p[1] == '\0')
            return -1; /* "1," is a list with an empty item, not a list of one */
        if (*p == ',')
            p++;
        else if (*p != '\0')
            return -1;
    }
    return n;
}
