/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench: every technique measured on this machine, and the chapter's table rebuilt. */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_output.h"
#include "cli.h"
#include "cli_io.h"
#include "cli_json.h"
#include "cli_options.h"

/* The document of `zc bench --list --json FILE` (docs/json.md). */
#define ZC_CLI_BENCH_CASES_SCHEMA "zerocopy.bench-cases/1"

static const char zc__bench_usage[] =
    "zc bench [-q | --full] [--case PATTERNS] [--list] [-d N] [--sizes LIST] "
    "[--devices all|LIST] [--blocks-profile FILE] [-j FILE] [--csv FILE] [--force]";

static void zc__bench_help(void)
{
    printf("usage: %s\n\n"
           "Measure every way of moving data between host and GPU on this machine: copies from\n"
           "pageable, pinned, write-combined and registered memory; kernels reading and writing\n"
           "mapped host memory; managed memory; latencies; where zero-copy beats a copy; what\n"
           "overlap on streams buys; many blocks at once through each engine of the block\n"
           "mover (--case blocks). Every figure is verified; wrong data reports FAIL.\n\n"
           "Options:\n"
           "  -q, --quick      a short run (about 20 s on an H200)\n"
           "  --full           every size, more repeats (as long as it takes)\n"
           "  --case PATTERNS  only cases whose key matches: comma-separated, a dotted prefix\n"
           "                   (\"copy\", \"copy.h2d\") or a glob (\"*.pinned\"); may repeat\n"
           "  --list           list the cases (with --case: those selected) and exit; as\n"
           "                   JSON too with --json (schema \"%s\")\n"
           "  -d, --device N   the GPU to measure (default 0)\n"
           "  --devices LIST   GPUs for the multi-GPU cases (multigpu.*): all, or \"0,1\";\n"
           "                   the other cases run on the first one; without it those cases\n"
           "                   skip, saying they need two GPUs\n"
           "  --sizes LIST     sizes for the size sweeps: \"4K,64K,1M,256M\" (K, M, G = KiB, ...)\n"
           "  --blocks-profile FILE  the block family's automatic choice (\"auto\") plans with\n"
           "                   the mover's costs fitted to FILE, a zc bench document with\n"
           "                   blocks.h2d and blocks.d2h (--case blocks.h2d,blocks.d2h), as\n"
           "                   zc advise --blocks does; without it, with the placeholders\n"
           "  -j, --json FILE  write every result, schema \"%s\" (docs/json.md), to FILE or -\n"
           "                   (stdout, the tables then on stderr)\n"
           "  --csv FILE       write one row per measured point (FILE or -)\n"
           "  --force          replace the output files if they exist\n"
           "  -h, --help       this help\n\n"
           "Exit status 5 when any case's data was wrong (FAIL); see zc --help for the others.\n"
           "The method is printed after the tables and described in docs/bench.md.\n",
           zc__bench_usage, ZC_CLI_BENCH_CASES_SCHEMA, ZC_BENCH_SCHEMA);
}

/* Append one --case value to the comma-separated list. */
static int zc__append(char **list, const char *more)
{
    size_t old = *list ? strlen(*list) : 0, add = strlen(more);
    char *grown = realloc(*list, old + add + 2);
    if (grown == NULL)
        return 0;
    if (old)
        grown[old++] = ',';
    memcpy(grown + old, more, add + 1);
    *list = grown;
    return 1;
}

static int zc__write_csv(zc_cli_output *out, const zc_bench_document *report)
{
    if (zc_cli_bench_write_csv(out->f, report) != 0) {
        fprintf(stderr, "zc bench: cannot write %s\n", out->path);
        zc_cli_output_abort(out);
        return ZC_EXIT_FAILURE;
    }
    return zc_cli_output_commit(out);
}

/* --sizes refused: a size that is not whole bytes with the spellings that are (zc_bench_sizes_parse
 * takes 1 B to 64 GiB), or the library's reason. */
static int zc__sizes_error(const char *list)
{
    char item[64], why[512], reason[512];
    /* The library's reason first: the hints below parse sizes again, which clears it. */
    snprintf(reason, sizeof reason, "%s", zc_last_error());
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n < sizeof item) {
            snprintf(item, sizeof item, "%.*s", (int)n, p);
            if (zc_cli_size_hint(item, (uint64_t)64 << 30, why, sizeof why))
                return zc_cli_usage_error("bench", zc__bench_usage, "--sizes: %s", why);
        }
        p += n + (p[n] == ',');
    }
    return zc_cli_usage_error("bench", zc__bench_usage, "--sizes: %s", reason);
}

