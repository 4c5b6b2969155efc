#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: what zc run's allocation hooks cost a program that allocates small blocks all the
# time, as an interpreter or a framework does (every free of the program asks the cures whether
# its block is one of theirs). tests/run/alloc_churn (malloc and free pairs of 16 B to 4 KiB
# beside one large tracked block, every block checked) uncured, under zc run's default cures
# and under every cure (--fix all), alternated, ZC_BENCH_HOOKS_REPEATS (5) processes of each,
# each seven timed runs after a warm-up. Writes RESULTS_DIR/run-hooks/: hooks.jsonl (every
# process) and hooks.md (the median over the processes of each one's median, ns per pair, the
# spread, and the cost the hooks add). Fails when a run fails or a block reads back wrong.
# ZC_BENCH_HOOKS_BEFORE_LIB: an earlier build's interposition library (its libzerocopy_run_copy.so
# beside it), run the same way (zc run --lib) in the same rounds: a change's before and after.
#   bash scripts/bench.d/42-run-hooks.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 42-run-hooks.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 42-run-hooks.sh ZC_BINARY RESULTS_DIR}
build=$(cd "$(dirname "$zc")/../.." && pwd)
churn=$build/tests/run/alloc_churn
if [ ! -x "$churn" ]; then
  echo "42-run-hooks: $churn is not built (ZC_BUILD_TESTS=ON builds it)" >&2
  exit 1
fi
out=$results/run-hooks
mkdir -p "$out"
jsonl=$out/hooks.jsonl
: >"$jsonl"
status=0

# one MODE COMMAND...: one process, its JSON line tagged with its mode in hooks.jsonl.
one() {
  local mode=$1 line
  shift
  if ! line=$(timeout 300 "$@" 2>"$out/$mode.stderr.txt" | tail -1) ||
    [[ $line != *'"checked": true'* ]]; then
    echo "42-run-hooks: $mode failed: $* (see $mode.stderr.txt)" >&2
    status=1
    return
  fi
  printf '{"mode": "%s", "result": %s}\n' "$mode" "$line" >>"$jsonl"
}

for repeat in $(seq 1 "${ZC_BENCH_HOOKS_REPEATS:-5}"); do
  one uncured "$churn"
  one default "$zc" run -q -- "$churn"
  one all "$zc" run -q --fix all -- "$churn"
  if [ -n "${ZC_BENCH_HOOKS_BEFORE_LIB:-}" ]; then
    one before-default "$zc" run -q --lib "$ZC_BENCH_HOOKS_BEFORE_LIB" -- "$churn"
    one before-all "$zc" run -q --fix all --lib "$ZC_BENCH_HOOKS_BEFORE_LIB" -- "$churn"
  fi
  echo "42-run-hooks: round $repeat done"
done

python3 - "$jsonl" "$out/hooks.md" <<'PY' || status=1
"""hooks.md from hooks.jsonl: per mode, the median over processes of each one's median."""
import json
import statistics
import sys

runs = [json.loads(line) for line in open(sys.argv[1])]
medians = {}
for run in runs:
    medians.setdefault(run["mode"], []).append(run["result"]["median_ns"])
uncured = statistics.median(medians["uncured"]) if "uncured" in medians else None
lines = ["# What zc run's allocation hooks cost", "",
         "tests/run/alloc_churn: malloc and free pairs of 16 B to 4 KiB, 64 live, beside one "
         "64 MiB block; ns per pair, the median over the processes of each one's median of "
         "seven timed runs; spread: the least and most of those medians.", "",
         "| mode | processes | ns per pair | spread | added by the hooks |",
         "| --- | ---: | ---: | --- | ---: |"]
for mode in ("uncured", "default", "all", "before-default", "before-all"):
    values = medians.get(mode)
    if not values:
        continue
    median = statistics.median(values)
    added = "-" if mode == "uncured" or uncured is None else f"{median - uncured:+.1f} ns"
    lines.append(f"| {mode} | {len(values)} | {median:.1f} | {min(values):.1f}-{max(values):.1f}"
                 f" | {added} |")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
cat "$out/hooks.md" 2>/dev/null
exit $status
