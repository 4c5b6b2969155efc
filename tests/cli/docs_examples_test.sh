#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The examples of the README and docs/ that run without a GPU, run as they are written, so that
# the documentation cannot drift from the program.
#
#   docs_examples_test.sh ZC SOURCE_DIR [--update]
#
# Every file of docs/examples/ is an example output: its first line is the command ("$ zc ..."),
# run from SOURCE_DIR, the rest what it prints on stdout. Each is run and compared, each must be
# shown or named in a document, and a document shows one by a fenced block right after the line
# "<!-- example: docs/examples/NAME -->", which must hold the file as it is. Every "$ zc" line
# in a document's block is one of them, so that no output is shown unchecked. --update writes
# the files and those blocks from what zc prints now (then read the diff before committing).
# Only outputs that do not depend on the machine or the time are kept there.
#
# The README's and docs/stream.md's sox pipelines run on a stereo 44.1 kHz recording (made by
# sox): without a GPU they must exit 3 with the hint to --mode cpu, and with --mode cpu their
# output must be the recording's samples, mono at the --rate they name. Without sox those two
# checks are skipped, said, and the test exits 77 once the others passed.
set -uo pipefail
zc=$1 src=$2 update=${3:-}
SKIP=77
export LC_ALL=C CUDA_VISIBLE_DEVICES=-1
skipped=0
# shellcheck source=tests/support/checks.sh
. "$(dirname "$0")/../support/checks.sh"
checks_begin "${TMPDIR:-/tmp}/zc-docs.XXXXXX"

