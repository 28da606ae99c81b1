/* petsc.h — PETSc as the solver of the HDG trace system (`--solver petsc`).
 * runtime/petsc/petsc.c is the only file that includes petsc.h; the drivers call
 * this small API.
 *
 * PETSc links some 100 shared libraries (MPI, hypre, MUMPS...): they are
 * loaded only by a run that uses it. runtime/petsc/petsc.c is built alone as the
 * module libhdgc_petsc.so, which hdg_petsc_solve (runtime/petsc/petsc_load.c)
 * opens on its first call: $HDGC_PETSC_MODULE, else next to the executable,
 * else in the build directory.
 *
 * PETSc (with MPI) is initialised once, on the first solve, serial on
 * PETSC_COMM_SELF (a binary started without mpirun: Open MPI's singleton),
 * with PETSc's signal handler off, and finalised at exit. Options: the
 * PETSC_OPTIONS environment variable (read by PETSc), then the string given
 * to the solve (--petsc "-ksp_type cg -pc_type gamg"), which wins.
 *
 * The matrix goes to PETSc as MATSEQBAIJ of block size m (one block row per
 * face, the blocks of hdg_blockmat's rows; padding skipped). Defaults: CG
 * (symmetric) or GMRES, PC GAMG, the given rtol and maxit; KSPSetFromOptions
 * last, so the options win. PETSc's errors (an unknown type, a bad value)
 * come back as HDG_EINPUT with PETSc's message; nothing is printed. */
#ifndef HDG_PETSC_H
#define HDG_PETSC_H

#include "hdg.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"

#define HDG_PETSC_MAX_NULL 16   /* null vectors (HDG_HDG_NULL_MAXC) */
typedef struct hdg_petsc_opts {
    const char *options;   /* PETSc options string, or NULL */
    int symmetric;         /* default KSP: cg when 1, else gmres */
    double rtol;
    int maxit;
    int restart;           /* GMRES restart (default of the gmres KSP) */
    const double *z;       /* nz vectors of nf*m each: the null space of the matrix, or NULL */
    int nz;                /* how many (0 with z: 1) */
} hdg_petsc_opts;

typedef struct hdg_petsc_info {
    char ksp_type[64], pc_type[64], reason[64];
    int iterations;
    double residual;       /* true ||b - A x|| / ||b|| */
    int converged;         /* converged reason > 0 */
    double init_seconds;   /* loading the module and initialising MPI + PETSc (first solve only, else 0) */
    double prior_seconds;  /* of init_seconds, what was spent before the call: the module's load by an
                              earlier hdg_petsc_available() (which picks the default preconditioner) */
    double sv_min, sv_max; /* PETSc's estimates of the extreme singular values (CG: eigenvalues) of the
                              preconditioned operator (KSPComputeExtremeSingularValues: CG, GMRES and
                              FGMRES, after at least one iteration), else 0 */
    double preonly_rtol;   /* KSP preonly: the rtol its one application was held to, else 0 */
} hdg_petsc_info;

/* KSP preonly (--petsc "-ksp_type preonly ...") stops after one application of the
 * preconditioner and calls that converged whatever the PC: it counts as converged only
 * when the true relative residual is at most max(rtol, this) (an exact LU gives 1e-15..1e-13). */
#define HDG_PETSC_PREONLY_RTOL 1e-10

/* 1 when the module loads (it stays loaded), else 0. */
int hdg_petsc_available(void);

/* The path of the loaded module ("" before the first load). */
const char *hdg_petsc_module_path(void);
/* The Open MPI settings the load made for a process that no launcher started
 * ("OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_pml=ob1": a singleton's
 * MPI_Init in 0.02 instead of 0.3 s), less those the user had set; "" when none.
 * They leave the environment again once MPI has started. */
const char *hdg_petsc_mpi_defaults(void);

/* Solves B x = b (x: initial guess in, solution out). HDG_ESOLVER when
 * PETSc's converged reason is a divergence (named in the message; info is
 * filled), HDG_EINPUT for a bad option, HDG_EINTERNAL for other PETSc
 * failures. */
hdg_status hdg_petsc_solve(const hdg_blockmat *B, const double *b, double *x, const hdg_petsc_opts *o,
                           hdg_petsc_info *info, hdg_error *err);
/* The same, in the module (what hdg_petsc_solve calls). */
typedef hdg_status (*hdg_petsc_solve_fn)(const hdg_blockmat *B, const double *b, double *x, const hdg_petsc_opts *o,
                                         hdg_petsc_info *info, hdg_error *err);
hdg_status hdg_petsc_module_solve(const hdg_blockmat *B, const double *b, double *x, const hdg_petsc_opts *o,
                                  hdg_petsc_info *info, hdg_error *err);

