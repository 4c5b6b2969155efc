# SPDX-License-Identifier: Apache-2.0
"""Pieces shared by the modules: summary statistics and array arguments."""

import ctypes
from ctypes import POINTER, byref, c_double, c_float
from dataclasses import dataclass

from . import _structs as S
from .errors import call


@dataclass(frozen=True)
class Stats:
    """zc_stats: median, spread and nearest-rank percentiles of repeated measurements."""

    count: int
    min: float
    max: float
    mean: float
    median: float
    stddev: float
    cov: float
    p90: float
    p99: float
    p999: float


def stats_from(raw):
    return Stats(**{name: getattr(raw, name) for name, _ in S.zc_stats._fields_})


def stats(samples):
    """zc_stats_compute over a sequence of numbers (the library's own percentile method, the
    one every zerocopy figure uses)."""
    values = [float(x) for x in samples]
    arr = (c_double * len(values))(*values)
    raw = S.zc_stats()
    call("zc_stats_compute", arr, len(values), byref(raw))
    return stats_from(raw)


def numpy():
    try:
        import numpy as np
    except ImportError as e:  # pragma: no cover - numpy is there wherever the tests run
        raise ImportError("zerocopy: this needs numpy (pip install numpy, or python3-numpy)") from e
    return np


def float32_array(values, name="samples"):
    """values as a C-contiguous float32 numpy array (a copy only when the type or layout differ;
    complex64 input is seen as interleaved I/Q pairs)."""
    np = numpy()
    arr = np.asarray(values)
    if arr.dtype == np.complex64:
        arr = arr.view(np.float32)
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    return arr


def float_ptr(arr):
    return arr.ctypes.data_as(POINTER(c_float))


def double_ptr(arr):
    return arr.ctypes.data_as(POINTER(ctypes.c_double))
