/* zc advise --validate: varied workloads run for real with every technique, against the model. */
#include "advise_validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "advise_json.h"
#include "cli.h"
#include "cli_json.h"

#define ZC__KIB ((size_t)1024)
#define ZC__MIB ((size_t)1024 * 1024)

/* Name, then: bytes, transfers, rate, direction, accesses, pattern, concurrent, budget. */
const zc_validation_case zc_validation_cases[] = {
    {"sensor frames", {4 * ZC__KIB, 2000, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"small round trips", {8 * ZC__KIB, 2000, 0, ZC_DIR_BOTH, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"64 KiB blocks", {64 * ZC__KIB, 1000, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"64 KiB random reads", {64 * ZC__KIB, 300, 0, ZC_DIR_H2D, 1, ZC_ACCESS_RANDOM, 0, 0}},
    {"256 KiB filter", {256 * ZC__KIB, 500, 0, ZC_DIR_BOTH, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"1 MiB strided", {1 * ZC__MIB, 100, 0, ZC_DIR_H2D, 1, ZC_ACCESS_STRIDED, 0, 0}},
    {"1 MiB results out", {1 * ZC__MIB, 200, 0, ZC_DIR_D2H, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"4 MiB stream", {4 * ZC__MIB, 100, 0, ZC_DIR_BOTH, 2, ZC_ACCESS_COALESCED, 0, 0}},
    {"16 MiB reused", {16 * ZC__MIB, 20, 0, ZC_DIR_H2D, 8, ZC_ACCESS_COALESCED, 0, 0}},
    {"32 MiB batches", {32 * ZC__MIB, 20, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
    {"64 MiB compute", {64 * ZC__MIB, 4, 0, ZC_DIR_H2D, 32, ZC_ACCESS_COALESCED, 0, 0}},
    {"128 MiB once", {128 * ZC__MIB, 1, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
};

const size_t zc_validation_case_count = sizeof zc_validation_cases / sizeof zc_validation_cases[0];

/* What one case found. */
typedef struct zc__case_result {
    zc_recommendation rec;
    zc_prediction predicted[ZC_TECH_COUNT]; /* by technique */
    zc_measurement measured[ZC_TECH_COUNT];
    int ran[ZC_TECH_COUNT];       /* 1 measured, 0 not usable in the profile, -1 failed */
    char why[ZC_TECH_COUNT][160]; /* when a run failed */
    int fastest;                  /* technique measured fastest, -1 when none ran */
} zc__case_result;

static double zc__error(double predicted, double measured)
{
    return measured > 0.0 ? (predicted - measured) / measured : NAN;
}

/* |x| without libm, which the tool does not link. */
static double zc__abs(double x)
{
    return x < 0.0 ? -x : x;
}

static int zc__ensure_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 1;
    fprintf(stderr, "zc advise: cannot create %s: %s\n", dir, strerror(errno));
    return 0;
}

/* Open dir/name as an output (path is its storage: it must outlive out). */
static int zc__open_in(const char *dir, const char *name, int force, char *path, size_t size,
                       zc_cli_output *out)
{
    snprintf(path, size, "%s/%s", dir, name);
    return zc_cli_output_open(out, "advise", path, force, NULL, 0);
}

static void zc__write_markdown(FILE *f, const zc_profile *profile, const zc__case_result *res,
                               size_t n, int hits, int near, int within, double median_abs,
                               double max_abs)
{
    fprintf(f, "# zc advise validation\n\n");
    fprintf(f, "Profile: %s, from %s. zerocopy %s.\n\n", profile->device_name, profile->source,
            zc_version_string());
    fprintf(f,
            "Each workload ran for real with every technique (the CPU fills the input, the data "
            "moves, a kernel reads each byte k times, the result comes back; verified), after "
            "two warm-up transfers; total = setup + the timed transfers scaled to the workload's "
            "count. Error = (predicted - measured) / measured.\n\n");
    fprintf(f,
            "Recommended technique measured fastest: **%d of %zu** (within 5%% of the fastest: "
            "%d of %zu). Recommended technique predicted within 20%%: **%d of %zu**. Median "
            "|error| over every workload and technique: %.1f%%, largest %.1f%%.\n\n",
            hits, n, near, n, within, n, 100.0 * median_abs, 100.0 * max_abs);
    fprintf(f, "| workload | size | dir | k | pattern | transfers | recommended | fastest "
               "measured | hit | predicted | measured | error |\n");
    fprintf(f, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < n; i++) {
        const zc_workload *w = &zc_validation_cases[i].workload;
        const zc__case_result *r = &res[i];
        int top = (int)r->rec.ranked[0].technique;
        char size[32];
        zc_advise_size_text((double)w->bytes, size, sizeof size);
        fprintf(f, "| %s | %s | %s | %g | %s | %g | %s | %s | %s | ", zc_validation_cases[i].name,
                size, zc_direction_key(w->direction), w->gpu_accesses, zc_access_key(w->pattern),
                w->transfers, zc_technique_key((zc_technique)top),
                r->fastest >= 0 ? zc_technique_key((zc_technique)r->fastest) : "-",
                r->fastest == top ? "yes" : "**no**");
        if (r->ran[top] == 1)
            fprintf(f, "%.4g ms | %.4g ms | %+.1f%% |\n", r->predicted[top].total_us / 1e3,
                    r->measured[top].total_us / 1e3,
                    100.0 * zc__error(r->predicted[top].total_us, r->measured[top].total_us));
        else
            fprintf(f, "%.4g ms | - | - |\n", r->predicted[top].total_us / 1e3);
    }
    fprintf(f, "\n## Every technique: predicted / measured total (error)\n\n| workload |");
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        fprintf(f, " %s |", zc_technique_key((zc_technique)t));
    fprintf(f, "\n| --- |");
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        fprintf(f, " --- |");
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        const zc__case_result *r = &res[i];
        fprintf(f, "| %s |", zc_validation_cases[i].name);
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            if (r->ran[t] == 1)
                fprintf(f, " %.3g / %.3g ms (%+.0f%%) |", r->predicted[t].total_us / 1e3,
                        r->measured[t].total_us / 1e3,
                        100.0 * zc__error(r->predicted[t].total_us, r->measured[t].total_us));
            else if (r->ran[t] == 0)
                fprintf(f, " not in profile |");
            else
                fprintf(f, " failed: %s |", r->why[t]);
        }
        fprintf(f, "\n");
    }
}

static cJSON *zc__case_json(size_t i, const zc__case_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", zc_validation_cases[i].name);
    cJSON_AddItemToObject(o, "workload", zc_workload_to_json(&zc_validation_cases[i].workload));
    int top = (int)r->rec.ranked[0].technique;
    cJSON_AddStringToObject(o, "recommended", zc_technique_key((zc_technique)top));
    cJSON_AddStringToObject(o, "explanation", r->rec.explanation);
    if (r->fastest >= 0)
        cJSON_AddStringToObject(o, "fastest_measured", zc_technique_key((zc_technique)r->fastest));
    else
        cJSON_AddNullToObject(o, "fastest_measured");
    cJSON_AddBoolToObject(o, "hit", r->fastest == top);
    cJSON *ts = cJSON_AddArrayToObject(o, "techniques");
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "technique", zc_technique_key((zc_technique)t));
        cJSON_AddStringToObject(x, "result",
                                r->ran[t] == 1 ? "measured"
                                               : (r->ran[t] == 0 ? "not_in_profile" : "failed"));
        if (r->ran[t] != 0) {
            cJSON_AddNumberToObject(x, "predicted_total_us", r->predicted[t].total_us);
            cJSON_AddNumberToObject(x, "predicted_per_transfer_us",
                                    r->predicted[t].per_transfer_us);
        }
        if (r->ran[t] == 1) {
            const zc_measurement *m = &r->measured[t];
            cJSON_AddNumberToObject(x, "measured_total_us", m->total_us);
            cJSON_AddNumberToObject(x, "measured_per_transfer_us", m->per_transfer_us);
            cJSON_AddNumberToObject(x, "measured_setup_us", m->setup_us);
            cJSON_AddNumberToObject(x, "transfers_timed", m->transfers);
            cJSON_AddNumberToObject(x, "error", zc__error(r->predicted[t].total_us, m->total_us));
        } else if (r->ran[t] < 0) {
            cJSON_AddStringToObject(x, "why", r->why[t]);
        }
        cJSON_AddItemToArray(ts, x);
    }
    return o;
}

static int zc__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int zc__validate(const zc_profile *profile, const char *notes, int device,
                        double seconds_per_run, zc_cli_output *md, zc_cli_output *js);

int zc_advise_validate(const zc_profile *profile, const char *notes, int device,
                       const char *out_dir, double seconds_per_run, int force)
{
    /* The outputs first: a folder that cannot be written is said before minutes of runs. */
    char md_path[4096], js_path[4096];
    zc_cli_output md = {0}, js = {0};
    if (!zc__ensure_dir(out_dir))
        return ZC_EXIT_FAILURE;
    int code = zc__open_in(out_dir, "validation.md", force, md_path, sizeof md_path, &md);
    if (code == ZC_EXIT_OK)
        code = zc__open_in(out_dir, "validation.json", force, js_path, sizeof js_path, &js);
    if (code != ZC_EXIT_OK) {
        zc_cli_output_abort(&md);
        return code;
    }
    code = zc__validate(profile, notes, device, seconds_per_run, &md, &js);
    zc_cli_output_abort(&md); /* no-ops once committed */
    zc_cli_output_abort(&js);
    return code;
}

static int zc__validate(const zc_profile *profile, const char *notes, int device,
                        double seconds_per_run, zc_cli_output *md, zc_cli_output *js)
{
    size_t n = zc_validation_case_count;
    zc__case_result *res = calloc(n, sizeof *res);
    double *errors = calloc(n * ZC_TECH_COUNT, sizeof *errors);
    if (res == NULL || errors == NULL) {
        free(res);
        free(errors);
        return zc_cli_fail("advise", "validation", ZC_ERR_NO_MEMORY);
    }
    int hits = 0, near = 0, within = 0, exit_code = ZC_EXIT_OK;
    size_t error_count = 0;
    /* The CPU's part of each transfer is priced at the profile's host write rate; a bench
     * profile does not measure it, so measure it here, on the machine being validated. */
    zc_profile local = *profile;
    if (notes != NULL && strstr(notes, "host_write_gbps") != NULL) {
        double gbps = 0.0;
        if (zc_advise_measure_host_write(&gbps) == ZC_OK) {
            local.host_write_gbps = gbps;
            fprintf(stderr, "validate: measured the CPU's fill rate: %.1f GB/s\n", gbps);
        }
    }
    if (notes != NULL && strstr(notes, "alloc_pinned_us_per_mib") != NULL) {
        zc_status st = zc_advise_measure_alloc(device, &local);
        if (st == ZC_OK)
            fprintf(stderr,
                    "validate: measured allocation costs: cudaHostAlloc %.0f us + %.0f us/MiB, "
                    "cudaHostRegister %.0f us + %.1f us/MiB\n",
                    local.alloc_pinned_fixed_us, local.alloc_pinned_us_per_mib,
                    local.register_fixed_us, local.register_us_per_mib);
        else if (st == ZC_ERR_NO_DEVICE) {
            free(res);
            free(errors);
            return zc_cli_fail("advise", "validation needs a GPU", st);
        }
    }
    profile = &local;
    for (size_t i = 0; i < n; i++) {
        const zc_workload *w = &zc_validation_cases[i].workload;
        zc__case_result *r = &res[i];
        r->fastest = -1;
        zc_status status = zc_advise_rank(profile, w, &r->rec);
        if (status != ZC_OK) {
            exit_code = zc_cli_fail("advise", "ranking a validation workload", status);
            goto done;
        }
        fprintf(stderr, "validate %2zu/%zu %-20s", i + 1, n, zc_validation_cases[i].name);
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            (void)zc_advise_predict(profile, w, (zc_technique)t, &r->predicted[t]);
            if (!r->predicted[t].usable)
                continue;
            status = zc_advise_run(device, w, (zc_technique)t, seconds_per_run, &r->measured[t]);
            if (status == ZC_ERR_NO_DEVICE) {
                exit_code = zc_cli_fail("advise", "validation needs a GPU", status);
                goto done;
            }
            if (status != ZC_OK) {
                r->ran[t] = -1;
                snprintf(r->why[t], sizeof r->why[t], "%s: %s", zc_status_str(status),
                         zc_last_error());
                if (status == ZC_ERR_VERIFY)
                    exit_code = ZC_EXIT_VERIFY;
                fprintf(stderr, " %s:failed", zc_technique_key((zc_technique)t));
                continue;
            }
            r->ran[t] = 1;
            errors[error_count++] =
                zc__abs(zc__error(r->predicted[t].total_us, r->measured[t].total_us));
            if (r->fastest < 0 || r->measured[t].total_us < r->measured[r->fastest].total_us)
                r->fastest = t;
            fprintf(stderr, " %s", zc_technique_key((zc_technique)t));
        }
        fprintf(stderr, "\n");
        int top = (int)r->rec.ranked[0].technique;
        hits += r->fastest == top;
        /* Techniques a few percent apart trade places from run to run: count those apart. */
        near += r->fastest >= 0 && r->ran[top] == 1 &&
                r->measured[top].total_us <= 1.05 * r->measured[r->fastest].total_us;
        within += r->ran[top] == 1 &&
                  zc__abs(zc__error(r->predicted[top].total_us, r->measured[top].total_us)) <= 0.2;
    }
    {
        double median_abs = 0.0, max_abs = 0.0;
        if (error_count > 0) {
            qsort(errors, error_count, sizeof errors[0], zc__cmp_double);
            median_abs = errors[error_count / 2];
            max_abs = errors[error_count - 1];
        }
        zc__write_markdown(md->f, profile, res, n, hits, near, within, median_abs, max_abs);
        int rc = zc_cli_output_commit(md);
        if (rc != ZC_EXIT_OK)
            exit_code = rc;
        zc__write_markdown(stdout, profile, res, n, hits, near, within, median_abs, max_abs);

        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "schema", ZC_VALIDATION_SCHEMA);
        cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
        cJSON *prof = zc_profile_to_json(profile);
        cJSON_AddItemToObject(doc, "profile", prof);
        cJSON_AddStringToObject(doc, "profile_assumptions", notes != NULL ? notes : "");
        cJSON_AddNumberToObject(doc, "seconds_per_run", seconds_per_run);
        cJSON *cases = cJSON_AddArrayToObject(doc, "workloads");
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(cases, zc__case_json(i, &res[i]));
        cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
        cJSON_AddNumberToObject(sum, "workloads", (double)n);
        cJSON_AddNumberToObject(sum, "hits", hits);
        cJSON_AddNumberToObject(sum, "hits_within_5pct", near);
        cJSON_AddNumberToObject(sum, "recommended_within_20pct", within);
        cJSON_AddNumberToObject(sum, "median_abs_error", median_abs);
        cJSON_AddNumberToObject(sum, "max_abs_error", max_abs);
        rc = zc_cli_json_commit("advise", doc, js);
        if (rc != ZC_EXIT_OK && exit_code == ZC_EXIT_OK)
            exit_code = rc;
    }
done:
    free(errors);
    free(res);
    return exit_code;
}
