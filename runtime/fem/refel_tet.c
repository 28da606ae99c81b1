/* refel_tet.c — the reference tetrahedron's own parts (see refel.h): the
 * orthonormal PKD basis with its gradients (H&W Simplex3DP / GradSimplex3DP)
 * and the warp-and-blend nodes (H&W Nodes3D, Warburton 2006) with their face
 * node set. Everything else (faces, matrices, LIFT) is refel.c's, shared
 * with the triangle. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel_internal.h"
#include "support/util.h"

/* ---- basis ---- */

/* Collapsed coordinates a, b, c = t, kept as 1 + a and 1 + b without
 * cancellation: 1 + a = 2(1+r)/(-s-t) (0 on the edge s + t = 0),
 * 1 + b = 2(1+s)/(1-t) (0 at the top vertex t = 1). */
static void collapse(double r, double s, double t, double *opa, double *opb)
{
    *opa = s + t != 0.0 ? 2.0 * (1.0 + r) / (-s - t) : 0.0;
    *opb = t != 1.0 ? 2.0 * (1.0 + s) / (1.0 - t) : 0.0;
}

/* One mode psi = K f(a) g(b) (1-b)^i h(c) (1-c)^(i+j), K = 2 sqrt2, with
 * f = P_i^(0,0), g = P_j^(2i+1,0), h = P_k^(2i+2j+2,0); with A = 1+a,
 * B = 1+b and pw/pwm the powers (1-b)^i, (1-b)^(i-1), qw/qwm (1-c)^(i+j),
 * (1-c)^(i+j-1):
 *   d/dr = 4K f' g h (1-b)^(i-1) (1-c)^(i+j-1)
 *   T    = 2K f (g' (1-b)^i - i g (1-b)^(i-1)) h (1-c)^(i+j-1)
 *   d/ds = A/2 d/dr + T
 *   d/dt = A/2 d/dr + B/2 T + K f g (1-b)^i (h' (1-c)^(i+j) - (i+j) h (1-c)^(i+j-1))
 * (terms with a negative power carry a zero factor and are left out). */
typedef struct mode_terms {
    double f, df, g, dg, h, dh;       /* the Jacobi factors and their derivatives */
    double pw, pwm, qw, qwm, A, B;
    int i, ij;                        /* i and i + j */
} mode_terms;

static void mode_eval(const mode_terms *m, double *P, double *Pr, double *Ps, double *Pt)
{
    const double K = 2.0 * sqrt(2.0);
    *P = K * m->f * m->g * m->pw * m->h * m->qw;
    double dr = m->i ? 4.0 * K * m->df * m->g * m->h * m->pwm * m->qwm : 0.0;
    double T = 0.0;
    if (m->ij) {
        double gb = m->dg * m->pw;
        if (m->i) gb -= m->i * m->g * m->pwm;
        T = 2.0 * K * m->f * gb * m->h * m->qwm;
    }
    double hc = m->dh * m->qw;
    if (m->ij) hc -= m->ij * m->h * m->qwm;
    if (Pr) *Pr = dr;
    if (Ps) *Ps = 0.5 * m->A * dr + T;
    if (Pt) *Pt = 0.5 * m->A * dr + 0.5 * m->B * T + K * m->f * m->g * m->pw * hc;
}

void hdg_refel_tet_eval(int N, int npts, const double *const *x, double *P, double *const *dP)
{
    int Np = hdg_simplex_count(3, N);
    double *buf = hdg_xmalloc(6 * (size_t)(N + 1) * sizeof *buf);
    double *f = buf, *df = f + N + 1, *g = df + N + 1, *dg = g + N + 1, *h = dg + N + 1,
           *dh = h + N + 1;
    double *Pr = dP ? dP[0] : NULL, *Ps = dP ? dP[1] : NULL, *Pt = dP ? dP[2] : NULL;
    for (int p = 0; p < npts; p++) {
        mode_terms m;
        double r = x[0][p], s = x[1][p], t = x[2][p];
        collapse(r, s, t, &m.A, &m.B);
        double omb = 2.0 - m.B, omc = 1.0 - t, ci = 1.0, cim = 0.0;  /* (1-c)^i, ^(i-1) */
        hdg_jacobi_all(N, 0.0, 0.0, m.A - 1.0, f, df);
        int idx = 0;
        m.pw = 1.0, m.pwm = 0.0;
        for (int i = 0; i <= N; i++) {
            hdg_jacobi_all(N - i, 2.0 * i + 1.0, 0.0, m.B - 1.0, g, dg);
            m.qw = ci, m.qwm = cim;
            for (int j = 0; j <= N - i; j++) {
                hdg_jacobi_all(N - i - j, 2.0 * (i + j) + 2.0, 0.0, t, h, dh);
                for (int k = 0; k <= N - i - j; k++, idx++) {
                    m.f = f[i], m.df = df[i], m.g = g[j], m.dg = dg[j], m.h = h[k], m.dh = dh[k];
                    m.i = i, m.ij = i + j;
                    size_t o = (size_t)p * Np + idx;
                    mode_eval(&m, P + o, Pr ? Pr + o : NULL, Ps ? Ps + o : NULL,
                              Pt ? Pt + o : NULL);
                }
                m.qwm = m.qw;
                m.qw *= omc;
            }
            m.pwm = m.pw;
            m.pw *= omb;
            cim = ci;
            ci *= omc;
        }
    }
    free(buf);
}

