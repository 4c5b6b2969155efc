# SPDX-License-Identifier: Apache-2.0
"""Buffers of every kind (zc_buffer_*), the pinned pool (zc_pool_*) and pointer queries, as
Python objects that numpy, PyTorch and CuPy read without a copy: the buffer protocol, __array__,
__cuda_array_interface__ and DLPack.

Memory is owned by a small _Memory object; the Buffer and everything exported from it (numpy
arrays, memoryviews, DLPack tensors) hold a reference to it, so closing a Buffer gives the
memory back at once when nothing else uses it, and otherwise when the last view goes.
"""

import atexit
import ctypes
import sys
import warnings
import weakref
from ctypes import byref, c_void_p
from dataclasses import dataclass

from . import _dtypes, _host_memory, _lib, dlpack
from . import _structs as S
from .errors import Error, by_status, call, error_for

lib = _lib.lib

# zc_buffer_kind values, names ("pageable", "write-combined", ...) and properties: the library's
# one table of memory kinds (src/mem), read once.
_KINDS = _lib.memory_kinds()
KIND_NAMES = {0: _lib.text(lib.zc_buffer_kind_name(0)), **{k: name for k, name, _, _ in _KINDS}}
_KIND_BY_NAME = {name: k for k, name in KIND_NAMES.items() if k != 0}
_KIND_BY_KEY = {key: k for k, _, key, _ in _KINDS}
PAGEABLE = _KIND_BY_KEY["pageable"]
PINNED = _KIND_BY_KEY["pinned"]
MAPPED = _KIND_BY_KEY["mapped"]
WRITE_COMBINED = _KIND_BY_KEY["write_combined"]
REGISTERED = _KIND_BY_KEY["registered"]
MANAGED = _KIND_BY_KEY["managed"]
DEVICE = _KIND_BY_KEY["device"]
_HOST_PINNED_KINDS = tuple(k for k, _, _, props in _KINDS if props & S.KIND_PAGE_LOCKED)

FLAG_MAPPED = 0x01
FLAG_PORTABLE = 0x02
FLAG_WRITE_COMBINED = 0x04
FLAG_READ_ONLY = 0x08
FLAG_FALLBACK_PAGEABLE = 0x10
FLAG_HOST_ALLOC = 0x20
FLAG_ATTACH_HOST = 0x40
_FLAG_BY_NAME = {
    "mapped": FLAG_MAPPED,
    "portable": FLAG_PORTABLE,
    "write_combined": FLAG_WRITE_COMBINED,
    "read_only": FLAG_READ_ONLY,
    "fallback_pageable": FLAG_FALLBACK_PAGEABLE,
    "host_alloc": FLAG_HOST_ALLOC,
    "attach_host": FLAG_ATTACH_HOST,
}
_NOTE_NAMES = {0x1: "fallback", 0x2: "no_concurrent_access", 0x4: "pooled"}

# zc_advice values.
_ADVICE = {
    "read_mostly": 1,
    "unset_read_mostly": 2,
    "preferred_location": 3,
    "unset_preferred_location": 4,
    "accessed_by": 5,
    "unset_accessed_by": 6,
}
DEVICE_HOST = -1


def kind_value(kind):
    """A zc_buffer_kind from a name ("pinned", "write-combined" or "write_combined") or value."""
    if isinstance(kind, int):
        return kind
    key = str(kind).strip().lower().replace("_", "-")
    if key not in _KIND_BY_NAME:
        raise ValueError(f"zerocopy: unknown buffer kind {kind!r} (one of {', '.join(_KIND_BY_NAME)})")
    return _KIND_BY_NAME[key]


def flags_value(flags):
    """ZC_BUFFER_FLAG_* bits from an int, a name ("mapped") or names ("mapped|portable", a list)."""
    if flags is None:
        return 0
    if isinstance(flags, int):
        return flags
    names = flags.split("|") if isinstance(flags, str) else list(flags)
    value = 0
    for name in names:
        if isinstance(name, int):
            value |= name
            continue
        key = name.strip().lower().replace("-", "_")
        if key not in _FLAG_BY_NAME:
            raise ValueError(f"zerocopy: unknown buffer flag {name!r} (one of {', '.join(_FLAG_BY_NAME)})")
        value |= _FLAG_BY_NAME[key]
    return value


def _device_for_kind(device, kind):
    """The device number for a buffer of kind: the one given, else GPU 0, or none (DEVICE_HOST)
    for pageable memory, so that it works on a machine without a GPU as C's -1 does."""
    if device is not None:
        return int(device)
    return DEVICE_HOST if kind == PAGEABLE else 0


