/* zc advise: which technique fits a workload on this machine, from its measured profile. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_json.h"
#include "advise_quick.h"
#include "advise_validate.h"
#include "cli.h"
#include "cli_json.h"

static const char zc__advise_usage[] =
    "zc advise [--profile FILE] [--workload FILE] [--bytes SIZE] [--transfers N] [--rate HZ]\n"
    "          [--direction h2d|d2h|both] [--accesses K] [--pattern coalesced|strided|random]\n"
    "          [--concurrent] [--latency-budget US] [-d N] [-j FILE] [--save-profile FILE]\n"
    "          [--force]\n"
    "       zc advise --validate [--profile FILE] [--out DIR] [-d N] [--force]";

static void zc__advise_help(void)
{
    printf("usage: %s\n\n"
           "Predict the time of each technique (pageable copy, pinned copy, pinned copy\n"
           "overlapped on streams, mapped zero-copy, registered copy, managed with prefetch)\n"
           "for a workload on this machine, rank them, and explain the first choice.\n\n"
           "The machine's figures come from --profile: a `zc bench --json` result or a\n"
           "\"%s\" document (--save-profile writes one). Without --profile zc advise\n"
           "runs `zc bench --quick` first (its own one-second calibration if that fails)\n"
           "and says so.\n\n"
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
           "Other options:\n"
           "  --profile FILE        the machine's measured figures (- for stdin)\n"
           "  --save-profile FILE   write the profile used (with assumptions filled in, and\n"
           "                        marked as assumed); - for stdout\n"
           "  -d, --device N        the GPU to measure on (default 0)\n"
           "  -j, --json FILE       write the ranking as JSON, schema \"%s\" (docs/json.md), to\n"
           "                        FILE (the text still goes to stdout) or - (stdout, no text)\n"
           "  --force               replace output files that exist\n"
           "  --validate            run %zu varied workloads for real with every technique\n"
           "                        and compare predicted with measured time\n"
           "  --out DIR             where --validate writes validation.md and .json (.)\n"
           "  --seconds-per-run S   --validate: timed work per workload and technique (0.2)\n"
           "  -h, --help            this help\n\n"
           "The model and its validation: docs/advise.md.\n",
           zc__advise_usage, ZC_PROFILE_SCHEMA, ZC_ADVISE_SCHEMA, zc_validation_case_count);
}

static int zc__parse_double(const char *text, double min, double *value_p)
{
    return zc_cli_parse_double(text, min, 1e300, value_p);
}

static void zc__print_text(const zc_profile *profile, const char *notes, const zc_workload *w,
                           const zc_recommendation *rec)
{
    int assumed = 0;
    for (const char *c = notes; c != NULL && *c; c++)
        assumed += *c == '\n';
    char size[32];
    zc_advise_size_text((double)w->bytes, size, sizeof size);
    printf("Profile   %s, from %s", profile->device_name[0] ? profile->device_name : "unnamed GPU",
           profile->source);
    if (assumed > 0)
        printf(" (%d figure%s assumed; --json lists them)", assumed, assumed == 1 ? "" : "s");
    printf("\nWorkload  %s %s per transfer, %g transfer%s", size, zc_direction_key(w->direction),
           zc_workload_transfer_count(w), zc_workload_transfer_count(w) == 1.0 ? "" : "s");
    if (w->rate_hz > 0.0)
        printf(" at %g per second", w->rate_hz);
    printf(", the GPU %s each byte %g time%s (%s)", w->direction == ZC_DIR_D2H ? "writes" : "reads",
           w->gpu_accesses, w->gpu_accesses == 1.0 ? "" : "s", zc_access_key(w->pattern));
    if (w->concurrent)
        printf(", CPU and GPU at the same time");
    if (w->latency_budget_us > 0.0)
        printf(", latency budget %g us", w->latency_budget_us);
    printf("\n\n  %-4s %-34s %14s %14s %12s  %s\n", "rank", "technique", "per transfer", "total",
           "setup", "fits");
    for (size_t i = 0; i < rec->count; i++) {
        const zc_prediction *r = &rec->ranked[i];
        if (!r->usable) {
            printf("  %-4s %-34s %14s %14s %12s  %s\n", "-", zc_technique_title(r->technique), "",
                   "", "", "not measured in this profile");
            continue;
        }
        char fits[64] = "yes";
        if (!r->meets_budget)
            snprintf(fits, sizeof fits, "misses the budget");
        else if (!r->meets_rate)
            snprintf(fits, sizeof fits, "cannot keep the rate");
        printf("  %-4zu %-34s %11.1f us %11.4g ms %9.1f us  %s\n", i + 1,
               zc_technique_title(r->technique), r->per_transfer_us, r->total_us / 1e3, r->setup_us,
               fits);
    }
    printf("\nAdvice    %s\n", rec->explanation);
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
    const char *profile_path, *workload_path, *out_dir;
    int device, validate, force;
    double seconds_per_run;
    const zc_workload *flags;
    unsigned set;
} zc__advise_args;

static int zc__advise_run(const zc__advise_args *a, zc_cli_output *json_out,
                          zc_cli_output *save_out);

int zc_cmd_advise(int argc, char **argv)
{
    enum {
        OPT_PROFILE = 256,
        OPT_SAVE,
        OPT_WORKLOAD,
        OPT_BYTES,
        OPT_TRANSFERS,
        OPT_RATE,
        OPT_DIRECTION,
        OPT_ACCESSES,
        OPT_PATTERN,
        OPT_CONCURRENT,
        OPT_BUDGET,
        OPT_DEVICE,
        OPT_JSON,
        OPT_VALIDATE,
        OPT_OUT,
        OPT_SECONDS,
        OPT_FORCE
    };
    static const struct option options[] = {
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"save-profile", required_argument, NULL, OPT_SAVE},
        {"workload", required_argument, NULL, OPT_WORKLOAD},
        {"bytes", required_argument, NULL, OPT_BYTES},
        {"transfers", required_argument, NULL, OPT_TRANSFERS},
        {"rate", required_argument, NULL, OPT_RATE},
        {"direction", required_argument, NULL, OPT_DIRECTION},
        {"accesses", required_argument, NULL, OPT_ACCESSES},
        {"pattern", required_argument, NULL, OPT_PATTERN},
        {"concurrent", no_argument, NULL, OPT_CONCURRENT},
        {"latency-budget", required_argument, NULL, OPT_BUDGET},
        {"device", required_argument, NULL, 'd'},
        {"json", required_argument, NULL, 'j'},
        {"force", no_argument, NULL, OPT_FORCE},
        {"validate", no_argument, NULL, OPT_VALIDATE},
        {"out", required_argument, NULL, OPT_OUT},
        {"seconds-per-run", required_argument, NULL, OPT_SECONDS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *profile_path = NULL, *save_path = NULL, *workload_path = NULL, *out_dir = ".";
    const char *json = NULL;
    int device = 0, validate = 0, force = 0, opt;
    double seconds_per_run = 0.2;
    /* Flags are applied after the workload file, so they are kept aside first. */
    zc_workload flags;
    memset(&flags, 0, sizeof flags);
    unsigned set = 0;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hd:j:", options, NULL)) != -1) {
        switch (opt) {
        case OPT_FORCE:
            force = 1;
            break;
        case OPT_PROFILE:
            profile_path = optarg;
            break;
        case OPT_SAVE:
            save_path = optarg;
            break;
        case OPT_WORKLOAD:
            workload_path = optarg;
            break;
        case OPT_BYTES:
            if (!zc_advise_parse_size(optarg, &flags.bytes))
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--bytes needs a size like 4096, 4K or 1.5MiB, got '%s'",
                                          optarg);
            set |= S_BYTES;
            break;
        case OPT_TRANSFERS:
            if (!zc__parse_double(optarg, 1.0, &flags.transfers))
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--transfers needs a number >= 1, got '%s'", optarg);
            set |= S_TRANSFERS;
            break;
        case OPT_RATE:
            if (!zc__parse_double(optarg, 0.0, &flags.rate_hz) || flags.rate_hz <= 0.0)
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--rate needs transfers per second > 0, got '%s'",
                                          optarg);
            set |= S_RATE;
            break;
        case OPT_DIRECTION:
            if (zc_direction_from_key(optarg, &flags.direction) != ZC_OK)
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--direction is h2d, d2h or both, got '%s'", optarg);
            set |= S_DIR;
            break;
        case OPT_ACCESSES:
            if (!zc__parse_double(optarg, 1.0, &flags.gpu_accesses))
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--accesses needs a number >= 1, got '%s'", optarg);
            set |= S_ACC;
            break;
        case OPT_PATTERN:
            if (zc_access_from_key(optarg, &flags.pattern) != ZC_OK)
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--pattern is coalesced, strided or random, got '%s'",
                                          optarg);
            set |= S_PAT;
            break;
        case OPT_CONCURRENT:
            flags.concurrent = 1;
            set |= S_CONC;
            break;
        case OPT_BUDGET:
            if (!zc__parse_double(optarg, 0.0, &flags.latency_budget_us) ||
                flags.latency_budget_us <= 0.0)
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--latency-budget needs microseconds > 0, got '%s'",
                                          optarg);
            set |= S_BUDGET;
            break;
        case 'd':
            if (!zc_cli_parse_int(optarg, 0, 1023, &device))
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--device needs a GPU number, got '%s'", optarg);
            break;
        case 'j':
            json = optarg;
            break;
        case OPT_VALIDATE:
            validate = 1;
            break;
        case OPT_OUT:
            out_dir = optarg;
            break;
        case OPT_SECONDS:
            if (!zc__parse_double(optarg, 0.01, &seconds_per_run) || seconds_per_run > 60.0)
                return zc_cli_usage_error("advise", zc__advise_usage,
                                          "--seconds-per-run needs 0.01 to 60, got '%s'", optarg);
            break;
        case 'h':
            zc__advise_help();
            return ZC_EXIT_OK;
        default:
            return zc_cli_option_error("advise", zc__advise_usage, opt, argc, argv);
        }
    }
    if (optind < argc)
        return zc_cli_usage_error("advise", zc__advise_usage, "unexpected argument '%s'",
                                  argv[optind]);

    /* Every output is checked before anything is measured, and none may replace an input. */
    const char *const inputs[] = {profile_path, workload_path};
    zc_cli_output json_out = {0}, save_out = {0};
    int code = ZC_EXIT_OK;
    if (profile_path != NULL && workload_path != NULL && strcmp(profile_path, "-") == 0 &&
        strcmp(workload_path, "-") == 0)
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "--profile - and --workload - cannot both read stdin");
    if (json != NULL && save_path != NULL && strcmp(json, "-") == 0 && strcmp(save_path, "-") == 0)
        return zc_cli_usage_error("advise", zc__advise_usage,
                                  "--json - and --save-profile - cannot share stdout");
    if (json != NULL &&
        (code = zc_cli_output_open(&json_out, "advise", json, force, inputs, 2)) != ZC_EXIT_OK)
        return code;
    if (save_path != NULL && (code = zc_cli_output_open(&save_out, "advise", save_path, force,
                                                        inputs, 2)) != ZC_EXIT_OK) {
        zc_cli_output_abort(&json_out);
        return code;
    }
    code = zc__advise_run(&(zc__advise_args){profile_path, workload_path, out_dir, device, validate,
                                             force, seconds_per_run, &flags, set},
                          json != NULL ? &json_out : NULL, save_path != NULL ? &save_out : NULL);
    zc_cli_output_abort(&json_out); /* a no-op once committed */
    zc_cli_output_abort(&save_out);
    return code;
}

