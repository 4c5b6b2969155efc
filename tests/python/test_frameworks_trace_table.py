# SPDX-License-Identifier: Apache-2.0
"""scripts/frameworks-trace-table (scripts/bench.d/47-frameworks-trace.sh's table) on the CPU,
from trace documents written by hand: the share of host<->device bytes on the pinned path as
written and cured, the cures each finding's fix names, and a failure (exit 1) when a workload's
document is missing."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "scripts", "frameworks-trace-table")


def path(direction, src, dst, size):
    return {"direction": direction, "src_kind": src, "dst_kind": dst, "bytes": size}


AS_WRITTEN = {
    "schema": "zerocopy.trace/1", "traced": True, "exit_code": 0,
    "paths": [path("h2d", "pageable", "device", 1000), path("d2h", "device", "pageable", 3000),
              path("d2d", "device", "device", 5000)],
    "findings": [
        {"key": "pageable_transfers", "saving_s": 0.5,
         "fix": "Pin the buffers. In the program as it is, zc run stages them."},
        {"key": "slow_pinned_alloc", "saving_s": None,
         "fix": "Touch, then register; zc run --fix fastpin,pageable serves them so."},
        {"key": "small_transfers", "saving_s": 0.01, "fix": "Batch them."},
        {"key": "host_staging_copies", "saving_s": None,
         "fix": "As it is, zc run stages them; zc run --fix reuse,fresh also keeps them."}],
}
CURED = {
    "schema": "zerocopy.trace/1", "traced": True, "exit_code": 0,
    "paths": [path("h2d", "pinned", "device", 900), path("h2d", "pageable", "device", 100),
              path("d2h", "device", "pinned", 3000)],
    "findings": [],
}


def write(folder, name, doc):
    with open(os.path.join(folder, name), "w") as f:
        json.dump(doc, f)


def test_table_of_one_workload(tmp_path):
    write(tmp_path, "w.as-written.json", AS_WRITTEN)
    write(tmp_path, "w.cured.json", CURED)
    subprocess.run([sys.executable, TABLE, str(tmp_path), "w"], check=True)
    row = json.load(open(tmp_path / "frameworks-trace.json"))["workloads"][0]
    written, cured = row["as-written"], row["cured"]
    assert written["host_device_bytes"] == {"pageable": 4000}  # the device-to-device copy left out
    assert written["pinned_share"] == 0
    assert cured["pinned_share"] == 3900 / 4000
    assert [f["cures"] for f in written["findings"]] == [
        ["(default cures)"], ["fastpin", "pageable"], [], ["(default cures)", "fresh", "reuse"]]
    assert cured["findings"] == []
    table = (tmp_path / "frameworks-trace.md").read_text()
    assert "| w | 0 % | `pageable_transfers` -> (default cures); " in table
    assert ("`small_transfers` -> no cure named; `host_staging_copies` -> (default cures), fresh, "
            "reuse | 98 % | none |") in table


def test_missing_document_fails(tmp_path):
    write(tmp_path, "w.as-written.json", AS_WRITTEN)
    done = subprocess.run([sys.executable, TABLE, str(tmp_path), "w"], capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert "w.cured.json" in done.stderr
