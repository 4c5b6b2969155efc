#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every way an output file can be lost, as a user meets it: links (to a file, to this process's
# stdout, dangling, in a loop), a failed run over an existing file, two outputs naming one file,
# an output naming an input, a file made by someone else while zc runs (and eight runs at once),
# names refused before any work, FIFOs and devices written in place, and the temporaries a
# signal must not leave behind. No GPU: advise reads a saved profile, stream runs its cpu mode.
#
#   outputs_test.sh ZC PROFILE BENCH
set -uo pipefail
zc=$1 profile=$2 bench=$3
export CUDA_VISIBLE_DEVICES=-1
work=$(mktemp -d /tmp/zc_outputs_XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# check NAME CONDITION...: pass when the condition (a command) holds.
check() {
  local name=$1
  shift
  if "$@"; then pass "$name"; else fail "$name (exit $rc; stderr: $(tail -2 err 2>/dev/null))"; fi
}
no_temporaries() { [ -z "$(find "$work" -name '.zc-*' -print -quit)" ]; }
advise() { "$zc" advise --profile "$profile" --bytes 4K "$@"; }
# A cpu stream of about $1 seconds, paced so that it runs long enough to be interrupted.
long_stream() {
  local seconds=$1
  shift
  "$zc" stream --mode cpu --paced 100000 --duration "$seconds" "$@"
}

# --- links ------------------------------------------------------------------------------------
ln -s /proc/self/fd/1 so
advise --json so --force >out.json 2>err
rc=$?
check "a link to this process's stdout is written through, not replaced" \
  test $rc = 0 -a -L so -a "$(readlink so)" = /proc/self/fd/1
check "... and the document reaches what stdout is" \
  python3 -c 'import json; json.JSONDecoder().raw_decode(open("out.json").read())'

printf 'old\n' >target.json
ln -s target.json link.json
advise --json link.json --force >/dev/null 2>err
rc=$?
check "--force through a link writes the target and keeps the link" \
  test $rc = 0 -a -L link.json -a "$(head -c 1 target.json)" = "{"

printf 'old\n' >kept.json
ln -s kept.json keptlink.json
advise --json keptlink.json >/dev/null 2>err
rc=$?
check "without --force a link to an existing file is refused (exit 2), the file kept" \
  test $rc = 2 -a "$(cat kept.json)" = old -a -L keptlink.json

ln -s made.json dangling.json
advise --json dangling.json >/dev/null 2>err
rc=$?
check "a dangling link makes its target and stays a link" \
  test $rc = 0 -a -L dangling.json -a -f made.json

ln -s loop2 loop1
ln -s loop1 loop2
advise --json loop1 --force >/dev/null 2>err
rc=$?
check "a link loop is refused (exit 2) and left as it was" \
  test $rc = 2 -a -L loop1 -a -L loop2
grep -q "link loop" err || fail "a link loop is named: $(cat err)"

# --- failed runs never replace ------------------------------------------------------------------
printf 'old profile\n' >saved.json
"$zc" advise --validate --save-profile saved.json --force --out val >/dev/null 2>err
rc=$?
check "advise --validate without a GPU (exit 3) saves no profile over the old one" \
  test $rc = 3 -a "$(cat saved.json)" = "old profile"
check "... and leaves no temporary" no_temporaries

printf 'old samples\n' >samples.f32
printf '\x00\x00\xc0\x7f' >nan.f32 # one NaN
"$zc" stream nan.f32 --mode cpu --rate 48000 --output samples.f32 --force >/dev/null 2>err
rc=$?
check "a stream that fails (a NaN: exit 2) leaves the old --output whole" \
  test $rc = 2 -a "$(cat samples.f32)" = "old samples"

# --- one file, two names ---------------------------------------------------------------------
advise --json twice.json --save-profile twice.json >/dev/null 2>err
rc=$?
check "--json and --save-profile naming one file: exit 2" test $rc = 2 -a ! -e twice.json
advise --json twice.json --save-profile ./twice.json >/dev/null 2>err
rc=$?
check "... also spelt differently" test $rc = 2 -a ! -e twice.json
ln -s twice.json other.json
advise --json twice.json --save-profile other.json >/dev/null 2>err
rc=$?
check "... also through a link" test $rc = 2 -a ! -e twice.json
"$zc" stream --mode cpu --frames 4 --output same.f32 --json same.f32 >/dev/null 2>err
rc=$?
check "stream --output and --json naming one file: exit 2" test $rc = 2 -a ! -e same.f32
"$zc" trace -o t.txt --json t.txt -- /bin/true >/dev/null 2>err
rc=$?
check "trace -o and --json naming one file: exit 2, nothing run" test $rc = 2 -a ! -e t.txt
"$zc" report -o r.html --picture-dot ./r.html "$bench" >/dev/null 2>err
rc=$?
check "report -o and --picture-dot naming one file: exit 2" test $rc = 2 -a ! -e r.html
"$zc" advise --profile "$profile" --bytes 4K --json /dev/null --save-profile /dev/null \
  >/dev/null 2>err
rc=$?
check "two outputs to /dev/null are fine" test $rc = 0

cp "$profile" myprofile.json
ln -s myprofile.json profile-link.json
"$zc" advise --profile myprofile.json --bytes 4K --json profile-link.json --force >/dev/null 2>err
rc=$?
check "an output that is an input through a link: exit 2, the input kept" \
  test $rc = 2 -a "$(cmp -s myprofile.json "$profile" && echo same)" = same
printf '{}' >s.json
"$zc" advise --profile "$profile" --frame 4K --stream s.json --json s.json --force >/dev/null 2>err
rc=$?
check "advise --stream FILE --json FILE: exit 2, the stream results kept" \
  test $rc = 2 -a "$(cat s.json)" = "{}"

# --- no replace without --force, at the rename ------------------------------------------------
long_stream 1 --output late.f32 >/dev/null 2>err &
pid=$!
sleep 0.4
printf 'made meanwhile\n' >late.f32
wait $pid
rc=$?
check "a file made while zc ran is not replaced without --force (exit 2)" \
  test $rc = 2 -a "$(cat late.f32)" = "made meanwhile"
grep -q "while zc ran" err || fail "the late file is named: $(cat err)"
check "... and no temporary is left" no_temporaries

pids=()
for i in 1 2 3 4 5 6 7 8; do
  advise --json race.json >/dev/null 2>"err.$i" &
  pids+=($!)
done
ok=0
for pid in "${pids[@]}"; do
  wait "$pid" && ok=$((ok + 1))
done
check "eight runs at once without --force: exactly one writes race.json (got $ok)" test $ok = 1

# --- names refused before any work -----------------------------------------------------------
start=$(date +%s%N)
long_stream 5 --output "" >/dev/null 2>err
rc=$?
check "an empty output name: exit 2 at once" test $rc = 2
long_stream 5 --output "$(printf 'n%.0s' $(seq 300))" >/dev/null 2>err
rc=$?
check "a name over 255 bytes: exit 2 at once" test $rc = 2
grep -q "255" err || fail "the name's limit is said: $(cat err)"
long_stream 5 --output missing-dir/x.f32 >/dev/null 2>err
rc=$?
check "a folder that is not there: exit 2 at once" test $rc = 2
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
check "... all three refused before the 5 s runs (${elapsed_ms} ms)" test $elapsed_ms -lt 4000

# --- written in place -------------------------------------------------------------------------
advise --json /dev/full >/dev/null 2>err
rc=$?
check "/dev/full: exit 1 with the reason" test $rc = 1
grep -q "No space left on device" err || fail "the reason for /dev/full: $(cat err)"
mkfifo fifo
"$zc" stream --mode cpu --frames 4 --output fifo --timeout-ms 300 >/dev/null 2>err
rc=$?
check "a FIFO nobody reads: exit 6 after --timeout-ms" test $rc = 6
cat fifo >fifo.out &
reader=$!
"$zc" stream --mode cpu --frames 4 --warmup 1 --frame-samples 1024 --output fifo >/dev/null 2>err
rc=$?
wait $reader
check "a FIFO with a reader gets every sample in place" \
  test $rc = 0 -a -p fifo -a "$(stat -c %s fifo.out)" = $(((4 + 1) * 1024 * 4))

cat fifo >run.out &
reader=$!
printf 'piped\n' | "$zc" run -q --report fifo -- cat >run.stdout 2>err
rc=$?
wait $reader
check "zc run --report to a FIFO with a reader: the report in place, the program's stdin and stdout its own" \
  test $rc = 0 -a -p fifo -a "$(cat run.stdout)" = piped
python3 -c 'import json, sys; assert json.load(open("run.out"))["schema"] == "zerocopy-run/1"' ||
  fail "the report through the FIFO is not a zc run document"

# --- text that is not UTF-8 --------------------------------------------------------------------
odd=$(printf 'tru\xff\x1b')
cp /bin/true "$odd"
"$zc" trace --json odd.json -- "./$odd" >out.txt 2>err
rc=$?
check "a program named in bytes that are not UTF-8: its JSON loads in Python, U+FFFD for them" \
  python3 -c 'import json, sys; d = json.load(open("odd.json")); sys.exit("\ufffd" not in json.dumps(d, ensure_ascii=False))'
check "... and no escape byte reaches the terminal text" \
  test -z "$(tr -d -c '\033' <err)$(tr -d -c '\033' <out.txt)"

# --- signals ----------------------------------------------------------------------------------
# Every signal whose default action ends the process: the user's and a supervisor's, and the
# limits and timers of setrlimit and timeout(1) (XFSZ and XCPU dump core: none is kept here).
ulimit -c 0
for sig in INT TERM HUP XFSZ XCPU ALRM USR1 USR2 VTALRM PROF; do
  printf 'old\n' >"sig-$sig.f32"
  # A job started in the background of a script ignores SIGINT: give it the default back.
  env --default-signal="$sig" "$zc" stream --mode cpu --paced 100000 --duration 10 \
    --output "sig-$sig.f32" --force >/dev/null 2>err &
  pid=$!
  for _ in $(seq 50); do
    [ -n "$(find "$work" -name '.zc-*' -print -quit)" ] && break
    sleep 0.1
  done
  [ -n "$(find "$work" -name '.zc-*' -print -quit)" ] || fail "SIG$sig: no temporary seen"
  kill -"$sig" $pid
  wait $pid
  rc=$?
  left=$(find "$work" -name '.zc-*')
  check "SIG$sig mid-run: the process ends by it, the old file is kept, no temporary left" \
    test $rc = $((128 + $(kill -l "$sig"))) -a "$(cat "sig-$sig.f32")" = old -a "$left" = ""
done

# zc advise --trace on a FIFO no writer ever opens: a bounded wait, said, then exit 2 (not a
# process blocked for ever in open).
mkfifo lonely.fifo
timeout 30 "$zc" advise --profile "$profile" --trace lonely.fifo >/dev/null 2>err
rc=$?
check "a FIFO input no writer opens: waited for, said, then refused (exit 2)" \
  test $rc = 2 -a -n "$(grep 'waiting up to 10 s for a writer on the FIFO lonely.fifo' err)" \
  -a -n "$(grep 'nothing was written to the FIFO lonely.fifo within 10 s' err)"

# SIGTERM to zc advise --trace while it waits for its trace on a FIFO (a writer holds it open
# and writes nothing): it ends by it, the old document is kept, no temporary left.
printf 'old\n' >trace-sig.json
mkfifo trace.fifo
sleep 30 <>trace.fifo &
holder=$!
"$zc" advise --profile "$profile" --trace trace.fifo --json trace-sig.json --force >/dev/null \
  2>err &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
kill $holder 2>/dev/null
wait $holder 2>/dev/null
left=$(find "$work" -name '.zc-*')
check "SIGTERM to zc advise --trace reading a FIFO: exit 143, the old document kept, no temporary" \
  test $rc = 143 -a "$(cat trace-sig.json)" = old -a "$left" = ""

# The same to zc trace while it reads --bench from a FIFO, before any program runs: the signals
# it holds back around its log folder are not held yet, so it ends at once.
printf 'old\n' >bench-sig.json
mkfifo bench.fifo
sleep 30 <>bench.fifo &
holder=$!
"$zc" trace --bench bench.fifo --json bench-sig.json --force -- true >/dev/null 2>err &
pid=$!
sleep 0.5
started=$SECONDS
kill -TERM $pid
wait $pid
rc=$?
kill $holder 2>/dev/null
wait $holder 2>/dev/null
check "SIGTERM to zc trace reading --bench from a FIFO: exit 143 at once, the old document kept" \
  test $rc = 143 -a $((SECONDS - started)) -lt 5 -a "$(cat bench-sig.json)" = old -a \
  -z "$(find "$work" -name '.zc-*')"

# SIGTERM to zc run alone while its program runs: passed on to the program, which ends by it;
# zc run then reports that end (exit 143, the report says signal 15) and leaves no temporary
# and no log folder. The signal is sent once the program runs (sleep is zc's child): sent
# while zc run still sets up, it ends zc run alone, with no report, which a loaded machine
# showed.
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
"$zc" run -q --report run-sig.json --force -- sleep 30 >/dev/null 2>err &
pid=$!
# child_named PARENT NAME: the pid of PARENT's child called NAME (from /proc, which every Linux
# has, where ps may be missing), printed; fails when there is none.
child_named() {
  local stat fields
  for stat in /proc/[0-9]*/stat; do
    read -r -a fields <"$stat" 2>/dev/null || continue
    [ "${fields[1]}" = "($2)" ] && [ "${fields[3]}" = "$1" ] && echo "${fields[0]}" && return 0
  done
  return 1
}
for _ in $(seq 100); do
  child_named $pid sleep >/dev/null && [ -n "$(find "$work" -name '.zc-*' -print -quit)" ] && [ -n "$(ls "$TMPDIR")" ] &&
    break
  sleep 0.1
done
started=$SECONDS
kill -TERM $pid
wait $pid
rc=$?
left=$(find "$work" -name '.zc-*')
check "SIGTERM to zc run: the program ends by it at once, zc run exits 143, no temporary left" \
  test $rc = 143 -a $((SECONDS - started)) -lt 10 -a "$left" = "" -a -z "$(ls "$TMPDIR")"
python3 -c 'import json; assert json.load(open("run-sig.json"))["signal"] == 15' ||
  fail "the report of a program ended by SIGTERM says signal 15: $(head -c 300 run-sig.json)"

# SIGTERM at many moments of zc run and zc trace, from their start to their program's: each
# ends with no temporary and no log folder left, and the old document either kept or replaced
# whole. (A signal just after the log folder was made left it behind; these tries rarely hit
# that moment, the check after them always does.)
# The signal is sent once the shell's child is zc (its name in /proc): sent before its exec, it
# reaches the shell itself, which may run this script's EXIT trap there and remove $work.
early_left=""
for i in $(seq 0 39); do
  for command in run trace; do
    echo old >"early-$command.json"
    if [ $command = run ]; then
      "$zc" run -q --report "early-$command.json" --force -- sleep 2 >/dev/null 2>err &
    else
      "$zc" trace --json "early-$command.json" --force -- sleep 2 >/dev/null 2>err &
    fi
    pid=$!
    name=""
    for _ in $(seq 2000); do
      { read -r name <"/proc/$pid/comm"; } 2>/dev/null
      [ "$name" = zc ] && break
    done
    sleep "0.0$(printf %02d "$i")"
    kill -TERM $pid
    wait $pid
    [ -n "$(ls -A "$TMPDIR")" ] && early_left+=" $command #$i: $(ls -A "$TMPDIR")" &&
      rm -rf "${TMPDIR:?}"/*
    no_temporaries || early_left+=" $command #$i: a temporary"
    [ "$(cat "early-$command.json")" = old ] ||
      python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "early-$command.json" ||
      early_left+=" $command #$i: a document neither old nor whole: $(head -c 40 "early-$command.json")"
  done
done
check "SIGTERM at many moments of zc run or zc trace: no temporary, no log folder, no half document" \
  test -z "$early_left"
[ -z "$early_left" ] || echo "left:$early_left"

# The same at the one moment those tries rarely hit: zc held for half a second right after it
# made its log folder (strace delays the mkdir's return), and sent SIGTERM then. The signal waits
# for the program, which it ends; the report says so and the folder goes.
for command in run trace; do
  echo old >"held-$command.json"
  if [ $command = run ]; then
    report=(run -q --report "held-$command.json" --force)
  else
    report=(trace --json "held-$command.json" --force)
  fi
  # LeakSanitizer (the ASan build of these tests) cannot run under ptrace: off for this one.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -o /dev/null -e trace=mkdir -e inject=mkdir:delay_exit=500000 \
    "$zc" "${report[@]}" -- sleep 2 >/dev/null 2>err &
  tracer=$!
  sleep 0.25
  held=$(child_named $tracer zc)
  [ -n "$held" ] && kill -TERM "$held"
  wait $tracer
  rc=$?
  check "SIGTERM to zc $command just after its log folder was made: passed on to the program" \
    test -n "$held" -a $rc = 143 -a -z "$(ls -A "$TMPDIR")"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["signal"] == 15 or \
d.get("program", {}).get("signal") == 15' "held-$command.json" ||
    fail "zc $command held at its log folder: the document says signal 15: $(head -c 200 "held-$command.json")"
  rm -rf "${TMPDIR:?}"/*
done
unset TMPDIR

echo "$failures failure(s)"
[ $failures = 0 ]
