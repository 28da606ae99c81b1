"""A .vtu (VTK XML UnstructuredGrid, ASCII) of hdgc fields: one Lagrange triangle (VTK type 69;
type 5 for degree 1) per element, its points in VTK's order as hdgc's own --vtk output writes
them, so the connectivity of element e is e*npe .. e*npe+npe-1."""
import os
import tempfile
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


def _array(f, typ, name, data, ncomp=1, per_row=12):
    comp = f' NumberOfComponents="{ncomp}"' if ncomp > 1 else ""
    f.write(f'        <DataArray type="{typ}" Name={quoteattr(name)}{comp} format="ascii">\n')
    _rows(f, data, per_row)
    f.write("        </DataArray>\n")


def write_vtu(path, fields, cells=None):
    """Writes fields (hdgc.Field, one lattice: same elements and degree) to path, and cells
    (name -> one value per element, e.g. the error indicators) as cell data."""
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
        with os.fdopen(fd, "w") as f:
            f.write('<?xml version="1.0"?>\n')
            f.write(f"<!-- hdgc (python): {ne} triangles, degree {p}, Lagrange cells -->\n")
            f.write('<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian">\n'
                    "  <UnstructuredGrid>\n")
            f.write(f'    <Piece NumberOfPoints="{ne * npe}" NumberOfCells="{ne}">\n')
            f.write(f"      <PointData Scalars={quoteattr(f0.name)}>\n")
            for g in fields:
                _array(f, "Float64", g.name, np.take_along_axis(g.values, take, 1), per_row=npe)
            f.write("      </PointData>\n")
            if cells:
                f.write("      <CellData>\n")
                for name, v in cells.items():
                    _array(f, "Float64", name, v, per_row=16)
                f.write("      </CellData>\n")
            f.write("      <Points>\n")
            _array(f, "Float64", "Points", pts, ncomp=3, per_row=3)
            f.write("      </Points>\n      <Cells>\n")
            _array(f, "Int64", "connectivity", np.arange(ne * npe), per_row=npe)
            _array(f, "Int64", "offsets", npe * np.arange(1, ne + 1), per_row=16)
            _array(f, "UInt8", "types", np.full(ne, ctype), per_row=32)
            f.write("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path
