#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc advise held to this GPU: a zc bench profile (the one of 20-bench.sh when there is one),
# two validation runs of the 12 fixed workloads, one of 20 random workloads, and stream advice
# checked against zc stream runs it was not made from. Writes RESULTS_DIR/advise/: run1/, run2/,
# random/ (validation.md and .json each), stream-a/ and stream-b/ (zc stream JSON),
# stream-check.md, profile.json, summary.md (every figure the targets need, in one file), then
# the report page. Run as: bash 50-advise.sh ZC_BINARY RESULTS_DIR (about five minutes).
# ZC_ADVISE_SEED picks the random workloads (default 20261202); ZC_ADVISE_STREAM=0 leaves the
# stream runs and their check out (the technique model alone, in half the time).
set -uo pipefail
zc=${1:?usage: 50-advise.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 50-advise.sh ZC_BINARY RESULTS_DIR}
seed=${ZC_ADVISE_SEED:-20261202}
out="$results/advise"
mkdir -p "$out"
status=0

# The profile: 20-bench.sh's zc bench when it ran, else a zc bench of our own (default mode).
profile="$results/bench.json"
if [ ! -s "$profile" ]; then
  profile="$out/bench.json"
  start=$SECONDS
  "$zc" bench --force --json "$profile" >"$out/bench.txt" 2>"$out/bench.err" ||
    { status=1; tail -20 "$out/bench.err"; }
  echo "zc bench (for the profile): $((SECONDS - start)) s"
fi
echo "profile: $profile"

# validate NAME ARGS...: one zc advise --validate into $out/NAME.
validate() {
  local name=$1
  shift
  local start=$SECONDS
  "$zc" advise --validate --force --profile "$profile" --out "$out/$name" "$@" \
    >"$out/$name.txt" 2>"$out/$name.err"
  local rc=$?
  echo "zc advise --validate $*: exit $rc, $((SECONDS - start)) s"
  [ $rc -eq 0 ] || { status=1; tail -20 "$out/$name.err"; }
  grep -m1 "Recommended technique measured fastest" "$out/$name/validation.md" 2>/dev/null
}
validate run1 --save-profile "$out/profile.json"
validate run2
validate random --random 20 --seed "$seed"

# Stream runs, two sets (a: advised from; b: checked against), each at 4 KiB, 64 KiB and 1 MiB
# frames, one in flight (latency) and 16 in flight (throughput). Every mode zc stream has; the
# host filter only where its frames are short enough to finish in seconds.
gpu_modes=zerocopy,mapped-launch,classic-pageable,classic-pinned,classic-overlap,graph
if "$zc" stream --help 2>&1 | grep -q "stream-wait"; then
  gpu_modes="$gpu_modes,stream-wait"
fi
stream() {
  local file=$1
  shift
  "$zc" stream --force --json "$file" --taps 64 --protocol both "$@" >"${file%.json}.txt" 2>&1 ||
    { status=1; echo "FAILED: zc stream $*"; tail -5 "${file%.json}.txt"; }
}
stream_sets="a b"
[ "${ZC_ADVISE_STREAM:-1}" = 0 ] && stream_sets=""
for set in $stream_sets; do
  d="$out/stream-$set"
  mkdir -p "$d"
  stream "$d/lat_4k.json" --mode all --frame-samples 1024 --in-flight 1 --frames 20000 \
    --warmup 1000
  stream "$d/lat_64k.json" --mode all --frame-samples 16384 --in-flight 1 --frames 4000 \
    --warmup 200
  stream "$d/lat_1m.json" --mode "$gpu_modes" --frame-samples 262144 --in-flight 1 \
    --frames 1000 --warmup 50
  stream "$d/thr_4k.json" --mode "$gpu_modes" --frame-samples 1024 --in-flight 16 \
    --frames 20000 --warmup 1000 --reuse
  stream "$d/thr_64k.json" --mode "$gpu_modes" --frame-samples 16384 --in-flight 16 \
    --frames 5000 --warmup 200 --reuse
  stream "$d/thr_1m.json" --mode "$gpu_modes" --frame-samples 262144 --in-flight 16 \
    --frames 2000 --warmup 100 --reuse
done
from=() against=()
for f in "$out"/stream-a/*.json; do [ -s "$f" ] && from+=(--stream "$f"); done
for f in "$out"/stream-b/*.json; do [ -s "$f" ] && against+=(--stream-check "$f"); done
if [ ${#from[@]} -gt 0 ] && [ ${#against[@]} -gt 0 ]; then
  "$zc" advise "${from[@]}" "${against[@]}" >"$out/stream-check.md" 2>"$out/stream-check.err" ||
    { status=1; cat "$out/stream-check.err"; }
  sed -n '3p' "$out/stream-check.md"
elif [ -n "$stream_sets" ]; then
  status=1
  echo "no zc stream results to advise from or to check against"
fi
# The advice itself for each size, as a user would ask for it.
for size in 4K 64K 1M; do
  [ ${#from[@]} -gt 0 ] || break
  "$zc" advise "${from[@]}" --frame "$size" >"$out/stream-advice-$size.txt" 2>&1 || status=1
  "$zc" advise "${from[@]}" --frame "$size" --frame-rate 1000 \
    >"$out/stream-advice-$size-1khz.txt" 2>&1 || status=1
  tail -1 "$out/stream-advice-$size.txt"
done

# Example advice for the tour, from the saved profile.
"$zc" advise --profile "$out/profile.json" --bytes 4K --concurrent --latency-budget 20 \
  >"$out/example-4k.txt" 2>&1 || status=1
"$zc" advise --profile "$out/profile.json" --bytes 64M --transfers 100 \
  >"$out/example-64m.txt" 2>&1 || status=1

# Every figure of the targets in one file: both fixed runs, the random run, the stream check.
{
  echo "# zc advise on this GPU"
  echo
  echo "Profile: $profile. Random workloads: seed $seed."
  echo
  if command -v python3 >/dev/null; then
    python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def summary(name):
    try:
        with open(os.path.join(out, name, "validation.json")) as f:
            return json.load(f)["summary"]
    except (OSError, ValueError, KeyError):
        return None
print("| run | workloads | advice fastest or tied | fastest outright | advice within 20% "
      "| median abs error | largest abs error |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name in ("run1", "run2", "random"):
    s = summary(name)
    if s is None:
        print(f"| {name} | missing | | | | | |")
        continue
    print(f"| {name} | {s['workloads']} | {s['hits_or_tied']} | {s['hits']} | "
          f"{s['recommended_within_20pct']} | {100 * s['median_abs_error']:.1f}% | "
          f"{100 * s['max_abs_error']:.1f}% |")
PY
  fi
  echo
  for name in run1 run2 random; do
    [ -s "$out/$name/validation.md" ] && cat "$out/$name/validation.md"
  done
  cat "$out/stream-check.md" 2>/dev/null
} >"$out/summary.md"
sed -n '1,12p' "$out/summary.md"

# The report page from every bench and stream result here (pictures need gnuplot and graphviz;
# without them the page says so).
inputs=()
for f in "$results"/bench.json "$results"/stream*.json "$results"/pinning.json; do
  [ -s "$f" ] && inputs+=("$f")
done
[ ${#inputs[@]} -gt 0 ] || inputs=("$out/profile.json")
"$zc" report --force -o "$results/report.html" --picture-dot "$results/picture.dot" "${inputs[@]}" ||
  status=1
exit $status
