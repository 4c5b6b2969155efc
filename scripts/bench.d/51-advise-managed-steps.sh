#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What one managed-memory transfer costs, step by step, from 4 KiB to 256 MiB
# (bench/probes/managed_steps.cu): the CPU's writes into pages the GPU holds, each prefetch,
# the kernel, and the whole transfer queued as zc advise's runner queues it; every result
# checked. Writes RESULTS_DIR/managed_steps/{managed_steps.jsonl,managed_steps.md}.
#   bash 51-advise-managed-steps.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
# shellcheck source=scripts/probe-lib.sh
. "$(dirname "$0")/../probe-lib.sh"
probe_start managed_steps "$@" || exit 1
probe_run "${ZC_MANAGED_STEPS_REPS:-30}"
python3 - "$out" <<'PY' | tee "$out/managed_steps.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/managed_steps.jsonl") if l.strip()]
keys = ["cpu_touch_us", "prefetch_in_us", "prefetch_out_to_gpu_us", "kernel_us",
        "prefetch_back_us", "whole_h2d_us", "whole_d2h_us", "whole_both_us"]
print("Medians in microseconds; each step timed alone includes one stream synchronisation.\n")
print("| bytes | " + " | ".join(k[:-3] for k in keys) + " |")
print("| ---: |" + " ---: |" * len(keys))
for r in rows:
    if "bytes" in r:
        print("| %d | " % r["bytes"] + " | ".join("%.1f" % r[k] for k in keys) + " |")
    else:
        print("\n" + json.dumps(r))
PY
exit "$status"
