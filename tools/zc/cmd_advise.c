/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise: which technique fits a workload on this machine, from its measured profile. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_input.h"
#include "advise_print.h"
#include "advise_quick.h"
#include "advise_trace.h"
#include "advise_validate.h"
#include "cli.h"
#include "cli_json.h"

#define ZC__STREAM_FILES_MAX 32

static const char zc__advise_usage[] =
    "zc advise [--profile FILE] [--workload FILE] [--bytes SIZE] [--transfers N] [--rate HZ]\n"
    "          [--direction h2d|d2h|both] [--accesses K] [--pattern coalesced|strided|random]\n"
    "          [--concurrent] [--latency-budget US] [-d N] [-j FILE] [--save-profile FILE]\n"
    "          [--force]\n"
    "       zc advise --frame SIZE [--frame-rate HZ|max] --stream FILE... [--profile FILE]\n"
    "          [--stream-check FILE...] [-j FILE]\n"
    "       zc advise --validate [--profile FILE] [--out DIR] [--rounds N] [--random N]\n"
    "          [--seed S] [--seconds-per-run S] [-d N] [--force]\n"
    "       zc advise --trace FILE|- [--profile FILE] [-d N] [-j FILE] [--force]";

static void zc__advise_help(void)
{
    printf("usage: %s\n\n"
           "Predict the time of each technique (pageable copy, pinned copy, pinned copy\n"
           "overlapped on streams, mapped zero-copy, registered copy, managed with prefetch)\n"
           "for a workload on this machine, rank them, and explain the first choice.\n\n"
           "The machine's figures come from --profile: a `zc bench --json` result or a\n"
           "\"%s\" document (--save-profile writes one). Without --profile zc advise\n"
           "runs zc bench's quick cases in process first, and says so.\n\n"
           "Workload (flags override --workload FILE, a JSON object with the same names; an\n"
           "unknown name in it is an error):\n"
           "  --bytes SIZE          bytes per transfer: 4096, 4K, 4KiB, 1.5M (default 4KiB)\n"
           "  --transfers N         how many transfers in all (default 1000)\n"
           "  --rate HZ             transfers arriving per second (the rate must be kept up)\n"
           "  --direction D         h2d, d2h or both (input in, result of the same size out)\n"
           "  --accesses K          times the GPU reads (h2d) or writes (d2h) each byte (1)\n"
           "  --pattern P           how the kernel walks the data: coalesced, strided, random\n"
           "  --concurrent          CPU and GPU touch the data at the same time (a persistent\n"
           "                        kernel polls it instead of a launch per transfer)\n"
           "  --latency-budget US   each transfer must finish within US microseconds\n\n"
           "Stream advice (which zc stream mode, how many blocks, what latency):\n"
           "  --frame SIZE          bytes per frame of the stream\n"
           "  --frame-rate HZ|max   frames per second to keep (default max: as fast as possible)\n"
           "  --stream FILE         a `zc stream --json` result to advise from (repeatable)\n"
           "  --stream-check FILE   zc stream results the advice did not see: judge the advice\n"
           "                        at each of their frame sizes by them (repeatable)\n\n"
           "A traced program (the workloads a `zc trace --json` document's copies form):\n"
           "  --trace FILE          group the copies of the trace document FILE (- for stdin)\n"
           "                        by direction, host memory kind and power-of-two size;\n"
           "                        price each with every technique: measured, predicted now,\n"
           "                        the best and what it saves, the zc run cure; and say what\n"
           "                        could not be priced and why (-j: schema \"%s\")\n\n"
           "Other options:\n"
           "  --profile FILE        the machine's measured figures (- for stdin)\n"
           "  --save-profile FILE   write the profile used: measured and derived figures with\n"
           "                        their origin, the assumed ones apart; - for stdout\n"
           "  -d, --device N        the GPU to measure on (default 0)\n"
           "  -j, --json FILE       write the ranking as JSON, schema \"%s\" (docs/json.md), to\n"
           "                        FILE (the text still goes to stdout) or - (stdout, no text)\n"
           "  --force               replace output files that exist\n"
           "  --validate            run %zu varied workloads for real with every technique in\n"
           "                        interleaved rounds and compare predicted with measured time\n"
           "  --random N            --validate: N workloads drawn at random instead\n"
           "  --seed S              --random: the seed (default 1)\n"
           "  --rounds N            --validate: interleaved rounds, 1 to %d (default 5)\n"
           "  --out DIR             where --validate writes validation.md and .json (.)\n"
           "  --seconds-per-run S   --validate: timed work per technique and round (0.04)\n"
           "  -h, --help            this help\n\n"
           "The model and its validation: docs/advise.md.\n",
           zc__advise_usage, ZC_PROFILE_SCHEMA, ZC_ADVISE_TRACE_SCHEMA, ZC_ADVISE_SCHEMA,
           zc_validation_fixed_count(), ZC_VALIDATION_ROUNDS_MAX);
}

