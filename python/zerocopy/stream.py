# SPDX-License-Identifier: Apache-2.0
"""The streaming engine (zc_stream, include/zerocopy/stream.h) from Python: push numpy arrays of
samples, pull the filtered samples back in order, read the statistics; and the FIR pieces
around it (design, the double-precision reference, the error measure).

The engine's calls run with the GIL released, so one Python thread may push while another
pulls; one thread may also do both (a push that needs room moves finished results out itself).
"""

import ctypes
import math
from ctypes import POINTER, byref, c_float, c_int, c_size_t, c_uint32, c_void_p
from dataclasses import dataclass

from . import _lib
from . import _structs as S
from ._common import Stats, float32_array, float_ptr, numpy, stats_from
from .errors import Error, call, check, error_for, fit_args

lib = _lib.lib

_PROTOCOLS = {"flag": 0, "ll": 1}
_POLICIES = {"wait": 0, "drop": 1}
_VERIFY = {"none": 0, "sample": 1, "all": 2}
_NONFINITE = {"reject": 0, "zero": 1}
MODES = [
    name for name in (_lib.text(lib.zc_stream_mode_name(m)) for m in range(64)) if name != "unknown"
]
VERIFY_TOLERANCE = 1e-5  # ZC_STREAM_VERIFY_TOLERANCE
_ERR_TIMEOUT, _ERR_NOT_FOUND = -11, -16
_NS_MAX = 2**64 - 1  # a wait's nanoseconds are a uint64_t


def _choice(table, value, what):
    key = str(value).strip().lower()
    if key not in table:
        raise ValueError(f"zerocopy: unknown {what} {value!r} (one of {', '.join(table)})")
    return table[key]


