#!/usr/bin/env python3
"""check_vtu.py - reads the .vtu/.pvd files test_vtk wrote with a real XML
parser (xml.etree; binary appended data decoded by tests/vtu_read.py with
zlib and struct) and checks them independently of the C code.

usage: check_vtu.py SPEC...
  FILE.vtu:NPOINTS:NCELLS   a grid with these counts
  +NAME[:NCOMP]             the grid before must have a data array NAME (of
                            NCOMP components: 3 for a vector, 9 a tensor)
  =ascii, =binary           the grid before is in this format
  FILE.pvd:NFILES           a collection of NFILES grids, each of which must
                            exist (relative to the .pvd) and be well formed
  A.vtu~B.vtu               the two files hold the same arrays with the same
                            values, bit for bit (an ASCII file and its binary twin)

For every grid: counts agree with the arrays, offsets/types/connectivity are
consistent, all numbers finite, linear triangles counter-clockwise, a field
"f" (if present as point data) equals x^2 + 3xy at its point, and each
VTK_LAGRANGE_TRIANGLE lists its points at the parametric coordinates VTK
assigns them (vtkHigherOrderTriangle: vertices, edges 01, 12, 20, then the
interior triangle of order q-3, recursively).
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

import vtu_read

VTK_TRIANGLE, VTK_LAGRANGE_TRIANGLE = 5, 69
failures = []


def fail(msg):
    failures.append(msg)


def file_format(piece):
    """ascii, binary, or mixed (a file has one format)."""
    kinds = {"binary" if a.get("format") == "appended" else a.get("format") for a in piece.iter("DataArray")}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def find_array(parent, name):
    if parent is None:
        return None
    for a in parent.findall("DataArray"):
        if a.get("Name") == name:
            return a
    return None


def lagrange_param_coords(order):
    """Parametric (u, v) of the points of a Lagrange triangle, in VTK order."""
    pts, lo, hi, q = [], 0, order, order
    while q > 0:
        pts += [(lo, lo), (hi, lo), (lo, hi)]
        if q > 1:
            corners = [(lo, lo), (hi, lo), (lo, hi)]
            for c in range(3):
                a, b = corners[c], corners[(c + 1) % 3]
                for t in range(1, q):
                    pts.append((a[0] + t * (b[0] - a[0]) // q, a[1] + t * (b[1] - a[1]) // q))
        lo, hi, q = lo + 1, hi - 2, q - 3
    if q == 0:
        pts.append((lo, lo))
    return [(i / order, j / order) for i, j in pts]


def check_grid(path, npts, ncells, required, fmt):
    try:
        vtk = vtu_read.parse(path)
        root = vtk.root
    except (ET.ParseError, OSError, ValueError) as e:
        fail(f"{path}: not well-formed XML or undecodable data: {e}")
        return
    numbers = vtk.values
    if root.tag != "VTKFile" or root.get("type") != "UnstructuredGrid":
        fail(f"{path}: root is {root.tag} type={root.get('type')}")
        return
    piece = root.find("UnstructuredGrid/Piece")
    if piece is None:
        fail(f"{path}: no Piece")
        return
    n, m = int(piece.get("NumberOfPoints")), int(piece.get("NumberOfCells"))
    if fmt and file_format(piece) != fmt:
        fail(f"{path}: format {file_format(piece)}, want {fmt}")
    if (n, m) != (npts, ncells):
        fail(f"{path}: {n} points, {m} cells; want {npts}, {ncells}")

    xyz = numbers(piece.find("Points/DataArray"))
    cells = piece.find("Cells")
    conn = numbers(find_array(cells, "connectivity"), int)
    offs = numbers(find_array(cells, "offsets"), int)
    types = numbers(find_array(cells, "types"), int)
    if len(xyz) != 3 * n or len(offs) != m or len(types) != m:
        fail(f"{path}: {len(xyz)} coordinates, {len(offs)} offsets, {len(types)} types")
        return
    if not all(math.isfinite(c) for c in xyz):
        fail(f"{path}: non-finite coordinates")
    if (offs[-1] if m else 0) != len(conn) or any(i < 0 or i >= n for i in conn):
        fail(f"{path}: connectivity does not match offsets / point count")
        return

    names = {}
    for section, size in (("PointData", n), ("CellData", m)):
        for a in piece.findall(section + "/DataArray"):
            vals, ncomp = numbers(a), int(a.get("NumberOfComponents", "1"))
            names[a.get("Name")] = (section, vals, ncomp)
            if len(vals) != size * ncomp or not all(math.isfinite(v) for v in vals):
                fail(f"{path}: {section} '{a.get('Name')}' has {len(vals)} values (want {size} x {ncomp}) "
                     "or non-finite ones")
            zero = {3: (2,), 9: (2, 5, 6, 7, 8)}.get(ncomp, ())   # z parts of a 2D vector or tensor
            if any(vals[k + c] != 0 for k in range(0, len(vals), ncomp) for c in zero):
                fail(f"{path}: {section} '{a.get('Name')}': a z component is not 0")
    for spec in required:
        name, _, ncomp = spec.partition(":")
        if name not in names:
            fail(f"{path}: no data array named {name!r} (have {sorted(names)})")
        elif ncomp and names[name][2] != int(ncomp):
            fail(f"{path}: {name!r} has {names[name][2]} components, want {ncomp}")
    if names.get("f", ("", [], 1))[0] == "PointData":
        f = names["f"][1]
        for k in range(min(n, len(f))):
            x, y = xyz[3 * k], xyz[3 * k + 1]
            if abs(f[k] - (x * x + 3 * x * y)) > 1e-12:
                fail(f"{path}: f at point {k} is {f[k]}, want {x * x + 3 * x * y}")
                break

    start = 0
    for c in range(m):
        ids = conn[start:offs[c]]
        start = offs[c]
        P = [(xyz[3 * i], xyz[3 * i + 1]) for i in ids]
        if types[c] == VTK_TRIANGLE and len(P) != 3 or types[c] not in (VTK_TRIANGLE, VTK_LAGRANGE_TRIANGLE):
            fail(f"{path}: cell {c}: type {types[c]} with {len(P)} points")
            return
        (x0, y0), (x1, y1), (x2, y2) = P[:3]
        area = 0.5 * ((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0))
        if area <= 0:
            fail(f"{path}: cell {c} is not counter-clockwise (area {area})")
        if types[c] == VTK_LAGRANGE_TRIANGLE:
            order = (math.isqrt(8 * len(P) + 1) - 3) // 2
            if (order + 1) * (order + 2) // 2 != len(P) or order < 2:
                fail(f"{path}: cell {c}: {len(P)} points is no Lagrange triangle")
                continue
            for k, (u, v) in enumerate(lagrange_param_coords(order)):
                x = x0 + u * (x1 - x0) + v * (x2 - x0)
                y = y0 + u * (y1 - y0) + v * (y2 - y0)
                if abs(P[k][0] - x) > 1e-12 or abs(P[k][1] - y) > 1e-12:
                    fail(f"{path}: cell {c} point {k} at {P[k]}, VTK expects ({x}, {y})")
                    break


def check_collection(path, nfiles):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        fail(f"{path}: not well-formed XML: {e}")
        return
    sets = root.findall("Collection/DataSet")
    if root.get("type") != "Collection" or len(sets) != nfiles:
        fail(f"{path}: type {root.get('type')} with {len(sets)} data sets, want {nfiles}")
    for ds in sets:
        float(ds.get("timestep"))
        f = ds.get("file")
        target = f if os.path.isabs(f) else os.path.join(os.path.dirname(path), f)
        if not os.path.isfile(target):
            fail(f"{path}: data set {f} not found (looked at {target})")
            continue
        try:
            vtu_read.parse(target)
        except (ET.ParseError, ValueError) as e:
            fail(f"{target}: not well-formed XML: {e}")


def all_arrays(path):
    vtk = vtu_read.parse(path)
    piece = vtk.root.find("UnstructuredGrid/Piece")
    return {(sec.tag, a.get("Name")): (a.get("type"), a.get("NumberOfComponents", "1"), vtk.values(a))
            for sec in piece for a in sec.findall("DataArray")}


def check_same(a, b):
    try:
        x, y = all_arrays(a), all_arrays(b)
    except (ET.ParseError, OSError, ValueError) as e:
        fail(f"{a}~{b}: {e}")
        return
    if set(x) != set(y):
        fail(f"{a}~{b}: arrays {sorted(x)} and {sorted(y)}")
    for key in sorted(set(x) & set(y)):
        if x[key] != y[key]:
            fail(f"{a}~{b}: {key[0]} {key[1]} differs")


def main(args):
    grids = []
    for a in args:
        if a.startswith("+"):
            grids[-1][3].append(a[1:])
        elif a.startswith("="):
            grids[-1][4] = a[1:]
        elif "~" in a:
            check_same(*a.split("~", 1))
        elif a.endswith(".pvd") or ".pvd:" in a:
            path, nfiles = a.rsplit(":", 1)
            check_collection(path, int(nfiles))
        else:
            path, npts, ncells = a.rsplit(":", 2)
            grids.append([path, int(npts), int(ncells), [], None])
    for g in grids:
        check_grid(*g)
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    print(f"check_vtu: {len(grids)} grids checked, {len(failures)} failures")
    return 1 if failures or not args else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
