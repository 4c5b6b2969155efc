/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a trace log as the injection library writes it, read and analysed. */
#include "fuzz_support.h"

#include "zerocopy/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = zc_fuzz_text(data, size);
    if (text == NULL)
        return 0;
    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, text, "fuzz.log") == ZC_OK) {
        static zc_trace_report report;
        zc_trace_params params = {50.0, "fuzz", 0, NULL, NULL};
        (void)zc_trace_analyze(&log, &params, &report);
    }
    zc_trace_log_free(&log);
    free(text);
    return 0;
}
