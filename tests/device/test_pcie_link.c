/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe link parsing and reading from a fake sysfs tree. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zerocopy/device.h"

static char root[256];

static void write_attr(const char *bus_id, const char *name, const char *value)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/%s", root, bus_id, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", value);
    fclose(f);
}

static void make_device(const char *bus_id)
{
    char path[512];
    const char *parts[] = {"bus", "bus/pci", "bus/pci/devices"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", root, parts[i]);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s", root, bus_id);
    assert_int_equal(mkdir(path, 0755), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/zc-sysfs-XXXXXX");
    return mkdtemp(root) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    return system(command) == 0 ? 0 : -1;
}

static void test_generation_from_speed(void **state)
{
    (void)state;
    double gts = 0;
    assert_int_equal(zc_pcie_gen_from_speed("2.5 GT/s PCIe", &gts), 1);
    assert_int_equal(zc_pcie_gen_from_speed("5.0 GT/s PCIe", NULL), 2);
    assert_int_equal(zc_pcie_gen_from_speed("8.0 GT/s PCIe", NULL), 3);
    assert_int_equal(zc_pcie_gen_from_speed("16.0 GT/s PCIe", NULL), 4);
    assert_int_equal(zc_pcie_gen_from_speed("32.0 GT/s PCIe", &gts), 5);
    assert_double_equal(gts, 32.0, 0);
    assert_int_equal(zc_pcie_gen_from_speed("64.0 GT/s PCIe", NULL), 6);
    assert_int_equal(zc_pcie_gen_from_speed("Unknown", NULL), 0);
    assert_int_equal(zc_pcie_gen_from_speed("12.0 GT/s", NULL), 0);
    assert_int_equal(zc_pcie_gen_from_speed(NULL, NULL), 0);
}

static void test_bandwidth(void **state)
{
    (void)state;
    /* Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction */
    assert_double_equal(zc_pcie_gbps(5, 16), 63.015, 0.001);
    assert_double_equal(zc_pcie_gbps(4, 16), 31.508, 0.001);
    assert_double_equal(zc_pcie_gbps(3, 8), 7.877, 0.001);
    assert_double_equal(zc_pcie_gbps(1, 1), 0.25, 1e-9);
    assert_double_equal(zc_pcie_gbps(0, 16), 0, 0);
    assert_double_equal(zc_pcie_gbps(7, 16), 0, 0);
    assert_double_equal(zc_pcie_gbps(5, 0), 0, 0);
}

static void test_reads_fake_sysfs(void **state)
{
    (void)state;
    make_device("0000:3b:00.0");
    write_attr("0000:3b:00.0", "current_link_speed", "16.0 GT/s PCIe");
    write_attr("0000:3b:00.0", "current_link_width", "8");
    write_attr("0000:3b:00.0", "max_link_speed", "32.0 GT/s PCIe");
    write_attr("0000:3b:00.0", "max_link_width", "16");
    write_attr("0000:3b:00.0", "numa_node", "1");

    zc_pcie_link link;
    /* the runtime's 8-digit upper-case domain form must find the same device */
    assert_int_equal(zc_pcie_link_read(root, "00000000:3B:00.0", &link), ZC_OK);
    assert_int_equal(link.known, 1);
    assert_int_equal(link.gen_current, 4);
    assert_int_equal(link.width_current, 8);
    assert_int_equal(link.gen_max, 5);
    assert_int_equal(link.width_max, 16);
    assert_double_equal(link.gbps_current, zc_pcie_gbps(4, 8), 1e-9);
    assert_double_equal(link.gbps_max, zc_pcie_gbps(5, 16), 1e-9);
    assert_string_equal(link.source, "sysfs");
    assert_int_equal(zc_pcie_numa_node(root, "0000:3b:00.0"), 1);
}

static void test_missing_device_is_unknown_not_guessed(void **state)
{
    (void)state;
    zc_pcie_link link;
    assert_int_equal(zc_pcie_link_read(root, "0000:99:00.0", &link), ZC_OK);
    assert_int_equal(link.known, 0);
    assert_int_equal(link.gen_current, 0);
    assert_int_equal(link.width_current, 0);
    assert_non_null(strstr(link.why_unknown, "0000:99:00.0"));
    assert_int_equal(zc_pcie_numa_node(root, "0000:99:00.0"), -1);
}

static void test_unknown_speed_is_unknown(void **state)
{
    (void)state;
    make_device("0000:5e:00.0");
    write_attr("0000:5e:00.0", "current_link_speed", "Unknown");
    write_attr("0000:5e:00.0", "current_link_width", "0");
    write_attr("0000:5e:00.0", "max_link_speed", "Unknown");
    write_attr("0000:5e:00.0", "max_link_width", "0");
    write_attr("0000:5e:00.0", "numa_node", "-1");
    zc_pcie_link link;
    assert_int_equal(zc_pcie_link_read(root, "0000:5e:00.0", &link), ZC_OK);
    assert_int_equal(link.known, 0);
    assert_non_null(strstr(link.why_unknown, "Unknown"));
    assert_int_equal(zc_pcie_numa_node(root, "0000:5e:00.0"), -1);
}

static void test_null_arguments(void **state)
{
    (void)state;
    zc_pcie_link link;
    assert_int_equal(zc_pcie_link_read(NULL, "0000:00:00.0", &link), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pcie_link_read(root, NULL, &link), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pcie_link_read(root, "0000:00:00.0", NULL), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generation_from_speed),
        cmocka_unit_test(test_bandwidth),
        cmocka_unit_test(test_reads_fake_sysfs),
        cmocka_unit_test(test_missing_device_is_unknown_not_guessed),
        cmocka_unit_test(test_unknown_speed_is_unknown),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
