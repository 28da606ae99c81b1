/* run_hdg_null.h — HDG problems whose solution is not unique, shared by the
 * host and device drivers (and under mpirun).
 *
 * The null space of the trace matrix K (Dirichlet eliminated) is searched per
 * trace unknown among candidates the form proposes (the constants of each
 * component of each trace unknown, the rotation of a 2-component trace) and
 * decided on the assembled numbers (hdg_hdg_null_find): a Dirichlet face, a
 * Robin or reaction term, a dt() term rule a candidate out only when they
 * change K z. One null vector that is the constants of one component is
 * supported: the system is solved on the complement of z (the right-hand
 * side must be compatible: its part along z, the discrete sum of sources and
 * Neumann fluxes, is small, else the data are refused; it is projected, the
 * preconditioner is wrapped as P M P with P = I - z z^T / z^T z), and the
 * constant is fixed afterwards by the 'mean u = g' condition of the element
 * unknown z moves (the domain mean of u, or of its component, is that of g).
 * Without such a condition the problem is refused naming the unknown to give
 * it. Several free constants (each one candidate alone) are projected out
 * together by every solver (hdg_hdg_null_decide_all); so are free rotations
 * (the rigid motions of a displacement trace), fixed by the 'rigid u = g'
 * condition of the unknown they move (int (u - g).r = 0 for each free
 * translation and rotation r; run_hdg_null_rigid.c); a combination of
 * candidates is refused naming them. A non-symmetric K singular on the constants (from the right or the
 * left) is refused: its other null vector is not known. */
#ifndef HDG_RUN_HDG_NULL_H
#define HDG_RUN_HDG_NULL_H

#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "ir/lower.h"
#include "runtime/solve/krylov.h"
#include "runtime/mesh/mesh.h"

/* Face f of M in any dimension (fv's vertices X[k], k < dim, z = 0 in 2D): its
 * centroid c, the outward unit normal n of its first element, its measure
 * (length or area) and longest edge h. In 2D the numbers are the edge's
 * (midpoint, (dy, -dx) / length) as the 2D checks always computed them. */
typedef struct hdg_hdg_face {
    int dim;
    double X[3][3], c[3], n[3], meas, h;
} hdg_hdg_face;
void hdg_hdg_face_frame(const hdg_mesh *M, int f, hdg_hdg_face *F);
/* The same for local face j of element e (its own vertices: on a periodic face the
 * element's copy; the normal outward from e). */
void hdg_hdg_element_face(const hdg_mesh *M, int e, int j, hdg_hdg_face *F);
/* The frame of the face with vertices v (dim of them) away from vertex w (3D). */
void hdg_hdg_face_points(const hdg_mesh *M, const int *v, int w, hdg_hdg_face *F);

/* For the left null vector test of a non-symmetric K (hdg_hdg_null_left):
 * from the atoms, the scalar trace unknown whose constants may span it, or
 * -1 (a Dirichlet face, a term with an unknown on marked boundary faces
 * (Robin) whose coefficient is nonzero at the midpoint of one of them, a
 * reaction term (c u, w) with c != 0, or no scalar trace unknown). */
int hdg_hdg_null_candidate(const hdg_problem *p, const hdg_mesh *M, const unsigned char *isdir);

/* Is z^T K ~ 0 (the constants a left null vector: a non-symmetric K can have
 * that alone, e.g. convection-diffusion with the total flux given on the
 * whole boundary)? From the element matrices Ke (ne * nt * nt, host),
 * gathered like the right-hand side. */
int hdg_hdg_null_left(const hdg_lowered *L, const hdg_mesh *M, const double *Ke, int t, double amax);

/* ---- the null space per trace unknown, checked on the assembled matrix ----
 * Candidates from the form: the constants of each component of each trace
 * unknown, and for a 2-component trace of degree >= 1 the rotation (-y, x)
 * (with the constants: the rigid motions, the null space of a
 * symmetric-gradient form with no displacement given). The numbers decide:
 * the Gram matrices Z^T Z and (K Z)^T (K Z) give the combinations v with
 * ||K Z v|| <= HDG_HDG_NULL_TOL amax ||Z v|| (a generalised eigenproblem of
 * at most HDG_HDG_NULL_MAXC candidates). Under mpirun the pieces' Gram
 * matrices are summed (every element annihilates a constant or a rigid
 * motion by itself, so each piece's partial K z vanishes with the whole). */
