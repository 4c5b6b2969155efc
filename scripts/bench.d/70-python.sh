#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark: the Python package against PyTorch and CuPy (tests/python/bench_python.py): pinning
# 1 GiB through zerocopy, torch.empty(pin_memory=True) and cupyx.empty_pinned, and a 4 KiB frame
# round trip from Python, zerocopy.Stream against the PyTorch copy-op-copy loop, every result
# checked. Writes RESULTS_DIR/python/python.json and python.txt.
#   bash scripts/bench.d/70-python.sh ZC_BINARY RESULTS_DIR
set -uo pipefail
zc=${1:?usage: 70-python.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 70-python.sh ZC_BINARY RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$zc")/../.." && pwd)
lib=$build/src/libzerocopy.so
if [ ! -e "$lib" ]; then
  echo "70-python: $lib is not built" >&2
  exit 1
fi
out=$results/python
mkdir -p "$out"

# The interpreter: $ZC_PYTHON when set, else python3 from PATH. The package needs numpy only;
# without torch or CuPy their rows say why.
python=${ZC_PYTHON:-python3}
if ! "$python" -c "import numpy" >/dev/null 2>&1; then
  echo "70-python: $python cannot import numpy (set ZC_PYTHON to an interpreter that can)" >&2
  exit 1
fi
echo "70-python: $("$python" --version 2>&1), $(basename "$lib")"

export LIBZEROCOPY_PATH=$lib PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
"$python" "$root/tests/python/bench_python.py" "$out" --repeats 5 --frames 20000 --warmup 1000 \
  2>&1 | tee "$out/python.log"
exit "${PIPESTATUS[0]}"
