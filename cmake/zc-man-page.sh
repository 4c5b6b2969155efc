#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# One man page of zc, made by help2man from the --help text of zc or of one of its commands, so
# that the page says what the program says. Run at build time by cmake/ManAndCompletion.cmake.
#
#   zc-man-page.sh HELP2MAN ZC VERSION OUT PAGE [COMMAND...]
#       PAGE is zc (the commands named after it go to its SEE ALSO) or zc-COMMAND
#   zc-man-page.sh --help-text ZC [COMMAND]
#       the help as help2man is given it (the wrapper made below runs this)
#
# help2man runs a program with --help. A command's help comes from `zc COMMAND --help`, so each
# page gets a two-line wrapper named zc-COMMAND. The wrapper also turns zc's "usage:" lines into
# the "Usage:" and "or:" lines that help2man makes the SYNOPSIS of, and leaves out an "Exit
# codes:" block (zc --help's), which the EXIT STATUS section says instead; nothing else is changed.
#
# Every page has an EXIT STATUS section, written here and nowhere else: which codes each command
# gives (exit_codes below, from tools/zc and docs/) with the meanings that `zc help` lists.
set -eu

if [ "$1" = --help-text ]; then
  zc=$2
  shift 2
  "$zc" "$@" --help | awk '
    NR == 1 && /^usage: / { line = "Usage:" substr($0, 7); in_usage = 1; next }
    in_usage && /^[ \t]*$/ { print line; in_usage = 0; print; next }
    in_usage {
      text = $0
      sub(/^[ \t]+/, "", text)
      # Another form of the command starts a line of its own; anything else continues the last.
      if (text ~ /^zc /) { print line; line = "   or: " text } else line = line " " text
      next
    }
    /^Exit codes:$/ { in_codes = 1; next }
    in_codes && /^[ \t]*$/ { in_codes = 0; next }
    in_codes { next }
    { print }
    END { if (in_usage) print line }'
  exit 0
fi

help2man=$1 zc=$2 version=$3 out=$4 page=$5
shift 5
work=$(mktemp -d "${TMPDIR:-/tmp}/zc-man.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Quote for sh inside single quotes.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

if [ "$page" = zc ]; then
  command=
  # The NAME line: the first clause of the sentence under the usage lines of `zc --help`.
  summary=$("$zc" --help | awk '
    paragraph == 1 && /[^ \t]/ { text = text (text ? " " : "") $0 }
    /^[ \t]*$/ { paragraph++ }
    END {
      sub(/(, and |\. ).*/, "", text)
      sub(/\.$/, "", text)
      print tolower(substr(text, 1, 1)) substr(text, 2)
    }')
  {
    echo '[SEE ALSO]'
    # \% keeps a name whole: groff would otherwise break zc-stream(1) after its hyphen.
    for other in "$@"; do echo ".BR \\%zc-$other (1),"; done | sed '$ s/,$//'
  } >"$work/include"
else
  command=${page#zc-}
  # The NAME line: the command's one-line summary as `zc --help` lists it (tools/zc/commands.c).
  summary=$("$zc" --help |
    awk -v c="$command" '/^  [a-z]/ && $1 == c { sub(/^ +[^ ]+ +/, ""); print; exit }')
  printf '[SEE ALSO]\n.BR zc (1)\n' >"$work/include"
fi
[ -n "$summary" ] || { echo "zc-man-page.sh: no summary for $page in zc --help" >&2; exit 1; }

# The COPYRIGHT section: the licence as `zc --version` says it, and where its text is installed.
licence=$("$zc" --version | sed -n 's/.*; licence: \([^,]*\),.*/\1/p')
[ -n "$licence" ] || { echo "zc-man-page.sh: zc --version names no licence" >&2; exit 1; }
{
  echo '[COPYRIGHT]'
  "$zc" --version
  # printf, not echo: dash's echo would read groff's \f escapes as form feeds.
  printf '%s\n' '.PP' "zerocopy is licensed under $licence; its text is installed as" \
    '.I share/doc/zerocopy/LICENSE' 'under the install prefix (/usr from the .deb).'
} >>"$work/include"

# The EXIT STATUS section. exit_codes: the codes this page's command gives, then what to add;
# the codes' meanings are those of `zc --help` ("Exit codes:"), so that no page says other than
# the program. A page without a row here fails the build: a new command says its codes.
meanings=$("$zc" --help | awk '/^Exit codes:$/ { on = 1; next } on && /^[ \t]*$/ { exit } on')
[ -n "$meanings" ] || { echo "zc-man-page.sh: zc --help lists no exit codes" >&2; exit 1; }
# row CODE [MORE]: a .TP row, CODE with zc --help's meaning, and MORE after it.
row() {
  meaning=$(printf '%s\n' "$meanings" | awk -v c="$1" '$1 == c { sub(/^ *[0-9]+ +/, ""); print }')
  [ -n "$meaning" ] || { echo "zc-man-page.sh: zc --help gives no meaning for exit code $1" >&2; exit 1; }
  printf '%s\n' '.TP' ".B $1" "$meaning${2:+: $2}"
}
# program_rows WHAT: zc trace's and zc run's codes, which are the program's but for their own.
program_rows() {
  printf '%s\n' '.TP' '.I the program'"'"'s code' \
    "the program's own exit code, whatever it is (0 when it succeeded)." \
    '.TP' '.B 128 + N' 'signal N killed the program.' \
    '.TP' '.B 127' 'the program could not be started.' \
    '.TP' '.B 126' 'the program is not executable.'
  row 1 "the program exited 0, but $1"
  row 2 "bad options, or a library or cure that cannot be used: the program is not run"
}
{
  echo '[EXIT STATUS]'
  case $page in
    zc)
      for code in $(printf '%s\n' "$meanings" | awk '{ print $1 }'); do row "$code"; done
      printf '%s\n' '.PP' 'Each command'"'"'s page says which of these it gives;' \
        '.B zc trace' 'and' '.B zc run' 'exit with the traced program'"'"'s code.'
      ;;
    zc-info) row 0 && row 1 && row 2 && row 3 ;;
    zc-bench) for code in 0 1 2 3 4 5 6; do row "$code"; done ;;
    zc-advise)
      row 0 && row 1 && row 2
      row 3 "only with --validate, which runs the workloads on the GPU"
      row 4 "only with --validate"
      row 5 "only with --validate"
      ;;
    zc-report) row 0 && row 1 "also when an installed gnuplot or dot draws none of its pictures" &&
      row 2 ;;
    zc-stream)
      row 0 && row 1 && row 2
      row 3 "every mode but cpu needs one (--mode all too)"
      row 4 && row 5
      row 6 "how long is --timeout-ms"
      ;;
    zc-trace) program_rows "its trace could not be read or the results written" ;;
    zc-run) program_rows "its logs could not be read or the report written" ;;
    *)
      echo "zc-man-page.sh: no exit codes for $page: give its codes in the case above" >&2
      exit 1
      ;;
  esac
} >>"$work/include"

{
  echo '#!/bin/sh'
  echo "exec sh $(quote "$0") --help-text $(quote "$zc") $command"
} >"$work/$page"
chmod +x "$work/$page"

"$help2man" --no-info --section=1 --source="zerocopy $version" --name="$summary" \
  --version-string="$page $version" --include="$work/include" --output="$out.tmp" "$work/$page"
mv "$out.tmp" "$out"
