#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The one long call of the seventh stop, at 0da07a0 (the last device time of the stop, about 400 s):
# zc run's run-check (tests, the suite plain, cured and tight, memcheck plain, cured and tight);
# then, in what time is left, the checkpoint's .cpu() under every cure with its fresh pages
# faulted all first or by windows (ZC_RUN_FRESH_WINDOWS, a setting of 0da07a0 taken out after
# this call), huge pages off and on, beside the run as written and hand-fixed; then the block
# benchmark 57.
set -u
export ZC_COMMIT=$(git rev-parse --short HEAD)
start=$SECONDS
limit=${LIMIT:-390}
left() { echo $(( limit - (SECONDS - start) )); }
pack() { grep -rlF "$PWD" $OUT/$1 | xargs -r sed -i "s|$PWD/||g"; tar -czf $OUT/$1.tar.gz -C $OUT $1 && rm -rf $OUT/$1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout $(left) scripts/run-check $OUT/rc --deps .deps --skip bench
echo "run-check rc=$? at $((SECONDS - start)) s"; cat $OUT/rc/summary.txt; grep -E '^FAIL' $OUT/rc/suite.log $OUT/rc/memcheck.log | head
pack rc
[ $(left) -gt 75 ] || { echo "no time left for more"; exit 0; }
timeout 40 cmake --build build/run -j16 --target zerocopy zc zerocopy_run > $OUT/build-lib.log 2>&1
zc=build/run/tools/zc/zc
mkdir -p $OUT/fresh
w=bench/workloads/torch_checkpoint_to_host.py
timeout 25 python3 $w --version as-written > $OUT/fresh/as-written.json 2> $OUT/fresh/as-written.err
for v in "0 0" "1 0" "0 1" "1 1"; do
  set -- $v
  [ $(left) -gt 15 ] || break
  ZC_RUN_FRESH_WINDOWS=$1 ZC_RUN_FRESH_HUGE=$2 timeout 25 $zc run -q --fix all --force --report $OUT/fresh/w$1h$2.report.json -- python3 $w --version as-written > $OUT/fresh/w$1h$2.json 2> $OUT/fresh/w$1h$2.err
done
[ $(left) -gt 15 ] && timeout 25 python3 $w --version hand-fixed > $OUT/fresh/hand-fixed.json 2> $OUT/fresh/hand-fixed.err
echo "fresh variants at $((SECONDS - start)) s (name GB/s digest runs)"
for f in $OUT/fresh/as-written.json $OUT/fresh/w*h[01].json $OUT/fresh/hand-fixed.json; do python3 -c "
import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(sys.argv[1].split('/')[-1], round(d['gbps'],2), d['digest'][:12], [round(x,4) for x in d['runs']])" $f 2>/dev/null || echo "$f: $(tail -2 $f 2>/dev/null)"; done
pack fresh
[ $(left) -gt 60 ] || { echo "done at $((SECONDS - start)) s"; exit 0; }
mkdir -p $OUT/b57
timeout $(left) bash scripts/bench.d/57-blocks.sh $zc $OUT/b57 > $OUT/b57/57.log 2>&1
echo "57 rc=$? at $((SECONDS - start)) s"; tail -1 $OUT/b57/57.log; grep -E "missed" $OUT/b57/blocks/blocks.md
pack b57
echo "done at $((SECONDS - start)) s"
