# SPDX-License-Identifier: Apache-2.0
"""The host memory of an object handed to zerocopy.register or zerocopy.pin_memory, with every
refusal naming the argument and saying why.

A buffer (bytearray, memoryview, numpy array) is read through the buffer protocol, as register
always did; another library's tensor that has no buffer protocol (a torch CPU tensor) through
DLPack or __array_interface__ (_tensors.tensor_memory). Nothing is copied or pinned here.
"""

import ctypes

from . import dlpack, errors
from ._tensors import tensor_memory

_CONTIGUOUS_HINT = ("pin .contiguous() first (numpy.ascontiguousarray for an array), or take a "
                    "pinned copy with zerocopy.pin_memory")


def _what(obj, name):
    return f"zerocopy: {name} ({type(obj).__name__})"


def _empty(obj, name, where):
    # The library refuses a size of 0 as ERR_INVALID_ARG; saying it here, with the argument's
    # name, keeps that error class (a ValueError too) for the buffer protocol's callers. The
    # class and its status come from the loaded library (errors.py), not a number of our own.
    cls = errors.InvalidArgumentError
    return cls(cls.status, f"{name} ({type(obj).__name__}) is empty: there is nothing to pin",
               where)


def _buffer_view(obj):
    """memoryview(obj), or None where obj has no buffer protocol (a torch tensor has none)."""
    try:
        return memoryview(obj)
    except TypeError:
        return None


def _check_on_host(mem, obj, name):
    if mem.device_type == dlpack.CUDA:
        raise ValueError(f"{_what(obj, name)} is on GPU {mem.device_id}: already GPU memory, "
                         "there is nothing to pin")
    if mem.device_type == dlpack.CUDA_MANAGED:
        raise ValueError(f"{_what(obj, name)} is managed memory, which the driver migrates "
                         "itself: there is nothing to pin")
    if not mem.on_host:
        raise ValueError(f"{_what(obj, name)} is on DLPack device type {mem.device_type}, "
                         "not the CPU")


def readable(obj):
    """obj as its memory is read: a torch tensor that requires grad (a model's parameter) as its
    detach(), the same memory, since torch's DLPack export refuses the tensor itself."""
    if getattr(obj, "requires_grad", False) is True and hasattr(obj, "detach"):
        return obj.detach()
    return obj


def host_tensor(obj, name, where):
    """The _tensors.TensorMemory of obj, a tensor or array in host memory holding at least one
    element: a TypeError when obj is no tensor zerocopy reads, a ValueError when it lives on a
    GPU, an InvalidArgumentError (a ValueError) when it is empty."""
    mem = tensor_memory(readable(obj), name)
    _check_on_host(mem, obj, name)
    if mem.nbytes == 0:
        raise _empty(obj, name, where)
    return mem


def _from_buffer(obj, view, name, where):
    if not view.c_contiguous:
        raise ValueError(f"{_what(obj, name)} is not C-contiguous: {_CONTIGUOUS_HINT}")
    if view.readonly:
        raise ValueError(f"{_what(obj, name)} is read-only: only writable memory is pinned in "
                         "place")
    if view.nbytes == 0:
        raise _empty(obj, name, where)
    # The ctypes view holds the export, so that a bytearray cannot be resized while pinned.
    holder = (ctypes.c_ubyte * view.nbytes).from_buffer(view.cast("B"))
    return ctypes.addressof(holder), view.nbytes, (obj, view, holder)


def _from_tensor(obj, name, where):
    mem = host_tensor(obj, name, where)
    if not mem.contiguous:
        raise ValueError(f"{_what(obj, name)} is not contiguous: {_CONTIGUOUS_HINT}")
    if mem.readonly:
        raise ValueError(f"{_what(obj, name)} is read-only: only writable memory is pinned in "
                         "place")
    # Only obj keeps its memory: its producer cannot be stopped from reallocating it (a torch
    # resize_), which the documentation asks callers not to do while it is registered.
    return mem.address, mem.nbytes, (obj,)


def registrable(obj, name, where):
    """(address, size, owner) of the memory of obj, to be pinned in place: a buffer through the
    buffer protocol, else a host tensor through DLPack or __array_interface__. It must be
    C-contiguous, writable, on the CPU and not empty; owner is what the registered buffer must
    keep alive."""
    view = _buffer_view(obj)
    if view is not None:
        return _from_buffer(obj, view, name, where)
    return _from_tensor(obj, name, where)