/* ---- nodes ---- */

/* H&W's alpha for Nodes3D, optimised for the Lebesgue constant (N = 1..15). */
static double tet_alpha(int N)
{
    static const double alpopt[15] = {0.0, 0.0, 0.0, 0.1002, 1.1332, 1.5608, 1.3413, 1.2577,
                                      1.1603, 1.10153, 0.6080, 0.4523, 0.8856, 0.8717, 0.9655};
    return N <= 15 ? alpopt[N - 1] : 1.0;
}

/* H&W evalshift: the warp of an equilateral triangle with barycentrics
 * L1, L2, L3 (edges blended as in Nodes2D), in the triangle's frame. */
static void eval_shift(int N, double alpha, const double *gll, double L1, double L2, double L3,
                       double *dx, double *dy)
{
    double w1 = 4.0 * L2 * L3 * hdg_refel_warp_factor(N, gll, L3 - L2) * (1.0 + (alpha * L1) * (alpha * L1));
    double w2 = 4.0 * L1 * L3 * hdg_refel_warp_factor(N, gll, L1 - L3) * (1.0 + (alpha * L2) * (alpha * L2));
    double w3 = 4.0 * L1 * L2 * hdg_refel_warp_factor(N, gll, L2 - L1) * (1.0 + (alpha * L3) * (alpha * L3));
    *dx = w1 - 0.5 * w2 - 0.5 * w3;
    *dy = 0.5 * sqrt(3.0) * (w2 - w3);
}

/* The face tangents t1, t2 of H&W Nodes3D (unit vectors in the equilateral
 * tetrahedron v1..v4), carried to (r, s, t) by the inverse of the affine map
 * (r, s, t) -> equilateral (xyztorst's matrix A, upper triangular). */
static void face_tangents(double T1[4][3], double T2[4][3])
{
    const double q3 = sqrt(3.0), q6 = sqrt(6.0);
    const double v[4][3] = {{-1, -1 / q3, -1 / q6}, {1, -1 / q3, -1 / q6}, {0, 2 / q3, -1 / q6},
                            {0, 0, 3 / q6}};
    const int e1[4][2] = {{0, 1}, {0, 1}, {1, 2}, {0, 2}};            /* t1 = v_b - v_a */
    const int e2[4][3] = {{2, 0, 1}, {3, 0, 1}, {3, 1, 2}, {3, 0, 2}}; /* t2 = v_c - (v_a+v_b)/2 */
    const double A01 = 0.5, A02 = 0.5, A11 = 0.5 * q3, A12 = 0.5 / q3, A22 = 2.0 / q6;
    for (int f = 0; f < 4; f++) {
        double t[2][3], n[2] = {0, 0};
        for (int d = 0; d < 3; d++) {
            t[0][d] = v[e1[f][1]][d] - v[e1[f][0]][d];
            t[1][d] = v[e2[f][0]][d] - 0.5 * (v[e2[f][1]][d] + v[e2[f][2]][d]);
            n[0] += t[0][d] * t[0][d], n[1] += t[1][d] * t[1][d];
        }
        for (int k = 0; k < 2; k++) {
            double *y = k ? T2[f] : T1[f], *u = t[k], nk = sqrt(n[k]);
            y[2] = u[2] / nk / A22;
            y[1] = (u[1] / nk - A12 * y[2]) / A11;
            y[0] = u[0] / nk - A01 * y[1] - A02 * y[2];
        }
    }
}

/* H&W Nodes3D for one node with barycentrics L = (L1..L4) = ((1+t)/2,
 * (1+s)/2, -(1+r+s+t)/2, (1+r)/2): the shift in (r, s, t). */
