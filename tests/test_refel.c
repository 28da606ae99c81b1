/* test_refel.c — the nodal reference triangle (runtime/fem/refel):
 *  - warp-and-blend nodes against an independent mpmath port of H&W Nodes2D
 *    (N = 6, 12), symmetry of the node set, N = 0, 1, 2 exactly;
 *  - Fmask: face nodes on their face, ordered from vertex j to vertex j+1,
 *    at the Gauss-Lobatto parameters, ends at the vertices;
 *  - Dubiner basis orthonormal (Gram = I by quadrature, N = 1..12), gradients
 *    against finite differences; 1D Legendre basis orthonormal, derivatives;
 *  - Dr, Ds exact on all monomials of degree <= N (N = 1..12);
 *  - M and Mface equal quadrature mass matrices of the Lagrange bases;
 *  - cond(V) printed and bounded;
 *  - LIFT equals M^-1 (face integrals of l_i g) by independent quadrature, and
 *    the Fscale = sJ/J convention on face 1 of the reference triangle;
 *  - interpolation reproduces degree-N polynomials at random points;
 *  - equispaced lattice counts and ordering; argument errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/solve/dense.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "test.h"

#define NMAX HDG_REFEL_MAX_DEGREE

/* Reference nodes from an mpmath (40 digits) port of H&W Nodes2D + xytors,
 * using their Vandermonde-based Warpfactor and polynomial-root GLL points. */
