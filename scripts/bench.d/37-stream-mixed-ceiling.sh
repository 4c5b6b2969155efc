#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the link gives two engines at once (bench/probes/mixed_ceiling.cu): SM reads of mapped
# memory, copy-engine device-to-host copies and SM writes of mapped memory, alone and in the
# pairs the stream's modes make (hybrid: SM read + CE d2h; zerocopy: SM read + SM write), each
# figure checked. Writes RESULTS_DIR/mixed_ceiling/{mixed_ceiling.jsonl,mixed_ceiling.md}.
#   bash 37-stream-mixed-ceiling.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
# shellcheck source=scripts/probe-lib.sh
. "$(dirname "$0")/../probe-lib.sh"
probe_start mixed_ceiling "$@" || exit 1
probe_run 256 9
python3 - "$out" <<'PY' | tee "$out/mixed_ceiling.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/mixed_ceiling.jsonl") if l.strip()]
print("| run | SM read | CE d2h | SM write | together (GB/s) |")
print("| --- | ---: | ---: | ---: | ---: |")
for r in rows:
    if "run" not in r:
        print("\nchecks failed: %d" % r["checks_failed"])
        continue
    f = lambda k: "%.2f" % r[k] if k in r else "-"
    print("| %s | %s | %s | %s | %s |" % (r["run"], f("sm_read_gbps"), f("ce_d2h_gbps"),
                                          f("sm_write_gbps"), f("together_gbps")))
PY
exit "$status"
