/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's filter taps as text: read from a file (--taps-file) and written out (--save-taps)
 * so that anyone can apply the same filter elsewhere (scipy.signal.lfilter(taps, 1, x)). */
#include "stream_cli.h"

#include "cli.h"
#include "cli_io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A taps file is small: a thousand numbers. */
#define ZC__TAPS_FILE_MAX (1u << 20)

static int zc__separator(int c)
{
    return c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

zc_status zc_cli_stream_taps_read(const char *path, float *taps, size_t *ntaps_p)
{
    size_t len = 0;
    int code = 0;
    char *text = zc_cli_read_input("stream", path, ZC__TAPS_FILE_MAX, &len, &code);
    if (text == NULL) /* said on stderr; missing or too big is bad input (exit 2) */
        return code == ZC_EXIT_USAGE ? ZC_ERR_INVALID_ARG : ZC_ERR_IO;
    zc_status st = ZC_OK;
    if (memchr(text, '\0', len) != NULL)
        st = ZC_CLI_STREAM_FAIL(ZC_ERR_PARSE, "%s holds a NUL byte (at %zu): not a text file", path,
                                (size_t)((char *)memchr(text, '\0', len) - text));
    size_t n = 0;
    /* White space and commas separate numbers, in any mix ("0.25 , 0.5" is two taps). A word
     * is read whole, however long, so that a long number is never split in two. */
    for (char *p = text; st == ZC_OK && *p != '\0';) {
        while (zc__separator((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        char *word = p;
        while (*p != '\0' && !zc__separator((unsigned char)*p))
            p++;
        char saved = *p;
        *p = '\0';
        char *end = NULL;
        errno = 0;
        double v = strtod(word, &end);
        float t = (float)v;
        /* Finite as the float the filter will use, not only as a double (1e39 is not). */
        if (*end != '\0' || end == word || !isfinite(v) || !isfinite(t))
            st = ZC_CLI_STREAM_FAIL(ZC_ERR_PARSE, "%s: '%.40s%s' is not a finite float32 number",
                                    path, word, strlen(word) > 40 ? "..." : "");
        else if (n == ZC_FIR_MAX_TAPS)
            st = ZC_CLI_STREAM_FAIL(ZC_ERR_PARSE, "%s holds more than %d taps", path,
                                    ZC_FIR_MAX_TAPS);
        else
            taps[n++] = t;
        *p = saved;
    }
    free(text);
    if (st == ZC_OK && n == 0)
        st = ZC_CLI_STREAM_FAIL(ZC_ERR_PARSE, "%s holds no taps", path);
    if (st == ZC_OK)
        *ntaps_p = n;
    return st;
}

zc_status zc_cli_stream_taps_put(zc_cli_output *out, const float *taps, size_t ntaps)
{
    int ok = 1;
    /* 9 significant digits give every float32 back exactly. */
    for (size_t k = 0; k < ntaps && ok; k++)
        ok = fprintf(out->f, "%.9g\n", (double)taps[k]) > 0;
    if (!ok) {
        fprintf(stderr, "zc stream: cannot write taps to %s: %s\n", out->path, strerror(errno));
        return ZC_ERR_IO;
    }
    return ZC_OK;
}
