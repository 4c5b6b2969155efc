/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise's inputs: files read whole, handed to the library's readers, failures said once. */
#include "advise_input.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"

int zc_cli_advise_parse_size(const char *text, size_t *bytes_p)
{
    /* The project's one size grammar, as a workload file's "bytes" reads it. */
    uint64_t bytes = 0;
    if (text == NULL || zc_size_parse(text, ZC_WORKLOAD_BYTES_MAX, &bytes) != ZC_OK) {
        zc_clear_error();
        return 0;
    }
    *bytes_p = (size_t)bytes;
    return 1;
}

void zc_cli_advise_size_text(double bytes, char *out, size_t size)
{
    /* In range before the cast: a double past 2^64 does not convert. */
    uint64_t b = bytes > 0.0 ? (bytes < 1.8e19 ? (uint64_t)bytes : UINT64_MAX) : 0;
    (void)zc_size_format(b, out, size);
}

static const char *zc__shown(const char *path)
{
    return strcmp(path, "-") == 0 ? "stdin" : path;
}

zc_status zc_cli_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                              char *notes, size_t notes_size)
{
    int code = 0;
    cJSON *doc = zc_cli_read_json("advise", path, &code); /* says why on stderr */
    if (doc == NULL)
        return code == ZC_EXIT_USAGE ? ZC_ERR_INVALID_ARG : ZC_ERR_IO;
    zc_status status =
        zc_profile_from_document(doc, zc__shown(path), profile_p, measured_p, notes, notes_size);
    cJSON_Delete(doc);
    if (status != ZC_OK)
        fprintf(stderr, "zc advise: %s: %s\n", zc__shown(path), zc_last_error());
    return status;
}

int zc_cli_profile_add_stream_file(zc_profile *profile, const char *path)
{
    int code = ZC_EXIT_OK;
    cJSON *doc = zc_cli_read_json("advise", path, &code);
    if (doc == NULL)
        return code;
    size_t added = 0;
    zc_status status = zc_profile_add_stream_json(profile, doc, path, &added);
    cJSON_Delete(doc);
    if (status == ZC_ERR_PARSE || status == ZC_ERR_UNSUPPORTED) {
        /* Not a stream result: a usage error; a paced run: said, and the others still count. */
        fprintf(stderr, "zc advise: %s\n", zc_last_error());
        return status == ZC_ERR_PARSE ? ZC_EXIT_USAGE : ZC_EXIT_OK;
    }
    if (status != ZC_OK)
        return zc_cli_fail("advise", path, status);
    if (added == 0)
        fprintf(stderr, "zc advise: %s: no run that ended ok\n", path);
    return ZC_EXIT_OK;
}

void zc_cli_bench_source(const cJSON *doc, char *out, size_t size)
{
    const cJSON *dev =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(doc, "machine"), "devices"),
                           0);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(dev, "name");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(doc, "mode");
    const cJSON *when = cJSON_GetObjectItemCaseSensitive(doc, "created_utc");
    snprintf(out, size, "%.80s, zc bench --%.16s %.32s",
             cJSON_IsString(name) ? name->valuestring : "a GPU not named",
             cJSON_IsString(mode) ? mode->valuestring : "?",
             cJSON_IsString(when) ? when->valuestring : "undated");
}
