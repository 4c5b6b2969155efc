# SPDX-License-Identifier: Apache-2.0
"""Which technique fits a workload (zc_advise_*): the machine profile, the ranking of every
technique with its predicted cost, and the runner that measures one for real; the engine
behind `zc advise`, as Python objects."""

import ctypes
import json
import os
from ctypes import byref, c_int
from dataclasses import dataclass

from . import _lib
from . import _structs as S
from ._common import size_bytes
from .errors import by_status, call

lib = _lib.lib
# The kinds of host memory copies start from: the library's memory kinds marked so.
HOST_KINDS = [key for _, _, key, props in _lib.memory_kinds() if props & S.KIND_COPY_SOURCE]
DIRECTIONS = [_lib.text(lib.zc_direction_key(d)) for d in range(3)]
ACCESSES = [_lib.text(lib.zc_access_key(a)) for a in range(S.ACCESS_COUNT)]
TECHNIQUES = [_lib.text(lib.zc_technique_key(t)) for t in range(S.TECH_COUNT)]
_NOTES_SIZE = 4096


def _key(parse, key, what):
    value = c_int()
    call(parse, str(key).encode(), byref(value))
    return value.value


def _size(size, what="size", max_bytes=S.SIZE_MAX):
    """A byte count: an int, or text as `zc advise --bytes` reads it ("4K", "1.5M", "1T")."""
    return size_bytes(size, what, max_bytes)


def _unsupported(function, what):
    return by_status[-6](-6, f"this libzerocopy ({_lib.path}) has no {function}", what)


