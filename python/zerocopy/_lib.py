# SPDX-License-Identifier: Apache-2.0
"""Finding and loading libzerocopy.so, and the C prototypes of every function the package calls.

The library is looked for, in order (the first that loads and serves the package wins):
  1. LIBZEROCOPY_PATH, when set, and nothing else: the library file itself, a folder that holds
     libzerocopy.so, or a name for the dynamic loader (libzerocopy.so.0: an installed library);
  2. the package's own folder: the libzerocopy.so a wheel carries (python/CMakeLists.txt), or
     where an editable install (pip install -e) keeps it;
  3. the system's dynamic loader (LD_LIBRARY_PATH, the ldconfig cache, /usr/lib), as
     libzerocopy.so.<major>;
  4. lib/, lib64/ and lib/<multiarch>/ under sys.prefix, /usr/local and /usr: an install made
     with `cmake --install build --prefix PREFIX`.
A build tree of a checkout is never guessed at (it may be half-built, or another version's):
LIBZEROCOPY_PATH names one.

The library's own dependencies: what the wheel carries in zerocopy/_libs/ (cJSON) is loaded
first, so that the library's need of it is met without RPATH; the CUDA runtime
(libcudart.so.<major>) comes from the dynamic loader, or, when it has none, from NVIDIA's wheel
in any sys.path folder (nvidia/cu13/lib/ of nvidia-cuda-runtime, nvidia/cuda_runtime/lib/ of
nvidia-cuda-runtime-cu12).
"""

import ctypes
import glob
import os
import re
import sys
from ctypes import (
    POINTER,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_size_t,
    c_ubyte,
    c_uint,
    c_uint64,
    c_void_p,
)

from . import _structs as S
from ._version import package_version

LIBZEROCOPY_ENV = "LIBZEROCOPY_PATH"
LIBRARY_FILE = "libzerocopy.so"
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# The shared libraries the wheel carries for libzerocopy.so (python/CMakeLists.txt).
BUNDLED_DIR = os.path.join(PACKAGE_DIR, "_libs")
# Where NVIDIA's runtime wheels put their libraries, under a sys.path folder.
NVIDIA_WHEEL_DIRS = (os.path.join("nvidia", "cu*", "lib"), os.path.join("nvidia", "*", "lib"))
# The version the package was made with, or None when unknown; then the loaded library's.
_PACKAGE_VERSION = package_version()
# The library's soname for the dynamic loader: its major version (libzerocopy.so.0).
_SONAME = LIBRARY_FILE + ("." + _PACKAGE_VERSION.split(".")[0] if _PACKAGE_VERSION else "")

c_enum = c_int
c_status = c_int


def _prefix_candidates():
    multiarch = getattr(sys.implementation, "_multiarch", "") or ""
    paths = []
    for prefix in dict.fromkeys((sys.prefix, "/usr/local", "/usr")):
        for libdir in ("lib", "lib64", os.path.join("lib", multiarch) if multiarch else None):
            if libdir:
                paths.append(os.path.join(prefix, libdir, _SONAME))
    return paths


def _package_candidates():
    """The library the wheel put into the package: beside this file, or where an editable
    install keeps it (scikit-build-core's imports the Python files from the checkout and keeps
    the built library in site-packages; its import finder knows where)."""
    paths = [os.path.join(PACKAGE_DIR, LIBRARY_FILE)]
    try:
        import importlib.util

        spec = importlib.util.find_spec(__package__ + "." + LIBRARY_FILE.split(".")[0])
        origin = os.path.abspath(spec.origin) if spec and spec.origin else ""
    except (ImportError, ValueError):
        origin = ""
    if os.path.basename(origin) == LIBRARY_FILE and origin not in paths:
        paths.append(origin)
    return paths


