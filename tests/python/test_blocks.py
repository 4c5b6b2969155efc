# SPDX-License-Identifier: Apache-2.0
"""The block mover's Python side without a GPU: tensors read in place through DLPack and the
array interfaces, block numbers turned into size_t arrays, every argument the library cannot
check refused with its name before anything moves, and the library's own refusals raised as
the package's exceptions."""
import ctypes
import gc
import threading

import numpy as np
import pytest

import zerocopy
from zerocopy import _block_args as A
from zerocopy import _structs as S
from zerocopy import _tensors, dlpack

HAVE_GPU = zerocopy.device_count() > 0


class ArrayInterface:
    """An object known only by its __array_interface__ (as a foreign host tensor may be)."""

    def __init__(self, arr, strides=None):
        self._arr = arr  # keeps the memory
        self.__array_interface__ = dict(arr.__array_interface__, strides=strides)


class CudaArrayInterface:
    """A GPU tensor as CuPy or Numba describe one; the address is never read from Python."""

    def __init__(self, shape, typestr="|u1", address=0x7F0000000000):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (address, False), "strides": None, "version": 3}


class RefusingDLPack:
    """A producer whose __dlpack__ refuses (as torch does for a tensor that requires grad)."""

    def __dlpack__(self, stream=None, max_version=None):
        raise RuntimeError("cannot export tensors that require gradient")


def sides(device_rows=8, host_rows=4, row=16):
    return np.zeros((device_rows, row), np.uint8), np.zeros((host_rows, row), np.uint8)


def closed_mover(handle=None):
    """A Mover without a GPU: handle None is a closed one, 0 hands the library a NULL mover."""
    mover = zerocopy.Mover.__new__(zerocopy.Mover)
    mover._handle, mover._lock, mover.device = handle, threading.Lock(), 0
    return mover


# -- the engines: the library's list ---------------------------------------------------------
def test_engines_are_the_library_list():
    assert zerocopy.Mover.engines == ("auto", "copy", "batch", "kernel")
    lib = zerocopy._lib.lib
    # BLOCKS_ENGINE_COUNT sizes zc_blocks_choice.predicted_us: the library has no engine past it.
    assert lib.zc_blocks_engine_name(S.BLOCKS_ENGINE_COUNT) == b"unknown"
    assert lib.zc_blocks_engine_name(S.BLOCKS_ENGINE_COUNT - 1) == b"kernel"


@pytest.mark.skipif(HAVE_GPU, reason="checks the failure without a GPU")
def test_a_mover_without_a_gpu_says_why():
    with pytest.raises(zerocopy.NoDeviceError) as info:
        zerocopy.Mover()
    assert info.value.call == "zc_blocks_create" and info.value.detail


# -- reading tensors in place ----------------------------------------------------------------
def test_a_numpy_array_is_read_through_dlpack_in_place():
    a = np.zeros((4, 8), np.float32)
    mem = _tensors.tensor_memory(a, "x")
    assert mem.via == "DLPack" and mem.address == a.ctypes.data
    assert mem.shape == (4, 8) and mem.nbytes == 128 and mem.contiguous and mem.on_host


def test_a_zerocopy_buffer_is_read_and_its_capsule_handed_back():
    buf = zerocopy.empty((16, 64), "uint8", kind="pageable")
    gc.collect()
    before = zerocopy.live_exports()
    mem = _tensors.tensor_memory(buf, "x")
    assert mem.via == "DLPack" and mem.address == buf.host_ptr and mem.shape == (16, 64)
    assert mem.device_type == dlpack.CPU
    gc.collect()
    assert zerocopy.live_exports() == before  # looked at, not kept


def test_a_read_only_array_is_read_and_known_read_only():
    a = np.zeros((4, 16), np.uint8)
    a.flags.writeable = False
    mem = _tensors.tensor_memory(a, "x")
    assert mem.readonly and mem.address == a.ctypes.data


