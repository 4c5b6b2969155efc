# SPDX-License-Identifier: Apache-2.0
"""What every workload script shares: its options, the loop of warm-up and timed runs, the
digest of its result and the one JSON line it prints (bench/workloads/README.md)."""
import argparse
import hashlib
import json
import statistics
import sys
import time

VERSIONS = ("as-written", "hand-fixed")


def options(description):
    """The options every workload takes: --version, --quick, --warmup and --runs."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--version", choices=VERSIONS, default="as-written",
                        help="the code as people write it, or as an expert fixes it by hand")
    parser.add_argument("--quick", action="store_true",
                        help="smaller sizes: a smoke test, not a measurement")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (default 5, at least 3)")
    args = parser.parse_args()
    if args.runs < 3:
        parser.error("--runs must be at least 3: the median of fewer says little")
    if args.warmup < 0:
        parser.error("--warmup cannot be negative")
    return args


def skip(name, why):
    """Says why the workload cannot run here, as its one line, and exits 0: a missing framework
    or GPU is not a failure of the workload."""
    print(json.dumps({"workload": name, "skipped": why}), flush=True)
    sys.exit(0)


def clock():
    return time.perf_counter()


def measure(args, one_run):
    """Runs one_run args.warmup times untimed, then args.runs times. one_run times itself (each
    workload synchronizes its own way, and some leave untimed work between their phases) and
    returns a dict of phase name to seconds; a run's time is the sum of its phases."""
    for _ in range(args.warmup):
        one_run()
    return [one_run() for _ in range(args.runs)]


def report(name, args, phases, nbytes, digest, **extra):
    """Prints the workload's JSON line: the median run, every run, the rate over `nbytes` (every
    byte the timed phases move, both directions counted), the digest, and the median of each
    phase; `extra` adds fields of the workload's own (what the hand fix is, setup times)."""
    runs = [sum(p.values()) for p in phases]
    median = statistics.median(runs)
    line = {
        "workload": name,
        "version": args.version,
        "seconds": median,
        "runs": runs,
        "gbps": nbytes / median / 1e9,
        "bytes": nbytes,
        "digest": digest,
        "phases": {k: statistics.median(p[k] for p in phases) for k in phases[0]},
        "warmup": args.warmup,
        "quick": args.quick,
    }
    line.update(extra)
    print(json.dumps(line), flush=True)


class Digest:
    """SHA-256 over labelled byte buffers, in the order they are given: the label (a tensor's
    name, an array's index) is hashed too, so that a result in another order differs."""

    def __init__(self):
        self._hash = hashlib.sha256()

    def add(self, label, buffer):
        self._hash.update(f"{label}\0".encode())
        self._hash.update(buffer)

    def hexdigest(self):
        return self._hash.hexdigest()


def seeded_arrays(np, quick, seed, count=5):
    """The host arrays of the array-framework workloads: count uint8 arrays of 256 MiB (16 MiB
    with --quick) from a seeded generator, each its own writable copy."""
    size = (16 if quick else 256) << 20
    rng = np.random.default_rng(seed)
    return [np.frombuffer(rng.bytes(size), dtype=np.uint8).copy() for _ in range(count)]


def report_round_trips(name, args, phases, sent_arrays, got_arrays, **extra):
    """The array-framework workloads' end: each array brought back must be the one sent plus 1
    (incremented on the GPU), else the workload fails; the digest covers them in order, and
    the rate counts both directions."""
    import numpy as np

    digest = Digest()
    for i, (got, sent) in enumerate(zip(got_arrays, sent_arrays)):
        got = np.ascontiguousarray(got)
        if not np.array_equal(got, sent + np.uint8(1)):
            sys.exit(f"{name}: array {i} came back wrong")
        digest.add(f"array {i} {got.shape} {got.dtype}", got)
    total = 2 * sum(a.nbytes for a in sent_arrays)
    report(name, args, phases, total, digest.hexdigest(), **extra)
