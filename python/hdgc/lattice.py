"""The equispaced lattice of degree p of a triangle, as hdgc samples fields on it
(runtime/output/vtk.h): lattice order, VTK's Lagrange-triangle order, and the p^2 sub-triangles;
and of a tetrahedron (tet_size, tet_index, tet_points, node_positions of a field with .z)."""
import numpy as np


def size(p):
    return (p + 1) * (p + 2) // 2


def index(i, j, p):
    """Lattice index of point (i, j): rows j = 0..p hold p+1-j points each."""
    return j * (p + 1) - j * (j - 1) // 2 + i


def tet_size(p):
    return (p + 1) * (p + 2) * (p + 3) // 6


def tet_index(i, j, k, p):
    """Lattice index of point (i, j, k) of the tetrahedron: layers k = 0..p, each the
    triangle of degree p-k in lattice order (rows j = 0..p-k of p-k+1-j points i)."""
    below = tet_size(p) - tet_size(p - k) if k > 0 else 0
    q = p - k
    return below + j * (q + 1) - j * (j - 1) // 2 + i


def tet_points(p):
    """(i, j, k) of every lattice point in lattice order, shape (tet_size(p), 3): the point
    with barycentric weights (1 - (i+j+k)/p, i/p, j/p, k/p) on v0, v1, v2, v3."""
    return np.array([(i, j, k) for k in range(p + 1) for j in range(p + 1 - k) for i in range(p + 1 - k - j)],
                    dtype=np.int64).reshape(-1, 3)


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


def _tet_node_positions(field):
    p, ne, npe = field.degree, field.x.shape[0], field.x.shape[1]
    if p < 1 or npe != tet_size(p):
        raise ValueError(f"field {field.name!r}: degree {p} with {npe} nodes an element: no lattice to recover")
    X = np.stack([field.x, field.y, field.z], axis=-1)                  # (ne, npe, 3)
    v = [0, p, size(p) - 1, npe - 1]
    A = np.stack([X[:, v[c]] - X[:, 0] for c in (1, 2, 3)], axis=-1)    # (ne, 3, 3): columns v1-v0, v2-v0, v3-v0
    lam = np.linalg.solve(A[:, None], (X - X[:, :1])[..., None])[..., 0] * p   # (ne, npe, 3)
    ijk = np.rint(lam).astype(np.int64)
    i, j, k = ijk[..., 0], ijk[..., 1], ijk[..., 2]
    if np.any(ijk < 0) or np.any(i + j + k > p) or np.abs(lam - ijk).max(initial=0) > 1e-6:
        raise ValueError(f"field {field.name!r}: the nodes are not the lattice of degree {p}")
    lat = np.vectorize(lambda a, b, c: tet_index(a, b, c, p))(i, j, k) if npe else i
    if not np.array_equal(np.sort(lat, axis=1), np.broadcast_to(np.arange(npe), lat.shape)):
        raise ValueError(f"field {field.name!r}: two nodes of an element at one lattice point")
    pos = np.empty_like(lat)
    np.put_along_axis(pos, lat, np.broadcast_to(np.arange(npe), lat.shape), axis=1)
    return pos


def node_positions(field):
    """pos[e, l] = the node of element e at lattice index l, recovered from the nodes'
    coordinates: the element's vertices are its nodes 0, p and npe-1 (lattice order), and
    each node's barycentric coordinates times p round to its lattice point (i, j). A field
    with .z (tetrahedra): vertices at nodes 0, p, size(p)-1 and npe-1, points (i, j, k)."""
    if getattr(field, "z", None) is not None:
        return _tet_node_positions(field)
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