/* Which workload flags were given (they override the workload file). */
enum {
    S_BYTES = 1,
    S_TRANSFERS = 2,
    S_RATE = 4,
    S_DIR = 8,
    S_ACC = 16,
    S_PAT = 32,
    S_CONC = 64,
    S_BUDGET = 128
};

/* What the command line asked for, handed from parsing to the run. */
typedef struct zc__advise_args {
    const char *profile_path, *workload_path;
    const char *trace_path; /* --trace: advise on a traced program instead */
    int validate;
    zc_cli_validate_args v;
    zc_workload flags;
    unsigned set;
    zc_stream_workload stream;
    const char *streams[ZC__STREAM_FILES_MAX], *checks[ZC__STREAM_FILES_MAX];
    size_t stream_count, check_count;
} zc__advise_args;

static int zc__advise_run(const zc__advise_args *a, zc_cli_output *json_out,
                          zc_cli_output *save_out);

/* One option of the advise command; a zc exit code (ZC_EXIT_OK to go on). */
static int zc__advise_option(int opt, zc__advise_args *a, const char **json, const char **save,
                             int argc, char **argv);

int zc_cli_cmd_advise(int argc, char **argv)
{
    zc__advise_args a;
    memset(&a, 0, sizeof a);
    a.v.out_dir = ".";
    a.v.rounds = 5;
    a.v.seconds_per_run = 0.04;
    a.v.seed = 1;
    const char *json = NULL, *save_path = NULL;
    int opt;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    enum { OPT_FIRST = 256 };
    static const struct option options[] = {
        {"profile", required_argument, NULL, OPT_FIRST + 0},
        {"save-profile", required_argument, NULL, OPT_FIRST + 1},
        {"workload", required_argument, NULL, OPT_FIRST + 2},
        {"bytes", required_argument, NULL, OPT_FIRST + 3},
        {"transfers", required_argument, NULL, OPT_FIRST + 4},
        {"rate", required_argument, NULL, OPT_FIRST + 5},
        {"direction", required_argument, NULL, OPT_FIRST + 6},
        {"accesses", required_argument, NULL, OPT_FIRST + 7},
        {"pattern", required_argument, NULL, OPT_FIRST + 8},
        {"concurrent", no_argument, NULL, OPT_FIRST + 9},
        {"latency-budget", required_argument, NULL, OPT_FIRST + 10},
        {"force", no_argument, NULL, OPT_FIRST + 11},
        {"validate", no_argument, NULL, OPT_FIRST + 12},
        {"out", required_argument, NULL, OPT_FIRST + 13},
        {"seconds-per-run", required_argument, NULL, OPT_FIRST + 14},
        {"rounds", required_argument, NULL, OPT_FIRST + 15},
        {"random", required_argument, NULL, OPT_FIRST + 16},
        {"seed", required_argument, NULL, OPT_FIRST + 17},
        {"frame", required_argument, NULL, OPT_FIRST + 18},
        {"frame-rate", required_argument, NULL, OPT_FIRST + 19},
        {"stream", required_argument, NULL, OPT_FIRST + 20},
        {"stream-check", required_argument, NULL, OPT_FIRST + 21},
        {"trace", required_argument, NULL, OPT_FIRST + 22},
        {"device", required_argument, NULL, 'd'},
        {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    while ((opt = zc_cli_next_option("advise", zc__advise_usage, argc, argv, ":hd:j:", options)) !=
           -1) {
        if (opt == 'h') {
            zc__advise_help();
            return ZC_EXIT_OK;
        }
        int code = zc__advise_option(opt, &a, &json, &save_path, argc, argv);
        if (code != ZC_EXIT_OK)
            return code;
    }
    if (optind < argc)
        return zc_cli_usage_error("advise", zc__advise_usage, "unexpected argument '%s'",
                                  argv[optind]);
    if (a.validate && (a.stream.frame_bytes > 0 || a.check_count > 0))
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "--validate checks transfer workloads; for a stream, run zc "
                                  "stream and give its results with --stream");
    if (a.trace_path != NULL && (a.validate || a.stream.frame_bytes > 0 || a.stream_count > 0 ||
                                 a.check_count > 0 || a.set != 0 || a.workload_path != NULL))
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "--trace advises on the traced program's own workloads: it "
                                  "takes no workload, stream or --validate options");
    if (a.check_count > 0 && a.stream.frame_bytes == 0)
        a.stream.frame_bytes = 1; /* --stream-check alone: every size of the checked runs */
    if ((a.stream.frame_bytes > 0 || a.check_count > 0) && a.stream_count == 0 &&
        a.profile_path == NULL)
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "stream advice needs zc stream results: --stream FILE");

    /* Every output is checked before anything is measured, and none may replace an input. */
    /* The profile, the workload, and every stream result read (--stream, --stream-check). */
    const char *inputs[3 + 2 * ZC__STREAM_FILES_MAX] = {a.profile_path, a.workload_path,
                                                        a.trace_path};
    size_t ninputs = 3;
    for (size_t i = 0; i < a.stream_count; i++)
        inputs[ninputs++] = a.streams[i];
    for (size_t i = 0; i < a.check_count; i++)
        inputs[ninputs++] = a.checks[i];
    zc_cli_output json_out = {0}, save_out = {0};
    int code = ZC_EXIT_OK;
    if (a.profile_path != NULL && strcmp(a.profile_path, "-") == 0 &&
        ((a.workload_path != NULL && strcmp(a.workload_path, "-") == 0) ||
         (a.trace_path != NULL && strcmp(a.trace_path, "-") == 0)))
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "--profile - and --%s - cannot both read stdin",
                                  a.trace_path != NULL ? "trace" : "workload");
    if (json != NULL && save_path != NULL && strcmp(json, "-") == 0 && strcmp(save_path, "-") == 0)
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "--json - and --save-profile - cannot share stdout");
    if (json != NULL && (code = zc_cli_output_open(&json_out, "advise", json, a.v.force, inputs,
                                                   ninputs)) != ZC_EXIT_OK)
        return code;
    if (save_path != NULL && (code = zc_cli_output_open(&save_out, "advise", save_path, a.v.force,
                                                        inputs, ninputs)) != ZC_EXIT_OK) {
        zc_cli_output_abort(&json_out);
        return code;
    }
    code =
        zc__advise_run(&a, json != NULL ? &json_out : NULL, save_path != NULL ? &save_out : NULL);
    zc_cli_output_abort(&json_out); /* a no-op once committed */
    zc_cli_output_abort(&save_out);
    return code;
}