/* --list: the cases selected as text (on stderr when the JSON takes stdout) and, with --json,
 * as a document of schema ZC_CLI_BENCH_CASES_SCHEMA, its output opened (and refused) before
 * anything is printed. Gives the exit code. */
static int zc__list(const unsigned char *selected, size_t ncases, const char *json_path,
                    const char *csv_path, int force)
{
    if (csv_path != NULL)
        return zc_cli_usage_error("bench", zc__bench_usage,
                                  "--list writes the cases as text, or as JSON with --json; "
                                  "--csv is for measured points");
    zc_cli_output out = {0};
    int rc;
    if (json_path != NULL &&
        (rc = zc_cli_output_open(&out, "bench", json_path, force, NULL, 0)) != ZC_EXIT_OK)
        return rc;
    FILE *text = json_path != NULL && strcmp(json_path, "-") == 0 ? stderr : stdout;
    cJSON *doc = json_path != NULL ? cJSON_CreateObject() : NULL;
    cJSON *cases = NULL;
    int built = doc != NULL &&
                cJSON_AddStringToObject(doc, "schema", ZC_CLI_BENCH_CASES_SCHEMA) != NULL &&
                cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string()) != NULL &&
                (cases = cJSON_AddArrayToObject(doc, "cases")) != NULL;
    for (size_t i = 0; i < ncases; i++) {
        const zc_bench_case_info *info = zc_bench_case_at(i);
        if (!selected[i])
            continue;
        fprintf(text, "%-28s %-10s %s\n", info->key, info->group, info->title);
        if (!built)
            continue;
        cJSON *row = cJSON_CreateObject();
        built = row != NULL && cJSON_AddItemToArray(cases, row) &&
                cJSON_AddStringToObject(row, "key", info->key) != NULL &&
                cJSON_AddStringToObject(row, "group", info->group) != NULL &&
                cJSON_AddStringToObject(row, "technique", info->technique) != NULL &&
                cJSON_AddStringToObject(row, "direction", info->direction) != NULL &&
                cJSON_AddStringToObject(row, "title", info->title) != NULL;
    }
    if (json_path == NULL)
        return ZC_EXIT_OK;
    if (!built) {
        cJSON_Delete(doc);
        doc = NULL; /* said as out of memory, the file left as it was */
    }
    return zc_cli_json_commit("bench", doc, &out);
}

/* What the command line asked for. */
typedef struct zc__bench_opts {
    int quick, full, list, force;
    int device, device_given;
    char *patterns; /* --case, comma-joined; the caller frees it */
    const char *json_path, *csv_path, *corrupt, *devices_text;
    int devices[ZC_BENCH_DEVICES_MAX];
    size_t device_count;
    size_t sizes[64];
    size_t size_count;
    const char *blocks_profile_path;
    zc_blocks_profile blocks_profile; /* fitted from blocks_profile_path once it is read */
} zc__bench_opts;

/* The options given that the checks after the table look at (zc_cli_options_parse's marks). */
enum { ZC__BENCH_MARK_DEVICE = 1 };

/* --case: added to the comma-separated list (it may repeat). */
static int zc__opt_case(void *opts, const char *value)
{
    zc__bench_opts *o = opts;
    return zc__append(&o->patterns, value)
               ? 0
               : zc_cli_fail("bench", "reading --case", ZC_ERR_NO_MEMORY);
}

/* --sizes: the sweeps' sizes, refused with the spellings that are sizes. */
static int zc__opt_sizes(void *opts, const char *value)
{
    zc__bench_opts *o = opts;
    return zc_bench_sizes_parse(value, o->sizes, sizeof o->sizes / sizeof o->sizes[0],
                                &o->size_count) == ZC_OK
               ? 0
               : zc__sizes_error(value);
}

