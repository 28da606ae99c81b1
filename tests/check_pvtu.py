#!/usr/bin/env python3
"""check_pvtu.py - compares the output of a run under mpirun with the serial
run's .vtu, reading both with a real XML parser (xml.etree; binary appended
data decoded by tests/vtu_read.py).

usage: check_pvtu.py SERIAL.vtu OUTPUT NPIECES
  OUTPUT.pvtu  a parallel file of NPIECES pieces: every piece exists (relative
               to the .pvtu), declares its arrays in the sections and types
               the .pvtu declares (PPoints, PPointData, PCellData), and the
               pieces together hold the serial file's cells and points; every
               array's sum, min and max agree with the serial file's to 1e-8
               (relative to its largest magnitude)
  OUTPUT.pvd   a collection of one .pvtu, checked as above
  OUTPUT.vtu   a file gathered on rank 0 (NPIECES = 1): the serial layout,
               every value equal to the serial one to 1e-8
"""
import os
import sys
import xml.etree.ElementTree as ET

import vtu_read

failures = []


def fail(msg):
    failures.append(msg)


def arrays(vtk, piece, section):
    """{name: (type, ncomp, values)} of one section of a piece."""
    out = {}
    sec = piece.find(section)
    for a in sec.findall("DataArray") if sec is not None else []:
        out[a.get("Name")] = (a.get("type"), int(a.get("NumberOfComponents", "1")), vtk.values(a))
    return out


def grid(path):
    """Counts and arrays of a .vtu."""
    vtk = vtu_read.parse(path)
    p = vtk.root.find("UnstructuredGrid/Piece")
    if p is None:
        fail(f"{path}: no UnstructuredGrid/Piece")
    return {"points": int(p.get("NumberOfPoints")), "cells": int(p.get("NumberOfCells")),
            "PointData": arrays(vtk, p, "PointData"), "CellData": arrays(vtk, p, "CellData"),
            "Points": arrays(vtk, p, "Points")}


def declared(root, section):
    sec = root.find("PUnstructuredGrid/" + section)
    if sec is None:
        return {}
    return {a.get("Name"): (a.get("type"), int(a.get("NumberOfComponents", "1"))) for a in sec.findall("PDataArray")}


def merge(pieces):
    total = {"points": 0, "cells": 0, "PointData": {}, "CellData": {}, "Points": {}}
    for g in pieces:
        total["points"] += g["points"]
        total["cells"] += g["cells"]
        for sec in ("PointData", "CellData", "Points"):
            for name, (t, c, v) in g[sec].items():
                total[sec].setdefault(name, (t, c, []))[2].extend(v)
    return total


def close(a, b, scale):
    return abs(a - b) <= 1e-8 * max(scale, 1e-300)


def compare_stats(serial, total, what):
    for key in ("points", "cells"):
        if serial[key] != total[key]:
            fail(f"{what}: {total[key]} {key} in the pieces, {serial[key]} in the serial file")
    for sec in ("PointData", "CellData"):
        if set(serial[sec]) != set(total[sec]):
            fail(f"{what}: {sec} arrays {sorted(total[sec])}, serial {sorted(serial[sec])}")
            continue
        for name, (_, _, v) in serial[sec].items():
            w = total[sec][name][2]
            scale = max(abs(x) for x in v) if v else 1
            for label, f in (("sum", sum), ("min", min), ("max", max)):
                if not close(f(v), f(w), scale * (len(v) if label == "sum" else 1)):
                    fail(f"{what}: {sec} {name}: {label} {f(w)!r}, serial {f(v)!r}")


def check_pvtu(serial, path, npieces):
    root = ET.parse(path).getroot()
    if root.get("type") != "PUnstructuredGrid":
        fail(f"{path}: type {root.get('type')}, expected PUnstructuredGrid")
        return
    sources = [p.get("Source") for p in root.findall("PUnstructuredGrid/Piece")]
    if len(sources) != npieces:
        fail(f"{path}: {len(sources)} pieces, expected {npieces}")
    pieces = []
    for s in sources:
        f = os.path.join(os.path.dirname(path), s)
        if not os.path.isfile(f):
            fail(f"{path}: piece {s} missing")
            continue
        g = grid(f)
        for sec in ("PointData", "CellData", "Points"):
            have = {n: (t, c) for n, (t, c, _) in g[sec].items()}
            if have != declared(root, "P" + sec):
                fail(f"{f}: {sec} {have} but the .pvtu declares {declared(root, 'P' + sec)}")
        if g["cells"] == 0:
            fail(f"{f}: no cells")
        pieces.append(g)
    compare_stats(serial, merge(pieces), path)


def check_gathered(serial, path):
    g = grid(path)
    compare_stats(serial, g, path)
    for sec in ("PointData", "CellData", "Points"):
        for name, (_, _, v) in serial[sec].items():
            w = g[sec].get(name, (None, None, []))[2]
            scale = max(abs(x) for x in v) if v else 1
            bad = [i for i, (a, b) in enumerate(zip(v, w)) if not close(a, b, scale)]
            if len(v) != len(w) or bad:
                fail(f"{path}: {sec} {name} differs from the serial file (first at value {bad[:1]})")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    serial, path, npieces = grid(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    if path.endswith(".pvd"):
        sets = ET.parse(path).getroot().findall("Collection/DataSet")
        if len(sets) != 1:
            fail(f"{path}: {len(sets)} data sets, expected 1")
        else:
            check_pvtu(serial, os.path.join(os.path.dirname(path), sets[0].get("file")), npieces)
    elif path.endswith(".pvtu"):
        check_pvtu(serial, path, npieces)
    else:
        check_gathered(serial, path)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"ok: {serial['cells']} cells, {serial['points']} points")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