/* A usage error of this command: its message, then a pointer to --help. */
#define ZC__BAD(...) zc_cli_usage_error("advise", zc__advise_usage, __VA_ARGS__)

/* The largest figure an option without a natural bound takes: finite, so that the model can
 * compute with it (a prediction that overflows all the same is refused as such). */
#define ZC__NUMBER_MAX 1e300

/* A number option of this command (its value in optarg), its range said when refused (cli.h). */
#define ZC__U64(name, what, min, max, value_p)                                                     \
    zc_cli_u64_option("advise", zc__advise_usage, name, what, optarg, min, max, value_p)
#define ZC__DOUBLE(name, what, min, max, value_p)                                                  \
    zc_cli_double_option("advise", zc__advise_usage, name, what, optarg, min, max, value_p)
#define ZC__POSITIVE(name, what, max, value_p)                                                     \
    zc_cli_positive_option("advise", zc__advise_usage, name, what, optarg, max, value_p)

/* --bytes, --frame: a size as a workload file's "bytes" reads it. */
static int zc__parse_size(const char *option, const char *text, size_t *bytes_p)
{
    uint64_t bytes = 0;
    int code =
        zc_cli_parse_size("advise", zc__advise_usage, option, text, ZC_WORKLOAD_BYTES_MAX, &bytes);
    if (code == ZC_EXIT_OK)
        *bytes_p = (size_t)bytes;
    return code;
}

