#!/usr/bin/env python3
"""gen_tets.py - writes the small tetrahedral Gmsh files of tests/data/mesh3d
(there is no gmsh binary here): run it in this folder, commit its output.

lblock_v22.msh, lblock_v41.msh: the L-shaped block ([0,2]x[0,2] without
[1,2]x[1,2]) x [0,1], n = 2 cells per unit, each cell cut into the 6 Kuhn
tetrahedra; physical surfaces 1 "bottom" (z = 0), 2 "top" (z = 1), 3 "sides";
volume 3, boundary area 2*3 + 8 = 14. The same mesh in both formats (4.1 with
one entity per physical surface). lblock_cw_v22.msh: the same with every other
tetrahedron listed inverted. lblock_partial_v22.msh: "sides" left untagged.
bad_tet_*.msh: one defect each (see the names)."""
import itertools

KUHN = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


def sign(p):
    s = 1
    for i in range(len(p)):
        for j in range(i + 1, len(p)):
            if p[i] > p[j]:
                s = -s
    return s


def lblock(n=2):
    cells = [(i, j, k) for k in range(n) for j in range(2 * n) for i in range(2 * n)
             if not (i >= n and j >= n)]
    nodes, index, tets = [], {}, []

    def node(p):
        if p not in index:
            index[p] = len(nodes) + 1
            nodes.append(p)
        return index[p]

    for (i, j, k) in cells:
        for ax in KUHN:
            c = [0, 0, 0]
            pts = [tuple(c)]
            for a in ax:
                c[a] += 1
                pts.append(tuple(c))
            v = [node((i + p[0], j + p[1], k + p[2])) for p in pts]
            if sign(ax) < 0:
                v[1], v[2] = v[2], v[1]
            tets.append(v)
    coords = [(x / n, y / n, z / n) for (x, y, z) in nodes]
    # boundary faces: faces of one tetrahedron only
    count = {}
    for t in tets:
        for f in itertools.combinations(t, 3):
            count[frozenset(f)] = count.get(frozenset(f), 0) + 1
    tris = []
    for t in tets:
        for f in ((t[0], t[1], t[2]), (t[0], t[1], t[3]), (t[1], t[2], t[3]), (t[0], t[2], t[3])):
            if count[frozenset(f)] == 1:
                zs = [coords[v - 1][2] for v in f]
                phys = 1 if max(zs) == 0 else 2 if min(zs) == 1 else 3
                tris.append((phys, f))
    tris.sort(key=lambda t: t[0])
    return coords, tets, tris


NAMES = {1: "bottom", 2: "top", 3: "sides"}


def write22(path, coords, tets, tris, names=NAMES):
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write("$PhysicalNames\n%d\n" % (len(names) + 1))
        for t, nm in names.items():
            f.write('2 %d "%s"\n' % (t, nm))
        f.write('3 10 "solid"\n$EndPhysicalNames\n')
        f.write("$Nodes\n%d\n" % len(coords))
        for i, (x, y, z) in enumerate(coords):
            f.write("%d %.17g %.17g %.17g\n" % (i + 1, x, y, z))
        f.write("$EndNodes\n$Elements\n%d\n" % (len(tris) + len(tets)))
        e = 1
        for phys, v in tris:
            f.write("%d 2 2 %d %d %d %d %d\n" % (e, phys, phys, *v))
            e += 1
        for v in tets:
            f.write("%d 4 2 10 1 %d %d %d %d\n" % (e, *v))
            e += 1
        f.write("$EndElements\n")


def write41(path, coords, tets, tris):
    with open(path, "w") as f:
        f.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n")
        f.write("$PhysicalNames\n4\n")
        for t, nm in NAMES.items():
            f.write('2 %d "%s"\n' % (t, nm))
        f.write('3 10 "solid"\n$EndPhysicalNames\n')
        f.write("$Entities\n0 0 3 1\n")
        for s in (1, 2, 3):
            f.write("%d 0 0 0 2 2 1 1 %d 0\n" % (s, s))
        f.write("1 0 0 0 2 2 1 1 10 3 1 2 3\n$EndEntities\n")
        n = len(coords)
        f.write("$Nodes\n1 %d 1 %d\n3 1 0 %d\n" % (n, n, n))
        for i in range(n):
            f.write("%d\n" % (i + 1))
        for (x, y, z) in coords:
            f.write("%.17g %.17g %.17g\n" % (x, y, z))
        f.write("$EndNodes\n")
        total = len(tris) + len(tets)
        f.write("$Elements\n4 %d 1 %d\n" % (total, total))
        e = 1
        for s in (1, 2, 3):
            mine = [v for phys, v in tris if phys == s]
            f.write("2 %d 2 %d\n" % (s, len(mine)))
            for v in mine:
                f.write("%d %d %d %d\n" % (e, *v))
                e += 1
        f.write("3 1 4 %d\n" % len(tets))
        for v in tets:
            f.write("%d %d %d %d %d\n" % (e, *v))
            e += 1
        f.write("$EndElements\n")


def small(path, coords, tets, tris=()):
    write22(path, coords, tets, list(tris), names={})


def main():
    coords, tets, tris = lblock()
    write22("lblock_v22.msh", coords, tets, tris)
    write41("lblock_v41.msh", coords, tets, tris)
    cw = [[v[0], v[2], v[1], v[3]] if i % 2 else v for i, v in enumerate(tets)]
    write22("lblock_cw_v22.msh", coords, cw, tris)
    write22("lblock_partial_v22.msh", coords, tets, [t for t in tris if t[0] != 3])
    P = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0.2, 0.2, -1), (0.3, 0.3, 1.5), (0.5, 0.5, 1e-17),
         (0.1, 0.1, 0.1), (1.1, 0.1, 0.1), (0.1, 1.1, 0.1), (0.1, 0.1, 1.1)]
    small("bad_tet_duplicate.msh", P, [[1, 2, 3, 4], [1, 2, 4, 3]])
    small("bad_tet_degenerate.msh", P, [[1, 2, 3, 4], [1, 2, 3, 7]])
    small("bad_tet_nonmanifold.msh", P, [[1, 2, 3, 4], [1, 3, 2, 5], [1, 2, 3, 6]])
    small("bad_tet_tag_not_face.msh", P, [[1, 2, 3, 4], [1, 3, 2, 5]], [(7, (2, 4, 5))])
    small("bad_tet_overlap.msh", P, [[1, 2, 3, 4], [8, 9, 10, 11]])


if __name__ == "__main__":
    main()
