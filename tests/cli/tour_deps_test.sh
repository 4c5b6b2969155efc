#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/run and scripts/deps say what they do: the tour ends with one closing line in every
# case (no GPU, a failed step, success), and deps says what is there and what it installs.
#
#   tour_deps_test.sh SOURCE_DIR ZC
#
# The tour runs with ZC_TOUR_ZC (no build): the real zc with every GPU hidden, then a stand-in
# zc that fails or succeeds on purpose. deps runs once as it is (--check), then with a PATH of
# stand-ins (apt-get records what it was asked, id says root, lslocks names a lock holder), so
# nothing is installed: bare (the tests set), --for tour, --dry-run, --check, a wrong set; and
# scripts/run and scripts/test on that PATH show which set each asks for.
set -euo pipefail
source_dir=$1 zc=$2
bash=$(command -v bash)
# shellcheck source=tests/support/checks.sh
. "$(dirname "$0")/../support/checks.sh"
checks_begin
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
  0) verdict='^deps (tests): everything' ;;
  1) verdict='^missing Debian packages: ' ;;
  *) verdict='^never$' ;;
esac
if grep -q '^deps (tests): already there: .*cmake' "$work/check.log" && grep -q "$verdict" "$work/check.log"; then
  ok "exit $rc: $(head -n 1 "$work/check.log")"
else
  fail "deps --check exited $rc and said:"; cat "$work/check.log"
fi

