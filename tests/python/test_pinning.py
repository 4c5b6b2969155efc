# SPDX-License-Identifier: Apache-2.0
"""zerocopy.register of another library's host tensor and zerocopy.pin_memory without a GPU:
every refusal names the argument and says why before the library is called, what is accepted
reaches the library (which answers ERR_NO_DEVICE here), and pin_memory's copy, types and
lifetime checked over pageable memory standing in for pinned."""
import gc
import weakref

import numpy as np
import pytest

import zerocopy
from zerocopy import _host_memory, pinning

HAVE_GPU = zerocopy.device_count() > 0
no_gpu_only = pytest.mark.skipif(HAVE_GPU, reason="checks the failure without a GPU")


class HostTensor:
    """A host tensor known only by its __array_interface__ (no buffer protocol, as a torch CPU
    tensor has none), over the memory of arr."""

    def __init__(self, arr):
        self._arr = arr  # keeps the memory
        self.__array_interface__ = arr.__array_interface__


class DLPackHostTensor:
    """A host tensor known only by DLPack, as torch exports a CPU tensor."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, stream=None):
        return self._arr.__dlpack__()

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


class GradTensor:
    """A tensor that requires grad, as torch's is: refused by its own DLPack export, read
    through detach(), which shares the memory."""

    requires_grad = True

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, stream=None):
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")

    def __dlpack_device__(self):
        return (1, 0)

    def detach(self):
        return DLPackHostTensor(self._arr)


class GpuTensor:
    """A GPU tensor as CuPy or Numba describe one; the address is never read from Python."""

    __cuda_array_interface__ = {"shape": (1024,), "typestr": "<f4", "data": (0x7F0000000000, False),
                                "strides": None, "version": 3}


def read_only(arr):
    arr.flags.writeable = False
    return arr


# -- register: the buffer protocol's path, as before ----------------------------------------


def test_register_refuses_a_non_contiguous_array():
    arr = np.zeros((64, 64), dtype=np.float32)
    with pytest.raises(ValueError, match=r"obj \(ndarray\) is not C-contiguous: pin .contiguous"):
        zerocopy.register(arr[:, ::2])


def test_register_refuses_a_read_only_buffer():
    with pytest.raises(ValueError, match=r"obj \(ndarray\) is read-only"):
        zerocopy.register(read_only(np.zeros(4096, dtype=np.uint8)))
    with pytest.raises(ValueError, match=r"obj \(bytes\) is read-only"):
        zerocopy.register(b"\0" * 4096)


@pytest.mark.parametrize("empty", [np.zeros(0, dtype=np.float32), bytearray()], ids=["array", "bytearray"])
def test_register_refuses_an_empty_buffer(empty):
    # The library's own answer to a size of 0 (InvalidArgumentError, a ValueError), said first.
    with pytest.raises(zerocopy.InvalidArgumentError, match=r"obj \(\w+\) is empty"):
        zerocopy.register(empty)


@pytest.mark.parametrize("obj", [object(), [1, 2, 3], "text", 4096], ids=["object", "list", "str", "int"])
def test_register_refuses_what_is_no_buffer_or_tensor(obj):
    with pytest.raises(TypeError, match=rf"obj \({type(obj).__name__}\) is no tensor"):
        zerocopy.register(obj)


@no_gpu_only
@pytest.mark.parametrize("make", [np.zeros, lambda n: bytearray(n)], ids=["array", "bytearray"])
def test_register_of_a_buffer_reaches_the_library(make):
    with pytest.raises(zerocopy.NoDeviceError):
        zerocopy.register(make(1 << 16))


# -- register: a tensor with no buffer protocol ---------------------------------------------


@pytest.mark.parametrize("wrap", [HostTensor, DLPackHostTensor], ids=["array_interface", "dlpack"])
def test_a_host_tensor_is_read_in_place(wrap):
    arr = np.arange(1 << 12, dtype=np.float32)
    tensor = wrap(arr)
    address, size, owner = _host_memory.registrable(tensor, "obj", "zerocopy.register")
    assert (address, size) == (arr.ctypes.data, arr.nbytes)
    assert tensor in owner  # the registered buffer keeps the tensor, and so its memory, alive


def test_a_tensor_that_requires_grad_is_read_through_detach():
    arr = np.arange(1 << 12, dtype=np.float32)
    tensor = GradTensor(arr)
    address, size, owner = _host_memory.registrable(tensor, "obj", "zerocopy.register")
    assert (address, size) == (arr.ctypes.data, arr.nbytes) and owner == (tensor,)


@no_gpu_only
@pytest.mark.parametrize("wrap", [HostTensor, DLPackHostTensor, GradTensor],
                         ids=["array_interface", "dlpack", "requires_grad"])
def test_register_of_a_host_tensor_reaches_the_library(wrap):
    with pytest.raises(zerocopy.NoDeviceError):
        zerocopy.register(wrap(np.zeros(1 << 16, dtype=np.uint8)))


def test_register_refuses_a_gpu_tensor():
    with pytest.raises(ValueError, match=r"obj \(GpuTensor\) is on GPU 0: already GPU memory"):
        zerocopy.register(GpuTensor())


def test_register_refuses_a_non_contiguous_tensor():
    arr = np.zeros((64, 64), dtype=np.float32)
    with pytest.raises(ValueError, match=r"obj \(HostTensor\) is not contiguous: pin .contiguous"):
        zerocopy.register(HostTensor(arr.T))


def test_register_refuses_a_read_only_tensor():
    with pytest.raises(ValueError, match=r"obj \(HostTensor\) is read-only"):
        zerocopy.register(HostTensor(read_only(np.zeros(4096, dtype=np.uint8))))


def test_register_refuses_an_empty_tensor():
    with pytest.raises(zerocopy.InvalidArgumentError, match=r"obj \(HostTensor\) is empty"):
        zerocopy.register(HostTensor(np.zeros((0, 16), dtype=np.float32)))


# -- pin_memory ---------------------------------------------------------------------------


def test_pin_memory_refusals():
    with pytest.raises(ValueError, match=r"tensor \(GpuTensor\) is on GPU 0: already GPU memory"):
        zerocopy.pin_memory(GpuTensor())
    with pytest.raises(zerocopy.InvalidArgumentError, match=r"tensor \(ndarray\) is empty"):
        zerocopy.pin_memory(np.zeros(0, dtype=np.float32))
    with pytest.raises(TypeError, match=r"tensor \(list\) is no tensor"):
        zerocopy.pin_memory([1.0, 2.0])
    with pytest.raises(TypeError, match=r"tensor \(bytearray\) is no tensor"):
        zerocopy.pin_memory(bytearray(16))
    for kind in ("pageable", "write-combined", "device"):
        with pytest.raises(ValueError, match="is not one of pinned, mapped"):
            zerocopy.pin_memory(np.zeros(16), kind=kind)


@no_gpu_only
def test_pin_memory_without_gpu_is_no_device():
    with pytest.raises(zerocopy.NoDeviceError):
        zerocopy.pin_memory(np.zeros(1 << 16, dtype=np.float32))


class PageableStandIn:
    """pinning's Buffer with every allocation made pageable (no GPU needed), each recorded."""

    made = []

    @classmethod
    def alloc(cls, size, kind, device):
        buf = zerocopy.Buffer.alloc(size, "pageable", device=-1)
        cls.made.append((buf, kind, device))
        return buf


