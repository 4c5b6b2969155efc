#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: the block mover against a naive loop and against the copy ceiling. Runs
# `zc bench --case blocks,copy.bidir.pinned` (blocks.h2d, blocks.d2h, blocks.bidir: blocks
# scattered by index, moved by one cudaMemcpyAsync per block, by each engine forced and by the
# mover's choice; blocks.beside: a memory-bound kernel's loss beside each engine; and the
# both-directions pinned copy, whose best median is the ceiling), the mover's choice planned on
# the costs fitted to a first run of blocks.h2d,blocks.d2h,blocks.bidir (the one-way points and
# the ceiling both ways), and writes RESULTS_DIR/blocks/:
# profile.json (that first run), blocks.json, blocks.csv, blocks.txt (zc bench), blocks.md (a table per block size: naive,
# each engine, auto and its engine, one way each direction and both ways, both ways against
# the ceiling; the kernel's loss beside each engine; the targets, judged, not enforced) and
# blocks-summary.json (its rows). Fails (exit 1) when zc bench fails or any data came back
# wrong, never on a missed target; without a GPU (zc exits 3) the rows say "skipped".
#   bash scripts/bench.d/57-blocks.sh ZC_BINARY RESULTS_DIR
# ZC_BENCH_BLOCKS_MODE: quick, default (the default) or full; ZC_BENCH_BLOCKS_SIZES: a --sizes
# list of block sizes in place of the mode's; ZC_BENCH_BLOCKS_PROFILE: measured (the default)
# or placeholder (auto plans on the library's placeholder costs, no first run).
set -uo pipefail
usage="usage: 57-blocks.sh ZC_BINARY RESULTS_DIR"
zc=${1:?$usage}
results=${2:?$usage}
out=$results/blocks
if [ ! -x "$zc" ]; then
  echo "57-blocks: $zc is not an executable zc" >&2
  exit 1
fi
mode=${ZC_BENCH_BLOCKS_MODE:-default}
case $mode in
  quick | default | full) ;;
  *)
    echo "57-blocks: ZC_BENCH_BLOCKS_MODE is quick, default or full, not '$mode'" >&2
    exit 1
    ;;
esac
mkdir -p "$out"
rm -f "$out/profile.json"
status=0

# The ceiling at its own sizes (up to 256 MiB, or the mode's), the blocks at theirs: two runs,
# one document each, so that --sizes reaches the blocks alone.
run_zc() {
  local name=$1 rc start=$SECONDS
  shift
  local args=(bench --force --json "$out/$name.json" --csv "$out/$name.csv" "$@")
  [ "$mode" = default ] || args+=("--$mode")
  "$zc" "${args[@]}" >"$out/$name.txt" 2>"$out/$name.err"
  rc=$?
  echo "57-blocks: zc ${args[*]}: exit $rc, $((SECONDS - start)) s"
  case $rc in
    0) ;;
    3) echo "57-blocks: zc bench found no GPU: its rows are skipped" ;;
    *)
      status=1
      cat "$out/$name.err"
      ;;
  esac
  return $rc
}
sizes=()
[ -n "${ZC_BENCH_BLOCKS_SIZES:-}" ] && sizes=(--sizes "$ZC_BENCH_BLOCKS_SIZES")
# The mover plans on this machine's costs, as a user's would: the engines' one-way points
# measured first and fitted (zc bench --blocks-profile, the fit of zc advise --blocks), then the
# family with auto planning on them. ZC_BENCH_BLOCKS_PROFILE=placeholder keeps the library's
# placeholders; a quick run measures one size, which no fit rests on, so it keeps them too.
profile=()
if [ "${ZC_BENCH_BLOCKS_PROFILE:-measured}" = measured ] && [ "$mode" != quick ] &&
  run_zc profile --case blocks.h2d,blocks.d2h,blocks.bidir "${sizes[@]}"; then
  profile=(--blocks-profile "$out/profile.json")
