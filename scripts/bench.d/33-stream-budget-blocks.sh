#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the budget points at, measured: 4 KiB frames one in flight through zerocopy (both
# protocols) with 1 to 32 persistent blocks, each step's p50 per block count; and the stamps'
# own cost, the same run with and without --budget, interleaved three times. Run as:
# bash 33-stream-budget-blocks.sh ZC_BINARY RESULTS_DIR. About a minute.
set -uo pipefail
zc=${1:?usage: 33-stream-budget-blocks.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 33-stream-budget-blocks.sh ZC_BINARY RESULTS_DIR}
mkdir -p "$results"
status=0
common=(--mode zerocopy --protocol both --frame-samples 1024 --taps 64 --frames 20000
  --warmup 2000)

run() { # NAME ARGS...
  local name=$1
  shift
  "$zc" stream "${common[@]}" "$@" --force --json "$results/$name.json" >"$results/$name.txt" 2>&1 ||
    { echo "FAILED: zc stream ${common[*]} $* (see $name.txt)"; status=1; }
}

for blocks in 1 2 4 8 16 32; do
  run "blocks_$blocks" --budget --gpu-blocks "$blocks"
done
for round in 1 2 3; do
  run "overhead_off_$round"
  run "overhead_on_$round" --budget
done

python3 - "$results" <<'PY' | tee "$results/budget-blocks.txt"
import json, os, statistics, sys
d = sys.argv[1]

def runs(name):
    try:
        with open(os.path.join(d, name + ".json")) as f:
            return {r["name"]: r for r in json.load(f).get("runs", [])}
    except (OSError, ValueError) as e:
        print(f"cannot read {name}: {e}")
        return {}

steps = ["host-write", "to-gpu", "gpu-read", "gpu-compute", "gpu-write", "to-host", "host-read"]
print("4 KiB frames, one in flight: p50 per step (us) by persistent blocks")
print(f"{'run':<15}{'blocks':>7}{'p50':>8}{'p99':>8}" + "".join(f"{s:>12}" for s in steps))
for proto in ("zerocopy-ll", "zerocopy-flag"):
    for blocks in (1, 2, 4, 8, 16, 32):
        r = runs(f"blocks_{blocks}").get(proto)
        if not r or not r.get("latency_us"):
            print(f"{proto:<15}{blocks:>7}  no result")
            continue
        b = {s["step"]: s["us"]["median"] for s in (r.get("budget") or {}).get("steps", [])}
        print(f"{proto:<15}{blocks:>7}{r['latency_us']['median']:>8.2f}{r['latency_us']['p99']:>8.2f}"
              + "".join(f"{b.get(s, float('nan')):>12.2f}" for s in steps))
print("\nthe stamps' cost: p50 (us) without and with --budget, three rounds interleaved")
for proto in ("zerocopy-ll", "zerocopy-flag"):
    off = [runs(f"overhead_off_{i}").get(proto, {}).get("latency_us", {}).get("median") for i in (1, 2, 3)]
    on = [runs(f"overhead_on_{i}").get(proto, {}).get("latency_us", {}).get("median") for i in (1, 2, 3)]
    if None in off or None in on:
        print(f"  {proto}: missing")
        continue
    print(f"  {proto}: off {statistics.median(off):.2f} ({min(off):.2f}..{max(off):.2f}), "
          f"on {statistics.median(on):.2f} ({min(on):.2f}..{max(on):.2f})")
PY
exit $status
