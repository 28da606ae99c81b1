#!/usr/bin/env python3
"""mpi_mg_flat.py HDGC PROBLEM — under `mpirun -np 2` the two-level PCMG (the default
--precond mg, solver.pc_type "mg") takes at most 1.3x as many iterations on square:32 as on
square:8, at k = 1 and k = 3: h-independent, as the serial --precond mg (tests/mpi.cmake)."""
import json
import os
import subprocess
import sys
import tempfile

hdgc, problem = sys.argv[1], sys.argv[2]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
bad = 0
with tempfile.TemporaryDirectory() as tmp:
    for k in (1, 3):
        its = []
        for n in (8, 32):
            js = os.path.join(tmp, f"{n}.json")
            subprocess.run(["mpirun", "--oversubscribe", "-np", "2", hdgc, "run", problem, "--mesh", f"square:{n}",
                            "--order", str(k), "--json", js, "--quiet"], check=True, env=env, timeout=1200)
            s = json.load(open(js))["solver"]
            assert s["pc_type"] == "mg", s
            its.append(s["iterations"])
        ok = its[1] <= 1.3 * its[0]
        bad += not ok
        print(f"k={k}: iterations square:8 {its[0]}, square:32 {its[1]} {'ok' if ok else 'FAIL (> 1.3x)'}")
sys.exit(1 if bad else 0)
