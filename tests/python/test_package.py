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


def test_version_matches_the_library_and_the_header():
    header = open(os.path.join(ROOT, "include", "zerocopy", "version.h")).read()
    parts = [re.search(rf"#define ZC_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert zerocopy.__version__ == ".".join(parts)
    assert zerocopy.libzerocopy_version() == zerocopy.__version__
    assert _lib.lib.zc_version() == (int(parts[0]) << 16) | (int(parts[1]) << 8) | int(parts[2])


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


def test_no_gpu_is_an_exception_with_the_cuda_error():
    try:
        n = zerocopy.device_count()
    except zerocopy.NoDeviceError as e:
        assert e.name == "ERR_NO_DEVICE"
        assert "cudaGetDeviceCount" in e.detail
        return
    assert n > 0


def test_build_tree_search_skips_sanitized_builds(tmp_path):
    plain = tmp_path / "build" / "plain" / "src"
    asan = tmp_path / "build" / "asan" / "src"
    for d, sanitize in ((plain, ""), (asan, "address")):
        d.mkdir(parents=True)
        (d / "libzerocopy.so").write_bytes(b"")
        (d.parent / "CMakeCache.txt").write_text(f"ZC_SANITIZE:STRING={sanitize}\n")
    os.utime(asan / "libzerocopy.so", None)  # the newest, and still not chosen
    assert _lib.build_tree_candidates(str(tmp_path)) == [str(plain / "libzerocopy.so")]


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
