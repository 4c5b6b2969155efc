/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench's progress bar: drawn on stderr only when it is a terminal. */
#include <string.h>
#include <unistd.h>

#include "bench_output.h"

void zc_cli_bench_progress_init(zc_bench_progress *p, FILE *stream)
{
    p->enabled = isatty(fileno(stream));
    p->drawn = 0;
}

void zc_cli_bench_progress_update(void *user, const char *key, double fraction)
{
    zc_bench_progress *p = user;
    if (p == NULL || !p->enabled)
        return;
    enum { width = 30 };
    int filled = (int)(fraction * width + 0.5);
    if (filled > width)
        filled = width;
    char bar[width + 1];
    memset(bar, '#', (size_t)filled);
    memset(bar + filled, '.', (size_t)(width - filled));
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %3d%% %-40.40s", bar, (int)(fraction * 100.0 + 0.5), key);
    fflush(stderr);
    p->drawn = 1;
}

void zc_cli_bench_progress_finish(zc_bench_progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(stderr, "\r%80s\r", "");
        fflush(stderr);
    }
    p->drawn = 0;
}
