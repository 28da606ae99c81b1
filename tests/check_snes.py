#!/usr/bin/env python3
"""check_snes.py — asserts what a run of Newton through PETSc's SNES (hdgc run --newton snes
--json) reports beyond tests/check_newton.py's checks.

    check_snes.py REPORT.json [--reason NAME] [--snes-type T] [--linesearch T] [--ksp-type T]
                  [--pc-type T] [--jinv-check BOUND] [--first-rise] [--first-fall] [--full-steps]
                  [--same-time-steps REPORT]

Every report: newton.method snes, and each key given equal to its value (newton.reason,
newton.snes_type, newton.linesearch, newton.ksp_type, newton.pc_type); --jinv-check (a run
with --newton-check on): one J^-1 check per step, every rho(1e-4) at most BOUND, and where
rho(1e-3) lies above 1e-8 (above rounding, which grows as h falls) it falls at least twentyfold to
rho(1e-4) (central differences: second order, when J^-1 inverts the residual's derivative);
--first-rise: the first step raised |R| (a full step taken regardless); --first-fall: it lowered
|R|; --full-steps: every step length 1; --same-time-steps REPORT (HDG in time): the Newton steps
of every time step (newton.steps_per_time_step[]) those of REPORT (hdgc's own loop). Exit status
1 on any failure."""
import json
import sys


def main(argv):
    files, opts, i = [], {}, 1
    while i < len(argv):
        a = argv[i]
        if a in ("--reason", "--snes-type", "--linesearch", "--ksp-type", "--pc-type", "--jinv-check",
                 "--same-time-steps"):
            opts[a] = argv[i + 1]; i += 2
        elif a.startswith("--"):
            opts[a] = True; i += 1
        else:
            files.append(a); i += 1
    bad = 0
    keys = {"--reason": "reason", "--snes-type": "snes_type", "--linesearch": "linesearch",
            "--ksp-type": "ksp_type", "--pc-type": "pc_type"}
    for f in files:
        nw = json.load(open(f)).get("newton", {})
        r, al = nw.get("residuals", []), nw.get("alphas", [])
        print("%s: %s %s/%s, ksp %s pc %s, %s in %s steps, |R| %s, alphas %s" % (
            f, nw.get("method"), nw.get("snes_type"), nw.get("linesearch"), nw.get("ksp_type"), nw.get("pc_type"),
            nw.get("reason"), nw.get("steps"), ["%.2e" % x for x in r], al))
        if nw.get("method") != "snes":
            print("FAIL: newton.method is %s, not snes" % nw.get("method")); bad += 1
        for o, k in keys.items():
            if o in opts and nw.get(k) != opts[o]:
                print("FAIL: newton.%s = %s, want %s" % (k, nw.get(k), opts[o])); bad += 1
        if opts.get("--first-rise") and not (len(r) > 1 and r[1] > r[0]):
            print("FAIL: the first step did not raise |R|"); bad += 1
        if opts.get("--first-fall") and not (len(r) > 1 and r[1] < r[0]):
            print("FAIL: the first step did not lower |R|"); bad += 1
        if "--same-time-steps" in opts:
            want = json.load(open(opts["--same-time-steps"])).get("newton", {}).get("steps_per_time_step")
            if not want or nw.get("steps_per_time_step") != want:
                print("FAIL: Newton steps per time step %s, %s has %s" % (nw.get("steps_per_time_step"),
                                                                     opts["--same-time-steps"], want)); bad += 1
        if opts.get("--full-steps") and (not al or any(a != 1 for a in al)):
            print("FAIL: a step length below 1 (or none): %s" % al); bad += 1
        if "--jinv-check" in opts:
            c3, c4, bound = nw.get("jinv_check_1e-3", []), nw.get("jinv_check_1e-4", []), float(opts["--jinv-check"])
            print("  J^-1 check rho(1e-3)/rho(1e-4): %s" % ["%.2e/%.2e" % p for p in zip(c3, c4)])
            if len(c3) != nw.get("steps") or len(c4) != len(c3):
                print("FAIL: %d/%d checks for %s steps" % (len(c3), len(c4), nw.get("steps"))); bad += 1
            for n, (a, b) in enumerate(zip(c3, c4)):
                if not b <= bound:
                    print("FAIL: step %d: rho(1e-4) = %s > %g: J^-1 is not the residual's inverse" % (n + 1, b, bound))
                    bad += 1
                if a > 1e-8 and not b <= a / 20:
                    print("FAIL: step %d: rho(1e-4) = %.3e > rho(1e-3) / 20 = %.3e" % (n + 1, b, a / 20)); bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
