# SPDX-License-Identifier: Apache-2.0
# Sourced by the corpus benchmarks (scripts/bench.d/45-trace-corpus.sh, 46-run-corpus.sh), with
# zc, corpus, list and out set: the CUDA compiler, bin (where the programs are built, removed at
# exit), build NAME SRC EXTRA DIR and rows (the corpus table's lines).
# The CUDA compiler the project's own build used (its CMake cache, beside zc), or $NVCC.
build=$(cd "$(dirname "$zc")/../.." && pwd)
nvcc=${NVCC:-$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)}
nvcc=${nvcc:-nvcc}
if ! command -v "$nvcc" >/dev/null; then
  echo "$(basename "$0" .sh): no CUDA compiler ($nvcc): set NVCC" >&2
  exit 1
fi
arch=${ZC_CORPUS_ARCH:-sm_90}
# The programs are built in the results folder and removed at the end: the results keep only
# what was said about them.
bin=$out/bin
mkdir -p "$bin"
trap 'rm -rf "$bin"' EXIT
: >"$out/rows.tsv"
status=0

# build NAME SRC EXTRA DIR: compile one program; its status in $out/NAME.build.rc. Libraries (-l...)
# go after the source; {tree} in EXTRA is the copied repository's folder.
build() {
  local name=$1 src=$2 extra=$3 dir=$4 flags=() libs=() a
  for a in ${extra//\{tree\}/$dir}; do
    case "$a" in -l*) libs+=("$a") ;; *) flags+=("$a") ;; esac
  done
  "$nvcc" -arch="$arch" -O2 -std=c++17 -I"$corpus/cudahandbook/chLib" "${flags[@]}" \
    "$src" -o "$bin/$name" "${libs[@]}" >"$out/$name.build.txt" 2>&1
  echo $? >"$out/$name.build.rc"
}

# The table's rows, "-" standing for an empty field (read would run two tabs together).
rows() {
  while IFS=$'\t' read -r name tree repo path extra args expected what; do
    case "$name" in '#'* | '') continue ;; esac
    [ "$extra" = - ] && extra=
    [ "$args" = - ] && args=
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$tree" "$repo" "$path" "${extra:--}" \
      "${args:--}" "$expected" "$what"
  done <"$list"
}


# build_all: every program of the table whose source is there, all at once (nvcc is slow, the
# machine has cores).
build_all() {
  local name tree repo path extra args expected what
  while IFS=$'\t' read -r name tree repo path extra args expected what; do
    [ "$extra" = - ] && extra=
    rm -f "$out/$name.build.rc"
    [ -f "$corpus/$tree/$path" ] && build "$name" "$corpus/$tree/$path" "$extra" "$corpus/$tree" &
  done < <(rows)
  wait
}
