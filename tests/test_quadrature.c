/* test_quadrature.c — Gauss rules on [-1,1] and on the reference triangle.
 *  - Gauss-Legendre n = 1..40: exact on x^k, k <= 2n-1 (1e-13 relative), not
 *    exact on x^2n; closed-form nodes/weights for n = 5.
 *  - Gauss-Lobatto n = 2..40: exact on x^k, k <= 2n-3; n = 4 closed form.
 *  - Gauss-Jacobi n = 1..40 for several (alpha, beta): exact on the basis
 *    (1+x)^k and (1-x)^k, k <= 2n-1 (all terms positive, exact moments in
 *    Gamma functions); Gauss-Chebyshev closed form for alpha = beta = -1/2.
 *  - Gauss-Legendre(20), Gauss-Jacobi(9; 1, 0), Gauss-Lobatto(13) against
 *    mpmath references to about one ulp.
 *  - JacobiP normalization checked against an independent composite Simpson
 *    integration and explicit low-degree formulas.
 *  - Triangle rule, degree 0..30: exact on every r^a s^b with a+b <= degree
 *    (closed form, itself cross-checked against an exact integer evaluation of
 *    the unit-triangle formula a! b! / (a+b+2)!) and on (1+r)^a (1+s)^b.
 *  - Error reporting for bad arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/fem/quadrature.h"
#include "test.h"

#define PI 3.14159265358979323846
#define NMAX 40

__extension__ typedef __int128 i128;

/* int_{-1}^{1} x^k dx */
static double moment1(int k) { return k % 2 ? 0.0 : 2.0 / (k + 1); }

/* Checks sum w f(x) against exact, relative to max(|exact|, sum w |f|). */
static void check_rule_monomials(const char *what, int n, const double *x, const double *w,
                                 int maxdeg)
{
    for (int k = 0; k <= maxdeg; k++) {
        double q = 0.0, qa = 0.0;
        for (int i = 0; i < n; i++) {
            double t = w[i] * pow(x[i], k);
            q += t, qa += fabs(t);
        }
        double ex = moment1(k), scale = fmax(fabs(ex), qa);
        CHECK(fabs(q - ex) <= 1e-13 * scale, "%s n=%d: x^%d gives %.17g, exact %.17g", what, n, k,
              q, ex);
    }
}

static void check_sorted_inside(const char *what, int n, const double *x, const double *w, int closed)
{
    int ok = 1;
    for (int i = 0; i < n; i++) {
        ok &= w[i] > 0.0;
        ok &= closed ? (x[i] >= -1.0 && x[i] <= 1.0) : (x[i] > -1.0 && x[i] < 1.0);
        if (i) ok &= x[i] > x[i - 1];
    }
    CHECK(ok, "%s n=%d: nodes not ascending inside [-1,1] or a weight <= 0", what, n);
}

static void test_legendre(void)
{
    double x[NMAX + 1], w[NMAX + 1];
    for (int n = 1; n <= NMAX; n++) {
        CHECK(hdg_gauss_legendre(n, x, w, NULL) == HDG_OK, "gauss_legendre(%d) failed", n);
        check_sorted_inside("Gauss-Legendre", n, x, w, 0);
        check_rule_monomials("Gauss-Legendre", n, x, w, 2 * n - 1);
        double q = 0.0;                    /* not exact one degree higher (the */
        for (int i = 0; i < n; i++) q += w[i] * pow(x[i], 2 * n);   /* error decays like 4^-n) */
        if (n <= 10)
            CHECK(fabs(q - moment1(2 * n)) > 1e-7 * moment1(2 * n), "Gauss-Legendre n=%d exact on x^%d?",
                  n, 2 * n);
    }
    hdg_gauss_legendre(5, x, w, NULL);
    double a = sqrt(5.0 - 2.0 * sqrt(10.0 / 7.0)) / 3.0, b = sqrt(5.0 + 2.0 * sqrt(10.0 / 7.0)) / 3.0;
    double wa = (322.0 + 13.0 * sqrt(70.0)) / 900.0, wb = (322.0 - 13.0 * sqrt(70.0)) / 900.0;
    double xr[5] = {-b, -a, 0.0, a, b}, wr[5] = {wb, wa, 128.0 / 225.0, wa, wb};
    for (int i = 0; i < 5; i++) {
        CHECK_NEAR(x[i], xr[i], 2e-16, "GL5 node");
        CHECK_NEAR(w[i], wr[i], 2e-16, "GL5 weight");
    }
    CHECK(x[2] == 0.0, "GL5 middle node is %.3g, not exactly 0", x[2]);
}

