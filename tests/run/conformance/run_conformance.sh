#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc run's conformance suite: each program run plain, then under zc run with its default cures
# ("cured"), then under zc run with settings so small that every path cuts, wraps and evicts
# ("tight"); a cured run must print the same stdout and exit with the same code as the plain run.
#
#   run_conformance.sh [--zc PATH] [--probe PATH] [--python PATH] [--only REGEX]
#                      [--configs plain,cured,tight] [--memcheck] [--timeout S] [--] PROGRAM...
#
# A PROGRAM is an executable, or a Python script (NAME.py) run by --python (python3). It prints
# only lines that depend on what it computed on stdout, diagnostics on stderr, and exits 0 when
# its own checks passed. The plain run is always made (it is the reference); --configs says which
# configurations are reported. --memcheck runs every configuration's program under
# compute-sanitizer's memcheck (exit 99 on an error found, its log kept out of stdout).
#
# One line per program and configuration: "PASS NAME CONFIG", "FAIL NAME CONFIG: how" (followed
# by the diff of stdout and the end of stderr), "SKIP NAME CONFIG: why" (the program exited 77);
# a cured run also fails when its report says zc run's library reached no process; then
# "N passed, N failed", with ", N skipped" when some were. Exit 0 when every line passed, 1 when
# one failed, 77 when there is no GPU (--probe: a program that exits 0 with a GPU and 77 without;
# else nvidia-smi -L) or nothing passed and something skipped, 2 for a bad option.
set -uo pipefail
SKIP=77
export LC_ALL=C

zc=zc probe='' python=python3 only='' configs=plain,cured,tight memcheck=0 limit=''
programs=()

usage() {
  echo "usage: run_conformance.sh [--zc PATH] [--probe PATH] [--python PATH] [--only REGEX]" \
    "[--configs plain,cured,tight] [--memcheck] [--timeout S] [--] PROGRAM..."
}

bad_option() {
  echo "run_conformance.sh: $*" >&2
  usage >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    --zc | --probe | --python | --only | --configs | --timeout)
      [ $# -ge 2 ] || bad_option "$1 needs a value"
      case $1 in
        --zc) zc=$2 ;;
        --probe) probe=$2 ;;
        --python) python=$2 ;;
        --only) only=$2 ;;
        --configs) configs=$2 ;;
        --timeout) limit=$2 ;;
      esac
      shift 2
      ;;
    --memcheck) memcheck=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; programs+=("$@"); break ;;
    -*) bad_option "unknown option $1" ;;
    *) programs+=("$1"); shift ;;
  esac
done

report_configs=()
IFS=, read -r -a report_configs <<<"$configs"
for config in "${report_configs[@]}"; do
  case $config in
    plain | cured | tight) ;;
    *) bad_option "--configs: unknown configuration '$config' (plain, cured, tight)" ;;
  esac
