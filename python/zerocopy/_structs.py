# SPDX-License-Identifier: Apache-2.0
"""ctypes mirrors of the public C structs (include/zerocopy/*.h), field for field.

tests/python/test_layout.py compares every offset and size here with what the C compiler gives
(tests/python/layout.c), so a header change that is not followed here fails a test instead of
corrupting memory.
"""

import ctypes
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_size_t,
    c_uint,
    c_uint32,
    c_uint64,
    c_void_p,
)

from . import _ints

c_enum = c_int  # C enums of this API are all int-sized


class Checked(Structure):
    """A struct mirror whose integer fields refuse a Python int that the C type cannot hold
    (ctypes would keep its low bits: -1 as a size_t is 16 EiB)."""

    def __setattr__(self, name, value):
        ctype = _field_types(type(self)).get(name)
        if ctype is not None:
            _ints.fit(value, ctype, f"{type(self).__name__}.{name}")
        super().__setattr__(name, value)


def _field_types(cls):
    types = cls.__dict__.get("_zc_field_types")
    if types is None:
        types = {f[0]: f[1] for f in cls._fields_ if _ints.int_range(f[1]) is not None}
        cls._zc_field_types = types
    return types

BUFFER_KIND_COUNT = 8
STREAM_MAX_LANES = 64
STREAM_HISTO_BINS = 96
BENCH_VARIANT_MAX = 48
BENCH_KEY_MAX = 48
BENCH_REASON_MAX = 512
CURVE_MAX_POINTS = 32
# ZC_KIND_* (zerocopy/buffer.h): what a memory kind is, as zc_buffer_kind_props says.
KIND_PAGE_LOCKED = 0x02
KIND_COPY_SOURCE = 0x20
ACCESS_COUNT = 3
TECH_COUNT = 6
TRACE_GROUP_MAX = 64  # ZC_TRACE_GROUP_MAX: the workloads one trace advice holds
TRACE_UNPRICED_MAX = 32  # ZC_TRACE_UNPRICED_MAX
TRACE_CURE_MAX = 32  # ZC_TRACE_CURE_MAX
TECHNIQUE_NOTE_COUNT = 9
SIZE_MAX = (1 << (8 * ctypes.sizeof(c_size_t))) - 1
WORKLOAD_BYTES_MAX = 1 << 40  # ZC_WORKLOAD_BYTES_MAX: the most `zc advise --bytes` takes


class zc_buffer_info(Checked):
    _fields_ = [
        ("kind", c_enum),
        ("requested_kind", c_enum),
        ("flags", c_uint),
        ("notes", c_uint),
        ("method", c_enum),
        ("device", c_int),
        ("host_ptr", c_void_p),
        ("device_ptr", c_void_p),
        ("size", c_size_t),
        ("capacity", c_size_t),
        ("fallback_status", c_enum),
    ]


class zc_pointer_info(Checked):
    _fields_ = [
        ("kind", c_enum),
        ("flags", c_uint),
        ("flags_known", c_int),
        ("from_zerocopy", c_int),
        ("device", c_int),
        ("device_ptr", c_void_p),
        ("base", c_void_p),
        ("size", c_size_t),
        ("offset", c_size_t),
        ("kernel_can_access", c_int),
        ("device_mask", c_uint64),
    ]


class zc_buffer_totals(Checked):
    _fields_ = [
        ("live_buffers", c_size_t),
        ("live_blocks", c_size_t),
        ("bytes", c_size_t * BUFFER_KIND_COUNT),
        ("pinned_bytes", c_size_t),
        ("allocs", c_uint64),
        ("frees", c_uint64),
    ]


class zc_pool_stats(Checked):
    _fields_ = [
        ("bytes_requested", c_size_t),
        ("bytes_in_use", c_size_t),
        ("bytes_cached", c_size_t),
        ("bytes_pinned", c_size_t),
        ("peak_bytes_pinned", c_size_t),
        ("blocks_in_use", c_size_t),
        ("blocks_cached", c_size_t),
        ("hits", c_uint64),
        ("misses", c_uint64),
        ("releases", c_uint64),
        ("waits_skipped", c_uint64),
    ]