static const double nodes_ref_6[][2] = {
    {-1.0, -1.0},
    {-8.3022389627856693e-1, -1.0},
    {-4.6884879347071421e-1, -1.0},
    {0.0, -1.0},
    {4.6884879347071421e-1, -1.0},
    {8.3022389627856693e-1, -1.0},
    {1.0, -1.0},
    {-1.0, -8.3022389627856693e-1},
    {-7.6951649619344146e-1, -7.6951649619344146e-1},
    {-3.6476925653668918e-1, -7.4409539603432128e-1},
    {1.0886465257101046e-1, -7.4409539603432128e-1},
    {5.3903299238688292e-1, -7.6951649619344146e-1},
    {8.3022389627856693e-1, -8.3022389627856693e-1},
    {-1.0, -4.6884879347071421e-1},
    {-7.4409539603432128e-1, -3.6476925653668918e-1},
    {-3.3333333333333333e-1, -3.3333333333333333e-1},
    {1.0886465257101046e-1, -3.6476925653668918e-1},
    {4.6884879347071421e-1, -4.6884879347071421e-1},
    {-1.0, 0.0},
    {-7.4409539603432128e-1, 1.0886465257101046e-1},
    {-3.6476925653668918e-1, 1.0886465257101046e-1},
    {0.0, 0.0},
    {-1.0, 4.6884879347071421e-1},
    {-7.6951649619344146e-1, 5.3903299238688292e-1},
    {-4.6884879347071421e-1, 4.6884879347071421e-1},
    {-1.0, 8.3022389627856693e-1},
    {-8.3022389627856693e-1, 8.3022389627856693e-1},
    {-1.0, 1.0},
};
static const double nodes_ref_12[][2] = {
    {-1.0, -1.0},
    {-9.5330984664216391e-1, -1.0},
    {-8.4634756465187232e-1, -1.0},
    {-6.8618846908175743e-1, -1.0},
    {-4.829098210913362e-1, -1.0},
    {-2.4928693010623999e-1, -1.0},
    {0.0, -1.0},
    {2.4928693010623999e-1, -1.0},
    {4.829098210913362e-1, -1.0},
    {6.8618846908175743e-1, -1.0},
    {8.4634756465187232e-1, -1.0},
    {9.5330984664216391e-1, -1.0},
    {1.0, -1.0},
    {-1.0, -9.5330984664216391e-1},
    {-9.3472321566480641e-1, -9.3472321566480641e-1},
    {-8.0672814503467161e-1, -9.254219174583578e-1},
    {-6.2669599930369788e-1, -9.2175030780506636e-1},
    {-4.0776547548563568e-1, -9.2089717601591197e-1},
    {-1.6492251583272941e-1, -9.2095332911479769e-1},
    {8.5875844947527095e-2, -9.2095332911479769e-1},
    {3.2866265150154764e-1, -9.2089717601591197e-1},
    {5.4844630710876424e-1, -9.2175030780506636e-1},
    {7.3215006249302942e-1, -9.254219174583578e-1},
    {8.6944643132961281e-1, -9.3472321566480641e-1},
    {9.5330984664216391e-1, -9.5330984664216391e-1},
    {-1.0, -8.4634756465187232e-1},
    {-9.254219174583578e-1, -8.0672814503467161e-1},
    {-7.8459651364143583e-1, -7.8459651364143583e-1},
    {-5.9183059790026839e-1, -7.7351989987079452e-1},
    {-3.6330192028483975e-1, -7.6878988872538515e-1},
    {-1.1623254955805785e-1, -7.675349008838843e-1},
    {1.320918090102249e-1, -7.6878988872538515e-1},
    {3.6535049777106292e-1, -7.7351989987079452e-1},
    {5.6919302728287165e-1, -7.8459651364143583e-1},
    {7.3215006249302942e-1, -8.0672814503467161e-1},
    {8.4634756465187232e-1, -8.4634756465187232e-1},
    {-1.0, -6.8618846908175743e-1},
    {-9.2175030780506636e-1, -6.2669599930369788e-1},
    {-7.7351989987079452e-1, -5.9183059790026839e-1},
    {-5.7330275870486131e-1, -5.7330275870486131e-1},
    {-3.403554515223302e-1, -5.6546793264388821e-1},
    {-9.4176615833781587e-2, -5.6546793264388821e-1},
    {1.4660551740972263e-1, -5.7330275870486131e-1},
    {3.6535049777106292e-1, -5.9183059790026839e-1},
    {5.4844630710876424e-1, -6.2669599930369788e-1},
    {6.8618846908175743e-1, -6.8618846908175743e-1},
    {-1.0, -4.829098210913362e-1},
    {-9.2089717601591197e-1, -4.0776547548563568e-1},
    {-7.6878988872538515e-1, -3.6330192028483975e-1},
    {-5.6546793264388821e-1, -3.403554515223302e-1},
    {-3.3333333333333333e-1, -3.3333333333333333e-1},
    {-9.4176615833781587e-2, -3.403554515223302e-1},
    {1.320918090102249e-1, -3.6330192028483975e-1},
    {3.2866265150154764e-1, -4.0776547548563568e-1},
    {4.829098210913362e-1, -4.829098210913362e-1},
    {-1.0, -2.4928693010623999e-1},
    {-9.2095332911479769e-1, -1.6492251583272941e-1},
    {-7.675349008838843e-1, -1.1623254955805785e-1},
    {-5.6546793264388821e-1, -9.4176615833781587e-2},
    {-3.403554515223302e-1, -9.4176615833781587e-2},
    {-1.1623254955805785e-1, -1.1623254955805785e-1},
    {8.5875844947527095e-2, -1.6492251583272941e-1},
    {2.4928693010623999e-1, -2.4928693010623999e-1},
    {-1.0, 0.0},
    {-9.2095332911479769e-1, 8.5875844947527095e-2},
    {-7.6878988872538515e-1, 1.320918090102249e-1},
    {-5.7330275870486131e-1, 1.4660551740972263e-1},
    {-3.6330192028483975e-1, 1.320918090102249e-1},
    {-1.6492251583272941e-1, 8.5875844947527095e-2},
    {0.0, 0.0},
    {-1.0, 2.4928693010623999e-1},
    {-9.2089717601591197e-1, 3.2866265150154764e-1},
    {-7.7351989987079452e-1, 3.6535049777106292e-1},
    {-5.9183059790026839e-1, 3.6535049777106292e-1},
    {-4.0776547548563568e-1, 3.2866265150154764e-1},
    {-2.4928693010623999e-1, 2.4928693010623999e-1},
    {-1.0, 4.829098210913362e-1},
    {-9.2175030780506636e-1, 5.4844630710876424e-1},
    {-7.8459651364143583e-1, 5.6919302728287165e-1},
    {-6.2669599930369788e-1, 5.4844630710876424e-1},
    {-4.829098210913362e-1, 4.829098210913362e-1},
    {-1.0, 6.8618846908175743e-1},
    {-9.254219174583578e-1, 7.3215006249302942e-1},
    {-8.0672814503467161e-1, 7.3215006249302942e-1},
    {-6.8618846908175743e-1, 6.8618846908175743e-1},
    {-1.0, 8.4634756465187232e-1},
    {-9.3472321566480641e-1, 8.6944643132961281e-1},
    {-8.4634756465187232e-1, 8.4634756465187232e-1},
    {-1.0, 9.5330984664216391e-1},
    {-9.5330984664216391e-1, 9.5330984664216391e-1},
    {-1.0, 1.0},
};

static hdg_refel R[NMAX + 1];

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;

static double urand01(void)                /* xorshift64, uniform in [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void random_point(double *r, double *s)  /* uniform in the triangle */
{
    double u = urand01(), v = urand01();
    if (u + v > 1.0) u = 1.0 - u, v = 1.0 - v;
    *r = -1.0 + 2.0 * u, *s = -1.0 + 2.0 * v;
}

