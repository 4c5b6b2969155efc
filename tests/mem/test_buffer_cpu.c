/* SPDX-License-Identifier: Apache-2.0 */
/* Buffer validation, the pageable kind, handles and the registry: everything that needs no GPU. */
#include "test_support.h"

#include <stdint.h>
#include <string.h>

#include "core/host.h"
#include "mem/pages.h"
#include "zerocopy/buffer.h"

static zc_buffer_totals totals_now(void)
{
    zc_buffer_totals t;
    assert_int_equal(zc_buffer_totals_get(&t), ZC_OK);
    return t;
}

static void expect_fail(zc_status got, zc_status want, const char *what)
{
    if (got != want)
        fail_msg("%s: got %s, expected %s (%s)", what, zc_status_name(got), zc_status_name(want),
                 zc_last_error());
    /* Every failure leaves a detail naming the call. */
    assert_true(strlen(zc_last_error()) > 0);
}

static void test_alloc_validation(void **state)
{
    (void)state;
    zc_buffer *buf = (zc_buffer *)0x1;
    zc_buffer_totals before = totals_now();
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_PAGEABLE, 0, -1, NULL), ZC_ERR_INVALID_ARG,
                "NULL output");
    expect_fail(zc_buffer_alloc(0, ZC_BUFFER_PAGEABLE, 0, -1, &buf), ZC_ERR_INVALID_ARG, "size 0");
    assert_non_null(strstr(zc_last_error(), "size is 0"));
    expect_fail(zc_buffer_alloc(SIZE_MAX, ZC_BUFFER_PAGEABLE, 0, -1, &buf), ZC_ERR_OVERFLOW,
                "SIZE_MAX");
    expect_fail(zc_buffer_alloc(SIZE_MAX - 100, ZC_BUFFER_PINNED, 0, 0, &buf), ZC_ERR_OVERFLOW,
                "SIZE_MAX - 100 pinned");
    expect_fail(zc_buffer_alloc(64, (zc_buffer_kind)99, 0, -1, &buf), ZC_ERR_INVALID_ARG,
                "unknown kind");
    assert_non_null(strstr(zc_last_error(), "unknown buffer kind 99"));
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_UNKNOWN, 0, -1, &buf), ZC_ERR_INVALID_ARG,
                "kind UNKNOWN");
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_REGISTERED, 0, 0, &buf), ZC_ERR_INVALID_ARG,
                "registered through alloc");
    assert_non_null(strstr(zc_last_error(), "zc_buffer_register"));
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_PAGEABLE, 0x1000, -1, &buf), ZC_ERR_INVALID_ARG,
                "unknown flag bits");
    assert_non_null(strstr(zc_last_error(), "0x1000"));
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_PAGEABLE, ZC_BUFFER_FLAG_MAPPED, -1, &buf),
                ZC_ERR_INVALID_ARG, "mapped flag on pageable");
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_DEVICE, ZC_BUFFER_FLAG_PORTABLE, 0, &buf),
                ZC_ERR_INVALID_ARG, "portable flag on device");
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_READ_ONLY, 0, &buf),
                ZC_ERR_INVALID_ARG, "read-only flag on pinned");
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_MANAGED, ZC_BUFFER_FLAG_MAPPED, 0, &buf),
                ZC_ERR_INVALID_ARG, "mapped flag on managed");
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_PAGEABLE, 0, -2, &buf), ZC_ERR_INVALID_ARG,
                "device -2");
    expect_fail(zc_buffer_alloc(64, ZC_BUFFER_PINNED, 0, -1, &buf), ZC_ERR_INVALID_ARG,
                "pinned without a device");
    /* Nothing was written and nothing was allocated. */
    assert_ptr_equal(buf, (zc_buffer *)0x1);
    zc_buffer_totals after = totals_now();
    assert_int_equal(after.live_buffers, before.live_buffers);
    assert_int_equal(after.allocs, before.allocs);
}

