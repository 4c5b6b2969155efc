#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: pinning measured against its floor. `zc bench --case pin`
# (pin.floor: fresh pages first touched by every core, 4 KiB and transparent huge pages; pin.cost:
# cudaHostAlloc, cudaMallocHost, cudaHostRegister of fresh and touched malloc'd memory and
# zc_buffer_alloc beside that floor), full mode by default (64 MiB to 16 GiB, never more than 40%
# of MemAvailable), then PyTorch's way at the same sizes (bench/pinning/torch_pinning.py), once
# without and once with its register knob and once under zc run --fix fastpin, each in a process
# of its own, and a C program as it is (tests/run/run_subject pinonce: one cudaHostAlloc per
# size, plain and under zc run --fix fastpin, its digests compared and its resident memory and
# MemAvailable read after its free), placed on the GPU's NUMA node with numactl where the host
# has several. Writes RESULTS_DIR/pinning-family/: pin.json, pin.csv, pin.txt (zc bench),
# torch-default.jsonl, torch-register.jsonl, torch-zc-fastpin.jsonl, subject.jsonl,
# pinning-family.md (the table: size, way, seconds, seconds per GiB, ratio to each floor; the
# targets) and pinning-family.json (its rows). Fails (exit 1) when zc bench, a torch run or the
# C program fails, its digests differ plain and cured, its memory does not come back, or any
# data came back wrong; without a GPU (zc exits 3) or torch, the rows say "skipped" and why.
#   bash scripts/bench.d/49-pinning-family.sh ZC_BINARY RESULTS_DIR
# ZC_PYTHON: the interpreter with torch (python3 by default); ZC_BENCH_PINNING_MODE: quick,
# default or full (the default); ZC_BENCH_PINNING_SIZES: a --sizes list in place of the mode's
# (64M,1G,16G,64G: sizes over 40% of MemAvailable are left out, and said so).
set -uo pipefail
usage="usage: 49-pinning-family.sh ZC_BINARY RESULTS_DIR"
zc=${1:?$usage}
results=${2:?$usage}
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${ZC_PYTHON:-python3}
out=$results/pinning-family
knob="pinned_use_cuda_host_register:True,pinned_num_register_threads:8"
if [ ! -x "$zc" ]; then
  echo "49-pinning-family: $zc is not an executable zc" >&2
  exit 1
fi
mode=${ZC_BENCH_PINNING_MODE:-full}
case $mode in
  quick) mode_sizes=64M,256M,1G ;;
  default) mode_sizes=64M,256M,1G,4G ;;
  full) mode_sizes=64M,256M,1G,4G,16G ;;
  *)
    echo "49-pinning-family: ZC_BENCH_PINNING_MODE is quick, default or full, not '$mode'" >&2
    exit 1
    ;;
esac
mkdir -p "$out"
export PYTHONDONTWRITEBYTECODE=1
status=0

args=(bench --force --case pin --json "$out/pin.json" --csv "$out/pin.csv")
[ "$mode" = default ] || args+=("--$mode")
[ -n "${ZC_BENCH_PINNING_SIZES:-}" ] && args+=(--sizes "$ZC_BENCH_PINNING_SIZES")
start=$SECONDS
"$zc" "${args[@]}" >"$out/pin.txt" 2>"$out/pin.err"
zc_rc=$?
echo "49-pinning-family: zc ${args[*]}: exit $zc_rc, $((SECONDS - start)) s"
case $zc_rc in
  0) ;;
  3) echo "49-pinning-family: zc bench found no GPU: its rows are skipped" ;;
  *)
    status=1
    cat "$out/pin.err"
    ;;
esac

# The sizes zc measured, so that every torch row has its floor at the same size (the mode's own
# when zc measured none), and the GPU's NUMA node where the host has several ("" otherwise).
read -r sizes node < <(python3 - "$out/pin.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    doc = {}
sizes = sorted({p["bytes"] for c in doc.get("cases", []) if c.get("key") == "pin.cost"
                for p in c.get("points", [])})
devices = (doc.get("machine") or {}).get("devices") or [{}]
node = devices[0].get("numa_node")
print(",".join(str(s) for s in sizes) or "-", "" if node is None else node)
PY
)
[ "$sizes" = - ] && sizes=${ZC_BENCH_PINNING_SIZES:-$mode_sizes}
nodes=0
for dir in /sys/devices/system/node/node[0-9]*; do
  [ -d "$dir" ] && nodes=$((nodes + 1))
done
place=()
placement="one NUMA node"
if [ "${nodes:-1}" -gt 1 ]; then
  if [ -z "$node" ]; then
    placement="not placed: the GPU's NUMA node is unknown"
  elif command -v numactl >/dev/null; then
    place=(numactl "--preferred=$node")
    placement="numactl --preferred=$node (the GPU's node)"
  else
    placement="not placed: numactl is not installed"
  fi
