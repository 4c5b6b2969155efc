#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a small copy's duration on the GPU is, against what the host and the events see of it
# (bench/probes/copy_durations.cu), run under zc trace twice (synchronous copies only, then
# queued ones only) so that the trace's own duration of each copy (CUPTI) stands beside the
# probe's figures and beside what zc advise --trace predicts for those copies from this GPU's
# profile. Writes RESULTS_DIR/copy_durations/: {sync,async}.jsonl (the probe),
# {sync,async}.trace.json (zc trace), {sync,async}.advise.json (zc advise --trace) and
# copy_durations.md (one row per kind, direction, size and way).
#   bash 53-advise-copy-durations.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
# shellcheck source=scripts/probe-lib.sh
. "$(dirname "$0")/../probe-lib.sh"
probe_start copy_durations "$@" || exit 1
profile=$results/advise/profile.json
[ -s "$profile" ] || profile=$results/bench.json
status=0
for way in sync async; do
  "$zc" trace --force --json "$out/$way.trace.json" --output "$out/$way.summary.txt" \
    -- "$out/copy_durations" "$way" >"$out/$way.jsonl" 2>"$out/$way.err" ||
    { status=1; echo "FAILED: zc trace copy_durations $way"; tail -5 "$out/$way.err"; }
  if [ -s "$profile" ]; then
    "$zc" advise --trace "$out/$way.trace.json" --profile "$profile" --force \
      --json "$out/$way.advise.json" >"$out/$way.advise.txt" 2>&1 ||
      { status=1; echo "FAILED: zc advise --trace $way"; tail -5 "$out/$way.advise.txt"; }
  fi
done
rm -f "$out/copy_durations"
python3 - "$out" <<'PY' | tee "$out/copy_durations.md" || status=1
import json, os, sys
out = sys.argv[1]
print("Microseconds per copy. trace: zc trace's duration of each copy on the GPU (the class's "
      "time / count); event one: one copy between two events; event batch: 100 queued back to "
      "back between two events, per copy; host sync: cudaMemcpy on the host clock; predicted: "
      "zc advise --trace's copies_us / count for the group from this GPU's profile (medians of "
      "200 copies, 20 batches).\n")
print("| way | kind | dir | bytes | trace | event one | event batch | host sync | predicted |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for way in ("sync", "async"):
    try:
        probe = [json.loads(l) for l in open(os.path.join(out, way + ".jsonl")) if l.startswith("{")]
        trace = json.load(open(os.path.join(out, way + ".trace.json")))
    except (OSError, ValueError) as e:
        print("| %s | (missing: %s) |" % (way, e))
        continue
    advice = {}
    try:
        adv = json.load(open(os.path.join(out, way + ".advise.json")))
        for g in adv.get("groups", []):
            advice[(g.get("direction"), g.get("host_kind"), g.get("size_class"))] = g
    except (OSError, ValueError):
        pass
    classes = {}
    for c in trace.get("copy_classes", []):
        host = c["src_kind"] if c["direction"] == "h2d" else c["dst_kind"]
        classes[(c["direction"], host, int(c["size_class"]))] = c
    for p in probe:
        key = (p["direction"], p["kind"], p["bytes"])
        c = classes.get(key)
        g = advice.get(key)
        traced = "%.2f" % (c["time_s"] * 1e6 / c["count"]) if c else "-"
        pred = "%.2f" % (g["copies_us"] / g["count"]) if g and g.get("count") else "-"
        print("| %s | %s | %s | %d | %s | %.2f | %.2f | %.2f | %s |" % (
            way, p["kind"], p["direction"], p["bytes"], traced, p["event_one_us"],
            p["event_batch_us"], p["host_sync_us"], pred))
PY
exit "$status"