static void test_pageable_small_and_large(void **state)
{
    (void)state;
    zc_buffer_totals before = totals_now();
    const size_t sizes[] = {
        1, 4095, 4096, 100000, ZC_PIN_REGISTER_THRESHOLD, ZC_PIN_REGISTER_THRESHOLD * 3 + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t size = sizes[i];
        zc_buffer *buf = NULL;
        assert_int_equal(zc_buffer_alloc(size, ZC_BUFFER_PAGEABLE, 0, -1, &buf), ZC_OK);
        assert_non_null(buf);
        zc_buffer_info info;
        assert_int_equal(zc_buffer_info_get(buf, &info), ZC_OK);
        assert_int_equal(info.kind, ZC_BUFFER_PAGEABLE);
        assert_int_equal(info.requested_kind, ZC_BUFFER_PAGEABLE);
        assert_int_equal(info.size, size);
        assert_true(info.capacity >= size && info.capacity - size < zc__page_size());
        assert_int_equal(info.capacity % zc__page_size(), 0);
        assert_non_null(info.host_ptr);
        assert_null(info.device_ptr);
        assert_int_equal(info.device, -1);
        assert_int_equal(info.notes, 0);
        assert_int_equal((uintptr_t)info.host_ptr % zc__page_size(), 0);
        if (size >= ZC_PIN_REGISTER_THRESHOLD) {
            assert_int_equal(info.method, ZC_METHOD_MMAP);
            assert_int_equal((uintptr_t)info.host_ptr % ZC__HUGE_PAGE, 0);
        } else {
            assert_int_equal(info.method, ZC_METHOD_MALLOC);
        }
        /* The shortcuts agree with the snapshot. */
        assert_ptr_equal(zc_buffer_host_ptr(buf), info.host_ptr);
        assert_null(zc_buffer_device_ptr(buf));
        assert_int_equal(zc_buffer_size(buf), size);
        assert_int_equal(zc_buffer_kind_of(buf), ZC_BUFFER_PAGEABLE);
        assert_int_equal(zc_buffer_flags(buf), 0);
        assert_int_equal(zc_buffer_device(buf), -1);
        assert_int_equal(zc_buffer_is_fallback(buf), 0);

        /* All of it is usable memory. */
        zc_test_fill_pattern(info.host_ptr, info.capacity, 7 + i);
        assert_int_equal(zc_test_check_pattern(info.host_ptr, info.capacity, 7 + i), info.capacity);

        zc_buffer_totals during = totals_now();
        assert_int_equal(during.live_buffers, before.live_buffers + 1);
        assert_int_equal(during.bytes[ZC_BUFFER_PAGEABLE],
                         before.bytes[ZC_BUFFER_PAGEABLE] + info.capacity);
        assert_int_equal(during.pinned_bytes, before.pinned_bytes);
        assert_int_equal(zc_buffer_free(buf), ZC_OK);
    }
    zc_buffer_totals after = totals_now();
    assert_int_equal(after.live_buffers, before.live_buffers);
    assert_int_equal(after.live_blocks, before.live_blocks);
    assert_int_equal(after.bytes[ZC_BUFFER_PAGEABLE], before.bytes[ZC_BUFFER_PAGEABLE]);
    assert_int_equal(after.allocs - before.allocs, after.frees - before.frees);
}

