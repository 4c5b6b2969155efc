#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call 25 (next stop, a whole session's device time): run-check whole (memcheck plain, cured and
# tight, tight with reuse); the KV blocks and the checkpoint with the 4096-pin table (--fix all);
# the touching threads beside the registration (overlap2.c); then the whole frameworks table
# with --fix all in what time is left. Each stage packed as it ends.
set -u
export ZC_COMMIT=$(git rev-parse --short HEAD)
start=$SECONDS
limit=${LIMIT:-580}
left() { echo $(( limit - (SECONDS - start) )); }
pack() { grep -rlF "$PWD" $OUT/$1 | xargs -r sed -i "s|$PWD/||g"; tar -czf $OUT/$1.tar.gz -C $OUT $1 && rm -rf $OUT/$1; }
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader
timeout 300 scripts/run-check $OUT/rc --deps .deps --skip bench > /dev/null 2>&1
echo "run-check rc=$? at $((SECONDS - start)) s"; cat $OUT/rc/summary.txt; grep -E '^FAIL' $OUT/rc/suite.log $OUT/rc/memcheck.log | head
pack rc
zc=build/run/tools/zc/zc
mkdir -p $OUT/fw
ZC_BENCH_FRAMEWORKS_ONLY="torch_kv_blocks torch_checkpoint_to_host" ZC_BENCH_FRAMEWORKS_REPEATS=1 ZC_BENCH_FRAMEWORKS_FIX=all \
  timeout 150 bash scripts/bench.d/48-frameworks.sh $zc $OUT/fw > $OUT/fw/48.log 2>&1
echo "48 rc=$? at $((SECONDS - start)) s"; sed -n '5,9p' $OUT/fw/frameworks/frameworks.md 2>/dev/null | cut -c1-300
grep -A4 "^## What zc run did" $OUT/fw/frameworks/frameworks.md | cut -c1-700
pack fw
mkdir -p build/probes && gcc -O2 -I/usr/local/cuda/include bench/results/h200-20261206/overlap2.c -o build/probes/overlap2 -L/usr/local/cuda/lib64 -lcudart -lpthread && timeout 60 build/probes/overlap2 8 > $OUT/overlap2.log 2>&1
echo "overlap2 rc=$? at $((SECONDS - start)) s"; cat $OUT/overlap2.log
mkdir -p $OUT/jaxhuge
ZC_RUN_FRESH_HUGE=1 ZC_BENCH_FRAMEWORKS_ONLY="jax_transfers" ZC_BENCH_FRAMEWORKS_REPEATS=1 ZC_BENCH_FRAMEWORKS_FIX=all \
  timeout 100 bash scripts/bench.d/48-frameworks.sh $zc $OUT/jaxhuge > $OUT/jaxhuge/48.log 2>&1
echo "jax huge rc=$? at $((SECONDS - start)) s"; sed -n '5,9p' $OUT/jaxhuge/frameworks/frameworks.md 2>/dev/null | cut -c1-300
grep -A4 "^## What zc run did" $OUT/jaxhuge/frameworks/frameworks.md | cut -c1-700
pack jaxhuge
[ $(left) -gt 60 ] || { echo "done at $((SECONDS - start)) s"; exit 0; }
mkdir -p $OUT/fwall
ZC_BENCH_FRAMEWORKS_ONLY="torch_weights_to_gpu torch_dataloader jax_transfers cupy_transfers" ZC_BENCH_FRAMEWORKS_REPEATS=1 ZC_BENCH_FRAMEWORKS_FIX=all \
  timeout $(( $(left) - 5 )) bash scripts/bench.d/48-frameworks.sh $zc $OUT/fwall > $OUT/fwall/48.log 2>&1
echo "48 rest rc=$? at $((SECONDS - start)) s"; sed -n '5,12p' $OUT/fwall/frameworks/frameworks.md 2>/dev/null | cut -c1-300
pack fwall
echo "done at $((SECONDS - start)) s"
