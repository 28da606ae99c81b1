/* refel.c — the nodal reference triangle (see refel.h): Dubiner basis
 * (H&W Simplex2DP / GradSimplex2DP), warp-and-blend nodes (H&W Nodes2D,
 * xytors), Vandermonde, Dr/Ds, mass, face maps, face mass and LIFT. */
#include "runtime/fem/refel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/solve/dense.h"
#include "runtime/fem/quadrature.h"
#include "support/util.h"

/* ---- bases ---- */

void hdg_legendre_eval(int N, int npts, const double *x, double *P, double *dP)
{
    double *p = hdg_xmalloc(2 * (size_t)(N + 1) * sizeof *p), *dp = p + N + 1;
    for (int i = 0; i < npts; i++) {
        hdg_jacobi_all(N, 0.0, 0.0, x[i], p, dp);
        memcpy(P + (size_t)i * (N + 1), p, (size_t)(N + 1) * sizeof *p);
        if (dP) memcpy(dP + (size_t)i * (N + 1), dp, (size_t)(N + 1) * sizeof *dp);
    }
    free(p);
}

/* Collapsed coordinate: 1 + a = 2(1+r)/(1-s) (kept without cancellation for
 * the gradient), a = -1 at the top vertex s = 1; b = s. */
static double one_plus_a(double r, double s)
{
    return s != 1.0 ? 2.0 * (1.0 + r) / (1.0 - s) : 0.0;
}

/* psi_(i,j) = sqrt2 f_i(a) g_j(b) (1-b)^i with f_i = P_i^(0,0),
 * g_j = P_j^(2i+1,0). With a = 2(1+r)/(1-s) - 1, b = s:
 *   d/dr = 2 sqrt2 f' g (1-b)^(i-1)
 *   d/ds = sqrt2 [f' (1+a) g (1-b)^(i-1) + f g' (1-b)^i - i f g (1-b)^(i-1)]
 * (the f' terms vanish for i = 0), all polynomial: no division by 1 - b. */
void hdg_dubiner_eval(int N, int npts, const double *r, const double *s, double *P,
                      double *Pr, double *Ps)
{
    int Np = (N + 1) * (N + 2) / 2;
    double *f = hdg_xmalloc(4 * (size_t)(N + 1) * sizeof *f);
    double *df = f + N + 1, *g = f + 2 * (N + 1), *dg = f + 3 * (N + 1);
    const double sq2 = sqrt(2.0);
    for (int p = 0; p < npts; p++) {
        double opa = one_plus_a(r[p], s[p]), a = opa - 1.0, b = s[p];
        hdg_jacobi_all(N, 0.0, 0.0, a, f, df);
        double omb = 1.0 - b, pw = 1.0, pwm = 0.0;   /* (1-b)^i, (1-b)^(i-1) */
        int m = 0;
        for (int i = 0; i <= N; i++) {
            hdg_jacobi_all(N - i, 2.0 * i + 1.0, 0.0, b, g, dg);
            for (int j = 0; j <= N - i; j++, m++) {
                size_t o = (size_t)p * Np + m;
                P[o] = sq2 * f[i] * g[j] * pw;
                if (Pr) Pr[o] = i ? 2.0 * sq2 * df[i] * g[j] * pwm : 0.0;
                if (Ps) {
                    double v = f[i] * dg[j] * pw;
                    if (i) v += (df[i] * opa - i * f[i]) * g[j] * pwm;
                    Ps[o] = sq2 * v;
                }
            }
            pwm = pw;
            pw *= omb;
        }
    }
    free(f);
}

/* ---- nodes ---- */

int hdg_equi_lattice(int p, double *r, double *s)
{
    int n = (p + 1) * (p + 2) / 2;
    if (!r || !s) return n;
    if (p == 0) {
        r[0] = s[0] = -1.0 / 3.0;
        return 1;
    }
    int k = 0;
    for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p - j; i++, k++) {
            r[k] = -1.0 + 2.0 * i / p;
            s[k] = -1.0 + 2.0 * j / p;
        }
    return n;
}

/* H&W Warpfactor: the interpolant (on N+1 equispaced points) of the
 * displacement from equispaced to Gauss-Lobatto points, evaluated at x and
 * divided by 1 - x^2 (zero at the end points). Lagrange form directly,
 * avoiding the equispaced Vandermonde. */
static double warp_factor(int N, const double *gll, double x)
{
    double warp = 0.0;
    for (int i = 0; i <= N; i++) {
        double xi = -1.0 + 2.0 * i / N, l = 1.0;
        for (int j = 0; j <= N; j++)
            if (j != i) l *= (x - (-1.0 + 2.0 * j / N)) / (xi - (-1.0 + 2.0 * j / N));
        warp += (gll[i] - xi) * l;
    }
    if (fabs(x) < 1.0 - 1e-10) return warp / (1.0 - x * x);
    return 0.0;
}

