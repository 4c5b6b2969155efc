#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc stream as a user runs it, through real pipes, files and FIFOs, checked against independent
# references: sox makes a WAV and reads the result back (its RMS), scipy.signal.lfilter filters
# the same samples with the taps zc wrote (--save-taps). Also the bad inputs: empty, truncated,
# NaN, a stalled FIFO writer, a FIFO no writer opens.
#
#   pipeline_test.sh ZC_BINARY MODE[,MODE...]
#
# MODE is a zc stream mode (zerocopy-ll and zerocopy-flag pick the protocol). Exit 77 (skipped)
# when a GPU mode finds no GPU, or when sox is missing (scripts/deps installs it).
set -uo pipefail
zc=${1:?usage: pipeline_test.sh ZC_BINARY MODES}
modes=${2:?usage: pipeline_test.sh ZC_BINARY MODES}
SKIP=77
# Every zc run is bounded (exit 124 once it is over), so that a hang fails that check instead
# of blocking the whole test until ctest kills it; compute-sanitizer slows runs a hundredfold.
run_timeout=120
[ "${ZC_UNDER_SANITIZER:-0}" = 1 ] && run_timeout=1200
zc_run() { timeout -k 10 "$run_timeout" "$zc" "$@"; }

# sox makes the WAV and reads the result back where it is installed (scripts/deps installs it);
# without it (a GPU machine without package access) the same samples are made by Python and
# the sox checks alone are left out, said so.
have_sox=1
command -v sox >/dev/null || { have_sox=0; echo "note: sox is not installed: its checks are left out"; }
# Debian's python3-scipy is for Debian's python3, which another python3 on PATH may hide.
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import scipy.signal' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
  echo "note: no python3 with scipy here; the reference is numpy.convolve or a plain-Python FIR"
  py=$(command -v python3 || command -v /usr/bin/python3)
fi
[ -n "$py" ] || { echo "SKIP: no python3 for the reference"; exit $SKIP; }

work=$(mktemp -d /tmp/zc_pipeline_XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# mode_args MODE: the zc stream options that select it.
mode_args() {
  case "$1" in
    zerocopy-ll) echo "--mode zerocopy --protocol ll" ;;
    zerocopy-flag) echo "--mode zerocopy --protocol flag" ;;
    *) echo "--mode $1" ;;
  esac
}

# compare IN OUT TAPS [CHANNELS]: the output is lfilter(taps, 1, in) per channel, sample for
# sample, within 1e-5 of full scale (1.0), and as long as the input.
compare() {
  "$py" - "$1" "$2" "$3" "${4:-1}" <<'PY'
import struct, sys
inp, out, tapsf, ch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def floats(path):
    b = open(path, "rb").read()
    assert len(b) % 4 == 0, f"{path}: {len(b)} bytes is not whole float32 values"
    return list(struct.unpack(f"{len(b) // 4}f", b))
x, y = floats(inp), floats(out)
taps = [float(t) for t in open(tapsf).read().split()]
if len(x) != len(y):
    print(f"sample count differs: {len(x)} in, {len(y)} out"); sys.exit(1)
try:
    import numpy as np
    xs = np.array(x, dtype=np.float64).reshape(-1, ch)
    try:
        from scipy.signal import lfilter
        ref = np.column_stack([lfilter(taps, 1.0, xs[:, c]) for c in range(ch)]).reshape(-1)
        how = "scipy.signal.lfilter"
    except ImportError:  # the same filter: y = (h * x)[:len(x)]
        ref = np.column_stack([np.convolve(xs[:, c], taps)[:len(xs)] for c in range(ch)]).reshape(-1)
        how = "numpy.convolve"
    err = float(np.max(np.abs(ref - np.array(y)))) if len(y) else 0.0
except ImportError:
    err, how = 0.0, "plain-Python FIR"
    for n in range(len(x)):
        acc = 0.0
        for k, t in enumerate(taps):
            i = n - k * ch
            if i < 0:
                break
            acc += t * x[i]
        err = max(err, abs(acc - y[n]))
print(f"{len(y)} values, max |error| against {how}: {err:.3g}")
sys.exit(0 if err <= 1e-5 else 1)
PY
}

