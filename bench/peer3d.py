#!/usr/bin/python3
"""Peer benchmark in 2D or 3D: hdgc's HDG against NGSolve's HDG and DOLFINx's CG.

The three codes solve -lap u = f with Dirichlet data on the whole boundary of the unit square
(--dim 2) or cube (--dim 3), u = exp(x) cos(2y) + x^2 y z^dim-2 (not a Laplace
eigenfunction), on the same structured simplex mesh: N^dim cells cut into 2 triangles or
6 tetrahedra (hdgc square:N / cube:N, NGSolve meshes.MakeStructured2DMesh /
MakeStructured3DMesh(hexes=False), DOLFINx create_unit_square / create_unit_cube):

  hdgc     examples/poisson3d.hdg (tests/data/hdg/poisson_exp.hdg in 2D): HDG P_k, u*
           post-processed in P_k+1; `hdgc run --mesh cube:N --order k` plus --hdgc-args.
  NGSolve  its HDG (the interior-penalty HDG of its tutorials, L2 x FacetFESpace of order
           k, penalty 4 (k+1)(k+dim)/dim / h, condense=True, BDDC preconditioner, CG to
           --rtol), then the local solve.
  DOLFINx  CG P_k, KSP CG + BoomerAMG to --rtol.

Each case runs in a fresh process on one core (HDG_THREADS=1, OMP_NUM_THREADS=1, no mpirun);
the order of the three codes rotates from one repeat to the next and the fastest of --repeat
runs is kept. Timed: hdgc's report total minus parse, mesh, lower, compile and errors (the
kernel cache is warmed first); NGSolve's assembly (with the BDDC set-up) + solve + local
recovery; DOLFINx's assembly + KSP set-up + solve. Mesh, space and form compilation are not
timed for any of them. Errors: L2 of hdgc's u* and u, of NGSolve's u (element part) and of
DOLFINx's u_h, each against the exact solution at quadrature degree 2k + 6.

Tables: every run; the cheapest run of each code reaching L2 error 1e-4, 1e-6, 1e-8; and the
time to reach them interpolated (log-log) between the two meshes of a degree that bracket the
threshold, the smallest over k, which depends less on which N were run.

NGSolve is a benchmark peer only: `python3 -m venv V && V/bin/pip install ngsolve`, passed as
--ngsolve-python V/bin/python. DOLFINx: Debian's python3-dolfinx (--dolfinx-python).
`--help` needs none of them.
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THRESHOLDS = (1e-4, 1e-6, 1e-8)
CODES = ("hdgc", "ngsolve", "dolfinx")


def exact_np(X, dim):
    import numpy as np
    zz = X[2] if dim == 3 else 1.0
    return np.exp(X[0]) * np.cos(2 * X[1]) + X[0] ** 2 * X[1] * zz


def exact_expr(x, y, z, dim, exp, cos):
    return exp(x) * cos(2 * y) + x ** 2 * y * (z if dim == 3 else 1)


def ngsolve_worker(dim, n, k, rtol):
    """NGSolve's HDG (condensed, BDDC); prints one JSON line."""
    import ngsolve as ng
    from ngsolve import meshes, solvers
    ng.SetNumThreads(1)
    t0 = time.perf_counter()
    if dim == 3:
        mesh = meshes.MakeStructured3DMesh(hexes=False, nx=n, ny=n, nz=n)
    else:
        mesh = meshes.MakeStructured2DMesh(quads=False, nx=n, ny=n)
    x, y, z = ng.x, ng.y, ng.z
    uex = exact_expr(x, y, z, dim, ng.exp, ng.cos)
    f = -(uex.Diff(x).Diff(x) + uex.Diff(y).Diff(y) + (uex.Diff(z).Diff(z) if dim == 3 else 0))
    V = ng.L2(mesh, order=k)
    F = ng.FacetFESpace(mesh, order=k, dirichlet=".*")
    fes = V * F
    (u, uh), (v, vh) = fes.TnT()
    nrm = ng.specialcf.normal(dim)
    h = ng.specialcf.mesh_size
    dS = ng.dx(element_boundary=True)
    pen = 4 * (k + 1) * (k + dim) / dim   # the trace inverse constant (alpha k^2 with alpha = 4,
    a = ng.BilinearForm(fes, condense=True)   # its tutorials' 2D value, diverges at k = 1 on cube:4)
    a += ng.grad(u) * ng.grad(v) * ng.dx
    a += (pen / h * (u - uh) * (v - vh) - ng.grad(u) * nrm * (v - vh)
          - ng.grad(v) * nrm * (u - uh)) * dS
    lf = ng.LinearForm(f * v * ng.dx(bonus_intorder=k + 2))
    gfu = ng.GridFunction(fes)
    pre = ng.Preconditioner(a, "bddc")
    t1 = time.perf_counter()
    a.Assemble()
    lf.Assemble()
    gfu.components[1].Set(uex, ng.BND)
    t2 = time.perf_counter()
    r = lf.vec.CreateVector()
    r.data = lf.vec - a.mat * gfu.vec
    r.data += a.harmonic_extension_trans * r
    inv = solvers.CGSolver(a.mat, pre.mat, tol=rtol, maxiter=10000)
    gfu.vec.data += inv * r
    gfu.vec.data += a.harmonic_extension * gfu.vec
    gfu.vec.data += a.inner_solve * r
    t3 = time.perf_counter()
    err = ng.sqrt(ng.Integrate((gfu.components[0] - uex) ** 2, mesh, order=2 * k + 6))
    out = {"code": "ngsolve", "n": n, "k": k, "dofs": sum(fes.FreeDofs(True)),
           "iterations": inv.iterations, "rtol": rtol, "error": float(err),
           "timings": {"setup": t1 - t0, "assemble": t2 - t1, "solve": t3 - t2},
           "time": t3 - t1}
    print(json.dumps(out))


