#!/usr/bin/env python3
"""tests/data/nldg/make_shuffled_cube.py: writes shuffled_cube_v22.msh (there is no gmsh
binary here; run it in this folder and commit its output).

The unit cube, 3 x 3 x 3 cells each cut into the 6 Kuhn tetrahedra (162 in all), the
interior vertices moved by a fixed pseudo-random offset of up to 0.15 of a cell (the
boundary vertices stay: the sides remain translates of one another), and the vertex list
of tetrahedron e rotated by the (e mod 12)-th even permutation (orientation kept), so
that neighbours see their shared face in all 6 orientations (test_dg3d_maps checks it).
Physical surfaces 1 left (x = 0), 2 right, 3 front (y = 0), 4 back, 5 bottom (z = 0),
6 top; volume 10. Used periodic (periodic=left:right,front:back,bottom:top) by
nldg_totals_3d_* (tests/nldg.cmake)."""
import itertools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mesh3d"))
from gen_tets import KUHN, sign, write22  # noqa: E402  (the Kuhn cells, the Gmsh 2.2 writer)

N = 3
EVEN = [(0, 1, 2, 3), (1, 2, 0, 3), (2, 0, 1, 3), (0, 2, 3, 1), (2, 3, 0, 1), (3, 0, 2, 1),
        (0, 3, 1, 2), (3, 1, 0, 2), (1, 0, 3, 2), (1, 3, 2, 0), (3, 2, 1, 0), (2, 1, 3, 0)]
NAMES = {1: "left", 2: "right", 3: "front", 4: "back", 5: "bottom", 6: "top"}


def lcg(seed):
    """A fixed linear congruential generator: the same numbers on every Python."""
    s = seed
    while True:
        s = (6364136223846793005 * s + 1442695040888963407) % (1 << 64)
        yield (s >> 11) / float(1 << 53)


def mesh():
    r = lcg(2026)
    index, coords = {}, []
    for k in range(N + 1):
        for j in range(N + 1):
            for i in range(N + 1):
                x = [i / N, j / N, k / N]
                if 0 < i < N and 0 < j < N and 0 < k < N:
                    x = [c + 0.15 * (2 * next(r) - 1) / N for c in x]
                index[(i, j, k)] = len(coords) + 1
                coords.append(x)
    tets = []
    for k in range(N):
        for j in range(N):
            for i in range(N):
                for ax in KUHN:
                    c = [i, j, k]
                    v = [index[tuple(c)]]
                    for a in ax:
                        c[a] += 1
                        v.append(index[tuple(c)])
                    if sign(ax) < 0:
                        v[1], v[2] = v[2], v[1]
                    p = EVEN[len(tets) % 12]
                    tets.append([v[p[0]], v[p[1]], v[p[2]], v[p[3]]])
    count = {}
    for t in tets:
        for f in itertools.combinations(t, 3):
            count[frozenset(f)] = count.get(frozenset(f), 0) + 1
    tris = []
    for t in tets:
        for f in itertools.combinations(t, 3):
            if count[frozenset(f)] != 1:
                continue
            for d in range(3):
                cs = [coords[v - 1][d] for v in f]
                if max(cs) == 0:
                    tris.append((2 * d + 1, f))
                elif min(cs) == 1:
                    tris.append((2 * d + 2, f))
    tris.sort(key=lambda t: t[0])
    return coords, tets, tris


if __name__ == "__main__":
    write22("shuffled_cube_v22.msh", *mesh(), names=NAMES)