rate=48000
# --force: the same output files are written again and again.
filter_args="--rate $rate --lowpass 4000 --taps 64 --warmup 10 --force"
# 3.0107 s at 48 kHz (144514 samples, not a multiple of the 1024-sample frame): a 1 kHz tone in
# the pass band and a 12 kHz tone in the stop band, 0.5 each; as a WAV by sox where it is there.
if [ $have_sox = 1 ]; then
  sox -n -r $rate -c 1 -b 16 -e signed "$work/in.wav" synth 3.0107 sine 1000 sine 12000 \
    remix 1v0.5,2v0.5 || { echo "sox could not make the input"; exit 1; }
  sox "$work/in.wav" -t raw -e float -b 32 "$work/in.f32"
else
  # Without numpy the plain-Python reference is slow: 0.63 s of signal instead of 3.01.
  "$py" -c "
import math, struct
try:
    import numpy
    n = 144514
except ImportError:
    n = 30107
v = [0.5 * math.sin(2 * math.pi * 1000 * i / $rate) + 0.5 * math.sin(2 * math.pi * 12000 * i / $rate)
     for i in range(n)]
open('$work/in.f32', 'wb').write(struct.pack(f'{n}f', *v))"
fi
in_samples=$(($(stat -c %s "$work/in.f32") / 4))
# The same samples as int16 (truncated input) and as I/Q pairs (the real one, and -0.5 of it).
"$py" -c "
import struct
b = open('$work/in.f32', 'rb').read()
x = struct.unpack(f'{len(b) // 4}f', b)
q = lambda v: max(-32768, min(32767, int(round(v * 32768))))
open('$work/in.s16', 'wb').write(struct.pack(f'{len(x)}h', *[q(v) for v in x]))
iq = [q(v) for v in x for v in (v, -0.5 * v)]
open('$work/iq.cs16', 'wb').write(struct.pack(f'{len(iq)}h', *iq))
open('$work/iq.f32', 'wb').write(struct.pack(f'{len(iq)}f', *[v / 32768 for v in iq]))"