def candidates():
    """Every place looked at, in order, as (where, path) pairs."""
    out = []
    env = os.environ.get(LIBZEROCOPY_ENV)
    if env:
        path = os.path.join(env, LIBRARY_FILE) if os.path.isdir(env) else env
        out.append((LIBZEROCOPY_ENV, path))
        return out  # an explicit choice is never second-guessed
    for path in _package_candidates():
        out.append(("package", path))
    out.append(("dynamic loader", _SONAME))
    for path in _prefix_candidates():
        out.append(("prefix", path))
    return out


# Prototypes: name -> (restype, argtypes). Every call goes through these, so that ctypes
# converts and checks the arguments instead of guessing int for everything.
_P = POINTER
_PROTOTYPES = {
    # status.h, version.h, clock.h, stats.h
    "zc_status_str": (c_char_p, [c_status]),
    "zc_status_name": (c_char_p, [c_status]),
    "zc_last_error": (c_char_p, []),
    "zc_clear_error": (None, []),
    "zc_version": (c_uint, []),
    "zc_version_string": (c_char_p, []),
    "zc_clock_ns": (c_uint64, []),
    "zc_stats_compute": (c_status, [_P(c_double), c_size_t, _P(S.zc_stats)]),
    # buffer.h
    "zc_buffer_alloc": (c_status, [c_size_t, c_enum, c_uint, c_int, _P(c_void_p)]),
    "zc_buffer_register": (c_status, [c_void_p, c_size_t, c_uint, c_int, _P(c_void_p)]),
    "zc_buffer_free": (c_status, [c_void_p]),
    "zc_buffer_info_get": (c_status, [c_void_p, _P(S.zc_buffer_info)]),
    "zc_buffer_device_ptr_for": (c_status, [c_void_p, c_int, _P(c_void_p)]),
    "zc_buffer_prefetch": (c_status, [c_void_p, c_size_t, c_size_t, c_int, c_void_p]),
    "zc_buffer_advise": (c_status, [c_void_p, c_size_t, c_size_t, c_enum, c_int]),
    "zc_pointer_query": (c_status, [c_void_p, _P(S.zc_pointer_info)]),
    "zc_buffer_totals_get": (c_status, [_P(S.zc_buffer_totals)]),
    "zc_buffer_kind_name": (c_char_p, [c_enum]),
    "zc_buffer_kind_key": (c_char_p, [c_enum]),
    "zc_buffer_kind_title": (c_char_p, [c_enum]),
    "zc_buffer_kind_props": (c_uint, [c_enum]),
    "zc_buffer_kind_flags": (c_uint, [c_enum]),
    "zc_buffer_method_name": (c_char_p, [c_enum]),
    # pool.h
    "zc_pool_create": (c_status, [c_enum, c_uint, c_int, c_size_t, _P(c_void_p)]),
    "zc_pool_destroy": (None, [c_void_p]),
    "zc_pool_alloc": (c_status, [c_void_p, c_size_t, _P(c_void_p)]),
    "zc_pool_trim": (c_status, [c_void_p, c_size_t]),
    "zc_pool_stats_get": (c_status, [c_void_p, _P(S.zc_pool_stats)]),
    # filter.h, stream.h
    "zc_stream_mode_name": (c_char_p, [c_enum]),
    "zc_stream_mode_parse": (c_status, [c_char_p, _P(c_enum)]),
    "zc_fir_design_lowpass": (c_status, [c_double, c_size_t, _P(c_float)]),
    "zc_fir_reference": (
        c_status,
        [_P(c_float), c_size_t, c_size_t, _P(c_float), _P(c_float), c_size_t, _P(c_double)],
    ),
    "zc_fir_error": (
        c_double,
        [_P(c_double), _P(c_float), c_size_t, _P(c_float), c_size_t, c_double],
    ),
    "zc_stream_config_init": (None, [_P(S.zc_stream_config)]),
    "zc_stream_config_check": (c_status, [_P(S.zc_stream_config)]),
    "zc_stream_create": (c_status, [_P(S.zc_stream_config), _P(c_void_p)]),
    "zc_stream_destroy": (None, [c_void_p]),
    "zc_stream_push": (c_status, [c_void_p, _P(c_float), c_size_t, _P(c_size_t)]),
    "zc_stream_flush": (c_status, [c_void_p]),
    "zc_stream_pull": (c_status, [c_void_p, _P(c_float), c_size_t, c_uint64, _P(c_size_t)]),
    "zc_stream_frame_acquire": (c_status, [c_void_p, _P(_P(c_float))]),
    "zc_stream_frame_publish": (c_status, [c_void_p]),
    "zc_stream_buffers": (c_status, [c_void_p, _P(ctypes.c_uint32)]),
    "zc_stream_stats_get": (c_status, [c_void_p, _P(S.zc_stream_stats)]),
    # device.h
    "zc_device_count": (c_status, [_P(c_int)]),
    "zc_device_info_get": (c_status, [c_int, _P(S.zc_device_info)]),
    "zc_device_technique_notes": (c_status, [_P(S.zc_device_info), _P(S.zc_technique_note)]),
    "zc_device_peer_link_get": (c_status, [c_int, c_int, _P(S.zc_peer_link)]),
    # bench.h
    "zc_bench_case_count": (c_size_t, []),
    "zc_bench_case_at": (_P(S.zc_bench_case_info), [c_size_t]),
    "zc_bench_select": (c_status, [c_char_p, _P(c_ubyte), c_size_t, _P(c_size_t)]),
    "zc_bench_sizes_parse": (c_status, [c_char_p, _P(c_size_t), c_size_t, _P(c_size_t)]),
    # size.h
    "zc_size_parse": (c_status, [c_char_p, c_uint64, _P(c_uint64)]),
    "zc_bench_config_init": (None, [_P(S.zc_bench_config)]),
    "zc_bench_method_get": (c_status, [c_enum, _P(S.zc_bench_method)]),
    "zc_bench_method_text": (c_char_p, []),
    "zc_bench_mode_name": (c_char_p, [c_enum]),
    "zc_bench_outcome_name": (c_char_p, [c_enum]),
    "zc_bench_metric_unit": (c_char_p, [c_enum]),
    "zc_bench_metric_name": (c_char_p, [c_enum]),
    "zc_bench_ctx_create": (c_status, [_P(S.zc_bench_config), _P(c_void_p)]),
    "zc_bench_ctx_destroy": (None, [c_void_p]),
    "zc_bench_ctx_plan": (c_status, [c_void_p, c_size_t]),
    "zc_bench_run": (c_status, [c_void_p, c_size_t, _P(S.zc_bench_result)]),
    "zc_bench_result_clear": (None, [_P(S.zc_bench_result)]),
    # advise.h
    "zc_curve_add": (c_status, [_P(S.zc_curve), c_size_t, c_double]),
    "zc_profile_init": (c_status, [c_void_p]),
    "zc_profile_fill_gaps": (c_status, [c_void_p, c_char_p, c_size_t]),
    "zc_workload_check": (c_status, [_P(S.zc_workload)]),
    "zc_workload_transfer_count": (c_double, [_P(S.zc_workload)]),
    "zc_advise_rank": (c_status, [c_void_p, _P(S.zc_workload), _P(S.zc_recommendation)]),
    "zc_technique_key": (c_char_p, [c_enum]),
    "zc_technique_title": (c_char_p, [c_enum]),
    "zc_technique_from_key": (c_status, [c_char_p, _P(c_enum)]),
    "zc_direction_key": (c_char_p, [c_enum]),
    "zc_access_key": (c_char_p, [c_enum]),
    "zc_direction_from_key": (c_status, [c_char_p, _P(c_enum)]),
    "zc_access_from_key": (c_status, [c_char_p, _P(c_enum)]),
    "zc_copy_kind_from_key": (c_status, [c_char_p, _P(c_enum)]),
    "zc_advise_run": (
        c_status,
        [c_int, _P(S.zc_workload), c_enum, c_double, _P(S.zc_measurement)],
    ),
    # blocks.h
    "zc_blocks_create": (c_status, [c_int, _P(c_void_p)]),
    "zc_blocks_destroy": (None, [c_void_p]),
    "zc_blocks_set_max_sms": (c_status, [c_void_p, c_uint]),
    "zc_blocks_plan": (
        c_status,
        [c_void_p, _P(S.zc_blocks_desc), _P(S.zc_blocks_options), _P(S.zc_blocks_choice)],
    ),
    "zc_blocks_move": (
        c_status,
        [c_void_p, _P(S.zc_blocks_desc), _P(S.zc_blocks_options), _P(S.zc_blocks_choice)],
    ),
    "zc_blocks_engine_name": (c_char_p, [c_enum]),
    "zc_blocks_engine_from_name": (c_status, [c_char_p, _P(c_enum)]),
    "zc_blocks_profile_default": (c_status, [_P(S.zc_blocks_profile)]),
    "zc_blocks_set_profile": (c_status, [c_void_p, _P(S.zc_blocks_profile)]),
    "zc_blocks_advise": (
        c_status,
        [_P(S.zc_blocks_profile), _P(S.zc_blocks_fit), _P(S.zc_blocks_workload),
         _P(S.zc_blocks_advice)],
    ),
}

