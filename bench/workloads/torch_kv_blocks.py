# SPDX-License-Identifier: Apache-2.0
"""KV-cache blocks swapped out to the host and back in, as an inference server does under memory
pressure: 512 bf16 blocks of 2 MiB on the GPU (1 GiB; 64 blocks with --quick), each swapped out
and then in again. As people write it: host = [b.cpu() for b in blocks], then
blocks = [h.to("cuda") for h in host]; as an expert does it: a pinned host pool allocated once,
copy_(non_blocking=True) block by block both ways, one synchronize per direction. A run is the
swap-out and the swap-in, timed apart; between them (untimed) the GPU blocks are zeroed, as
another request would overwrite them, so that only the swap-in can bring the data back.
Prints one JSON line (bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import torch_common  # noqa: E402 - after the line above, so that no __pycache__ is written
import workload  # noqa: E402

NAME = "torch_kv_blocks"
HAND_FIX = ("pinned host pool allocated once (outside the timing: setup_seconds); "
            "copy_(non_blocking=True) per block both ways; one synchronize per direction")
BLOCK_ELEMENTS = 1 << 20  # 2 MiB of bf16


def main():
    args = workload.options(__doc__)
    torch = torch_common.torch_or_skip(NAME)
    count = 64 if args.quick else 512
    generator = torch.Generator().manual_seed(20261205)
    base = torch_common.random_base(torch, generator, torch.bfloat16)
    cache = torch_common.patterned(torch, (count, BLOCK_ELEMENTS), base, generator).to("cuda")
    # The cache is one tensor on the GPU and a block is a row of it, as in an inference server.
    state = {"blocks": list(cache.unbind(0))}
    del cache
    extra = {"blocks": count, "block_bytes": BLOCK_ELEMENTS * 2}

    if args.version == "as-written":
        def one_run():
            blocks = state["blocks"]
            torch.cuda.synchronize()
            start = workload.clock()
            host = [b.cpu() for b in blocks]
            swap_out = workload.clock() - start
            torch._foreach_zero_(blocks)
            del blocks
            state["blocks"] = None
            torch.cuda.synchronize()
            start = workload.clock()
            blocks = [h.to("cuda") for h in host]
            torch.cuda.synchronize()
            swap_in = workload.clock() - start
            state["blocks"] = blocks
            return {"swap_out": swap_out, "swap_in": swap_in}
    else:
        start = workload.clock()
        pool = torch.empty((count, BLOCK_ELEMENTS), dtype=torch.bfloat16, pin_memory=True)
        extra["setup_seconds"] = workload.clock() - start
        extra["hand_fix"] = HAND_FIX

        def one_run():
            blocks = state["blocks"]
            # The pool holds the last run's blocks: zeroed (untimed), so that a swap-out that
            # did not happen cannot pass for one that did.
            pool.zero_()
            torch.cuda.synchronize()
            start = workload.clock()
            for i, b in enumerate(blocks):
                pool[i].copy_(b, non_blocking=True)
            torch.cuda.synchronize()
            swap_out = workload.clock() - start
            torch._foreach_zero_(blocks)
            torch.cuda.synchronize()
            start = workload.clock()
            for i, b in enumerate(blocks):
                b.copy_(pool[i], non_blocking=True)
            torch.cuda.synchronize()
            swap_in = workload.clock() - start
            return {"swap_out": swap_out, "swap_in": swap_in}

    phases = workload.measure(args, one_run)
    blocks = state["blocks"]
    total = 2 * torch_common.nbytes(blocks)
    digest = torch_common.digest_tensors(torch, ((f"block {i}", b) for i, b in enumerate(blocks)))
    workload.report(NAME, args, phases, total, digest, **extra)


if __name__ == "__main__":
    main()
