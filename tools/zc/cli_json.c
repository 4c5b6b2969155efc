/* Writing zc's JSON documents to a file or stdout, with the failure said once. */
#include "cli_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int zc_cli_write_json(const char *command, cJSON *doc, const char *path)
{
    char *text = doc != NULL ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (text == NULL)
        return zc_cli_fail(command, "building JSON", ZC_ERR_NO_MEMORY);
    int to_stdout = strcmp(path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(path, "w");
    int ok = out != NULL && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    int saved = errno;
    if (out != NULL && (to_stdout ? fflush(out) : fclose(out)) != 0)
        ok = 0, saved = errno;
    free(text);
    if (!ok) {
        fprintf(stderr, "zc %s: cannot write JSON to %s: %s\n", command,
                to_stdout ? "stdout" : path, strerror(saved));
        return ZC_EXIT_FAILURE;
    }
    return ZC_EXIT_OK;
}
