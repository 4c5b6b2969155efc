/* SPDX-License-Identifier: Apache-2.0 */
/* The typed bench case names: each finds its own catalogue row, by key and by index, so that
 * advise's profile (built from results by these names) cannot silently lose a case that moved or
 * was renamed. */
#include <stdio.h>
#include <string.h>

#include "zerocopy/bench.h"

static const struct {
    zc_bench_case_id id;
    const char *key;
} zc__expected[] = {
    {ZC_BENCH_CASE_COPY_H2D_PAGEABLE, "copy.h2d.pageable"},
    {ZC_BENCH_CASE_COPY_H2D_PINNED, "copy.h2d.pinned"},
    {ZC_BENCH_CASE_COPY_H2D_WRITE_COMBINED, "copy.h2d.write_combined"},
    {ZC_BENCH_CASE_COPY_H2D_REGISTERED, "copy.h2d.registered"},
    {ZC_BENCH_CASE_COPY_D2H_PAGEABLE, "copy.d2h.pageable"},
    {ZC_BENCH_CASE_COPY_D2H_PINNED, "copy.d2h.pinned"},
    {ZC_BENCH_CASE_COPY_D2H_WRITE_COMBINED, "copy.d2h.write_combined"},
    {ZC_BENCH_CASE_COPY_D2H_REGISTERED, "copy.d2h.registered"},
    {ZC_BENCH_CASE_COPY_BIDIR_PAGEABLE, "copy.bidir.pageable"},
    {ZC_BENCH_CASE_COPY_BIDIR_PINNED, "copy.bidir.pinned"},
    {ZC_BENCH_CASE_COPY_BIDIR_WRITE_COMBINED, "copy.bidir.write_combined"},
    {ZC_BENCH_CASE_COPY_BIDIR_REGISTERED, "copy.bidir.registered"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_16B, "zerocopy.read.16b"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_4B, "zerocopy.read.4b"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_STRIDED, "zerocopy.read.strided"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_RANDOM128, "zerocopy.read.random128"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_16B, "zerocopy.write.16b"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_4B, "zerocopy.write.4b"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_STRIDED, "zerocopy.write.strided"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_RANDOM128, "zerocopy.write.random128"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_TUNE, "zerocopy.read.tune"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_TUNE, "zerocopy.write.tune"},
    {ZC_BENCH_CASE_DEVICE_READ_16B, "device.read.16b"},
    {ZC_BENCH_CASE_DEVICE_WRITE_16B, "device.write.16b"},
    {ZC_BENCH_CASE_MANAGED_FIRST_TOUCH, "managed.first_touch"},
    {ZC_BENCH_CASE_MANAGED_PREFETCH, "managed.prefetch"},
    {ZC_BENCH_CASE_MANAGED_PREFETCHED, "managed.prefetched"},
    {ZC_BENCH_CASE_MANAGED_ADVISED, "managed.advised"},
    {ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_H2D, "latency.copy.pageable.h2d"},
    {ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_D2H, "latency.copy.pageable.d2h"},
    {ZC_BENCH_CASE_LATENCY_COPY_PINNED_H2D, "latency.copy.pinned.h2d"},
    {ZC_BENCH_CASE_LATENCY_COPY_PINNED_D2H, "latency.copy.pinned.d2h"},
    {ZC_BENCH_CASE_LATENCY_LAUNCH, "latency.launch"},
    {ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PINNED, "latency.roundtrip.pinned"},
    {ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PAGEABLE, "latency.roundtrip.pageable"},
    {ZC_BENCH_CASE_LATENCY_GPU_READ_HOST, "latency.gpu_read.host"},
    {ZC_BENCH_CASE_LATENCY_GPU_READ_DEVICE, "latency.gpu_read.device"},
    {ZC_BENCH_CASE_LATENCY_PINGPONG, "latency.pingpong"},
    {ZC_BENCH_CASE_LATENCY_PINGPONG_ACQUIRE, "latency.pingpong.acquire"},
    {ZC_BENCH_CASE_CROSSOVER_READ_K, "crossover.read_k"},
    {ZC_BENCH_CASE_OVERLAP_PIPELINE, "overlap.pipeline"},
    {ZC_BENCH_CASE_ALLOC_COST, "alloc.cost"},
    {ZC_BENCH_CASE_MULTIGPU_H2D_ALL, "multigpu.h2d.all"},
    {ZC_BENCH_CASE_MULTIGPU_D2H_ALL, "multigpu.d2h.all"},
    {ZC_BENCH_CASE_MULTIGPU_PEER_COPY, "multigpu.peer.copy"},
    {ZC_BENCH_CASE_MULTIGPU_PEER_READ, "multigpu.peer.read"},
    {ZC_BENCH_CASE_MULTIGPU_PEER_WRITE, "multigpu.peer.write"},
    {ZC_BENCH_CASE_MANAGED_TRANSFER, "managed.transfer"},
    {ZC_BENCH_CASE_DEVICE_READ_STRIDED, "device.read.strided"},
    {ZC_BENCH_CASE_DEVICE_READ_RANDOM, "device.read.random"},
    {ZC_BENCH_CASE_DEVICE_WRITE_STRIDED, "device.write.strided"},
    {ZC_BENCH_CASE_DEVICE_WRITE_RANDOM, "device.write.random"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_WALK_STRIDED, "zerocopy.read.walk-strided"},
    {ZC_BENCH_CASE_ZEROCOPY_READ_WALK_RANDOM, "zerocopy.read.walk-random"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_STRIDED, "zerocopy.write.walk-strided"},
    {ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_RANDOM, "zerocopy.write.walk-random"},
    {ZC_BENCH_CASE_PIN_FLOOR, "pin.floor"},
    {ZC_BENCH_CASE_PIN_COST, "pin.cost"},
    {ZC_BENCH_CASE_BLOCKS_H2D, "blocks.h2d"},
    {ZC_BENCH_CASE_BLOCKS_D2H, "blocks.d2h"},
    {ZC_BENCH_CASE_BLOCKS_BIDIR, "blocks.bidir"},
    {ZC_BENCH_CASE_BLOCKS_BESIDE, "blocks.beside"},
};

