#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""KV-cache blocks moved between a GPU cache and a pinned host pool, as an inference server swaps
them out and in, three ways that compute the same result:

  torch-index  as people write it with PyTorch alone: swap-out
               host_pool.index_copy_(0, host_idx, gpu_cache.index_select(0, dev_idx).cpu()),
               swap-in gpu_cache.index_copy_(0, dev_idx,
               host_pool.index_select(0, host_idx).to("cuda", non_blocking=True));
  torch-loop   a loop of copy_(non_blocking=True), one block at a time;
  mover-*      zerocopy.Mover, one move on a side stream: auto with the library's placeholder
               costs (mover-auto), auto with the measured profile of --profile FILE
               (mover-auto-measured), and each engine forced (mover-copy, mover-batch,
               mover-kernel).

Each block size and count is moved to the host, to the device, and both at once (the two lists
disjoint, as a server evicts some blocks while others come back). The cache is one tensor
[blocks, block_bytes] (bf16, or uint8 with --dtype uint8) viewed from one GPU allocation, the pool
the same in one pinned allocation; both are filled once with seeded bytes. Before every run the
destination blocks are zeroed (untimed; the host's by copies from the GPU, as a swap-out leaves
them), so that a move that did not happen cannot pass for one that did. A run is timed as wall
time between two torch.cuda.synchronize() calls (the PyTorch ways do host work that CUDA events
on one stream would not see); seconds is the median of --runs timed runs after --warmup untimed
ones, GB/s the bytes moved (both directions counted) over it, 1e9 bytes a GB. After the last run
the destination blocks, in index order, are hashed (SHA-256 of their bytes with their shape and
dtype): every way must give the digest of the source blocks, which is torch-index's.

Prints one JSON line per (block size, count, direction, way) ("record": "way"), then one per
(block size, count, direction) comparing the mover's choice with the best PyTorch way
("record": "comparison"). Exits 0; 1 when a digest differs from torch-index's (or from the
sources'); 3 without torch or a GPU, printing why (zc's "no GPU" code).

    python3 bench/workloads/torch_kv_mover.py [--sizes 16K,64K,256K,2M] [--counts 256,1024,4096]
        [--directions to_host,to_device,both] [--profile blocks.json] [--quick]
"""
import argparse
import json
import statistics
import sys
import time

sys.dont_write_bytecode = True
import torch_common  # noqa: E402 - after the line above, so that no __pycache__ is written

NAME = "torch_kv_mover"
NO_GPU = 3
TIMING = "wall time between two torch.cuda.synchronize() calls"
DIRECTIONS = ("to_host", "to_device", "both")
ENGINES = ("copy", "batch", "kernel")
TORCH_WAYS = ("torch-index", "torch-loop")
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    """A byte count: 4096, 16K, 2M, 1G (powers of 1024)."""
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = text[-1:] if text[-1:] in UNITS and text[-1:] else ""
    try:
        value = int(text[:-1] if unit else text) * UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (4096, 16K, 2M, 1G)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a size is 1 byte or more")
    return value


def size_list(text):
    return [parse_size(t) for t in text.split(",") if t.strip()]


def count_list(text):
    try:
        counts = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of counts") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: counts are 1 or more")
    return counts


def direction_list(text):
    found = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in found if t not in DIRECTIONS]
    if bad or not found:
        raise argparse.ArgumentTypeError(f"{text!r}: directions are {', '.join(DIRECTIONS)}")
    return found


def size_name(b):
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def emit(line):
    print(json.dumps(line), flush=True)


def skip(why, name=NAME):
    """Says why nothing can run here, as the one line, and exits 3 (no GPU)."""
    emit({"workload": name, "record": "skipped", "skipped": why})
    sys.exit(NO_GPU)


def torch_or_skip(name=NAME):
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any reason torch cannot load here is a skip
        skip(f"torch cannot be imported: {error}", name)
    if not torch.cuda.is_available():
        skip("torch sees no GPU", name)
    return torch


def zerocopy_or_fail(name=NAME):
    """The zerocopy package; it failing to load where torch sees a GPU is an error, not a skip."""
    try:
        import zerocopy
    except ImportError as error:
        sys.exit(f"{name}: zerocopy cannot be imported (PYTHONPATH=python and LIBZEROCOPY_PATH "
                 f"pointing at a built libzerocopy.so): {error}")
    if zerocopy.device_count() == 0:
        skip(f"zerocopy sees no GPU: {zerocopy.info().error or 'no CUDA device'}", name)
    return zerocopy


def movers(zerocopy, torch, profile, name=NAME):
    """The movers by way name: "auto" on the placeholders, "auto-measured" on --profile's fit."""
    device = torch.cuda.current_device()
    out = {"auto": zerocopy.Mover(device=device)}
    if profile:
        try:
            out["auto-measured"] = zerocopy.Mover(device=device, profile=profile)
        except (zerocopy.Error, ValueError, OSError) as error:
            sys.exit(f"{name}: --profile {profile}: no measured profile from it: {error}")
    return out