def test_a_cuda_array_interface_is_gpu_memory():
    mem = _tensors.tensor_memory(CudaArrayInterface((8, 16)), "x")
    assert mem.device_type == dlpack.CUDA and not mem.on_host
    assert mem.address == 0x7F0000000000 and mem.nbytes == 128


def test_an_object_of_no_protocol_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match="host_blocks"):
        A.block_sides(np.zeros((4, 4), np.uint8), object())
    with pytest.raises(TypeError, match="require gradient"):
        _tensors.tensor_memory(RefusingDLPack(), "device_blocks")


# -- the tensors of blocks ---------------------------------------------------------------------
def test_blocks_are_rows_of_the_first_dimension_by_default():
    device = np.zeros((8, 4, 4), np.float32)  # 64 bytes a block
    host = np.zeros((3, 16), np.float32)
    dev_side, host_side, size = A.block_sides(device, host)
    assert size == 64 and dev_side.blocks == 8 and host_side.blocks == 3
    assert dev_side.address == device.ctypes.data and host_side.address == host.ctypes.data


def test_blocks_of_two_sizes_are_refused():
    with pytest.raises(ValueError, match="64 bytes in device_blocks and 32 in host_blocks"):
        A.block_sides(np.zeros((8, 64), np.uint8), np.zeros((8, 32), np.uint8))


def test_block_bytes_given_cuts_the_bytes_whatever_the_shape():
    dev_side, host_side, size = A.block_sides(np.zeros(1024, np.uint8),
                                              np.zeros((2, 128), np.int32), block_bytes=256)
    assert size == 256 and dev_side.blocks == 4 and host_side.blocks == 4
    with pytest.raises(ValueError, match="host_blocks holds 1000 bytes"):
        A.block_sides(np.zeros(1024, np.uint8), np.zeros(1000, np.uint8), block_bytes=256)


@pytest.mark.parametrize("bad,error", [(0, ValueError), (-1, ValueError), (1 << 64, ValueError),
                                       (True, TypeError), (256.0, TypeError), ("256", TypeError)])
def test_a_bad_block_size_is_refused(bad, error):
    with pytest.raises(error, match="block_bytes"):
        A.block_sides(*sides(), block_bytes=bad)


def test_a_tensor_without_rows_needs_block_bytes():
    with pytest.raises(ValueError, match="device_blocks has shape \\(\\)"):
        A.block_sides(np.zeros((), np.uint8), np.zeros((4, 16), np.uint8))


def test_non_contiguous_tensors_are_refused_naming_them():
    base = np.zeros((8, 32), np.uint8)
    with pytest.raises(ValueError, match="device_blocks is not contiguous"):
        A.block_sides(base[:, :16], np.zeros((4, 16), np.uint8))  # every other half row
    with pytest.raises(ValueError, match="host_blocks is not contiguous"):
        A.block_sides(np.zeros((4, 16), np.uint8), ArrayInterface(base, strides=(64, 1)))


def test_a_view_of_whole_blocks_is_contiguous():
    base = np.zeros((8, 32), np.uint8)
    dev_side, _, _ = A.block_sides(base[2:6], np.zeros((4, 32), np.uint8))
    assert dev_side.address == base.ctypes.data + 64 and dev_side.blocks == 4
    # A dimension of one element may have any stride (numpy gives the parent's).
    one_row = A.block_sides(base[3:4, :16], np.zeros((4, 16), np.uint8))[0]
    assert one_row.address == base.ctypes.data + 96 and one_row.blocks == 1


# -- block numbers ---------------------------------------------------------------------------
@pytest.mark.parametrize("numbers", [
    [3, 0, 7], (3, 0, 7), np.array([3, 0, 7]), np.array([3, 0, 7], np.int32),
    np.array([3, 0, 7], np.uint8), np.array([3, 9, 0, 9, 7])[::2], np.array([7, 0, 3])[::-1],
    [np.int64(3), np.int32(0), 7], ArrayInterface(np.array([3, 0, 7])),
])
def test_block_numbers_become_size_t_arrays(numbers):
    side = A.Side("device_blocks", 0x1000, 8, False)
    out = A.block_numbers(numbers, "to_host's sources", side)
    assert isinstance(out, ctypes.Array) and out._type_ is ctypes.c_size_t
    assert list(out) == [3, 0, 7]