# Functions some versions of the library have and others not: the package uses them where they
# are (has() says) and says which is missing where they are not.
_OPTIONAL = {
    # advice for a traced program (zc advise --trace), from the trace document's text
    "zc_advise_trace_text": (c_status, [c_void_p, c_char_p, c_size_t, _P(S.zc_trace_advice)]),
    # the profile's figures by key, and measuring a profile with the bench engine in process
    "zc_profile_field_key": (c_char_p, [c_int]),
    "zc_profile_field_from_key": (c_status, [c_char_p, _P(c_int)]),
    "zc_profile_field_value": (_P(c_double), [c_void_p, c_int]),
    "zc_profile_set": (c_status, [c_void_p, c_int, c_double, c_int]),
    "zc_profile_measure": (
        c_status,
        [c_int, c_enum, S.BENCH_PROGRESS_FN, c_void_p, c_void_p, c_char_p, c_size_t],
    ),
    # stream advice: which zc stream mode for a frame size and a rate
    "zc_stream_option_name": (c_status, [c_int, c_int, c_char_p, c_size_t]),
    "zc_stream_advise": (
        c_status,
        [c_void_p, _P(S.zc_stream_workload), _P(S.zc_stream_advice)],
    ),
    "zc_profile_add_stream": (c_status, [c_void_p, _P(S.zc_stream_point)]),
    # the one-second calibration of older libraries
    "zc_advise_calibrate": (c_status, [c_int, c_void_p]),
    # a saved profile (`zc advise --save-profile`) or a `zc bench --json` document, read as
    # `zc advise --profile` reads it (zerocopy/json.h)
    "zc_profile_from_document": (
        c_status,
        [c_void_p, c_char_p, c_void_p, c_void_p, c_char_p, c_size_t],
    ),
    # the block mover's profile fitted to a `zc bench --case blocks --json` document, as
    # `zc advise --blocks --bench FILE` fits it (zerocopy/json.h; the tree is a cJSON pointer)
    "zc_blocks_bench_from_json": (
        c_status,
        [c_void_p, c_size_t, _P(S.zc_blocks_profile), _P(S.zc_blocks_fit), c_void_p],
    ),
    # cJSON, which the library links and whose trees zerocopy/json.h takes: found through the
    # library's own dependencies, so that the documents are read by the very cJSON it uses
    "cJSON_ParseWithLength": (c_void_p, [c_char_p, c_size_t]),
    "cJSON_GetErrorPtr": (c_void_p, []),
    "cJSON_Delete": (None, [c_void_p]),
}