static void test_free_null_double_and_stale(void **state)
{
    (void)state;
    assert_int_equal(zc_buffer_free(NULL), ZC_OK);
    zc_buffer *a = NULL, *b = NULL;
    assert_int_equal(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, -1, &a), ZC_OK);
    assert_int_equal(zc_buffer_free(a), ZC_OK);
    expect_fail(zc_buffer_free(a), ZC_ERR_DOUBLE_FREE, "second free");
    assert_non_null(strstr(zc_last_error(), "already freed"));
    /* The next buffer reuses the slot; the stale handle must still not reach it. */
    assert_int_equal(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, -1, &b), ZC_OK);
    assert_ptr_not_equal(a, b);
    expect_fail(zc_buffer_free(a), ZC_ERR_DOUBLE_FREE, "stale free after reuse");
    assert_non_null(zc_buffer_host_ptr(b));
    zc_clear_error();
    assert_null(zc_buffer_host_ptr(a));
    assert_non_null(strstr(zc_last_error(), "already freed"));
    assert_int_equal(zc_buffer_size(a), 0);
    assert_int_equal(zc_buffer_kind_of(a), ZC_BUFFER_UNKNOWN);
    assert_int_equal(zc_buffer_device(a), -1);
    zc_buffer_info info;
    expect_fail(zc_buffer_info_get(a, &info), ZC_ERR_DOUBLE_FREE, "info of a freed handle");
    expect_fail(zc_buffer_info_get(b, NULL), ZC_ERR_INVALID_ARG, "info NULL output");
    assert_int_equal(zc_buffer_free(b), ZC_OK);
    expect_fail(zc_buffer_free(b), ZC_ERR_DOUBLE_FREE, "second free of b");

    /* Forged handles are refused without reading through them. */
    expect_fail(zc_buffer_free((zc_buffer *)(uintptr_t)0xdeadbeef00000000ull), ZC_ERR_INVALID_ARG,
                "forged handle, slot 0");
    expect_fail(zc_buffer_free((zc_buffer *)(uintptr_t)0x0000000100ffffffull), ZC_ERR_INVALID_ARG,
                "forged handle, slot out of range");
    expect_fail(zc_buffer_info_get(NULL, &info), ZC_ERR_INVALID_ARG, "info of NULL");
}

static void test_many_live_handles(void **state)
{
    (void)state;
    /* More than one chunk of the handle table, freed in an order unlike allocation's. */
    enum { COUNT = 5000 };
    zc_buffer **bufs = calloc(COUNT, sizeof *bufs);
    assert_non_null(bufs);
    zc_buffer_totals before = totals_now();
    for (size_t i = 0; i < COUNT; i++) {
        assert_int_equal(zc_buffer_alloc(64 + i, ZC_BUFFER_PAGEABLE, 0, -1, &bufs[i]), ZC_OK);
        *(uint32_t *)zc_buffer_host_ptr(bufs[i]) = (uint32_t)i;
    }
    assert_int_equal(totals_now().live_buffers, before.live_buffers + COUNT);
    for (size_t i = 0; i < COUNT; i += 2)
        assert_int_equal(zc_buffer_free(bufs[i]), ZC_OK);
    for (size_t i = 1; i < COUNT; i += 2) {
        assert_int_equal(*(uint32_t *)zc_buffer_host_ptr(bufs[i]), (uint32_t)i);
        assert_int_equal(zc_buffer_size(bufs[i]), 64 + i);
        assert_int_equal(zc_buffer_free(bufs[i]), ZC_OK);
    }
    for (size_t i = 0; i < COUNT; i += 97)
        assert_int_equal(zc_buffer_free(bufs[i]), ZC_ERR_DOUBLE_FREE);
    zc_buffer_totals after = totals_now();
    assert_int_equal(after.live_buffers, before.live_buffers);
    assert_int_equal(after.bytes[ZC_BUFFER_PAGEABLE], before.bytes[ZC_BUFFER_PAGEABLE]);
    free(bufs);
}

