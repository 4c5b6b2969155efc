#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The 1 MiB frame target of the zero-copy channel, in one call: zc bench's SM read of mapped
# memory (zerocopy.read.16b) and copy-engine device-to-host copy (copy.d2h.pinned), then 1 MiB
# frames through zerocopy FLAG, hybrid FLAG and classic-overlap (16 in flight, --reuse, 64 taps,
# results checked), at the default block count and at 66 and 132 blocks; and 4 KiB frames, one
# in flight, through zerocopy and hybrid (what the copy engine costs a small frame). The table
# says whether the best zero-copy mode reaches 0.9 x the slower of the two ceilings. Run as:
# bash 34-stream-hybrid.sh ZC_BINARY RESULTS_DIR. About a minute.
set -uo pipefail
zc=${1:?usage: 34-stream-hybrid.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 34-stream-hybrid.sh ZC_BINARY RESULTS_DIR}
dir=$results/stream_hybrid
mkdir -p "$dir"
status=0

"$zc" bench --case zerocopy.read.16b,copy.d2h.pinned --force --json "$dir/ceilings.json" \
  >"$dir/ceilings.txt" 2>&1 || { echo "FAILED: zc bench ceilings"; status=1; }

# run NAME ARGS...: one zc stream run, its JSON in NAME.json.
run() {
  local name=$1
  shift
  "$zc" stream "$@" --taps 64 --force --json "$dir/$name.json" >"$dir/$name.txt" 2>&1 ||
    { echo "FAILED: zc stream $*"; tail -5 "$dir/$name.txt"; status=1; }
}

for blocks in default 66 132; do
  extra=()
  [ "$blocks" = default ] || extra=(--gpu-blocks "$blocks")
  run "tput_1m_$blocks" --mode zerocopy,hybrid,classic-overlap --protocol flag \
    --frame-samples 262144 --in-flight 16 --frames 3000 --warmup 100 --reuse "${extra[@]}"
done
run lat_4k --mode zerocopy,hybrid --protocol both --frame-samples 1024 --in-flight 1 \
  --frames 20000 --warmup 2000

python3 - "$dir" <<'PY' | tee "$dir/stream_hybrid.md"
import json, os, sys
d = sys.argv[1]

def load(name):
    try:
        with open(os.path.join(d, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

ceil = {}
for c in (load("ceilings") or {}).get("cases", []):
    pts = [p for p in c.get("points", []) if p.get("stats")]
    if pts:
        ceil[c["key"]] = max(pts, key=lambda p: p["bytes"])["stats"]["median"]
sm, ce = ceil.get("zerocopy.read.16b"), ceil.get("copy.d2h.pinned")
goal = 0.9 * min(sm, ce) if sm and ce else None
print("## 1 MiB frames, 16 in flight, --reuse (input GB/s, 1 GB = 1e9 B)\n")
print(f"Ceilings in the same call: SM read of mapped memory {sm and round(sm, 2)} GB/s, copy engine "
      f"device to host {ce and round(ce, 2)} GB/s; target 0.9 x the slower: "
      f"{goal and round(goal, 2)} GB/s.\n")
print("| blocks | zerocopy-flag | hybrid-flag | classic-overlap | best zero-copy / target |")
print("| --- | ---: | ---: | ---: | --- |")
best = None
for blocks in ("default", "66", "132"):
    runs = {r["name"]: r for r in (load(f"tput_1m_{blocks}") or {}).get("runs", []) if r.get("ok")}
    gb = {n: ((runs.get(n) or {}).get("throughput") or {}).get("gb_per_s")
          for n in ("zerocopy-flag", "hybrid-flag", "classic-overlap")}
    zc_best = max([v for k, v in gb.items() if k != "classic-overlap" and v] or [0])
    best = max(best or 0, zc_best)
    verdict = f"{zc_best / goal:.2f} ({'PASS' if zc_best >= goal else 'MISS'})" if goal and zc_best else "-"
    cell = lambda v: f"{v:.2f}" if v else "-"
    print(f"| {blocks} | {cell(gb['zerocopy-flag'])} | {cell(gb['hybrid-flag'])} | "
          f"{cell(gb['classic-overlap'])} | {verdict} |")
print("\n## 4 KiB frames, one in flight (latency us, p50 / p99)\n")
print("| run | p50 | p99 | p99.9 |")
print("| --- | ---: | ---: | ---: |")
for r in (load("lat_4k") or {}).get("runs", []):
    lat = r.get("latency_us") or {}
    if r.get("ok") and lat:
        print(f"| {r['name']} | {lat['median']:.2f} | {lat['p99']:.2f} | {lat['p999']:.2f} |")
PY
exit $status