class Profile:
    """zc_profile: the measured figures of one machine that the cost model needs.

    Figures are read and set by their stable keys, the ones `zc advise --save-profile` writes
    ("launch_sync_us", "copy_latency_us.pinned"; 0 is "not measured"): profile["device_gbps"],
    profile["device_gbps"] = 3900.0. Copy curves are set with add_copy. measure_profile()
    measures one on a GPU; to_dict/from_dict keep it.
    """

    def __init__(self, device_name="", source="python"):
        # Opaque storage the size of any zc_profile (see _structs.PROFILE_BYTES); only its
        # first members are mirrored.
        self._mem = ctypes.create_string_buffer(S.PROFILE_BYTES)
        self._raw = S.zc_profile.from_buffer(self._mem)
        call("zc_profile_init", self._ptr())
        self.device_name = device_name
        self.source = source

    def _ptr(self):
        return ctypes.addressof(self._mem)

    @property
    def device_name(self):
        return _lib.text(self._raw.device_name)

    @device_name.setter
    def device_name(self, value):
        self._raw.device_name = str(value).encode()[:127]

    @property
    def source(self):
        return _lib.text(self._raw.source)

    @source.setter
    def source(self, value):
        self._raw.source = str(value).encode()[:255]

    # -- scalar figures by key -----------------------------------------------------------
    @staticmethod
    def keys():
        """Every scalar figure's key, in the library's order."""
        if not _lib.has("zc_profile_field_key"):
            raise _unsupported("zc_profile_field_key", "Profile.keys")
        out = []
        for i in range(1024):
            key = lib.zc_profile_field_key(i)
            if not key:
                break
            out.append(_lib.text(key))
        return out

    def _field(self, key):
        if not _lib.has("zc_profile_field_from_key"):
            raise _unsupported("zc_profile_field_from_key", "Profile figures")
        field = c_int()
        lib.zc_clear_error()
        status = lib.zc_profile_field_from_key(str(key).encode(), byref(field))
        if status != 0:
            raise KeyError(f"zerocopy: no profile figure {key!r}")
        return field.value

    def __getitem__(self, key):
        return lib.zc_profile_field_value(self._ptr(), self._field(key))[0]

    def __setitem__(self, key, value):
        # A figure given from Python is the caller's measurement (ZC_ORIGIN_MEASURED).
        call("zc_profile_set", self._ptr(), self._field(key), float(value), 1)

    # -- copy curves ---------------------------------------------------------------------
    def _curve(self, kind, direction):
        k = _key("zc_copy_kind_from_key", kind, "host kind")
        d = _key("zc_direction_from_key", direction, "direction")
        if d > 1:
            raise ValueError("zerocopy: a copy curve is h2d or d2h")
        return self._raw.copy[k][d]

    def add_copy(self, kind, direction, size, gbps):
        """zc_curve_add: one measured synchronous copy (bytes, GB/s) of a host kind
        ("pageable", "pinned", "write_combined", "registered"), "h2d" or "d2h"."""
        call("zc_curve_add", byref(self._curve(kind, direction)), _size(size, "size"), float(gbps))

    def copy_curve(self, kind, direction):
        c = self._curve(kind, direction)
        return [(c.bytes[i], c.gbps[i]) for i in range(c.count)]

    # -- zc stream runs, for stream advice -----------------------------------------------
    def add_stream_run(self, mode, frame_bytes, p50_us, p99_us, gbps, protocol="ll", in_flight=1,
                       gpu_blocks=0):
        """zc_profile_add_stream: one measured run of a stream mode at one frame size."""
        if not _lib.has("zc_profile_add_stream"):
            raise _unsupported("zc_profile_add_stream", "Profile.add_stream_run")
        from .stream import _PROTOCOLS, mode_value

        point = S.zc_stream_point()
        point.mode = mode_value(mode)
        point.protocol = _PROTOCOLS[str(protocol).lower()] if point.mode == 0 else 0
        point.frame_bytes = _size(frame_bytes, "frame_bytes")
        point.in_flight = int(in_flight)
        point.gpu_blocks = int(gpu_blocks)
        point.p50_us, point.p99_us, point.gbps = float(p50_us), float(p99_us), float(gbps)
        call("zc_profile_add_stream", self._ptr(), byref(point))

    def add_stream(self, stream):
        """Add what a finished zerocopy.Stream measured (its mode, frame size, latency, GB/s)."""
        st = stream.stats()
        c = stream._config
        lane = st.lanes[0] if st.lanes else None
        self.add_stream_run(
            stream.mode,
            stream.frame_samples * stream.channels * 4,
            st.latency_us.median,
            st.latency_us.p99,
            st.gb_per_s,
            protocol="ll" if c.protocol == 1 else "flag",
            in_flight=c.in_flight,
            gpu_blocks=lane.gpu_blocks if lane else 0,
        )

    # -- whole profiles ------------------------------------------------------------------
    def copy(self):
        other = Profile()
        ctypes.memmove(other._ptr(), self._ptr(), S.PROFILE_BYTES)
        return other

    def fill_gaps(self):
        """zc_profile_fill_gaps: derive what can be derived; returns the assumptions made, one
        per line. InvalidArgumentError naming what is missing when it cannot be completed."""
        notes = ctypes.create_string_buffer(_NOTES_SIZE)
        call("zc_profile_fill_gaps", self._ptr(), notes, _NOTES_SIZE)
        return [line for line in _lib.text(notes.value).splitlines() if line.strip()]

    def to_dict(self):
        figures = {key: self[key] for key in self.keys()}
        return {
            "device_name": self.device_name,
            "source": self.source,
            "figures": {k: v for k, v in figures.items() if v},
            "copy": {
                f"{kind}.{direction}": self.copy_curve(kind, direction)
                for kind in HOST_KINDS
                for direction in DIRECTIONS[:2]
                if self.copy_curve(kind, direction)
            },
        }

    @classmethod
    def from_document(cls, document, source=None):
        """The profile of a `zc advise --save-profile` document ("zerocopy.profile/N") or of a
        `zc bench --json` document ("zerocopy.bench/1"), read by the library's own reader
        (zc_profile_from_document, as `zc advise --profile FILE` reads it). document: a path,
        the JSON text or bytes, or the dict json.load made of it. The figures are the ones the
        document measured (what it assumed is assumed again when advice completes the
        profile); no GPU is needed. ParseError (a ValueError) naming the bad field."""
        for name in ("zc_profile_from_document", "cJSON_ParseWithLength", "cJSON_Delete"):
            if not _lib.has(name):
                raise _unsupported(name, "Profile.from_document")
        text, named = _document_text(document, "a zc advise --save-profile or zc bench --json document")
        source = source if source is not None else named
        tree = lib.cJSON_ParseWithLength(text, len(text))
        if not tree:
            at = lib.cJSON_GetErrorPtr() if _lib.has("cJSON_GetErrorPtr") else None
            where = ""
            if at:
                # cJSON points into text (alive here, and NUL-terminated as every bytes object)
                where = f" near {ctypes.string_at(at)[:40].decode('utf-8', 'replace')!r}"
            raise ValueError(f"zerocopy: {source or 'the profile document'} is not JSON{where}")
        try:
            completed = cls()
            p = cls()
            notes = ctypes.create_string_buffer(_NOTES_SIZE)
            call("zc_profile_from_document", tree, (source or "python").encode(), completed._ptr(),
                 p._ptr(), notes, _NOTES_SIZE)
        finally:
            lib.cJSON_Delete(tree)
        return p

    @classmethod
    def load(cls, path):
        """Profile.from_document of the file at path (`zc advise --save-profile PATH`)."""
        return cls.from_document(os.fspath(path))

    @classmethod
    def from_dict(cls, d):
        p = cls(d.get("device_name", ""), d.get("source", "python"))
        for key, value in d.get("figures", {}).items():
            p[key] = value
        for key, points in d.get("copy", {}).items():
            kind, direction = key.split(".")
            for size, gbps in points:
                p.add_copy(kind, direction, size, gbps)
        return p