class zc_stats(Checked):
    _fields_ = [
        ("count", c_size_t),
        ("min", c_double),
        ("max", c_double),
        ("mean", c_double),
        ("median", c_double),
        ("stddev", c_double),
        ("cov", c_double),
        ("p90", c_double),
        ("p99", c_double),
        ("p999", c_double),
    ]


class zc_stream_config(Checked):
    _fields_ = [
        ("mode", c_enum),
        ("protocol", c_enum),
        ("policy", c_enum),
        ("taps", POINTER(c_float)),
        ("ntaps", c_size_t),
        ("frame_samples", c_size_t),
        ("channels", c_size_t),
        ("in_flight", c_uint32),
        ("gpu_blocks", c_uint32),
        ("devices", POINTER(c_int)),
        ("device_count", c_size_t),
        ("timeout_ns", c_uint64),
        ("watchdog_ns", c_uint64),
        ("verify", c_enum),
        ("nonfinite", c_enum),
        ("warmup_frames", c_uint64),
        ("expected_frames", c_uint64),
        ("discard_output", c_int),
        ("queue_max_bytes", c_size_t),
        ("budget_frames", c_uint64),
    ]


class zc_stream_lane_stats(Checked):
    _fields_ = [
        ("device", c_int),
        ("gpu_blocks", c_uint32),
        ("buffers", c_uint32),
        ("frames", c_uint64),
        ("latency_us", zc_stats),
        ("frames_per_s", c_double),
        ("gb_per_s", c_double),
    ]


class zc_stream_histo_bin(Checked):
    _fields_ = [("lo_us", c_double), ("hi_us", c_double), ("count", c_uint64)]


class zc_stream_stats(Checked):
    _fields_ = [
        ("samples_in", c_uint64),
        ("samples_out", c_uint64),
        ("samples_dropped", c_uint64),
        ("samples_padded", c_uint64),
        ("nonfinite", c_uint64),
        ("first_nonfinite", c_uint64),
        ("frames_submitted", c_uint64),
        ("frames_received", c_uint64),
        ("frames_dropped", c_uint64),
        ("full_waits", c_uint64),
        ("measured_offered", c_uint64),
        ("measured_dropped", c_uint64),
        ("frames_measured", c_uint64),
        ("latency_us", zc_stats),
        ("latency_kept", c_uint64),
        ("histogram", zc_stream_histo_bin * STREAM_HISTO_BINS),
        ("seconds", c_double),
        ("frames_per_s", c_double),
        ("samples_per_s", c_double),
        ("gb_per_s", c_double),
        ("verified", c_uint64),
        ("max_rel_error", c_double),
        ("verify_passed", c_int),
        ("finished", c_int),
        ("lead_values", c_size_t),
        ("lanes", c_size_t),
        ("lane", zc_stream_lane_stats * STREAM_MAX_LANES),
    ]


class zc_bench_case_info(Checked):
    _fields_ = [
        ("key", c_char_p),
        ("group", c_char_p),
        ("technique", c_char_p),
        ("direction", c_char_p),
        ("title", c_char_p),
    ]


class zc_bench_point(Checked):
    _fields_ = [
        ("variant", c_char * BENCH_VARIANT_MAX),
        ("bytes", c_size_t),
        ("param_name", c_char_p),
        ("param", c_double),
        ("metric", c_enum),
        ("bytes_per_sample", c_double),
        ("ops_per_sample", c_double),
        ("stats", zc_stats),
        ("samples", POINTER(c_double)),
        ("warmups", c_size_t),
        ("verified", c_int),
    ]


class zc_bench_result(Checked):
    _fields_ = [
        ("key", c_char * BENCH_KEY_MAX),
        ("outcome", c_enum),
        ("status", c_enum),
        ("reason", c_char * BENCH_REASON_MAX),
        ("points", POINTER(zc_bench_point)),
        ("point_count", c_size_t),
        ("seconds", c_double),
    ]


BENCH_PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_double)


