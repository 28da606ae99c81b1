#!/usr/bin/env python3
"""check_vtu_tet.py - reads the tetrahedral .vtu files test_vtk_tet wrote
(out_tet_{lagrange,subdivide}_p{P}[_bin].vtu, P = 0..PMAX) with a real XML
parser and tests/vtu_read.py (zlib, struct) and checks them independently of
the C code:
  - counts: points and cells per element, offsets, connectivity in range;
  - cell types: VTK_TETRA (10) for p = 1 and subdivided, VTK_LAGRANGE_TETRAHEDRON
    (71) for p >= 2; one VTK_TETRA per element for p = 0 (fields as cell data);
  - every linear tetrahedron positively oriented; a subdivided element's p^3
    tetrahedra fill its volume; each Lagrange cell lists its points where VTK
    puts them: the parametric coordinates of vtkHigherOrderTetra::BarycentricIndex,
    re-implemented here from VTK's tables (VertexMaxCoords, EdgeVertices,
    FaceBCoords, FaceMinCoord), on the cell's first 4 points;
  - the fields at their points: f = x^2 + 3xy - yz + 2z, v = (x, y, z),
    T_ab = (a+1) x_b (9 components, row by row), g = 10 e + x - y + z with e
    the element (the cells in element order), decompressed from the binary
    files and equal bit for bit to the ASCII twins.
With the vtk Python module installed, VTK's own vtkLagrangeTetra gives the
parametric coordinates as well (checked against the re-implementation).

usage: check_vtu_tet.py PMAX
"""
import sys

import vtu_read

VTK_TETRA, VTK_LAGRANGE_TETRAHEDRON = 10, 71
failures = []