def test_block_numbers_from_a_zerocopy_buffer_through_dlpack():
    buf = zerocopy.empty((3,), "int64", kind="pageable")
    np.asarray(buf)[:] = [5, 1, 2]
    assert list(A.block_numbers(buf, "x", A.Side("host_blocks", 0, 6, False))) == [5, 1, 2]


@pytest.mark.parametrize("bad,error,match", [
    (np.array([1.0, 2.0]), TypeError, "block numbers are integers"),
    (np.array([True, False]), TypeError, "block numbers are integers"),
    ([1, 2.0], TypeError, "to_host's sources\\[1\\] is 2.0"),
    ([1, True], TypeError, "to_host's sources\\[1\\] is True"),
    (np.array([[1, 2]]), ValueError, "one-dimensional"),
    (CudaArrayInterface((2,), "<i8"), TypeError, "GPU memory"),
    ("12", TypeError, "to_host's sources is str"),
    (None, TypeError, "to_host's sources"),
])
def test_block_numbers_of_the_wrong_kind_are_refused(bad, error, match):
    with pytest.raises(error, match=match):
        A.block_numbers(bad, "to_host's sources", A.Side("device_blocks", 0x1000, 8, False))


@pytest.mark.parametrize("bad,match", [
    ([0, -1], "\\[1\\] is -1: negative"),
    (np.array([2, -5], np.int64), "\\[1\\] is -5: negative"),
    ([0, 8], "\\[1\\] is 8: device_blocks holds 8 blocks \\(0 to 7\\)"),
    (np.array([1 << 63], np.uint64), "\\[0\\] is 9223372036854775808: device_blocks holds"),
])
def test_block_numbers_out_of_range_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        A.block_numbers(bad, "to_host's sources", A.Side("device_blocks", 0x1000, 8, False))


def test_each_direction_counts_its_own_sides_blocks():
    device, host = sides(device_rows=8, host_rows=4)
    # to_device reads host blocks (4 of them) and writes device blocks (8).
    with pytest.raises(ValueError, match="to_device's sources\\[0\\] is 5: host_blocks holds 4"):
        A.describe(device, host, to_device=([5], [0]))
    A.describe(device, host, to_device=([3], [7]))
    with pytest.raises(ValueError, match="to_host's destinations\\[0\\] is 5: host_blocks holds 4"):
        A.describe(device, host, to_host=([0], [5]))
    A.describe(device, host, to_host=([7], [3]))


# -- the description the library gets --------------------------------------------------------
def test_one_direction_describes_the_tensors_in_place():
    device, host = sides()
    d = A.describe(device, host, to_host=(np.array([1, 2]), [0, 3]))
    assert d.desc.dir == S.BLOCKS_TO_HOST
    lst = d.desc.to_host
    assert lst.count == 2 and lst.block_bytes == 16 and not lst.blocks
    assert lst.src_base == device.ctypes.data and lst.dst_base == host.ctypes.data  # no copy
    assert [lst.src_index[i] for i in range(2)] == [1, 2]
    assert [lst.dst_index[i] for i in range(2)] == [0, 3]
    assert d.desc.to_device.count == 0 and not d.desc.to_device.src_base  # the list not named


def test_both_directions_at_once():
    device, host = sides()
    d = A.describe(device, host, to_device=([0, 1], [6, 7]), to_host=(range(3), [1, 2, 3]))
    assert d.desc.dir == S.BLOCKS_TO_DEVICE | S.BLOCKS_TO_HOST == 3
    assert d.desc.to_device.src_base == host.ctypes.data
    assert d.desc.to_device.dst_base == device.ctypes.data
    assert d.desc.to_device.count == 2 and d.desc.to_host.count == 3


