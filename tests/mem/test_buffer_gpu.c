/* SPDX-License-Identifier: Apache-2.0 */
/* Every buffer kind on a real GPU: a kernel writes through the device address and the host
 * checks, pointer queries, each bad input's status, and no leaks over many cycles. */
#include "test_support.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "gpu_checks.h"
#include "gpu_kernels.h"
#include "zerocopy/buffer.h"
#include "zerocopy/clock.h"

#define KIB ((size_t)1024)
#define MIB ((size_t)1024 * 1024)

#define EXPECT_STATUS(call, want)                                                                  \
    do {                                                                                           \
        zc_status zc__s = (call);                                                                  \
        if (zc__s != (want))                                                                       \
            fail_msg("%s gave %s, expected %s (%s)", #call, zc_status_name(zc__s),                 \
                     zc_status_name(want), zc_last_error());                                       \
        fprintf(stderr, "  ok: %-60.60s -> %s: %s\n", #call, zc_status_name(zc__s),                \
                zc_last_error());                                                                  \
    } while (0)

static struct cudaDeviceProp prop;

/* A fresh seed per use, so that a stale pattern from an earlier run can never pass. */
static uint32_t fresh_seed(void)
{
    static uint32_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)(ts.tv_nsec ^ (ts.tv_sec << 20)) * 2654435761u + ++counter;
}

static void check_words(const char *what, const uint32_t *data, size_t words, uint32_t seed,
                        uint32_t delta)
{
    size_t bad = zc_test_check_words(data, words, seed, delta);
    if (bad != words)
        fail_msg("%s: word %zu of %zu is 0x%08x, expected 0x%08x (seed 0x%08x)", what, bad, words,
                 data[bad], zc_test_pattern_word(bad, seed) + delta, seed);
}

typedef struct kind_case {
    const char *name;
    zc_buffer_kind kind;
    unsigned flags;
    size_t size;
    zc_buffer_kind want_kind;
} kind_case;

static const kind_case cases[] = {
    {"pageable 64 KiB", ZC_BUFFER_PAGEABLE, 0, 64 * KIB, ZC_BUFFER_PAGEABLE},
    {"pinned 64 KiB", ZC_BUFFER_PINNED, 0, 64 * KIB, ZC_BUFFER_PINNED},
    {"pinned 8 MiB (registration)", ZC_BUFFER_PINNED, 0, 8 * MIB + 12, ZC_BUFFER_PINNED},
    {"pinned 8 MiB cudaHostAlloc", ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_HOST_ALLOC, 8 * MIB,
     ZC_BUFFER_PINNED},
    {"pinned portable 64 KiB", ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_PORTABLE, 64 * KIB,
     ZC_BUFFER_PINNED},
    {"pinned + mapped flag", ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_MAPPED, 64 * KIB, ZC_BUFFER_MAPPED},
    {"mapped 64 KiB", ZC_BUFFER_MAPPED, 0, 64 * KIB, ZC_BUFFER_MAPPED},
    {"mapped 8 MiB (registration)", ZC_BUFFER_MAPPED, 0, 8 * MIB, ZC_BUFFER_MAPPED},
    {"mapped portable 8 MiB", ZC_BUFFER_MAPPED, ZC_BUFFER_FLAG_PORTABLE, 8 * MIB, ZC_BUFFER_MAPPED},
    {"write-combined 64 KiB", ZC_BUFFER_WRITE_COMBINED, 0, 64 * KIB, ZC_BUFFER_WRITE_COMBINED},
    {"write-combined mapped 8 MiB", ZC_BUFFER_WRITE_COMBINED, ZC_BUFFER_FLAG_MAPPED, 8 * MIB,
     ZC_BUFFER_WRITE_COMBINED},
    {"pinned + write-combined flag", ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_WRITE_COMBINED, 64 * KIB,
     ZC_BUFFER_WRITE_COMBINED},
    {"managed 64 KiB", ZC_BUFFER_MANAGED, 0, 64 * KIB, ZC_BUFFER_MANAGED},
    {"managed 8 MiB attach host", ZC_BUFFER_MANAGED, ZC_BUFFER_FLAG_ATTACH_HOST, 8 * MIB,
     ZC_BUFFER_MANAGED},
    {"device 64 KiB", ZC_BUFFER_DEVICE, 0, 64 * KIB, ZC_BUFFER_DEVICE},
    {"device 8 MiB", ZC_BUFFER_DEVICE, 0, 8 * MIB, ZC_BUFFER_DEVICE},
};

