/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise's inputs: a profile or bench file, zc stream results, sizes on the command line.
 * The documents themselves are read by the library (zerocopy/json.h); these read the files and
 * say on stderr what was wrong. */
#ifndef ZC_ADVISE_INPUT_H
#define ZC_ADVISE_INPUT_H

#include <stddef.h>

#include "zerocopy/json.h"

/* Parse "4096", "4K", "4KiB", "1.5M", "2G" (binary units) into bytes; 0 when malformed. */
int zc_cli_advise_parse_size(const char *text, size_t *bytes_p);

/* "4 KiB", "1.5 MiB". */
void zc_cli_advise_size_text(double bytes, char *out, size_t size);

/*
 * Load a profile from a file ("-": stdin) with zc_profile_from_document. *measured_p (may be
 * NULL) gets the profile as read, before anything was assumed. On failure says why on stderr
 * and gives the status: ZC_ERR_INVALID_ARG when the file cannot be read, ZC_ERR_IO on a read
 * error, ZC_ERR_PARSE when it is not a profile.
 */
zc_status zc_cli_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                              char *notes, size_t notes_size);

/* The bench document a fit or a pricing comes from, for people: "NVIDIA H100 80GB HBM3, zc bench
 * --default 2026-12-06T09:00:10Z" (its first GPU, mode and date). */
void zc_cli_bench_source(const cJSON *doc, char *out, size_t size);

/* Add every good run of the `zc stream --json` file at path to the profile's stream runs
 * (zc_profile_add_stream_json). Says why on stderr; a zc exit code. */
int zc_cli_profile_add_stream_file(zc_profile *profile, const char *path);

#endif
