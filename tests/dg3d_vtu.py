#!/usr/bin/env python3
"""dg3d_vtu.py FILE.vtu T TOL - the .vtu of `hdgc run examples/maxwell3d.hdg --vtk` at time T
(read with tests/vtu_read.py, independently of the C code): tetrahedral Lagrange cells
(VTK_LAGRANGE_TETRAHEDRON, 71), a 3-component point array E and H, and E at every point
within TOL of the example's cavity mode there (a point given the wrong lattice node, or a
coordinate the wrong vertex, is off by O(1))."""
import math
import sys

import vtu_read


def eex(x, y, z, t):
    pi, w = math.pi, math.pi * math.sqrt(3)
    c = math.cos(w * t)
    return (math.cos(pi * x) * math.sin(pi * y) * math.sin(pi * z) * c,
            math.sin(pi * x) * math.cos(pi * y) * math.sin(pi * z) * c,
            -2 * math.sin(pi * x) * math.sin(pi * y) * math.cos(pi * z) * c)


def main():
    path, t, tol = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    f = vtu_read.parse(path)
    arrays = {da.get("Name"): da for da in f.root.iter("DataArray")}
    types = set(f.values(arrays["types"], int))
    assert types == {71}, f"cell types {types}, not VTK_LAGRANGE_TETRAHEDRON (71)"
    for name in ("E", "H"):
        assert arrays[name].get("NumberOfComponents") == "3", f"{name} is not a 3-vector"
    pts = f.values(arrays["Points"])
    E = f.values(arrays["E"])
    n = len(pts) // 3
    assert len(E) == 3 * n and n > 0, f"{len(E)} values of E for {n} points"
    worst = 0.0
    for i in range(n):
        ex = eex(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2], t)
        worst = max(worst, max(abs(E[3 * i + k] - ex[k]) for k in range(3)))
    print(f"{path}: {n} points, largest |E - E_exact| = {worst:.3g} (tolerance {tol})")
    sys.exit(0 if worst <= tol else 1)


main()
