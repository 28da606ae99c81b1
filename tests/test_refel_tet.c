/* test_refel_tet.c — the reference simplex with the dimension as data
 * (runtime/fem/refel, refel_tet, quadrature), the tetrahedron's side:
 *  - the triangle's refel (N = 0..12) and triangle rules (degree 0..30) equal
 *    to the bit to what the 2D-only code produced (FNV-1a checksums captured
 *    before the generalisation; x86-64, where the arithmetic is fixed);
 *  - tetrahedron rules exact on all monomials to the requested degree;
 *  - the PKD basis orthonormal under them (N = 1..8), gradients against
 *    central differences;
 *  - nodes: N = 6 against modepy's warp_and_blend_nodes_3d (to 1e-14, as a
 *    set; all N = 1..12 agreed to 1.6e-15 when checked), inside, symmetric
 *    under the 24 vertex permutations, faces equal to
 *    the face node set, the face set the triangle's nodes for the same alpha;
 *  - Dr, Ds, Dt exact on degree-N monomials (N = 1..12); M, Mface against
 *    quadrature; LIFT against M^-1 (face integrals); interpolation;
 *  - Fmask: nodes on their faces at the face map of the face nodes;
 *  - face orientations: two physical tetrahedra sharing a face, every vertex
 *    order of the second (all 6 orientations on all 4 faces): Fperm maps
 *    matching nodes onto each other; the coordinate map and the point
 *    permutation agree, and refuse a non-symmetric rule; the triangle's 2;
 *  - the trace basis seen from two sides: the Dubiner face basis (k = 8)
 *    composed with each orientation's coordinate map stays orthonormal
 *    under the (non-symmetric) collapsed face rule;
 *  - cond(V) for N = 1..12 printed and bounded; argument errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "runtime/fem/refel_internal.h"
#include "runtime/solve/dense.h"
#include "test.h"

#define NMAX HDG_REFEL_MAX_DEGREE

/* modepy 2026.1 warp_and_blend_nodes_3d(6) (an independent implementation of
 * Warburton's construction, same alpha table), as a set */
static const double nodes_ref_6[84][3] = {
    {-1.0, -1.0, -1.0},
    {-0.8302238962785669, -1.0, -1.0},
    {-0.4688487934707143, -1.0, -1.0},
    {1.1102230246251565e-16, -1.0, -1.0},
    {0.4688487934707142, -1.0, -1.0},
    {0.8302238962785675, -1.0, -1.0},
    {1.0000000000000002, -1.0, -1.0},
    {-1.0, -0.8302238962785671, -1.0},
    {-0.7736229222022845, -0.7736229222022846, -1.0},
    {-0.3605671218355686, -0.758731085969035, -1.0},
    {0.11929820780460354, -0.758731085969035, -1.0},
    {0.5472458444045687, -0.7736229222022846, -1.0},
    {0.8302238962785671, -0.8302238962785671, -1.0},
    {-1.0, -0.4688487934707144, -1.0},
    {-0.7587310859690349, -0.3605671218355687, -1.0},
    {-0.33333333333333337, -0.3333333333333334, -1.0},
    {0.11929820780460365, -0.3605671218355688, -1.0},
    {0.4688487934707145, -0.46884879347071434, -1.0},
    {-1.0, 1.1102230246251565e-16, -1.0},
    {-0.758731085969035, 0.11929820780460365, -1.0},
    {-0.36056712183556866, 0.11929820780460354, -1.0},
    {0.0, 1.1102230246251565e-16, -1.0},
    {-1.0, 0.4688487934707144, -1.0},
    {-0.7736229222022843, 0.5472458444045687, -1.0},
    {-0.46884879347071423, 0.4688487934707144, -1.0},
    {-1.0, 0.8302238962785677, -1.0},
    {-0.8302238962785675, 0.8302238962785677, -1.0},
    {-1.0, 1.0000000000000004, -1.0},
    {-0.9999999999999998, -1.0, -0.8302238962785673},
    {-0.7736229222022845, -1.0, -0.7736229222022843},
    {-0.36056712183556866, -1.0, -0.7587310859690348},
    {0.11929820780460354, -1.0, -0.7587310859690348},
    {0.5472458444045685, -1.0000000000000002, -0.7736229222022843},
    {0.8302238962785675, -1.0, -0.8302238962785673},
    {-0.9999999999999999, -0.7736229222022843, -0.7736229222022843},
    {-0.7108028069677765, -0.7108028069677765, -0.7108028069677765},
    {-0.3058274904380188, -0.6941725095619814, -0.6941725095619813},
    {0.1324084209033295, -0.7108028069677766, -0.7108028069677765},
    {0.5472458444045689, -0.7736229222022846, -0.7736229222022846},
    {-1.0, -0.36056712183556855, -0.7587310859690348},
    {-0.6941725095619813, -0.3058274904380188, -0.6941725095619814},
    {-0.30582749043801877, -0.3058274904380188, -0.6941725095619813},
    {0.11929820780460365, -0.3605671218355687, -0.758731085969035},
    {-1.0, 0.11929820780460376, -0.758731085969035},
    {-0.7108028069677765, 0.1324084209033295, -0.7108028069677765},
    {-0.3605671218355687, 0.11929820780460365, -0.758731085969035},
    {-1.0, 0.5472458444045691, -0.7736229222022846},
    {-0.7736229222022845, 0.5472458444045689, -0.7736229222022846},
    {-1.0, 0.8302238962785673, -0.830223896278567},
    {-1.0, -1.0, -0.46884879347071423},
    {-0.7587310859690349, -1.0, -0.3605671218355685},
    {-0.33333333333333337, -1.0, -0.3333333333333333},
    {0.11929820780460354, -1.0000000000000002, -0.3605671218355686},
    {0.46884879347071406, -1.0, -0.4688487934707141},
    {-1.0, -0.7587310859690349, -0.3605671218355686},
    {-0.6941725095619813, -0.6941725095619813, -0.3058274904380189},
    {-0.3058274904380188, -0.6941725095619813, -0.3058274904380188},
    {0.11929820780460365, -0.758731085969035, -0.3605671218355687},
    {-1.0, -0.33333333333333326, -0.33333333333333337},
    {-0.6941725095619813, -0.30582749043801877, -0.3058274904380189},
    {-0.3333333333333333, -0.33333333333333326, -0.33333333333333337},
    {-1.0, 0.11929820780460376, -0.36056712183556877},
    {-0.758731085969035, 0.11929820780460376, -0.3605671218355687},
    {-1.0, 0.4688487934707145, -0.46884879347071434},
    {-1.0, -1.0, 0.0},
    {-0.758731085969035, -1.0, 0.11929820780460365},
    {-0.36056712183556877, -1.0, 0.11929820780460354},
    {-5.551115123125783e-17, -1.0, 0.0},
    {-1.0, -0.7587310859690349, 0.11929820780460354},
    {-0.7108028069677765, -0.7108028069677765, 0.13240842090332938},
    {-0.3605671218355686, -0.7587310859690349, 0.11929820780460343},
    {-1.0, -0.3605671218355686, 0.11929820780460354},
    {-0.7587310859690349, -0.3605671218355686, 0.11929820780460343},
    {-1.0, 2.220446049250313e-16, -1.1102230246251565e-16},
    {-1.0, -1.0, 0.4688487934707143},
    {-0.7736229222022846, -1.0, 0.5472458444045687},
    {-0.4688487934707144, -1.0, 0.4688487934707143},
    {-1.0, -0.7736229222022843, 0.5472458444045685},
    {-0.7736229222022845, -0.7736229222022843, 0.5472458444045685},
    {-1.0, -0.4688487934707141, 0.46884879347071395},
    {-1.0, -1.0, 0.8302238962785671},
    {-0.8302238962785671, -1.0, 0.8302238962785671},
    {-1.0, -0.8302238962785673, 0.8302238962785673},
    {-1.0, -1.0, 1.0},
};

