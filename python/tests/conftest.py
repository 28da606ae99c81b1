"""Shared fixtures: the checkout (its python/ first on sys.path), the hdgc binary ($HDGC_BIN, else the checkout's build/hdgc)
for comparisons with the command line, and the poisson problem of tests/data."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))   # the package of this checkout, not an installed one
POISSON = os.path.join(ROOT, "tests", "data", "hdg", "poisson_exp.hdg")
MAXWELL = os.path.join(ROOT, "examples", "maxwell2d.hdg")


def hdgc_bin():
    path = os.environ.get("HDGC_BIN") or os.path.join(ROOT, "build", "hdgc")
    return path if os.access(path, os.X_OK) else None


@pytest.fixture
def cli(tmp_path):
    """cli(args...) runs `hdgc args... --json F` and returns the JSON it wrote."""
    exe = hdgc_bin()
    if not exe:
        pytest.skip("no hdgc binary: set HDGC_BIN")

    def run(*args, json_flag="--json"):
        out = tmp_path / "cli.json"
        proc = subprocess.run([exe, *args, json_flag, str(out)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        with open(out) as f:
            return json.load(f)
    return run


def uex(x, y):
    import numpy as np
    return np.exp(x) * np.cos(2 * y) + x * x * y


def square_arrays(N, tagged=True):
    """square:N as arrays, as tests/test_api.c builds it: vertex (i, j) = j(N+1)+i, cells cut
    from (xi, yj) to (xi+1, yj+1); boundary edges tagged bottom, right, top, left."""
    import numpy as np
    i, j = np.meshgrid(np.arange(N + 1), np.arange(N + 1))
    xy = np.stack([i.ravel() / N, j.ravel() / N], axis=1)
    a = (np.arange(N)[None, :] + (N + 1) * np.arange(N)[:, None]).ravel()
    b, c, d = a + 1, a + N + 2, a + N + 1
    tri = np.stack([np.stack([a, b, c], 1), np.stack([a, c, d], 1)], 1).reshape(-1, 3)
    if not tagged:
        return xy, tri, None, None
    k = np.arange(N)
    edges, markers = [], []
    for name, e in (("bottom", np.stack([k, k + 1], 1)),
                    ("right", np.stack([k * (N + 1) + N, (k + 1) * (N + 1) + N], 1)),
                    ("top", np.stack([N * (N + 1) + k, N * (N + 1) + k + 1], 1)),
                    ("left", np.stack([k * (N + 1), (k + 1) * (N + 1)], 1))):
        edges.append(e)
        markers += [name] * N
    return xy, tri, np.concatenate(edges), markers
