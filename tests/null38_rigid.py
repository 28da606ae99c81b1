#!/usr/bin/env python3
"""tests/null38_rigid.py HDGC FILE.hdg MESH1 MESH2 RATE [RUN ARGS...] -- issue 38 item 2:
pure-traction elasticity (symmetric stress, no displacement given) whose rigid motions are
fixed by 'rigid u = uex'.

Checks, each able to fail:
  1. the null space found is the rigid motions (dimension 3 in 2D, 6 in 3D), fixed by 'u';
  2. the u error converges at RATE (+-0.25) from MESH1 to MESH2;
  3. it is within 1.3x of the Dirichlet twin's (the same data, uhat = uex on every face);
  4. the condition is imposed exactly: with 'rigid u = uex + r' (r a rigid motion) the
     solution moves by r, and since u - uex is L2-orthogonal to the rigid motions the
     error becomes sqrt(e^2 + ||r||^2): checked to 1e-4 relative on MESH1.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def run(hdgc, path, mesh, extra, d, tag):
    out = os.path.join(d, tag + ".json")
    subprocess.run([hdgc, "run", path, "--mesh", mesh, "--quiet", "--json", out] + extra, check=True)
    return json.load(open(out))


def err_u(r):
    return r["errors"]["u"]


def main():
    hdgc, path, m1, m2, rate = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
    extra = sys.argv[6:]
    src = open(path).read()
    assert re.search(r"^rigid u = uex$", src, re.M), "the file has no 'rigid u = uex'"
    dim = 3 if re.search(r"^mesh\s+tetrahedron", src, re.M) else 2
    with tempfile.TemporaryDirectory() as d:
        a, b = run(hdgc, path, m1, extra, d, "a"), run(hdgc, path, m2, extra, d, "b")
        s = a["solver"]
        assert s.get("null_space") == "rigid motions", s.get("null_space")
        assert s.get("null_dimension") == (6 if dim == 3 else 3), s.get("null_dimension")
        assert s.get("null_mean") == "u", s.get("null_mean")
        ea, eb = err_u(a), err_u(b)
        na, nb = (int(re.search(r":(\d+)", m).group(1)) for m in (m1, m2))
        got = math.log(ea / eb) / math.log(nb / na)
        print(f"u error {ea:.6e} -> {eb:.6e}: rate {got:.3f} (want {rate} +- 0.25)")
        assert abs(got - rate) <= 0.25, got

        twin = src.replace("boundary neumann tn = -sigma_ex*n on all", "boundary dirichlet uhat = uex on all")
        twin = re.sub(r"^rigid u = uex\n", "", twin, flags=re.M)
        assert twin != src
        tp = os.path.join(d, "twin.hdg")
        open(tp, "w").write(twin)
        et = err_u(run(hdgc, tp, m1, extra, d, "twin"))
        print(f"Dirichlet twin's u error {et:.6e}: ratio {ea / et:.3f}")
        assert 1 / 1.3 <= ea / et <= 1.3, ea / et

        # a rigid motion r: translation t plus rotations of size w about the origin
        if dim == 2:
            r = "[0.003 - 0.01*y, -0.002 + 0.01*x]"
            t, w = (0.003, -0.002), 0.01
            # int over [0,1]^2 of (t0 - w y)^2 + (t1 + w x)^2
            rr = t[0] ** 2 - t[0] * w + w * w / 3 + t[1] ** 2 + t[1] * w + w * w / 3
        else:
            r = "[0.03 - 0.1*y, -0.02 + 0.1*x - 0.04*z, 0.01 + 0.04*y]"
            # int over [0,1]^3: means 1/2, second moments 1/3, products 1/4
            rr = 0.0
            terms = [(0.03, {"y": -0.1}), (-0.02, {"x": 0.1, "z": -0.04}), (0.01, {"y": 0.04})]
            for c0, lin in terms:
                rr += c0 * c0 + sum(c0 * c for c in lin.values())
                for p in lin:
                    for q in lin:
                        rr += lin[p] * lin[q] * (1 / 3 if p == q else 1 / 4)
        shifted = src.replace("rigid u = uex", "rigid u = uex + " + r)
        sp = os.path.join(d, "shifted.hdg")
        open(sp, "w").write(shifted)
        es = err_u(run(hdgc, sp, m1, extra, d, "shifted"))
        want = math.sqrt(ea * ea + rr)
        print(f"shifted by r (||r|| = {math.sqrt(rr):.6e}): u error {es:.8e}, sqrt(e^2 + ||r||^2) = {want:.8e}")
        assert abs(es - want) <= 1e-4 * want, (es, want)
    print("ok: rigid motions fixed")


if __name__ == "__main__":
    main()