def _flag_names(flags):
    return [name for name, bit in _FLAG_BY_NAME.items() if flags & bit]


def _status_name(status):
    return _lib.text(lib.zc_status_name(status))


def _wrong_kind(message, where):
    return by_status[-7](-7, message, where)  # ZC_ERR_WRONG_KIND


@dataclass(frozen=True)
class BufferInfo:
    """zc_buffer_info: what a buffer is and how it was made."""

    kind: str
    requested_kind: str
    flags: int
    flag_names: list
    notes: list
    method: str
    device: int
    host_ptr: int  # 0 when none
    device_ptr: int  # 0 when none
    size: int
    capacity: int
    fallback_status: str  # the status name pinning failed with, "" unless it fell back

    @property
    def is_fallback(self):
        return "fallback" in self.notes


@dataclass(frozen=True)
class PointerInfo:
    """zc_pointer_info: what a pointer is, as the CUDA runtime and zerocopy know it."""

    kind: str
    flags: int
    flags_known: bool
    from_zerocopy: bool
    device: int
    device_ptr: int
    base: int
    size: int
    offset: int
    kernel_can_access: bool
    device_mask: int


@dataclass(frozen=True)
class BufferTotals:
    """zc_buffer_totals: every live zerocopy buffer of the process."""

    live_buffers: int
    live_blocks: int
    bytes: dict  # kind name -> bytes held
    pinned_bytes: int
    allocs: int
    frees: int


@dataclass(frozen=True)
class PoolStats:
    """zc_pool_stats, for a pool of one kind. bytes_held is bytes_in_use + bytes_cached, what
    the pool holds in all (the library's bytes_pinned, named for what it is whatever the kind:
    a pageable pool pins nothing); pinned says whether that memory is page-locked."""

    kind: str
    pinned: bool
    bytes_requested: int
    bytes_in_use: int
    bytes_cached: int
    bytes_held: int
    peak_bytes_held: int
    blocks_in_use: int
    blocks_cached: int
    hits: int
    misses: int
    releases: int
    waits_skipped: int


def _buffer_info(handle):
    raw = S.zc_buffer_info()
    call("zc_buffer_info_get", handle, byref(raw))
    notes = [name for bit, name in _NOTE_NAMES.items() if raw.notes & bit]
    return BufferInfo(
        kind=KIND_NAMES.get(raw.kind, str(raw.kind)),
        requested_kind=KIND_NAMES.get(raw.requested_kind, str(raw.requested_kind)),
        flags=raw.flags,
        flag_names=_flag_names(raw.flags),
        notes=notes,
        method=_lib.text(lib.zc_buffer_method_name(raw.method)),
        device=raw.device,
        host_ptr=raw.host_ptr or 0,
        device_ptr=raw.device_ptr or 0,
        size=raw.size,
        capacity=raw.capacity,
        fallback_status=_status_name(raw.fallback_status) if raw.notes & 0x1 else "",
    ), raw


# Every zc_buffer and zc_pool still owned, so that what is alive when the interpreter ends is
# freed then: objects alive at exit need not have their __del__ run, and pinned pages and
# registrations left to the driver's teardown are what a leak checker reports.
_live_memory = weakref.WeakSet()
_live_pools = weakref.WeakSet()


@atexit.register
def _free_at_exit():
    for memory in list(_live_memory):
        memory.__del__()
    for pool in list(_live_pools):
        pool.__del__()


class _PoolHandle:
    """Owns a zc_pool; destroyed once the Pool and every buffer taken from it are gone."""

    __slots__ = ("handle", "__weakref__")

    def __init__(self, handle):
        self.handle = handle
        _live_pools.add(self)

    def __del__(self, _lib=lib):
        handle, self.handle = self.handle, None
        if handle:
            _lib.zc_pool_destroy(handle)


class _Memory:
    """Owns one zc_buffer; frees it (or gives it back to its pool) when the last holder goes."""

    __slots__ = ("handle", "pool", "owner", "__weakref__")

    def __init__(self, handle, pool=None, owner=None):
        self.handle = handle
        self.pool = pool  # a _PoolHandle that must outlive this block
        self.owner = owner  # registered memory: the object whose memory it is
        _live_memory.add(self)

    def __del__(self, _lib=lib, _warn=warnings.warn):
        handle, self.handle = self.handle, None
        if handle:
            # Nothing can be raised from here, so a failure (a handle freed twice, which this
            # class never does, or the driver refusing) is said as a warning, not lost.
            status = _lib.zc_buffer_free(handle)
            if status != 0:
                try:
                    _warn(f"zerocopy: freeing a buffer failed: {error_for(status, 'zc_buffer_free')}",
                          RuntimeWarning)
                except Exception:  # the interpreter is shutting down: its modules are gone
                    pass


