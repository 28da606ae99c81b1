"""hdgc.Problem: a problem file loaded, its params and run options, a mesh from arrays,
a DG step callback, and the solve."""
import ctypes
import numbers
import os

import numpy as np

from . import _lib
from ._lib import lib
from .error import Error, c_string, check, input_error, new_error
from .result import Result, field_arrays, field_z



def _is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _option_text(v):
    if isinstance(v, bool):
        return "on" if v else "off"
    return os.fspath(v) if isinstance(v, (os.PathLike, bytes)) else str(v)


class State:
    """What a step callback sees: .step, .t, .final, .fields (name -> values, shape (ne, npe),
    copies), .x and .y (the nodes, shape (ne, npe)), .z on tetrahedra (None on triangles)."""

    def __init__(self, s, nodes):
        self.step, self.t, self.final = s.step, s.t, bool(s.final)
        self.fields = {}
        for i in range(s.nfields):
            f = s.fields[i]
            if nodes.get("x") is None:
                nodes["x"], nodes["y"], _ = field_arrays(f, values=False)
                nodes["z"] = field_z(f)
            self.fields[f.name.decode()] = field_arrays(f, nodes=False)[2]
        self.x, self.y, self.z = nodes.get("x"), nodes.get("y"), nodes.get("z")

    def __repr__(self):
        return f"State(step={self.step}, t={self.t:g}, final={self.final}, fields={list(self.fields)})"


