#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python package against what Python users reach for first (scripts/bench.d/70-python.sh):

1. pinning 1 GiB: zerocopy.Buffer.alloc(kind="pinned") (and a zerocopy.Pool hit) against
   torch.empty(pin_memory=True) and cupyx.empty_pinned, each cache emptied between repeats so
   every repeat pins anew; median and spread of the repeats; each buffer checked to be
   page-locked (zerocopy.pointer_info) and written and read back;
2. a 4 KiB frame round trip from Python: zerocopy.Stream in the zerocopy mode, one frame pushed
   and its filtered result pulled at a time, against the PyTorch loop a user writes (pinned
   tensors, copy to the GPU, the same FIR as a conv1d, copy back, synchronize); every result of
   both checked against numpy's FIR afterwards; p50/p99/p99.9/max in microseconds.

    bench_python.py OUT_DIR [--repeats N] [--frames N]   writes OUT_DIR/python.json, python.txt
"""
import argparse
import datetime
import json
import os
import platform
import sys
import time

import numpy as np

import zerocopy

GIB = 1 << 30
FRAME = 1024  # float32 samples: 4 KiB
NTAPS = 33


def summary(samples):
    s = zerocopy.stats(samples)
    return {"count": s.count, "median": s.median, "min": s.min, "max": s.max, "mean": s.mean,
            "stddev": s.stddev, "cov": s.cov, "p90": s.p90, "p99": s.p99, "p999": s.p999}


def pinned_kind(address):
    return zerocopy.pointer_info(address).kind


def check_memory(array_u8):
    """Write a pattern over every page and read it back (outside the timed part)."""
    pages = array_u8[:: 4096]
    pages[:] = np.arange(pages.size, dtype=np.uint64).astype(np.uint8)
    return bool(np.array_equal(array_u8[:: 4096], np.arange(pages.size, dtype=np.uint64).astype(np.uint8)))


def time_alloc(name, alloc, free, address_of, as_numpy, repeats):
    """alloc() -> object; free([object]) gives it back and empties any cache; median of repeats."""
    alloc_ms, free_ms, verified, kinds = [], [], True, set()
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        box = [alloc()]  # the only reference, so that free() really lets it go
        t1 = time.perf_counter_ns()
        kinds.add(pinned_kind(address_of(box[0])))
        verified &= check_memory(as_numpy(box[0]))
        t2 = time.perf_counter_ns()
        free(box)
        t3 = time.perf_counter_ns()
        alloc_ms.append((t1 - t0) / 1e6)
        free_ms.append((t3 - t2) / 1e6)
    page_locked = kinds <= {"pinned", "mapped", "registered", "write-combined"}
    return {"name": name, "available": True, "alloc_ms": summary(alloc_ms), "free_ms": summary(free_ms),
            "alloc_samples_ms": alloc_ms, "free_samples_ms": free_ms, "kinds": sorted(kinds),
            "page_locked": page_locked, "verified": verified and page_locked}


def bench_alloc(repeats, torch, cupy):
    rows = []
    rows.append(time_alloc(
        "zerocopy.Buffer.alloc(1 GiB, 'pinned')",
        lambda: zerocopy.Buffer.alloc(GIB, "pinned"),
        lambda box: box.pop().close(),
        lambda b: b.host_ptr,
        lambda b: np.asarray(b),
        repeats))
    pool = zerocopy.Pool("pinned")
    warm = pool.alloc(GIB)  # the first one pins; the timed ones are cache hits
    warm.close()
    rows.append(time_alloc(
        "zerocopy.Pool('pinned').alloc(1 GiB), cached",
        lambda: pool.alloc(GIB),
        lambda box: box.pop().close(),
        lambda b: b.host_ptr,
        lambda b: np.asarray(b),
        repeats))
    pool.close()
    if torch is not None:
        empty_cache = getattr(torch._C, "_host_emptyCache", None)

        def torch_free(box):
            box.clear()
            if empty_cache is not None:
                empty_cache()  # else the next repeat is served from torch's host cache

        row = time_alloc(
            "torch.empty(1 GiB, pin_memory=True)",
            lambda: torch.empty(GIB, dtype=torch.uint8, pin_memory=True),
            torch_free,
            lambda t: t.data_ptr(),
            lambda t: t.numpy(),
            repeats)
        row["cache_emptied"] = empty_cache is not None
        rows.append(row)
    else:
        rows.append({"name": "torch.empty(pin_memory=True)", "available": False, "reason": "no torch"})
    if cupy is not None:
        import cupyx

        pinned_pool = cupy.get_default_pinned_memory_pool()

        def cupy_free(box):
            box.clear()
            pinned_pool.free_all_blocks()

        rows.append(time_alloc(
            "cupyx.empty_pinned(1 GiB)",
            lambda: cupyx.empty_pinned((GIB,), dtype=np.uint8),
            cupy_free,
            lambda a: a.ctypes.data,
            lambda a: a,
            repeats))
    else:
        rows.append({"name": "cupyx.empty_pinned", "available": False, "reason": "no cupy"})
    return rows


def fir_check(taps, x, y):
    ref = np.convolve(x.astype(np.float64), taps.astype(np.float64))[: x.size]
    err = zerocopy.fir_error(ref, y, taps, float(np.max(np.abs(x))))
    return float(err), bool(err <= zerocopy.stream.VERIFY_TOLERANCE)


def round_trip_zerocopy(taps, x, warmup):
    lat = []
    out = np.empty_like(x)
    with zerocopy.Stream(taps, mode="zerocopy", protocol="ll", frame_samples=FRAME, in_flight=1,
                         verify="none", warmup_frames=warmup) as s:
        frames = x.size // FRAME
        for k in range(frames):
            frame = x[k * FRAME : (k + 1) * FRAME]
            t0 = time.perf_counter_ns()
            s.push(frame)
            got = s.pull(max_samples=FRAME, timeout=2.0, out=out[k * FRAME : (k + 1) * FRAME])
            t1 = time.perf_counter_ns()
            if got is None or got.size != FRAME:
                raise RuntimeError(f"frame {k}: {0 if got is None else got.size} samples back")
            if k >= warmup:
                lat.append((t1 - t0) / 1e3)
        s.flush()
        engine = s.stats().latency_us
    err, ok = fir_check(taps, x, out)
    return {"name": "zerocopy.Stream(mode='zerocopy', protocol='ll'): push + pull per frame",
            "available": True, "latency_us": summary(lat), "engine_latency_us": engine.__dict__,
            "frames": len(lat), "max_rel_error": err, "verified": ok}


def round_trip_torch(torch, taps, x, warmup):
    torch.backends.cudnn.allow_tf32 = False  # full float32, as the check needs
    dev = torch.device("cuda")
    h = len(taps) - 1
    weight = torch.tensor(taps[::-1].copy(), device=dev).view(1, 1, -1)  # conv1d correlates
    host_in = torch.empty(FRAME, dtype=torch.float32, pin_memory=True)
    host_out = torch.empty(FRAME, dtype=torch.float32, pin_memory=True)
    window = torch.zeros(h + FRAME, device=dev)  # the history, then the frame
    out = np.empty_like(x)
    lat = []
    stream = torch.cuda.current_stream()
    frames = x.size // FRAME
    for k in range(frames):
        host_in.numpy()[:] = x[k * FRAME : (k + 1) * FRAME]
        t0 = time.perf_counter_ns()
        window[:h] = window[FRAME:].clone()  # the last frame's end is the new history
        window[h:].copy_(host_in, non_blocking=True)
        y = torch.nn.functional.conv1d(window.view(1, 1, -1), weight).view(-1)
        host_out.copy_(y, non_blocking=True)
        stream.synchronize()
        t1 = time.perf_counter_ns()
        out[k * FRAME : (k + 1) * FRAME] = host_out.numpy()
        if k >= warmup:
            lat.append((t1 - t0) / 1e3)
    err, ok = fir_check(taps, x, out)
    return {"name": "PyTorch: pinned copy_ to GPU, conv1d (same FIR), copy_ back, synchronize",
            "available": True, "latency_us": summary(lat), "frames": len(lat),
            "max_rel_error": err, "verified": ok}


def find_frameworks():
    mods = {}
    for name in ("torch", "cupy"):
        try:
            mods[name] = __import__(name)
        except ImportError:
            mods[name] = None
    torch = mods["torch"]
    if torch is not None and not torch.cuda.is_available():
        torch = None
    return torch, mods["cupy"]


def table(doc):
    lines = [f"zerocopy {doc['versions']['zerocopy']} Python package, "
             f"{doc['python']['implementation']} {doc['python']['version']}, {doc['device']}", "",
             "Pinning 1 GiB (ms, median of repeats; min..max)"]
    for r in doc["pinned_alloc"]["results"]:
        if not r["available"]:
            lines.append(f"  {r['name']:<48} not measured: {r['reason']}")
            continue
        a, f = r["alloc_ms"], r["free_ms"]
        lines.append(f"  {r['name']:<48} {a['median']:9.2f} ({a['min']:.2f}..{a['max']:.2f})  "
                     f"free {f['median']:8.2f}  {'ok' if r['verified'] else 'NOT VERIFIED'} {','.join(r['kinds'])}")
    lines += ["", "4 KiB frame round trip from Python (us)",
              f"  {'':<72} {'p50':>8} {'p99':>8} {'p99.9':>8} {'max':>9}"]
    for r in doc["round_trip"]["results"]:
        if not r["available"]:
            lines.append(f"  {r['name']:<72} not measured: {r['reason']}")
            continue
        s = r["latency_us"]
        lines.append(f"  {r['name']:<72} {s['median']:8.2f} {s['p99']:8.2f} {s['p999']:8.2f} {s['max']:9.2f}"
                     f"  {'ok' if r['verified'] else 'FAIL'}")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--frames", type=int, default=20000)
    p.add_argument("--warmup", type=int, default=1000)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch, cupy = find_frameworks()
    info = zerocopy.info()
    device = info.devices[0].name if info.devices else f"no GPU ({info.error})"
    if not info.devices:
        print(f"bench_python: {device}", file=sys.stderr)
        return 1
    taps = zerocopy.fir_lowpass(0.1, NTAPS)
    x = np.random.default_rng(70).uniform(-1, 1, FRAME * (a.frames + a.warmup)).astype(np.float32)
    rt = [round_trip_zerocopy(taps, x, a.warmup)]
    rt.append(round_trip_torch(torch, taps, x, a.warmup) if torch is not None else
              {"name": "PyTorch copy-op-copy loop", "available": False, "reason": "no torch with CUDA"})
    doc = {
        "schema": "zerocopy.python-bench/1",
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": {"implementation": platform.python_implementation(),
                   "version": platform.python_version()},
        "versions": {"zerocopy": zerocopy.__version__,
                     "libzerocopy": os.path.basename(zerocopy.libzerocopy_path),
                     "numpy": np.__version__,
                     "torch": getattr(torch, "__version__", None), "cupy": getattr(cupy, "__version__", None)},
        "device": device,
        "pinned_alloc": {
            "bytes": GIB, "repeats": a.repeats,
            "method": ("host clock (time.perf_counter_ns) around the one call that returns 1 GiB "
                       "of page-locked memory, and around giving it back; every cache emptied "
                       "between repeats (torch._C._host_emptyCache, cupy's pinned pool "
                       "free_all_blocks) except the zerocopy.Pool row, which times its cache "
                       "hits on purpose; each buffer checked page-locked by zc_pointer_query "
                       "and written and read back on every page outside the timing; "
                       "median, min, max, stddev of the repeats"),
            "results": bench_alloc(a.repeats, torch, cupy),
        },
        "round_trip": {
            "frame_bytes": FRAME * 4, "taps": NTAPS, "frames": a.frames, "warmup": a.warmup,
            "method": ("host clock around one 4 KiB frame in and its filtered 4 KiB out, one "
                       "frame at a time, Python call overhead included: zerocopy.Stream.push "
                       "then pull (zerocopy mode, LL protocol, one in flight), against the "
                       "PyTorch loop with pinned tensors (copy_ non_blocking to the GPU, the "
                       "same 33-tap FIR as conv1d over history + frame, copy_ back, stream "
                       "synchronize); warm-up frames left out; every output of both checked "
                       "afterwards against numpy.convolve in double precision with zc_fir_error "
                       "(tolerance 1e-5); nearest-rank percentiles (zc_stats_compute)"),
            "results": rt,
        },
    }
    with open(os.path.join(a.out, "python.json"), "w") as f:
        json.dump(doc, f, indent=1)
    text = table(doc)
    with open(os.path.join(a.out, "python.txt"), "w") as f:
        f.write(text)
    print(text)
    ok = all(r.get("verified", True) for r in doc["pinned_alloc"]["results"] + rt if r["available"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
