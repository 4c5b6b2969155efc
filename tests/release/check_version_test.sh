#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-version on small planted trees: it passes when only CMakeLists.txt spells the
# version and CHANGELOG.md's newest entry is it, and fails naming the file and line otherwise.
#
#   check_version_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
# shellcheck source=tests/support/checks.sh
. "$(dirname "$0")/../support/checks.sh"
checks_begin

# plant NAME: a git tree at $work/NAME holding the script, a CMakeLists.txt at 2.3.4 and a
# CHANGELOG whose newest entry is 2.3.4 under an Unreleased one.
plant() {
  local tree=$work/$1
  mkdir -p "$tree/scripts" "$tree/src" "$tree/bench/results"
  cp "$source_dir/scripts/check-version" "$tree/scripts/"
  printf 'project(zerocopy VERSION 2.3.4 LANGUAGES C CUDA\n  DESCRIPTION "x")\n' >"$tree/CMakeLists.txt"
  printf '# Changelog\n\n## [Unreleased]\n\n## [2.3.4] - 2026-12-03\n\n## [2.3.3] - 2026-11-01\n' \
    >"$tree/CHANGELOG.md"
  printf 'int a;\n' >"$tree/src/a.c"
  git -C "$tree" init -q
  tree_dir=$tree
}
# check NAME WANT_RC PATTERN: scripts/check-version in the tree exits WANT_RC and says PATTERN.
check() {
  git -C "$tree_dir" add -A
  local rc=0 out
  out=$(bash "$tree_dir/scripts/check-version" 2>&1) || rc=$?
  if [ $rc -eq "$2" ] && grep -q -- "$3" <<<"$out"; then echo "ok: $1: exit $rc"; else
    fail "$1: exit $rc (wanted $2, saying '$3'):"; echo "$out"
  fi
}

plant clean
check "only CMakeLists.txt spells it" 0 "2.3.4 is written only in CMakeLists.txt"
[ "$(bash "$tree_dir/scripts/check-version" --print)" = 2.3.4 ] || fail "--print is not 2.3.4"
# Records and look-alikes are not the version.
printf '{"zerocopy_version":\t"2.3.4"}\n' >"$tree_dir/src/fixture.json"
printf 'v12.3.4 2.3.45 2.3.4.1\n' >"$tree_dir/src/other.txt"
printf '2.3.4\n' >"$tree_dir/bench/results/run.txt"
check "a JSON record, 12.3.4, 2.3.45, 2.3.4.1 and bench/results" 0 "written only in CMakeLists.txt"

plant header
printf 'int a;\n#define V "2.3.4"\n' >"$tree_dir/src/a.c"
check "a header spelling it" 1 "src/a.c:2:#define V \"2.3.4\""
printf '__version__ = "2.3.4."\n' >"$tree_dir/src/v.py"
check "a sentence ending in it" 1 "src/v.py:1:"

plant changelog
printf '# Changelog\n\n## [2.3.3] - 2026-11-01\n' >"$tree_dir/CHANGELOG.md"
check "a CHANGELOG a version behind" 1 "newest entry is '2.3.3', CMakeLists.txt says 2.3.4"
rm "$tree_dir/CHANGELOG.md"
check "no CHANGELOG" 1 "newest entry is 'none'"

plant no-project
printf 'project(other)\n' >"$tree_dir/CMakeLists.txt"
check "no version in CMakeLists.txt" 1 "has no line 'project(zerocopy VERSION"

checks_end "scripts/check-version: every check passed"
