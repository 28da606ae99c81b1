"""hdgc.convergence: the runs of `hdgc convergence` (every order on every square:N), their L2
errors, the observed rates log(e_coarse/e_fine) / log(N_fine/N_coarse) and the fitted rates
(least squares of log e against log h, h = 1/N), the same numbers the command prints."""
import math

from .error import Error
from .problem import Problem


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
    """.runs (dicts: order, N, mesh, status, errors, iterations, error), .errors[(order, N, unknown)],
    .rates[(order, N, unknown)] (from the previous mesh to N), .fits[(order, unknown)] = (rate, points),
    .unknowns, .orders, .meshes, .ok (every run succeeded); str() is the table."""

    def __init__(self, name, orders, meshes):
        self.name, self.orders, self.meshes = name, list(orders), list(meshes)
        self.runs, self.unknowns, self.errors, self.rates, self.fits = [], [], {}, {}, {}

    @property
    def ok(self):
        return all(r["status"] == "ok" for r in self.runs)

    def _add(self, order, N, mesh, result, error):
        errs = dict(result.errors) if result is not None else {}
        run = {"status": "failed" if error else "ok", "order": order, "N": N, "mesh": mesh, "errors": errs}
        if error:
            run["error"] = error.message
        if result is not None and "iterations" in result.report.get("solver", {}):
            run["iterations"] = result.report["solver"]["iterations"]
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
                    if es[m] > 0 and es[m - 1] > 0:
                        self.rates[(k, self.meshes[m], u)] = \
                            math.log(es[m - 1] / es[m]) / math.log(self.meshes[m] / self.meshes[m - 1])
                self.fits[(k, u)] = fit([1.0 / N for N in self.meshes], es)

    def __str__(self):
        lines = []
        for k in self.orders:
            lines.append(f"{self.name}, order {k}")
            lines.append(f"  {'N':>6}" + "".join(f"  {u:>12} {'rate':>5}" for u in self.unknowns))
            for N in self.meshes:
                row = f"  {N:6d}"
                for u in self.unknowns:
                    r = self.rates.get((k, N, u))
                    row += f"  {self.errors.get((k, N, u), math.nan):12.4e} " + (f"{r:5.2f}" if r is not None else f"{'-':>5}")
                lines.append(row)
            lines.append(f"  {'fit':>6}" + "".join(
                f"  {'':12} " + (f"{self.fits[(k, u)][0]:5.2f}" if math.isfinite(self.fits[(k, u)][0]) else f"{'-':>5}")
                for u in self.unknowns))
        return "\n".join(lines)


def convergence(problem, orders=(1, 2, 3), meshes=(4, 8, 16), mesh_options=None, **options):
    """Solves problem (an hdgc.Problem, a path) for every order on square:N for N in meshes
    (",mesh_options" appended to each spec), options set as Problem.set does. A failed run is
    recorded (status "failed", its error) and the others go on. Returns a Convergence.
    A Problem given is left with the last run's order and mesh."""
    p = problem if isinstance(problem, Problem) else Problem(problem)
    p.set(**options)
    conv = Convergence(p.name, orders, meshes)
    for k in orders:
        for N in meshes:
            mesh = f"square:{N}" + (f",{mesh_options}" if mesh_options else "")
            try:
                conv._add(k, N, mesh, p.solve(order=k, mesh=mesh), None)
            except Error as e:
                if e.result is None:   # no run at all: a bad setting, not a failed run
                    raise
                conv._add(k, N, mesh, e.result, e)
    conv._rates()
    return conv