class zc_bench_config(Checked):
    _fields_ = [
        ("device", c_int),
        ("mode", c_enum),
        ("sizes", POINTER(c_size_t)),
        ("size_count", c_size_t),
        ("corrupt_key", c_char_p),
        ("cov_target", c_double),
        ("gate_timeout_s", c_double),
        ("ungated", c_int),
        ("progress", BENCH_PROGRESS_FN),
        ("progress_user", c_void_p),
        ("devices", POINTER(c_int)),
        ("device_count", c_size_t),
        ("blocks_profile", c_void_p),  # const zc_blocks_profile *: the package leaves it NULL
    ]


class zc_bench_method(Checked):
    _fields_ = [
        ("warmups", c_size_t),
        ("min_samples", c_size_t),
        ("max_samples", c_size_t),
        ("cov_target", c_double),
        ("point_cap_s", c_double),
        ("latency_samples", c_size_t),
        ("pingpong_samples", c_size_t),
        ("gate_timeout_s", c_double),
        ("gb_bytes", c_double),
    ]


class zc_curve(Checked):
    _fields_ = [
        ("count", c_size_t),
        ("bytes", c_size_t * CURVE_MAX_POINTS),
        ("gbps", c_double * CURVE_MAX_POINTS),
    ]


# zc_profile is mirrored only as far as its stable first members: its scalar figures are read
# and set through the library by key (zc_profile_field_value), so the struct can grow without
# this file changing. Profiles are allocated PROFILE_BYTES long; the layout test checks that
# sizeof(zc_profile) fits.
PROFILE_BYTES = 1 << 20


class zc_profile(Checked):
    _fields_ = [
        ("device_name", c_char * 128),
        ("source", c_char * 256),
        ("copy", (zc_curve * 2) * BUFFER_KIND_COUNT),
    ]


class zc_stream_point(Checked):
    _fields_ = [
        ("mode", c_int),
        ("protocol", c_int),
        ("frame_bytes", c_size_t),
        ("in_flight", c_uint),
        ("gpu_blocks", c_uint),
        ("p50_us", c_double),
        ("p99_us", c_double),
        ("gbps", c_double),
    ]


class zc_stream_workload(Checked):
    _fields_ = [("frame_bytes", c_size_t), ("rate_hz", c_double)]


class zc_stream_option(Checked):
    _fields_ = [
        ("mode", c_int),
        ("protocol", c_int),
        ("usable", c_int),
        ("gpu_blocks", c_uint),
        ("in_flight", c_uint),
        ("p50_us", c_double),
        ("p99_us", c_double),
        ("gbps", c_double),
        ("max_hz", c_double),
        ("meets_rate", c_int),
        ("nearest_bytes", c_size_t),
    ]


STREAM_OPTION_MAX = 16


class zc_stream_advice(Checked):
    _fields_ = [
        ("ranked", zc_stream_option * STREAM_OPTION_MAX),
        ("count", c_size_t),
        ("explanation", c_char * 512),
    ]


class zc_workload(Checked):
    _fields_ = [
        ("bytes", c_size_t),
        ("transfers", c_double),
        ("rate_hz", c_double),
        ("direction", c_enum),
        ("gpu_accesses", c_double),
        ("pattern", c_enum),
        ("concurrent", c_int),
        ("latency_budget_us", c_double),
    ]


class zc_prediction(Checked):
    _fields_ = [
        ("technique", c_enum),
        ("usable", c_int),
        ("per_transfer_us", c_double),
        ("steady_us", c_double),
        ("setup_us", c_double),
        ("total_us", c_double),
        ("fixed_us", c_double),
        ("link_us", c_double),
        ("compute_us", c_double),
        ("cpu_us", c_double),
        ("meets_budget", c_int),
        ("meets_rate", c_int),
    ]


class zc_recommendation(Checked):
    _fields_ = [
        ("ranked", zc_prediction * TECH_COUNT),
        ("count", c_size_t),
        ("explanation", c_char * 512),
    ]


