/* lserk4.h — the 5-stage, 4th-order low-storage Runge-Kutta scheme of
 * Carpenter & Kennedy and the Hesthaven-Warburton time step for nodal DG
 * (coefficients and formula in docs/method.md).
 *
 * One step of size dt from (t, q), with a residual res that starts at 0:
 *     for i = 0..4:  res = a[i] res + dt rhs(t + c[i] dt, q);  q = q + b[i] res */
#ifndef HDG_LSERK4_H
#define HDG_LSERK4_H

#include "hdg.h"

extern const double hdg_lserk4_a[5], hdg_lserk4_b[5], hdg_lserk4_c[5];

/* The stability region {z : |P(z)| <= 1} of the scheme, P(z) = 1 + z + z^2/2
 * + z^3/6 + z^4/24 + z^5/200 its amplification factor on y' = lambda y,
 * z = dt lambda: it holds the segment [-hdg_lserk4_real_limit, 0] of the
 * negative real axis (it ends at -4.6568) and the half-disk of radius
 * hdg_lserk4_disk_radius about 0 in the left half-plane (its boundary comes
 * nearest to 0 at 3.168, 24 degrees left of the imaginary axis; the
 * imaginary axis is held up to 3.34). Both a little inside; tests/test_dg.c
 * checks them with hdg_lserk4_integrate. */
extern const double hdg_lserk4_real_limit, hdg_lserk4_disk_radius;

/* dt = cfl * rmin * drmin * 2/3 with rmin the smallest inscribed radius and
 * drmin the smallest gap between the N+1 Gauss-Legendre points on [-1, 1]
 * (N = 0: 2). Returns 0 when rmin <= 0 or cfl <= 0. */
double hdg_dg_dt(int N, double rmin, double cfl);

/* Number of equal steps that reach final with steps no longer than dtmax (>= 1). */
long long hdg_dg_nsteps(double final, double dtmax);

/* Plain-C LSERK4 on a vector of n values (reference and tests): advances q
 * from t by nsteps steps of dt; rhs(t, q, dq, ctx) writes dq. res is scratch
 * (n values). */
typedef void (*hdg_ode_rhs)(double t, const double *q, double *dq, void *ctx);
void hdg_lserk4_integrate(int n, double *q, double *res, double *dq, double t, double dt, long long nsteps,
                          hdg_ode_rhs rhs, void *ctx);

#endif
