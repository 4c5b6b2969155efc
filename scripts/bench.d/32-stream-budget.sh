#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The zerocopy channel's frame time budget beside the hardware's floor, in one call: zc bench's
# flag ping-pong, then zc stream --budget at 256 B, 4 KiB and 1 MiB frames (one in flight, both
# ring protocols), and a table of issue 30's latency targets. Run as: bash 32-stream-budget.sh
# ZC_BINARY RESULTS_DIR. About a minute.
set -uo pipefail
zc=${1:?usage: 32-stream-budget.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 32-stream-budget.sh ZC_BINARY RESULTS_DIR}
mkdir -p "$results"
status=0

"$zc" bench --case latency.pingpong --force --json "$results/budget_pingpong.json" \
  >"$results/budget_pingpong.txt" 2>&1 || { echo "FAILED: zc bench --case latency.pingpong"; status=1; }

# budget NAME ARGS...: one zc stream --budget run, its tables in NAME.txt, its JSON in NAME.json.
budget() {
  local name=$1
  shift
  echo "== zc stream --budget $*" | tee "$results/$name.txt"
  "$zc" stream --budget "$@" --force --json "$results/$name.json" 2>&1 | tee -a "$results/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "FAILED ($rc): zc stream --budget $*"; status=1; }
}

budget budget_256b --mode zerocopy,classic-pinned --protocol both --frame-samples 64 --taps 64 \
  --frames 20000 --warmup 2000
budget budget_4k --mode zerocopy,classic-pinned --protocol both --frame-samples 1024 --taps 64 \
  --frames 20000 --warmup 2000
budget budget_1m --mode zerocopy --protocol both --frame-samples 262144 --taps 64 \
  --frames 2000 --warmup 100 --reuse

python3 - "$results" <<'PY' | tee "$results/budget-targets.txt"
import json, os, sys
d = sys.argv[1]

def load(name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"cannot read {name}: {e}")
        return None

pp = None
doc = load("budget_pingpong.json")
for c in (doc or {}).get("cases", []):
    if c["key"] == "latency.pingpong":
        for p in c.get("points", []):
            pp = p["stats"]["median"]
            break
print(f"flag ping-pong (zc bench latency.pingpong) p50: {pp if pp is None else round(pp, 2)} us")

def runs(name):
    return {r["name"]: r for r in (load(name) or {}).get("runs", [])}

def row(label, value, goal, rel):
    if value is None or goal is None:
        print(f"  MISSING {label}")
        return
    ok = value <= goal if rel == "<=" else value >= goal
    print(f"  {'PASS' if ok else 'MISS'}    {label}: {value:.2f} (target {rel} {goal:.2f})")

for size, name, extra in (("4 KiB", "budget_4k.json", 1.0), ("256 B", "budget_256b.json", 0.5)):
    rs = runs(name)
    pinned = rs.get("classic-pinned", {}).get("latency_us") or {}
    for proto in ("zerocopy-ll", "zerocopy-flag"):
        lat = (rs.get(proto) or {}).get("latency_us")
        if not lat:
            print(f"  MISSING {size} {proto}")
            continue
        row(f"{size} {proto} p50 us vs ping-pong p50 + {extra}", lat["median"],
            None if pp is None else pp + extra, "<=")
        if size == "4 KiB":
            row(f"{size} {proto} p99 / p50", lat["p99"] / lat["median"], 1.3, "<=")
            row(f"{size} {proto} p99.9 / p50", lat["p999"] / lat["median"], 3.0, "<=")
            if pinned:
                row(f"{size} classic-pinned p50 / {proto} p50", pinned["median"] / lat["median"], 5.0, ">=")
        b = (rs.get(proto) or {}).get("budget") or {}
        steps = ", ".join(f"{s['step']} {s['us']['median']:.2f}" for s in b.get("steps", []))
        print(f"          budget p50 (us): {steps or 'none: ' + str(b.get('error'))}")
PY
exit $status