# vtkHigherOrderTetra's tables
VERTEX_MAX = [3, 0, 1, 2]
LINEAR = [[0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
FACE_BCOORDS = [(0, 2, 3), (2, 0, 1), (2, 1, 3), (1, 0, 3)]
FACE_MIN = [1, 3, 0, 2]


def tri_bindex(index, order):
    """vtkHigherOrderTriangle::BarycentricIndex."""
    mx, mn = order, 0
    while index != 0 and index >= 3 * order:
        index -= 3 * order
        mx -= 2
        mn += 1
        order -= 3
    b = [0, 0, 0]
    if index < 3:
        b[index] = b[(index + 1) % 3] = mn
        b[(index + 2) % 3] = mx
    else:
        index -= 3
        dim, off = index // (order - 1), index % (order - 1)
        b[(dim + 1) % 3] = mn
        b[(dim + 2) % 3] = mx - 1 - off
        b[dim] = mn + 1 + off
    return b


def tet_bindex(index, order):
    """vtkHigherOrderTetra::BarycentricIndex: 4 counts, b[0..2] the parametric coordinates x order."""
    mx, mn = order, 0
    while index >= 2 * (order * order + 1) and index != 0 and order > 3:
        index -= 2 * (order * order + 1)
        mx -= 3
        mn += 1
        order -= 4
    if index < 4:
        return [mx if c == VERTEX_MAX[index] else mn for c in range(4)]
    if index - 4 < 6 * (order - 1):
        e, k = (index - 4) // (order - 1), (index - 4) % (order - 1)
        a, b = EDGES[e]
        return [mn + LINEAR[a][c] * (mx - mn - 1 - k) + LINEAR[b][c] * (1 + k) for c in range(4)]
    nf = (order - 2) * (order - 1) // 2
    f, k = (index - 4 - 6 * (order - 1)) // nf, (index - 4 - 6 * (order - 1)) % nf
    proj = [0, 0, 0] if order == 3 else tri_bindex(k, order - 3)
    b = [0] * 4
    for i in range(3):
        b[FACE_BCOORDS[f][i]] = mn + 1 + proj[i]
    b[FACE_MIN[f]] = mn
    return b


def param_coords(order):
    n = (order + 1) * (order + 2) * (order + 3) // 6
    return [tuple(c / order for c in tet_bindex(k, order)[:3]) for k in range(n)]


def vtk_param_coords(order):
    """VTK's own, when the vtk module is there (else None)."""
    try:
        import vtk
    except ImportError:
        return None
    n = (order + 1) * (order + 2) * (order + 3) // 6
    cell = vtk.vtkLagrangeTetra()
    cell.GetPointIds().SetNumberOfIds(n)
    cell.GetPoints().SetNumberOfPoints(n)
    cell.Initialize()
    pc = cell.GetParametricCoords()
    return [tuple(pc[3 * k + d] for d in range(3)) for k in range(n)]


def fail(msg):
    failures.append(msg)


def f_of(x):
    return x[0] * x[0] + 3 * x[0] * x[1] - x[1] * x[2] + 2 * x[2]


def vol6(P):
    a = [P[1][d] - P[0][d] for d in range(3)]
    b = [P[2][d] - P[0][d] for d in range(3)]
    c = [P[3][d] - P[0][d] for d in range(3)]
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


def arrays(path):
    vtk = vtu_read.parse(path)
    piece = vtk.root.find("UnstructuredGrid/Piece")
    out = {}
    for sec in piece:
        for a in sec.findall("DataArray"):
            kind = float if a.get("type") == "Float64" else int
            out[(sec.tag, a.get("Name"))] = (int(a.get("NumberOfComponents", "1")), vtk.values(a, kind))
    return int(piece.get("NumberOfPoints")), int(piece.get("NumberOfCells")), out


def check_fields(path, A, at, ne, ncells, cell_of_point):
    """The fields in section `at` (PointData, or CellData for p = 0) at their
    tuples' positions xyz(t), for t in range."""
    sec, pos = at
    for name, want_nc in (("f", 1), ("g", 1), ("v", 3), ("T", 9)):
        got = A.get((sec, name))
        if not got or got[0] != want_nc:
            fail(f"{path}: {sec} {name} missing or with {got and got[0]} components, want {want_nc}")
            continue
        nc, vals = got
        for t, x in enumerate(pos):
            v = vals[nc * t:nc * t + nc]
            e = cell_of_point(t)
            want = {"f": [f_of(x)], "g": [10.0 * e + x[0] - x[1] + x[2]], "v": list(x),
                    "T": [(a + 1) * x[b] for a in range(3) for b in range(3)]}[name]
            if any(abs(p - q) > 1e-12 * (1 + abs(q)) for p, q in zip(v, want)):
                fail(f"{path}: {name} at tuple {t} is {v}, want {want}")
                break


def check_file(path, p, mode):
    try:
        npts, ncells, A = arrays(path)
    except Exception as e:  # noqa: BLE001 (a test reports every failure)
        fail(f"{path}: unreadable: {e}")
        return None
    ne = 6
    nlat = (p + 1) * (p + 2) * (p + 3) // 6 if p else 4
    nsub = p ** 3 if mode == "subdivide" and p > 1 else 1
    if npts != ne * nlat or ncells != ne * nsub:
        fail(f"{path}: {npts} points, {ncells} cells, want {ne * nlat}, {ne * nsub}")
        return A
    xyz = A[("Points", "Points")][1]
    P = [tuple(xyz[3 * k:3 * k + 3]) for k in range(npts)]
    conn, offs, types = (A[("Cells", n)][1] for n in ("connectivity", "offsets", "types"))
    per = 4 if nsub > 1 or p <= 1 else nlat
    want_type = VTK_TETRA if per == 4 else VTK_LAGRANGE_TETRAHEDRON
    if len(types) != ncells or any(t != want_type for t in types):
        fail(f"{path}: cell types {sorted(set(types))}, want {want_type}")
    if offs != [per * (c + 1) for c in range(ncells)] or len(conn) != per * ncells:
        fail(f"{path}: offsets / connectivity length wrong ({len(conn)} ids)")
        return A
    if any(i < 0 or i >= npts for i in conn):
        fail(f"{path}: connectivity out of range")
        return A
    pc = param_coords(p) if per > 4 else None
    for c in range(ncells):
        ids = conn[per * c:per * c + per]
        Q = [P[i] for i in ids]
        if vol6(Q[:4]) <= 0:
            fail(f"{path}: cell {c} is not positively oriented")
            break
        if any(i // nlat != c // nsub for i in ids):
            fail(f"{path}: cell {c} uses points of another element")
            break
        if pc:
            x0 = Q[0]
            for k, (u, v, w) in enumerate(pc):
                want = [x0[d] + u * (Q[1][d] - x0[d]) + v * (Q[2][d] - x0[d]) + w * (Q[3][d] - x0[d]) for d in range(3)]
                if any(abs(Q[k][d] - want[d]) > 1e-12 for d in range(3)):
                    fail(f"{path}: cell {c} point {k} at {Q[k]}, VTK puts it at {want}")
                    break
    if nsub > 1:   # the sub-tetrahedra fill each element
        for e in range(ne):
            corners = [P[e * nlat + k] for k in (0, p, (p + 1) * (p + 2) // 2 - 1, nlat - 1)]
            total = sum(vol6([P[i] for i in conn[4 * c:4 * c + 4]]) for c in range(e * nsub, (e + 1) * nsub))
            if abs(total - vol6(corners)) > 1e-12:
                fail(f"{path}: element {e}'s sub-tetrahedra fill {total}, the element {vol6(corners)}")
    if p == 0:   # one value per cell at the centroid of its 4 points
        pos = [tuple(sum(P[4 * c + k][d] for k in range(4)) / 4 for d in range(3)) for c in range(ncells)]
        check_fields(path, A, ("CellData", pos), ne, ncells, lambda t: t)
    else:
        check_fields(path, A, ("PointData", P), ne, ncells, lambda t: t // nlat)
    return A


def main(pmax):
    vtk_ok = None
    for p in range(0, pmax + 1):
        if p >= 2:
            ours, theirs = param_coords(p), vtk_param_coords(p)
            if theirs is not None:
                vtk_ok = True
                if any(abs(a - b) > 1e-12 for u, v in zip(ours, theirs) for a, b in zip(u, v)):
                    fail(f"order {p}: the re-implemented order differs from the vtk module's")
        for mode in ("lagrange", "subdivide"):
            a = check_file(f"out_tet_{mode}_p{p}.vtu", p, mode)
            b = check_file(f"out_tet_{mode}_p{p}_bin.vtu", p, mode)
            if a is not None and b is not None and a != b:
                fail(f"out_tet_{mode}_p{p}: the binary file's arrays differ from the ASCII file's")
    for f in failures[:20]:
        print("FAIL", f)
    print(f"check_vtu_tet: {len(failures)} failures (p = 0..{pmax}"
          f"{', checked against the vtk module' if vtk_ok else ''})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