def measure_profile(device=0, mode="quick", progress=None):
    """Measure this machine's profile on GPU device with the library's own engine, in this
    process (zc_profile_measure: the bench cases the model reads, then the profile built from
    their results; zc_advise_calibrate in libraries before it). Returns (profile, notes)."""
    p = Profile()
    notes = ctypes.create_string_buffer(_NOTES_SIZE)
    if _lib.has("zc_profile_measure"):
        from .bench import _mode

        callback = S.BENCH_PROGRESS_FN()  # NULL: ctypes refuses None for a function argument
        if progress is not None:
            callback = S.BENCH_PROGRESS_FN(lambda user, key, fraction: progress(_lib.text(key), fraction))
        call("zc_profile_measure", int(device), _mode(mode), callback, None, p._ptr(), notes, _NOTES_SIZE)
    elif _lib.has("zc_advise_calibrate"):
        call("zc_advise_calibrate", int(device), p._ptr())
    else:
        raise _unsupported("zc_profile_measure", "measure_profile")
    return p, [line for line in _lib.text(notes.value).splitlines() if line.strip()]


@dataclass(frozen=True)
class Prediction:
    technique: str
    title: str
    usable: bool
    per_transfer_us: float
    steady_us: float
    setup_us: float
    total_us: float
    fixed_us: float
    link_us: float
    compute_us: float
    cpu_us: float
    meets_budget: bool
    meets_rate: bool


@dataclass(frozen=True)
class Advice:
    """The ranking of every technique for the workload, best first, and why the first wins."""

    device_name: str
    profile_source: str
    assumptions: list
    workload: dict
    transfers: float
    ranked: list
    explanation: str

    @property
    def best(self):
        return self.ranked[0]


@dataclass(frozen=True)
class Measurement:
    technique: str
    transfers: float
    setup_us: float
    per_transfer_us: float
    total_us: float
    verified: bool


def workload(size=4096, transfers=1000, rate_hz=0.0, direction="h2d", accesses=1.0,
             pattern="coalesced", concurrent=False, latency_budget_us=0.0):
    """A checked zc_workload (zc_workload_check)."""
    w = S.zc_workload()
    w.bytes = _size(size, "size", S.WORKLOAD_BYTES_MAX)
    w.transfers = float(transfers)
    w.rate_hz = float(rate_hz)
    w.direction = _key("zc_direction_from_key", direction, "direction")
    w.gpu_accesses = float(accesses)
    w.pattern = _key("zc_access_from_key", pattern, "pattern")
    w.concurrent = 1 if concurrent else 0
    w.latency_budget_us = float(latency_budget_us)
    call("zc_workload_check", byref(w))
    return w


def _workload_dict(w):
    return {
        "bytes": w.bytes,
        "transfers": w.transfers,
        "rate_hz": w.rate_hz,
        "direction": DIRECTIONS[w.direction],
        "accesses": w.gpu_accesses,
        "pattern": ACCESSES[w.pattern],
        "concurrent": bool(w.concurrent),
        "latency_budget_us": w.latency_budget_us,
    }


@dataclass(frozen=True)
class TraceGroup:
    """One workload a traced program forms (zc_trace_group): copies of one direction and host
    memory kind whose sizes fall in [size_class, 2 * size_class), priced for every technique."""

    direction: str
    host_kind: str
    size_class: int
    bytes_min: int
    bytes_max: int
    mean_bytes: int
    count: int
    bytes: int
    async_count: int
    rate_hz: float
    reuse: object  # True, False, or None when the trace does not say
    measured_us: float
    current: str
    now_us: float
    copies_us: float
    best: str
    best_us: float
    saving_us: float
    cure: str  # the `zc run --fix` list that applies, "" when none
    predicted: dict  # technique key -> total_us, None where the profile cannot price it


@dataclass(frozen=True)
class Unpriced:
    """A part of the traced program the advice could not price, and why."""

    what: str
    count: int
    bytes: int
    time_s: float
    why: str


@dataclass(frozen=True)
class TraceAdvice:
    """zc_advise_trace: a traced program's workloads priced, the totals and what was not."""

    device_name: str
    profile_source: str
    assumptions: list
    span_s: float
    sized: bool
    groups: list
    measured_us: float
    now_us: float
    best_us: float
    saving_us: float
    pinning_cure: str
    pinning_saving_s: object  # None when not known
    unpriced: list


