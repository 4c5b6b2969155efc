# SPDX-License-Identifier: Apache-2.0
"""The block mover (zerocopy/blocks.h) on tensors: many blocks between a GPU tensor and a pinned
host tensor in one stream-ordered call, as a paged KV cache swaps its blocks out and in.

    with zerocopy.Mover(device=0) as mover:
        choice = mover.move(gpu_cache, host_pool, to_host=(gpu_ids, host_ids),
                            to_device=(host_ids2, gpu_ids2), stream=torch.cuda.current_stream())

The tensors are read through DLPack or the array interfaces (torch, numpy, CuPy, zerocopy
buffers) and never copied; block numbers become size_t arrays. _block_args.py checks what the
library cannot see before anything moves; the library validates the rest (errors.py).
"""

import threading
from ctypes import byref, c_void_p
from dataclasses import dataclass, field

from . import _block_args, _lib
from . import _structs as S
from .errors import call

lib = _lib.lib
ENGINES = _block_args.ENGINES


@dataclass(frozen=True)
class MoveChoice:
    """What the planner saw and chose for a move (zc_blocks_choice).

    engine: the engine that moves (or would move) the blocks: "copy", "batch" or "kernel".
    predicted_us: each engine that can reach the memory -> its predicted time, microseconds.
    calls: the chosen engine's copy calls, batches or launches; sms: the SMs the kernel engine
    would use (0 where it cannot reach the memory).
    """

    engine: str
    predicted_us: dict = field(default_factory=dict)
    blocks: int = 0
    bytes_to_device: int = 0
    bytes_to_host: int = 0
    calls: int = 0
    sms: int = 0

    @property
    def reachable(self):
        """The engines that can reach this move's memory, in the library's order."""
        return tuple(self.predicted_us)


def _choice_from(raw):
    predicted = {ENGINES[e]: raw.predicted_us[e] for e in range(1, len(ENGINES))
                 if raw.reachable >> e & 1}
    engine = ENGINES[raw.engine] if 0 <= raw.engine < len(ENGINES) else str(raw.engine)
    return MoveChoice(engine=engine, predicted_us=predicted, blocks=raw.blocks,
                      bytes_to_device=raw.bytes_to_device, bytes_to_host=raw.bytes_to_host,
                      calls=raw.calls, sms=raw.sms)


class Mover:
    """A block mover for one GPU (zc_blocks_create): its settings, profile and scratch.

    move() and plan() take the same arguments:
      device_blocks, host_blocks: the GPU tensor of blocks and the pinned (or registered) host
        tensor of blocks: any object with __dlpack__, __cuda_array_interface__ or
        __array_interface__, C-contiguous;
      to_device=(host block numbers, device block numbers), to_host=(device block numbers, host
        block numbers): either or both (both at once: one move, each direction on its copy
        engine); block numbers are lists of ints or one-dimensional integer tensors or arrays on
        the host;
      block_bytes: bytes per block; None takes one row of the tensors' first dimension, which
        must be the same number of bytes in both;
      engine: "auto" (the least predicted time), "copy", "batch" or "kernel";
      max_sms: the kernel engine's SM limit for this move (0: the mover's);
      stream: a torch.cuda.Stream, a CuPy stream or an int cudaStream_t; None or 0 is the legacy
        default stream, which the batch engine refuses.
    The move starts after the stream's earlier work; record an event after it to know when the
    blocks are there. One thread at a time uses a mover (the others wait).
    """

    engines = ENGINES

    def __init__(self, device=0, max_sms=None):
        handle = c_void_p()
        call("zc_blocks_create", int(device), byref(handle))
        self._handle = handle.value
        self._lock = threading.Lock()
        self.device = int(device)
        if max_sms is not None:
            self.set_max_sms(max_sms)

    def set_max_sms(self, max_sms):
        """zc_blocks_set_max_sms: the kernel engine's SM limit when a move gives none."""
        with self._lock:
            call("zc_blocks_set_max_sms", self._open_handle(), int(max_sms))

    def plan(self, device_blocks, host_blocks, *, to_device=None, to_host=None, block_bytes=None,
             engine="auto", max_sms=0, stream=None):
        """zc_blocks_plan: validate the move and choose its engine, moving nothing."""
        return self._run("zc_blocks_plan", device_blocks, host_blocks, to_device, to_host,
                         block_bytes, engine, max_sms, stream)

    def move(self, device_blocks, host_blocks, *, to_device=None, to_host=None, block_bytes=None,
             engine="auto", max_sms=0, stream=None):
        """zc_blocks_move: validate, choose and queue the move on stream; the MoveChoice says
        which engine was queued. Nothing is queued when a check fails."""
        return self._run("zc_blocks_move", device_blocks, host_blocks, to_device, to_host,
                         block_bytes, engine, max_sms, stream)

    def _run(self, name, device_blocks, host_blocks, to_device, to_host, block_bytes, engine,
             max_sms, stream):
        described = _block_args.describe(device_blocks, host_blocks, to_device, to_host,
                                         block_bytes)
        options = _block_args.options(engine, max_sms, stream)
        raw = S.zc_blocks_choice()
        with self._lock:
            call(name, self._open_handle(), byref(described.desc), byref(options), byref(raw))
        return _choice_from(raw)

    def _open_handle(self):
        if self._handle is None:
            raise ValueError("zerocopy: the mover is closed")
        return self._handle

    @property
    def closed(self):
        return self._handle is None

    def close(self):
        """zc_blocks_destroy; moves already queued go on. A second close does nothing."""
        with self._lock:
            handle, self._handle = self._handle, None
        lib.zc_blocks_destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self, _lib=lib):
        # Bound as a default argument: at interpreter exit the module's globals may be gone.
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._handle = None
            _lib.zc_blocks_destroy(handle)

    def __repr__(self):
        return f"Mover(device={self.device}{', closed' if self.closed else ''})"
