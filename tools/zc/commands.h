/* The table of zc's commands. */
#ifndef ZC_COMMANDS_H
#define ZC_COMMANDS_H

#include <stddef.h>

#include "cli.h"

extern const zc_command zc_commands[];
extern const size_t zc_command_count;

#endif