static hdg_refel T[NMAX + 1];

static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;

static double urand01(void)                /* xorshift64, uniform in [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void random_point(double *x)        /* in the tetrahedron */
{
    double u, v, w;
    do u = urand01(), v = urand01(), w = urand01();
    while (u + v + w > 1.0);
    x[0] = -1.0 + 2.0 * u, x[1] = -1.0 + 2.0 * v, x[2] = -1.0 + 2.0 * w;
}

static double ipow(double x, int k)
{
    if (k < 0) return 0.0;
    double p = 1.0;
    while (k--) p *= x;
    return p;
}

/* The face map of refel.h's table, written out independently. */
static void face_map(int f, double a, double b, double *x)
{
    const double m[4][3] = {{a, b, -1.0}, {a, -1.0, b}, {-1.0 - a - b, a, b}, {-1.0, a, b}};
    for (int d = 0; d < 3; d++) x[d] = m[f][d];
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

static void test_2d_unchanged(void)
{
    static const uint64_t refel_sum[13] = {
        0x5c8f6c82189239fcULL, 0x09f2544cbf312231ULL, 0xbcc652ceb54787ffULL, 0x60cacd86e30faa75ULL,
        0x85ab73bec36d5ba4ULL, 0x979f22a0c8ebf18dULL, 0x52b15cad0d830c72ULL, 0x649b1e7104431113ULL,
        0xe1d5fea5fc765ad7ULL, 0xcead82d3e037d10fULL, 0x8fa99d1464652486ULL, 0xaea37d5db9502be4ULL,
        0x2c4ad64b67936329ULL};
    hdg_error err;
    int same = 1;
    for (int N = 0; N <= NMAX; N++) {
        hdg_refel re;
        CHECK(hdg_refel_init(&re, 2, N, &err) == HDG_OK, "triangle N=%d: %s", N, err.msg);
        size_t Np = re.Np, Nfp = re.Nfp, nn = Np * Np * 8;
        uint64_t h = 14695981039346656037ULL;
        h = fnv(h, re.r, Np * 8), h = fnv(h, re.s, Np * 8);
        h = fnv(h, re.V, nn), h = fnv(h, re.Vinv, nn), h = fnv(h, re.Dr, nn), h = fnv(h, re.Ds, nn);
        h = fnv(h, re.M, nn), h = fnv(h, re.Minv, nn);
        h = fnv(h, re.Fmask, 3 * Nfp * sizeof(int)), h = fnv(h, re.tface, Nfp * 8);
        h = fnv(h, re.Mface, Nfp * Nfp * 8), h = fnv(h, re.LIFT, Np * 3 * Nfp * 8);
        h = fnv(h, &re.cond_V, 8);
        same &= h == refel_sum[N];
        CHECK(re.dim == 2 && re.Nfaces == 3 && re.Nv == 3 && re.Norient == 2 && re.t == NULL &&
                  re.Dt == NULL && re.sface == NULL && re.x[0] == re.r && re.D[1] == re.Ds,
              "triangle N=%d: fields", N);
        hdg_refel_free(&re);
    }
    uint64_t h = 14695981039346656037ULL;
    for (int d = 0; d <= 30; d++) {
        hdg_quad2d q;
        CHECK(hdg_quad_triangle(&q, d, &err) == HDG_OK, "triangle rule %d", d);
        h = fnv(h, q.r, q.n * 8), h = fnv(h, q.s, q.n * 8), h = fnv(h, q.w, q.n * 8);
        hdg_quad2d_free(&q);
    }
#if defined(__x86_64__)
    CHECK(same, "the triangle's refel differs from the 2D-only code's");
    CHECK(h == 0x456313fb359d8525ULL, "triangle rules differ from the 2D-only code's: %016llx",
          (unsigned long long)h);
#else
    printf("2D checksums (not asserted off x86-64): refel %s, rules %016llx\n",
           same ? "same" : "differ", (unsigned long long)h);
#endif
}

/* Exact integral of r^a s^b t^c over the reference tetrahedron: with
 * r = 2u - 1 etc., 8 sum of binomial terms int_unit u^i v^j w^k =
 * i! j! k! / (i+j+k+3)!. */
static long double fact(int n)
{
    long double f = 1;
    for (int i = 2; i <= n; i++) f *= i;
    return f;
}

static long double binom(int n, int k) { return fact(n) / (fact(k) * fact(n - k)); }

static double monomial_integral(int a, int b, int c)
{
    long double sum = 0;
    for (int i = 0; i <= a; i++)
        for (int j = 0; j <= b; j++)
            for (int k = 0; k <= c; k++) {
                long double term = binom(a, i) * binom(b, j) * binom(c, k) * powl(2, i + j + k) *
                                   ((a - i + b - j + c - k) % 2 ? -1 : 1);
                sum += term * fact(i) * fact(j) * fact(k) / fact(i + j + k + 3);
            }
    return (double)(8 * sum);
}

static void test_tet_quadrature(void)
{
    hdg_error err;
    double worst = 0.0;
    for (int deg = 0; deg <= 20; deg++) {
        hdg_quad q;
        CHECK(hdg_quad_simplex(&q, 3, deg, &err) == HDG_OK, "tet rule %d: %s", deg, err.msg);
        int m = (deg + 2) / 2;
        CHECK(q.n == m * m * m && q.dim == 3, "tet rule %d: %d points", deg, q.n);
        int inside = 1;
        for (int k = 0; k < q.n; k++)
            inside &= q.w[k] > 0 && q.r[k] > -1 && q.s[k] > -1 && q.t[k] > -1 &&
                      q.r[k] + q.s[k] + q.t[k] < -1 + 1e-15;
        CHECK(inside, "tet rule %d: a point outside or a weight <= 0", deg);
        for (int a = 0; a <= deg; a++)
            for (int b = 0; a + b <= deg; b++)
                for (int c = 0; a + b + c <= deg; c++) {
                    double sum = 0.0, ex = monomial_integral(a, b, c);
                    for (int k = 0; k < q.n; k++)
                        sum += q.w[k] * ipow(q.r[k], a) * ipow(q.s[k], b) * ipow(q.t[k], c);
                    worst = fmax(worst, fabs(sum - ex));
                    CHECK(fabs(sum - ex) <= 1e-13, "tet rule %d: r^%d s^%d t^%d: %.17g vs %.17g",
                          deg, a, b, c, sum, ex);
                }
        hdg_quad_free(&q);
    }
    CHECK_NEAR(monomial_integral(0, 0, 0), 4.0 / 3.0, 1e-15, "tet volume");
    printf("tet rules, degree 0..20: worst monomial error %.2e\n", worst);
    /* one degree more than asked is not integrated: r^(2m) with m points */
    hdg_quad q;
    hdg_quad_simplex(&q, 3, 3, &err);
    double sum = 0.0;
    for (int k = 0; k < q.n; k++) sum += q.w[k] * ipow(q.t[k], 4);
    CHECK(fabs(sum - monomial_integral(0, 0, 4)) > 1e-6, "degree-3 rule integrates t^4 (%.3g)", sum);
    hdg_quad_free(&q);
    CHECK(hdg_quad_simplex(&q, 4, 2, &err) == HDG_EINPUT && strstr(err.msg, "dimension"), "dim 4: %s",
          err.msg);
    CHECK(hdg_quad_simplex(&q, 3, -1, &err) == HDG_EINPUT && strstr(err.msg, "tetrahedron"), "deg -1: %s",
          err.msg);
}

static void test_basis(void)
{
    hdg_error err;
    for (int N = 1; N <= 8; N++) {
        hdg_quad q;
        hdg_quad_simplex(&q, 3, 2 * N, &err);
        int Np = hdg_simplex_count(3, N);
        double *P = malloc(sizeof(double) * q.n * Np), e = 0.0;
        hdg_simplex_eval(3, N, q.n, (const double *const *)q.x, P, NULL);
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++) {
                double s = 0.0;
                for (int k = 0; k < q.n; k++) s += q.w[k] * P[k * Np + i] * P[k * Np + j];
                e = fmax(e, fabs(s - (i == j)));
            }
        CHECK(e <= 1e-12, "N=%d: PKD Gram matrix - I = %.3g", N, e);
        free(P);
        hdg_quad_free(&q);
    }
    /* gradients against central differences at random points and at the
     * vertices and edges where the collapse is singular */
    int N = 6, Np = hdg_simplex_count(3, N);
    double pts[12][3] = {{-1, -1, 1}, {-1, 1, -1}, {-1, 0, 0}, {-1, -0.5, 0.5}};
    for (int p = 4; p < 12; p++) random_point(pts[p]);
    double e = 0.0;
    int fin = 1;
    for (int p = 0; p < 12; p++) {
        double P[84], G[3][84], *dP[3] = {G[0], G[1], G[2]}, Pp[84], Pm[84];
        const double *x[3] = {&pts[p][0], &pts[p][1], &pts[p][2]};
        hdg_simplex_eval(3, N, 1, x, P, dP);
        for (int m = 0; m < Np; m++) fin &= isfinite(P[m]) && isfinite(G[0][m]) && isfinite(G[1][m]) && isfinite(G[2][m]);
        if (p < 4) continue;                   /* the vertices/edges: finiteness only */
        for (int d = 0; d < 3; d++) {
            const double h = 1e-6;
            double xp[3] = {pts[p][0], pts[p][1], pts[p][2]}, xm[3] = {xp[0], xp[1], xp[2]};
            xp[d] += h, xm[d] -= h;
            const double *a[3] = {&xp[0], &xp[1], &xp[2]}, *b[3] = {&xm[0], &xm[1], &xm[2]};
            hdg_simplex_eval(3, N, 1, a, Pp, NULL);
            hdg_simplex_eval(3, N, 1, b, Pm, NULL);
            for (int m = 0; m < Np; m++) e = fmax(e, fabs((Pp[m] - Pm[m]) / (2 * h) - G[d][m]));
        }
    }
    CHECK(e <= 1e-5, "PKD gradient vs central differences: %.3g", e);
    CHECK(fin, "PKD basis or gradient not finite at a vertex or on the collapsed edge");
    /* dispatch: dim 2 is the Dubiner basis */
    double r = 0.1, s = -0.3, P2[10], Q2[10];
    const double *x2[2] = {&r, &s};
    hdg_simplex_eval(2, 3, 1, x2, P2, NULL);
    hdg_dubiner_eval(3, 1, &r, &s, Q2, NULL, NULL);
    CHECK(memcmp(P2, Q2, sizeof P2) == 0, "hdg_simplex_eval(2) is not the Dubiner basis");
}