#define HDG_HDG_NULL_MAXC 16
#define HDG_HDG_NULL_TOL 1e-10
typedef struct hdg_hdg_null_cand {
    int t;      /* trace unknown (problem index) */
    int comp;   /* the component whose constants it is; -1: the rotation (-y, x) */
} hdg_hdg_null_cand;

typedef struct hdg_hdg_null {
    int ncand;
    hdg_hdg_null_cand cand[HDG_HDG_NULL_MAXC];
    int dim;                                          /* null vectors found */
    double basis[HDG_HDG_NULL_MAXC][HDG_HDG_NULL_MAXC]; /* each: its coefficients on the candidates */
    double sigma[HDG_HDG_NULL_MAXC];                  /* each: ||K z|| / (amax ||z||) */
    double smallest;                                  /* the smallest such ratio over all combinations */
    int single;                                       /* dim 1 and that vector one candidate alone: its index; else -1 */
} hdg_hdg_null;

int hdg_hdg_null_candidates(const hdg_problem *p, const hdg_lowered *L, hdg_hdg_null_cand *c);

/* Candidate c as a trace vector (nf * m host values; constants: 1 on mode 0). */
double *hdg_hdg_null_cand_vector(const hdg_lowered *L, const hdg_mesh *M, hdg_hdg_null_cand c);

/* The null space of K among the candidates; apply: K x for host vectors of
 * nf * m (run_hdg_common.h), d: under mpirun, else NULL. */
struct hdg_mesh_dist;
void hdg_hdg_null_find(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, const struct hdg_mesh_dist *d,
                       hdg_hdg_apply_fn apply, void *ctx, double amax, hdg_hdg_null *N);

/* "the constants of component 1 of 'uhat'; the rotation (-y, x) of 'uhat'" */
void hdg_hdg_null_describe(const hdg_problem *p, const hdg_hdg_null *N, char *b, size_t n);

/* A null space of dimension > 1, or one vector that is not a candidate
 * alone: HDG_EINPUT naming it. */
hdg_status hdg_hdg_null_refuse(const hdg_problem *p, const hdg_hdg_null *N, hdg_error *err);

/* The element unknown whose mean fixes the constants of candidate c: among
 * those with as many components as c's trace unknown that share an equation
 * with it, the one with a 'mean' condition (component c.comp); fails
 * (HDG_EINPUT) saying which to add, at the first boundary statement, when
 * there is none. */
hdg_status hdg_hdg_null_unknown(const hdg_problem *p, hdg_hdg_null_cand c, int *u, hdg_error *err);

/* The decision (host and device drivers alike): nothing found (and no left
 * null vector): fix->c.t = -1; one candidate alone, constants, K symmetric:
 * fix names it, the element unknown u (component c.comp) whose 'mean' fixes
 * it and g = 1 + its trace component (for mg), and solver.null_space,
 * null_vectors, null_mean are reported; anything else fails naming the null
 * space. solver.null_smallest is reported in every case. */
typedef struct hdg_hdg_null_fix {
    hdg_hdg_null_cand c;
    int u, g;
} hdg_hdg_null_fix;
hdg_status hdg_hdg_null_decide(const hdg_problem *p, const hdg_lowered *L, const hdg_hdg_null *N, int left,
                               double asym, hdg_report *rep, hdg_hdg_null_fix *fix, hdg_error *err);

struct hdg_hdg_data;

/* Several free constants (issue 38 item 2), decided as hdg_hdg_null_decide (also one free
 * rotation alone): a null space
 * of dimension dim >= 2 spanned by candidates that are constants, each alone a null vector
 * (dim candidates: two trace unknowns with flux conditions only, the translations of a
 * vector trace), each fixed by the 'mean' of the element unknown it moves (u[i], its
 * component c[i].comp); reports solver.null_space, null_vectors, null_mean (the unknowns,
 * comma-separated); every solver projects them (the host's and the device's native
 * solvers, mg, PETSc, mpirun). dim <= 1: as hdg_hdg_null_decide (fix[0]). Free rotations
 * (c.comp = -1 - j, rotation j) are fixes too: their unknown is the one with 'rigid u = g'
 * (hdg_hdg_rigid_unknown; its constants use the same condition's means), g its first trace
 * component; solver.null_space is then "rigid motions". Combinations of candidates stay
 * refused. */
