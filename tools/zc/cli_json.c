/* SPDX-License-Identifier: Apache-2.0 */
/* Writing zc's JSON documents to a file or stdout, whole or not at all, the failure said once. */
#include "cli_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "zerocopy/json.h"

int zc_cli_json_commit(const char *command, cJSON *doc, zc_cli_output *out)
{
    /* Names from programs, logs and devices may not be UTF-8: every document is made valid
     * JSON text here, the one door all of zc's documents go out through. */
    zc_status clean = doc != NULL ? zc_json_sanitize(doc, NULL) : ZC_OK;
    if (clean != ZC_OK) {
        cJSON_Delete(doc);
        zc_cli_output_abort(out);
        return zc_cli_fail(command, "building JSON", clean);
    }
    char *text = doc != NULL ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (text == NULL) {
        zc_cli_output_abort(out);
        return zc_cli_fail(command, "building JSON", ZC_ERR_NO_MEMORY);
    }
    int ok = fputs(text, out->f) >= 0 && fputc('\n', out->f) != EOF;
    int saved = errno;
    free(text);
    if (!ok) {
        fprintf(stderr, "zc %s: cannot write JSON to %s: %s\n", command,
                out->f == stdout ? "stdout" : out->path, strerror(saved));
        zc_cli_output_abort(out);
        return ZC_EXIT_FAILURE;
    }
    return zc_cli_output_commit(out);
}

int zc_cli_json_commit_built(const char *command, zc_status built, cJSON *doc, zc_cli_output *out)
{
    if (built != ZC_OK) {
        cJSON_Delete(doc);
        zc_cli_output_abort(out);
        return zc_cli_fail(command, "building JSON", built);
    }
    return zc_cli_json_commit(command, doc, out);
}

int zc_cli_write_json(const char *command, cJSON *doc, const char *path, int force,
                      const char *const *inputs, size_t ninputs)
{
    zc_cli_output out;
    int code = zc_cli_output_open(&out, command, path, force, inputs, ninputs);
    if (code != ZC_EXIT_OK) {
        cJSON_Delete(doc);
        return code;
    }
    return zc_cli_json_commit(command, doc, &out);
}

cJSON *zc_cli_program_doc(const char *schema, char *const *argv, int exit_code, int signal)
{
    cJSON *doc = NULL;
    return zc_program_run_to_json(schema, argv, exit_code, signal, &doc) == ZC_OK ? doc : NULL;
}
