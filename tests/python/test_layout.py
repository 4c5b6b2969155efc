# SPDX-License-Identifier: Apache-2.0
"""Every ctypes mirror of a public struct against the C compiler's layout (layout.c): a header
change that the package does not follow fails here instead of corrupting memory."""
import ctypes
import os
import subprocess

import pytest

from zerocopy import _structs as S
from zerocopy import dlpack


def _c_layout():
    tool = os.environ.get("ZC_PY_LAYOUT_TOOL")
    if not tool:
        pytest.fail("ZC_PY_LAYOUT_TOOL is not set (run through run_pytest.py --layout)")
    out = subprocess.run([tool], check=True, capture_output=True, text=True).stdout
    sizes, fields = {}, {}
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "struct":
            sizes[parts[1]] = int(parts[2])
        else:
            fields.setdefault(parts[1], []).append((parts[2], int(parts[3]), int(parts[4])))
    return sizes, fields


SIZES, FIELDS = _c_layout()


@pytest.mark.parametrize("name", sorted(S.ALL))
def test_struct_matches_c(name):
    cls = S.ALL[name]
    assert name in SIZES, f"layout.c does not print {name}"
    mirrored = [f for f, _ in cls._fields_]
    printed = [f for f, _, _ in FIELDS[name]]
    assert printed == mirrored, "layout.c and the mirror list different members"
    for member, offset, size in FIELDS[name]:
        descriptor = getattr(cls, member)
        assert (descriptor.offset, descriptor.size) == (offset, size), f"{name}.{member}"
    if name == "zc_profile":
        # Mirrored only as far as its first members; allocated PROFILE_BYTES long.
        assert SIZES[name] <= S.PROFILE_BYTES
    else:
        assert ctypes.sizeof(cls) == SIZES[name]


def test_dlpack_structs_have_the_abi_sizes():
    # The DLPack ABI (dlpack.h 1.x) on LP64: no header of it is installed here to compare with.
    assert ctypes.sizeof(dlpack.DLTensor) == 48
    assert ctypes.sizeof(dlpack.DLManagedTensor) == 64
    assert ctypes.sizeof(dlpack.DLManagedTensorVersioned) == 80
    assert dlpack.DLManagedTensorVersioned.dl_tensor.offset == 32