def _wait_ns(seconds, what):
    """A wait of seconds as the engine's nanoseconds. Every wait must end: a negative, infinite
    or NaN time (a negative one would wrap to 584 years in the uint64_t) is a ValueError."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise ValueError(f"zerocopy: {what} must be a number of seconds, not {seconds!r}") from None
    if not math.isfinite(value) or value < 0 or value * 1e9 > _NS_MAX:
        raise ValueError(
            f"zerocopy: {what} {seconds!r} is not a finite number of seconds >= 0 (every wait needs a deadline)"
        )
    return int(value * 1e9)


def mode_value(name):
    """zc_stream_mode_parse: "zerocopy", "mapped-launch", "classic-pinned", "cpu", ..."""
    mode = c_int()
    call("zc_stream_mode_parse", str(name).encode(), byref(mode))
    return mode.value


@dataclass(frozen=True)
class LaneStats:
    device: int
    gpu_blocks: int
    buffers: int
    frames: int
    latency_us: Stats
    frames_per_s: float
    gb_per_s: float


@dataclass(frozen=True)
class StreamStats:
    """zc_stream_stats; histogram holds the bins that counted frames, as (lo_us, hi_us, count).
    verify_passed is False when no frame was checked (verified 0)."""

    samples_in: int
    samples_out: int
    samples_dropped: int
    samples_padded: int
    nonfinite: int
    first_nonfinite: int
    frames_submitted: int
    frames_received: int
    frames_dropped: int
    full_waits: int
    measured_offered: int
    measured_dropped: int
    frames_measured: int
    latency_us: Stats
    latency_kept: int
    histogram: list
    seconds: float
    frames_per_s: float
    samples_per_s: float
    gb_per_s: float
    verified: int
    max_rel_error: float
    verify_passed: bool
    finished: bool
    lead_values: int
    lanes: list


def _stream_stats(raw):
    lanes = [
        LaneStats(
            device=ln.device,
            gpu_blocks=ln.gpu_blocks,
            buffers=ln.buffers,
            frames=ln.frames,
            latency_us=stats_from(ln.latency_us),
            frames_per_s=ln.frames_per_s,
            gb_per_s=ln.gb_per_s,
        )
        for ln in raw.lane[: raw.lanes]
    ]
    histogram = [(b.lo_us, b.hi_us, b.count) for b in raw.histogram if b.count]
    fields = {}
    for name, _ in S.zc_stream_stats._fields_:
        if name in ("latency_us", "histogram", "lane", "lanes"):
            continue
        fields[name] = getattr(raw, name)
    fields["verify_passed"] = bool(raw.verify_passed)
    fields["finished"] = bool(raw.finished)
    return StreamStats(latency_us=stats_from(raw.latency_us), histogram=histogram, lanes=lanes, **fields)


class Stream:
    """A zc_stream: samples in, FIR-filtered samples out, through one of the engine's modes.

    taps: the filter's coefficients (1..1024). mode: "zerocopy" (persistent kernel polling a
    mapped ring), "mapped-launch", "classic-pageable", "classic-pinned", "classic-overlap",
    "graph", "stream-wait" (kernels queued behind a stream wait on a word the CPU writes),
    "hybrid" (zerocopy's kernel reads frames in place, results leave by the copy engine), or
    "cpu" (the filter on the host: no GPU needed). devices: the GPUs frames are
    dealt to (default GPU 0); lanes: the number of host lanes of the cpu mode. Times in seconds.
    channels 2 means complex samples, I and Q interleaved (or complex64 arrays).
    """

    def __init__(
        self,
        taps,
        mode="zerocopy",
        frame_samples=1024,
        channels=1,
        in_flight=1,
        protocol="ll",
        policy="wait",
        gpu_blocks=0,
        devices=None,
        lanes=None,
        timeout=2.0,
        watchdog=1.0,
        verify="sample",
        nonfinite="reject",
        warmup_frames=0,
        expected_frames=0,
        discard_output=False,
        queue_max_bytes=0,
    ):
        np = numpy()
        self._handle = None
        self.taps = float32_array(taps, "taps").copy()
        c = S.zc_stream_config()
        lib.zc_stream_config_init(byref(c))
        c.mode = mode_value(mode)
        c.protocol = _choice(_PROTOCOLS, protocol, "protocol")
        c.policy = _choice(_POLICIES, policy, "full policy")
        c.taps = float_ptr(self.taps)
        c.ntaps = self.taps.size
        c.frame_samples = int(frame_samples)
        c.channels = int(channels)
        c.in_flight = int(in_flight)
        c.gpu_blocks = int(gpu_blocks)
        if devices is None and lanes is not None:
            devices = [0] * int(lanes)  # cpu mode: the numbers are not used, only the count
        if devices is not None:
            self._devices = (c_int * max(len(devices), 1))(*[int(d) for d in devices])
            c.devices = ctypes.cast(self._devices, POINTER(c_int))
            c.device_count = len(devices)
        c.timeout_ns = _wait_ns(timeout, "timeout")
        c.watchdog_ns = int(watchdog * 1e9)
        c.verify = _choice(_VERIFY, verify, "verify")
        c.nonfinite = _choice(_NONFINITE, nonfinite, "non-finite policy")
        c.warmup_frames = int(warmup_frames)
        c.expected_frames = int(expected_frames)
        c.discard_output = 1 if discard_output else 0
        c.queue_max_bytes = int(queue_max_bytes)
        self.mode = _lib.text(lib.zc_stream_mode_name(c.mode))
        self.frame_samples = c.frame_samples
        self.channels = c.channels
        self.timeout = float(timeout)
        self._config = c
        handle = c_void_p()
        call("zc_stream_create", byref(c), byref(handle))
        self._handle = handle.value
        self._np = np

    # -- life ----------------------------------------------------------------------------
    def close(self):
        """Stop the kernels and free everything (results not pulled are lost)."""
        handle, self._handle = self._handle, None
        if handle:
            lib.zc_stream_destroy(handle)

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _h(self):
        if self._handle is None:
            raise ValueError("zerocopy: the stream is closed")
        return self._handle

    # -- samples in ----------------------------------------------------------------------
    def push(self, samples):
        """Take the samples (real numbers, (n,) or (n, 2) for a complex stream of channels=2,
        which also takes complex arrays as I/Q pairs; a complex array for a real stream is a
        TypeError); whole frames go to the GPU as they fill. Returns how many samples were taken; on a failure
        the exception's .accepted says how many were taken before it (push the rest again)."""
        arr = float32_array(samples, channels=self.channels)
        count = arr.size // self.channels
        if arr.size != count * self.channels:
            raise ValueError(f"zerocopy: {arr.size} values are not whole samples of {self.channels} channels")
        accepted = c_size_t(0)
        lib.zc_clear_error()
        status = lib.zc_stream_push(self._h(), float_ptr(arr), count, byref(accepted))
        if status != 0:
            err = error_for(status, "zc_stream_push")
            err.accepted = accepted.value
            raise err
        return accepted.value

    def flush(self):
        """End of input: the partial last frame is padded, filtered, and only its real samples
        come back."""
        call("zc_stream_flush", self._h())

    # -- samples out ---------------------------------------------------------------------
    def _shape(self, n):
        return (n, self.channels) if self.channels > 1 else (n,)

    def pull(self, max_samples=None, timeout=None, out=None):
        """Filtered samples, in order: a float32 array of up to max_samples samples (into out
        when given), waiting up to timeout seconds for the first (0: a poll). An empty array when
        none came in time; None once the stream is flushed and every sample was pulled. A
        negative or non-finite timeout is a ValueError: every wait has a deadline."""
        np = self._np
        if out is not None:
            target = out
            if target.dtype != np.float32 or not target.flags.c_contiguous or not target.flags.writeable:
                raise ValueError("zerocopy: out must be a writable, C-contiguous float32 array")
            max_samples = target.size // self.channels
        else:
            if max_samples is None:
                max_samples = self.frame_samples * max(int(self._config.in_flight), 1) * max(
                    int(self._config.device_count), 1
                ) * 4
            target = np.empty(int(max_samples) * self.channels, dtype=np.float32)
        wait_ns = _wait_ns(self.timeout if timeout is None else timeout, "timeout")
        got = c_size_t(0)
        lib.zc_clear_error()
        args = (self._h(), float_ptr(target), int(max_samples), wait_ns, byref(got))
        fit_args("zc_stream_pull", args)
        status = lib.zc_stream_pull(*args)
        if status == _ERR_NOT_FOUND and got.value == 0:
            return None
        if status == _ERR_TIMEOUT and got.value == 0 and wait_ns == 0:
            return target[:0].reshape(self._shape(0))
        check(status, "zc_stream_pull")
        n = got.value
        return target[: n * self.channels].reshape(self._shape(n))

    def process(self, samples, chunk=None):
        """Push every sample, flush, and return all the filtered samples (as many as went in,
        less any the drop policy dropped), pulling as it goes so the output queue never fills."""
        np = self._np
        arr = float32_array(samples, channels=self.channels).reshape(-1)
        step = (chunk or self.frame_samples * 16) * self.channels
        outs = []
        for start in range(0, arr.size, step):
            piece = arr[start : start + step]
            while piece.size:
                timed_out = None
                try:
                    taken = self.push(piece)
                except Error as e:
                    if getattr(e, "accepted", None) is None or e.status != _ERR_TIMEOUT:
                        raise
                    taken, timed_out = e.accepted, e  # the output queue was full: pull first
                piece = piece[taken * self.channels :]
                pulled = 0
                got = self.pull(timeout=0)
                while got is not None and got.size:
                    outs.append(got.copy())
                    pulled += got.size
                    got = self.pull(timeout=0)
                if timed_out is not None and taken == 0 and pulled == 0:
                    raise timed_out  # neither side moves: the lanes are stuck
        self.flush()
        while True:
            got = self.pull()
            if got is None:
                break
            outs.append(got.copy())
        if not outs:
            return np.empty(self._shape(0), dtype=np.float32)
        return np.concatenate([o.reshape(-1) for o in outs]).reshape(self._shape(-1))

    # -- one frame in place --------------------------------------------------------------
    def acquire_frame(self):
        """zc_stream_frame_acquire: the next frame's transport buffer as a numpy array (frame
        samples x channels values; under zerocopy FLAG the mapped ring slot itself), to fill and
        then publish_frame(). Valid only until publish."""
        ptr = POINTER(c_float)()
        call("zc_stream_frame_acquire", self._h(), byref(ptr))
        n = self.frame_samples * self.channels
        arr = self._np.ctypeslib.as_array(ptr, shape=(n,))
        return arr.reshape(self._shape(self.frame_samples))

    def publish_frame(self):
        call("zc_stream_frame_publish", self._h())

    def buffers(self):
        """zc_stream_buffers: how many distinct transport buffers acquire_frame cycles through."""
        count = c_uint32()
        call("zc_stream_buffers", self._h(), byref(count))
        return count.value

    def stats(self):
        """zc_stream_stats_get: counts, latency of every frame, throughput, verification."""
        raw = S.zc_stream_stats()
        call("zc_stream_stats_get", self._h(), byref(raw))
        return _stream_stats(raw)


def fir_lowpass(cutoff, ntaps):
    """zc_fir_design_lowpass: a windowed-sinc low-pass of ntaps taps, cutoff a fraction of the
    sample rate (0 < cutoff < 0.5), DC gain 1. A float32 numpy array."""
    np = numpy()
    taps = np.empty(int(ntaps), dtype=np.float32)
    call("zc_fir_design_lowpass", float(cutoff), int(ntaps), float_ptr(taps))
    return taps


def fir_reference(taps, frame, history=None, channels=1):
    """zc_fir_reference: the filter in double precision for one frame (interleaved when
    complex), given the (ntaps - 1) samples before it (zeros when None)."""
    np = numpy()
    taps = float32_array(taps, "taps")
    frame = float32_array(frame, "frame", channels=int(channels)).reshape(-1)
    hist_len = (taps.size - 1) * channels
    history = (np.zeros(hist_len, np.float32) if history is None
               else float32_array(history, "history", channels=int(channels)).reshape(-1))
    if history.size != hist_len:
        raise ValueError(f"zerocopy: history needs {hist_len} values, got {history.size}")
    out = np.empty(frame.size, dtype=np.float64)
    samples = frame.size // channels
    call(
        "zc_fir_reference",
        float_ptr(taps),
        taps.size,
        int(channels),
        float_ptr(history),
        float_ptr(frame),
        samples,
        out.ctypes.data_as(POINTER(ctypes.c_double)),
    )
    return out


def fir_error(reference, got, taps, max_abs_input):
    """zc_fir_error: max |got - reference| over sum |h| * max |x|, the engine's check figure
    (differences no larger than flushing subnormals to zero could make count as none)."""
    np = numpy()
    ref = np.ascontiguousarray(reference, dtype=np.float64).reshape(-1)
    got = float32_array(got, "got").reshape(-1)
    taps = float32_array(taps, "taps")
    if ref.size != got.size:
        raise ValueError(f"zerocopy: {ref.size} reference values against {got.size} results")
    return lib.zc_fir_error(
        ref.ctypes.data_as(POINTER(ctypes.c_double)),
        float_ptr(got),
        got.size,
        float_ptr(taps),
        taps.size,
        float(max_abs_input),
    )