class Arena:
    """One GPU allocation and one pinned host allocation of nbytes each, filled once with seeded
    bytes, from which every block size's cache and pool are viewed (no allocation per move, as
    an inference server allocates its cache and pool once)."""

    def __init__(self, torch, nbytes, seed):
        generator = torch.Generator().manual_seed(seed)
        base = torch_common.random_base(torch, generator, torch.uint8)
        self.nbytes = nbytes
        self.device = torch_common.patterned(torch, (nbytes,), base, generator).to("cuda")
        self.host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        self.host.copy_(torch_common.patterned(torch, (nbytes,), base, generator))

    def views(self, torch, block_bytes, blocks, dtype):
        """(cache, pool): [blocks, block_bytes] tensors of dtype over the arena's first bytes."""
        n = block_bytes * blocks
        if n > self.nbytes:
            raise ValueError(f"{blocks} blocks of {block_bytes} bytes exceed the arena")
        dt = getattr(torch, dtype)
        cache = self.device[:n].view(blocks, block_bytes).view(dt)
        pool = self.host[:n].view(blocks, block_bytes).view(dt)
        return cache, pool


class Move:
    """The block numbers of one move of count blocks each way, drawn from a seeded generator:
    to_host (GPU sources, host destinations) and to_device (host sources, GPU destinations),
    disjoint on each side, so that both directions can move at once. Each list is kept as a
    CPU tensor (zerocopy and the host side of index_*), a CUDA tensor (the GPU side of index_*)
    and a list of ints (the per-block loop)."""

    def __init__(self, torch, count, blocks, seed):
        generator = torch.Generator().manual_seed(seed)
        dev = torch.randperm(blocks, generator=generator)
        host = torch.randperm(blocks, generator=generator)
        self.count = count
        self.dev_src, self.host_dst = dev[:count], host[:count]
        self.host_src, self.dev_dst = host[count:2 * count], dev[count:2 * count]
        self.dev_src_cuda = self.dev_src.to("cuda")
        self.dev_dst_cuda = self.dev_dst.to("cuda")
        self.lists = {name: getattr(self, name).tolist()
                      for name in ("dev_src", "host_dst", "host_src", "dev_dst")}


def has(direction, which):
    return direction in (which, "both")


def reset(torch, cache, pool, mv, direction):
    """Zero the destination blocks (untimed), each side as a move writes it: the GPU's by the
    GPU, the host's by copies from a zero block on the GPU. Zeroed by the CPU, the host blocks'
    cache lines would still be dirty in the CPU's caches when the timed move wrote them, a state
    an offload does not meet (a pool's blocks are last written by the copy that swapped them
    out) and which slowed it: the batch of 344 KiB x174 to the host ran at 26.2 GB/s against
    36.9 on the H100 (bench/results/h100-20261206f)."""
    if has(direction, "to_host"):
        zero = torch.zeros_like(pool[0], device="cuda")
        for d in mv.lists["host_dst"]:
            pool[d].copy_(zero, non_blocking=True)
    if has(direction, "to_device"):
        cache.index_fill_(0, mv.dev_dst_cuda, 0)