/* Index of the vertex permutation sigma applied to a point: the barycentrics
 * of x (L0 = -(1+r+s+t)/2, L_k = (1+x_(k-1))/2) permuted. */
static void permute_point(const int *sigma, const double *x, double *y)
{
    double L[4] = {-0.5 * (1.0 + x[0] + x[1] + x[2]), 0.5 * (1 + x[0]), 0.5 * (1 + x[1]), 0.5 * (1 + x[2])};
    for (int d = 0; d < 3; d++) y[d] = 2.0 * L[sigma[d + 1]] - 1.0;
}

static void test_nodes(void)
{
    hdg_error err;
    CHECK(T[0].Np == 1 && T[0].Nfp == 1 && T[0].r[0] == -0.5 && T[0].t[0] == -0.5, "N=0 centroid");
    for (int i = 0; i < 4; i++) {
        double v[3] = {-1, -1, -1};
        if (i) v[i - 1] = 1;
        CHECK(T[1].r[i] == v[0] && T[1].s[i] == v[1] && T[1].t[i] == v[2], "N=1 node %d not vertex", i);
    }
    /* the 24 permutations of the 4 vertices */
    int perms[24][4], np = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 4; d++)
                    if (a != b && a != c && a != d && b != c && b != d && c != d)
                        perms[np][0] = a, perms[np][1] = b, perms[np][2] = c, perms[np++][3] = d;
    double e6 = 0.0;
    for (int i = 0; i < 84; i++) {
        double best = 1e9;
        for (int j = 0; j < T[6].Np; j++)
            best = fmin(best, fmax(fmax(fabs(nodes_ref_6[i][0] - T[6].r[j]), fabs(nodes_ref_6[i][1] - T[6].s[j])),
                                   fabs(nodes_ref_6[i][2] - T[6].t[j])));
        e6 = fmax(e6, best);
    }
    CHECK(e6 <= 1e-14, "N=6 nodes vs modepy: %.3g", e6);
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &T[N];
        int Np = re->Np, inside = 1, sym = 1;
        CHECK(Np == (N + 1) * (N + 2) * (N + 3) / 6 && re->Nfp == (N + 1) * (N + 2) / 2, "N=%d sizes", N);
        double dmin = 1e9;
        for (int i = 0; i < Np; i++) {
            double x[3] = {re->r[i], re->s[i], re->t[i]};
            inside &= x[0] >= -1 - 1e-14 && x[1] >= -1 - 1e-14 && x[2] >= -1 - 1e-14 &&
                      x[0] + x[1] + x[2] <= -1 + 1e-14;
            for (int j = 0; j < i; j++)
                dmin = fmin(dmin, hypot(hypot(x[0] - re->r[j], x[1] - re->s[j]), x[2] - re->t[j]));
            for (int p = 0; p < 24; p++) {
                double y[3], best = 1e9;
                permute_point(perms[p], x, y);
                for (int j = 0; j < Np; j++)
                    best = fmin(best, fmax(fmax(fabs(y[0] - re->r[j]), fabs(y[1] - re->s[j])), fabs(y[2] - re->t[j])));
                sym &= best <= 1e-13;
            }
        }
        CHECK(inside, "N=%d: a node outside the tetrahedron", N);
        CHECK(sym, "N=%d: node set not symmetric under the vertex permutations", N);
        CHECK(dmin > 0.5 / (N * N), "N=%d: nodes too close (%.3g)", N, dmin);
        /* Nodes3D on a face is the face set (the triangle's nodes for the
         * tetrahedron's alpha), before the snapping */
        double *x = malloc(sizeof(double) * 3 * Np), e = 0.0;
        CHECK(hdg_refel_tet_nodes(N, x, x + Np, x + 2 * Np, &err) == HDG_OK, "tet nodes %d", N);
        for (int f = 0; f < 4; f++)
            for (int i = 0; i < re->Nfp; i++) {
                int n = re->Fmask[f * re->Nfp + i];
                double y[3];
                face_map(f, re->tface[i], re->sface[i], y);
                for (int d = 0; d < 3; d++) e = fmax(e, fabs(x[d * Np + n] - y[d]));
                for (int d = 0; d < 3; d++) e = fmax(e, fabs(re->x[d][n] - y[d]));
            }
        CHECK(e <= 1e-14, "N=%d: face nodes vs the face set: %.3g", N, e);
        /* the face set: exactly symmetric barycentrics, triangle nodes otherwise */
        double *a = malloc(sizeof(double) * 2 * re->Nfp), *b = a + re->Nfp;
        CHECK(hdg_refel_tet_face_nodes(N, a, b, &err) == HDG_OK, "face nodes %d", N);
        CHECK(memcmp(a, re->tface, sizeof(double) * re->Nfp) == 0 &&
                  memcmp(b, re->sface, sizeof(double) * re->Nfp) == 0,
              "N=%d: xface is not the face set", N);
        free(a), free(x);
    }
}

