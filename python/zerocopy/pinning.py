# SPDX-License-Identifier: Apache-2.0
"""zerocopy.pin_memory: a pinned copy of a host tensor or array, in zerocopy's pinned memory,
returned as the caller's own type (a torch tensor for a torch tensor, else a numpy array).

The copy lives in a zerocopy Buffer, which is let go as soon as the result is made: the result
holds the memory (torch through the DLPack export's registry entry, numpy through the ctypes
array under it), so the pinned memory is freed when the last tensor or view of it goes.
"""

import sys

from ._host_memory import host_tensor, readable
from .buffer import Buffer, kind_value

# Kinds a host copy can be read back from at the CPU's speed and copied from by the copy engine:
# write-combined memory would make every CPU read of the copy crawl, pageable pins nothing.
_COPY_KINDS = ("pinned", "mapped")


def _torch_tensor_type(obj):
    # torch is only looked up, never imported: a caller with a torch tensor has imported it.
    torch = sys.modules.get("torch")
    return torch if torch is not None and isinstance(obj, torch.Tensor) else None


def _as_numpy(obj):
    import numpy

    if isinstance(obj, numpy.ndarray):
        return obj
    if hasattr(obj, "__array_interface__") or not hasattr(obj, "__dlpack__"):
        return numpy.asarray(obj)
    return numpy.from_dlpack(obj)


def pin_memory(tensor, device=None, kind="pinned"):
    """A pinned copy of tensor, a tensor or array in host memory (a torch CPU tensor, a numpy
    array, anything read through DLPack or __array_interface__), made in a zerocopy buffer of
    kind ("pinned" or "mapped") for GPU device (None: GPU 0).

    A torch tensor gives a torch CPU tensor of the same dtype and shape over the buffer, which
    torch sees as pinned (is_pinned(); non_blocking copies from it run asynchronously); anything
    else gives a numpy array. The copy is C-contiguous and writable whatever the source was; the
    source may be read-only or strided, but must be on the CPU and not empty (a GPU tensor is a
    ValueError, "already GPU memory"). A tensor that requires grad gives a copy of its values
    that does not. The buffer lives exactly as long as the result and its
    views: there is nothing to close.
    """
    if kind_value(kind) not in {kind_value(k) for k in _COPY_KINDS}:
        raise ValueError(f"zerocopy: pin_memory kind {kind!r} is not one of {', '.join(_COPY_KINDS)}")
    mem = host_tensor(tensor, "tensor", "zerocopy.pin_memory")
    torch = _torch_tensor_type(tensor)
    buf = Buffer.alloc(mem.nbytes, kind=kind, device=device)
    if torch is not None:
        # The buffer's bytes seen as the source's dtype and shape, so that any dtype torch has
        # (bfloat16, float8, ...) is copied by torch itself, strides and all.
        pinned = torch.from_dlpack(buf).view(tensor.dtype).view(tensor.shape)
        pinned.copy_(readable(tensor))  # the values only: the copy records no autograd graph
        return pinned
    import numpy

    source = _as_numpy(tensor)
    pinned = buf.numpy().view(source.dtype).reshape(source.shape)
    numpy.copyto(pinned, source)
    return pinned
