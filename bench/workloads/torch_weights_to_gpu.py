# SPDX-License-Identifier: Apache-2.0
"""A model's weights moved to the GPU: the state dict of a ~1.55 GB bf16 decoder (torch_common)
sent as people write it, {k: v.to("cuda") for k, v in sd.items()}, or as an expert does it: the
state dict pinned once, then copy_(non_blocking=True) into device tensors allocated once, with
one synchronize at the end. Prints one JSON line (bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import torch_common  # noqa: E402 - after the line above, so that no __pycache__ is written
import workload  # noqa: E402

NAME = "torch_weights_to_gpu"
HAND_FIX = ("state dict pinned once (pin_memory(), outside the timing: setup_seconds); "
            "copy_(non_blocking=True) into device tensors allocated once; one synchronize")


def main():
    args = workload.options(__doc__)
    torch = torch_common.torch_or_skip(NAME)
    sd = torch_common.decoder_state_dict(torch, args.quick)
    names = list(sd)
    extra = {"tensors": len(names)}
    result = {}

    def clear_result():
        # The previous result is zeroed before it goes, so that a copy that did not happen
        # cannot pass for one that did (the caching allocator hands the same memory back).
        if result:
            torch._foreach_zero_(list(result.values()))
            torch.cuda.synchronize()

    if args.version == "as-written":
        def one_run():
            clear_result()
            result.clear()
            torch.cuda.synchronize()
            start = workload.clock()
            on_gpu = {k: v.to("cuda") for k, v in sd.items()}
            torch.cuda.synchronize()
            seconds = workload.clock() - start
            result.update(on_gpu)
            return {"h2d": seconds}
    else:
        start = workload.clock()
        pinned = {k: v.pin_memory() for k, v in sd.items()}
        extra["setup_seconds"] = workload.clock() - start
        extra["hand_fix"] = HAND_FIX
        del sd
        result.update({k: torch.empty_like(v, device="cuda") for k, v in pinned.items()})

        def one_run():
            clear_result()
            start = workload.clock()
            for k, v in pinned.items():
                result[k].copy_(v, non_blocking=True)
            torch.cuda.synchronize()
            return {"h2d": workload.clock() - start}

    phases = workload.measure(args, one_run)
    total = torch_common.nbytes(result.values())
    digest = torch_common.digest_tensors(torch, ((k, result[k]) for k in names))
    workload.report(NAME, args, phases, total, digest, **extra)


if __name__ == "__main__":
    main()
