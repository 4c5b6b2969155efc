#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: zc run on public CUDA programs nobody on this project wrote: the programs of zc
# trace's corpus (tests/trace/corpus-expected.tsv, sources copied under .deps/trace-corpus/,
# not committed; skipped with the reason when absent), each run uncured and then cured, its
# exit code, its stdout (exactly, and with every number masked, since many print timings), its
# wall time both ways and what each cure did. Writes RESULTS_DIR/run-corpus/: <name>.report.json
# per program, run-corpus.json (schema zerocopy.run-corpus/1) and run-corpus.md (the table).
#   bash scripts/bench.d/46-run-corpus.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 46-run-corpus.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 46-run-corpus.sh ZC_BINARY RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$root/tests/trace/corpus-expected.tsv
corpus=$root/.deps/trace-corpus
out=$results/run-corpus
mkdir -p "$out"
if [ ! -d "$corpus" ]; then
  echo "46-run-corpus: SKIP: $corpus is absent (the copied public sources travel with the" \
    "working tree; see tests/trace/corpus-expected.tsv)" | tee "$out/SKIPPED.txt"
  exit 0
fi
# shellcheck source=../corpus-lib.sh
. "$root/scripts/corpus-lib.sh"
build_all

# timed NAME WHICH CMD...: run CMD with stdout in NAME.WHICH.stdout.txt; its rc, start and end
# (seconds) in NAME.WHICH.rc.
timed() {
  local name=$1 which=$2
  shift 2
  local start=$EPOCHREALTIME rc
  timeout 600 "$@" >"$out/$name.$which.stdout.txt" 2>"$out/$name.$which.stderr.txt"
  rc=$?
  echo "$rc $start $EPOCHREALTIME" >"$out/$name.$which.rc"
}

while IFS=$'\t' read -r name tree repo path extra args expected what; do
  [ "$args" = - ] && args=
  outcome=ran
  if [ ! -f "$corpus/$tree/$path" ]; then
    outcome="source missing"
  elif [ "$(cat "$out/$name.build.rc" 2>/dev/null)" != 0 ]; then
    outcome="build failed (see $name.build.txt)"
  else
    # shellcheck disable=SC2086 # the arguments are words of the table
    timed "$name" uncured "$bin/$name" $args
    # shellcheck disable=SC2086
    timed "$name" cured "$zc" run --force --report "$out/$name.report.json" -- "$bin/$name" $args
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$repo" "$path" "${args:--}" "$expected" \
    "$what" "$outcome" >>"$out/rows.tsv"
done < <(rows)

python3 - "$out" <<'PY' || status=1
import json, os, re, sys
out = sys.argv[1]
def read(path):
    try:
        return open(path, errors="replace").read()
    except OSError:
        return None
def masked(text):
    # A number and the spaces before it (printf pads measured figures to a width).
    return re.sub(r" *[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?", " #", text or "")
rows, ok = [], 0
for line in open(os.path.join(out, "rows.tsv")):
    name, repo, path, args, expected, what, outcome = line.rstrip("\n").split("\t")
    row = {"program": name, "repository": repo, "path": path,
           "arguments": "" if args == "-" else args, "trace_findings": expected, "what": what,
           "outcome": outcome}
    if outcome == "ran":
        (urc, us, ue), (crc, cs, ce) = [open(os.path.join(out, f"{name}.{w}.rc")).read().split()
                                        for w in ("uncured", "cured")]
        u, c = (read(os.path.join(out, f"{name}.{w}.stdout.txt")) for w in ("uncured", "cured"))
        report = json.loads(read(os.path.join(out, name + ".report.json")) or "{}")
        cured = {k["name"]: k for k in report.get("counters", []) if k["calls"]}
        row.update({"exit_uncured": int(urc), "exit_cured": int(crc),
                    "seconds_uncured": float(ue) - float(us), "seconds_cured": float(ce) - float(cs),
                    "stdout_identical": u == c, "stdout_identical_numbers_masked": masked(u) == masked(c),
                    "counters": {k: {"calls": v["calls"], "bytes": v["bytes"], "seconds": v["seconds"],
                                     "uncured_seconds": v["uncured_seconds"], "pricing": v["pricing"]}
                                 for k, v in cured.items()}})
        row["verdict"] = ("same exit code" if urc == crc else f"EXIT CODE CHANGED {urc} -> {crc}")
        good = urc == crc and row["stdout_identical_numbers_masked"]
        ok += good
    rows.append(row)
json.dump({"schema": "zerocopy.run-corpus/1", "programs": rows, "same": ok, "total": len(rows)},
          open(os.path.join(out, "run-corpus.json"), "w"), indent=2)
with open(os.path.join(out, "run-corpus.md"), "w") as md:
    md.write("| program | source | zc trace found | cured by zc run | wall s uncured | cured | "
             "exit | stdout |\n| --- | --- | --- | --- | ---: | ---: | --- | --- |\n")
    for r in rows:
        if r["outcome"] != "ran":
            md.write(f"| {r['program']} | {r['repository']}: `{r['path']}` | {r['trace_findings']} "
                     f"| {r['outcome']} | | | | |\n")
            continue
        cures = ", ".join(f"{k} {v['calls']:g}" for k, v in r["counters"].items()) or "(nothing)"
        same = ("identical" if r["stdout_identical"] else
                "identical but numbers" if r["stdout_identical_numbers_masked"] else "DIFFERS")
        md.write(f"| {r['program']} | {r['repository']}: `{r['path']}` {r['arguments']} | "
                 f"{r['trace_findings']} | {cures} | {r['seconds_uncured']:.2f} | "
                 f"{r['seconds_cured']:.2f} | {r['verdict']} | {same} |\n")
    md.write(f"\n{ok} of {len(rows)} programs: same exit code and same output (numbers masked).\n")
print(open(os.path.join(out, "run-corpus.md")).read())
sys.exit(0 if ok == sum(r["outcome"] == "ran" for r in rows) else 1)
PY
exit $status
