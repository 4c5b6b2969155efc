#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: KV-cache blocks moved from PyTorch, by PyTorch alone and by zerocopy.Mover on this
# machine's measured profile. Runs `zc bench --case blocks.h2d,blocks.d2h,blocks.bidir` (the
# points the mover's profile is fitted to, and its ceiling both ways), fits the profile from
# Python (zerocopy.BlocksProfile), then
# bench/workloads/torch_kv_mover.py (index_select/index_copy_, a copy_ loop and the mover: auto
# on the placeholders, auto on the measured profile, each engine forced; every result's digest
# held to the sources') and bench/workloads/blocks_validate.py (random moves: auto's engine
# against every engine forced, with and without the profile), both with --profile that
# document. Writes RESULTS_DIR/blocks-torch/: bench-blocks.{json,txt} (zc bench),
# profile.json (the fitted costs), torch_kv_mover.jsonl, blocks_validate.jsonl (each script's
# lines, its stderr in .err), blocks-torch.md (the tables and the targets, judged, not
# enforced) and blocks-torch.json (their rows). Fails (exit 1) when zc bench, the fit or a
# script fails or a digest differs, never on a missed target; without a GPU or torch the rows
# say "skipped" and why.
#   bash scripts/bench.d/58-blocks-torch.sh ZC_BINARY RESULTS_DIR
# ZC_PYTHON: the interpreter (python3); ZC_BENCH_BLOCKS_TORCH_QUICK=1 passes --quick to
# torch_kv_mover.py and 20 moves to blocks_validate.py (a smoke test);
# ZC_BENCH_BLOCKS_TORCH_WORKLOADS: the random moves (100); ZC_BENCH_BLOCKS_TORCH_BENCH: a bench
# document to fit instead of measuring one (another run's bench-blocks.json);
# ZC_BENCH_BLOCKS_TORCH_BESIDE: the share of the random moves run beside a memory-bound kernel
# (blocks_validate.py --beside-share; none by default).
set -uo pipefail
usage="usage: 58-blocks-torch.sh ZC_BINARY RESULTS_DIR"
zc=${1:?$usage}
results=${2:?$usage}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -x "$zc" ]; then
  echo "58-blocks-torch: $zc is not an executable zc" >&2
  exit 1
fi
build=$(cd "$(dirname "$zc")/../.." && pwd)
lib=${LIBZEROCOPY_PATH:-$build/src/libzerocopy.so}
if [ ! -e "$lib" ]; then
  echo "58-blocks-torch: $lib is not built (or set LIBZEROCOPY_PATH)" >&2
  exit 1
fi
out=$results/blocks-torch
mkdir -p "$out"
python=${ZC_PYTHON:-python3}
export LIBZEROCOPY_PATH=$lib PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
# The workload scripts import their shared modules from their folder; no __pycache__ is left in
# the source tree.
export PYTHONDONTWRITEBYTECODE=1
status=0
quick=()
workloads=${ZC_BENCH_BLOCKS_TORCH_WORKLOADS:-100}
if [ "${ZC_BENCH_BLOCKS_TORCH_QUICK:-0}" = 1 ]; then
  quick=(--quick)
  workloads=${ZC_BENCH_BLOCKS_TORCH_WORKLOADS:-20}
fi

# The profile: zc bench's one-way block points in the default mode (four block sizes: the fit
# needs two or more, which --quick does not give), or a document given.
bench=$out/bench-blocks.json
zc_rc=0
if [ -n "${ZC_BENCH_BLOCKS_TORCH_BENCH:-}" ]; then
  cp "$ZC_BENCH_BLOCKS_TORCH_BENCH" "$bench" || status=1
  echo "58-blocks-torch: the profile from $ZC_BENCH_BLOCKS_TORCH_BENCH"