static double max_abs(size_t n, const double *a)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* x^k with x^0 = 1 and k < 0 giving 0 (for derivatives of monomials) */
static double ipow(double x, int k)
{
    if (k < 0) return 0.0;
    double p = 1.0;
    while (k--) p *= x;
    return p;
}

/* Face point at parameter t in [-1,1], from vertex f to vertex (f+1)%3. */
static void face_point(int f, double t, double *r, double *s)
{
    if (f == 0) *r = t, *s = -1.0;
    else if (f == 1) *r = -t, *s = t;
    else *r = -1.0, *s = -t;
}

/* 1D Lagrange polynomial k on the points x[0..n-1], at t (product form). */
static double lagrange1d(int n, const double *x, int k, double t)
{
    double l = 1.0;
    for (int j = 0; j < n; j++)
        if (j != k) l *= (t - x[j]) / (x[k] - x[j]);
    return l;
}

static void test_init_errors(void)
{
    hdg_refel re;
    hdg_error err;
    CHECK(hdg_refel_init(&re, 2, -1, &err) == HDG_EINPUT && strstr(err.msg, "0..12") &&
              strstr(err.msg, "-1"),
          "N=-1: %s", err.msg);
    CHECK(re.r == NULL && re.V == NULL && re.LIFT == NULL, "failed init left arrays");
    CHECK(hdg_refel_init(&re, 2, 13, &err) == HDG_EINPUT && strstr(err.msg, "13"), "N=13: %s", err.msg);
    hdg_refel_free(&re);
}

