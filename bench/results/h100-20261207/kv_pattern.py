# SPDX-License-Identifier: Apache-2.0
"""Probe: the KV swap's as-written pattern (one blocking copy per block, each waited for before
the next) with the host side pinned once, the best any cure that keeps blocking copies blocking
can do; beside the hand-fixed pattern (non_blocking, one synchronize per direction) and the
as-written code itself (.cpu(), .to("cuda") from pageable and from pinned blocks). 512 blocks
of 2 MiB each way, 2 warm-ups, 5 timed runs, median us per block out and in."""
import statistics
import time

import torch

count, elements = 512, 1 << 20
cache = torch.randn((count, elements), dtype=torch.bfloat16, device="cuda")
blocks = list(cache.unbind(0))
pool = torch.empty((count, elements), dtype=torch.bfloat16, pin_memory=True)
host = list(pool.unbind(0))


def timed(f):
    torch.cuda.synchronize()
    start = time.perf_counter()
    f()
    torch.cuda.synchronize()
    return time.perf_counter() - start


def copies(blocking):
    out = timed(lambda: [h.copy_(b, non_blocking=not blocking) for h, b in zip(host, blocks)])
    back = timed(lambda: [b.copy_(h, non_blocking=not blocking) for h, b in zip(host, blocks)])
    return out, back


def as_written(pinned_in):
    kept = {}
    out = timed(lambda: kept.update(h=[b.cpu() for b in blocks]))
    source = host if pinned_in else kept["h"]
    back = timed(lambda: kept.update(b=[h.to("cuda") for h in source]))
    return out, back


variants = (("blocking copy_ per block, pinned pool", lambda: copies(True)),
            ("non_blocking copy_, one sync (hand-fixed)", lambda: copies(False)),
            ("as written: .cpu(), .to(cuda) from it", lambda: as_written(False)),
            ("as written, .to(cuda) from the pinned pool", lambda: as_written(True)))
for name, f in variants:
    runs = [f() for _ in range(7)][2:]
    out = statistics.median(r[0] for r in runs) / count * 1e6
    back = statistics.median(r[1] for r in runs) / count * 1e6
    gbps = 2 * count * elements * 2 / statistics.median(r[0] + r[1] for r in runs) / 1e9
    print(f"{name}: out {out:.1f} us/block, in {back:.1f} us/block, {gbps:.2f} GB/s")
