# SPDX-License-Identifier: Apache-2.0
"""info(), bench() and advise() without a GPU: partial info with the reason, the bench catalogue,
NoDeviceError for a run, and the cost model ranking a profile given by hand."""
import pytest

import zerocopy
from hand_profile import hand_profile

HAVE_GPU = zerocopy.device_count() > 0


@pytest.mark.skipif(HAVE_GPU, reason="checks what happens without a GPU")
def test_info_without_gpu_is_partial_and_says_why():
    info = zerocopy.info()
    assert info.version == zerocopy.__version__ and info.libzerocopy == zerocopy.libzerocopy_path
    assert info.device_count == 0 and info.devices == [] and info.peers == []
    assert "ERR_NO_DEVICE" in info.error and "cudaGetDeviceCount" in info.error


def test_bench_catalogue():
    cases = zerocopy.bench_cases()
    keys = [c.key for c in cases]
    assert "copy.h2d.pinned" in keys and len(keys) == len(set(keys))
    assert all(c.title for c in cases)
    m = zerocopy.bench_method("quick")
    assert m.mode == "quick" and m.warmups >= 1 and "median" in m.text


def test_bench_selection_errors_name_the_pattern():
    with pytest.raises(zerocopy.NotFoundError) as info:
        zerocopy.bench("no.such.case")
    assert "no.such.case" in info.value.detail


@pytest.mark.skipif(HAVE_GPU, reason="checks what happens without a GPU")
def test_bench_without_gpu_is_no_device():
    with pytest.raises(zerocopy.NoDeviceError):
        zerocopy.bench("copy.h2d.pinned")


def test_advise_ranks_a_profile_given_by_hand():
    if not zerocopy._lib.has("zc_profile_field_value"):
        pytest.skip("this libzerocopy sets profile figures by struct only")
    p = hand_profile()
    assert p["launch_sync_us"] == 8.0 and "launch_sync_us" in zerocopy.Profile.keys()
    a = zerocopy.advise(size="4K", transfers=1000, direction="h2d", profile=p)
    assert a.device_name == "a hand-made GPU" and a.workload["bytes"] == 4096
    assert a.ranked and a.best.usable and a.best.per_transfer_us > 0
    assert a.explanation and a.best.per_transfer_us <= a.best.total_us
    assert any("assumed" in line for line in a.assumptions)
    totals = [r.total_us for r in a.ranked if r.usable and r.meets_budget and r.meets_rate]
    assert totals == sorted(totals)  # best first
    assert p["copy_latency_us.pageable"] == 0.0  # the caller's profile is left as it was
    again = zerocopy.Profile.from_dict(p.to_dict())
    assert again.to_dict() == p.to_dict()


def test_advise_refuses_a_bad_workload_or_profile():
    if not zerocopy._lib.has("zc_profile_field_value"):
        pytest.skip("this libzerocopy sets profile figures by struct only")
    with pytest.raises(zerocopy.InvalidArgumentError):
        zerocopy.advise(size=0, profile=hand_profile())
    with pytest.raises(zerocopy.Error):
        zerocopy.advise(direction="sideways", profile=hand_profile())
    empty = zerocopy.Profile()
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        zerocopy.advise(profile=empty)
    assert "pinned" in info.value.detail or "launch" in info.value.detail
    with pytest.raises(KeyError):
        empty["no_such_figure"]


def test_stream_advice_from_runs_measured_here():
    if not zerocopy._lib.has("zc_stream_advise"):
        pytest.skip("this libzerocopy has no stream advice")
    import numpy as np

    taps = zerocopy.fir_lowpass(0.1, 33)
    p = zerocopy.Profile("this CPU")
    with pytest.raises(zerocopy.NotFoundError):
        zerocopy.advise_stream(4096, profile=p)  # no stream run yet
    with zerocopy.Stream(taps, mode="cpu", frame_samples=1024) as s:
        s.process(np.zeros(1024 * 50, np.float32))
        p.add_stream(s)  # a run measured just now, in the cpu mode
    p.add_stream_run("zerocopy", 4096, p50_us=5.0, p99_us=6.0, gbps=0.8, protocol="ll")
    a = zerocopy.advise_stream(4096, rate_hz=1000.0, profile=p)
    names = [o.name for o in a.ranked]
    assert "cpu" in names and "zerocopy-ll" in names and len(names) == len(set(names))
    usable = [o for o in a.ranked if o.usable]
    assert {o.name for o in usable} == {"cpu", "zerocopy-ll"}
    assert a.ranked[0].usable and a.explanation
    assert all(o.nearest_bytes == 4096 for o in usable)
