# SPDX-License-Identifier: Apache-2.0
"""The package itself: import, version, where the library came from, errors as exceptions."""
import os
import re
import subprocess
import sys

import pytest

import zerocopy
from zerocopy import _lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_version_is_the_project_line_and_the_library_s():
    # The one definition: project(zerocopy VERSION x.y.z) in the top-level CMakeLists.txt.
    cmakelists = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    parts = re.search(r"project\(zerocopy\s+VERSION\s+(\d+)\.(\d+)\.(\d+)", cmakelists).groups()
    assert zerocopy.__version__ == ".".join(parts)
    assert zerocopy.libzerocopy_version() == zerocopy.__version__
    assert _lib.lib.zc_version() == (int(parts[0]) << 16) | (int(parts[1]) << 8) | int(parts[2])
    version_py = open(os.path.join(ROOT, "python", "zerocopy", "_version.py"), encoding="utf-8").read()
    assert ".".join(parts) not in version_py  # read, never written a second time


def test_library_is_the_one_asked_for():
    assert os.path.samefile(zerocopy.libzerocopy_path, os.environ["LIBZEROCOPY_PATH"])


def test_every_status_has_its_exception():
    from zerocopy import errors

    # The names come from the library's X-macro list, read through zc_status_name.
    assert set(errors._CLASSES) == errors.known_names
    for value, cls in errors.by_status.items():
        assert issubclass(cls, zerocopy.Error)
        assert cls.status == value
    assert issubclass(zerocopy.InvalidArgumentError, ValueError)
    assert issubclass(zerocopy.OutOfMemoryError, MemoryError)
    assert issubclass(zerocopy.TimedOutError, TimeoutError)


def test_error_carries_status_name_and_detail():
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        zerocopy.Buffer.alloc(0, "pageable", device=-1)
    e = info.value
    assert e.status == -1 and e.name == "ERR_INVALID_ARG"
    assert e.description == "invalid argument"
    assert e.call == "zc_buffer_alloc"
    assert "size is 0" in e.detail  # zc_last_error(): what was wrong, and where
    assert "ERR_INVALID_ARG" in str(e) and e.detail in str(e)


def test_unknown_flags_and_kinds_are_refused():
    with pytest.raises(zerocopy.InvalidArgumentError) as info:
        zerocopy.Buffer.alloc(4096, "pageable", flags=0x4000, device=-1)
    assert "flag" in info.value.detail
    with pytest.raises(ValueError):
        zerocopy.Buffer.alloc(4096, "nonsense")
    with pytest.raises(ValueError):
        zerocopy.Buffer.alloc(4096, "pinned", flags="nonsense")


def test_device_count_is_zero_without_a_gpu_and_info_says_why():
    from zerocopy import device

    n = zerocopy.device_count()
    assert n >= 0
    if n > 0:
        assert device._device_count() == n
        return
    # The library's own answer is ZC_ERR_NO_DEVICE naming the CUDA error; the package's count
    # of usable GPUs is 0, and info() keeps the reason.
    with pytest.raises(zerocopy.NoDeviceError) as info:
        device._device_count()
    assert info.value.name == "ERR_NO_DEVICE" and "cudaGetDeviceCount" in info.value.detail
    assert "ERR_NO_DEVICE" in zerocopy.info().error


def test_other_device_failures_still_raise(monkeypatch):
    from zerocopy import device

    def failing():
        raise zerocopy.errors.by_status[-4](-4, "cudaGetDeviceCount: initialization error", "zc_device_count")

    monkeypatch.setattr(device, "_device_count", failing)
    with pytest.raises(zerocopy.CudaError):
        zerocopy.device_count()


def test_the_package_s_own_library_comes_first_and_no_build_tree(monkeypatch):
    monkeypatch.delenv("LIBZEROCOPY_PATH")
    found = _lib.candidates()
    assert found[0] == ("package", os.path.join(os.path.dirname(zerocopy.__file__), "libzerocopy.so"))
    # A checkout's build folders (maybe half-built, maybe another version's) are never guessed.
    builds = os.path.join(ROOT, "build") + os.sep
    assert not any(path.startswith(builds) for _, path in found), found


def test_an_asked_for_library_is_the_only_one(monkeypatch):
    monkeypatch.setenv("LIBZEROCOPY_PATH", "libzerocopy.so.0")
    assert _lib.candidates() == [("LIBZEROCOPY_PATH", "libzerocopy.so.0")]
    folder = os.path.dirname(os.path.abspath(zerocopy.libzerocopy_path))
    monkeypatch.setenv("LIBZEROCOPY_PATH", folder)
    assert _lib.candidates() == [("LIBZEROCOPY_PATH", os.path.join(folder, "libzerocopy.so"))]


def test_missing_library_says_where_it_looked(tmp_path):
    env = dict(os.environ, LIBZEROCOPY_PATH=str(tmp_path / "libzerocopy.so"))
    r = subprocess.run([sys.executable, "-c", "import zerocopy"], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "LIBZEROCOPY_PATH" in r.stderr and "no such file" in r.stderr


def test_clock_and_stats_are_the_library_s():
    t0 = zerocopy.clock_ns()
    t1 = zerocopy.clock_ns()
    assert t1 >= t0 > 0
    s = zerocopy.stats([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (s.count, s.min, s.max, s.median) == (5, 1.0, 5.0, 3.0)
    assert s.p99 == 5.0  # nearest rank: a sample that was measured
    with pytest.raises(zerocopy.InvalidArgumentError):
        zerocopy.stats([])