static void test_lobatto(void)
{
    double x[NMAX + 1], w[NMAX + 1];
    for (int n = 2; n <= NMAX; n++) {
        CHECK(hdg_gauss_lobatto(n, x, w, NULL) == HDG_OK, "gauss_lobatto(%d) failed", n);
        check_sorted_inside("Gauss-Lobatto", n, x, w, 1);
        CHECK(x[0] == -1.0 && x[n - 1] == 1.0, "Lobatto n=%d end points %.17g %.17g", n, x[0], x[n - 1]);
        check_rule_monomials("Gauss-Lobatto", n, x, w, 2 * n - 3);
        int sym = 1;
        for (int i = 0; i < n; i++) sym &= x[i] == -x[n - 1 - i] && w[i] == w[n - 1 - i];
        CHECK(sym, "Lobatto n=%d not exactly symmetric", n);
    }
    hdg_gauss_lobatto(4, x, w, NULL);
    CHECK_NEAR(x[1], -1.0 / sqrt(5.0), 2e-16, "GLL4 node");
    CHECK_NEAR(w[0], 1.0 / 6.0, 2e-16, "GLL4 end weight");
    CHECK_NEAR(w[1], 5.0 / 6.0, 2e-16, "GLL4 inner weight");
}

/* int (1-x)^a (1+x)^b dx = 2^(a+b+1) G(a+1) G(b+1) / G(a+b+2) */
static double jacobi_mass(double a, double b)
{
    return pow(2.0, a + b + 1.0) * tgamma(a + 1.0) * tgamma(b + 1.0) / tgamma(a + b + 2.0);
}

static void test_jacobi_rules(void)
{
    static const double ab[][2] = {{1, 0}, {0, 1}, {2, 0}, {1, 1}, {0.5, -0.5}, {-0.5, -0.5},
                                   {3, 2}, {7, 0}, {-0.9, 4.5}, {21, 0}};
    double x[NMAX], w[NMAX];
    for (size_t p = 0; p < sizeof ab / sizeof ab[0]; p++) {
        double a = ab[p][0], b = ab[p][1];
        for (int n = 1; n <= NMAX; n++) {
            CHECK(hdg_gauss_jacobi(n, a, b, x, w, NULL) == HDG_OK, "gauss_jacobi(%d,%g,%g)", n, a, b);
            check_sorted_inside("Gauss-Jacobi", n, x, w, 0);
            double worst = 0.0;
            for (int k = 0; k <= 2 * n - 1; k++) {
                double qp = 0.0, qm = 0.0;
                for (int i = 0; i < n; i++) {
                    qp += w[i] * pow(1.0 + x[i], k);
                    qm += w[i] * pow(1.0 - x[i], k);
                }
                worst = fmax(worst, fabs(qp / jacobi_mass(a, b + k) - 1.0));
                worst = fmax(worst, fabs(qm / jacobi_mass(a + k, b) - 1.0));
            }
            CHECK(worst <= 1e-13, "Gauss-Jacobi(%d, %g, %g): relative moment error %.3g", n, a, b,
                  worst);
        }
    }
    /* Gauss-Chebyshev: x_i = -cos((2i+1) pi / 2n) = sin((2i+1-n) pi / 2n),
     * w_i = pi / n; nodes and
     * weights must be correctly rounded up to an ulp or so */
    for (int n = 1; n <= NMAX; n++) {
        hdg_gauss_jacobi(n, -0.5, -0.5, x, w, NULL);
        double ex = 0.0, ew = 0.0;
        for (int i = 0; i < n; i++) {
            ex = fmax(ex, fabs(x[i] - sin((2 * i + 1 - n) * PI / (2 * n))));
            ew = fmax(ew, fabs(w[i] / (PI / n) - 1.0));
        }
        CHECK(ex <= 2.3e-16 && ew <= 4.5e-16, "Gauss-Chebyshev n=%d: node err %.3g weight rel err %.3g",
              n, ex, ew);
    }
}

/* Reference rules computed with mpmath at 50 digits (Newton with deflation
 * on the orthonormal recurrence, Christoffel weights; GLL weights from
 * 2 / (n(n-1) L_{n-1}^2)), independently of the code under test. */
