/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's raw sample formats: names, sizes, and the conversions to and from float32. */
#include "stream_format.h"

#include <string.h>

static const char *const zc__type_names[] = {"f32", "s16", "u8"};

int zc_cli_format_parse(const char *name, zc_cli_format *format_p)
{
    int complex = name[0] == 'c';
    const char *type = name + complex;
    for (int t = 0; t < 3; t++) {
        if (strcmp(type, zc__type_names[t]) == 0) {
            format_p->type = (zc_cli_value_type)t;
            format_p->complex = complex;
            return 1;
        }
    }
    return 0;
}

const char *zc_cli_format_name(zc_cli_format format)
{
    static const char *const complex_names[] = {"cf32", "cs16", "cu8"};
    return format.complex ? complex_names[format.type] : zc__type_names[format.type];
}

size_t zc_cli_format_value_bytes(zc_cli_value_type type)
{
    return type == ZC_CLI_VALUE_F32 ? 4 : type == ZC_CLI_VALUE_S16 ? 2 : 1;
}

void zc_cli_format_decode(zc_cli_value_type type, const void *raw, size_t n, float *out)
{
    if (type == ZC_CLI_VALUE_F32) {
        memcpy(out, raw, n * sizeof(float));
    } else if (type == ZC_CLI_VALUE_S16) {
        const unsigned char *b = raw;
        for (size_t i = 0; i < n; i++) {
            int16_t v;
            memcpy(&v, b + 2 * i, 2);
            out[i] = (float)v / 32768.0f;
        }
    } else {
        const unsigned char *b = raw;
        for (size_t i = 0; i < n; i++)
            out[i] = ((float)b[i] - 127.5f) / 127.5f;
    }
}

/* x scaled and rounded to the nearest integer in [lo, hi]; *clipped_p counts it when it was
 * out of range (or NaN). */
static long zc__quantize(float x, double scale, double offset, long lo, long hi,
                         uint64_t *clipped_p)
{
    double v = (double)x * scale + offset;
    if (!(v >= (double)lo - 0.5)) { /* below, or NaN */
        (*clipped_p)++;
        return v != v ? (long)(offset + 0.5) : lo;
    }
    if (v > (double)hi + 0.5) {
        (*clipped_p)++;
        return hi;
    }
    long r = (long)(v < 0 ? v - 0.5 : v + 0.5);
    return r < lo ? lo : r > hi ? hi : r;
}

uint64_t zc_cli_format_encode(zc_cli_value_type type, const float *in, size_t n, void *raw)
{
    uint64_t clipped = 0;
    unsigned char *b = raw;
    if (type == ZC_CLI_VALUE_F32) {
        memcpy(raw, in, n * sizeof(float));
    } else if (type == ZC_CLI_VALUE_S16) {
        for (size_t i = 0; i < n; i++) {
            int16_t v = (int16_t)zc__quantize(in[i], 32768.0, 0.0, -32768, 32767, &clipped);
            memcpy(b + 2 * i, &v, 2);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            b[i] = (unsigned char)zc__quantize(in[i], 127.5, 127.5, 0, 255, &clipped);
    }
    return clipped;
}
