#!/usr/bin/python3
"""Peer benchmark: hdgc (HDG, u* post-processed) against DOLFINx (CG P_k + BoomerAMG).

Both codes solve -lap u = f on the unit square with u = exp(x) cos(2y) + x^2 y (no Laplace
eigenfunction), Dirichlet data on the whole boundary, on the same structured mesh
(square:N = N x N cells, each cut by the diagonal from (x_i, y_j) to (x_i+1, y_j+1): DOLFINx's
DiagonalType.right). The two codes alternate in one run, one core each (HDG_THREADS=1,
OMP_NUM_THREADS=1, DOLFINx serial without mpirun), every case in a fresh process.

Times (the minimum over --repeat runs):
  hdgc     the report's timings, total minus parse, mesh, lower, compile and errors: geometry,
           local, assembly, Dirichlet, solve, recovery and post-processing (the kernel cache is
           warmed first, so compile is a cache load anyway and is excluded); with --solver
           petsc also minus solver.petsc_init_seconds (loading and initialising PETSc, once per
           process, like DOLFINx's import of petsc4py).
  DOLFINx  assembly (matrix, vector, lifting, bc) + solve (KSP set-up incl. BoomerAMG set-up,
           and the solve); the form JIT, mesh and function space set-up are excluded.
Errors: hdgc's L2 errors of u* (post-processed, P_{k+1}) and u (P_k); DOLFINx's L2 error of the
P_k solution against the exact expression (UFL, quadrature degree 2k+6).

DOLFINx comes from Debian (apt-get install python3-dolfinx, DOLFINx 0.5), run by
/usr/bin/python3 (--python). `--help` needs neither DOLFINx nor hdgc.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THRESHOLDS = (1e-6, 1e-8, 1e-10)


def dolfinx_worker(n, k, rtol, maxit):
    """One DOLFINx solve on square:n at degree k; prints one JSON line (run in a child)."""
    import numpy as np
    import ufl
    from mpi4py import MPI
    from petsc4py import PETSc
    from dolfinx import fem, mesh
    from dolfinx.fem.petsc import apply_lifting, assemble_matrix, assemble_vector, set_bc

    comm = MPI.COMM_WORLD
    t0 = time.perf_counter()
    msh = mesh.create_unit_square(comm, n, n, mesh.CellType.triangle,
                                  diagonal=mesh.DiagonalType.right)
    V = fem.FunctionSpace(msh, ("Lagrange", k))
    x = ufl.SpatialCoordinate(msh)
    uex = ufl.exp(x[0]) * ufl.cos(2 * x[1]) + x[0] ** 2 * x[1]
    f = -ufl.div(ufl.grad(uex))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    a = fem.form(ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx)
    L = fem.form(f * v * ufl.dx)  # UFL's estimated quadrature degree
    ubc = fem.Function(V)
    ubc.interpolate(lambda X: np.exp(X[0]) * np.cos(2 * X[1]) + X[0] ** 2 * X[1])
    tdim = msh.topology.dim
    msh.topology.create_connectivity(tdim - 1, tdim)
    facets = mesh.exterior_facet_indices(msh.topology)
    bc = fem.dirichletbc(ubc, fem.locate_dofs_topological(V, tdim - 1, facets))
    uh = fem.Function(V)
    err = fem.form((uh - uex) ** 2 * ufl.dx(metadata={"quadrature_degree": 2 * k + 6}))
    t1 = time.perf_counter()

    A = assemble_matrix(a, bcs=[bc])
    A.assemble()
    b = assemble_vector(L)
    apply_lifting(b, [a], bcs=[[bc]])
    b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
    set_bc(b, [bc])
    t2 = time.perf_counter()

    ksp = PETSc.KSP().create(comm)
    ksp.setOperators(A)
    ksp.setType("cg")
    pc = ksp.getPC()
    pc.setType("hypre")
    pc.setHYPREType("boomeramg")
    ksp.setTolerances(rtol=rtol, atol=0.0, max_it=maxit)
    ksp.setUp()
    t3 = time.perf_counter()
    ksp.solve(b, uh.vector)
    uh.x.scatter_forward()
    t4 = time.perf_counter()

    l2 = float(np.sqrt(abs(comm.allreduce(fem.assemble_scalar(err), op=MPI.SUM))))
    out = {"code": "dolfinx", "n": n, "k": k, "dofs": V.dofmap.index_map.size_global,
           "iterations": ksp.getIterationNumber(), "reason": int(ksp.getConvergedReason()),
           "rtol": rtol, "error": l2,
           "timings": {"setup": t1 - t0, "assemble": t2 - t1, "pc_setup": t3 - t2,
                       "solve": t4 - t3},
           "time": t4 - t1}
    print(json.dumps(out))


def one_core_env(cache):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "HDG_THREADS"):
        env[var] = "1"
    env.setdefault("HDGC_CACHE_DIR", cache)
    return env


def run_dolfinx(args, n, k, env):
    cmd = [args.python, os.path.abspath(__file__), "--worker", str(n), str(k),
           "--dolfinx-rtol", repr(args.dolfinx_rtol)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if p.returncode != 0:
        raise RuntimeError("DOLFINx square:%d k=%d failed:\n%s" % (n, k, p.stderr[-2000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_hdgc(args, n, k, env, report):
    cmd = [args.hdgc, "run", args.problem, "--mesh", "square:%d" % n, "--order", str(k),
           "--json", report, "--quiet"] + shlex.split(args.hdgc_args)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    wall = time.perf_counter() - t0
    try:
        with open(report) as fh:
            rep = json.load(fh)
    except (OSError, ValueError):
        rep = {}
    if p.returncode != 0 or rep.get("status") != "ok":
        raise RuntimeError("hdgc square:%d k=%d failed (%d):\n%s%s"
                           % (n, k, p.returncode, p.stdout[-1000:], p.stderr[-2000:]))
    t = rep["timings"]
    sol = rep.get("solver", {})
    init = sol.get("petsc_init_seconds", 0.0)  # one-time, like DOLFINx's import of PETSc
    excl = init + sum(t.get(s, 0.0) for s in ("parse", "mesh", "lower", "compile", "errors"))
    return {"code": "hdgc", "n": n, "k": k, "dofs": rep["dofs"]["trace"],
            "iterations": sol.get("iterations"), "rtol": sol.get("rtol"),
            "solver": sol.get("method"), "precond": sol.get("precond"),
            "error": rep["errors"].get("ustar"), "error_u": rep["errors"].get("u"),
            "timings": t, "petsc_init": init, "time": t["total"] - excl, "wall": wall}


def best_of(runs):
    """The fastest run (its time and stage times); every run's time in "times"."""
    out = dict(min(runs, key=lambda r: r["time"]))
    out["times"] = [r["time"] for r in runs]
    out["runs"] = [dict((key, r[key]) for key in ("time", "timings", "wall", "petsc_init")
                        if key in r) for r in runs]
    return out


