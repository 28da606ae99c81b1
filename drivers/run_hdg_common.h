/* run_hdg_common.h — what the host HDG driver (run_hdg.c) and the device one
 * (run_hdg_cuda.c) share: the decisions (sign and symmetry of the trace
 * system, solver and preconditioner), the Dirichlet data of the boundary
 * faces, and the reports and output made from the results. Each is one
 * function so that both backends decide and report the same way. The solver
 * choice and the solve's report are in run_hdg_solver.c, the rest in run_hdg_common.c. */
#ifndef HDG_RUN_HDG_COMMON_H
#define HDG_RUN_HDG_COMMON_H

#include "drivers/run.h"
#include "ir/lower.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/krylov.h"
#include "runtime/mesh/mesh.h"
#include "support/progress.h"

/* The problem's parameter values (nparams + 1 doubles, owned by the caller). */
double *hdg_hdg_params(const hdg_problem *p);

/* The orientation maps of L's trace basis (runtime/solve/blockmat.h hdg_face_maps),
 * for any dimension: per trace component S_o[b][a] = integral over the reference face
 * of phi_b(o(x)) phi_a(x) (o(x): hdg_face_orient_coords, the coordinates in the
 * element's own face parameterisation), exact by a rule of degree 2k: the
 * element's coefficients are S_o times the canonical ones, S_o orthogonal. When
 * every S_o is diagonal to HDG_HDG_MAP_TOL (triangles: S_1 = diag((-1)^i)) the maps
 * are their signs, exactly (hdg_face_maps.diag; the flip vector's arithmetic), else
 * dense (tetrahedra). */
#define HDG_HDG_MAP_TOL 1e-12
typedef struct hdg_hdg_maps {
    hdg_face_maps S;
    double *buf;
} hdg_hdg_maps;
void hdg_hdg_face_maps(const hdg_lowered *L, hdg_hdg_maps *M);
void hdg_hdg_face_maps_free(hdg_hdg_maps *M);

/* A transient run's final time and steps: --final-time or the file's 'final',
 * --dt or the file's 'dt' (hdg_time_steps rounds the steps up to land on it).
 * Host and device drivers. */
hdg_status hdg_hdg_time_plan(const hdg_problem *p, const hdg_run_options *o, double *final, double *dt,
                             long long *nsteps, hdg_error *err);

/* Transient: some term of the trace system's matrix (an atom with an unknown of
 * the main system, dt() terms included) has a coefficient that depends on t, so
 * K_e, the trace matrix and its preconditioner change in time. Host and device drivers. */
int hdg_hdg_matrix_depends_on_t(const hdg_problem *p);

/* dofs.* of the report. */
void hdg_hdg_report_dofs(hdg_report *rep, const hdg_mesh *mesh, const hdg_lowered *L);

/* From this rank's sum of the element matrices' diagonals, their largest
 * entry and largest asymmetry (summed and maxed over the ranks here, so every
 * rank decides alike): fails on NaN/Inf, decides whether the system is negated
 * (a negative trace diagonal: the equation times -1), gives the largest entry
 * over all ranks (*amax_all) and the relative asymmetry max|K - K^T| / max|K|
 * (symmetric: <= HDG_HDG_SYMMETRIC), reports. Host and device drivers. */
#define HDG_HDG_SYMMETRIC 1e-12
/* The diagonal of the eliminated Dirichlet rows (hdg_blockmat_apply_dirichlet_dofs):
 * the power of two nearest amax / 8, amax the largest |entry| of K_e (1 if amax is 0 or
 * not finite). Proportional to the operator, so that a relative residual means the same
 * at every scale; below the free rows' Dirichlet lifting terms (about amax x_D) so that
 * ||F|| is theirs, not much below so that the Dirichlet rows are not solved loosely;
 * 1 for LDG-H Poisson with kappa = tau = 1 at k = 3, 4 (amax 8-11). A power of two, so
 * diag x_D / diag is x_D exactly. */
