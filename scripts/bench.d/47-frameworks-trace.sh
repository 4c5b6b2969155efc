#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: zc trace on the framework workloads of bench/workloads (those of 48-frameworks.sh),
# as written and under zc run: what the trace finds in each and the cure each finding's fix
# names, and, traced through `zc run --fix all`, how much of the host<->device traffic then
# moves between pinned memory and the device. Each workload runs with --quick, as written,
# twice: `zc trace --json W.as-written.json -- python3 W.py` and `zc trace --json W.cured.json
# -- zc run -q --fix all -- python3 W.py`. Writes RESULTS_DIR/frameworks-trace/: those
# documents, the runs' stdout and stderr, and frameworks-trace.md and .json (scripts/frameworks-trace-table).
# A workload whose framework or GPU is missing says so and is left out of the table; a run that
# fails fails the part.
#   bash scripts/bench.d/47-frameworks-trace.sh ZC_BINARY RESULTS_DIR
# ZC_PYTHON: the interpreter (python3); ZC_BENCH_FRAMEWORKS_ONLY: the workloads.
set -uo pipefail
zc=${1:?usage: 47-frameworks-trace.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 47-frameworks-trace.sh ZC_BINARY RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${ZC_PYTHON:-python3}
out=$results/frameworks-trace
mkdir -p "$out"
export PYTHONDONTWRITEBYTECODE=1
workloads=${ZC_BENCH_FRAMEWORKS_ONLY:-torch_weights_to_gpu torch_checkpoint_to_host \
torch_dataloader torch_kv_blocks torch_small_steps jax_transfers cupy_transfers}
status=0
traced=()
for workload in $workloads; do
  script=$root/bench/workloads/$workload.py
  if [ ! -f "$script" ]; then
    echo "47-frameworks-trace: no workload $script" >&2
    exit 1
  fi
  program=("$python" "$script" --version as-written --quick)
  ok=1
  timeout 300 "$zc" trace --json "$out/$workload.as-written.json" --force -- "${program[@]}" \
    >"$out/$workload.as-written.stdout.txt" 2>"$out/$workload.as-written.stderr.txt" || ok=0
  # A workload that skips (its framework or a GPU missing) prints a "skipped" line: said, left out.
  if grep -q '"skipped"' "$out/$workload.as-written.stdout.txt"; then
    echo "47-frameworks-trace: $workload skipped (its framework or a GPU is missing)"
    rm -f "$out/$workload".as-written.*
    continue
  fi
  timeout 300 "$zc" trace --json "$out/$workload.cured.json" --force -- \
    "$zc" run -q --fix all -- "${program[@]}" >"$out/$workload.cured.stdout.txt" \
    2>"$out/$workload.cured.stderr.txt" || ok=0
  if [ $ok = 1 ]; then
    traced+=("$workload")
    echo "47-frameworks-trace: $workload traced"
  else
    echo "47-frameworks-trace: $workload failed (see $workload.*.stderr.txt)" >&2
    status=1
  fi
done
if [ ${#traced[@]} -gt 0 ]; then
  python3 "$root/scripts/frameworks-trace-table" "$out" "${traced[@]}" || status=1
  cat "$out/frameworks-trace.md" 2>/dev/null
fi
exit $status
