#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment call: build, kernel variants (env knobs), the size sweep, stream GPU tests, memcheck.
set -uo pipefail
out=${1:?}
mkdir -p "$out/exp"
log() { echo "== $(date +%T) $*" | tee -a "$out/summary.txt"; }
pre=(); [ -d .deps/usr ] && pre=(-DCMAKE_PREFIX_PATH=$PWD/.deps/usr)
log configure
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${pre[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
log build
cmake --build build/gpu -j 16 >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }
zc=build/gpu/tools/zc/zc
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm --format=csv,noheader | tee -a "$out/summary.txt"
lat="--mode zerocopy --protocol ll --in-flight 1 --frames 50000 --warmup 2000 --taps 64"
tp="--mode zerocopy --protocol flag --frame-samples 262144 --taps 64 --in-flight 16 --frames 2000 --warmup 100 --reuse"
x() { # name env... -- args
  local name=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 60 "$zc" stream "$@" --force --json "$out/exp/$name.json" >"$out/exp/$name.txt" 2>&1
  python3 - "$out/exp/$name.json" "$name" <<'PY' | tee -a "$out/summary.txt"
import json,sys
try:
  for r in json.load(open(sys.argv[1]))["runs"]:
    l=r.get("latency_us") or {}
    print(f"{sys.argv[2]:26} {r['name']:15} b{r['gpu_blocks']:<4} p50 {l.get('p50',0):8.2f} p99 {l.get('p99',0):8.2f} p99.9 {l.get('p999',0):8.2f} max {l.get('max',0):8.1f} GB/s {r['throughput']['gb_per_s']:6.2f} ok={r['ok']}")
except Exception as e: print(sys.argv[2], "FAILED", e)
PY
}
log experiments
x lat4k_base A=0 -- $lat --frame-samples 1024
x lat4k_nocompute ZC_EXP_NOCOMPUTE=1 -- $lat --frame-samples 1024 --verify none
x lat4k_stagger300 ZC_EXP_STAGGER_NS=300 -- $lat --frame-samples 1024
x lat4k_stagger600 ZC_EXP_STAGGER_NS=600 -- $lat --frame-samples 1024
x lat4k_stagger900 ZC_EXP_STAGGER_NS=900 -- $lat --frame-samples 1024
x lat4k_b8 A=0 -- $lat --frame-samples 1024 --gpu-blocks 8
x lat4k_b8_nocompute ZC_EXP_NOCOMPUTE=1 -- $lat --frame-samples 1024 --gpu-blocks 8 --verify none
x lat4k_b1_nocompute ZC_EXP_NOCOMPUTE=1 -- $lat --frame-samples 1024 --gpu-blocks 1 --verify none
x lat4k_tap1 A=0 -- $lat --frame-samples 1024 --taps 1
x lat1k_base A=0 -- $lat --frame-samples 256
x lat1k_stagger600 ZC_EXP_STAGGER_NS=600 -- $lat --frame-samples 256
x lat16k_base A=0 -- $lat --frame-samples 4096
x lat16k_nocompute ZC_EXP_NOCOMPUTE=1 -- $lat --frame-samples 4096 --verify none
x lat4k_flag A=0 -- --mode zerocopy --protocol flag --in-flight 1 --frames 50000 --warmup 2000 --taps 64 --frame-samples 1024
x lat4k_wait A=0 -- --mode stream-wait,classic-pinned,mapped-launch --in-flight 1 --frames 20000 --warmup 2000 --taps 64 --frame-samples 1024
for b in 33 66 132; do
  x tp1m_b${b}_al4 A=0 -- $tp --gpu-blocks $b
  x tp1m_b${b}_al32 ZC_EXP_ALIGN=32 -- $tp --gpu-blocks $b
done
x tp1m_b66_nocompute ZC_EXP_NOCOMPUTE=1 -- $tp --gpu-blocks 66 --verify none
x tp1m_b132_al32_nocompute ZC_EXP_NOCOMPUTE=1 ZC_EXP_ALIGN=32 -- $tp --gpu-blocks 132 --verify none
x tp1m_others A=0 -- --mode stream-wait,mapped-launch,classic-overlap --frame-samples 262144 --taps 64 --in-flight 16 --frames 2000 --warmup 100 --reuse
x lat4k_base_again A=0 -- $lat --frame-samples 1024
log sweep
timeout 200 bash scripts/bench.d/36-stream-sizes.sh "$zc" "$out/sweep" > "$out/sweep.log" 2>&1; echo "sweep rc=$?" | tee -a "$out/summary.txt"
tail -12 "$out/sweep.log" >> "$out/summary.txt"
log tests
(cd build/gpu && timeout 150 ctest -R 'gpu_stream_modes|gpu_stream_cli' --output-on-failure) > "$out/ctest.log" 2>&1; echo "ctest rc=$?" | tee -a "$out/summary.txt"
tail -8 "$out/ctest.log" >> "$out/summary.txt"
log memcheck
ZC_UNDER_SANITIZER=1 timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 99 --leak-check full build/gpu/tests/stream/gpu_stream_modes > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?" | tee -a "$out/summary.txt"
grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" "$out/memcheck.log" | tail -4 >> "$out/summary.txt"
log end
