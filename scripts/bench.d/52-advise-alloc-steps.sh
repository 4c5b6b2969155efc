#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What one allocation costs by what ran before it in the process (bench/probes/alloc_steps.cu):
# the first of its kind, again after a free, after device memory, a stream or a kernel came and
# went, after an idle pause, with another alive, and warm; per kind and size, one process each.
# Writes RESULTS_DIR/alloc_steps/{alloc_steps.jsonl,alloc_steps.md}.
#   bash 52-advise-alloc-steps.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
# shellcheck source=scripts/probe-lib.sh
. "$(dirname "$0")/../probe-lib.sh"
probe_start alloc_steps "$@" || exit 1
status=0
: >"$out/alloc_steps.jsonl"
for kind in pinned mapped register managed device; do
  for bytes in 4096 65536 1048576 4194304 16777216 67108864; do
    "$out/alloc_steps" "$kind" "$bytes" >>"$out/alloc_steps.jsonl" || status=1
  done
done
rm -f "$out/alloc_steps"
python3 - "$out" <<'PY' | tee "$out/alloc_steps.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/alloc_steps.jsonl") if l.strip()]
keys = ["first_us", "again_us", "after_device_free_us", "after_stream_us", "after_kernel_us",
        "after_sleep_us", "second_live_us", "warm_median_us", "warm_max_us"]
print("Microseconds per allocation (host clock around the call), one process per row.\n")
print("| kind | bytes | " + " | ".join(k[:-3] for k in keys) + " |")
print("| --- | ---: |" + " ---: |" * len(keys))
for r in rows:
    print("| %s | %d | " % (r["kind"], r["bytes"]) + " | ".join("%.1f" % r[k] for k in keys) + " |")
PY
exit "$status"