@pytest.fixture
def stand_in(monkeypatch):
    PageableStandIn.made = []
    monkeypatch.setattr(pinning, "Buffer", PageableStandIn)
    return PageableStandIn


@pytest.mark.parametrize("source", [
    np.arange(4096, dtype=np.float32),
    np.arange(64 * 48, dtype=np.int16).reshape(64, 48),
    np.arange(64 * 48, dtype=np.float64).reshape(64, 48).T,  # strided: the copy is contiguous
    read_only(np.arange(1000, dtype=np.uint8)),  # read-only: only read
    np.array(3.5),  # no dimensions
], ids=["1d", "2d", "transposed", "read_only", "0d"])
def test_pin_memory_of_an_array_is_an_array_over_the_buffer(stand_in, source):
    pinned = zerocopy.pin_memory(source)
    (buf, kind, device), = stand_in.made
    assert (kind, device) == ("pinned", None)
    assert isinstance(pinned, np.ndarray) and pinned.ctypes.data == buf.host_ptr
    assert pinned.dtype == source.dtype and pinned.shape == source.shape
    assert pinned.flags.c_contiguous and pinned.flags.writeable
    assert np.array_equal(pinned, source)


def test_pin_memory_of_a_foreign_tensor_and_its_arguments(stand_in):
    arr = np.arange(256, dtype=np.int32).reshape(16, 16)
    for wrap in (HostTensor, DLPackHostTensor):
        pinned = zerocopy.pin_memory(wrap(arr), device=1, kind="mapped")
        assert isinstance(pinned, np.ndarray) and np.array_equal(pinned, arr)
    assert [(kind, device) for _, kind, device in stand_in.made] == [("mapped", 1)] * 2


def test_pin_memory_is_a_copy_that_outlives_the_source_and_holds_the_buffer(stand_in):
    source = np.arange(1 << 16, dtype=np.float32)
    pinned = zerocopy.pin_memory(source)
    (buf, _, _), = stand_in.made
    memory = weakref.ref(buf._mem)
    stand_in.made.clear()
    del buf, source
    gc.collect()
    assert memory() is not None and pinned[12345] == 12345.0  # the array holds the buffer
    view = pinned[10:]
    del pinned
    gc.collect()
    assert memory() is not None and view[0] == 10.0  # and so does any view of it
    del view
    gc.collect()
    assert memory() is None  # freed with the last of them
