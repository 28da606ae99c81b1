#!/usr/bin/env python3
"""mg_flat.py HDGC PROBLEM --coarse A --fine B --orders 1,2 [--np N] [--ratio R] [--dt-h2 C] [-- ARGS...]

--precond mg keeps the trace solve's CG iterations flat in h (issue 39): at each order k,
the iterations on the finer mesh B are at most R (default 1.3) times those on A, and both
are between 1 and --max (default 60). With --np N the runs go through
`mpirun --oversubscribe -np N` (PETSc's two-level PCMG: solver.pc_type "mg"). A transient
problem is judged by its largest solve (solver.iterations_max); with --dt-h2 C its step is
C h^2 on each mesh (h = 1/N of cube:N or square:N) and it runs 3 steps, so that the ratio of
the mass term to the stiffness stays the same from mesh to mesh. Prints one line per order."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def run(args, mesh, k, js):
    cmd = [args.hdgc, "run", args.problem, "--mesh", mesh, "--order", str(k), "--json", js, "--quiet"]
    if args.np <= 1:
        cmd += ["--precond", "mg"]
    if args.dt_h2:
        n = int(re.match(r"(?:cube|square):(\d+)", mesh).group(1))
        dt = args.dt_h2 / n ** 2
        cmd += ["--dt", repr(dt), "--final-time", repr(3 * dt)]
    cmd += args.extra
    if args.np > 1:
        cmd = ["mpirun", "--oversubscribe", "-np", str(args.np)] + cmd
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(cmd, check=True, env=env, timeout=1200, stdout=subprocess.DEVNULL)
    s = json.load(open(js))["solver"]
    want = "pc_type" if args.np > 1 else "precond"
    if s.get(want) != "mg":
        sys.exit(f"{mesh} k={k}: solver.{want} is {s.get(want)!r}, not mg")
    return s.get("iterations_max", s["iterations"])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("hdgc")
    p.add_argument("problem")
    p.add_argument("--coarse", required=True, help="the coarse mesh spec (A)")
    p.add_argument("--fine", required=True, help="the fine mesh spec (B)")
    p.add_argument("--orders", default="1", help="comma-separated k")
    p.add_argument("--np", type=int, default=1)
    p.add_argument("--ratio", type=float, default=1.3)
    p.add_argument("--max", type=int, default=60)
    p.add_argument("--dt-h2", type=float, default=0.0)
    p.add_argument("extra", nargs="*", help="more hdgc run options (after --)")
    args = p.parse_args()
    coarse, fine = args.coarse, args.fine
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in (int(v) for v in args.orders.split(",")):
            its = [run(args, m, k, os.path.join(tmp, f"{i}.json")) for i, m in enumerate((coarse, fine))]
            ok = 1 <= its[0] <= args.max and 1 <= its[1] <= args.max and its[1] <= args.ratio * its[0]
            bad += not ok
            print(f"k={k}: iterations {coarse} {its[0]}, {fine} {its[1]} (x{its[1] / its[0]:.2f}) "
                  f"{'ok' if ok else 'FAIL (> %.2fx or outside 1..%d)' % (args.ratio, args.max)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
