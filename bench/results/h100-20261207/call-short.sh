#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The three short calls made on the warm machine after call 30 and call 31 (each one command,
# from the checkout with .deps, its results under $OUT), as they ran.
set -u
case ${1:?usage: call-short.sh small|memcheck|cupy} in
small) # after call 30: the small steps, three rounds, --fix all
  mkdir -p $OUT/small
  ZC_BENCH_FRAMEWORKS_ONLY="torch_small_steps" ZC_BENCH_FRAMEWORKS_REPEATS=3 ZC_BENCH_FRAMEWORKS_FIX=all \
    timeout 120 bash scripts/bench.d/48-frameworks.sh build/run/tools/zc/zc $OUT/small > $OUT/small/48.log 2>&1 ;;
memcheck) # after call 31: the suite's memcheck programs under compute-sanitizer, tight only
  timeout 100 scripts/run-check $OUT/build --deps .deps --skip tests,suite,memcheck,bench > $OUT/build.log 2>&1
  programs=()
  for f in tests/run/conformance/conf_*.cu tests/run/conformance/conf_*_driver.c; do
    n=$(basename "$f"); programs+=("build/run/tests/run/conformance/${n%.*}")
  done
  programs+=(tests/run/conformance/conf_*.py)
  timeout 150 bash tests/run/conformance/run_conformance.sh --zc build/run/tools/zc/zc \
    --probe build/run/tests/run/conformance/conformance_gpu_probe --timeout 90 --memcheck --configs tight \
    --only "conf_(sizes|sync_order|lifecycle|pinned_reuse|pinned_large|errors|threads)" \
    -- "${programs[@]}" > $OUT/memcheck-tight.log 2>&1 ;;
cupy) # last: CuPy, three rounds, --fix all (the hostcopy cure among them)
  mkdir -p $OUT/cupy
  ZC_BENCH_FRAMEWORKS_ONLY="cupy_transfers" ZC_BENCH_FRAMEWORKS_REPEATS=3 ZC_BENCH_FRAMEWORKS_FIX=all \
    timeout 140 bash scripts/bench.d/48-frameworks.sh build/run/tools/zc/zc $OUT/cupy > $OUT/cupy/48.log 2>&1 ;;
esac
