#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc advise --trace held to what the traces measured: every trace document 45-trace-corpus.sh
# left (public programs nobody on this project wrote) advised from this GPU's profile (50-advise's
# saved one, else 20-bench's), and each group's predicted time for its copies as they are
# (copies_us) set against the time the trace measured for them (measured_us).
# Writes RESULTS_DIR/advise-trace/: <program>.json (zerocopy.advise-trace/1) and .txt per
# program, and advise-trace.md (one row per group, the error, and the count within 25%).
#   bash 55-advise-trace.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 55-advise-trace.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 55-advise-trace.sh ZC_BINARY RESULTS_DIR}
out=$results/advise-trace
mkdir -p "$out"
profile=$results/advise/profile.json
[ -s "$profile" ] || profile=$results/bench.json
if [ ! -s "$profile" ]; then
  echo "55-advise-trace: SKIP: no profile ($results/advise/profile.json or bench.json)" |
    tee "$out/SKIPPED.txt"
  exit 0
fi
status=0
for trace in "$results"/trace-corpus/*.json; do
  name=$(basename "$trace" .json)
  [ "$name" = corpus ] && continue
  "$zc" advise --trace "$trace" --profile "$profile" --force --json "$out/$name.json" \
    >"$out/$name.txt" 2>"$out/$name.err" || { status=1; echo "FAILED: $name"; tail -3 "$out/$name.err"; }
done
python3 - "$out" "$results/trace-corpus/corpus.json" <<'PY' | tee "$out/advise-trace.md" || status=1
import glob, json, os, sys
out, corpus = sys.argv[1], sys.argv[2]
where = {}
try:
    for p in json.load(open(corpus))["programs"]:
        where[p["program"]] = "%s: `%s` %s" % (p["repository"], p["path"], p["arguments"])
except (OSError, ValueError, KeyError):
    pass
print("Each group: the copies of one direction, host memory kind and power-of-two size class;"
      " predicted = the profile's price of those copies as they are (copies_us), measured = the"
      " trace's sum of their GPU durations. Error = (predicted - measured) / measured.\n")
print("| program | group | copies | predicted | measured | error | best | saving |")
print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |")
within = total = 0
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(path)[:-5]
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        print("| %s | (no document) | | | | | | |" % name)
        continue
    for g in doc["groups"]:
        m, c = g["measured_us"], g["copies_us"]
        err = (c - m) / m if m > 0 else float("nan")
        total += 1
        within += abs(err) <= 0.25
        print("| %s | %s %s %d B (%d..%d) | %d | %.1f us | %.1f us | %+.0f%% | %s | %.1f us |" % (
            where.get(name, name), g["direction"], g["host_kind"], g["size_class"],
            g["bytes_min"], g["bytes_max"], g["count"], c, m, 100 * err, g["best"],
            g["saving_us"]))
    for u in doc.get("unpriced", []):
        print("| %s | unpriced: %s | %d | | | | | %s |" % (where.get(name, name), u["what"],
                                                          u["count"], u["why"]))
print("\n%d of %d groups predicted within 25%% of the traced time." % (within, total))
PY
exit $status