class zc_trace_group(Checked):
    _fields_ = [
        ("workload", zc_workload),
        ("host_kind", c_enum),
        ("size_class", c_uint64),
        ("bytes_min", c_uint64),
        ("bytes_max", c_uint64),
        ("count", c_uint64),
        ("bytes", c_uint64),
        ("async_count", c_uint64),
        ("rate_hz", c_double),
        ("reuse", c_int),
        ("measured_us", c_double),
        ("current", c_enum),
        ("predicted", zc_prediction * TECH_COUNT),
        ("now_us", c_double),
        ("copies_us", c_double),
        ("best", c_enum),
        ("best_us", c_double),
        ("saving_us", c_double),
        ("cure", c_char * TRACE_CURE_MAX),
    ]


class zc_trace_unpriced(Checked):
    _fields_ = [
        ("what", c_char * 64),
        ("count", c_uint64),
        ("bytes", c_uint64),
        ("time_s", c_double),
        ("why", c_char * 192),
    ]


class zc_trace_advice(Checked):
    _fields_ = [
        ("groups", zc_trace_group * TRACE_GROUP_MAX),
        ("group_count", c_size_t),
        ("unpriced", zc_trace_unpriced * TRACE_UNPRICED_MAX),
        ("unpriced_count", c_size_t),
        ("span_s", c_double),
        ("sized", c_int),
        ("measured_us", c_double),
        ("now_us", c_double),
        ("best_us", c_double),
        ("saving_us", c_double),
        ("pinning_cure", c_char * TRACE_CURE_MAX),
        ("pinning_saving_s", c_double),
    ]


class zc_measurement(Checked):
    _fields_ = [
        ("technique", c_enum),
        ("transfers", c_double),
        ("setup_us", c_double),
        ("per_transfer_us", c_double),
        ("total_us", c_double),
        ("verified", c_int),
    ]


class zc_pcie_link(Checked):
    _fields_ = [
        ("known", c_int),
        ("gen_current", c_int),
        ("width_current", c_int),
        ("gen_max", c_int),
        ("width_max", c_int),
        ("gts_current", c_double),
        ("gts_max", c_double),
        ("gbps_current", c_double),
        ("gbps_max", c_double),
        ("source", c_char * 64),
        ("why_unknown", c_char * 160),
    ]


# The capability fields of zc_device_info, in order, all int.
DEVICE_CAPABILITIES = (
    "unified_addressing",
    "can_map_host_memory",
    "integrated",
    "pageable_memory_access",
    "pageable_memory_access_uses_host_page_tables",
    "concurrent_managed_access",
    "managed_memory",
    "host_native_atomic_supported",
    "only_partial_host_native_atomic_supported",
    "host_register_supported",
    "host_register_read_only_supported",
    "can_use_host_pointer_for_registered_mem",
    "async_engine_count",
    "direct_managed_mem_access_from_host",
)


class zc_device_info(Checked):
    _fields_ = [
        ("ordinal", c_int),
        ("name", c_char * 256),
        ("cc_major", c_int),
        ("cc_minor", c_int),
        ("sm_count", c_int),
        ("total_memory", c_size_t),
        ("free_memory", c_size_t),
        ("driver_version", c_int),
        ("runtime_version", c_int),
        ("pci_bus_id", c_char * 32),
        ("numa_node", c_int),
        ("link", zc_pcie_link),
    ] + [(name, c_int) for name in DEVICE_CAPABILITIES]


class zc_technique_note(Checked):
    _fields_ = [
        ("key", c_char_p),
        ("title", c_char_p),
        ("verdict", c_enum),
        ("text", c_char * 256),
    ]


class zc_peer_link(Checked):
    _fields_ = [
        ("from_", c_int),  # "from" in C; a Python keyword
        ("to", c_int),
        ("can_access_peer", c_int),
        ("access_enabled", c_int),
        ("performance_rank", c_int),
        ("native_atomics", c_int),
        ("nvlink", c_int),
        ("path", c_char * 160),
    ]


# zerocopy/blocks.h: the block mover.
BLOCKS_ENGINE_COUNT = 4  # ZC_BLOCKS_ENGINE_COUNT: auto, then copy, batch, kernel
BLOCKS_TO_DEVICE = 1  # zc_blocks_dir
BLOCKS_TO_HOST = 2


class zc_block(Checked):
    _fields_ = [("src", c_void_p), ("dst", c_void_p), ("bytes", c_size_t)]


