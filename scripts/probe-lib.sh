# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the benchmarks that build a probe of bench/probes/ (37-stream-mixed-ceiling.sh,
# 51-54-advise-*.sh): the probe compiled with the CUDA compiler the zc build used.

# probe_build ZC_BINARY NAME OUT_DIR: bench/probes/NAME.cu into OUT_DIR/NAME, its compiler's
# words in OUT_DIR/build.txt; on failure says so with them and returns 1. ZC_PROBE_ARCH picks
# the GPU architecture (sm_90), NVCC the compiler.
probe_build() {
  local zc=$1 name=$2 out=$3
  local root build nvcc
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  build=$(cd "$(dirname "$zc")/../.." && pwd)
  nvcc=${NVCC:-$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)}
  "${nvcc:-nvcc}" -arch="${ZC_PROBE_ARCH:-sm_90}" -O2 -std=c++17 "$root/bench/probes/$name.cu" \
    -o "$out/$name" >"$out/build.txt" 2>&1 || { echo "FAILED: build"; cat "$out/build.txt"; return 1; }
}

# probe_start NAME ZC_BINARY RESULTS_DIR: a probe benchmark's opening, its arguments checked
# (usage named after the calling script); sets zc, results, probe (NAME) and out
# (RESULTS_DIR/NAME, made) and builds bench/probes/NAME.cu into it. Returns 1 when the build
# fails.
probe_start() {
  local name=$1 usage
  probe=$name
  usage="usage: $(basename "$0") ZC_BINARY RESULTS_DIR"
  zc=${2:?$usage}
  results=${3:?$usage}
  out=$results/$name
  mkdir -p "$out"
  probe_build "$zc" "$name" "$out"
}

# probe_run ARGS...: the probe probe_start built, run once with ARGS, its lines shown and kept in
# OUT/NAME.jsonl; sets status to its exit code and removes the binary.
probe_run() {
  "$out/$probe" "$@" | tee "$out/$probe.jsonl"
  # shellcheck disable=SC2034 # status is the calling script's exit code
  status=${PIPESTATUS[0]}
  rm -f "${out:?}/$probe"
}
