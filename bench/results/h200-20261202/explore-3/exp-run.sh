#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
set -uo pipefail
out=${1:?}
w="$out/files"; rm -rf "$w"; mkdir -p "$w/exp"  # everything under the folder given
pack() { tar -czf "$out/exp3.tar.gz" -C "$w" . ; }
log() { echo "== $(date +%T) $*" | tee -a "$w/summary.txt"; }
pre=(); [ -d .deps/usr ] && pre=(-DCMAKE_PREFIX_PATH=$PWD/.deps/usr)
log build
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DZC_BUILD_TESTS=OFF -DZC_BUILD_EXAMPLES=OFF "${pre[@]}" >"$w/configure.log" 2>&1 || { tail -30 "$w/configure.log"; exit 1; }
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
except Exception as e: print(sys.argv[2], "FAILED", e, open(sys.argv[1][:-5]+".txt").read()[-300:])
PY
}
L="--mode zerocopy --protocol ll --in-flight 1 --warmup 2000 --frames 30000 --taps 64"
F="--mode zerocopy --protocol flag --in-flight 1 --warmup 2000 --frames 30000 --taps 64"
log runs
x ll4k_b4_t256 A=0 -- $L --frame-samples 1024 --gpu-blocks 4
x ll4k_b1_t256 A=0 -- $L --frame-samples 1024 --gpu-blocks 1
x ll4k_b1_t512 ZC_EXP_THREADS=512 -- $L --frame-samples 1024 --gpu-blocks 1
x ll4k_b1_t1024 ZC_EXP_THREADS=1024 -- $L --frame-samples 1024 --gpu-blocks 1
x ll4k_b2_t512 ZC_EXP_THREADS=512 -- $L --frame-samples 1024 --gpu-blocks 2
x ll4k_b2_t1024 ZC_EXP_THREADS=1024 -- $L --frame-samples 1024 --gpu-blocks 2
x ll4k_b4_t1024 ZC_EXP_THREADS=1024 -- $L --frame-samples 1024 --gpu-blocks 4
x ll4k_b1_t1024_tap1 ZC_EXP_THREADS=1024 -- $L --frame-samples 1024 --gpu-blocks 1 --taps 1
x ll4k_b4_t256_tap1 A=0 -- $L --frame-samples 1024 --gpu-blocks 4 --taps 1
x ll1k_b1_t256 A=0 -- $L --frame-samples 256 --gpu-blocks 1
x ll1k_b1_t1024 ZC_EXP_THREADS=1024 -- $L --frame-samples 256 --gpu-blocks 1
x ll256_b1_t256 A=0 -- $L --frame-samples 64 --gpu-blocks 1
x ll16k_b16_t256 A=0 -- $L --frame-samples 4096 --gpu-blocks 16
x ll16k_b4_t1024 ZC_EXP_THREADS=1024 -- $L --frame-samples 4096 --gpu-blocks 4
x ll16k_b8_t1024 ZC_EXP_THREADS=1024 -- $L --frame-samples 4096 --gpu-blocks 8
x fl4k_b4_t256 A=0 -- $F --frame-samples 1024 --gpu-blocks 4
x fl4k_b1_t1024 ZC_EXP_THREADS=1024 -- $F --frame-samples 1024 --gpu-blocks 1
x fl4k_b1_t256 A=0 -- $F --frame-samples 1024 --gpu-blocks 1
x ll4k_b4_t256_again A=0 -- $L --frame-samples 1024 --gpu-blocks 4
x ll4k_b1_t1024_again ZC_EXP_THREADS=1024 -- $L --frame-samples 1024 --gpu-blocks 1
log end
pack
