# SPDX-License-Identifier: Apache-2.0
"""Small copies, the ones zc run must leave as fast as they were: a loop of 4000 steps (500
with --quick), each sending a 16 KiB float32 input to the GPU, reducing it there and reading the
loss back, as a training or evaluation loop logs its loss. As people write it: x.to("cuda") from
pageable memory and loss.item() each step, two blocking copies a step; as an expert does it:
the inputs pinned once, .to("cuda", non_blocking=True) each step, the losses kept on the GPU and
read back once at the end. The losses are the same in both (one reduction kernel per step, the
same inputs). No cure speeds up a copy this small; the workload is here so that the cured run
shows it is no slower than the uncured one. Prints one JSON line (bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import torch_common  # noqa: E402 - after the line above, so that no __pycache__ is written
import workload  # noqa: E402

NAME = "torch_small_steps"
HAND_FIX = ("inputs pinned once (outside the timing: setup_seconds); "
            ".to('cuda', non_blocking=True) each step; the losses kept on the GPU and read "
            "back once")
INPUT_ELEMENTS = 4096  # 16 KiB of float32


def main():
    args = workload.options(__doc__)
    torch = torch_common.torch_or_skip(NAME)
    steps = 500 if args.quick else 4000
    generator = torch.Generator().manual_seed(20261207)
    inputs = list(torch.randn((steps, INPUT_ELEMENTS), generator=generator).unbind(0))
    weight = torch.randn(INPUT_ELEMENTS, generator=generator).to("cuda")
    extra = {"steps": steps, "input_bytes": INPUT_ELEMENTS * 4}
    result = {}

    if args.version == "as-written":
        def one_run():
            torch.cuda.synchronize()
            start = workload.clock()
            losses = []
            for x in inputs:
                loss = (x.to("cuda") * weight).sum()
                losses.append(loss.item())
            seconds = workload.clock() - start
            result["losses"] = torch.tensor(losses, dtype=torch.float32)
            return {"steps": seconds}
    else:
        start = workload.clock()
        pinned = [x.pin_memory() for x in inputs]
        extra["setup_seconds"] = workload.clock() - start
        extra["hand_fix"] = HAND_FIX
        on_gpu = torch.empty(steps, dtype=torch.float32, device="cuda")

        def one_run():
            on_gpu.zero_()
            torch.cuda.synchronize()
            start = workload.clock()
            for i, x in enumerate(pinned):
                on_gpu[i] = (x.to("cuda", non_blocking=True) * weight).sum()
            losses = on_gpu.cpu()
            seconds = workload.clock() - start
            result["losses"] = losses
            return {"steps": seconds}

    phases = workload.measure(args, one_run)
    # Every byte the timed steps move: each input to the GPU and each loss back.
    total = steps * (INPUT_ELEMENTS * 4 + 4)
    digest = torch_common.digest_tensors(torch, [("losses", result["losses"])])
    workload.report(NAME, args, phases, total, digest, **extra)


if __name__ == "__main__":
    main()