static int host_pinned_kind(zc_buffer_kind k)
{
    return k == ZC_BUFFER_PINNED || k == ZC_BUFFER_MAPPED || k == ZC_BUFFER_WRITE_COMBINED ||
           k == ZC_BUFFER_REGISTERED;
}

/* What the query must say about a buffer described by info, at offset. */
static void check_query(const char *name, const zc_buffer_info *info, size_t offset)
{
    char *at = (char *)(info->host_ptr != NULL ? info->host_ptr : info->device_ptr) + offset;
    zc_pointer_info q;
    ZC_OK_OR_FAIL(zc_pointer_query(at, &q));
    if (q.kind != info->kind)
        fail_msg("%s: query says %s, buffer is %s", name, zc_buffer_kind_name(q.kind),
                 zc_buffer_kind_name(info->kind));
    assert_int_equal(q.flags, info->flags);
    assert_int_equal(q.flags_known, 1);
    assert_int_equal(q.from_zerocopy, 1);
    assert_int_equal(q.device, info->device);
    assert_int_equal(q.offset, offset);
    assert_int_equal(q.size, info->capacity);
    if (info->device_ptr != NULL)
        assert_ptr_equal(q.device_ptr, (char *)info->device_ptr + offset);
    else
        assert_null(q.device_ptr);
    int want_access;
    switch (info->kind) {
    case ZC_BUFFER_DEVICE:
    case ZC_BUFFER_MANAGED:
        want_access = 1;
        break;
    case ZC_BUFFER_PAGEABLE:
        want_access = prop.pageableMemoryAccess;
        break;
    default:
        want_access = info->device_ptr != NULL && prop.canMapHostMemory;
        break;
    }
    if (q.kernel_can_access != want_access)
        fail_msg("%s: kernel_can_access %d, expected %d", name, q.kernel_can_access, want_access);

    /* The runtime's own view agrees where it can tell. */
    struct cudaPointerAttributes attr;
    CUDA_OK(cudaPointerGetAttributes(&attr, at));
    enum cudaMemoryType want_type = info->kind == ZC_BUFFER_DEVICE    ? cudaMemoryTypeDevice
                                    : info->kind == ZC_BUFFER_MANAGED ? cudaMemoryTypeManaged
                                    : host_pinned_kind(info->kind)    ? cudaMemoryTypeHost
                                                                      : cudaMemoryTypeUnregistered;
    if (attr.type != want_type)
        fail_msg("%s: cudaPointerGetAttributes type %d, expected %d", name, (int)attr.type,
                 (int)want_type);
}

/* Allocate, let a kernel write a fresh pattern through the device address, check on the host,
 * and for host memory let the host write and the kernel modify in place. */
