#!/usr/bin/env python3
"""compare_reports.py A.json B.json [--rtol R] [--same KEY]... [--near KEY]...
                      [--at-most KEY:F]...

Compares two `hdgc run --json` reports: every --near KEY (a dotted path to a
number or to an object of numbers, e.g. errors) agrees to relative R (default
1e-9), every --same KEY is equal, every --at-most KEY:F has B's numbers at
most F times A's (B no worse than A by more than F). Prints each comparison;
exit 1 on a difference or a missing key."""
import argparse
import json
import sys


def get(d, path):
    for part in path.split("."):
        d = d[part]
    return d


def numbers(v, path):
    if isinstance(v, dict):
        return {f"{path}.{k}": x for k, x in v.items() if isinstance(x, (int, float))}
    return {path: v}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--same", action="append", default=[])
    ap.add_argument("--near", action="append", default=[])
    ap.add_argument("--at-most", action="append", default=[])
    o = ap.parse_args()
    A, B = json.load(open(o.a)), json.load(open(o.b))
    bad = 0
    factor = {}
    for spec in o.at_most:
        key, f = spec.rsplit(":", 1)
        factor[key] = float(f)
    for key in o.same + o.near + list(factor):
        try:
            va, vb = numbers(get(A, key), key), numbers(get(B, key), key)
        except KeyError as e:
            print(f"{key}: missing ({e})")
            bad += 1
            continue
        if va.keys() != vb.keys() or not va:
            print(f"{key}: different entries {sorted(va)} / {sorted(vb)}")
            bad += 1
            continue
        for k in sorted(va):
            x, y = va[k], vb[k]
            if key in factor:
                ok = y <= factor[key] * x
                print(f"{k}: {x:.6g} {y:.6g} ratio {y / x if x else float('inf'):.3g} "
                      f"{'ok' if ok else 'ABOVE'} (at most {factor[key]:g})")
            elif key in o.same:
                ok = x == y
                print(f"{k}: {x} {y} {'same' if ok else 'DIFFERENT'}")
            else:
                rel = abs(x - y) / max(abs(x), abs(y), 1e-300)
                ok = rel <= o.rtol
                print(f"{k}: {x:.15g} {y:.15g} relative difference {rel:.2e} {'ok' if ok else 'TOO LARGE'}")
            bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
