/* SPDX-License-Identifier: Apache-2.0 */
/* zc report: one self-contained HTML page from zc bench, zc stream and profile results. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_io.h"
#include "cli_options.h"
#include "zerocopy/json.h"
#include "zerocopy/report.h"
#include "zerocopy/text.h"

static const char zc__report_usage[] =
    "zc report [-o FILE] [--force] [--title TEXT] [--picture-dot FILE] RESULT.json...";

static void zc__report_help(void)
{
    printf("usage: %s\n\n"
           "Write one self-contained HTML page (every picture embedded) from zc bench and\n"
           "zc stream JSON results (zc stream --devices results too), or from a machine profile\n"
           "(\"%s\"): the machine, the techniques compared with measured numbers, plots of copy\n"
           "bandwidth against size, zero-copy access patterns, the crossover, latency per stream\n"
           "mode, several GPUs and allocation cost, the picture of the techniques, and advice\n"
           "for typical workloads. Given a zc trace --json document, the traced program's\n"
           "copies grouped into workloads and priced on the profile (as zc advise --trace\n"
           "does); given a zc advise --trace --json document, that advice as it was made.\n"
           "Plots need gnuplot and the picture graphviz (dot); without\n"
           "them the page says which is missing and keeps its tables, and stderr says it once.\n"
           "A picture the tool fails to draw is named on stderr with the tool's reason; when an\n"
           "installed gnuplot (or dot) draws none of the pictures asked of it, nothing is\n"
           "written and zc report exits 1. An input named - is read from stdin.\n\n"
           "Options:\n"
           "  -o, --output FILE    where to write the page (default zc-report.html; - for stdout)\n"
           "  --force              replace FILE (and the --picture-dot file) when it exists\n"
           "  --title TEXT         the page's title\n"
           "  --picture-dot FILE   also write the picture's graphviz source to FILE (- for\n"
           "                       stdout)\n"
           "  -h, --help           this help\n\n"
           "An output is written whole to a temporary file beside it, then renamed into place:\n"
           "a failed write leaves any earlier file as it was. An output that is also an input\n"
           "is refused.\n\n"
           "Environment: ZC_GNUPLOT and ZC_DOT name other programs to run instead, or none\n"
           "(ZC_GNUPLOT=none: the page without plots).\n",
           zc__report_usage, ZC_PROFILE_SCHEMA);
}

/* One line on stderr, "zc report: <text>", the text made printable: names from the inputs and
 * the tools' messages may hold any bytes, an escape sequence among them. */
static void zc__say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void zc__say(const char *fmt, ...)
{
    char line[2048], shown[3 * sizeof line + 1];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    fprintf(stderr, "zc report: %s\n",
            zc_text_printable(line, ZC_TEXT_ONE_LINE, shown, sizeof shown));
}

/* The command line, parsed. */
typedef struct zc__report_args {
    const char *out_path, *title, *dot_path;
    int force;
    const char *const *inputs;
    size_t input_count;
} zc__report_args;

/* A field of the report's arguments, for the table's rows (cli_options.h). */
#define ZC__F(field) ZC_CLI_FIELD(zc__report_args, field)
static const zc_cli_opt zc__report_options[] = {
    ZC_CLI_TEXT("output", 'o', ZC__F(out_path), .mark = 0),
    ZC_CLI_TEXT("title", 0, ZC__F(title), .mark = 0),
    ZC_CLI_TEXT("picture-dot", 0, ZC__F(dot_path), .mark = 0),
    ZC_CLI_SET("force", 0, ZC__F(force), 1),
};
#undef ZC__F

