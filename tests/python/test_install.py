# SPDX-License-Identifier: Apache-2.0
"""`pip install ./python` works offline (the in-tree backend needs no build dependency), and the
installed package imports, loads the library and remembers its checkout."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pip():
    r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no pip for {sys.executable}: {r.stderr.strip()[-200:]}")


def test_pip_install_offline_then_import(tmp_path):
    _pip()
    target = tmp_path / "site"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-compile",
         "--target", str(target), os.path.join(ROOT, "python")],
        capture_output=True, text=True, env=env, cwd=str(tmp_path),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "zerocopy" / "__init__.py").is_file()
    info = (target / "zerocopy" / "_install_info.py").read_text()
    assert repr(ROOT) in info  # the checkout, whose build trees the package then searches
    env["PYTHONPATH"] = str(target)
    code = ("import zerocopy, os; print(zerocopy.__file__); print(zerocopy.libzerocopy_version()); "
            "print(os.path.realpath(zerocopy.libzerocopy_path))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    path, version, library = r.stdout.split()
    assert path.startswith(str(target))
    import zerocopy

    assert version == zerocopy.__version__
    assert library == os.path.realpath(os.environ["LIBZEROCOPY_PATH"])
