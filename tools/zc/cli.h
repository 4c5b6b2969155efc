/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the zc command-line tool: commands, exit codes, output helpers. */
#ifndef ZC_CLI_H
#define ZC_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "zerocopy/zerocopy.h"

/* Exit codes of zc, listed in `zc --help` and the README. */
enum zc_exit_code {
    ZC_EXIT_OK = 0,
    ZC_EXIT_FAILURE = 1,     /* a call failed at run time (CUDA error, out of memory, I/O) */
    ZC_EXIT_USAGE = 2,       /* bad command line */
    ZC_EXIT_NO_DEVICE = 3,   /* no CUDA GPU or driver */
    ZC_EXIT_UNSUPPORTED = 4, /* the GPU lacks a capability the command needs */
    ZC_EXIT_VERIFY = 5,      /* data moved was wrong */
    ZC_EXIT_TIMEOUT = 6      /* a wait ran out of time (a kernel that never answered) */
};

/* One subcommand: `zc <name> ...`. */
typedef struct zc_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
} zc_command;

/* The exit code for a library status. */
int zc_cli_exit_code(zc_status status);

/* Print "zc <command>: <what>: <status text>: <detail>" on stderr; give the exit code. */
int zc_cli_fail(const char *command, const char *what, zc_status status);

/* The environment variable that keeps the library's source locations in zc's messages. */
#define ZC_CLI_VERBOSE_ENV "ZC_VERBOSE"

/* Whether ZC_VERBOSE is set to anything but "" or "0". */
int zc_cli_verbose(void);

/*
 * A library detail as zc shows it to people: every source location the library writes for
 * programs (" (src/json/json_limits.c:35)": a path ending in .c, .h, .cu, .cuh, .cc or .cpp, a
 * colon and a line, in brackets) and every name of the function that failed
 * ("zc_run_fixes_parse: ", at the start or after ": ") taken out, into out (truncated to size).
 * With ZC_VERBOSE the detail is copied whole. Gives out.
 */
const char *zc_cli_error_detail(const char *detail, char *out, size_t size);

/* zc_last_error() through zc_cli_error_detail, in a buffer of the calling thread that the next
 * call overwrites. */
const char *zc_cli_last_error(void);

/*
 * In zc's own sources (built with ZC_PART), every zc_last_error() is zc_cli_last_error(), so
 * that no command prints a source location unless ZC_VERBOSE asks for them, wherever it prints
 * the detail. The library's own text stays reachable as (zc_last_error)(); tests that include
 * these headers (without ZC_PART) see the library's call unchanged.
 */
#if defined(ZC_PART)
#define zc_last_error() zc_cli_last_error()
#endif

/* Print "zc <command>: <message>" and a pointer to --help on stderr; give ZC_EXIT_USAGE. */
int zc_cli_usage_error(const char *command, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Numbers on the command line, the same in every command: plain decimal digits (no sign, no
 * spaces, no hex), in [min, max]; false when the text is not one (an empty text never is).
 */
int zc_cli_parse_int(const char *text, int min, int max, int *value_p);
int zc_cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value_p);
/* A finite decimal number (digits, one point, an exponent; no hex, inf or nan) in [min, max]. */
int zc_cli_parse_double(const char *text, double min, double max, double *value_p);

/*
 * When text is a size in zc_size_parse's grammar but not a whole number of bytes, the sentence
 * that says so with the nearest spellings that are valid (1 to max) in out, and 1: "1.5 is not
 * a whole number of bytes; did you mean 1.5K (1536 bytes)?", "1.3K is 1331.2 bytes, not a
 * whole number; did you mean 1331 or 1332?". 0 for any other text (out untouched).
 */
int zc_cli_size_hint(const char *text, uint64_t max, char *out, size_t size);

/* A size option's value (zc_size_parse, 1 to max) in *bytes_p and ZC_EXIT_OK; else the usage
 * error naming the option, with zc_cli_size_hint's suggestion or the grammar, and its code. */
int zc_cli_parse_size(const char *command, const char *usage, const char *option, const char *text,
                      uint64_t max, uint64_t *bytes_p);

/* zc_cli_next_option's answer for an option given an empty value: said already. */
#define ZC_CLI_OPTION_EMPTY (-2)

/*
 * getopt_long for every command, with the rule they share: an option that takes a value refuses
 * an empty one ("--json=", "--json ''", "-j ''"), since an empty value must never stand for the
 * default. Such an option is said on stderr (the usage error, naming it as written: "--json" or
 * "-j") and the answer is ZC_CLI_OPTION_EMPTY, which zc_cli_option_error turns into
 * ZC_EXIT_USAGE without saying it again. Otherwise getopt_long's answer.
 */
int zc_cli_next_option(const char *command, const char *usage, int argc, char **argv,
                       const char *shortopts, const struct option *longopts);

/* The largest GPU number --device takes; the machine's own count is checked once it is known. */
#define ZC_CLI_DEVICE_MAX 1023

/*
 * A number option read with the parser above, in [min, max]: ZC_EXIT_OK and *value_p, or the
 * usage error that says the range from the same figures ("--frames needs a number of frames
 * from 1 to 1000000000000, got '0'"; what: "a number of frames") and ZC_EXIT_USAGE.
 */
int zc_cli_int_option(const char *command, const char *usage, const char *option, const char *what,
                      const char *text, int min, int max, int *value_p);
int zc_cli_u64_option(const char *command, const char *usage, const char *option, const char *what,
                      const char *text, uint64_t min, uint64_t max, uint64_t *value_p);
int zc_cli_double_option(const char *command, const char *usage, const char *option,
                         const char *what, const char *text, double min, double max,
                         double *value_p);
/* The same in (0, max]: "--rate needs transfers per second, more than 0 and at most 1e+15". */
int zc_cli_positive_option(const char *command, const char *usage, const char *option,
                           const char *what, const char *text, double max, double *value_p);

/* The usage error for getopt's answer opt ('?' unknown, ':' missing value), naming the option
 * as it was written (a short option inside a group too). Gives ZC_EXIT_USAGE. */
int zc_cli_option_error(const char *command, const char *usage, int opt, int argc, char **argv);

/* The exit-code table, printed by `zc --help`. */
void zc_cli_print_exit_codes(FILE *out);

int zc_cli_cmd_info(int argc, char **argv);
int zc_cli_cmd_advise(int argc, char **argv);
int zc_cli_cmd_report(int argc, char **argv);
int zc_cli_cmd_trace(int argc, char **argv);
int zc_cli_cmd_run(int argc, char **argv);
int zc_cli_cmd_bench(int argc, char **argv);
int zc_cli_cmd_stream(int argc, char **argv);

#endif
