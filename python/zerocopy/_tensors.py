# SPDX-License-Identifier: Apache-2.0
"""What another library's tensor is in memory (its address, shape, strides, element type and
device), read from its DLPack capsule, __cuda_array_interface__ or __array_interface__ without
touching or copying its data.

dlpack.py makes capsules; this reads those of others. A capsule is only looked at, never
consumed: it keeps its name, so its own destructor gives the tensor back to its producer when it
goes, and the caller keeps the object itself alive for as long as it uses the address.
"""

import ctypes
from ctypes import py_object
from dataclasses import dataclass

from . import dlpack

# DLPack's DLDataTypeCode values, and the array interfaces' type letters as DLPack codes.
DL_INT, DL_UINT, DL_FLOAT, DL_OPAQUE, DL_BFLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 3, 4, 5, 6
_TYPESTR_CODES = {"i": DL_INT, "u": DL_UINT, "f": DL_FLOAT, "c": DL_COMPLEX, "b": DL_BOOL,
                  "V": DL_OPAQUE}
# DLPack's "no synchronisation" stream: only the addresses are read, nothing waits or is queued.
_NO_SYNC_STREAM = -1

# A PyDLL of its own, so that these prototypes (taking the capsule as an object) leave those
# dlpack.py sets on ctypes.pythonapi (taking it as a raw pointer, in its destructor) alone.
_capi = ctypes.PyDLL(None)
_capi.PyCapsule_IsValid.restype = ctypes.c_int
_capi.PyCapsule_IsValid.argtypes = [py_object, ctypes.c_char_p]
_capi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_capi.PyCapsule_GetPointer.argtypes = [py_object, ctypes.c_char_p]


@dataclass(frozen=True)
class TensorMemory:
    """One tensor's memory as its producer describes it.

    address is the first element's (DLPack's data plus byte_offset); strides are in bytes, None
    when the producer says C-contiguous; device_type is DLPack's (dlpack.CPU, CUDA, CUDA_HOST,
    CUDA_MANAGED); via names the protocol it was read through, for messages.
    """

    address: int
    shape: tuple
    strides: tuple
    code: int
    bits: int
    device_type: int
    device_id: int
    readonly: bool
    via: str

    @property
    def itemsize(self):
        return self.bits // 8

    @property
    def count(self):
        n = 1
        for extent in self.shape:
            n *= extent
        return n

    @property
    def nbytes(self):
        return self.count * self.itemsize

    @property
    def contiguous(self):
        """C-contiguous: each dimension's stride is the bytes of the dimensions after it
        (dimensions of one element may have any stride, as numpy and DLPack agree)."""
        if self.strides is None or self.count == 0:
            return True
        step = self.itemsize
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != step:
                return False
            step *= extent
        return True

    @property
    def on_host(self):
        return self.device_type in (dlpack.CPU, dlpack.CUDA_HOST)


def _capsule_of(obj):
    """obj.__dlpack__(), asking for a versioned capsule and no stream synchronisation where the
    producer takes them (numpy takes neither; an older torch no max_version)."""
    kwargs = {}
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and device()[0] not in (dlpack.CPU, dlpack.CUDA_HOST):
        kwargs["stream"] = _NO_SYNC_STREAM
    try:
        return obj.__dlpack__(max_version=dlpack.VERSION, **kwargs)
    except TypeError:
        return obj.__dlpack__(**kwargs)


def _from_dlpack(obj):
    capsule = _capsule_of(obj)
    if _capi.PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        managed = dlpack.DLManagedTensorVersioned.from_address(
            _capi.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
        readonly = bool(managed.flags & dlpack.FLAG_READ_ONLY)
    elif _capi.PyCapsule_IsValid(capsule, b"dltensor"):
        managed = dlpack.DLManagedTensor.from_address(
            _capi.PyCapsule_GetPointer(capsule, b"dltensor"))
        readonly = False
    else:
        raise TypeError("__dlpack__ returned no DLPack capsule (nor one already consumed)")
    t = managed.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    # DLPack's strides count elements; NULL says C-contiguous.
    item = t.dtype.bits * t.dtype.lanes // 8
    strides = tuple(t.strides[i] * item for i in range(t.ndim)) if t.strides else None
    return TensorMemory(
        address=(t.data or 0) + t.byte_offset, shape=shape, strides=strides, code=t.dtype.code,
        bits=t.dtype.bits * t.dtype.lanes, device_type=t.device.device_type,
        device_id=t.device.device_id, readonly=readonly, via="DLPack")


def _from_interface(interface, device_type, via):
    typestr = interface["typestr"]
    data = interface["data"]
    strides = interface.get("strides")
    return TensorMemory(
        address=int(data[0] or 0) + int(interface.get("offset", 0) or 0),
        shape=tuple(int(x) for x in interface["shape"]),
        strides=tuple(int(x) for x in strides) if strides is not None else None,
        code=_TYPESTR_CODES.get(typestr[1], DL_OPAQUE), bits=8 * int(typestr[2:]),
        device_type=device_type, device_id=0, readonly=bool(data[1]), via=via)


def tensor_memory(obj, name):
    """The TensorMemory of obj: DLPack first, then __cuda_array_interface__, then
    __array_interface__. A TypeError naming the argument when none of them answers, with what
    each said (a torch tensor that requires grad is refused by both of its protocols)."""
    tried = []
    if hasattr(obj, "__dlpack__"):
        try:
            return _from_dlpack(obj)
        except Exception as e:  # the producer's own refusal: try its other protocols
            tried.append(f"DLPack: {e}")
    for attr, device_type in (("__cuda_array_interface__", dlpack.CUDA),
                              ("__array_interface__", dlpack.CPU)):
        try:
            interface = getattr(obj, attr)
        except AttributeError as e:
            if hasattr(type(obj), attr):
                tried.append(f"{attr}: {e}")
            continue
        except Exception as e:
            tried.append(f"{attr}: {e}")
            continue
        return _from_interface(interface, device_type, attr)
    why = "; ".join(tried) or "it has no __dlpack__, __cuda_array_interface__ or __array_interface__"
    raise TypeError(f"zerocopy: {name} ({type(obj).__name__}) is no tensor zerocopy reads: {why}")
