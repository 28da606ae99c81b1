"""hdgc from Python: load a problem written in the hdgc language, set its params and run
options, give it a mesh as numpy arrays, solve it and read back the errors, the JSON report,
the fields at the element nodes and the trace; plot a field or write it as a .vtu.

    import hdgc
    r = hdgc.Problem("examples/poisson.hdg").solve(order=3, mesh="square:16")
    print(r.errors)

A thin layer over libhdgc.so (include/hdgc.h) with ctypes; docs/python.md.
"""
import sys as _sys

from ._lib import lib as _lib_handle
from .convergence import Convergence, convergence
from .error import Error
from .problem import Problem, State
from .result import Field, Result

__version__ = "0.1.0"
library_path = _lib_handle.hdgc_path


def mpi_rank():
    """This process's rank when started by mpirun (every solve then runs distributed over the
    job's ranks: docs/mpi.md), else 0. The first call initialises MPI."""
    return _lib_handle.hdgc_mpi_rank()


def mpi_size():
    """The number of ranks of the mpirun job (1 without mpirun)."""
    return _lib_handle.hdgc_mpi_size()


def _abort_job_after(hook):
    """sys.excepthook that prints as hook does, then, under mpirun with more than one rank, ends
    the whole job (MPI_Abort): a rank that raised outside solve would otherwise wait in
    MPI_Finalize at exit and the others in their next solve, forever."""
    def excepthook(kind, value, tb):
        hook(kind, value, tb)
        for f in (_sys.stdout, _sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        _lib_handle.hdgc_mpi_abort(1)   # returns at once when not under mpirun with ranks > 1
    excepthook.hdgc_mpi_abort = True
    return excepthook


if "hdgc_mpi_abort" in _lib_handle.hdgc_declared and not getattr(_sys.excepthook, "hdgc_mpi_abort", False):
    _sys.excepthook = _abort_job_after(_sys.excepthook)


__all__ = ["Problem", "Result", "Field", "State", "Error", "convergence", "Convergence", "library_path",
           "mpi_rank", "mpi_size"]