double hdg_hdg_dirichlet_diag(double amax);
hdg_status hdg_hdg_trace_sign(hdg_report *rep, double diag, double amax, double asym, double *amax_all,
                              int *negated, double *asym_rel, hdg_error *err);

/* K_e (matrix = 1) or F_e (matrix = 0) of element e holds NaN or Inf:
 * fails (HDG_EINPUT) naming the func or term that is not finite there
 * (drivers/nonfinite.h), else saying that the local problem is singular on
 * element e, with the stabilisation term (a face term <c u, w> of an element
 * equation) when it is zero there or absent. */
hdg_status hdg_hdg_bad_element(const hdg_problem *p, const hdg_mesh *M, int e, int matrix, hdg_error *err);
/* Checks the per-element squared errors x (ne * n): the first element with
 * NaN/Inf fails naming the exact solution that is not finite there. */
hdg_status hdg_hdg_check_finite(const hdg_problem *p, const hdg_mesh *M, const double *x, int ne, int n,
                                const char *what, hdg_error *err);

/* Transient: the initial state is not finite on element e; a step's failure (st, err)
 * gets its time appended. */
hdg_status hdg_hdg_initial_not_finite(const hdg_problem *p, int e, hdg_error *err);
hdg_status hdg_hdg_at_time(hdg_error *err, double t, hdg_status st);

/* Definiteness of the trace system K (docs/solvers.md, "Indefinite systems"),
 * judged on the assembled numbers: for each component of each trace unknown
 * (but the one of a constant null space) the constant z (mode 0 on its free
 * faces, Dirichlet dofs excluded) and its energy z'Kz, measured as
 * ratio = z'Kz / (amax |z|^2). ratio < -HDG_HDG_INDEFINITE_TOL: a negative
 * energy (a wave or negative reaction or Robin term: Helmholtz), the
 * symmetric part of K is indefinite; |ratio| <= the tolerance while K z is not
 * ~0: the component has no energy of its own, only a coupling to the others
 * (a Lagrange multiplier such as a pressure trace: a saddle point). Every
 * definite problem of the tests gives ratio >= 0.02 on square:8 (it falls like
 * h: a boundary layer of the free faces). AMG, the mg coarse solve, does not
 * converge on either kind. Under mpirun the sums are over the ranks (each
 * piece's K_piece sums to K), so every rank decides alike. A component whose constant is a
 * null vector (K z ~ 0: the null space's business) is judged by a linear function instead
 * (x + 0.618 y at each face's midpoint, mode 0): a pressure trace with Dirichlet velocity
 * everywhere gives -8.4e-6 on square:8, falling like h^3; a pure-Neumann Poisson trace gives
 * +2.3e-3 there, falling like h^2 (1e-5 on square:128). */
#define HDG_HDG_INDEFINITE_TOL 1e-10
typedef struct hdg_hdg_definite {
    int kind;              /* 0: no sign of indefiniteness; 1: a negative energy; 2: a saddle point */
    double ratio;          /* z'Kz / (amax |z|^2) of the component named in what */
    int linear;            /* z: 0 the component's constant, 1 a linear function (its constant is null) */
    char what[96];         /* "phat", "uhat.x" */
} hdg_hdg_definite;
/* y = K x on the host's vectors (nf * m values of this rank's piece). */
typedef void (*hdg_hdg_apply_fn)(void *ctx, const double *x, double *y);
/* Judges K (apply) as above, reports trace_matrix.definite ("yes", "negative energy", "saddle
 * point") and, when not, trace_matrix.indefinite_component and _energy. dofdir: nf * m flags
 * of the Dirichlet dofs (NULL: none; a null vector among the probes is skipped, or probed
 * again by a linear function); dist: the piece's distribution under mpirun (owned faces), or NULL. Collective. */
void hdg_hdg_definiteness(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, const unsigned char *dofdir,
                          double amax, const struct hdg_mesh_dist *dist, hdg_hdg_apply_fn apply,
                          void *ctx, hdg_report *rep, hdg_hdg_definite *d);

