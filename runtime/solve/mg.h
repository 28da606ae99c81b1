/* mg.h — the two-level trace preconditioner (--precond mg), after Cockburn,
 * Dubois, Gopalakrishnan and Tan, "Multigrid for an HDG method" (IMA J.
 * Numer. Anal. 34, 2014): the coarse space is the continuous piecewise-linear
 * functions on the mesh vertices (one per trace component), the prolongation
 * P takes a P1 function to its traces on the faces, the coarse operator is
 * the Galerkin product Ac = P^T B P, the smoother is Chebyshev on the
 * face-block Jacobi preconditioned matrix, and the coarse problem is solved
 * by one cycle of a library's algebraic multigrid (BoomerAMG through PETSc,
 * runtime/petsc/petsc.h), which is spectrally equivalent to the P1 problem's
 * inverse: the iteration count is independent of h.
 *
 * Set-up from the assembled trace matrix and the mesh only (nothing about the
 * PDE): the face space is k+1 orthonormal Legendre modes per trace component,
 * in the face's canonical direction fv[2f] -> fv[2f+1] (blockmat.h); a linear
 * function with vertex values a, b projects onto modes 0 and 1 only. A
 * (face, component) whose rows couple to nothing else (an eliminated
 * Dirichlet face) is fixed: the coarse functions vanish at its vertices.
 *
 * The cycle sees the matrix, the block inverse, the transfers and the coarse
 * solve only as hdg_linop and vectors only through hdg_vecops, so the same
 * code runs on host and device memory (the coarse solve's operator may copy
 * to the host and back). One application, z = M r, from z = 0:
 *     pre-smooth (nu Chebyshev steps), z += P Ac^-1 P^T (r - B z),
 *     post-smooth (nu steps): a symmetric V(nu, nu) cycle, so M is SPD when
 *     B is and the coarse solve is symmetric (CG; GMRES otherwise). */
#ifndef HDG_MG_H
#define HDG_MG_H

#include "hdg.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/solve/krylov.h"

/* The coarse space: P (nf*m rows, nc columns), R = P^T, AP = B P (about 4
 * entries a row against B's 5m: the coarse correction's residual update) and
 * Ac = P^T B P = R AP.
 * dim 2 (edges) or 3 (triangular faces); nk modes per component (k+1 on an
 * edge, (k+1)(k+2)/2 on a triangle; m a multiple of nk); nv vertices; fv the
 * faces' vertices (dim per face, canonical order). null_mask: bit c set when
 * B has the constants of trace component c (of the m / nk) as a null vector
 * (several components: several free constants); Ac's first coarse unknown of
 * each such component is then pinned (its row and column replaced by the
 * identity) so that the coarse solve is regular. With HDG_MG_NULL_ROTATIONS set too
 * (rigid motions: rotations of those components free as well) every such component is
 * pinned instead at each vertex of the first face whose vertices all carry it (dim
 * vertices, not collinear: only the zero rigid motion vanishes there).
 * Coarse unknowns whose Galerkin diagonal is not positive are dropped. */
#define HDG_MG_NULL_ROTATIONS (1u << 31)
typedef struct hdg_mg_coarse {
    hdg_csr P, R, AP, Ac;
    int nc;          /* coarse unknowns */
    int nfixed;      /* (face, component) pairs found fixed */
} hdg_mg_coarse;

/* The pieces of the coarse space, for builders elsewhere (PETSc's PCMG under
 * mpirun, runtime/petsc/petsc.c): the coefficients H[v*nk + i] in the trace
 * basis (orthonormal Legendre on an edge, Dubiner on a triangle, in the face's
 * canonical vertex order) of the hats of the face's dim vertices (only modes
 * of degree <= 1 are nonzero; in 2D modes 0, 1: al = H[0..1] of the start
 * vertex, be = H[nk..nk+1] of the end vertex); and
 * fixed[l*ncomp + c] = 1 when every dof of component c on face l couples to
 * nothing but itself (free with free; *nfixed counts them). */