typedef struct hdg_hdg_null_fixes {
    int dim;
    hdg_hdg_null_fix fix[HDG_HDG_NULL_MAXC];
} hdg_hdg_null_fixes;
hdg_status hdg_hdg_null_decide_all(const hdg_problem *p, const hdg_lowered *L, const hdg_hdg_null *N, int left,
                                   double asym, hdg_report *rep, hdg_hdg_null_fixes *F,
                                   hdg_error *err);

/* The fixes' null vectors, orthonormalised (Gram-Schmidt, host, nf * m each, contiguous:
 * dim * nf * m values); under mpirun the dot products over the owned faces (d). */
double *hdg_hdg_null_basis(const hdg_lowered *L, const hdg_mesh *M, const struct hdg_mesh_dist *d,
                           const hdg_hdg_null_fixes *F);

/* Compatibility and projection along each of the F->dim orthonormal vectors Q (host, nf * m
 * each, from hdg_hdg_null_basis): the part of b along each (|q.b| / ||b||) as
 * hdg_hdg_null_project_rhs's test, the largest reported as solver.rhs_null_component; an
 * incompatible one refused naming its constants. Under mpirun (d) b holds the piece's
 * partial sums: q.b is summed over every face of every piece, ||b|| over the owned ones
 * (as hdg_hdg_null_project_dist), and the projection subtracted on the owned faces. */
hdg_status hdg_hdg_null_project_all(const hdg_problem *p, const hdg_hdg_null_fixes *F, const struct hdg_mesh_dist *d,
                                    int nf, int m, const double *Q, double *b, const struct hdg_hdg_data *D,
                                    hdg_report *rep, hdg_error *err);

/* The means of the fixes' unknowns (mean[i] of fix i) from the trace x (recovered by ctx). */
typedef hdg_status (*hdg_hdg_means_fn)(void *ctx, const double *x, double *mean, hdg_error *err);
/* x + sum c_j q_j (v's vectors: Q and x on the host or the device) with the c that give every fix its mean (the means are affine in x: one
 * recovery at x and one at x + q_j for each j, then a dim x dim solve); fails naming the
 * unknowns when the means do not fix the constants. Reports solver.mean (the first target). */
hdg_status hdg_hdg_null_shift_all(const hdg_problem *p, const hdg_mesh *M, const hdg_hdg_null_fixes *F,
                                  const hdg_vecops *v, long long n, const double *Q, double *x, hdg_hdg_means_fn means,
                                  void *ctx, hdg_report *rep, hdg_error *err);

/* ---- free rotations (run_hdg_null_rigid.c) ----
 * The element unknown whose 'rigid u = g' fixes rotation candidate c (as
 * hdg_hdg_null_unknown); fails (HDG_EINPUT) naming the null space N and saying
 * to write 'rigid u = g' (instead of a 'mean' when one is given). */
hdg_status hdg_hdg_rigid_unknown(const hdg_problem *p, const hdg_hdg_null *N, hdg_hdg_null_cand c, int *u,
                                 hdg_error *err);
/* (1 / |domain|) int u . r_rot of element unknown u (xe: ne * nl, its first dim components),
 * and the same of its condition's g; rotation rot as the candidates number them. Summed over
 * the ranks under mpirun. hdg_hdg_domain_mean and hdg_hdg_mean_target call them for a
 * component comp < 0 (rot = -1 - comp). */
double hdg_hdg_rigid_moment(const hdg_lowered *L, const hdg_mesh *M, int u, int rot, const double *xe);
double hdg_hdg_rigid_target(const hdg_problem *p, const hdg_mesh *M, int u, int rot);
/* The multigrid's null_mask of the fixes: bit g - 1 of each free constant; a free rotation
 * sets every component of its trace and HDG_MG_NULL_ROTATIONS (runtime/solve/mg.h). */