# Stand-ins: id says root, nvcc is there, apt-get records what it was asked (one line a call),
# lslocks says an apt holds the dpkg lock. Nothing else of the set is on this PATH, so every
# package proved by a command is missing; those proved by a file depend on this machine.
mkdir -p "$work/bin"
printf '#!%s\necho 0\n' "$bash" >"$work/bin/id"
printf '#!%s\nexit 0\n' "$bash" >"$work/bin/nvcc"
printf '#!%s\necho "$*" >>%s\n' "$bash" "$work/apt.log" >"$work/bin/apt-get"
printf '#!%s\necho "4242 apt-get /var/lib/dpkg/lock-frontend"\n' "$bash" >"$work/bin/lslocks"
chmod +x "$work/bin"/*
# deps_run NAME ARGS...: scripts/deps with the stand-ins; its exit code in $rc, output in $work/NAME.log.
deps_run() {
  local name=$1
  shift
  rc=0
  rm -f "$work/apt.log"
  PATH=$work/bin "$bash" "$source_dir/scripts/deps" "$@" >"$work/$name.log" 2>&1 || rc=$?
  touch "$work/apt.log"
}
# The packages each set names that a command proves, in scripts/deps' order.
tour_commands="cmake ninja-build gcc pkg-config"
tests_commands="clang-format sox help2man groff-base clang"

# has_words LINE WORD...: every word stands in LINE as a word of its own. Packages that files
# prove (python3-scipy, locales) fall between them or not as the machine has them.
has_words() {
  local line=" $1 " word
  shift
  for word in "$@"; do
    [[ $line == *" $word "* || $line == *" $word;"* ]] || return 1
  done
}

echo "== scripts/deps as root on a machine that lacks the commands (stand-ins record the install)"
deps_run install
installing=$(grep '^deps (tests): installing with apt-get: ' "$work/install.log" || true)
if [ "$(grep -c '^deps (tests): installing' "$work/install.log")" = 1 ] &&
  [[ $installing == *"$tour_commands"*"help2man groff-base"*"optional: gnuplot-nox graphviz" ]] &&
  [[ $installing != *chromium* ]] &&
  grep -q '^-o DPkg::Lock::Timeout=300 update -qq$' "$work/apt.log" &&
  grep -q "^-o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $tour_commands" "$work/apt.log" &&
  grep -q '^deps: apt-get (pid 4242) holds /var/lib/dpkg/lock-frontend; apt-get waits for it up to 300 s$' \
    "$work/install.log" &&
  [ $rc -eq 1 ] && grep -q '^missing Debian packages: cmake' "$work/install.log"; then
  ok "bare is the tests set, waiting for the lock: $installing"
else
  fail "deps exited $rc and said:"; cat "$work/install.log" "$work/apt.log"
fi

echo "== scripts/deps --for tour: the build's and the tour's packages only"
ZC_APT_LOCK_TIMEOUT=7 deps_run tour --for tour
installing=$(grep '^deps (tour): installing with apt-get: ' "$work/tour.log" || true)
if [[ $installing == *"$tour_commands"*"; optional: gnuplot-nox graphviz" ]] &&
  grep -q "^-o DPkg::Lock::Timeout=7 install -y -qq --no-install-recommends $tour_commands" "$work/apt.log" &&
  ! grep -Eq 'sox|chromium|clang|cmocka|python3|help2man|locales' "$work/apt.log" "$work/tour.log"; then
  ok "tour: $installing"
else
  fail "deps --for tour exited $rc and said:"; cat "$work/tour.log" "$work/apt.log"
fi

echo "== scripts/deps --dry-run and --check install nothing; the sets differ"
deps_run dry-tour --for tour --dry-run
dry_tour=$(grep '^deps (tour): would install with apt-get: ' "$work/dry-tour.log" || true)
tour_rc=$rc
deps_run dry-tests --dry-run --for=tests
dry_tests=$(grep '^deps (tests): would install with apt-get: ' "$work/dry-tests.log" || true)
tests_rc=$rc
deps_run dry-browser --dry-run --for tests --with-browser
dry_browser=$(grep '^deps (tests): would install with apt-get: ' "$work/dry-browser.log" || true)
if [ $tour_rc -eq 0 ] && [ $tests_rc -eq 0 ] && [ $rc -eq 0 ] && [ ! -s "$work/apt.log" ] &&
  [[ $dry_tour == *"$tour_commands"*"; optional: gnuplot-nox graphviz" ]] &&
  [[ $dry_tests == *"$tour_commands"*"optional: gnuplot-nox graphviz" ]] &&
  [[ $dry_tests != *chromium* ]] &&
  [[ $dry_browser == *"optional: gnuplot-nox graphviz chromium" ]] &&
  has_words "$dry_tests" $tests_commands; then
  ok "dry runs: '$dry_tour', '$dry_tests', with the browser: '$dry_browser'"
else
  fail "dry runs exited $tour_rc and $rc:"; cat "$work/dry-tour.log" "$work/dry-tests.log" "$work/apt.log"
fi
deps_run check-tour --check --for tour
if [ $rc -eq 1 ] && [ ! -s "$work/apt.log" ] && grep -q "^missing Debian packages: $tour_commands" "$work/check-tour.log" &&
  ! grep -q 'sox' "$work/check-tour.log"; then
  ok "--check --for tour: exit 1, $(grep '^missing' "$work/check-tour.log")"
else
  fail "deps --check --for tour exited $rc and said:"; cat "$work/check-tour.log"
fi
deps_run bogus --for bogus
if [ $rc -eq 2 ] && grep -q "^scripts/deps: no set 'bogus' (tour or tests)" "$work/bogus.log"; then
  ok "--for bogus: exit 2"
else
  fail "deps --for bogus exited $rc and said:"; cat "$work/bogus.log"
fi

# scripts/run asks for the tour's set and scripts/test for the tests': each, run on the
# stand-ins' PATH (with the few tools the scripts themselves use), stops at deps and says so.
echo "== scripts/run and scripts/test ask scripts/deps for their own set"
for tool in bash dirname mkdir rm ls paste cat tail sed wc nproc tee; do
  ln -sf "$(command -v "$tool")" "$work/bin/$tool"
done
rc=0
rm -f "$work/apt.log"
PATH=$work/bin "$bash" "$source_dir/scripts/run" "$work/run-deps" >"$work/run-deps.log" 2>&1 || rc=$?
touch "$work/apt.log"
last=$(sed '/^$/d' "$work/run-deps.log" | tail -n 1)
if [ $rc -eq 1 ] && grep -q '^deps (tour): installing with apt-get: ' "$work/run-deps.log" &&
  ! grep -q 'sox' "$work/apt.log" && [[ $last == "tour stopped at scripts/deps (exit 1);"* ]]; then
  ok "scripts/run: the tour set, then: $last"
else
  fail "scripts/run exited $rc:"; cat "$work/run-deps.log" "$work/apt.log"
fi
rc=0
rm -f "$work/apt.log"
# Its logs in $work: the real run's, in build/test-logs, may be the one running this test.
ZC_TEST_LOGS=$work/test-logs PATH=$work/bin "$bash" "$source_dir/scripts/test" >"$work/test-deps.log" 2>&1 || rc=$?
touch "$work/apt.log"
if [ $rc -eq 1 ] && grep -q '^deps (tests): installing with apt-get: .*sox' "$work/test-deps.log" &&
  grep -q "^scripts/test: stage deps failed (exit 1); its log: $work/test-logs/deps.log" "$work/test-deps.log" &&
  grep -q '^  deps .* FAILED' "$work/test-deps.log"; then
  ok "scripts/test: the tests set, then: $(grep '^scripts/test: stage deps failed' "$work/test-deps.log")"
else
  fail "scripts/test exited $rc:"; cat "$work/test-deps.log"
fi

checks_end "scripts/run, scripts/deps and scripts/test's deps stage: every check passed"