static void test_pointer_query_own_pageable(void **state)
{
    (void)state;
    zc_pointer_info info;
    expect_fail(zc_pointer_query(NULL, &info), ZC_ERR_INVALID_ARG, "query NULL");
    int local = 0;
    expect_fail(zc_pointer_query(&local, NULL), ZC_ERR_INVALID_ARG, "query NULL output");

    zc_buffer *buf = NULL;
    assert_int_equal(zc_buffer_alloc(10000, ZC_BUFFER_PAGEABLE, 0, -1, &buf), ZC_OK);
    char *host = zc_buffer_host_ptr(buf);
    assert_int_equal(zc_pointer_query(host + 1234, &info), ZC_OK);
    assert_int_equal(info.kind, ZC_BUFFER_PAGEABLE);
    assert_int_equal(info.from_zerocopy, 1);
    assert_int_equal(info.flags_known, 1);
    assert_ptr_equal(info.base, host);
    assert_int_equal(info.offset, 1234);
    assert_int_equal(info.size, 12288);
    assert_int_equal(info.device, -1);
    assert_null(info.device_ptr);
    assert_int_equal(zc_buffer_free(buf), ZC_OK);

    /* Not ours: pageable where a GPU can say so, unknown where none can. */
    assert_int_equal(zc_pointer_query(&local, &info), ZC_OK);
    assert_int_equal(info.from_zerocopy, 0);
    assert_int_equal(info.kind, zc_test_gpu_present() ? ZC_BUFFER_PAGEABLE : ZC_BUFFER_UNKNOWN);
    assert_int_equal(info.flags_known, 0);
}

static void test_register_validation(void **state)
{
    (void)state;
    char *mem = malloc(1 << 16);
    assert_non_null(mem);
    zc_buffer *buf = (zc_buffer *)0x1;
    expect_fail(zc_buffer_register(NULL, 64, 0, 0, &buf), ZC_ERR_INVALID_ARG, "NULL ptr");
    expect_fail(zc_buffer_register(mem, 64, 0, 0, NULL), ZC_ERR_INVALID_ARG, "NULL output");
    expect_fail(zc_buffer_register(mem, 0, 0, 0, &buf), ZC_ERR_INVALID_ARG, "size 0");
    expect_fail(zc_buffer_register(mem, SIZE_MAX, 0, 0, &buf), ZC_ERR_OVERFLOW, "wrap around");
    expect_fail(zc_buffer_register(mem, 64, 0x800, 0, &buf), ZC_ERR_INVALID_ARG, "unknown flag");
    expect_fail(zc_buffer_register(mem, 64, ZC_BUFFER_FLAG_WRITE_COMBINED, 0, &buf),
                ZC_ERR_INVALID_ARG, "write-combined registration");
    expect_fail(zc_buffer_register(mem, 64, ZC_BUFFER_FLAG_FALLBACK_PAGEABLE, 0, &buf),
                ZC_ERR_INVALID_ARG, "fallback on registration");
    expect_fail(zc_buffer_register(mem, 64, 0, -1, &buf), ZC_ERR_INVALID_ARG, "device -1");

    /* A range inside one of zerocopy's own buffers is refused before any CUDA call. */
    zc_buffer *own = NULL;
    assert_int_equal(zc_buffer_alloc(1 << 16, ZC_BUFFER_PAGEABLE, 0, -1, &own), ZC_OK);
    char *host = zc_buffer_host_ptr(own);
    expect_fail(zc_buffer_register(host + 4096, 4096, 0, 0, &buf), ZC_ERR_OVERLAP,
                "inside an own buffer");
    assert_non_null(strstr(zc_last_error(), "overlaps"));
    expect_fail(zc_buffer_register(host - 4096, 8192, 0, 0, &buf), ZC_ERR_OVERLAP,
                "reaching into an own buffer");
    assert_ptr_equal(buf, (zc_buffer *)0x1);

    expect_fail(zc_buffer_unregister(NULL), ZC_ERR_INVALID_ARG, "unregister NULL");
    expect_fail(zc_buffer_unregister(mem), ZC_ERR_NOT_FOUND, "unregister unknown");
    expect_fail(zc_buffer_unregister(host), ZC_ERR_WRONG_KIND, "unregister a pageable buffer");
    /* Nothing was lost: the buffer is still whole. */
    host[0] = 1;
    assert_int_equal(zc_buffer_size(own), 1 << 16);
    assert_int_equal(zc_buffer_free(own), ZC_OK);
    free(mem);
}

