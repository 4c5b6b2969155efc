# SPDX-License-Identifier: Apache-2.0
"""Host buffers without a GPU: pageable memory seen by numpy, memoryview and DLPack without a
copy, kept alive while exported; the pinned kinds' failure and fallback; pools; registration."""
import gc
import sys

import numpy as np
import pytest

import zerocopy

HAVE_GPU = zerocopy.device_count() > 0


def pageable(shape=(1024,), dtype="float32"):
    return zerocopy.empty(shape, dtype, kind="pageable")  # no device: none needed


def test_pageable_buffer_info():
    buf = zerocopy.Buffer.alloc(10000, "pageable", device=-1)
    info = buf.info()
    assert (info.kind, info.requested_kind, info.size) == ("pageable", "pageable", 10000)
    assert info.capacity >= 10000 and info.host_ptr != 0
    assert buf.dtype.name == "uint8" and buf.shape == (10000,)
    assert "pageable" in repr(buf)


def test_numpy_asarray_shares_the_memory():
    buf = pageable((4, 256))
    a = np.asarray(buf)
    assert a.shape == (4, 256) and a.dtype == np.float32
    assert a.ctypes.data == buf.host_ptr  # no copy: the very same bytes
    a[:] = np.arange(1024, dtype=np.float32).reshape(4, 256)
    b = np.asarray(buf)
    assert b[3, 255] == 1023.0
    m = buf.memoryview()
    assert m.format == "f" and m.shape == (4, 256) and m[1, 2] == 258.0


def test_views_as_other_types():
    buf = pageable((256,), "float32")
    np.asarray(buf)[:] = 1.0
    raw = np.asarray(buf.view("uint8"))
    assert raw.size == 1024 and raw.ctypes.data == buf.host_ptr
    assert raw[:4].tobytes() == np.float32(1.0).tobytes()
    with pytest.raises(ValueError):
        buf.view("float64", (200,))  # 1600 bytes out of 1024


def test_dlpack_to_numpy_is_cpu_and_no_copy():
    buf = pageable((8, 8), "int32")
    np.asarray(buf)[:] = 7
    assert buf.__dlpack_device__() == (1, 0)  # kDLCPU for pageable memory
    gc.collect()
    before = zerocopy.live_exports()
    a = np.from_dlpack(buf)
    assert a.shape == (8, 8) and a.dtype == np.int32 and a[7, 7] == 7
    assert a.ctypes.data == buf.host_ptr
    assert zerocopy.live_exports() == before + 1
    del a
    gc.collect()
    assert zerocopy.live_exports() == before  # the consumer handed it back


def test_unconsumed_capsule_gives_the_memory_back():
    buf = pageable()
    gc.collect()
    before = zerocopy.live_exports()
    capsule = buf.__dlpack__()
    assert zerocopy.live_exports() == before + 1
    del capsule
    gc.collect()
    assert zerocopy.live_exports() == before


def test_versioned_capsule_when_asked():
    buf = pageable()
    capsule = buf.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capsule)
    legacy = buf.__dlpack__()
    assert '"dltensor"' in repr(legacy)


def test_memory_outlives_close_while_exported():
    gc.collect()  # what earlier tests left goes now, not while this one counts
    buf = pageable((1000,), "float64")
    a = np.asarray(buf)
    a[:] = 2.5
    t = zerocopy.totals().live_buffers
    buf.close()
    assert buf.closed
    with pytest.raises(ValueError):
        buf.numpy()
    assert float(a.sum()) == 2500.0  # still there: the array holds it
    assert zerocopy.totals().live_buffers == t
    del a
    gc.collect()
    assert zerocopy.totals().live_buffers == t - 1  # freed with the last view


def test_close_frees_at_once_without_views():
    gc.collect()
    t = zerocopy.totals()
    with zerocopy.Buffer.alloc(1 << 16, "pageable", device=-1):
        assert zerocopy.totals().live_buffers == t.live_buffers + 1
    assert zerocopy.totals().live_buffers == t.live_buffers
    assert zerocopy.totals().frees >= t.frees + 1


def test_pageable_memory_has_no_cuda_array_interface():
    buf = pageable()
    assert not hasattr(buf, "__cuda_array_interface__")
    with pytest.raises(BufferError):
        buf.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        buf.__dlpack__(copy=True)


@pytest.mark.skipif(HAVE_GPU, reason="checks the failure without a GPU")
def test_pinned_without_gpu_fails_or_falls_back():
    with pytest.raises(zerocopy.NoDeviceError) as info:
        zerocopy.Buffer.alloc(1 << 20, "pinned")
    assert info.value.detail
    buf = zerocopy.Buffer.alloc(1 << 20, "pinned", flags="fallback_pageable")
    info = buf.info()
    assert buf.is_fallback and info.kind == "pageable" and info.requested_kind == "pinned"
    assert info.fallback_status == "ERR_NO_DEVICE"
    assert buf.__dlpack_device__() == (1, 0)  # what it really is: pageable


def test_pool_of_pageable_memory_reuses_blocks():
    with zerocopy.Pool("pageable", device=-1) as pool:
        a = pool.alloc(1 << 20)
        first = a.host_ptr
        a.close()
        b = pool.alloc(1 << 20)
        assert b.host_ptr == first  # the cached block again
        s = pool.stats()
        assert (s.hits, s.misses, s.blocks_in_use) == (1, 1, 1)
        assert "pooled" in b.info().notes
        c = pool.empty((16, 16), "float32")
        np.asarray(c)[:] = 3
        assert float(np.asarray(c).sum()) == 768.0


def test_pool_outlives_close_while_a_buffer_is_out():
    pool = zerocopy.Pool("pageable", device=-1)
    buf = pool.alloc(4096)
    a = np.asarray(buf)
    pool.close()
    buf.close()
    a[:] = 9  # the block and its pool stay until the array goes
    assert int(a[100]) == 9
    del a
    gc.collect()


def test_pointer_info_of_our_buffer():
    buf = pageable((100,))
    info = zerocopy.pointer_info(buf.host_ptr + 40)
    assert info.from_zerocopy and info.kind == "pageable"
    assert info.base == buf.host_ptr and info.offset == 40
    assert zerocopy.pointer_info(np.asarray(buf)).offset == 0


def test_register_without_gpu_is_no_device():
    if HAVE_GPU:
        pytest.skip("checks the failure without a GPU")
    arr = np.zeros(1 << 16, dtype=np.uint8)
    with pytest.raises(zerocopy.NoDeviceError):
        zerocopy.register(arr)


def test_register_refuses_read_only_memory():
    arr = np.zeros(4096, dtype=np.uint8)
    arr.flags.writeable = False
    with pytest.raises(ValueError):
        zerocopy.register(arr)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the buffer protocol from Python needs 3.12")
def test_memoryview_of_the_buffer_itself():
    buf = pageable((10,), "float32")
    np.asarray(buf)[:] = 4
    assert memoryview(buf).tolist() == [4.0] * 10


def test_dtype_names():
    assert zerocopy.empty((2,), np.float64, kind="pageable", device=-1).dtype.name == "float64"
    assert zerocopy.empty((2,), "f2", kind="pageable", device=-1).dtype.itemsize == 2
    with pytest.raises(TypeError):
        zerocopy.empty((2,), "float128", kind="pageable", device=-1)