static void test_derivatives(void)
{
    double worst = 0.0;
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &T[N];
        int Np = re->Np;
        double *u = malloc(sizeof(double) * Np), e = 0.0;
        for (int a = 0; a <= N; a++)
            for (int b = 0; a + b <= N; b++)
                for (int c = 0; a + b + c <= N; c++) {
                    for (int i = 0; i < Np; i++) u[i] = ipow(re->r[i], a) * ipow(re->s[i], b) * ipow(re->t[i], c);
                    for (int i = 0; i < Np; i++) {
                        double r = re->r[i], s = re->s[i], t = re->t[i];
                        double ex[3] = {a * ipow(r, a - 1) * ipow(s, b) * ipow(t, c),
                                        b * ipow(r, a) * ipow(s, b - 1) * ipow(t, c),
                                        c * ipow(r, a) * ipow(s, b) * ipow(t, c - 1)};
                        for (int d = 0; d < 3; d++) {
                            double sum = 0.0;
                            for (int j = 0; j < Np; j++) sum += re->D[d][i * Np + j] * u[j];
                            e = fmax(e, fabs(sum - ex[d]) / (1.0 + N * N));
                        }
                    }
                }
        CHECK(e <= 1e-11, "N=%d: Dr/Ds/Dt error %.3g", N, e);
        worst = fmax(worst, e);
        free(u);
    }
    printf("Dr, Ds, Dt on degree-N monomials, N = 1..%d: max error / (1+N^2) %.2e\n", NMAX, worst);
    CHECK(T[0].Dr[0] == 0.0 && T[0].Dt[0] == 0.0, "N=0: D not zero");
}

