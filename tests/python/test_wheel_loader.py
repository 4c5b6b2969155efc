# SPDX-License-Identifier: Apache-2.0
"""How the package meets libzerocopy.so's own needs where a wheel is installed without a CUDA
toolkit: a CUDA runtime the dynamic loader lacks is taken from NVIDIA's runtime wheel
(site-packages/nvidia/cu13/lib/, nvidia/cuda_runtime/lib/). Made here with a stand-in runtime
of a major version no machine has (libcudart.so.99) and a library that needs it, both built
with the C compiler; skipped without one."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from zerocopy import _lib

CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build the stand-ins")


def _shared(tmp_path, name, soname, source, *link):
    src = tmp_path / (name + ".c")
    src.write_text(source)
    out = tmp_path / name
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(out), f"-Wl,-soname,{soname}", str(src), *link],
                   check=True)
    return out


@pytest.fixture
def stand_ins(tmp_path):
    """(site, consumer): site/nvidia/<folder>/lib/libcudart.so.99 and a library needing it."""
    runtime = _shared(tmp_path, "libcudart.so.99", "libcudart.so.99", "int zc_fake_runtime(void) { return 99; }\n")
    consumer = _shared(tmp_path, "libconsumer.so", "libconsumer.so",
                       "int zc_fake_runtime(void);\nint zc_fake_call(void) { return zc_fake_runtime(); }\n",
                       f"-L{tmp_path}", "-l:libcudart.so.99")
    site = tmp_path / "site"
    return site, runtime, consumer


def _child(site_entries, consumer):
    code = textwrap.dedent(f"""
        import sys
        sys.path[:0] = {[str(s) for s in site_entries]!r}
        from zerocopy import _lib
        try:
            print("loaded", _lib._open({str(consumer)!r}).zc_fake_call())
        except OSError as e:
            print("refused", e)
    """)
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("folder", ["cu99", "cuda_runtime"])
def test_a_runtime_the_loader_lacks_comes_from_nvidia_s_wheel(stand_ins, folder):
    site, runtime, consumer = stand_ins
    lib_dir = site / "nvidia" / folder / "lib"
    lib_dir.mkdir(parents=True)
    shutil.copy(runtime, lib_dir / "libcudart.so.99")
    r = _child([site], consumer)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "loaded 99", r.stdout
    assert _lib.nvidia_wheel_library("libcudart.so.99", [str(site)]) == str(lib_dir / "libcudart.so.99")


def test_without_it_the_error_says_which_wheel(stand_ins):
    site, _, consumer = stand_ins
    r = _child([site], consumer)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("refused") and "libcudart.so.99" in r.stdout
    assert "zerocopy-cuda[cuda99]" in r.stdout