fi
run_zc blocks --case blocks "${sizes[@]}" "${profile[@]}"
zc_rc=$?
ceiling_rc=3
if [ $zc_rc -ne 3 ]; then
  run_zc ceiling --case copy.bidir.pinned
  ceiling_rc=$?
fi

if ! python3 - "$out" "$zc_rc" "$ceiling_rc" <<'PY'; then
"""blocks.md and blocks-summary.json from zc's documents; exit 1 when a case FAILed or erred."""
import json
import os
import sys

out, zc_rc, ceiling_rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ENGINES = ("copy", "batch", "kernel")
DIRS = (("blocks.h2d", "to device"), ("blocks.d2h", "to host"), ("blocks.bidir", "both ways"))


def load(name):
    try:
        with open(f"{out}/{name}.json") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


doc, ceiling_doc = load("blocks"), load("ceiling")
cases = {c.get("key"): c for c in doc.get("cases", [])}
bad = [f"{k}: {c.get('outcome')}: {c.get('reason')}" for k, c in cases.items()
       if c.get("outcome") in ("FAIL", "error")]
for c in ceiling_doc.get("cases", []):
    if c.get("outcome") in ("FAIL", "error"):
        bad.append(f"{c.get('key')}: {c.get('outcome')}: {c.get('reason')}")
ceiling = max((p["stats"]["median"] for c in ceiling_doc.get("cases", [])
               if c.get("key") == "copy.bidir.pinned" and c.get("outcome") == "ok"
               for p in c.get("points", [])), default=0.0)


def why_not(case):
    if zc_rc == 3:
        return "skipped: no GPU (zc bench exit 3)"
    if case is None:
        return "skipped: not in zc's document"
    return f"{case.get('outcome')}: {case.get('reason')}"


def points(case):
    """{(block size, blocks): {way: (median, min, max, count)}}; auto's way keeps its engine.
    One way, zc bench measures each size at two counts: its move and a small one."""
    table = {}
    for p in (case or {}).get("points", []):
        way, count = p["variant"], int(p.get("param") or 0)
        table.setdefault((p["bytes"], count), {})[way] = (p["stats"]["median"], p["stats"]["min"],
                                                          p["stats"]["max"], count)
    return table


def by_size(table):
    """{block size: [(blocks, ways), ...]}, the largest move of a size first."""
    sized = {}
    for (b, count), t in table.items():
        sized.setdefault(b, []).append((count, t))
    return {b: sorted(rows, key=lambda r: -r[0]) for b, rows in sized.items()}


def fmt(v):
    return f"{v[0]:.2f} ({v[1]:.2f}..{v[2]:.2f})" if v else "not measured"


