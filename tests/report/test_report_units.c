/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 18, item 4: figures in units people read. No "3.83e+03 GB/s" in any table cell:
 * rates in MB/s, GB/s or TB/s, times in ns, us, ms or s, sizes in KiB, MiB, GiB; the machine
 * table with labels, not JSON keys. */
#include "test_support.h"

#include <ctype.h>
#include <string.h>

#include "report/report_page.h"
#include "report_test.h"

static void expect_text(int (*format)(double, char *, size_t), double v, const char *want)
{
    char text[64];
    format(v, text, sizeof text);
    if (strcmp(text, want) != 0)
        fail_msg("%g gave \"%s\", expected \"%s\"", v, text, want);
}

static void test_formatting(void **state)
{
    (void)state;
    expect_text(zc__report_rate_text, 3833.26, "3.83 TB/s");
    expect_text(zc__report_rate_text, 999.7, "1 TB/s");
    expect_text(zc__report_rate_text, 55.434, "55.4 GB/s");
    expect_text(zc__report_rate_text, 6.2, "6.2 GB/s");
    expect_text(zc__report_rate_text, 0.49, "490 MB/s");
    expect_text(zc__report_rate_text, 0.0, "-");
    expect_text(zc__report_time_text, 0.081, "81 ns");
    expect_text(zc__report_time_text, 3.1415, "3.14 us");
    expect_text(zc__report_time_text, 93471.326, "93.5 ms");
    expect_text(zc__report_time_text, 1.2e6, "1.2 s");
    expect_text(zc__report_time_text, 3830e6, "3830 s");
    expect_text(zc__report_bytes_text, 4096, "4 KiB");
    expect_text(zc__report_bytes_text, 1572864, "1.5 MiB");
    expect_text(zc__report_bytes_text, 150754820096.0, "140 GiB");
    expect_text(zc__report_bytes_text, 0, "0 B");
    char text[64];
    zc__report_number_text(0.000123456, text, sizeof text);
    assert_string_equal(text, "0.000123");
    zc__report_number_text(20777.3, text, sizeof text);
    assert_string_equal(text, "20777");
}

/* Fail when a table cell of html holds a number with an exponent ("3.83e+03"). */
static void no_exponent_in_cells(const char *html)
{
    int cells = 0;
    for (const char *td = strstr(html, "<td"); td != NULL; td = strstr(td + 3, "<td")) {
        const char *start = strchr(td, '>');
        const char *end = strstr(td, "</td>");
        assert_non_null(start);
        assert_non_null(end);
        cells++;
        for (const char *c = start; c + 2 < end; c++) {
            if (isdigit((unsigned char)c[0]) && (c[1] == 'e' || c[1] == 'E') &&
                (c[2] == '+' || c[2] == '-' || isdigit((unsigned char)c[2])))
                fail_msg("a table cell holds an exponent: %.*s", (int)(end - start - 1), start + 1);
        }
    }
    assert_true(cells > 50);
}

static void test_page_units(void **state)
{
    (void)state;
    char dir[512], out[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot", NULL};
    report_test_how how = {.env = env};
    char *err = NULL;
    int code =
        report_test_zc((const char *[]){"report", "-o", out, ZC_REPORT_FIXTURES "/h200.bench.json",
                                        ZC_REPORT_FIXTURES "/stream.json", NULL},
                       &how, NULL, &err);
    if (code != 0)
        fail_msg("zc report exit %d: %s", code, err);
    free(err);
    char *html = zc_test_read_file(out, NULL);
    no_exponent_in_cells(html);
    /* The comparison: 4000 GB/s of device memory, a 16.2 us round trip. */
    assert_non_null(strstr(html, "<td class=\"n\">4 TB/s</td>"));
    assert_non_null(strstr(html, "<td class=\"n\">16.2 us 4 KiB round trip</td>"));
    /* Copy points by size, not bytes. */
    assert_non_null(strstr(html, "<td class=\"n\">256 MiB</td>"));
    assert_null(strstr(html, "<td class=\"n\">268435456</td>"));
    /* The machine under labels, versions as CUDA writes them. */
    static const char *const labels[] = {
        "<th>GPU</th><td>NVIDIA H200</td>",
        "<th>compute capability</th>",
        "<th>multiprocessors (SMs)</th><td>132</td>",
        "<th>device memory</th><td>140 GiB</td>",
        "<th>CUDA driver version</th><td>13.0</td>",
        "<th>NUMA node of the GPU</th><td>none",
        "<th>kernels can use mapped host memory (zero-copy)</th><td>yes</td>",
        "<th>copy engines</th><td>3</td>"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        if (strstr(html, labels[i]) == NULL)
            fail_msg("the machine table lacks %s", labels[i]);
    }
    /* No JSON key in the machine section (up to the next heading). */
    const char *machine = strstr(html, "<h2>The machine</h2>");
    assert_non_null(machine);
    const char *machine_end = strstr(machine + 4, "<h2>");
    assert_non_null(machine_end);
    char *section = strndup(machine, (size_t)(machine_end - machine));
    static const char *const keys[] = {"<th>sm_count</th>",
                                       "<th>pci_bus_id</th>",
                                       "<th>driver_version</th>",
                                       "<th>name</th>",
                                       "canMapHostMemory",
                                       "asyncEngineCount",
                                       "_"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strstr(section, keys[i]) != NULL)
            fail_msg("the machine table shows the raw key %s", keys[i]);
    }
    free(section);
    free(html);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formatting),
        cmocka_unit_test(test_page_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