/* --transfers: a whole number from 1 to the largest count the model takes. */
static int zc__parse_transfers(const char *text, double *transfers_p)
{
    const uint64_t max = ZC_WORKLOAD_TRANSFERS_MAX;
    uint64_t n = 0;
    if (zc_cli_parse_u64(text, 1, max, &n)) {
        *transfers_p = (double)n;
        return ZC_EXIT_OK;
    }
    /* Digits that are not all zeros, past max (or past what 64 bits hold). */
    const size_t len = strlen(text);
    if (strspn(text, "0123456789") == len && strspn(text, "0") != len)
        return ZC__BAD("--transfers: %s is over the largest supported count, %llu", text,
                       (unsigned long long)max);
    return ZC__BAD("--transfers needs a whole number of transfers, 1 to %llu, got '%s'",
                   (unsigned long long)max, text);
}

static int zc__advise_option(int opt, zc__advise_args *a, const char **json, const char **save,
                             int argc, char **argv)
{
    zc_workload *f = &a->flags;
    uint64_t n = 0;
    int code = ZC_EXIT_OK;
    switch (opt) {
    case 256 + 0:
        a->profile_path = optarg;
        return ZC_EXIT_OK;
    case 256 + 1:
        *save = optarg;
        return ZC_EXIT_OK;
    case 256 + 2:
        a->workload_path = optarg;
        return ZC_EXIT_OK;
    case 256 + 3:
        a->set |= S_BYTES;
        return zc__parse_size("--bytes", optarg, &f->bytes);
    case 256 + 4:
        a->set |= S_TRANSFERS;
        return zc__parse_transfers(optarg, &f->transfers);
    case 256 + 5:
        a->set |= S_RATE;
        return ZC__POSITIVE("--rate", "transfers per second", (double)ZC_WORKLOAD_TRANSFERS_MAX,
                            &f->rate_hz);
    case 256 + 6:
        a->set |= S_DIR;
        return zc_direction_from_key(optarg, &f->direction) == ZC_OK
                   ? ZC_EXIT_OK
                   : ZC__BAD("--direction is h2d, d2h or both, got '%s'", optarg);
    case 256 + 7:
        a->set |= S_ACC;
        return ZC__DOUBLE("--accesses", "reads or writes per byte", 1.0, ZC__NUMBER_MAX,
                          &f->gpu_accesses);
    case 256 + 8:
        a->set |= S_PAT;
        return zc_access_from_key(optarg, &f->pattern) == ZC_OK
                   ? ZC_EXIT_OK
                   : ZC__BAD("--pattern is coalesced, strided or random, got '%s'", optarg);
    case 256 + 9:
        a->set |= S_CONC;
        f->concurrent = 1;
        return ZC_EXIT_OK;
    case 256 + 10:
        a->set |= S_BUDGET;
        return ZC__POSITIVE("--latency-budget", "microseconds", ZC__NUMBER_MAX,
                            &f->latency_budget_us);
    case 256 + 11:
        a->v.force = 1;
        return ZC_EXIT_OK;
    case 256 + 12:
        a->validate = 1;
        return ZC_EXIT_OK;
    case 256 + 13:
        a->v.out_dir = optarg;
        return ZC_EXIT_OK;
    case 256 + 14:
        return ZC__DOUBLE("--seconds-per-run", "seconds", 0.001, 60.0, &a->v.seconds_per_run);
    case 256 + 15:
        if ((code = ZC__U64("--rounds", "a number of rounds", 1, ZC_VALIDATION_ROUNDS_MAX, &n)))
            return code;
        a->v.rounds = (size_t)n;
        return ZC_EXIT_OK;
    case 256 + 16:
        if ((code = ZC__U64("--random", "a number of workloads", 1, 1000, &n)))
            return code;
        a->v.random = (size_t)n;
        return ZC_EXIT_OK;
    case 256 + 17:
        if ((code = ZC__U64("--seed", "a whole number", 0, UINT64_MAX, &n)))
            return code;
        a->v.seed = (unsigned long long)n;
        return ZC_EXIT_OK;
    case 256 + 18:
        return zc__parse_size("--frame", optarg, &a->stream.frame_bytes);
    case 256 + 19:
        if (strcmp(optarg, "max") == 0) {
            a->stream.rate_hz = 0.0;
            return ZC_EXIT_OK;
        }
        return zc_cli_parse_double(optarg, 0.0, ZC__NUMBER_MAX, &a->stream.rate_hz) &&
                       a->stream.rate_hz > 0.0
                   ? ZC_EXIT_OK
                   : ZC__BAD("--frame-rate needs frames per second, more than 0 and at most %g, "
                             "or max, got '%s'",
                             ZC__NUMBER_MAX, optarg);
    case 256 + 20:
    case 256 + 21: {
        const char **list = opt == 256 + 20 ? a->streams : a->checks;
        size_t *count = opt == 256 + 20 ? &a->stream_count : &a->check_count;
        if (*count >= ZC__STREAM_FILES_MAX)
            return ZC__BAD("at most 32 zc stream results, one more: '%s'", optarg);
        list[(*count)++] = optarg;
        return ZC_EXIT_OK;
    }
    case 256 + 22:
        a->trace_path = optarg;
        return ZC_EXIT_OK;
    case 'd':
        return zc_cli_int_option("advise", zc__advise_usage, "--device", "a GPU number", optarg, 0,
                                 ZC_CLI_DEVICE_MAX, &a->v.device);
    case 'j':
        *json = optarg;
        return ZC_EXIT_OK;
    default:
        return zc_cli_option_error("advise", zc__advise_usage, opt, argc, argv);
    }
}

