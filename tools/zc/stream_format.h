/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's raw sample formats: float32, int16 and unsigned 8-bit values, real or as
 * interleaved I/Q pairs (cf32, cs16, cu8 as SDR tools such as rtl_sdr write them). */
#ifndef ZC_STREAM_FORMAT_H
#define ZC_STREAM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum zc_cli_value_type {
    ZC_CLI_VALUE_F32 = 0, /* native float32, as sox -e float -b 32 writes it */
    ZC_CLI_VALUE_S16 = 1, /* native int16, full scale 32768 */
    ZC_CLI_VALUE_U8 = 2   /* unsigned 8-bit around 127.5 (rtl_sdr's cu8), full scale 127.5 */
} zc_cli_value_type;

typedef struct zc_cli_format {
    zc_cli_value_type type;
    int complex; /* interleaved I/Q: two values per sample */
} zc_cli_format;

/* Parse "f32", "s16", "u8", "cf32", "cs16" or "cu8"; 0 when it is none of them. */
int zc_cli_format_parse(const char *name, zc_cli_format *format_p);

/* The format's name ("cs16"). */
const char *zc_cli_format_name(zc_cli_format format);

/* Bytes of one value. */
size_t zc_cli_format_value_bytes(zc_cli_value_type type);

/* n values from raw bytes into floats (full scale 1.0). */
void zc_cli_format_decode(zc_cli_value_type type, const void *raw, size_t n, float *out);

/* n floats into raw bytes; integer types round and clip to their range. Gives how many values
 * were clipped (NaN counts as clipped and becomes 0). */
uint64_t zc_cli_format_encode(zc_cli_value_type type, const float *in, size_t n, void *raw);

#endif