fi

# The cures a program as it is gets its pinning through: the fastpin cure and the default ones.
fixes=fastpin,pageable,pinning,register
cured=("$zc" run -q --fix "$fixes" --)

# one LABEL ENV...: torch_pinning.py in a process of its own with the environment given (under
# zc run when LABEL is zc-fastpin).
torch_run() {
  local label=$1 rc wrap=()
  shift
  [ "$label" = zc-fastpin ] && wrap=("${cured[@]}")
  env "$@" timeout 1800 "${place[@]}" "${wrap[@]}" "$python" \
    "$root/bench/pinning/torch_pinning.py" --sizes "$sizes" >"$out/torch-$label.jsonl" \
    2>"$out/torch-$label.err"
  rc=$?
  echo "49-pinning-family: torch ($label): exit $rc"
  if [ $rc -ne 0 ]; then
    status=1
    tail -5 "$out/torch-$label.err"
  fi
}
torch_run default -u PYTORCH_CUDA_ALLOC_CONF
torch_run register "PYTORCH_CUDA_ALLOC_CONF=$knob"
torch_run zc-fastpin -u PYTORCH_CUDA_ALLOC_CONF

# A C program as it is (tests/run/run_subject pinonce: one cudaHostAlloc per size, its data
# verified through the GPU, its resident memory and MemAvailable before, with the block and after
# its free), plain and under zc run with the fastpin cure, alternated, one process each.
subject=$(cd "$(dirname "$zc")/../.." && pwd)/tests/run/run_subject
: >"$out/subject.jsonl"
if [ -x "$subject" ] && [ "$zc_rc" != 3 ]; then
  for n in ${sizes//,/ }; do
    for how in plain cured; do
      wrap=()
      [ "$how" = cured ] && wrap=("${cured[@]}")
      line=$(timeout 900 "${place[@]}" "${wrap[@]}" "$subject" pinonce "$n" 0 \
        2>>"$out/subject.err")
      rc=$?
      echo "49-pinning-family: run_subject pinonce $n ($how): exit $rc"
      [ $rc -eq 0 ] || status=1
      printf '{"how": "%s", "exit": %d, "result": %s}\n' "$how" "$rc" "${line:-null}" \
        >>"$out/subject.jsonl"
    done
  done
else
  echo '{"skipped": "no GPU, or tests/run/run_subject is not built"}' >"$out/subject.jsonl"
fi

if ! python3 - "$out" "$zc_rc" "$placement" <<'PY'
"""pinning-family.md and .json from zc's document and torch's lines; exit 1 on wrong data or a
failed torch run."""
import json
import sys

out, zc_rc, placement = sys.argv[1], int(sys.argv[2]), sys.argv[3]
GIB = 1 << 30
rows, failures, notes = [], [], []
said = []  # table rows of what was not measured: (size, way, why)
TORCH_WAYS = ("torch.empty(pin_memory=True)", "tensor.pin_memory()")


def size(n):
    for unit, scale in (("GiB", GIB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


try:
    doc = json.load(open(f"{out}/pin.json"))
except (OSError, ValueError) as error:
    doc = {"cases": []}
    why = "no GPU" if zc_rc == 3 else f"no document (exit {zc_rc}: {error})"
    said.append(("-", "zc bench --case pin (every zc way, the floor)", f"skipped: {why}"))
cases = {c["key"]: c for c in doc.get("cases", [])}
floors = {}  # bytes -> {"4k": s, "thp": s}, from pin.cost's own rounds, else pin.floor's
for key in ("pin.floor", "pin.cost"):
    case = cases.get(key)
    if case is None:
        continue
    if case["outcome"] != "ok":
        notes.append(f"{key}: {case['outcome']}: {case['reason']}")
        if case["outcome"] in ("FAIL", "error"):
            failures.append(f"{key}: {case['outcome']}")
        continue
    notes.append(f"{key}: {case['reason']}")
    # The finding opens with the sizes the host's memory left out: a row each.
    for part in case["reason"].split("; "):
        left, sep, why = part.partition(" left out: ")
        if sep and key == "pin.cost":
            said.append((left, "zc bench --case pin (every zc way, the floor)",
                         f"left out: {why}"))
    for p in case["points"]:
        if p["variant"] in ("floor 4 KiB pages: touch", "floor THP: touch"):
            kind = "4k" if "4 KiB" in p["variant"] else "thp"
            floors.setdefault(p["bytes"], {})[kind] = p["stats"]["median"] / 1e6


def add(n, way, phase, median, lo, hi, count, source):
    f = floors.get(n, {})
    making = phase not in ("free", "munmap", "unregister+free")
    rows.append({"bytes": n, "way": way, "phase": phase, "seconds": median, "min": lo, "max": hi,
                 "rounds": count, "s_per_gib": median / (n / GIB), "source": source,
                 "x_floor_4k": median / f["4k"] if making and f.get("4k") else None,
                 "x_floor_thp": median / f["thp"] if making and f.get("thp") else None})


for p in (cases.get("pin.cost") or {}).get("points", []):
    way, _, phase = p["variant"].partition(": ")
    s = p["stats"]
    add(p["bytes"], way, phase, s["median"] / 1e6, s["min"] / 1e6, s["max"] / 1e6, s["count"],
        "zc bench pin.cost")

for label, title in (("default", "torch"), ("register", "torch, register knob"),
                     ("zc-fastpin", "torch under zc run --fix fastpin")):
    path = f"{out}/torch-{label}.jsonl"
    lines = []
    try:
        lines = [json.loads(x) for x in open(path) if x.startswith("{")]
    except (OSError, ValueError) as error:
        failures.append(f"{title}: {path}: {error}")
    if not lines:
        failures.append(f"{title}: no JSON line (see torch-{label}.err)")
    for line in lines:
        knob = {"register": "register knob", "zc-fastpin": "zc run --fix fastpin"}.get(
            label, "default")
        if "skipped" in line:
            said += [("-", f"{w} ({knob})", f"skipped: {line['skipped']}") for w in TORCH_WAYS]
        elif "left_out" in line:
            said += [(size(line["bytes"]), f"{w} ({knob})", f"left out: {line['left_out']}")
                     for w in TORCH_WAYS]
        elif not line.get("verified"):
            failures.append(f"{title}: {line.get('way')} {size(line['bytes'])}: "
                            f"{line.get('error', 'not verified')}")
        else:
            way = f"{line['way']} ({knob})"
            free = line["free_seconds"]
            add(line["bytes"], way, "allocate", line["median_s"], line["min_s"], line["max_s"],
                line["rounds"], "bench/pinning/torch_pinning.py")
            add(line["bytes"], way, "free", line["free_median_s"], min(free), max(free),
                line["rounds"], "bench/pinning/torch_pinning.py")
            if not line.get("fresh_every_round"):
                notes.append(f"{title}: this torch cannot empty its pinned cache: rounds after "
                             f"the first were served from it")


# The C program as it is, plain and cured: its two phases, its digest the same both ways, and
# whether the system got the memory back after the free.
subject_digests = {}
try:
    subject_lines = [json.loads(x) for x in open(f"{out}/subject.jsonl") if x.startswith("{")]
except (OSError, ValueError) as error:
    subject_lines = []
    failures.append(f"run_subject: {error}")
for line in subject_lines:
    if "skipped" in line:
        said.append(("-", "cudaHostAlloc in a program as it is", f"skipped: {line['skipped']}"))
        continue
    r = line.get("result")
    if line.get("exit") != 0 or not r:
        failures.append(f"run_subject pinonce ({line.get('how')}): exit {line.get('exit')}")
        continue
    way = ("cudaHostAlloc, a program as it is" if line["how"] == "plain" else
           "cudaHostAlloc, a program as it is, zc run --fix fastpin")
    add(r["bytes"], way, "allocate", r["alloc_s"], r["alloc_s"], r["alloc_s"], 1, "run_subject")
    add(r["bytes"], way, "free", r["free_s"], r["free_s"], r["free_s"], 1, "run_subject")
    subject_digests.setdefault(r["bytes"], set()).add(r["digest"])
    # Back when the process no longer holds the pages (its resident memory, read at once), or,
    # where that was not read, when the system's available memory is back: MemAvailable lags
    # while freed pages sit on the kernel's per-CPU lists.
    m, rss = r["mem_available"], r.get("resident") or {}
    slack = max(r["bytes"] // 20, 64 << 20)
    if rss.get("before"):
        back = rss["after_free"] <= rss["before"] + slack
    else:
        back = m["after_free"] >= m["before"] - slack
    resident = (f"; resident {rss['before'] / GIB:.2f} GiB before, {rss['held'] / GIB:.2f} with "
                f"the block, {rss['after_free'] / GIB:.2f} after" if rss.get("before") else "")
    notes.append(f"run_subject pinonce {size(r['bytes'])} ({line['how']}): MemAvailable "
                 f"{m['before'] / GIB:.2f} GiB before, {m['held'] / GIB:.2f} with the block, "
                 f"{m['after_free'] / GIB:.2f} after its free{resident}: "
                 f"{'back to the system' if back else 'NOT back'}; flags 0x{r['flags_seen']:x}")
    if not back:
        failures.append(f"run_subject pinonce {size(r['bytes'])} ({line['how']}): the memory "
                        f"did not come back after the free")
for n, digests in subject_digests.items():
    if len(digests) != 1:
        failures.append(f"run_subject pinonce {size(n)}: the digests differ plain and cured")


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


rows.sort(key=lambda r: (r["bytes"], r["source"] != "zc bench pin.cost"))
table = ["| size | way | phase | seconds (median) | min..max | rounds | s/GiB | x floor 4 KiB | "
         "x floor THP |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
for r in rows:
    table.append(f"| {size(r['bytes'])} | {r['way']} | {r['phase']} | {fmt(r['seconds'], 4)} | "
                 f"{fmt(r['min'], 4)}..{fmt(r['max'], 4)} | {r['rounds']} | "
                 f"{fmt(r['s_per_gib'])} | {fmt(r['x_floor_4k'], 2)} | "
                 f"{fmt(r['x_floor_thp'], 2)} |")
for n, way, why in said:
    table.append(f"| {n} | {way} | {why} | | | | | | |")


def find(n, way, phase):
    return next((r for r in rows if r["bytes"] == n and r["way"] == way and r["phase"] == phase),
                None)


targets = []
measured = sorted({r["bytes"] for r in rows if r["source"] == "zc bench pin.cost"})
if measured:
    n = 16 * GIB if 16 * GIB in measured else measured[-1]
    zc_row = find(n, "zc_buffer_alloc pinned", "allocate")
    host = find(n, "cudaHostAlloc", "allocate")
    if zc_row and zc_row["x_floor_4k"] is not None and zc_row["x_floor_thp"] is not None:
        targets.append(f"- at {size(n)}: zerocopy's path {zc_row['x_floor_4k']:.2f}x the 4 KiB "
                       f"floor, {zc_row['x_floor_thp']:.2f}x the THP floor per GiB (target: "
                       f"within 1.5x): {'met' if zc_row['x_floor_thp'] <= 1.5 else 'NOT met'} "
                       f"against the THP floor, "
                       f"{'met' if zc_row['x_floor_4k'] <= 1.5 else 'NOT met'} against 4 KiB")
    if zc_row and host:
        speedup = host["seconds"] / zc_row["seconds"]
        targets.append(f"- at {size(n)}: cudaHostAlloc / zerocopy's path = {speedup:.1f}x "
                       f"(target: at least 8x at 16 GiB): "
                       f"{'met' if speedup >= 8 else 'NOT met'}"
                       f"{'' if n == 16 * GIB else ' (16 GiB was not measured)'}")

if measured:
    plain = find(n, "cudaHostAlloc, a program as it is", "allocate")
    fast = find(n, "cudaHostAlloc, a program as it is, zc run --fix fastpin", "allocate")
    knob_row = find(n, "torch.empty(pin_memory=True) (register knob)", "allocate")
    torch_fast = find(n, "torch.empty(pin_memory=True) (zc run --fix fastpin)", "allocate")
    if plain and fast:
        speedup = plain["seconds"] / fast["seconds"]
        targets.append(f"- at {size(n)} in a program as it is: cudaHostAlloc plain / under zc run "
                       f"--fix fastpin = {speedup:.1f}x (target: at least 8x): "
                       f"{'met' if speedup >= 8 else 'NOT met'}")
    if knob_row and torch_fast:
        faster = torch_fast["seconds"] < knob_row["seconds"]
        targets.append(f"- at {size(n)}: torch.empty(pin_memory=True) under zc run --fix fastpin "
                       f"{torch_fast['seconds']:.3f} s against PyTorch's register knob "
                       f"{knob_row['seconds']:.3f} s (target: faster): "
                       f"{'met' if faster else 'NOT met'}")

md = ["# Pinning against its floor", "",
      "Seconds are host-clock medians of fresh memory each round (min..max beside them); GiB = "
      "2^30 bytes; a way's ratio is its median over the floor's median at the same size (the "
      "floor: fresh pages first touched by every core, 4 KiB pages or transparent huge pages, "
      "measured by zc bench in the same rounds as its ways). Ratios are given for making memory; "
      "`free` and `munmap` rows give it back. torch rows: bench/pinning/torch_pinning.py at the "
      f"same sizes, a process per knob setting; placement: {placement}.", ""] + table
md += ["", "## The targets", ""] + (targets or ["- not measured"])
md += ["", "## Notes", ""] + [f"- {n}" for n in notes]
if failures:
    md += ["", "## FAILED", ""] + [f"- {f}" for f in failures]
open(f"{out}/pinning-family.md", "w").write("\n".join(md) + "\n")
json.dump({"placement": placement, "rows": rows, "targets": targets, "notes": notes,
           "failures": failures}, open(f"{out}/pinning-family.json", "w"), indent=1)
print("\n".join(md))
sys.exit(1 if failures else 0)
PY
then
  status=1
fi
exit $status
