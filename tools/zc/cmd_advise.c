/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise: which technique fits a workload on this machine, from its measured profile. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_blocks.h"
#include "advise_input.h"
#include "advise_pinning.h"
#include "advise_print.h"
#include "advise_quick.h"
#include "advise_trace.h"
#include "advise_validate.h"
#include "cli.h"
#include "cli_json.h"
#include "cli_options.h"

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
    "       zc advise --trace FILE|- [--profile FILE] [-d N] [-j FILE] [--force]\n"
    "       zc advise --blocks SIZE --count N --bench FILE [--to-host|--both-ways]\n"
    "          [--beside-compute] [-j FILE] [--force]\n"
    "       zc advise --pinning SIZE --bench FILE [-j FILE] [--force]";

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
           "The block mover (zerocopy/blocks.h: which engine moves many blocks fastest):\n"
           "  --blocks SIZE         bytes per block: rank the copy, batch and kernel engines\n"
           "                        for a move of such blocks, with the profile fitted to\n"
           "                        --bench's block family\n"
           "                        (-j: schema \"%s\")\n"
           "  --count N             blocks to move (each way with --both-ways); needed\n"
           "  --to-host             device to host (default: host to device)\n"
           "  --both-ways           N blocks each way at once\n"
           "  --beside-compute      also the measured loss of a memory-bound kernel running\n"
           "                        beside each engine, at the measured block size nearest\n"
           "  --bench FILE          what `zc bench --case blocks --json FILE` wrote (default\n"
           "                        or full mode; - for stdin); needed: zc advise does not\n"
           "                        measure the block mover itself\n\n"
           "Pinning (how long getting pinned host memory takes each way):\n"
           "  --pinning SIZE        rank cudaHostAlloc, cudaMallocHost, cudaHostRegister of\n"
           "                        fresh and of touched malloc'd memory, and zerocopy's own\n"
           "                        path for SIZE bytes from the pinning family of --bench FILE\n"
           "                        (what `zc bench --case pin --json FILE` wrote, - for stdin;\n"
           "                        needed: zc advise does not measure pinning itself): the\n"
           "                        seconds, s/GiB, times the floor, how a program gets each\n"
           "                        way (-j: schema \"%s\")\n\n"
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
           zc__advise_usage, ZC_PROFILE_SCHEMA, ZC_ADVISE_TRACE_SCHEMA, ZC_ADVISE_BLOCKS_SCHEMA,
           ZC_ADVISE_PINNING_SCHEMA, ZC_ADVISE_SCHEMA, zc_validation_fixed_count(),
           ZC_VALIDATION_ROUNDS_MAX);
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
    const char *trace_path;            /* --trace: advise on a traced program instead */
    const char *json_path, *save_path; /* -j, --save-profile */
    int validate;
    zc_cli_validate_args v;
    zc_workload flags;
    unsigned set;
    zc_stream_workload stream;
    const char *streams[ZC__STREAM_FILES_MAX], *checks[ZC__STREAM_FILES_MAX];
    size_t stream_count, check_count;
    zc_cli_blocks_args blocks;   /* --blocks: the block mover's engines instead */
    zc_cli_pinning_args pinning; /* --pinning: the ways of pinning instead */
    const char *bench_path;      /* --bench, for --blocks or --pinning */
    int device_given;            /* -d */
} zc__advise_args;

static int zc__advise_run(const zc__advise_args *a, zc_cli_output *json_out,
                          zc_cli_output *save_out);

/* --blocks against the other forms, and what it needs: 0 or the exit code. */
static int zc__blocks_check(const zc__advise_args *a);

/* --pinning the same. */
static int zc__pinning_check(const zc__advise_args *a);

/* The command line into a, by the option table below: 0, -1 after the help, or the exit code. */
static int zc__advise_parse(int argc, char **argv, zc__advise_args *a);