/* H&W Nodes2D (equilateral triangle) followed by xytors. */
static hdg_status warp_blend_nodes(int N, double *r, double *s, hdg_error *err)
{
    static const double alpopt[15] = {0.0000, 0.0000, 1.4152, 0.1001, 0.2751,
                                      0.9800, 1.0999, 1.2832, 1.3648, 1.4773,
                                      1.4959, 1.5743, 1.5770, 1.6223, 1.6258};
    double alpha = N < 16 ? alpopt[N - 1] : 5.0 / 3.0;
    double *gll = hdg_xmalloc((size_t)(2 * (N + 1)) * sizeof *gll), *wgll = gll + N + 1;
    hdg_status st = hdg_gauss_lobatto(N + 1, gll, wgll, err);
    if (st) {
        free(gll);
        return st;
    }
    /* edge directions at 0, 120 and 240 degrees */
    const double sq3 = sqrt(3.0), c2 = -0.5, s2 = 0.5 * sq3, c4 = -0.5, s4 = -0.5 * sq3;
    int k = 0;
    for (int n = 0; n <= N; n++)
        for (int m = 0; m <= N - n; m++, k++) {
            double L1 = (double)n / N, L3 = (double)m / N, L2 = 1.0 - L1 - L3;
            double x = -L2 + L3, y = (-L2 - L3 + 2.0 * L1) / sq3;
            double b1 = 4.0 * L2 * L3, b2 = 4.0 * L1 * L3, b3 = 4.0 * L1 * L2;
            double w1 = b1 * warp_factor(N, gll, L3 - L2) * (1.0 + (alpha * L1) * (alpha * L1));
            double w2 = b2 * warp_factor(N, gll, L1 - L3) * (1.0 + (alpha * L2) * (alpha * L2));
            double w3 = b3 * warp_factor(N, gll, L2 - L1) * (1.0 + (alpha * L3) * (alpha * L3));
            x += w1 + c2 * w2 + c4 * w3;
            y += s2 * w2 + s4 * w3;
            /* xytors */
            double l1 = (sq3 * y + 1.0) / 3.0;
            double l2 = (-3.0 * x - sq3 * y + 2.0) / 6.0;
            double l3 = (3.0 * x - sq3 * y + 2.0) / 6.0;
            r[k] = -l2 + l3 - l1;
            s[k] = -l2 - l3 + l1;
        }
    free(gll);
    return HDG_OK;
}

/* Node index of lattice point (i, j) (i along r, j along s). */
static int lattice_index(int N, int i, int j) { return j * (N + 1) - j * (j - 1) / 2 + i; }

/* Fmask from the lattice structure, and face nodes snapped onto their face at
 * the exact (symmetric) Gauss-Lobatto parameters, so that neighbouring
 * elements see bit-identical face points. */
static void build_faces(hdg_refel *re)
{
    int N = re->N, Nfp = re->Nfp;
    for (int k = 0; k <= N; k++) {
        re->Fmask[0 * Nfp + k] = lattice_index(N, k, 0);
        re->Fmask[1 * Nfp + k] = lattice_index(N, N - k, k);
        re->Fmask[2 * Nfp + k] = lattice_index(N, 0, N - k);
    }
    if (N == 0) return;
    for (int k = 0; k <= N; k++) {
        double t = re->tface[k];
        re->r[re->Fmask[0 * Nfp + k]] = t, re->s[re->Fmask[0 * Nfp + k]] = -1.0;
        re->r[re->Fmask[1 * Nfp + k]] = -t, re->s[re->Fmask[1 * Nfp + k]] = t;
        re->r[re->Fmask[2 * Nfp + k]] = -1.0, re->s[re->Fmask[2 * Nfp + k]] = -t;
    }
}

/* ---- matrices ---- */

static double *new_mat(int m, int n) { return hdg_xcalloc((size_t)m * n, sizeof(double)); }

/* M = Vinv^T Vinv (= (V V^T)^-1 without forming the product's inverse). */
static void gram_of_inverse(int n, const double *Vinv, double *M)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++) sum += Vinv[(size_t)k * n + i] * Vinv[(size_t)k * n + j];
            M[(size_t)i * n + j] = sum;
        }
}

static hdg_status build_face_mass(hdg_refel *re, hdg_error *err)
{
    int Nfp = re->Nfp;
    double *V1 = new_mat(Nfp, Nfp);
    hdg_legendre_eval(re->N, Nfp, re->tface, V1, NULL);
    if (hdg_invert(Nfp, V1)) {
        free(V1);
        return hdg_fail(err, HDG_EINTERNAL, "degree %d: singular face Vandermonde", re->N);
    }
    gram_of_inverse(Nfp, V1, re->Mface);
    free(V1);
    return HDG_OK;
}

