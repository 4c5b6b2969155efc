/* SPDX-License-Identifier: Apache-2.0 */
/* The stream modes' table (src/stream/stream_modes.c): every mode a row in its place, and the
 * public calls that read it (names, help, properties, run names) agreeing with it. */
#include "test_support.h"

#include <string.h>

#include "stream/stream_modes.h"
#include "zerocopy/filter.h"

/* Row i is mode i's, with a name, help and transport; names are unique. */
static void test_every_mode_has_its_row(void **state)
{
    (void)state;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        const zc__stream_mode_row *row = zc__stream_mode_row_of((zc_stream_mode)m);
        assert_non_null(row);
        assert_int_equal(row->mode, m);
        assert_non_null(row->name);
        assert_true(strlen(row->name) > 0);
        assert_non_null(row->family);
        assert_true(strlen(row->help) > 0);
        assert_string_equal(zc_stream_mode_name((zc_stream_mode)m), row->name);
        assert_string_equal(zc_stream_mode_help((zc_stream_mode)m), row->help);
        assert_int_equal(zc_stream_mode_flags((zc_stream_mode)m), row->flags);
        for (int k = 0; k < m; k++)
            assert_string_not_equal(row->name, zc_stream_mode_name((zc_stream_mode)k));
        /* The launch family's modes, and only they, carry its per-mode row. */
        assert_int_equal(row->launch != NULL, row->family == &zc__filter_launch_ops);
        /* A mode on a ring is the ring's transport and runs on a GPU. */
        if (row->flags & ZC_STREAM_MODE_ON_RING) {
            assert_ptr_equal(row->family, &zc__filter_ring_ops);
            assert_true(row->flags & ZC_STREAM_MODE_ON_GPU);
        }
        assert_int_equal(zc_stream_mode_on_ring((zc_stream_mode)m),
                         (row->flags & ZC_STREAM_MODE_ON_RING) != 0);
        zc_stream_mode back;
        assert_int_equal(zc_stream_mode_parse(row->name, &back), ZC_OK);
        assert_int_equal(back, m);
    }
    assert_null(zc__stream_mode_row_of((zc_stream_mode)ZC_STREAM_MODE_COUNT));
    assert_null(zc__stream_mode_row_of((zc_stream_mode)-1));
    assert_string_equal(zc_stream_mode_name((zc_stream_mode)ZC_STREAM_MODE_COUNT), "unknown");
    assert_string_equal(zc_stream_mode_help((zc_stream_mode)ZC_STREAM_MODE_COUNT), "");
    assert_int_equal(zc_stream_mode_flags((zc_stream_mode)-1), 0);
}

/* A run's name goes there and back for every mode and protocol; modes on a ring carry their
 * protocol, the others their own name. */
static void test_run_names_round_trip(void **state)
{
    (void)state;
    static const zc_ring_protocol protocols[] = {ZC_RING_PROTO_LL, ZC_RING_PROTO_FLAG};
    int distinct = 0;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        for (int p = 0; p < 2; p++) {
            char name[64];
            assert_int_equal(zc_stream_run_name((zc_stream_mode)m, protocols[p], name, sizeof name),
                             ZC_OK);
            zc_stream_mode mode;
            zc_ring_protocol protocol;
            assert_int_equal(zc_stream_run_parse(name, &mode, &protocol), ZC_OK);
            assert_int_equal(mode, m);
            if (zc_stream_mode_on_ring((zc_stream_mode)m)) {
                assert_int_equal(protocol, protocols[p]);
                assert_non_null(strstr(name, p == 0 ? "-ll" : "-flag"));
                distinct++;
            } else {
                assert_int_equal(protocol, ZC_RING_PROTO_FLAG);
                assert_string_equal(name, zc_stream_mode_name((zc_stream_mode)m));
                distinct += p == 0;
            }
        }
    }
    assert_true(distinct > ZC_STREAM_MODE_COUNT);
    char name[64];
    assert_int_equal(zc_stream_run_name(ZC_STREAM_ZEROCOPY, ZC_RING_PROTO_LL, name, sizeof name),
                     ZC_OK);
    assert_string_equal(name, "zerocopy-ll");
    assert_int_equal(zc_stream_run_name(ZC_STREAM_HYBRID, ZC_RING_PROTO_FLAG, name, sizeof name),
                     ZC_OK);
    assert_string_equal(name, "hybrid-flag");
}

static void test_run_names_refuse_bad_input(void **state)
{
    (void)state;
    char name[8];
    zc_stream_mode mode;
    zc_ring_protocol protocol;
    assert_int_equal(zc_stream_run_name((zc_stream_mode)ZC_STREAM_MODE_COUNT, ZC_RING_PROTO_LL,
                                        name, sizeof name),
                     ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stream_run_name(ZC_STREAM_ZEROCOPY, (zc_ring_protocol)7, name, sizeof name),
                     ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stream_run_name(ZC_STREAM_ZEROCOPY, ZC_RING_PROTO_FLAG, name, sizeof name),
                     ZC_ERR_OVERFLOW); /* "zerocopy-flag" needs 14 bytes */
    assert_non_null(strstr(zc_last_error(), "zc_stream_run_name"));
    assert_int_equal(zc_stream_run_name(ZC_STREAM_ZEROCOPY, ZC_RING_PROTO_LL, NULL, 8),
                     ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stream_run_parse("zerocopy", &mode, &protocol), ZC_ERR_PARSE);
    assert_int_equal(zc_stream_run_parse("classic-pinned-ll", &mode, &protocol), ZC_ERR_PARSE);
    assert_int_equal(zc_stream_run_parse("", &mode, &protocol), ZC_ERR_PARSE);
    assert_non_null(strstr(zc_last_error(), "names no stream run"));
    assert_int_equal(zc_stream_run_parse(NULL, &mode, &protocol), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_mode_has_its_row),
        cmocka_unit_test(test_run_names_round_trip),
        cmocka_unit_test(test_run_names_refuse_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