def test_unpaired_or_missing_directions_are_refused():
    device, host = sides()
    with pytest.raises(ValueError, match="to_host has 2 sources and 1 destinations"):
        A.describe(device, host, to_host=([0, 1], [0]))
    with pytest.raises(TypeError, match="to_device is a pair"):
        A.describe(device, host, to_device=[0, 1, 2])
    with pytest.raises(ValueError, match="nothing to move"):
        A.describe(device, host)


def test_a_read_only_destination_is_refused_and_a_read_only_source_taken():
    device, host = sides()
    host.flags.writeable = False
    with pytest.raises(ValueError, match="to_host writes into host_blocks, which is read-only"):
        A.describe(device, host, to_host=([0], [0]))
    assert A.describe(device, host, to_device=([0], [0])).desc.to_device.count == 1


# -- options: engine, SMs, stream ------------------------------------------------------------
def test_engines_by_name():
    assert [A.options(engine=e).engine for e in ("auto", "copy", "batch", "kernel", "KERNEL")] == \
        [0, 1, 2, 3, 3]
    with pytest.raises(ValueError, match="engine='dma': one of auto, copy, batch, kernel"):
        A.options(engine="dma")
    with pytest.raises(TypeError, match="engine"):
        A.options(engine=1)


@pytest.mark.parametrize("bad,error", [(-1, ValueError), (1 << 32, ValueError), (2.0, TypeError)])
def test_a_bad_sm_limit_is_refused(bad, error):
    with pytest.raises(error, match="max_sms"):
        A.options(max_sms=bad)


class TorchLikeStream:
    cuda_stream = 0x5500


class CupyLikeStream:
    ptr = 0x6600


@pytest.mark.parametrize("stream,handle", [(None, None), (0, None), (0x1234, 0x1234),
                                           (TorchLikeStream(), 0x5500), (CupyLikeStream(), 0x6600)])
def test_streams_as_handles(stream, handle):
    assert A.options(stream=stream).stream == handle  # None: the legacy default stream


@pytest.mark.parametrize("bad,error", [(-1, ValueError), (1 << 64, ValueError), (True, TypeError),
                                       ("0", TypeError), (object(), TypeError)])
def test_a_bad_stream_is_refused(bad, error):
    with pytest.raises(error, match="stream"):
        A.options(stream=bad)


# -- the Mover: Python's checks first, then the library's ----------------------------------
def test_python_checks_come_before_the_library():
    mover = closed_mover()
    device, host = sides()
    with pytest.raises(ValueError, match="negative"):
        mover.move(device, host, to_host=([-1], [0]))
    with pytest.raises(ValueError, match="engine="):
        mover.plan(device, host, to_host=([1], [0]), engine="fast")
    with pytest.raises(ValueError, match="the mover is closed"):
        mover.move(device, host, to_host=([1], [0]))


def test_a_library_refusal_is_the_package_s_exception():
    mover = closed_mover(handle=0)  # a NULL mover: the library's first check
    device, host = sides()
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        mover.plan(device, host, to_host=([1], [0]))
    assert info.value.call == "zc_blocks_plan" and "mover" in info.value.detail


def test_a_choice_names_the_engines_that_reach_the_memory():
    raw = S.zc_blocks_choice()
    raw.engine, raw.reachable = 3, (1 << 1) | (1 << 3)
    raw.predicted_us[:] = [-1.0, 40.0, -1.0, 12.5]
    raw.blocks, raw.bytes_to_host, raw.calls, raw.sms = 64, 64 << 12, 1, 8
    choice = zerocopy.blocks._choice_from(raw)
    assert choice.engine == "kernel" and choice.reachable == ("copy", "kernel")
    assert choice.predicted_us == {"copy": 40.0, "kernel": 12.5}
    assert (choice.blocks, choice.bytes_to_host, choice.calls, choice.sms) == (64, 64 << 12, 1, 8)


def test_closing_twice_is_harmless():
    mover = closed_mover()
    mover.close()
    mover.close()
    assert mover.closed and "closed" in repr(mover)
