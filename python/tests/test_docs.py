"""The five-line example of docs/python.md runs as shown (in a scratch directory, with the
checkout's examples/) and prints what its comment says."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT


def test_five_lines(tmp_path, monkeypatch):
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        block = re.search(r"## Five lines.*?```python\n(.*?)```", f.read(), re.S).group(1)
    lines = block.strip().splitlines()
    assert len(lines) == 5
    if "matplotlib" in block:
        pytest.importorskip("matplotlib")
        import matplotlib
        matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    os.symlink(os.path.join(ROOT, "examples"), tmp_path / "examples")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/python.md", "exec"), {})
    errors = eval(out.getvalue())
    assert set(errors) == {"q", "u", "ustar"}
    for name, lead in re.findall(r"'(\w+)': ([0-9.]+)\.\.\.e", block):   # the digits the comment shows
        assert f"{errors[name]:.15e}".startswith(lead), (name, errors[name], lead)
    assert (tmp_path / "u.png").read_bytes()[:4] == b"\x89PNG"
