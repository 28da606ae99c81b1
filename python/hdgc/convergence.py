"""hdgc.convergence: the runs of `hdgc convergence` (every order on every square:N, or on mesh
specs), their L2 errors, the observed rates log(e_coarse/e_fine) / log(h_coarse/h_fine) and the
fitted rates (least squares of log e against log h; h = 1/N, or a spec's longest edge), the same
numbers the command prints, for the inputs the command takes."""
import ctypes
import html
import math
import numbers
import os

from . import _lib
from ._lib import lib
from .error import Error, c_string, check, input_error, new_error
from .problem import Problem

MAX_N = 100000   # square:N, as hdgc convergence --meshes


def _longest_edge(spec, i):
    """The longest edge of mesh spec number i (loaded with its geometry), as the command's h."""
    m, err, hmax = _lib.P_mesh(), new_error(), ctypes.c_double()
    try:
        check(lib.hdgc_mesh_load(c_string(spec, f"meshes[{i}]", path=True), 1, ctypes.byref(m), err), err)
        check(lib.hdgc_mesh_h(m, None, ctypes.byref(hmax), err), err)
    except Error as e:
        raise Error(e.code, f"meshes[{i}] {spec}: {e.message}") from None
    finally:
        lib.hdgc_mesh_free(m)
    return hmax.value


def _square_n(m):
    """m as N of square:N (an integer, or a string of digits), else None."""
    if isinstance(m, numbers.Integral) and not isinstance(m, bool):
        return int(m)
    if isinstance(m, str) and m.strip().isdigit():
        return int(m)
    return None


def _columns(meshes, mesh_options):
    """[(key, spec, h)] of the meshes as `hdgc convergence --meshes` takes them: N,N,...
    (square:N[,mesh_options], h = 1/N) or mesh specs (h: each one's longest edge)."""
    meshes = list(meshes)
    if not meshes:
        raise input_error("convergence: meshes: expected N,N,... or mesh specs, got none")
    ns = [_square_n(m) for m in meshes]
    for i, (m, n) in enumerate(zip(meshes, ns)):
        if n is None and not isinstance(m, (str, bytes, os.PathLike)):
            raise input_error(f"convergence: meshes[{i}]: expected an integer N (square:N) or a mesh spec, got {m!r}")
        if n is not None and not 1 <= n <= MAX_N:
            raise input_error(f"convergence: meshes[{i}]: N = {n}, expected 1..{MAX_N}")
    if all(n is not None for n in ns):
        suffix = f",{mesh_options}" if mesh_options else ""
        return [(n, f"square:{n}{suffix}", 1.0 / n) for n in ns]
    if mesh_options:
        raise input_error(f"convergence: mesh_options applies to square:N; with mesh specs write them in each spec "
                          f"({mesh_options!r})")
    specs = [f"square:{n}" if n is not None else os.fsdecode(os.fspath(m)) for m, n in zip(meshes, ns)]
    return [(s, s, _longest_edge(s, i)) for i, s in enumerate(specs)]


def _orders(orders):
    orders = list(orders)
    if not orders:
        raise input_error("convergence: orders: expected k,k,..., got none")
    for i, k in enumerate(orders):
        if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
            raise input_error(f"convergence: orders[{i}]: expected an integer >= 1, got {k!r}")
    return [int(k) for k in orders]


def fit(h, e):
    """(slope of log e against log h, points used): pairs with h, e > 0 and finite only."""
    pts = [(math.log(a), math.log(b)) for a, b in zip(h, e)
           if a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)]
    if len(pts) < 2:
        return math.nan, len(pts)
    mx, my = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    return (sxy / sxx if sxx > 0 else math.nan), len(pts)