/* A field of the bench's options record, for the table's rows (cli_options.h). */
#define ZC__F(field) ZC_CLI_FIELD(zc__bench_opts, field)
static const zc_cli_opt zc__bench_options[] = {
    ZC_CLI_SET("quick", 'q', ZC__F(quick), 1),
    ZC_CLI_SET("full", 0, ZC__F(full), 1),
    ZC_CLI_CALL("case", zc__opt_case, .mark = 0),
    ZC_CLI_SET("list", 0, ZC__F(list), 1),
    ZC_CLI_INT("device", 'd', ZC__F(device), "a GPU number", 0, ZC_CLI_DEVICE_MAX,
               .mark = ZC__BENCH_MARK_DEVICE),
    ZC_CLI_TEXT("devices", 0, ZC__F(devices_text), .mark = 0),
    ZC_CLI_CALL("sizes", zc__opt_sizes, .mark = 0),
    ZC_CLI_TEXT("blocks-profile", 0, ZC__F(blocks_profile_path), .mark = 0),
    ZC_CLI_TEXT("json", 'j', ZC__F(json_path), .mark = 0),
    ZC_CLI_TEXT("csv", 0, ZC__F(csv_path), .mark = 0),
    ZC_CLI_SET("force", 0, ZC__F(force), 1),
    /* A test hook, not in --help: corrupt the data of matching cases on purpose so that a test
     * can see them report FAIL (docs/bench.md). */
    ZC_CLI_TEXT("inject-corruption", 0, ZC__F(corrupt), .mark = 0),
};
#undef ZC__F

/* The command line into o, checked as far as it can be without a GPU; -1 when it is sound,
 * else the exit code (0 after --help). */
static int zc__bench_parse(int argc, char **argv, zc__bench_opts *o)
{
    static const zc_cli_command command = {"bench", zc__bench_usage, zc__bench_help};
    int marks[ZC_CLI_MARKS];
    int rc = zc_cli_options_parse(&command, zc__bench_options,
                                  sizeof zc__bench_options / sizeof zc__bench_options[0], argc,
                                  argv, o, marks);
    if (rc != 0)
        return rc < 0 ? ZC_EXIT_OK : rc; /* -1: the help was printed */
    o->device_given = marks[ZC__BENCH_MARK_DEVICE];
    if (optind < argc)
        return zc_cli_usage_error("bench", zc__bench_usage, "unexpected argument '%s'",
                                  argv[optind]);
    if (o->quick && o->full)
        return zc_cli_usage_error("bench", zc__bench_usage,
                                  "--quick and --full exclude each other");
    if (o->json_path != NULL && o->csv_path != NULL && strcmp(o->json_path, "-") == 0 &&
        strcmp(o->csv_path, "-") == 0)
        return zc_cli_usage_error("bench", zc__bench_usage, "--json - and --csv - share stdout");
    if (o->devices_text == NULL)
        return -1;
    if (o->device_given)
        return zc_cli_usage_error("bench", zc__bench_usage,
                                  "give --device or --devices, not both (with --devices the "
                                  "one-GPU cases run on the first GPU listed)");
    /* The form first (no GPU needed): numbers, commas, no GPU twice; the range once the
     * machine's GPUs are known. */
    if (strcmp(o->devices_text, "all") != 0 &&
        zc_device_list_parse(o->devices_text, INT_MAX, o->devices, ZC_BENCH_DEVICES_MAX,
                             &o->device_count) != ZC_OK)
        return zc_cli_usage_error("bench", zc__bench_usage, "--devices: %s", zc_last_error());
    return -1;
}

/* The GPU the one-GPU cases run on, now that the machine's GPUs are known (--devices: the
 * first listed); fills info. 0 or the exit code. */
static int zc__bench_device(zc__bench_opts *o, zc_device_info *info)
{
    int count = 0;
    zc_status st = zc_device_count(&count);
    if (st != ZC_OK)
        return zc_cli_fail("bench", "no GPU to measure", st);
    if (o->devices_text != NULL) {
        if (zc_device_list_parse(o->devices_text, count, o->devices, ZC_BENCH_DEVICES_MAX,
                                 &o->device_count) != ZC_OK) {
            fprintf(stderr, "zc bench: --devices: %s\n", zc_last_error());
            return ZC_EXIT_USAGE;
        }
        o->device = o->devices[0];
    }
    if (o->device >= count) {
        fprintf(stderr, "zc bench: --device %d: this machine has %d GPU%s (0..%d)\n", o->device,
                count, count == 1 ? "" : "s", count - 1);
        return ZC_EXIT_USAGE;
    }
    st = zc_device_info_get(o->device, info);
    return st == ZC_OK ? 0 : zc_cli_fail("bench", "reading device properties", st);
}

/* A measurement under way: its context (and the progress line it draws), results and
 * document. */
typedef struct zc__bench_run {
    zc_bench_ctx *ctx;
    zc_bench_progress progress;
    zc_bench_result *results;
    size_t count;
    zc_bench_config config;
    zc_bench_document report;
    zc_device_info info;
} zc__bench_run;

