# SPDX-License-Identifier: Apache-2.0
"""A checkpoint taken from the GPU: the state dict of torch_weights_to_gpu, on the GPU, brought to
the host as people write it, {k: v.cpu() for k, v in sd.items()} (new pageable tensors each
time), or as an expert does it: pinned host tensors allocated once and copy_(non_blocking=True)
into them, with one synchronize at the end. Prints one JSON line (bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import torch_common  # noqa: E402 - after the line above, so that no __pycache__ is written
import workload  # noqa: E402

NAME = "torch_checkpoint_to_host"
HAND_FIX = ("pinned host tensors allocated once (outside the timing: setup_seconds); "
            "copy_(non_blocking=True) into them; one synchronize")


def main():
    args = workload.options(__doc__)
    torch = torch_common.torch_or_skip(NAME)
    on_host = torch_common.decoder_state_dict(torch, args.quick)
    names = list(on_host)
    on_gpu = {k: v.to("cuda") for k, v in on_host.items()}
    del on_host
    torch.cuda.synchronize()
    extra = {"tensors": len(names)}
    result = {}

    if args.version == "as-written":
        def one_run():
            result.clear()
            torch.cuda.synchronize()
            start = workload.clock()
            checkpoint = {k: v.cpu() for k, v in on_gpu.items()}
            seconds = workload.clock() - start
            result.update(checkpoint)
            return {"d2h": seconds}
    else:
        start = workload.clock()
        result.update({k: torch.empty(v.shape, dtype=v.dtype, pin_memory=True)
                       for k, v in on_gpu.items()})
        extra["setup_seconds"] = workload.clock() - start
        extra["hand_fix"] = HAND_FIX

        def one_run():
            # Zeroed first (untimed), so that a copy that did not happen cannot pass for one
            # that did: these tensors hold the last run's checkpoint.
            for v in result.values():
                v.zero_()
            torch.cuda.synchronize()
            start = workload.clock()
            for k, v in on_gpu.items():
                result[k].copy_(v, non_blocking=True)
            torch.cuda.synchronize()
            return {"d2h": workload.clock() - start}

    phases = workload.measure(args, one_run)
    total = torch_common.nbytes(result.values())
    digest = torch_common.digest_tensors(torch, ((k, result[k]) for k in names))
    workload.report(NAME, args, phases, total, digest, **extra)


if __name__ == "__main__":
    main()