/* The coarse solve of --precond mg (runtime/solve/mg.h): one application of a
 * PETSc preconditioner to a sparse matrix, as KSP preonly with PC hypre
 * BoomerAMG by default (GAMG where PETSc has no hypre); the options string
 * and PETSC_OPTIONS (-pc_type gamg, -pc_hypre_boomeramg_...) win, and one
 * that the set-up did not use is refused. info gets the types and the
 * initialisation time; iterations etc. stay 0. apply returns 0, or PETSc's
 * error code (then y is NaN). */
typedef struct hdg_petsc_amg hdg_petsc_amg;
hdg_status hdg_petsc_amg_create(const hdg_csr *A, const char *options, hdg_petsc_amg **h,
                                hdg_petsc_info *info, hdg_error *err);
int hdg_petsc_amg_apply(hdg_petsc_amg *h, const double *x, double *y);
void hdg_petsc_amg_free(hdg_petsc_amg *h);

/* The module's functions (what the three above call). */
typedef hdg_status (*hdg_petsc_amg_create_fn)(const hdg_csr *A, const char *options, hdg_petsc_amg **h,
                                              hdg_petsc_info *info, hdg_error *err);
typedef int (*hdg_petsc_amg_apply_fn)(hdg_petsc_amg *h, const double *x, double *y);
typedef void (*hdg_petsc_amg_free_fn)(hdg_petsc_amg *h);
hdg_status hdg_petsc_module_amg_create(const hdg_csr *A, const char *options, hdg_petsc_amg **h,
                                       hdg_petsc_info *info, hdg_error *err);
int hdg_petsc_module_amg_apply(hdg_petsc_amg *h, const double *x, double *y);
void hdg_petsc_module_amg_free(hdg_petsc_amg *h);

/* ---------------------------------------------------------------- mpirun (issue 16) */

/* The module's MPI calls (runtime/parallel/comm.h), or NULL (err filled) when the
 * module does not load. */
struct hdg_comm_ops;
struct hdg_comm_ops *hdg_petsc_comm_ops(hdg_error *err);

/* The trace system of a distributed mesh (runtime/parallel/mesh_dist.h), collective:
 * each rank passes its piece's matrix B (assembled from its own elements,
 * Dirichlet dofs eliminated: rows of interface faces are partial sums) and
 * fgid, the global id of each of its B->nf faces; the rank owns the ids
 * fstart .. fstart + nf_owned - 1. create sums the pieces into one MPIAIJ
 * matrix of block size m and sets up its solver once (defaults and options
 * as hdg_petsc_solve; o->z, given on every face of the piece: the constant
 * null space); apply solves with the right-hand side
 * b (the pieces' partial sums too): x, the guess on the owned faces in, the
 * solution on every face of the piece out; info: the global solve. fgid
 * must outlive the solver. A PETSc failure on one rank of several (out of
 * memory) ends the job (MPI_Abort) with the message on $HDGC_ERROR_FD or
 * stderr: the others would wait for it in a collective. */
/* mg (optional): the two-level preconditioner of runtime/solve/mg.h built by
 * PETSc's PCMG on the distributed matrix: P takes the P1 functions on the
 * whole mesh's (topological) vertices, one per trace component, to the faces
 * (modes 0 and 1: the hat coefficients al, be), none on a fixed (face,
 * component) (an eliminated Dirichlet face) and none from a vertex of a fixed
 * face on any rank; the coarse operator is P^T B P (coarse unknowns whose
 * diagonal vanishes are pinned), solved by one BoomerAMG cycle (GAMG without
 * hypre), the smoother Chebyshev on point-block (face-block) Jacobi, two
 * steps before and after. fv: the piece's faces' vertices (topological, 2 a
 * face), vgid their global numbers, rank r owning vstart .. vstart +
 * nv_owned - 1 of nv_global; fixed: nf * ncomp flags. */
#define HDG_PETSC_MG_MAX_NK 256   /* face modes: (k+1)(k+2)/2 <= 231 for k <= 20 */
typedef struct hdg_petsc_dist_mg {
    int nk, nv;
    const int *fv;
    const long long *vgid;
    long long vstart, nv_global;
    int nv_owned;
    const unsigned char *fixed;
    int nvf;                          /* vertices a face: 2 (edges) or 3 (triangles) */
    double H[3 * HDG_PETSC_MG_MAX_NK]; /* hdg_mg_hat_coefficients: H[v*nk + i] */
} hdg_petsc_dist_mg;

typedef struct hdg_petsc_dist {
    const long long *fgid;
    long long fstart, nf_global;
    int nf_owned;
    const hdg_petsc_dist_mg *mg;   /* NULL: GAMG on the trace matrix (or the options' PC) */
} hdg_petsc_dist;
typedef struct hdg_petsc_dsolver hdg_petsc_dsolver;
hdg_status hdg_petsc_dist_create(const hdg_blockmat *B, const hdg_petsc_dist *d, const hdg_petsc_opts *o,
                                 hdg_petsc_dsolver **h, hdg_petsc_info *info, hdg_error *err);
hdg_status hdg_petsc_dist_apply(hdg_petsc_dsolver *h, const double *b, double *x, hdg_petsc_info *info,
                                hdg_error *err);