static void test_no_device_and_fallback(void **state)
{
    (void)state;
    zc_buffer *buf = NULL;
    if (zc_test_gpu_present()) {
        /* On a GPU machine the same calls succeed; the GPU tests check them in depth. */
        assert_int_equal(zc_buffer_alloc(4096, ZC_BUFFER_PINNED, 0, 0, &buf), ZC_OK);
        assert_int_equal(zc_buffer_kind_of(buf), ZC_BUFFER_PINNED);
        assert_int_equal(zc_buffer_free(buf), ZC_OK);
        return;
    }
    const zc_buffer_kind kinds[] = {ZC_BUFFER_PINNED, ZC_BUFFER_MAPPED, ZC_BUFFER_WRITE_COMBINED,
                                    ZC_BUFFER_MANAGED, ZC_BUFFER_DEVICE};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        expect_fail(zc_buffer_alloc(4096, kinds[i], 0, 0, &buf), ZC_ERR_NO_DEVICE,
                    zc_buffer_kind_name(kinds[i]));
    }
    expect_fail(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, 0, &buf), ZC_ERR_NO_DEVICE,
                "pageable for device 0");
    char mem[64];
    expect_fail(zc_buffer_register(mem, sizeof mem, 0, 0, &buf), ZC_ERR_NO_DEVICE, "register");

    /* With the fallback flag the caller gets pageable memory and is told so. */
    for (size_t size = 4096; size <= ZC_PIN_REGISTER_THRESHOLD * 2; size *= 1024) {
        assert_int_equal(
            zc_buffer_alloc(size, ZC_BUFFER_MAPPED, ZC_BUFFER_FLAG_FALLBACK_PAGEABLE, 0, &buf),
            ZC_OK);
        zc_buffer_info info;
        assert_int_equal(zc_buffer_info_get(buf, &info), ZC_OK);
        assert_int_equal(info.kind, ZC_BUFFER_PAGEABLE);
        assert_int_equal(info.requested_kind, ZC_BUFFER_MAPPED);
        assert_true(info.notes & ZC_BUFFER_NOTE_FALLBACK);
        assert_int_equal(info.fallback_status, ZC_ERR_NO_DEVICE);
        assert_int_equal(info.flags, ZC_BUFFER_FLAG_FALLBACK_PAGEABLE);
        assert_int_equal(zc_buffer_is_fallback(buf), 1);
        assert_non_null(info.host_ptr);
        assert_null(info.device_ptr);
        memset(info.host_ptr, 0x5a, size);
        assert_int_equal(zc_buffer_free(buf), ZC_OK);
    }
    /* Invalid arguments never fall back. */
    expect_fail(zc_buffer_alloc(0, ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_FALLBACK_PAGEABLE, 0, &buf),
                ZC_ERR_INVALID_ARG, "size 0 with fallback");
}