def _torch_consumer(depth=2):
    # torch.from_dlpack (torch/utils/dlpack.py) reads __dlpack_device__ and calls __dlpack__
    # from Python; the torch releases seen here refuse kDLCUDAHost ("Unsupported device_type:
    # 3") and kDLCUDAManaged, and keep host memory as CPU tensors anyway.
    try:
        caller = sys._getframe(depth).f_globals.get("__name__", "")
    except ValueError:
        return False
    return caller.split(".")[0] == "torch"


class Buffer:
    """A zerocopy buffer (zc_buffer) of any kind, seen as a typed, C-contiguous array.

    Make one with Buffer.alloc, zerocopy.empty, zerocopy.register or Pool.alloc. numpy.asarray,
    memoryview (Python >= 3.12; buf.memoryview() before), torch.from_dlpack, cupy.asarray and
    cupy.from_dlpack read it without a copy, as far as the kind allows: host kinds have a host
    address, device memory has none; device-side access needs a device pointer (mapped, device,
    managed memory; pinned memory with unified addressing).
    """

    def __init__(self, memory, info, raw, dtype=None, shape=None):
        self._mem = memory
        self._info = info
        self._raw = raw
        self._cai_hold = None
        self._closed = False
        self.dtype = _dtypes.dtype(dtype)
        if shape is None:
            shape = (info.size // self.dtype.itemsize,)
        self.shape = tuple(int(n) for n in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        nbytes = self.dtype.itemsize
        for n in self.shape:
            nbytes *= n
        if nbytes > info.size:
            raise ValueError(
                f"zerocopy: a {self.dtype.name} view of shape {self.shape} needs {nbytes} bytes; "
                f"the buffer has {info.size}"
            )
        self.nbytes = nbytes

    # -- making ---------------------------------------------------------------------------
    @classmethod
    def alloc(cls, size, kind="pageable", flags=0, device=None, dtype=None, shape=None):
        """zc_buffer_alloc: size bytes of kind ("pageable", "pinned", "mapped",
        "write-combined", "managed", "device") for GPU device. device None: GPU 0, or none
        (DEVICE_HOST, -1) for pageable memory, which needs no GPU."""
        handle = c_void_p()
        kind = kind_value(kind)
        device = _device_for_kind(device, kind)
        call("zc_buffer_alloc", int(size), kind, flags_value(flags), device, byref(handle))
        memory = _Memory(handle.value)
        info, raw = _buffer_info(handle.value)
        return cls(memory, info, raw, dtype, shape)

    def view(self, dtype=None, shape=None):
        """The same memory as another element type and shape (no copy)."""
        self._check_open()
        dt = _dtypes.dtype(dtype if dtype is not None else self.dtype)
        return Buffer(self._mem, self._info, self._raw, dt, shape)

    # -- what it is ----------------------------------------------------------------------
    def info(self):
        """A fresh zc_buffer_info_get of the buffer."""
        self._check_open()
        return _buffer_info(self._mem.handle)[0]

    kind = property(lambda self: self._info.kind)
    requested_kind = property(lambda self: self._info.requested_kind)
    flags = property(lambda self: self._info.flags)
    device = property(lambda self: self._info.device)
    size = property(lambda self: self._info.size)
    capacity = property(lambda self: self._info.capacity)
    method = property(lambda self: self._info.method)
    is_fallback = property(lambda self: self._info.is_fallback)
    host_ptr = property(lambda self: self._info.host_ptr)
    device_ptr = property(lambda self: self._info.device_ptr)
    ndim = property(lambda self: len(self.shape))

    @property
    def closed(self):
        return self._closed

    def __len__(self):
        return self.shape[0] if self.shape else 1

    def __repr__(self):
        state = " closed" if self.closed else ""
        return (
            f"<zerocopy.Buffer {self.kind} {self.size} bytes on device {self.device}, "
            f"{self.dtype.name}{list(self.shape)}{state}>"
        )

    def _check_open(self):
        if self.closed:
            raise ValueError("zerocopy: the buffer is closed")

    def _memory(self):
        self._check_open()
        return self._mem

    # -- closing -------------------------------------------------------------------------
    def close(self):
        """Let the memory go: at once when nothing else holds it, else when the last numpy
        array, memoryview or DLPack tensor made from it goes. A consumer of
        __cuda_array_interface__ holds the Buffer itself, so once that was read the memory
        stays until the Buffer object is gone."""
        self._closed = True
        self._mem = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- host side: numpy and the buffer protocol ----------------------------------------
    def _host_array(self):
        """A ctypes array over the view's bytes that keeps the memory alive."""
        memory = self._memory()
        if not self._info.host_ptr:
            raise _wrong_kind(f"{self.kind} memory has no host address", "Buffer host access")
        arr = (ctypes.c_ubyte * self.nbytes).from_address(self._info.host_ptr)
        arr._zc_memory = memory
        return arr

    def memoryview(self):
        """A writable memoryview of the host memory, typed and shaped like the buffer."""
        view = memoryview(self._host_array())
        fmt = self.dtype.format
        if not fmt or fmt.startswith("Z"):
            return view  # bytes: memoryview has no complex or bfloat16 format to cast to
        return view.cast("B").cast(fmt, self.shape) if self.shape else view.cast(fmt)

    def __buffer__(self, flags):  # PEP 688 (Python >= 3.12): memoryview(buf), bytes(buf)
        return self.memoryview()

    def numpy(self):
        """A numpy array over the host memory (no copy)."""
        import numpy

        arr = numpy.frombuffer(self._host_array(), dtype=numpy.dtype(self.dtype.typestr)
                               if self.dtype.name != "bfloat16" else numpy.uint16)
        return arr.reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        if dtype is not None and arr.dtype != dtype:
            if copy is False:
                raise ValueError("zerocopy: a different dtype needs a copy")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    # -- device side: __cuda_array_interface__ -------------------------------------------
    @property
    def __cuda_array_interface__(self):
        if self.closed:
            raise AttributeError("the buffer is closed")
        if not self._info.device_ptr:
            raise AttributeError(f"{self.kind} memory of this buffer has no device address")
        # The consumer holds this Buffer, not the memory: keep the memory with the Buffer.
        self._cai_hold = self._memory()
        return {
            "shape": self.shape,
            "typestr": self.dtype.typestr,
            "data": (self._info.device_ptr, False),
            "strides": None,
            "version": 3,
            # No work of zerocopy's is queued on this memory: nothing to wait for.
            "stream": None,
        }

    def device_ptr_for(self, device):
        """zc_buffer_device_ptr_for: the address kernels on GPU device use for this buffer."""
        ptr = c_void_p()
        call("zc_buffer_device_ptr_for", self._memory().handle, int(device), byref(ptr))
        return ptr.value or 0

    # -- DLPack --------------------------------------------------------------------------
    def _native_device(self):
        kind = _KIND_BY_NAME.get(self._info.kind)
        if kind == DEVICE:
            return (dlpack.CUDA, self._info.device)
        if kind == MANAGED:
            return (dlpack.CUDA_MANAGED, self._info.device)
        if kind in _HOST_PINNED_KINDS:
            return (dlpack.CUDA_HOST, 0)
        return (dlpack.CPU, 0)

    def _device_for(self, torch):
        native = self._native_device()
        if torch and native[0] == dlpack.CUDA_HOST:
            return (dlpack.CPU, 0)
        if torch and native[0] == dlpack.CUDA_MANAGED:
            return (dlpack.CUDA, self._info.device)
        return native

    def __dlpack_device__(self):
        return self._device_for(_torch_consumer())

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule. No copy is ever made (copy=True is refused); dl_device may
        ask for the host view (kDLCPU) of host memory or the device view (kDLCUDA) of memory
        with a device address. stream is not waited on: zerocopy queues no work on buffers."""
        if copy:
            raise BufferError("zerocopy: buffers are exported without a copy (copy=True)")
        device = self._device_for(_torch_consumer())
        if dl_device is not None:
            device = tuple(int(x) for x in dl_device)
        return self._export(device, max_version)

    def _export(self, device, max_version=None):
        memory = self._memory()
        dev_type, dev_id = device
        if dev_type in (dlpack.CPU, dlpack.CUDA_HOST):
            if not self._info.host_ptr:
                raise BufferError(f"zerocopy: {self.kind} memory has no host address")
            if dev_type == dlpack.CUDA_HOST and self._native_device()[0] == dlpack.CPU:
                raise BufferError("zerocopy: pageable memory is not kDLCUDAHost")
            data = self._info.host_ptr
        elif dev_type in (dlpack.CUDA, dlpack.CUDA_MANAGED):
            if dev_type == dlpack.CUDA_MANAGED and self._native_device()[0] != dlpack.CUDA_MANAGED:
                raise BufferError(f"zerocopy: {self.kind} memory is not managed memory")
            if dev_id == self._info.device:
                data = self._info.device_ptr
            else:
                try:
                    data = self.device_ptr_for(dev_id)
                except Error as e:
                    raise BufferError(f"zerocopy: no address on GPU {dev_id}: {e}") from e
            if not data:
                raise BufferError(f"zerocopy: {self.kind} memory has no address on GPU {dev_id}")
        else:
            raise BufferError(f"zerocopy: cannot export to DLPack device type {dev_type}")
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        return dlpack.capsule(data, (dev_type, dev_id), self.dtype, self.shape, memory, versioned)

    def host_view(self):
        """This memory as host memory for any consumer (DLPack kDLCPU, numpy)."""
        return _View(self, (dlpack.CPU, 0))

    def device_view(self, device=None):
        """This memory as GPU memory (DLPack kDLCUDA, __cuda_array_interface__) for GPU device
        (default: the buffer's own): mapped and pinned host memory read in place by kernels,
        which is what cupy.from_dlpack and a CUDA torch tensor need."""
        return _View(self, (dlpack.CUDA, self._info.device if device is None else int(device)))

    # -- managed memory ------------------------------------------------------------------
    def prefetch(self, device, offset=0, length=0, stream=None):
        """zc_buffer_prefetch: migrate managed memory to GPU device or the host (-1), queued on
        stream (an int handle such as torch.cuda.Stream().cuda_stream; None: the default)."""
        call("zc_buffer_prefetch", self._memory().handle, int(offset), int(length), int(device),
             stream or None)

    def advise(self, advice, device, offset=0, length=0):
        """zc_buffer_advise: "read_mostly", "preferred_location", "accessed_by" and the unset_
        forms, for GPU device or the host (-1)."""
        if advice not in _ADVICE:
            raise ValueError(f"zerocopy: unknown advice {advice!r} (one of {', '.join(_ADVICE)})")
        call("zc_buffer_advise", self._memory().handle, int(offset), int(length), _ADVICE[advice], int(device))


class _View:
    """One fixed way of seeing a buffer (host or device), for consumers that need it chosen."""

    def __init__(self, buffer, device):
        self._buffer = buffer
        self._device = device
        self.shape, self.dtype = buffer.shape, buffer.dtype

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("zerocopy: buffers are exported without a copy (copy=True)")
        return self._buffer._export(tuple(dl_device) if dl_device else self._device, max_version)

    @property
    def __cuda_array_interface__(self):
        if self._device[0] != dlpack.CUDA:
            raise AttributeError("a host view has no device address")
        cai = dict(self._buffer.__cuda_array_interface__)
        cai["data"] = (self._buffer.device_ptr_for(self._device[1]), False)
        return cai

    def __array__(self, dtype=None, copy=None):
        return self._buffer.__array__(dtype, copy)


def empty(shape, dtype="float32", kind="pinned", flags=0, device=None):
    """A buffer of the given shape and element type (numpy or torch dtype, or a name). device
    None: GPU 0, or none for pageable memory (which needs no GPU)."""
    dt = _dtypes.dtype(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
    nbytes = dt.itemsize
    for n in shape:
        nbytes *= int(n)
    return Buffer.alloc(nbytes, kind, flags, device, dt, shape)


def register(obj, flags=0, device=0):
    """zc_buffer_register: pin the memory of obj in place for GPU device; the Buffer keeps obj
    alive and unregisters the memory when closed (and its last view is gone).

    obj: a buffer (bytearray, memoryview, numpy array: the buffer protocol), or another
    library's tensor in host memory read through DLPack or __array_interface__ (a torch CPU
    tensor). It must be C-contiguous, writable, on the CPU and not empty: anything else is
    refused naming the argument (a GPU tensor is a ValueError, "already GPU memory"; an object
    that is no buffer or tensor a TypeError). A registered tensor must not be resized
    meanwhile. Flags: "mapped", "portable", "read_only"."""
    address, size, owner = _host_memory.registrable(obj, "obj", "zerocopy.register")
    handle = c_void_p()
    call("zc_buffer_register", address, size, flags_value(flags), int(device), byref(handle))
    memory = _Memory(handle.value, owner=owner)
    info, raw = _buffer_info(handle.value)
    return Buffer(memory, info, raw)


def _address_of(obj):
    if isinstance(obj, int):
        return obj
    if isinstance(obj, Buffer):
        return obj.host_ptr or obj.device_ptr
    if hasattr(obj, "data_ptr"):  # torch.Tensor
        return int(obj.data_ptr())
    for attr in ("__cuda_array_interface__", "__array_interface__"):
        try:
            return int(getattr(obj, attr)["data"][0])
        except (AttributeError, KeyError, TypeError):
            pass
    view = memoryview(obj)
    if view.readonly:
        raise TypeError("zerocopy: pointer_info needs an address, a tensor or a writable buffer")
    holder = (ctypes.c_ubyte * view.nbytes).from_buffer(view.cast("B"))
    return ctypes.addressof(holder)


def pointer_info(obj):
    """zc_pointer_query for an address, a Buffer, a torch tensor, a numpy or CuPy array."""
    address = _address_of(obj)
    if not address:
        raise ValueError("zerocopy: pointer_info of a NULL pointer")
    raw = S.zc_pointer_info()
    call("zc_pointer_query", address, byref(raw))
    return PointerInfo(
        kind=KIND_NAMES.get(raw.kind, str(raw.kind)),
        flags=raw.flags,
        flags_known=bool(raw.flags_known),
        from_zerocopy=bool(raw.from_zerocopy),
        device=raw.device,
        device_ptr=raw.device_ptr or 0,
        base=raw.base or 0,
        size=raw.size,
        offset=raw.offset,
        kernel_can_access=bool(raw.kernel_can_access),
        device_mask=raw.device_mask,
    )


def totals():
    """zc_buffer_totals_get: what every live zerocopy buffer of the process holds."""
    raw = S.zc_buffer_totals()
    call("zc_buffer_totals_get", byref(raw))
    return BufferTotals(
        live_buffers=raw.live_buffers,
        live_blocks=raw.live_blocks,
        bytes={KIND_NAMES[k]: raw.bytes[k] for k, _, _, _ in _KINDS if raw.bytes[k]},
        pinned_bytes=raw.pinned_bytes,
        allocs=raw.allocs,
        frees=raw.frees,
    )


class Pool:
    """zc_pool: a caching pool of host buffers of one kind ("pinned", "mapped",
    "write-combined", "pageable"), so that a repeated allocation costs microseconds. A buffer
    taken from it goes back to it when closed and its last view is gone; the pool itself is
    destroyed when closed and every buffer taken from it is gone."""

    def __init__(self, kind="pinned", flags=0, device=None, max_cached_bytes=0):
        handle = c_void_p()
        kind = kind_value(kind)
        device = _device_for_kind(device, kind)
        call("zc_pool_create", kind, flags_value(flags), device, int(max_cached_bytes), byref(handle))
        self._pool = _PoolHandle(handle.value)
        self.kind = KIND_NAMES.get(kind, str(kind))

    def _handle(self):
        if self._pool is None:
            raise ValueError("zerocopy: the pool is closed")
        return self._pool.handle

    def alloc(self, size, dtype=None, shape=None):
        """A buffer of at least size bytes, from the cache or newly made."""
        handle = c_void_p()
        call("zc_pool_alloc", self._handle(), int(size), byref(handle))
        memory = _Memory(handle.value, pool=self._pool)
        info, raw = _buffer_info(handle.value)
        return Buffer(memory, info, raw, dtype, shape)

    def empty(self, shape, dtype="float32"):
        dt = _dtypes.dtype(dtype)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
        nbytes = dt.itemsize
        for n in shape:
            nbytes *= int(n)
        return self.alloc(nbytes, dt, shape)

    def trim(self, keep_bytes=0):
        """Release cached blocks until at most keep_bytes stay cached."""
        call("zc_pool_trim", self._handle(), int(keep_bytes))

    def stats(self):
        raw = S.zc_pool_stats()
        call("zc_pool_stats_get", self._handle(), byref(raw))
        fields = {name: getattr(raw, name) for name, _ in S.zc_pool_stats._fields_}
        fields["bytes_held"] = fields.pop("bytes_pinned")
        fields["peak_bytes_held"] = fields.pop("peak_bytes_pinned")
        return PoolStats(kind=self.kind, pinned=self.kind != "pageable", **fields)

    def close(self):
        self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
