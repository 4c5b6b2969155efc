#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fence in the build (src/CMakeLists.txt): every internal header of src/<part>/ carries the
# guard that refuses it to a part below, naming its own part, so that a new header cannot
# leave the fence open. Exits 1 naming each header without it.
#
#   fence_headers_test.sh SOURCE_DIR
set -uo pipefail
cd "${1:?usage: fence_headers_test.sh SOURCE_DIR}"
bad=0 count=0
for header in src/*/*.h src/*/*.cuh; do
  [ -e "$header" ] || continue
  part=$(basename "$(dirname "$header")")
  count=$((count + 1))
  if ! grep -q "^#if defined(ZC_PART) && !defined(ZC_SEES_${part})\$" "$header"; then
    echo "FAIL: $header lacks its fence: #if defined(ZC_PART) && !defined(ZC_SEES_${part})"
    bad=1
  fi
done
[ "$count" -gt 0 ] || { echo "FAIL: no header found under src/"; exit 1; }
[ $bad = 0 ] && echo "ok: all $count internal headers carry their part's fence"
exit $bad