/* The node set is invariant under permutations of barycentric coordinates. */
static int symmetric_node_set(const hdg_refel *re, double tol)
{
    for (int i = 0; i < re->Np; i++) {
        double l[3] = {-(re->r[i] + re->s[i]) / 2, (1 + re->r[i]) / 2, (1 + re->s[i]) / 2};
        static const int perm[5][3] = {{1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
        for (int p = 0; p < 5; p++) {
            /* image point: barycentrics permuted; r = 2 l2 - 1, s = 2 l3 - 1 */
            double r = 2 * l[perm[p][1]] - 1, s = 2 * l[perm[p][2]] - 1, best = 1e300;
            for (int j = 0; j < re->Np; j++) best = fmin(best, hypot(re->r[j] - r, re->s[j] - s));
            if (best > tol) return 0;
        }
    }
    return 1;
}

static void test_nodes(void)
{
    CHECK(R[0].Np == 1 && R[0].Nfp == 1 && R[0].r[0] == -1.0 / 3 && R[0].s[0] == -1.0 / 3,
          "N=0: centroid node");
    static const double p1[3][2] = {{-1, -1}, {1, -1}, {-1, 1}};
    for (int i = 0; i < 3; i++)
        CHECK(R[1].r[i] == p1[i][0] && R[1].s[i] == p1[i][1], "N=1 node %d at (%g, %g)", i, R[1].r[i],
              R[1].s[i]);
    static const double p2[6][2] = {{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {0, 0}, {-1, 1}};
    for (int i = 0; i < 6; i++)
        CHECK(R[2].r[i] == p2[i][0] && R[2].s[i] == p2[i][1], "N=2 node %d at (%g, %g)", i, R[2].r[i],
              R[2].s[i]);
    double e6 = 0.0, e12 = 0.0;
    for (int i = 0; i < R[6].Np; i++)
        e6 = fmax(e6, fmax(fabs(R[6].r[i] - nodes_ref_6[i][0]), fabs(R[6].s[i] - nodes_ref_6[i][1])));
    for (int i = 0; i < R[12].Np; i++)
        e12 = fmax(e12, fmax(fabs(R[12].r[i] - nodes_ref_12[i][0]), fabs(R[12].s[i] - nodes_ref_12[i][1])));
    CHECK(e6 <= 1e-14, "N=6 nodes vs mpmath Nodes2D: %.3g", e6);
    CHECK(e12 <= 1e-14, "N=12 nodes vs mpmath Nodes2D: %.3g", e12);
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        CHECK(re->Np == (N + 1) * (N + 2) / 2 && re->Nfp == N + 1, "N=%d sizes", N);
        int inside = 1;
        double dmin = 1e300;
        for (int i = 0; i < re->Np; i++) {
            inside &= re->r[i] >= -1 && re->s[i] >= -1 && re->r[i] + re->s[i] <= 1e-15;
            for (int j = 0; j < i; j++) dmin = fmin(dmin, hypot(re->r[i] - re->r[j], re->s[i] - re->s[j]));
        }
        CHECK(inside, "N=%d: a node outside the triangle", N);
        CHECK(dmin > 0.5 / (N * N), "N=%d: nodes too close (%.3g)", N, dmin);
        CHECK(symmetric_node_set(re, 1e-13), "N=%d: node set not symmetric", N);
    }
}

static void test_fmask(void)
{
    static const double vx[3] = {-1, 1, -1}, vy[3] = {-1, -1, 1};
    for (int f = 0; f < 3; f++) CHECK(R[0].Fmask[f] == 0, "N=0 Fmask");
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        int Nfp = re->Nfp, ok_on = 1, ok_order = 1, ok_t = 1;
        double gll[NMAX + 1], w[NMAX + 1];
        hdg_gauss_lobatto(Nfp, gll, w, NULL);
        for (int f = 0; f < 3; f++) {
            int count = 0;                 /* nodes within 1e-10 of the face line */
            for (int i = 0; i < re->Np; i++) {
                double r = re->r[i], s = re->s[i];
                double d = f == 0 ? fabs(s + 1) : f == 1 ? fabs(r + s) / sqrt(2.0) : fabs(r + 1);
                count += d < 1e-10;
            }
            CHECK(count == Nfp, "N=%d face %d: %d nodes on the face, expected %d", N, f, count, Nfp);
            double tprev = -2.0;
            for (int k = 0; k < Nfp; k++) {
                int n = re->Fmask[f * Nfp + k];
                double r = re->r[n], s = re->s[n];
                double d = f == 0 ? fabs(s + 1) : f == 1 ? fabs(r + s) : fabs(r + 1);
                ok_on &= d <= 1e-14;
                double t = f == 0 ? r : f == 1 ? s : -s;   /* parameter from vertex f */
                ok_order &= t > tprev;
                ok_t &= fabs(t - gll[k]) <= 1e-15 && re->tface[k] == gll[k];
                tprev = t;
            }
            int a = re->Fmask[f * Nfp], b = re->Fmask[f * Nfp + Nfp - 1], g = (f + 1) % 3;
            CHECK(fabs(re->r[a] - vx[f]) <= 1e-14 && fabs(re->s[a] - vy[f]) <= 1e-14,
                  "N=%d face %d starts at (%g, %g), not vertex %d", N, f, re->r[a], re->s[a], f);
            CHECK(fabs(re->r[b] - vx[g]) <= 1e-14 && fabs(re->s[b] - vy[g]) <= 1e-14,
                  "N=%d face %d ends at (%g, %g), not vertex %d", N, f, re->r[b], re->s[b], g);
        }
        CHECK(ok_on, "N=%d: a Fmask node is off its face", N);
        CHECK(ok_order, "N=%d: face nodes not ordered from vertex j to vertex j+1", N);
        CHECK(ok_t, "N=%d: face parameters are not the Gauss-Lobatto points", N);
    }
}

static void test_orthonormal(void)
{
    double worst = 0.0;
    for (int N = 1; N <= NMAX; N++) {
        hdg_quad2d q;
        hdg_quad_triangle(&q, 2 * N, NULL);
        int Np = R[N].Np;
        double *P = malloc(sizeof(double) * q.n * Np), e = 0.0;
        hdg_dubiner_eval(N, q.n, q.r, q.s, P, NULL, NULL);
        for (int a = 0; a < Np; a++)
            for (int b = 0; b <= a; b++) {
                double g = 0.0;
                for (int k = 0; k < q.n; k++) g += q.w[k] * P[k * Np + a] * P[k * Np + b];
                e = fmax(e, fabs(g - (a == b)));
            }
        CHECK(e <= 1e-12, "N=%d: Dubiner Gram matrix - I = %.3g", N, e);
        worst = fmax(worst, e);
        free(P);
        hdg_quad2d_free(&q);
    }
    printf("Dubiner orthonormality, N=1..%d: max |G - I| = %.2e\n", NMAX, worst);

    /* gradients against central differences, N = 7 at random interior points */
    enum { N = 7, NP = 36 };
    double P[NP], Pr[NP], Ps[NP], Pa[NP], Pb[NP], e = 0.0, h = 1e-5;
    for (int t = 0; t < 20; t++) {
        double r, s;
        random_point(&r, &s);
        r = -0.9 + 0.8 * (r + 1) / 2, s = -0.9 + 0.8 * (s + 1) / 2;  /* keep r+-h, s+-h inside */
        hdg_dubiner_eval(N, 1, &r, &s, P, Pr, Ps);
        double rp = r + h, rm = r - h, sp = s + h, sm = s - h;
        hdg_dubiner_eval(N, 1, &rp, &s, Pa, NULL, NULL);
        hdg_dubiner_eval(N, 1, &rm, &s, Pb, NULL, NULL);
        for (int m = 0; m < NP; m++) e = fmax(e, fabs((Pa[m] - Pb[m]) / (2 * h) - Pr[m]));
        hdg_dubiner_eval(N, 1, &r, &sp, Pa, NULL, NULL);
        hdg_dubiner_eval(N, 1, &r, &sm, Pb, NULL, NULL);
        for (int m = 0; m < NP; m++) e = fmax(e, fabs((Pa[m] - Pb[m]) / (2 * h) - Ps[m]));
    }
    CHECK(e <= 1e-6, "Dubiner gradient vs central differences: %.3g", e);

    /* the top vertex (s = 1) is handled: only psi with i = 0 may be nonzero */
    double rt = -1.0, st = 1.0;
    hdg_dubiner_eval(N, 1, &rt, &st, P, Pr, Ps);
    int fin = 1;
    for (int m = 0; m < NP; m++) fin &= isfinite(P[m]) && isfinite(Pr[m]) && isfinite(Ps[m]);
    CHECK(fin, "Dubiner basis not finite at the top vertex");
}

static void test_legendre(void)
{
    for (int N = 0; N <= NMAX; N++) {
        int n = N + 1;
        double x[NMAX + 1], w[NMAX + 1], P[(NMAX + 1) * (NMAX + 1)], e = 0.0;
        hdg_gauss_legendre(n, x, w, NULL);
        hdg_legendre_eval(N, n, x, P, NULL);
        for (int a = 0; a <= N; a++)
            for (int b = 0; b <= N; b++) {
                double g = 0.0;
                for (int k = 0; k < n; k++) g += w[k] * P[k * n + a] * P[k * n + b];
                e = fmax(e, fabs(g - (a == b)));
            }
        CHECK(e <= 1e-14, "N=%d: Legendre Gram - I = %.3g", N, e);
    }
    /* d/dx P_k = sqrt(k (k+1)) P^(1,1)_{k-1} */
    enum { N = 10 };
    double xs[5] = {-1.0, -0.7, 0.1, 0.55, 1.0}, P[5 * (N + 1)], dP[5 * (N + 1)], e = 0.0;
    hdg_legendre_eval(N, 5, xs, P, dP);
    for (int k = 1; k <= N; k++) {
        double J[5];
        hdg_jacobi_p(k - 1, 1.0, 1.0, 5, xs, J);
        for (int i = 0; i < 5; i++)
            e = fmax(e, fabs(dP[i * (N + 1) + k] - sqrt(k * (k + 1.0)) * J[i]) / (1.0 + fabs(dP[i * (N + 1) + k])));
    }
    CHECK(e <= 1e-14, "Legendre derivatives: %.3g", e);
    CHECK_NEAR(P[2 * (N + 1) + 1], sqrt(1.5) * 0.1, 1e-16, "P_1(0.1)");
}

static void test_derivatives(void)
{
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        int Np = re->Np;
        double *u = malloc(sizeof(double) * Np * 5), *ur = u + Np, *us = u + 2 * Np;
        double *er = u + 3 * Np, *es = u + 4 * Np, worst = 0.0;
        for (int a = 0; a <= N; a++)
            for (int b = 0; a + b <= N; b++) {
                for (int i = 0; i < Np; i++) {
                    u[i] = ipow(re->r[i], a) * ipow(re->s[i], b);
                    er[i] = a * ipow(re->r[i], a - 1) * ipow(re->s[i], b);
                    es[i] = b * ipow(re->r[i], a) * ipow(re->s[i], b - 1);
                }
                hdg_matmul(Np, 1, Np, 1.0, re->Dr, u, 0.0, ur);
                hdg_matmul(Np, 1, Np, 1.0, re->Ds, u, 0.0, us);
                double scale = fmax(max_abs(Np, u), fmax(max_abs(Np, er), max_abs(Np, es)));
                for (int i = 0; i < Np; i++)
                    worst = fmax(worst, fmax(fabs(ur[i] - er[i]), fabs(us[i] - es[i])) / scale);
            }
        printf("Dr/Ds on monomials, N=%2d: max relative error %.2e\n", N, worst);
        CHECK(worst <= 1e-11, "N=%d: Dr/Ds relative error %.3g", N, worst);
        free(u);
    }
    /* N = 0: the derivative of a constant is zero */
    CHECK(R[0].Dr[0] == 0.0 && R[0].Ds[0] == 0.0, "N=0: Dr, Ds not zero");
}

