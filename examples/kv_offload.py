#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A KV-cache offload loop as an inference engine writes one: blocks of a paged cache on the GPU
swapped out to a pinned host pool and others swapped back in, both in one call of zerocopy's
block mover on a side stream, with no copy of the cache made by Python.

    python3 examples/kv_offload.py [--steps 20] [--swap 128] [--engine auto]

Every block is checked at the end against the digest it had when it was made. Exits 0 when all
match, 1 on a mismatch, and 3 (as zc and the C examples do) without a GPU or PyTorch.
"""

import argparse
import collections
import ctypes
import hashlib
import random
import sys

NO_GPU = 3
# One block: 16 tokens of 8 heads of 128 bf16 values (32 KiB), as paged attention keeps it.
HEADS, TOKENS, DIM = 8, 16, 128
GPU_BLOCKS, HOST_BLOCKS = 1024, 2048


def digest(block):
    """sha256 of one block's bytes, read on the host (a GPU block is copied there first)."""
    block = block.cpu()
    return hashlib.sha256(ctypes.string_at(block.data_ptr(), block.numel() * block.element_size()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--swap", type=int, default=128, help="blocks out and in per step")
    p.add_argument("--engine", default="auto", help="auto, copy, batch or kernel")
    args = p.parse_args()
    if not 0 < args.swap <= GPU_BLOCKS // 4:
        p.error(f"--swap is 1 to {GPU_BLOCKS // 4} (the GPU slots free at the start)")
    try:
        import torch
    except ImportError:
        print("kv_offload: PyTorch is not installed for this python3: nothing to run")
        return NO_GPU
    if not torch.cuda.is_available():
        print("kv_offload: PyTorch sees no CUDA GPU: nothing to run")
        return NO_GPU
    import zerocopy

    cache = torch.randn(GPU_BLOCKS, HEADS, TOKENS, DIM, dtype=torch.bfloat16, device="cuda")
    pool = torch.empty(HOST_BLOCKS, HEADS, TOKENS, DIM, dtype=torch.bfloat16, pin_memory=True)
    block_bytes = cache[0].numel() * cache.element_size()

    # Where each block (a page of some sequence) lives: three quarters of the GPU slots hold one.
    in_use = GPU_BLOCKS * 3 // 4
    on_gpu = {b: b for b in range(in_use)}  # block -> GPU slot
    on_host = {}  # block -> host slot
    free_gpu, free_host = list(range(in_use, GPU_BLOCKS)), list(range(HOST_BLOCKS))
    made = {b: digest(cache[slot]).digest() for b, slot in on_gpu.items()}

    rng = random.Random(50)
    side = torch.cuda.Stream()
    timings, engines = [], collections.Counter()
    with zerocopy.Mover(device=torch.cuda.current_device()) as mover:
        for _ in range(args.steps):
            out = rng.sample(sorted(on_gpu), args.swap)  # chosen for eviction
            back = rng.sample(sorted(on_host), min(args.swap, len(on_host)))  # needed again
            out_from, out_to = [on_gpu.pop(b) for b in out], [free_host.pop() for _ in out]
            back_from, back_to = [on_host.pop(b) for b in back], [free_gpu.pop() for _ in back]

            side.wait_stream(torch.cuda.current_stream())  # the model's writes come first
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(side)
            choice = mover.move(cache, pool, to_host=(out_from, out_to),
                                to_device=(back_from, back_to) if back else None,
                                engine=args.engine, stream=side)
            end.record(side)
            torch.cuda.current_stream().wait_stream(side)  # and its reads of them come after

            # Slots freed now are written by later steps only, which the side stream runs after
            # this one: no block is ever read and written by the same move.
            on_host.update(zip(out, out_to))
            on_gpu.update(zip(back, back_to))
            free_gpu += out_from
            free_host += back_from
            timings.append((start, end, choice.bytes_to_host + choice.bytes_to_device))
            engines[choice.engine] += 1

    torch.cuda.synchronize()
    moved = sum(b for _, _, b in timings)
    ms = sum(s.elapsed_time(e) for s, e, _ in timings)
    used = ", ".join(f"{name} in {n} steps" for name, n in engines.items())
    predicted = ", ".join(f"{name} {us:.0f} us" for name, us in choice.predicted_us.items())
    print(f"kv_offload: {args.steps} steps of {args.swap} blocks of {block_bytes >> 10} KiB out "
          f"and in: engine {used} (the last step predicted {predicted})")
    print(f"kv_offload: {moved / 2**20:.1f} MiB in {ms:.2f} ms on the side stream: "
          f"{moved / (ms * 1e6):.1f} GB/s")

    bad = [b for b, slot in on_gpu.items() if digest(cache[slot]).digest() != made[b]]
    bad += [b for b, slot in on_host.items() if digest(pool[slot]).digest() != made[b]]
    if bad:
        print(f"kv_offload: {len(bad)} of {len(made)} blocks differ from what was made, "
              f"e.g. block {bad[0]}")
        return 1
    print(f"kv_offload: all {len(made)} blocks checked ({len(on_host)} on the host): all match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
