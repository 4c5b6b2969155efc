/* SPDX-License-Identifier: Apache-2.0 */
/* A command's options as rows of a table: each row says the option's names, what its value is
 * and where it goes in the command's options record; one interpreter reads them all. */
#ifndef ZC_CLI_OPTIONS_H
#define ZC_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef enum zc_cli_opt_kind {
    ZC_CLI_OPT_SET,    /* no value: stores `set` in the field */
    ZC_CLI_OPT_TEXT,   /* the value's text (a const char * field) */
    ZC_CLI_OPT_INT,    /* a whole number in [min, max] (an int field) */
    ZC_CLI_OPT_U64,    /* a whole number in [min, max], times scale (unsigned, 4 or 8 bytes) */
    ZC_CLI_OPT_DOUBLE, /* a decimal number in [dmin, dmax] (a double field) */
    ZC_CLI_OPT_CHOICE, /* one of choices' names: its value (an int or enum field) */
    ZC_CLI_OPT_CALL    /* the command's own function reads the value */
} zc_cli_opt_kind;

typedef struct zc_cli_choice {
    const char *name;
    int value;
} zc_cli_choice;

/* The command's own reading of a value: 0 or the exit code (the usage error said already). */
typedef int (*zc_cli_opt_fn)(void *opts, const char *value);

typedef struct zc_cli_opt {
    const char *name; /* the long name, without "--" */
    int short_name;   /* 'o' for -o, or 0 */
    zc_cli_opt_kind kind;
    size_t offset;    /* of the field in the options record */
    size_t width;     /* of the field: a number's 4 or 8 bytes */
    const char *what; /* numbers: what the value counts ("a number of frames") */
    uint64_t min, max;
    double dmin, dmax;
    uint64_t scale;               /* U64: the field gets the number times this (0: 1) */
    const zc_cli_choice *choices; /* CHOICE: the names, ended by {NULL, 0} */
    int set;                      /* SET: the value stored */
    zc_cli_opt_fn call;           /* CALL */
    int mark;                     /* when given, marks[mark] = 1 (0: no mark) */
    /* How often it may be given: a row that stores its value (TEXT, INT, U64, DOUBLE, CHOICE)
     * holds one, so a second would silently replace the first and is refused; a SET row may
     * repeat (it says the same thing twice); a CALL row may repeat (its reader may gather a
     * list) unless once is 1. */
    int once;
    /* Options without which this one has no effect, by long name, alternatives separated by
     * '|' ("frame|stream-check"): given without any of them, it is refused (NULL: none). */
    const char *needs;
    /* An option that contradicts this one, by long name: the two together are refused. */
    const char *excludes;
} zc_cli_opt;

/* The command a table belongs to, for its errors and its -h. */
typedef struct zc_cli_command {
    const char *name;  /* "stream" */
    const char *usage; /* its usage line */
    void (*help)(void);
} zc_cli_command;

/* A row's field: its offset and width in the options record of the given type. */
#define ZC_CLI_FIELD(type, field)                                                                  \
    .offset = offsetof(type, field), .width = sizeof(((type *)0)->field)

/* Rows by kind, every member named so that a row says what it leaves out; field is a
 * ZC_CLI_FIELD, s a short name or 0, and the trailing members (.mark = ..., .scale = ...) are
 * given even when 0. */
#define ZC_CLI_CALL(n, fn, ...)                                                                    \
    {                                                                                              \
        .name = n, .kind = ZC_CLI_OPT_CALL, .call = fn, __VA_ARGS__                                \
    }
#define ZC_CLI_TEXT(n, s, field, ...)                                                              \
    {                                                                                              \
        .name = n, .short_name = s, .kind = ZC_CLI_OPT_TEXT, field, __VA_ARGS__                    \
    }
#define ZC_CLI_SET(n, s, field, v)                                                                 \
    {                                                                                              \
        .name = n, .short_name = s, .kind = ZC_CLI_OPT_SET, field, .set = v                        \
    }
#define ZC_CLI_INT(n, s, field, w, lo, hi, ...)                                                    \
    {                                                                                              \
        .name = n, .short_name = s, .kind = ZC_CLI_OPT_INT, field, .what = w, .min = lo,           \
        .max = hi, __VA_ARGS__                                                                     \
    }
#define ZC_CLI_WHOLE(n, field, w, lo, hi, ...)                                                     \
    {                                                                                              \
        .name = n, .kind = ZC_CLI_OPT_U64, field, .what = w, .min = lo, .max = hi, __VA_ARGS__     \
    }
#define ZC_CLI_REAL(n, field, w, lo, hi, ...)                                                      \
    {                                                                                              \
        .name = n, .kind = ZC_CLI_OPT_DOUBLE, field, .what = w, .dmin = lo, .dmax = hi,            \
        __VA_ARGS__                                                                                \
    }
#define ZC_CLI_CHOICE(n, field, list, ...)                                                         \
    {                                                                                              \
        .name = n, .kind = ZC_CLI_OPT_CHOICE, field, .choices = list, __VA_ARGS__                  \
    }

#define ZC_CLI_MAX_OPTIONS 64
#define ZC_CLI_MARKS       32

/*
 * Read argv's options by the rows of table (count of them) into opts, with -h and --help for
 * the command's help: 0 when all were read (optind at the first argument left), -1 after the
 * help was printed, or the exit code of a usage error, said on stderr. marks (ZC_CLI_MARKS
 * ints, zeroed here) says which marked options were given. After the last option, the rows'
 * rules are checked in table order: an option given more often than it may be (once), given
 * without any of the options it needs, or given with one it excludes, is a usage error.
 */
int zc_cli_options_parse(const zc_cli_command *command, const zc_cli_opt *table, size_t count,
                         int argc, char **argv, void *opts, int *marks);

#endif