/* After parsing: the workload, the profile, the outputs. */
static int zc__advise_run(const zc__advise_args *a, zc_cli_output *json_out,
                          zc_cli_output *save_out)
{
    const zc_workload flags = *a->flags;
    const unsigned set = a->set;
    const char *workload_path = a->workload_path, *profile_path = a->profile_path;
    const int device = a->device;
    zc_workload w;
    memset(&w, 0, sizeof w);
    w.bytes = 4096;
    w.transfers = 1000.0;
    w.direction = ZC_DIR_H2D;
    w.gpu_accesses = 1.0;
    w.pattern = ZC_ACCESS_COALESCED;
    if (workload_path != NULL) {
        int code = ZC_EXIT_OK;
        cJSON *doc = zc_cli_read_json("advise", workload_path, &code);
        if (doc == NULL)
            return code;
        zc_status status = zc_workload_from_json(doc, &w);
        cJSON_Delete(doc);
        if (status != ZC_OK) {
            fprintf(stderr, "zc advise: bad workload %s (above: why)\n", workload_path);
            return ZC_EXIT_USAGE;
        }
    }
    if (set & S_BYTES)
        w.bytes = flags.bytes;
    if (set & S_TRANSFERS)
        w.transfers = flags.transfers;
    if (set & S_RATE) {
        w.rate_hz = flags.rate_hz;
        if (!(set & S_TRANSFERS) && workload_path == NULL)
            w.transfers = 0.0; /* one second at the rate */
    }
    if (set & S_DIR)
        w.direction = flags.direction;
    if (set & S_ACC)
        w.gpu_accesses = flags.gpu_accesses;
    if (set & S_PAT)
        w.pattern = flags.pattern;
    if (set & S_CONC)
        w.concurrent = 1;
    if (set & S_BUDGET)
        w.latency_budget_us = flags.latency_budget_us;
    zc_status status = zc_workload_check(&w);
    if (status != ZC_OK)
        return zc_cli_fail("advise", "workload", status);

    zc_profile profile, measured;
    char notes[2048] = "";
    if (profile_path != NULL) {
        status = zc_profile_load(profile_path, &profile, &measured, notes, sizeof notes);
        if (status != ZC_OK)
            return zc_cli_exit_code(status); /* the loader said why */
    } else {
        char how[160];
        status = zc_advise_quick_profile(device, &profile, &measured, notes, sizeof notes, how,
                                         sizeof how);
        if (status != ZC_OK)
            return zc_cli_fail("advise", "measuring a quick profile", status);
        fprintf(stderr, "zc advise: profile from %s\n", how);
    }
    if (save_out != NULL) {
        /* What was measured, never what was assumed for the advice (listed apart). */
        int rc = zc_cli_json_commit("advise", zc_profile_to_saved_json(&measured, notes), save_out);
        if (rc != ZC_EXIT_OK)
            return rc;
    }
    if (a->validate)
        return zc_advise_validate(&profile, notes, device, a->out_dir, a->seconds_per_run,
                                  a->force);

    zc_recommendation rec;
    status = zc_advise_rank(&profile, &w, &rec);
    if (status != ZC_OK)
        return zc_cli_fail("advise", "ranking the techniques", status);
    int code = ZC_EXIT_OK;
    if (json_out != NULL && strcmp(json_out->path, "-") == 0)
        return zc_cli_json_commit("advise", zc_advise_json(&profile, notes, &w, &rec), json_out);
    if (json_out != NULL)
        code = zc_cli_json_commit("advise", zc_advise_json(&profile, notes, &w, &rec), json_out);
    zc__print_text(&profile, notes, &w, &rec);
    return code;
}
