# SPDX-License-Identifier: Apache-2.0
"""The block mover's arguments, from Python to zc_blocks_desc and zc_blocks_options.

The two tensors of blocks are read where they are (their addresses, never their data); block
numbers become size_t arrays; and what the library cannot see is checked here, naming the
argument, before anything moves: a tensor that is not contiguous, blocks of two sizes, block
numbers that are not integers, negative, past their side's last block or unpaired. Whether the
memory is pinned, device memory of the mover's GPU, overlapping, or reachable by an engine is
the library's to say (zc_blocks_plan's refusals).
"""

import ctypes
import numbers
from ctypes import POINTER, byref, c_size_t, cast
from dataclasses import dataclass

from . import _ints, _lib
from . import _structs as S
from ._tensors import DL_INT, DL_UINT, tensor_memory

lib = _lib.lib

# The engines in the enum's order, from the library's own list: "auto", "copy", "batch", ...
ENGINES = tuple(_lib.text(lib.zc_blocks_engine_name(e)) for e in range(S.BLOCKS_ENGINE_COUNT))

# Integer element types block numbers may come in, by DLPack (code, bits).
_INDEX_TYPES = {
    (DL_INT, 8): ctypes.c_int8, (DL_INT, 16): ctypes.c_int16,
    (DL_INT, 32): ctypes.c_int32, (DL_INT, 64): ctypes.c_int64,
    (DL_UINT, 8): ctypes.c_uint8, (DL_UINT, 16): ctypes.c_uint16,
    (DL_UINT, 32): ctypes.c_uint32, (DL_UINT, 64): ctypes.c_uint64,
}
_POINTER_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_void_p))) - 1


@dataclass(frozen=True)
class Side:
    """One tensor of blocks: its argument's name, its address and how many blocks it holds."""

    name: str
    address: int
    blocks: int
    readonly: bool


def _blocks_tensor(obj, name):
    mem = tensor_memory(obj, name)
    if not mem.contiguous:
        raise ValueError(
            f"zerocopy: {name} is not contiguous (shape {mem.shape}, strides {mem.strides} bytes): "
            "block n is read at base + n * block_bytes, so the tensor must be one run of memory "
            "(.contiguous() makes a copy: move into and out of the tensor that holds the blocks)")
    if mem.bits % 8:
        raise TypeError(f"zerocopy: {name} has elements of {mem.bits} bits: whole bytes only")
    return mem


def _block_size(device, host, block_bytes):
    """block_bytes as given (it must divide both tensors' bytes), or, when None, the bytes of one
    row of the first dimension, which both tensors must agree on."""
    sides = (("device_blocks", device), ("host_blocks", host))
    if block_bytes is None:
        rows = []
        for name, mem in sides:
            if not mem.shape or mem.shape[0] == 0:
                raise ValueError(f"zerocopy: {name} has shape {mem.shape}: no first dimension to "
                                 "count blocks by (give block_bytes)")
            rows.append(mem.nbytes // mem.shape[0])
        if rows[0] != rows[1]:
            raise ValueError(
                f"zerocopy: a block (a row of the first dimension) is {rows[0]} bytes in "
                f"device_blocks and {rows[1]} in host_blocks: they must agree "
                "(or give block_bytes)")
        return rows[0]
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, numbers.Integral):
        raise TypeError(f"zerocopy: block_bytes must be an int, not {block_bytes!r}")
    _ints.fit(block_bytes, c_size_t, "block_bytes")
    if block_bytes <= 0:
        raise ValueError(f"zerocopy: block_bytes is {block_bytes}: a block has 1 byte or more")
    for name, mem in sides:
        if mem.nbytes % block_bytes:
            raise ValueError(f"zerocopy: {name} holds {mem.nbytes} bytes, not a whole number of "
                             f"blocks of block_bytes={block_bytes}")
    return int(block_bytes)


