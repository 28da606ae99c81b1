#!/usr/bin/env python3
"""nldg_mpi.py HDGC MPIRUN NP TOL -- RUN-ARGS...

Nonlinear explicit DG under mpirun (issue 41): runs `HDGC run RUN-ARGS --json` serially and
under `MPIRUN -np NP`, then asserts that both succeed, take the same steps, and agree to
relative TOL on every errors.* and totals.* value, and that each run's conserved totals drift
by less than TOL (totals.max_drift). Prints the compared values; exit status 1 on any failure."""
import json
import os
import subprocess
import sys
import tempfile

from mpi_dg import flat   # the report flattened to dotted keys, as mpi_dg.py compares it

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")


def run(cmd, path):
    r = subprocess.run(cmd + ["--json", path, "--quiet"], env=ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=1200, text=True)
    if r.returncode != 0:
        print("FAIL: %s exited %d\n%s" % (" ".join(cmd), r.returncode, r.stdout))
        return None
    return flat(json.load(open(path)))


def main(argv):
    sep = argv.index("--")
    hdgc, mpirun, np_, tol = argv[1], argv[2], argv[3], float(argv[4])
    args = argv[sep + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        a = run([hdgc, "run"] + args, os.path.join(tmp, "serial.json"))
        b = run([mpirun, "-np", np_, hdgc, "run"] + args, os.path.join(tmp, "mpi.json"))
    if a is None or b is None:
        return 1
    bad = 0
    if a.get("steps") != b.get("steps"):
        print("FAIL: steps %s serial, %s on %s ranks" % (a.get("steps"), b.get("steps"), np_))
        bad += 1
    keys = sorted(k for k in a if k.startswith(("errors.", "totals.")) and k != "totals.max_drift"
                  and isinstance(a[k], (int, float)))
    ha, hb = a.get("totals.history", []), b.get("totals.history", [])
    if len(ha) < 2 or len(ha) != len(hb) or any(x["step"] != y["step"] for x, y in zip(ha, hb)):
        print("FAIL: totals.history: %d checks serial, %d on %s ranks (at least 2, at the same steps)"
              % (len(ha), len(hb), np_))
        bad += 1
    if not any(k.startswith("totals.") for k in keys):
        print("FAIL: no totals in the serial report")
        bad += 1
    for k in keys:
        x, y = a[k], b.get(k)
        rel = abs(x - y) / max(abs(x), 1e-300) if y is not None else float("inf")
        ok = rel <= tol
        bad += not ok
        print("%-22s serial %.16e  np %s %.16e  rel %.1e %s" % (k, x, np_, y if y is not None else float("nan"),
                                                               rel, "ok" if ok else "FAIL"))
    for name, r in (("serial", a), ("np " + np_, b)):
        d = r.get("totals.max_drift", float("inf"))
        ok = d < tol
        bad += not ok
        print("totals.max_drift (%s) %.2e %s" % (name, d, "ok" if ok else "FAIL"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
