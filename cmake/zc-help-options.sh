#!/bin/sh
# The options that `zc [COMMAND] --help` lists, one a line: LONG<TAB>SHORT<TAB>ARG<TAB>SUMMARY,
# SHORT and ARG "-" when there are none (an empty field would vanish under the shell's read).
# The man page check and the shell completion read zc's options from here, so that they follow
# the help text wherever it changes.
#
#   zc-help-options.sh ZC [COMMAND]
#
# An option line is indented and starts with "-x, --long" or "--long"; its value name follows
# after one space, in capitals (FILE, N) or as choices (wait|drop). The usage lines above the
# first blank line are not read: they name the options again, in brackets.
set -eu
zc=$1
shift
"$zc" "$@" --help | awk '
    BEGIN { OFS = "\t" }
    !seen_blank { if ($0 ~ /^[ \t]*$/) seen_blank = 1; next }
    /^ +(-[A-Za-z0-9], )?--[a-z0-9][a-z0-9-]*/ {
        line = $0
        sub(/^ +/, "", line)
        short = "-"
        if (line ~ /^-[A-Za-z0-9], /) {
            short = substr(line, 1, 2)
            line = substr(line, 5)
        }
        match(line, /^--[a-z0-9][a-z0-9-]*/)
        long = substr(line, 1, RLENGTH)
        rest = substr(line, RLENGTH + 1)
        arg = "-"
        if (match(rest, /^ [^ ]+/)) {
            token = substr(rest, 2, RLENGTH - 1)
            if (token ~ /^[A-Z][A-Z0-9_]*$/ || token ~ /\|/) {
                arg = token
                rest = substr(rest, RLENGTH + 1)
            }
        }
        sub(/^ +/, "", rest)
        print long, short, arg, rest
    }'