/* The solver, preconditioner, matrix format (validated names) and options. */
typedef struct hdg_hdg_solver {
    const char *method, *precond, *format;
    const char *petsc;   /* the PETSc options in force: o->petsc, or the defaults for an indefinite system
                            (the direct solve's, or the mg coarse solve's), with o->petsc after them */
    int dist_mg;         /* under mpirun: PCMG (o->dist_mg unless an indefinite system's direct solve) */
    char reason[768];    /* why this solver: solver.reason of the report */
    char petsc_buf[2300];
    hdg_solve_opts so;
    hdg_progress line;   /* the Krylov progress line (o->progress; so.monitor points here) */
} hdg_hdg_solver;
/* The defaults (docs/solvers.md):
 *  - precond mg from HDG_HDG_MG_MIN trace unknowns on (below it the set-up,
 *    PETSc's start included, costs more than it saves) when the PETSc module
 *    loads, else block;
 *  - rtol HDG_HDG_RTOL (native) / HDG_HDG_RTOL_PETSC, with stagnation at a
 *    relative residual <= HDG_HDG_ATTAINABLE accepted as convergence at the
 *    attainable accuracy when rtol was not given: the default never limits
 *    the discretisation's accuracy (an explicit --rtol that cannot be reached
 *    stays an error).
 * asym_rel from hdg_hdg_trace_sign: CG (the default when symmetric) on a
 * non-symmetric matrix is refused with the figure. The GMRES restart is at
 * most n. */
#define HDG_HDG_MG_MIN 10000
/* GMRES(100) with face-block Jacobi stagnates on non-symmetric systems much sooner
 * (convection_diffusion, k = 2: 1346 iterations at 2400 unknowns, no convergence at 5328
 * or 9408; mg: 20-22): mg from 2000 unknowns under GMRES */
#define HDG_HDG_MG_MIN_GMRES 2000
#define HDG_HDG_RTOL 1e-14
#define HDG_HDG_RTOL_PETSC 1e-12
#define HDG_HDG_ATTAINABLE 1e-10
/* An indefinite system (def->kind != 0; def NULL: definite), for what the options leave open:
 *  - no --solver, --precond, --format, --petsc: a direct solve, MUMPS's LU through PETSc as
 *    GMRES's preconditioner (one iteration, the residual checked; preonly refuses the nonzero
 *    guess of a distributed solve), up to HDG_HDG_DIRECT_MAX unknowns (HDGC_DIRECT_MAX
 *    overrides it, for tests); above, GMRES with mg whose coarse solve is that LU
 *    (not BoomerAMG), at most HDG_HDG_INDEFINITE_MAXIT iterations, failing with the options
 *    to use; without the PETSc module: refused at once, naming them;
 *  - --solver petsc without --petsc: the direct solve;
 *  - --precond mg (given or by size) without --petsc: the LU coarse solve.
 * Under mpirun (o->dist) the same, as PETSc options before the user's. s->reason says why.
 * The bound is for robustness, not speed: on a quiet machine mg with the LU coarse solve is
 * faster from about 20000 unknowns (Stokes k = 1, docs/solvers.md), but the direct solve does
 * not depend on the indefinite problem being one mg converges on. */
#define HDG_HDG_DIRECT_MAX 100000
#define HDG_HDG_INDEFINITE_MAXIT 500
#define HDG_HDG_DIRECT_OPTIONS "-ksp_type gmres -pc_type lu -pc_factor_mat_solver_type mumps"
#define HDG_HDG_COARSE_LU_OPTIONS "-pc_type lu -pc_factor_mat_solver_type mumps"
#define HDG_HDG_DIST_COARSE_LU_OPTIONS "-mg_coarse_pc_type lu -mg_coarse_pc_factor_mat_solver_type mumps"
hdg_status hdg_hdg_choose_solver(const hdg_run_options *o, double asym_rel, long long n,
                                 const hdg_hdg_definite *def, hdg_hdg_solver *s, hdg_error *err);
