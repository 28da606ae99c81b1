/* quadrature.c — orthonormal Jacobi polynomials and Gauss rules (see
 * quadrature.h). Everything is driven by the three-term recurrence of the
 * orthonormal polynomials,
 *     x p_k = a_{k+1} p_{k+1} + b_k p_k + a_k p_{k-1},
 * whose coefficients also form the symmetric Jacobi matrix of Golub-Welsch. */
#include "runtime/fem/quadrature.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/solve/dense.h"
#include "support/util.h"

/* Internally everything runs in long double (80-bit on x86-64): node and
 * weight errors then stay below the final rounding to double even at n ~ 100
 * (in double, the recurrence's rounding makes weights lose ~n^2 eps). */
typedef long double real;

/* b_k: the diagonal of the Jacobi matrix. */
static real rec_b(int k, real a, real b)
{
    if (k == 0) return (b - a) / (a + b + 2);
    real h = 2.0L * k + a + b;
    return (b * b - a * a) / (h * (h + 2));
}

/* a_k (k >= 1): the off-diagonal linking p_{k-1} and p_k. The k = 1 case is
 * the limit form, valid also for alpha + beta = -1. */
static real rec_a(int k, real a, real b)
{
    if (k == 1) return 2 / (a + b + 2) * sqrtl((a + 1) * (b + 1) / (a + b + 3));
    real h = 2.0L * k + a + b;
    return 2 / h * sqrtl(k * (k + a + b) * (k + a) * (k + b) / ((h - 1) * (h + 1)));
}

/* mu0 = integral of (1-x)^alpha (1+x)^beta over [-1,1]. */
static real weight_mass(real a, real b)
{
    if (a + b + 2 < 150)
        return powl(2, a + b + 1) * tgammal(a + 1) * tgammal(b + 1) / tgammal(a + b + 2);
    return expl((a + b + 1) * logl(2) + lgammal(a + 1) + lgammal(b + 1) - lgammal(a + b + 2));
}

/* P[k] = p_k(x), dP[k] = p_k'(x) (dP may be NULL), k = 0..n. */
static void jacobi_all_ld(int n, real a, real b, real x, real *P, real *dP)
{
    P[0] = 1 / sqrtl(weight_mass(a, b));
    if (dP) dP[0] = 0;
    real ak = 0;                            /* a_k, with a_0 p_{-1} = 0 */
    for (int k = 0; k < n; k++) {
        real bk = rec_b(k, a, b), ak1 = rec_a(k + 1, a, b);
        real pm = k ? P[k - 1] : 0;
        P[k + 1] = ((x - bk) * P[k] - ak * pm) / ak1;
        if (dP) {
            real dpm = k ? dP[k - 1] : 0;
            dP[k + 1] = ((x - bk) * dP[k] + P[k] - ak * dpm) / ak1;
        }
        ak = ak1;
    }
}

void hdg_jacobi_all(int n, double alpha, double beta, double x, double *P, double *dP)
{
    real buf[2 * 64], *p = n < 64 ? buf : hdg_xmalloc(2 * (size_t)(n + 1) * sizeof *p);
    real *dp = p + n + 1;
    jacobi_all_ld(n, alpha, beta, x, p, dP ? dp : NULL);
    for (int k = 0; k <= n; k++) {
        P[k] = (double)p[k];
        if (dP) dP[k] = (double)dp[k];
    }
    if (p != buf) free(p);
}

void hdg_jacobi_p(int n, double alpha, double beta, int npts, const double *x, double *P)
{
    real *tmp = hdg_xmalloc((size_t)(n + 1) * sizeof *tmp);
    for (int i = 0; i < npts; i++) {
        jacobi_all_ld(n, alpha, beta, x[i], tmp, NULL);
        P[i] = (double)tmp[n];
    }
    free(tmp);
}

/* Makes a rule on [-1,1] exactly symmetric about 0 (for alpha == beta). */
static void symmetrize(int n, double *x, double *w)
{
    for (int i = 0; i < n / 2; i++) {
        int j = n - 1 - i;
        double xm = 0.5 * (x[j] - x[i]), wm = 0.5 * (w[i] + w[j]);
        x[i] = -xm, x[j] = xm;
        w[i] = w[j] = wm;
    }
    if (n % 2) x[n / 2] = 0.0;
}

hdg_status hdg_gauss_jacobi(int n, double alpha, double beta, double *x, double *w,
                            hdg_error *err)
{
    if (n < 1)
        return hdg_fail(err, HDG_EINPUT, "Gauss-Jacobi rule needs at least 1 point, got %d", n);
    if (!(alpha > -1.0) || !(beta > -1.0))
        return hdg_fail(err, HDG_EINPUT, "Gauss-Jacobi weight needs alpha, beta > -1, got %g, %g",
                        alpha, beta);
    /* Golub-Welsch: the nodes are the eigenvalues of the Jacobi matrix */
    double *T = hdg_xcalloc((size_t)n * n, sizeof *T);
    for (int k = 0; k < n; k++) {
        T[(size_t)k * n + k] = (double)rec_b(k, alpha, beta);
        if (k + 1 < n)
            T[(size_t)k * n + k + 1] = T[(size_t)(k + 1) * n + k] = (double)rec_a(k + 1, alpha, beta);
    }
    int bad = hdg_sym_eig(n, T, x);
    free(T);
    if (bad)
        return hdg_fail(err, HDG_EINTERNAL, "Gauss-Jacobi(%d, %g, %g): eigenvalues did not converge",
                        n, alpha, beta);
    real *P = hdg_xmalloc(2 * (size_t)(n + 1) * sizeof *P), *dP = P + n + 1;
    for (int i = 0; i < n; i++) {
        real xi = x[i];
        for (int it = 0; it < 10; it++) {   /* Newton polish on p_n */
            jacobi_all_ld(n, alpha, beta, xi, P, dP);
            real dx = P[n] / dP[n];
            xi -= dx;
            if (fabsl(dx) <= LDBL_EPSILON * fabsl(xi)) break;
        }
        jacobi_all_ld(n - 1, alpha, beta, xi, P, NULL);
        real sum = 0;                       /* Christoffel function */
        for (int k = n - 1; k >= 0; k--) sum += P[k] * P[k];
        x[i] = (double)xi;
        w[i] = (double)(1 / sum);
    }
    free(P);
    if (alpha == beta) symmetrize(n, x, w);
    return HDG_OK;
}

