#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every script a developer runs says what it does with -h and --help, exits 0, and makes
# nothing: none takes "--help" for the folder or file it would write (scripts/run once made
# "--help" its output folder's name). Run from a scratch folder, each bounded in time.
#   bash tests/release/scripts_help_test.sh ROOT
set -uo pipefail
root=${1:?usage: scripts_help_test.sh ROOT}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
checked=0
for script in "$root"/scripts/*; do
  [ -f "$script" ] && [ -x "$script" ] || continue
  for flag in -h --help; do
    out=$(cd "$scratch" && timeout 30 "$script" "$flag" 2>&1)
    rc=$?
    # The first words of what it prints are its opening comment's, or its usage line.
    if [ $rc -ne 0 ] || [ -z "${out//[[:space:]]/}" ]; then
      echo "FAIL: ${script#"$root"/} $flag exited $rc, printing: ${out:0:200}"
      failed=1
    fi
    checked=$((checked + 1))
  done
done
# Nothing in the scratch folder, and no file named after the flag where the scripts write.
made=$(ls -A "$scratch"; ls -d "$root"/-h "$root"/--help "$root"/build/-h "$root"/build/--help 2>/dev/null)
if [ -n "$made" ]; then
  echo "FAIL: asking for help made: $made"
  failed=1
fi
[ $checked -ge 40 ] || { echo "FAIL: only $checked scripts asked"; failed=1; }
[ $failed -eq 0 ] && echo "every script ($((checked / 2))) answers -h and --help and makes nothing"
exit $failed
