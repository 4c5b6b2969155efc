# SPDX-License-Identifier: Apache-2.0
"""The streaming engine's cpu mode from numpy: every sample back, in order, equal to numpy's own
FIR (np.convolve), whatever the lengths, lanes and channels; statistics; errors."""
import threading

import numpy as np
import pytest

import zerocopy

TAPS = zerocopy.fir_lowpass(0.1, 33)


def reference(x, taps=TAPS):
    """The causal FIR in double precision: y[n] = sum_k h[k] x[n - k]."""
    return np.convolve(x.astype(np.float64), taps.astype(np.float64))[: x.shape[0]]


def signal(n, seed=1):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, n).astype(np.float32)


def check(y, x, taps=TAPS):
    ref = reference(x, taps)
    assert y.shape == x.shape
    err = zerocopy.fir_error(ref, y, taps, float(np.max(np.abs(x))))
    assert err <= zerocopy.stream.VERIFY_TOLERANCE, err
    return err


def test_fir_design_is_a_lowpass():
    assert TAPS.dtype == np.float32 and TAPS.size == 33
    assert abs(float(TAPS.astype(np.float64).sum()) - 1.0) < 1e-6  # DC gain 1
    with pytest.raises(zerocopy.InvalidArgumentError):
        zerocopy.fir_lowpass(0.7, 33)


@pytest.mark.parametrize("n,frame,lanes", [(256 * 40, 256, 1), (256 * 40 + 77, 256, 1), (47, 48, 1), (3001, 16, 4), (9999, 512, 3)])
def test_cpu_mode_equals_numpy_convolve(n, frame, lanes):
    x = signal(n)
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=frame, lanes=lanes, verify="all") as s:
        y = s.process(x, chunk=frame * 3 + 5)
        st = s.stats()
    check(y, x)
    frames = -(-n // frame)
    assert (st.samples_in, st.samples_out, st.samples_dropped) == (n, n, 0)
    assert st.frames_submitted == st.frames_received == frames
    assert st.samples_padded == frames * frame - n
    assert st.verified == frames and st.verify_passed and st.finished
    assert len(st.lanes) == lanes and sum(ln.frames for ln in st.lanes) == frames
    assert st.latency_us.count == frames and st.latency_us.median > 0
    assert sum(count for _, _, count in st.histogram) == frames


def test_complex_samples_are_filtered_apart():
    n = 5000
    i, q = signal(n, 2), signal(n, 3)
    x = np.stack([i, q], axis=1)  # (n, 2): I and Q interleaved
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64, channels=2) as s:
        y = s.process(x)
    assert y.shape == (n, 2)
    check(y[:, 0].copy(), i)
    check(y[:, 1].copy(), q)


def test_push_and_pull_by_hand_from_two_threads():
    x = signal(200000, 4)
    out = []
    # A long timeout: the producer waits for the consumer thread, which a busy machine may
    # leave unscheduled for a while.
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=512, lanes=2, in_flight=2,
                         queue_max_bytes=4 * 512 * 4, timeout=20.0) as s:

        def consume():
            while True:
                got = s.pull(timeout=5.0)
                if got is None:
                    return
                out.append(got.copy())

        t = threading.Thread(target=consume)
        t.start()
        for start in range(0, x.size, 1500):
            assert s.push(x[start : start + 1500]) == min(1500, x.size - start)
        s.flush()
        t.join(30)
        assert not t.is_alive()
    check(np.concatenate(out), x)


def test_frames_written_in_place():
    x = signal(64 * 10, 5)
    got = []
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64) as s:
        assert s.buffers() >= 1
        for k in range(10):
            frame = s.acquire_frame()
            assert frame.shape == (64,)
            frame[:] = x[k * 64 : (k + 1) * 64]
            s.publish_frame()
            r = s.pull(timeout=1.0)
            if r is not None and r.size:
                got.append(r.copy())
        s.flush()
        while (r := s.pull()) is not None:
            got.append(r.copy())
    check(np.concatenate(got), x)


def test_pull_after_the_end_is_none_and_push_after_flush_fails():
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64) as s:
        s.flush()
        assert s.pull(timeout=0) is None
        with pytest.raises(zerocopy.StateError) as info:
            s.push(signal(10))
        assert info.value.name == "ERR_STATE" and info.value.detail


def test_nonfinite_samples_are_refused_with_what_was_taken():
    x = signal(300, 6)
    x[123] = np.nan
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64) as s:
        with pytest.raises(zerocopy.ParseError) as info:
            s.push(x)
        assert info.value.accepted == 123
        assert "123" in info.value.detail
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64, nonfinite="zero") as s:
        y = s.process(x)
        assert s.stats().nonfinite == 1 and s.stats().first_nonfinite == 123
    x[123] = 0.0
    check(y, x)


def test_bad_configuration_is_an_exception_naming_it():
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        zerocopy.Stream(TAPS, mode="cpu", frame_samples=8)  # ntaps - 1 > frame_samples
    assert info.value.detail
    with pytest.raises(zerocopy.Error):
        zerocopy.Stream(TAPS, mode="warp-drive")
    with pytest.raises(ValueError):
        zerocopy.Stream(TAPS, mode="cpu", protocol="smoke-signals")


def test_reference_matches_numpy():
    x = signal(1000, 7)
    assert np.max(np.abs(zerocopy.fir_reference(TAPS, x) - reference(x))) < 1e-9


BAD_TIMEOUTS = [-1, -0.001, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("bad", BAD_TIMEOUTS)
def test_a_wait_without_a_deadline_is_refused_by_the_constructor(bad):
    with pytest.raises(ValueError, match="timeout"):
        zerocopy.Stream(TAPS, mode="cpu", frame_samples=64, timeout=bad)


@pytest.mark.parametrize("bad", BAD_TIMEOUTS)
def test_a_wait_without_a_deadline_is_refused_by_pull(bad):
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64, timeout=0.5) as s:
        outcome = []

        def pull():
            try:
                outcome.append(s.pull(timeout=bad))
            except Exception as e:  # the outcome is checked below, in the test's thread
                outcome.append(e)

        # In a thread, so that a pull that would wait for ever fails the test instead of
        # hanging it; the flush below ends such a wait before the stream is closed.
        t = threading.Thread(target=pull, daemon=True)
        t.start()
        t.join(2.0)
        blocked = t.is_alive()
        s.flush()
        t.join(10.0)
        assert not blocked, f"pull(timeout={bad}) waited with no deadline"
        assert len(outcome) == 1 and isinstance(outcome[0], ValueError), outcome
        assert "timeout" in str(outcome[0])
        assert s.pull(timeout=0) is None  # a finite wait still works