done
[ ${#report_configs[@]} -gt 0 ] || bad_option "--configs: none given"
if [ -n "$limit" ] && ! [[ $limit =~ ^[1-9][0-9]*$ ]]; then
  bad_option "--timeout: '$limit' is not a whole number of seconds"
fi

selected=()
for program in "${programs[@]}"; do
  name=$(basename "$program")
  if [ -z "$only" ] || [[ $name =~ $only ]]; then
    selected+=("$program")
  fi
done
if [ ${#selected[@]} -eq 0 ]; then
  [ -z "$only" ] || bad_option "--only: no program's name matches $only"
  bad_option "no program given"
fi

# The settings of "tight": every cure (--fix all below: those off by default too), chunks and
# staging buffers of a page, two of them, two threads, every pageable copy cured and the fresh
# destination pages of every one from a page on faulted in (allocations from a page tracked for
# it: from 1 byte, every malloc would take the table's lock), large allocations advised to use
# huge pages, caches small enough that pinned blocks, pinned-in-place buffers and the blocks
# the program freed are evicted all the time, pinned allocations from 4 MiB served from fresh
# pages pinned whole (not below: the driver carves blocks up to 1 MiB out of shared pieces whose
# flags they answer with, which no block of its own can copy), and host copies into or out of
# pinned memory from 64 KiB (the least) made by the threads. The caller's own values for them
# would change "cured" too.
tight_env=(ZC_RUN_CHUNK=4096 ZC_RUN_BUFFERS=2 ZC_RUN_THREADS=2 ZC_RUN_MIN_BYTES=1
  ZC_RUN_MIN_D2H_BYTES=1 ZC_RUN_FRESH_MIN_BYTES=4096 ZC_RUN_FRESH_HUGE=1 ZC_RUN_CACHE_BYTES=65536
  ZC_RUN_REGISTER_BYTES=1048576 ZC_RUN_REUSE_BYTES=1048576 ZC_RUN_FASTPIN_BYTES=4194304
  ZC_RUN_FASTPIN_THREADS=3 ZC_RUN_HOSTCOPY_BYTES=65536)
unset ZC_RUN_CHUNK ZC_RUN_BUFFERS ZC_RUN_THREADS ZC_RUN_MIN_BYTES ZC_RUN_MIN_D2H_BYTES \
  ZC_RUN_FRESH_MIN_BYTES ZC_RUN_FRESH_HUGE ZC_RUN_CACHE_BYTES ZC_RUN_REGISTER_BYTES \
  ZC_RUN_REUSE_BYTES ZC_RUN_FASTPIN_BYTES ZC_RUN_FASTPIN_THREADS ZC_RUN_HOSTCOPY_BYTES

sanitizer=()
if [ "$memcheck" = 1 ]; then
  tool=$(command -v compute-sanitizer || true)
  for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
    /usr/local/cuda/bin/compute-sanitizer; do
    [ -n "$tool" ] || { [ -x "$candidate" ] && tool=$candidate; }
  done
  [ -n "$tool" ] || bad_option "--memcheck: compute-sanitizer is not on PATH or in \$CUDA_HOME/bin"
  # API errors are not memcheck's errors here: some programs make them on purpose, and zc run must
  # return the same ones. Its log goes to a file, so stdout stays the program's own.
  sanitizer=("$tool" --tool memcheck --error-exitcode 99 --report-api-errors no
    --target-processes all)
  limit=${limit:-900}
fi
limit=${limit:-120}

work=$(mktemp -d "${TMPDIR:-/tmp}/zc-conformance.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0
# The report's top-level keys are one tab in (docs/json.md: library_loaded is false when no process
# wrote a log, that is when the library was loaded nowhere).
tab=$'\t'

summary() {
  local line="$passed passed, $failed failed"
  [ "$skipped" -eq 0 ] || line+=", $skipped skipped"
  echo "$line"
}

# No GPU: every line skipped, and the skip code.
why_no_gpu=''
if [ -n "$probe" ]; then
  "$probe" >/dev/null 2>"$work/probe.err"
  rc=$?
  if [ "$rc" -eq "$SKIP" ]; then
    why_no_gpu=$(head -n 1 "$work/probe.err" | sed 's/^SKIP [^:]*: //')
  elif [ "$rc" -ne 0 ]; then
    echo "FAIL the GPU probe $probe exited $rc:"
    sed 's/^/    /' "$work/probe.err"
    exit 1
  fi
elif ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  why_no_gpu="nvidia-smi -L lists no GPU"
fi
if [ -n "$why_no_gpu" ]; then
  echo "SKIP every program: $why_no_gpu"
  skipped=$((${#selected[@]} * ${#report_configs[@]}))
  summary
  exit "$SKIP"
fi

# run_config NAME CONFIG PROGRAM: one run, its stdout, stderr and zc run's report kept in
# $work/NAME.CONFIG.*; its exit code in $rc.
run_config() {
  local base="$work/$1.$2" cmd=()
  case $3 in
    *.py) cmd=("$python" "$3") ;;
    *) cmd=("$3") ;;
  esac
  # Under memcheck, zc run starts compute-sanitizer, which starts the program: zc run's preload
  # is in the environment both inherit, so the program is cured as it would be without the
  # sanitizer, and the sanitizer checks the program itself. (The other order would have the
  # sanitizer watch zc run, and reach the program only as a child it must be told to follow.)
  # The report says whether the library reached a process (a failure when not).
  [ ${#sanitizer[@]} -eq 0 ] || cmd=("${sanitizer[@]}" --log-file "$base.memcheck" "${cmd[@]}")
  case $2 in
    cured) cmd=("$zc" run --force --report "$base.json" -- "${cmd[@]}") ;;
    tight) cmd=(env "${tight_env[@]}" "$zc" run --fix all --force --report "$base.json" --
      "${cmd[@]}") ;;
  esac
  timeout -k 10 "$limit" "${cmd[@]}" >"$base.out" 2>"$base.err" </dev/null
  rc=$?
}

# show NAME CONFIG: what a failed run left: the diff from the plain run, the end of stderr and
# of the sanitizer's log.
show() {
  local base="$work/$1.$2"
  if [ "$2" != plain ] && ! cmp -s "$work/$1.plain.out" "$base.out"; then
    echo "  --- stdout, plain (-) and $2 (+):"
    diff -u "$work/$1.plain.out" "$base.out" | tail -n +3 | head -n 60 | sed 's/^/    /'
  elif [ "$2" = plain ]; then
    grep '^FAIL' "$base.out" | head -n 20 | sed 's/^/    /'
  fi
  if [ -s "$base.err" ]; then
    echo "  --- stderr of $2 (last 20 lines):"
    tail -n 20 "$base.err" | sed 's/^/    /'
  fi
  if [ -s "$base.memcheck" ]; then
    echo "  --- compute-sanitizer's log of $2 (last 30 lines):"
    tail -n 30 "$base.memcheck" | sed 's/^/    /'
  fi
}

reported() {
  local config
  for config in "${report_configs[@]}"; do
    [ "$config" != "$1" ] || return 0
  done
  return 1
}

pass() {
  echo "PASS $1 $2"
  passed=$((passed + 1))
}

fail() {
  echo "FAIL $1 $2: $3"
  failed=$((failed + 1))
  show "$1" "$2"
}

echo "zc run conformance: ${#selected[@]} programs, ${report_configs[*]}," \
  "${limit}s each$([ "$memcheck" = 0 ] || echo ", under memcheck")" >&2

for program in "${selected[@]}"; do
  name=$(basename "$program")
  run_config "$name" plain "$program"
  plain_rc=$rc
  if [ "$plain_rc" -eq "$SKIP" ]; then
    why=$(head -n 1 "$work/$name.plain.err" | sed 's/^SKIP [^:]*: //')
    for config in "${report_configs[@]}"; do
      echo "SKIP $name $config: exit $SKIP${why:+ ($why)}"
      skipped=$((skipped + 1))
    done
    continue
  fi
  if reported plain; then
    case $plain_rc in
      0) pass "$name" plain ;;
      124 | 137) fail "$name" plain "timed out after ${limit}s" ;;
      *) fail "$name" plain "exit $plain_rc" ;;
    esac
  fi
  for config in cured tight; do
    reported "$config" || continue
    run_config "$name" "$config" "$program"
    base="$work/$name.$config"
    how=()
    case $rc in
      124 | 137) how+=("timed out after ${limit}s") ;;
      "$plain_rc") ;;
      *) how+=("exit $rc where plain exits $plain_rc") ;;
    esac
    cmp -s "$work/$name.plain.out" "$base.out" || how+=("stdout differs")
    # The report says whether the library was there at all (a killed run may leave none).
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      :
    elif [ ! -s "$base.json" ]; then
      how+=("zc run wrote no report")
    elif grep -Eq "^${tab}\"library_loaded\":[[:space:]]*false" "$base.json"; then
      how+=("zc run's library reached no process (the report says library_loaded: false)")
    elif [ "$config" = tight ] && ! grep -Eq '"chunk_bytes":[[:space:]]*4096[^0-9]' "$base.json"; then
      how+=("the tight settings were not in effect (chunk_bytes is not 4096 in the report)")
    fi
    if [ ${#how[@]} -eq 0 ]; then
      pass "$name" "$config"
    else
      joined=$(printf '%s; ' "${how[@]}")
      fail "$name" "$config" "${joined%; }"
    fi
  done
done

summary
if [ "$failed" -gt 0 ]; then
  exit 1
elif [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then
  exit "$SKIP"
fi
exit 0