def _usable(candidate):
    """Why a loaded library cannot serve this package ("" when it can): a missing function (an
    older build) or another major.minor version (other struct layouts)."""
    missing = [name for name in _PROTOTYPES if not hasattr(candidate, name)]
    if missing:
        return f"lacks {missing[0]} (an older build?)"
    candidate.zc_version_string.restype = c_char_p
    loaded = candidate.zc_version_string().decode()
    if _PACKAGE_VERSION and loaded.split(".")[:2] != _PACKAGE_VERSION.split(".")[:2]:
        return f"is version {loaded}, the package {_PACKAGE_VERSION}"
    return ""


def _load_bundled():
    """Load what the wheel carries in zerocopy/_libs/, globally, so that the dynamic loader
    meets libzerocopy.so's need of them (by soname) with these."""
    for path in sorted(glob.glob(os.path.join(BUNDLED_DIR, "lib*.so*"))):
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


def nvidia_wheel_library(name, folders=None):
    """The path of library name (libcudart.so.13) in an NVIDIA runtime wheel under one of
    folders (sys.path by default), or None."""
    for folder in sys.path if folders is None else folders:
        for pattern in NVIDIA_WHEEL_DIRS:
            found = sorted(glob.glob(os.path.join(folder or ".", pattern, name)))
            if found:
                return found[0]
    return None