/* The workload: defaults, then the file, then the flags. */
static int zc__workload(const zc__advise_args *a, zc_workload *w_p)
{
    const zc_workload *f = &a->flags;
    zc_workload w = {4096, 1000.0, 0.0, ZC_DIR_H2D, 1.0, ZC_ACCESS_COALESCED, 0, 0.0};
    if (a->workload_path != NULL) {
        int code = ZC_EXIT_OK;
        cJSON *doc = zc_cli_read_json("advise", a->workload_path, &code);
        if (doc == NULL)
            return code;
        zc_status status = zc_workload_from_json(doc, &w);
        /* The reader takes "transfers" as given, and the library reads 0 as "one second at the
         * rate" (or 1): in a file, a count is a whole number of transfers, at least one. */
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(doc, "transfers");
        const double max = (double)ZC_WORKLOAD_TRANSFERS_MAX;
        char got[64] = "";
        if (status == ZC_OK && cJSON_IsNumber(n) &&
            !(n->valuedouble >= 1.0 && n->valuedouble <= max &&
              n->valuedouble == floor(n->valuedouble))) {
            snprintf(got, sizeof got, "%g", n->valuedouble);
        }
        cJSON_Delete(doc);
        if (got[0] != '\0') {
            fprintf(stderr,
                    "zc advise: bad workload %s: transfers must be a whole number from 1 to "
                    "%.0f, got %s\n",
                    a->workload_path, max, got);
            return ZC_EXIT_USAGE;
        }
        if (status != ZC_OK) {
            fprintf(stderr, "zc advise: bad workload %s: %s\n", a->workload_path, zc_last_error());
            return ZC_EXIT_USAGE;
        }
    }
    unsigned set = a->set;
    if (set & S_BYTES)
        w.bytes = f->bytes;
    if (set & S_TRANSFERS)
        w.transfers = f->transfers;
    if (set & S_RATE) {
        w.rate_hz = f->rate_hz;
        if (!(set & S_TRANSFERS) && a->workload_path == NULL)
            w.transfers = 0.0; /* one second at the rate */
    }
    if (set & S_DIR)
        w.direction = f->direction;
    if (set & S_ACC)
        w.gpu_accesses = f->gpu_accesses;
    if (set & S_PAT)
        w.pattern = f->pattern;
    if (set & S_CONC)
        w.concurrent = 1;
    if (set & S_BUDGET)
        w.latency_budget_us = f->latency_budget_us;
    zc_status status = zc_workload_check(&w);
    if (status != ZC_OK)
        return zc_cli_fail("advise", "workload", status);
    *w_p = w;
    return ZC_EXIT_OK;
}

