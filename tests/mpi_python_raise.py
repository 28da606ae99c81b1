#!/usr/bin/env python3
"""mpi_python_raise.py PROBLEM MESH — run by `mpirun -np 2` (tests/mpi.cmake, mpi_python_raise):
after a solve on both ranks (MPI started), rank 1 raises outside solve while rank 0 starts
another solve, whose collectives wait for rank 1. The job must end (hdgc's sys.excepthook
aborts it: exit status non-zero, the traceback printed), not hang: rank 1 waited in
MPI_Finalize at exit and rank 0 in its solve, forever (issue 38 item 12)."""
import sys

import hdgc

path, mesh = sys.argv[1], sys.argv[2]
assert hdgc.mpi_size() == 2, hdgc.mpi_size()
r = hdgc.Problem(path).solve(order=1, mesh=mesh)
assert r.report["mpi"]["ranks"] == 2
print(f"rank {hdgc.mpi_rank()}: first solve done", flush=True)
if hdgc.mpi_rank() == 1:
    raise ValueError("rank 1 raises outside solve")
hdgc.Problem(path).solve(order=1, mesh=mesh)
print("rank 0: second solve done (rank 1 was still there?)", flush=True)