def dolfinx_worker(dim, n, k, rtol):
    """DOLFINx CG P_k + BoomerAMG; prints one JSON line."""
    import numpy as np
    import ufl
    from mpi4py import MPI
    from petsc4py import PETSc
    from dolfinx import fem, mesh
    from dolfinx.fem.petsc import apply_lifting, assemble_matrix, assemble_vector, set_bc

    comm = MPI.COMM_WORLD
    t0 = time.perf_counter()
    if dim == 3:
        msh = mesh.create_unit_cube(comm, n, n, n, mesh.CellType.tetrahedron)
    else:
        msh = mesh.create_unit_square(comm, n, n, mesh.CellType.triangle,
                                      diagonal=mesh.DiagonalType.right)
    V = fem.FunctionSpace(msh, ("Lagrange", k))
    X = ufl.SpatialCoordinate(msh)
    uex = exact_expr(X[0], X[1], X[2] if dim == 3 else None, dim, ufl.exp, ufl.cos)
    f = -ufl.div(ufl.grad(uex))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    a = fem.form(ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx)
    L = fem.form(f * v * ufl.dx)
    ubc = fem.Function(V)
    ubc.interpolate(lambda P: exact_np(P, dim))
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
    ksp.setTolerances(rtol=rtol, atol=0.0, max_it=10000)
    ksp.setUp()
    ksp.solve(b, uh.vector)
    uh.x.scatter_forward()
    t3 = time.perf_counter()
    l2 = float(np.sqrt(abs(comm.allreduce(fem.assemble_scalar(err), op=MPI.SUM))))
    out = {"code": "dolfinx", "n": n, "k": k, "dofs": V.dofmap.index_map.size_global,
           "iterations": ksp.getIterationNumber(), "rtol": rtol, "error": l2,
           "timings": {"setup": t1 - t0, "assemble": t2 - t1, "solve": t3 - t2},
           "time": t3 - t1}
    print(json.dumps(out))


def one_core_env(cache):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "HDG_THREADS"):
        env[var] = "1"
    env.setdefault("HDGC_CACHE_DIR", cache)
    # DOLFINx's MPI singleton as hdgc's: no orted to start (which failed under load)
    env.setdefault("OMPI_MCA_ess_singleton_isolated", "1")
    env.setdefault("OMPI_MCA_pml", "ob1")
    return env


