/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter of option tables (cli_options.h). */
#include "cli_options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Store a whole number in a field of 4 or 8 bytes. */
static void zc__store_u64(void *field, size_t width, uint64_t value)
{
    if (width == sizeof(uint32_t)) {
        uint32_t v = (uint32_t)value;
        memcpy(field, &v, sizeof v);
    } else {
        memcpy(field, &value, sizeof value);
    }
}

/* One option's value into its field: 0 or the exit code. */
static int zc__read_one(const zc_cli_command *c, const zc_cli_opt *row, void *opts,
                        const char *value)
{
    char *field = (char *)opts + row->offset;
    char option[64];
    snprintf(option, sizeof option, "--%s", row->name);
    switch (row->kind) {
    case ZC_CLI_OPT_SET:
        zc__store_u64(field, row->width, (uint64_t)(int64_t)row->set);
        return 0;
    case ZC_CLI_OPT_TEXT:
        memcpy(field, &value, sizeof value);
        return 0;
    case ZC_CLI_OPT_INT:
        return zc_cli_int_option(c->name, c->usage, option, row->what, value, (int)row->min,
                                 (int)row->max, (int *)(void *)field);
    case ZC_CLI_OPT_U64: {
        uint64_t u;
        int code =
            zc_cli_u64_option(c->name, c->usage, option, row->what, value, row->min, row->max, &u);
        if (code == 0)
            zc__store_u64(field, row->width, u * (row->scale ? row->scale : 1u));
        return code;
    }
    case ZC_CLI_OPT_DOUBLE:
        return zc_cli_double_option(c->name, c->usage, option, row->what, value, row->dmin,
                                    row->dmax, (double *)(void *)field);
    case ZC_CLI_OPT_CHOICE: {
        char names[160] = "";
        for (const zc_cli_choice *ch = row->choices; ch->name != NULL; ch++) {
            if (strcmp(value, ch->name) == 0) {
                memcpy(field, &ch->value, sizeof ch->value);
                return 0;
            }
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s",
                     used == 0 ? "" : (ch[1].name == NULL ? " or " : ", "), ch->name);
        }
        return zc_cli_usage_error(c->name, c->usage, "%s takes %s, not '%s'", option, names, value);
    }
    case ZC_CLI_OPT_CALL:
        return row->call(opts, value);
    }
    return zc_cli_usage_error(c->name, c->usage, "%s: no reader", option);
}

/* The row named name (a long name), or NULL. */
static const zc_cli_opt *zc__row_named(const zc_cli_opt *table, size_t count, const char *name,
                                       size_t len)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0)
            return &table[i];
    return NULL;
}

/* Was the option named by the first len bytes of name given? */
static int zc__given(const zc_cli_opt *table, size_t count, const unsigned *times, const char *name,
                     size_t len)
{
    const zc_cli_opt *row = zc__row_named(table, count, name, len);
    return row != NULL && times[row - table] > 0;
}

/* The rows' rules over the options given (times[i]: how often row i was); 0 or the exit code. */
static int zc__check_rules(const zc_cli_command *c, const zc_cli_opt *table, size_t count,
                           const unsigned *times)
{
    for (size_t i = 0; i < count; i++) {
        const zc_cli_opt *row = &table[i];
        const int one_value = row->kind != ZC_CLI_OPT_SET && row->kind != ZC_CLI_OPT_CALL;
        if (times[i] > 1 && (one_value || row->once))
            return zc_cli_usage_error(c->name, c->usage,
                                      "--%s was given %u times; it takes one value, give it once",
                                      row->name, times[i]);
    }
    for (size_t i = 0; i < count; i++) {
        const zc_cli_opt *row = &table[i];
        if (times[i] == 0)
            continue;
        if (row->excludes != NULL &&
            zc__given(table, count, times, row->excludes, strlen(row->excludes)))
            return zc_cli_usage_error(c->name, c->usage, "--%s and --%s exclude each other",
                                      row->name, row->excludes);
        if (row->needs == NULL)
            continue;
        int met = 0;
        char names[160] = "";
        for (const char *p = row->needs; *p != '\0';) {
            const size_t len = strcspn(p, "|");
            met |= zc__given(table, count, times, p, len);
            const size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s--%.*s", used == 0 ? "" : " or ",
                     (int)len, p);
            p += len + (p[len] == '|');
        }
        if (!met)
            return zc_cli_usage_error(
                c->name, c->usage, "--%s has no effect without %s: add %s, or drop --%s", row->name,
                names, strchr(row->needs, '|') ? "one" : "it", row->name);
    }
    return 0;
}

int zc_cli_options_parse(const zc_cli_command *command, const zc_cli_opt *table, size_t count,
                         int argc, char **argv, void *opts, int *marks)
{
    struct option longopts[ZC_CLI_MAX_OPTIONS + 2];
    char shortopts[2 * ZC_CLI_MAX_OPTIONS + 4] = ":h";
    if (count > ZC_CLI_MAX_OPTIONS)
        return zc_cli_usage_error(command->name, command->usage, "%zu options, at most %d", count,
                                  ZC_CLI_MAX_OPTIONS);
    /* getopt's table from ours: a row's index + 256 is its answer, above every short name. */
    for (size_t i = 0; i < count; i++) {
        const int takes = table[i].kind == ZC_CLI_OPT_SET ? no_argument : required_argument;
        longopts[i] = (struct option){table[i].name, takes, NULL, (int)(i + 256)};
        if (table[i].short_name != 0) {
            size_t n = strlen(shortopts);
            shortopts[n] = (char)table[i].short_name;
            shortopts[n + 1] = takes == required_argument ? ':' : '\0';
            shortopts[n + 2] = '\0';
        }
    }
    longopts[count] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[count + 1] = (struct option){NULL, 0, NULL, 0};
    memset(marks, 0, ZC_CLI_MARKS * sizeof *marks);
    unsigned times[ZC_CLI_MAX_OPTIONS] = {0};
    optind = 0;
    opterr = 0;
    int opt;
    while ((opt = zc_cli_next_option(command->name, command->usage, argc, argv, shortopts,
                                     longopts)) != -1) {
        const zc_cli_opt *row = NULL;
        if (opt >= 256 && (size_t)(opt - 256) < count)
            row = &table[opt - 256];
        for (size_t i = 0; row == NULL && i < count && opt > 0 && opt < 256; i++)
            if (table[i].short_name == opt)
                row = &table[i];
        if (opt == 'h') {
            command->help();
            return -1;
        }
        if (row == NULL)
            return zc_cli_option_error(command->name, command->usage, opt, argc, argv);
        int code = zc__read_one(command, row, opts, optarg);
        if (code != 0)
            return code;
        if (row->mark > 0 && row->mark < ZC_CLI_MARKS)
            marks[row->mark] = 1;
        times[row - table]++;
    }
    return zc__check_rules(command, table, count, times);
}
