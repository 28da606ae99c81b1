/* dg_speed.h — what the explicit DG drivers learn from the equations before
 * they step: the characteristic speed that scales the time step, and whether
 * the semi-discrete scheme can only lose energy (which decides how tightly
 * the energy is watched for an instability).
 *
 * Speed. Every row of the system reads c_T dU_i/dt + sum_j A_ij dU_j/dx +
 * B_ij dU_j/dy + ... = ..., with A, B the coefficients of the strong-form
 * volume atoms (dx(u_j), v) and minus those of the weak-form ones (u_j,
 * dx(v)), divided by the row's dt() coefficient c_T. The speed at a point is
 * max over unit directions n of the spectral radius of A nx + B ny (exactly
 * hypot(a, b) for one field; else sampled at 32 directions and refined by a
 * golden-section search; symmetric matrices by Jacobi, others by Gelfand's
 * formula rho = lim |C^k|^(1/k)). Coefficients are evaluated where the
 * kernels evaluate them, at the element's Np nodes (once, when they do not
 * depend on x and y), with the params after --set; coefficients that depend
 * on t are sampled at 9 times in [0, final].
 *
 * Reaction. The zeroth-order atoms (u_j, v) give R (over c_T): the
 * semi-discrete operator is the advective one minus R, and LSERK4 must hold
 * dt times the whole spectrum in its stability region. R's eigenvalues are
 * bounded at the same points: a symmetric R's by its eigenvalues (a decay
 * rate mu >= 0 needs dt mu <= hdg_lserk4_real_limit, a growth rate the
 * disk), any other R's by its spectral radius and the disk of radius
 * hdg_lserk4_disk_radius that the region contains in the left half-plane.
 * The element's unit step (cfl 1) joins the two bounds harmonically,
 *     unit_e = 1 / (speed_e / (rin_e k_N) + react_e),  k_N = hdg_dg_dt(N, 1, 1),
 * which keeps dt (lambda_adv - mu) inside the region when the advective
 * part alone fits at cfl 1: the region is convex along those segments
 * (checked numerically for the Carpenter-Kennedy coefficients). */
#ifndef HDG_DG_SPEED_H
#define HDG_DG_SPEED_H

#include <stddef.h>

#include "ir/lower_dg.h"
#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"
#include "runtime/fem/refel.h"

typedef struct hdg_dg_speed {
    int known;            /* 1: derived; 0: see why */
    double max;           /* largest speed over the elements */
    double rmin;          /* min over elements with a speed > 0 of rin_e / speed_e */
    double react;         /* max over elements of react_e: the reaction's rate over its stability limit */
    double unit;          /* the step at cfl 1: min over elements of unit_e (INFINITY: nothing bounds it) */
    char why[320];        /* !known: what could not be analysed */
    int dim;              /* the problem's (for the messages) */
} hdg_dg_speed;

/* The speed of p on mesh m (re: the reference element of degree L->N, g: m's
 * geometry). Never fails: out->known = 0 and out->why say what stopped it
 * (a dt() coefficient that is not positive, a coefficient that is not finite
 * somewhere; then hdg_dg_speed_settle: nothing bounds the step). */
void hdg_dg_char_speed(const hdg_problem *p, const hdg_dg_lowered *L, const hdg_mesh *m, const hdg_refel *re,
                       const hdg_geom *g, double final, hdg_dg_speed *out);

/* The same on a piece of a mesh (under mpirun; m may have no elements),
 * without hdg_dg_speed_settle: the pieces' values are combined first (max of
 * max and react, min of rmin and unit), then settled. */
void hdg_dg_char_speed_piece(const hdg_problem *p, const hdg_dg_lowered *L, const hdg_mesh *m,
                             const hdg_refel *re, const hdg_geom *g, double final, hdg_dg_speed *out);

/* Nonlinear problems (issue 41): 1 when the flux Jacobian reads the state
 * (the Jacobian atoms of volume residuals, frontend.h hdg_residual). Then the
 * speed is that of a state: hdg_dg_char_speed_state. */
int hdg_dg_speed_state_dependent(const hdg_problem *p, const hdg_dg_lowered *L);

/* The speed of the state U (fields x Np per kernel row; pos[e] the row of
 * mesh element e, NULL: e) at time t, over the elements whose rows are below
 * nrows (the own ones under mpirun): A_l = dF_l/dU from the residuals'
 * Jacobian atoms (plus the linear atoms) evaluated at every node with the
 * node's state, the speed max over directions n of rho(sum_l n_l A_l) as for
 * linear forms. Without hdg_dg_speed_settle. Returns -1, or the mesh element
 * where a coefficient is not finite (out->known = 0, out->why says which
 * term and where). */
int hdg_dg_char_speed_state(const hdg_problem *p, const hdg_dg_lowered *L, const hdg_mesh *m, const hdg_refel *re,
                            const hdg_geom *g, double t, const double *U, const int *pos, int nrows,
                            hdg_dg_speed *out);

/* A known speed that is 0 everywhere (no dx()/dy() term of an unknown: the
 * face terms, whose spectrum the speed bounds too, are not analysed on
 * their own) becomes unknown, with why. */
void hdg_dg_speed_settle(hdg_dg_speed *sp);

/* 1 when the form shows that the semi-discrete energy 1/2 sum_f int U_f^2
 * cannot grow: no volume or boundary sources, exterior states free of data
 * (ext(u) = linear in the interior values only), equal constant dt()
 * coefficients, constant A and B with symmetric strong- and weak-form parts,
 * face terms that take energy out or conserve it (the quadratic form of
 * -dE/dt on an interior face, both sides, and on a boundary face with
 * ext = M u, positive semi-definite at 64 normals: so upwind and central
 * fluxes pass, alpha = -1 fails), constant reaction terms (u_j, v) with a
 * positive semi-definite symmetric part. Else 0 and why names the first
 * reason. */
int hdg_dg_energy_bounded(const hdg_problem *p, const hdg_dg_lowered *L, char *why, size_t n);

/* Spectral radius of the n x n matrix C (row-major; not modified). */
double hdg_spectral_radius(int n, const double *C);

#endif
