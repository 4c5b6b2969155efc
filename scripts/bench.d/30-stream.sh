#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc stream benchmarks: latency of 4 KiB frames in every mode, throughput of 1 MiB frames, and a
# paced real-time run. Run as: bash 30-stream.sh ZC_BINARY RESULTS_DIR. Writes JSON and text
# tables into RESULTS_DIR. ZC_STREAM_PACED_S shortens the paced run (default 60 s); the whole
# script takes about two minutes with the default.
set -uo pipefail
zc=${1:?usage: 30-stream.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 30-stream.sh ZC_BINARY RESULTS_DIR}
paced_s=${ZC_STREAM_PACED_S:-60}
mkdir -p "$results"
status=0

# run NAME ARGS...: one zc stream run, its table in NAME.txt and its JSON in NAME.json.
run() {
  local name=$1
  shift
  echo "== zc stream $*" | tee "$results/$name.txt"
  "$zc" stream "$@" --force --json "$results/$name.json" 2>&1 | tee -a "$results/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "FAILED ($rc): zc stream $*"; status=1; }
}

# Targets: zerocopy p50 <= 3.0 us, p99 <= 4.0 us, p99.9 <= 12 us, p50 5x below classic-pinned.
run stream_latency_4k --mode all --frame-samples 1024 --taps 64 --in-flight 1 \
  --frames 50000 --warmup 2000

# Targets: >= 32 GB/s of input through zerocopy, >= 45 GB/s through the best mode. --reuse
# republishes frames already in the buffers, so the CPU's memcpy does not stand in for the link.
# Every GPU mode (the host filter takes about 9 ms a frame here: the latency run shows it).
run stream_throughput_1m \
  --mode zerocopy,mapped-launch,classic-pageable,classic-pinned,classic-overlap,graph,stream-wait \
  --protocol both --frame-samples 262144 --taps 64 --in-flight 16 \
  --frames 3000 --warmup 100 --reuse
# Every SM instead of the default half of them (zerocopy FLAG), for contrast.
run stream_throughput_1m_flag_b132 --mode zerocopy --protocol flag --frame-samples 262144 \
  --taps 64 --in-flight 16 --frames 3000 --warmup 100 --reuse --gpu-blocks 132

# Target: 100 M samples/s of float32 for 60 s, 0 dropped frames.
run stream_paced_100M --mode zerocopy --protocol flag --paced 100000000 \
  --duration "$paced_s" --frame-samples 65536 --taps 64 --in-flight 8 --warmup 50 \
  --tones 1000000,20000000

if command -v python3 >/dev/null; then
  python3 - "$results" <<'PY' | tee "$results/stream_summary.txt"
import json, sys, os
d = sys.argv[1]
def load(n):
    p = os.path.join(d, n + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
lat = load("stream_latency_4k")
if lat:
    print("4 KiB frames, one in flight (us):")
    for r in lat["runs"]:
        l = r.get("latency_us") or {}
        print(f"  {r['name']:17} p50 {l.get('p50', 0):8.2f} p99 {l.get('p99', 0):8.2f} "
              f"p99.9 {l.get('p999', 0):8.2f} max {l.get('max', 0):9.1f}  ok={r['ok']}")
    c = lat.get("comparison", {})
    if c:
        print(f"  best zerocopy ({c['zerocopy_best']}) p50 is "
              f"{c['p50_speedup_vs_classic_pinned']:.2f}x lower than classic-pinned")
for n in ("stream_throughput_1m", "stream_throughput_1m_flag_b132"):
    t = load(n)
    if t:
        print(f"{n}:")
        for r in t["runs"]:
            print(f"  {r['name']:17} {r['throughput']['gb_per_s']:7.2f} GB/s input "
                  f"({r['gpu_blocks']} blocks) ok={r['ok']}")
p = load("stream_paced_100M")
if p:
    r = p["runs"][0]
    l = r.get("latency_us") or {}
    print(f"paced 100 M samples/s for {p['config'].get('duration_s')} s: {r['frames']} frames, "
          f"{r['dropped']} dropped, {r['throughput']['samples_per_s'] / 1e6:.1f} M samples/s, "
          f"p50 {l.get('p50', 0):.2f} us p99 {l.get('p99', 0):.2f} us p99.9 {l.get('p999', 0):.2f} us")
PY
fi
exit $status
