# SPDX-License-Identifier: Apache-2.0
"""DLPack export through ctypes: the DLManagedTensor structs, the "dltensor" capsule and the
deleter that lets the consumer hand the memory back.

Each exported tensor lives in a registry until its deleter runs: the consumer calls it when its
tensor dies, or the capsule's destructor calls it when the capsule was never consumed. The
registry entry holds the struct itself, its shape and strides and a reference to the memory's
owner, so the buffer stays alive exactly as long as some tensor made from it does.
"""

import ctypes
from ctypes import POINTER, Structure, c_char_p, c_int, c_int32, c_int64, c_uint8, c_uint16
from ctypes import c_uint32, c_uint64, c_void_p

# DLDeviceType values.
CPU = 1
CUDA = 2
CUDA_HOST = 3
CUDA_MANAGED = 13

VERSION = (1, 0)  # the DLPack ABI version of the structs below
FLAG_READ_ONLY = 1

_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", c_void_p),
        ("deleter", c_void_p),
        ("flags", c_uint64),
        ("dl_tensor", DLTensor),
    ]


_live = {}  # address of a managed tensor -> what it keeps alive


def _release(address, _live=_live):
    # Bound as a default argument: at interpreter exit a consumer may free its tensor after this
    # module's globals are gone.
    _live.pop(address, None)


_DELETER_TYPE = ctypes.CFUNCTYPE(None, c_void_p)
_deleter = _DELETER_TYPE(_release)
_DELETER_ADDRESS = ctypes.cast(_deleter, c_void_p).value

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
# The destructor gets the capsule as a raw pointer: it runs while the capsule is being freed,
# when taking a new reference to it (as a py_object argument would) is not allowed.
_api.PyCapsule_IsValid.restype = c_int
_api.PyCapsule_IsValid.argtypes = [c_void_p, c_char_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [c_void_p, c_char_p]


def _capsule_destructor(capsule, _api=_api, _release=_release):
    # A consumer renames the capsule ("used_dltensor") when it takes the tensor over and calls
    # the deleter itself later; a capsule still carrying its first name was never consumed.
    for name in (_NAME, _NAME_VERSIONED):
        if _api.PyCapsule_IsValid(capsule, name):
            _release(_api.PyCapsule_GetPointer(capsule, name))


_destructor = ctypes.CFUNCTYPE(None, c_void_p)(_capsule_destructor)
_DESTRUCTOR_ADDRESS = ctypes.cast(_destructor, c_void_p).value


def live_exports():
    """How many exported tensors have not been handed back yet (for tests and leak checks)."""
    return len(_live)


def capsule(data, device, dtype, shape, keep, versioned, read_only=False):
    """A DLPack capsule for a C-contiguous tensor at address data.

    device: (device_type, device_id); dtype: a _dtypes.DType; keep: what must stay alive while
    the tensor lives; versioned: a "dltensor_versioned" capsule (DLPack >= 1.0 consumers).
    """
    ndim = len(shape)
    shape_arr = (c_int64 * max(ndim, 1))(*shape)
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    strides_arr = (c_int64 * max(ndim, 1))(*reversed(strides))
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    if versioned:
        managed.version.major, managed.version.minor = VERSION
        managed.flags = FLAG_READ_ONLY if read_only else 0
    t = managed.dl_tensor
    t.data = data
    t.device.device_type, t.device.device_id = device
    t.ndim = ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype.code, dtype.bits, 1
    t.shape = ctypes.cast(shape_arr, POINTER(c_int64))
    t.strides = ctypes.cast(strides_arr, POINTER(c_int64))
    t.byte_offset = 0
    managed.manager_ctx = None
    managed.deleter = _DELETER_ADDRESS
    address = ctypes.addressof(managed)
    _live[address] = (managed, shape_arr, strides_arr, keep)
    try:
        return _api.PyCapsule_New(
            address, _NAME_VERSIONED if versioned else _NAME, _DESTRUCTOR_ADDRESS
        )
    except BaseException:
        _live.pop(address, None)
        raise
