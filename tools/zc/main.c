/* zc: the command-line front of the zerocopy library. Dispatches to one command. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void zc__print_help(FILE *out)
{
    fprintf(out, "usage: zc <command> [options]\n"
                 "       zc --help | --version\n\n"
                 "Move data between host and NVIDIA GPUs with as few copies as possible, and\n"
                 "measure which way is fastest on this machine.\n\nCommands:\n");
    for (size_t i = 0; i < zc_command_count; i++)
        fprintf(out, "  %-8s %s\n", zc_commands[i].name, zc_commands[i].summary);
    fprintf(out, "\nRun 'zc <command> --help' for a command's options.\n\n");
    zc_cli_print_exit_codes(out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        zc__print_help(stderr);
        return ZC_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        zc__print_help(stdout);
        return ZC_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        /* The tool is built with the library's headers; the library loaded may be newer. */
        printf("zc %d.%d.%d (zerocopy library %s)\n", ZC_VERSION_MAJOR, ZC_VERSION_MINOR,
               ZC_VERSION_PATCH, zc_version_string());
        return ZC_EXIT_OK;
    }
    for (size_t i = 0; i < zc_command_count; i++) {
        if (strcmp(name, zc_commands[i].name) == 0)
            return zc_commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "zc: unknown command '%s'\nusage: zc <command> [options]\nTry 'zc --help'.\n",
            name);
    return ZC_EXIT_USAGE;
}
