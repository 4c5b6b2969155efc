# SPDX-License-Identifier: Apache-2.0
"""The block mover (zerocopy/blocks.h) on tensors: many blocks between a GPU tensor and a pinned
host tensor in one stream-ordered call, as a paged KV cache swaps its blocks out and in.

    with zerocopy.Mover(device=0) as mover:
        choice = mover.move(gpu_cache, host_pool, to_host=(gpu_ids, host_ids),
                            to_device=(host_ids2, gpu_ids2), stream=torch.cuda.current_stream())

The tensors are read through DLPack or the array interfaces (torch, numpy, CuPy, zerocopy
buffers) and never copied; block numbers become size_t arrays. _block_args.py checks what the
library cannot see before anything moves; the library validates the rest (errors.py).

A mover plans with the library's placeholder costs until it is given a measured profile:
mover.use_profile("blocks.json") fits one to a `zc bench --case blocks --json` document
(BlocksProfile.from_bench, the library's own fit) and sets it (zc_blocks_set_profile).
"""

import threading
from ctypes import byref, c_void_p
from dataclasses import dataclass, field

from . import _block_args, _lib
from . import _structs as S
from .advise import _document_text, _unsupported
from .errors import call

lib = _lib.lib
ENGINES = _block_args.ENGINES
# zc_blocks_dir by name, as `zc advise --blocks --direction` and its document spell them.
DIRECTIONS = {"to_device": S.BLOCKS_TO_DEVICE, "to_host": S.BLOCKS_TO_HOST,
              "both": S.BLOCKS_TO_DEVICE | S.BLOCKS_TO_HOST}


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


@dataclass(frozen=True)
class EngineCost:
    """What one engine costs in one direction (zc_blocks_cost): calls * call_us + blocks *
    block_us + bytes / (gbps * 1e3) microseconds."""

    call_us: float
    block_us: float
    gbps: float


@dataclass(frozen=True)
class BlocksOption:
    """One engine priced for a move (zc_blocks_option)."""

    engine: str
    predicted_us: float
    gbps: float
    calls: int


@dataclass(frozen=True)
class BlocksAdvice:
    """The engines ranked for a move, fastest first (zc_blocks_advice). choice: the mover's
    (the least predicted time, the earlier engine of the list on a tie); outside: the block size
    or the move lies outside what the fit measured (its predictions are not to be trusted)."""

    ranked: tuple
    choice: str
    outside: bool


def _engine_name(value):
    return ENGINES[value] if 0 <= value < len(ENGINES) else str(value)


