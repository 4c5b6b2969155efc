#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The options that `zc [COMMAND] --help` lists, one a line:
# LONG<TAB>SHORT<TAB>ARG<TAB>SUMMARY<TAB>VALUES, SHORT, ARG and VALUES "-" when there are none
# (an empty field would vanish under the shell's read). The man page check and the shell
# completion read zc's options from here, so that they follow the help text wherever it changes.
#
#   zc-help-options.sh ZC [COMMAND]
#
# An option line is indented and starts with "-x, --long" or "--long"; its value name follows
# after one space, in capitals (FILE, N) or as choices (wait|drop). The usage lines above the
# first blank line are read only for the values they give an option ("[--direction h2d|d2h|both]"
# where the option line says "--direction D").
#
# VALUES is what the value may be, "|" between the alternatives: words in lower case are
# themselves (ll, all, -), FILE, PATH and DIR stand for names of files and folders, and a name in
# capitals that a section of the help lists ("Modes:" lists the MODEs, "Formats (...):" the
# FORMATs: each entry's first word) stands for the words it lists; a name with "[,NAME...]" or
# ",..." after it takes several, comma-separated, and VALUES then ends in ",...". Other names
# (N, HZ) are free values and are left out. Example: --mode's usage "MODE[,MODE...]|all" gives
# "zerocopy|...|stream-wait|all,...".
set -eu
zc=$1
shift
"$zc" "$@" --help | awk '
    BEGIN { OFS = "\t" }
    { line[NR] = $0 }
    END {
        # The usage lines: the value each option is shown with there.
        for (i = 1; i <= NR && line[i] !~ /^[ \t]*$/; i++)
            usage_tokens(line[i])
        first = i
        # The sections that list values: a header "Names:" or "Names (...):", then entries
        # "  word  text" (deeper lines continue an entry), up to a blank line.
        for (i = first; i <= NR; i++) {
            if (line[i] !~ /^[A-Z][a-z]+s( \(.*\))?:$/)
                continue
            name = line[i]
            sub(/( \(.*\))?:$/, "", name)
            name = toupper(substr(name, 1, length(name) - 1))
            for (j = i + 1; j <= NR && line[j] !~ /^[ \t]*$/; j++)
                if (match(line[j], /^  [a-z0-9][a-z0-9.-]*( |$)/)) {
                    word = substr(line[j], 3, RLENGTH - 2)
                    sub(/ $/, "", word)
                    listed[name] = count[name]++ ? listed[name] "|" word : word
                }
        }
        for (i = first; i <= NR; i++)
            if (line[i] ~ /^ +(-[A-Za-z0-9], )?--[a-z0-9][a-z0-9-]*/)
                option(line[i])
    }

    # Every "--long VALUE" or "-x VALUE" of a usage line, VALUE up to a space or the "]" that
    # closes the option'"'"'s bracket.
    function usage_tokens(text,    n, k, c, depth, spelling, value) {
        n = length(text)
        for (k = 1; k <= n; k++) {
            if (substr(text, k, 1) != "-" || (k > 1 && substr(text, k - 1, 1) !~ /[[ ]/))
                continue
            if (!match(substr(text, k), /^--?[A-Za-z0-9][a-z0-9-]* /))
                continue
            spelling = substr(text, k, RLENGTH - 1)
            k += RLENGTH
            value = ""
            depth = 0
            for (; k <= n; k++) {
                c = substr(text, k, 1)
                if (c == " " || (c == "]" && depth == 0))
                    break
                depth += c == "[" ? 1 : c == "]" ? -1 : 0
                value = value c
            }
            if (value != "" && !(spelling in shown))
                shown[spelling] = value
        }
    }

    # What a value written as text may be (VALUES above), "-" when free.
    function values(text,    parts, n, k, part, out, many, name) {
        out = ""
        many = 0
        n = split(text, parts, "|")
        for (k = 1; k <= n; k++) {
            part = parts[k]
            if (part ~ /^[a-z0-9.-]+$/) {
                out = out (out == "" ? "" : "|") part
                continue
            }
            if (part ~ /(\[,[A-Z0-9_]+\.\.\.\]|,\.\.\.)$/)
                many = 1
            name = part
            sub(/(\[,[A-Z0-9_]+\.\.\.\]|,\.\.\.)$/, "", name)
            if (name == "FILE" || name == "PATH" || name == "DIR")
                out = out (out == "" ? "" : "|") name
            else if (name in listed)
                out = out (out == "" ? "" : "|") listed[name]
        }
        if (out == "")
            return "-"
        return out (many ? ",..." : "")
    }

    function option(text,    short, long, rest, arg, token, given) {
        sub(/^ +/, "", text)
        short = "-"
        if (text ~ /^-[A-Za-z0-9], /) {
            short = substr(text, 1, 2)
            text = substr(text, 5)
        }
        match(text, /^--[a-z0-9][a-z0-9-]*/)
        long = substr(text, 1, RLENGTH)
        rest = substr(text, RLENGTH + 1)
        arg = "-"
        if (match(rest, /^ [^ ]+/)) {
            token = substr(rest, 2, RLENGTH - 1)
            if (token ~ /^[A-Z][A-Z0-9_]*(,\.\.\.)?$/ || token ~ /\|/) {
                arg = token
                rest = substr(rest, RLENGTH + 1)
            }
        }
        sub(/^ +/, "", rest)
        given = "-"
        if (arg != "") {
            given = values(arg)
            # The usage may say more than the option line: "h2d|d2h|both" for "D".
            if (long in shown && values(shown[long]) != "-" && (given == "-" || index(shown[long], "|")))
                given = values(shown[long])
            else if (short in shown && values(shown[short]) != "-" &&
                     (given == "-" || index(shown[short], "|")))
                given = values(shown[short])
        }
        if (arg == "-")
            given = "-"
        print long, short, arg, rest, given
    }'
