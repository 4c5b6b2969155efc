/* zc stream's samples: a synthetic generator (tones plus noise), raw float32 or int16 from a
 * file or stdin, or frames preloaded into memory so that every mode sees the same input. */
#include "stream_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct zc_stream_source {
    zc_stream_opts o;
    size_t words; /* floats per frame */
    zc_synth synth;
    /* file */
    FILE *file;
    int own_file;
    void *raw;
    /* preloaded */
    float *frames;
    size_t frame_count, next;
};

static void zc__synth_reset(zc_stream_source *s)
{
    /* The options were checked: tones below rate / 2, 1 or 2 channels. */
    zc_synth_init(&s->synth, s->o.rate, s->o.tones, s->o.tone_count, s->o.noise, s->o.channels);
}

static zc_status zc__file_frame(zc_stream_source *s, float *frame)
{
    size_t size = s->o.format_s16 ? 2 : 4;
    size_t got = fread(s->raw, size, s->words, s->file);
    if (got < s->words) {
        if (ferror(s->file))
            return ZC_STREAM_FAIL(ZC_ERR_IO, "reading %s: %s", s->o.source, strerror(errno));
        return ZC_ERR_NOT_FOUND; /* end of input; a partial last frame is not filtered */
    }
    if (s->o.format_s16) {
        const int16_t *v = s->raw;
        for (size_t i = 0; i < s->words; i++)
            frame[i] = (float)v[i] / 32768.0f;
    } else {
        memcpy(frame, s->raw, s->words * 4);
        for (size_t i = 0; i < s->words; i++) {
            if (frame[i] != frame[i] || frame[i] - frame[i] != 0.0f) /* NaN or infinite */
                return ZC_STREAM_FAIL(ZC_ERR_PARSE, "%s holds a non-finite sample", s->o.source);
        }
    }
    return ZC_OK;
}

static zc_status zc__next(zc_stream_source *s, float *frame)
{
    if (s->file != NULL)
        return zc__file_frame(s, frame);
    zc_synth_fill(&s->synth, frame, s->o.frame_samples);
    return ZC_OK;
}

zc_status zc_stream_source_open(const zc_stream_opts *o, int preload, zc_stream_source **src_p)
{
    zc_stream_source *s = calloc(1, sizeof *s);
    if (s == NULL)
        return ZC_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for the source");
    s->o = *o;
    s->words = o->frame_samples * o->channels;
    zc_status st = ZC_OK;
    if (strcmp(o->source, "synth") != 0) {
        if (strcmp(o->source, "-") == 0) {
            s->file = stdin;
        } else {
            s->file = fopen(o->source, "rb");
            if (s->file == NULL) {
                st = ZC_STREAM_FAIL(ZC_ERR_IO, "cannot open %s: %s", o->source, strerror(errno));
                free(s);
                return st;
            }
            s->own_file = 1;
        }
        s->raw = malloc(s->words * 4);
        if (s->raw == NULL) {
            st = ZC_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for a frame");
            goto fail;
        }
    }
    zc__synth_reset(s);
    if (preload) {
        /* Every mode gets the same frames: hold them all (warm-up included). */
        uint64_t want = o->warmup + (o->frames ? o->frames : 1000000);
        size_t cap = 0;
        const size_t limit = (size_t)2 << 30;
        while (s->frame_count < want) {
            if (s->frame_count == cap) {
                cap = cap ? cap * 2 : 64;
                if (cap * s->words * 4 > limit) {
                    st = ZC_STREAM_FAIL(ZC_ERR_NO_MEMORY,
                                        "the input is over 2 GiB; run one mode at a time, "
                                        "or fewer --frames");
                    goto fail;
                }
                float *grown = realloc(s->frames, cap * s->words * 4);
                if (grown == NULL) {
                    st = ZC_STREAM_FAIL(ZC_ERR_NO_MEMORY, "no memory for preloaded frames");
                    goto fail;
                }
                s->frames = grown;
            }
            st = zc__next(s, s->frames + s->frame_count * s->words);
            if (st == ZC_ERR_NOT_FOUND)
                break;
            if (st != ZC_OK)
                goto fail;
            s->frame_count++;
        }
        st = ZC_OK;
        if (s->frame_count == 0) {
            st = ZC_STREAM_FAIL(ZC_ERR_PARSE, "%s holds no whole frame (%zu values)", o->source,
                                s->words);
            goto fail;
        }
        if (s->own_file)
            fclose(s->file);
        s->file = NULL;
        s->own_file = 0;
    }
    *src_p = s;
    return ZC_OK;
fail:
    zc_stream_source_close(s);
    return st;
}

zc_status zc_stream_source_rewind(zc_stream_source *s)
{
    if (s->frames != NULL) {
        s->next = 0;
        return ZC_OK;
    }
    if (s->file != NULL)
        return ZC_STREAM_FAIL(ZC_ERR_STATE, "%s cannot be read twice", s->o.source);
    zc__synth_reset(s);
    return ZC_OK;
}

zc_status zc_stream_source_next(zc_stream_source *s, float *frame)
{
    if (s->frames != NULL) {
        if (s->next == s->frame_count)
            return ZC_ERR_NOT_FOUND;
        memcpy(frame, s->frames + s->next * s->words, s->words * 4);
        s->next++;
        return ZC_OK;
    }
    return zc__next(s, frame);
}

void zc_stream_source_close(zc_stream_source *s)
{
    if (s == NULL)
        return;
    if (s->own_file)
        fclose(s->file);
    free(s->raw);
    free(s->frames);
    free(s);
}

int zc_stream_parse_list(const char *text, double *out, int max)
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
        if (*p == ',')
            p++;
        else if (*p != '\0')
            return -1;
    }
    return n;
}

zc_status zc_stream_taps_read(const char *path, float *taps, size_t *ntaps_p)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return ZC_STREAM_FAIL(ZC_ERR_IO, "cannot open taps file %s: %s", path, strerror(errno));
    size_t n = 0;
    char word[128];
    zc_status st = ZC_OK;
    for (;;) {
        /* White space and commas separate numbers, in any mix ("0.25 , 0.5" is two taps). */
        int c;
        do
            c = fgetc(f);
        while (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n');
        if (c == EOF)
            break;
        ungetc(c, f);
        if (fscanf(f, "%127[^ \t\r\n,]", word) != 1)
            break;
        char *end = NULL;
        double v = strtod(word, &end);
        if (*end != '\0' || v != v || v - v != 0.0) {
            st = ZC_STREAM_FAIL(ZC_ERR_PARSE, "%s: '%s' is not a number", path, word);
            break;
        }
        if (n == ZC_FIR_MAX_TAPS) {
            st = ZC_STREAM_FAIL(ZC_ERR_PARSE, "%s holds more than %d taps", path, ZC_FIR_MAX_TAPS);
            break;
        }
        taps[n++] = (float)v;
    }
    if (st == ZC_OK && ferror(f))
        st = ZC_STREAM_FAIL(ZC_ERR_IO, "reading taps file %s: %s", path, strerror(errno));
    fclose(f);
    if (st == ZC_OK && n == 0)
        st = ZC_STREAM_FAIL(ZC_ERR_PARSE, "%s holds no taps", path);
    if (st == ZC_OK)
        *ntaps_p = n;
    return st;
}
