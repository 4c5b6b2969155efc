/* SPDX-License-Identifier: Apache-2.0 */
/* The exact-call rows of src/mem (what bench, stream and the ring allocate through): one row per
 * kind, in kind order, and the checks that need no GPU. */
#include "test_support.h"

#include <string.h>

#include "mem/exact.h"

static void test_one_row_per_kind(void **state)
{
    (void)state;
    assert_null(zc__mem_exact_of(ZC_BUFFER_UNKNOWN));
    assert_null(zc__mem_exact_of((zc_buffer_kind)ZC_BUFFER_KIND_COUNT));
    assert_null(zc__mem_exact_of((zc_buffer_kind)-1));
    for (int k = ZC_BUFFER_UNKNOWN + 1; k < ZC_BUFFER_KIND_COUNT; k++) {
        const zc__mem_exact *row = zc__mem_exact_of((zc_buffer_kind)k);
        if (row == NULL)
            fail_msg("kind %d (%s) has no row", k, zc_buffer_kind_name((zc_buffer_kind)k));
        assert_int_equal(row->kind, k);
        assert_non_null(row->alloc);
        assert_non_null(row->release);
        assert_true(strlen(row->call) > 0);
        assert_true(strlen(row->free_call) > 0);
        /* cudaHostAlloc's rows are the host kinds that name it, and only those. */
        assert_int_equal(row->host_alloc, strstr(row->call, "cudaHostAlloc(") == row->call);
        /* Memory the device reaches in place is host memory. */
        assert_true(!row->mapped || row->host);
    }
    assert_false(zc__mem_exact_of(ZC_BUFFER_DEVICE)->host);
    assert_true(zc__mem_exact_of(ZC_BUFFER_MAPPED)->mapped);
    assert_false(zc__mem_exact_of(ZC_BUFFER_PINNED)->mapped);
}

static void test_checks(void **state)
{
    (void)state;
    void *p = (void *)0x1;
    assert_int_equal(zc__mem_exact_alloc(ZC_BUFFER_UNKNOWN, 64, &p), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "not a memory kind"));
    assert_int_equal(zc__mem_exact_alloc(ZC_BUFFER_PINNED, 0, &p), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "0 bytes of pinned"));
    assert_int_equal(zc__mem_exact_alloc(ZC_BUFFER_PAGEABLE, 64, NULL), ZC_ERR_INVALID_ARG);
    assert_ptr_equal(p, (void *)0x1); /* outputs are set only on success */
    /* Pageable memory needs no GPU: allocate, use, free. */
    assert_int_equal(zc__mem_exact_alloc(ZC_BUFFER_PAGEABLE, 4096, &p), ZC_OK);
    memset(p, 0x5a, 4096);
    void *d = (void *)0x1;
    assert_int_equal(zc__mem_exact_device_ptr(ZC_BUFFER_PAGEABLE, p, &d), ZC_ERR_WRONG_KIND);
    assert_non_null(strstr(zc_last_error(), "pageable memory is not mapped"));
    assert_ptr_equal(d, (void *)0x1);
    zc__mem_exact_free(ZC_BUFFER_PAGEABLE, p);
    zc__mem_exact_free(ZC_BUFFER_PINNED, NULL);         /* NULL is accepted, no CUDA call made */
    zc__mem_exact_free(ZC_BUFFER_UNKNOWN, (void *)0x1); /* no row: nothing freed */
}

static void test_portable_register_and_checked_free(void **state)
{
    (void)state;
    void *p = (void *)0x1;
    /* Portable is a cudaHostAlloc flag: refused for the kinds other calls make, before any. */
    assert_int_equal(zc__mem_exact_alloc_portable(ZC_BUFFER_MANAGED, 64, &p), ZC_ERR_WRONG_KIND);
    assert_non_null(strstr(zc_last_error(), "managed memory is not made by cudaHostAlloc"));
    assert_int_equal(zc__mem_exact_alloc_portable(ZC_BUFFER_PINNED, 0, &p), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc__mem_exact_alloc_portable(ZC_BUFFER_UNKNOWN, 64, &p), ZC_ERR_INVALID_ARG);
    assert_ptr_equal(p, (void *)0x1);
    assert_int_equal(zc__mem_exact_register(NULL, 4096, 0), ZC_ERR_INVALID_ARG);
    char page[64];
    assert_int_equal(zc__mem_exact_register(page, 0, 1), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "0 bytes"));
    zc__mem_exact_unregister(NULL); /* accepted, no CUDA call */
    /* The checked free: pageable memory frees without CUDA; NULL and bad kinds are answered. */
    assert_int_equal(zc__mem_exact_alloc(ZC_BUFFER_PAGEABLE, 64, &p), ZC_OK);
    assert_int_equal(zc__mem_exact_free_checked(ZC_BUFFER_PAGEABLE, p), ZC_OK);
    assert_int_equal(zc__mem_exact_free_checked(ZC_BUFFER_DEVICE, NULL), ZC_OK);
    assert_int_equal(zc__mem_exact_free_checked(ZC_BUFFER_UNKNOWN, page), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_row_per_kind),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_portable_register_and_checked_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
