#!/usr/bin/env python3
"""tests/data/periodic/make_periodic_msh.py: writes the Gmsh 2.2 meshes of the periodic tests.

    python3 make_periodic_msh.py        (from this folder; rewrites the two files below)

square_periodic_v22.msh: the unit square, 7 x 6 cells on graded lines (x_i = i/7 +
0.025 sin(2 pi i/7), y_j = j/6 + 0.03 sin(2 pi j/6)), interior vertices moved by a fixed
pseudo-random offset of up to 0.2 of a cell, cells cut by alternating diagonals, node tags
shuffled (the matching must use coordinates, not numbering). The left and right sides
carry the same y_j, bottom and top the same x_i: periodic by the translations (1, 0) and
(0, 1). Physical lines 1 bottom, 2 right, 3 top, 4 left; physical surface 5 domain.

bad_periodic_v22.msh: the same with the right side's node at j = 2 moved up by 0.01 (its two
faces have no partner on the left side).
"""
import math
import os

NX, NY = 7, 6


def lcg(seed):
    """A fixed linear congruential generator: the same numbers on every Python."""
    s = seed
    while True:
        s = (6364136223846793005 * s + 1442695040888963407) % (1 << 64)
        yield (s >> 11) / float(1 << 53)


def mesh(bad):
    r = lcg(12345)
    xs = [i / NX + 0.025 * math.sin(2 * math.pi * i / NX) for i in range(NX + 1)]
    ys = [j / NY + 0.03 * math.sin(2 * math.pi * j / NY) for j in range(NY + 1)]
    xs[0], xs[NX], ys[0], ys[NY] = 0.0, 1.0, 0.0, 1.0
    pts = {}
    for j in range(NY + 1):
        for i in range(NX + 1):
            x, y = xs[i], ys[j]
            if 0 < i < NX and 0 < j < NY:
                x += 0.2 * (2 * next(r) - 1) / NX
                y += 0.2 * (2 * next(r) - 1) / NY
            if bad and i == NX and j == 2:
                y += 0.01
            pts[(i, j)] = (x, y)
    n = (NX + 1) * (NY + 1)
    perm = list(range(1, n + 1))
    for k in range(n - 1, 0, -1):   # Fisher-Yates with the generator
        m = int(next(r) * (k + 1))
        perm[k], perm[m] = perm[m], perm[k]
    tag = {}
    for k, key in enumerate(sorted(pts)):
        tag[key] = perm[k]
    lines = []
    for i in range(NX):
        lines.append((1, (i, 0), (i + 1, 0)))          # bottom
        lines.append((3, (i + 1, NY), (i, NY)))        # top
    for j in range(NY):
        lines.append((2, (NX, j), (NX, j + 1)))        # right
        lines.append((4, (0, j + 1), (0, j)))          # left
    tris = []
    for j in range(NY):
        for i in range(NX):
            a, b, c, d = (i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)
            if (i + j) % 2 == 0:
                tris += [(a, b, c), (a, c, d)]
            else:
                tris += [(a, b, d), (b, c, d)]
    out = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$PhysicalNames", "5",
           '1 1 "bottom"', '1 2 "right"', '1 3 "top"', '1 4 "left"', '2 5 "domain"', "$EndPhysicalNames",
           "$Nodes", str(n)]
    for key in sorted(pts, key=lambda k: tag[k]):
        out.append("%d %s %s 0" % (tag[key], repr(pts[key][0]), repr(pts[key][1])))
    out += ["$EndNodes", "$Elements", str(len(lines) + len(tris))]
    e = 1
    for phys, p, q in lines:
        out.append("%d 1 2 %d %d %d %d" % (e, phys, phys, tag[p], tag[q]))
        e += 1
    for a, b, c in tris:
        out.append("%d 2 2 5 5 %d %d %d" % (e, tag[a], tag[b], tag[c]))
        e += 1
    out.append("$EndElements")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, bad in (("square_periodic_v22.msh", False), ("bad_periodic_v22.msh", True)):
        with open(os.path.join(here, name), "w") as f:
            f.write(mesh(bad))
