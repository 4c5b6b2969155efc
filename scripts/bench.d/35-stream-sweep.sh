#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where the zerocopy stream's time goes: short zc stream runs that change one thing at a time
# (persistent blocks, frame size, taps, protocol), for latency at small frames and input
# throughput at 1 MiB frames. Run as: bash 35-stream-sweep.sh ZC_BINARY RESULTS_DIR. Writes one
# JSON per run under RESULTS_DIR/stream_sweep/ and a table in RESULTS_DIR/stream_sweep.txt;
# takes about a minute.
set -uo pipefail
zc=${1:?usage: 35-stream-sweep.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 35-stream-sweep.sh ZC_BINARY RESULTS_DIR}
dir="$results/stream_sweep"
mkdir -p "$dir"
status=0

# run NAME ARGS...: one zc stream run, its JSON in NAME.json, its output in NAME.txt.
run() {
  local name=$1
  shift
  "$zc" stream "$@" --force --json "$dir/$name.json" >"$dir/$name.txt" 2>&1 ||
    { echo "FAILED: zc stream $*"; cat "$dir/$name.txt"; status=1; }
}

lat="--frames 20000 --warmup 2000 --in-flight 1"
for p in ll flag; do
  for b in 1 2 4 8; do
    run "lat_${p}_1024x64_b$b" --protocol "$p" --frame-samples 1024 --taps 64 --gpu-blocks "$b" $lat
  done
  for n in 256 512 2048 4096; do
    run "lat_${p}_${n}x64" --protocol "$p" --frame-samples "$n" --taps 64 $lat
  done
  run "lat_${p}_1024x1" --protocol "$p" --frame-samples 1024 --taps 1 $lat
  run "lat_${p}_1024x64_reuse" --protocol "$p" --frame-samples 1024 --taps 64 --reuse $lat
done

tput="--frame-samples 262144 --taps 64 --in-flight 16 --frames 2000 --warmup 100 --reuse"
for b in 16 33 66 132 264; do
  run "tput_flag_1m_b$b" --protocol flag --gpu-blocks "$b" $tput
done
run "tput_flag_1m_inflight4" --protocol flag --frame-samples 262144 --taps 64 --in-flight 4 \
  --frames 2000 --warmup 100 --reuse
run "tput_flag_4m" --protocol flag --frame-samples 1048576 --taps 64 --in-flight 8 \
  --frames 500 --warmup 20 --reuse
run "tput_mapped_1m" --mode mapped-launch $tput

if command -v python3 >/dev/null; then
  python3 - "$dir" <<'PY' | tee "$results/stream_sweep.txt"
import glob, json, os, sys
print(f"{'run':28} {'blocks':>6} {'p50 us':>8} {'p99 us':>8} {'p99.9':>8} {'GB/s in':>8}")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    for r in json.load(open(path))["runs"]:
        l = r.get("latency_us") or {}
        print(f"{os.path.basename(path)[:-5]:28} {r.get('gpu_blocks', 0):6} "
              f"{l.get('p50', 0):8.2f} {l.get('p99', 0):8.2f} {l.get('p999', 0):8.2f} "
              f"{r['throughput']['gb_per_s']:8.2f}{'' if r['ok'] else '  NOT OK'}")
PY
fi
exit $status