static void exercise(const char *name, zc_buffer *buf)
{
    zc_buffer_info info;
    ZC_OK_OR_FAIL(zc_buffer_info_get(buf, &info));
    size_t words = info.size / sizeof(uint32_t);
    uint32_t seed = fresh_seed();
    fprintf(stderr, "%-32s %-28s size %9zu capacity %9zu host %p device %p\n", name,
            zc_buffer_method_name(info.method), info.size, info.capacity, info.host_ptr,
            info.device_ptr);

    if (host_pinned_kind(info.kind)) {
        /* The device address is the runtime's answer, whatever it is (never assumed). */
        void *dev = NULL;
        cudaError_t e = cudaHostGetDevicePointer(&dev, info.host_ptr, 0);
        if (e == cudaSuccess)
            assert_ptr_equal(info.device_ptr, dev);
        else
            assert_null(info.device_ptr);
        (void)cudaGetLastError();
    }

    if (info.kind == ZC_BUFFER_DEVICE) {
        uint32_t *copy = malloc(info.size);
        assert_non_null(copy);
        CUDA_OK(zc_test_write_pattern(info.device_ptr, words, seed, 0));
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(copy, info.device_ptr, words * 4, cudaMemcpyDeviceToHost));
        check_words(name, copy, words, seed, 0);
        free(copy);
        return;
    }
    if (info.device_ptr != NULL) {
        CUDA_OK(zc_test_write_pattern(info.device_ptr, words, seed, 0));
        CUDA_OK(cudaDeviceSynchronize());
        check_words(name, info.host_ptr, words, seed, 0);
        /* The other way: the CPU writes, the GPU reads and writes back in place. */
        uint32_t seed2 = fresh_seed();
        uint32_t *host = info.host_ptr;
        for (size_t i = 0; i < words; i++)
            host[i] = zc_test_pattern_word(i, seed2);
        CUDA_OK(zc_test_add_words(info.device_ptr, words, 3, 0));
        CUDA_OK(cudaDeviceSynchronize());
        check_words(name, host, words, seed2, 3);
    }
    if (info.kind != ZC_BUFFER_MANAGED) {
        /* Copies through the copy engines from and to the buffer. */
        void *dev = NULL;
        uint32_t seed3 = fresh_seed();
        uint32_t *host = info.host_ptr;
        for (size_t i = 0; i < words; i++)
            host[i] = zc_test_pattern_word(i, seed3);
        CUDA_OK(cudaMalloc(&dev, words * 4));
        CUDA_OK(cudaMemcpy(dev, host, words * 4, cudaMemcpyHostToDevice));
        CUDA_OK(zc_test_add_words(dev, words, 5, 0));
        CUDA_OK(cudaMemcpy(host, dev, words * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaFree(dev));
        check_words(name, host, words, seed3, 5);
    }
}

static void test_every_kind(void **state)
{
    (void)state;
    zc_buffer_totals before;
    ZC_OK_OR_FAIL(zc_buffer_totals_get(&before));
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const kind_case *k = &cases[c];
        if (k->kind == ZC_BUFFER_PAGEABLE && !prop.pageableMemoryAccess) {
            /* Still made and checked on the host and by copies; no kernel access here. */
            fprintf(stderr, "%s: pageableMemoryAccess is 0, no kernel access\n", k->name);
        }
        if (k->kind == ZC_BUFFER_MANAGED && !prop.managedMemory)
            continue;
        zc_buffer *buf = NULL;
        ZC_OK_OR_FAIL(zc_buffer_alloc(k->size, k->kind, k->flags, 0, &buf));
        zc_buffer_info info;
        ZC_OK_OR_FAIL(zc_buffer_info_get(buf, &info));
        if (info.kind != k->want_kind)
            fail_msg("%s: kind %s, expected %s", k->name, zc_buffer_kind_name(info.kind),
                     zc_buffer_kind_name(k->want_kind));
        assert_int_equal(info.device, 0);
        assert_int_equal(info.notes & ZC_BUFFER_NOTE_FALLBACK, 0);
        /* The method follows the documented rule. */
        if (host_pinned_kind(info.kind)) {
            int reg = !(info.flags & (ZC_BUFFER_FLAG_WRITE_COMBINED | ZC_BUFFER_FLAG_HOST_ALLOC)) &&
                      info.capacity >= ZC_PIN_REGISTER_THRESHOLD && prop.hostRegisterSupported;
            assert_int_equal(info.method, reg ? ZC_METHOD_MMAP_REGISTER : ZC_METHOD_HOST_ALLOC);
        }
        if (info.kind == ZC_BUFFER_MAPPED || (info.flags & ZC_BUFFER_FLAG_MAPPED))
            assert_non_null(info.device_ptr);
        if (info.kind == ZC_BUFFER_MANAGED)
            assert_int_equal((info.notes & ZC_BUFFER_NOTE_NO_CONCURRENT_ACCESS) != 0,
                             !prop.concurrentManagedAccess);
        if (k->flags & ZC_BUFFER_FLAG_ATTACH_HOST) {
            /* Host-attached memory reaches kernels once attached to a stream, the way
             * docs/buffers.md tells users (required without concurrentManagedAccess;
             * compute-sanitizer's memcheck also counts kernel accesses before it as out of
             * bounds, even where the device allows them). */
            CUDA_OK(cudaStreamAttachMemAsync(0, info.host_ptr, 0, cudaMemAttachGlobal));
            CUDA_OK(cudaStreamSynchronize(0));
        }
        exercise(k->name, buf);
        check_query(k->name, &info, 0);
        check_query(k->name, &info, (info.size / 2) & ~(size_t)3);
        ZC_OK_OR_FAIL(zc_buffer_free(buf));
        EXPECT_STATUS(zc_buffer_free(buf), ZC_ERR_DOUBLE_FREE);
    }
    zc_buffer_totals after;
    ZC_OK_OR_FAIL(zc_buffer_totals_get(&after));
    assert_int_equal(after.live_buffers, before.live_buffers);
    assert_int_equal(after.pinned_bytes, before.pinned_bytes);
}

