"""The equispaced lattice of degree p of a triangle, as hdgc samples fields on it
(runtime/output/vtk.h): lattice order, VTK's Lagrange-triangle order, and the p^2 sub-triangles."""
import numpy as np


def size(p):
    return (p + 1) * (p + 2) // 2


def index(i, j, p):
    """Lattice index of point (i, j): rows j = 0..p hold p+1-j points each."""
    return j * (p + 1) - j * (j - 1) // 2 + i


def _vtk_index(b, p):
    """VTK's index of the point with barycentric index b (runtime/output/vtk.c vtk_index)."""
    idx, lo, hi, order = 0, 0, p, p
    while min(b) > lo:   # skip the outer rings
        idx += 3 * order
        hi -= 2
        lo += 1
        order -= 3
    for d in range(3):   # vertices v0, v1, v2
        if b[(d + 2) % 3] == hi:
            return idx
        idx += 1
    for d in range(3):   # edges v0-v1, v1-v2, v2-v0
        if b[(d + 1) % 3] == lo:
            return idx + b[d] - (lo + 1)
        idx += hi - lo - 1
    return idx


def vtk_order(p):
    """lat[k] = the lattice index of VTK Lagrange-triangle point k (hdg_vtk_lagrange_order)."""
    lat = [0] * size(p)
    for j in range(p + 1):
        for i in range(p + 1 - j):
            lat[_vtk_index((i, j, p - i - j), p)] = index(i, j, p)
    return np.array(lat, dtype=np.int64)


def subtriangles(p):
    """The p^2 counter-clockwise sub-triangles of the lattice, as lattice indices (p^2, 3)."""
    out = []
    for j in range(p):
        for i in range(p - j):
            out.append((index(i, j, p), index(i + 1, j, p), index(i, j + 1, p)))
            if i + j < p - 1:
                out.append((index(i + 1, j, p), index(i + 1, j + 1, p), index(i, j + 1, p)))
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def node_positions(field):
    """pos[e, l] = the node of element e at lattice index l, recovered from the nodes'
    coordinates: the element's vertices are its nodes 0, p and npe-1 (lattice order), and
    each node's barycentric coordinates times p round to its lattice point (i, j)."""
    p, x, y = field.degree, field.x, field.y
    ne, npe = x.shape
    if p < 1 or npe != size(p):
        raise ValueError(f"field {field.name!r}: degree {p} with {npe} nodes an element: no lattice to recover")
    v = [0, p, npe - 1]
    ax, ay = x[:, v[1]] - x[:, v[0]], y[:, v[1]] - y[:, v[0]]
    bx, by = x[:, v[2]] - x[:, v[0]], y[:, v[2]] - y[:, v[0]]
    det = (ax * by - ay * bx)[:, None]
    dx, dy = x - x[:, :1], y - y[:, :1]
    l1 = (dx * by[:, None] - dy * bx[:, None]) / det
    l2 = (ax[:, None] * dy - ay[:, None] * dx) / det
    i, j = np.rint(l1 * p).astype(np.int64), np.rint(l2 * p).astype(np.int64)
    if np.any(i < 0) or np.any(j < 0) or np.any(i + j > p) or \
            max(np.abs(l1 * p - i).max(initial=0), np.abs(l2 * p - j).max(initial=0)) > 1e-6:
        raise ValueError(f"field {field.name!r}: the nodes are not the lattice of degree {p}")
    lat = index(i, j, p)
    pos = np.empty_like(lat)
    np.put_along_axis(pos, lat, np.broadcast_to(np.arange(npe), lat.shape), axis=1)
    if not np.array_equal(np.sort(lat, axis=1), np.broadcast_to(np.arange(npe), lat.shape)):
        raise ValueError(f"field {field.name!r}: two nodes of an element at one lattice point")
    return pos
