# SPDX-License-Identifier: Apache-2.0
"""A small PyTorch training loop written as PyTorch's documentation advises for input pipelines:
the batches in pinned host memory allocated once, copied with non_blocking=True, the model and
optimizer on the GPU, one .item() at the end; then one child process started with
multiprocessing's spawn that runs a CUDA step of its own. zc trace must trace both processes and
find no pitfall. Exit 0 when the child's result is right."""
import multiprocessing
import sys

import torch


def child_step(queue):
    x = torch.ones(1024, 1024, device="cuda")
    queue.put(float((x @ x).sum().item()))


def main():
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(512, 1024, device=device),
        torch.nn.ReLU(),
        torch.nn.Linear(1024, 10, device=device),
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    batches = [torch.randn(256, 512).pin_memory() for _ in range(4)]
    labels = [torch.randint(0, 10, (256,)).pin_memory() for _ in range(4)]
    for step in range(50):
        x = batches[step % 4].to(device, non_blocking=True)
        y = labels[step % 4].to(device, non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    torch.cuda.synchronize()
    final = loss.item()

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=child_step, args=(queue,))
    child.start()
    result = queue.get(timeout=120)
    child.join(timeout=120)
    print(f"trace torch train: loss {final:.3f}, child result {result:.0f}, "
          f"child exit {child.exitcode}")
    return 0 if child.exitcode == 0 and result == 1024.0**3 else 1


if __name__ == "__main__":
    sys.exit(main())
