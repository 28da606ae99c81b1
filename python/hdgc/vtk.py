"""hdgc fields to files through the C API (include/hdgc.h): a .vtu by hdgc_vtk_write (the writer of
`hdgc run --vtk`: one VTK Lagrange triangle or tetrahedron per element, type 69 or 71, 5 or 10 at
degree 1, its points in VTK's order, so the connectivity of element e is e*npe .. e*npe+npe-1)
and a PNG by hdgc_png_write (the picture of `hdgc run --png`: a section or the boundary surface
on tetrahedra). The components of a vector (NAME_x, NAME_y (, NAME_z)) or a tensor (NAME_xx ..)
are one array of 3 or 9 components, as `hdgc run --vtk` writes them."""
import ctypes
import os

import numpy as np

from . import lattice
from ._lib import hdgc_lattice_fields, hdgc_png_options, lib
from .error import c_string, check, input_error, new_error

_SUFFIXES = {2: (("_x", "_y"), ("_xx", "_xy", "_yx", "_yy")),
             3: (("_x", "_y", "_z"), ("_xx", "_xy", "_xz", "_yx", "_yy", "_yz", "_zx", "_zy", "_zz"))}


def _group(fields, dim):
    """[(name, [Field per component])]: a vector's or a tensor's components as one field."""
    names = {g.name: g for g in fields}
    out, used = [], set()
    for g in fields:
        if g.name in used:
            continue
        for suffixes in _SUFFIXES[dim]:
            base = g.name[:-len(suffixes[0])] if g.name.endswith(suffixes[0]) else None
            if base and all(base + s in names for s in suffixes):
                out.append((base, [names[base + s] for s in suffixes]))
                used.update(base + s for s in suffixes)
                break
        else:
            out.append((g.name, [g]))
            used.add(g.name)
    return out


class LatticeFields:
    """The C struct hdgc_lattice_fields of hdgc.Field objects on one lattice (same elements,
    degree and nodes), each element's values put in lattice order (lattice.node_positions);
    the vertices are the lattice's corner nodes. Keeps the arrays it points to alive."""

    def __init__(self, what, fields, cells=None, group=True):
        if not fields:
            raise input_error(f"{what}: no fields to write")
        f0 = fields[0]
        for g in fields[1:]:
            if g.values.shape != f0.values.shape or g.degree != f0.degree or not np.array_equal(g.x, f0.x):
                raise input_error(f"{what}: fields {f0.name!r} and {g.name!r} are not on the same nodes")
        dim = 3 if getattr(f0, "z", None) is not None else 2
        p, (ne, npe) = f0.degree, f0.values.shape
        pos = lattice.node_positions(f0)   # (ne, npe): lattice index -> node

        def lat(a):
            return np.ascontiguousarray(np.take_along_axis(np.asarray(a, dtype=float), pos, 1))
        corners = [0, p, npe - 1] if dim == 2 else [0, p, lattice.size(p) - 1, npe - 1]
        coords = [lat(c) for c in ([f0.x, f0.y] if dim == 2 else [f0.x, f0.y, f0.z])]
        self.vertices = np.ascontiguousarray(np.stack([np.stack([c[:, v] for c in coords], -1) for v in corners], 1))
        groups = _group(fields, dim) if group else [(g.name, [g]) for g in fields]
        self.names = [c_string(n, f"{what}: field name") for n, _ in groups]
        self.values = [lat(g.values) for _, parts in groups for g in parts]
        cells = dict(cells or {})
        for name, v in cells.items():
            if np.shape(v) != (ne,):
                raise input_error(f"{what}: cell field {name!r} needs one value per element ({ne})")
        self.cell_names = [c_string(n, f"{what}: cell field name") for n in cells]
        self.cell_values = [np.ascontiguousarray(v, dtype=float) for v in cells.values()]
        P = ctypes.POINTER(ctypes.c_double)

        def arr(kind, items):
            return (kind * max(len(items), 1))(*items)
        self._names = arr(ctypes.c_char_p, self.names)
        self._ncomp = arr(ctypes.c_int, [len(parts) for _, parts in groups])
        self._values = arr(P, [v.ctypes.data_as(P) for v in self.values])
        self._cnames = arr(ctypes.c_char_p, self.cell_names)
        self._cvalues = arr(P, [v.ctypes.data_as(P) for v in self.cell_values])
        self.field_names = [n for n, _ in groups]
        self.c = hdgc_lattice_fields(dim, ne, self.vertices.ctypes.data_as(P), p, len(groups), self._names,
                                     self._ncomp, self._values, len(self.cell_names), self._cnames, self._cvalues)


def write_vtu(path, fields, cells=None, format="binary"):
    """Writes fields (hdgc.Field, one lattice) to path, and cells (name -> one value per element,
    e.g. the error indicators) as cell data; format "binary" (zlib-compressed) or "ascii"."""
    if format not in ("binary", "ascii"):
        raise input_error(f"to_vtk {path}: format {format!r}: expected 'binary' or 'ascii'")
    L = LatticeFields(f"to_vtk {path}", fields, cells)
    err = new_error()
    check(lib.hdgc_vtk_write(c_string(path, "to_vtk: path", path=True), ctypes.byref(L.c), format.encode(),
                             ctypes.byref(err)), err)
    return path


def write_png(path, field, slice=None, size=None, edges=False, caption=None):
    """Draws the scalar hdgc.Field `field` to the PNG path as `hdgc run --png` does (on tetrahedra
    the section slice="z=0.5", or without it the boundary surface); size (width, height)."""
    L = LatticeFields(f"plot {field.name}", [field], group=False)
    w, h = size or (0, 0)
    o = hdgc_png_options(int(w), int(h), 1 if edges else 0,
                         c_string(slice, "plot: slice") if slice is not None else None,
                         c_string(caption, "plot: caption") if caption is not None else None)
    err = new_error()
    check(lib.hdgc_png_write(c_string(path, "plot: path", path=True), ctypes.byref(L.c), 0, ctypes.byref(o),
                             ctypes.byref(err)), err)
    return os.fspath(path)
