/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's summary for people is safe on a terminal: escape sequences and control characters
 * that a traced program put in its kernel names, notes or its own name reach the text as U+FFFD,
 * while ordinary UTF-8 text passes unchanged. */
#include "test_support.h"

#include <string.h>

#include "trace_log_text.h"
#include "trace_output.h"

#define MiB (1024ull * 1024ull)

/* The summary of the log text for a program named program, as zc trace prints it. */
static char *summary_of(const char *text, char *program)
{
    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, text, "terminal.log") != ZC_OK)
        fail_msg("parse failed: %s", log.error);
    zc_trace_params params = {50.0, "test", 64ull << 30, NULL, NULL};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    char *argv[] = {program, NULL};
    zc_cli_trace_run run;
    memset(&run, 0, sizeof run);
    run.argv = argv;
    run.traced = 1;
    run.ceiling_gbps = 50.0;
    snprintf(run.ceiling_source, sizeof run.ceiling_source, "given with --ceiling");
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    assert_non_null(f);
    zc_cli_trace_print_summary(f, &run, &log, report);
    assert_int_equal(fclose(f), 0);
    free(report);
    zc_trace_log_free(&log);
    return out;
}

/* No byte of text is a C0 control (but newline and tab), DEL, a C1 control written in UTF-8
 * (U+0080 to U+009F) or a byte of 0x80 and above that is not part of valid UTF-8. */
static void assert_printable(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; p[i] != '\0'; i++) {
        if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f)
            fail_msg("control byte 0x%02x at %zu in:\n%s", p[i], i, text);
        if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
            fail_msg("C1 control U+00%02X at %zu in:\n%s", p[i + 1], i, text);
        if (p[i] >= 0x80) {
            size_t n = p[i] >= 0xf0 ? 4 : p[i] >= 0xe0 ? 3 : p[i] >= 0xc2 ? 2 : 0;
            for (size_t k = 1; k < n; k++)
                if ((p[i + k] & 0xc0) != 0x80)
                    n = 0;
            if (n == 0)
                fail_msg("byte 0x%02x at %zu is not UTF-8 in:\n%s", p[i], i, text);
            i += n - 1;
        }
    }
}

static void test_kernel_names_cannot_reach_the_terminal(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 2, 64ull << 30);
    /* Pinned host memory handed to a kernel whose name carries escape sequences: the
     * mapped-memory note names the kernel in its evidence. */
    fprintf(t.f, "note pcie_counters_unavailable counters \x1b]0;owned\x07 refused\n");
    fprintf(t.f, "api hostalloc %llu 0 7f4000000000 1000 2000 1 rt\n", 4 * MiB);
    fprintf(t.f, "launch 21 3000 re\x1b[31mread\x9b\xc2\x9b\x7f 7f4000000000\n");
    fprintf(t.f, "kernel 4000 844000 7 re\x1b[31mread\x9b\xc2\x9b\x7f 21\n");
    fprintf(t.f, "launches 1 1 0\n");
    log_close(&t);
    char program[] = "./caf\xc3\xa9\x1b[2J\r";
    char *out = summary_of(t.text, program);
    fprintf(stderr, "%s", out);
    assert_null(strchr(out, '\x1b'));
    assert_printable(out);
    /* The names are still there, their controls replaced one for one. */
    assert_non_null(strstr(out, "re\xef\xbf\xbd[31mread\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"));
    assert_non_null(strstr(out, "./caf\xc3\xa9\xef\xbf\xbd[2J\xef\xbf\xbd"));
    assert_non_null(strstr(out, "counters \xef\xbf\xbd]0;owned\xef\xbf\xbd refused"));
    free(out);
    free(t.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_names_cannot_reach_the_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
