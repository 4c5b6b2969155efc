/* SPDX-License-Identifier: Apache-2.0 */
/* The table of zc's commands, and the lookup of one by name. */
#ifndef ZC_COMMANDS_H
#define ZC_COMMANDS_H

#include <stddef.h>

#include "cli.h"

extern const zc_command zc_cli_commands[];
extern const size_t zc_cli_command_count;

/* The command called name, or NULL when zc has none of that name. */
const zc_command *zc_cli_command_find(const char *name);

#endif
