# SPDX-License-Identifier: Apache-2.0
"""The streaming engine (zc_stream, include/zerocopy/stream.h) from Python: push numpy arrays of
samples, pull the filtered samples back in order, read the statistics; and the FIR pieces
around it (design, the double-precision reference, the error measure).

The engine's calls run with the GIL released, so one Python thread may push while another
pulls; one thread may also do both (a push that needs room moves finished results out itself).
Calls of one side (push, flush and the frames in place; pull) take turns, and close() waits
for the calls under way, then frees the engine: a call made after it, or a write into a frame
acquired before it, raises ValueError instead of touching freed memory.
"""

import ctypes
import math
import threading
from contextlib import contextmanager
from ctypes import POINTER, byref, c_float, c_int, c_size_t, c_uint32, c_void_p
from dataclasses import dataclass

from . import _lib
from . import _structs as S
from ._common import Stats, float32_array, float_ptr, numpy, samples_array, stats_from
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
    Samples are float32 (other floats converted); int16 and uint8 arrays are scaled to [-1, 1)
    as `zc stream --format s16` / `u8` reads them (v / 32768, (v - 127.5) / 127.5).
    """

    # Class defaults, so that close() (and __del__) of a stream whose __init__ failed early
    # finds a closed stream instead of raising a second, unrelated error.
    _handle = None
    _closed = True
    _frame = None

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
        # The guard: close() waits until no call is under way (_busy), and calls of one side
        # take turns (two pushes at once are not the engine's contract).
        self._state = threading.Condition()
        self._busy = 0
        self._side = {"in": threading.Lock(), "out": threading.Lock()}
        call("zc_stream_create", byref(c), byref(handle))
        self._handle = handle.value
        self._closed = False
        self._np = np

    # -- life ----------------------------------------------------------------------------
    def close(self):
        """Stop the kernels and free everything (results not pulled are lost). Waits for the
        calls under way in other threads (each ends by its timeout); every later call, and any
        write into a frame from acquire_frame, raises ValueError."""
        state = self.__dict__.get("_state")
        if state is None:  # __init__ failed before the engine was made: nothing to free
            return
        with state:
            if self._closed:
                return
            self._closed = True
            self._drop_frame()
            while self._busy:
                state.wait()
            handle, self._handle = self._handle, None
        if handle:
            lib.zc_stream_destroy(handle)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def _using(self, side=None):
        """The engine's handle for one call: refused once closed, counted as under way so that
        close() waits for it, and taking turns with the calls of the same side."""
        lock = self._side[side] if side else None
        if lock is not None:
            lock.acquire()
        try:
            with self._state:
                if self._closed:
                    raise ValueError("zerocopy: the stream is closed")
                self._busy += 1
            try:
                yield self._handle
            finally:
                with self._state:
                    self._busy -= 1
                    self._state.notify_all()
        finally:
            if lock is not None:
                lock.release()

    def _drop_frame(self):
        frame, self._frame = self._frame, None
        if frame is not None:
            frame._invalidate()

    # -- samples in ----------------------------------------------------------------------
    def push(self, samples):
        """Take the samples (real numbers, (n,) or (n, 2) for a complex stream of channels=2,
        which also takes complex arrays as I/Q pairs; a complex array for a real stream is a
        TypeError); whole frames go to the GPU as they fill. Returns how many samples were taken; on a failure
        the exception's .accepted says how many were taken before it (push the rest again)."""
        arr = samples_array(samples, self.channels)
        count = arr.size // self.channels
        if arr.size != count * self.channels:
            raise ValueError(f"zerocopy: {arr.size} values are not whole samples of {self.channels} channels")
        accepted = c_size_t(0)
        with self._using("in") as handle:
            lib.zc_clear_error()
            status = lib.zc_stream_push(handle, float_ptr(arr), count, byref(accepted))
        if status != 0:
            err = error_for(status, "zc_stream_push")
            err.accepted = accepted.value
            raise err
        return accepted.value

    def flush(self):
        """End of input: the partial last frame is padded, filtered, and only its real samples
        come back."""
        with self._using("in") as handle:
            call("zc_stream_flush", handle)

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
        with self._using("out") as handle:
            lib.zc_clear_error()
            args = (handle, float_ptr(target), int(max_samples), wait_ns, byref(got))
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
        less any the drop policy dropped), pulling as it goes so the output queue never fills.
        An (n, 1) input gives (n, 1) back."""
        np = self._np
        column = self.channels == 1 and np.ndim(samples) == 2
        arr = samples_array(samples, self.channels)  # (n,) or (n, 2): sliced by samples
        step = chunk or self.frame_samples * 16
        outs = []
        for start in range(0, arr.shape[0], step):
            piece = arr[start : start + step]
            while piece.size:
                timed_out = None
                try:
                    taken = self.push(piece)
                except Error as e:
                    if getattr(e, "accepted", None) is None or e.status != _ERR_TIMEOUT:
                        raise
                    taken, timed_out = e.accepted, e  # the output queue was full: pull first
                piece = piece[taken:]
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
            y = np.empty(self._shape(0), dtype=np.float32)
        else:
            y = np.concatenate([o.reshape(-1) for o in outs]).reshape(self._shape(-1))
        return y.reshape(-1, 1) if column else y

    # -- one frame in place --------------------------------------------------------------
    def acquire_frame(self):
        """zc_stream_frame_acquire: the next frame's transport buffer (frame samples x channels
        float32 values; under zerocopy FLAG the mapped ring slot itself) as a Frame, to fill
        (frame[:] = x) and then publish_frame(). Valid only until publish_frame(), the next
        acquire_frame() or close(): a write after them raises ValueError."""
        ptr = POINTER(c_float)()
        with self._using("in") as handle:
            call("zc_stream_frame_acquire", handle, byref(ptr))
            n = self.frame_samples * self.channels
            arr = self._np.ctypeslib.as_array(ptr, shape=(n,)).reshape(self._shape(self.frame_samples))
            with self._state:
                self._drop_frame()
                self._frame = Frame(self, arr)
                return self._frame

    def publish_frame(self):
        with self._using("in") as handle:
            with self._state:
                self._drop_frame()
            call("zc_stream_frame_publish", handle)

    def buffers(self):
        """zc_stream_buffers: how many distinct transport buffers acquire_frame cycles through."""
        count = c_uint32()
        with self._using() as handle:
            call("zc_stream_buffers", handle, byref(count))
        return count.value

    def stats(self):
        """zc_stream_stats_get: counts, latency of every frame, throughput, verification."""
        raw = S.zc_stream_stats()
        with self._using() as handle:
            call("zc_stream_stats_get", handle, byref(raw))
        return _stream_stats(raw)


class Frame:
    """One acquired frame of a Stream: its transport buffer, written in place with
    frame[...] = values and read with frame[...] or numpy.asarray(frame) (copies). Every access
    checks, under the stream's guard, that the frame is still the stream's: after
    publish_frame(), the next acquire_frame() or close() it raises ValueError, the memory being
    the engine's again, or freed. The buffer itself is never handed out, so that nothing can
    keep writing into it behind the check."""

    __slots__ = ("_stream", "_array", "shape", "dtype", "size")

    def __init__(self, stream, array):
        self._stream = stream
        self._array = array
        self.shape, self.dtype, self.size = array.shape, array.dtype, array.size

    def _invalidate(self):
        self._array = None

    @property
    def valid(self):
        """Whether the frame may still be written (acquired, not yet published or closed)."""
        return self._array is not None

    def _live(self):
        if self._array is None:
            raise ValueError("zerocopy: the frame was published, replaced or its stream closed: "
                             "acquire_frame() again")
        return self._array

    def __setitem__(self, index, values):
        with self._stream._state:
            self._live()[index] = values

    def __getitem__(self, index):
        with self._stream._state:
            return self._live()[index].copy()

    def fill(self, value):
        self[...] = value

    def __len__(self):
        return self.shape[0]

    def __array__(self, dtype=None, copy=None):
        with self._stream._state:
            out = self._live().copy()
        return out if dtype is None else out.astype(dtype)

    def __repr__(self):
        return f"<zerocopy.Frame {self.shape} float32{'' if self.valid else ', released'}>"


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