/* The face Lagrange basis at the face points (a, b): P_face Vface^-1. */
static void face_lagrange(const hdg_refel *re, int nq, const double *a, const double *b, double *L)
{
    int Nfp = re->Nfp;
    double *Vf = malloc(sizeof(double) * Nfp * Nfp), *P = malloc(sizeof(double) * nq * Nfp);
    hdg_dubiner_eval(re->N, Nfp, re->tface, re->sface, Vf, NULL, NULL);
    hdg_invert(Nfp, Vf);
    hdg_dubiner_eval(re->N, nq, a, b, P, NULL, NULL);
    hdg_matmul(nq, Nfp, Nfp, 1.0, P, Vf, 0.0, L);
    free(Vf), free(P);
}

static void test_mass_lift(void)
{
    hdg_error err;
    for (int N = 0; N <= 8; N++) {
        const hdg_refel *re = &T[N];
        int Np = re->Np, Nfp = re->Nfp, nf = 4 * Nfp;
        hdg_quad q, qf;
        hdg_quad_simplex(&q, 3, 2 * N, &err);
        hdg_quad_triangle(&qf, 2 * N, &err);
        double *L = malloc(sizeof(double) * q.n * Np), e = 0.0, scale = 0.0;
        hdg_refel_interp_x(re, q.n, (const double *const *)q.x, L);
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++) {
                double s = 0.0;
                for (int k = 0; k < q.n; k++) s += q.w[k] * L[k * Np + i] * L[k * Np + j];
                e = fmax(e, fabs(s - re->M[i * Np + j]));
                scale = fmax(scale, fabs(s));
            }
        CHECK(e <= 1e-13 * scale, "N=%d: M vs quadrature %.3g", N, e);
        double *G = malloc(sizeof(double) * qf.n * Nfp), ef = 0.0;
        face_lagrange(re, qf.n, qf.r, qf.s, G);
        for (int i = 0; i < Nfp; i++)
            for (int j = 0; j < Nfp; j++) {
                double s = 0.0;
                for (int k = 0; k < qf.n; k++) s += qf.w[k] * G[k * Nfp + i] * G[k * Nfp + j];
                ef = fmax(ef, fabs(s - re->Mface[i * Nfp + j]));
            }
        CHECK(ef <= 1e-13, "N=%d: Mface vs quadrature %.3g", N, ef);
        /* LIFT column (f, c) = M^-1 int_face l_i g_c (face coordinates) */
        double *x = malloc(sizeof(double) * 3 * qf.n), *Lf = malloc(sizeof(double) * qf.n * Np);
        double *b = malloc(sizeof(double) * Np), *LU = malloc(sizeof(double) * Np * Np), el = 0.0;
        int *piv = malloc(sizeof(int) * Np);
        memcpy(LU, re->M, sizeof(double) * Np * Np);
        hdg_lu_factor(Np, LU, piv);
        for (int f = 0; f < 4; f++) {
            for (int k = 0; k < qf.n; k++) {
                double y[3];
                face_map(f, qf.r[k], qf.s[k], y);
                x[k] = y[0], x[qf.n + k] = y[1], x[2 * qf.n + k] = y[2];
            }
            const double *xp[3] = {x, x + qf.n, x + 2 * qf.n};
            hdg_refel_interp_x(re, qf.n, xp, Lf);
            for (int c = 0; c < Nfp; c++) {
                for (int i = 0; i < Np; i++) {
                    double s = 0.0;
                    for (int k = 0; k < qf.n; k++) s += qf.w[k] * Lf[k * Np + i] * G[k * Nfp + c];
                    b[i] = s;
                }
                hdg_lu_solve(Np, LU, piv, 1, b);
                double sc = 0.0, ec = 0.0;
                for (int i = 0; i < Np; i++) {
                    ec = fmax(ec, fabs(b[i] - re->LIFT[i * nf + f * Nfp + c]));
                    sc = fmax(sc, fabs(b[i]));
                }
                el = fmax(el, ec / sc);
            }
        }
        CHECK(el <= 1e-11, "N=%d: LIFT vs M^-1 (face integrals): %.3g", N, el);
        free(L), free(G), free(x), free(Lf), free(b), free(LU), free(piv);
        hdg_quad_free(&q), hdg_quad_free(&qf);
    }
    CHECK_NEAR(T[0].Mface[0], 2.0, 1e-14, "N=0 Mface (triangle area)");
    CHECK_NEAR(T[0].M[0], 4.0 / 3.0, 1e-14, "N=0 M (tet volume)");
}