static void build_lift(hdg_refel *re)
{
    int Np = re->Np, Nfp = re->Nfp, nf = 3 * Nfp;
    double *E = new_mat(Np, nf);
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < Nfp; i++)
            for (int k = 0; k < Nfp; k++)
                E[(size_t)re->Fmask[f * Nfp + i] * nf + f * Nfp + k] += re->Mface[i * Nfp + k];
    hdg_matmul(Np, nf, Np, 1.0, re->Minv, E, 0.0, re->LIFT);
    free(E);
}

void hdg_refel_free(hdg_refel *re)
{
    free(re->r);
    free(re->s);
    free(re->V);
    free(re->Vinv);
    free(re->Dr);
    free(re->Ds);
    free(re->M);
    free(re->Minv);
    free(re->Fmask);
    free(re->tface);
    free(re->Mface);
    free(re->LIFT);
    memset(re, 0, sizeof *re);
}

/* Nodes, face parameters and Fmask. */
static hdg_status build_nodes(hdg_refel *re, hdg_error *err)
{
    if (re->N == 0) {
        re->r[0] = re->s[0] = -1.0 / 3.0;
        re->tface[0] = 0.0;
    } else {
        double *w = new_mat(re->Nfp, 1);
        hdg_status st = hdg_gauss_lobatto(re->Nfp, re->tface, w, err);
        free(w);
        if (!st) st = warp_blend_nodes(re->N, re->r, re->s, err);
        if (st) return st;
    }
    build_faces(re);
    return HDG_OK;
}

/* V, Vinv, Dr, Ds, M, Minv and cond(V). */
static hdg_status build_volume(hdg_refel *re, hdg_error *err)
{
    int N = re->N, Np = re->Np;
    size_t nn = (size_t)Np * Np;
    double *Vr = new_mat(Np, Np), *Vs = new_mat(Np, Np);
    hdg_dubiner_eval(N, Np, re->r, re->s, re->V, Vr, Vs);
    memcpy(re->Vinv, re->V, nn * sizeof *re->V);
    if (hdg_invert(Np, re->Vinv)) {
        free(Vr), free(Vs);
        return hdg_fail(err, HDG_EINTERNAL, "degree %d: singular Vandermonde matrix", N);
    }
    hdg_matmul(Np, Np, Np, 1.0, Vr, re->Vinv, 0.0, re->Dr);
    hdg_matmul(Np, Np, Np, 1.0, Vs, re->Vinv, 0.0, re->Ds);
    free(Vr), free(Vs);
    gram_of_inverse(Np, re->Vinv, re->M);
    for (int i = 0; i < Np; i++)           /* Minv = V V^T */
        for (int j = 0; j < Np; j++) {
            double sum = 0.0;
            for (int k = 0; k < Np; k++) sum += re->V[i * Np + k] * re->V[j * Np + k];
            re->Minv[i * Np + j] = sum;
        }
    re->cond_V = hdg_cond2(Np, re->V);
    return HDG_OK;
}

hdg_status hdg_refel_init(hdg_refel *re, int N, hdg_error *err)
{
    memset(re, 0, sizeof *re);
    if (N < 0 || N > HDG_REFEL_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "reference element degree must be 0..%d, got %d",
                        HDG_REFEL_MAX_DEGREE, N);
    int Np = (N + 1) * (N + 2) / 2, Nfp = N + 1;
    re->N = N, re->Np = Np, re->Nfp = Nfp;
    re->r = new_mat(Np, 1), re->s = new_mat(Np, 1);
    re->V = new_mat(Np, Np), re->Vinv = new_mat(Np, Np);
    re->Dr = new_mat(Np, Np), re->Ds = new_mat(Np, Np);
    re->M = new_mat(Np, Np), re->Minv = new_mat(Np, Np);
    re->Fmask = hdg_xcalloc(3 * (size_t)Nfp, sizeof *re->Fmask);
    re->tface = new_mat(Nfp, 1), re->Mface = new_mat(Nfp, Nfp);
    re->LIFT = new_mat(Np, 3 * Nfp);
    hdg_status st = build_nodes(re, err);
    if (!st) st = build_volume(re, err);
    if (!st) st = build_face_mass(re, err);
    if (st) {
        hdg_refel_free(re);
        return st;
    }
    build_lift(re);
    return HDG_OK;
}

void hdg_refel_interp(const hdg_refel *re, int npts, const double *r, const double *s,
                      double *I)
{
    double *P = new_mat(npts, re->Np);
    hdg_dubiner_eval(re->N, npts, r, s, P, NULL, NULL);
    hdg_matmul(npts, re->Np, re->Np, 1.0, P, re->Vinv, 0.0, I);
    free(P);
}