hdg_status hdg_mg_hat_coefficients(int dim, int nk, double *H, hdg_error *err);
unsigned char *hdg_mg_fixed_components(const hdg_blockmat *B, int nk, int *nfixed);

hdg_status hdg_mg_coarse_build(hdg_mg_coarse *C, const hdg_blockmat *B, int dim, int nk, int nv, const int *fv,
                               unsigned null_mask, hdg_error *err);
void hdg_mg_coarse_free(hdg_mg_coarse *C);

typedef struct hdg_mg_opts {
    int nu;          /* Chebyshev steps before and after the coarse correction (default 2) */
    double ratio;    /* the smoother targets eigenvalues of D^-1 B in [lmax/ratio, lmax] (default 4) */
    int power_its;   /* power iterations estimating lmax (default 10; lmax = 1.1 x the estimate) */
} hdg_mg_opts;

hdg_mg_opts hdg_mg_opts_default(void);

/* Optional fused passes (host block matrices: hdg_blockmat_smooth_*, given to
 * hdg_mg_init): the same arithmetic as the cycle's and the power iteration's
 * vector operations, in the same order, one sweep over the rows each.
 * Absent (NULL): the cycle uses A, D and v. */
typedef struct hdg_mg_fused {
    void *ctx;
    void (*start)(void *ctx, double s, const double *r, double *d, double *z, int z_zero); /* d = s D r; z (+)= d */
    void (*step)(void *ctx, double c1, double c2, const double *d, double *r, double *dn,
                 double *z);                                  /* r -= A d; dn = c1 d + c2 D r; z += dn */
    void (*resid)(void *ctx, const double *d, double *r);     /* r -= A d */
    void (*jacobi)(void *ctx, const double *x, double *y);    /* y = D A x */
} hdg_mg_fused;

/* The cycle. A: the trace matrix; D: the face-block Jacobi inverse; P, R:
 * the transfers; Cs: the coarse solve (vectors of nc on the same memory as
 * P's output); AP: B P as an operator, optional (set after hdg_mg_init; when
 * absent the cycle applies A to P ec); F: the fused passes, or zero. All
 * vectors live in v's memory. */
typedef struct hdg_mg {
    hdg_linop A, D, P, R, Cs, AP;
    hdg_mg_fused F;
    const hdg_vecops *v;
    long long n, nc;
    hdg_mg_opts o;
    double lmax;     /* the estimate of D^-1 B's largest eigenvalue, times 1.1 */
    double *r, *d, *t, *w, *rc, *ec;
} hdg_mg;

/* A fixed pseudo-random vector of n entries in (-0.5, 0.5) (host memory,
 * free with free): the start of the power iteration. A smooth start (the
 * right-hand side) reaches the top of the spectrum slowly: 10 steps from it
 * gave lmax 1.63 instead of 1.97 at k = 1, and the under-estimate doubled
 * the iterations (30 instead of 13) or broke CG with a larger ratio. */
double *hdg_mg_start_vector(long long n);

/* Allocates the work vectors and estimates lmax by power iteration on
 * D^-1 A from start (n entries in v's memory, not all zero; NULL: ones;
 * hdg_mg_start_vector's is the one to use); F: fused passes or NULL.
 * Fails (HDG_ESOLVER) when the estimate is not finite and positive. */
hdg_status hdg_mg_init(hdg_mg *g, const hdg_linop *A, const hdg_linop *D, const hdg_linop *P,
                       const hdg_linop *R, const hdg_linop *Cs, long long nc, const hdg_vecops *v,
                       const hdg_mg_opts *o, const double *start, const hdg_mg_fused *F, hdg_error *err);
/* The preconditioner as an operator z = M r (g must outlive it). */
hdg_linop hdg_mg_op(hdg_mg *g);
void hdg_mg_free(hdg_mg *g);

#endif
