# SPDX-License-Identifier: Apache-2.0
"""What this machine's GPUs offer (zc_device_*): the engine behind `zc info`, as Python objects."""

from ctypes import byref, c_int
from dataclasses import dataclass, field

from . import _lib
from . import _structs as S
from .errors import Error, NoDeviceError, call

lib = _lib.lib
_VERDICTS = {0: "no", 1: "yes", 2: "limited"}


@dataclass(frozen=True)
class PcieLink:
    known: bool
    gen_current: int
    width_current: int
    gen_max: int
    width_max: int
    gts_current: float
    gts_max: float
    gbps_current: float  # theoretical data rate per direction, GB/s
    gbps_max: float
    source: str
    why_unknown: str


@dataclass(frozen=True)
class TechniqueNote:
    key: str
    title: str
    verdict: str  # "yes", "no", "limited"
    text: str


@dataclass(frozen=True)
class DeviceInfo:
    """zc_device_info and what its capabilities mean for each technique."""

    ordinal: int
    name: str
    cc_major: int
    cc_minor: int
    sm_count: int
    total_memory: int
    free_memory: int
    driver_version: int
    runtime_version: int
    pci_bus_id: str
    numa_node: int
    link: PcieLink
    capabilities: dict  # zc_device_info's capability fields by name (-1: not reported)
    notes: list  # TechniqueNote per technique


@dataclass(frozen=True)
class PeerLink:
    source: int  # "from" in C
    target: int
    can_access_peer: bool
    access_enabled: bool
    performance_rank: int
    native_atomics: bool
    nvlink: int  # 1, 0, or -1 unknown
    path: str


@dataclass(frozen=True)
class Info:
    """What zc info shows: the library, every GPU and every GPU pair. Without a GPU or driver,
    devices is empty and error says why (the status name and zc_last_error())."""

    version: str
    libzerocopy: str  # the path of the libzerocopy.so loaded
    device_count: int
    devices: list = field(default_factory=list)
    peers: list = field(default_factory=list)
    error: str = ""


def _device_count():
    """zc_device_count as it is: NoDeviceError (the CUDA error's name and why) without a GPU."""
    count = c_int()
    call("zc_device_count", byref(count))
    return count.value


def device_count():
    """How many CUDA devices this process can use: 0 when the library says there is none
    (ZC_ERR_NO_DEVICE: no GPU, no driver, a driver too old for this CUDA runtime, every GPU
    hidden by CUDA_VISIBLE_DEVICES or unavailable; info().error says which). Any other
    failure (ZC_ERR_CUDA: the driver failed to initialise, ...) raises its Error."""
    try:
        return _device_count()
    except NoDeviceError:
        return 0


def device_info(device=0):
    """zc_device_info_get and zc_device_technique_notes for GPU device."""
    raw = S.zc_device_info()
    call("zc_device_info_get", int(device), byref(raw))
    notes_raw = (S.zc_technique_note * S.TECHNIQUE_NOTE_COUNT)()
    call("zc_device_technique_notes", byref(raw), notes_raw)
    link = raw.link
    return DeviceInfo(
        ordinal=raw.ordinal,
        name=_lib.text(raw.name),
        cc_major=raw.cc_major,
        cc_minor=raw.cc_minor,
        sm_count=raw.sm_count,
        total_memory=raw.total_memory,
        free_memory=raw.free_memory,
        driver_version=raw.driver_version,
        runtime_version=raw.runtime_version,
        pci_bus_id=_lib.text(raw.pci_bus_id),
        numa_node=raw.numa_node,
        link=PcieLink(
            known=bool(link.known),
            gen_current=link.gen_current,
            width_current=link.width_current,
            gen_max=link.gen_max,
            width_max=link.width_max,
            gts_current=link.gts_current,
            gts_max=link.gts_max,
            gbps_current=link.gbps_current,
            gbps_max=link.gbps_max,
            source=_lib.text(link.source),
            why_unknown=_lib.text(link.why_unknown),
        ),
        capabilities={name: getattr(raw, name) for name in S.DEVICE_CAPABILITIES},
        notes=[
            TechniqueNote(
                key=_lib.text(n.key),
                title=_lib.text(n.title),
                verdict=_VERDICTS.get(n.verdict, str(n.verdict)),
                text=_lib.text(n.text),
            )
            for n in notes_raw
        ],
    )


def peer_link(source, target):
    """zc_device_peer_link_get: how GPU source reaches GPU target."""
    raw = S.zc_peer_link()
    call("zc_device_peer_link_get", int(source), int(target), byref(raw))
    return PeerLink(
        source=raw.from_,
        target=raw.to,
        can_access_peer=bool(raw.can_access_peer),
        access_enabled=bool(raw.access_enabled),
        performance_rank=raw.performance_rank,
        native_atomics=bool(raw.native_atomics),
        nvlink=raw.nvlink,
        path=_lib.text(raw.path),
    )


def info(device=None):
    """Everything zc info shows, for every GPU (or only GPU device). Without a GPU the result
    is partial (version and library, no devices) and its error field says why; a GPU that is
    there but cannot be read raises."""
    try:
        count = _device_count()
    except Error as e:
        return Info(version=_lib.libzerocopy_version(), libzerocopy=_lib.path, device_count=0, error=str(e))
    if device is not None and not 0 <= int(device) < count:
        raise ValueError(f"zerocopy: GPU {device}: this machine has {count} (0..{count - 1})")
    shown = [int(device)] if device is not None else list(range(count))
    devices = [device_info(d) for d in shown]
    peers = [peer_link(a, b) for a in shown for b in shown if a != b]
    return Info(
        version=_lib.libzerocopy_version(),
        libzerocopy=_lib.path,
        device_count=count,
        devices=devices,
        peers=peers,
    )
