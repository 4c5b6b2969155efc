#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Several GPUs: the multi-GPU bench cases (host to every GPU and every GPU to host at once
# against each alone, GPU-to-GPU copies, kernels on a peer's memory) over every GPU, and, once
# `zc stream --devices` exists, 1 MiB frames spread over every GPU. With fewer than two GPUs it
# says so in one line and does nothing. Run as: bash 60-multigpu.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 60-multigpu.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 60-multigpu.sh ZC_BINARY RESULTS_DIR}

# The GPUs the CUDA runtime shows (CUDA_VISIBLE_DEVICES included), as zc info counts them.
gpus=$("$zc" info --json - 2>/dev/null | python3 -c \
  'import json, sys; print(json.load(sys.stdin).get("device_count", 0))' 2>/dev/null || echo 0)
if [ "${gpus:-0}" -lt 2 ]; then
  echo "60-multigpu: skipped, needs two GPUs (found ${gpus:-0})"
  exit 0
fi
mkdir -p "$results"
status=0

start=$SECONDS
"$zc" bench --force --devices all --case multigpu --json "$results/multigpu.json" \
  --csv "$results/multigpu.csv" >"$results/multigpu.txt" 2>"$results/multigpu.err"
rc=$?
echo "zc bench --devices all --case multigpu: exit $rc, $((SECONDS - start)) s ($gpus GPUs)"
[ $rc -eq 0 ] || { status=1; cat "$results/multigpu.err"; }
cat "$results/multigpu.txt"

# zc stream over every GPU, when this build's zc stream takes --devices.
if "$zc" stream --help 2>/dev/null | grep -q -- '--devices'; then
  for n in 1 all; do
    devs=$n
    [ "$n" = 1 ] && devs=0
    start=$SECONDS
    echo "== zc stream --devices $devs (1 MiB frames)" | tee "$results/stream_multigpu_$n.txt"
    "$zc" stream --devices "$devs" --mode zerocopy --protocol flag --frame-samples 262144 \
      --taps 64 --in-flight 16 --frames 3000 --warmup 100 --reuse --force \
      --json "$results/stream_multigpu_$n.json" 2>&1 | tee -a "$results/stream_multigpu_$n.txt"
    rc=${PIPESTATUS[0]}
    echo "zc stream --devices $devs: exit $rc, $((SECONDS - start)) s"
    [ "$rc" = 0 ] || status=1
  done
else
  echo "zc stream --devices: not in this build; the stream part is left out"
fi

# The figures the issue asks for, from the JSON.
python3 - "$results" <<'PY' | tee "$results/multigpu-summary.txt"
import json, os, sys

def load(name):
    try:
        with open(os.path.join(sys.argv[1], name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"cannot read {name}: {e}")
        return None

doc = load("multigpu.json")
if doc:
    print(f"multi-GPU cases on GPUs {doc.get('devices')}:")
    for c in doc.get("cases", []):
        print(f"  {c['key']}: {c['outcome']}" + (f": {c['reason']}" if c["reason"] else ""))
        for p in c.get("points", []):
            print(f"      {p['bytes'] >> 20:5d} MiB  {p['variant']:<36s} {p['stats']['median']:8.2f} GB/s")
one, every = load("stream_multigpu_1.json"), load("stream_multigpu_all.json")
if one and every and one.get("status") == "OK" and every.get("status") == "OK":
    a, b = one["total"]["gb_per_s"], every["total"]["gb_per_s"]
    ratio = b / a if a > 0 else 0.0
    print(f"zc stream 1 MiB frames: GPU 0 alone {a:.2f} GB/s, GPUs {every['devices']} {b:.2f} GB/s: "
          f"{ratio:.2f}x ({'PASS' if ratio >= 1.8 else 'MISS'}: target >= 1.8x); "
          f"in order {every['verification']['in_order']}, "
          f"largest relative error {every['verification']['max_rel_error']}")
    for g in every["per_gpu"]:
        print(f"      GPU {g['device']}: {g['frames']:.0f} frames, {g['gb_per_s']:.2f} GB/s, "
              f"p50 {g['latency_us']['median']:.1f} us")
PY
exit $status
