#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call 15 (short): why the mover's batch of small blocks to the device is slow on the host.
set -u
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p build/probes && nvcc -O2 -arch=sm_90 .probe/batch2.cu -o build/probes/b2 && timeout 60 build/probes/b2 > $OUT/batch2.log 2>&1
echo "batch2 rc=$? at $((SECONDS - start)) s"; cat $OUT/batch2.log
timeout 150 scripts/run-check $OUT/build --deps .deps --skip tests,suite,memcheck,bench > $OUT/build.log 2>&1
timeout 60 cmake --build build/run -j16 --target zerocopy >> $OUT/build.log 2>&1; echo "lib rc=$? at $((SECONDS - start)) s"
LIBZEROCOPY_PATH=$PWD/build/run/src/libzerocopy.so PYTHONPATH=$PWD/python timeout 60 python3 .probe/p50b.py > $OUT/p50b.log 2>&1
echo "p50b rc=$? at $((SECONDS - start)) s"; cat $OUT/p50b.log
