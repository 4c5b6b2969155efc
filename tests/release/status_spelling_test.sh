#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-status-spelling on the tree (no hand-written propagation left) and on planted
# trees: each hand-written form is named with its file and line, the house forms and the
# status flows that are not one call's propagation pass.
#
#   status_spelling_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
script=$source_dir/scripts/check-status-spelling
# shellcheck source=tests/support/checks.sh
. "$(dirname "$0")/../support/checks.sh"
checks_begin

# check NAME WANT_RC PATTERN BODY: a tree whose src/planted.c holds BODY in a function; the
# script exits WANT_RC and says PATTERN (empty: says nothing).
check() {
  local tree=$work/$1
  mkdir -p "$tree/src" "$tree/tools"
  printf 'zc_status f(void)\n{\n%s\n    return ZC_OK;\n}\n' "$4" >"$tree/src/planted.c"
  local rc=0 out
  out=$(python3 "$script" "$tree" 2>&1) || rc=$?
  if [ $rc -ne "$2" ]; then fail "$1: exit $rc, wanted $2: $out"; return; fi
  if [ -n "$3" ] && ! grep -q -- "$3" <<<"$out"; then fail "$1: does not say '$3': $out"; return; fi
  if [ -z "$3" ] && [ -n "$out" ]; then fail "$1: says '$out'"; return; fi
  echo "ok: $1: exit $rc"
}

out=$(python3 "$script" "$source_dir" 2>&1) || fail "the tree: $out"

check return-two-lines 1 "planted.c:4: if (st != ZC_OK) return st" \
  '    zc_status st = g();
    if (st != ZC_OK)
        return st;'
check return-one-line 1 "planted.c:4:" \
  '    zc_status st = g();
    if (st != ZC_OK) return st;'
check return-braced 1 "planted.c:4:" \
  '    zc_status st = g();
    if (st != ZC_OK) {
        return st;
    }'
check assign-return 1 "planted.c:4: if ((st = ...) != ZC_OK) return st" \
  '    zc_status st;
    if ((st = g()) != ZC_OK)
        return st;'
check chain-under-condition 1 "planted.c:4:" \
  '    zc_status st;
    if (x && (st = g()) != ZC_OK ||
        (st = h()) != ZC_OK)
        return st;'
check else-if-braced 1 "planted.c:5:" \
  '    zc_status st;
    if (x) {
    } else if ((st = g()) != ZC_OK) {
        return st;
    }'
check assign-goto 1 "planted.c:4: if ((st = ...) != ZC_OK) goto" \
  '    zc_status st;
    if ((st = g()) != ZC_OK)
        goto out;
out:'
check bare-cuda-cleanup 1 "planted.c:3: a bare cleanup call" \
  '    (void)cudaStreamDestroy(s);'
check house-forms 0 "" \
  '    zc_status st = ZC_OK;
    ZC_CHECK(g());
    ZC_CHECK_GOTO(g(), st, out);
    ZC_CUDA_IGNORE(cudaStreamDestroy(s));
    (void)cudaGetLastError();
out:'
check status-flows 0 "" \
  '    zc_status st = g();
    if (st == ZC_OK)
        st = h();
    if (st != ZC_OK)
        goto out;
    if ((st = g()) != ZC_OK) {
        free(p);
        return st;
    }
    if (st != ZC_OK)
        return ZC_ERR_VERIFY;
out:'

checks_end "scripts/check-status-spelling: every check passed"
