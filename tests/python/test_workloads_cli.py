# SPDX-License-Identifier: Apache-2.0
"""The framework workloads of bench/workloads, as scripts/bench.d/48-frameworks.sh runs them,
without their frameworks: every workload the benchmark names exists, is named for its file,
and, with torch, JAX and CuPy kept from importing, says so in its one JSON line and exits 0 in
either version (the benchmark turns that line into a row saying why); a run count too small for
a median is refused before anything runs. A workload script that does not even parse fails
here, on the CPU, rather than in a GPU call."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = os.path.join(ROOT, "bench", "workloads")
BENCH = os.path.join(ROOT, "scripts", "bench.d", "48-frameworks.sh")

# Runs a workload with the frameworks made unimportable (a None in sys.modules makes `import`
# raise ImportError), as on a machine that has none of them.
NO_FRAMEWORKS = """
import runpy, sys
sys.modules.update({name: None for name in ("torch", "jax", "cupy", "cupyx")})
sys.path.insert(0, sys.argv[1])
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def benchmark_workloads():
    """The workloads 48-frameworks.sh runs when not told which: its default list."""
    text = open(BENCH).read()
    found = re.search(r"workloads=\$\{ZC_BENCH_FRAMEWORKS_ONLY:-([^}]*)\}", text)
    assert found, "48-frameworks.sh no longer has its default list of workloads"
    return found.group(1).replace("\\\n", " ").split()


def run_without_frameworks(name, *args):
    script = os.path.join(WORKLOADS, f"{name}.py")
    return subprocess.run([sys.executable, "-B", "-c", NO_FRAMEWORKS, WORKLOADS, script, *args],
                          capture_output=True, text=True, timeout=60)


def test_the_benchmark_names_workloads_that_exist():
    names = benchmark_workloads()
    assert "torch_small_steps" in names and "cupy_transfers" in names
    for name in names:
        assert os.path.isfile(os.path.join(WORKLOADS, f"{name}.py")), name


@pytest.mark.parametrize("name", benchmark_workloads())
@pytest.mark.parametrize("version", ["as-written", "hand-fixed"])
def test_a_missing_framework_is_a_skip_line(name, version):
    done = run_without_frameworks(name, "--version", version, "--quick")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, done.stdout
    line = json.loads(lines[0])
    assert line["workload"] == name
    assert "cannot be imported" in line["skipped"]


@pytest.mark.parametrize("name", benchmark_workloads())
def test_too_few_runs_are_refused(name):
    done = run_without_frameworks(name, "--runs", "2")
    assert done.returncode == 2
    assert "--runs must be at least 3" in done.stderr
    assert done.stdout == ""
