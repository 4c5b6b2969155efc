# SPDX-License-Identifier: Apache-2.0
"""zerocopy.advise(trace=...): a zc trace document's workloads priced with a profile given by
hand, as `zc advise --trace` prices them (no GPU needed)."""

import json

import pytest
from hand_profile import hand_profile

import zerocopy


def _trace(classes, **extra):
    doc = {"schema": "zerocopy.trace/1", "traced": True, "gpu_span_s": 2.0,
           "copy_classes": classes}
    doc.update(extra)
    return doc


def _class(direction, src, dst, count, size, time_s=0.01):
    return {"direction": direction, "src_kind": src, "dst_kind": dst, "count": count,
            "bytes": count * size, "bytes_min": size, "bytes_max": size, "time_s": time_s}


def _needs_trace_advice():
    if not zerocopy._lib.has("zc_advise_trace_text") or not zerocopy._lib.has(
            "zc_profile_field_value"):
        pytest.skip("this libzerocopy has no zc_advise_trace_text")


def test_trace_groups_priced(tmp_path):
    _needs_trace_advice()
    doc = _trace([_class("h2d", "pageable", "device", 400, 4096),
                  _class("d2h", "device", "pinned", 10, 2 << 20),
                  _class("d2d", "device", "device", 3, 1 << 20)],
                 findings=[{"key": "pinned_alloc_in_loop", "count": 9, "time_s": 0.1,
                            "saving_s": 0.08}])
    a = zerocopy.advise(trace=doc, profile=hand_profile())
    assert isinstance(a, zerocopy.TraceAdvice) and a.sized and a.span_s == 2.0
    assert [(g.direction, g.host_kind, g.count) for g in a.groups] == [
        ("h2d", "pageable", 400), ("d2h", "pinned", 10)]
    small = a.groups[0]
    assert small.mean_bytes == 4096 and small.rate_hz == 200.0 and small.current == "pageable"
    assert small.reuse is None and small.measured_us == pytest.approx(1e4)
    assert small.now_us == small.predicted["pageable"]
    usable = [t for t in small.predicted.values() if t is not None]
    assert small.best_us == min(usable) and small.saving_us == pytest.approx(
        small.now_us - small.best_us)
    # The same workload asked for by hand is priced the same.
    by_hand = zerocopy.advise(size=4096, transfers=400, profile=hand_profile())
    assert {r.technique: r.total_us for r in by_hand.ranked if r.usable}["pageable"] == \
        pytest.approx(small.now_us)
    assert a.saving_us == pytest.approx(sum(g.saving_us for g in a.groups))
    assert [(u.what, u.count) for u in a.unpriced] == [("d2d device->device", 3)]
    assert "device-to-device" in a.unpriced[0].why
    assert a.pinning_cure == "pinning" and a.pinning_saving_s == 0.08
    # A path and JSON text give the same advice.
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    assert zerocopy.advise(trace=str(path), profile=hand_profile()) == a
    assert zerocopy.advise(trace=json.dumps(doc), profile=hand_profile()) == a


def test_trace_refused():
    _needs_trace_advice()
    with pytest.raises(zerocopy.ParseError) as info:
        zerocopy.advise(trace={"schema": "zerocopy.bench/1"}, profile=hand_profile())
    assert "not a zc trace document" in info.value.detail
    with pytest.raises(zerocopy.InvalidArgumentError):
        zerocopy.advise(trace={"schema": "zerocopy.trace/1", "traced": False},
                        profile=hand_profile())
    with pytest.raises(zerocopy.ParseError):
        zerocopy.advise(trace=b"", profile=hand_profile())
    with pytest.raises(TypeError):
        zerocopy.advise(trace=42, profile=hand_profile())