static void test_mass(void)
{
    double worst_m = 0.0, worst_f = 0.0;
    for (int N = 0; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        int Np = re->Np, Nfp = re->Nfp;
        hdg_quad2d q;
        hdg_quad_triangle(&q, 2 * N, NULL);
        double *L = malloc(sizeof(double) * q.n * Np), *Mq = calloc((size_t)Np * Np, sizeof(double));
        hdg_refel_interp(re, q.n, q.r, q.s, L);         /* L[k][j] = l_j(x_k) */
        for (int k = 0; k < q.n; k++)
            for (int i = 0; i < Np; i++)
                for (int j = 0; j < Np; j++) Mq[i * Np + j] += q.w[k] * L[k * Np + i] * L[k * Np + j];
        double e = 0.0, total = 0.0, scale = max_abs((size_t)Np * Np, re->M);
        for (int i = 0; i < Np * Np; i++) e = fmax(e, fabs(Mq[i] - re->M[i])), total += re->M[i];
        CHECK(e <= 1e-12 * scale, "N=%d: M vs quadrature: %.3g", N, e);
        CHECK_NEAR(total, 2.0, 1e-13, "sum of M entries = area");
        worst_m = fmax(worst_m, e / scale);

        double *I = malloc(sizeof(double) * Np * Np);    /* M Minv = I */
        hdg_matmul(Np, Np, Np, 1.0, re->M, re->Minv, 0.0, I);
        double ei = 0.0;
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++) ei = fmax(ei, fabs(I[i * Np + j] - (i == j)));
        CHECK(ei <= 1e-12, "N=%d: M Minv - I = %.3g", N, ei);
        hdg_matmul(Np, Np, Np, 1.0, re->V, re->Vinv, 0.0, I);
        ei = 0.0;
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++) ei = fmax(ei, fabs(I[i * Np + j] - (i == j)));
        CHECK(ei <= 1e-13, "N=%d: V Vinv - I = %.3g", N, ei);

        /* face mass: product-form Lagrange basis at tface, Gauss-Legendre */
        double x[NMAX + 2], w[NMAX + 2], ef = 0.0, ftotal = 0.0;
        hdg_gauss_legendre(N + 1, x, w, NULL);
        for (int i = 0; i < Nfp; i++)
            for (int j = 0; j < Nfp; j++) {
                double m = 0.0;
                for (int k = 0; k <= N; k++)
                    m += w[k] * lagrange1d(Nfp, re->tface, i, x[k]) * lagrange1d(Nfp, re->tface, j, x[k]);
                ef = fmax(ef, fabs(m - re->Mface[i * Nfp + j]));
                ftotal += re->Mface[i * Nfp + j];
            }
        CHECK(ef <= 1e-13, "N=%d: Mface vs quadrature: %.3g", N, ef);
        CHECK_NEAR(ftotal, 2.0, 1e-14, "sum of Mface entries = face length 2");
        worst_f = fmax(worst_f, ef);
        free(L), free(Mq), free(I);
        hdg_quad2d_free(&q);
    }
    printf("mass matrices vs quadrature: M %.2e (relative), Mface %.2e\n", worst_m, worst_f);
}

