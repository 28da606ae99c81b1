#!/usr/bin/env python3
"""check_vtu_binary.py - a binary .vtu against the ASCII .vtu of the same run.

usage: check_vtu_binary.py BINARY.vtu ASCII.vtu MIN_RATIO

  - the ASCII file is at least MIN_RATIO times the binary file's size;
  - read with meshio (an independent reader: Debian python3-meshio, installed by
    scripts/install-deps.sh), the two files hold the same points, cells, point
    and cell data, value for value (every Float64 equal, not close);
  - the same once more with tests/vtu_read.py (the standard library's zlib and
    struct), which also checks each block's size against its header.
Without meshio (an import error) only the second reading is done, and it says so.
"""
import os
import sys

import vtu_read


def arrays_stdlib(path):
    vtk = vtu_read.parse(path)
    piece = vtk.root.find("UnstructuredGrid/Piece")
    return {f"{sec.tag}/{a.get('Name')}": vtk.values(a) for sec in piece for a in sec.findall("DataArray")}


def arrays_meshio(meshio, path):
    m = meshio.read(path)
    out = {"points": m.points.tolist()}
    for name, v in m.point_data.items():
        out["point/" + name] = v.tolist()
    for name, v in m.cell_data.items():
        out["cell/" + name] = [x.tolist() for x in v]
    out["cells"] = [(c.type, c.data.tolist()) for c in m.cells]
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, ascii_, ratio = sys.argv[1], sys.argv[2], float(sys.argv[3])
    failures = []
    nb, na = os.path.getsize(binary), os.path.getsize(ascii_)
    print(f"sizes: binary {nb} bytes, ASCII {na} bytes, ratio {na / nb:.2f}")
    if na < ratio * nb:
        failures.append(f"the ASCII file is only {na / nb:.2f} times the binary one, want >= {ratio}")
    try:
        import meshio
    except ImportError as e:
        print(f"meshio not importable ({e}): the standard-library reading only")
        meshio = None
    readers = [("vtu_read", arrays_stdlib)]
    if meshio:
        readers.insert(0, ("meshio", lambda p: arrays_meshio(meshio, p)))
    for label, read in readers:
        a, b = read(binary), read(ascii_)
        if set(a) != set(b):
            failures.append(f"{label}: arrays {sorted(a)} and {sorted(b)}")
        for key in sorted(set(a) & set(b)):
            if a[key] != b[key]:
                failures.append(f"{label}: {key} differs between the binary and the ASCII file")
        count = sum(len(v) for v in a.values() if isinstance(v, list))
        print(f"{label}: {len(a)} arrays, {count} rows, binary == ASCII: {not failures}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