/* Stream advice, or with --stream-check its check at every frame size of the checked runs. */
static int zc__stream(const zc__advise_args *a, const zc_profile *profile, zc_cli_output *json_out)
{
    if (a->check_count == 0) {
        zc_stream_advice adv;
        zc_status status = zc_stream_advise(profile, &a->stream, &adv);
        if (status != ZC_OK)
            return zc_cli_fail("advise", "ranking the stream modes", status);
        int code = ZC_EXIT_OK;
        if (json_out != NULL) {
            cJSON *doc = NULL;
            zc_status built = zc_stream_advice_to_json(profile, &a->stream, &adv, &doc);
            code = zc_cli_json_commit_built("advise", built, doc, json_out);
        }
        if (json_out == NULL || strcmp(json_out->path, "-") != 0)
            zc_cli_stream_advice_print(stdout, profile, &a->stream, &adv);
        return code;
    }
    zc_profile measured;
    zc_profile_init(&measured);
    for (size_t i = 0; i < a->check_count; i++) {
        int code = zc_cli_profile_add_stream_file(&measured, a->checks[i]);
        if (code != ZC_EXIT_OK)
            return code;
    }
    /* Each frame size of the checked runs, judged as fast as possible and at a rate every
     * mode keeps (100 frames/s: then latency decides). */
    zc_stream_check checks[2 * ZC_PROFILE_STREAM_MAX];
    size_t sizes[ZC_PROFILE_STREAM_MAX], n = 0, size_count = 0;
    for (size_t i = 0; i < measured.stream_count; i++) {
        size_t bytes = measured.stream[i].frame_bytes;
        int seen = 0;
        for (size_t j = 0; j < size_count; j++)
            seen |= sizes[j] == bytes;
        if (seen)
            continue;
        sizes[size_count++] = bytes;
        for (int r = 0; r < 2; r++) {
            zc_stream_workload w = {bytes, r ? 100.0 : 0.0};
            zc_status status = zc_stream_check_advice(profile, &measured, &w, &checks[n]);
            if (status == ZC_ERR_NOT_FOUND) {
                /* The checked runs lack the advised mode at this size (a run that failed
                 * there): that row cannot be judged, the others still can. */
                fprintf(stderr, "zc advise: %zu-byte frames%s not judged: %s\n", bytes,
                        r ? " at 100/s" : "", zc_last_error());
                continue;
            }
            if (status != ZC_OK)
                return zc_cli_fail("advise", "checking the stream advice", status);
            n++;
        }
    }
    zc_cli_stream_check_print(stdout, checks, n);
    return ZC_EXIT_OK;
}

