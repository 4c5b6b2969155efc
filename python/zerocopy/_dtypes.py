# SPDX-License-Identifier: Apache-2.0
"""Element types a buffer can be viewed as, with their names in DLPack, the array interfaces and
the struct module, so that typed views need no numpy."""

from dataclasses import dataclass

# DLPack's DLDataTypeCode values.
DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 4, 5, 6


@dataclass(frozen=True)
class DType:
    name: str  # numpy's name: "float32"
    code: int  # DLPack type code
    bits: int
    typestr: str  # array interface: "<f4"
    format: str  # struct / memoryview format: "f" ("" where memoryview has none)

    @property
    def itemsize(self):
        return self.bits // 8


_TABLE = [
    DType("uint8", DL_UINT, 8, "|u1", "B"),
    DType("int8", DL_INT, 8, "|i1", "b"),
    DType("uint16", DL_UINT, 16, "<u2", "H"),
    DType("int16", DL_INT, 16, "<i2", "h"),
    DType("uint32", DL_UINT, 32, "<u4", "I"),
    DType("int32", DL_INT, 32, "<i4", "i"),
    DType("uint64", DL_UINT, 64, "<u8", "Q"),
    DType("int64", DL_INT, 64, "<i8", "q"),
    DType("float16", DL_FLOAT, 16, "<f2", "e"),
    DType("float32", DL_FLOAT, 32, "<f4", "f"),
    DType("float64", DL_FLOAT, 64, "<f8", "d"),
    DType("complex64", DL_COMPLEX, 64, "<c8", "Zf"),
    DType("complex128", DL_COMPLEX, 128, "<c16", "Zd"),
    DType("bool", DL_BOOL, 8, "|b1", "?"),
    DType("bfloat16", DL_BFLOAT, 16, "<V2", ""),
]
_BY_NAME = {d.name: d for d in _TABLE}
_ALIASES = {
    "u1": "uint8", "i1": "int8", "u2": "uint16", "i2": "int16", "u4": "uint32", "i4": "int32",
    "u8": "uint64", "i8": "int64", "f2": "float16", "f4": "float32", "f8": "float64",
    "c8": "complex64", "c16": "complex128", "b1": "bool", "bool_": "bool", "half": "float16",
    "float": "float32", "double": "float64", "byte": "uint8", "uint8_t": "uint8",
}


def dtype(value):
    """The DType for a name ("float32", "f4", "<f4"), a numpy dtype or type, or a torch dtype."""
    if isinstance(value, DType):
        return value
    if value is None:
        return _BY_NAME["uint8"]
    name = getattr(value, "name", None)  # numpy dtypes
    if not isinstance(name, str):
        name = getattr(value, "__name__", None)  # numpy scalar types: numpy.float32
    if not isinstance(name, str) or name not in _BY_NAME and name not in _ALIASES:
        name = str(value)
    name = name.strip()
    if name.startswith("torch."):
        name = name[len("torch."):]
    name = name.lstrip("<|=")
    name = _ALIASES.get(name, name)
    if name not in _BY_NAME:
        raise TypeError(f"zerocopy: unsupported element type {value!r}")
    return _BY_NAME[name]


def from_dl(code, bits):
    for d in _TABLE:
        if d.code == code and d.bits == bits:
            return d
    raise TypeError(f"zerocopy: no element type for DLPack code {code}, {bits} bits")