int zc_cli_cmd_advise(int argc, char **argv)
{
    zc__advise_args a;
    memset(&a, 0, sizeof a);
    a.v.out_dir = ".";
    a.v.rounds = 5;
    a.v.seconds_per_run = 0.04;
    a.v.seed = 1;
    int parsed = zc__advise_parse(argc, argv, &a);
    if (parsed != 0)
        return parsed < 0 ? ZC_EXIT_OK : parsed;
    const char *json = a.json_path, *save_path = a.save_path;
    if (optind < argc)
        return zc_cli_usage_error("advise", zc__advise_usage, "unexpected argument '%s'",
                                  argv[optind]);
    a.blocks.bench = a.pinning.bench = a.bench_path;
    int code = zc__blocks_check(&a);
    if (code == ZC_EXIT_OK)
        code = zc__pinning_check(&a);
    if (code != ZC_EXIT_OK)
        return code;
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
    const char *inputs[4 + 2 * ZC__STREAM_FILES_MAX] = {a.profile_path, a.workload_path,
                                                        a.trace_path, a.bench_path};
    size_t ninputs = 4;
    for (size_t i = 0; i < a.stream_count; i++)
        inputs[ninputs++] = a.streams[i];
    for (size_t i = 0; i < a.check_count; i++)
        inputs[ninputs++] = a.checks[i];
    zc_cli_output json_out = {0}, save_out = {0};
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
    if (a.blocks.block_bytes > 0)
        code = zc_cli_advise_blocks(&a.blocks, json != NULL ? &json_out : NULL);
    else if (a.pinning.bytes > 0)
        code = zc_cli_advise_pinning(&a.pinning, json != NULL ? &json_out : NULL);
    else
        code = zc__advise_run(&a, json != NULL ? &json_out : NULL,
                              save_path != NULL ? &save_out : NULL);
    zc_cli_output_abort(&json_out); /* a no-op once committed */
    zc_cli_output_abort(&save_out);
    return code;
}

/* A usage error of this command: its message, then a pointer to --help. */
#define ZC__BAD(...) zc_cli_usage_error("advise", zc__advise_usage, __VA_ARGS__)

/* The largest figure an option without a natural bound takes: finite, so that the model can
 * compute with it (a prediction that overflows all the same is refused as such; one that does
 * not is printed in a bounded format, advise_print.c). */
#define ZC__NUMBER_MAX 1e300

/* A number option of this command, its range said when refused (cli.h). */
#define ZC__DOUBLE(name, what, text, min, max, value_p)                                            \
    zc_cli_double_option("advise", zc__advise_usage, name, what, text, min, max, value_p)
#define ZC__POSITIVE(name, what, text, max, value_p)                                               \
    zc_cli_positive_option("advise", zc__advise_usage, name, what, text, max, value_p)

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

/* The options' readers that do more than store one value (opts is the zc__advise_args). */
static int zc__opt_bytes(void *opts, const char *value)
{
    return zc__parse_size("--bytes", value, &((zc__advise_args *)opts)->flags.bytes);
}

static int zc__opt_transfers(void *opts, const char *value)
{
    return zc__parse_transfers(value, &((zc__advise_args *)opts)->flags.transfers);
}

static int zc__opt_rate(void *opts, const char *value)
{
    return ZC__POSITIVE("--rate", "transfers per second", value, (double)ZC_WORKLOAD_TRANSFERS_MAX,
                        &((zc__advise_args *)opts)->flags.rate_hz);
}

static int zc__opt_direction(void *opts, const char *value)
{
    return zc_direction_from_key(value, &((zc__advise_args *)opts)->flags.direction) == ZC_OK
               ? ZC_EXIT_OK
               : ZC__BAD("--direction is h2d, d2h or both, got '%s'", value);
}

static int zc__opt_accesses(void *opts, const char *value)
{
    return ZC__DOUBLE("--accesses", "reads or writes per byte", value, 1.0, ZC__NUMBER_MAX,
                      &((zc__advise_args *)opts)->flags.gpu_accesses);
}

static int zc__opt_pattern(void *opts, const char *value)
{
    return zc_access_from_key(value, &((zc__advise_args *)opts)->flags.pattern) == ZC_OK
               ? ZC_EXIT_OK
               : ZC__BAD("--pattern is coalesced, strided or random, got '%s'", value);
}

static int zc__opt_latency_budget(void *opts, const char *value)
{
    return ZC__POSITIVE("--latency-budget", "microseconds", value, ZC__NUMBER_MAX,
                        &((zc__advise_args *)opts)->flags.latency_budget_us);
}

static int zc__opt_frame(void *opts, const char *value)
{
    return zc__parse_size("--frame", value, &((zc__advise_args *)opts)->stream.frame_bytes);
}

static int zc__opt_frame_rate(void *opts, const char *value)
{
    zc__advise_args *a = opts;
    if (strcmp(value, "max") == 0) {
        a->stream.rate_hz = 0.0;
        return ZC_EXIT_OK;
    }
    return zc_cli_parse_double(value, 0.0, ZC__NUMBER_MAX, &a->stream.rate_hz) &&
                   a->stream.rate_hz > 0.0
               ? ZC_EXIT_OK
               : ZC__BAD("--frame-rate needs frames per second, more than 0 and at most %g, "
                         "or max, got '%s'",
                         ZC__NUMBER_MAX, value);
}

