#!/usr/bin/env python3
"""scaling_model.py - predicted parallel efficiency on a cluster from the partition
figures of `hdgc bench partition --json F` (docs/performance.md, "Beyond one machine").

usage: scaling_model.py F.json [--alpha 1.5e-6] [--beta 12.5e9] [--c-hdg S] [--c-dg S]
                               [--levels L] [--smooth s]

Per Krylov iteration of HDG (CG + an algebraic multigrid V-cycle on the trace system):
  compute   c_hdg x elements_max                      (seconds per element per iteration, one core)
  halo      (1 + smooth) exchanges on the fine level, each hdg_neighbours_max x alpha
            + hdg_bytes_per_iteration / beta
  coarse    (levels - 1) x smooth exchanges on the coarse levels, latency only
            (hdg_neighbours_max x alpha each), + the coarsest solve, 2 log2(P) alpha
  reduce    3 allreduces (CG's two dot products and the residual norm), 2 log2(P) alpha each
Per LSERK4 stage of DG:
  compute   c_dg x elements_max
  halo      neighbours_max x alpha + dg_bytes_per_stage / beta
  reduce    the energy watch, one allreduce per step: 2 log2(P) alpha / 4
Efficiency = (compute at P = 1) / (P x time at P). The computation is assumed to scale
with the largest part's elements (no cache effects); messages to different neighbours are
not overlapped (a pessimistic sum) and computation is not overlapped with communication.
"""
import argparse
import json
import math


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--alpha", type=float, default=1.5e-6, help="latency per message, s")
    ap.add_argument("--beta", type=float, default=12.5e9, help="bandwidth per rank, bytes/s")
    ap.add_argument("--c-hdg", type=float, default=1.0e-6, help="HDG s per element per iteration")
    ap.add_argument("--c-dg", type=float, default=0.45e-6, help="DG s per element per stage")
    ap.add_argument("--levels", type=int, default=7, help="multigrid levels")
    ap.add_argument("--smooth", type=int, default=5, help="exchanges per level (smoother, residual, transfers)")
    a = ap.parse_args()
    rep = json.load(open(a.report))
    E = rep["elements"]
    rows = sorted(((int(k[1:]), v) for k, v in rep["partition"].items()), key=lambda r: r[0])
    print(f"mesh {rep['mesh']}: {E} elements, k = {rep['order']}; alpha = {a.alpha:g} s, beta = {a.beta:g} B/s, "
          f"c_hdg = {a.c_hdg:g} s, c_dg = {a.c_dg:g} s, {a.levels} levels")
    print(f"{'P':>5} {'elem/rank':>9} | {'HDG us/it':>9} {'comp':>7} {'halo':>6} {'coarse':>6} {'reduce':>6}"
          f" {'eff':>5} | {'DG us/stg':>9} {'comp':>7} {'halo':>6} {'reduce':>6} {'eff':>5}")
    for P, s in rows:
        lg = 2 * math.log2(P) * a.alpha if P > 1 else 0.0
        on = 1.0 if P > 1 else 0.0
        comp = a.c_hdg * s["elements_max"]
        halo = on * (1 + a.smooth) * s["hdg_neighbours_max"] * a.alpha + s["hdg_bytes_per_iteration"] / a.beta
        coarse = on * ((a.levels - 1) * a.smooth * s["hdg_neighbours_max"] * a.alpha + lg)
        red = 3 * lg
        t = comp + halo + coarse + red
        eff = a.c_hdg * E / (P * t)
        dcomp = a.c_dg * s["elements_max"]
        dhalo = on * s["neighbours_max"] * a.alpha + s["dg_bytes_per_stage"] / a.beta
        dred = lg / 4
        dt = dcomp + dhalo + dred
        deff = a.c_dg * E / (P * dt)
        us = 1e6
        print(f"{P:>5} {s['elements_mean']:>9.0f} | {t * us:>9.1f} {comp * us:>7.1f} {halo * us:>6.1f} "
              f"{coarse * us:>6.1f} {red * us:>6.1f} {eff:>5.2f} | {dt * us:>9.1f} {dcomp * us:>7.1f} "
              f"{dhalo * us:>6.1f} {dred * us:>6.1f} {deff:>5.2f}")


if __name__ == "__main__":
    main()
