#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call 31 (the session's last device time): the KV blocks under --fix all (per-block phases);
# the host VMM probe (unbuffered); the conformance suite plain and tight (every cure on, the
# hostcopy cure from 64 KiB) on every program.
set -u
export ZC_COMMIT=${ZC_COMMIT:-$(git rev-parse --short HEAD)}
start=$SECONDS
limit=${LIMIT:-300}
left() { echo $(( limit - (SECONDS - start) )); }
pack() { grep -rlF "$PWD" $OUT/$1 | xargs -r sed -i "s|$PWD/||g"; tar -czf $OUT/$1.tar.gz -C $OUT $1 && rm -rf $OUT/$1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p build/probes $OUT/kv
(nvcc -O2 -arch=sm_90 bench/results/h100-20261207/vmmhost.cu -o build/probes/vmmhost -lcuda > $OUT/vmm-build.log 2>&1) &
timeout 150 scripts/run-check $OUT/build --deps .deps --skip tests,suite,memcheck,bench > $OUT/build.log 2>&1
echo "build rc=$? at $((SECONDS - start)) s"
wait
zc=build/run/tools/zc/zc
export PYTHONDONTWRITEBYTECODE=1
for v in plain cured; do
  cmd=(python3 bench/workloads/torch_kv_blocks.py)
  [ $v = cured ] && cmd=($zc run -q --fix all --report $OUT/kv/report.json -- "${cmd[@]}")
  timeout 60 "${cmd[@]}" > $OUT/kv/$v.json 2>$OUT/kv/$v.err
  echo "kv $v rc=$?"; python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print({k: round(v/512*1e6,1) for k,v in d['phases'].items()}, 'us/block', round(d['gbps'],2), 'GB/s')" $OUT/kv/$v.json
done
pack kv
timeout 40 build/probes/vmmhost 4 > $OUT/vmmhost.log 2>&1
echo "vmmhost rc=$? at $((SECONDS - start)) s"; tail -3 $OUT/vmm-build.log; head -40 $OUT/vmmhost.log
programs=()
for f in tests/run/conformance/conf_*.cu tests/run/conformance/conf_*_driver.c; do
  name=$(basename "$f"); programs+=("build/run/tests/run/conformance/${name%.*}")
done
programs+=(tests/run/conformance/conf_*.py)
timeout $(( $(left) - 5 )) bash tests/run/conformance/run_conformance.sh --zc $zc \
  --probe build/run/tests/run/conformance/conformance_gpu_probe --timeout 90 --configs plain,tight \
  -- "${programs[@]}" > $OUT/suite-tight.log 2>&1
echo "suite plain,tight rc=$? at $((SECONDS - start)) s"; grep -E "^FAIL" $OUT/suite-tight.log | head; tail -2 $OUT/suite-tight.log
echo "done at $((SECONDS - start)) s"