class zc_blocks_list(Checked):
    _fields_ = [
        ("count", c_size_t),
        ("blocks", POINTER(zc_block)),
        ("src_base", c_void_p),
        ("dst_base", c_void_p),
        ("block_bytes", c_size_t),
        ("src_index", POINTER(c_size_t)),
        ("dst_index", POINTER(c_size_t)),
    ]


class zc_blocks_desc(Checked):
    _fields_ = [("dir", c_enum), ("to_device", zc_blocks_list), ("to_host", zc_blocks_list)]


class zc_blocks_options(Checked):
    _fields_ = [("engine", c_enum), ("max_sms", c_uint), ("stream", c_void_p)]


class zc_blocks_choice(Checked):
    _fields_ = [
        ("engine", c_enum),
        ("reachable", c_uint),
        ("predicted_us", c_double * BLOCKS_ENGINE_COUNT),
        ("blocks", c_size_t),
        ("bytes_to_device", c_size_t),
        ("bytes_to_host", c_size_t),
        ("sms", c_uint),
        ("calls", c_size_t),
    ]


class zc_blocks_cost(Checked):
    _fields_ = [("call_us", c_double), ("block_us", c_double), ("gbps", c_double)]


class zc_blocks_profile(Checked):
    _fields_ = [
        ("to_device", zc_blocks_cost * BLOCKS_ENGINE_COUNT),
        ("to_host", zc_blocks_cost * BLOCKS_ENGINE_COUNT),
        ("kernel_sm_gbps", c_double),
        ("batch_max", c_size_t),
        ("measured", c_int),
        ("both_gbps", c_double),
    ]


# zerocopy/advise.h: the block mover's profile fitted from zc bench, and its engines ranked.
class zc_blocks_fit(Checked):
    _fields_ = [
        ("points", (c_size_t * BLOCKS_ENGINE_COUNT) * 2),  # [0] to the device, [1] to the host
        ("worst", (c_double * BLOCKS_ENGINE_COUNT) * 2),
        ("bytes_min", c_size_t),
        ("bytes_max", c_size_t),
        ("total_min", c_size_t),
        ("total_max", c_size_t),
        ("sms", c_uint),
    ]


class zc_blocks_workload(Checked):
    _fields_ = [("block_bytes", c_size_t), ("count", c_size_t), ("dir", c_enum), ("sms", c_uint)]


class zc_blocks_option(Checked):
    _fields_ = [("engine", c_enum), ("predicted_us", c_double), ("gbps", c_double),
                ("calls", c_size_t)]


class zc_blocks_advice(Checked):
    _fields_ = [
        ("ranked", zc_blocks_option * (BLOCKS_ENGINE_COUNT - 1)),
        ("count", c_size_t),
        ("choice", c_enum),
        ("outside", c_int),
    ]


# Every mirrored struct, by its C name (the layout test walks this).
ALL = {
    cls.__name__: cls
    for cls in (
        zc_buffer_info,
        zc_pointer_info,
        zc_buffer_totals,
        zc_pool_stats,
        zc_stats,
        zc_stream_config,
        zc_stream_lane_stats,
        zc_stream_histo_bin,
        zc_stream_stats,
        zc_bench_case_info,
        zc_bench_point,
        zc_bench_result,
        zc_bench_config,
        zc_bench_method,
        zc_curve,
        zc_profile,
        zc_stream_point,
        zc_stream_workload,
        zc_stream_option,
        zc_stream_advice,
        zc_workload,
        zc_prediction,
        zc_recommendation,
        zc_trace_group,
        zc_trace_unpriced,
        zc_trace_advice,
        zc_measurement,
        zc_pcie_link,
        zc_device_info,
        zc_technique_note,
        zc_peer_link,
        zc_block,
        zc_blocks_list,
        zc_blocks_desc,
        zc_blocks_options,
        zc_blocks_choice,
        zc_blocks_cost,
        zc_blocks_profile,
        zc_blocks_fit,
        zc_blocks_workload,
        zc_blocks_option,
        zc_blocks_advice,
    )
}
