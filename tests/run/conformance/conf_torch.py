# SPDX-License-Identifier: Apache-2.0
"""PyTorch's copies between host and GPU as programs make them, each result checked against
what the CPU computed and its digest printed: .to("cuda") and .cpu() of 1 KiB to 64 MiB,
non_blocking copies from pinned and pageable tensors, pin_memory(), pinned tensors reused, a
state dict sent to the GPU and back, and host tensors used after their copies. stdout holds only
"ok"/"FAIL" lines and digests, so that a run under zc run can be compared with one without it.
Without torch or a GPU it prints "skip torch" and exits 0."""
import hashlib
import sys

try:
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("no GPU")
except Exception as error:  # noqa: BLE001 - any reason torch cannot run here is a skip
    print("skip torch")
    print(f"conf_torch: skipped: {error}", file=sys.stderr)
    sys.exit(0)

failures = 0


def digest(t):
    """The first 16 hex digits of the SHA-256 of a tensor's bytes, read on the host."""
    data = t.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes()
    return hashlib.sha256(data).hexdigest()[:16]


def check(passed, name, detail=""):
    global failures
    if passed:
        print(f"ok {name}")
    else:
        failures += 1
        print(f"FAIL {name}: {detail}")


def pattern(n, seed):
    """n bytes with no short period, the same in every run."""
    i = torch.arange(n, dtype=torch.int64)
    return ((i + seed) * 2654435761 % 4294967291).remainder(256).to(torch.uint8)


def scaled(t):
    """t * 3 + 1 in uint8 arithmetic, as the GPU computes it."""
    return (t.to(torch.int32) * 3 + 1).remainder(256).to(torch.uint8)


# Round trips of three sizes, three times each (the later ones from a tensor zc run may have
# pinned in place), the GPU's work checked on the CPU.
for size in (1 << 10, 1 << 20, 64 << 20):
    x = pattern(size, size % 97)
    for round_ in range(3):
        y = x.to("cuda")
        z = (y * 3 + 1).cpu()
        check(torch.equal(z, scaled(x)), f"round trip {size} #{round_}", "wrong bytes")
    print(f"round trip {size} {digest(z)}")
    # A pageable tensor stays pageable to the program.
    check(not x.is_pinned(), f"tensor {size} is not pinned", "is_pinned() is True")

# non_blocking from pageable (synchronous for the host) and from pinned memory (asynchronous),
# and back into pinned memory without blocking.
n = 8 << 20
pageable = pattern(n, 5)
pinned = pattern(n, 6).pin_memory()
check(pinned.is_pinned(), "pin_memory() gives pinned memory", "is_pinned() is False")
a = pageable.to("cuda", non_blocking=True)
b = pinned.to("cuda", non_blocking=True)
back = torch.empty(n, dtype=torch.uint8, pin_memory=True)
back.copy_(a + b, non_blocking=True)
torch.cuda.current_stream().synchronize()
want = (pageable.to(torch.int32) + pinned.to(torch.int32)).remainder(256).to(torch.uint8)
check(torch.equal(back, want), "non_blocking copies from pageable and pinned", "wrong bytes")
print(f"non_blocking {digest(back)}")
pageable_back = torch.empty(n, dtype=torch.uint8)
pageable_back.copy_(b, non_blocking=True)
torch.cuda.synchronize()
check(torch.equal(pageable_back, pinned), "non_blocking copy into pageable memory", "wrong bytes")

# Pinned tensors allocated, used and dropped again and again: torch's caching host allocator
# hands the same blocks out (and zc run's pinning cure may keep them).
total = hashlib.sha256()
for i in range(8):
    host = torch.empty(4 << 20, dtype=torch.uint8, pin_memory=True)
    host.copy_(pattern(4 << 20, 100 + i))
    gpu = host.to("cuda", non_blocking=True)
    out = torch.empty(4 << 20, dtype=torch.uint8, pin_memory=True)
    out.copy_(gpu * 3 + 1, non_blocking=True)
    torch.cuda.synchronize()
    check(torch.equal(out, scaled(pattern(4 << 20, 100 + i))), f"pinned tensor reused #{i}",
          "wrong bytes")
    total.update(out.numpy().tobytes())
    del host, gpu, out
print(f"pinned reuse {total.hexdigest()[:16]}")

# A state dict of 20 tensors to the GPU, changed there, and back.
state = {}
for i in range(20):
    shape = (17 + i, 3 + (i * 7) % 29)
    state[f"layer{i}.weight"] = (torch.arange(shape[0] * shape[1], dtype=torch.float32)
                                 .reshape(shape) * 0.5 - i)
state["big.weight"] = torch.arange(1 << 20, dtype=torch.float32).reshape(1024, 1024) / 7
on_gpu = {k: v.to("cuda") for k, v in state.items()}
on_gpu = {k: v * 2 + 1 for k, v in on_gpu.items()}
returned = {k: v.cpu() for k, v in on_gpu.items()}
right = all(torch.equal(returned[k], state[k] * 2 + 1) for k in state)
check(right, "state dict round trip", "a tensor came back wrong")
sd = hashlib.sha256()
for k in sorted(returned):
    sd.update(k.encode())
    sd.update(returned[k].numpy().tobytes())
print(f"state dict {sd.hexdigest()[:16]}")

# Host tensors read on the host after copies (index_select), and written after them.
x = pattern(16 << 20, 9)
for _ in range(3):
    g = x.to("cuda")
index = torch.arange(0, 16 << 20, 4099, dtype=torch.int64)
check(torch.equal(x.index_select(0, index), g.index_select(0, index.to("cuda")).cpu()),
      "index_select on the host after copies", "the host and GPU differ")
x[::3] = 7
g = x.to("cuda")
check(torch.equal(g.cpu(), x), "a host tensor written after its copies", "wrong bytes")
print(f"index_select {digest(x.index_select(0, index))}")

sys.exit(1 if failures else 0)