IFS=, read -r -a mode_list <<<"$modes"
# Under compute-sanitizer (scripts/gpu-check) every process is watched: the first mode's shell
# pipeline is enough there.
quick=${ZC_UNDER_SANITIZER:-0}
[ "$quick" = 1 ] && mode_list=("${mode_list[0]}")
for mode in "${mode_list[@]}"; do
  margs=$(mode_args "$mode")
  # shellcheck disable=SC2086
  probe=$(zc_run stream $margs --frames 1 --warmup 0 2>&1)
  if [ $? = 3 ]; then echo "SKIP: $mode needs a GPU: $probe"; exit $SKIP; fi

  # 1. The shell pipeline: sox | zc stream - --output - | sox (cat without sox), and the
  # reference on the same samples.
  if [ $have_sox = 1 ]; then
    # shellcheck disable=SC2086
    sox "$work/in.wav" -t raw -e float -b 32 - |
      zc_run stream - $margs $filter_args --save-taps "$work/taps.txt" --output - \
        --json "$work/run.json" 2>"$work/err" |
      tee "$work/out.f32" |
      sox -t raw -e float -b 32 -r $rate -c 1 - -n stat 2>"$work/stat"
    rcs=("${PIPESTATUS[@]}")
  else
    # shellcheck disable=SC2086
    cat "$work/in.f32" |
      zc_run stream - $margs $filter_args --save-taps "$work/taps.txt" --output - \
        --json "$work/run.json" 2>"$work/err" | cat >"$work/out.f32"
    rcs=("${PIPESTATUS[@]}")
  fi
  [ "${rcs[1]}" = 0 ] || { fail "$mode: pipeline exit ${rcs[1]}: $(tail -3 "$work/err")"; continue; }
  if [ $have_sox = 1 ]; then
    rms=$(awk '/RMS +amplitude/ {print $3}' "$work/stat")
    samples=$(awk '/Samples read/ {print $3}' "$work/stat")
    # The pass-band tone alone: 0.5 / sqrt(2) = 0.354 (the input's two tones: 0.5).
    if [ "$samples" = "$in_samples" ] && awk -v r="$rms" 'BEGIN {exit !(r > 0.346 && r < 0.361)}'; then
      pass "$mode: sox pipeline, $samples samples back of $in_samples, RMS $rms (expected 0.354)"
    else
      fail "$mode: sox pipeline: $samples samples of $in_samples, RMS $rms (expected 0.354)"
    fi
  fi
  if out=$(compare "$work/in.f32" "$work/out.f32" "$work/taps.txt"); then
    pass "$mode: $out"
  else
    fail "$mode: $out"
  fi

  [ "$quick" = 1 ] && continue

  # 2. A file, stdin and a FIFO, a multiple of the frame and not, real and complex.
  head -c $((1024 * 4 * 20)) "$work/in.f32" >"$work/whole.f32" # 20 frames exactly
  for src in whole in; do
    # shellcheck disable=SC2086
    zc_run stream "$work/$src.f32" $margs $filter_args --output "$work/o_file.f32" >/dev/null 2>&1
    # shellcheck disable=SC2086
    zc_run stream - $margs $filter_args --output "$work/o_stdin.f32" <"$work/$src.f32" >/dev/null 2>&1
    rm -f "$work/fifo" && mkfifo "$work/fifo"
    cat "$work/$src.f32" >"$work/fifo" &
    writer=$!
    # shellcheck disable=SC2086
    zc_run stream "$work/fifo" $margs $filter_args --output "$work/o_fifo.f32" >/dev/null 2>&1
    kill $writer 2>/dev/null # a writer still blocked in open() when zc never opened the FIFO
    wait $writer 2>/dev/null
    for kind in file stdin fifo; do
      if out=$(compare "$work/$src.f32" "$work/o_$kind.f32" "$work/taps.txt"); then
        pass "$mode: $src.f32 from a $kind: $out"
      else
        fail "$mode: $src.f32 from a $kind: $out"
      fi
    done
  done
  # Interleaved I/Q as cs16 (rtl_sdr writes cu8; both go the same way), read as complex.
  # shellcheck disable=SC2086
  zc_run stream "$work/iq.cs16" --format cs16 $margs $filter_args --frame-samples 512 \
    --output "$work/iq_out.f32" >/dev/null 2>&1
  if out=$(compare "$work/iq.f32" "$work/iq_out.f32" "$work/taps.txt" 2); then
    pass "$mode: cs16 I/Q: $out"
  else
    fail "$mode: cs16 I/Q: $out"
  fi

  # 3. Bad input. Empty: nothing out, exit 0.
  # shellcheck disable=SC2086
  : | zc_run stream - $margs $filter_args --output "$work/empty.f32" >/dev/null 2>&1
  rc=$?
  [ $rc = 0 ] && [ "$(stat -c %s "$work/empty.f32")" = 0 ] && pass "$mode: empty input" ||
    fail "$mode: empty input: exit $rc, $(stat -c %s "$work/empty.f32") bytes out"
  # A truncated last sample: exit 2 naming the byte offset, every whole sample written.
  head -c 40001 "$work/in.s16" >"$work/odd.s16"
  # shellcheck disable=SC2086
  zc_run stream "$work/odd.s16" --format s16 $margs $filter_args --output - \
    >"$work/odd.f32" 2>"$work/err"
  rc=$?
  if [ $rc = 2 ] && grep -q "byte offset 40000" "$work/err" &&
    [ "$(stat -c %s "$work/odd.f32")" = $((20000 * 4)) ]; then
    pass "$mode: truncated s16: exit 2, byte offset named, 20000 samples written to stdout"
  else
    fail "$mode: truncated s16: exit $rc, $(stat -c %s "$work/odd.f32") bytes: $(grep -v '^ ' "$work/err" | tail -2)"
  fi
  # A NaN: the run stops (exit 2) naming its frame, everything before written; or, with
  # --nonfinite zero, goes on as a 0 and counts it.
  "$py" -c "