def size(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


rows, targets, md = [], [], ["# The block mover: blocks by each engine against a naive loop", ""]
md.append(f"Ceiling: zc bench's both-directions pinned copy, best median "
          f"{ceiling:.2f} GB/s." if ceiling > 0 else
          "Ceiling: not measured (copy.bidir.pinned did not run ok).")
md.append("Auto plans on " + ("the costs fitted to profile.json, this run's one-way points of each "
                              "engine (zc bench --blocks-profile)."
                              if os.path.exists(f"{out}/profile.json") else
                              "the library's placeholder costs."))
md.append("")
by_dir = {key: by_size(points(cases.get(key))) for key, _ in DIRS}
sizes = sorted({b for t in by_dir.values() for b in t})
for key, what in DIRS:
    c = cases.get(key)
    if c is None or c.get("outcome") != "ok":
        md += [f"{key}: {why_not(c)}", ""]
    elif c.get("reason"):
        md += [f"{key}: {c['reason']}", ""]
for b in sizes:
    md += [f"## Blocks of {size(b)}", "",
           "| move | blocks | naive | copy | batch | kernel | auto | auto / fastest | "
           "auto / naive | auto / ceiling |", "| --- " * 10 + "|"]
    for key, what, t, small in ((key, what, t, i > 0) for key, what in DIRS
                                for i, (_, t) in enumerate(by_dir[key].get(b, [(0, {})]))):
        auto = next(((w, v) for w, v in t.items() if w.startswith("auto")), (None, None))
        engines = [t[e][0] for e in ENGINES if e in t]
        fastest = max(engines, default=0.0)
        naive = t.get("naive")
        a = auto[1][0] if auto[1] else 0.0
        chosen = f"({auto[0].split(': ', 1)[-1]})" if auto[0] else ""
        count = next((v[3] for v in t.values()), 0)
        share = a / ceiling if key == "blocks.bidir" and ceiling > 0 and a > 0 else None
        md.append(f"| {what}{' (small move)' if small else ''} | {count} | {fmt(naive)} | "
                  + " | ".join(fmt(t.get(e)) for e in ENGINES)
                  + f" | {fmt(auto[1])}{' ' + chosen if chosen else ''} | "
                  + (f"{a / fastest:.2f}x" if fastest > 0 and a > 0 else "-") + " | "
                  + (f"{a / naive[0]:.2f}x" if naive and a > 0 else "-") + " | "
                  + (f"{share:.2f}x" if share is not None else "-") + " |")
        rows.append({"case": key, "block_bytes": b, "blocks": count, "auto": auto[0],
                     "gbps": {w: v[0] for w, v in t.items()}, "ceiling_share": share})
        if small:
            continue  # the targets are judged on the family's moves; small moves are shown
        if a > 0 and fastest > 0:
            targets.append((f"{what}, {size(b)}: auto >= 0.95x the fastest engine",
                            a / fastest >= 0.95, f"{a / fastest:.2f}x"))
        if a > 0 and naive and b <= 64 << 10:
            targets.append((f"{what}, {size(b)}: auto >= 2x the naive loop",
                            a / naive[0] >= 2.0, f"{a / naive[0]:.2f}x"))
        if share is not None and b >= 1 << 20:
            targets.append((f"both ways, {size(b)}: auto >= 0.9x the ceiling", share >= 0.9,
                            f"{share:.2f}x"))
    md.append("")

md += ["## A memory-bound kernel beside each engine (both ways)", ""]
c = cases.get("blocks.beside")
if c is None or c.get("outcome") != "ok":
    md += [f"blocks.beside: {why_not(c)}", ""]
else:
    md += [c.get("reason", ""), "", "| blocks | kernel alone GB/s | "
           + " | ".join(f"loss beside {e}" for e in ENGINES) + " |", "| --- " * 5 + "|"]
    for (b, _), t in sorted(points(c).items()):
        alone = t.get("compute alone", (0.0,))[0]
        loss = [f"{100 * (1 - t[f'compute beside {e}'][0] / alone):.1f} %"
                if alone > 0 and f"compute beside {e}" in t else "not measured" for e in ENGINES]
        md.append(f"| {size(b)} | {alone:.0f} | " + " | ".join(loss) + " |")
        rows.append({"case": "blocks.beside", "block_bytes": b,
                     "gbps": {w: v[0] for w, v in t.items()}})
    md.append("")

md += ["## Targets (judged, not enforced)", ""]
if not targets:
    md.append("not judged: " + (why_not(None) if zc_rc == 3 else "no figure to judge"))
for name, met, value in targets:
    md.append(f"- {name}: {value}, {'met' if met else 'missed'}")
md.append("")
with open(f"{out}/blocks.md", "w") as f:
    f.write("\n".join(md))
with open(f"{out}/blocks-summary.json", "w") as f:
    json.dump({"ceiling_gbps": ceiling, "rows": rows,
               "targets": [{"target": n, "met": m, "value": v} for n, m, v in targets]}, f,
              indent=1)
print(f"57-blocks: {out}/blocks.md: {sum(m for _, m, _ in targets)} of {len(targets)} "
      "targets met")
for line in bad:
    print(f"57-blocks: {line}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  status=1
fi
exit $status