static void node_shift(int N, double alpha, const double *gll, const double L[4],
                       double T1[4][3], double T2[4][3], double shift[3])
{
    static const int order[4][4] = {{0, 1, 2, 3}, {1, 0, 2, 3}, {2, 0, 3, 1}, {3, 0, 2, 1}};
    const double tol = 1e-10;
    shift[0] = shift[1] = shift[2] = 0.0;
    for (int f = 0; f < 4; f++) {
        double La = L[order[f][0]], Lb = L[order[f][1]], Lc = L[order[f][2]], Ld = L[order[f][3]];
        double dx, dy;
        eval_shift(N, alpha, gll, Lb, Lc, Ld, &dx, &dy);
        double blend = Lb * Lc * Ld;
        double denom = (Lb + 0.5 * La) * (Lc + 0.5 * La) * (Ld + 0.5 * La);
        if (denom > tol) blend = (1.0 + (alpha * La) * (alpha * La)) * blend / denom;
        int on_edge = La < tol && (Lb > tol) + (Lc > tol) + (Ld > tol) < 3;
        for (int d = 0; d < 3; d++) {
            double w = dx * T1[f][d] + dy * T2[f][d];
            shift[d] = on_edge ? w : shift[d] + blend * w;   /* edges: the face's warp alone */
        }
    }
}

hdg_status hdg_refel_tet_nodes(int N, double *r, double *s, double *t, hdg_error *err)
{
    double alpha = tet_alpha(N), T1[4][3], T2[4][3];
    double *gll = hdg_xmalloc(2 * (size_t)(N + 1) * sizeof *gll);
    hdg_status st = hdg_gauss_lobatto(N + 1, gll, gll + N + 1, err);
    if (st) {
        free(gll);
        return st;
    }
    face_tangents(T1, T2);
    int p = 0;
    for (int k = 0; k <= N; k++)
        for (int j = 0; j <= N - k; j++)
            for (int i = 0; i <= N - k - j; i++, p++) {
                double L[4] = {(double)k / N, (double)j / N, (double)(N - i - j - k) / N,
                               (double)i / N}, sh[3];
                node_shift(N, alpha, gll, L, T1, T2, sh);
                r[p] = -1.0 + 2.0 * i / N + sh[0];
                s[p] = -1.0 + 2.0 * j / N + sh[1];
                t[p] = -1.0 + 2.0 * k / N + sh[2];
            }
    free(gll);
    return HDG_OK;
}

/* Symmetrises the barycentrics mu of a face lattice point with integer
 * barycentrics m: zero where m is (the point is on that edge), equal where
 * m's are equal (the point is fixed by that permutation). */
static void fix_bary(const int *m, double *mu)
{
    for (int k = 0; k < 3; k++)
        if (!m[k]) mu[k] = 0.0;
    if (m[0] == m[1] && m[1] == m[2]) {
        mu[0] = mu[1] = mu[2] = 1.0 / 3.0;
        return;
    }
    for (int k = 0; k < 3; k++)
        for (int l = k + 1; l < 3; l++)
            if (m[k] == m[l]) mu[k] = mu[l] = 0.5 * (mu[k] + mu[l]);
}

hdg_status hdg_refel_tet_face_nodes(int N, double *a, double *b, hdg_error *err)
{
    int Nfp = hdg_simplex_count(2, N);
    double *r = hdg_xmalloc(2 * (size_t)Nfp * sizeof *r), *s = r + Nfp;
    hdg_status st = hdg_refel_tri_nodes(N, tet_alpha(N), r, s, err);
    if (st) {
        free(r);
        return st;
    }
    char *done = hdg_xcalloc((size_t)Nfp, 1);
    int p = 0;
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N - j; i++, p++) {
            if (done[p]) continue;
            int m[3] = {N - i - j, i, j};
            double mu[3] = {-0.5 * (r[p] + s[p]), 0.5 * (1.0 + r[p]), 0.5 * (1.0 + s[p])};
            fix_bary(m, mu);
            for (int o = 0; o < 6; o++) {    /* the orbit: every image gets mu permuted */
                const int *pi = hdg_face_orient_perm(3, o);
                int c[2] = {m[pi[1]], m[pi[2]]};
                int q = hdg_refel_lattice_index(2, N, c);
                if (done[q]) continue;
                a[q] = 2.0 * mu[pi[1]] - 1.0;
                b[q] = 2.0 * mu[pi[2]] - 1.0;
                done[q] = 1;
            }
        }
    free(done);
    free(r);
    return HDG_OK;
}