def run_worker(args, code, n, k, env):
    python = args.ngsolve_python if code == "ngsolve" else args.dolfinx_python
    cmd = [python, os.path.abspath(__file__), "--worker", code, str(args.dim), str(n), str(k),
           "--rtol", repr(args.rtol)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if p.returncode != 0:
        raise RuntimeError("%s N=%d k=%d failed:\n%s" % (code, n, k, p.stderr[-2000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def mesh_spec(dim, n):
    return ("cube:%d" if dim == 3 else "square:%d") % n


def run_hdgc(args, n, k, env, report):
    cmd = [args.hdgc, "run", args.problem, "--mesh", mesh_spec(args.dim, n), "--order", str(k),
           "--json", report, "--quiet"] + shlex.split(args.hdgc_args)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    try:
        with open(report) as fh:
            rep = json.load(fh)
    except (OSError, ValueError):
        rep = {}
    if p.returncode != 0 or rep.get("status") != "ok":
        raise RuntimeError("hdgc %s k=%d failed (%d):\n%s%s" % (
            mesh_spec(args.dim, n), k, p.returncode, p.stdout[-1000:], p.stderr[-2000:]))
    t = rep["timings"]
    sol = rep.get("solver", {})
    excl = sol.get("petsc_init_seconds", 0.0)
    excl += sum(t.get(s, 0.0) for s in ("parse", "mesh", "lower", "compile", "errors"))
    return {"code": "hdgc", "n": n, "k": k, "dofs": rep["dofs"]["trace"],
            "iterations": sol.get("iterations"), "rtol": sol.get("rtol"),
            "error": rep["errors"].get("ustar"), "error_u": rep["errors"].get("u"),
            "timings": t, "time": t["total"] - excl}


def run_one(args, code, n, k, env, report):
    return run_hdgc(args, n, k, env, report) if code == "hdgc" else run_worker(args, code, n, k, env)


def save(args, started, rows):
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"date": started, "argv": args.argv, "dim": args.dim, "rows": rows}, fh, indent=1)


def measure(args, env, report, started):
    rows = []
    for n in args.n:
        for k in args.k:
            runs = {c: [] for c in args.codes}
            for r in range(args.repeat):
                order = args.codes[r % len(args.codes):] + args.codes[:r % len(args.codes)]
                for code in order:
                    runs[code].append(run_one(args, code, n, k, env, report))
            row = {"n": n, "k": k}
            for c in CODES:
                row[c] = min(runs[c], key=lambda x: x["time"]) if runs.get(c) else None
                if row[c]:
                    row[c]["times"] = [x["time"] for x in runs[c]]
            rows.append(row)
            save(args, started, rows)     # after each row: a failed run keeps the others
            print(row_line(args.dim, row), file=sys.stderr)
    return rows


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def row_line(dim, row):
    parts = ["%s k=%d" % (mesh_spec(dim, row["n"]), row["k"])]
    for c in CODES:
        r = row[c] or {}
        parts.append("%s %s s %s its err %s" % (c, fmt(r.get("time"), ".3f"),
                                                fmt(r.get("iterations"), "d"),
                                                fmt(r.get("error"), ".2e")))
    return "  " + " | ".join(parts)


def main_table(dim, rows):
    lines = ["| mesh | k | hdgc trace dofs | hdgc time (s) | hdgc its | hdgc L2 u* | hdgc L2 u "
             "| NGSolve dofs | NGSolve time (s) | NGSolve its | NGSolve L2 u "
             "| DOLFINx dofs | DOLFINx time (s) | DOLFINx its | DOLFINx L2 u |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        h, g, d = (row[c] or {} for c in CODES)
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            mesh_spec(dim, row["n"]), row["k"], fmt(h.get("dofs"), "d"), fmt(h.get("time"), ".3f"),
            fmt(h.get("iterations"), "d"), fmt(h.get("error"), ".2e"), fmt(h.get("error_u"), ".2e"),
            fmt(g.get("dofs"), "d"), fmt(g.get("time"), ".3f"), fmt(g.get("iterations"), "d"),
            fmt(g.get("error"), ".2e"), fmt(d.get("dofs"), "d"), fmt(d.get("time"), ".3f"),
            fmt(d.get("iterations"), "d"), fmt(d.get("error"), ".2e")))
    return "\n".join(lines)


def cheapest(rows, code, thr):
    best = None
    for row in rows:
        r = row[code]
        if r and r.get("error") is not None and r["error"] <= thr:
            if best is None or r["time"] < best["time"]:
                best = dict(r, n=row["n"], k=row["k"])
    return best


def interpolated(rows, code, thr):
    """Time to reach L2 error thr along each k's mesh sweep, log-log interpolated between the
    two meshes that bracket thr (so that how finely N was sampled matters less); the smallest
    over k. A k whose coarsest run is already below thr counts with that run's time (an upper
    bound, marked '<='). Returns (time, k, bound) or None."""
    best = None
    for k in sorted({row["k"] for row in rows}):
        pts = sorted((row["n"], row[code]["error"], row[code]["time"]) for row in rows
                     if row["k"] == k and row[code] and row[code].get("error") is not None)
        for i, (_, e, t) in enumerate(pts):
            if e > thr:
                continue
            if i == 0:
                cand = (t, k, True)
            else:
                e0, t0 = pts[i - 1][1], pts[i - 1][2]
                w = math.log(e0 / thr) / math.log(e0 / e) if e0 > e else 1.0
                cand = (math.exp(math.log(t0) + w * (math.log(t) - math.log(t0))), k, False)
            if best is None or cand[0] < best[0]:
                best = cand
            break
    return best


def interpolated_table(rows):
    lines = ["| L2 error | hdgc (u*) | NGSolve (u) | DOLFINx (u) | hdgc / faster peer |",
             "|---|---|---|---|---|"]
    for thr in THRESHOLDS:
        best = {c: interpolated(rows, c, thr) for c in CODES}
        cells = ["%s%.3f s (k=%d)" % ("<= " if b[2] else "", b[0], b[1]) if b else "not reached"
                 for b in (best[c] for c in CODES)]
        peers = [best[c][0] for c in ("ngsolve", "dolfinx") if best[c]]
        ratio = "%.2f" % (best["hdgc"][0] / min(peers)) if best["hdgc"] and peers else "-"
        lines.append("| %.0e | %s | %s |" % (thr, " | ".join(cells), ratio))
    return "\n".join(lines)


def range_table(dim, rows, lo=1e5, hi=2e6):
    """Each hdgc run of lo..hi trace unknowns (issue 39's range) against the time each peer
    needs for the same L2 error (interpolated as above, the smallest over k)."""
    lines = ["| hdgc run | trace dofs | hdgc time (s) | L2 u* | NGSolve to that error (s) | "
             "DOLFINx to that error (s) | hdgc / faster peer |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        h = row["hdgc"]
        if not h or h.get("error") is None or not lo <= h["dofs"] <= hi:
            continue
        best = {c: interpolated(rows, c, h["error"]) for c in ("ngsolve", "dolfinx")}
        cells = ["%s%.3f (k=%d)" % ("<= " if b[2] else "", b[0], b[1]) if b else "not reached"
                 for b in best.values()]
        peers = [b[0] for b in best.values() if b]
        ratio = "%.2f" % (h["time"] / min(peers)) if peers else "-"
        lines.append("| %s k=%d | %d | %.3f | %.2e | %s | %s |" % (
            mesh_spec(dim, row["n"]), row["k"], h["dofs"], h["time"], h["error"], " | ".join(cells), ratio))
    return "\n".join(lines)


def accuracy_table(dim, rows):
    lines = ["| L2 error <= | hdgc (u*) | NGSolve (u) | DOLFINx (u) | hdgc / faster peer |",
             "|---|---|---|---|---|"]
    for thr in THRESHOLDS:
        best = {c: cheapest(rows, c, thr) for c in CODES}
        cells = []
        for c in CODES:
            b = best[c]
            cells.append("%s k=%d: %.3f s (%.1e)" % (mesh_spec(dim, b["n"]), b["k"], b["time"],
                                                    b["error"]) if b else "not reached")
        peers = [best[c]["time"] for c in ("ngsolve", "dolfinx") if best[c]]
        ratio = "%.2f" % (best["hdgc"]["time"] / min(peers)) if best["hdgc"] and peers else "-"
        lines.append("| %.0e | %s | %s |" % (thr, " | ".join(cells), ratio))
    return "\n".join(lines)


def int_list(s):
    return [int(v) for v in s.split(",") if v]


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Example: bench/peer3d.py --dim 3 --k 1,2,3,4 --n 8,16,32 --repeat 2 "
               "--ngsolve-python /path/venv/bin/python --json peer3d.json")
    p.add_argument("--dim", type=int, choices=(2, 3), default=3, help="2 or 3 (default 3)")
    p.add_argument("--k", type=int_list, default=[1, 2, 3, 4], help="degrees (default 1,2,3,4)")
    p.add_argument("--n", type=int_list, default=[8, 16, 32],
                   help="meshes cube:N / square:N (default 8,16,32)")
    p.add_argument("--codes", default=",".join(CODES),
                   help="which codes run, comma-separated (default hdgc,ngsolve,dolfinx)")
    p.add_argument("--hdgc", default=os.path.join(ROOT, "build", "hdgc"))
    p.add_argument("--problem", help="hdgc problem file (default examples/poisson3d.hdg, "
                                     "tests/data/hdg/poisson_exp.hdg in 2D)")
    p.add_argument("--hdgc-args", default="", help="extra hdgc run options (one string)")
    p.add_argument("--rtol", type=float, default=1e-12, help="peers' CG tolerance (default 1e-12)")
    p.add_argument("--ngsolve-python", default=os.path.join(ROOT, "..", "venv-ngs", "bin", "python"))
    p.add_argument("--dolfinx-python", default="/usr/bin/python3")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--tables-from", metavar="A.json,B.json",
                   help="measure nothing: print the tables of earlier --json files, merged (a later "
                        "file's (mesh, k) rows replace an earlier's)")
    p.add_argument("--worker", nargs=4, metavar=("CODE", "DIM", "N", "K"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.codes = [c for c in args.codes.split(",") if c]
    if any(c not in CODES for c in args.codes) or args.repeat < 1:
        p.error("--codes takes hdgc, ngsolve, dolfinx; --repeat at least 1")
    if not args.problem:
        args.problem = os.path.join(ROOT, "examples", "poisson3d.hdg") if args.dim == 3 else \
            os.path.join(ROOT, "tests", "data", "hdg", "poisson_exp.hdg")
    return args


def main(argv):
    args = parse_args(argv)
    args.argv = argv
    if args.tables_from:
        merged, dim = {}, args.dim
        for path in args.tables_from.split(","):
            with open(path) as fh:
                data = json.load(fh)
            dim = data.get("dim", dim)
            for row in data["rows"]:
                merged[(row["n"], row["k"])] = row
        rows = [merged[key] for key in sorted(merged)]
        print(main_table(dim, rows))
        print()
        print(accuracy_table(dim, rows))
        print()
        print(interpolated_table(rows))
        print()
        print(range_table(dim, rows))
        return 0
    if args.worker:
        code, dim, n, k = args.worker[0], int(args.worker[1]), int(args.worker[2]), int(args.worker[3])
        (ngsolve_worker if code == "ngsolve" else dolfinx_worker)(dim, n, k, args.rtol)
        return 0
    env = one_core_env("/tmp/hdgc-peer-cache")
    report = "/tmp/peer3d.%d.json" % os.getpid()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for k in args.k:                      # warm the kernel and JIT caches (not timed)
        for code in args.codes:
            run_one(args, code, 2, k, env, report)
    rows = measure(args, env, report, started)
    print("Peer benchmark %dD, %s; hdgc %s; peers' CG rtol %g; one core each"
          % (args.dim, started, args.hdgc_args or "(defaults)", args.rtol))
    print()
    print(main_table(args.dim, rows))
    print()
    print(accuracy_table(args.dim, rows))
    print()
    print(interpolated_table(rows))
    print()
    print(range_table(args.dim, rows))
    if os.path.exists(report):
        os.remove(report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
