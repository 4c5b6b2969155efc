/* SPDX-License-Identifier: Apache-2.0 */
/* What zc stream's command-line tests share: an input file of samples, and a bounded run of
 * zc stream whose JSON and output must show every sample in coming out. */
#ifndef ZC_TEST_STREAM_CLI_CHECK_H
#define ZC_TEST_STREAM_CLI_CHECK_H

#include <stddef.h>

/* The bound on one zc stream run of these tests: a hang fails rather than blocks. */
#define STREAM_CLI_TIMEOUT_MS 60000u

/*
 * A scratch file of samples float32 values (one channel, a tone plus a slow ramp, within
 * (-1, 1)), NaN at sample nan_at when nan_at < samples; its name into path (room for 40).
 */
void stream_cli_input(char *path, size_t samples, size_t nan_at);

/* Where a run's samples come from: the file named as SOURCE, or "-" with the file's bytes
 * written into a pipe in uneven pieces, 1 ms apart (test_support.h), so that zc reads partial
 * frames. */
typedef enum stream_cli_from { STREAM_CLI_FILE, STREAM_CLI_PIPE } stream_cli_from;

/*
 * Run zc stream on input (samples of them, of channels values) with args (NULL-terminated) after
 * the source, and
 * --json - --output OUT --force, in a fresh process bounded by STREAM_CLI_TIMEOUT_MS, env as in
 * zc_test_run_zc. Fails the test, showing the command and what it printed, unless zc exits 0,
 * every run it made that was not skipped took every sample in and gave every one out (the JSON's
 * samples in and out), and OUT holds them all. Gives how many runs were checked.
 */
int stream_cli_check_all_out(const char *input, size_t samples, size_t channels,
                             stream_cli_from from, const char *const *args, const char *const *env);

#endif
