# SPDX-License-Identifier: Apache-2.0
"""Arguments as a newcomer writes them, without a GPU: pageable buffers need no device number,
sizes in the grammar of `zc advise --bytes`, ints that do not fit their C type refused before
ctypes truncates them, complex arrays refused where real samples are expected."""
import numpy as np
import pytest

import zerocopy
from zerocopy import _common, _ints
from hand_profile import hand_profile

SIZE_MAX = (1 << 64) - 1
TAPS = zerocopy.fir_lowpass(0.1, 17)


# -- pageable memory without a GPU and without device=-1 ------------------------------------
def test_pageable_empty_needs_no_device_number():
    buf = zerocopy.empty((16,), "float32", kind="pageable")
    assert buf.info().device == zerocopy.DEVICE_HOST and buf.info().kind == "pageable"
    a = np.asarray(buf)
    a[:] = 7.0
    assert float(np.asarray(buf).sum()) == 7.0 * 16
    assert zerocopy.Buffer.alloc(4096, "pageable").info().device == zerocopy.DEVICE_HOST
    with zerocopy.Pool("pageable") as pool:
        assert pool.alloc(1000).info().kind == "pageable"


def test_a_device_given_for_pageable_memory_is_kept():
    if zerocopy.device_count() == 0:
        with pytest.raises(zerocopy.NoDeviceError):
            zerocopy.empty((16,), kind="pageable", device=0)
    else:
        assert zerocopy.empty((16,), kind="pageable", device=0).info().device == 0


# -- sizes: the library's one grammar (zc_size_parse) ---------------------------------------
@pytest.mark.parametrize("text,value", [("4096", 4096), ("4K", 4096), ("4KiB", 4096),
                                        ("1.5M", 3 << 19), ("2 GiB", 2 << 30), ("1T", 1 << 40)])
def test_sizes_read_as_zc_reads_them(text, value):
    assert _common.size_bytes(text) == value


def test_advise_takes_1T_as_zc_advise_bytes_does():
    advice = zerocopy.advise(size="1T", transfers=1, profile=hand_profile())
    assert advice.workload["bytes"] == 1 << 40
    same = zerocopy.advise(size=1 << 40, transfers=1, profile=hand_profile())
    assert advice.workload == same.workload


@pytest.mark.parametrize("bad", ["1.5P", "-4K", "0x10", "4 KB B", "", "nan"])
def test_sizes_outside_the_grammar_are_value_errors(bad):
    with pytest.raises(ValueError) as info:
        zerocopy.advise(size=bad, profile=hand_profile())
    assert repr(bad) in str(info.value)


def test_a_size_past_advise_s_limit_is_refused_as_zc_refuses_it():
    with pytest.raises(ValueError):
        zerocopy.advise(size="2T", profile=hand_profile())
    with pytest.raises(ValueError):
        zerocopy.advise(size=(1 << 40) + 1, profile=hand_profile())


# -- ints that would wrap in ctypes ----------------------------------------------------------
@pytest.mark.parametrize("bad", [-1, -(1 << 64), 1 << 64, (1 << 64) + 4096])
def test_advise_size_out_of_range_is_a_value_error(bad):
    with pytest.raises(ValueError) as info:
        zerocopy.advise(size=bad, profile=hand_profile())
    assert str(bad) in str(info.value)


def test_a_bool_or_float_is_no_size():
    with pytest.raises(TypeError):
        zerocopy.advise(size=4096.0, profile=hand_profile())
    with pytest.raises(TypeError):
        zerocopy.advise(size=True, profile=hand_profile())


@pytest.mark.parametrize("size", [-1, 1 << 64])
def test_buffer_sizes_that_do_not_fit_size_t_are_value_errors(size):
    with pytest.raises(ValueError) as info:
        zerocopy.Buffer.alloc(size, "pageable")
    assert "zc_buffer_alloc" in str(info.value) and "size_t" in str(info.value)


def test_device_numbers_that_do_not_fit_int_are_value_errors():
    with pytest.raises(ValueError) as info:
        zerocopy.Buffer.alloc(4096, "pageable", device=1 << 31)
    assert "int32_t" in str(info.value)
    with pytest.raises(ValueError):
        zerocopy.Buffer.alloc(4096, "pageable", flags=1 << 32)


def test_struct_fields_refuse_ints_that_do_not_fit():
    with pytest.raises(ValueError) as info:
        zerocopy.Stream(TAPS, mode="cpu", frame_samples=-1)
    assert "zc_stream_config.frame_samples" in str(info.value)
    with pytest.raises(ValueError):
        zerocopy.Stream(TAPS, mode="cpu", in_flight=1 << 32)
    with pytest.raises(ValueError):
        zerocopy.Stream(TAPS, mode="cpu", warmup_frames=-5)


def test_ranges_of_the_c_types():
    import ctypes

    assert _ints.int_range(ctypes.c_size_t) == (0, SIZE_MAX)
    assert _ints.int_range(ctypes.c_int) == (-(1 << 31), (1 << 31) - 1)
    assert _ints.int_range(ctypes.c_uint32) == (0, (1 << 32) - 1)
    assert _ints.int_range(ctypes.c_double) is None
    assert _ints.fit(np.int64(5), ctypes.c_size_t, "x") == 5
    with pytest.raises(ValueError):
        _ints.fit(np.int64(-5), ctypes.c_size_t, "x")


def test_pull_refuses_a_negative_count():
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64) as s:
        with pytest.raises(ValueError):
            s.pull(max_samples=-1, timeout=0)


# -- complex arrays and real streams ---------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_array_into_a_real_stream_is_a_type_error(dtype):
    x = (np.arange(256) + 1j * np.arange(256)).astype(dtype)
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64) as s:
        with pytest.raises(TypeError) as info:
            s.process(x)
        assert "complex" in str(info.value) and "channels=2" in str(info.value)
        with pytest.raises(TypeError):
            s.push(x)
        assert s.stats().samples_in == 0  # nothing was taken as real samples


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_array_into_a_complex_stream_is_i_and_q(dtype):
    rng = np.random.default_rng(4)
    x = (rng.uniform(-1, 1, 640) + 1j * rng.uniform(-1, 1, 640)).astype(dtype)
    pairs = np.stack([x.real, x.imag], axis=1).astype(np.float32)
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64, channels=2) as s:
        y = s.process(x)
    with zerocopy.Stream(TAPS, mode="cpu", frame_samples=64, channels=2) as s:
        expected = s.process(pairs)
    assert y.shape == (640, 2)
    np.testing.assert_array_equal(y, expected)


def test_complex_taps_are_a_type_error():
    with pytest.raises(TypeError):
        zerocopy.Stream(TAPS.astype(np.complex64), mode="cpu")