/* ZC_EXIT_OK with *args filled, or the exit code (-1: help was printed, exit 0). */
static int zc__report_parse(int argc, char **argv, zc__report_args *args)
{
    static const zc_cli_command command = {"report", zc__report_usage, zc__report_help};
    memset(args, 0, sizeof *args);
    args->out_path = "zc-report.html";
    int marks[ZC_CLI_MARKS];
    int code = zc_cli_options_parse(&command, zc__report_options,
                                    sizeof zc__report_options / sizeof zc__report_options[0], argc,
                                    argv, args, marks);
    if (code != 0)
        return code;
    if (args->out_path[0] == '\0' || (args->dot_path != NULL && args->dot_path[0] == '\0'))
        return zc_cli_usage_error("report", zc__report_usage, "an output needs a file name");
    if (optind >= argc)
        return zc_cli_usage_error("report", zc__report_usage,
                                  "give at least one zc bench, zc stream or profile JSON file");
    args->inputs = (const char *const *)argv + optind;
    args->input_count = (size_t)(argc - optind);
    size_t from_stdin = 0;
    for (size_t i = 0; i < args->input_count; i++)
        from_stdin += strcmp(args->inputs[i], "-") == 0;
    if (from_stdin > 1)
        return zc_cli_usage_error("report", zc__report_usage, "stdin (-) can be read only once");
    if (args->dot_path != NULL) {
        struct stat a, b;
        int same = strcmp(args->dot_path, args->out_path) == 0;
        if (!same && stat(args->dot_path, &a) == 0 && stat(args->out_path, &b) == 0)
            same = a.st_dev == b.st_dev && a.st_ino == b.st_ino && S_ISREG(a.st_mode);
        if (same)
            return zc_cli_usage_error("report", zc__report_usage,
                                      "the page and --picture-dot cannot both go to %s",
                                      args->out_path);
    }
    return ZC_EXIT_OK;
}

/* The picture's graphviz source into an open output. */
static int zc__write_dot(const zc_report_input *in, zc_cli_output *out)
{
    char *dot = NULL;
    zc_status status = zc_report_picture_dot(in, &dot);
    if (status != ZC_OK)
        return zc_cli_fail("report", "drawing the picture", status);
    size_t len = strlen(dot);
    int ok = fwrite(dot, 1, len, out->f) == len;
    free(dot);
    if (!ok) {
        fprintf(stderr, "zc report: cannot write %s\n",
                strcmp(out->path, "-") == 0 ? "stdout" : out->path);
        return ZC_EXIT_FAILURE;
    }
    return ZC_EXIT_OK;
}

/* Read the input at path into *doc_p (the caller's to free) and add it; what the report set
 * aside is said on stderr. ZC_EXIT_OK or the exit code. */
static int zc__add_input(zc_report_input *in, const char *path, cJSON **doc_p)
{
    int code = ZC_EXIT_OK;
    *doc_p = zc_cli_read_json("report", path, &code); /* says why on stderr */
    if (*doc_p == NULL)
        return code;
    size_t said = strlen(in->warnings);
    zc_status status = zc_report_input_add(in, path, *doc_p);
    for (const char *line = in->warnings + said; *line != '\0';) {
        size_t len = strcspn(line, "\n");
        zc__say("%.*s", (int)len, line);
        line += len + (line[len] == '\n');
    }
    if (status != ZC_OK) {
        zc__say("%s", zc_last_error());
        return zc_cli_exit_code(status);
    }
    return ZC_EXIT_OK;
}

/*
 * What became of the page's pictures, said on stderr. Pictures are optional: a tool that is not
 * installed (or is turned off) is said once, and the page is made without its pictures. A
 * picture an installed tool failed to draw is named with the tool's reason; when it drew none
 * of those asked of it, the tool is broken and the run fails: ZC_EXIT_FAILURE, nothing written.
 */
static int zc__judge_pictures(const zc_report_pictures *pictures)
{
    static const struct {
        const char *tool, *what, *without;
    } tools[] = {
        {"gnuplot", "plots", "the page has no plots"},
        {"dot", "picture of the techniques", "the page has no picture of the techniques"},
    };
    int code = ZC_EXIT_OK;
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        size_t asked = 0, drawn = 0, failed = 0;
        const char *missing = NULL;
        for (size_t i = 0; i < pictures->count; i++) {
            const zc_report_picture *p = &pictures->picture[i];
            if (strcmp(p->tool, tools[t].tool) != 0)
                continue;
            asked++;
            if (p->outcome == ZC_REPORT_DRAWN) {
                drawn++;
            } else if (p->outcome == ZC_REPORT_NO_TOOL) {
                missing = missing != NULL ? missing : p->why;
            } else {
                failed++;
                if (t == 0)
                    zc__say("plot %s not drawn: %s", p->id, p->why);
                else
                    zc__say("the %s not drawn: %s", tools[t].what, p->why);
            }
        }
        if (missing != NULL)
            zc__say("%s: %s", missing, tools[t].without);
        if (failed > 0 && drawn == 0 && missing == NULL) {
            if (asked == 1)
                zc__say("%s could not draw the %s; no page written", tools[t].tool, tools[t].what);
            else
                zc__say("%s drew none of the %zu %s; no page written", tools[t].tool, asked,
                        tools[t].what);
            code = ZC_EXIT_FAILURE;
        }
    }
    return code;
}

