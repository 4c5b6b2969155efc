#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call 23 (short of device time): build; the checkpoint and the KV blocks (48-frameworks, one
# round: as written, under --fix all, which has the reuse cure, and hand-fixed); zc run's tests
# and conformance suite plain, cured and tight (tight now with reuse, bounded to 1 MiB); then
# the probe of registering a touched range in chunks from several threads, in what time is left.
set -u
export ZC_COMMIT=$(git rev-parse --short HEAD)
start=$SECONDS
limit=${LIMIT:-380}
left() { echo $(( limit - (SECONDS - start) )); }
pack() { grep -rlF "$PWD" $OUT/$1 | xargs -r sed -i "s|$PWD/||g"; tar -czf $OUT/$1.tar.gz -C $OUT $1 && rm -rf $OUT/$1; }
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader
timeout 200 scripts/run-check $OUT/rcb --deps .deps --skip tests,suite,memcheck,bench > /dev/null 2>&1
echo "build rc=$? at $((SECONDS - start)) s"; cat $OUT/rcb/summary.txt
zc=build/run/tools/zc/zc
mkdir -p $OUT/fw
ZC_BENCH_FRAMEWORKS_ONLY="torch_checkpoint_to_host torch_kv_blocks" ZC_BENCH_FRAMEWORKS_REPEATS=1 ZC_BENCH_FRAMEWORKS_FIX=all \
  timeout $(( $(left) - 10 )) bash scripts/bench.d/48-frameworks.sh $zc $OUT/fw > $OUT/fw/48.log 2>&1
echo "48 rc=$? at $((SECONDS - start)) s"; tail -3 $OUT/fw/48.log; sed -n '5,9p' $OUT/fw/frameworks/frameworks.md 2>/dev/null | cut -c1-300
grep -A4 "^## What zc run did" $OUT/fw/frameworks/frameworks.md | cut -c1-700
pack fw
[ $(left) -gt 40 ] || { echo "done at $((SECONDS - start)) s"; exit 0; }
timeout $(( $(left) - 25 )) scripts/run-check $OUT/rc --deps .deps --skip memcheck,bench > /dev/null 2>&1
echo "run-check rc=$? at $((SECONDS - start)) s"; cat $OUT/rc/summary.txt; grep -E '^FAIL' $OUT/rc/suite.log | head
pack rc
[ $(left) -gt 20 ] || { echo "done at $((SECONDS - start)) s"; exit 0; }
mkdir -p build/probes && nvcc -O2 -arch=sm_90 bench/results/h100-20261206i/regpar.cu -o build/probes/regpar && timeout $(( $(left) - 3 )) build/probes/regpar 4 > $OUT/regpar.log 2>&1
echo "regpar rc=$? at $((SECONDS - start)) s"; cat $OUT/regpar.log
echo "done at $((SECONDS - start)) s"
