# SPDX-License-Identifier: Apache-2.0
"""The benchmark engine behind `zc bench` (zc_bench_*), run in this process: the case catalogue,
a run over the selected cases, and every result with its points and samples."""

from ctypes import byref, c_int, c_size_t, c_ubyte, c_void_p
from dataclasses import dataclass

from . import _lib
from . import _structs as S
from ._common import Stats, stats_from
from .errors import call

lib = _lib.lib
_MODES = {"quick": 0, "default": 1, "full": 2}


@dataclass(frozen=True)
class CaseInfo:
    key: str
    group: str
    technique: str
    direction: str
    title: str


@dataclass(frozen=True)
class Point:
    """One measured figure: a size (and variant or parameter) and its samples, in unit."""

    variant: str
    bytes: int
    param_name: str
    param: float
    metric: str  # "bandwidth", "latency", "duration"
    unit: str  # "GB/s", "us"
    bytes_per_sample: float
    ops_per_sample: float
    stats: Stats
    samples: list
    warmups: int
    verified: bool


@dataclass(frozen=True)
class Result:
    key: str
    outcome: str  # "ok", "skipped", "FAIL", "error"
    status: str  # the status name ("OK", "ERR_VERIFY", ...)
    reason: str
    points: list
    seconds: float


@dataclass(frozen=True)
class Method:
    """zc_bench_method and zc_bench_method_text: how every figure is measured."""

    mode: str
    warmups: int
    min_samples: int
    max_samples: int
    cov_target: float
    point_cap_s: float
    latency_samples: int
    pingpong_samples: int
    gate_timeout_s: float
    gb_bytes: float
    text: str


@dataclass(frozen=True)
class Run:
    device: int
    mode: str
    method: Method
    results: list

    def result(self, key):
        for r in self.results:
            if r.key == key:
                return r
        raise KeyError(key)


def cases():
    """The catalogue, in order."""
    out = []
    for i in range(lib.zc_bench_case_count()):
        c = lib.zc_bench_case_at(i).contents
        out.append(
            CaseInfo(
                key=_lib.text(c.key),
                group=_lib.text(c.group),
                technique=_lib.text(c.technique),
                direction=_lib.text(c.direction),
                title=_lib.text(c.title),
            )
        )
    return out


def select(patterns=None):
    """zc_bench_select: the keys a comma-separated pattern list (or a list) selects."""
    text = ",".join(patterns) if isinstance(patterns, (list, tuple)) else (patterns or "")
    count = lib.zc_bench_case_count()
    selected = (c_ubyte * count)()
    matched = c_size_t()
    call("zc_bench_select", text.encode(), selected, count, byref(matched))
    return [i for i in range(count) if selected[i]]


def method(mode="default"):
    m = S.zc_bench_method()
    value = _mode(mode)
    call("zc_bench_method_get", value, byref(m))
    fields = {name: getattr(m, name) for name, _ in S.zc_bench_method._fields_}
    return Method(mode=_lib.text(lib.zc_bench_mode_name(value)), text=_lib.text(lib.zc_bench_method_text()), **fields)


def _mode(mode):
    key = str(mode).lower()
    if key not in _MODES:
        raise ValueError(f"zerocopy: unknown bench mode {mode!r} (quick, default, full)")
    return _MODES[key]


def _sizes(sizes):
    if sizes is None:
        return None
    if isinstance(sizes, str):
        buf = (c_size_t * 256)()
        n = c_size_t()
        call("zc_bench_sizes_parse", sizes.encode(), buf, 256, byref(n))
        return list(buf[: n.value])
    return [int(s) for s in sizes]


def _point(p):
    samples = [p.samples[i] for i in range(p.stats.count)] if p.samples else []
    return Point(
        variant=_lib.text(p.variant),
        bytes=p.bytes,
        param_name=_lib.text(p.param_name),
        param=p.param,
        metric=_lib.text(lib.zc_bench_metric_name(p.metric)),
        unit=_lib.text(lib.zc_bench_metric_unit(p.metric)),
        bytes_per_sample=p.bytes_per_sample,
        ops_per_sample=p.ops_per_sample,
        stats=stats_from(p.stats),
        samples=samples,
        warmups=p.warmups,
        verified=bool(p.verified),
    )


def bench(cases=None, mode="quick", sizes=None, device=0, devices=None, progress=None):
    """Run the selected cases (patterns as `zc bench --case`: "copy.h2d", "latency.*"; None:
    all) on GPU device and return every result. mode: "quick", "default", "full". sizes: a list
    of byte counts or a text such as "4K,1M". devices: the GPUs of the multigpu cases.
    progress(key, fraction) is called as cases progress. NoDeviceError without a GPU."""
    indices = select(cases)
    config = S.zc_bench_config()
    lib.zc_bench_config_init(byref(config))
    config.device = int(device)
    config.mode = _mode(mode)
    size_list = _sizes(sizes)
    if size_list:
        size_arr = (c_size_t * len(size_list))(*size_list)
        config.sizes = size_arr
        config.size_count = len(size_list)
    if devices:
        dev_arr = (c_int * len(devices))(*[int(d) for d in devices])
        config.devices = dev_arr
        config.device_count = len(devices)
    callback = None
    if progress is not None:
        # Called on this thread from inside zc_bench_run; ctypes takes the GIL back for it.
        def _progress(user, key, fraction):
            progress(_lib.text(key), fraction)

        callback = S.BENCH_PROGRESS_FN(_progress)
        config.progress = callback
    ctx = c_void_p()
    call("zc_bench_ctx_create", byref(config), byref(ctx))
    results = []
    try:
        lib.zc_bench_ctx_plan(ctx, len(indices))
        for index in indices:
            raw = S.zc_bench_result()
            call("zc_bench_run", ctx, index, byref(raw))
            try:
                results.append(
                    Result(
                        key=_lib.text(raw.key),
                        outcome=_lib.text(lib.zc_bench_outcome_name(raw.outcome)),
                        status=_lib.text(lib.zc_status_name(raw.status)),
                        reason=_lib.text(raw.reason),
                        points=[_point(raw.points[i]) for i in range(raw.point_count)],
                        seconds=raw.seconds,
                    )
                )
            finally:
                lib.zc_bench_result_clear(byref(raw))
    finally:
        lib.zc_bench_ctx_destroy(ctx)
    del callback
    return Run(device=int(device), mode=_lib.text(lib.zc_bench_mode_name(config.mode)), method=method(mode), results=results)