/* The techniques ranked for workload w, printed and into json_out. */
static int zc__rank(const zc_profile *profile, const char *notes, const zc_workload *w,
                    zc_cli_output *json_out)
{
    zc_recommendation rec;
    zc_status status = zc_advise_rank(profile, w, &rec);
    if (status != ZC_OK)
        return zc_cli_fail("advise", "ranking the techniques", status);
    int code = ZC_EXIT_OK;
    if (json_out != NULL) {
        cJSON *doc = NULL;
        zc_status built = zc_advise_to_json(profile, notes, w, &rec, &doc);
        code = zc_cli_json_commit_built("advise", built, doc, json_out);
    }
    if (json_out == NULL || strcmp(json_out->path, "-") != 0)
        zc_cli_advise_print(stdout, profile, notes, w, &rec);
    return code;
}

static int zc__advise_with(const zc__advise_args *a, const cJSON *trace, const zc_workload *wp,
                           zc_cli_output *json_out, zc_cli_output *save_out);

/* After parsing: the workload or the trace, then the rest. */
static int zc__advise_run(const zc__advise_args *a, zc_cli_output *json_out,
                          zc_cli_output *save_out)
{
    int streaming = a->stream.frame_bytes > 0;
    zc_workload w;
    cJSON *trace = NULL; /* --trace: read and checked before a profile is measured */
    int code = a->trace_path != NULL ? zc_cli_advise_trace_read(a->trace_path, &trace)
               : streaming           ? ZC_EXIT_OK
                                     : zc__workload(a, &w);
    if (code != ZC_EXIT_OK)
        return code;
    code = zc__advise_with(a, trace, &w, json_out, save_out);
    cJSON_Delete(trace);
    return code;
}

/* With the workload (or the trace) in hand: the profile, the advice, the outputs. */
static int zc__advise_with(const zc__advise_args *a, const cJSON *trace, const zc_workload *wp,
                           zc_cli_output *json_out, zc_cli_output *save_out)
{
    int streaming = a->stream.frame_bytes > 0, code = ZC_EXIT_OK;
    zc_profile profile;
    char notes[4096] = "";
    zc_status status = ZC_OK;
    zc_profile_init(&profile);
    if (a->profile_path != NULL)
        status = zc_cli_profile_load(a->profile_path, &profile, NULL, notes, sizeof notes);
    else if (!streaming)
        status = zc_cli_advise_quick_profile(a->v.device, &profile, NULL, notes, sizeof notes);
    if (status != ZC_OK)
        return a->profile_path != NULL ? zc_cli_exit_code(status) /* the loader said why */
                                       : zc_cli_fail("advise", "measuring a profile", status);
    for (size_t i = 0; i < a->stream_count; i++) {
        if ((code = zc_cli_profile_add_stream_file(&profile, a->streams[i])) != ZC_EXIT_OK)
            return code;
    }
    if (a->trace_path != NULL)
        code = zc_cli_advise_trace(&profile, notes, trace, a->trace_path, json_out);
    else if (streaming)
        code = zc__stream(a, &profile, json_out);
    else if (a->validate)
        code = zc_cli_advise_validate(&profile, notes, &a->v);
    else
        code = zc__rank(&profile, notes, wp, json_out);
    if (save_out == NULL)
        return code;
    if (code != ZC_EXIT_OK) {
        (void)zc_cli_output_finish(save_out, 0); /* a failed command saves nothing */
        return code;
    }
    /* Measured and derived figures as the machine's; the assumed ones apart, marked. */
    cJSON *doc = NULL;
    zc_status built = zc_profile_to_saved_json(&profile, notes, &doc);
    return zc_cli_json_commit_built("advise", built, doc, save_out);
}