class Problem:
    """A problem written in the hdgc language: Problem(path) or Problem.from_string(text)."""

    def __init__(self, path=None, *, _source=None, _name=None):
        self._p = _lib.P_problem()
        self._step = None
        self._solving = False
        err = new_error()
        if _source is None:
            check(lib.hdgc_problem_load(c_string(path, "hdgc.Problem: the path", path=True), ctypes.byref(self._p),
                                        err), err)
        else:
            check(lib.hdgc_problem_parse(c_string(_name, "hdgc.Problem.from_string: the name"),
                                         c_string(_source, "hdgc.Problem.from_string: the text"),
                                         ctypes.byref(self._p), err), err)
        n = lib.hdgc_problem_nparams(self._p)
        self.params = [lib.hdgc_problem_param(self._p, i, None).decode() for i in range(n)]

    @classmethod
    def from_string(cls, text, name="<string>"):
        return cls(_source=text, _name=name)

    def _idle(self, what):
        """hdgc.Error while a solve of this problem runs (a call from its step callback)."""
        if getattr(self, "_solving", False):
            raise input_error(f"hdgc.Problem.{what}: the problem is being solved (a call from its step callback?); "
                              "change it after solve returns")

    def close(self):
        self._idle("close")
        if self._p:
            lib.hdgc_problem_free(self._p)
            self._p = _lib.P_problem()

    def __del__(self):
        try:
            self.close()
        except Exception:   # interpreter shutdown: the library may be gone already
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _ptr(self):
        if not self._p:
            raise ValueError("hdgc.Problem: closed")
        return self._p

    @property
    def name(self):
        return lib.hdgc_problem_name(self._ptr()).decode()

    @property
    def method(self):
        return lib.hdgc_problem_method(self._ptr()).decode()

    @property
    def order(self):
        return lib.hdgc_problem_order(self._ptr())

    @property
    def transient(self):
        """True for a time-dependent problem: DG, or HDG with dt() terms (implicit schemes)."""
        return bool(lib.hdgc_problem_transient(self._ptr()))

    @property
    def nonlinear(self):
        """True for terms nonlinear in the unknowns (HDG: Newton, options newton_*; DG: explicit)."""
        return bool(lib.hdgc_problem_nonlinear(self._ptr()))

    @property
    def dim(self):
        """2 for a file on triangles (mesh triangle), 3 on tetrahedra (mesh tetrahedron)."""
        return int(lib.hdgc_problem_dim(self._ptr()))

    @property
    def warnings(self):
        """The file's warnings as `hdgc check` prints them; "" when none."""
        if "hdgc_problem_warnings" not in lib.hdgc_declared:
            return ""
        return (lib.hdgc_problem_warnings(self._ptr()) or b"").decode(errors="replace")

    # ------------------------------------------------------------ inspection

    @property
    def summary(self):
        """The checked problem as `hdgc check` prints it (params, spaces, unknowns, every
        equation expanded into classified scalar terms)."""
        return (lib.hdgc_problem_summary(self._ptr()) or b"").decode(errors="replace")

    @property
    def unknowns(self):
        """[(name, has_exact)] of the unknowns, in the order of the file."""
        out, has = [], ctypes.c_int(0)
        for i in range(lib.hdgc_problem_nunknowns(self._ptr())):
            name = lib.hdgc_problem_unknown(self._ptr(), i, ctypes.byref(has))
            out.append((name.decode(), bool(has.value)))
        return out

    def _text(self, fn, *args):
        text, err = ctypes.c_void_p(), new_error()
        check(fn(self._ptr(), *args, ctypes.byref(text), err), err)
        try:
            return ctypes.string_at(text.value).decode(errors="replace")
        finally:
            lib.hdgc_free(text)

    def ir(self, optimize=True):
        """The element-batch IR of every kernel at the problem's order, as `hdgc ir` prints it."""
        return self._text(lib.hdgc_problem_ir, 1 if optimize else 0)

    def source(self, backend="c", line_directives=False):
        """The generated kernels as one source, as `hdgc emit` writes it: backend "c" or "cuda"."""
        return self._text(lib.hdgc_problem_source, c_string(str(backend), "source: backend"),
                          1 if line_directives else 0)

    def __repr__(self):
        return f"hdgc.Problem({self.name!r}, method={self.method}, order={self.order})" if self._p else "hdgc.Problem(closed)"

    # ------------------------------------------------------------ settings

    def set_param(self, name, value):
        err = new_error()
        if not _is_number(value):
            raise input_error(f"param '{name}': expected a number, got {value!r}")
        check(lib.hdgc_problem_set_param(self._ptr(), c_string(name, "set_param: the name"), float(value), err), err)

    def set_option(self, name, value):
        err = new_error()
        cname = c_string(name, "set_option: the name")
        cvalue = c_string(_option_text(value), f"option {name}: the value", path=True)   # paths as the OS has them
        check(lib.hdgc_problem_set_option(self._ptr(), cname, cvalue, err), err)

    def _set_one(self, key, value):
        if key in self.params:
            return self.set_param(key, value)
        try:
            self.set_option(key.replace("_", "-"), value)
        except Error as e:
            if "unknown option" not in e.message or not _is_number(value):
                raise
            try:   # a param the scan of the file missed, or the param's 'did you mean'
                self.set_param(key, value)
            except Error as e2:
                raise Error(e2.code, f"{e.message}; {e2.message}") from None

    def set(self, **kw):
        """Params of the file by name (set_param), anything else a run option
        (set_option, underscores as dashes: final_time=0.5 -> final-time; True/False -> on/off)."""
        for key, value in kw.items():
            self._set_one(key, value)
        return self

    def set_mesh(self, vertices, triangles=None, edges=None, markers=None, names=None, tetrahedra=None,
                 faces=None):
        """A mesh from arrays: vertices (nv, 2), triangles (ne, 3) 0-based, boundary edges (nb, 2)
        with markers (nb,) >= 1 and names[id - 1] for the markers (markers may also be strings).
        In 3D: vertices (nv, 3), tetrahedra (ne, 4) and boundary faces (nb, 3) instead."""
        dim = 3 if tetrahedra is not None else 2
        if (tetrahedra is None) == (triangles is None):
            raise input_error("set_mesh: give triangles (2D) or tetrahedra (3D), not both")
        if dim == 3 and edges is not None:
            raise input_error("set_mesh: a 3D mesh takes boundary faces, not edges")
        if dim == 2 and faces is not None:
            raise input_error("set_mesh: a 2D mesh takes boundary edges, not faces")
        what = "edges" if dim == 2 else "faces"
        bnd = edges if dim == 2 else faces
        xyz = _array(vertices, np.float64, dim, "vertices")
        cells = _array(triangles if dim == 2 else tetrahedra, np.intc, dim + 1,
                       "triangles" if dim == 2 else "tetrahedra")
        nb, ed, mk, nm, cnames = 0, None, None, 0, None
        if bnd is not None or markers is not None:
            if bnd is None or markers is None:
                raise input_error(f"set_mesh: {what} and markers go together")
            ed = _array(bnd, np.intc, dim, what)
            nb = ed.shape[0]
            markers = list(markers) if not isinstance(markers, np.ndarray) else markers
            if len(markers) and isinstance(markers[0], str) and names is None:
                names = list(dict.fromkeys(markers))
                markers = [names.index(m) + 1 for m in markers]
            mk = _array(markers, np.intc, None, "markers")
            if mk.shape[0] != nb:
                raise input_error(f"set_mesh: {nb} {what} but {mk.shape[0]} markers")
            nm = len(names) if names is not None else int(mk.max(initial=0))
        if names is not None:
            names = [c_string(str(n), f"set_mesh: marker name {i + 1}") for i, n in enumerate(names)]
            cnames = (ctypes.c_char_p * max(len(names), 1))(*names)
        def ptr(a, t):
            return a.ctypes.data_as(ctypes.POINTER(t)) if a is not None else None
        err = new_error()
        check(lib.hdgc_problem_set_mesh_simplices(self._ptr(), dim, xyz.shape[0], ptr(xyz, ctypes.c_double),
                                                  cells.shape[0], ptr(cells, ctypes.c_int), nb,
                                                  ptr(ed, ctypes.c_int), ptr(mk, ctypes.c_int), nm, cnames,
                                                  err), err)
        return self

    def on_step(self, fn, every=1):
        """Time-dependent problems: fn(state) every `every` steps and at the final state (DG: also
        the initial one); a true
        (or nonzero) return stops the solve (which then raises hdgc.Error); fn None: none."""
        self._idle("on_step")
        if fn is None:
            err = new_error()
            check(lib.hdgc_problem_on_step(self._ptr(), int(every), _lib.hdgc_step_fn(), None, err), err)
            self._step = None
            return self
        box = {"exc": None, "nodes": {}}

        def trampoline(ctx, state):
            try:
                rc = fn(State(state.contents, box["nodes"]))
            except BaseException as e:   # raised again by solve()
                box["exc"] = e
                return -1
            if rc is None or rc is False:
                return 0
            if isinstance(rc, numbers.Integral) and not isinstance(rc, bool):
                return max(-2**31, min(2**31 - 1, int(rc)))
            return 1 if rc else 0
        cfn = _lib.hdgc_step_fn(trampoline)
        err = new_error()
        check(lib.hdgc_problem_on_step(self._ptr(), int(every), cfn, None, err), err)
        self._step = (cfn, box)   # kept alive while the library holds it
        return self

    # ------------------------------------------------------------ solving

    def solve(self, order=None, mesh=None, **options):
        """Applies order, mesh (a spec such as "square:16" or a .msh path; or a tuple/dict of
        set_mesh's arguments) and options as .set does, runs, returns a Result; raises
        hdgc.Error (with .result when the run got as far as a report) when the run fails."""
        self._idle("solve")
        if order is not None:
            self.set_option("order", order)
        if isinstance(mesh, dict):
            self.set_mesh(**mesh)
        elif isinstance(mesh, (tuple, list)):
            self.set_mesh(*mesh)
        elif mesh is not None:
            self.set_option("mesh", mesh)
        self.set(**options)
        if self._step:
            self._step[1]["exc"], self._step[1]["nodes"] = None, {}
        out, err = _lib.P_result(), new_error()
        self._solving = True
        try:
            code = lib.hdgc_solve(self._ptr(), ctypes.byref(out), err)
        finally:
            self._solving = False
        result = Result(out) if out else None
        exc = self._step[1]["exc"] if self._step else None
        if exc is not None:
            raise exc
        if code:
            raise Error(code, err.msg.decode(errors="replace"), result)
        return result