static void test_cond(void)
{
    /* Observed 2-norm condition numbers (warp-and-blend nodes, orthonormal
     * Dubiner basis): N = 0..12: 1, 2, 4.148, 5.903, 6.777, 7.845, 9.591,
     * 11.16, 13.89, 16.90, 21.67, 27.40, 36.13. Bound: 1.5 x observed, rounded
     * up (e.g. cond(V) <= 32.6 at N = 10, <= 54.2 at N = 12). */
    static const double bound[NMAX + 1] = {1.5, 3.0, 6.3, 8.9, 10.2, 11.8, 14.4,
                                           16.8, 20.9, 25.4, 32.6, 41.2, 54.2};
    for (int N = 0; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        int Np = re->Np;
        printf("cond(V) N=%2d: %.4f\n", N, re->cond_V);
        CHECK(re->cond_V >= 1.0 && re->cond_V <= bound[N], "N=%d: cond(V) = %.4g > bound %.4g", N,
              re->cond_V, bound[N]);
        /* independently: sqrt of the eigenvalue ratio of V^T V */
        double *G = malloc(sizeof(double) * Np * Np), *ev = malloc(sizeof(double) * Np);
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++) {
                double g = 0.0;
                for (int k = 0; k < Np; k++) g += re->V[k * Np + i] * re->V[k * Np + j];
                G[i * Np + j] = g;
            }
        hdg_sym_eig(Np, G, ev);
        double c = sqrt(ev[Np - 1] / ev[0]);
        CHECK(fabs(c / re->cond_V - 1.0) <= 1e-10, "N=%d: cond(V) %.15g vs eig(V^T V) %.15g", N,
              re->cond_V, c);
        free(G), free(ev);
    }
}

