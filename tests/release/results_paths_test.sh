#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The committed results speak of the project alone: no file under bench/results names a folder
# of the machine that measured it (its home, its checkout, its output folder, a scratch folder
# of mktemp); they write them relative to the checkout, OUT or WORK instead.
#
#   results_paths_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
# shellcheck source=tests/support/checks.sh
. "$(dirname "$0")/../support/checks.sh"
checks_begin
# A home folder, mktemp's scratch folder, or any absolute path into a checkout of this project
# (a folder of its tree after an absolute prefix): whatever the machine's own layout was.
pattern='(/root/|/home/|/tmp/tmp\.|(^|[[:space:]"=(:])(/[A-Za-z0-9._-]+)+/(build|src|tests|tools|scripts|bench)/)'
found=$(grep -rIlE "$pattern" "$source_dir/bench/results" || true)
for file in $found; do
  fail "${file#"$source_dir"/} names a machine's folder: $(grep -IoE "$pattern[^ \"]*" "$file" | head -1)"
done
# The check itself: a planted file is found.
mkdir -p "$work/bench/results"
printf 'Test project /srv/checkout/build/gpu\n' >"$work/bench/results/planted.log"
grep -rIqE "$pattern" "$work/bench/results" || fail "a planted machine path was not found"
checks_end "bench/results: no machine's folder named"
