#!/usr/bin/env python3
"""mpi_runs.py HDGC --np 1,2,3 [--rtol R] [--its F] [--newton] [--expect-rc N --expect TEXT... [--once]]
               [--wrap CMD] -- RUN-ARGS...

Runs `HDGC run RUN-ARGS` on one process (no mpirun) and under
`mpirun -np N` for each N, every run with --json, and checks (issue 16):
  - each distributed run exits 0 and reports mpi.ranks = N;
  - its errors.* agree with the serial run's to relative R (default 1e-6);
  - its iterations (solver.iterations) are within F (default 0.10) of the np = 1
    distributed run's;
  - mpi.elements_min/max add up (elements_max >= mesh.elements / N);
  - with --newton (nonlinear HDG): newton.converged, the same newton.steps,
    newton.* keys, line-search step lengths (newton.alphas) and, in time,
    Newton steps of each time step as the serial run's, and its residual history to relative
    1e-8 wherever the serial |R_n| > 1e-6 |R_0| (below that the inner solves'
    tolerances, PETSc's against the serial solver's, set the digits).
With --expect-rc: each distributed run must exit with that code and print
every --expect TEXT (a regular expression) on stderr, within the timeout (a
hang fails); with --once, each exactly once (rank 0 speaks for the job). --wrap CMD runs `CMD HDGC ...` under mpirun (a per-rank shell
wrapper, e.g. a memory limit on one rank). --mpi-args "A|B|...": arguments given to the
distributed runs only (split at |). --backend NAME: every distributed run must report that backend."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def run(cmd, timeout=1200):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=ENV)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out (a hang?)"


def errors(rep):
    return {k: v for k, v in rep.get("errors", {}).items() if isinstance(v, (int, float))}


def newton_diff(serial, rep):
    """What differs between a distributed Newton run's report and the serial one's ("" if nothing)."""
    a, b = serial.get("newton", {}), rep.get("newton", {})
    if not a.get("converged") or not b.get("converged"):
        return "newton.converged"
    if a.get("steps") != b.get("steps"):
        return f"newton.steps {b.get('steps')} (serial {a.get('steps')})"
    if sorted(a) != sorted(b):
        return f"newton keys {sorted(set(a) ^ set(b))}"
    for k in ("alphas", "steps_per_time_step"):
        if a.get(k) != b.get(k):
            return f"newton.{k} {b.get(k)} (serial {a.get(k)})"
    ra, rb = a.get("residuals", []), b.get("residuals", [])
    for n, (x, y) in enumerate(zip(ra, rb)):
        if x > 1e-6 * ra[0] and not abs(y - x) <= 1e-8 * x:
            return f"newton.residuals[{n}] {y:.12e} (serial {x:.12e})"
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hdgc")
    ap.add_argument("--np", default="1,2,3")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--its", type=float, default=0.10)
    ap.add_argument("--expect-rc", type=int)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--once", action="store_true")
    ap.add_argument("--newton", action="store_true")
    ap.add_argument("--wrap")
    ap.add_argument("--mpi-args", default="", help="options added under mpirun only")
    ap.add_argument("--backend", help="the backend every distributed run must report")
    cut = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
    a = ap.parse_args(sys.argv[1:cut])
    args = sys.argv[cut + 1:]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        serial = None
        if a.expect_rc is None:
            js = os.path.join(tmp, "serial.json")
            rc, out, err = run([a.hdgc, "run", *args, "--json", js])
            if rc != 0:
                print(f"serial run failed (rc {rc}):\n{err}")
                return 1
            serial = json.load(open(js))
            print("serial:", errors(serial), "iterations", serial["solver"].get("iterations"))
        its1 = None
        for n in [int(x) for x in a.np.split(",")]:
            js = os.path.join(tmp, f"np{n}.json")
            cmd = ["mpirun", "--oversubscribe", "-np", str(n)] + (a.wrap.split() if a.wrap else [])
            rc, out, err = run(cmd + [a.hdgc, "run", *args, *(a.mpi_args.split("|") if a.mpi_args else []),
                                      "--json", js])
            if a.expect_rc is not None:
                ok = rc == a.expect_rc and all(len(re.findall(e, err, re.M)) == 1 if a.once else re.search(e, err)
                                               for e in a.expect)
                print(f"np={n}: rc {rc} (want {a.expect_rc}) {'ok' if ok else 'FAIL'}\n{err.strip()}")
                bad += not ok
                continue
            if rc != 0:
                print(f"np={n}: rc {rc}\n{err}")
                bad += 1
                continue
            rep = json.load(open(js))
            mpi, its = rep.get("mpi", {}), rep["solver"].get("iterations")
            its1 = its if n == 1 else its1
            line = f"np={n}: ranks {mpi.get('ranks')} elements {mpi.get('elements_min')}..{mpi.get('elements_max')} iterations {its}"
            if mpi.get("ranks") != n or mpi.get("elements_max", 0) * n < rep["mesh"]["elements"]:
                line += " FAIL(mpi.*)"
                bad += 1
            if a.backend and rep.get("backend") != a.backend:
                line += f" FAIL(backend {rep.get('backend')}, want {a.backend})"
                bad += 1
            why = newton_diff(serial, rep) if a.newton else ""
            if why:
                line += f" FAIL({why})"
                bad += 1
            elif a.newton:
                line += f" newton.steps {rep['newton']['steps']} as serial"
            if its1 and its is not None and abs(its - its1) > a.its * its1:
                line += f" FAIL(iterations vs np=1: {its1})"
                bad += 1
            for k, v in errors(serial).items():
                w = rep.get("errors", {}).get(k)
                rel = abs(w - v) / abs(v) if w is not None and v else float("inf")
                line += f" {k} {w:.6e} (rel {rel:.1e})" if w is not None else f" {k} missing"
                if not rel <= a.rtol:
                    line += " FAIL"
                    bad += 1
            print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
