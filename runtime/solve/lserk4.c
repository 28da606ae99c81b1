/* lserk4.c — Carpenter-Kennedy low-storage RK4 coefficients, the nodal DG
 * time step, and a plain-C integrator used as reference (see lserk4.h). */
#include "runtime/solve/lserk4.h"

#include <math.h>

#include "runtime/fem/quadrature.h"

const double hdg_lserk4_a[5] = {
    0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
    -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0,
};
const double hdg_lserk4_b[5] = {
    1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
    1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
    2277821191437.0 / 14882151754819.0,
};
const double hdg_lserk4_c[5] = {
    0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363962896.0,
    2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0,
};

const double hdg_lserk4_real_limit = 4.65;
const double hdg_lserk4_disk_radius = 3.16;

double hdg_dg_dt(int N, double rmin, double cfl)
{
    if (rmin <= 0 || cfl <= 0 || N < 0) return 0;
    double drmin = 2.0;
    if (N >= 1) {
        double x[64], w[64];
        hdg_error err;
        int n = N + 1 < 64 ? N + 1 : 64;
        if (hdg_gauss_legendre(n, x, w, &err) != HDG_OK) return 0;
        for (int i = 0; i + 1 < n; i++)
            if (x[i + 1] - x[i] < drmin) drmin = x[i + 1] - x[i];
    }
    return cfl * rmin * drmin * 2.0 / 3.0;
}

long long hdg_dg_nsteps(double final, double dtmax)
{
    if (!(final > 0) || !(dtmax > 0)) return 1;
    double n = ceil(final / dtmax - 1e-9);
    return n < 1 ? 1 : (long long)n;
}

void hdg_lserk4_integrate(int n, double *q, double *res, double *dq, double t, double dt, long long nsteps,
                          hdg_ode_rhs rhs, void *ctx)
{
    for (int i = 0; i < n; i++) res[i] = 0;
    for (long long s = 0; s < nsteps; s++, t += dt)
        for (int k = 0; k < 5; k++) {
            rhs(t + hdg_lserk4_c[k] * dt, q, dq, ctx);
            for (int i = 0; i < n; i++) {
                res[i] = hdg_lserk4_a[k] * res[i] + dt * dq[i];
                q[i] += hdg_lserk4_b[k] * res[i];
            }
        }
}
