# SPDX-License-Identifier: Apache-2.0
"""What a newcomer meets first, without a GPU: advice from a profile `zc advise --save-profile`
wrote, the stream's sample formats and shapes, a Stream without numpy, a pageable pool's
statistics, and closing a stream under another thread's push or a frame's late write (each in
a child process: before the guard they ended the interpreter with SIGSEGV)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import zerocopy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
H200 = os.path.join(ROOT, "tests", "advise", "h200.profile.json")
TAPS = zerocopy.fir_lowpass(0.1, 33)


def _child(code, timeout=120):
    """code run by a fresh interpreter with the package and library of this run."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))


# -- advise from a saved profile ------------------------------------------------------------

def test_advise_reads_the_profile_document_zc_saves_from_a_path_a_dict_or_text():
    with open(H200) as f:
        doc = json.load(f)
    assert doc["schema"].startswith("zerocopy.profile/")
    by_path = zerocopy.advise(size="1M", transfers=1000, profile=H200)
    by_dict = zerocopy.advise(size="1M", transfers=1000, profile=doc)
    by_text = zerocopy.advise(size="1M", transfers=1000, profile=json.dumps(doc))
    ranking = [(r.technique, r.total_us) for r in by_path.ranked]
    assert ranking == [(r.technique, r.total_us) for r in by_dict.ranked]
    assert ranking == [(r.technique, r.total_us) for r in by_text.ranked]
    assert by_path.best.usable and by_path.assumptions  # what the document left out, assumed


def test_a_saved_profile_s_figures_are_the_document_s():
    p = zerocopy.Profile.load(H200)
    assert p.device_name == "NVIDIA H200"
    assert p["launch_sync_us"] == 8.0 and p["device_gbps"] == 4000.0
    assert p["mapped_read_gbps.coalesced"] == 51.4
    assert p.copy_curve("pinned", "h2d")[:2] == [(4096, 0.493), (65536, 6.7)]
    assert p["enqueue_us"] == 0.0  # not in the document: not measured, assumed only by advice


def test_a_bad_profile_document_is_a_value_error_naming_the_field():
    with pytest.raises(zerocopy.ParseError, match="launch_sync_us"):
        zerocopy.advise(profile={"schema": "zerocopy.profile/2", "launch_sync_us": "fast"})
    with pytest.raises(ValueError, match="not JSON"):
        zerocopy.Profile.from_document(b"{not json")
    with pytest.raises(TypeError):
        zerocopy.advise(profile=42)


def test_the_package_s_own_dict_still_works():
    p = zerocopy.Profile.load(H200)
    again = zerocopy.advise(size="4K", profile=p.to_dict())
    assert again.best.technique == zerocopy.advise(size="4K", profile=p).best.technique


# -- the stream's input ---------------------------------------------------------------------

def _identity(x, **kw):
    with zerocopy.Stream([1.0], mode="cpu", frame_samples=8, **kw) as s:
        return s.process(x)


def test_int16_samples_are_scaled_as_zc_stream_reads_s16():
    x = np.array([0, 16384, -32768, 32767, -1, 1, 8192, -8192], np.int16)
    y = _identity(x)
    assert y.dtype == np.float32
    assert np.array_equal(y, x.astype(np.float32) / 32768.0)
    assert -1.0 <= y.min() and y.max() < 1.0


def test_uint8_samples_are_scaled_as_zc_stream_reads_u8():
    x = np.array([0, 255, 127, 128, 64, 192, 1, 254], np.uint8)
    assert np.allclose(_identity(x), (x.astype(np.float32) - 127.5) / 127.5)


def test_complex_int16_pairs_are_scaled_too():
    x = np.array([[16384, -16384], [32767, -32768]] * 4, np.int16)
    y = _identity(x, channels=2)
    assert y.shape == (8, 2) and np.array_equal(y, x.astype(np.float32) / 32768.0)


