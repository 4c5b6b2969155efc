# SPDX-License-Identifier: Apache-2.0
"""The hostcopy cure on NumPy's own copies, against the stand-in driver: a NumPy array over a
pinned block (cuMemHostAlloc through ctypes, as CuPy's and JAX's staging buffers are), filled
from another array (CuPy's cp.asarray), copied out of (JAX's way back) and copied whole. Run as
it is and under `zc run --fix pinning,hostcopy`: the output must be the same, and the report must
show the three copies made by the copying threads, so that NumPy's assignments do reach the
library's memcpy and memmove.

usage: hostcopy_numpy.py ZC FAKE_DRIVER_DIR (the parent); hostcopy_numpy.py --child.
Exits 77 (a skip) where NumPy is missing."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
SIZE = 32 << 20  # above ZC_RUN_HOSTCOPY_BYTES (4 MiB)


def child():
    import numpy as np

    cuda = ctypes.CDLL("libcuda.so.1")
    if cuda.cuInit(0) != 0:
        sys.exit("cuInit failed")
    block = ctypes.c_void_p()
    if cuda.cuMemHostAlloc(ctypes.byref(block), ctypes.c_size_t(SIZE), 0) != 0:
        sys.exit("cuMemHostAlloc failed")
    pinned = np.ctypeslib.as_array((ctypes.c_uint8 * SIZE).from_address(block.value))
    source = np.random.default_rng(20261207).integers(0, 256, SIZE, dtype=np.uint8)
    pinned[...] = source
    back = np.empty(SIZE, np.uint8)
    back[...] = pinned
    whole = pinned.copy()
    print("into the pinned block:", bool((pinned == source).all()))
    print("out of it:", bool((back == source).all()))
    print("a copy of it:", bool((whole == source).all()))
    print("sum", int(whole.sum(dtype=np.uint64)))
    if cuda.cuMemFreeHost(block) != 0:
        sys.exit("cuMemFreeHost failed")


def run(command, env):
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"{command}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout


def parent(zc, fake_driver):
    try:
        import numpy  # noqa: F401 - only whether it is there
    except ImportError:
        print("hostcopy_numpy: skipped: numpy is not installed for", sys.executable)
        sys.exit(SKIP)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = fake_driver + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    env["ZC_RUN_THREADS"] = "3"  # the cure needs copying threads, whatever the CPUs here
    me = [sys.executable, os.path.abspath(__file__), "--child"]
    plain = run(me, env)
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        cured = run([zc, "run", "--fix", "pinning,hostcopy", "--report", report, "--"] + me, env)
        with open(report) as f:
            counters = {c["name"]: c for c in json.load(f)["counters"]}
    if "True" not in plain or "False" in plain:
        sys.exit(f"the plain run's copies went wrong:\n{plain}")
    if cured != plain:
        sys.exit(f"the cured run printed otherwise:\n{plain}---\n{cured}")
    made = counters["hostcopy-threads"]["calls"]
    if made != 3:
        sys.exit(f"hostcopy-threads: {made} calls, where NumPy made 3 copies of a pinned block")
    print(f"hostcopy_numpy: same output; {made} copies made by the threads")


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    elif len(sys.argv) == 3:
        parent(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
