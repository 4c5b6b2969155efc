#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The block mover's choice held to measurement over random moves: is the engine that auto picks
the fastest, or within 10% of it?

--workloads N random moves (seeded): a block size log-uniform from 4 KiB to 4 MiB, rounded to
4 KiB; a count log-uniform from 16 to 4096 blocks, cut so that a direction moves at most
--max-bytes (512 MiB by default); a direction, to_device, to_host or both (the two lists
disjoint). Each move runs between a GPU cache and a pinned host pool (one allocation each,
viewed per block size, as in torch_kv_mover.py) with every engine the mover can reach forced
(copy, batch, kernel), then with auto on the library's placeholder costs and, with --profile
FILE, on the profile fitted to that zc bench --case blocks document. A run is timed as wall
time between two torch.cuda.synchronize() calls; a way's figure is the median of --runs timed
runs after --warmup untimed ones; before each run the destination blocks are zeroed (untimed;
the host's by copies from the GPU, torch_kv_mover.reset),
and after each way they are compared with the source blocks (a mismatch fails the run).

With --beside-share F, a share F of the moves (drawn from a generator of their own, so the moves
are the same whatever F) runs beside a memory-bound kernel on a stream of its own, copies of a
256 MiB tensor kept queued for as long as the move runs, as a model's kernels would run beside
an offload; such a run is timed from the move's start to its completion seen by polling an event
on its stream (the kernel keeps running), and the move's line says "beside": true.

Auto is judged by the engine it chose: right when that engine's forced median is within 10% of
the fastest forced median (time <= 1.1x the least). Prints one JSON line per move ("record":
"workload": each way's seconds and GB/s, the fastest engine, each auto's engine, its own time
and the judgement) and a summary line ("record": "summary": the share judged right, for the
placeholders and the measured profile, against the target of 90% of the moves, and with
--beside-share the same for the moves run alone and beside the kernel). Exits 0 (a
missed target is reported, not a failure); 1 when a move's data came back wrong; 3 without torch
or a GPU, printing why.

    python3 bench/workloads/blocks_validate.py [--workloads 100] [--seed 50] [--profile FILE]
        [--beside-share 0.5]
"""
import argparse
import math
import random
import statistics
import sys
import time

sys.dont_write_bytecode = True
import torch_kv_mover as kv  # noqa: E402 - after the line above, so that no __pycache__ is written

NAME = "blocks_validate"
WITHIN = 1.10  # auto's engine right when its time is at most this times the fastest engine's
TARGET = 0.90  # of the moves
KiB = 1 << 10
BESIDE_LIMIT_S = 10.0  # a move beside the kernel that takes longer fails the run


class Beside:
    """A memory-bound kernel kept running on a stream of its own while a move is timed: copies
    of a 256 MiB tensor into another, queued a few at a time and topped up while the move runs,
    so that the move shares the GPU's memory and SMs with it."""

    COPIES = 4  # queued at a time

    def __init__(self, torch, nbytes=256 << 20):
        self.torch = torch
        self.src = torch.ones(nbytes, dtype=torch.uint8, device="cuda")
        self.dst = torch.empty_like(self.src)
        self.stream = torch.cuda.Stream()
        self.queued = torch.cuda.Event()

    def top_up(self):
        with self.torch.cuda.stream(self.stream):
            for _ in range(self.COPIES):
                self.dst.copy_(self.src)
        self.queued.record(self.stream)


def timed_beside(torch, beside, stream, before, run, warmup, runs):
    """kv.timed's runs beside the kernel: before() untimed, the kernel started, run() timed from
    its call to its completion on stream (an event polled, the kernel topped up meanwhile), the
    kernel drained after. Returns (seconds of each timed run, run()'s last result)."""
    done = torch.cuda.Event()

    def started():
        beside.top_up()
        beside.top_up()

    def wait(start):
        done.record(stream)
        while not done.query():
            if time.perf_counter() - start > BESIDE_LIMIT_S:
                torch.cuda.synchronize()
                raise RuntimeError(f"a move beside the kernel took more than {BESIDE_LIMIT_S} s")
            if beside.queued.query():
                beside.top_up()

    return kv.timed(torch, before, run, warmup, runs, started=started, wait=wait)


def draw(rng, max_bytes):
    """One random move: (block bytes, count, direction)."""
    size = max(4 * KiB, round(2 ** rng.uniform(12, 22) / (4 * KiB)) * 4 * KiB)
    count = int(round(2 ** rng.uniform(4, 12)))
    count = max(1, min(count, max_bytes // size))
    return size, count, rng.choice(kv.DIRECTIONS)


def plan_moves(seed, workloads, max_bytes, beside_share):
    """The random moves, and for each whether it runs beside the kernel: the flags come from a
    generator of their own, so that the moves are the same whatever the share."""
    rng = random.Random(seed)
    moves = [draw(rng, max_bytes) for _ in range(workloads)]
    beside_rng = random.Random(seed + 1)
    return moves, [beside_rng.random() < beside_share for _ in moves]


def check(torch, cache, pool, mv, direction):
    """Whether the destination blocks hold the source blocks, byte for byte (bf16 blocks of
    random bytes hold NaNs, which torch.equal of the values would call unequal)."""
    ok = True
    if kv.has(direction, "to_host"):
        ok &= torch.equal(pool.index_select(0, mv.host_dst).view(torch.uint8),
                          cache.index_select(0, mv.dev_src_cuda).cpu().view(torch.uint8))
    if kv.has(direction, "to_device"):
        ok &= torch.equal(cache.index_select(0, mv.dev_dst_cuda).view(torch.uint8),
                          pool.index_select(0, mv.host_src).to("cuda").view(torch.uint8))
    return bool(ok)


def options():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workloads", type=int, default=100, help="random moves (default 100)")
    p.add_argument("--seed", type=int, default=50, help="the moves' seed (default 50)")
    p.add_argument("--max-bytes", type=kv.parse_size, default=128 << 20,
                   help="bytes a direction at most (default 128M)")
    p.add_argument("--profile", help="a zc bench --case blocks --json document: auto is judged "
                                     "on its fitted profile too")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs first (default 1)")
    p.add_argument("--runs", type=int, default=3, help="timed runs (default 3, at least 3)")
    p.add_argument("--dtype", choices=("bfloat16", "uint8"), default="uint8",
                   help="the cache's element type (default uint8)")
    p.add_argument("--beside-share", type=float, default=0.0,
                   help="the share of the moves run beside a memory-bound kernel (0 to 1; "
                        "default 0)")
    args = p.parse_args()
    if not 0.0 <= args.beside_share <= 1.0:
        p.error("--beside-share is a share of the moves: 0 to 1")
    if args.workloads < 1:
        p.error("--workloads must be at least 1")
    if args.runs < 3:
        p.error("--runs must be at least 3: the median of fewer says little")
    if args.warmup < 0:
        p.error("--warmup cannot be negative")
    if args.max_bytes < 4 * KiB:
        p.error("--max-bytes must hold one 4 KiB block")
    return args


def judge(chosen, seconds):
    """(right?, the chosen engine's time over the fastest's) from the forced medians."""
    fastest = min(seconds.values())
    ratio = seconds[chosen] / fastest if chosen in seconds else math.inf
    return ratio <= WITHIN, ratio


def judgement(right, judged):
    """The share of judged moves whose choice was right, held to the target."""
    share = right / judged if judged else None
    return {"right": right, "judged": judged, "share": share,
            "target_met": share is not None and share >= TARGET}


def measure(torch, zerocopy, ctx, direction, way, mover, engine):
    """One way's median seconds and its MoveChoice; None when the engine cannot reach the memory."""
    cache, pool, mv = ctx["cache"], ctx["pool"], ctx["move"]

    def run():
        return kv.mover_move(torch, mover, engine, ctx["stream"], cache, pool, mv, direction)

    def before():
        kv.reset(torch, cache, pool, mv, direction)

    try:
        if ctx["beside_now"]:
            times, choice = timed_beside(torch, ctx["beside"], ctx["stream"], before, run,
                                         ctx["warmup"], ctx["runs"])
        else:
            times, choice = kv.timed(torch, before, run, ctx["warmup"], ctx["runs"])
    except zerocopy.UnsupportedError:
        return None
    if not check(torch, cache, pool, mv, direction):
        ctx["failures"].append(f"workload {ctx['index']}: {way} moved the wrong bytes")
    return statistics.median(times), choice


def one_workload(torch, zerocopy, ctx, size, count, direction):
    nbytes = size * count * (2 if direction == "both" else 1)
    seconds, unreachable = {}, []
    default = ctx["movers"]["auto"]
    for engine in kv.ENGINES:
        got = measure(torch, zerocopy, ctx, direction, engine, default, engine)
        if got is None:
            unreachable.append(engine)
        else:
            seconds[engine] = got[0]
    line = {"workload": NAME, "record": "workload", "index": ctx["index"], "block_bytes": size,
            "count": count, "direction": direction, "beside": ctx["beside_now"], "bytes": nbytes,
            "seconds": seconds, "gbps": {e: nbytes / s / 1e9 for e, s in seconds.items()},
            "unreachable": unreachable}
    if not seconds:
        ctx["failures"].append(f"workload {ctx['index']}: no engine reached the memory")
        return line
    line["fastest"] = min(seconds, key=seconds.get)
    for name, mover in ctx["movers"].items():
        got = measure(torch, zerocopy, ctx, direction, name, mover, "auto")
        if got is None:
            ctx["failures"].append(f"workload {ctx['index']}: {name} was refused")
            continue
        auto_seconds, choice = got
        right, ratio = judge(choice.engine, seconds)
        line[name] = {"engine": choice.engine, "seconds": auto_seconds,
                      "gbps": nbytes / auto_seconds / 1e9, "right": right,
                      "chosen_over_fastest": ratio,
                      "predicted_us": {k: round(v, 2) for k, v in choice.predicted_us.items()}}
    return line


def main():
    args = options()
    torch = kv.torch_or_skip(NAME)
    zerocopy = kv.zerocopy_or_fail(NAME)
    moves, beside_flags = plan_moves(args.seed, args.workloads, args.max_bytes, args.beside_share)
    arena_bytes = max(2 * size * count for size, count, _ in moves)
    start = time.perf_counter()
    arena = kv.Arena(torch, arena_bytes, args.seed)
    ctx = {"movers": kv.movers(zerocopy, torch, args.profile, NAME), "stream": torch.cuda.Stream(),
           "warmup": args.warmup, "runs": args.runs, "failures": [],
           "beside": Beside(torch) if any(beside_flags) else None}
    kv.emit({"workload": NAME, "record": "setup", "arena_bytes": arena_bytes,
             "setup_seconds": time.perf_counter() - start,
             "device": torch.cuda.get_device_name(), "torch": torch.__version__,
             "zerocopy": zerocopy.__version__, "profile": args.profile, "seed": args.seed,
             "workloads": args.workloads, "timing": kv.TIMING, "within": WITHIN,
             "beside_share": args.beside_share,
             "beside_timing": "from the move's call to an event on its stream seen complete, the "
                              "kernel beside it running"})
    tally = {(name, beside): [0, 0] for name in ctx["movers"] for beside in (False, True)}
    for index, (size, count, direction) in enumerate(moves):
        ctx["index"] = index
        ctx["beside_now"] = beside_flags[index]
        ctx["cache"], ctx["pool"] = arena.views(torch, size, 2 * count, args.dtype)
        ctx["move"] = kv.Move(torch, count, 2 * count, args.seed * 1000 + index)
        line = one_workload(torch, zerocopy, ctx, size, count, direction)
        kv.emit(line)
        for name in ctx["movers"]:
            if name in line:
                tally[name, line["beside"]][0] += line[name]["right"]
                tally[name, line["beside"]][1] += 1
    summary = {"workload": NAME, "record": "summary", "workloads": args.workloads,
               "seed": args.seed, "within": WITHIN, "target": TARGET,
               "beside_share": args.beside_share, "failures": ctx["failures"]}
    for name in ctx["movers"]:
        summary[name] = judgement(tally[name, False][0] + tally[name, True][0],
                                  tally[name, False][1] + tally[name, True][1])
        if args.beside_share > 0:
            summary[name]["alone"] = judgement(*tally[name, False])
            summary[name]["beside"] = judgement(*tally[name, True])
    kv.emit(summary)
    for mover in ctx["movers"].values():
        mover.close()
    for failure in ctx["failures"]:
        print(f"{NAME}: {failure}", file=sys.stderr)
    return 1 if ctx["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