/* Reports the solve and erases the progress line. */
void hdg_hdg_report_solve(hdg_report *rep, hdg_hdg_solver *s, const hdg_solve_info *info, hdg_status st);
/* solver.warning when the final relative residual may dominate the error:
 * above max(1e-13, 1e-5 h^(k+2)) (h: the longest face), the level at which
 * the algebraic error of u* (rate k+2) reaches the discretisation error on
 * the tests' smooth solutions (docs/solvers.md). None when the solve stopped
 * at its rounding floor (no rtol goes lower; the summary line says so). */
void hdg_hdg_solve_warning(hdg_report *rep, const hdg_mesh *M, int k, const hdg_hdg_solver *s,
                           const hdg_solve_info *info);

/* A solve whose Krylov estimates (hdg_solve_info.sv_min, sv_max: Lanczos for
 * CG, the Arnoldi Hessenberg for GMRES) put the smallest eigenvalue or
 * singular value of the preconditioned matrix below HDG_HDG_NEAR_SINGULAR
 * times the largest: HDG_EINPUT with both figures (the answer would be fixed
 * by rounding, not by the data). Host and device drivers. */
#define HDG_HDG_NEAR_SINGULAR 1e-12
hdg_status hdg_hdg_near_singular(const hdg_solve_info *info, hdg_error *err);

/* The uniqueness probe, after a steady solve that converged: the Krylov estimates
 * above do not see a null vector that the right-hand side has no part along (a
 * consistent singular system: K symmetric, K z = 0 and z.b = 0 keep every Krylov
 * vector orthogonal to z; a direct LU solve gives no estimates at all), so a
 * second solve by the same solver, for a known solution w (pseudo-random from the
 * global dof numbers, projected off the null space the solve works in: nz orthogonal
 * vectors z, contiguous, or NULL), with the right-hand side K w from x = 0, must return w: its relative
 * error (reported as solver.unique_probe) above HDG_HDG_UNIQUE_TOL fails
 * (HDG_EINPUT) with the figure. A singular K returns w less its part along the
 * null vector (about 1/sqrt(n) of it, 1e-3 and more), or w plus a multiple of it;
 * a regular one w to about cond(K) times the residual. Run (hdg_hdg_probe_wanted)
 * on an indefinite or saddle-point system (hdg_hdg_definiteness), or when the
 * Krylov estimates' ratio is below HDG_HDG_PROBE_RATIO; it costs one more solve
 * (the preconditioner is kept). HDGC_NO_UNIQUE_PROBE set: never. d: under mpirun
 * (w from the global face numbers, norms over the owned faces), else NULL;
 * apply: K x on the piece (partial sums on partition faces: the right-hand side
 * the solve takes); solve: x = K^-1 b from x = 0 (reporting nothing). Collective. */
#define HDG_HDG_UNIQUE_TOL 1e-6
#define HDG_HDG_PROBE_RATIO 1e-8
typedef hdg_status (*hdg_hdg_solve_fn)(void *ctx, const double *b, double *x, hdg_error *err);
int hdg_hdg_probe_wanted(const hdg_hdg_definite *def, const hdg_solve_info *info);
hdg_status hdg_hdg_unique_probe(int nf, int m, const struct hdg_mesh_dist *d, hdg_hdg_apply_fn apply,
                                hdg_hdg_solve_fn solve, void *ctx, const double *z, int nz, hdg_report *rep,
                                hdg_error *err);

/* Boundary faces of Dirichlet condition i of L (faces[n], their geometry
 * fg[n * hdg_gf_size(dim)], lower.h): the number n. faces and fg hold nbf + 1 entries. */
int hdg_hdg_dirichlet_faces(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, int i, int *faces,
                            double *fg);
/* Stores the projected values uD (n faces x ncomp*nk) of condition i into
 * xD (nf*m) and marks the faces in isdir (a bit per trace unknown) and the dofs it fixes in
 * dofdir (nf*m bytes): all of the unknown's, or one component's ('uhat[0] = g'). */
void hdg_hdg_dirichlet_store(const hdg_problem *p, const hdg_lowered *L, int i, const int *faces, int n,
                             const double *uD, unsigned char *isdir, unsigned char *dofdir, double *xD);