hdg_status hdg_gauss_legendre(int n, double *x, double *w, hdg_error *err)
{
    return hdg_gauss_jacobi(n, 0.0, 0.0, x, w, err);
}

/* The classical Legendre polynomial L_n(x), L_n(1) = 1. */
static real legendre_classic(int n, real x)
{
    real p0 = 1, p1 = x;
    if (n == 0) return p0;
    for (int k = 1; k < n; k++) {
        real p2 = ((2.0L * k + 1) * x * p1 - k * p0) / (k + 1);
        p0 = p1, p1 = p2;
    }
    return p1;
}

hdg_status hdg_gauss_lobatto(int n, double *x, double *w, hdg_error *err)
{
    if (n < 2)
        return hdg_fail(err, HDG_EINPUT, "Gauss-Lobatto rule needs at least 2 points, got %d", n);
    /* interior nodes: the zeros of L'_{n-1}, i.e. of P^(1,1)_{n-2} */
    if (n > 2) {
        hdg_status st = hdg_gauss_jacobi(n - 2, 1.0, 1.0, x + 1, w + 1, err);
        if (st) return st;
    }
    x[0] = -1.0, x[n - 1] = 1.0;
    real wend = 2.0L / ((real)n * (n - 1));
    for (int i = 1; i < n - 1; i++) {
        real L = legendre_classic(n - 1, x[i]);
        w[i] = (double)(wend / (L * L));
    }
    w[0] = w[n - 1] = (double)wend;
    symmetrize(n, x, w);
    return HDG_OK;
}

void hdg_quad_free(hdg_quad *q)
{
    for (int d = 0; d < 3; d++) free(q->x[d]);
    free(q->w);
    memset(q, 0, sizeof *q);
}

void hdg_quad2d_free(hdg_quad2d *q) { hdg_quad_free(q); }

/* The m-point rules in the collapsed directions: c[j*m+i], wc[j*m+i] for the
 * Gauss-Jacobi(j, 0) rule (Gauss-Legendre for j = 0). */
static hdg_status collapsed_rules(int dim, int m, double *c, double *wc, hdg_error *err)
{
    hdg_status st = HDG_OK;
    for (int j = 0; j < dim && !st; j++)
        st = hdg_gauss_jacobi(m, (double)j, 0.0, c + j * m, wc + j * m, err);
    return st;
}

hdg_status hdg_quad_simplex(hdg_quad *q, int dim, int degree, hdg_error *err)
{
    memset(q, 0, sizeof *q);
    if (dim < 2 || dim > 3)
        return hdg_fail(err, HDG_EINPUT, "simplex quadrature: dimension must be 2 or 3, got %d", dim);
    if (degree < 0)
        return hdg_fail(err, HDG_EINPUT, "%s quadrature degree must be >= 0, got %d",
                        dim == 2 ? "triangle" : "tetrahedron", degree);
    int m = (degree + 2) / 2, n = dim == 2 ? m * m : m * m * m;
    double *c = hdg_xmalloc(2 * (size_t)dim * m * sizeof *c), *wc = c + dim * m;
    hdg_status st = collapsed_rules(dim, m, c, wc, err);
    if (st) {
        free(c);
        return st;
    }
    q->n = n, q->dim = dim;
    for (int d = 0; d < dim; d++) q->x[d] = hdg_xmalloc((size_t)n * sizeof(double));
    q->w = hdg_xmalloc((size_t)n * sizeof *q->w);
    /* scale: 2^-(dim-1-j) per direction j < dim-1, the Jacobian 2^-(dim(dim-1)/2) */
    double wscale = dim == 2 ? 0.5 : 0.125;
    for (int k = 0; k < n; k++) {
        int idx[3], kk = k;
        for (int j = 0; j < dim; j++) idx[j] = kk % m, kk /= m;
        double w = wc[idx[0]];
        for (int j = 1; j < dim; j++) w *= wc[j * m + idx[j]];
        q->w[k] = w * wscale;
        for (int j = 0; j < dim; j++) {
            double cj = c[j * m + idx[j]];
            if (j == dim - 1) {
                q->x[j][k] = cj;
                continue;
            }
            double f = 1.0 + cj;      /* (1+c_j) prod (1-c_k), then the power of 2 (exact) */
            for (int l = j + 1; l < dim; l++) f *= 1.0 - c[l * m + idx[l]];
            q->x[j][k] = f * ldexp(1.0, -(dim - 1 - j)) - 1.0;
        }
    }
    free(c);
    return HDG_OK;
}

hdg_status hdg_quad_triangle(hdg_quad2d *q, int degree, hdg_error *err)
{
    return hdg_quad_simplex(q, 2, degree, err);
}
