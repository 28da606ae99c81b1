/* krylov.h — preconditioned CG and restarted GMRES for the trace system.
 *
 * The solvers see the matrix and the preconditioner only as linear operators
 * (hdg_linop) and vectors only through a table of vector operations
 * (hdg_vecops), so the same code runs on host arrays (hdg_vecops_host) and,
 * with another table, on device memory: b, x and every work vector live in
 * the vecops' memory space; only scalars (dots, norms) come back to the host.
 *
 * Convergence: ||b - A x|| <= max(rtol ||b||, atol), always confirmed on the
 * true residual (recomputed); if the recursive residual says converged but the
 * true one does not, the solver restarts from the current x (counts against
 * maxit). info->residual is the true final ||b - A x|| / ||b||.
 * Errors (HDG_ESOLVER, info filled too): no convergence within maxit
 * ("CG did not converge: 500 iterations, relative residual 3.2e-05 > rtol 1e-10"),
 * stagnation ("CG stagnated at relative residual 4.5e-14 after 196 iterations":
 * the solver's own residual claimed convergence or fell far below the true
 * one, and the true one stopped halving over two restarts, or a breakdown
 * came with the recursive residual far below the true one: a tolerance out
 * of double precision's reach), NaN/Inf anywhere, p^T A p <= 0 in CG
 * ("matrix not SPD"), r^T M r <= 0 ("preconditioner not SPD"). b = 0 gives
 * x = 0 after 0 iterations. GMRES clamps its restart to n and refuses
 * (HDG_ENOMEM, with the figure) a workspace larger than the host's available
 * memory or one the vecops cannot allocate.
 * Dots from hdg_vecops_host are deterministic (see parallel.h), so a solve
 * repeats bit for bit. */
#ifndef HDG_KRYLOV_H
#define HDG_KRYLOV_H

#include "hdg.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"

/* y = Op(x) for vectors of length n (x and y never alias). */
typedef struct hdg_linop {
    void *ctx;
    long long n;
    void (*apply)(void *ctx, const double *x, double *y);
} hdg_linop;

/* Vector operations; ctx is passed to each (a device context, a stream...). */
typedef struct hdg_vecops {
    void *ctx;
    double *(*alloc)(void *ctx, long long n);                                  /* uninitialised */
    void (*free)(void *ctx, double *x);
    double (*dot)(void *ctx, long long n, const double *x, const double *y);
    double (*norm2)(void *ctx, long long n, const double *x);                 /* sqrt(x.x) */
    void (*axpy)(void *ctx, long long n, double a, const double *x, double *y); /* y += a x */
    void (*xpay)(void *ctx, long long n, const double *x, double a, double *y); /* y = x + a y */
    void (*copy)(void *ctx, long long n, const double *x, double *y);         /* y = x */
    void (*scal)(void *ctx, long long n, double a, double *x);                /* x *= a */
    void (*set)(void *ctx, long long n, double a, double *x);                 /* x[i] = a */
} hdg_vecops;

/* Host arrays, threaded on the parallel pool; deterministic reductions. */
const hdg_vecops *hdg_vecops_host(void);

typedef struct hdg_solve_opts {
    double rtol;         /* relative tolerance on ||b - A x|| / ||b|| */
    double atol;         /* absolute tolerance on ||b - A x|| (0: none) */
    int maxit;           /* iterations (matrix applications in the loop) */
    int restart;         /* GMRES restart length m */
    int verbose_every;   /* call monitor every so many iterations (0: never) */
    void (*monitor)(void *monitor_ctx, int iteration, double relres);
    void *monitor_ctx;   /* the library never prints; the monitor may */
    double attainable;   /* > 0: stagnation at a relative residual <= attainable, or within
                            HDG_ROUNDING_FLOOR_FACTOR of the rounding floor (hdg_solve_info.floor),
                            ends the solve as converged at the attainable accuracy
                            (info->stagnated = 1), not as an error; 0: stagnation is an error */
} hdg_solve_opts;

/* The true residual of CG and GMRES stagnates near eps ||A|| ||x|| (measured
 * 0.3-1.3 times it: examples/poisson.hdg, poisson_exp and poisson_bubble at
 * k = 1, 3, 5 on square:16..256, mg, block, jacobi; convection-diffusion
 * under GMRES), which exceeds any fixed relative tolerance on fine meshes
 * (1e-10 at square:512, k = 3) or with large penalties. */
#define HDG_ROUNDING_FLOOR_FACTOR 10.0

/* A floor above this relative residual is no attainable accuracy: eps ||A|| ||x|| is that
 * large only when x is, as for a singular or nearly singular system; such a stagnation is an
 * error whatever the floor (a Newton step of a degenerate Jacobian was accepted at 5.27). */
#define HDG_ROUNDING_FLOOR_MAX 1e-2

/* rtol 1e-10, atol 0, maxit 1000, restart 30, no monitor, stagnation an error. */
hdg_solve_opts hdg_solve_opts_default(void);

typedef struct hdg_solve_info {
    int iterations;
    double residual;     /* true final ||b - A x|| / ||b|| */
    int converged;
    int stagnated;       /* converged by opts.attainable: the residual stopped decreasing above rtol */
    double floor;        /* the rounding floor eps ||A|| ||x|| / ||b|| (||A|| estimated from the
                            stagnated residual), 0 when the solve did not stagnate */
    double seconds;
    double sv_min, sv_max; /* Krylov estimates of the extreme eigenvalues of M^-1 A (CG: the Lanczos
                              matrix of its steps) or singular values of A M^-1 (GMRES: of each cycle's
                              Hessenberg matrix), smallest and largest over the (re)starts; sv_min is an
                              upper bound that tightens as the solve goes on; 0 when unknown */
} hdg_solve_info;

/* Preconditioned conjugate gradients (A and M symmetric positive definite;
 * M = NULL: none). x: initial guess in, solution out. o = NULL: defaults;
 * v = NULL: host; info may be NULL. */
hdg_status hdg_pcg(const hdg_linop *A, const hdg_linop *M, const double *b, double *x,
                   const hdg_solve_opts *o, const hdg_vecops *v, hdg_solve_info *info,
                   hdg_error *err);

/* Restarted GMRES(restart) with right preconditioning (A M^-1 u = b, x = M^-1 u)
 * and modified Gram-Schmidt with one reorthogonalisation pass. */
hdg_status hdg_gmres(const hdg_linop *A, const hdg_linop *M, const double *b, double *x,
                     const hdg_solve_opts *o, const hdg_vecops *v, hdg_solve_info *info,
                     hdg_error *err);

/* The matrices as operators (they keep a pointer to B / C). */
hdg_linop hdg_blockmat_op(const hdg_blockmat *B);
hdg_linop hdg_csr_op(const hdg_csr *C);

/* Preconditioners from a block matrix, as operators M ~ A^-1 (threaded apply):
 * Jacobi (inverse diagonal entries) and face-block Jacobi (inverse of each
 * diagonal m x m block, LU with partial pivoting). They copy what they need
 * from B. Fail on a zero diagonal entry / singular block. Free with
 * hdg_precond_free (also safe on a zeroed or failed linop). */
hdg_status hdg_precond_jacobi_init(hdg_linop *M, const hdg_blockmat *B, hdg_error *err);
hdg_status hdg_precond_block_init(hdg_linop *M, const hdg_blockmat *B, hdg_error *err);
void hdg_precond_free(hdg_linop *M);
/* The nf inverse diagonal blocks (m x m, row-major) of a face-block Jacobi
 * operator from hdg_precond_block_init; NULL for any other operator. */
const double *hdg_precond_block_inverse(const hdg_linop *M);

#endif