static const double ref_gl20[][2] = {
    {-9.9312859918509492479e-1, 1.7614007139152118312e-2},
    {-9.6397192727791379127e-1, 4.0601429800386941331e-2},
    {-9.1223442825132590587e-1, 6.267204833410906357e-2},
    {-8.3911697182221882339e-1, 8.3276741576704748725e-2},
    {-7.4633190646015079261e-1, 1.0193011981724043504e-1},
    {-6.3605368072651502545e-1, 1.1819453196151841731e-1},
    {-5.10867001950827098e-1, 1.316886384491766269e-1},
    {-3.7370608871541956067e-1, 1.4209610931838205133e-1},
    {-2.2778585114164507808e-1, 1.4917298647260374679e-1},
    {-7.6526521133497333755e-2, 1.527533871307258507e-1},
    {7.6526521133497333755e-2, 1.527533871307258507e-1},
    {2.2778585114164507808e-1, 1.4917298647260374679e-1},
    {3.7370608871541956067e-1, 1.4209610931838205133e-1},
    {5.10867001950827098e-1, 1.316886384491766269e-1},
    {6.3605368072651502545e-1, 1.1819453196151841731e-1},
    {7.4633190646015079261e-1, 1.0193011981724043504e-1},
    {8.3911697182221882339e-1, 8.3276741576704748725e-2},
    {9.1223442825132590587e-1, 6.267204833410906357e-2},
    {9.6397192727791379127e-1, 4.0601429800386941331e-2},
    {9.9312859918509492479e-1, 1.7614007139152118312e-2},
};
static const double ref_gj9_10[][2] = {
    {-9.7117518070224690273e-1, 1.4511201409311948584e-1},
    {-8.5122522058160791073e-1, 3.0429702043723265032e-1},
    {-6.4776668767400943627e-1, 3.9413496868938282064e-1},
    {-3.8066484014472436588e-1, 4.0123523677347315862e-1},
    {-7.6059197837978130234e-2, 3.3743328737968139758e-1},
    {2.3623446939058804928e-1, 2.3360478118066044226e-1},
    {5.2564603037007922937e-1, 1.2721928596421600505e-1},
    {7.6384204242000259962e-1, 4.8240017139141516207e-2},
    {9.2748437423358107812e-1, 8.7233883430925234902e-3},
};
static const double ref_gll13[][2] = {
    {-1.0, 1.2820512820512820513e-2},
    {-9.533098466421639119e-1, 7.7801686746818927794e-2},
    {-8.4634756465187231687e-1, 1.3498192668960834912e-1},
    {-6.8618846908175742607e-1, 1.8364686520355009201e-1},
    {-4.8290982109133620175e-1, 2.2076779356611008609e-1},
    {-2.4928693010623999257e-1, 2.4401579030667635646e-1},
    {0.0, 2.5193084933344673604e-1},
    {2.4928693010623999257e-1, 2.4401579030667635646e-1},
    {4.8290982109133620175e-1, 2.2076779356611008609e-1},
    {6.8618846908175742607e-1, 1.8364686520355009201e-1},
    {8.4634756465187231687e-1, 1.3498192668960834912e-1},
    {9.533098466421639119e-1, 7.7801686746818927794e-2},
    {1.0, 1.2820512820512820513e-2},
};

static void check_reference(const char *what, int n, const double (*ref)[2], const double *x,
                            const double *w)
{
    double ex = 0.0, ew = 0.0;
    for (int i = 0; i < n; i++) {
        ex = fmax(ex, fabs(x[i] - ref[i][0]));
        ew = fmax(ew, fabs(w[i] / ref[i][1] - 1.0));
    }
    /* correctly rounded up to about one ulp */
    CHECK(ex <= 1.2e-16 && ew <= 2.3e-16, "%s vs mpmath: node err %.3g, weight rel err %.3g", what,
          ex, ew);
}

static void test_reference_rules(void)
{
    double x[20], w[20];
    hdg_gauss_legendre(20, x, w, NULL);
    check_reference("Gauss-Legendre(20)", 20, ref_gl20, x, w);
    hdg_gauss_jacobi(9, 1.0, 0.0, x, w, NULL);
    check_reference("Gauss-Jacobi(9, 1, 0)", 9, ref_gj9_10, x, w);
    hdg_gauss_lobatto(13, x, w, NULL);
    check_reference("Gauss-Lobatto(13)", 13, ref_gll13, x, w);
}