def _document_text(doc, what):
    """A JSON document's bytes and the name it goes by (its path, or None): from a dict (the
    parsed document), JSON text or bytes, or a path."""
    if isinstance(doc, dict):
        return json.dumps(doc).encode(), None
    if isinstance(doc, (bytes, bytearray)):
        return bytes(doc), None
    if isinstance(doc, str) and doc.lstrip().startswith("{"):
        return doc.encode(), None
    if isinstance(doc, (str, os.PathLike)):
        with open(doc, "rb") as f:
            return f.read(), os.fspath(doc)
    raise TypeError(f"zerocopy: {what} (a path, its text or bytes, or a dict), got {doc!r}")


def _trace_text(trace):
    """The trace document's bytes: a dict (the parsed document), JSON text or bytes, or a path."""
    return _document_text(trace, "trace: a zc trace --json document")[0]


def as_profile(profile):
    """A Profile from what advise takes as profile: a Profile; a saved profile or bench
    document (a path, its text or bytes, or its dict: Profile.from_document); a dict of
    Profile.to_dict; or None (returned as it is: measure one)."""
    if profile is None or isinstance(profile, Profile):
        return profile
    if isinstance(profile, dict) and "schema" not in profile and ("figures" in profile or "copy" in profile):
        return Profile.from_dict(profile)
    return Profile.from_document(profile)


def _trace_group(g):
    predicted = {
        TECHNIQUES[t]: (p.total_us if p.usable else None) for t, p in enumerate(g.predicted)
    }
    return TraceGroup(
        direction=DIRECTIONS[g.workload.direction],
        host_kind=_lib.text(lib.zc_buffer_kind_key(g.host_kind)),
        size_class=g.size_class,
        bytes_min=g.bytes_min,
        bytes_max=g.bytes_max,
        mean_bytes=g.workload.bytes,
        count=g.count,
        bytes=g.bytes,
        async_count=g.async_count,
        rate_hz=g.rate_hz,
        reuse=None if g.reuse < 0 else bool(g.reuse),
        measured_us=g.measured_us,
        current=TECHNIQUES[g.current],
        now_us=g.now_us,
        copies_us=g.copies_us,
        best=TECHNIQUES[g.best],
        best_us=g.best_us,
        saving_us=g.saving_us,
        cure=_lib.text(g.cure),
        predicted=predicted,
    )


def _completed_profile(profile, device):
    """The profile advice prices with: a copy of profile, or one measured on GPU device now,
    completed with fill_gaps; and what measuring and completing it assumed."""
    notes = []
    profile = as_profile(profile)
    if profile is None:
        p, notes = measure_profile(device)
    else:
        p = profile.copy()
    return p, notes + p.fill_gaps()


def _advise_trace(trace, profile, device):
    if not _lib.has("zc_advise_trace_text"):
        raise _unsupported("zc_advise_trace_text", "advise(trace=...)")
    text = _trace_text(trace)
    p, assumptions = _completed_profile(profile, device)
    a = S.zc_trace_advice()
    call("zc_advise_trace_text", p._ptr(), text, len(text), byref(a))
    return TraceAdvice(
        device_name=p.device_name,
        profile_source=p.source,
        assumptions=assumptions,
        span_s=a.span_s,
        sized=bool(a.sized),
        groups=[_trace_group(g) for g in a.groups[: a.group_count]],
        measured_us=a.measured_us,
        now_us=a.now_us,
        best_us=a.best_us,
        saving_us=a.saving_us,
        pinning_cure=_lib.text(a.pinning_cure),
        pinning_saving_s=a.pinning_saving_s if a.pinning_saving_s >= 0 else None,
        unpriced=[
            Unpriced(_lib.text(u.what), u.count, u.bytes, u.time_s, _lib.text(u.why))
            for u in a.unpriced[: a.unpriced_count]
        ],
    )