import struct, sys
b = bytearray(open('$work/whole.f32', 'rb').read())
b[4 * 5000:4 * 5001] = struct.pack('f', float('nan'))
open('$work/nan.f32', 'wb').write(b)"
  # shellcheck disable=SC2086
  zc_run stream "$work/nan.f32" $margs $filter_args --output - \
    >"$work/nan_out.f32" 2>"$work/err"
  rc=$?
  if [ $rc = 2 ] && grep -q "sample 5000 (frame 4, channel 0) is NaN" "$work/err" &&
    [ "$(stat -c %s "$work/nan_out.f32")" = $((5000 * 4)) ]; then
    pass "$mode: NaN sample: exit 2, frame 4 named, the 5000 samples before it on stdout"
  else
    fail "$mode: NaN sample: exit $rc, $(stat -c %s "$work/nan_out.f32") bytes: $(tail -2 "$work/err")"
  fi
  # The same failure into a file given with --force: the old file stays whole, no temporary.
  printf 'old output\n' >"$work/old.f32"
  # shellcheck disable=SC2086
  zc_run stream "$work/nan.f32" $margs $filter_args --output "$work/old.f32" --force \
    >/dev/null 2>"$work/err"
  rc=$?
  if [ $rc = 2 ] && [ "$(cat "$work/old.f32")" = "old output" ] &&
    grep -q "old.f32 not written" "$work/err" &&
    [ -z "$(find "$work" -name '.zc-*')" ]; then
    pass "$mode: NaN sample into an existing file: exit 2, the old file left as it was"
  else
    fail "$mode: NaN sample into an existing file: exit $rc, old.f32 now $(stat -c %s "$work/old.f32") bytes: $(tail -2 "$work/err")"
  fi
  # shellcheck disable=SC2086
  zc_run stream "$work/nan.f32" $margs $filter_args --nonfinite zero \
    --output "$work/nan_out.f32" >"$work/log" 2>&1
  rc=$?
  [ $rc = 0 ] && grep -q "1 non-finite values filtered as 0 (the first at sample 5000, frame 4)" \
    "$work/log" && [ "$(stat -c %s "$work/nan_out.f32")" = $((1024 * 20 * 4)) ] &&
    pass "$mode: NaN sample with --nonfinite zero: counted, every sample out" ||
    fail "$mode: --nonfinite zero: exit $rc: $(tail -3 "$work/log")"
  # A FIFO that no writer opens: exit 6 after --timeout-ms, naming the FIFO (no hang in open).
  rm -f "$work/fifo" && mkfifo "$work/fifo"
  # shellcheck disable=SC2086
  zc_run stream "$work/fifo" $margs $filter_args --timeout-ms 300 >/dev/null 2>"$work/err"
  rc=$?
  if [ $rc = 6 ] && grep -q "no writer came to the FIFO $work/fifo within 300 ms" "$work/err"; then
    pass "$mode: FIFO without a writer: exit 6"
  else
    fail "$mode: FIFO without a writer: exit $rc: $(tail -2 "$work/err")"
  fi
  # A FIFO whose writer stalls: exit 6 after --timeout-ms, what came before filtered and written.
  rm -f "$work/fifo" && mkfifo "$work/fifo"
  (head -c $((3000 * 4)) "$work/in.f32"; sleep 3) >"$work/fifo" &
  writer=$!
  # shellcheck disable=SC2086
  zc_run stream "$work/fifo" $margs $filter_args --timeout-ms 500 --output - \
    >"$work/stall.f32" 2>"$work/err"
  rc=$?
  kill $writer 2>/dev/null
  wait $writer 2>/dev/null
  if [ $rc = 6 ] && grep -q "stalled" "$work/err" &&
    [ "$(stat -c %s "$work/stall.f32")" = $((3000 * 4)) ]; then
    pass "$mode: stalled FIFO: exit 6, the 3000 samples before the stall written"
  else
    fail "$mode: stalled FIFO: exit $rc, $(stat -c %s "$work/stall.f32") bytes: $(tail -2 "$work/err")"
  fi
done

# 4. Several modes in one run read stdin once (held in memory): the first mode's output is
# whole, and every run took and gave back every sample.
out=""
if [ "$quick" != 1 ] && { [ ${#mode_list[@]} -gt 1 ] || [ "$modes" = cpu ]; }; then
  list=$(printf '%s\n' "${mode_list[@]}" | sed 's/zerocopy-ll\|zerocopy-flag/zerocopy/' |
    sort -u | paste -sd, -)
  extra=""
  [ "$modes" = cpu ] && extra="--lanes 3" # the N-lane path, on the host
  # shellcheck disable=SC2086
  zc_run stream - --mode "$list" $extra $filter_args --output "$work/multi.f32" \
    --json "$work/multi.json" <"$work/in.f32" >/dev/null 2>"$work/err"
  rc=$?
  if [ $rc = 0 ] && out=$(compare "$work/in.f32" "$work/multi.f32" "$work/taps.txt"); then
    pass "$list${extra:+ $extra} from stdin: $out"
  else
    fail "$list${extra:+ $extra} from stdin: exit $rc: $(tail -2 "$work/err") $out"
  fi
  "$py" - "$work/multi.json" "$in_samples" <<'PY' && pass "every run: samples in = out" || fail "samples in/out in $work/multi.json"
import json, sys
doc, n = json.load(open(sys.argv[1])), int(sys.argv[2])
runs = doc.get("runs") or [doc]
for r in runs:
    s = r["samples"]
    print(f"  {r.get('name', r.get('mode'))}: in {s['in']} out {s['out']}")
    assert s["in"] == n and s["out"] == n, r
PY
fi

echo "$failures failure(s)"
[ $failures = 0 ]
