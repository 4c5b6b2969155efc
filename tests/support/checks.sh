# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the shell tests: a scratch folder removed at exit ($work), a count of failed checks
# with fail() to add one, and checks_end to close. Source it, then call checks_begin.
#
#   . "$(dirname "$0")/../support/checks.sh"
#   checks_begin [MKTEMP_TEMPLATE]
#   ... fail "what went wrong" ...
#   checks_end "the line that says every check passed"

# checks_begin [MKTEMP_TEMPLATE]: $work made (mktemp -d, with the template if given) and
# removed at exit; $failures set to 0.
checks_begin() {
  work=$(mktemp -d ${1:+"$1"})
  trap 'rm -rf "$work"' EXIT
  failures=0
}

# fail MESSAGE...: one failed check, said on stdout.
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# checks_end PASS_LINE: exit 1 saying how many checks failed, or say PASS_LINE and return.
checks_end() {
  if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "$1"
}
