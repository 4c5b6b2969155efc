#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call 29 (H100, short): the facts that decide designs: the KV pattern probe, the host VMM
# probe, CuPy and JAX with the hostcopy cure (--fix all, huge pages), the small steps.
set -u
export ZC_COMMIT=${ZC_COMMIT:-$(git rev-parse --short HEAD)}
start=$SECONDS
limit=${LIMIT:-280}
left() { echo $(( limit - (SECONDS - start) )); }
pack() { grep -rlF "$PWD" $OUT/$1 | xargs -r sed -i "s|$PWD/||g"; tar -czf $OUT/$1.tar.gz -C $OUT $1 && rm -rf $OUT/$1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p $OUT/hc $OUT/small build/probes
(nvcc -O2 -arch=sm_90 bench/results/h100-20261207/vmmhost.cu -o build/probes/vmmhost -lcuda > $OUT/vmm-build.log 2>&1) &
timeout 40 python3 bench/results/h100-20261207/kv_pattern.py > $OUT/kv_pattern.log 2>&1; echo "kv pattern rc=$? at $((SECONDS - start)) s"; cat $OUT/kv_pattern.log
wait
timeout 40 build/probes/vmmhost 4 > $OUT/vmmhost.log 2>&1
echo "vmmhost rc=$? at $((SECONDS - start)) s"; cat $OUT/vmm-build.log | tail -3; head -40 $OUT/vmmhost.log
timeout 150 scripts/run-check $OUT/build --deps .deps --skip tests,suite,memcheck,bench > $OUT/build.log 2>&1
echo "build rc=$? at $((SECONDS - start)) s"
zc=build/run/tools/zc/zc
ZC_RUN_FRESH_HUGE=1 ZC_BENCH_FRAMEWORKS_ONLY="cupy_transfers jax_transfers" ZC_BENCH_FRAMEWORKS_REPEATS=1 ZC_BENCH_FRAMEWORKS_FIX=all \
  timeout $(( $(left) - 30 )) bash scripts/bench.d/48-frameworks.sh $zc $OUT/hc > $OUT/hc/48.log 2>&1
echo "48 hostcopy rc=$? at $((SECONDS - start)) s"; sed -n '5,9p' $OUT/hc/frameworks/frameworks.md 2>/dev/null | cut -c1-300
grep -A4 "^## What zc run did" $OUT/hc/frameworks/frameworks.md | cut -c1-900
pack hc
[ $(left) -gt 25 ] && ZC_BENCH_FRAMEWORKS_ONLY="torch_small_steps" ZC_BENCH_FRAMEWORKS_REPEATS=1 ZC_BENCH_FRAMEWORKS_FIX=all \
  timeout $(( $(left) - 3 )) bash scripts/bench.d/48-frameworks.sh $zc $OUT/small > $OUT/small/48.log 2>&1
echo "48 small rc=$? at $((SECONDS - start)) s"; sed -n '5,9p' $OUT/small/frameworks/frameworks.md 2>/dev/null | cut -c1-300
grep -A3 "^## What zc run did" $OUT/small/frameworks/frameworks.md | cut -c1-600; tail -3 $OUT/small/frameworks/*.stderr.txt 2>/dev/null | cut -c1-300
pack small
echo "done at $((SECONDS - start)) s"