else
  start=$SECONDS
  cases=blocks.h2d,blocks.d2h,blocks.bidir
  "$zc" bench --force --case "$cases" --json "$bench" >"$out/bench-blocks.txt" \
    2>"$out/bench-blocks.err"
  zc_rc=$?
  echo "58-blocks-torch: zc bench --case $cases: exit $zc_rc, $((SECONDS - start)) s"
  case $zc_rc in
    0) ;;
    3) echo "58-blocks-torch: zc bench found no GPU: no measured profile" ;;
    *)
      status=1
      cat "$out/bench-blocks.err"
      ;;
  esac
fi

profile=()
if [ "$zc_rc" = 0 ] && [ -s "$bench" ]; then
  if "$python" - "$bench" "$out/profile.json" >"$out/profile.txt" 2>&1 <<'PY'; then
"""The measured profile fitted to the bench document, as the mover will plan with it."""
import dataclasses
import json
import sys

import zerocopy

p = zerocopy.BlocksProfile.from_bench(sys.argv[1])
costs = {d: {e: dataclasses.asdict(c) for e, c in getattr(p, d).items()}
         for d in ("to_device", "to_host")}
json.dump({"source": p.source, "measured": p.measured, "costs": costs,
           "kernel_sm_gbps": p.kernel_sm_gbps, "both_gbps": p.both_gbps,
           "batch_max": p.batch_max, "fit": p.fit},
          open(sys.argv[2], "w"), indent=1)
print(f"fitted: {p!r}")
PY
    profile=(--profile "$bench")
  else
    status=1
  fi
  echo "58-blocks-torch: the profile: $(tail -n 1 "$out/profile.txt")"
fi

# one NAME ARGS...: a workload script, its lines in NAME.jsonl and stderr in NAME.err; a row of
# runs.tsv with its exit code.
one() {
  local name=$1 rc start=$SECONDS
  shift
  timeout 900 "$python" "$root/bench/workloads/$name.py" "$@" >"$out/$name.jsonl" \
    2>"$out/$name.err"
  rc=$?
  printf '%s\t%s\n' "$name" "$rc" >>"$out/runs.tsv"
  echo "58-blocks-torch: $name${*:+ $*}: exit $rc, $((SECONDS - start)) s"
  case $rc in
    0) ;;
    3) echo "58-blocks-torch: $name: skipped: $(tail -n 1 "$out/$name.jsonl")" ;;
    *)
      status=1
      tail -n 20 "$out/$name.err"
      ;;
  esac
}
: >"$out/runs.tsv"
one torch_kv_mover "${quick[@]}" "${profile[@]}"
beside=()
if [ -n "${ZC_BENCH_BLOCKS_TORCH_BESIDE:-}" ]; then
  beside=(--beside-share "$ZC_BENCH_BLOCKS_TORCH_BESIDE")
fi
one blocks_validate --workloads "$workloads" "${profile[@]}" "${beside[@]}"

if ! python3 - "$out" <<'PY'; then
"""blocks-torch.md and blocks-torch.json from the scripts' lines; exit 1 when a digest differs
or a script's lines are missing."""
import json
import sys

out = sys.argv[1]
ENGINES = ("copy", "batch", "kernel")
runs = dict(line.rstrip("\n").split("\t") for line in open(f"{out}/runs.tsv"))
bad = [f"{name}: exit code {rc} (see {name}.err)" for name, rc in runs.items()
       if rc not in ("0", "3")]


def lines(name):
    found = []
    try:
        text = open(f"{out}/{name}.jsonl", errors="replace").read()
    except OSError:
        return found
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                found.append(json.loads(line))
            except ValueError:
                bad.append(f"{name}: a line that is not JSON: {line[:80]}")
    return found


