/* run_hdg_internal.h — the host HDG driver's state and stages (run_hdg.c),
 * shared with the implicit time stepping of transient HDG problems
 * (run_hdg_time.c), which repeats the rhs, solve and recovery every step on
 * one trace matrix. Not a public interface: compiler/ only. */
#ifndef HDG_RUN_HDG_INTERNAL_H
#define HDG_RUN_HDG_INTERNAL_H

#include "compiler/pipeline.h"
#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "drivers/run_hdg_mg.h"
#include "drivers/run_hdg_null.h"
#include "ir/lower.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/fem/geometry.h"
#include "runtime/solve/krylov.h"
#include "runtime/mesh/mesh.h"
#include "support/progress.h"

typedef struct hdg_run {
    const hdg_problem *p;
    hdg_mesh *mesh;
    const hdg_run_options *o;
    hdg_report *rep;
    hdg_lowered L;
    hdg_compiled cc;
    hdg_geom geo;
    double *params;      /* the problem's, then sigma (transient, L.p_sigma) */
    double *geom;        /* ne * ngeom */
    double *Ke, *Fe;     /* ne * nt * nt, ne * nt */
    hdg_hdg_maps maps;   /* the trace basis' orientation maps */
    hdg_blockmat B;
    double *rhs, *x;     /* nf * m */
    unsigned char *isdir;
    unsigned char *dofdir;  /* nf * m: the Dirichlet dofs (a face may be Dirichlet for some components) */
    int mixed;              /* some face is Dirichlet for part of its dofs */
    double *xD;
    double *xe;          /* ne * nl element dofs */
    double *xp;          /* ne * npost post-processed dofs */
    double *eta;         /* ne: the error estimate per element (hdg_hdg_estimate_stage), or NULL */
    int negated;
    double asym;         /* relative asymmetry of K_e */
    double amax;         /* largest |entry| of K_e */
    double *z;           /* constant null space of the trace system (run_hdg_null.h), or NULL */
    int null_u, null_c;  /* then: the element unknown and component whose mean fixes the constant */
    unsigned null_mask;  /* bit c: the constants of trace component c are a null vector (for mg) */
    int nz;              /* several free constants (run_hdg_null.h): z holds nz orthonormal vectors, fixes */
    hdg_hdg_null_fixes *fixes;   /* their 'mean' conditions; NULL with one vector (z, null_u, null_c) */
    double t;            /* the time the kernels see (0 when steady) */
    double *hist;        /* transient: the scheme's history h (ne * nl), or NULL */
    double *state_l;     /* nonlinear (Newton): the state's element dofs the local and recover kernels read */
    double *state_te;    /* ... and its trace, element view (ne * nt) */
} hdg_run;

/* Kernel arguments over n items (params, time r->t) and a kernel by name. */
hdg_kargs hdg_hdg_kargs(const hdg_run *r, const double *geom, long long n);
hdg_kernel_fn hdg_hdg_kernel(const hdg_run *r, const char *name, hdg_error *err);

/* K_e, F_e (sign decided and reported); the trace matrix and right-hand side
 * (allocated on the first call); the Dirichlet data at r->t (r->isdir, r->xD);
 * the element unknowns from r->x (r->xe); post-processing, errors, output. */
hdg_status hdg_hdg_local_stage(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_assemble_stage(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_dirichlet_data(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_recover(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_post_stage(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_errors_stage(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_estimate_stage(hdg_run *r, hdg_error *err);
hdg_status hdg_hdg_output_stage(hdg_run *r, hdg_error *err);

/* A Krylov solver of the current r->B with its preconditioner, set up once. */
typedef struct hdg_hdg_ksp {
    hdg_hdg_solver s;
    long long n;
    hdg_linop A, M;
    hdg_csr csr;
    hdg_hdg_mg mg;
    struct hdg_petsc_dsolver *dist;   /* under mpirun: PETSc's solver of the distributed matrix */
    double dist_init_seconds;
    hdg_hdg_definite def;             /* the definiteness test's verdict (for the uniqueness probe) */
} hdg_hdg_ksp;
hdg_status hdg_hdg_ksp_init(hdg_hdg_ksp *K, hdg_run *r, hdg_error *err);
/* r->B r->x = r->rhs from the guess in r->x; reports solver.* (the last solve). */
hdg_status hdg_hdg_ksp_solve(hdg_hdg_ksp *K, hdg_run *r, hdg_solve_info *info, hdg_error *err);
void hdg_hdg_ksp_free(hdg_hdg_ksp *K);

/* Transient HDG (run_hdg_time.c): the steps from the initial state to the
 * final time, then post-processing, errors and output at the final time. */
hdg_status hdg_run_hdg_time(hdg_run *r, hdg_progress *line, hdg_error *err);

/* Nonlinear HDG (run_hdg_newton.c): Newton from the first guess to the converged
 * state in r->xe, r->x (docs/solvers.md, "Newton"). */
hdg_status hdg_run_hdg_newton(hdg_run *r, hdg_error *err);
/* The same through PETSc's SNES (--newton snes; run_hdg_snes.c): host, serial, steady. */
hdg_status hdg_run_hdg_snes(hdg_run *r, hdg_error *err);

#endif