def measure(args, env, report):
    rows = []
    for n in args.n:
        for k in args.k:
            h_runs, d_runs = [], []
            for r in range(args.repeat):
                order = ("hdgc", "dolfinx") if r % 2 == 0 else ("dolfinx", "hdgc")
                for code in order:
                    if code == "hdgc" and not args.no_hdgc:
                        h_runs.append(run_hdgc(args, n, k, env, report))
                    if code == "dolfinx" and not args.no_dolfinx:
                        d_runs.append(run_dolfinx(args, n, k, env))
            row = {"n": n, "k": k,
                   "hdgc": best_of(h_runs) if h_runs else None,
                   "dolfinx": best_of(d_runs) if d_runs else None}
            rows.append(row)
            print_row(row, file=sys.stderr)
    return rows


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def print_row(row, file):
    h, d = row["hdgc"] or {}, row["dolfinx"] or {}
    print("  square:%d k=%d  hdgc %s s %s its u* %s | dolfinx %s s %s its u %s"
          % (row["n"], row["k"], fmt(h.get("time"), ".3f"), fmt(h.get("iterations"), "d"),
             fmt(h.get("error"), ".2e"), fmt(d.get("time"), ".3f"),
             fmt(d.get("iterations"), "d"), fmt(d.get("error"), ".2e")), file=file)


def main_table(rows):
    lines = ["| mesh | k | hdgc trace dofs | hdgc time (s) | hdgc its | hdgc L2 u* | hdgc L2 u "
             "| DOLFINx dofs | DOLFINx time (s) | DOLFINx its | DOLFINx L2 u | time ratio hdgc/DOLFINx |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        h, d = row["hdgc"] or {}, row["dolfinx"] or {}
        ratio = (h["time"] / d["time"]) if h and d and d["time"] > 0 else None
        lines.append("| square:%d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["n"], row["k"], fmt(h.get("dofs"), "d"), fmt(h.get("time"), ".3f"),
            fmt(h.get("iterations"), "d"), fmt(h.get("error"), ".2e"),
            fmt(h.get("error_u"), ".2e"), fmt(d.get("dofs"), "d"), fmt(d.get("time"), ".3f"),
            fmt(d.get("iterations"), "d"), fmt(d.get("error"), ".2e"), fmt(ratio, ".2f")))
    return "\n".join(lines)