static void test_lift(void)
{
    double worst = 0.0;
    for (int N = 0; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        int Np = re->Np, Nfp = re->Nfp, nf = 3 * Nfp, nq = N + 1;
        double x[NMAX + 1], w[NMAX + 1], fr[NMAX + 1], fs[NMAX + 1];
        double *L = malloc(sizeof(double) * nq * Np), *LU = malloc(sizeof(double) * Np * Np);
        double *b = malloc(sizeof(double) * Np);
        int *piv = malloc(sizeof(int) * Np);
        memcpy(LU, re->M, sizeof(double) * Np * Np);
        CHECK(hdg_lu_factor(Np, LU, piv) == 0, "N=%d: M singular", N);
        hdg_gauss_legendre(nq, x, w, NULL);
        for (int f = 0; f < 3; f++) {
            for (int k = 0; k < nq; k++) face_point(f, x[k], &fr[k], &fs[k]);
            hdg_refel_interp(re, nq, fr, fs, L);      /* l_i along the face */
            for (int c = 0; c < Nfp; c++) {           /* g = c-th face nodal basis function */
                for (int i = 0; i < Np; i++) {
                    double sum = 0.0;
                    for (int k = 0; k < nq; k++)
                        sum += w[k] * L[k * Np + i] * (N ? lagrange1d(Nfp, re->tface, c, x[k]) : 1.0);
                    b[i] = sum;                       /* int_{-1}^{1} l_i g dt */
                }
                hdg_lu_solve(Np, LU, piv, 1, b);
                double e = 0.0, scale = 0.0;
                for (int i = 0; i < Np; i++) {
                    double lift = re->LIFT[i * nf + f * Nfp + c];
                    e = fmax(e, fabs(lift - b[i]));
                    scale = fmax(scale, fabs(lift));
                }
                CHECK(e <= 1e-12 * scale, "N=%d face %d col %d: LIFT vs M^-1 E: %.3g", N, f, c, e);
                worst = fmax(worst, e / scale);
            }
        }
        free(L), free(LU), free(b), free(piv);
    }
    printf("LIFT vs M^-1 (face integrals): max relative error %.2e\n", worst);
    CHECK_NEAR(R[0].LIFT[0], 1.0, 1e-15, "N=0 LIFT");
}

/* The Fscale convention on a physical affine triangle K (and on the reference
 * triangle's face 1, whose arclength is 2 sqrt 2): with the physical mass
 * matrix M_K (quadrature over K) and face integrals in arclength ds,
 *     M_K^-1 int_f l_i g ds = (sJ / J) LIFT g,  J = |K| / 2,  sJ = |f| / 2. */
static void test_fscale(void)
{
    enum { N = 5 };
    const hdg_refel *re = &R[N];
    int Np = re->Np, Nfp = re->Nfp, nf = 3 * Nfp;
    static const double tri[2][3][2] = {{{-1, -1}, {1, -1}, {-1, 1}}, {{0.2, 0.1}, {3.0, 0.6}, {1.1, 2.3}}};
    for (int t = 0; t < 2; t++) {
        const double (*v)[2] = tri[t];
        double ax = v[1][0] - v[0][0], ay = v[1][1] - v[0][1], bx = v[2][0] - v[0][0], by = v[2][1] - v[0][1];
        double J = fabs(ax * by - ay * bx) / 4.0;      /* |K| / |reference| */
        hdg_quad2d q;                                  /* physical mass by quadrature over K */
        hdg_quad_triangle(&q, 2 * N, NULL);
        double *L = malloc(sizeof(double) * q.n * Np), *MK = calloc((size_t)Np * Np, sizeof(double));
        hdg_refel_interp(re, q.n, q.r, q.s, L);
        for (int k = 0; k < q.n; k++)
            for (int i = 0; i < Np; i++)
                for (int j = 0; j < Np; j++) MK[i * Np + j] += q.w[k] * J * L[k * Np + i] * L[k * Np + j];
        int piv[64];
        hdg_lu_factor(Np, MK, piv);
        double x[N + 1], w[N + 1], fr[N + 1], fs[N + 1], Lf[(N + 1) * 21], b[21];
        hdg_gauss_legendre(N + 1, x, w, NULL);
        double e = 0.0, scale = 0.0;
        for (int f = 0; f < 3; f++) {
            int g = (f + 1) % 3;
            double len = hypot(v[g][0] - v[f][0], v[g][1] - v[f][1]), sJ = len / 2.0;
            for (int k = 0; k <= N; k++) face_point(f, x[k], &fr[k], &fs[k]);
            hdg_refel_interp(re, N + 1, fr, fs, Lf);
            for (int c = 0; c < Nfp; c++) {
                for (int i = 0; i < Np; i++) {      /* arclength: ds = (len/2) dt */
                    b[i] = 0.0;
                    for (int k = 0; k <= N; k++)
                        b[i] += w[k] * (len / 2.0) * Lf[k * Np + i] * lagrange1d(Nfp, re->tface, c, x[k]);
                }
                hdg_lu_solve(Np, MK, piv, 1, b);
                for (int i = 0; i < Np; i++) {
                    double lift = sJ / J * re->LIFT[i * nf + f * Nfp + c];
                    e = fmax(e, fabs(b[i] - lift));
                    scale = fmax(scale, fabs(lift));
                }
            }
            if (t == 0)
                CHECK_NEAR(sJ / J, f == 1 ? sqrt(2.0) : 1.0, 1e-15, "reference triangle Fscale");
        }
        CHECK(e <= 1e-12 * scale, "triangle %d: Fscale * LIFT vs M_K^-1 int l_i g ds: %.3g", t, e);
        free(L), free(MK);
        hdg_quad2d_free(&q);
    }
}

