# SPDX-License-Identifier: Apache-2.0
"""The block mover's validation (bench/workloads/blocks_validate.py) without a GPU: the random
moves it draws stay within its bounds, the moves are the same whatever share of them runs beside
a kernel, a choice is judged right within 10% of the fastest engine and no further, and a run
is timed the way the docstrings say, alone and beside the kernel (against a stand-in for torch
that logs what is called, in order)."""
import math
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "workloads"))
sys.dont_write_bytecode = True
import blocks_validate as bv  # noqa: E402 - after the path above

KiB, MiB = 1 << 10, 1 << 20


def test_moves_within_bounds():
    moves, _ = bv.plan_moves(50, 2000, 128 * MiB, 0.0)
    assert len(moves) == 2000
    for size, count, direction in moves:
        assert 4 * KiB <= size <= 4 * MiB and size % (4 * KiB) == 0
        assert 1 <= count <= 4096 and size * count <= 128 * MiB
        assert direction in ("to_device", "to_host", "both")
    assert {d for _, _, d in moves} == {"to_device", "to_host", "both"}
    assert min(s for s, _, _ in moves) < 16 * KiB and max(s for s, _, _ in moves) > MiB


def test_beside_share_keeps_the_moves():
    alone, none = bv.plan_moves(50, 1000, 128 * MiB, 0.0)
    half_moves, half = bv.plan_moves(50, 1000, 128 * MiB, 0.5)
    _, every = bv.plan_moves(50, 1000, 128 * MiB, 1.0)
    assert half_moves == alone
    assert not any(none) and all(every)
    assert 400 <= sum(half) <= 600
    assert bv.plan_moves(51, 1000, 128 * MiB, 0.5)[0] != alone  # the seed does matter


@pytest.mark.parametrize("chosen,ratio,right", [("batch", 1.0, True), ("copy", 1.10, True),
                                                ("kernel", 1.12, False)])
def test_judge_within_ten_percent(chosen, ratio, right):
    seconds = {"batch": 1.0, "copy": 1.10, "kernel": 1.12}
    got_right, got_ratio = bv.judge(chosen, seconds)
    assert got_right is right and got_ratio == pytest.approx(ratio)


def test_judge_an_engine_not_measured():
    right, ratio = bv.judge("kernel", {"copy": 1.0, "batch": 2.0})
    assert not right and math.isinf(ratio)


def test_judgement_against_the_target():
    assert bv.judgement(0, 0) == {"right": 0, "judged": 0, "share": None, "target_met": False}
    assert bv.judgement(9, 10)["target_met"] and bv.judgement(9, 10)["share"] == 0.9
    assert not bv.judgement(89, 100)["target_met"]


class FakeTorch:
    """What the timing loops call of torch, each call logged in order. An event is seen complete
    on its query number `complete_after` (never when None)."""

    def __init__(self, complete_after=3):
        self.log = []
        self.complete_after = complete_after
        torch = self

        class Event:
            def __init__(self):
                self.queries = 0

            def record(self, stream):
                torch.log.append("record")

            def query(self):
                self.queries += 1
                torch.log.append("query")
                return torch.complete_after is not None and self.queries >= torch.complete_after

        class Cuda:
            @staticmethod
            def synchronize():
                torch.log.append("sync")

        Cuda.Event = Event
        self.cuda = Cuda


class FakeBeside:
    """The kernel beside: its queue seen run dry at every look."""

    def __init__(self, torch):
        self.torch = torch
        beside = self

        class Drained:
            @staticmethod
            def query():
                beside.torch.log.append("dry?")
                return True

        self.queued = Drained

    def top_up(self):
        self.torch.log.append("top_up")


def runner(torch):
    count = [0]

    def before():
        torch.log.append("before")

    def run():
        count[0] += 1
        torch.log.append("run")
        return count[0]

    return before, run


def test_timed_alone():
    torch = FakeTorch()
    before, run = runner(torch)
    times, result = bv.kv.timed(torch, before, run, 1, 3)
    assert len(times) == 3 and result == 4 and all(t >= 0 for t in times)
    assert torch.log == ["before", "sync", "run", "sync", "sync"] * 4


def test_timed_beside_the_kernel():
    torch = FakeTorch(complete_after=3)
    before, run = runner(torch)
    beside = FakeBeside(torch)
    times, result = bv.timed_beside(torch, beside, "stream", before, run, 1, 3)
    assert len(times) == 3 and result == 4
    # Each run: the kernel started after the synchronization and before the clock, the move's
    # event polled until complete, the kernel topped up whenever its queue ran dry meanwhile,
    # the GPU drained after.
    one = ["before", "sync", "top_up", "top_up", "run", "record"]
    first = one + ["query", "dry?", "top_up"] * 2 + ["query", "sync"]
    assert torch.log[:len(first)] == first
    assert torch.log.count("run") == 4 and torch.log.count("sync") == 8


def test_timed_beside_gives_up(monkeypatch):
    monkeypatch.setattr(bv, "BESIDE_LIMIT_S", 0.0)
    torch = FakeTorch(complete_after=None)
    before, run = runner(torch)
    with pytest.raises(RuntimeError, match="beside the kernel took more than"):
        bv.timed_beside(torch, FakeBeside(torch), "stream", before, run, 0, 3)
    assert torch.log[-1] == "sync"  # the GPU drained before giving up
