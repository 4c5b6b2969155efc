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
# the "Usage:" and "or:" lines that help2man makes the SYNOPSIS of; nothing else is changed.
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

{
  echo '#!/bin/sh'
  echo "exec sh $(quote "$0") --help-text $(quote "$zc") $command"
} >"$work/$page"
chmod +x "$work/$page"

"$help2man" --no-info --section=1 --source="zerocopy $version" --name="$summary" \
  --version-string="$page $version" --include="$work/include" --output="$out.tmp" "$work/$page"
mv "$out.tmp" "$out"