int main(void)
{
    int failures = 0;
    size_t n = sizeof zc__expected / sizeof zc__expected[0];
    if (n != ZC_BENCH_CASE_ID_COUNT || zc_bench_case_count() != ZC_BENCH_CASE_ID_COUNT) {
        fprintf(stderr, "FAIL: %zu names, %d ids, %zu cases\n", n, (int)ZC_BENCH_CASE_ID_COUNT,
                zc_bench_case_count());
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const zc_bench_case_info *info = zc_bench_case_at((size_t)zc__expected[i].id);
        zc_bench_case_id id = ZC_BENCH_CASE_ID_COUNT;
        if (info == NULL || strcmp(info->key, zc__expected[i].key) != 0) {
            fprintf(stderr, "FAIL: id %d is '%s', expected '%s'\n", (int)zc__expected[i].id,
                    info != NULL ? info->key : "(none)", zc__expected[i].key);
            failures++;
        }
        if (zc_bench_case_id_of(zc__expected[i].key, &id) != ZC_OK || id != zc__expected[i].id) {
            fprintf(stderr, "FAIL: zc_bench_case_id_of('%s') gave %d\n", zc__expected[i].key,
                    (int)id);
            failures++;
        }
    }
    zc_bench_case_id id;
    if (zc_bench_case_id_of("copy.h2d", &id) != ZC_ERR_NOT_FOUND) {
        fprintf(stderr, "FAIL: a key prefix found a case\n");
        failures++;
    }
    if (zc_bench_case_id_of(NULL, &id) != ZC_ERR_INVALID_ARG) {
        fprintf(stderr, "FAIL: NULL key accepted\n");
        failures++;
    }
    printf("%zu case names checked, %d failures\n", n, failures);
    return failures == 0 ? 0 : 1;
}