static void test_interp(void)
{
    enum { NPTS = 40 };
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &R[N];
        int Np = re->Np;
        double pr[NPTS], ps[NPTS], c[(NMAX + 1) * (NMAX + 1)];
        double *I = malloc(sizeof(double) * NPTS * Np), *u = malloc(sizeof(double) * Np), ui[NPTS];
        for (int k = 0; k < NPTS; k++) random_point(&pr[k], &ps[k]);
        for (int a = 0; a <= N; a++)
            for (int b = 0; a + b <= N; b++) c[a * (NMAX + 1) + b] = 2 * urand01() - 1;
        for (int i = 0; i < Np; i++) {
            u[i] = 0.0;
            for (int a = 0; a <= N; a++)
                for (int b = 0; a + b <= N; b++) u[i] += c[a * (NMAX + 1) + b] * ipow(re->r[i], a) * ipow(re->s[i], b);
        }
        hdg_refel_interp(re, NPTS, pr, ps, I);
        hdg_matmul(NPTS, 1, Np, 1.0, I, u, 0.0, ui);
        double e = 0.0, scale = max_abs(Np, u);
        for (int k = 0; k < NPTS; k++) {
            double ex = 0.0;
            for (int a = 0; a <= N; a++)
                for (int b = 0; a + b <= N; b++) ex += c[a * (NMAX + 1) + b] * ipow(pr[k], a) * ipow(ps[k], b);
            e = fmax(e, fabs(ui[k] - ex));
        }
        CHECK(e <= 1e-12 * scale, "N=%d: interpolation error %.3g (scale %.3g)", N, e, scale);
        /* at the nodes themselves: the identity */
        double *In = malloc(sizeof(double) * Np * Np), ei = 0.0;
        hdg_refel_interp(re, Np, re->r, re->s, In);
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++) ei = fmax(ei, fabs(In[i * Np + j] - (i == j)));
        CHECK(ei <= 1e-13, "N=%d: interpolation at the nodes - I = %.3g", N, ei);
        free(I), free(u), free(In);
    }
}

static void test_lattice(void)
{
    for (int p = 0; p <= NMAX; p++)
        CHECK(hdg_equi_lattice(p, NULL, NULL) == (p + 1) * (p + 2) / 2, "lattice count p=%d", p);
    double r[10], s[10];
    CHECK(hdg_equi_lattice(0, r, s) == 1 && r[0] == -1.0 / 3 && s[0] == -1.0 / 3, "p=0 centroid");
    static const double want[10][2] = {{-1, -1}, {-1.0 / 3, -1}, {1.0 / 3, -1}, {1, -1},
                                       {-1, -1.0 / 3}, {-1.0 / 3, -1.0 / 3}, {1.0 / 3, -1.0 / 3},
                                       {-1, 1.0 / 3}, {-1.0 / 3, 1.0 / 3}, {-1, 1}};
    CHECK(hdg_equi_lattice(3, r, s) == 10, "p=3 count");
    for (int i = 0; i < 10; i++) {
        CHECK_NEAR(r[i], want[i][0], 1e-15, "lattice r");
        CHECK_NEAR(s[i], want[i][1], 1e-15, "lattice s");
    }
}

int main(void)
{
    hdg_error err;
    test_init_errors();
    for (int N = 0; N <= NMAX; N++)
        CHECK(hdg_refel_init(&R[N], 2, N, &err) == HDG_OK, "refel_init(%d): %s", N, err.msg);
    test_nodes();
    test_fmask();
    test_orthonormal();
    test_legendre();
    test_derivatives();
    test_mass();
    test_cond();
    test_lift();
    test_fscale();
    test_interp();
    test_lattice();
    for (int N = 0; N <= NMAX; N++) hdg_refel_free(&R[N]);
    return test_summary("refel");
}
