#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every zc stream mode run alone, each in a fresh process (a mode that only works after another
# one ran is a defect this shows), from a file and from a pipe, 4 KiB frames with a 64-tap FIR:
# exit code, samples in and out, wall time, and the latency table. Run as:
# bash 31-stream-alone.sh ZC_BINARY RESULTS_DIR. Writes alone.txt (one line a run) and each
# run's JSON into RESULTS_DIR; about a minute on an H200.
set -uo pipefail
zc=${1:?usage: 31-stream-alone.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 31-stream-alone.sh ZC_BINARY RESULTS_DIR}
mkdir -p "$results"
status=0
frames=20000 samples=1024
input=$results/alone-input.f32
# 1024-sample frames: warm-up 500 and 20000 measured, from the synthetic source's own samples.
"$zc" stream --mode cpu --frames $frames --warmup 500 --frame-samples $samples --output - \
  --force >"$input" 2>/dev/null || { echo "cannot make the input"; exit 1; }
in_samples=$(($(stat -c %s "$input") / 4))

modes=(zerocopy:ll zerocopy:flag mapped-launch stream-wait classic-pageable classic-pinned
  classic-overlap graph cpu)
printf '%-16s %-5s %4s %10s %10s %8s %8s %8s\n' mode input exit in out wall_s p50_us p99_us \
  | tee "$results/alone.txt"
for entry in "${modes[@]}"; do
  mode=${entry%%:*} proto=() label=$mode
  if [ "$entry" != "$mode" ]; then
    proto=(--protocol "${entry#*:}")
    label=$mode-${entry#*:}
  fi
  for via in file pipe; do
    name=alone-$label-$via
    start=$(date +%s%N)
    if [ $via = file ]; then
      timeout -k 5 120 "$zc" stream "$input" --mode "$mode" "${proto[@]}" \
        --frame-samples $samples --rate 1000000 --warmup 500 --output - \
        --json "$results/$name.json" --force >"$results/$name.out" 2>"$results/$name.err"
    else
      cat "$input" | timeout -k 5 120 "$zc" stream - --mode "$mode" "${proto[@]}" \
        --frame-samples $samples --rate 1000000 --warmup 500 --output - \
        --json "$results/$name.json" --force >"$results/$name.out" 2>"$results/$name.err"
    fi
    rc=$?
    wall_ms=$((($(date +%s%N) - start) / 1000000))
    out_samples=$(($(stat -c %s "$results/$name.out") / 4))
    lat=$(python3 -c '
import json, sys
try:
    run = json.load(open(sys.argv[1]))["runs"][0]["latency_us"]
    print("%.2f %.2f" % (run["p50"], run["p99"]))
except Exception:
    print("- -")' "$results/$name.json")
    printf '%-16s %-5s %4d %10d %10d %5d.%03d %8s %8s\n' "$label" $via $rc "$in_samples" \
      "$out_samples" $((wall_ms / 1000)) $((wall_ms % 1000)) ${lat} | tee -a "$results/alone.txt"
    rm -f "$results/$name.out"
    if [ $rc != 0 ] || [ "$out_samples" != "$in_samples" ]; then
      echo "FAILED: $label alone from a $via: exit $rc, $out_samples of $in_samples samples"
      tail -3 "$results/$name.err"
      status=1
    fi
  done
done
rm -f "$input"
exit $status