int zc_cli_cmd_report(int argc, char **argv)
{
    zc__report_args args;
    int code = zc__report_parse(argc, argv, &args);
    if (code != ZC_EXIT_OK)
        return code < 0 ? ZC_EXIT_OK : code;
    cJSON **docs = calloc(args.input_count, sizeof *docs);
    zc_report_input *in = calloc(1, sizeof *in);
    zc_report_bad bad;
    zc_cli_output page_out = {0}, dot_out = {0};
    char *page = NULL;
    size_t page_len = 0;
    if (docs == NULL || in == NULL) {
        code = zc_cli_fail("report", "starting", ZC_ERR_NO_MEMORY);
        goto done;
    }
    (void)zc_report_input_init(in, &bad); /* cannot fail: neither is NULL */
    for (size_t i = 0; i < args.input_count && code == ZC_EXIT_OK; i++)
        code = zc__add_input(in, args.inputs[i], &docs[i]);
    if (code != ZC_EXIT_OK)
        goto done;
    (void)zc_report_input_finish(in);
    /* The outputs are opened before the plotting starts, so that a refusal comes at once. */
    code = zc_cli_output_open(&page_out, "report", args.out_path, args.force, args.inputs,
                              args.input_count);
    if (code == ZC_EXIT_OK && args.dot_path != NULL)
        code = zc_cli_output_open(&dot_out, "report", args.dot_path, args.force, args.inputs,
                                  args.input_count);
    if (code != ZC_EXIT_OK)
        goto done;
    const char *title = args.title;
    char made[200];
    if (title == NULL) {
        snprintf(made, sizeof made, "Moving data to and from %s",
                 in->measured.device_name[0] ? in->measured.device_name : "the GPU");
        title = made;
    }
    zc_report_pictures pictures;
    zc_status status = zc_report_html(in, title, &page, &page_len, &pictures);
    if (status != ZC_OK) {
        code = zc_cli_fail("report", "building the page", status);
        goto done;
    }
    /* Judged before anything is written (a --picture-dot on stdout would be out already); an
     * input value out of range comes first, below: bad input, exit 2. */
    if (!bad.set && (code = zc__judge_pictures(&pictures)) != ZC_EXIT_OK)
        goto done;
    if (args.dot_path != NULL && (code = zc__write_dot(in, &dot_out)) != ZC_EXIT_OK)
        goto done;
    if (bad.set) {
        zc__say("%s", bad.why);
        code = ZC_EXIT_USAGE;
        goto done;
    }
    if (fwrite(page, 1, page_len, page_out.f) != page_len) {
        fprintf(stderr, "zc report: cannot write %s: %s\n",
                strcmp(args.out_path, "-") == 0 ? "stdout" : args.out_path, strerror(errno));
        code = ZC_EXIT_FAILURE;
        goto done;
    }
    if (args.dot_path != NULL && (code = zc_cli_output_commit(&dot_out)) != ZC_EXIT_OK)
        goto done;
    if ((code = zc_cli_output_commit(&page_out)) != ZC_EXIT_OK)
        goto done;
    /* Where the page went, unless stdout carries an output itself. */
    int on_stdout = strcmp(args.out_path, "-") == 0 ||
                    (args.dot_path != NULL && strcmp(args.dot_path, "-") == 0);
    fprintf(on_stdout ? stderr : stdout, "report: %s\n",
            strcmp(args.out_path, "-") == 0 ? "stdout" : args.out_path);
done:
    zc_cli_output_abort(&dot_out);
    zc_cli_output_abort(&page_out);
    free(page);
    for (size_t i = 0; docs != NULL && i < args.input_count; i++)
        cJSON_Delete(docs[i]);
    free(docs);
    free(in);
    return code;
}
