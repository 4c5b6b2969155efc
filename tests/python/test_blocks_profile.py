# SPDX-License-Identifier: Apache-2.0
"""The block mover's measured profile from Python without a GPU: the committed H100 bench
document fitted by the library (BlocksProfile.from_bench, what Mover.use_profile sets), the
engines it ranks for a move, and every document it cannot fit refused with the library's status
and detail, or, for a path or text that is no document, with Python's own error naming it."""
import json
import os
import threading

import pytest

import zerocopy
from zerocopy import BlocksProfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
H100 = os.path.join(ROOT, "bench", "results", "h100-20261206c", "call3-blocks", "blocks.json")
KiB, MiB = 1 << 10, 1 << 20


def stand_in_mover(handle=0):
    """A Mover without a GPU: handle 0 hands the library a NULL mover, None is a closed one."""
    mover = zerocopy.Mover.__new__(zerocopy.Mover)
    mover._handle, mover._lock, mover.device, mover._profile = handle, threading.Lock(), 0, None
    return mover


@pytest.fixture(scope="module")
def h100():
    return BlocksProfile.from_bench(H100)


def test_the_placeholders_are_not_measured():
    p = BlocksProfile.default()
    assert not p.measured and p.fit is None and p.batch_max >= 1
    assert set(p.to_device) == set(p.to_host) == {"copy", "batch", "kernel"}
    assert p.to_device["copy"].gbps > 0


def test_the_h100_document_fits_a_measured_profile(h100):
    assert h100.measured and h100.source == H100
    for d in (h100.to_device, h100.to_host):
        for engine, cost in d.items():
            assert cost.gbps > 0 and cost.call_us >= 0 and cost.block_us >= 0, engine
    fit = h100.fit
    # The default mode's four block sizes, 4 KiB to 4 MiB, each engine on each of them.
    assert fit["block_bytes"] == (4 * KiB, 4 * MiB)
    for direction in ("to_device", "to_host"):
        for engine in ("copy", "batch", "kernel"):
            assert fit[direction][engine]["points"] == 4
            assert fit[direction][engine]["worst"] < 0.25
    assert fit["sms"] == 8  # the mover's default SM limit, below the H100's 132


def test_the_same_document_as_text_bytes_or_dict_fits_the_same(h100):
    text = open(H100).read()
    for doc in (text, text.encode(), json.loads(text)):
        other = BlocksProfile.from_bench(doc)
        assert other.to_device == h100.to_device and other.to_host == h100.to_host


@pytest.mark.parametrize("size,count,direction,engine", [
    # The engines measured fastest in the H100's document (docs/blocks.md's table).
    (4 * KiB, 4096, "to_device", "kernel"),
    (4 * KiB, 4096, "to_host", "kernel"),
    (64 * KiB, 4096, "to_device", "batch"),
    (64 * KiB, 4096, "to_host", "kernel"),
    (1 * MiB, 256, "to_device", "batch"),
    (4 * MiB, 64, "to_host", "batch"),
])
def test_the_fitted_profile_chooses_what_was_measured_fastest(h100, size, count, direction,
                                                              engine):
    advice = h100.advise(size, count, direction)
    assert advice.choice == engine and not advice.outside
    assert [o.engine for o in advice.ranked][0] == engine
    times = [o.predicted_us for o in advice.ranked]
    assert times == sorted(times) and len(times) == 3


def test_a_move_outside_the_measured_ones_says_so(h100):
    assert h100.advise(4 * KiB, 2, "to_device").outside


def test_advice_refuses_what_is_no_move(h100):
    with pytest.raises(zerocopy.InvalidArgumentError):
        h100.advise(0, 16)
    with pytest.raises(ValueError, match="direction='sideways'"):
        h100.advise(4096, 16, "sideways")


def test_use_profile_reaches_the_library():
    # zc_blocks_set_profile is called with the fitted profile: a NULL mover is its refusal.
    mover = stand_in_mover(handle=0)
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        mover.use_profile(H100)
    assert info.value.call == "zc_blocks_set_profile" and "mover" in info.value.detail
    assert not mover.profile_measured  # nothing set


def test_a_mover_starts_with_the_placeholders_and_a_closed_one_takes_nothing(h100):
    mover = stand_in_mover(handle=None)
    assert not mover.profile_measured and mover.profile.source == "placeholders"
    with pytest.raises(ValueError, match="the mover is closed"):
        mover.use_profile(h100)


@pytest.mark.skipif(zerocopy.device_count() == 0, reason="a Mover needs a GPU")
def test_use_profile_on_a_gpu_plans_with_it():
    device = zerocopy.empty((64, 4096), "uint8", kind="device")
    pinned = zerocopy.empty((64, 4096), "uint8", kind="pinned")
    with zerocopy.Mover() as mover:
        assert not mover.profile_measured
        before = mover.plan(device, pinned, to_device=(range(32), range(32, 64)))
        assert mover.use_profile(H100).measured and mover.profile_measured
        after = mover.plan(device, pinned, to_device=(range(32), range(32, 64)))
    assert after.predicted_us != before.predicted_us  # the measured costs, not the placeholders
    assert after.engine == min(after.predicted_us, key=after.predicted_us.get)


# -- what cannot be fitted ---------------------------------------------------------------------
def test_a_wrong_path_names_it(tmp_path):
    missing = tmp_path / "no-such-bench.json"
    with pytest.raises(FileNotFoundError, match="cannot read the bench document") as info:
        BlocksProfile.from_bench(str(missing))
    assert info.value.filename == str(missing)
    with pytest.raises(FileNotFoundError):
        stand_in_mover().use_profile(missing)


def test_text_that_is_not_json_is_a_value_error(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text("{ not json")
    with pytest.raises(ValueError, match="is not JSON"):
        BlocksProfile.from_bench(path)
    with pytest.raises(TypeError, match="zc bench --case blocks --json"):
        BlocksProfile.from_bench(42)


def test_a_document_of_another_kind_is_a_parse_error():
    with pytest.raises(zerocopy.ParseError) as info:
        BlocksProfile.from_bench({"schema": "zerocopy.trace/1"})
    assert info.value.call == "zc_blocks_bench_from_json"
    assert "zerocopy.trace/1" in info.value.detail and "zc bench" in info.value.detail


def _bench_doc(keep):
    doc = json.load(open(H100))
    doc["cases"] = [c for c in doc["cases"] if keep(c)]
    return doc


def test_a_bench_document_without_blocks_is_not_found():
    with pytest.raises(zerocopy.NotFoundError) as info:
        BlocksProfile.from_bench(_bench_doc(lambda c: False))
    assert "blocks" in info.value.detail


def test_one_block_size_is_too_few_to_fit():
    # What `zc bench --quick` measures: one block size.
    doc = _bench_doc(lambda c: c["key"] in ("blocks.h2d", "blocks.d2h"))
    for c in doc["cases"]:
        c["points"] = [p for p in c["points"] if p["bytes"] == 64 * KiB]
    with pytest.raises(zerocopy.NotFoundError) as info:
        BlocksProfile.from_bench(doc)
    assert info.value.detail


def test_a_point_of_no_size_is_refused_naming_it():
    doc = _bench_doc(lambda c: c["key"] in ("blocks.h2d", "blocks.d2h"))
    point = next(p for p in doc["cases"][0]["points"] if p["variant"] == "batch")
    point["bytes"] = 0
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        BlocksProfile.from_bench(doc)
    assert "blocks.h2d, batch at 0 bytes" in info.value.detail
