#!/usr/bin/env bash
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

# The first python3 that imports torch (the GPU machine keeps it in a venv), else the first
# that imports numpy: the package needs numpy only, torch and cupy rows then say why not.
candidates=(python3 /usr/bin/python3 /opt/*/bin/python3 /opt/*/.venv/bin/python3 /opt/*/venv/bin/python3
  "$HOME"/venv*/bin/python3 "$HOME"/.venv*/bin/python3 /usr/local/bin/python3)
python=""
for want in torch numpy; do
  for candidate in "${candidates[@]}"; do
    [ -x "$(command -v "$candidate" 2>/dev/null)" ] || continue
    if "$candidate" -c "import numpy, $want" >/dev/null 2>&1; then
      python=$(command -v "$candidate")
      break 2
    fi
  done
done
if [ -z "$python" ]; then
  echo "70-python: no python3 with numpy found (tried: ${candidates[*]})" >&2
  exit 1
fi
echo "70-python: using $python ($("$python" --version 2>&1)); library $lib"

export ZEROCOPY_LIBRARY=$lib PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
"$python" "$root/tests/python/bench_python.py" "$out" --repeats 5 --frames 20000 --warmup 1000 \
  2>&1 | tee "$out/python.log"
exit "${PIPESTATUS[0]}"