static void test_pages_touch_threads(void **state)
{
    (void)state;
    size_t len = 24u << 20;
    void *base = NULL;
    assert_int_equal(zc__pages_map("test", len, 1, &base), ZC_OK);
    assert_int_equal((uintptr_t)base % ZC__HUGE_PAGE, 0);
    memset(base, 0x77, len);
    zc__pages_touch(base, len, 4);
    /* Touching writes a zero at the start of every page and nothing else. */
    const unsigned char *p = base;
    for (size_t off = 0; off < len; off += 997) {
        unsigned char want = off % zc__page_size() == 0 ? 0 : 0x77;
        if (p[off] != want)
            fail_msg("byte %zu is 0x%02x, expected 0x%02x", off, p[off], want);
    }
    zc__pages_touch(base, len, 0);
    zc__pages_touch(base, 4096, 8);
    assert_int_equal(zc__pages_unmap(base, len), ZC_OK);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(zc_buffer_kind_name(ZC_BUFFER_WRITE_COMBINED), "write-combined");
    assert_string_equal(zc_buffer_kind_name(ZC_BUFFER_REGISTERED), "registered");
    assert_string_equal(zc_buffer_kind_name((zc_buffer_kind)42), "unknown");
    assert_string_equal(zc_buffer_method_name(ZC_METHOD_HOST_ALLOC), "cudaHostAlloc");
    assert_string_equal(zc_buffer_method_name((zc_buffer_method)42), "none");
    for (int k = 0; k < ZC_BUFFER_KIND_COUNT; k++)
        assert_non_null(zc_buffer_kind_name((zc_buffer_kind)k));
    /* Keys: the name with '_' for '-'; a name and its key both read back as the kind. */
    assert_string_equal(zc_buffer_kind_key(ZC_BUFFER_WRITE_COMBINED), "write_combined");
    assert_null(zc_buffer_kind_key(ZC_BUFFER_UNKNOWN));
    assert_null(zc_buffer_kind_key((zc_buffer_kind)42));
    for (int k = ZC_BUFFER_UNKNOWN + 1; k < ZC_BUFFER_KIND_COUNT; k++) {
        zc_buffer_kind back = ZC_BUFFER_UNKNOWN;
        assert_int_equal(zc_buffer_kind_from_name(zc_buffer_kind_name((zc_buffer_kind)k), &back),
                         ZC_OK);
        assert_int_equal(back, k);
        back = ZC_BUFFER_UNKNOWN;
        assert_int_equal(zc_buffer_kind_from_name(zc_buffer_kind_key((zc_buffer_kind)k), &back),
                         ZC_OK);
        assert_int_equal(back, k);
    }
    zc_buffer_kind kind = ZC_BUFFER_PINNED;
    expect_fail(zc_buffer_kind_from_name("unknown", &kind), ZC_ERR_NOT_FOUND, "no memory kind");
    expect_fail(zc_buffer_kind_from_name("Pinned", &kind), ZC_ERR_NOT_FOUND, "'Pinned'");
    assert_non_null(strstr(zc_last_error(), "zc_buffer_kind_from_name: no memory kind 'Pinned'"));
    expect_fail(zc_buffer_kind_from_name(NULL, &kind), ZC_ERR_INVALID_ARG, "name");
    expect_fail(zc_buffer_kind_from_name("pinned", NULL), ZC_ERR_INVALID_ARG, "kind_p");
    assert_int_equal(kind, ZC_BUFFER_PINNED); /* left as it was */
    zc_buffer_totals t;
    expect_fail(zc_buffer_totals_get(NULL), ZC_ERR_INVALID_ARG, "totals NULL");
    assert_int_equal(zc_buffer_totals_get(&t), ZC_OK);
}

static void test_managed_helpers_reject(void **state)
{
    (void)state;
    zc_buffer *buf = NULL;
    assert_int_equal(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, -1, &buf), ZC_OK);
    expect_fail(zc_buffer_prefetch(buf, 0, 0, 0, NULL), ZC_ERR_WRONG_KIND, "prefetch pageable");
    expect_fail(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_READ_MOSTLY, 0), ZC_ERR_WRONG_KIND,
                "advise pageable");
    expect_fail(zc_buffer_advise(buf, 0, 0, (zc_advice)77, 0), ZC_ERR_INVALID_ARG,
                "unknown advice");
    expect_fail(zc_buffer_prefetch(NULL, 0, 0, 0, NULL), ZC_ERR_INVALID_ARG, "prefetch NULL");
    assert_int_equal(zc_buffer_free(buf), ZC_OK);
    expect_fail(zc_buffer_prefetch(buf, 0, 0, 0, NULL), ZC_ERR_DOUBLE_FREE, "prefetch freed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_validation),
        cmocka_unit_test(test_pageable_small_and_large),
        cmocka_unit_test(test_free_null_double_and_stale),
        cmocka_unit_test(test_many_live_handles),
        cmocka_unit_test(test_pointer_query_own_pageable),
        cmocka_unit_test(test_register_validation),
        cmocka_unit_test(test_no_device_and_fallback),
        cmocka_unit_test(test_pages_touch_threads),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_managed_helpers_reject),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
