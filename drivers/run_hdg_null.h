/* run_hdg_null.h — HDG problems whose solution is defined only up to a
 * constant (pure Neumann Poisson: no Dirichlet face, no Robin term, no
 * reaction), shared by the host and device drivers.
 *
 * The trace matrix K is then singular: K z = 0 for z the constant 1 of the
 * scalar trace unknown (mode 0 of the orthonormal Legendre basis on every
 * face). The candidate is decided from the checked problem's atoms and
 * confirmed numerically (||K z|| at rounding level). The system is solved on
 * the complement of z: the right-hand side must be compatible (its part
 * along z, the discrete sum of sources and Neumann fluxes, is small, else the
 * data are refused), it is projected, the preconditioner is wrapped as
 * P M P with P = I - z z^T / z^T z, and the constant is fixed afterwards by
 * the problem's 'mean u = g' condition (the domain mean of u is that of g).
 * Without such a condition the problem is refused with the place to add it.
 * A non-symmetric K singular on the constants (from the right or the left)
 * is refused: its other null vector is not known. */
#ifndef HDG_RUN_HDG_NULL_H
#define HDG_RUN_HDG_NULL_H

#include "drivers/run.h"
#include "ir/lower.h"
#include "runtime/solve/krylov.h"
#include "runtime/mesh/mesh.h"

/* From the atoms: the scalar trace unknown whose constants may span the null
 * space, or -1 (a Dirichlet face, a term with an unknown on marked boundary
 * faces (Robin) whose coefficient is nonzero at the midpoint of one of them,
 * a reaction term (c u, w) with c != 0, or no scalar trace unknown). */
int hdg_hdg_null_candidate(const hdg_problem *p, const hdg_mesh *M, const unsigned char *isdir);

/* z (nf * m host values): 1 on mode 0 of trace unknown t on every face. */
double *hdg_hdg_null_vector(const hdg_lowered *L, int nf, int t);

/* Is ||K z|| <= 1e-10 amax ||z|| (Kz = K z, in v's memory)? */
int hdg_hdg_null_confirmed(const hdg_vecops *v, long long n, const double *z, const double *Kz, double amax);

/* Is z^T K ~ 0 (the constants a left null vector: a non-symmetric K can have
 * that alone, e.g. convection-diffusion with the total flux given on the
 * whole boundary)? From the element matrices Ke (ne * nt * nt, host),
 * gathered like the right-hand side. */
int hdg_hdg_null_left(const hdg_lowered *L, const hdg_mesh *M, const double *Ke, int t, double amax);

/* The projection of the right-hand side along z is only right when K is
 * symmetric (z is then also its left null vector): fails otherwise. */
hdg_status hdg_hdg_null_symmetric(double asym_rel, hdg_error *err);

/* The scalar element unknown whose mean fixes the constant: the one with a
 * 'mean' condition; fails (HDG_EINPUT) saying what to add, at the first
 * boundary statement, when there is none. */
hdg_status hdg_hdg_null_unknown(const hdg_problem *p, int *u, hdg_error *err);

/* Compatibility (|z.b| / (||z|| ||b||) <= 1e-6, reported as
 * solver.rhs_null_component) and projection b -= (z.b / z.z) z. */
hdg_status hdg_hdg_null_project_rhs(const hdg_vecops *v, long long n, const double *z, double *b, hdg_report *rep,
                                    hdg_error *err);

/* The same under mpirun (o->dist): b is a piece's (nf faces, partial sums on
 * its partition faces); z.b and z.z are reduced over the ranks, the owned
 * faces are projected. */
struct hdg_mesh_dist;
hdg_status hdg_hdg_null_project_dist(const struct hdg_mesh_dist *d, int nf, int m, const double *z, double *b,
                                     hdg_report *rep, hdg_error *err);

/* P M P (M NULL: P) as an operator; t is a work vector of n in v's memory. */
typedef struct hdg_hdg_null_op {
    const hdg_linop *M;
    const hdg_vecops *v;
    const double *z;
    double zz;
    double *t;
    long long n;
} hdg_hdg_null_op;
hdg_linop hdg_hdg_null_precond(hdg_hdg_null_op *c, const hdg_linop *M, const hdg_vecops *v, const double *z,
                               double *t, long long n);

/* The domain mean of element unknown u from the element dofs xe (ne * nl),
 * and the mean its condition asks for. */
double hdg_hdg_domain_mean(const hdg_lowered *L, const hdg_mesh *M, int u, const double *xe);
double hdg_hdg_mean_target(const hdg_problem *p, const hdg_mesh *M, int u);

/* The multiple c of the null vector z that brings the mean of unknown u from
 * m1 (at x + z) to want, given its mean m0 at x (the recovery is affine in the
 * trace): c = (want - m1) / (m1 - m0); an error when z does not move the mean
 * or the target is not finite. Host and device drivers both use it. */
hdg_status hdg_hdg_mean_shift(const hdg_problem *p, int u, double m0, double m1, double want, double *c,
                              hdg_error *err);

#endif