/* JacobiP orthonormality by composite Simpson (independent of the Gauss code) */
static void test_jacobi_poly(void)
{
    enum { M = 20000, DEG = 5 };
    static const double ab[][2] = {{0, 0}, {1, 0}, {2, 1}, {4.5, 2}};
    double *xs = malloc((M + 1) * sizeof *xs), *P = malloc((size_t)(DEG + 1) * (M + 1) * sizeof *P);
    for (int i = 0; i <= M; i++) xs[i] = -1.0 + 2.0 * i / M;
    for (size_t p = 0; p < sizeof ab / sizeof ab[0]; p++) {
        double a = ab[p][0], b = ab[p][1];
        for (int d = 0; d <= DEG; d++) hdg_jacobi_p(d, a, b, M + 1, xs, P + (size_t)d * (M + 1));
        double worst = 0.0;
        for (int d = 0; d <= DEG; d++)
            for (int e = 0; e <= d; e++) {
                double sum = 0.0;
                for (int i = 0; i <= M; i++) {
                    double c = (i == 0 || i == M) ? 1.0 : (i % 2 ? 4.0 : 2.0);
                    double wt = pow(1.0 - xs[i], a) * pow(1.0 + xs[i], b);
                    sum += c * wt * P[(size_t)d * (M + 1) + i] * P[(size_t)e * (M + 1) + i];
                }
                sum *= 2.0 / M / 3.0;
                worst = fmax(worst, fabs(sum - (d == e)));
            }
        CHECK(worst <= 1e-10, "JacobiP(%g,%g) Simpson Gram error %.3g", a, b, worst);
    }
    free(xs);
    free(P);
    double t = 0.3, v;
    hdg_jacobi_p(1, 0, 0, 1, &t, &v);
    CHECK_NEAR(v, sqrt(1.5) * t, 1e-16, "P1(0,0)");
    hdg_jacobi_p(2, 0, 0, 1, &t, &v);
    CHECK_NEAR(v, sqrt(2.5) * (3 * t * t - 1) / 2, 4e-16, "P2(0,0)");
    hdg_jacobi_p(1, 1, 0, 1, &t, &v);      /* orthonormal for (1-x): (3x+1)/2 */
    CHECK_NEAR(v, (3 * t + 1) / 2, 1e-15, "P1(1,0)");
    double dP[4], Pa[4];
    hdg_jacobi_all(3, 0, 0, t, Pa, dP);    /* P3 = sqrt(7/2) (5x^3 - 3x)/2 */
    CHECK_NEAR(Pa[3], sqrt(3.5) * (5 * t * t * t - 3 * t) / 2, 1e-15, "P3(0,0)");
    CHECK_NEAR(dP[3], sqrt(3.5) * (15 * t * t - 3) / 2, 1e-15, "P3'(0,0)");
}

/* int over the reference triangle of r^a s^b, closed form:
 * int_{-1}^{1} s^b int_{-1}^{-s} r^a dr ds = (-1)^(a+1)/(a+1) (m(a+b+1) - m(b)). */
static double tri_monomial(int a, int b)
{
    double sgn = (a + 1) % 2 ? -1.0 : 1.0;
    return sgn / (a + 1) * (moment1(a + b + 1) - moment1(b));
}

/* The same through the unit triangle: r = 2x-1, s = 2y-1, dr ds = 4 dx dy,
 * int x^i y^j = i! j! / (i+j+2)!, with the binomial sum in exact integers
 * (scaled by (a+b+2)!). Valid while the integers fit: a + b <= 24. */
static double tri_monomial_exact(int a, int b)
{
    i128 fact[27], binom[25][25], D, sum = 0;   /* 26! < 2^127 */
    fact[0] = 1;
    for (int i = 1; i < 27; i++) fact[i] = fact[i - 1] * i;
    for (int i = 0; i < 25; i++)
        for (int j = 0; j <= i; j++) binom[i][j] = (j == 0 || j == i) ? 1 : binom[i - 1][j - 1] + binom[i - 1][j];
    D = fact[a + b + 2];
    for (int i = 0; i <= a; i++)
        for (int j = 0; j <= b; j++) {
            i128 t = binom[a][i] * binom[b][j] * ((i128)1 << (i + j)) * fact[i] * fact[j] *
                     (D / fact[i + j + 2]);
            sum += (a + b - i - j) % 2 ? -t : t;
        }
    return 4.0 * (double)sum / (double)D;
}

