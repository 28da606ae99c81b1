"""hdgc.Result: what a solve gives back, copied out of the library's result object."""
import ctypes
import html
import json
import math

import numpy as np

from ._lib import lib
from .error import input_error


def _copy(ptr, ne, npe):
    if ne * npe == 0 or not ptr:
        return np.zeros((ne, npe))
    return np.ctypeslib.as_array(ptr, shape=(ne * npe,)).copy().reshape(ne, npe)


def field_arrays(f, nodes=True, values=True):
    """x, y, values of an hdgc_field as (ne, npe) copies (None for those not asked for)."""
    x = _copy(f.x, f.ne, f.npe) if nodes else None
    y = _copy(f.y, f.ne, f.npe) if nodes else None
    v = _copy(f.values, f.ne, f.npe) if values else None
    return x, y, v


def field_z(f):
    """z of an hdgc_field's nodes as an (ne, npe) copy; None on triangles."""
    return _copy(f.z, f.ne, f.npe) if f.z else None


class Field:
    """A field at the nodes of every element: .x, .y, .values of shape (ne, npe), the
    equispaced lattice of degree .degree of each triangle in hdgc's lattice order
    (rows j = 0..p of p+1-j points i; vertices at nodes 0, p and npe-1). On tetrahedra .z
    too (None on triangles), the lattice in layers k = 0..p of triangles of degree p-k
    (hdgc.lattice; vertices at nodes 0, p, (p+1)(p+2)/2-1 and npe-1)."""

    def __init__(self, name, degree, x, y, values, z=None):
        self.name, self.degree, self.x, self.y, self.values, self.z = name, degree, x, y, values, z

    @property
    def ne(self):
        return self.values.shape[0]

    @property
    def npe(self):
        return self.values.shape[1]

    def __repr__(self):
        return f"Field({self.name!r}, degree={self.degree}, ne={self.ne}, npe={self.npe})"