class Convergence:
    """.runs (dicts: order, N, h, mesh, status, errors, iterations, warnings, error),
    .errors[(order, N, unknown)], .rates[(order, N, unknown)] (from the previous mesh to N),
    .fits[(order, unknown)] = (rate, points), .unknowns, .orders, .meshes (N, or the spec with
    mesh specs), .h (each mesh's h: 1/N or the spec's longest edge), .ok (every run succeeded);
    str() is the table."""

    def __init__(self, name, orders, meshes, h=None):
        self.name, self.orders, self.meshes = name, list(orders), list(meshes)
        self.h = list(h) if h is not None else [1.0 / N for N in self.meshes]
        self.specs = h is not None and not all(isinstance(N, int) for N in self.meshes)
        self.runs, self.unknowns, self.errors, self.rates, self.fits = [], [], {}, {}, {}

    @property
    def ok(self):
        return all(r["status"] == "ok" for r in self.runs)

    def _add(self, order, N, mesh, result, error):
        errs = dict(result.errors) if result is not None else {}
        run = {"status": "failed" if error else "ok", "order": order, "N": N, "h": self.h[self.meshes.index(N)],
               "mesh": mesh, "errors": errs}
        if error:
            run["error"] = error.message
        if result is not None and "iterations" in result.report.get("solver", {}):
            run["iterations"] = result.report["solver"]["iterations"]
        run["warnings"] = list(result.warnings.values()) if result is not None else []
        self.runs.append(run)
        for u, e in errs.items():
            if u not in self.unknowns:
                self.unknowns.append(u)
            self.errors[(order, N, u)] = e if e is not None else math.nan

    def _rates(self):
        for k in self.orders:
            for u in self.unknowns:
                es = [self.errors.get((k, N, u), math.nan) for N in self.meshes]
                for m in range(1, len(self.meshes)):
                    lh = math.log(self.h[m - 1] / self.h[m])   # as the command: none between equal meshes
                    if es[m] > 0 and es[m - 1] > 0 and math.isfinite(es[m] + es[m - 1]) and abs(lh) > 1e-9:
                        self.rates[(k, self.meshes[m], u)] = math.log(es[m - 1] / es[m]) / lh
                self.fits[(k, u)] = fit(self.h, es)

    def plot(self, path=None, ax=None, dpi=100):
        """Error against h = 1/N on log-log axes, one line per (order, unknown) with markers, a
        dashed line of the fitted slope under it, the fitted rate in the legend ("u, k=3: rate
        4.02", as `hdgc convergence --plot`); saved as a picture when path is given. Returns
        the axes. Needs matplotlib."""
        from .plot import _pyplot
        plt = _pyplot()
        fig = None
        if ax is None:
            fig, ax = plt.subplots(figsize=(8, 5.5))
        markers = "osv^D<>ph*"
        for i, k in enumerate(self.orders):
            for j, u in enumerate(self.unknowns):
                pts = [(h, self.errors.get((k, N, u), math.nan)) for N, h in zip(self.meshes, self.h)]
                pts = [(h, e) for h, e in pts if e > 0 and math.isfinite(e)]
                if not pts:
                    continue
                rate = self.fits[(k, u)][0]
                label = f"{u}, k={k}" + (f": rate {rate:.2f}" if math.isfinite(rate) else "")
                line, = ax.loglog([h for h, _ in pts], [e for _, e in pts], marker=markers[j % len(markers)],
                                  color=f"C{i % 10}", label=label)
                if math.isfinite(rate) and len(pts) >= 2:   # the fitted slope through the points' centre
                    lh = sum(math.log(h) for h, _ in pts) / len(pts)
                    le = sum(math.log(e) for _, e in pts) / len(pts)
                    hs = [pts[0][0], pts[-1][0]]
                    ax.loglog(hs, [math.exp(le + rate * (math.log(h) - lh)) for h in hs], "--",
                              color=line.get_color(), linewidth=0.8, alpha=0.6)
        ax.set_xlabel("h (longest edge)" if self.specs else "h = 1/N")
        ax.set_ylabel("L2 error")
        ax.set_title(f"{self.name}: L2 error against h")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
        if path is not None:
            ax.figure.savefig(path, dpi=dpi, bbox_inches="tight")
            if fig is not None:
                plt.close(fig)
        return ax

    def __str__(self):
        lines, w = [], 9 if self.specs else 6
        for k in self.orders:
            lines.append(f"{self.name}, order {k}")
            lines.append(f"  {'h' if self.specs else 'N':>{w}}" + "".join(f"  {u:>12} {'rate':>5}" for u in self.unknowns))
            for N, h in zip(self.meshes, self.h):
                row = f"  {h:9.3e}" if self.specs else f"  {N:6d}"
                for u in self.unknowns:
                    r = self.rates.get((k, N, u))
                    row += f"  {self.errors.get((k, N, u), math.nan):12.4e} " + (f"{r:5.2f}" if r is not None else f"{'-':>5}")
                lines.append(row)
            lines.append(f"  {'fit':>{w}}" + "".join(
                f"  {'':12} " + (f"{self.fits[(k, u)][0]:5.2f}" if math.isfinite(self.fits[(k, u)][0]) else f"{'-':>5}")
                for u in self.unknowns))
        return "\n".join(lines)


    def _repr_html_(self):
        """Jupyter: one table per order, the error and rate of every unknown per mesh and the
        fitted rate, as str() prints them."""
        def num(v, fmt):
            return format(v, fmt) if v is not None and math.isfinite(v) else "-"
        out = [f"<p><b>{html.escape(self.name)}</b>: L2 errors and rates</p>"]
        for k in self.orders:
            head = "".join(f"<th>{html.escape(u)}</th><th>rate</th>" for u in self.unknowns)
            rows = []
            for N in self.meshes:
                cells = "".join(f"<td>{num(self.errors.get((k, N, u)), '.4e')}</td>"
                                f"<td>{num(self.rates.get((k, N, u)), '.2f')}</td>" for u in self.unknowns)
                rows.append(f"<tr><td>{N}</td>{cells}</tr>")
            fits = "".join(f"<td></td><td><b>{num(self.fits[(k, u)][0], '.2f')}</b></td>" for u in self.unknowns)
            rows.append(f"<tr><td>fit</td>{fits}</tr>")
            out.append(f"<table><caption>order {k}</caption><tr><th>N</th>{head}</tr>{''.join(rows)}</table>")
        return "\n".join(out)


def convergence(problem, orders=(1, 2, 3), meshes=(4, 8, 16), mesh_options=None, **options):
    """Solves problem (an hdgc.Problem, a path) for every order on every mesh, as `hdgc
    convergence --orders ... --meshes ...`: meshes are N (square:N, ",mesh_options" appended,
    h = 1/N) or mesh specs ("square:8,perturb=0.2", a .msh path; h = the longest edge, each
    loaded once before the runs); options set as Problem.set does. A failed run is recorded
    (status "failed", its error) and the others go on. Returns a Convergence. A Problem given
    is left with the last run's order and mesh. What the command refuses (an order or N that is
    not a positive integer, mesh_options with specs, a spec that does not load) raises hdgc.Error
    before any run."""
    orders = _orders(orders)
    cols = _columns(meshes, mesh_options)
    p = problem if isinstance(problem, Problem) else Problem(problem)
    p.set(**options)
    conv = Convergence(p.name, orders, [c[0] for c in cols], [c[2] for c in cols])
    for k in orders:
        for N, mesh, _ in cols:
            try:
                conv._add(k, N, mesh, p.solve(order=k, mesh=mesh), None)
            except Error as e:
                if e.result is None:   # no run at all: a bad setting, not a failed run
                    raise
                conv._add(k, N, mesh, e.result, e)
    conv._rates()
    return conv
