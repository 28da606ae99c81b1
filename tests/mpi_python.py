#!/usr/bin/env python3
"""mpi_python.py PROBLEM MESH ORDER — run by `mpirun -np 2` (tests/mpi.cmake): the Python
package solves distributed (hdgc.mpi_size() == 2), every rank gets the whole problem's
report (mpi.ranks, errors), the errors equal those of a serial `hdgc run` (HDGC_MPI=0) to
1e-5, and the result holds no fields (they stay on the ranks), which the report says. Then
the same problem on a mesh given as arrays (rank 0's arrays are distributed)."""
import json
import os
import subprocess
import sys
import tempfile

import hdgc

path, mesh, order = sys.argv[1], sys.argv[2], int(sys.argv[3])
assert hdgc.mpi_size() == 2, hdgc.mpi_size()
r = hdgc.Problem(path).solve(order=order, mesh=mesh)
rep = r.report
assert rep["mpi"]["ranks"] == 2, rep.get("mpi")
assert "fields stay on the ranks" in rep["warnings"]["mpi"], rep.get("warnings")
if hdgc.mpi_rank() == 0:
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "s.json")
        env = dict(os.environ, HDGC_MPI="0")
        subprocess.run([os.environ["HDGC_BIN"], "run", path, "--mesh", mesh, "--order", str(order), "--json", js,
                        "--quiet"], check=True, env=env)
        serial = json.load(open(js))["errors"]
    for k, v in serial.items():
        w = r.errors[k]
        print(f"{k}: serial {v:.9e} mpirun {w:.9e}")
        assert abs(w - v) <= 1e-5 * abs(v), k
# a mesh given as numpy arrays: 2 x 2 cells of the unit square, cut by their diagonals
import numpy as np
n = 4
xy = np.array([[i / n, j / n] for j in range(n + 1) for i in range(n + 1)])
tri = []
for j in range(n):
    for i in range(n):
        a, b, c, d = j * (n + 1) + i, j * (n + 1) + i + 1, (j + 1) * (n + 1) + i, (j + 1) * (n + 1) + i + 1
        tri += [[a, b, d], [a, d, c]]
p = hdgc.Problem(path)
p.set_mesh(xy, np.array(tri, dtype=np.int32))
ra = p.solve(order=order)
assert ra.report["mpi"]["ranks"] == 2 and ra.report["mesh"]["elements"] == 2 * n * n, ra.report.get("mesh")
if hdgc.mpi_rank() == 0:
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "s.json")
        subprocess.run([os.environ["HDGC_BIN"], "run", path, "--mesh", f"square:{n}", "--order", str(order), "--json",
                        js, "--quiet"], check=True, env=dict(os.environ, HDGC_MPI="0"))
        serial = json.load(open(js))["errors"]
    for k, v in serial.items():
        print(f"arrays {k}: serial square:{n} {v:.9e} mpirun {ra.errors[k]:.9e}")
        assert abs(ra.errors[k] - v) <= 1e-5 * abs(v), k
print("ok")