# sox_pipeline FILE: the shell pipeline of FILE that starts with "sox in.wav", joined with its
# continuation line when it ends with "|", with the markdown table's "\|" as "|", the comment
# cut, and zc as the zc under test.
sox_pipeline() {
  awk '
    /sox in\.wav/ && !done {
      line = $0
      if (match(line, /`sox in\.wav[^`]*`/))
        line = substr(line, RSTART + 1, RLENGTH - 2)
      else
        sub(/^[^s]*/, "", line)
      while (line ~ /\|[ \t]*$/ && (getline more) > 0)
        line = line " " more
      gsub(/\\\|/, "|", line)
      sub(/[ \t]+#.*$/, "", line)
      print line
      done = 1
    }' "$1" | sed -e 's/| *zc /| "$ZC" /'
}

# check_sox_example FILE: run its sox pipeline without a GPU, then with --mode cpu.
check_sox_example() {
  local file=$1 line dir
  line=$(sox_pipeline "$src/$file")
  if [ -z "$line" ]; then
    fail "$file has no 'sox in.wav ...' pipeline any more (update this test)"
    return
  fi
  case $line in
  *'"$ZC" stream'*) ;;
  *)
    fail "$file: the sox pipeline does not run zc stream: $line"
    return
    ;;
  esac
  local rate
  rate=$(printf '%s\n' "$line" | sed -n 's/.*"\$ZC" stream .*--rate \([0-9.e]*\).*/\1/p')
  if [ -z "$rate" ]; then
    fail "$file: its sox pipeline gives zc stream no --rate: $line"
    return
  fi
  dir=$work/${file//\//_}
  mkdir -p "$dir"
  # A stereo recording at another rate than the one zc is told: the pipeline must make it mono
  # at --rate itself, as zc reads one channel of float32 samples.
  sox -n -r 44100 -c 2 "$dir/in.wav" synth 1 sine 440 sine 3000
  (cd "$dir" && ZC=$zc bash -c "set -o pipefail; $line" >"$dir/stdout" 2>"$dir/stderr")
  local code=$?
  if [ $code -ne 3 ]; then
    fail "$file: without a GPU '$line' exited $code, wanted 3: $(cat "$dir/stderr")"
  elif ! grep -q "no CUDA GPU: run the same filter on the host with --mode cpu" "$dir/stderr"; then
    fail "$file: without a GPU '$line' gave no hint to --mode cpu: $(cat "$dir/stderr")"
  else
    echo "ok: $file: without a GPU its sox pipeline exits 3 and points to --mode cpu"
  fi
  local cpu_line=${line/'"$ZC" stream'/'"$ZC" stream --mode cpu'}
  rm -f "$dir"/out.*
  (cd "$dir" && ZC=$zc bash -c "set -o pipefail; $cpu_line" >"$dir/stdout" 2>"$dir/stderr")
  code=$?
  local out
  out=$(ls "$dir"/out.* 2>/dev/null | head -n 1)
  if [ $code -ne 0 ] || [ -z "$out" ]; then
    fail "$file: '$cpu_line' exited $code: $(cat "$dir/stderr")"
    return
  fi
  # The recording, mono at the rate zc was told: 1 s of float32 samples (raw), or those samples
  # written back into a WAV by sox (its length in samples and channels).
  local want=$(printf '%.0f' "$rate") got
  case $out in
  *.wav) got=$(( $(soxi -s "$out") * $(soxi -c "$out") )) ;;
  *) got=$(( $(stat -c %s "$out") / 4 )) ;;
  esac
  if [ "$got" -ne "$want" ]; then
    fail "$file: '$cpu_line' gave $got samples for 1 s of stereo 44.1 kHz, wanted $want (mono at $rate Hz)"
  else
    echo "ok: $file: with --mode cpu its sox pipeline filters all $want samples, mono at $rate Hz"
  fi
}

docs=("$src/README.md" "$src"/docs/*.md)

# run_example FILE: what its command prints now, on stdout; its exit code is the command's.
run_example() {
  local line
  line=$(head -n 1 "$1")
  case $line in
  '$ zc '*) ;;
  *)
    echo "its first line is not '\$ zc ...': $line" >&2
    return 1
    ;;
  esac
  (cd "$src" && eval "\"\$zc\" ${line#'$ zc '}")
}

# shown_blocks: "DOC<TAB>NAME" for each block shown under an example marker.
shown_blocks() {
  awk '
    match($0, /^<!-- example: docs\/examples\/[^ ]+ -->$/) {
      name = $0; sub(/^<!-- example: docs\/examples\//, "", name); sub(/ -->$/, "", name)
      print FILENAME "\t" name
    }' "${docs[@]}"
}

# block DOC NAME: the lines of the fenced block under NAME's marker in DOC.
block() {
  awk -v want="<!-- example: docs/examples/$2 -->" '
    $0 == want { marker = 1; next }
    marker && !open { if ($0 ~ /^```/) { open = 1; next } exit }
    open && /^```$/ { exit }
    open { print }' "$1"
}

# replace_block DOC NAME: DOC with NAME's block made the file's lines.
replace_block() {
  awk -v want="<!-- example: docs/examples/$2 -->" -v file="$src/docs/examples/$2" '
    $0 == want { print; marker = 1; next }
    marker == 1 && /^```/ { print; while ((getline l < file) > 0) print l; marker = 2; next }
    marker == 2 && /^```$/ { print; marker = 0; next }
    marker == 2 { next }
    { marker = marker == 1 ? 0 : marker; print }' "$1" >"$work/replaced" && cat "$work/replaced" >"$1"
}

echo "== example outputs (docs/examples)"
for file in "$src"/docs/examples/*.txt; do
  name=${file##*/}
  if ! run_example "$file" >"$work/now" 2>"$work/now.err"; then
    fail "docs/examples/$name: '$(head -n 1 "$file")' failed: $(cat "$work/now.err")"
    continue
  fi
  if [ "$update" = --update ]; then
    { head -n 1 "$file"; cat "$work/now"; } >"$work/new" && cat "$work/new" >"$file"
  fi
  if ! tail -n +2 "$file" | diff -u - "$work/now" >"$work/diff"; then
    fail "docs/examples/$name is not what '$(head -n 1 "$file")' prints now (run this test" \
      "with --update, then read the diff):"
    sed 's/^/    /' "$work/diff"
  else
    echo "ok: docs/examples/$name is what '$(head -n 1 "$file")' prints"
  fi
  if ! grep -q -e "<!-- example: docs/examples/$name -->" -e "examples/$name" "${docs[@]}"; then
    fail "docs/examples/$name is shown or named in no document"
  fi
done
while IFS=$'\t' read -r doc name; do
  rel=${doc#"$src/"}
  if [ ! -f "$src/docs/examples/$name" ]; then
    fail "$rel shows docs/examples/$name, which does not exist"
    continue
  fi
  [ "$update" != --update ] || replace_block "$doc" "$name"
  if ! block "$doc" "$name" | diff -u "$src/docs/examples/$name" - >"$work/diff"; then
    fail "$rel's block under docs/examples/$name differs from the file (--update rewrites it):"
    sed 's/^/    /' "$work/diff"
  else
    echo "ok: $rel shows docs/examples/$name as it is"
  fi
done < <(shown_blocks)
# A "$ zc" line in a document is the first line of an example file: its output is checked.
while IFS= read -r shown; do
  doc=${shown%%:*} line=${shown#*:}
  if ! head -q -n 1 "$src"/docs/examples/*.txt | grep -qxF -- "$line"; then
    fail "${doc#"$src/"} shows '$line', which no docs/examples file runs"
  fi
done < <(grep -H '^\$ zc ' "${docs[@]}")

# The tour (scripts/run) without a GPU: its closing line names the host's way to run the stream,
# and that command runs here.
echo "== scripts/run without a GPU"
ZC_TOUR_ZC=$zc bash "$src/scripts/run" "$work/tour" >"$work/tour.log" 2>&1
code=$?
last=$(sed '/^$/d' "$work/tour.log" | tail -n 1)
hint=${last##*without a GPU: }
if [ $code -ne 3 ] || [ "$hint" = "$last" ] || [[ $hint != "$zc stream --mode cpu" ]]; then
  fail "scripts/run without a GPU exited $code and ended with '$last'"
elif ! $hint --frames 10 --warmup 2 >"$work/tour-hint.log" 2>&1; then
  fail "the tour's hint '$hint' does not run: $(cat "$work/tour-hint.log")"
else
  echo "ok: scripts/run ends pointing to '$hint', which runs without a GPU"
fi

echo "== sox pipelines"
if command -v sox >/dev/null && command -v soxi >/dev/null; then
  check_sox_example README.md
  check_sox_example docs/stream.md
else
  echo "SKIP: no sox here: the README's and docs/stream.md's sox pipelines are not run"
  skipped=1
fi

[ "$failures" -gt 0 ] || [ $skipped -eq 0 ] || exit $SKIP
checks_end "every documented example checked"
