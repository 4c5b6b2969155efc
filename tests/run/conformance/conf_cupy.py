# SPDX-License-Identifier: Apache-2.0
"""CuPy's copies between host and GPU as programs make them, each result checked against what
NumPy computed and its digest printed: cp.asarray and .get() of 1 KiB to 64 MiB, pinned memory
from cupyx.empty_pinned (reused), asynchronous copies on a stream, and cp.cuda.runtime.memcpy
from and to NumPy arrays. stdout holds only "ok"/"FAIL" lines and digests, so that a run under
zc run can be compared with one without it. Without CuPy or a GPU it prints "skip cupy" and
exits 0."""
import hashlib
import sys

try:
    import cupy as cp
    import cupyx
    import numpy as np

    if cp.cuda.runtime.getDeviceCount() == 0:
        raise RuntimeError("no GPU")
except Exception as error:  # noqa: BLE001 - any reason CuPy cannot run here is a skip
    print("skip cupy")
    print(f"conf_cupy: skipped: {error}", file=sys.stderr)
    sys.exit(0)

failures = 0


def digest(a):
    """The first 16 hex digits of the SHA-256 of a host array's bytes."""
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def check(passed, name, detail=""):
    global failures
    if passed:
        print(f"ok {name}")
    else:
        failures += 1
        print(f"FAIL {name}: {detail}")


def pattern(n, seed):
    """n bytes with no short period, the same in every run."""
    i = np.arange(n, dtype=np.int64)
    return ((i + seed) * 2654435761 % 4294967291 % 256).astype(np.uint8)


def scaled(a):
    """a * 3 + 1 in uint8 arithmetic, as the GPU computes it."""
    return ((a.astype(np.int32) * 3 + 1) % 256).astype(np.uint8)


# Round trips of three sizes, three times each (the later ones from an array zc run may have
# pinned in place).
for size in (1 << 10, 1 << 20, 64 << 20):
    x = pattern(size, size % 97)
    for round_ in range(3):
        z = (cp.asarray(x) * 3 + 1).get()
        check(np.array_equal(z, scaled(x)), f"round trip {size} #{round_}", "wrong bytes")
    print(f"round trip {size} {digest(z)}")

# Pinned host memory, allocated and dropped again and again (CuPy's pinned memory pool and
# zc run's pinning cure may both keep it), with asynchronous copies on a stream.
n = 4 << 20
total = hashlib.sha256()
stream = cp.cuda.Stream(non_blocking=True)
for i in range(8):
    host = cupyx.empty_pinned((n,), dtype=np.uint8)
    host[...] = pattern(n, 100 + i)
    with stream:
        gpu = cp.empty((n,), dtype=cp.uint8)
        gpu.set(host, stream=stream)
        out = cupyx.empty_pinned((n,), dtype=np.uint8)
        (gpu * 3 + 1).get(stream=stream, out=out)
    stream.synchronize()
    check(np.array_equal(out, scaled(pattern(n, 100 + i))), f"pinned array reused #{i}",
          "wrong bytes")
    total.update(out.tobytes())
    del host, gpu, out
print(f"pinned reuse {total.hexdigest()[:16]}")

# cp.cuda.runtime.memcpy between NumPy (pageable) arrays and the GPU, from the first byte of
# a buffer copied again and again, and from within it.
n = 16 << 20
src = pattern(n, 7)
dst = np.zeros(n, dtype=np.uint8)
gpu = cp.empty((n,), dtype=cp.uint8)
h2d, d2h = cp.cuda.runtime.memcpyHostToDevice, cp.cuda.runtime.memcpyDeviceToHost
for _ in range(3):
    cp.cuda.runtime.memcpy(gpu.data.ptr, src.ctypes.data, n, h2d)
gpu *= 3
gpu += 1
cp.cuda.runtime.memcpy(dst.ctypes.data, gpu.data.ptr, n, d2h)
check(np.array_equal(dst, scaled(src)), "runtime.memcpy both ways", "wrong bytes")
half = n // 2 + 4096
cp.cuda.runtime.memcpy(gpu.data.ptr, src.ctypes.data + 4096, half, h2d)
back = np.zeros(half, dtype=np.uint8)
cp.cuda.runtime.memcpy(back.ctypes.data, gpu.data.ptr, half, d2h)
check(np.array_equal(back, src[4096:4096 + half]), "runtime.memcpy from within a buffer",
      "wrong bytes")
print(f"runtime.memcpy {digest(dst)} {digest(back)}")

# A host array changed after its copies, then copied again.
src[::5] = 11
check(np.array_equal(cp.asarray(src).get(), src), "an array written after its copies",
      "wrong bytes")

sys.exit(1 if failures else 0)