static void test_registered(void **state)
{
    (void)state;
    /* The caller's memory, mapped and unmapped, small and large; an unaligned start too. */
    const size_t sizes[] = {64 * KIB, 8 * MIB};
    const unsigned flag_sets[] = {0, ZC_BUFFER_FLAG_MAPPED,
                                  ZC_BUFFER_FLAG_MAPPED | ZC_BUFFER_FLAG_PORTABLE};
    for (size_t s = 0; s < 2; s++) {
        for (size_t f = 0; f < 3; f++) {
            size_t len = sizes[s] + 4096;
            char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            assert_true(mem != MAP_FAILED);
            char *start = mem + 64; /* not page aligned */
            zc_buffer *buf = NULL;
            ZC_OK_OR_FAIL(zc_buffer_register(start, sizes[s], flag_sets[f], 0, &buf));
            zc_buffer_info info;
            ZC_OK_OR_FAIL(zc_buffer_info_get(buf, &info));
            assert_int_equal(info.kind, ZC_BUFFER_REGISTERED);
            assert_int_equal(info.method, ZC_METHOD_USER_REGISTER);
            assert_ptr_equal(info.host_ptr, start);
            assert_int_equal(info.capacity, sizes[s]);
            assert_int_equal(info.flags, flag_sets[f]);
            char name[64];
            snprintf(name, sizeof name, "registered %zu flags 0x%x", sizes[s], flag_sets[f]);
            exercise(name, buf);
            check_query(name, &info, 0);
            check_query(name, &info, 4000);
            /* Freeing unregisters and leaves the memory to its owner. */
            ZC_OK_OR_FAIL(zc_buffer_free(buf));
            struct cudaPointerAttributes attr;
            CUDA_OK(cudaPointerGetAttributes(&attr, start));
            assert_int_equal(attr.type, cudaMemoryTypeUnregistered);
            start[0] = 1;
            assert_int_equal(munmap(mem, len), 0);
        }
    }
    /* Read-only registration where the device supports it; UNSUPPORTED where not. */
    char *mem = malloc(64 * KIB);
    assert_non_null(mem);
    zc_buffer *ro = NULL;
    if (prop.hostRegisterReadOnlySupported) {
        ZC_OK_OR_FAIL(zc_buffer_register(mem, 64 * KIB, ZC_BUFFER_FLAG_READ_ONLY, 0, &ro));
        void *dev = NULL;
        zc_test_fill_pattern(mem, 64 * KIB, 99);
        CUDA_OK(cudaMalloc(&dev, 64 * KIB));
        CUDA_OK(cudaMemcpy(dev, mem, 64 * KIB, cudaMemcpyHostToDevice));
        /* The GPU may not write read-only memory, copies included: read back elsewhere. */
        char *back = malloc(64 * KIB);
        assert_non_null(back);
        CUDA_OK(cudaMemcpy(back, dev, 64 * KIB, cudaMemcpyDeviceToHost));
        assert_int_equal(zc_test_check_pattern(back, 64 * KIB, 99), 64 * KIB);
        assert_int_not_equal(cudaMemcpy(mem, dev, 64 * KIB, cudaMemcpyDeviceToHost), cudaSuccess);
        (void)cudaGetLastError();
        free(back);
        CUDA_OK(cudaFree(dev));
        ZC_OK_OR_FAIL(zc_buffer_free(ro));
    } else {
        EXPECT_STATUS(zc_buffer_register(mem, 64 * KIB, ZC_BUFFER_FLAG_READ_ONLY, 0, &ro),
                      ZC_ERR_UNSUPPORTED);
    }
    free(mem);
}