def torch_index(torch, cache, pool, mv, direction):
    """As people write it: gather, copy across, scatter."""
    if has(direction, "to_host"):
        pool.index_copy_(0, mv.host_dst, cache.index_select(0, mv.dev_src_cuda).cpu())
    if has(direction, "to_device"):
        cache.index_copy_(0, mv.dev_dst_cuda,
                          pool.index_select(0, mv.host_src).to("cuda", non_blocking=True))


def torch_loop(torch, cache, pool, mv, direction):
    """One copy_(non_blocking=True) per block, on the current stream."""
    if has(direction, "to_host"):
        for s, d in zip(mv.lists["dev_src"], mv.lists["host_dst"]):
            pool[d].copy_(cache[s], non_blocking=True)
    if has(direction, "to_device"):
        for s, d in zip(mv.lists["host_src"], mv.lists["dev_dst"]):
            cache[d].copy_(pool[s], non_blocking=True)


def mover_move(torch, mover, engine, stream, cache, pool, mv, direction):
    """One zerocopy move on a side stream, after the current stream's work; its MoveChoice."""
    stream.wait_stream(torch.cuda.current_stream())
    return mover.move(cache, pool,
                      to_host=(mv.dev_src, mv.host_dst) if has(direction, "to_host") else None,
                      to_device=(mv.host_src, mv.dev_dst) if has(direction, "to_device") else None,
                      engine=engine, stream=stream)


def timed(torch, before, run, warmup, runs, started=None, wait=None):
    """before() untimed, then run() between two synchronizations: warmup times untimed, then runs
    times timed. Returns (seconds of each timed run, run()'s last result). started(), when given,
    runs after the first synchronization, untimed (work to keep running beside run()); wait(start),
    when given, returns once run()'s work is seen complete, in place of the second
    synchronization; the GPU is synchronized after the clock stops either way."""
    times, result = [], None
    for i in range(warmup + runs):
        before()
        torch.cuda.synchronize()
        if started is not None:
            started()
        start = time.perf_counter()
        result = run()
        if wait is None:
            torch.cuda.synchronize()
        else:
            wait(start)
        elapsed = time.perf_counter() - start
        torch.cuda.synchronize()
        if i >= warmup:
            times.append(elapsed)
    return times, result


def blocks_digest(torch, direction, to_host, to_device):
    """The blocks each direction names, (tensor, index) each, in index order, hashed with their
    shapes and dtypes."""
    named = [(name, t.index_select(0, idx)) for name, (t, idx) in
             (("to_host", to_host), ("to_device", to_device)) if has(direction, name)]
    return torch_common.digest_tensors(torch, named)


def result_digest(torch, cache, pool, mv, direction):
    """The destination blocks in index order."""
    return blocks_digest(torch, direction, (pool, mv.host_dst), (cache, mv.dev_dst_cuda))


def source_digest(torch, cache, pool, mv, direction):
    """What result_digest must give: the source blocks in index order."""
    return blocks_digest(torch, direction, (cache, mv.dev_src_cuda), (pool, mv.host_src))


