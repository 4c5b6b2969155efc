#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: zc run's cures beside the same programs uncured, in one call. Pageable copies of
# 64 KiB to 256 MiB each way (tests/run/run_subject rate: median of N timed cudaMemcpy calls of
# one buffer, data verified), uncured, cured by staging alone (--fix pageable,pinning: what a
# buffer copied once gets) and with every cure (the buffer, copied again and again, pinned in
# place), runs alternated, three of each; a program that pins and frees in a loop, uncured and
# cured; a PyTorch script of pageable tensor copies when torch is installed; with
# ZC_BENCH_RUN_GRID=1, a grid of copying threads and chunk sizes at 1 and 64 MiB. Writes
# RESULTS_DIR/run/: run.json (every run) and run.md (the tables).
#   bash scripts/bench.d/41-run.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 41-run.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 41-run.sh ZC_BINARY RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$zc")/../.." && pwd)
subject=$build/tests/run/run_subject
if [ ! -x "$subject" ]; then
  echo "41-run: $subject is not built (ZC_BUILD_TESTS=ON builds it)" >&2
  exit 1
fi
out=$results/run
mkdir -p "$out"
raw=$out/raw.txt
: >"$raw"
status=0

# one LABEL ENV... -- ARGS: one run of the subject, its stdout and stderr appended to raw.txt
# under a header line that the summary below reads back.
one() {
  local label=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "@@ $label" >>"$raw"
  if ! env "${envs[@]}" timeout 300 "$@" >>"$raw" 2>&1; then
    echo "FAILED: $label: $*" | tee -a "$raw"
    status=1
  fi
}

# ZC_BENCH_RUN_SIZES and ZC_BENCH_RUN_REPEATS narrow a run (a before-and-after comparison in a
# call short of time); the defaults are the published table's.
sizes=${ZC_BENCH_RUN_SIZES:-65536 262144 1048576 4194304 16777216 67108864 268435456}
repeats=$(seq 1 "${ZC_BENCH_RUN_REPEATS:-3}")
for size in $sizes; do
  n=20
  [ "$size" -ge 67108864 ] && n=8
  for repeat in $repeats; do
    one "rate uncured $size $repeat" -- "$subject" rate "$size" "$n"
    one "rate staged $size $repeat" -- "$zc" run -q --fix pageable,pinning -- \
      "$subject" rate "$size" "$n"
    one "rate cured $size $repeat" -- "$zc" run -q -- "$subject" rate "$size" "$n"
  done
done

for repeat in $repeats; do
  one "pin uncured 64MiB $repeat" -- "$subject" pin 40 67108864
  one "pin cured 64MiB $repeat" -- "$zc" run -q -- "$subject" pin 40 67108864
  one "pin uncured 1MiB $repeat" -- "$subject" pin 200 1048576
  one "pin cured 1MiB $repeat" -- "$zc" run -q -- "$subject" pin 200 1048576
done

if [ "${ZC_BENCH_RUN_GRID:-0}" = 1 ]; then
  for threads in 1 2 4 8 12; do
    for chunk in 262144 1048576 4194304; do
      for size in 1048576 67108864; do
        one "grid $threads $chunk $size" ZC_RUN_THREADS=$threads ZC_RUN_CHUNK=$chunk -- \
          "$zc" run -q --fix pageable,pinning -- "$subject" rate "$size" 8
      done
    done
  done
fi

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  for repeat in $repeats; do
    one "torch uncured $repeat" -- python3 "$root/tests/run/torch_copies.py"
    one "torch cured $repeat" -- "$zc" run -q -- python3 "$root/tests/run/torch_copies.py"
  done
else
  echo "@@ torch absent" >>"$raw"
fi

python3 "$root/scripts/run-tables" "$raw" "$out" || status=1
cat "$out/run.md"
exit $status