/* Run every selected case into run (the document's fields filled); 0 or the exit code. */
static int zc__bench_measure(const zc__bench_opts *o, const unsigned char *selected, size_t ncases,
                             size_t matched, zc__bench_run *run)
{
    zc_cli_bench_progress_init(&run->progress, stderr);
    zc_bench_config *config = &run->config;
    zc_bench_config_init(config);
    config->device = o->device;
    config->mode = o->quick ? ZC_BENCH_QUICK : o->full ? ZC_BENCH_FULL : ZC_BENCH_DEFAULT;
    config->sizes = o->size_count ? o->sizes : NULL;
    config->size_count = o->size_count;
    config->corrupt_key = o->corrupt;
    config->progress = zc_cli_bench_progress_update;
    config->progress_user = &run->progress;
    config->devices = o->devices_text ? o->devices : NULL;
    config->device_count = o->devices_text ? o->device_count : 0;
    config->blocks_profile = o->blocks_profile_path ? &o->blocks_profile : NULL;
    zc_status st = zc_bench_ctx_create(config, &run->ctx);
    if (st != ZC_OK)
        return zc_cli_fail("bench", "setting up the measurements", st);
    (void)zc_bench_ctx_plan(run->ctx, matched);
    struct timespec wall0, wall1;
    clock_gettime(CLOCK_MONOTONIC, &wall0);
    zc_bench_document *report = &run->report;
    memset(report, 0, sizeof *report);
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(report->created_utc, sizeof report->created_utc, "%Y-%m-%dT%H:%M:%SZ", &utc);
    for (size_t i = 0; i < ncases; i++) {
        if (!selected[i])
            continue;
        if ((st = zc_bench_run(run->ctx, i, &run->results[run->count])) != ZC_OK) {
            zc_cli_bench_progress_finish(&run->progress);
            return zc_cli_fail("bench", zc_bench_case_at(i)->key, st);
        }
        run->count++;
    }
    zc_cli_bench_progress_finish(&run->progress);
    clock_gettime(CLOCK_MONOTONIC, &wall1);
    report->mode = config->mode;
    report->device = o->device;
    report->info = &run->info;
    report->sizes = config->sizes;
    report->size_count = o->size_count;
    report->results = run->results;
    report->count = run->count;
    report->devices = config->devices;
    report->device_count = config->device_count;
    report->wall_seconds =
        (double)(wall1.tv_sec - wall0.tv_sec) + (double)(wall1.tv_nsec - wall0.tv_nsec) / 1e9;
    return 0;
}

/* The tables, each case's outcome judged, and the documents written; gives the exit code. */
static int zc__bench_report(const zc__bench_opts *o, const zc__bench_run *run,
                            zc_cli_output *json_out, zc_cli_output *csv_out)
{
    const zc_bench_document *report = &run->report;
    /* The tables go to stderr when stdout carries the JSON or CSV. */
    FILE *text = (o->json_path && strcmp(o->json_path, "-") == 0) ||
                         (o->csv_path && strcmp(o->csv_path, "-") == 0)
                     ? stderr
                     : stdout;
    fprintf(text, "zerocopy %s: zc bench (%s) on GPU %d, %s\n", zc_version_string(),
            zc_bench_mode_name(report->mode), o->device, run->info.name);
    if (o->devices_text != NULL) {
        fprintf(text, "multi-GPU cases on GPUs");
        for (size_t i = 0; i < o->device_count; i++)
            fprintf(text, "%s%d", i ? "," : " ", o->devices[i]);
        fprintf(text, "\n");
    }
    fprintf(text, "\n");
    zc_cli_bench_print_table(text, report);
    fflush(text);
    int rc = ZC_EXIT_OK;
    /* Wrong data outranks every other failure: its figures must not be trusted. */
    for (size_t i = 0; i < run->count; i++)
        if (run->results[i].outcome == ZC_BENCH_FAIL) {
            fprintf(stderr, "zc bench: %s: FAIL: %s\n", run->results[i].key,
                    run->results[i].reason);
            rc = ZC_EXIT_VERIFY;
        }
    if (rc == ZC_EXIT_OK)
        for (size_t i = 0; i < run->count; i++)
            if (run->results[i].outcome == ZC_BENCH_ERROR) {
                fprintf(stderr, "zc bench: %s: error: %s\n", run->results[i].key,
                        run->results[i].reason);
                if (rc == ZC_EXIT_OK)
                    rc = zc_cli_exit_code(run->results[i].status);
            }
    /* A failed run replaces no file (stdout still gets its document). */
    if (o->json_path && (rc == ZC_EXIT_OK || !zc_cli_output_is_staged(json_out))) {
        cJSON *doc = NULL;
        zc_status built = zc_bench_to_json(report, &doc);
        int wrote = zc_cli_json_commit_built("bench", built, doc, json_out);
        rc = rc == ZC_EXIT_OK ? wrote : rc;
    }
    if (o->csv_path && (rc == ZC_EXIT_OK || !zc_cli_output_is_staged(csv_out))) {
        int wrote = zc__write_csv(csv_out, report);
        rc = rc == ZC_EXIT_OK ? wrote : rc;
    }
    (void)zc_cli_output_finish(json_out, 0);
    (void)zc_cli_output_finish(csv_out, 0);
    return rc;
}

