#!/usr/bin/env python3
"""time_rates.py HDGC FILE.hdg --scheme S --steps d1,d2,... --param NAME --min R [--max R]
                 [--unknown u] [hdgc run options...]

Convergence in time of a transient HDG problem: runs FILE with its 'time' line's scheme
replaced by S and the param NAME (the file's step, 'dt = NAME') set to each d, reads the
final-time L2 error of the unknown from the JSON report, prints the errors and the
observed rates log(e1/e2)/log(d1/d2), and exits 1 unless every rate is in [min, max]."""
import json, math, os, re, subprocess, sys, tempfile

def main(argv):
    hdgc, path, rest = argv[1], argv[2], argv[3:]
    opt = {"--unknown": "u", "--max": "99"}
    extra = []
    i = 0
    while i < len(rest):
        if rest[i] in ("--scheme", "--steps", "--param", "--min", "--max", "--unknown"):
            opt[rest[i]] = rest[i + 1]
            i += 2
        else:
            extra.append(rest[i])
            i += 1
    src = open(path).read()
    src, n = re.subn(r"^time\s+\w+", "time " + opt["--scheme"], src, flags=re.M)
    if n != 1:
        sys.exit("time_rates.py: no 'time' line in " + path)
    steps = [float(d) for d in opt["--steps"].split(",")]
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, os.path.basename(path))
        open(f, "w").write(src)
        for d in steps:
            rep = os.path.join(tmp, "r.json")
            cmd = [hdgc, "run", f, "--set", "%s=%r" % (opt["--param"], d), "--json", rep, "--quiet"] + extra
            if subprocess.call(cmd) != 0:
                sys.exit("time_rates.py: failed: " + " ".join(cmd))
            r = json.load(open(rep))
            errs.append(r["errors"][opt["--unknown"]])
            print("%s dt %-8g steps %-5d error %s %.4e" % (opt["--scheme"], d, r["time"]["steps"], opt["--unknown"],
                                                            errs[-1]))
    ok = True
    for a in range(1, len(steps)):
        rate = math.log(errs[a - 1] / errs[a]) / math.log(steps[a - 1] / steps[a])
        good = float(opt["--min"]) <= rate <= float(opt["--max"])
        ok &= good
        print("rate %.3f %s" % (rate, "" if good else "OUT OF [%s, %s]" % (opt["--min"], opt["--max"])))
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main(sys.argv))
