# SPDX-License-Identifier: Apache-2.0
"""The PyTorch example of docs/python.md, run as it is written there."""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def example():
    text = open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8").read()
    m = re.search(r"<!-- example: torch -->\n```python\n(.*?)```", text, re.S)
    assert m, "docs/python.md has no example block"
    return m.group(1)


def test_the_example_runs(torch, capsys):
    assert len(example().strip().splitlines()) == 15
    exec(compile(example(), "docs/python.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("True")  # numpy reads what torch wrote
    assert out[1].startswith("(1048576,)")