static void test_foreign_pointers(void **state)
{
    (void)state;
    zc_pointer_info q;
    void *pinned = NULL, *dev = NULL, *managed = NULL;
    CUDA_OK(cudaHostAlloc(&pinned, 4096, cudaHostAllocMapped));
    ZC_OK_OR_FAIL(zc_pointer_query((char *)pinned + 8, &q));
    assert_int_equal(q.kind, ZC_BUFFER_PINNED);
    assert_int_equal(q.flags_known, 0);
    assert_int_equal(q.from_zerocopy, 0);
    assert_int_equal(q.device, 0);
    void *want = NULL;
    CUDA_OK(cudaHostGetDevicePointer(&want, pinned, 0));
    assert_ptr_equal(q.device_ptr, (char *)want + 8);
    assert_int_equal(q.kernel_can_access, prop.canMapHostMemory);

    CUDA_OK(cudaMalloc(&dev, 4096));
    ZC_OK_OR_FAIL(zc_pointer_query(dev, &q));
    assert_int_equal(q.kind, ZC_BUFFER_DEVICE);
    assert_ptr_equal(q.device_ptr, dev);
    assert_int_equal(q.kernel_can_access, 1);

    if (prop.managedMemory) {
        CUDA_OK(cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal));
        ZC_OK_OR_FAIL(zc_pointer_query(managed, &q));
        assert_int_equal(q.kind, ZC_BUFFER_MANAGED);
        assert_int_equal(q.kernel_can_access, 1);
    }

    char *plain = malloc(4096);
    assert_non_null(plain);
    ZC_OK_OR_FAIL(zc_pointer_query(plain, &q));
    assert_int_equal(q.kind, ZC_BUFFER_PAGEABLE);
    assert_int_equal(q.device, -1);
    assert_int_equal(q.kernel_can_access, prop.pageableMemoryAccess);
    if (prop.pageableMemoryAccess)
        assert_ptr_equal(q.device_ptr, plain);
    else
        assert_null(q.device_ptr);

    /* Bad inputs against foreign memory: each its own status, nothing changed. */
    zc_buffer *buf = NULL;
    EXPECT_STATUS(zc_buffer_register(dev, 4096, 0, 0, &buf), ZC_ERR_WRONG_KIND);
    if (managed != NULL)
        EXPECT_STATUS(zc_buffer_register(managed, 4096, 0, 0, &buf), ZC_ERR_WRONG_KIND);
    EXPECT_STATUS(zc_buffer_register(pinned, 4096, 0, 0, &buf), ZC_ERR_OVERLAP);
    CUDA_OK(cudaHostRegister(plain, 4096, cudaHostRegisterDefault));
    EXPECT_STATUS(zc_buffer_register(plain, 4096, 0, 0, &buf), ZC_ERR_OVERLAP);
    CUDA_OK(cudaHostUnregister(plain));
    assert_null(buf);

    free(plain);
    if (managed != NULL)
        CUDA_OK(cudaFree(managed));
    CUDA_OK(cudaFree(dev));
    CUDA_OK(cudaFreeHost(pinned));
}

