# SPDX-License-Identifier: Apache-2.0
"""The streaming engine on a GPU from numpy: zerocopy (both protocols) and copy-based modes,
every result checked against numpy's FIR."""
import os

import numpy as np
import pytest

import zerocopy

SMALL = bool(os.environ.get("ZC_UNDER_SANITIZER"))
TAPS = zerocopy.fir_lowpass(0.1, 63)


def check(y, x):
    ref = np.convolve(x.astype(np.float64), TAPS.astype(np.float64))[: x.size]
    assert y.shape == x.shape
    err = zerocopy.fir_error(ref, y, TAPS, float(np.max(np.abs(x))))
    assert err <= zerocopy.stream.VERIFY_TOLERANCE, err


def signal(n, seed=11):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, n).astype(np.float32)


@pytest.mark.parametrize("protocol", ["ll", "flag"])
def test_zerocopy_stream_from_numpy(gpu, protocol):
    frames = 20 if SMALL else 400
    x = signal(1024 * frames + 77)
    with zerocopy.Stream(TAPS, mode="zerocopy", protocol=protocol, frame_samples=1024,
                         in_flight=4, verify="all", devices=[gpu]) as s:
        y = s.process(x)
        st = s.stats()
    check(y, x)
    assert st.frames_received == frames + 1 and st.verified == frames + 1 and st.verify_passed
    assert st.samples_out == x.size and st.latency_us.count == frames + 1
    assert st.lanes[0].device == gpu and st.lanes[0].gpu_blocks >= 1


@pytest.mark.parametrize(
    "mode", ["mapped-launch", "classic-pinned", "classic-overlap", "stream-wait", "hybrid"]
)
def test_copy_and_launch_modes(gpu, mode):
    x = signal(4096 * (10 if SMALL else 60) + 5, 12)
    with zerocopy.Stream(TAPS, mode=mode, frame_samples=4096, in_flight=2, verify="all") as s:
        y = s.process(x)
        assert s.stats().verify_passed
    check(y, x)


def test_one_frame_at_a_time_round_trip(gpu):
    x = signal(1024 * (20 if SMALL else 500), 13)
    out = []
    with zerocopy.Stream(TAPS, mode="zerocopy", frame_samples=1024, verify="none") as s:
        for k in range(0, x.size, 1024):
            assert s.push(x[k : k + 1024]) == 1024
            got = s.pull(max_samples=1024, timeout=2.0)
            assert got is not None and got.size == 1024  # one frame in, its result out
            out.append(got.copy())
        s.flush()
        assert s.pull(timeout=1.0) is None
    check(np.concatenate(out), x)


def test_frames_written_into_the_mapped_ring(gpu):
    x = signal(1024 * 30, 14)
    out = []
    with zerocopy.Stream(TAPS, mode="zerocopy", protocol="flag", frame_samples=1024) as s:
        for k in range(30):
            s.acquire_frame()[:] = x[k * 1024 : (k + 1) * 1024]
            s.publish_frame()
            out.append(s.pull(max_samples=1024, timeout=2.0).copy())
        s.flush()
    check(np.concatenate(out), x)


def _child(code):
    """code in a fresh interpreter (a crash there fails this test instead of ending pytest)."""
    import subprocess
    import sys
    import textwrap

    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))


@pytest.mark.parametrize("mode", ["zerocopy", "classic-pinned"])
def test_close_while_another_thread_pushes_on_the_gpu(gpu, mode):
    r = _child(f"""
        import threading, time
        import numpy as np
        import zerocopy
        x = np.random.default_rng(0).uniform(-1, 1, 1 << 20).astype(np.float32)
        refused = 0
        for _ in range({3 if SMALL else 10}):
            s = zerocopy.Stream(zerocopy.fir_lowpass(0.1, 63), mode="{mode}", frame_samples=1024,
                                in_flight=4, policy="drop", discard_output=True)
            def push():
                global refused
                try:
                    while True:
                        s.push(x)
                except ValueError:
                    refused += 1
            t = threading.Thread(target=push)
            t.start()
            time.sleep(0.02)
            s.close()
            t.join(60)
            assert not t.is_alive()
        print("refused", refused)
    """)
    assert r.returncode == 0, f"rc {r.returncode}: {r.stderr[-2000:]}"
    assert "refused" in r.stdout


def test_a_write_into_a_mapped_ring_frame_after_close_raises(gpu):
    r = _child("""
        import zerocopy
        s = zerocopy.Stream(zerocopy.fir_lowpass(0.1, 63), mode="zerocopy", protocol="flag",
                            frame_samples=1 << 16)
        frame = s.acquire_frame()
        frame[:] = 0.25
        s.close()
        try:
            frame[:] = 1.0
            print("taken")
        except ValueError as e:
            print("refused:", e)
    """)
    assert r.returncode == 0, f"rc {r.returncode}: {r.stderr[-2000:]}"
    assert "refused:" in r.stdout
