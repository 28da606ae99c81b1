"""A .vtu (VTK XML UnstructuredGrid) of hdgc fields: one Lagrange triangle (VTK type 69;
type 5 for degree 1) per element, its points in VTK's order as hdgc's own --vtk output writes
them, so the connectivity of element e is e*npe .. e*npe+npe-1. The components of a vector
(NAME_x, NAME_y) or a tensor (NAME_xx, NAME_xy, NAME_yx, NAME_yy) are one array of 3 or 9
components (z = 0), as `hdgc run --vtk` writes them. Binary (the arrays zlib-compressed in
blocks, appended raw; runtime/output/vtk.h) or ASCII."""
import os
import struct
import sys
import tempfile
import zlib
from xml.sax.saxutils import quoteattr

import numpy as np

from . import lattice
from .error import input_error

VTK_TRIANGLE, VTK_LAGRANGE_TRIANGLE = 5, 69


def _rows(f, a, per_row):
    a = np.asarray(a).reshape(-1)
    if np.issubdtype(a.dtype, np.floating):
        text = [repr(float(v)) for v in a]
    else:
        text = [str(int(v)) for v in a]
    for k in range(0, len(text), per_row):
        f.write(" ".join(text[k:k + per_row]) + "\n")


BLOCK = 1 << 16
_DTYPE = {"Float64": np.float64, "Int64": np.int64, "UInt8": np.uint8}


class _Out:
    """The arrays' XML, and in binary the appended data they point into."""

    def __init__(self, f, binary):
        self.f, self.binary, self.data = f, binary, bytearray()

    def array(self, typ, name, data, ncomp=1, per_row=12):
        comp = f' NumberOfComponents="{ncomp}"' if ncomp > 1 else ""
        head = f'        <DataArray type="{typ}" Name={quoteattr(name)}{comp}'
        if not self.binary:
            self.f.write(head + ' format="ascii">\n')
            _rows(self.f, data, per_row)
            self.f.write("        </DataArray>\n")
            return
        self.f.write(head + f' format="appended" offset="{len(self.data)}"/>\n')
        raw = np.ascontiguousarray(np.asarray(data).reshape(-1), dtype=_DTYPE[typ]).tobytes()
        blocks = [zlib.compress(raw[k:k + BLOCK]) for k in range(0, len(raw), BLOCK)]
        self.data += struct.pack(f"={3 + len(blocks)}Q", len(blocks), BLOCK, len(raw) % BLOCK,
                                 *[len(b) for b in blocks])
        for b in blocks:
            self.data += b


def _group(fields):
    """[(name, [Field per component])]: NAME_x, NAME_y as a vector, NAME_xx .. NAME_yy as a tensor."""
    names = {g.name: g for g in fields}
    out, used = [], set()
    for g in fields:
        if g.name in used:
            continue
        for suffixes in (("_x", "_y"), ("_xx", "_xy", "_yx", "_yy")):
            base = g.name[:-len(suffixes[0])] if g.name.endswith(suffixes[0]) else None
            if base and all(base + s in names for s in suffixes):
                out.append((base, [names[base + s] for s in suffixes]))
                used.update(base + s for s in suffixes)
                break
        else:
            out.append((g.name, [g]))
            used.add(g.name)
    return out


def _components(parts, take):
    """(ne*npe, ncomp) values in VTK's point order: 1, 3 (x, y, 0) or 9 (xx, xy, 0, yx, yy, 0, 0, 0, 0)."""
    cols = [np.take_along_axis(g.values, take, 1).reshape(-1) for g in parts]
    if len(cols) == 1:
        return cols[0], 1
    z = np.zeros_like(cols[0])
    if len(cols) == 2:
        return np.stack([cols[0], cols[1], z], axis=-1), 3
    return np.stack([cols[0], cols[1], z, cols[2], cols[3], z, z, z, z], axis=-1), 9


