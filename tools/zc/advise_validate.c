/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --validate: the library validates, this file opens the outputs and prints. */
#include "advise_validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zerocopy/json.h"
#include "cli.h"
#include "cli_json.h"

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

/* One line on stderr per workload: the verdict as it comes. */
static void zc__progress(void *user, size_t done, size_t total, const zc_validation_result *r)
{
    (void)user;
    int pick = (int)r->rec.ranked[0].technique;
    fprintf(stderr, "validate %2zu/%zu %-28s advice %-10s winner %-10s %s\n", done, total,
            r->workload.name, zc_technique_key((zc_technique)pick),
            r->winner >= 0 ? zc_technique_key((zc_technique)r->winner) : "-",
            r->pick_wins ? "hit" : (r->pick_tied ? "tied" : "MISS"));
}

/* The workloads asked for: the fixed twelve, or random ones from the seed. */
static zc_validation_workload *zc__workloads(const zc_cli_validate_args *a, size_t *count_p)
{
    size_t n = a->random > 0 ? a->random : zc_validation_fixed_count();
    zc_validation_workload *w = calloc(n, sizeof *w);
    for (size_t i = 0; w != NULL && i < n; i++) {
        if (a->random > 0)
            (void)zc_validation_random(a->seed, i, &w[i]);
        else
            w[i] = *zc_validation_fixed_at(i);
    }
    *count_p = n;
    return w;
}

static int zc__validate(const zc_profile *profile, const char *notes, const zc_cli_validate_args *a,
                        zc_cli_output *md, zc_cli_output *js)
{
    size_t n = 0;
    zc_validation_workload *work = zc__workloads(a, &n);
    zc_validation_result *res = calloc(n, sizeof *res);
    if (work == NULL || res == NULL) {
        free(work);
        free(res);
        return zc_cli_fail("advise", "validation", ZC_ERR_NO_MEMORY);
    }
    zc_validation_config config;
    zc_validation_config_init(&config);
    config.device = a->device;
    config.rounds = a->rounds;
    config.seconds_per_run = a->seconds_per_run;
    config.progress = zc__progress;
    zc_validation_summary sum;
    zc_status status = zc_advise_validate(profile, work, n, &config, res, &sum);
    int code = ZC_EXIT_OK;
    if (status != ZC_OK && status != ZC_ERR_VERIFY) {
        code = zc_cli_fail("advise", "validation", status);
        goto done;
    }
    if (status == ZC_ERR_VERIFY)
        code = zc_cli_fail("advise", "validation", status);
    char title[96];
    if (a->random > 0)
        snprintf(title, sizeof title, "%zu random workloads, seed %llu", n, a->seed);
    else
        snprintf(title, sizeof title, "the %zu fixed workloads", n);
    if (zc_validation_markdown(profile, title, res, n, &sum, md->f) != ZC_OK ||
        zc_validation_markdown(profile, title, res, n, &sum, stdout) != ZC_OK) {
        code = zc_cli_fail("advise", "the validation table", ZC_ERR_IO);
        goto done;
    }
    int rc = zc_cli_output_commit(md);
    if (rc != ZC_EXIT_OK && code == ZC_EXIT_OK)
        code = rc;
    cJSON *doc = NULL;
    zc_status built = zc_validation_to_json(profile, notes, &config, res, n, &sum, &doc);
    rc = zc_cli_json_commit_built("advise", built, doc, js);
    if (rc != ZC_EXIT_OK && code == ZC_EXIT_OK)
        code = rc;
done:
    free(res);
    free(work);
    return code;
}

int zc_cli_advise_validate(const zc_profile *profile, const char *notes,
                           const zc_cli_validate_args *args)
{
    /* The outputs first: a folder that cannot be written is said before minutes of runs. */
    char md_path[4096], js_path[4096];
    zc_cli_output md = {0}, js = {0};
    if (!zc__ensure_dir(args->out_dir))
        return ZC_EXIT_FAILURE;
    int code =
        zc__open_in(args->out_dir, "validation.md", args->force, md_path, sizeof md_path, &md);
    if (code == ZC_EXIT_OK)
        code = zc__open_in(args->out_dir, "validation.json", args->force, js_path, sizeof js_path,
                           &js);
    if (code == ZC_EXIT_OK)
        code = zc__validate(profile, notes, args, &md, &js);
    zc_cli_output_abort(&md); /* no-ops once committed */
    zc_cli_output_abort(&js);
    return code;
}
