# SPDX-License-Identifier: Apache-2.0
"""scripts/bench.d/48-frameworks.sh's table on the CPU, against a stand-in zc and a stand-in
interpreter that print what a workload would: the medians over its runs, the ratios, the targets
judged (met, missed), the cured runs' counters, a skipped workload as a row saying why, and a
failure (exit 1) when a workload's digests differ or a run fails, never for a missed target."""
import json
import os
import stat
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "scripts", "bench.d", "48-frameworks.sh")

# The stand-in interpreter: called as `python WORKLOAD.py --version V`, it prints the line
# FAKE_RUNS gives for the workload, version and whether zc run started it (FAKE_CURED), with
# the rate of this repeat (each call takes the next rate of its list, kept in a counter file).
FAKE_PYTHON = r'''
import json, os, sys
name = os.path.basename(sys.argv[1])[:-3]
version = sys.argv[sys.argv.index("--version") + 1]
mode = "cured" if os.environ.get("FAKE_CURED") else version
spec = json.loads(os.environ["FAKE_RUNS"])[name]
if "skipped" in spec:
    print(json.dumps({"workload": name, "skipped": spec["skipped"]}))
    sys.exit(0)
counter = os.path.join(os.environ["FAKE_DIR"], f"{name}.{mode}.count")
k = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(k + 1))
line = {"workload": name, "version": version, "seconds": 1.0, "runs": [1.0, 1.0, 1.0],
        "gbps": spec[mode][k], "bytes": 1, "digest": spec.get("digest_" + mode, "d0"),
        "phases": {"h2d": 1.0}, "warmup": 2, "quick": False}
if version == "hand-fixed":
    line["hand_fix"] = "pinned once"
print(json.dumps(line))
sys.exit(spec.get("exit_" + mode, 0))
'''

# The stand-in zc: `zc run -q [--fix F] --force --report FILE -- COMMAND...` writes a report
# with one counter and runs the command with FAKE_CURED set.
FAKE_ZC = r'''#!/bin/sh
report=
while [ "$1" != "--" ]; do
  [ "$1" = "--report" ] && report=$2
  shift
done
shift
printf '{"cured": true, "why_not": null, "counters": [{"name": "registered-h2d", "calls": 3, "bytes": 2000000, "seconds": 0.1, "uncured_seconds": 0.5}]}\n' > "$report"
FAKE_CURED=1 exec "$@"
'''


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def run_bench(tmp_path, runs, workloads):
    fake_dir = tmp_path / "state"
    fake_dir.mkdir()
    fake_py = executable(str(tmp_path / "fake_python.py"), FAKE_PYTHON)
    python = executable(str(tmp_path / "python"),
                        f'#!/bin/sh\nexec "{sys.executable}" "{fake_py}" "$@"\n')
    zc = executable(str(tmp_path / "zc"), FAKE_ZC)
    env = dict(os.environ, ZC_PYTHON=python, FAKE_RUNS=json.dumps(runs), FAKE_DIR=str(fake_dir),
               ZC_BENCH_FRAMEWORKS_ONLY=" ".join(workloads))
    env.pop("ZC_BENCH_FRAMEWORKS_REPEATS", None)
    done = subprocess.run(["bash", BENCH, zc, str(tmp_path / "results")], env=env,
                          capture_output=True, text=True, timeout=120)
    out = tmp_path / "results" / "frameworks"
    md = (out / "frameworks.md").read_text() if (out / "frameworks.md").exists() else ""
    summary = json.loads((out / "frameworks-summary.json").read_text()) \
        if (out / "frameworks-summary.json").exists() else None
    return done, md, summary


def test_medians_ratios_and_targets(tmp_path):
    runs = {
        "torch_weights_to_gpu": {"as-written": [7.0, 8.0, 9.0], "cured": [40.0, 45.0, 50.0],
                                 "hand-fixed": [50.0, 50.0, 60.0]},
        "torch_kv_blocks": {"as-written": [4.0, 4.0, 4.0], "cured": [3.0, 3.8, 2.0],
                            "hand-fixed": [50.0, 51.0, 52.0]},
        "cupy_transfers": {"skipped": "cupy cannot be imported: no module"},
    }
    done, md, summary = run_bench(tmp_path, runs, list(runs))
    assert done.returncode == 0, done.stderr + done.stdout
    rows = {r["workload"]: r for r in summary["workloads"]}
    weights = rows["torch_weights_to_gpu"]
    assert (weights["as_written_gbps"], weights["cured_gbps"], weights["hand_fixed_gbps"]) == \
        (8.0, 45.0, 50.0)
    assert abs(weights["cured_over_fixed"] - 0.9) < 1e-9 and weights["digests_same"]
    assert "| torch_weights_to_gpu | 8.00 | 45.00 | 50.00 | 0.90 | 5.62 | yes |" in md
    assert "- torch_weights_to_gpu: cured >= 0.8x hand-fixed: 0.90x, met" in md
    assert "- torch_weights_to_gpu: cured >= 0.95x as written: 5.62x, met" in md
    # Cured slower than as written: both targets missed, and still no failure.
    assert "- torch_kv_blocks: cured >= 0.8x hand-fixed: 0.06x, missed" in md
    assert "- torch_kv_blocks: cured >= 0.95x as written: 0.75x, missed" in md
    assert "| cupy_transfers | skipped: cupy cannot be imported: no module |" in md
    assert "cupy_transfers" not in rows
    assert "- torch_weights_to_gpu #2: registered-h2d 3 calls 2.0 MB" in md
    assert summary["failures"] == [] and "## FAILED" not in md


def test_digests_that_differ_fail(tmp_path):
    runs = {"torch_checkpoint_to_host": {"as-written": [1.0] * 3, "cured": [2.0] * 3,
                                         "hand-fixed": [3.0] * 3, "digest_cured": "other"}}
    done, md, summary = run_bench(tmp_path, runs, list(runs))
    assert done.returncode == 1
    assert "| torch_checkpoint_to_host | 1.00 | 2.00 | 3.00 | 0.67 | 2.00 | NO |" in md
    assert any("digests differ" in f for f in summary["failures"])
    assert "## FAILED" in md


def test_a_failed_run_fails(tmp_path):
    runs = {"torch_dataloader": {"as-written": [1.0] * 3, "cured": [1.0] * 3,
                                 "hand-fixed": [1.0] * 3, "exit_cured": 3}}
    done, md, summary = run_bench(tmp_path, runs, list(runs))
    assert done.returncode == 1
    assert any("torch_dataloader.as-written.cured.1: exit code 3" in f
               for f in summary["failures"])
