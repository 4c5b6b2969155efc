#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Probe: the mover's batch to the device with small blocks from PyTorch's pinned pool, on a side
# stream that waits on the current one (as the benchmarks call it) and on the current stream with
# no wait; host time of Mover.move and the whole run, median of 7 after 2.
import statistics
import sys
import time

sys.path.insert(0, "bench/workloads")
sys.dont_write_bytecode = True
import torch_kv_mover as kv  # noqa: E402

torch = kv.torch_or_skip("p50b")
zerocopy = kv.zerocopy_or_fail("p50b")
K = 1024
arena = kv.Arena(torch, 2 * 512 * 64 * K, 7)
mover = zerocopy.Mover(device=torch.cuda.current_device())
side = torch.cuda.Stream()
for size in (8 * K, 16 * K, 24 * K, 32 * K):
    cache, pool = arena.views(torch, size, 1024, "uint8")
    mv = kv.Move(torch, 512, 1024, size)
    for how in ("side-wait",):
        for engine in ("copy", "batch", "kernel"):
            total, host = [], []
            for i in range(9):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                if how == "side-wait":
                    side.wait_stream(torch.cuda.current_stream())
                stream = side
                mover.move(cache, pool, to_device=(mv.host_src, mv.dev_dst), engine=engine,
                           stream=stream)
                t1 = time.perf_counter()
                torch.cuda.synchronize()
                t2 = time.perf_counter()
                if i >= 2:
                    total.append(t2 - t0)
                    host.append(t1 - t0)
            t, h = statistics.median(total), statistics.median(host)
            print(f"{size // K:3d}K x512 to_device {how:11s} {engine:6s} total {t * 1e6:7.0f} us "
                  f"({size * 512 / t / 1e9:6.2f} GB/s) host {h * 1e6:7.0f} us", flush=True)
mover.close()
