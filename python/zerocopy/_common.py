# SPDX-License-Identifier: Apache-2.0
"""Pieces shared by the modules: summary statistics and array arguments."""

import ctypes
import numbers
from ctypes import POINTER, byref, c_double, c_float
from dataclasses import dataclass

from . import _structs as S
from .errors import Error, call


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
    except ImportError:
        # from None: the ImportError of numpy itself says nothing more, and a chained traceback
        # reads like a second failure.
        raise ImportError("zerocopy: this needs numpy (pip install numpy, or python3-numpy)") from None
    return np


def float32_array(values, name="samples", channels=1):
    """values as a C-contiguous float32 numpy array (a copy only when the type or layout differ).
    A complex array is read as interleaved I/Q pairs where channels is 2 (a complex stream), and
    is a TypeError anywhere else: numpy would keep its real parts only."""
    np = numpy()
    arr = np.asarray(values)
    if np.iscomplexobj(arr):
        if channels != 2:
            raise TypeError(
                f"zerocopy: {name} are complex ({arr.dtype}) where real numbers are expected "
                f"({channels} channel{'s' if channels != 1 else ''}): a complex stream has "
                "channels=2, or pass the real part (x.real) on purpose"
            )
        arr = np.ascontiguousarray(arr, dtype=np.complex64).view(np.float32)
    return np.ascontiguousarray(arr, dtype=np.float32)


# Integer sample formats, scaled to float32 in [-1, 1) as `zc stream --format` decodes them
# (tools/zc/stream_format.c): s16 is v / 32768, u8 (offset binary, as RTL-SDR dongles give) is
# (v - 127.5) / 127.5. Every other integer type is taken as the numbers it holds.
_SAMPLE_SCALE = {"int16": (0.0, 32768.0), "uint8": (127.5, 127.5)}


def samples_array(values, channels=1, name="samples"):
    """Samples for a stream of channels (1 real, 2 I/Q) as a C-contiguous float32 array of
    shape (n,), or (n, 2) for 2 channels: int16 and uint8 scaled as zc stream's s16 and u8 formats, complex
    arrays read as I/Q pairs (channels 2 only). Only (n,) and (n, 1) for a real stream, (n, 2)
    real or (n,) complex for a complex one: any other shape is a ValueError, not flattened."""
    np = numpy()
    arr = np.asarray(values)
    complex_input = np.iscomplexobj(arr)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if channels == 2 and not complex_input:
        ok = arr.ndim == 2 and arr.shape[1] == 2
        want = "(n, 2) real values (I and Q) or (n,) complex values"
    else:
        ok = arr.ndim == 1
        want = "(n,) or (n, 1)" + (" complex values" if channels == 2 else "")
    if not ok:
        raise ValueError(
            f"zerocopy: {name} of shape {np.shape(values)} for a stream of {channels} "
            f"channel{'s' if channels != 1 else ''}: give {want} (reshape on purpose: nothing "
            "is flattened)"
        )
    scale = _SAMPLE_SCALE.get(arr.dtype.name)
    if scale is not None:
        offset, divisor = scale
        arr = ((arr.astype(np.float32) - np.float32(offset)) / np.float32(divisor)).astype(np.float32)
    out = float32_array(arr, name, channels)
    return out.reshape(-1, 2) if channels == 2 else out


def size_bytes(size, what="size", max_bytes=(1 << 64) - 1):
    """A byte count from an int or from text in the project's one size grammar ("4096", "4K",
    "1.5 MiB", "1T": zc_size_parse, as every zc option reads it) up to max_bytes; a
    ValueError for anything else (ctypes would keep an int's low bits: -1 is 16 EiB). An int 0
    goes on to the library, whose InvalidArgumentError says what needs a size."""
    if isinstance(size, str):
        value = ctypes.c_uint64()
        try:
            call("zc_size_parse", size.encode(), max_bytes, byref(value))
        except Error as e:
            raise ValueError(f"zerocopy: {what}={size!r}: {e.detail or e}") from None
        return value.value
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise TypeError(f"zerocopy: {what} must be a number of bytes or a size such as \"4K\", not {size!r}")
    if not 0 <= int(size) <= max_bytes:
        raise ValueError(f"zerocopy: {what}={int(size)}: a number of bytes from 1 to {max_bytes}")
    return int(size)


def float_ptr(arr):
    return arr.ctypes.data_as(POINTER(c_float))


def double_ptr(arr):
    return arr.ctypes.data_as(POINTER(ctypes.c_double))