def advise(size=4096, transfers=1000, rate_hz=0.0, direction="h2d", accesses=1.0,
           pattern="coalesced", concurrent=False, latency_budget_us=0.0, profile=None, device=0,
           trace=None):
    """Rank every technique for the workload (zc_advise_rank). profile: a Profile (copied and
    completed with fill_gaps, which needs no GPU); a document `zc advise --save-profile` or
    `zc bench --json` wrote, as a path, its text or its dict (Profile.from_document, as
    `zc advise --profile FILE`: no GPU needed either); or None to measure one on GPU device
    now (measure_profile, as `zc advise` without --profile does).

    trace: a `zc trace --json` document (a path, its text or bytes, or the parsed dict): then
    the program's own workloads are priced instead (zc_advise_trace, as `zc advise --trace`)
    and a TraceAdvice comes back; the workload arguments are not used."""
    if trace is not None:
        return _advise_trace(trace, profile, device)
    w = workload(size, transfers, rate_hz, direction, accesses, pattern, concurrent, latency_budget_us)
    p, assumptions = _completed_profile(profile, device)
    rec = S.zc_recommendation()
    call("zc_advise_rank", p._ptr(), byref(w), byref(rec))
    ranked = []
    for r in rec.ranked[: rec.count]:
        ranked.append(
            Prediction(
                technique=TECHNIQUES[r.technique],
                title=_lib.text(lib.zc_technique_title(r.technique)),
                usable=bool(r.usable),
                per_transfer_us=r.per_transfer_us,
                steady_us=r.steady_us,
                setup_us=r.setup_us,
                total_us=r.total_us,
                fixed_us=r.fixed_us,
                link_us=r.link_us,
                compute_us=r.compute_us,
                cpu_us=r.cpu_us,
                meets_budget=bool(r.meets_budget),
                meets_rate=bool(r.meets_rate),
            )
        )
    return Advice(
        device_name=p.device_name,
        profile_source=p.source,
        assumptions=assumptions,
        workload=_workload_dict(w),
        transfers=lib.zc_workload_transfer_count(byref(w)),
        ranked=ranked,
        explanation=_lib.text(rec.explanation),
    )


def measure(technique, size=4096, transfers=1000, rate_hz=0.0, direction="h2d", accesses=1.0,
            pattern="coalesced", concurrent=False, latency_budget_us=0.0, device=0, max_seconds=0.2):
    """zc_advise_run: run the workload for real with one technique on GPU device and measure
    it (the result verified); what `zc advise --validate` compares the predictions with."""
    w = workload(size, transfers, rate_hz, direction, accesses, pattern, concurrent, latency_budget_us)
    tech = _key("zc_technique_from_key", technique, "technique")
    m = S.zc_measurement()
    call("zc_advise_run", int(device), byref(w), tech, float(max_seconds), byref(m))
    return Measurement(
        technique=TECHNIQUES[m.technique],
        transfers=m.transfers,
        setup_us=m.setup_us,
        per_transfer_us=m.per_transfer_us,
        total_us=m.total_us,
        verified=bool(m.verified),
    )


@dataclass(frozen=True)
class StreamOption:
    name: str  # "zerocopy-ll", "mapped-launch", ... as zc stream names its runs
    usable: bool
    gpu_blocks: int
    in_flight: int
    p50_us: float
    p99_us: float
    gbps: float
    max_hz: float
    meets_rate: bool
    nearest_bytes: int


@dataclass(frozen=True)
class StreamAdvice:
    frame_bytes: int
    rate_hz: float
    ranked: list
    explanation: str

    @property
    def best(self):
        return self.ranked[0]


def advise_stream(frame_bytes, rate_hz=0.0, profile=None):
    """zc_stream_advise: rank the stream modes for frames of frame_bytes arriving at rate_hz
    (0: as fast as possible) from the profile's stream runs (Profile.add_stream, or a saved
    profile's "stream" list: profile may be what advise takes)."""
    if not _lib.has("zc_stream_advise"):
        raise _unsupported("zc_stream_advise", "advise_stream")
    if profile is None:
        raise ValueError("zerocopy: advise_stream needs a Profile holding stream runs")
    profile = as_profile(profile)
    w = S.zc_stream_workload()
    w.frame_bytes = _size(frame_bytes, "frame_bytes")
    w.rate_hz = float(rate_hz)
    advice = S.zc_stream_advice()
    call("zc_stream_advise", profile._ptr(), byref(w), byref(advice))
    ranked = []
    name = ctypes.create_string_buffer(64)
    for o in advice.ranked[: advice.count]:
        call("zc_stream_option_name", o.mode, o.protocol, name, 64)
        ranked.append(
            StreamOption(
                name=_lib.text(name.value),
                usable=bool(o.usable),
                gpu_blocks=o.gpu_blocks,
                in_flight=o.in_flight,
                p50_us=o.p50_us,
                p99_us=o.p99_us,
                gbps=o.gbps,
                max_hz=o.max_hz,
                meets_rate=bool(o.meets_rate),
                nearest_bytes=o.nearest_bytes,
            )
        )
    return StreamAdvice(frame_bytes=w.frame_bytes, rate_hz=w.rate_hz, ranked=ranked,
                        explanation=_lib.text(advice.explanation))
