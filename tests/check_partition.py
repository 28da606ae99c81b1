#!/usr/bin/env python3
"""check_partition.py - checks the JSON of `hdgc bench partition`.

usage: check_partition.py REPORT.json P1,P2,...
For every P: the parts hold every element (elements_mean x P = the mesh's),
the imbalance (max/mean) is below 1.1, P = 1 has no interface faces, no
ghosts and no halo bytes, P > 1 has interface faces on every part, at least
one neighbour per part, and halo volumes above zero (the face-only figure
never above the full one).
"""
import json
import sys


def main():
    rep, parts = json.load(open(sys.argv[1])), [int(p) for p in sys.argv[2].split(",")]
    bad = []
    for P in parts:
        s = rep["partition"].get(f"P{P}")
        if s is None:
            bad.append(f"P = {P}: missing")
            continue
        if round(s["elements_mean"] * P) != rep["elements"]:
            bad.append(f"P = {P}: {s['elements_mean'] * P} elements in the parts, {rep['elements']} in the mesh")
        if s["imbalance"] >= 1.1:
            bad.append(f"P = {P}: imbalance {s['imbalance']}")
        halo = [s[k] for k in ("hdg_bytes_per_iteration", "dg_bytes_per_stage", "interface_faces_max",
                               "hdg_ghost_faces_max", "dg_ghost_elements_max")]
        if P == 1 and any(halo):
            bad.append(f"P = 1: halo {halo}, expected none")
        if P > 1 and (s["interface_faces_min"] <= 0 or s["neighbours_min"] < 1 or not all(halo)):
            bad.append(f"P = {P}: a part without interface faces or neighbours ({s})")
        if s["hdg_face_bytes_per_iteration"] > s["hdg_bytes_per_iteration"] or \
           s["dg_face_bytes_per_stage"] > s["dg_bytes_per_stage"]:
            bad.append(f"P = {P}: face-only volume above the full one")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print(f"ok: {len(parts)} partitions of {rep['elements']} elements")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
