#!/usr/bin/env python3
"""vtu_exact3d.py FILE.vtu FIELD MAXRMS: the root mean square over the points of FIELD minus
examples/poisson3d.hdg's uex = exp(x) cos(2y) + x^2 y z (the .vtu of `hdgc run --vtk` on a
cube:N, every element of one volume) must lie below MAXRMS, the points being tetrahedra's
lattices (VTK_LAGRANGE_TETRAHEDRON cells). Prints "ok: N points, rms R"; exit 1 otherwise."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vtu_read  # noqa: E402

path, name, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
v = vtu_read.VtkFile(path)
das = {d.get("Name"): d for d in v.root.iter("DataArray")}
X, U, types = v.values(das["Points"]), v.values(das[name]), v.values(das["types"], int)
e = [U[i] - (math.exp(X[3 * i]) * math.cos(2 * X[3 * i + 1]) + X[3 * i] ** 2 * X[3 * i + 1] * X[3 * i + 2])
     for i in range(len(U))]
rms = math.sqrt(sum(a * a for a in e) / len(e))
if set(types) != {71} or not rms < limit:
    print(f"{path}: cell types {sorted(set(types))}, {name}: rms {rms:g} (limit {limit:g})")
    sys.exit(1)
print(f"ok: {len(U)} points, rms {rms:.3g}")