static void test_fmask(void)
{
    const double normal[4][3] = {{0, 0, -1}, {0, -1, 0}, {1, 1, 1}, {-1, 0, 0}};
    const double offset[4] = {1, 1, -1, 1};        /* n . x = offset on face f */
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &T[N];
        int Nfp = re->Nfp, ok = 1;
        for (int f = 0; f < 4; f++) {
            int count = 0;
            for (int i = 0; i < re->Np; i++) {
                double v = normal[f][0] * re->r[i] + normal[f][1] * re->s[i] + normal[f][2] * re->t[i];
                count += fabs(v - offset[f]) <= 1e-13;
            }
            CHECK(count == Nfp, "N=%d face %d: %d nodes on it, expected %d", N, f, count, Nfp);
            for (int i = 0; i < Nfp; i++) {
                int n = re->Fmask[f * Nfp + i];
                double v = normal[f][0] * re->r[n] + normal[f][1] * re->s[n] + normal[f][2] * re->t[n];
                ok &= fabs(v - offset[f]) <= 1e-13;
            }
            /* the face's vertices: its lattice corners are the table's vertices */
            const int *w = hdg_simplex_face_vertices(3, f);
            int corner[3] = {0, N, Nfp - 1};
            for (int k = 0; k < 3; k++) ok &= re->Fmask[f * Nfp + corner[k]] ==
                                              (w[k] == 0 ? 0 : w[k] == 1 ? N : w[k] == 2 ? (N + 1) * (N + 2) / 2 - 1 : re->Np - 1);
        }
        CHECK(ok, "N=%d: a Fmask node off its face, or faces not from their vertices in order", N);
    }
    /* the face's outward normal against the vertex order: faces 1, 2 CCW */
    for (int f = 0; f < 4; f++) {
        const int *w = hdg_simplex_face_vertices(3, f);
        double v[3][3];
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++) v[k][d] = w[k] == d + 1 ? 1 : -1;
        double e1[3], e2[3];
        for (int d = 0; d < 3; d++) e1[d] = v[1][d] - v[0][d], e2[d] = v[2][d] - v[0][d];
        double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double dot = c[0] * normal[f][0] + c[1] * normal[f][1] + c[2] * normal[f][2];
        CHECK((f == 1 || f == 2) ? dot > 0 : dot < 0, "face %d orientation claim", f);
    }
}

/* Affine map of the reference tetrahedron onto the tetrahedron with
 * vertices P[v[0..3]]. */
static void phys(const double P[5][3], const int *v, const double *x, double *y)
{
    double L[4] = {-0.5 * (1 + x[0] + x[1] + x[2]), 0.5 * (1 + x[0]), 0.5 * (1 + x[1]), 0.5 * (1 + x[2])};
    for (int d = 0; d < 3; d++) {
        y[d] = 0.0;
        for (int k = 0; k < 4; k++) y[d] += L[k] * P[v[k]][d];
    }
}