class Result:
    """.status ("ok" or the failure's name), .ok, .report (the JSON report as a dict), .summary
    (the lines `hdgc run` prints, when the library has hdgc_result_summary),
    .errors (unknown -> L2 error), .fields (name -> Field), .vertices ((nv, 2), tetrahedra
    (nv, 3)) and .triangles ((ne, 3), element e of the fields is triangle e; None when the run
    had no mesh) or, on tetrahedra, .tetrahedra ((ne, 4); .triangles is then None),
    .trace ((nf, per_face) array of the HDG trace unknowns; None for DG), .warnings (report path ->
    text: the run's warnings, as `hdgc run` prints them), .estimates (HDG with a
    post-processed unknown: unknown -> ||u* - u||, the error estimate without an exact solution),
    .indicators (unknown -> its per-element eta_K, shape (ne,)), .number(path),
    .to_vtk(path), .plot(name)."""

    def __init__(self, ptr):
        try:
            code = lib.hdgc_result_status(ptr)
            self.status = "ok" if code == 0 else lib.hdg_status_name(code).decode()
            self.report = json.loads(lib.hdgc_result_report(ptr).decode())
            self.summary = ""
            if "hdgc_result_summary" in lib.hdgc_declared:
                self.summary = (lib.hdgc_result_summary(ptr) or b"").decode(errors="replace")
            self.fields = {}
            nodes = {}
            for i in range(lib.hdgc_result_nfields(ptr)):
                f = lib.hdgc_result_field(ptr, i).contents
                key = (ctypes.addressof(f.x.contents) if f.x else 0, f.ne, f.npe)
                if key not in nodes:
                    nodes[key] = field_arrays(f, values=False)[:2] + (field_z(f),)
                x, y, z = nodes[key]
                self.fields[f.name.decode()] = Field(f.name.decode(), f.degree, x, y,
                                                     field_arrays(f, nodes=False)[2], z)
            self._mesh(ptr)
            self.warnings = {}   # path -> text, as `hdgc run` prints them
            if "hdgc_result_warning" in lib.hdgc_declared:
                path = ctypes.c_char_p()
                for i in range(lib.hdgc_result_nwarnings(ptr)):
                    text = lib.hdgc_result_warning(ptr, i, ctypes.byref(path))
                    self.warnings[path.value.decode(errors="replace")] = text.decode(errors="replace")
            self.indicators = {}
            if "hdgc_result_indicators" in lib.hdgc_declared:
                for u in self.report.get("estimate", {}):
                    eta = ctypes.POINTER(ctypes.c_double)()
                    n = lib.hdgc_result_indicators(ptr, u.encode(), ctypes.byref(eta))
                    if n > 0:
                        self.indicators[u] = np.ctypeslib.as_array(eta, shape=(n,)).copy()
            vals, per = ctypes.POINTER(ctypes.c_double)(), ctypes.c_int()
            n = lib.hdgc_result_trace(ptr, ctypes.byref(vals), ctypes.byref(per))
            self.trace = None
            if n > 0 and per.value > 0:
                self.trace = np.ctypeslib.as_array(vals, shape=(n,)).copy().reshape(-1, per.value)
        finally:
            lib.hdgc_result_free(ptr)

    def _mesh(self, ptr):
        nv, dim = ctypes.c_int(), ctypes.c_int(2)
        xy, cells = ctypes.POINTER(ctypes.c_double)(), ctypes.POINTER(ctypes.c_int)()
        ne = lib.hdgc_result_mesh_simplices(ptr, ctypes.byref(dim), ctypes.byref(nv), ctypes.byref(xy),
                                            ctypes.byref(cells))
        self.vertices = self.triangles = self.tetrahedra = None
        if ne > 0:
            d = dim.value
            self.vertices = np.ctypeslib.as_array(xy, shape=(d * nv.value,)).copy().reshape(-1, d)
            c = np.ctypeslib.as_array(cells, shape=((d + 1) * ne,)).copy().reshape(-1, d + 1)
            if d == 3:
                self.tetrahedra = c
            else:
                self.triangles = c

    @property
    def ok(self):
        return self.status == "ok"

    @property
    def errors(self):
        return dict(self.report.get("errors", {}))

    @property
    def estimates(self):
        return dict(self.report.get("estimate", {}))

    def number(self, path):
        """A number of the report by its dotted path ("solver.iterations"); NaN when none."""
        node = self.report
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return math.nan
            node = node[part]
        return float(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else math.nan

    def to_vtk(self, path, fields=None, format="binary"):
        """Writes the fields (all, or the names given) as the .vtu that `hdgc run --vtk` writes
        (through the C API's hdgc_vtk_write: VTK Lagrange triangles or tetrahedra), with the error
        indicators (.indicators) as the cell fields estimate_<unknown>: a vector's or tensor's
        components (q_x, q_y (, q_z)) as one array of 3 or 9 components; format "binary"
        (zlib-compressed, the default) or "ascii"."""
        from .vtk import write_vtu
        cells = {f"estimate_{u}": eta for u, eta in self.indicators.items()}
        write_vtu(path, [self.fields[n] for n in (fields or self.fields)], cells, format=format)
        return path

    def plot(self, name, ax=None, path=None, slice=None, size=None, edges=False, **kw):
        """On triangles: a matplotlib tripcolor of field `name`, each element cut into p^2 triangles;
        saves a PNG at path when given; returns the matplotlib collection. On tetrahedra: the
        picture of `hdgc run --png` (the C API's hdgc_png_write: the section slice="z=0.5", or the
        boundary surface without it; size=(width, height), edges) written to path; shown in ax (or
        a new figure) when ax is given or path is not, returning the matplotlib image, else
        returns path."""
        if name not in self.fields:
            raise KeyError(f"no field {name!r}; the fields are {', '.join(self.fields)}")
        if self.fields[name].z is None:   # triangles
            if slice is not None:
                raise input_error(f"plot {name}: slice={slice!r}: a plane section is drawn of tetrahedra; "
                                  "this mesh is 2D (drop slice)")
            from .plot import plot_field
            return plot_field(self.fields[name], ax=ax, path=path, **kw)
        from .plot import plot_png
        return plot_png(self, name, ax=ax, path=path, slice=slice, size=size, edges=edges, **kw)

    def _repr_html_(self):
        """Jupyter: the run (problem, method, order, backend, mesh, solver) and a table of the L2
        error and the estimate of every unknown."""
        rep = self.report
        run = [("status", self.status), ("problem", rep.get("problem")), ("method", rep.get("method")),
               ("order", rep.get("order")), ("backend", rep.get("backend")),
               ("mesh", "{} ({} elements)".format(rep.get("mesh", {}).get("source", ""),
                                                  rep.get("mesh", {}).get("elements", "?")))]
        solver = rep.get("solver", {})
        if "iterations" in solver:
            run.append(("solver", "{} iterations, relative residual {:.2e}".format(
                solver["iterations"], solver.get("residual", math.nan))))
        if "total" in rep.get("timings", {}):
            run.append(("time", "{:.3f} s".format(rep["timings"]["total"])))
        rows = "".join(f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>"
                       f"{html.escape(str(v))}</td></tr>" for k, v in run if v is not None)
        errs, ests = self.errors, self.estimates
        names = list(errs) + [u for u in ests if u not in errs]

        def num(v):
            return f"{v:.4e}" if isinstance(v, (int, float)) and math.isfinite(v) else "-"
        table = ""
        if names:
            body = "".join(f"<tr><td>{html.escape(u)}</td><td>{num(errs.get(u))}</td><td>{num(ests.get(u))}</td></tr>"
                           for u in names)
            table = f"<table><tr><th>unknown</th><th>L2 error</th><th>estimate</th></tr>{body}</table>"
        return f"<table>{rows}</table>{table}"

    def __repr__(self):
        errs = ", ".join(f"{k}={v:.3e}" for k, v in self.errors.items() if isinstance(v, (int, float)))
        return f"hdgc.Result({self.status}, fields={list(self.fields)}, errors: {errs or 'none'})"
