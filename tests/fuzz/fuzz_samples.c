/* Fuzz target: raw samples in any format (zc stream's source), pushed through the streaming
 * engine in cpu mode in pieces of any size: every sample in must come back out, in order. */
#include "fuzz_support.h"

#include "stream_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    static const char *const formats[] = {"f32", "s16", "u8", "cf32", "cs16", "cu8"};
    static zc_cli_stream_opts o;
    memset(&o, 0, sizeof o);
    (void)zc_cli_format_parse(formats[data[0] % 6], &o.format);
    o.channels = o.format.complex ? 2 : 1;
    o.frame_samples = 4u * (1u + data[1] % 64u); /* 4..256, a multiple of 4 values */
    o.ntaps = 1 + data[2] % 16;
    o.source = "fuzz";
    o.timeout_ns = 1000000000ull;
    data += 3;
    size -= 3;
    char path[64];
    int fd = zc_fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    o.source = path;
    zc_cli_stream_source *src = NULL;
    if (zc_cli_stream_source_open(&o, &src) != ZC_OK) {
        close(fd);
        return 0;
    }
    float taps[16];
    for (size_t k = 0; k < o.ntaps; k++)
        taps[k] = 1.0f / (float)o.ntaps;
    zc_stream_config c;
    zc_stream_config_init(&c);
    c.mode = ZC_STREAM_CPU;
    c.taps = taps;
    c.ntaps = o.ntaps;
    c.frame_samples = o.frame_samples;
    c.channels = o.channels;
    c.nonfinite = ZC_STREAM_NONFINITE_ZERO;
    c.discard_output = 1;
    zc_stream *s = NULL;
    if (zc_stream_create(&c, &s) != ZC_OK) { /* frames shorter than the history */
        zc_cli_stream_source_close(src);
        close(fd);
        return 0;
    }
    static float chunk[2 * 300];
    size_t got = 0, piece = 1;
    uint64_t in = 0;
    zc_status st;
    while ((st = zc_cli_stream_source_read(src, chunk, piece, &got)) == ZC_OK) {
        if (zc_stream_push(s, chunk, got, NULL) != ZC_OK)
            abort();
        in += got;
        piece = piece % 300 + 7; /* pieces of changing sizes */
    }
    if (zc_stream_flush(s) != ZC_OK)
        abort();
    size_t out = 0;
    while (zc_stream_pull(s, NULL, 0, 0, &out) == ZC_OK)
        ;
    zc_stream_stats stats;
    zc_stream_stats_get(s, &stats);
    if (!stats.finished || stats.samples_in != in || stats.samples_out != in)
        abort(); /* a sample lost or made up */
    zc_stream_destroy(s);
    zc_cli_stream_source_close(src);
    close(fd);
    return 0;
}
