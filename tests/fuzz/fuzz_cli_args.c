/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: command-line values, split on NUL bytes into argv: zc stream's whole parser, and
 * the parsers every command shares (numbers, sizes, GPU lists, case patterns, formats, modes). */
#include "fuzz_support.h"

#include "advise_input.h"
#include "cli.h"
#include "stream_cli.h"

#define ZC_FUZZ_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = zc_fuzz_text(data, size);
    if (text == NULL)
        return 0;
    char *argv[ZC_FUZZ_ARGS + 2];
    int argc = 0;
    argv[argc++] = "stream";
    for (char *p = text; argc < ZC_FUZZ_ARGS && p <= text + size; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    static zc_cli_stream_opts o;
    (void)zc_cli_stream_parse(argc, argv, &o);
    for (int i = 1; i < argc; i++) {
        int iv;
        uint64_t u;
        double d;
        size_t bytes, sizes[16], n = 0;
        int devices[ZC_DEVICE_LIST_MAX];
        unsigned char selected[512];
        zc_cli_format format;
        zc_stream_mode mode;
        (void)zc_cli_parse_int(argv[i], 0, 1023, &iv);
        (void)zc_cli_parse_u64(argv[i], 1, UINT64_MAX, &u);
        (void)zc_cli_parse_double(argv[i], 0.0, 1e12, &d);
        (void)zc_cli_advise_parse_size(argv[i], &bytes);
        char hint[256];
        (void)zc_cli_size_hint(argv[i], UINT64_MAX, hint, sizeof hint);
        (void)zc_cli_size_hint(argv[i], 4096, hint, sizeof hint);
        (void)zc_bench_sizes_parse(argv[i], sizes, 16, &n);
        (void)zc_device_list_parse(argv[i], 8, devices, ZC_DEVICE_LIST_MAX, &n);
        if (zc_bench_case_count() <= sizeof selected)
            (void)zc_bench_select(argv[i], selected, zc_bench_case_count(), &n);
        (void)zc_cli_format_parse(argv[i], &format);
        (void)zc_stream_mode_parse(argv[i], &mode);
        (void)zc_cli_stream_parse_list(argv[i], o.tones, 8);
    }
    free(text);
    return 0;
}
