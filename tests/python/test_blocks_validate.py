# SPDX-License-Identifier: Apache-2.0
"""The block mover's validation (bench/workloads/blocks_validate.py) without a GPU: the random
moves it draws stay within its bounds, the moves are the same whatever share of them runs beside
a kernel, and a choice is judged right within 10% of the fastest engine and no further."""
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