def cheapest(rows, code, thr):
    """The fastest measured (mesh, k) of a code whose L2 error is at most thr."""
    best = None
    for row in rows:
        r = row[code]
        if r and r["error"] is not None and r["error"] <= thr:
            if best is None or r["time"] < best["time"]:
                best = r
    return best


def accuracy_table(rows):
    lines = ["| L2 error <= | hdgc (u*): cheapest mesh, k | time (s) | error "
             "| DOLFINx (u): cheapest mesh, k | time (s) | error | time ratio hdgc/DOLFINx |",
             "|---|---|---|---|---|---|---|---|"]
    for thr in THRESHOLDS:
        cells = []
        for code in ("hdgc", "dolfinx"):
            b = cheapest(rows, code, thr)
            cells.append(("square:%d, k=%d" % (b["n"], b["k"]), "%.3f" % b["time"],
                          "%.2e" % b["error"]) if b else ("not reached", "-", "-"))
        h, d = cheapest(rows, "hdgc", thr), cheapest(rows, "dolfinx", thr)
        ratio = "%.2f" % (h["time"] / d["time"]) if h and d and d["time"] > 0 else "-"
        lines.append("| %.0e | %s | %s | %s | %s | %s | %s | %s |"
                     % ((thr,) + cells[0] + cells[1] + (ratio,)))
    return "\n".join(lines)


def warm(args, env, report):
    """Fill hdgc's kernel cache and DOLFINx's JIT cache for every degree (not timed)."""
    for k in args.k:
        if not args.no_hdgc:
            run_hdgc(args, 4, k, env, report)
        if not args.no_dolfinx:
            run_dolfinx(args, 4, k, env)


def int_list(s):
    return [int(v) for v in s.split(",") if v]


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Example: bench/peer_dolfinx.py --k 1,2,3,4 --n 64,128,256 --repeat 2 "
               "--hdgc-args '--rtol 1e-12' --json peer.json")
    p.add_argument("--k", type=int_list, default=[1, 2, 3, 4], help="degrees (default 1,2,3,4)")
    p.add_argument("--n", type=int_list, default=[64, 128, 256, 512],
                   help="meshes square:N (default 64,128,256,512)")
    p.add_argument("--hdgc", default=os.path.join(ROOT, "build", "hdgc"),
                   help="hdgc binary (default build/hdgc)")
    p.add_argument("--problem", default=os.path.join(ROOT, "tests", "data", "hdg",
                                                     "poisson_exp.hdg"),
                   help="hdgc problem file (default tests/data/hdg/poisson_exp.hdg)")
    p.add_argument("--hdgc-args", default="",
                   help='extra hdgc run options, e.g. "--solver petsc --petsc \'-pc_type hypre\'"')
    p.add_argument("--dolfinx-rtol", type=float, default=1e-12,
                   help="DOLFINx KSP relative tolerance (preconditioned norm; default 1e-12)")
    p.add_argument("--dolfinx-maxit", type=int, default=10000)
    p.add_argument("--python", default="/usr/bin/python3",
                   help="Python that imports dolfinx (default /usr/bin/python3, Debian's)")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs per case, alternating which code goes first; the minimum time")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--no-hdgc", action="store_true", help="DOLFINx only")
    p.add_argument("--no-dolfinx", action="store_true", help="hdgc only")
    p.add_argument("--tables-from", nargs="+", metavar="FILE",
                   help="run nothing: print the tables of earlier --json files (rows merged)")
    p.add_argument("--worker", nargs=2, type=int, metavar=("N", "K"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    if args.worker:
        dolfinx_worker(args.worker[0], args.worker[1], args.dolfinx_rtol, args.dolfinx_maxit)
        return 0
    if args.tables_from:
        rows = []
        for name in args.tables_from:
            with open(name) as fh:
                rows += json.load(fh)["rows"]
        print(main_table(rows))
        print()
        print(accuracy_table(rows))
        return 0
    env = one_core_env("/tmp/hdgc-peer-cache")
    report = "/tmp/peer_dolfinx.%d.json" % os.getpid()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    warm(args, env, report)
    rows = measure(args, env, report)
    print("Peer benchmark, %s; hdgc %s %s; DOLFINx CG + BoomerAMG rtol %g; one core each"
          % (started, os.path.relpath(args.hdgc), args.hdgc_args or "(defaults)",
             args.dolfinx_rtol))
    print()
    print(main_table(rows))
    print()
    print(accuracy_table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"date": started, "argv": argv, "hdgc_args": args.hdgc_args,
                       "dolfinx_rtol": args.dolfinx_rtol, "rows": rows}, fh, indent=1)
    if os.path.exists(report):
        os.remove(report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
