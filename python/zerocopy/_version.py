# SPDX-License-Identifier: Apache-2.0
"""The package's version, written nowhere here: it is the project() line of the top-level
CMakeLists.txt, which reaches the package by one of two ways.

- Installed (a wheel): the distribution's metadata, which the wheel's build read from that line
  (scikit-build-core's regex provider, python/pyproject.toml).
- Imported from a checkout's python/ folder: that line itself, read from the checkout.

package_version() is None when neither is there (the package's files copied elsewhere by hand);
the package then takes the version of the library it loads (zc_version_string, _lib.py).
"""

import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
# The distribution's name on PyPI (python/pyproject.toml); the import name is zerocopy.
DISTRIBUTION = "zerocopy-cuda"
_PROJECT_LINE = re.compile(r"project\(zerocopy\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)")


def _from_metadata():
    """This package's own installed metadata: another zerocopy installed elsewhere on sys.path
    (a checkout's python/ imported beside an installed wheel) is not this one."""
    # DISTRIBUTION first; "zerocopy" for the wheels made before the name changed (PyPI's
    # "zerocopy" is another project, whose files are not this one's and so never match).
    for name in (DISTRIBUTION, "zerocopy"):
        try:
            from importlib import metadata

            dist = metadata.distribution(name)
            for f in dist.files or ():
                if f.name == "_version.py" and f.parent.name == "zerocopy":
                    if os.path.samefile(str(dist.locate_file(f)), os.path.abspath(__file__)):
                        return dist.version
        except Exception:  # noqa: BLE001 - no metadata, or unreadable: not installed
            pass
    return None


def _from_checkout():
    cmakelists = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "CMakeLists.txt")
    try:
        with open(cmakelists, encoding="utf-8") as f:
            match = _PROJECT_LINE.search(f.read())
    except OSError:
        return None
    return match.group(1) if match else None


def package_version():
    """The version this package was made with ("MAJOR.MINOR.PATCH"), or None when unknown."""
    return _from_metadata() or _from_checkout()