/* --blocks: a block size, in the sizes' one grammar. */
static int zc__opt_blocks(void *opts, const char *value)
{
    return zc_cli_parse_size("advise", zc__advise_usage, "--blocks", value, ZC_CLI_BLOCKS_BYTES_MAX,
                             &((zc__advise_args *)opts)->blocks.block_bytes);
}

static int zc__blocks_check(const zc__advise_args *a)
{
    if (a->blocks.block_bytes == 0)
        return ZC_EXIT_OK;
    if (a->validate || a->stream.frame_bytes > 0 || a->stream_count > 0 || a->check_count > 0 ||
        a->trace_path != NULL || a->set != 0 || a->workload_path != NULL ||
        a->profile_path != NULL || a->save_path != NULL || a->device_given)
        return ZC__BAD("--blocks ranks the block mover's engines from a bench document: it takes "
                       "no workload, profile, stream, trace, -d or --validate options");
    if (a->blocks.count == 0)
        return ZC__BAD("--blocks needs --count N, the blocks to move");
    if (a->blocks.bench == NULL)
        return ZC__BAD("--blocks needs --bench FILE, a `zc bench --case blocks --json FILE` "
                       "document: zc advise does not measure the block mover itself (the fit "
                       "needs the default mode's four block sizes)");
    return ZC_EXIT_OK;
}

/* --pinning: a size of pinned memory, in the sizes' one grammar (0 and nonsense refused). */
static int zc__opt_pinning(void *opts, const char *value)
{
    return zc_cli_parse_size("advise", zc__advise_usage, "--pinning", value,
                             ZC_CLI_PINNING_BYTES_MAX, &((zc__advise_args *)opts)->pinning.bytes);
}

static int zc__pinning_check(const zc__advise_args *a)
{
    if (a->pinning.bytes == 0)
        return ZC_EXIT_OK;
    if (a->blocks.block_bytes > 0)
        return ZC__BAD("--pinning and --blocks are two questions of one bench document: ask "
                       "one at a time");
    if (a->validate || a->stream.frame_bytes > 0 || a->stream_count > 0 || a->check_count > 0 ||
        a->trace_path != NULL || a->set != 0 || a->workload_path != NULL ||
        a->profile_path != NULL || a->save_path != NULL || a->device_given)
        return ZC__BAD("--pinning prices the ways of pinning from a bench document: it takes "
                       "no workload, profile, stream, trace, -d or --validate options");
    if (a->bench_path == NULL)
        return ZC__BAD("--pinning needs --bench FILE, a `zc bench --case pin --json FILE` "
                       "document: zc advise does not measure pinning itself");
    return ZC_EXIT_OK;
}

/* --stream, --stream-check: one more file in list (count of them). */
static int zc__add_stream(const char **list, size_t *count, const char *value)
{
    if (*count >= ZC__STREAM_FILES_MAX)
        return ZC__BAD("at most %d zc stream results, one more: '%s'", ZC__STREAM_FILES_MAX, value);
    list[(*count)++] = value;
    return ZC_EXIT_OK;
}

static int zc__opt_stream(void *opts, const char *value)
{
    zc__advise_args *a = opts;
    return zc__add_stream(a->streams, &a->stream_count, value);
}

static int zc__opt_stream_check(void *opts, const char *value)
{
    zc__advise_args *a = opts;
    return zc__add_stream(a->checks, &a->check_count, value);
}

/* The workload options given (zc_cli_options_parse's marks): they override the workload file. */
enum {
    ZC__MARK_BYTES = 1,
    ZC__MARK_TRANSFERS,
    ZC__MARK_RATE,
    ZC__MARK_DIR,
    ZC__MARK_ACC,
    ZC__MARK_PAT,
    ZC__MARK_CONC,
    ZC__MARK_BUDGET,
    ZC__MARK_DEVICE /* -d: --blocks measures nothing, so it has no GPU to choose */
};

