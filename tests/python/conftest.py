# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the Python package's tests: a GPU, torch and cupy when there, skipped with the
reason when not. run_pytest.py maps a GPU suite that skipped everything to ctest's SKIP (77)."""
import os

import pytest

import zerocopy


def _no_gpu_reason():
    if zerocopy.device_count() > 0:
        return ""
    return f"no GPU: {zerocopy.info().error or 'no CUDA device'}"


@pytest.fixture(scope="session")
def gpu():
    """GPU 0, or the test is skipped saying why there is none."""
    reason = _no_gpu_reason()
    if reason:
        pytest.skip(reason)
    return 0


def _framework(name):
    if os.environ.get("ZC_UNDER_SANITIZER"):
        # compute-sanitizer watches every CUDA call of the process: a framework's own start-up
        # takes minutes under it and is not what is being checked.
        pytest.skip(f"{name} is left out under compute-sanitizer")
    return pytest.importorskip(name, reason=f"{name} is not installed for this python3")


@pytest.fixture(scope="session")
def torch(gpu):
    torch = _framework("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


@pytest.fixture(scope="session")
def cupy(gpu):
    return _framework("cupy")


@pytest.fixture
def work_dir(tmp_path):
    return tmp_path
