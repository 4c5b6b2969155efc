# SPDX-License-Identifier: Apache-2.0
"""The package as a wheel lays it out, made by hand from this build (the real wheel is built and
installed by scripts/check-wheel, the package_wheel test): its own libzerocopy.so beside it
loads first, LIBZEROCOPY_PATH still wins, the version comes from the installed metadata, and a
checkout's build tree is never taken."""
import os
import shutil
import subprocess
import sys

import zerocopy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODE = ("import zerocopy, os; print(os.path.realpath(zerocopy.libzerocopy_path)); "
        "print(zerocopy.__version__)")


def _site(tmp_path, version=None, library=True):
    """tmp_path/site holding zerocopy/ (with this build's library when library), and the
    metadata of version when given."""
    site = tmp_path / "site"
    package = site / "zerocopy"
    shutil.copytree(os.path.join(ROOT, "python", "zerocopy"), package,
                    ignore=shutil.ignore_patterns("__pycache__", "libzerocopy.so"))
    if library:
        shutil.copyfile(os.environ["LIBZEROCOPY_PATH"], package / "libzerocopy.so")
    if version:
        info = site / f"zerocopy_cuda-{version}.dist-info"  # the wheel's (pyproject name)
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: zerocopy-cuda\nVersion: {version}\n")
        files = sorted(p.relative_to(site).as_posix() for p in package.rglob("*") if p.is_file())
        (info / "RECORD").write_text("".join(f"{f},,\n" for f in files))
    return site


def _run(site, **env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ("LIBZEROCOPY_PATH", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", **env_changes)
    return subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env,
                          cwd=str(site.parent))


def test_the_library_beside_the_package_loads_and_metadata_gives_the_version(tmp_path):
    # A version the checkout does not have, so that only the metadata can have given it.
    major, minor, _ = zerocopy.__version__.split(".")
    version = f"{major}.{minor}.999"
    site = _site(tmp_path, version)
    r = _run(site)
    assert r.returncode == 0, r.stderr
    library, seen = r.stdout.split()
    assert library == str((site / "zerocopy" / "libzerocopy.so").resolve())
    assert seen == version


def test_an_asked_for_library_wins_over_the_package_s(tmp_path):
    site = _site(tmp_path, zerocopy.__version__)
    r = _run(site, LIBZEROCOPY_PATH=os.environ["LIBZEROCOPY_PATH"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == os.path.realpath(os.environ["LIBZEROCOPY_PATH"])


def test_a_build_tree_of_the_checkout_is_never_taken(tmp_path):
    # A checkout whose python/ has no library, and whose build tree has one.
    checkout = tmp_path / "checkout"
    (checkout / "build" / "half" / "src").mkdir(parents=True)
    shutil.copyfile(os.path.join(ROOT, "CMakeLists.txt"), checkout / "CMakeLists.txt")
    shutil.copyfile(os.environ["LIBZEROCOPY_PATH"], checkout / "build" / "half" / "src" / "libzerocopy.so")
    site = _site(tmp_path, library=False)
    shutil.move(str(site), str(checkout / "python"))
    r = _run(checkout / "python", LD_LIBRARY_PATH="")
    build = str(checkout / "build")
    if r.returncode == 0:  # an installed libzerocopy.so.0 on this machine: never the build tree
        assert not r.stdout.split()[0].startswith(build)
    else:
        assert "no usable libzerocopy.so" in r.stderr
        assert "package:" in r.stderr and build not in r.stderr