/* A field of the advise's arguments, for the table's rows (cli_options.h). */
#define ZC__F(field) ZC_CLI_FIELD(zc__advise_args, field)
static const zc_cli_opt zc__advise_options[] = {
    ZC_CLI_TEXT("profile", 0, ZC__F(profile_path), .mark = 0),
    ZC_CLI_TEXT("save-profile", 0, ZC__F(save_path), .mark = 0),
    ZC_CLI_TEXT("workload", 0, ZC__F(workload_path), .mark = 0),
    ZC_CLI_CALL("bytes", zc__opt_bytes, .mark = ZC__MARK_BYTES, .once = 1),
    ZC_CLI_CALL("transfers", zc__opt_transfers, .mark = ZC__MARK_TRANSFERS, .once = 1),
    ZC_CLI_CALL("rate", zc__opt_rate, .mark = ZC__MARK_RATE, .once = 1),
    ZC_CLI_CALL("direction", zc__opt_direction, .mark = ZC__MARK_DIR, .once = 1),
    ZC_CLI_CALL("accesses", zc__opt_accesses, .mark = ZC__MARK_ACC, .once = 1),
    ZC_CLI_CALL("pattern", zc__opt_pattern, .mark = ZC__MARK_PAT, .once = 1),
    {.name = "concurrent",
     .kind = ZC_CLI_OPT_SET,
     ZC__F(flags.concurrent),
     .set = 1,
     .mark = ZC__MARK_CONC},
    ZC_CLI_CALL("latency-budget", zc__opt_latency_budget, .mark = ZC__MARK_BUDGET, .once = 1),
    ZC_CLI_SET("force", 0, ZC__F(v.force), 1),
    ZC_CLI_SET("validate", 0, ZC__F(validate), 1),
    ZC_CLI_TEXT("out", 0, ZC__F(v.out_dir), .mark = 0, .needs = "validate"),
    ZC_CLI_REAL("seconds-per-run", ZC__F(v.seconds_per_run), "seconds", 0.001, 60.0,
                .needs = "validate"),
    ZC_CLI_WHOLE("rounds", ZC__F(v.rounds), "a number of rounds", 1, ZC_VALIDATION_ROUNDS_MAX,
                 .scale = 0, .needs = "validate"),
    ZC_CLI_WHOLE("random", ZC__F(v.random), "a number of workloads", 1, 1000, .scale = 0,
                 .needs = "validate"),
    ZC_CLI_WHOLE("seed", ZC__F(v.seed), "a whole number", 0, UINT64_MAX, .scale = 0,
                 .needs = "random"),
    ZC_CLI_CALL("frame", zc__opt_frame, .mark = 0, .once = 1),
    ZC_CLI_CALL("frame-rate", zc__opt_frame_rate, .mark = 0, .once = 1, .needs = "frame"),
    ZC_CLI_CALL("stream", zc__opt_stream, .mark = 0, .needs = "frame|stream-check"),
    ZC_CLI_CALL("stream-check", zc__opt_stream_check, .mark = 0),
    ZC_CLI_TEXT("trace", 0, ZC__F(trace_path), .mark = 0),
    ZC_CLI_CALL("blocks", zc__opt_blocks, .mark = 0, .once = 1),
    ZC_CLI_WHOLE("count", ZC__F(blocks.count), "a number of blocks", 1, ZC_CLI_BLOCKS_COUNT_MAX,
                 .scale = 0, .needs = "blocks"),
    {.name = "to-host",
     .kind = ZC_CLI_OPT_SET,
     ZC__F(blocks.to_host),
     .set = 1,
     .needs = "blocks",
     .excludes = "both-ways"},
    {.name = "both-ways",
     .kind = ZC_CLI_OPT_SET,
     ZC__F(blocks.both_ways),
     .set = 1,
     .needs = "blocks"},
    {.name = "beside-compute",
     .kind = ZC_CLI_OPT_SET,
     ZC__F(blocks.beside),
     .set = 1,
     .needs = "blocks"},
    ZC_CLI_CALL("pinning", zc__opt_pinning, .mark = 0, .once = 1),
    ZC_CLI_TEXT("bench", 0, ZC__F(bench_path), .mark = 0, .needs = "blocks|pinning"),
    ZC_CLI_INT("device", 'd', ZC__F(v.device), "a GPU number", 0, ZC_CLI_DEVICE_MAX,
               .mark = ZC__MARK_DEVICE),
    ZC_CLI_TEXT("json", 'j', ZC__F(json_path), .mark = 0),
};
#undef ZC__F

static int zc__advise_parse(int argc, char **argv, zc__advise_args *a)
{
    static const zc_cli_command command = {"advise", zc__advise_usage, zc__advise_help};
    int marks[ZC_CLI_MARKS];
    int code = zc_cli_options_parse(&command, zc__advise_options,
                                    sizeof zc__advise_options / sizeof zc__advise_options[0], argc,
                                    argv, a, marks);
    if (code != 0)
        return code;
    static const unsigned bits[] = {0,     S_BYTES, S_TRANSFERS, S_RATE,  S_DIR,
                                    S_ACC, S_PAT,   S_CONC,      S_BUDGET};
    for (int m = ZC__MARK_BYTES; m <= ZC__MARK_BUDGET; m++)
        a->set |= marks[m] ? bits[m] : 0u;
    a->device_given = marks[ZC__MARK_DEVICE];
    return 0;
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
