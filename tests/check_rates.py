#!/usr/bin/env python3
"""check_rates.py — asserts the convergence rates of an `hdgc convergence --json` table.

    check_rates.py TABLE.json TOL UNKNOWN=OFFSET [UNKNOWN=OFFSET ...]

For every order k in the table and every UNKNOWN given, the least-squares slope of
log(error) against log(1/N), N the resolution of each run's mesh spec (cube:N or
square:N, options after it ignored: the nominal h of a perturbed mesh, whose longest
edge does not halve exactly) or, for a mesh file (a Gmsh file with refine=L), the run's
measured h, must be within TOL of k + OFFSET. Every run must have
succeeded and every error be finite and positive. Prints one line per order and
unknown; exit status 1 on any failure."""
import json
import math
import re
import sys


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def main(argv):
    table = json.load(open(argv[1]))
    tol = float(argv[2])
    want = {a.split("=")[0]: float(a.split("=")[1]) for a in argv[3:]}
    runs, bad = table["runs"], 0
    for r in runs:
        if r.get("status") not in (None, "ok"):
            print("run failed: %s order %s: %s" % (r.get("mesh"), r.get("order"), r.get("status")))
            bad += 1
    for k in sorted({r["order"] for r in runs}):
        rs = [r for r in runs if r["order"] == k]
        for u, off in want.items():
            xs, ys = [], []
            for r in rs:
                m = re.match(r"(?:cube|square):(\d+)", r["mesh"])
                h = 1.0 / int(m.group(1)) if m else r.get("h")
                e = r.get("errors", {}).get(u)
                if not h or h <= 0 or e is None or not (e > 0 and math.isfinite(e)):
                    print("order %d %s: no error on %s" % (k, u, r["mesh"]))
                    bad += 1
                    continue
                xs.append(math.log(h))
                ys.append(math.log(e))
            if len(xs) < 2:
                bad += 1
                continue
            rate = slope(xs, ys)
            ok = abs(rate - (k + off)) <= tol
            bad += not ok
            print("order %d %-6s rate %.3f (want %.1f +- %.1f) %s" % (k, u, rate, k + off, tol, "ok" if ok else "FAIL"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
