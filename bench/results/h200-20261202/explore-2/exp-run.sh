#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
set -uo pipefail
out=${1:?}
w="$out/files"; rm -rf "$w"; mkdir -p "$w/exp"  # everything under the folder given
pack() { tar -czf "$out/exp2.tar.gz" -C "$w" . ; }
log() { echo "== $(date +%T) $*" | tee -a "$w/summary.txt"; }
pre=(); [ -d .deps/usr ] && pre=(-DCMAKE_PREFIX_PATH=$PWD/.deps/usr)
log configure
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${pre[@]}" >"$w/configure.log" 2>&1 || { tail -30 "$w/configure.log"; exit 1; }
log build
cmake --build build/gpu -j 16 >"$w/build.log" 2>&1 || { grep -E "error|FAILED" "$w/build.log" | head -30; exit 1; }
zc=build/gpu/tools/zc/zc
x() { # name env... -- args
  local name=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 60 "$zc" stream "$@" --force --json "$w/exp/$name.json" >"$w/exp/$name.txt" 2>&1
  python3 - "$w/exp/$name.json" "$name" <<'PY' | tee -a "$w/summary.txt"
import json,sys
try:
  for r in json.load(open(sys.argv[1]))["runs"]:
    l=r.get("latency_us") or {}
    print(f"{sys.argv[2]:24} {r['name']:14} b{r['gpu_blocks']:<4} p50 {l.get('p50',0):8.2f} p99 {l.get('p99',0):8.2f} p99.9 {l.get('p999',0):8.2f} max {l.get('max',0):8.1f} GB/s {r['throughput']['gb_per_s']:6.2f} ok={r['ok']}")
except Exception as e: print(sys.argv[2], "FAILED", e)
PY
}
OFF="ZC_EXP_NO_NT=1 ZC_EXP_NO_LASTWORD=1 ZC_EXP_NO_RELAY=1"
L="--mode zerocopy --protocol ll --in-flight 1 --warmup 2000 --taps 64"
F="--mode zerocopy --protocol flag --in-flight 1 --warmup 2000 --taps 64"
T="--mode zerocopy --protocol flag --frame-samples 262144 --taps 64 --in-flight 16 --frames 2000 --warmup 100 --reuse"
log experiments
x ll4k_on A=0 -- $L --frames 30000 --frame-samples 1024
x ll4k_nont ZC_EXP_NO_NT=1 -- $L --frames 30000 --frame-samples 1024
x ll4k_nolast ZC_EXP_NO_LASTWORD=1 -- $L --frames 30000 --frame-samples 1024
x ll4k_off $OFF -- $L --frames 30000 --frame-samples 1024
x ll1k_on A=0 -- $L --frames 30000 --frame-samples 256
x ll256_on A=0 -- $L --frames 30000 --frame-samples 64
x ll16k_on A=0 -- $L --frames 20000 --frame-samples 4096
x ll16k_off $OFF -- $L --frames 20000 --frame-samples 4096
x ll64k_on A=0 -- $L --frames 3000 --frame-samples 16384
x ll64k_off $OFF -- $L --frames 3000 --frame-samples 16384
x ll1m_on A=0 -- $L --frames 300 --warmup 50 --frame-samples 262144
x ll1m_off $OFF -- $L --frames 300 --warmup 50 --frame-samples 262144
x fl4k_on A=0 -- $F --frames 20000 --frame-samples 1024
x fl4k_off $OFF -- $F --frames 20000 --frame-samples 1024
x fl4k_b8_on A=0 -- $F --frames 20000 --frame-samples 1024 --gpu-blocks 8
x fl4k_b8_off $OFF -- $F --frames 20000 --frame-samples 1024 --gpu-blocks 8
x fl16k_on A=0 -- $F --frames 20000 --frame-samples 4096
x fl16k_off $OFF -- $F --frames 20000 --frame-samples 4096
x fl64k_on A=0 -- $F --frames 3000 --frame-samples 16384
x fl64k_off $OFF -- $F --frames 3000 --frame-samples 16384
x fl1m_on A=0 -- $F --frames 500 --warmup 50 --frame-samples 262144
x fl1m_off $OFF -- $F --frames 500 --warmup 50 --frame-samples 262144
for b in 33 66 132; do
  x tp1m_b${b}_on A=0 -- $T --gpu-blocks $b
  x tp1m_b${b}_off $OFF -- $T --gpu-blocks $b
done
x tpll1m_on A=0 -- --mode zerocopy --protocol ll --frame-samples 262144 --taps 64 --in-flight 16 --frames 1000 --warmup 100 --reuse
x tpll1m_off $OFF -- --mode zerocopy --protocol ll --frame-samples 262144 --taps 64 --in-flight 16 --frames 1000 --warmup 100 --reuse
x ll4k_on_again A=0 -- $L --frames 30000 --frame-samples 1024
pack
log tests
(cd build/gpu && timeout 200 ctest -R 'gpu_ring|gpu_stream_modes|gpu_stream_engine' --output-on-failure) > "$w/ctest.log" 2>&1; echo "ctest rc=$?" | tee -a "$w/summary.txt"
grep -E "Test +#|tests passed" "$w/ctest.log" >> "$w/summary.txt"; pack
log memcheck
for t in ring/gpu_ring_reliability ring/gpu_ring_control; do
ZC_UNDER_SANITIZER=1 ZC_TEST_CYCLES=200 timeout 100 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 99 --leak-check full build/gpu/tests/$t > "$w/memcheck-$(basename $t).log" 2>&1; echo "memcheck $t rc=$?" | tee -a "$w/summary.txt"
grep -E "ERROR SUMMARY|LEAK SUMMARY" "$w/memcheck-$(basename $t).log" | tail -2 >> "$w/summary.txt"
done
log end
pack
