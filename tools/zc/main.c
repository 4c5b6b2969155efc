/* SPDX-License-Identifier: Apache-2.0 */
/* zc: the command-line front of the zerocopy library. Dispatches to one command. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static int zc__help(int argc, char **argv);
static int zc__version(int argc, char **argv);

/* The words zc answers itself, beside the commands of the table; `zc --help` lists both, so
 * that the man page and the shell completion, made from that text, know them too. */
static const zc_command zc__own_words[] = {
    {"help", "this help, or a command's (zc help <command>)", zc__help},
    {"version", "the version of zc and of the library it runs with", zc__version},
};
#define ZC__OWN_WORD_COUNT (sizeof zc__own_words / sizeof zc__own_words[0])

/* The option spellings of the own words, as other programs take them. */
static const struct {
    const char *option;
    const char *word;
} zc__own_options[] = {
    {"--help", "help"}, {"-h", "help"}, {"--version", "version"}, {"-V", "version"}};
#define ZC__OWN_OPTION_COUNT (sizeof zc__own_options / sizeof zc__own_options[0])

static const zc_command *zc__own_word_find(const char *name)
{
    for (size_t i = 0; i < ZC__OWN_OPTION_COUNT; i++) {
        if (strcmp(name, zc__own_options[i].option) == 0)
            name = zc__own_options[i].word;
    }
    for (size_t i = 0; i < ZC__OWN_WORD_COUNT; i++) {
        if (strcmp(name, zc__own_words[i].name) == 0)
            return &zc__own_words[i];
    }
    return NULL;
}

static void zc__print_help(FILE *out)
{
    fprintf(out, "usage: zc <command> [options]\n"
                 "       zc help [<command>] | --help\n"
                 "       zc version | --version\n\n"
                 "Move data between host and NVIDIA GPUs with as few copies as possible, and\n"
                 "measure which way is fastest on this machine.\n\nCommands:\n");
    for (size_t i = 0; i < zc_cli_command_count; i++)
        fprintf(out, "  %-8s %s\n", zc_cli_commands[i].name, zc_cli_commands[i].summary);
    for (size_t i = 0; i < ZC__OWN_WORD_COUNT; i++)
        fprintf(out, "  %-8s %s\n", zc__own_words[i].name, zc__own_words[i].summary);
    fprintf(out, "\nRun 'zc help <command>' or 'zc <command> --help' for a command's options.\n\n");
    zc_cli_print_exit_codes(out);
    fprintf(out,
            "\nEnvironment:\n"
            "  %s=1  error messages keep what the library says for programmers: the\n"
            "                name of the call that failed and its source location\n"
            "                (src/FILE.c:LINE), left out otherwise\n",
            ZC_CLI_VERBOSE_ENV);
}

static const char zc__version_usage[] = "zc version | zc --version | zc -V";

/* What `zc version --help` and `zc help version` print. */
static void zc__version_help(void)
{
    printf("usage: %s\n\n"
           "Print the version of zc and of the zerocopy library it runs with, and their\n"
           "licence, on one line:\n"
           "  zc MAJOR.MINOR.PATCH (zerocopy library VERSION); licence: %s, see LICENSE\n"
           "The library loaded may be newer than the one zc was built with. LICENSE, the\n"
           "licence's text, is installed in share/doc/zerocopy under the prefix.\n",
           zc__version_usage, ZC_LICENSE);
}

/* `zc help [COMMAND]`: argv[0] is "help" (or "--help"), argv[1] the command asked about. */
static int zc__help(int argc, char **argv)
{
    const zc_command *own = argc == 2 ? zc__own_word_find(argv[1]) : NULL;
    /* The version has a help of its own; the help's help is this one. */
    if (own != NULL && own->run == zc__version) {
        zc__version_help();
        return ZC_EXIT_OK;
    }
    if (argc < 2 || own != NULL) {
        zc__print_help(stdout);
        return ZC_EXIT_OK;
    }
    if (argc > 2) {
        fprintf(stderr,
                "zc help: one command at a time, not '%s' too\n"
                "usage: zc help [<command>]\n",
                argv[2]);
        return ZC_EXIT_USAGE;
    }
    const zc_command *command = zc_cli_command_find(argv[1]);
    if (command == NULL) {
        fprintf(stderr, "zc help: unknown command '%s'\nTry 'zc --help' for the list.\n", argv[1]);
        return ZC_EXIT_USAGE;
    }
    /* The command prints its own help, so `zc help CMD` and `zc CMD --help` cannot drift apart. */
    char help_option[] = "--help";
    char *command_argv[] = {argv[1], help_option, NULL};
    return command->run(2, command_argv);
}

static int zc__version(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        zc__version_help();
        return ZC_EXIT_OK;
    }
    if (argc >= 2) {
        fprintf(stderr, "zc version: unexpected argument '%s'\nusage: %s\n", argv[1],
                zc__version_usage);
        return ZC_EXIT_USAGE;
    }
    /* The tool is built with the library's headers; the library loaded may be newer. */
    printf("zc %s (zerocopy library %s); licence: %s, see LICENSE\n", ZC_VERSION_STRING,
           zc_version_string(), ZC_LICENSE);
    return ZC_EXIT_OK;
}

/* Text written to stdout that did not arrive (a full disk, a closed pipe) is a failure: a
 * command that succeeded otherwise exits 1 instead of 0. */
static int zc__stdout_checked(int code)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return code;
    fprintf(stderr, "zc: writing to stdout: %s\n", strerror(errno));
    return code == ZC_EXIT_OK ? ZC_EXIT_FAILURE : code;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        zc__print_help(stderr);
        return ZC_EXIT_USAGE;
    }
    const char *name = argv[1];
    const zc_command *own = zc__own_word_find(name);
    if (own != NULL)
        return zc__stdout_checked(own->run(argc - 1, argv + 1));
    const zc_command *command = zc_cli_command_find(name);
    if (command != NULL)
        return zc__stdout_checked(command->run(argc - 1, argv + 1));
    fprintf(stderr, "zc: unknown command '%s'\nusage: zc <command> [options]\nTry 'zc --help'.\n",
            name);
    return ZC_EXIT_USAGE;
}