static void test_orientations(void)
{
    /* A = points 0..3, B = points of A's face 2 (1, 2, 3) and an apex 4
     * on the other side; B's vertices in all 24 orders */
    const double P[5][3] = {{0, 0, 0}, {1, 0.1, 0}, {0.2, 1, 0.1}, {0.1, 0.2, 1.1}, {1, 1, 1}};
    const int A[4] = {0, 1, 2, 3};
    int seen[6] = {0}, hits = 0;
    for (int N = 1; N <= 8; N++) {
        const hdg_refel *re = &T[N];
        int Nfp = re->Nfp, bad = 0;
        int vs[5] = {1, 2, 3, 4};
        for (int p = 0; p < 24; p++) {
            int B[4], used = 0, q = p;                 /* the p-th permutation of vs */
            for (int k = 0; k < 4; k++) {
                int slot = q % (4 - k);
                q /= 4 - k;
                for (int j = 0; j < 4; j++)
                    if (!(used >> j & 1) && slot-- == 0) {
                        B[k] = vs[j], used |= 1 << j;
                        break;
                    }
            }
            int fa = 2, fb = -1, ga[3], gb[3];
            const int *wa = hdg_simplex_face_vertices(3, fa);
            for (int k = 0; k < 3; k++) ga[k] = A[wa[k]];
            for (int f = 0; f < 4; f++) {
                const int *w = hdg_simplex_face_vertices(3, f);
                int s = 0;
                for (int k = 0; k < 3; k++) s += B[w[k]] != 4;
                if (s == 3) fb = f;
            }
            const int *wb = hdg_simplex_face_vertices(3, fb);
            for (int k = 0; k < 3; k++) gb[k] = B[wb[k]];
            int o = hdg_face_orientation(3, ga, gb);
            if (o < 0) {
                bad++;
                continue;
            }
            seen[o] = 1;
            for (int i = 0; i < Nfp; i++) {
                int na = re->Fmask[fa * Nfp + i], nb = re->Fmask[fb * Nfp + re->Fperm[o * Nfp + i]];
                double xa[3] = {re->r[na], re->s[na], re->t[na]}, xb[3] = {re->r[nb], re->s[nb], re->t[nb]};
                double ya[3], yb[3];
                phys(P, A, xa, ya);
                phys(P, B, xb, yb);
                bad += fmax(fmax(fabs(ya[0] - yb[0]), fabs(ya[1] - yb[1])), fabs(ya[2] - yb[2])) > 1e-14;
                /* the coordinate map agrees with the permutation */
                double fa2[2] = {re->tface[i], re->sface[i]}, fb2[2];
                hdg_face_orient_coords(3, o, fa2, fb2);
                int j = re->Fperm[o * Nfp + i];
                bad += fabs(fb2[0] - re->tface[j]) > 1e-15 || fabs(fb2[1] - re->sface[j]) > 1e-15;
                hits++;
            }
            /* the point permutation of the face set is Fperm */
            int perm[45];
            hdg_error err;
            const double *fx[2] = {re->tface, re->sface};
            CHECK(hdg_face_point_perm(3, o, Nfp, fx, 1e-13, perm, &err) == HDG_OK, "point perm: %s", err.msg);
            bad += memcmp(perm, re->Fperm + o * Nfp, sizeof(int) * Nfp) != 0;
        }
        CHECK(!bad, "N=%d: %d face node mismatches between two tetrahedra", N, bad);
    }
    CHECK(seen[0] && seen[1] && seen[2] && seen[3] && seen[4] && seen[5], "not all 6 orientations met");
    printf("face orientations: %d matched face-node pairs, all 6 orientations\n", hits);
    int a[3] = {5, 7, 9}, b[3] = {5, 7, 8}, c[3] = {5, 5, 9};
    CHECK(hdg_face_orientation(3, a, b) == -1 && hdg_face_orientation(3, c, c) == -1,
          "orientation of different faces");
    /* the collapsed rule is not symmetric: refused, and the coordinate map
     * still carries its points onto the same physical points */
    hdg_quad qf;
    hdg_error err;
    hdg_quad_triangle(&qf, 4, &err);
    int perm[9];
    const double *qx[2] = {qf.r, qf.s};
    CHECK(hdg_face_point_perm(3, 1, qf.n, qx, 1e-12, perm, &err) == HDG_EINPUT &&
              strstr(err.msg, "not symmetric"), "collapsed rule permuted: %s", err.msg);
    hdg_quad_free(&qf);
    /* the triangle: orientation 1 reverses the face nodes */
    const hdg_refel *R2 = NULL;
    hdg_refel re2;
    CHECK(hdg_refel_init(&re2, 2, 5, &err) == HDG_OK, "triangle 5");
    R2 = &re2;
    int ok = 1, e2a[2] = {3, 4}, e2b[2] = {4, 3};
    for (int i = 0; i < R2->Nfp; i++)
        ok &= R2->Fperm[i] == i && R2->Fperm[R2->Nfp + i] == R2->Nfp - 1 - i;
    CHECK(ok && hdg_face_orientation(2, e2a, e2b) == 1 && hdg_face_orientation(2, e2a, e2a) == 0,
          "triangle orientations");
    hdg_refel_free(&re2);
}

/* An HDG trace basis on a shared face, seen by the element whose face
 * coordinates differ by orientation o: mu_j(map_o(xi)). The Gram matrix
 * against mu_i(xi) under the collapsed rule is orthogonal (the identity for
 * o = 0): the map preserves the face measure and the rule needs no symmetry. */