static void test_bad_inputs(void **state)
{
    (void)state;
    int count = 0;
    CUDA_OK(cudaGetDeviceCount(&count));
    zc_buffer *buf = NULL;
    EXPECT_STATUS(zc_buffer_alloc(4096, ZC_BUFFER_PINNED, 0, count, &buf), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_alloc(4096, ZC_BUFFER_DEVICE, 0, count, &buf), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, count, &buf), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_alloc(0, ZC_BUFFER_DEVICE, 0, 0, &buf), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_alloc(SIZE_MAX, ZC_BUFFER_DEVICE, 0, 0, &buf), ZC_ERR_OVERFLOW);
    EXPECT_STATUS(zc_buffer_alloc(4096, (zc_buffer_kind)12, 0, 0, &buf), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_alloc(4096, ZC_BUFFER_MAPPED, 1u << 20, 0, &buf), ZC_ERR_INVALID_ARG);
    if (!prop.canMapHostMemory)
        EXPECT_STATUS(zc_buffer_alloc(4096, ZC_BUFFER_MAPPED, 0, 0, &buf), ZC_ERR_UNSUPPORTED);
    /* Far more device memory than there is: out of memory, clearly. compute-sanitizer counts
     * the failing cudaMalloc as an error, so this runs only when asked for. */
    if (getenv("ZC_TEST_CUDA_ERRORS") != NULL)
        EXPECT_STATUS(zc_buffer_alloc(prop.totalGlobalMem * 4, ZC_BUFFER_DEVICE, 0, 0, &buf),
                      ZC_ERR_NO_MEMORY);
    assert_null(buf);

    /* Overlapping registrations and unregistering from the middle. */
    size_t len = 2 * MIB;
    char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    zc_buffer *mid = NULL;
    ZC_OK_OR_FAIL(zc_buffer_register(mem + 512 * KIB, MIB, ZC_BUFFER_FLAG_MAPPED, 0, &mid));
    EXPECT_STATUS(zc_buffer_register(mem, 600 * KIB, 0, 0, &buf), ZC_ERR_OVERLAP);
    EXPECT_STATUS(zc_buffer_register(mem + 1400 * KIB, 200 * KIB, 0, 0, &buf), ZC_ERR_OVERLAP);
    EXPECT_STATUS(zc_buffer_register(mem + 512 * KIB, MIB, 0, 0, &buf), ZC_ERR_OVERLAP);
    EXPECT_STATUS(zc_buffer_unregister(mem + 512 * KIB + 4096), ZC_ERR_NOT_BASE);
    EXPECT_STATUS(zc_buffer_unregister(mem), ZC_ERR_NOT_FOUND);
    /* The registration survived every refusal. */
    zc_pointer_info q;
    ZC_OK_OR_FAIL(zc_pointer_query(mem + 600 * KIB, &q));
    assert_int_equal(q.kind, ZC_BUFFER_REGISTERED);
    /* Adjacent ranges are fine. */
    zc_buffer *below = NULL;
    ZC_OK_OR_FAIL(zc_buffer_register(mem, 512 * KIB, 0, 0, &below));
    ZC_OK_OR_FAIL(zc_buffer_unregister(mem + 512 * KIB));
    EXPECT_STATUS(zc_buffer_free(mid), ZC_ERR_DOUBLE_FREE);
    ZC_OK_OR_FAIL(zc_buffer_free(below));
    assert_int_equal(munmap(mem, len), 0);

    /* Registering zerocopy's own device memory is the wrong kind. */
    zc_buffer *devbuf = NULL;
    ZC_OK_OR_FAIL(zc_buffer_alloc(4096, ZC_BUFFER_DEVICE, 0, 0, &devbuf));
    EXPECT_STATUS(zc_buffer_register(zc_buffer_device_ptr(devbuf), 4096, 0, 0, &buf),
                  ZC_ERR_WRONG_KIND);
    EXPECT_STATUS(zc_buffer_prefetch(devbuf, 0, 0, 0, NULL), ZC_ERR_WRONG_KIND);
    ZC_OK_OR_FAIL(zc_buffer_free(devbuf));
}

