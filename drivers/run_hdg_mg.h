/* run_hdg_mg.h — --precond mg for the HDG drivers: the coarse space
 * (runtime/solve/mg.h) from the assembled trace matrix and the mesh, its coarse
 * matrix handed to PETSc's AMG (runtime/petsc/petsc.h), and the cycle as an
 * operator on host vectors. */
#ifndef HDG_RUN_HDG_MG_H
#define HDG_RUN_HDG_MG_H

#include "drivers/run.h"
#include "hdg.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/krylov.h"
#include "runtime/mesh/mesh.h"
#include "runtime/solve/mg.h"
#include "runtime/petsc/petsc.h"
#include "runtime/output/report.h"

typedef struct hdg_hdg_mg {
    hdg_mg_coarse C;
    hdg_petsc_amg *amg;
    hdg_linop D;           /* face-block Jacobi (host) */
    hdg_mg g;
    const hdg_blockmat *B; /* host: the fused smoother passes' matrix */
    const double *Di;      /* and its inverse diagonal blocks */
    hdg_blockmat_lo lo;    /* single-precision copies of both (the default), or zeros */
} hdg_hdg_mg;

/* The coarse space and its AMG (both drivers): nk = k+1 face modes,
 * null_mask: bit c set when the constants of trace component c are a null
 * vector of the trace matrix (runtime/solve/mg.h), petsc: options of
 * the coarse solve (or NULL). Reports solver.mg.* and timings. */
hdg_status hdg_hdg_mg_coarse(hdg_hdg_mg *h, const hdg_blockmat *B, const hdg_mesh *M, int nk, unsigned null_mask,
                             const char *petsc, hdg_report *rep, hdg_error *err);
/* solver.mg.lmax and solver.mg.smoothing_steps of an initialised cycle. */
void hdg_hdg_mg_report(hdg_report *rep, const hdg_mg *g);
/* The coarse solve as an operator on host vectors of C.nc. */
hdg_linop hdg_hdg_mg_coarse_op(hdg_hdg_mg *h);

/* Everything on the host: coarse space, block Jacobi, cycle; *Mop the
 * preconditioner. */
hdg_status hdg_hdg_mg_host(hdg_hdg_mg *h, const hdg_blockmat *B, const hdg_mesh *M, int nk, unsigned null_mask,
                           const char *petsc, hdg_report *rep, hdg_linop *Mop, hdg_error *err);
void hdg_hdg_mg_free(hdg_hdg_mg *h);

/* Under mpirun (o->dist, o->dist_mg): the pieces of the two-level PCMG for
 * the distributed solve (runtime/petsc/petsc.h, hdg_petsc_dist_mg) from the piece's
 * trace matrix B (Dirichlet eliminated) and mesh; g->fixed is allocated (free
 * it). Returns 0 without building when the run wants no PCMG (not asked, or
 * a null space: then GAMG). */
int hdg_hdg_dist_mg(const hdg_run_options *o, const hdg_mesh *M, const hdg_blockmat *B, int nk, unsigned null_mask,
                    hdg_petsc_dist_mg *g, hdg_error *err);

#endif
