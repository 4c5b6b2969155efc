#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc bench: the default run (table, JSON, CSV), a second run to check repeatability, and a
# summary of the targets. Run as: bash 20-bench.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 20-bench.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 20-bench.sh ZC_BINARY RESULTS_DIR}
mkdir -p "$results"

status=0
start=$SECONDS
"$zc" bench --force --json "$results/bench.json" --csv "$results/bench.csv" \
  >"$results/bench.txt" 2>"$results/bench.err"
rc=$?
echo "zc bench (default): exit $rc, $((SECONDS - start)) s"
[ $rc -eq 0 ] || { status=1; cat "$results/bench.err"; }

start=$SECONDS
"$zc" bench --force --json "$results/bench-repeat.json" >"$results/bench-repeat.txt" \
  2>"$results/bench-repeat.err"
rc=$?
echo "zc bench (repeat): exit $rc, $((SECONDS - start)) s"
[ $rc -eq 0 ] || { status=1; cat "$results/bench-repeat.err"; }

# The comparison table, as the run printed it.
sed -n "/^The chapter's comparison/,/^  (transfer/p" "$results/bench.txt"

python3 - "$results/bench.json" "$results/bench-repeat.json" <<'PY' | tee "$results/bench-targets.txt"
import json, sys

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"cannot read {path}: {e}")
        return None

def points(doc, key):
    for c in (doc or {}).get("cases", []):
        if c["key"] == key and c["outcome"] == "ok":
            return c["points"]
    return []

def largest(doc, key):
    p = points(doc, key)
    return max(p, key=lambda x: x["bytes"])["stats"]["median"] if p else None

def best(doc, key):
    p = points(doc, key)
    if not p:
        return None, ""
    b = max(p, key=lambda x: x["stats"]["median"])
    return b["stats"]["median"], b["variant"]

def first_stats(doc, key):
    p = points(doc, key)
    return p[0]["stats"] if p else None

a, b = load(sys.argv[1]), load(sys.argv[2])
rows = []
def target(name, value, goal, higher=True, unit="GB/s"):
    if value is None:
        rows.append(f"  MISSING {name}: not measured")
        return
    ok = value >= goal if higher else value <= goal
    rel = ">=" if higher else "<="
    rows.append(f"  {'PASS' if ok else 'MISS'}    {name}: {value:.2f} {unit} (target {rel} {goal} {unit})")

target("pinned H2D", largest(a, "copy.h2d.pinned"), 55)
target("pinned D2H", largest(a, "copy.d2h.pinned"), 55)
target("pinned both directions, total", largest(a, "copy.bidir.pinned"), 100)
r16 = largest(a, "zerocopy.read.16b"); rt, rshape = best(a, "zerocopy.read.tune")
w16 = largest(a, "zerocopy.write.16b"); wt, wshape = best(a, "zerocopy.write.tune")
target("zero-copy read (default shape)", r16, 53)
target(f"zero-copy read (best shape: {rshape})", rt, 53)
target("zero-copy write (default shape)", w16, 53)
target(f"zero-copy write (best shape: {wshape})", wt, 53)
for key in ("latency.pingpong", "latency.pingpong.acquire"):
    s = first_stats(a, key)
    if s:
        target(f"{key} p50", s["median"], 2.3, higher=False, unit="us")
        rows.append(f"          {key}: p99 {s['p99']:.2f} us, p99.9 {s['p999']:.2f} us, max {s['max']:.2f} us")
    else:
        target(f"{key} p50", None, 2.3, higher=False, unit="us")
for key in ("copy.h2d.pageable", "copy.d2h.pageable"):
    p = points(a, key)
    if p:
        rows.append("  info    " + key + ": " + ", ".join(
            f"{x['bytes'] >> 10} KiB {x['stats']['median']:.1f}" for x in p) + " GB/s")

# Repeatability: every bandwidth point of 1 MiB or more measured in both runs.
worst, worst_name, n, beyond = 0.0, "", 0, []
if a and b:
    for c in a["cases"]:
        for p in c.get("points", []):
            if p["metric"] != "bandwidth" or p["bytes"] < (1 << 20):
                continue
            for q in points(b, c["key"]):
                if q["bytes"] == p["bytes"] and q["variant"] == p["variant"] and q.get("param") == p.get("param"):
                    x, y = p["stats"]["median"], q["stats"]["median"]
                    d = abs(x - y) / max(x, 1e-12)
                    n += 1
                    name = f"{c['key']} {p['bytes'] >> 20} MiB {p['variant']}".strip()
                    if d > worst:
                        worst, worst_name = d, name
                    if d > 0.03:
                        beyond.append(f"{name} {100 * d:.1f}%")
    headline = []
    for key in ("copy.h2d.pinned", "copy.d2h.pinned", "copy.bidir.pinned", "zerocopy.read.16b", "zerocopy.write.16b"):
        x, y = largest(a, key), largest(b, key)
        if x and y:
            headline.append(abs(x - y) / x)
    if headline:
        target("repeat, headline figures (worst difference)", 100 * max(headline), 3, higher=False, unit="%")
    rows.append(f"  info    repeat, all {n} bandwidth points >= 1 MiB: worst {100 * worst:.1f}% ({worst_name}); {len(beyond)} beyond 3%")
    for line in beyond[:15]:
        rows.append(f"          {line}")
for doc, name in ((a, "first"), (b, "repeat")):
    if doc:
        s = doc["summary"]
        rows.append(f"  info    {name} run: {doc['wall_seconds']:.0f} s, {s['cases']} cases: {s['ok']} ok, "
                    f"{s['skipped']} skipped, {s['fail']} FAIL, {s['error']} error")
print("zc bench targets (H200):")
print("\n".join(rows))
PY
exit $status
