#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call 30 (short): what the driver calls zc run makes around each copy cost (callcost.c), and
# the small steps plain, under --fix all and under --fix pinning (hooks that plan no copy).
set -u
export ZC_COMMIT=${ZC_COMMIT:-$(git rev-parse --short HEAD)}
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p build/probes $OUT/small
gcc -O2 -I/usr/local/cuda/include bench/results/h100-20261207/callcost.c -o build/probes/callcost -L/usr/local/cuda/lib64/stubs -lcuda && timeout 60 build/probes/callcost > $OUT/callcost.log 2>&1
echo "callcost rc=$? at $((SECONDS - start)) s"; cat $OUT/callcost.log
timeout 150 scripts/run-check $OUT/build --deps .deps --skip tests,suite,memcheck,bench > $OUT/build.log 2>&1
echo "build rc=$? at $((SECONDS - start)) s"
zc=build/run/tools/zc/zc
export PYTHONDONTWRITEBYTECODE=1
for i in 1 2; do
  python3 bench/workloads/torch_small_steps.py | cut -c1-160
  $zc run -q --fix all -- python3 bench/workloads/torch_small_steps.py | cut -c1-160
  $zc run -q --fix pinning -- python3 bench/workloads/torch_small_steps.py | cut -c1-160
done 2>&1 | tee $OUT/small/steps.log
echo "done at $((SECONDS - start)) s"