/* The projected values uD of condition i on its n faces are finite, else
 * fails naming the data (hdg_hdg_check_finite on the face's element). */
hdg_status hdg_hdg_dirichlet_finite(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, int i,
                                    const int *faces, int n, const double *uD, hdg_error *err);
/* 1 when some face is Dirichlet for part of its m trace dofs only (a component of a vector
 * trace, or one of several trace unknowns): the elimination then goes dof by dof. */
int hdg_hdg_dirichlet_mixed(const hdg_mesh *M, int m, const unsigned char *isdir, const unsigned char *dofdir);

/* errors.<unknown> from the per-element squared errors e2 (ne * nerr),
 * summed in element order. */
void hdg_hdg_report_errors(const hdg_problem *p, const hdg_lowered *L, const double *e2, int ne, hdg_report *rep);

/* The error estimate (docs/method.md): eta2 (ne) holds the kernel's squared
 * ||u* - u||^2 per element; checked finite (else fails naming the element),
 * reported as estimate.<u> = sqrt(sum), and effectivity.<u> = estimate /
 * errors.<u> when the report has that error; eta2 becomes eta_K (square
 * roots, in place). */
hdg_status hdg_hdg_estimate(const hdg_problem *p, const hdg_mesh *M, const hdg_lowered *L, double *eta2,
                            hdg_report *rep, hdg_error *err);

/* --vtk BASE.pvd --every n of a time-dependent HDG run, staged as explicit DG's
 * (run_dg_vtk.c): every state written (the fields as hdg_hdg_output takes them, u*
 * already post-processed) goes to BASE.partial_NNNNN.vtu (.pvtu under mpirun, with pieces
 * BASE.partial_NNNNN_p<rank>.vtu), listed with its time by BASE.partial.pvd, rewritten
 * after each; only a run that reaches its final time renames them to BASE_NNNNN.vtu,
 * writes BASE.pvd and removes the frames of an older, longer series, so a failed run
 * never replaces a previous good series (and says where its output is). */
typedef struct hdg_hdg_series {
    char *base, *partial;    /* the path without .pvd; BASE.partial.pvd */
    char **files;
    double *times;
    int n;
} hdg_hdg_series;
int hdg_hdg_series_wanted(const hdg_run_options *o);
hdg_status hdg_hdg_series_write(hdg_hdg_series *W, const hdg_problem *p, const hdg_lowered *L, int ne,
                                const double *geom, const double *xe, const double *xp, const hdg_run_options *o,
                                double t, hdg_error *err);
/* run: the run's status. HDG_OK: the series is committed (its failure returned); else
 * err's message gets where the staged output is and that BASE.pvd stands, and run is
 * returned. Collective under mpirun. */
hdg_status hdg_hdg_series_close(hdg_hdg_series *W, const hdg_run_options *o, hdg_status run, hdg_error *err);

/* Errors in time: max[u] = max(max[u], L2 error of element unknown u) from the squared
 * errors e2 (ne * nerr) of one state; and errors_max_in_time.<u> in the report. */
void hdg_hdg_errors_track(const hdg_problem *p, const hdg_lowered *L, const double *e2, int ne, double *max);
/* l2[u] = the L2 error of unknown u (NaN: no exact solution, or a post-processed unknown)
 * from the squared errors e2 (ne * nerr), summed over the ranks. From the errors kernel
 * run on a zero state, the L2 norm of u's exact solution. */
void hdg_hdg_errors_l2(const hdg_problem *p, const hdg_lowered *L, const double *e2, int ne, double *l2);

