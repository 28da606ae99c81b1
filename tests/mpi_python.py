#!/usr/bin/env python3
"""mpi_python.py PROBLEM MESH ORDER — run by `mpirun -np 2` (tests/mpi.cmake): the Python
package solves distributed (hdgc.mpi_size() == 2), every rank gets the whole problem's
report (mpi.ranks, errors), the errors equal those of a serial `hdgc run` (HDGC_MPI=0) to
1e-5, and the result holds no fields (they stay on the ranks), which the report says."""
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
print("ok")
