/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a taps file (zc stream --taps-file): every tap read is finite, no more than the
 * most a filter may have. */
#include "fuzz_support.h"

#include <math.h>

#include "stream_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = zc_fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    static float taps[ZC_FIR_MAX_TAPS];
    size_t n = 0;
    if (zc_cli_stream_taps_read(path, taps, &n) == ZC_OK) {
        if (n == 0 || n > ZC_FIR_MAX_TAPS)
            abort();
        for (size_t i = 0; i < n; i++)
            if (!isfinite(taps[i]))
                abort();
    }
    close(fd);
    return 0;
}
