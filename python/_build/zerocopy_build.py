# SPDX-License-Identifier: Apache-2.0
"""A PEP 517 build backend for the zerocopy package, standard library only.

The package is pure Python (a ctypes layer), so a wheel is the package's files plus three
metadata files in a zip: writing them here means `pip install ./python` needs no build
dependency at all, and so no package index (the GPU and CI machines have none). Hooks: wheels,
editable wheels (PEP 660, a .pth file naming this folder) and sdists.

The wheel records the zerocopy checkout it was built from (zerocopy/_install_info.py), so the
installed package finds that checkout's build trees too (python/zerocopy/_lib.py).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

NAME = "zerocopy"
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)  # python/
PACKAGE = os.path.join(SOURCE, NAME)
TAG = "py3-none-any"


def _version():
    text = open(os.path.join(PACKAGE, "_version.py"), encoding="utf-8").read()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def _metadata():
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {_version()}\n"
        "Summary: zerocopy's buffers, streaming engine and measurements from Python\n"
        "Requires-Python: >=3.9\n"
        "Provides-Extra: numpy\n"
        "Requires-Dist: numpy; extra == \"numpy\"\n"
    )


def _wheel_info():
    return f"Wheel-Version: 1.0\nGenerator: zerocopy_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _checkout():
    root = os.path.dirname(SOURCE)
    return root if os.path.isfile(os.path.join(root, "include", "zerocopy", "version.h")) else ""


def _package_files():
    for dirpath, dirnames, filenames in os.walk(PACKAGE):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") and name != "_install_info.py":
                path = os.path.join(dirpath, name)
                yield path, os.path.relpath(path, SOURCE).replace(os.sep, "/")


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, arcname, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, data, zipfile.ZIP_DEFLATED)
        self.records.append(f"{arcname},sha256={digest},{len(data)}")

    def close(self, dist_info):
        self.add(f"{dist_info}/METADATA", _metadata())
        self.add(f"{dist_info}/WHEEL", _wheel_info())
        self.add(f"{dist_info}/top_level.txt", NAME + "\n")
        record = f"{dist_info}/RECORD"
        self.zip.writestr(record, "\n".join(self.records + [f"{record},,"]) + "\n")
        self.zip.close()


def _names():
    version = _version()
    return f"{NAME}-{version}-{TAG}.whl", f"{NAME}-{version}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _, dist_info = _names()
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_info())):
        with open(os.path.join(metadata_directory, dist_info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_name, dist_info = _names()
    wheel = _Wheel(os.path.join(wheel_directory, wheel_name))
    for path, arcname in _package_files():
        with open(path, "rb") as f:
            wheel.add(arcname, f.read())
    wheel.add(f"{NAME}/_install_info.py",
              '"""Written by the build backend: where this package was built from."""\n\n'
              f"CHECKOUT = {_checkout()!r}\n")
    wheel.close(dist_info)
    return wheel_name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_name, dist_info = _names()
    wheel = _Wheel(os.path.join(wheel_directory, wheel_name))
    # The source folder itself goes on sys.path: edits take effect without reinstalling.
    wheel.add(f"{NAME}_editable.pth", SOURCE + "\n")
    wheel.close(dist_info)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        def add(name, data):
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size, info.mtime = len(data), int(time.time())
            tar.addfile(info, io.BytesIO(data))

        for src, arcname in _package_files():
            with open(src, "rb") as f:
                add(arcname, f.read())
        for extra in ("pyproject.toml", "_build/zerocopy_build.py"):
            with open(os.path.join(SOURCE, extra), "rb") as f:
                add(extra, f.read())
        add("PKG-INFO", _metadata().encode("utf-8"))
    return os.path.basename(path)
