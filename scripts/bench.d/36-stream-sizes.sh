#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Which stream mode is fastest at each frame size: every GPU mode of zc stream (zerocopy LL and
# FLAG, mapped-launch, classic-pageable, classic-pinned, classic-overlap, graph, stream-wait) at
# frames of 256 B to 4 MiB, 64 taps, each result checked against the reference (a sample of the
# frames, as zc stream does by default): latency with one frame in flight, and input throughput
# with 16 in flight (8 at 4 MiB; --reuse, so the CPU's memcpy does not stand in for the link).
# Run as: bash 36-stream-sizes.sh ZC_BINARY RESULTS_DIR. Writes RESULTS_DIR/stream_sizes/ (one
# zc stream JSON per size and objective), stream_sizes.json (the winners per size, schema
# zerocopy.stream-sizes/1), stream_sizes.txt and stream_sizes.md (the table docs/stream.md
# quotes); takes about two minutes.
set -uo pipefail
zc=${1:?usage: 36-stream-sizes.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 36-stream-sizes.sh ZC_BINARY RESULTS_DIR}
dir="$results/stream_sizes"
mkdir -p "$dir"
status=0
modes=zerocopy,mapped-launch,classic-pageable,classic-pinned,classic-overlap,graph,stream-wait

# run NAME ARGS...: one zc stream run over every mode, its JSON in NAME.json.
run() {
  local name=$1
  shift
  "$zc" stream --mode "$modes" --protocol both --taps 64 "$@" --force \
    --json "$dir/$name.json" >"$dir/$name.txt" 2>&1 ||
    { echo "FAILED: zc stream $*"; tail -5 "$dir/$name.txt"; status=1; }
}

for bytes in 256 1024 4096 16384 65536 262144 1048576 4194304; do
  samples=$((bytes / 4))
  if [ "$bytes" -le 65536 ]; then lat_frames=2000; else lat_frames=300; fi
  if [ "$bytes" -ge 4194304 ]; then in_flight=8; tput_frames=200; else in_flight=16; tput_frames=1000; fi
  run "lat_$bytes" --frame-samples "$samples" --in-flight 1 --frames "$lat_frames" --warmup 200
  run "tput_$bytes" --frame-samples "$samples" --in-flight "$in_flight" --frames "$tput_frames" \
    --warmup 50 --reuse
done

python3 - "$dir" "$results" <<'PY'
import glob, json, os, sys
d, results = sys.argv[1], sys.argv[2]
def all_runs(name):
    p = os.path.join(d, name + ".json")
    return json.load(open(p))["runs"] if os.path.exists(p) else []
sizes = sorted({int(os.path.basename(p)[4:-5]) for p in glob.glob(os.path.join(d, "lat_*.json"))})
summary = {"schema": "zerocopy.stream-sizes/1",
           "method": "zc stream, 64 taps, every GPU mode; latency: one frame in flight, p50 of "
                     "each frame's publish-to-result time; throughput: 16 frames in flight (8 at "
                     "4 MiB), --reuse, input GB/s (1 GB = 1e9 B); results verified against the "
                     "double-precision reference",
           "sizes": []}
def fmt(b):
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB" if b >= 1024 else f"{b} B"
lines = ["| frame | fastest p50 (one in flight) | runner-up | zerocopy-ll p50 | classic-pinned p50 "
         "| stream-wait p50 | most GB/s (16 in flight) | runner-up | zerocopy-flag GB/s | "
         "classic-overlap GB/s |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
text = []
for b in sizes:
    both = all_runs(f"lat_{b}"), all_runs(f"tput_{b}")
    lat, tput = ({r["name"]: r for r in runs if r.get("ok")} for runs in both)
    p50 = {n: r["latency_us"]["p50"] for n, r in lat.items() if r.get("latency_us")}
    gbs = {n: r["throughput"]["gb_per_s"] for n, r in tput.items()}
    by_lat = sorted(p50, key=p50.get)
    by_gbs = sorted(gbs, key=gbs.get, reverse=True)
    entry = {"frame_bytes": b,
             "latency_us": {n: {k: lat[n]["latency_us"][k] for k in ("p50", "p99", "p999", "max")}
                            for n in p50},
             "gb_per_s": gbs,
             "fastest_latency": by_lat[0] if by_lat else None,
             "fastest_throughput": by_gbs[0] if by_gbs else None,
             "skipped": sorted(r["name"] for runs in both for r in runs if not r.get("ok"))}
    summary["sizes"].append(entry)
    def l(n): return f"{p50[n]:.2f} us" if n in p50 else "-"
    def g(n): return f"{gbs[n]:.2f}" if n in gbs else "-"
    lines.append(f"| {fmt(b)} | {by_lat[0] if by_lat else '-'} {l(by_lat[0]) if by_lat else ''} | "
                 f"{by_lat[1] if len(by_lat) > 1 else '-'} {l(by_lat[1]) if len(by_lat) > 1 else ''} | "
                 f"{l('zerocopy-ll')} | {l('classic-pinned')} | {l('stream-wait')} | "
                 f"{by_gbs[0] if by_gbs else '-'} {g(by_gbs[0]) if by_gbs else ''} | "
                 f"{by_gbs[1] if len(by_gbs) > 1 else '-'} {g(by_gbs[1]) if len(by_gbs) > 1 else ''} | "
                 f"{g('zerocopy-flag')} | {g('classic-overlap')} |")
    text.append(f"{fmt(b):>8}: latency " + ", ".join(f"{n} {p50[n]:.2f}" for n in by_lat))
    text.append(f"{'':>8}  GB/s    " + ", ".join(f"{n} {gbs[n]:.2f}" for n in by_gbs))
# The crossover: the first size from which the fastest mode (by each objective) stops being the
# one that won at the smallest size.
for key in ("fastest_latency", "fastest_throughput"):
    first = summary["sizes"][0][key] if summary["sizes"] else None
    cross = next((e["frame_bytes"] for e in summary["sizes"] if e[key] != first), None)
    summary[key.replace("fastest", "crossover")] = {"small_frames": first, "from_bytes": cross,
        "then": next((e[key] for e in summary["sizes"] if e[key] != first), None)}
json.dump(summary, open(os.path.join(results, "stream_sizes.json"), "w"), indent=1)
open(os.path.join(results, "stream_sizes.md"), "w").write("\n".join(lines) + "\n")
out = "\n".join(text) + "\n" + json.dumps({k: v for k, v in summary.items() if k.startswith("crossover")})
open(os.path.join(results, "stream_sizes.txt"), "w").write(out + "\n")
print(out)
print("\n".join(lines))
PY
exit $status
