#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The locales the locale tests run in (German, French, Turkish: a decimal comma, and Turkish's
# dotless i), made with localedef into DIR, which the tests give glibc as LOCPATH: no root, and
# nothing of the machine changed. A locale already in DIR is kept. It always exits 0: a locale
# that cannot be made (no locale sources: Debian's package locales) makes its test SKIP, and a
# failed fixture would instead stop every test that needs it.
#
#   make_locales.sh DIR NAME...     (NAME as de_DE: made as DIR/de_DE.UTF-8)
dir=$1
shift
mkdir -p "$dir" || exit 0
for name in "$@"; do
  [ -f "$dir/$name.UTF-8/LC_NUMERIC" ] && continue
  if ! command -v localedef >/dev/null 2>&1; then
    echo "make_locales: no localedef: the locale tests will be skipped"
    exit 0
  fi
  # In the background: each takes a few seconds. Made aside, then renamed: a locale cut short
  # is never taken for a whole one.
  (rm -rf "$dir/.$name.new" &&
    localedef -i "$name" -f UTF-8 "$dir/.$name.new" >/dev/null 2>&1 &&
    rm -rf "$dir/$name.UTF-8" && mv "$dir/.$name.new" "$dir/$name.UTF-8" ||
    echo "make_locales: cannot make $name.UTF-8 (Debian: apt-get install locales)") &
done
wait
for name in "$@"; do
  [ -f "$dir/$name.UTF-8/LC_NUMERIC" ] && echo "make_locales: $dir/$name.UTF-8"
done
exit 0
