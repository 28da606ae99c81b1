#!/usr/bin/env python3
"""check_newton.py — asserts a Newton run's report (hdgc run --json, nonlinear HDG).

    check_newton.py REPORT.json [REPORT2.json] [--max-steps N] [--cmax C] [--line-search]
                    [--attainable] [--same-steps] [--max-error NAME=BOUND ...]

Every report must say newton.converged, with residuals[] one longer than its steps and
newton.steps <= N; --cmax: newton.quadratic_constant in (0, C] and, over the steps it was
taken from, r_{n+1} <= C r_n^2 checked again from the history; --line-search: some
alpha < 1; --attainable: stopped at the attainable accuracy; --same-steps: every report
took the same number of steps; --max-error: errors.NAME below BOUND. Prints the history;
exit status 1 on any failure."""
import json
import sys


def main(argv):
    files, opts, i = [], {"errors": {}}, 1
    while i < len(argv):
        a = argv[i]
        if a in ("--max-steps", "--cmax"):
            opts[a] = float(argv[i + 1]); i += 2
        elif a == "--max-error":
            n, b = argv[i + 1].split("="); opts["errors"][n] = float(b); i += 2
        elif a.startswith("--"):
            opts[a] = True; i += 1
        else:
            files.append(a); i += 1
    bad, steps = 0, []
    for f in files:
        rep = json.load(open(f))
        nw = rep.get("newton", {})
        r = nw.get("residuals", [])
        print("%s: steps %s, |R| %s, alphas %s, C %s" % (f, nw.get("steps"), ["%.2e" % x for x in r],
                                                       nw.get("alphas"), nw.get("quadratic_constant")))
        if not nw.get("converged") or len(r) != nw.get("steps", -1) + 1:
            print("FAIL: not converged, or the history does not match the steps"); bad += 1; continue
        steps.append(nw["steps"])
        if "--max-steps" in opts and nw["steps"] > opts["--max-steps"]:
            print("FAIL: %d steps > %d" % (nw["steps"], opts["--max-steps"])); bad += 1
        if "--cmax" in opts:
            C = nw.get("quadratic_constant", 0)
            if not (0 < C <= opts["--cmax"]):
                print("FAIL: quadratic constant %s not in (0, %g]" % (C, opts["--cmax"])); bad += 1
            lo = max(100 * nw.get("floor", 0), 100 * r[-1] if nw.get("attainable") else 0)
            quad = [n for n in range(len(r) - 1) if r[n + 1] > lo and r[n] < 0.1 * r[0]][-2:]
            if not quad:
                print("FAIL: no step in the quadratic range"); bad += 1
            for n in quad:
                if r[n + 1] > opts["--cmax"] * r[n] ** 2:
                    print("FAIL: r_%d = %.3e > C r_%d^2 = %.3e" % (n + 1, r[n + 1], n, opts["--cmax"] * r[n] ** 2)); bad += 1
        if opts.get("--line-search") and not any(a < 1 for a in nw.get("alphas", [])):
            print("FAIL: no step length below 1"); bad += 1
        if opts.get("--attainable") and not nw.get("attainable"):
            print("FAIL: not stopped at the attainable accuracy"); bad += 1
        for n, b in opts["errors"].items():
            e = rep.get("errors", {}).get(n)
            if e is None or not (e < b):
                print("FAIL: error %s = %s, want < %g" % (n, e, b)); bad += 1
    if opts.get("--same-steps") and len(set(steps)) != 1:
        print("FAIL: step counts differ: %s" % steps); bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
