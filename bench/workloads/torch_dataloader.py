# SPDX-License-Identifier: Apache-2.0
"""An epoch of a DataLoader feeding the GPU: 2048 uint8 images of 3x224x224 with int64 labels
(308 MB; 256 images with --quick) in a TensorDataset, shuffled with a seeded generator, batches
of 64, num_workers=0, each batch sent with .to("cuda") and reduced there (the sums of its
pixels and of its labels). As people write it: pin_memory=False and blocking copies; as an
expert does it: pin_memory=True and non_blocking=True. One timed run is one epoch, from the
first batch drawn to the last sum computed. Prints one JSON line (bench/workloads/README.md)."""
import sys

sys.dont_write_bytecode = True
import torch_common  # noqa: E402 - after the line above, so that no __pycache__ is written
import workload  # noqa: E402

NAME = "torch_dataloader"
HAND_FIX = "DataLoader(pin_memory=True); .to('cuda', non_blocking=True) for every batch"
SEED = 20261205


def main():
    args = workload.options(__doc__)
    torch = torch_common.torch_or_skip(NAME)
    from torch.utils.data import DataLoader, TensorDataset

    count = 256 if args.quick else 2048
    generator = torch.Generator().manual_seed(SEED)
    base = torch_common.random_base(torch, generator, torch.uint8)
    images = torch_common.patterned(torch, (count, 3, 224, 224), base, generator)
    labels = torch.randint(0, 1000, (count,), dtype=torch.int64, generator=generator)
    fixed = args.version == "hand-fixed"
    order = torch.Generator()
    loader = DataLoader(TensorDataset(images, labels), batch_size=64, shuffle=True,
                        generator=order, num_workers=0, pin_memory=fixed)
    sums = []

    def one_run():
        # The order generator is seeded again before each epoch, so that every epoch, and
        # every version, draws the batches in the same order.
        order.manual_seed(SEED)
        torch.cuda.synchronize()
        start = workload.clock()
        per_batch = []
        for x, y in loader:
            x = x.to("cuda", non_blocking=fixed)
            y = y.to("cuda", non_blocking=fixed)
            per_batch.append(torch.stack((x.sum(dtype=torch.int64), y.sum())))
        epoch = torch.stack(per_batch)
        torch.cuda.synchronize()
        seconds = workload.clock() - start
        sums.append(epoch)
        return {"epoch": seconds}

    phases = workload.measure(args, one_run)
    # Every epoch must have given the same sums: the digest is of the last, the check of all.
    for i, epoch in enumerate(sums):
        if not torch.equal(epoch, sums[-1]):
            sys.exit(f"{NAME}: epoch {i} summed differently from the last")
    digest = workload.Digest()
    digest.add("per-batch pixel and label sums", sums[-1].cpu().numpy())
    total = torch_common.nbytes((images, labels))
    extra = {"images": count, "batch": 64}
    if fixed:
        extra["hand_fix"] = HAND_FIX
    workload.report(NAME, args, phases, total, digest.hexdigest(), **extra)


if __name__ == "__main__":
    main()
