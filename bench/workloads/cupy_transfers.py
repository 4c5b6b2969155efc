# SPDX-License-Identifier: Apache-2.0
"""CuPy arrays to the GPU and back: five NumPy arrays of 256 MiB (uint8, from a seeded generator;
16 MiB with --quick) sent with cp.asarray, incremented on the GPU (untimed), and brought back
with .get(), as people write it. As an expert does it: host arrays made once with
cupyx.empty_pinned (filled outside the timing), device arrays allocated once, ndarray.set(...,
stream=s) and .get(out=pinned, stream=s, blocking=False) on one non-blocking stream, one
synchronize per direction. Prints one JSON line (bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import workload  # noqa: E402 - after the line above, so that no __pycache__ is written

NAME = "cupy_transfers"
SEED = 20261205
HAND_FIX = ("cupyx.empty_pinned host arrays and device arrays made once (outside the timing: "
            "setup_seconds); ndarray.set(stream=s), .get(out=pinned, stream=s, blocking=False); "
            "one synchronize per direction")


def main():
    args = workload.options(__doc__)
    try:
        import cupy as cp
        import cupyx
        import numpy as np
    except Exception as error:  # noqa: BLE001 - any reason CuPy cannot load here is a skip
        workload.skip(NAME, f"cupy cannot be imported: {error}")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as error:  # noqa: BLE001 - no GPU is a skip
        workload.skip(NAME, f"cupy sees no GPU: {error}")

    arrays = workload.seeded_arrays(np, args.quick, SEED)
    size = arrays[0].nbytes
    extra = {"arrays": len(arrays), "array_bytes": size}
    result = []

    if args.version == "as-written":
        def one_run():
            cp.cuda.Device().synchronize()
            start = workload.clock()
            placed = [cp.asarray(a) for a in arrays]
            cp.cuda.Device().synchronize()
            h2d = workload.clock() - start
            # Untimed work on the GPU: the arrays brought back are computed there.
            computed = [a + 1 for a in placed]
            del placed
            cp.cuda.Device().synchronize()
            start = workload.clock()
            back = [a.get() for a in computed]
            d2h = workload.clock() - start
            result[:] = back
            return {"h2d": h2d, "d2h": d2h}
    else:
        start = workload.clock()
        stream = cp.cuda.Stream(non_blocking=True)
        sources = []
        for a in arrays:
            pinned = cupyx.empty_pinned(a.shape, a.dtype)
            pinned[...] = a
            sources.append(pinned)
        placed = [cp.empty(a.shape, a.dtype) for a in arrays]
        computed = [cp.empty(a.shape, a.dtype) for a in arrays]
        result[:] = [cupyx.empty_pinned(a.shape, a.dtype) for a in arrays]
        extra["setup_seconds"] = workload.clock() - start
        extra["hand_fix"] = HAND_FIX

        def get(device_array, out):
            try:
                device_array.get(out=out, stream=stream, blocking=False)
            except TypeError:  # a CuPy older than get(blocking=...): it waits for each
                device_array.get(out=out, stream=stream)

        def one_run():
            # Every destination zeroed first (untimed): they hold the last run's data, and a
            # copy that did not happen must not pass for one that did.
            with stream:
                for a in placed + computed:
                    a.fill(0)
            for out in result:
                out.fill(0)
            stream.synchronize()
            start = workload.clock()
            for device_array, source in zip(placed, sources):
                device_array.set(source, stream=stream)
            stream.synchronize()
            h2d = workload.clock() - start
            with stream:
                for a, out in zip(placed, computed):
                    cp.add(a, 1, out=out)
            stream.synchronize()
            start = workload.clock()
            for device_array, out in zip(computed, result):
                get(device_array, out)
            stream.synchronize()
            d2h = workload.clock() - start
            return {"h2d": h2d, "d2h": d2h}

    phases = workload.measure(args, one_run)
    workload.report_round_trips(NAME, args, phases, arrays, result, **extra)


if __name__ == "__main__":
    main()