def size(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def skipped(records, name):
    s = next((r["skipped"] for r in records if r.get("record") == "skipped"), None)
    if s is None and runs.get(name) == "3":
        s = "exit 3 without a reason line"
    return s


try:
    profile = json.load(open(f"{out}/profile.json"))
except (OSError, ValueError):
    profile = None
mover_lines, validate_lines = lines("torch_kv_mover"), lines("blocks_validate")
md = ["# KV-cache blocks from PyTorch: PyTorch alone against zerocopy.Mover", ""]
md += ["GB/s are the bytes a move carries (both directions counted) over the median of its "
       "timed runs, each run the wall time between two `torch.cuda.synchronize()` calls "
       "(bench/workloads/README.md).", ""]
summary = {"profile": profile, "comparisons": [], "validation": None, "targets": [],
           "failures": bad}
targets = []

md += ["## The measured profile", ""]
if profile is None:
    md += ["none: the ways marked measured did not run (no GPU, or zc bench or the fit failed: "
           "see profile.txt and bench-blocks.err)", ""]
else:
    fit = profile.get("fit") or {}
    lo, hi = fit.get("block_bytes", (0, 0))
    md += [f"Fitted by the library to `{profile['source']}` (blocks of {size(lo)} to "
           f"{size(hi)}, the kernel on {fit.get('sms')} SMs).", "",
           "| direction | engine | call us | block us | GB/s | points | worst error |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for d in ("to_device", "to_host"):
        for e in ENGINES:
            c, f = profile["costs"][d][e], fit.get(d, {}).get(e, {})
            md.append(f"| {d} | {e} | {c['call_us']:.2f} | {c['block_us']:.3f} | "
                      f"{c['gbps']:.2f} | {f.get('points', '-')} | "
                      f"{100 * f.get('worst', 0):.1f} % |")
    both = profile.get("both_gbps") or 0
    if both:
        md += ["", f"The copy engines' ceiling both ways: {both:.2f} GB/s (the fastest "
               "blocks.bidir point of the per-block copy or the batch)."]
    else:
        md += ["", "No ceiling both ways: the document has no blocks.bidir points."]
    md.append("")

md += ["## PyTorch alone against the mover (torch_kv_mover.py)", ""]
why = skipped(mover_lines, "torch_kv_mover")
comparisons = [r for r in mover_lines if r.get("record") == "comparison"]
if why:
    md += [f"skipped: {why}", ""]
elif not comparisons:
    bad.append("torch_kv_mover: no comparison lines")
    md += ["no results (see torch_kv_mover.err)", ""]
else:
    md += ["| blocks | count | direction | torch-index | torch-loop | mover-auto | "
           "mover-auto-measured | copy | batch | kernel | auto / best torch | "
           "measured / best torch | digests same? |", "| --- " * 13 + "|"]
    ways = {(r["block_bytes"], r["count"], r["direction"], r["way"]): r
            for r in mover_lines if r.get("record") == "way"}

    def cell(key, way):
        r = ways.get(key + (way,))
        if r is None:
            return "-"
        if "skipped" in r:
            return "unreachable"
        engine = f" ({r['engine']})" if way.startswith("mover-auto") else ""
        return f"{r['gbps']:.2f}{engine}"

    def ratio(c, auto):
        v = c.get(f"{auto}/best_torch")
        return "-" if v is None else f"{v:.2f}x"

    for c in comparisons:
        key = (c["block_bytes"], c["count"], c["direction"])
        md.append(f"| {size(c['block_bytes'])} | {c['count']} | {c['direction']} | "
                  + " | ".join(cell(key, w) for w in
                               ("torch-index", "torch-loop", "mover-auto", "mover-auto-measured",
                                "mover-copy", "mover-batch", "mover-kernel"))
                  + f" | {ratio(c, 'mover-auto')} | {ratio(c, 'mover-auto-measured')} | "
                  + f"{'yes' if c['digests_same'] else 'NO'} |")
        if not c["digests_same"]:
            bad.append(f"torch_kv_mover: {size(c['block_bytes'])} x{c['count']} "
                       f"{c['direction']}: the digests differ")
        summary["comparisons"].append(c)
    md.append("")
    # The mover as it is used: on the measured profile where there is one.
    auto = "mover-auto-measured" if any("mover-auto-measured/best_torch" in c
                                        for c in comparisons) else "mover-auto"
    faster = [c for c in comparisons if c.get(f"{auto}/best_torch", 0) > 1]
    slower = [f"{size(c['block_bytes'])} x{c['count']} {c['direction']} "
              f"{c.get(f'{auto}/best_torch', 0):.2f}x" for c in comparisons
              if c not in faster]
    targets.append((f"{auto} faster than index_select/index_copy_ and the copy_ loop in every "
                    "move", len(faster) == len(comparisons),
                    f"{len(faster)} of {len(comparisons)}"
                    + (f"; slower: {', '.join(slower)}" if slower else "")))
    same = sum(c["digests_same"] for c in comparisons)
    targets.append(("results identical to index_select/index_copy_ (digests)",
                    same == len(comparisons), f"{same} of {len(comparisons)}"))

md += ["## The choice over random moves (blocks_validate.py)", ""]
why = skipped(validate_lines, "blocks_validate")
final = next((r for r in validate_lines if r.get("record") == "summary"), None)
if why:
    md += [f"skipped: {why}", ""]
elif final is None:
    bad.append("blocks_validate: no summary line")
    md += ["no results (see blocks_validate.err)", ""]
else:
    summary["validation"] = final
    moves = [r for r in validate_lines if r.get("record") == "workload"]
    md += [f"{final['workloads']} moves (seed {final['seed']}); auto is right when the engine "
           f"it chose, forced, is within {100 * (final['within'] - 1):.0f}% of the fastest "
           "engine forced.", "",
           "| profile | right | judged | share | target (>= 90%) |",
           "| --- | ---: | ---: | ---: | --- |"]
    for name, what in (("auto", "placeholders"), ("auto-measured", "measured")):
        s = final.get(name)
        if s is None:
            md.append(f"| {what} | - | - | - | not run |")
            continue
        share = "-" if s["share"] is None else f"{100 * s['share']:.0f}%"
        md.append(f"| {what} | {s['right']} | {s['judged']} | {share} | "
                  f"{'met' if s['target_met'] else 'missed'} |")
        targets.append((f"validation on the {what} profile: auto's engine the fastest or "
                        f"within 10% in >= 90% of the moves", s["target_met"], share))
        for part, where in (("alone", "alone"), ("beside", "beside a memory-bound kernel")):
            if part in s:
                t = s[part]
                pshare = "-" if t["share"] is None else f"{100 * t['share']:.0f}%"
                md.append(f"| {what}, {where} | {t['right']} | {t['judged']} | {pshare} | "
                          f"{'met' if t['target_met'] else 'missed'} |")
    md.append("")
    misses = [r for r in moves for name in ("auto", "auto-measured")
              if name in r and not r[name]["right"]]
    if misses:
        md += ["Moves where a choice missed:", "",
               "| # | blocks | count | direction | fastest | profile | chosen | chosen / fastest |",
               "| ---: | --- | ---: | --- | --- | --- | --- | ---: |"]
        for r in moves:
            for name, what in (("auto", "placeholders"), ("auto-measured", "measured")):
                if name in r and not r[name]["right"]:
                    where = ", beside a kernel" if r.get("beside") else ""
                    md.append(f"| {r['index']} | {size(r['block_bytes'])} | {r['count']} | "
                              f"{r['direction']}{where} | {r['fastest']} | {what} | "
                              f"{r[name]['engine']} | {r[name]['chosen_over_fastest']:.2f}x |")
        md.append("")
    for f in final.get("failures", []):
        bad.append(f"blocks_validate: {f}")

md += ["## Targets (judged, not enforced)", ""]
if not targets:
    md.append("not judged: nothing ran")
for name, met, value in targets:
    md.append(f"- {name}: {value}, {'met' if met else 'missed'}")
summary["targets"] = [{"target": n, "met": m, "value": v} for n, m, v in targets]
if bad:
    md += ["", "## FAILED", ""] + [f"- {b}" for b in bad]
md.append("")
with open(f"{out}/blocks-torch.md", "w") as f:
    f.write("\n".join(md))
with open(f"{out}/blocks-torch.json", "w") as f:
    json.dump(summary, f, indent=1)
print(f"58-blocks-torch: {out}/blocks-torch.md: {sum(m for _, m, _ in targets)} of "
      f"{len(targets)} targets met")
for line in bad:
    print(f"58-blocks-torch: {line}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  status=1
fi
exit $status