def block_sides(device_blocks, host_blocks, block_bytes=None):
    """(device side, host side, bytes per block) of the two tensors of blocks."""
    device = _blocks_tensor(device_blocks, "device_blocks")
    host = _blocks_tensor(host_blocks, "host_blocks")
    size = _block_size(device, host, block_bytes)
    device_side = Side("device_blocks", device.address, device.nbytes // size, device.readonly)
    host_side = Side("host_blocks", host.address, host.nbytes // size, host.readonly)
    return device_side, host_side, size


def _ints_of_tensor(value, name):
    """The integers of a one-dimensional integer tensor or array in host memory, read in place."""
    mem = tensor_memory(value, name)
    if not mem.on_host:
        raise TypeError(f"zerocopy: {name} is GPU memory ({mem.via}): block numbers are read on "
                        "the host; give a CPU tensor (.cpu()), a numpy array or a list")
    ctype = _INDEX_TYPES.get((mem.code, mem.bits))
    if ctype is None:
        raise TypeError(f"zerocopy: {name} holds elements of DLPack type code {mem.code}, "
                        f"{mem.bits} bits: block numbers are integers (int64, as torch and "
                        "numpy make them)")
    if len(mem.shape) != 1:
        raise ValueError(f"zerocopy: {name} has shape {mem.shape}: block numbers are "
                         "one-dimensional")
    n = mem.shape[0]
    if n == 0:
        return []
    stride = mem.strides[0] if mem.strides else mem.itemsize
    if stride == mem.itemsize:
        return (ctype * n).from_address(mem.address)[:]
    return [ctype.from_address(mem.address + i * stride).value for i in range(n)]


def _ints_of_sequence(value, name):
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"zerocopy: {name}[{i}] is {v!r}: block numbers are ints")
    return [int(v) for v in value]


def block_numbers(value, name, side):
    """value (a list, tuple or range of ints, or a one-dimensional integer tensor or array on the
    host) as a size_t array, each number a block of side: 0 to side.blocks - 1."""
    if isinstance(value, (list, tuple, range)):
        found = _ints_of_sequence(value, name)
    elif isinstance(value, (str, bytes)):
        raise TypeError(f"zerocopy: {name} is {type(value).__name__}: give block numbers")
    else:
        found = _ints_of_tensor(value, name)
    if found and (min(found) < 0 or max(found) >= side.blocks):
        i, v = next((i, v) for i, v in enumerate(found) if not 0 <= v < side.blocks)
        why = ("negative" if v < 0
               else f"{side.name} holds {side.blocks} blocks (0 to {side.blocks - 1})")
        raise ValueError(f"zerocopy: {name}[{i}] is {v}: {why}")
    out = (c_size_t * len(found))()
    out[:] = found
    return out


@dataclass
class Described:
    """A zc_blocks_desc and the index arrays its pointers point into (kept for the call)."""

    desc: S.zc_blocks_desc
    arrays: list


def _one_direction(pair, name, src, dst, block_bytes):
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise TypeError(f"zerocopy: {name} is a pair (source block numbers, destination block "
                        f"numbers), not {type(pair).__name__}")
    sources = block_numbers(pair[0], f"{name}'s sources", src)
    destinations = block_numbers(pair[1], f"{name}'s destinations", dst)
    if len(sources) != len(destinations):
        raise ValueError(f"zerocopy: {name} has {len(sources)} sources and {len(destinations)} "
                         "destinations: one destination per source")
    if dst.readonly:
        raise ValueError(f"zerocopy: {name} writes into {dst.name}, which is read-only")
    one = S.zc_blocks_list()
    one.count = len(sources)
    one.src_base = src.address or None
    one.dst_base = dst.address or None
    one.block_bytes = block_bytes
    one.src_index = cast(sources, POINTER(c_size_t))
    one.dst_index = cast(destinations, POINTER(c_size_t))
    return one, [sources, destinations]


def describe(device_blocks, host_blocks, to_device=None, to_host=None, block_bytes=None):
    """The Described move: to_device=(host block numbers, device block numbers) and
    to_host=(device block numbers, host block numbers), either or both."""
    if to_device is None and to_host is None:
        raise ValueError("zerocopy: nothing to move: give to_device=(host blocks, device blocks), "
                         "to_host=(device blocks, host blocks), or both")
    device, host, size = block_sides(device_blocks, host_blocks, block_bytes)
    desc = S.zc_blocks_desc()
    arrays = []
    direction = 0
    if to_device is not None:
        desc.to_device, kept = _one_direction(to_device, "to_device", host, device, size)
        arrays += kept
        direction |= S.BLOCKS_TO_DEVICE
    if to_host is not None:
        desc.to_host, kept = _one_direction(to_host, "to_host", device, host, size)
        arrays += kept
        direction |= S.BLOCKS_TO_HOST
    desc.dir = direction
    return Described(desc, arrays)


def engine_value(engine):
    """zc_blocks_engine of a name: "auto", "copy", "batch" or "kernel"."""
    if not isinstance(engine, str):
        raise TypeError(f"zerocopy: engine must be a name ({', '.join(ENGINES)}), not {engine!r}")
    value = ctypes.c_int()
    if lib.zc_blocks_engine_from_name(engine.encode(), byref(value)) != 0:
        raise ValueError(f"zerocopy: engine={engine!r}: one of {', '.join(ENGINES)}")
    return value.value


def stream_handle(stream):
    """A cudaStream_t as an int: a torch.cuda.Stream (.cuda_stream), a CuPy stream (.ptr) or an
    int handle; None and 0 are the legacy default stream."""
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr"):
        if not isinstance(stream, numbers.Integral) and hasattr(stream, attr):
            stream = getattr(stream, attr)
            break
    if isinstance(stream, bool) or not isinstance(stream, numbers.Integral):
        raise TypeError(f"zerocopy: stream must be a torch.cuda.Stream, a CuPy stream, an int "
                        f"handle or None, not {type(stream).__name__}")
    if not 0 <= int(stream) <= _POINTER_MAX:
        raise ValueError(f"zerocopy: stream is {int(stream)}: no stream handle")
    return int(stream)


def options(engine="auto", max_sms=0, stream=None):
    """The zc_blocks_options of a move."""
    out = S.zc_blocks_options()
    out.engine = engine_value(engine)
    max_sms = 0 if max_sms is None else max_sms
    if isinstance(max_sms, bool) or not isinstance(max_sms, numbers.Integral):
        raise TypeError(f"zerocopy: max_sms must be an int, not {max_sms!r}")
    out.max_sms = _ints.fit(max_sms, ctypes.c_uint, "max_sms")
    out.stream = stream_handle(stream) or None
    return out