static void test_managed_helpers(void **state)
{
    (void)state;
    if (!prop.managedMemory) {
        fprintf(stderr, "no managed memory on device 0\n");
        return;
    }
    size_t size = 4 * MIB;
    zc_buffer *buf = NULL;
    ZC_OK_OR_FAIL(zc_buffer_alloc(size, ZC_BUFFER_MANAGED, 0, 0, &buf));
    uint32_t *p = zc_buffer_host_ptr(buf);
    assert_ptr_equal(p, zc_buffer_device_ptr(buf));
    EXPECT_STATUS(zc_buffer_prefetch(buf, size, 0, 0, NULL), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_prefetch(buf, 0, size + 1, 0, NULL), ZC_ERR_INVALID_ARG);
    EXPECT_STATUS(zc_buffer_prefetch(buf, 0, 0, 99, NULL), ZC_ERR_INVALID_ARG);
    uint32_t seed = fresh_seed();
    if (prop.concurrentManagedAccess) {
        cudaStream_t stream;
        CUDA_OK(cudaStreamCreate(&stream));
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_PREFERRED_LOCATION, 0));
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_ACCESSED_BY, 0));
        ZC_OK_OR_FAIL(zc_buffer_prefetch(buf, 0, 0, 0, stream));
        CUDA_OK(zc_test_write_pattern(p, size / 4, seed, stream));
        ZC_OK_OR_FAIL(zc_buffer_prefetch(buf, MIB, MIB, ZC_DEVICE_HOST, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        check_words("managed after prefetch", p, size / 4, seed, 0);
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_READ_MOSTLY, 0));
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_UNSET_READ_MOSTLY, 0));
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_UNSET_PREFERRED_LOCATION, 0));
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_UNSET_ACCESSED_BY, 0));
        /* The host as a preferred location, as cudaCpuDeviceId was before CUDA 13. */
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_PREFERRED_LOCATION, ZC_DEVICE_HOST));
        ZC_OK_OR_FAIL(zc_buffer_advise(buf, 0, 0, ZC_ADVISE_UNSET_PREFERRED_LOCATION, 0));
        CUDA_OK(cudaStreamDestroy(stream));
    } else {
        EXPECT_STATUS(zc_buffer_prefetch(buf, 0, 0, 0, NULL), ZC_ERR_UNSUPPORTED);
        assert_true(zc_buffer_flags(buf) == 0);
        zc_buffer_info info;
        ZC_OK_OR_FAIL(zc_buffer_info_get(buf, &info));
        assert_true(info.notes & ZC_BUFFER_NOTE_NO_CONCURRENT_ACCESS);
    }
    ZC_OK_OR_FAIL(zc_buffer_free(buf));
}

/* One field of /proc/self/status in KiB; -1 when the kernel has no such line. */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long value = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            value = strtol(line + n + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return value;
}

static size_t device_free_bytes(void)
{
    size_t free_bytes = 0, total = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total));
    return free_bytes;
}

static void cycle(zc_buffer_kind kind, unsigned flags, size_t size, long cycles, const char *name)
{
    char *mem = NULL;
    if (kind == ZC_BUFFER_REGISTERED) {
        mem = malloc(size);
        assert_non_null(mem);
        memset(mem, 0, size);
    }
    for (long i = 0; i < cycles; i++) {
        zc_buffer *buf = NULL;
        zc_status st = kind == ZC_BUFFER_REGISTERED ? zc_buffer_register(mem, size, flags, 0, &buf)
                                                    : zc_buffer_alloc(size, kind, flags, 0, &buf);
        if (st != ZC_OK)
            fail_msg("%s: cycle %ld: %s: %s", name, i, zc_status_name(st), zc_last_error());
        st = zc_buffer_free(buf);
        if (st != ZC_OK)
            fail_msg("%s: cycle %ld: free: %s: %s", name, i, zc_status_name(st), zc_last_error());
    }
    free(mem);
}

