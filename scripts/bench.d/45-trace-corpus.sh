#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: zc trace on public CUDA programs nobody on this project wrote. Each program listed
# in tests/trace/corpus-expected.tsv is built from its copied source (.deps/trace-corpus/, not
# committed; skipped with the reason when absent), run under zc trace --json, and its findings
# held against the verdict written there from reading its source. Writes into
# RESULTS_DIR/trace-corpus/: <name>.json and <name>.summary.txt per program, corpus.json (schema
# zerocopy.trace-corpus/1, docs/json.md) and corpus.md (the table, for people).
#   bash scripts/bench.d/45-trace-corpus.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 45-trace-corpus.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 45-trace-corpus.sh ZC_BINARY RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$root/tests/trace/corpus-expected.tsv
corpus=$root/.deps/trace-corpus
out=$results/trace-corpus
mkdir -p "$out"
if [ ! -d "$corpus" ]; then
  echo "45-trace-corpus: SKIP: $corpus is absent (the copied public sources travel with the" \
    "working tree; see tests/trace/corpus-expected.tsv)" | tee "$out/SKIPPED.txt"
  exit 0
fi
# The compiler, the build of each program and the table's rows: shared with 46-run-corpus.sh.
# shellcheck source=../corpus-lib.sh
. "$root/scripts/corpus-lib.sh"

# All builds at once, then the runs one by one.
build_all

while IFS=$'\t' read -r name tree repo path extra args expected what; do
  [ "$args" = - ] && args=
  dir=$corpus/$tree
  src=$dir/$path
  rc=-
  if [ ! -f "$src" ]; then
    outcome="source missing ($src)"
  else
    if [ "$(cat "$out/$name.build.rc" 2>/dev/null)" != 0 ]; then
      outcome="build failed (see $name.build.txt)"
    else
      # shellcheck disable=SC2086 # the arguments are words of the table
      timeout 600 "$zc" trace --force --json "$out/$name.json" --output "$out/$name.summary.txt" \
        -- "$bin/$name" $args >"$out/$name.stdout.txt" 2>"$out/$name.stderr.txt"
      rc=$?
      outcome=ran
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$repo" "$path" "$args" "$expected" \
    "$what" "$rc" "$outcome" >>"$out/rows.tsv"
done < <(rows)

# The table and the document: found against expected, mechanically. A key marked "?" in the
# expected column may appear or not (it rests on a time the machine decides).
python3 - "$out" <<'PY' || status=1
import json, os, sys
out = sys.argv[1]
rows, right = [], 0
for line in open(os.path.join(out, "rows.tsv")):
    name, repo, path, args, expected, what, rc, outcome = line.rstrip("\n").split("\t")
    args = "" if args == "-" else args
    want = set() if expected == "none" else {k for k in expected.split(",") if not k.endswith("?")}
    maybe = {k[:-1] for k in expected.split(",") if k.endswith("?")}
    doc, found, traced = None, None, False
    try:
        doc = json.load(open(os.path.join(out, name + ".json")))
        found = [f["key"] for f in doc.get("findings", [])]
        traced = bool(doc.get("traced"))
    except (OSError, ValueError):
        pass
    if outcome != "ran":
        verdict = outcome
    elif rc != "0":
        verdict = "program exited %s" % rc
    elif not traced:
        verdict = "not traced: %s" % (doc or {}).get("why_not_traced", "no JSON")
    else:
        got = set(found)
        missed, extra = want - got, got - want - maybe
        verdict = "right" if not missed and not extra else "wrong" + (
            " (missed %s)" % ",".join(sorted(missed)) if missed else "") + (
            " (false %s)" % ",".join(sorted(extra)) if extra else "")
    right += verdict == "right"
    rows.append({"program": name, "repository": repo, "path": path, "arguments": args,
                 "what": what, "expected": sorted(want), "tolerated": sorted(maybe),
                 "found": found, "exit_code": None if rc == "-" else int(rc),
                 "verdict": verdict,
                 "evidence": {f["key"]: f["evidence"] for f in (doc or {}).get("findings", [])}})
json.dump({"schema": "zerocopy.trace-corpus/1", "programs": rows, "right": right,
           "total": len(rows)}, open(os.path.join(out, "corpus.json"), "w"), indent=2)
with open(os.path.join(out, "corpus.md"), "w") as md:
    md.write("| program | source (repository: path) | what it does | zc trace reported | "
             "expected | verdict |\n| --- | --- | --- | --- | --- | --- |\n")
    for r in rows:
        md.write("| %s | %s: `%s` %s | %s | %s | %s | %s |\n" % (
            r["program"], r["repository"], r["path"], r["arguments"], r["what"],
            ", ".join(r["found"]) if r["found"] else "(none)",
            ", ".join(r["expected"] + [k + "?" for k in r["tolerated"]]) or "(none)",
            r["verdict"]))
    md.write("\n%d of %d right.\n" % (right, len(rows)))
print(open(os.path.join(out, "corpus.md")).read())
sys.exit(0 if right == len(rows) else 1)
PY
exit $status
