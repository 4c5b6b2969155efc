#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/run and scripts/deps say what they do: the tour ends with one closing line in every
# case (no GPU, a failed step, success), and deps says what is there and what it installs.
#
#   tour_deps_test.sh SOURCE_DIR ZC
#
# The tour runs with ZC_TOUR_ZC (no build): the real zc with every GPU hidden, then a stand-in
# zc that fails or succeeds on purpose. deps runs once as it is (--check) and once with a PATH
# of stand-ins (apt-get records what it was asked, id says root), so nothing is installed.
set -euo pipefail
source_dir=$1 zc=$2
bash=$(command -v bash)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# tour NAME ZC: run the tour into $work/NAME; its exit code in $rc, its last line in $last.
tour() {
  rc=0
  ZC_TOUR_ZC=$2 CUDA_VISIBLE_DEVICES=-1 "$bash" "$source_dir/scripts/run" "$work/$1" \
    >"$work/$1.log" 2>&1 || rc=$?
  last=$(sed '/^$/d' "$work/$1.log" | tail -n 1)
}

echo "== scripts/run without a GPU"
tour no-gpu "$zc"
if [ $rc -eq 3 ] && [[ $last == "tour stopped after zc info: no usable NVIDIA GPU or driver here"* ]] &&
  [[ $last == *"$work/no-gpu/info.txt"* ]] && [ -s "$work/no-gpu/info.txt" ]; then
  ok "exit 3, closing line: $last"
else
  fail "exit $rc, last line '$last'"; cat "$work/no-gpu.log"
fi

# A stand-in zc: info succeeds, bench fails or writes its files, as ZC_FAKE_BENCH says.
cat >"$work/fake-zc" <<'FAKE'
#!/bin/sh
command=$1
shift
case $command in
  info) echo "GPU 0: a stand-in" ;;
  bench) [ "$ZC_FAKE_BENCH" = fail ] && { echo "zc bench: failed on purpose" >&2; exit 1; } ;;
esac
# Write whatever file an option names, as the real commands would.
while [ $# -gt 0 ]; do
  case $1 in --json | --csv | -o) echo "{}" >"$2"; shift ;; esac
  shift
done
FAKE
chmod +x "$work/fake-zc"

echo "== scripts/run when a step fails"
ZC_FAKE_BENCH=fail tour failed "$work/fake-zc"
if [ $rc -eq 1 ] && [[ $last == "tour stopped at zc bench --quick (exit 1); "* ]] &&
  [[ $last == *"info.txt"* ]]; then
  ok "exit 1, closing line: $last"
else
  fail "exit $rc, last line '$last'"; cat "$work/failed.log"
fi

echo "== scripts/run when every step succeeds"
ZC_FAKE_BENCH=ok tour done "$work/fake-zc"
if [ $rc -eq 0 ] && [[ $last == "report: $work/done/report.html"* ]] && [ -s "$work/done/report.html" ]; then
  ok "exit 0, closing line: $last"
else
  fail "exit $rc, last line '$last'"; cat "$work/done.log"
fi

echo "== scripts/deps --check"
rc=0
"$bash" "$source_dir/scripts/deps" --check >"$work/check.log" 2>&1 || rc=$?
# Exit 0 says everything required is there; exit 1 names what is missing.
case $rc in
  0) verdict='^deps: everything' ;;
  1) verdict='^missing Debian packages: ' ;;
  *) verdict='^never$' ;;
esac
if grep -q '^deps: already there: .*cmake' "$work/check.log" && grep -q "$verdict" "$work/check.log"; then
  ok "exit $rc: $(head -n 1 "$work/check.log")"
else
  fail "deps --check exited $rc and said:"; cat "$work/check.log"
fi

echo "== scripts/deps as root on a machine that lacks the commands (stand-ins record the install)"
mkdir -p "$work/bin"
printf '#!%s\necho 0\n' "$bash" >"$work/bin/id"
printf '#!%s\nexit 0\n' "$bash" >"$work/bin/nvcc"
printf '#!%s\necho "$*" >>%s\n' "$bash" "$work/apt.log" >"$work/bin/apt-get"
chmod +x "$work/bin"/*
rc=0
PATH=$work/bin "$bash" "$source_dir/scripts/deps" >"$work/install.log" 2>&1 || rc=$?
installing=$(grep '^deps: installing with apt-get: ' "$work/install.log" || true)
if [ "$(grep -c '^deps: installing' "$work/install.log")" = 1 ] &&
  [[ $installing == *"cmake ninja-build gcc pkg-config"*"help2man groff-base"* ]] &&
  grep -q '^install -y -qq --no-install-recommends cmake ninja-build gcc pkg-config' "$work/apt.log" &&
  [ $rc -eq 1 ] && grep -q '^missing Debian packages: cmake' "$work/install.log"; then
  ok "one line: $installing"
else
  fail "deps exited $rc and said:"; cat "$work/install.log"; cat "$work/apt.log" 2>/dev/null || true
fi

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "scripts/run and scripts/deps: every check passed"