static void test_trace_orientation(void)
{
    hdg_error err;
    int k = 8, nm = hdg_simplex_count(2, k), ok = 1;
    hdg_quad q;
    CHECK(hdg_quad_triangle(&q, 2 * k, &err) == HDG_OK, "face rule");
    double *A = malloc(sizeof(double) * q.n * nm), *B = malloc(sizeof(double) * q.n * nm);
    double *a = malloc(sizeof(double) * 2 * q.n), *b = a + q.n, *G = malloc(sizeof(double) * nm * nm);
    hdg_dubiner_eval(k, q.n, q.r, q.s, A, NULL, NULL);
    for (int o = 0; o < 6; o++) {
        for (int p = 0; p < q.n; p++) {
            double xa[2] = {q.r[p], q.s[p]}, xb[2];
            hdg_face_orient_coords(3, o, xa, xb);
            a[p] = xb[0], b[p] = xb[1];
        }
        hdg_dubiner_eval(k, q.n, a, b, B, NULL, NULL);
        for (int i = 0; i < nm; i++)
            for (int j = 0; j < nm; j++) {
                double s = 0.0;
                for (int p = 0; p < q.n; p++) s += q.w[p] * A[p * nm + i] * B[p * nm + j];
                G[i * nm + j] = s;
                if (o == 0) ok &= fabs(s - (i == j)) <= 1e-12;
            }
        double e = 0.0;
        for (int i = 0; i < nm; i++)
            for (int j = 0; j < nm; j++) {
                double s = 0.0;
                for (int l = 0; l < nm; l++) s += G[i * nm + l] * G[j * nm + l];
                e = fmax(e, fabs(s - (i == j)));
            }
        CHECK(e <= 1e-12, "k=%d orientation %d: Gram G G^T - I = %.3g", k, o, e);
        double dI = 0.0;                      /* o != 0 must not be the identity */
        for (int i = 0; i < nm * nm; i++) dI = fmax(dI, fabs(G[i] - (i % (nm + 1) == 0)));
        if (o) ok &= dI > 0.1;
    }
    CHECK(ok, "k=%d: the identity orientation is not I, or another is", k);
    free(A), free(B), free(a), free(G);
    hdg_quad_free(&q);
}

static void test_interp_cond(void)
{
    /* observed cond(V), N = 1..12: 2.236, 5.998, 10.50, 15.81, 19.03, 26.31,
     * 37.22, 56.31, 88.32, 144.9, 244.4, 421.0; bound 1.5 x observed */
    static const double bound[NMAX + 1] = {1.0, 3.4, 9.0, 15.8, 23.7, 28.5, 39.5,
                                           55.8, 84.5, 132.5, 217.4, 366.6, 631.5};
    double worst = 0.0;
    for (int N = 1; N <= NMAX; N++) {
        const hdg_refel *re = &T[N];
        enum { NP = 20 };
        double x[3][NP], I[NP * 455], u[455];
        for (int p = 0; p < NP; p++) {
            double y[3];
            random_point(y);
            x[0][p] = y[0], x[1][p] = y[1], x[2][p] = y[2];
        }
        const double *xp[3] = {x[0], x[1], x[2]};
        hdg_refel_interp_x(re, NP, xp, I);
        for (int i = 0; i < re->Np; i++)
            u[i] = ipow(re->r[i] + 0.5, N) - 2 * ipow(re->s[i], N - 1) * re->t[i];
        double e = 0.0;
        for (int p = 0; p < NP; p++) {
            double v = 0.0;
            for (int i = 0; i < re->Np; i++) v += I[p * re->Np + i] * u[i];
            e = fmax(e, fabs(v - (ipow(x[0][p] + 0.5, N) - 2 * ipow(x[1][p], N - 1) * x[2][p])));
        }
        CHECK(e <= 1e-11, "N=%d: interpolation error %.3g", N, e);
        worst = fmax(worst, e);
        CHECK(re->cond_V >= 1.0 && re->cond_V <= bound[N], "N=%d: cond(V) = %.4g > %.4g", N, re->cond_V,
              bound[N]);
        printf("tet N=%2d  Np=%3d  cond(V)=%.4g\n", N, re->Np, re->cond_V);
    }
    printf("tet interpolation of degree-N polynomials: max error %.2e\n", worst);
}

int main(void)
{
    hdg_error err;
    hdg_refel bad;
    CHECK(hdg_refel_init(&bad, 4, 2, &err) == HDG_EINPUT && strstr(err.msg, "dimension"), "dim 4: %s",
          err.msg);
    CHECK(hdg_refel_init(&bad, 3, 13, &err) == HDG_EINPUT && strstr(err.msg, "0..12"), "N 13: %s", err.msg);
    CHECK(bad.r == NULL && bad.LIFT == NULL, "failed init left arrays");
    for (int N = 0; N <= NMAX; N++) {
        CHECK(hdg_refel_init(&T[N], 3, N, &err) == HDG_OK, "tet refel_init(%d): %s", N, err.msg);
        CHECK(T[N].dim == 3 && T[N].Nfaces == 4 && T[N].Nv == 4 && T[N].Norient == 6 &&
                  T[N].x[2] == T[N].t && T[N].D[2] == T[N].Dt,
              "tet N=%d: fields", N);
    }
    test_2d_unchanged();
    test_tet_quadrature();
    test_basis();
    test_nodes();
    test_derivatives();
    test_mass_lift();
    test_fmask();
    test_orientations();
    test_interp_cond();
    test_trace_orientation();
    for (int N = 0; N <= NMAX; N++) hdg_refel_free(&T[N]);
    return test_summary("refel_tet");
}
