/* SPDX-License-Identifier: Apache-2.0 */
/* Example 1 (pinned memory): allocate pinned and pageable host buffers, copy to the GPU and back
 * with both, check the data, and print the bandwidth of each. Exits 3 without a GPU. */
#include <stdint.h>
#include <string.h>

#include "example_common.h"

#define MIB     ((size_t)1024 * 1024)
#define REPEATS 10

/* Median GB/s of REPEATS copies of size bytes, timed with CUDA events. */
static double copy_gbps(void *dst, const void *src, size_t size, enum cudaMemcpyKind kind)
{
    double samples[REPEATS];
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaMemcpy(dst, src, size, kind)); /* warm-up */
    for (int i = 0; i < REPEATS; i++) {
        CHECK_CUDA(cudaEventRecord(start, 0));
        CHECK_CUDA(cudaMemcpyAsync(dst, src, size, kind, 0));
        CHECK_CUDA(cudaEventRecord(stop, 0));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        samples[i] = (double)size / (ms * 1e-3) / 1e9;
    }
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    zc_stats stats;
    CHECK_ZC(zc_stats_compute(samples, REPEATS, &stats));
    return stats.median;
}

static void fill(uint32_t *p, size_t words, uint32_t seed)
{
    for (size_t i = 0; i < words; i++)
        p[i] = (uint32_t)(i * 2654435761u) ^ seed;
}

static int same(const uint32_t *p, size_t words, uint32_t seed)
{
    for (size_t i = 0; i < words; i++) {
        if (p[i] != ((uint32_t)(i * 2654435761u) ^ seed)) {
            fprintf(stderr, "word %zu is 0x%08x, expected 0x%08x\n", i, p[i],
                    (uint32_t)(i * 2654435761u) ^ seed);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    example_require_gpu("01_pinned");
    size_t size = 64 * MIB;
    if (argc > 1) {
        char *end = NULL;
        unsigned long long mib = strtoull(argv[1], &end, 10);
        /* A number of MiB that fits in size_t once multiplied; anything else is a usage error. */
        size = *end == '\0' && mib <= SIZE_MAX / MIB ? (size_t)mib * MIB : 0;
    }
    if (size == 0) {
        fprintf(stderr, "usage: 01_pinned [MiB]\n");
        return EXAMPLE_FAILED;
    }

    zc_buffer *pinned = NULL, *pageable = NULL, *device = NULL;
    CHECK_ZC(zc_buffer_alloc(size, ZC_BUFFER_PINNED, 0, 0, &pinned));
    CHECK_ZC(zc_buffer_alloc(size, ZC_BUFFER_PAGEABLE, 0, 0, &pageable));
    CHECK_ZC(zc_buffer_alloc(size, ZC_BUFFER_DEVICE, 0, 0, &device));
    uint32_t *pin = zc_buffer_host_ptr(pinned);
    uint32_t *page = zc_buffer_host_ptr(pageable);
    void *dev = zc_buffer_device_ptr(device);
    size_t words = size / sizeof(uint32_t);

    zc_buffer_info info;
    CHECK_ZC(zc_buffer_info_get(pinned, &info));
    printf("pinned buffer: %zu MiB by %s\n", size / MIB, zc_buffer_method_name(info.method));

    /* Both ways with each kind of host memory, and the data checked each time. */
    int ok = 1;
    fill(pin, words, 0x1234u);
    double pinned_h2d = copy_gbps(dev, pin, size, cudaMemcpyHostToDevice);
    memset(pin, 0, size);
    double pinned_d2h = copy_gbps(pin, dev, size, cudaMemcpyDeviceToHost);
    ok &= same(pin, words, 0x1234u);

    fill(page, words, 0xbeefu);
    double pageable_h2d = copy_gbps(dev, page, size, cudaMemcpyHostToDevice);
    memset(page, 0, size);
    double pageable_d2h = copy_gbps(page, dev, size, cudaMemcpyDeviceToHost);
    ok &= same(page, words, 0xbeefu);

    printf("%-10s %12s %12s\n", "memory", "H2D GB/s", "D2H GB/s");
    printf("%-10s %12.1f %12.1f\n", "pageable", pageable_h2d, pageable_d2h);
    printf("%-10s %12.1f %12.1f\n", "pinned", pinned_h2d, pinned_d2h);
    printf("pinned is %.1fx (H2D) and %.1fx (D2H) as fast as pageable; data %s\n",
           pinned_h2d / pageable_h2d, pinned_d2h / pageable_d2h, ok ? "verified" : "WRONG");

    CHECK_ZC(zc_buffer_free(device));
    CHECK_ZC(zc_buffer_free(pageable));
    CHECK_ZC(zc_buffer_free(pinned));
    return ok ? EXAMPLE_OK : EXAMPLE_WRONG_DATA;
}
