# SPDX-License-Identifier: Apache-2.0
"""zerocopy for Python: the library's buffers, streaming engine and measurements.

    import zerocopy
    buf = zerocopy.empty((1 << 20,), "float32", kind="pinned")   # numpy/torch/cupy see it as is
    with zerocopy.Stream(taps, mode="cpu", frame_samples=1024) as s:
        y = s.process(x)                                         # FIR-filtered x, same length
    zerocopy.info(); zerocopy.bench("copy.h2d"); zerocopy.advise(size="4K")
    with zerocopy.Mover() as m:                                  # blocks of a GPU tensor and a
        m.move(gpu_cache, host_pool, to_host=(gpu_ids, host_ids)) # pinned one, in one call
    reg = zerocopy.register(cpu_tensor)                          # pinned in place until closed
    pinned = zerocopy.pin_memory(cpu_tensor)                     # a pinned copy, same type

A ctypes layer over libzerocopy.so (found as _lib says; LIBZEROCOPY_PATH names it). Every
failure raises a zerocopy.Error subclass carrying the status name and zc_last_error()'s detail.
docs/python.md is the guide.
"""

from . import _lib
from ._common import Stats, stats
from ._lib import __version__
from .advise import (
    Advice,
    Measurement,
    Prediction,
    Profile,
    StreamAdvice,
    TraceAdvice,
    TraceGroup,
    Unpriced,
    advise,
    advise_stream,
    measure,
    measure_profile,
)
from .bench import bench
from .bench import cases as bench_cases
from .bench import method as bench_method
from .blocks import BlocksAdvice, BlocksProfile, Mover, MoveChoice
from .buffer import (
    DEVICE_HOST,
    Buffer,
    BufferInfo,
    BufferTotals,
    PointerInfo,
    Pool,
    PoolStats,
    empty,
    pointer_info,
    register,
    totals,
)
from .device import DeviceInfo, Info, device_count, device_info, info
from .dlpack import live_exports
from .errors import *  # noqa: F401,F403 - the exception classes, one per status
from .errors import Error
from .pinning import pin_memory
from .stream import Frame, Stream, StreamStats, fir_error, fir_lowpass, fir_reference

libzerocopy_path = _lib.path


def libzerocopy_version():
    """The version of the loaded libzerocopy ("MAJOR.MINOR.PATCH")."""
    return _lib.libzerocopy_version()


def clock_ns():
    """zc_clock_ns: the CLOCK_MONOTONIC nanoseconds every host-timed figure of zerocopy uses."""
    return _lib.lib.zc_clock_ns()