@pytest.mark.parametrize("shape,channels", [((4, 3), 1), ((2, 4), 1), ((4, 2, 1), 1), ((4, 3), 2), ((2, 2, 2), 2)])
def test_other_shapes_are_refused_not_flattened(shape, channels):
    x = np.ones(shape, np.float32)
    with zerocopy.Stream([1.0], mode="cpu", frame_samples=8, channels=channels) as s:
        with pytest.raises(ValueError, match="nothing is flattened"):
            s.push(x)
        with pytest.raises(ValueError, match="nothing is flattened"):
            s.process(x)
        assert s.stats().samples_in == 0


def test_a_column_is_one_channel():
    x = np.arange(20, dtype=np.float32).reshape(20, 1) / 20
    y = _identity(x)
    assert y.shape == (20, 1) and np.array_equal(y, x)


def test_a_stream_without_numpy_raises_one_clean_import_error():
    r = _child("""
        import sys
        sys.modules["numpy"] = None  # as if numpy were not installed
        import zerocopy
        try:
            zerocopy.Stream([1.0], mode="cpu")
        except ImportError as e:
            print("ImportError:", e, "| cause:", e.__cause__, "| context suppressed:", e.__suppress_context__)
    """)
    assert r.returncode == 0, r.stderr
    assert "ImportError: zerocopy: this needs numpy" in r.stdout and "cause: None" in r.stdout
    assert "context suppressed: True" in r.stdout
    assert r.stderr == "", r.stderr  # no "Exception ignored in ... AttributeError" after it


# -- pools ----------------------------------------------------------------------------------

def test_a_pageable_pool_reports_bytes_held_not_bytes_pinned():
    with zerocopy.Pool("pageable", device=-1) as pool:
        b = pool.alloc(1 << 20)
        s = pool.stats()
        assert s.kind == "pageable" and s.pinned is False
        assert s.bytes_held == s.bytes_in_use + s.bytes_cached >= 1 << 20
        assert s.peak_bytes_held >= s.bytes_held
        assert not hasattr(s, "bytes_pinned")
        b.close()


# -- closing under use ----------------------------------------------------------------------

def test_close_while_another_thread_pushes_does_not_crash():
    r = _child("""
        import threading, time
        import numpy as np
        import zerocopy
        x = np.random.default_rng(0).uniform(-1, 1, 1 << 20).astype(np.float32)
        outcomes = set()
        for _ in range(15):
            s = zerocopy.Stream(zerocopy.fir_lowpass(0.1, 33), mode="cpu", frame_samples=1024,
                                policy="drop")
            def push():
                try:
                    while True:
                        s.push(x)
                except ValueError as e:
                    outcomes.add(str(e))
            t = threading.Thread(target=push)
            t.start()
            time.sleep(0.005)
            s.close()
            t.join(30)
            assert not t.is_alive()
        print(sorted(outcomes))
    """)
    assert r.returncode == 0, f"rc {r.returncode}: {r.stderr[-2000:]}"
    assert "the stream is closed" in r.stdout


def test_a_write_into_a_frame_after_close_raises():
    r = _child("""
        import numpy as np
        import zerocopy
        s = zerocopy.Stream(zerocopy.fir_lowpass(0.1, 33), mode="cpu", frame_samples=1 << 16)
        frame = s.acquire_frame()
        frame[:] = 0.5
        assert frame.valid and float(np.asarray(frame)[7]) == 0.5
        s.close()
        assert not frame.valid
        for write in (lambda: frame.__setitem__(slice(None), 1.0), lambda: frame.fill(2.0),
                      lambda: frame[3], lambda: np.asarray(frame)):
            try:
                write()
                print("taken")
            except ValueError as e:
                print("refused:", e)
    """)
    assert r.returncode == 0, f"rc {r.returncode}: {r.stderr[-2000:]}"
    assert r.stdout.count("refused:") == 4 and "taken" not in r.stdout


def test_a_frame_is_the_stream_s_only_until_publish():
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64) as s:
        frame = s.acquire_frame()
        frame[:] = np.ones(64, np.float32)
        s.publish_frame()
        with pytest.raises(ValueError, match="published"):
            frame[:] = 0.0
        s.flush()
    with pytest.raises(ValueError, match="closed"):
        s.acquire_frame()
