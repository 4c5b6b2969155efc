#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: the cost of pinning host memory per size (4 KiB to 4 GiB) and method
# (cudaHostAlloc, registration variants, zc_buffer_alloc's choice, the pool), every buffer
# verified by a GPU round trip. Writes pinning.json and pinning.txt into RESULTS_DIR.
#   bash scripts/bench.d/30-pinning.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 30-pinning.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 30-pinning.sh ZC_BINARY RESULTS_DIR}
build=$(cd "$(dirname "$zc")/../.." && pwd)
bin=$build/tests/mem/measure_pinning
if [ ! -x "$bin" ]; then
  echo "30-pinning: $bin is not built (ZC_BUILD_TESTS=ON builds it)" >&2
  exit 1
fi
mkdir -p "$results"
cmd=("$bin" --max-size 4G --repeats 3 --json "$results/pinning.json")
echo "command: ${cmd[*]}" >"$results/pinning.txt"
"${cmd[@]}" | tee -a "$results/pinning.txt"
exit "${PIPESTATUS[0]}"
