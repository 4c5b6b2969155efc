#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zc's man pages and bash and zsh completion, as the build made them from the --help texts: each
# page is there and renders, names its command with the summary of `zc --help`, shows every
# option as the command's --help lists it and the licence as `zc --version` says it (its
# COPYRIGHT section), and an EXIT STATUS section whose codes mean what `zc --help` says they do
# (zc.1: every code it lists); completion gives commands, each command's options,
# and the values an option takes: the words zc's own refusal of a wrong value lists (modes,
# formats, directions...), each item of a comma-separated --mode, file names after a FILE. zsh's
# completion runs in a zsh on a pseudo-terminal where zsh is installed.
#
#   man_completion_test.sh ZC --help2man=PATH MAN_DIR COMPLETION_DIR HELP_OPTIONS_SCRIPT
#
# --help2man= empty: the build found no help2man and made no pages; the completion is still
# checked, then the test says SKIP (exit 77): scripts/deps installs help2man.
set -euo pipefail
zc=$1 help2man=${2#--help2man=} man_dir=$3 completion_dir=$4 help_options=$5
SKIP=77
# One order of options and commands whatever the machine's locale ("--frames" < "--frame-samples"
# in some, not in C).
export LC_ALL=C
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The commands with pages of their own: those whose --help starts with their usage and lists
# options (zc help version answers with a few lines, and has no page).
commands=()
while read -r name; do
  # sed reads the whole help: head would close the pipe early, and pipefail see zc's SIGPIPE.
  if [[ $("$zc" "$name" --help 2>/dev/null | sed -n 1p) == "usage: zc $name"* ]] &&
    [ -n "$(sh "$help_options" "$zc" "$name")" ]; then
    commands+=("$name")
  fi
done < <("$zc" --help | awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on { print $1 }')
[ ${#commands[@]} -ge 6 ] || fail "zc --help lists ${#commands[@]} commands with options: ${commands[*]}"

# complete WORD...: what the bash completion offers for the last word, sorted, one a line.
complete() {
  bash --norc --noprofile -c '
    source "$1"
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    _zc zc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
    printf "%s\n" "${COMPREPLY[@]}"' _ "$completion_dir/zc" zc "$@" | sort | sed '/^$/d'
}
expect_completion() {
  local want=$1
  shift
  local got
  got=$(complete "$@" | tr '\n' ' ')
  if [ "$got" = "$want" ]; then echo "ok: zc $* <TAB> -> $want"; else
    fail "zc $* <TAB> gives '$got', wanted '$want'"
  fi
}

# refused CMD OPTION: the words zc's refusal of a wrong value for OPTION lists, sorted, each
# followed by a space ("--protocol takes ll, flag or both, not 'x'": "both flag ll ").
refused() {
  { "$1" "${@:2}" __zc_no_such_value__ 2>&1 >/dev/null || :; } | sed -n 1p |
    sed -e 's/.*\(takes\|is\|modes:\) //' -e "s/, not '.*//" -e "s/, got '.*//" -e 's/)$//' |
    sed -e 's/,\{0,1\} or /, /' | tr ',' '\n' | sed -e 's/^ *//' -e '/^$/d' | sort | tr '\n' ' '
}
modes=$(refused "$zc" stream --mode)
formats=$(refused "$zc" stream --format)
[ "$(wc -w <<<"$modes")" -ge 8 ] || fail "zc stream --mode's refusal lists only '$modes'"
[ "$(wc -w <<<"$formats")" -ge 6 ] || fail "zc stream --format's refusal lists only '$formats'"
# with_prefix PREFIX WORDS: each word with PREFIX before it.
with_prefix() { for w in $2; do printf '%s%s ' "$1" "$w"; done; }

echo "== bash completion ($completion_dir/zc)"
if [ -s "$completion_dir/zc" ]; then
  expect_completion "stream " st
  expect_completion "--frame-samples --frames " stream --fr
  expect_completion "stream " help st
  expect_completion "drop wait " stream --policy ''
  expect_completion "--device --devices " bench --dev
  expect_completion "" stream --frames ''
  # A FILE value completes file names, here the build's own completion files.
  (cd "$completion_dir" && expect_completion "_zc " bench --json _)
  (cd "$completion_dir" && expect_completion "_zc " report -o _)
  every=$(printf '%s\n' "${commands[@]}" help version | sort | tr '\n' ' ')
  expect_completion "$every" ''
  # Values from zc's own tables, as its refusals list them.
  expect_completion "$modes" stream --mode ''
  expect_completion "$(with_prefix zerocopy, "$(tr ' ' '\n' <<<"$modes" | grep '^c' | tr '\n' ' ')")" \
    stream --mode zerocopy,c
  expect_completion "$modes" stream --mode = ''
  expect_completion "$formats" stream --format ''
  expect_completion "$formats" stream --output-format ''
  expect_completion "$(refused "$zc" stream --protocol)" stream --protocol ''
  expect_completion "$(refused "$zc" stream --verify)" stream --verify ''
  expect_completion "$(refused "$zc" advise --direction)" advise --direction ''
  expect_completion "$(refused "$zc" advise --pattern)" advise --pattern ''
  # --source: file names, synth and - (stdin); SOURCE alone: file names.
  (cd "$completion_dir" && expect_completion "- _zc synth zc " stream --source '')
  (cd "$completion_dir" && expect_completion "_zc " stream --source _)
  (cd "$completion_dir" && expect_completion "_zc zc " stream '')
  (cd "$completion_dir" && expect_completion "_zc " advise --profile _)
else
  fail "no bash completion at $completion_dir/zc"
fi
# zsh_complete DIR WORDS...: what zsh's completion lists for the line "zc WORDS..." typed in DIR
# and TAB, sorted, one a line; "LINE:" and the line as zsh rewrote it when it listed nothing
# (one candidate, written into the line). zsh runs on a pseudo-terminal (zsh/zpty) with this
# _zc first in fpath; the list is what it draws between clearing the screen below the line
# (ESC [J) and moving back up to it (ESC [nA).
zsh_complete() {
  local dir=$1
  shift
  local typed="zc $*"
  (cd "$dir" && ZC_TYPED=$typed zsh -f -c '
    zmodload zsh/zpty
    zpty -b z "zsh -f -i"
    # ^T completes as TAB does, then says ZCDONE: zsh draws what it found right after.
    zpty -w z "PS1=READY; fpath=($ZC_COMPLETION_DIR \$fpath); autoload -Uz compinit; compinit -u -D; unsetopt beep; LISTMAX=100000; zstyle \":completion:*\" format ZCBEGIN; zc() { :; }; zc-tab() { zle complete-word; print -rn -- ZCDONE >/dev/tty; }; zle -N zc-tab; bindkey \"^T\" zc-tab"
    out= chunk=
    wait_for() {
      local i
      for ((i = 0; i < 200; i++)); do
        while zpty -r -t z chunk; do out+=$chunk; done
        [[ $out == *$1* ]] && return 0
        sleep 0.05
      done
      return 1
    }
    wait_for READY
    out=
    zpty -w -n z "$ZC_TYPED"$'"'"'\x14'"'"'
    # What zsh draws once the completion is done, until it has been quiet for 0.2 s.
    wait_for ZCDONE
    quiet=0
    for ((i = 0; i < 200 && quiet < 4; i++)); do
      if zpty -r -t z chunk; then out+=$chunk; quiet=0; else quiet=$((quiet + 1)); sleep 0.05; fi
    done
    zpty -d z
    print -r -- "${out//ZCDONE/}"') | ZC_TYPED=$typed perl -0777 -ne '
      my $at = index($_, "$ENV{ZC_TYPED}\r");
      my $after = $at < 0 ? $_ : substr($_, $at);
      if ($after =~ /\e\[J(.*?)\e\[\d*A/s) {
        my $list = $1;
        $list =~ s/\e\[[0-9;?]*[A-Za-z]//g;
        print "$_\n" for grep { $_ ne "" && $_ ne "ZCBEGIN" } split /\s+/, $list;
      } else {
        s/\e\[[0-9;?]*[A-Za-z]//g;
        s/.\x08//g;
        my @lines = grep { /\S/ } split /\r|\n/;
        (my $last = $lines[-1]) =~ s/^READY//;
        $last =~ s/\s+$//;
        print "LINE:$last\n";
      }' | sort -u
}
expect_zsh() {
  local want=$1 dir=$2
  shift 2
  local got
  got=$(ZC_COMPLETION_DIR=$completion_dir zsh_complete "$dir" "$@" | tr '\n' ' ')
  if [ "$got" = "$want" ]; then echo "ok: zsh: zc $* <TAB> -> $want"; else
    fail "zsh: zc $* <TAB> gives '$got', wanted '$want'"
  fi
}

echo "== zsh completion ($completion_dir/_zc)"
if [ -s "$completion_dir/_zc" ]; then
  if command -v zsh >/dev/null && zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
    if zsh -n "$completion_dir/_zc"; then echo "ok: _zc is valid zsh"; else
      fail "_zc is not valid zsh"
    fi
    expect_zsh "$modes" / stream --mode ''
    expect_zsh "$(tr ' ' '\n' <<<"$modes" | grep '^c' | tr '\n' ' ')" / stream --mode zerocopy,c
    expect_zsh "$formats" / stream --format ''
    expect_zsh "$(refused "$zc" stream --protocol)" / stream --protocol ''
    expect_zsh "$(refused "$zc" advise --direction)" / advise --direction ''
    expect_zsh "drop wait " / stream --policy ''
    expect_zsh "- _zc synth zc " "$completion_dir" stream --source ''
    # One candidate: zsh writes it into the line.
    expect_zsh "LINE:zc advise --pattern strided " / advise --pattern st
  else
    echo "zsh (with zsh/zpty) is not installed: _zc is made but not run here"
  fi
else
  fail "no zsh completion at $completion_dir/_zc"
fi

if [ -z "$help2man" ]; then
  [ $failures -eq 0 ] || exit 1
  echo "SKIP: the build found no help2man, so it made no man pages (scripts/deps installs it)"
  exit $SKIP
fi

# render PAGE: the page as text, MANWIDTH columns wide, hyphens and minus signs as "-" and the
# spaces of justified lines as one; groff's warnings are failures.
export MANWIDTH=80
render() {
  if command -v groff >/dev/null; then
    local warnings
    warnings=$(groff -man -Tutf8 -ww -z "$1" 2>&1) || true
    [ -z "$warnings" ] || fail "$1: groff warns: $warnings"
    GROFF_NO_SGR=1 groff -man -Tutf8 -rLL=${MANWIDTH}n -P-cbou "$1"
  else
    man -l "$1" | cat
  fi | sed -e 's/\xe2\x80\x90/-/g' -e 's/\xe2\x88\x92/-/g' | tr -s ' '
}

# has_line TEXT_FILE PREFIX: a line of the page begins, after its indent, with PREFIX.
has_line() {
  awk -v want="$2" '{ sub(/^ +/, "") } index($0, want) == 1 && (length($0) == length(want) ||
      substr($0, length(want) + 1, 1) == " ") { found = 1 } END { exit !found }' "$1"
}

version_line=$("$zc" --version)
licence=$(sed -n 's/.*; licence: \([^,]*\),.*/\1/p' <<<"$version_line")
[ "$licence" = Apache-2.0 ] || fail "zc --version names the licence '$licence', not Apache-2.0"
# The exit codes as zc --help lists them: "CODE  MEANING", one a line.
exit_codes=$("$zc" --help | awk '/^Exit codes:$/ { on = 1; next } on && /^[ \t]*$/ { exit } on')
[ -n "$exit_codes" ] || fail "zc --help lists no exit codes"
renderer=$(command -v groff >/dev/null && echo groff || echo "man -l")
echo "== man pages ($man_dir, rendered with $renderer, MANWIDTH=$MANWIDTH)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for page in zc "${commands[@]/#/zc-}"; do
  file=$man_dir/$page.1
  if [ ! -s "$file" ]; then
    fail "$page.1 was not made"
    continue
  fi
  render "$file" >"$work/$page.txt"
  if [ "$page" = zc ]; then
    summary="move data between host and NVIDIA GPUs"
    for listed in "${commands[@]}"; do
      has_line "$work/$page.txt" "$listed" || fail "zc.1 does not list $listed"
      tr '\n' ' ' <"$work/$page.txt" | grep -q "zc-$listed(1)" || fail "zc.1 does not refer to zc-$listed(1)"
    done
  else
    command=${page#zc-}
    summary=$("$zc" --help |
      awk -v c="$command" '/^  [a-z]/ && $1 == c { sub(/^ +[^ ]+ +/, ""); print; exit }')
  fi
  has_line "$work/$page.txt" "$page - $summary" || fail "$page.1's NAME is not '$page - $summary'"
  # The licence, as zc --version says it, in the COPYRIGHT section.
  awk '/^COPYRIGHT/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$work/$page.txt" >"$work/$page.copyright"
  if ! has_line "$work/$page.copyright" "$version_line" ||
    ! grep -q "licensed under $licence" "$work/$page.copyright"; then
    fail "$page.1's COPYRIGHT does not say '$version_line' and 'licensed under $licence'"
  fi
  # EXIT STATUS (cmake/zc-man-page.sh): each code in it with the meaning `zc --help` gives,
  # compared without spaces and hyphens, which the page's line breaks may add.
  awk '/^EXIT STATUS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$work/$page.txt" >"$work/$page.exit"
  exit_text=$(tr -d ' \n\t-' <"$work/$page.exit")
  listed=$(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$work/$page.exit" | sort -u | tr '\n' ' ')
  if [ -z "$listed" ]; then
    fail "$page.1 has no EXIT STATUS section with codes"
  fi
  for code in $listed; do
    meaning=$(awk -v c="$code" '$1 == c { sub(/^ *[0-9]+ +/, ""); print }' <<<"$exit_codes")
    [ -n "$meaning" ] || continue
    [[ $exit_text == *"$(tr -d ' \n\t-' <<<"$code$meaning")"* ]] ||
      fail "$page.1's EXIT STATUS does not give code $code the meaning zc --help gives: $meaning"
  done
  if [ "$page" = zc ] && [ "$listed" != "$(awk '{ print $1 }' <<<"$exit_codes" | sort -u | tr '\n' ' ')" ]; then
    fail "zc.1's EXIT STATUS lists the codes $listed, zc --help others"
  fi
  missing=0 count=0
  while IFS=$'\t' read -r long short arg _; do
    form=$long
    [ "$short" = - ] || form="$short, $long"
    [ "$arg" = - ] || form="$form $arg"
    count=$((count + 1))
    has_line "$work/$page.txt" "$form" || { fail "$page.1 lacks the option '$form'"; missing=1; }
  done < <(sh "$help_options" "$zc" ${command:+"$command"})
  if [ "$page" = zc ]; then
    echo "ok: zc.1 renders, with its NAME, every command, the licence and every exit code"
  elif [ $count -eq 0 ]; then
    fail "zc $command --help lists no options"
  elif [ $missing -eq 0 ]; then
    echo "ok: $page.1 renders, with its NAME, all $count options of its --help, the licence and exit codes $listed"
  fi
  command=
done

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "every man page and completion check passed"
