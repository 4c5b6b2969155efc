#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a pytest suite of the Python package for ctest, against one build's libzerocopy.so.

    run_pytest.py --libzerocopy LIB --package DIR [--layout TOOL] [--work DIR] --suite cpu|gpu -- FILES

Exit codes: pytest's own, except that a suite in which no test passed fails (1), and a GPU suite
whose tests were all skipped (no GPU, or none of torch/cupy) exits 77, which ctest reports as
skipped; a missing pytest or numpy fails with what to install.
"""
import argparse
import os
import sys

SKIP = 77


class _Outcomes:
    """A pytest plugin that counts what the tests did."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def pytest_runtest_logreport(self, report):
        if report.when == "call" and report.passed:
            self.passed += 1
        elif report.failed:
            self.failed += 1
        elif report.skipped:
            self.skipped += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--libzerocopy", required=True, help="the libzerocopy.so to test")
    p.add_argument("--package", required=True, help="the folder holding zerocopy/")
    p.add_argument("--layout", help="tests/python/layout.c built (zc_py_layout)")
    p.add_argument("--work", help="a folder the tests may write into")
    p.add_argument("--suite", choices=("cpu", "gpu"), required=True)
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    for name in ("libzerocopy", "package", "layout", "work"):
        if getattr(a, name):
            setattr(a, name, os.path.abspath(getattr(a, name)))

    # Nothing written into the source tree: no __pycache__, no .pytest_cache.
    sys.dont_write_bytecode = True
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ["LIBZEROCOPY_PATH"] = a.libzerocopy
    os.environ["ZC_PY_SUITE"] = a.suite
    if a.layout:
        os.environ["ZC_PY_LAYOUT_TOOL"] = a.layout
    if a.work:
        os.environ["ZC_PY_WORK"] = a.work
    sys.path.insert(0, a.package)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [a.package, os.environ.get("PYTHONPATH")]))
    print(f"run_pytest: Python {sys.version.split()[0]}, {os.path.basename(a.libzerocopy)}", flush=True)

    missing = []
    for module, debian in (("pytest", "python3-pytest"), ("numpy", "python3-numpy")):
        try:
            __import__(module)
        except ImportError:
            missing.append((module, debian))
    if missing:
        names = ", ".join(m for m, _ in missing)
        debs = " ".join(d for _, d in missing)
        print(f"run_pytest: {sys.executable} cannot import {names}: install {debs} "
              f"(scripts/deps does as root) or pip install {names}; or configure with "
              "-DZC_PYTHON=/path/to/python3 that has them", flush=True)
        return 1
    import pytest

    outcomes = _Outcomes()
    rc = pytest.main(["-p", "no:cacheprovider", "-q", "-rs", *a.files], plugins=[outcomes])
    print(f"run_pytest: {outcomes.passed} passed, {outcomes.failed} failed, "
          f"{outcomes.skipped} skipped", flush=True)
    if rc == 0 and outcomes.passed == 0:
        if a.suite == "gpu" and outcomes.skipped > 0:
            print("run_pytest: no GPU test could run here (see the reasons above): SKIP", flush=True)
            return SKIP
        print("run_pytest: no test passed", flush=True)
        return 1
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
