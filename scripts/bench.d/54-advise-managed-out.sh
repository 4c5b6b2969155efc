#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What one managed transfer of results out costs by what happens between transfers
# (bench/probes/managed_out.cu): the buffer of the size exactly or the start of a 64 MiB one, the
# CPU reading every result word after each transfer or none. Writes
# RESULTS_DIR/managed_out/{managed_out.jsonl,managed_out.md}.
#   bash 54-advise-managed-out.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
# shellcheck source=scripts/probe-lib.sh
. "$(dirname "$0")/../probe-lib.sh"
probe_start managed_out "$@" || exit 1
probe_run "${ZC_MANAGED_OUT_REPS:-30}"
python3 - "$out" <<'PY' | tee "$out/managed_out.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/managed_out.jsonl") if l.strip()]
keys = ["exact_untouched_us", "exact_read_us", "slice_untouched_us", "slice_read_us"]
print("Median microseconds per transfer (prefetch to the GPU, a kernel's write, prefetch back, "
      "one synchronisation). exact: a buffer of the size; slice: the start of a 64 MiB buffer; "
      "read: the CPU reads every word after each transfer.\n")
print("| bytes | " + " | ".join(k[:-3] for k in keys) + " |")
print("| ---: |" + " ---: |" * len(keys))
for r in rows:
    print("| %d | " % r["bytes"] + " | ".join("%.1f" % r[k] for k in keys) + " |")
PY
exit "$status"
