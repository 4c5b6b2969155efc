# SPDX-License-Identifier: Apache-2.0
"""The library's statuses as Python exceptions: one class per status, each carrying the status's
name ("ERR_NO_MEMORY"), its description and what zc_last_error() said about the failure."""

from . import _ints, _lib

lib = _lib.lib


class Error(Exception):
    """A zerocopy call failed.

    Attributes: status (the negative C value), name ("ERR_NO_DEVICE"), description ("no usable
    CUDA device or driver"), detail (zc_last_error(): which call failed, why, where), call (the
    C function that returned the status).
    """

    status = None

    def __init__(self, status, detail="", call=""):
        self.status = status
        self.name = _lib.text(lib.zc_status_name(status))
        self.description = _lib.text(lib.zc_status_str(status))
        self.detail = detail
        self.call = call
        where = f"{call}: " if call else ""
        tail = f": {detail}" if detail else ""
        super().__init__(f"{where}{self.name} ({self.description}){tail}")


# name in the C enum -> (class name, extra built-in base). The extra base lets code that knows
# nothing of zerocopy catch what it expects (a ValueError for a bad argument, a MemoryError for
# out of memory, a TimeoutError for a timeout).
_CLASSES = {
    "ERR_INVALID_ARG": ("InvalidArgumentError", ValueError),
    "ERR_OVERFLOW": ("SizeOverflowError", OverflowError),
    "ERR_NO_DEVICE": ("NoDeviceError", None),
    "ERR_CUDA": ("CudaError", None),
    "ERR_NO_MEMORY": ("OutOfMemoryError", MemoryError),
    "ERR_UNSUPPORTED": ("UnsupportedError", None),
    "ERR_WRONG_KIND": ("WrongKindError", TypeError),
    "ERR_OVERLAP": ("OverlapError", None),
    "ERR_NOT_BASE": ("NotBaseError", None),
    "ERR_DOUBLE_FREE": ("DoubleFreeError", None),
    "ERR_TIMEOUT": ("TimedOutError", TimeoutError),
    "ERR_KERNEL": ("KernelError", None),
    "ERR_VERIFY": ("VerifyError", None),
    "ERR_IO": ("IOFailureError", None),
    "ERR_PARSE": ("ParseError", ValueError),
    "ERR_NOT_FOUND": ("NotFoundError", LookupError),
    "ERR_STATE": ("StateError", None),
    "ERR_DROPPED": ("DroppedError", None),
}

by_status = {}
__all__ = ["Error"]


def _make_classes():
    # The values come from the loaded library (zc_status_name of -1, -2, ...), so a status the
    # table above does not name still gets a class, and a renamed one shows in the tests.
    seen = set()
    for value in range(-1, -64, -1):
        name = _lib.text(lib.zc_status_name(value))
        if name == "UNKNOWN":
            continue
        seen.add(name)
        cls_name, extra = _CLASSES.get(name, (None, None))
        if cls_name is None:
            cls_name = "".join(p.capitalize() for p in name[4:].split("_")) + "Error"
        bases = (Error,) if extra is None else (Error, extra)
        cls = type(cls_name, bases, {"status": value, "__doc__": f"The status {name}."})
        cls.__module__ = "zerocopy"
        by_status[value] = cls
        globals()[cls_name] = cls
        __all__.append(cls_name)
    return seen


known_names = _make_classes()


def error_for(status, call=""):
    """The exception for a failed status, with this thread's zc_last_error() as its detail."""
    detail = _lib.text(lib.zc_last_error())
    cls = by_status.get(status, Error)
    return cls(status, detail, call)


def check(status, call):
    """Raise the status's exception unless it is ZC_OK (0)."""
    if status != 0:
        raise error_for(status, call)


_int_args = {}


def fit_args(name, args):
    """A ValueError when a Python int among args does not fit its C parameter (ctypes would
    keep its low bits: -1 as a size_t is 16 EiB)."""
    spots = _int_args.get(name)
    if spots is None:
        argtypes = getattr(lib, name).argtypes or ()
        spots = [(i, t) for i, t in enumerate(argtypes) if _ints.int_range(t) is not None]
        _int_args[name] = spots
    for i, ctype in spots:
        if i < len(args):
            _ints.fit(args[i], ctype, f"{name}'s argument {i + 1}")


def call(name, *args):
    """Call the library function name with args; raise on a failed status. Every int argument
    is checked against its C type first."""
    fit_args(name, args)
    lib.zc_clear_error()
    check(getattr(lib, name)(*args), name)