def write_vtu(path, fields, cells=None, format="binary"):
    """Writes fields (hdgc.Field, one lattice: same elements and degree) to path, and cells
    (name -> one value per element, e.g. the error indicators) as cell data; format "binary"
    (zlib-compressed) or "ascii"."""
    if format not in ("binary", "ascii"):
        raise input_error(f"to_vtk {path}: format {format!r}: expected 'binary' or 'ascii'")
    if not fields:
        raise input_error(f"to_vtk {path}: no fields to write")
    f0 = fields[0]
    cells = dict(cells or {})
    for name, v in cells.items():
        if np.shape(v) != (f0.values.shape[0],) or not np.all(np.isfinite(v)):
            raise input_error(f"to_vtk {path}: cell field {name!r} needs one finite value per element")
    for g in fields[1:]:
        if g.values.shape != f0.values.shape or g.degree != f0.degree or not np.array_equal(g.x, f0.x):
            raise input_error(f"to_vtk {path}: fields {f0.name!r} and {g.name!r} are not on the same nodes")
    for g in fields:
        if not np.all(np.isfinite(g.values)):
            raise input_error(f"to_vtk {path}: field {g.name!r} has a value that is not finite")
    p, (ne, npe) = f0.degree, f0.values.shape
    pos = lattice.node_positions(f0)                       # (ne, npe): lattice index -> node
    take = np.take_along_axis(pos, np.broadcast_to(lattice.vtk_order(p), pos.shape), axis=1)
    pts = np.stack([np.take_along_axis(f0.x, take, 1), np.take_along_axis(f0.y, take, 1),
                    np.zeros((ne, npe))], axis=-1)
    ctype = VTK_TRIANGLE if p == 1 else VTK_LAGRANGE_TRIANGLE
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(prefix=".hdgc-", suffix=".vtu", dir=os.path.dirname(os.path.abspath(path)))
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            binary = format == "binary"
            out = _Out(f, binary)
            order = "LittleEndian" if sys.byteorder == "little" else "BigEndian"
            f.write('<?xml version="1.0"?>\n')
            f.write(f"<!-- hdgc (python): {ne} triangles, degree {p}, Lagrange cells, "
                    f"{'binary (zlib)' if binary else 'ASCII'} -->\n")
            f.write(f'<VTKFile type="UnstructuredGrid" version="1.0" byte_order="{order}"'
                    + (' header_type="UInt64" compressor="vtkZLibDataCompressor"' if binary else "")
                    + ">\n  <UnstructuredGrid>\n")
            f.write(f'    <Piece NumberOfPoints="{ne * npe}" NumberOfCells="{ne}">\n')
            groups = [(name, *_components(parts, take)) for name, parts in _group(fields)]
            attrs = ""
            for kind, n in (("Scalars", 1), ("Vectors", 3), ("Tensors", 9)):
                first = next((name for name, _, c in groups if c == n), None)
                attrs += f" {kind}={quoteattr(first)}" if first else ""
            f.write(f"      <PointData{attrs}>\n")
            for name, vals, ncomp in groups:
                out.array("Float64", name, vals, ncomp=ncomp, per_row=npe * ncomp)
            f.write("      </PointData>\n")
            if cells:
                f.write("      <CellData>\n")
                for name, v in cells.items():
                    out.array("Float64", name, v, per_row=16)
                f.write("      </CellData>\n")
            f.write("      <Points>\n")
            out.array("Float64", "Points", pts, ncomp=3, per_row=3)
            f.write("      </Points>\n      <Cells>\n")
            out.array("Int64", "connectivity", np.arange(ne * npe), per_row=npe)
            out.array("Int64", "offsets", npe * np.arange(1, ne + 1), per_row=16)
            out.array("UInt8", "types", np.full(ne, ctype), per_row=32)
            f.write("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n")
            if binary:
                f.write('  <AppendedData encoding="raw">\n   _')
                f.flush()
                f.buffer.write(bytes(out.data))
                f.write("\n  </AppendedData>\n")
            f.write("</VTKFile>\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path
