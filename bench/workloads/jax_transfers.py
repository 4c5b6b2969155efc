# SPDX-License-Identifier: Apache-2.0
"""JAX arrays to the GPU and back: five NumPy arrays of 256 MiB (uint8, from a seeded generator;
16 MiB with --quick) sent with jax.device_put, incremented on the GPU (untimed), and brought
back with np.asarray, array by array, as people write it. As an expert does it with what JAX
offers: the host arrays placed once in JAX's pinned host memory (memory_kind="pinned_host",
outside the timing), all five sent in one device_put, and all five brought back in one
jax.device_get, which starts every copy before it waits for any; where this JAX has no pinned
host memory, the batched calls alone (the JSON's hand_fix says which ran). Prints one JSON line
(bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import workload  # noqa: E402 - after the line above, so that no __pycache__ is written

NAME = "jax_transfers"
SEED = 20261205


def main():
    args = workload.options(__doc__)
    try:
        import jax
        import numpy as np
    except Exception as error:  # noqa: BLE001 - any reason JAX cannot load here is a skip
        workload.skip(NAME, f"jax cannot be imported: {error}")
    try:
        device = jax.devices("gpu")[0]
    except Exception as error:  # noqa: BLE001 - no GPU backend is a skip
        workload.skip(NAME, f"jax sees no GPU: {error}")

    arrays = workload.seeded_arrays(np, args.quick, SEED)
    size = arrays[0].nbytes
    bump = jax.jit(lambda a: a + np.uint8(1))
    on_device = jax.sharding.SingleDeviceSharding(device)
    extra = {"arrays": len(arrays), "array_bytes": size}
    result = []

    def bumped(placed):
        # Untimed work on the GPU between the two directions: the arrays brought back are new
        # ones, computed there (JAX keeps an array's host copy once it has made one).
        out = [bump(a) for a in placed]
        jax.block_until_ready(out)
        return out

    if args.version == "as-written":
        def one_run():
            start = workload.clock()
            placed = [jax.device_put(a) for a in arrays]
            jax.block_until_ready(placed)
            h2d = workload.clock() - start
            computed = bumped(placed)
            del placed
            start = workload.clock()
            back = [np.asarray(a) for a in computed]
            d2h = workload.clock() - start
            result[:] = back
            return {"h2d": h2d, "d2h": d2h}
    else:
        sources = arrays
        fix = "one jax.device_put of all five, one jax.device_get of all five"
        start = workload.clock()
        try:
            pinned = jax.sharding.SingleDeviceSharding(device, memory_kind="pinned_host")
            sources = jax.device_put(arrays, pinned)
            jax.block_until_ready(sources)
            fix = ("host arrays placed once in memory_kind='pinned_host' (outside the timing: "
                   "setup_seconds); " + fix)
        except Exception as error:  # noqa: BLE001 - an older JAX: the batched calls alone
            extra["pinned_host_unavailable"] = str(error)[:200]
        extra["setup_seconds"] = workload.clock() - start
        extra["hand_fix"] = fix

        def one_run():
            start = workload.clock()
            placed = jax.device_put(sources, on_device)
            jax.block_until_ready(placed)
            h2d = workload.clock() - start
            computed = bumped(placed)
            del placed
            start = workload.clock()
            back = jax.device_get(computed)
            d2h = workload.clock() - start
            result[:] = back
            return {"h2d": h2d, "d2h": d2h}

    phases = workload.measure(args, one_run)
    workload.report_round_trips(NAME, args, phases, arrays, result, **extra)


if __name__ == "__main__":
    main()