/* --blocks-profile: refused where no case of the block family is selected (it would change
 * nothing), else the mover's costs fitted to the document into o->blocks_profile. 0 or the
 * exit code. */
static int zc__bench_blocks_profile(zc__bench_opts *o, const unsigned char *selected, size_t ncases)
{
    if (o->blocks_profile_path == NULL)
        return 0;
    int blocks = 0;
    for (size_t i = 0; i < ncases; i++)
        blocks |= selected[i] && strcmp(zc_bench_case_at(i)->group, "blocks") == 0;
    if (o->list || !blocks)
        return zc_cli_usage_error("bench", zc__bench_usage,
                                  "--blocks-profile has no effect %s: it sets the block family's "
                                  "automatic choice (--case blocks)",
                                  o->list ? "with --list" : "without a case of the block family");
    int code = ZC_EXIT_OK;
    cJSON *doc = zc_cli_read_json("bench", o->blocks_profile_path, &code);
    if (doc == NULL)
        return code;
    zc_status st = zc_blocks_bench_from_json(doc, 0, &o->blocks_profile, NULL, NULL);
    cJSON_Delete(doc);
    if (st == ZC_OK)
        return 0;
    fprintf(stderr, "zc bench: --blocks-profile %s: %s\n", o->blocks_profile_path, zc_last_error());
    return st == ZC_ERR_NO_MEMORY ? ZC_EXIT_FAILURE : ZC_EXIT_USAGE;
}

/* Select, list or open the outputs, measure, report: the exit code. */
static int zc__bench_go(zc__bench_opts *o, zc__bench_run *run, unsigned char *selected,
                        size_t ncases, zc_cli_output *json_out, zc_cli_output *csv_out)
{
    size_t matched = 0;
    int rc;
    if (zc_bench_select(o->patterns, selected, ncases, &matched) != ZC_OK)
        return zc_cli_usage_error("bench", zc__bench_usage, "--case: %s", zc_last_error());
    if ((rc = zc__bench_blocks_profile(o, selected, ncases)) != 0)
        return rc;
    if (o->list)
        return zc__list(selected, ncases, o->json_path, o->csv_path, o->force);
    /* The outputs are opened before measuring: a bad path is said at once, not after minutes. */
    if (o->json_path != NULL &&
        (rc = zc_cli_output_open(json_out, "bench", o->json_path, o->force, NULL, 0)) != ZC_EXIT_OK)
        return rc;
    if (o->csv_path != NULL &&
        (rc = zc_cli_output_open(csv_out, "bench", o->csv_path, o->force,
                                 (const char *[]){o->json_path}, 1)) != ZC_EXIT_OK)
        return rc;
    if ((rc = zc__bench_device(o, &run->info)) != 0 ||
        (rc = zc__bench_measure(o, selected, ncases, matched, run)) != 0)
        return rc;
    return zc__bench_report(o, run, json_out, csv_out);
}

int zc_cli_cmd_bench(int argc, char **argv)
{
    zc__bench_opts o = {0};
    int rc = zc__bench_parse(argc, argv, &o);
    if (rc >= 0) {
        free(o.patterns);
        return rc;
    }
    size_t ncases = zc_bench_case_count();
    unsigned char *selected = calloc(ncases, 1);
    zc__bench_run run = {0};
    run.results = calloc(ncases, sizeof *run.results);
    zc_cli_output json_out = {0}, csv_out = {0};
    if (selected == NULL || run.results == NULL)
        rc = zc_cli_fail("bench", "allocating the case table", ZC_ERR_NO_MEMORY);
    else
        rc = zc__bench_go(&o, &run, selected, ncases, &json_out, &csv_out);
    zc_cli_output_abort(&json_out); /* nothing left to do once committed */
    zc_cli_output_abort(&csv_out);
    zc_bench_ctx_destroy(run.ctx);
    for (size_t i = 0; i < run.count; i++)
        zc_bench_result_clear(&run.results[i]);
    free(run.results);
    free(selected);
    free(o.patterns);
    return rc;
}
