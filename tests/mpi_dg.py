#!/usr/bin/env python3
"""mpi_dg.py HDGC MPIRUN NP FILE.hdg [RUN-ARGS...]

Runs `HDGC run FILE.hdg RUN-ARGS` on one process and under `MPIRUN -np NP`
and compares the two JSON reports: the same status, steps, step size, sizes,
energy-watch mode and blow-up step exactly; the errors and energies to 1e-13
relative (the ranks compute every element as the serial run does; only the
order of the sums over elements differs); and the report of the MPI run says
it ran on NP ranks that together hold every element. MPIRUN may carry its
options after a space ("mpirun --oversubscribe"). Exit 0 when all hold."""
import json
import os
import subprocess
import sys
import tempfile

RTOL = 1e-13


def flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def run(cmd, json_path):
    p = subprocess.run(cmd + ["--json", json_path, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=1200)
    if not os.path.exists(json_path):
        print("no report from:", " ".join(cmd))
        print(p.stdout)
        sys.exit(1)
    return p.returncode, p.stdout, flat(json.load(open(json_path)))


def compare(serial, mpi, np_):
    bad = []
    for k in ["status", "steps", "dt", "dofs.total", "mesh.elements", "energy.watch", "energy.samples",
              "blowup.step"]:
        if serial.get(k) != mpi.get(k):
            bad.append("%s: serial %r, np %d %r" % (k, serial.get(k), np_, mpi.get(k)))
    for k in ["status", "steps", "dt"]:
        if k not in serial:
            bad.append("the serial report lacks %s" % k)
    close = sorted(k for k in serial if k.startswith("errors.")) + ["energy.start", "energy.end"]
    if len(close) < 3:
        bad.append("the serial report has no errors.* figures")
    for k in close:
        a, b = serial.get(k), mpi.get(k)
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            bad.append("%s: serial %r, np %d %r" % (k, a, np_, b))
        elif abs(a - b) > RTOL * abs(a):
            bad.append("%s: serial %.17g, np %d %.17g (relative %.2g)" % (k, a, np_, b, abs(a - b) / abs(a)))
    if mpi.get("mpi.ranks") != np_:
        bad.append("mpi.ranks: %r, expected %d" % (mpi.get("mpi.ranks"), np_))
    lo, hi, n = mpi.get("mpi.elements_min", 0), mpi.get("mpi.elements_max", 0), serial.get("mesh.elements", 0)
    if not (lo >= (1 if n >= np_ else 0) and hi > 0 and lo * np_ <= n <= hi * np_):   # fewer elements: empty ranks
        bad.append("mpi.elements_min/max %r/%r do not split %r elements over %d ranks" % (lo, hi, n, np_))
    return bad, close


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    hdgc, mpirun, np_, args = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4:]
    with tempfile.TemporaryDirectory() as tmp:
        rc0, out0, serial = run([hdgc, "run"] + args, os.path.join(tmp, "serial.json"))
        rc1, out1, mpi = run(mpirun + ["-np", str(np_), hdgc, "run"] + args, os.path.join(tmp, "mpi.json"))
    bad, close = compare(serial, mpi, np_)
    if rc0 != rc1:
        bad.append("exit code: serial %d, np %d %d" % (rc0, np_, rc1))
    for line in bad:
        print("mismatch:", line)
    if bad:
        print("--- serial output:\n" + out0 + "--- np %d output:\n" % np_ + out1)
        return 1
    print("np %d matches the serial run (%s): %s" % (np_, serial["status"],
                                                    ", ".join("%s %.17g" % (k, mpi[k]) for k in close)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