def _array(a, dtype, ncol, what):
    """a as a C-contiguous array of dtype and shape (n, ncol) ((n,) for ncol None)."""
    try:
        arr = np.asarray(a)
    except Exception as e:
        raise input_error(f"set_mesh: {what}: {e}") from None
    want = "(n,)" if ncol is None else f"(n, {ncol})"
    if arr.size == 0:
        arr = arr.reshape((0,) if ncol is None else (0, ncol))
    if (ncol is None and arr.ndim != 1) or (ncol is not None and (arr.ndim != 2 or arr.shape[1] != ncol)):
        raise input_error(f"set_mesh: {what}: expected shape {want}, got {arr.shape}")
    if np.issubdtype(dtype, np.integer):
        if arr.size and not (np.issubdtype(arr.dtype, np.integer) or
                             (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)))):
            raise input_error(f"set_mesh: {what}: expected integers, got {arr.dtype}")
        info = np.iinfo(dtype)
        if arr.size and (arr.min() < info.min or arr.max() > info.max):
            raise input_error(f"set_mesh: {what}: a value outside the C int range")
    elif not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise input_error(f"set_mesh: {what}: expected real numbers, got {arr.dtype}")
    if arr.shape[0] > 2**31 - 1:
        raise input_error(f"set_mesh: {what}: too many rows")
    return np.ascontiguousarray(arr, dtype=dtype)