_MISSING = re.compile(r"^(lib[^:/\s]+\.so[.0-9]*): cannot open shared object file")


def _open(path):
    """ctypes.CDLL(path); a CUDA runtime the dynamic loader does not find is looked for in
    NVIDIA's wheels, loaded globally from there, and the library opened again."""
    seen = set()
    while True:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            m = _MISSING.match(str(e))
            name = m.group(1) if m else ""
            if not name.startswith("libcudart.so") or name in seen:
                raise
            seen.add(name)
            found = nvidia_wheel_library(name)
            if found is None:
                raise OSError(f"{e} (nor in an NVIDIA wheel's nvidia/*/lib/ under sys.path: "
                              f"pip install 'zerocopy-cuda[cuda{name.rsplit('.', 1)[-1]}]')") from None
            ctypes.CDLL(found, mode=ctypes.RTLD_GLOBAL)


def _load():
    tried = []
    for where, path in candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"  {where}: {path} (no such file)")
            continue
        try:
            if where == "package":
                _load_bundled()
            candidate = _open(path)
        except OSError as e:
            tried.append(f"  {where}: {path} ({e})")
            continue
        why = _usable(candidate)
        if not why:
            return candidate, path
        tried.append(f"  {where}: {path} {why}")
    raise ImportError(
        "zerocopy: no usable libzerocopy.so. Install the package with its library "
        "(pip install zerocopy-cuda, or pip install ./python from a zerocopy checkout), or point "
        f"{LIBZEROCOPY_ENV} at a built or installed one. Looked at:\n" + "\n".join(tried)
    )


lib, path = _load()

for _name, (_restype, _argtypes) in list(_PROTOTYPES.items()) + list(_OPTIONAL.items()):
    if hasattr(lib, _name):
        _fn = getattr(lib, _name)
        _fn.restype = _restype
        _fn.argtypes = _argtypes


def has(name):
    """Whether the loaded library has the function name (for the optional ones)."""
    return hasattr(lib, name)


def text(raw):
    """A C string the library returned, as str ('' for NULL)."""
    return raw.decode("utf-8", errors="replace") if raw else ""


def memory_kinds():
    """The library's table of memory kinds (zerocopy/buffer.h's one list), in its order: a list
    of (value, name, key, properties) from ZC_BUFFER_KIND_FIRST (1) to the first value the
    library has no kind for."""
    kinds = []
    value = 1
    while lib.zc_buffer_kind_key(value):
        kinds.append((value, text(lib.zc_buffer_kind_name(value)), text(lib.zc_buffer_kind_key(value)),
                      lib.zc_buffer_kind_props(value)))
        value += 1
    return kinds


def libzerocopy_version():
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return text(lib.zc_version_string())


# The package's version: the one it was made with, else (files copied by hand) the library's.
__version__ = _PACKAGE_VERSION or libzerocopy_version()
