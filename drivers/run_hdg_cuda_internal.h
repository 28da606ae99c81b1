/* run_hdg_cuda_internal.h — the device HDG driver's state and stages, shared
 * by its files: the driver, set-up and compile (run_hdg_cuda.c), the stages
 * around the solve (run_hdg_cuda_stages.c), the solve (run_hdg_cuda_solve.c)
 * and implicit time stepping (run_hdg_cuda_time.c), as run_hdg_internal.h is
 * on the host. Not a public interface: compiler/ only. */
#ifndef HDG_RUN_HDG_CUDA_INTERNAL_H
#define HDG_RUN_HDG_CUDA_INTERNAL_H

#include <stdint.h>

#include "compiler/pipeline_cuda.h"
#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "drivers/run_hdg_mg.h"
#include "drivers/run_hdg_null.h"
#include "ir/lower.h"
#include "runtime/cuda/cuda_linalg.h"
#include "runtime/cuda/cuda_trace.h"
#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"
#include "runtime/solve/mg.h"
#include "runtime/petsc/petsc.h"
#include "support/progress.h"

typedef struct drun {
    const hdg_problem *p;
    hdg_mesh *mesh;
    const hdg_run_options *o;
    hdg_report *rep;
    hdg_cuda_device *dev;
    hdg_lowered L;
    hdg_cuda_compiled cc;
    hdg_cuda_linalg la;
    hdg_cuda_topology T;
    hdg_cuda_blockmat B;
    hdg_geom geo;
    double *geom_h;                     /* ne * ngeom, kept for VTK */
    double *eta;                        /* ne: the error estimate per element (host), or NULL */
    unsigned char *dofdir;              /* nf * m: the Dirichlet dofs of the last elimination (host) */
    double *xD;                         /* nf * m: their values (host) */
    hdg_cuptr geom, params, Ke, Fe, rhs, x, uh, xe, xp;
    int negated;
    double asym;         /* relative asymmetry of K_e */
    double amax;         /* largest |entry| of K_e */
    int null_t;          /* the form's scalar trace candidate for the left null vector test (-1: none) */
    hdg_hdg_null_fix fix; /* the constant null space (run_hdg_null.h): fix.c.t -1 when none */
    int left_null;       /* a non-symmetric K with the constants as left null vector */
    hdg_cuptr z;         /* its vector on the device (0: none); several free constants: nz orthonormal ones */
    double *zh;          /* the same on the host (the PETSc solves, the probes), or NULL */
    int nz;              /* how many (0: none) */
    unsigned null_mask;  /* bit c: the constants of trace component c are a null vector (for mg) */
    hdg_hdg_null_fixes *fixes;   /* several: their 'mean' conditions (NULL with one: fix) */
    double t;            /* the time the kernels see (0 when steady) */
    hdg_cuptr hist;      /* transient: the scheme's history (ne * nl), or 0 */
    int assembled;       /* the topology and the matrix are on the device */
    long long nsteps;    /* transient: the steps done (the final snapshot's step) */
    int series;          /* transient: the --vtk series is written (the output stage writes no .vtu) */
    hdg_cuptr sl, ste;   /* nonlinear (Newton): the state the local and recover kernels read: the element
                          * dofs (ne * nl) and the trace, element view (ne * nt) */
} drun;

#define DPTR(p) ((double *)(uintptr_t)(p))

/* The preconditioner of the device solve: Jacobi or face-block Jacobi on
 * the device, or --precond mg (run_hdg_mg.h): the coarse space and its AMG
 * are built on the host from the downloaded matrix (as the host driver's),
 * then the cycle runs on device vectors with the device matrix, the device
 * face-block Jacobi as the smoother's D and P, R uploaded; only the coarse
 * solve (nc unknowns) stays on the host, its vectors copied down and up. */
typedef struct dprecond {
    hdg_cuda_precond P;        /* block or jacobi; the smoother's D for mg */
    hdg_hdg_mg mg;             /* the coarse space and its AMG (host) */
    hdg_cuda_csr dP, dR, dAP;
    hdg_cuda_host_op cs;       /* the coarse solve on device vectors */
    hdg_mg g;
    hdg_linop M;               /* apply NULL: none */
} dprecond;

/* Kernel arguments over n items, a kernel launch by name, a device array of
 * doubles. */
hdg_kargs hdg_dcu_kargs(const drun *r, hdg_cuptr geom, long long n);
hdg_status hdg_dcu_launch(drun *r, const char *name, long long n, const hdg_kargs *a, hdg_error *err);
hdg_status hdg_dcu_dalloc(drun *r, size_t doubles, hdg_cuptr *p, hdg_error *err);
/* A device copy of bytes at h (*p allocated). */
hdg_status hdg_dcu_upload(drun *r, const void *h, size_t bytes, hdg_cuptr *p, hdg_error *err);

/* K x on host vectors, the product on the device (hdg_dcu_definiteness, hdg_dcu_null_find);
 * y = 0 after a failure, which the callers check (a->st) before using y. */
