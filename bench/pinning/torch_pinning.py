# SPDX-License-Identifier: Apache-2.0
"""PyTorch's way of getting pinned host memory, timed per size: torch.empty(n, dtype=torch.uint8,
pin_memory=True), and Tensor.pin_memory() of a tensor just made and filled (as a DataLoader pins a
batch). The allocator's register knob (PYTORCH_CUDA_ALLOC_CONF=pinned_use_cuda_host_register:True,
pinned_num_register_threads:8) is read once, when torch first pins, so each setting needs a
process of its own: scripts/bench.d/49-pinning-family.sh runs this script once without the knob
and once with it.

Prints one JSON line per point: the way, the size, the knob, the allocation's seconds (every
round, median, min, max; seconds per GiB, GiB = 2^30 bytes) and the free's (the tensor dropped and
the host allocator's cache emptied, which is when PyTorch calls cudaFreeHost or
cudaHostUnregister). Every pinned tensor is checked: torch calls it pinned, and at its start,
middle and end a pattern goes to the GPU, is changed there and comes back. Each round allocates
memory fresh: the allocator keeps freed blocks for reuse, so its cache is emptied between rounds;
where this torch cannot empty it (no torch._C._host_emptyCache), only the first round is fresh and
the line says so. A size over --share percent of MemAvailable is a line saying it was left out;
torch or a GPU missing is one line saying "skipped" and why (exit 0)."""
import argparse
import json
import os
import statistics
import sys
import time

GIB = 1 << 30
SPAN = 64 << 10  # bytes checked at each of three places of a buffer
KNOB = "PYTORCH_CUDA_ALLOC_CONF"


def parse_size(text):
    """'64M', '1G', '4096': bytes (K, M, G binary, as zc reads them)."""
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    value = int(number) * scale
    if value <= 0:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    return value


def options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64M,256M,1G",
                        help="comma-separated sizes (K, M, G = KiB, MiB, GiB); default 64M,256M,1G")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds at sizes up to 1 GiB (at least 3; default 3); one above")
    parser.add_argument("--share", type=float, default=40.0,
                        help="at most this percent of MemAvailable per buffer (default 40)")
    parser.add_argument("--device", type=int, default=0, help="the GPU (default 0)")
    args = parser.parse_args()
    if args.rounds < 3:
        parser.error("--rounds must be at least 3: a median and a spread need them")
    try:
        args.sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    except (ValueError, argparse.ArgumentTypeError) as error:
        parser.error(f"--sizes: {error}")
    return args


def emit(line):
    print(json.dumps(line), flush=True)


def skip(why):
    emit({"way": "torch", "knob": os.environ.get(KNOB, ""), "skipped": why})
    sys.exit(0)


def mem_available():
    """MemAvailable in bytes, or None where /proc/meminfo does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check(torch, pinned, device, generator, source=None):
    """Raises unless pinned is pinned and carries data to the GPU and back at its start, middle and
    end (and, for a copy, holds the source's bytes there first)."""
    if not pinned.is_pinned():
        raise RuntimeError("the tensor is not pinned")
    n = pinned.numel()
    span = min(n, SPAN)
    for offset in sorted({0, max(0, n // 2 - span // 2), n - span}):
        part = pinned[offset:offset + span]
        if source is not None and not torch.equal(part, source[offset:offset + span]):
            raise RuntimeError(f"pin_memory()'s copy differs from its source at {offset}")
        pattern = torch.randint(0, 256, (span,), dtype=torch.uint8, generator=generator)
        part.copy_(pattern)
        on_gpu = part.to(device, non_blocking=True)
        on_gpu.add_(1)
        part.copy_(on_gpu, non_blocking=True)
        torch.cuda.synchronize(device)
        if not torch.equal(part, pattern + 1):
            raise RuntimeError(f"the round trip through the GPU came back wrong at {offset}")


def empty_host_cache(torch):
    """Gives the allocator's cached pinned blocks back (cudaFreeHost / cudaHostUnregister); False
    where this torch has no call for it."""
    call = getattr(torch._C, "_host_emptyCache", None)
    if call is None:
        return False
    call()
    return True


def one_round(torch, way, n, device, generator):
    """(allocation seconds, free seconds, whether the cache was emptied) of one fresh buffer."""
    source = None
    if way == "tensor.pin_memory()":
        source = torch.empty(n, dtype=torch.uint8)
        source.fill_(0x5A)  # a batch's data, written before it is pinned (untimed)
    start = time.perf_counter()
    if source is None:
        pinned = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    else:
        pinned = source.pin_memory()
    made = time.perf_counter() - start
    check(torch, pinned, device, generator, source)
    start = time.perf_counter()
    del pinned
    emptied = empty_host_cache(torch)
    freed = time.perf_counter() - start
    return made, freed, emptied


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(torch, way, n, rounds, device, generator, context):
    made, freed, fresh = [], [], True
    for _ in range(rounds):
        m, f, emptied = one_round(torch, way, n, device, generator)
        made.append(m)
        freed.append(f)
        fresh = fresh and emptied
    alloc = summary(made)
    emit(dict(context, way=way, bytes=n, rounds=rounds, verified=True, fresh_every_round=fresh,
              seconds=made, median_s=alloc["median"], min_s=alloc["min"], max_s=alloc["max"],
              s_per_gib=alloc["median"] / (n / GIB), free_seconds=freed,
              free_median_s=summary(freed)["median"]))


def main():
    args = options()
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any reason torch cannot load here is a skip
        skip(f"torch cannot be imported: {error}")
    if not torch.cuda.is_available():
        skip("torch sees no GPU")
    device = torch.device("cuda", args.device)
    context = {"knob": os.environ.get(KNOB, ""), "torch": torch.__version__,
               "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(device)}
    generator = torch.Generator().manual_seed(20261207)
    # CUDA's context and the allocator start here, untimed: every timed round finds them ready.
    torch.ones(1, device=device)
    check(torch, torch.empty(1 << 20, dtype=torch.uint8, pin_memory=True), device, generator)
    empty_host_cache(torch)
    available = mem_available()
    for n in args.sizes:
        if available is not None and n > available * args.share / 100:
            emit(dict(context, way="torch", bytes=n,
                      left_out=f"more than {args.share:g}% of MemAvailable "
                               f"({available * args.share / 100 / GIB:.3g} GiB)"))
            continue
        rounds = args.rounds if n <= GIB else 1
        for way in ("torch.empty(pin_memory=True)", "tensor.pin_memory()"):
            try:
                measure(torch, way, n, rounds, device, generator, context)
            except RuntimeError as error:
                emit(dict(context, way=way, bytes=n, verified=False, error=str(error)))
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
