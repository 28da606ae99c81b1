#!/usr/bin/env python3
"""check_newton.py — asserts a Newton run's report (hdgc run --json, nonlinear HDG).

    check_newton.py REPORT.json [REPORT2.json] [--max-steps N] [--cmax C] [--line-search]
                    [--attainable] [--same-steps] [--jacobian-check] [--max-error NAME=BOUND ...]
                    [--match-errors R] [--per-time-step N]

Every report must say newton.converged, with residuals[] one longer than its steps and
newton.steps <= N; --cmax: newton.quadratic_constant in (0, C] and, over the steps it was
taken from, r_{n+1} <= C r_n^2 checked again from the history; --line-search: some
alpha < 1; --attainable: stopped at the attainable accuracy; --same-steps: every report
took the same number of steps; --jacobian-check (a run with --newton-check on): on every
step whose defect at e = 1e-3 lies 100 times above the rounding in it at e = 1e-4
(eps ||M|| / (1e-4 |R_n|) = 100 floor / |R_n|), the finite-difference defect falls at
least fivefold from e = 1e-3 to 1e-4 (second order: the Jacobian is the residual's
derivative), on at least two steps; --max-error: errors.NAME below BOUND; --match-errors R: every report's errors equal
the first's to relative R. Prints the history;
exit status 1 on any failure.

A transient report (Newton at every time step: newton.steps_per_time_step[]) must say
newton.converged, with one entry per time step summing to newton.steps; --max-steps N
bounds newton.steps_max (one solve), --per-time-step N every time step's Newton steps but
the first's (its start is the initial state with the trace 0), each at least 1;
--max-error, --match-errors as above; --same-steps: every report took the same Newton steps
at every time step."""
import json
import sys


def check_transient(f, rep, nw, opts):
    per, bad = nw["steps_per_time_step"], 0
    print("%s: %s time steps, Newton steps %s (max one solve %s), total %s" % (
        f, rep.get("time", {}).get("steps"), per, nw.get("steps_max"), nw.get("steps")))
    if not nw.get("converged") or len(per) != rep.get("time", {}).get("steps") or sum(per) != nw.get("steps"):
        print("FAIL: not converged, or the steps per time step do not match the time steps or the total")
        return 1
    if "--max-steps" in opts and not nw.get("steps_max", 1e9) <= opts["--max-steps"]:
        print("FAIL: %s steps in one solve > %d" % (nw.get("steps_max"), opts["--max-steps"])); bad += 1
    if "--per-time-step" in opts:
        over = [(n + 1, k) for n, k in enumerate(per) if k < 1 or (n > 0 and k > opts["--per-time-step"])]
        if over:
            print("FAIL: time steps (step, Newton steps) outside [1, %d]: %s" % (opts["--per-time-step"], over[:10]))
            bad += 1
    for n, b in opts["errors"].items():
        e = rep.get("errors", {}).get(n)
        if e is None or not (e < b):
            print("FAIL: error %s = %s, want < %g" % (n, e, b)); bad += 1
    return bad


def main(argv):
    files, opts, i = [], {"errors": {}}, 1
    while i < len(argv):
        a = argv[i]
        if a in ("--max-steps", "--cmax", "--match-errors", "--per-time-step"):
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
        if "steps_per_time_step" in nw:
            bad += check_transient(f, rep, nw, opts)
            steps.append(tuple(nw["steps_per_time_step"]))
            continue
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
        if opts.get("--jacobian-check"):
            c3, c4 = nw.get("check_1e-3", []), nw.get("check_1e-4", [])
            if len(c3) != nw["steps"] or len(c4) != nw["steps"]:
                print("FAIL: %d/%d checks for %d steps" % (len(c3), len(c4), nw["steps"])); bad += 1
            fl = nw.get("floor", 0)
            used = [n for n in range(min(len(c3), len(c4))) if c3[n] >= 100 * (100 * fl / r[n])]
            print("  jacobian check rho(1e-3), rho(1e-4): %s" % ["%.2e/%.2e" % (c3[n], c4[n]) for n in used])
            if len(used) < 2:
                print("FAIL: fewer than two steps to check"); bad += 1
            for n in used:
                if not (c4[n] <= 0.2 * c3[n]):
                    print("FAIL: step %d: rho(1e-4) = %.3e > rho(1e-3) / 5 = %.3e: R and J disagree"
                          % (n + 1, c4[n], c3[n] / 5)); bad += 1
        for n, b in opts["errors"].items():
            e = rep.get("errors", {}).get(n)
            if e is None or not (e < b):
                print("FAIL: error %s = %s, want < %g" % (n, e, b)); bad += 1
    if "--match-errors" in opts and files:
        first = json.load(open(files[0])).get("errors", {})
        if not first:
            print("FAIL: %s has no errors to match" % files[0]); bad += 1
        for f in files[1:]:
            e = json.load(open(f)).get("errors", {})
            for n, v in first.items():
                if n not in e or not abs(e[n] - v) <= opts["--match-errors"] * abs(v):
                    print("FAIL: %s: error %s = %s, %s has %s" % (f, n, e.get(n), files[0], v)); bad += 1
    if opts.get("--same-steps") and len(set(steps)) != 1:
        print("FAIL: step counts differ: %s" % steps); bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