unsigned hdg_hdg_null_mask(const hdg_problem *p, const hdg_hdg_null_fixes *F);

/* A time step's trace matrix (the dt() term weighted sigma) with a null space
 * found (e.g. a pure Neumann heat problem at --dt 1e16): refused naming it
 * (a step is never solved with an arbitrary constant). */
hdg_status hdg_hdg_null_transient(const hdg_problem *p, const hdg_hdg_null *N, double sigma, hdg_report *rep,
                                  hdg_error *err);

/* The projection of the right-hand side along z is only right when K is
 * symmetric (z is then also its left null vector): fails otherwise. */
hdg_status hdg_hdg_null_symmetric(double asym_rel, hdg_error *err);


/* The relative quadrature error of the data the constants see (the load
 * terms of scalar tests taken by value: sources (f, w), Neumann data <g, mu>):
 * sum over elements and boundary faces of |Q - Q_fine| over sum |Q_fine|, Q
 * the kernels' rules (volume degree 2k + 4, k + 3 Gauss points on faces),
 * Q_fine finer ones (2k + 12, k + 9); summed over the ranks under mpirun.
 * Compatible data on a coarse mesh balance only to about this. */
double hdg_hdg_null_quadrature(const hdg_problem *p, const hdg_mesh *M, int k);
#define HDG_HDG_COMPATIBLE 1e-6
#define HDG_HDG_QUAD_FACTOR 4.0

/* Compatibility (|z.b| / (||z|| ||b||), reported as solver.rhs_null_component,
 * at most 1e-6, or else at most 4 times hdg_hdg_null_quadrature of the data
 * D, reported as solver.rhs_quadrature_error) and projection
 * b -= (z.b / z.z) z. */
typedef struct hdg_hdg_data {
    const hdg_problem *p;
    const hdg_mesh *M;
    int k;
} hdg_hdg_data;
hdg_status hdg_hdg_null_project_rhs(const hdg_vecops *v, long long n, const double *z, double *b,
                                    const hdg_hdg_data *D, hdg_report *rep, hdg_error *err);

/* The same under mpirun (o->dist): b is a piece's (nf faces, partial sums on
 * its partition faces); z.b and z.z are reduced over the ranks, the owned
 * faces are projected. */
struct hdg_mesh_dist;
hdg_status hdg_hdg_null_project_dist(const struct hdg_mesh_dist *d, int nf, int m, const double *z, double *b,
                                     const hdg_hdg_data *D, hdg_report *rep, hdg_error *err);

/* P M P (M NULL: P) as an operator; t is a work vector of n in v's memory. */
typedef struct hdg_hdg_null_op {
    const hdg_linop *M;
    const hdg_vecops *v;
    const double *z;      /* nz vectors of n, contiguous, orthogonal to each other */
    int nz;
    double zz[HDG_HDG_NULL_MAXC];
    double *t;
    long long n;
} hdg_hdg_null_op;
/* With nz orthogonal vectors z (contiguous): P = I - sum q q^T / q^T q. */
hdg_linop hdg_hdg_null_precond_all(hdg_hdg_null_op *c, const hdg_linop *M, const hdg_vecops *v, const double *z,
                                   int nz, double *t, long long n);

/* The domain mean of component comp of element unknown u from the element dofs xe (ne * nl),
 * and the mean its condition asks for (comp < 0: the moment of rotation -1 - comp, as
 * hdg_hdg_rigid_moment and hdg_hdg_rigid_target). */
double hdg_hdg_domain_mean(const hdg_lowered *L, const hdg_mesh *M, int u, int comp, const double *xe);
double hdg_hdg_mean_target(const hdg_problem *p, const hdg_mesh *M, int u, int comp);

/* The multiple c of the null vector z that brings the mean of unknown u from
 * m1 (at x + z) to want, given its mean m0 at x (the recovery is affine in the
 * trace): c = (want - m1) / (m1 - m0); an error when z does not move the mean
 * or the target is not finite. Host and device drivers both use it. */
hdg_status hdg_hdg_mean_shift(const hdg_problem *p, int u, double m0, double m1, double want, double *c,
                              hdg_error *err);

#endif