static void test_cycles_leave_nothing(void **state)
{
    (void)state;
    long cycles = 10000;
    const char *env = getenv("ZC_TEST_CYCLES");
    if (env != NULL && atol(env) > 0)
        cycles = atol(env);
    struct {
        const char *name;
        zc_buffer_kind kind;
        unsigned flags;
        size_t size;
        long divisor; /* large sizes run fewer cycles to stay within the time budget */
    } runs[] = {
        {"pageable 4 KiB", ZC_BUFFER_PAGEABLE, 0, 4 * KIB, 1},
        {"pinned 4 KiB", ZC_BUFFER_PINNED, 0, 4 * KIB, 1},
        {"mapped 4 KiB", ZC_BUFFER_MAPPED, 0, 4 * KIB, 1},
        {"write-combined 4 KiB", ZC_BUFFER_WRITE_COMBINED, 0, 4 * KIB, 1},
        {"registered 4 KiB", ZC_BUFFER_REGISTERED, ZC_BUFFER_FLAG_MAPPED, 4 * KIB, 1},
        {"managed 4 KiB", ZC_BUFFER_MANAGED, 0, 4 * KIB, 1},
        {"device 4 KiB", ZC_BUFFER_DEVICE, 0, 4 * KIB, 1},
        {"pinned 4 MiB (registration)", ZC_BUFFER_PINNED, 0, 4 * MIB, 50},
        {"mapped 4 MiB (registration)", ZC_BUFFER_MAPPED, 0, 4 * MIB, 50},
        {"device 4 MiB", ZC_BUFFER_DEVICE, 0, 4 * MIB, 50},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        if (runs[r].kind == ZC_BUFFER_MANAGED && !prop.managedMemory)
            continue;
        long n = cycles / runs[r].divisor;
        if (n < 1)
            n = 1;
        /* One round first, so that lazily made runtime state is not counted as a leak. */
        cycle(runs[r].kind, runs[r].flags, runs[r].size, 1, runs[r].name);
        zc_buffer_totals t0;
        ZC_OK_OR_FAIL(zc_buffer_totals_get(&t0));
        size_t dev0 = device_free_bytes();
        long rss0 = status_kib("VmRSS"), lck0 = status_kib("VmLck"), pin0 = status_kib("VmPin");
        uint64_t start = zc_clock_ns();
        cycle(runs[r].kind, runs[r].flags, runs[r].size, n, runs[r].name);
        double secs = (double)(zc_clock_ns() - start) / 1e9;
        zc_buffer_totals t1;
        ZC_OK_OR_FAIL(zc_buffer_totals_get(&t1));
        size_t dev1 = device_free_bytes();
        long rss1 = status_kib("VmRSS"), lck1 = status_kib("VmLck"), pin1 = status_kib("VmPin");
        fprintf(stderr,
                "%-28s %6ld cycles %6.2f s (%6.1f us each): device free %+lld B, VmRSS %+ld "
                "KiB, VmLck %+ld KiB, VmPin %+ld KiB\n",
                runs[r].name, n, secs, secs * 1e6 / (double)n, (long long)dev1 - (long long)dev0,
                rss1 - rss0, lck1 - lck0, pin1 - pin0);
        assert_int_equal(t1.live_buffers, t0.live_buffers);
        assert_int_equal(t1.live_blocks, t0.live_blocks);
        assert_int_equal(t1.pinned_bytes, t0.pinned_bytes);
        for (int k = 0; k < ZC_BUFFER_KIND_COUNT; k++)
            assert_int_equal(t1.bytes[k], t0.bytes[k]);
        assert_int_equal(t1.allocs - t0.allocs, (uint64_t)n);
        assert_int_equal(t1.frees - t0.frees, (uint64_t)n);
        /* The device allocator may keep a chunk of its own; a leak of n buffers is far more. */
        long long dev_diff = (long long)dev0 - (long long)dev1;
        if (dev_diff > (long long)(2 * MIB))
            fail_msg("%s: device free memory fell by %lld bytes over %ld cycles", runs[r].name,
                     dev_diff, n);
        if (rss1 - rss0 > 32 * 1024)
            fail_msg("%s: VmRSS grew by %ld KiB over %ld cycles", runs[r].name, rss1 - rss0, n);
        if (lck0 >= 0 && lck1 - lck0 > 1024)
            fail_msg("%s: VmLck grew by %ld KiB", runs[r].name, lck1 - lck0);
        if (pin0 >= 0 && pin1 - pin0 > 1024)
            fail_msg("%s: VmPin grew by %ld KiB", runs[r].name, pin1 - pin0);
    }
}

int main(void)
{
    zc_test_require_gpu("gpu_buffer");
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        fprintf(stderr, "cudaGetDeviceProperties(0) failed\n");
        return 1;
    }
    fprintf(stderr,
            "device 0: %s, unifiedAddressing %d canMapHostMemory %d pageableMemoryAccess %d "
            "concurrentManagedAccess %d hostRegisterSupported %d hostRegisterReadOnlySupported "
            "%d\n",
            prop.name, prop.unifiedAddressing, prop.canMapHostMemory, prop.pageableMemoryAccess,
            prop.concurrentManagedAccess, prop.hostRegisterSupported,
            prop.hostRegisterReadOnlySupported);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind),       cmocka_unit_test(test_registered),
        cmocka_unit_test(test_foreign_pointers), cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_managed_helpers),  cmocka_unit_test(test_cycles_leave_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