/* The blow-up watch of implicit time stepping (host and device drivers), after every
 * step: unstable (HDG_ESOLVER, blowup.step and blowup.time in the report) when
 *  - the state is not finite;
 *  - the L2 error of an element unknown with an exact solution exceeds
 *    HDG_HDG_BLOWUP_EXACT times the largest L2 norm of that solution (sampled at
 *    HDG_HDG_WATCH_SAMPLES + 1 times in [0, T] before the run, and at every step): a
 *    growth the exact solution does not have (a sound run's relative error is far below 1);
 *  - the state's norm grew more than HDG_HDG_BLOWUP_NORM^2 times over the second half of
 *    the steps so far and more than HDG_HDG_BLOWUP_NORM times over the quarter before
 *    (an exponential growth: a polynomial one, forcing switched on at any time before that
 *    quarter included, stays far below);
 *  - without an exact solution, a steady exponential growth, seen earlier: over each of the
 *    last three windows of step / 4 steps the norm grew at least HDG_HDG_STEADY_WINDOW
 *    times, the three growths' logarithms within a factor HDG_HDG_STEADY_SPREAD of each
 *    other, and HDG_HDG_STEADY_TOTAL times over the three (a polynomial growth t^p has
 *    logarithms in the ratio 2.4 : 1.4 : 1; a forced start from a small state grows in the
 *    first window only; a steady state does not grow). A problem whose solution truly grows
 *    that fast gives its exact solution, which this test then leaves to the error test.
 * BDF3 (not A-stable) on a first-order wave system with little damping grows without
 * bound (tests/heat.cmake, heat_wave_bdf3_unstable). */
#define HDG_HDG_BLOWUP_EXACT 10
#define HDG_HDG_BLOWUP_NORM 1e4
#define HDG_HDG_WATCH_SAMPLES 16
#define HDG_HDG_STEADY_WINDOW 2
#define HDG_HDG_STEADY_SPREAD 1.5
#define HDG_HDG_STEADY_TOTAL 100
typedef struct hdg_hdg_watch {
    const char *scheme;       /* the scheme's name, for the advice */
    double dt;
    double exact_max[32];     /* per unknown: the largest L2 norm of its exact solution */
    double *norms;            /* nsteps + 1: the state's norm after each step (0: the initial state) */
    int has_exact;            /* an exact solution was given (hdg_hdg_watch_exact saw a positive norm) */
} hdg_hdg_watch;
void hdg_hdg_watch_init(hdg_hdg_watch *w, const char *scheme, double dt, long long nsteps);
void hdg_hdg_watch_free(hdg_hdg_watch *w);
/* The L2 norms of the exact solutions at some time (hdg_hdg_errors_l2 of a zero state). */
void hdg_hdg_watch_exact(hdg_hdg_watch *w, const hdg_problem *p, const double *exact);
/* After step `step` (time t; step 0: the initial state): norm, the state's L2 norm (its
 * vector's, summed over the ranks); err (NULL: none) per unknown from hdg_hdg_errors_l2. */
hdg_status hdg_hdg_watch_step(hdg_hdg_watch *w, const hdg_problem *p, double norm, const double *err,
                              long long step, double t, hdg_report *rep, hdg_error *e);
void hdg_hdg_report_errors_max(const hdg_problem *p, const hdg_lowered *L, const double *max, hdg_report *rep);

/* The element fields xe (ne * nl) and the post-processed xp (ne * npost, or
 * NULL) at the lattice of the highest degree among them: written as a .vtu
 * file when o->vtk, handed to o->snapshot when set. */
hdg_status hdg_hdg_output(const hdg_problem *p, const hdg_lowered *L, int ne, const double *geom,
                          const double *xe, const double *xp, const hdg_run_options *o, hdg_error *err);
/* The same with the per-element estimate eta (ne values, or NULL) as the cell
 * field "estimate_<u>" of the .vtu and of the snapshot. */
hdg_status hdg_hdg_output_estimate(const hdg_problem *p, const hdg_lowered *L, int ne, const double *geom,
                                   const double *xe, const double *xp, const double *eta,
                                   const hdg_run_options *o, hdg_error *err);
/* The same for a state of a time-dependent run: the snapshot's t, step and final (the
 * functions above give 0, 0, 1). */
hdg_status hdg_hdg_output_at(const hdg_problem *p, const hdg_lowered *L, int ne, const double *geom,
                             const double *xe, const double *xp, const double *eta, const hdg_run_options *o,
                             double t, long long step, int final, hdg_error *err);

#endif
