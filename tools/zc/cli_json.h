/* Writing zc's JSON documents. */
#ifndef ZC_CLI_JSON_H
#define ZC_CLI_JSON_H

#include <cjson/cJSON.h>

/*
 * Print doc, indented, to the file at path ("-" for stdout) and delete doc (NULL counts as out
 * of memory). On failure says so on stderr as "zc <command>: ..." and gives ZC_EXIT_FAILURE;
 * otherwise ZC_EXIT_OK.
 */
int zc_cli_write_json(const char *command, cJSON *doc, const char *path);

#endif
