#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: framework code as people write it, cured by zc run, beside the same code fixed by
# hand. Each workload of bench/workloads/ (PyTorch, JAX, CuPy; README.md there) runs as written,
# as written under `zc run`, and hand-fixed, the three alternated, three times each; every run
# prints one JSON line with its median rate and the digest of its result. Writes
# RESULTS_DIR/frameworks/: frameworks.jsonl (every run, with its version, whether it was cured,
# its exit code and the cured runs' counters), frameworks.md (the table: medians over the three
# runs of each; the targets judged, not enforced: cured >= 0.8x hand-fixed and >= 0.95x
# as written; every cured run's counters), frameworks-summary.json (the table's rows and the
# failures), <workload>.<run>.{stdout,stderr}.txt and the cured runs' --report files. Fails
# (exit 1) when a run fails or when the digests of a workload's runs differ, never on a missed
# target; a workload whose framework or GPU is missing is a row saying so.
#   bash scripts/bench.d/48-frameworks.sh ZC_BINARY RESULTS_DIR
# ZC_PYTHON: the interpreter (python3 by default); ZC_BENCH_FRAMEWORKS_QUICK=1 passes --quick (a
# smoke test); ZC_BENCH_FRAMEWORKS_REPEATS (3) and ZC_BENCH_FRAMEWORKS_ONLY (workload names)
# narrow a run; ZC_BENCH_FRAMEWORKS_FIX is the cured runs' --fix (zc run's default cures when
# unset: `all` adds those applied only when named, such as fresh, whose settings, like
# ZC_RUN_FRESH_HUGE, pass through the environment).
set -uo pipefail
zc=${1:?usage: 48-frameworks.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 48-frameworks.sh ZC_BINARY RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
workloads_dir=$root/bench/workloads
python=${ZC_PYTHON:-python3}
out=$results/frameworks
mkdir -p "$out"
runs=$out/runs.tsv
: >"$runs"
if [ ! -x "$zc" ]; then
  echo "48-frameworks: $zc is not an executable zc" >&2
  exit 1
fi
# The workload scripts import their shared modules from their folder; no __pycache__ is left in
# the source tree.
export PYTHONDONTWRITEBYTECODE=1

workloads=${ZC_BENCH_FRAMEWORKS_ONLY:-torch_weights_to_gpu torch_checkpoint_to_host \
torch_dataloader torch_kv_blocks torch_small_steps jax_transfers cupy_transfers}
quick=()
[ "${ZC_BENCH_FRAMEWORKS_QUICK:-0}" = 1 ] && quick=(--quick)
fix=()
[ -n "${ZC_BENCH_FRAMEWORKS_FIX:-}" ] && fix=(--fix "$ZC_BENCH_FRAMEWORKS_FIX")
repeats=$(seq 1 "${ZC_BENCH_FRAMEWORKS_REPEATS:-3}")

# one WORKLOAD VERSION MODE REPEAT: one run of a workload script, its stdout and stderr kept in
# files named for it, a row of runs.tsv saying where they are, its exit code and its wall time.
one() {
  local workload=$1 version=$2 mode=$3 repeat=$4
  local name=$workload.$version.$mode.$repeat
  local report=$out/$name.report.json
  local cmd=("$python" "$workloads_dir/$workload.py" --version "$version" "${quick[@]}")
  [ "$mode" = cured ] && cmd=("$zc" run -q "${fix[@]}" --force --report "$report" -- "${cmd[@]}")
  local start=$EPOCHREALTIME rc
  timeout 180 "${cmd[@]}" >"$out/$name.stdout.txt" 2>"$out/$name.stderr.txt"
  rc=$?
  [ "$mode" = cured ] || report=-
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$workload" "$version" "$mode" "$repeat" "$rc" \
    "$start" "$EPOCHREALTIME" "$report" >>"$runs"
  printf '48-frameworks: %-26s %-10s %-7s #%s rc=%s\n' "$workload" "$version" "$mode" \
    "$repeat" "$rc"
}

for workload in $workloads; do
  if [ ! -f "$workloads_dir/$workload.py" ]; then
    echo "48-frameworks: no workload $workloads_dir/$workload.py" >&2
    exit 1
  fi
  for repeat in $repeats; do
    one "$workload" as-written plain "$repeat"
    # A workload that skips (its framework or a GPU missing) says so on its first run: its
    # other runs would say the same.
    if grep -q '"skipped"' "$out/$workload.as-written.plain.$repeat.stdout.txt"; then
      break
    fi
    one "$workload" as-written cured "$repeat"
    one "$workload" hand-fixed plain "$repeat"
  done
done

python3 - "$out" "$runs" <<'PY'
"""frameworks.jsonl and frameworks.md from the runs' files; exit 1 on a failed run or digests that
differ within a workload."""
import json
import statistics
import sys

out, runs_path = sys.argv[1], sys.argv[2]
rows, failures = [], []
for fields in (line.rstrip("\n").split("\t") for line in open(runs_path)):
    workload, version, mode, repeat, rc, start, end, report = fields
    name = f"{workload}.{version}.{mode}.{repeat}"
    row = {"workload": workload, "version": version, "cured": mode == "cured",
           "repeat": int(repeat), "exit_code": int(rc),
           "wall_seconds": round(float(end) - float(start), 3)}
    lines = [x for x in open(f"{out}/{name}.stdout.txt", errors="replace")
             if x.startswith("{")]
    try:
        row["result"] = json.loads(lines[-1]) if lines else None
    except ValueError:
        row["result"] = None
    if report != "-":
        try:
            rep = json.load(open(report))
            row["report"] = {"cured": rep.get("cured"), "why_not": rep.get("why_not"),
                             "counters": [{k: c.get(k) for k in ("name", "calls", "bytes",
                                                                  "seconds", "uncured_seconds")}
                                          for c in rep.get("counters", []) if c.get("calls")]}
        except (OSError, ValueError) as error:
            row["report"] = {"error": str(error)}
    result = row["result"]
    if row["exit_code"] != 0 or result is None or (
            "skipped" not in result and ("digest" not in result or "gbps" not in result)):
        failures.append(f"{name}: exit code {rc}, "
                        f"{'no JSON line' if result is None else 'an incomplete JSON line'} "
                        f"(see {name}.stderr.txt)")
    rows.append(row)

with open(f"{out}/frameworks.jsonl", "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")


def median_gbps(runs):
    rates = [r["result"]["gbps"] for r in runs if r["result"] and "gbps" in r["result"]]
    return statistics.median(rates) if rates else None


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


table = ["| workload | as written GB/s | cured GB/s | hand-fixed GB/s | cured/fixed | "
         "cured/as-written | digests same? |", "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
counters, fixes, targets, summary = [], [], [], []
for workload in dict.fromkeys(r["workload"] for r in rows):
    mine = [r for r in rows if r["workload"] == workload]
    skipped = [r["result"]["skipped"] for r in mine if r["result"] and "skipped" in r["result"]]
    if skipped and len(skipped) == len(mine):
        table.append(f"| {workload} | skipped: {skipped[0]} | | | | | |")
        continue
    if skipped:
        failures.append(f"{workload}: some runs skipped ({skipped[0]}) and others did not")
    plain = median_gbps([r for r in mine if r["version"] == "as-written" and not r["cured"]])
    cured = median_gbps([r for r in mine if r["cured"]])
    fixed = median_gbps([r for r in mine if r["version"] == "hand-fixed"])
    digests = {r["result"].get("digest") for r in mine if r["result"]}
    same = len(digests) == 1 and None not in digests
    if not same:
        failures.append(f"{workload}: the runs' digests differ: {sorted(map(str, digests))}")
    over_fixed, over_plain = ratio(cured, fixed), ratio(cured, plain)
    table.append(f"| {workload} | {fmt(plain)} | {fmt(cured)} | {fmt(fixed)} | "
                 f"{fmt(over_fixed)} | {fmt(over_plain)} | {'yes' if same else 'NO'} |")
    for what, value, bound in (("cured >= 0.8x hand-fixed", over_fixed, 0.8),
                               ("cured >= 0.95x as written", over_plain, 0.95)):
        verdict = "not measured" if value is None else "met" if value >= bound else "missed"
        targets.append(f"- {workload}: {what}: {fmt(value)}x, {verdict}")
    summary.append({"workload": workload, "as_written_gbps": plain, "cured_gbps": cured,
                    "hand_fixed_gbps": fixed, "cured_over_fixed": over_fixed,
                    "cured_over_as_written": over_plain, "digests_same": same})
    fix = next((r["result"].get("hand_fix") for r in mine
                if r["version"] == "hand-fixed" and r["result"]), None)
    if fix:
        fixes.append(f"- {workload}: {fix}")
    for r in mine:
        if not r["cured"]:
            continue
        rep = r.get("report") or {}
        if "error" in rep:
            text = f"no report: {rep['error']}"
        elif not rep.get("counters"):
            text = f"nothing counted (cured: {rep.get('cured')}, why not: {rep.get('why_not')})"
        else:
            text = ", ".join(f"{c['name']} {c['calls']} calls {(c['bytes'] or 0) / 1e6:.1f} MB"
                             for c in rep["counters"])
        counters.append(f"- {workload} #{r['repeat']}: {text}")

md = ["# Framework code as written, cured by zc run, and fixed by hand", "",
      "Medians over the runs of each (each run's own figure is the median of its timed runs); "
      "GB/s is every byte a run's timed phases move over its seconds "
      "(bench/workloads/README.md).", ""] + table
md += ["", "## Targets (judged, not enforced)", ""] + targets
md += ["", "## The hand fixes", ""] + fixes
md += ["", "## What zc run did in each cured run (counters with calls)", ""] + counters
if failures:
    md += ["", "## FAILED", ""] + [f"- {f}" for f in failures]
open(f"{out}/frameworks.md", "w").write("\n".join(md) + "\n")
with open(f"{out}/frameworks-summary.json", "w") as f:
    json.dump({"workloads": summary, "failures": failures}, f, indent=1)
    f.write("\n")
print("\n".join(md))
sys.exit(1 if failures else 0)
PY
