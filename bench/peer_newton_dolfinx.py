#!/usr/bin/python3
"""Peer run for Newton (issue 41): examples/nonlinear_diffusion.hdg, -div((1 + u^2) grad u) = f
on the unit square, u = e^x sin(pi y) + x y, Dirichlet data everywhere, from u = 0, by hdgc
(HDG, Newton with the condensed Jacobian, u* post-processed) and by DOLFINx (CG P_k, SNES-like
dolfinx.nls NewtonSolver, the Jacobian by UFL's derivative, KSP GMRES + BoomerAMG: the
Jacobian is not symmetric) on the same structured mesh (square:N, DiagonalType.right).

    /usr/bin/python3 bench/peer_newton_dolfinx.py [--hdgc build/hdgc] [--n 16,32,64] [--k 1,2]

Prints per case: Newton steps, the seconds of the Newton loop (hdgc: newton.seconds, the
element kernels, assembly, solves and residuals; DOLFINx: NewtonSolver.solve, assembly and
KSP included, form JIT excluded) and the L2 errors (hdgc: u and u*; DOLFINx: u_h). One core
each (HDG_THREADS=1, OMP_NUM_THREADS=1), DOLFINx serial. A case runs in a fresh process.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "nonlinear_diffusion.hdg")


def dolfinx_worker(n, k):
    import numpy as np
    import ufl
    from mpi4py import MPI
    from petsc4py import PETSc
    from dolfinx import fem, mesh, nls
    from dolfinx.fem.petsc import NonlinearProblem

    comm = MPI.COMM_WORLD
    msh = mesh.create_unit_square(comm, n, n, mesh.CellType.triangle, diagonal=mesh.DiagonalType.right)
    V = fem.FunctionSpace(msh, ("Lagrange", k))
    x = ufl.SpatialCoordinate(msh)
    uex = ufl.exp(x[0]) * ufl.sin(ufl.pi * x[1]) + x[0] * x[1]
    kappa = lambda w: 1 + w ** 2
    f = -ufl.div(kappa(uex) * ufl.grad(uex))
    u, v = fem.Function(V), ufl.TestFunction(V)
    F = ufl.inner(kappa(u) * ufl.grad(u), ufl.grad(v)) * ufl.dx - f * v * ufl.dx
    ubc = fem.Function(V)
    ubc.interpolate(lambda X: np.exp(X[0]) * np.sin(np.pi * X[1]) + X[0] * X[1])
    tdim = msh.topology.dim
    msh.topology.create_connectivity(tdim - 1, tdim)
    bc = fem.dirichletbc(ubc, fem.locate_dofs_topological(V, tdim - 1, mesh.exterior_facet_indices(msh.topology)))
    problem = NonlinearProblem(F, u, bcs=[bc])   # the Jacobian: ufl.derivative(F, u)
    solver = nls.petsc.NewtonSolver(comm, problem)
    solver.convergence_criterion = "residual"
    solver.rtol, solver.atol, solver.max_it = 1e-10, 1e-13, 50
    ksp = solver.krylov_solver
    ksp.setType("gmres")
    ksp.getPC().setType("hypre")
    ksp.getPC().setHYPREType("boomeramg")
    ksp.setTolerances(rtol=1e-12, atol=0.0, max_it=1000)
    u.x.array[:] = 0.0                           # from u = 0 (the Dirichlet data set by the solver)
    t0 = time.perf_counter()
    steps, converged = solver.solve(u)
    t1 = time.perf_counter()
    err = fem.form((u - uex) ** 2 * ufl.dx(metadata={"quadrature_degree": 2 * k + 6}))
    l2 = float(np.sqrt(abs(comm.allreduce(fem.assemble_scalar(err), op=MPI.SUM))))
    print(json.dumps({"code": "dolfinx", "n": n, "k": k, "dofs": V.dofmap.index_map.size_global,
                      "steps": int(steps), "converged": bool(converged), "seconds": t1 - t0, "error_u": l2}))


def env1():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "HDG_THREADS"):
        env[var] = "1"
    return env


def run_hdgc(hdgc, n, k, report):
    cmd = [hdgc, "run", EXAMPLE, "--mesh", "square:%d" % n, "--order", str(k), "--json", report, "--quiet"]
    p = subprocess.run(cmd, env=env1(), capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise RuntimeError("hdgc failed: %s" % p.stderr[-1000:])
    rep = json.load(open(report))
    nw = rep["newton"]
    return {"code": "hdgc", "n": n, "k": k, "dofs": rep["dofs"]["trace"], "steps": nw["steps"],
            "converged": nw["converged"], "seconds": nw["seconds"], "error_u": rep["errors"]["u"],
            "error_ustar": rep["errors"]["ustar"]}


def run_dolfinx(python, n, k):
    p = subprocess.run([python, os.path.abspath(__file__), "--worker", str(n), str(k)], env=env1(),
                       capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise RuntimeError("DOLFINx failed: %s" % p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hdgc", default=os.path.join(HERE, "..", "build", "hdgc"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--n", default="16,32,64")
    ap.add_argument("--k", default="1,2")
    ap.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        dolfinx_worker(*a.worker)
        return 0
    subprocess.run([a.hdgc, "run", EXAMPLE, "--mesh", "square:2", "--quiet"], env=env1())   # warm the kernel cache
    print("%-8s %2s %5s %9s %6s %9s %11s %11s" % ("code", "k", "N", "dofs", "steps", "seconds", "L2 err u", "L2 err u*"))
    for k in [int(s) for s in a.k.split(",")]:
        for n in [int(s) for s in a.n.split(",")]:
            for r in (run_hdgc(a.hdgc, n, k, "/tmp/peer_newton_%d.json" % os.getpid()), run_dolfinx(a.python, n, k)):
                print("%-8s %2d %5d %9d %6d %9.4f %11.3e %11s" % (r["code"], k, n, r["dofs"], r["steps"], r["seconds"],
                      r["error_u"], "%.3e" % r["error_ustar"] if "error_ustar" in r else "-"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
