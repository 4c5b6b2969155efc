# SPDX-License-Identifier: Apache-2.0
"""Pageable tensor copies as a PyTorch program makes them: CPU tensors (pageable, torch's
default) sent to the GPU with .to("cuda") and back with .cpu(), at several sizes. stdout holds
the results' digests only, so that a run under zc run can be compared with one without it;
the timings go to stderr as "torch SIZE h2d GBPS d2h GBPS"."""
import hashlib
import statistics
import sys
import time

import torch

assert torch.cuda.is_available(), "no GPU"
for size in (1 << 20, 16 << 20, 128 << 20):
    x = torch.arange(size, dtype=torch.int64).remainder_(251).to(torch.uint8)
    h2d, d2h = [], []
    for _ in range(6):
        torch.cuda.synchronize()
        t = time.perf_counter()
        y = x.to("cuda")
        torch.cuda.synchronize()
        h2d.append(time.perf_counter() - t)
        y.mul_(3).add_(1)
        torch.cuda.synchronize()
        t = time.perf_counter()
        z = y.cpu()
        d2h.append(time.perf_counter() - t)
    expect = (x.to(torch.int32) * 3 + 1).remainder(256).to(torch.uint8)
    assert torch.equal(z, expect), f"{size}: wrong result"
    print(size, hashlib.sha256(z.numpy().tobytes()).hexdigest()[:16])
    # A tensor zc run pinned in place must still look pageable to the program.
    print(size, "pinned", x.is_pinned())
    print(f"torch {size} h2d {size / statistics.median(h2d[1:]) / 1e9:.3f} "
          f"d2h {size / statistics.median(d2h[1:]) / 1e9:.3f}", file=sys.stderr)
