# SPDX-License-Identifier: Apache-2.0
"""Python integers checked against the C type they become, before ctypes sees them.

ctypes converts an int to a C integer by keeping its low bits: -1 as a size_t is 16 EiB and
2**64 + 5 is 5. Every argument of a library call (errors.call) and every integer field of a
struct mirror (_structs.Checked) goes through fit() instead, so that such a value is a
ValueError naming what it was for.
"""

import ctypes
import numbers

# ctypes' integer type codes: signed lower case, unsigned upper case.
_INTEGER_CODES = "bBhHiIlLqQ"
_ranges = {}


def int_range(ctype):
    """(lowest, highest) of an integer ctypes type, or None for any other type."""
    if ctype in _ranges:
        return _ranges[ctype]
    code = getattr(ctype, "_type_", None)
    found = None
    if isinstance(code, str) and code in _INTEGER_CODES:
        bits = 8 * ctypes.sizeof(ctype)
        found = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if code.islower() else (0, (1 << bits) - 1)
    _ranges[ctype] = found
    return found


def c_name(ctype):
    """The C spelling of an integer ctypes type ("size_t", "int", "uint32_t")."""
    if ctype is ctypes.c_size_t:
        return "size_t"
    low, _ = int_range(ctype)
    return f"{'int' if low < 0 else 'uint'}{8 * ctypes.sizeof(ctype)}_t"


def fit(value, ctype, what):
    """value unchanged when it is no integer or fits ctype; a ValueError saying what it was for
    and the range when it does not (a bool is 0 or 1 and always fits)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return value
    span = int_range(ctype)
    if span is not None and not span[0] <= int(value) <= span[1]:
        raise ValueError(
            f"zerocopy: {what} is {int(value)}, outside {c_name(ctype)}'s {span[0]} to {span[1]}"
        )
    return value