def plan_combos(sizes, counts, max_bytes):
    """(block size, count, count asked) for every size and count, a count cut to max_bytes a
    direction (at least one block); the same move asked twice is measured once."""
    seen, combos = set(), []
    for size in sizes:
        for asked in counts:
            count = max(1, min(asked, max_bytes // size))
            if (size, count) not in seen:
                seen.add((size, count))
                combos.append((size, count, asked))
    return combos


def options():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=size_list, default=None,
                   help="block sizes (default 16K,64K,256K,2M; --quick 64K,2M)")
    p.add_argument("--counts", type=count_list, default=None,
                   help="blocks a direction (default 256,1024,4096; --quick 256)")
    p.add_argument("--directions", type=direction_list, default=list(DIRECTIONS),
                   help="to_host, to_device, both (default all three)")
    p.add_argument("--max-bytes", type=parse_size, default=None,
                   help="bytes a direction at most; larger counts are cut (default 256M; --quick "
                        "64M)")
    p.add_argument("--dtype", choices=("bfloat16", "uint8"), default="bfloat16",
                   help="the cache's element type (default bfloat16; every way moves bytes)")
    p.add_argument("--profile", help="a zc bench --case blocks --json document: the measured "
                                     "profile of mover-auto-measured")
    p.add_argument("--ways", default=None,
                   help="the ways to run, comma-separated (default all: torch-index, torch-loop, "
                        "mover-auto, mover-auto-measured with --profile, mover-copy, mover-batch, "
                        "mover-kernel)")
    p.add_argument("--quick", action="store_true", help="smaller moves: a smoke test")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    p.add_argument("--runs", type=int, default=5, help="timed runs (default 5, at least 3)")
    p.add_argument("--seed", type=int, default=20261206)
    args = p.parse_args()
    if args.runs < 3:
        p.error("--runs must be at least 3: the median of fewer says little")
    if args.warmup < 0:
        p.error("--warmup cannot be negative")
    args.sizes = args.sizes or ([64 << 10, 2 << 20] if args.quick
                                else [16 << 10, 64 << 10, 256 << 10, 2 << 20])
    args.counts = args.counts or ([256] if args.quick else [256, 1024, 4096])
    # 256 MiB a direction: PyTorch's index_select of pinned host blocks moves 1.3-2.3 GB/s on an
    # H100, so a 1 GiB move took seconds a way and the whole run 7 minutes.
    args.max_bytes = args.max_bytes or ((64 if args.quick else 256) << 20)
    if args.dtype == "bfloat16" and any(s % 2 for s in args.sizes):
        p.error("bfloat16 blocks are a whole number of 2-byte elements: give even sizes")
    every = list(TORCH_WAYS) + ["mover-auto"] + (["mover-auto-measured"] if args.profile else []) \
        + [f"mover-{e}" for e in ENGINES]
    if args.ways:
        asked = [w.strip() for w in args.ways.split(",") if w.strip()]
        bad = [w for w in asked if w not in every]
        if bad:
            p.error(f"--ways: {', '.join(bad)} not among {', '.join(every)}")
        if "torch-index" not in asked:
            asked.insert(0, "torch-index")  # the reference every digest is held to
        args.ways = asked
    else:
        args.ways = every
    return args


def run_way(torch, ctx, way, direction):
    """Time one way; a dict of what it did (its MoveChoice's engine for the mover), or raise."""
    cache, pool, mv = ctx["cache"], ctx["pool"], ctx["move"]
    info = {}
    if way == "torch-index":
        def run():
            return torch_index(torch, cache, pool, mv, direction)
    elif way == "torch-loop":
        def run():
            return torch_loop(torch, cache, pool, mv, direction)
    else:
        kind = way.removeprefix("mover-")
        mover = ctx["movers"][kind] if kind.startswith("auto") else ctx["movers"]["auto"]
        engine = "auto" if kind.startswith("auto") else kind

        def run():
            return mover_move(torch, mover, engine, ctx["stream"], cache, pool, mv, direction)
    times, result = timed(torch, lambda: reset(torch, cache, pool, mv, direction), run,
                          ctx["warmup"], ctx["runs"])
    if result is not None:  # a MoveChoice
        info = {"engine": result.engine, "calls": result.calls,
                "predicted_us": {k: round(v, 2) for k, v in result.predicted_us.items()}}
    return times, info


def measure_combo(torch, zerocopy, ctx, size, count, asked, direction, args):
    """Every way for one move; returns (lines, failures)."""
    cache, pool, mv = ctx["cache"], ctx["pool"], ctx["move"]
    nbytes = size * count * (2 if direction == "both" else 1)
    common = {"workload": NAME, "block_bytes": size, "count": count, "direction": direction,
              "dtype": args.dtype, "bytes": nbytes}
    if asked != count:
        common["count_asked"] = asked
    want = source_digest(torch, cache, pool, mv, direction)
    lines, failures, digests = [], [], {}
    for way in args.ways:
        line = dict(common, record="way", way=way)
        try:
            times, info = run_way(torch, ctx, way, direction)
        except zerocopy.UnsupportedError as error:
            line["skipped"] = f"the engine cannot reach this memory here: {error.detail or error}"
            lines.append(line)
            emit(line)
            continue
        median = statistics.median(times)
        digest = result_digest(torch, cache, pool, mv, direction)
        digests[way] = digest
        line.update(seconds=median, runs=times, gbps=nbytes / median / 1e9, digest=digest,
                    timing=TIMING, warmup=args.warmup, **info)
        lines.append(line)
        emit(line)
        if digest != want:
            failures.append(f"{size_name(size)} x{count} {direction}, {way}: digest {digest[:12]} "
                            f"is not the sources' {want[:12]}")
    reference = digests.get("torch-index")
    same = all(d == reference for d in digests.values())
    if not same:
        failures.append(f"{size_name(size)} x{count} {direction}: digests differ from "
                        f"torch-index's: " + ", ".join(w for w, d in digests.items()
                                                       if d != reference))
    by_way = {x["way"]: x for x in lines if "gbps" in x}
    best_torch = max((w for w in TORCH_WAYS if w in by_way), key=lambda w: by_way[w]["gbps"],
                     default=None)
    comparison = dict(common, record="comparison", digests_same=same,
                      gbps={w: x["gbps"] for w, x in by_way.items()},
                      best_torch_way=best_torch)
    for auto in ("mover-auto", "mover-auto-measured"):
        if auto in by_way and best_torch:
            comparison[f"{auto}/best_torch"] = by_way[auto]["gbps"] / by_way[best_torch]["gbps"]
            comparison[f"{auto}_engine"] = by_way[auto]["engine"]
    emit(comparison)
    return failures


def main():
    args = options()
    torch = torch_or_skip()
    zerocopy = zerocopy_or_fail()
    combos = plan_combos(args.sizes, args.counts, args.max_bytes)
    # Each side holds twice the largest move's blocks: both directions at once read one half
    # and write the other.
    arena_bytes = max(2 * size * count for size, count, _ in combos)
    start = time.perf_counter()
    arena = Arena(torch, arena_bytes, args.seed)
    setup = time.perf_counter() - start
    ctx = {"movers": movers(zerocopy, torch, args.profile), "stream": torch.cuda.Stream(),
           "warmup": args.warmup, "runs": args.runs}
    emit({"workload": NAME, "record": "setup", "arena_bytes": arena_bytes,
          "setup_seconds": setup, "device": torch.cuda.get_device_name(),
          "torch": torch.__version__, "zerocopy": zerocopy.__version__,
          "profile": args.profile, "profile_measured": "auto-measured" in ctx["movers"],
          "timing": TIMING, "ways": args.ways})
    failures = []
    for n, (size, count, asked) in enumerate(combos):
        ctx["cache"], ctx["pool"] = arena.views(torch, size, 2 * count, args.dtype)
        ctx["move"] = Move(torch, count, 2 * count, args.seed + n)
        for direction in args.directions:
            failures += measure_combo(torch, zerocopy, ctx, size, count, asked, direction, args)
    for mover in ctx["movers"].values():
        mover.close()
    for failure in failures:
        print(f"{NAME}: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
