/* SPDX-License-Identifier: Apache-2.0 */
/* The table of zc's commands, in the order `zc --help` lists them. The summaries are also the
 * NAME lines of the man pages (cmake/ManAndCompletion.cmake reads them from `zc --help`). */
#include "commands.h"

#include <string.h>

const zc_command zc_cli_commands[] = {
    {"info", "what this machine's GPUs offer for each technique", zc_cli_cmd_info},
    {"advise", "which technique fits a workload, from measurements", zc_cli_cmd_advise},
    {"report", "one HTML page with plots and the picture, from results", zc_cli_cmd_report},
    {"trace", "run a CUDA program and find its copy pitfalls", zc_cli_cmd_trace},
    {"run", "run a CUDA program with its copy pitfalls cured", zc_cli_cmd_run},
    {"bench", "every technique measured on this machine, verified", zc_cli_cmd_bench},
    {"stream", "real-time FIR through mapped memory vs the classic paths", zc_cli_cmd_stream},
};

const size_t zc_cli_command_count = sizeof zc_cli_commands / sizeof zc_cli_commands[0];

const zc_command *zc_cli_command_find(const char *name)
{
    for (size_t i = 0; i < zc_cli_command_count; i++) {
        if (strcmp(name, zc_cli_commands[i].name) == 0)
            return &zc_cli_commands[i];
    }
    return NULL;
}
