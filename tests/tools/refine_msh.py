#!/usr/bin/env python3
"""Uniform refinement of a Gmsh 2.2 ASCII triangle mesh (each triangle -> 4).
Used to make tests/data/maxwell05_r1_v22.msh from maxwell05_v22.msh, an unstructured
mesh sequence for convergence tests:  refine_msh.py IN OUT
Only 3-node triangles (type 2) and 2-node lines (type 1) are kept; lines are split too."""
import sys

def read(path):
    lines = open(path).read().split("\n")
    i = lines.index("$Nodes")
    n = int(lines[i + 1])
    nodes = {}
    for l in lines[i + 2:i + 2 + n]:
        t = l.split()
        nodes[int(t[0])] = (float(t[1]), float(t[2]))
    i = lines.index("$Elements")
    n = int(lines[i + 1])
    els = []
    for l in lines[i + 2:i + 2 + n]:
        t = [int(v) for v in l.split()]
        typ, ntags = t[1], t[2]
        els.append((typ, t[3:3 + ntags], t[3 + ntags:]))
    return nodes, els

def main():
    nodes, els = read(sys.argv[1])
    nxt = max(nodes) + 1
    mid = {}
    def midpoint(a, b):
        nonlocal nxt
        key = (min(a, b), max(a, b))
        if key not in mid:
            (xa, ya), (xb, yb) = nodes[a], nodes[b]
            nodes[nxt] = ((xa + xb) / 2, (ya + yb) / 2)
            mid[key] = nxt
            nxt += 1
        return mid[key]
    out = []
    for typ, tags, v in els:
        if typ == 2:
            a, b, c = v
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            out += [(2, tags, t) for t in ([a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca])]
        elif typ == 1:
            a, b = v
            m = midpoint(a, b)
            out += [(1, tags, [a, m]), (1, tags, [m, b])]
    with open(sys.argv[2], "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Comments\n")
        f.write("uniform refinement (tests/tools/refine_msh.py) of %s\n$EndComments\n" % sys.argv[1].split("/")[-1])
        f.write("$Nodes\n%d\n" % len(nodes))
        for k in sorted(nodes):
            f.write("%d %.17g %.17g 0\n" % (k, nodes[k][0], nodes[k][1]))
        f.write("$EndNodes\n$Elements\n%d\n" % len(out))
        for i, (typ, tags, v) in enumerate(out, 1):
            f.write("%d %d %d %s %s\n" % (i, typ, len(tags), " ".join(map(str, tags)), " ".join(map(str, v))))
        f.write("$EndElements\n")

main()