class BlocksProfile:
    """The block mover's costs per engine and direction (zc_blocks_profile), and, for a profile
    fitted to a bench document, how well the fit holds its points (zc_blocks_fit).

    BlocksProfile.default() is the library's placeholders (measured False);
    BlocksProfile.from_bench(document) fits one to `zc bench --case blocks --json`'s document
    (measured True). advise() ranks the engines for a move by the mover's own cost model,
    without a GPU.
    """

    def __init__(self, raw, fit=None, source=None):
        self._raw = raw
        self._fit = fit
        self.source = source

    @classmethod
    def default(cls):
        """zc_blocks_profile_default: the placeholder costs a mover starts with."""
        raw = S.zc_blocks_profile()
        call("zc_blocks_profile_default", byref(raw))
        return cls(raw, source="placeholders")

    @classmethod
    def from_bench(cls, document):
        """The profile fitted to a `zc bench --case blocks --json` document (a path, its text or
        bytes, or the dict json.load made of it) by the library (zc_blocks_bench_from_json, as
        `zc advise --blocks --bench FILE` fits it). No GPU is needed. Raises OSError for a path
        that cannot be read, ValueError for text that is not JSON, ParseError (a ValueError)
        for a document that is not zc bench's, NotFoundError (a LookupError) for one without
        enough block points (no blocks case, or --quick's one block size), InvalidArgumentError
        for points no costs fit; the library's detail names the point."""
        for name in ("zc_blocks_bench_from_json", "cJSON_ParseWithLength", "cJSON_Delete"):
            if not _lib.has(name):
                raise _unsupported(name, "BlocksProfile.from_bench")
        try:
            text, source = _document_text(document, "a zc bench --case blocks --json document")
        except OSError as e:
            raise type(e)(e.errno, f"zerocopy: cannot read the bench document ({e.strerror}); "
                          "give the path of `zc bench --case blocks --json FILE`, its text or "
                          "bytes", e.filename) from None
        tree = lib.cJSON_ParseWithLength(text, len(text))
        if not tree:
            raise ValueError(f"zerocopy: {source or 'the bench document'} is not JSON: give "
                             "the document of `zc bench --case blocks --json FILE`")
        raw, fit = S.zc_blocks_profile(), S.zc_blocks_fit()
        try:
            call("zc_blocks_bench_from_json", tree, 0, byref(raw), byref(fit), None)
        finally:
            lib.cJSON_Delete(tree)
        return cls(raw, fit, source or "text")

    @property
    def measured(self):
        """True for a profile measured on a machine, False for the placeholders."""
        return bool(self._raw.measured)

    def _costs(self, costs):
        return {ENGINES[e]: EngineCost(costs[e].call_us, costs[e].block_us, costs[e].gbps)
                for e in range(1, len(ENGINES))}

    @property
    def to_device(self):
        """engine -> EngineCost to the device."""
        return self._costs(self._raw.to_device)

    @property
    def to_host(self):
        """engine -> EngineCost to the host."""
        return self._costs(self._raw.to_host)

    @property
    def kernel_sm_gbps(self):
        return self._raw.kernel_sm_gbps

    @property
    def batch_max(self):
        return self._raw.batch_max

    @property
    def both_gbps(self):
        """The copy engines' ceiling both ways at once (GB/s, both directions' bytes), 0.0 when
        not measured."""
        return self._raw.both_gbps

    @property
    def fit(self):
        """How the fit holds its points, or None for a profile not fitted here: points and
        worst (the largest relative error of a fitted time) per direction ("to_device",
        "to_host") and engine, the block sizes and move sizes measured, the kernel's SMs."""
        f = self._fit
        if f is None:
            return None
        per_dir = {d: {ENGINES[e]: {"points": f.points[i][e], "worst": f.worst[i][e]}
                       for e in range(1, len(ENGINES))}
                   for i, d in enumerate(("to_device", "to_host"))}
        return dict(per_dir, block_bytes=(f.bytes_min, f.bytes_max),
                    move_bytes=(f.total_min, f.total_max), sms=f.sms)

    def advise(self, block_bytes, count, direction="both", sms=0):
        """zc_blocks_advise: every engine priced for count blocks of block_bytes each way
        direction names ("to_device", "to_host" or "both"), as if each could reach the memory,
        ranked fastest first, with the mover's choice. sms: the kernel engine's (0: the
        mover's default, 8). InvalidArgumentError for a size or count of 0."""
        if direction not in DIRECTIONS:
            raise ValueError(f"zerocopy: direction={direction!r}: one of "
                             f"{', '.join(DIRECTIONS)}")
        w = S.zc_blocks_workload()
        w.block_bytes, w.count, w.dir, w.sms = block_bytes, count, DIRECTIONS[direction], sms
        out = S.zc_blocks_advice()
        call("zc_blocks_advise", byref(self._raw), byref(self._fit) if self._fit else None,
             byref(w), byref(out))
        ranked = tuple(BlocksOption(_engine_name(o.engine), o.predicted_us, o.gbps, o.calls)
                       for o in out.ranked[:out.count])
        return BlocksAdvice(ranked, _engine_name(out.choice), bool(out.outside))

    def __repr__(self):
        return f"BlocksProfile(measured={self.measured}, source={self.source!r})"


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

    A mover plans with the library's placeholder costs (profile_measured False) until
    use_profile gives it a measured profile.
    """

    engines = ENGINES

    def __init__(self, device=0, max_sms=None, profile=None):
        handle = c_void_p()
        call("zc_blocks_create", int(device), byref(handle))
        self._handle = handle.value
        self._lock = threading.Lock()
        self.device = int(device)
        self._profile = None
        if max_sms is not None:
            self.set_max_sms(max_sms)
        if profile is not None:
            self.use_profile(profile)

    def use_profile(self, profile):
        """Plan with a measured profile from now on (zc_blocks_set_profile). profile: a
        BlocksProfile, or a `zc bench --case blocks --json` document (its path, text, bytes or
        dict), fitted by BlocksProfile.from_bench and its errors. Returns the BlocksProfile set.
        The profile should come from this machine's GPU: its costs are what the mover plans
        with."""
        if not isinstance(profile, BlocksProfile):
            profile = BlocksProfile.from_bench(profile)
        with self._lock:
            call("zc_blocks_set_profile", self._open_handle(), byref(profile._raw))
            self._profile = profile
        return profile

    @property
    def profile(self):
        """The BlocksProfile the mover plans with: the placeholders until use_profile."""
        if getattr(self, "_profile", None) is None:
            self._profile = BlocksProfile.default()
        return self._profile

    @property
    def profile_measured(self):
        """Whether the mover plans with a measured profile (use_profile) rather than the
        library's placeholders."""
        return self.profile.measured

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
        measured = ", measured profile" if getattr(self, "_profile", None) is not None and \
            self._profile.measured else ""
        return f"Mover(device={self.device}{measured}{', closed' if self.closed else ''})"