typedef struct hdg_dcu_apply {
    drun *r;
    hdg_cuptr x, y;
    hdg_status st;
    hdg_error err;
} hdg_dcu_apply;
void hdg_dcu_device_apply(void *ctx, const double *x, double *y);
/* F_e back on the host to name the element with NaN/Inf. */
hdg_status hdg_dcu_fe_finite(drun *r, hdg_error *err);
/* K_e, F_e (sign decided); the trace matrix and rhs (re)assembled from them;
 * the Dirichlet data at r->t eliminated. */
hdg_status hdg_dcu_local_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_assemble_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_dirichlet_stage(drun *r, hdg_error *err);
/* The topology, the matrix and rhs allocated on the device (once; the assembly's first step). */
hdg_status hdg_dcu_trace_setup(drun *r, hdg_error *err);
/* The Dirichlet stage's two halves: the data at r->t (r->dofdir, r->xD, r->null_t), and
 * their elimination from r->B, r->rhs. */
hdg_status hdg_dcu_dirichlet_data(drun *r, hdg_error *err);
hdg_status hdg_dcu_dirichlet_eliminate(drun *r, hdg_error *err);
/* The null space of the device trace matrix (run_hdg_null.h; collective under mpirun). */
hdg_status hdg_dcu_null_find(drun *r, hdg_hdg_null *N, hdg_error *err);
/* The device preconditioner of r->B (mg, block, jacobi, none); petsc: the options of mg's
 * coarse solve (hdg_hdg_solver.petsc). */
hdg_status hdg_dcu_precond_setup(drun *r, const char *name, const char *petsc, dprecond *d, hdg_error *err);
/* The definiteness of r->B (hdg_hdg_definiteness: the products on the device, the sums on the host). */
hdg_status hdg_dcu_definiteness(drun *r, hdg_hdg_definite *d, hdg_error *err);
/* The direct solve of an indefinite system (s->method "petsc", serial): r->B and r->rhs come to
 * the host, PETSc solves (s->petsc), the solution goes back into r->x; reported. */
hdg_status hdg_dcu_direct_solve(drun *r, hdg_hdg_solver *s, hdg_solve_info *info, hdg_error *err);
void hdg_dcu_precond_free(dprecond *d);
/* Under mpirun: PETSc's solver of the pieces' matrices summed (set up from
 * r->B brought to the host), and one solve with r->rhs into r->x from the device
 * vector guess (0: from zero). */
hdg_status hdg_dcu_dist_setup(drun *r, const hdg_hdg_solver *s, hdg_petsc_dsolver **h, double *init,
                              hdg_error *err);
hdg_status hdg_dcu_dist_apply(drun *r, hdg_hdg_solver *s, hdg_petsc_dsolver *h, double init, hdg_cuptr guess,
                              hdg_solve_info *info, hdg_error *err);
/* The element unknowns from r->x (with the history r->hist); u*. */
hdg_status hdg_dcu_recover(drun *r, hdg_error *err);
hdg_status hdg_dcu_post_stage(drun *r, hdg_error *err);

/* The steady stages of hdg_run_hdg_cuda, in its order after the Dirichlet
 * stage (run_hdg_cuda_stages.c, run_hdg_cuda_solve.c): the null space (the
 * right-hand side checked and projected), the trace solve into r->x, recovery
 * with the mean fixed, the errors, the estimate, the output. */
hdg_status hdg_dcu_null_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_solve_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_recover_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_errors_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_estimate_stage(drun *r, hdg_error *err);
hdg_status hdg_dcu_output_stage(drun *r, hdg_error *err);

/* Transient HDG on the device (run_hdg_cuda_time.c): the steps to the final
 * time; post-processing, errors and output then follow as for a steady run. */
hdg_status hdg_dcu_time_stage(drun *r, hdg_progress *line, hdg_error *err);

/* Nonlinear HDG on the device (run_hdg_cuda_newton.c): Newton's loop of the host
 * (run_hdg_newton.h) with the device's operations; the solution in r->x, r->xe, then
 * post-processing, errors and output follow as for a linear run. */
hdg_status hdg_dcu_newton_stage(drun *r, hdg_error *err);
/* The same pieces for the time steps (run_hdg_cuda_time.c): the device's Newton on r (its
 * state's storage on the device and the host; close also after a failure), its state
 * (hdg_newton_solve from it; the solution op puts it in r->xe, r->x), and the Dirichlet
 * data r->xD on the Dirichlet dofs of the state's trace. */
typedef struct hdg_dcu_newton hdg_dcu_newton;
struct hdg_newton;
hdg_status hdg_dcu_newton_open(drun *r, hdg_dcu_newton **D, hdg_error *err);
struct hdg_newton *hdg_dcu_newton_state(hdg_dcu_newton *D);
void hdg_dcu_newton_dirichlet(hdg_dcu_newton *D);
void hdg_dcu_newton_close(hdg_dcu_newton *D);

#endif