void hdg_petsc_dist_free(hdg_petsc_dsolver *h);
typedef hdg_status (*hdg_petsc_dist_create_fn)(const hdg_blockmat *B, const hdg_petsc_dist *d,
                                               const hdg_petsc_opts *o, hdg_petsc_dsolver **h,
                                               hdg_petsc_info *info, hdg_error *err);
typedef hdg_status (*hdg_petsc_dist_apply_fn)(hdg_petsc_dsolver *h, const double *b, double *x,
                                              hdg_petsc_info *info, hdg_error *err);
typedef void (*hdg_petsc_dist_free_fn)(hdg_petsc_dsolver *h);
hdg_status hdg_petsc_module_dist_create(const hdg_blockmat *B, const hdg_petsc_dist *d, const hdg_petsc_opts *o,
                                        hdg_petsc_dsolver **h, hdg_petsc_info *info, hdg_error *err);
hdg_status hdg_petsc_module_dist_apply(hdg_petsc_dsolver *h, const double *b, double *x, hdg_petsc_info *info,
                                       hdg_error *err);
void hdg_petsc_module_dist_free(hdg_petsc_dsolver *h);

/* ---------------------------------------------------------------- SNES (issue 41) */

/* Newton for nonlinear HDG through PETSc's SNES (`--newton snes`; drivers/run_hdg_snes.c,
 * runtime/petsc/petsc_snes.c), serial or over PETSC_COMM_WORLD (opts.world; one solve a call:
 * the steady run, or one implicit solve of a time scheme). SNES owns the iteration on x (n values: the element
 * rows, then the trace rows); the driver gives F(x), sets the Jacobian up at a state and
 * applies its exact inverse (static condensation, a trace solve, recovery) as a PCShell.
 * The operator the KSP multiplies by is PETSc's matrix-free J v (MatCreateSNESMF: finite
 * differences of F), which only a Krylov -ksp_type or the line search's slope reads: with
 * the default KSP preonly one step is J^-1 applied to F once, hdgc's own Newton step.
 * Defaults: newtonls with its bt line search, KSP preonly, PC shell, rtol/atol/max_it as
 * given; the options string (after PETSC_OPTIONS) wins, and one that the solve did not use
 * is refused. Callbacks return 0, or -1 with err filled; residual returns 1 for a state
 * where F is not finite (SNESSetFunctionDomainError: the line search backs off). */
typedef struct hdg_petsc_snes_ops {
    void *ctx;
    long long n;
    int (*residual)(void *ctx, const double *x, double *F, double *floor_, hdg_error *err);
    int (*jacobian)(void *ctx, const double *x, hdg_error *err);
    int (*apply)(void *ctx, const double *b, double *y, hdg_error *err);
    /* each iteration's |F| (it 0: the start) and the step length its line search took (1 at it 0) */
    void (*monitor)(void *ctx, int it, double fnorm, double lambda);
} hdg_petsc_snes_ops;

typedef struct hdg_petsc_snes_opts {
    const char *options;   /* the user's PETSc options (-snes_*, -ksp_*, -pc_*), or NULL */
    double rtol, atol;     /* SNES tolerances on |F| (atol <= 0: PETSc's) */
    int max_it;            /* SNES's step limit */
    int world;             /* under mpirun: x is this rank's rows of one vector over PETSC_COMM_WORLD */
} hdg_petsc_snes_opts;

typedef struct hdg_petsc_snes_info {
    char snes_type[32], linesearch[32], ksp_type[32], pc_type[32], reason[48];
    int reason_code;       /* SNESConvergedReason: > 0 converged */
    int steps;             /* SNES iterations */
    int ksp_iterations;    /* of SNES's KSP (preonly: one a step) */
    int floor_stop;        /* converged at the attainable accuracy (|F| <= floor) */
    double init_seconds, prior_seconds;   /* as hdg_petsc_info */
} hdg_petsc_snes_info;

/* The solve from x (in: the first guess; out: the last iterate). HDG_ESOLVER when SNES
 * diverged (info filled, the reason named in err), HDG_EINPUT for a bad or unused option,
 * a callback's status when one failed. */
hdg_status hdg_petsc_snes_solve(const hdg_petsc_snes_ops *ops, const hdg_petsc_snes_opts *o, double *x,
                                hdg_petsc_snes_info *info, hdg_error *err);
typedef hdg_status (*hdg_petsc_snes_solve_fn)(const hdg_petsc_snes_ops *ops, const hdg_petsc_snes_opts *o,
                                              double *x, hdg_petsc_snes_info *info, hdg_error *err);
hdg_status hdg_petsc_module_snes_solve(const hdg_petsc_snes_ops *ops, const hdg_petsc_snes_opts *o, double *x,
                                       hdg_petsc_snes_info *info, hdg_error *err);

/* Inside the module: PETSc started once (collective under mpirun). */
hdg_status hdg_petsc_module_start(hdg_error *err);

#endif
