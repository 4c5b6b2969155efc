#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: zc trace on the planted-pitfall programs (each must show its finding, the clean
# one none), zc trace on a few pitfall demonstrations, and every demonstration of
# docs/pitfalls.md with its figure. Writes into RESULTS_DIR/trace/: one JSON and one summary per
# traced program, demos.json (one object per demonstration) and trace.txt (everything, for
# people).
#   bash scripts/bench.d/40-trace.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 40-trace.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 40-trace.sh ZC_BINARY RESULTS_DIR}
build=$(cd "$(dirname "$zc")/../.." && pwd)
bin=$build/tests/trace
demos=$bin/trace_pitfall_demos
if [ ! -x "$demos" ]; then
  echo "40-trace: $demos is not built (ZC_BUILD_TESTS=ON builds it)" >&2
  exit 1
fi
out=$results/trace
mkdir -p "$out"
text=$out/trace.txt
: >"$text"
status=0

# The finding keys in a zc trace JSON document, comma-separated ("none" when there are none).
findings() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(",".join(f["key"] for f in d.get("findings",[])) or "none")' "$1" 2>/dev/null || echo "unreadable"
}

# traced NAME EXPECTED [ZC TRACE OPTIONS...] -- PROGRAM ARGS...: run one program under zc trace.
traced() {
  local name=$1 expected=$2
  shift 2
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  timeout 300 "$zc" trace --force --json "$out/$name.json" --output "$out/$name.summary.txt" "${opts[@]}" \
    -- "$@" >"$out/$name.stdout.txt" 2>"$out/$name.stderr.txt"
  local rc=$?
  local got
  got=$(findings "$out/$name.json")
  local verdict=ok
  if [ "$expected" = none ]; then
    [ "$got" = none ] || verdict=FAIL
  elif [ "$expected" != "-" ]; then
    case ",$got," in *",$expected,"*) ;; *) verdict=FAIL ;; esac
  fi
  [ $rc = 0 ] || verdict=FAIL
  [ $verdict = ok ] || status=1
  {
    printf '== zc trace %-32s exit %-3s expected %-22s found %s: %s\n' "$name" "$rc" \
      "$expected" "$got" "$verdict"
    cat "$out/$name.summary.txt" 2>/dev/null
    cat "$out/$name.stderr.txt"
  } | tee -a "$text"
}

echo "## zc trace on the planted programs" | tee -a "$text"
traced planted-clean none -- "$bin/trace_planted_clean"
traced planted-pageable pageable_transfers -- "$bin/trace_planted_pageable"
traced planted-small_copies small_transfers -- "$bin/trace_planted_small_copies"
traced planted-sync_copies sync_copies_serialize -- "$bin/trace_planted_sync_copies"
traced planted-hostalloc_loop pinned_alloc_in_loop -- "$bin/trace_planted_hostalloc_loop"
traced planted-managed_faults managed_faults -- "$bin/trace_planted_managed_faults"
traced planted-over_pinning over_pinning --ram 1536M -- "$bin/trace_planted_over_pinning"
traced planted-mapped_reread mapped_memory_reads -- "$bin/trace_planted_mapped_reread"
traced planted-startup_pinning none -- "$bin/trace_planted_startup_pinning"
traced planted-managed_mixed managed_faults -- "$bin/trace_planted_managed_mixed"
traced planted-mapped_copied none -- "$bin/trace_planted_mapped_copied"
traced planted-children pageable_transfers -- "$bin/trace_planted_children"
traced planted-block_copies block_copies -- "$bin/trace_planted_block_copies"

echo "## zc trace on pitfall demonstrations" | tee -a "$text"
traced zc-on-demo-pageable-copy pageable_transfers -- "$demos" pageable-copy
traced zc-on-demo-hostalloc-vs-register - -- "$demos" hostalloc-vs-register
traced zc-on-demo-reuse-before-copy - -- "$demos" reuse-before-copy
# The kernels' PCIe reads measured by a second run under ncu (--pcie-counters): the summaries
# show the bytes read against the host memory each kernel was given, or why ncu could not.
traced planted-mapped_reread-counters mapped_memory_reads --pcie-counters -- \
  "$bin/trace_planted_mapped_reread"
traced zc-on-demo-mapped-reread-counters mapped_memory_reads --pcie-counters -- \
  "$demos" mapped-reread

echo "## pitfall demonstrations (docs/pitfalls.md)" | tee -a "$text"
: >"$out/demos.jsonl"
for demo in pageable-copy hostalloc-vs-register wc-cpu-read uncoalesced-mapped mapped-reread \
  pageable-kernel devptr flag-nc mapped-atomics persistent-hang reuse-before-copy \
  managed-concurrent fork; do
  timeout 120 "$demos" "$demo" >"$out/demo-$demo.txt" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  grep -v '^JSON ' "$out/demo-$demo.txt" | sed "s/^/[exit $rc] /" | tee -a "$text"
  grep '^JSON ' "$out/demo-$demo.txt" | sed 's/^JSON //' >>"$out/demos.jsonl"
done
python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump({"schema":"zerocopy.pitfall-demos/1","demos":rows},open(sys.argv[2],"w"),indent=2)' \
  "$out/demos.jsonl" "$out/demos.json" || status=1
exit $status