static void test_triangle(void)
{
    for (int a = 0; a <= 24; a++)
        for (int b = 0; a + b <= 24; b++) {
            double c = tri_monomial(a, b), e = tri_monomial_exact(a, b);
            CHECK(fabs(c - e) <= 1e-15 * fabs(e), "closed form r^%d s^%d: %.17g vs %.17g", a, b, c, e);
        }
    CHECK_NEAR(tri_monomial(0, 0), 2.0, 0, "area");
    CHECK_NEAR(tri_monomial(1, 0), -2.0 / 3.0, 4e-16, "first moment");

    for (int deg = 0; deg <= 30; deg++) {
        hdg_quad2d q;
        CHECK(hdg_quad_triangle(&q, deg, NULL) == HDG_OK, "quad_triangle(%d)", deg);
        int m = (deg + 2) / 2;
        CHECK(q.n == m * m, "degree %d: %d points, expected %d", deg, q.n, m * m);
        double wsum = 0.0;
        int inside = 1;
        for (int k = 0; k < q.n; k++) {
            wsum += q.w[k];
            inside &= q.w[k] > 0 && q.r[k] > -1 && q.s[k] > -1 && q.r[k] + q.s[k] < 0;
        }
        CHECK(inside, "degree %d: a point outside the triangle or a weight <= 0", deg);
        CHECK_NEAR(wsum, 2.0, 1e-14, "weights sum");
        double worst = 0.0, worst_pos = 0.0;
        for (int a = 0; a <= deg; a++)
            for (int b = 0; a + b <= deg; b++) {
                double sum = 0.0, abs_sum = 0.0, pos = 0.0;
                for (int k = 0; k < q.n; k++) {
                    double t = q.w[k] * pow(q.r[k], a) * pow(q.s[k], b);
                    sum += t, abs_sum += fabs(t);
                    pos += q.w[k] * pow(1.0 + q.r[k], a) * pow(1.0 + q.s[k], b);
                }
                double ex = tri_monomial(a, b);
                worst = fmax(worst, fabs(sum - ex) / fmax(fabs(ex), abs_sum));
                /* int (1+r)^a (1+s)^b = 2^(a+b+2) a! b! / (a+b+2)! */
                double expos = pow(2.0, a + b + 2) * tgamma(a + 1) * tgamma(b + 1) / tgamma(a + b + 3);
                worst_pos = fmax(worst_pos, fabs(pos / expos - 1.0));
            }
        CHECK(worst <= 1e-13, "triangle degree %d: monomial relative error %.3g", deg, worst);
        CHECK(worst_pos <= 1e-13, "triangle degree %d: (1+r)^a(1+s)^b relative error %.3g", deg,
              worst_pos);
        hdg_quad2d_free(&q);
    }
    /* and not exact one degree beyond an odd degree's rule (m points: 2m-1) */
    hdg_quad2d q;
    hdg_quad_triangle(&q, 5, NULL);
    double sum = 0.0;
    for (int k = 0; k < q.n; k++) sum += q.w[k] * pow(q.s[k], 6);
    CHECK(fabs(sum - tri_monomial(0, 6)) > 1e-6, "degree-5 rule exact on s^6?");
    hdg_quad2d_free(&q);
}

static void test_errors(void)
{
    hdg_error err;
    double x[4], w[4];
    hdg_quad2d q;
    CHECK(hdg_gauss_jacobi(0, 0, 0, x, w, &err) == HDG_EINPUT && strstr(err.msg, "at least 1"),
          "n=0: %s", err.msg);
    CHECK(hdg_gauss_jacobi(3, -1.0, 0, x, w, &err) == HDG_EINPUT && strstr(err.msg, "alpha, beta > -1"),
          "alpha=-1: %s", err.msg);
    CHECK(hdg_gauss_lobatto(1, x, w, &err) == HDG_EINPUT && strstr(err.msg, "at least 2"),
          "lobatto n=1: %s", err.msg);
    CHECK(hdg_quad_triangle(&q, -1, &err) == HDG_EINPUT && strstr(err.msg, ">= 0"),
          "degree -1: %s", err.msg);
    CHECK(q.n == 0 && !q.r && !q.s && !q.w, "failed rule not empty");
    hdg_quad2d_free(&q);
}

int main(void)
{
    test_legendre();
    test_lobatto();
    test_jacobi_rules();
    test_reference_rules();
    test_jacobi_poly();
    test_triangle();
    test_errors();
    return test_summary("quadrature");
}
