/* test_dense.c — small dense linear algebra: LU solve residuals, pivoting and
 * singular detection, inverse, matmul, Cholesky, Jacobi eigenvalues of
 * matrices with known spectra, singular values and condition numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/solve/dense.h"
#include "test.h"

#define M_PI_VAL 3.14159265358979323846

static unsigned long long rng_state = 88172645463325252ULL;

static double urand(void)                  /* xorshift64, uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static double max_abs(int n, const double *a)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

static void test_lu(void)
{
    enum { N = 24, R = 3 };
    double A[N * N], LU[N * N], X[N * R], B[N * R], AX[N * R];
    int piv[N];
    for (int i = 0; i < N * N; i++) A[i] = urand();
    for (int i = 0; i < N * R; i++) B[i] = urand();
    memcpy(LU, A, sizeof A);
    memcpy(X, B, sizeof B);
    CHECK(hdg_lu_factor(N, LU, piv) == 0, "random matrix reported singular");
    hdg_lu_solve(N, LU, piv, R, X);
    hdg_matmul(N, R, N, 1.0, A, X, 0.0, AX);
    double res = 0.0;
    for (int i = 0; i < N * R; i++) res = fmax(res, fabs(AX[i] - B[i]));
    CHECK(res <= 1e-13 * N * max_abs(N * N, A) * max_abs(N * R, X), "LU residual %.3g", res);

    /* needs pivoting: zero in the corner */
    double P[9] = {0, 2, 1, 1, 1, 1, 2, 1, 0}, b[3] = {5, 4, 4};   /* x = (1, 2, 1) */
    CHECK(hdg_lu_factor(3, P, piv) == 0, "pivoted matrix reported singular");
    hdg_lu_solve(3, P, piv, 1, b);
    CHECK_NEAR(b[0], 1.0, 1e-15, "x0");
    CHECK_NEAR(b[1], 2.0, 1e-15, "x1");
    CHECK_NEAR(b[2], 1.0, 1e-15, "x2");

    double S[9] = {1, 2, 3, 2, 4, 6, 1, 0, 1};   /* row 1 = 2 * row 0 */
    int z = hdg_lu_factor(3, S, piv);
    CHECK(z == 3, "singular 3x3: zero pivot index %d, expected 3", z);
    double Z[4] = {0, 0, 0, 1};
    CHECK(hdg_lu_factor(2, Z, piv) == 1, "zero first column: expected pivot 1");
}

static void test_invert(void)
{
    enum { N = 15 };
    double A[N * N], Ai[N * N], I[N * N];
    for (int i = 0; i < N * N; i++) A[i] = urand();
    for (int i = 0; i < N; i++) A[i * N + i] += 4.0;
    memcpy(Ai, A, sizeof A);
    CHECK(hdg_invert(N, Ai) == 0, "invert failed");
    hdg_matmul(N, N, N, 1.0, A, Ai, 0.0, I);
    double err = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) err = fmax(err, fabs(I[i * N + j] - (i == j)));
    CHECK(err <= 1e-13, "A * inv(A) - I = %.3g", err);

    double S[4] = {1, 2, 2, 4}, S0[4];
    memcpy(S0, S, sizeof S);
    CHECK(hdg_invert(2, S) != 0, "singular matrix inverted");
    CHECK(memcmp(S, S0, sizeof S) == 0, "singular input was modified");
}

static void test_matmul(void)
{
    double A[6] = {1, 2, 3, 4, 5, 6};          /* 2 x 3 */
    double B[6] = {7, 8, 9, 10, 11, 12};       /* 3 x 2 */
    double C[4] = {1, 1, 1, 1};
    hdg_matmul(2, 2, 3, 2.0, A, B, -1.0, C);   /* 2 A B - C; A B = [58 64; 139 154] */
    CHECK(C[0] == 115 && C[1] == 127 && C[2] == 277 && C[3] == 307,
          "matmul: %g %g %g %g", C[0], C[1], C[2], C[3]);
    double D[4] = {NAN, NAN, NAN, NAN};        /* beta = 0 must not read C */
    hdg_matmul(2, 2, 3, 1.0, A, B, 0.0, D);
    CHECK(D[0] == 58 && D[3] == 154, "matmul beta=0: %g %g", D[0], D[3]);
}

static void test_cholesky(void)
{
    enum { N = 12 };
    double B[N * N], A[N * N], L[N * N], LLt[N * N];
    for (int i = 0; i < N * N; i++) B[i] = urand();
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = i == j ? 0.5 : 0.0;
            for (int k = 0; k < N; k++) s += B[i * N + k] * B[j * N + k];
            A[i * N + j] = s;
        }
    memcpy(L, A, sizeof A);
    CHECK(hdg_cholesky(N, L) == 0, "SPD matrix rejected");
    int upper_zero = 1;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) upper_zero &= L[i * N + j] == 0.0;
    CHECK(upper_zero, "strict upper triangle not cleared");
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++) s += L[i * N + k] * L[j * N + k];
            LLt[i * N + j] = s;
        }
    double err = 0.0;
    for (int i = 0; i < N * N; i++) err = fmax(err, fabs(LLt[i] - A[i]));
    CHECK(err <= 1e-13 * max_abs(N * N, A), "L L^T - A = %.3g", err);

    double I2[4] = {1, 2, 2, 1};               /* eigenvalues 3, -1 */
    CHECK(hdg_cholesky(2, I2) == 2, "indefinite matrix: expected failure at pivot 2");
}

static void test_sym_eig(void)
{
    enum { N = 10 };
    double T[N * N] = {0}, ev[N];
    for (int i = 0; i < N; i++) {          /* tridiag(-1, 2, -1) */
        T[i * N + i] = 2.0;
        if (i + 1 < N) T[i * N + i + 1] = T[(i + 1) * N + i] = -1.0;
    }
    CHECK(hdg_sym_eig(N, T, ev) == 0, "Jacobi did not converge");
    for (int k = 1; k <= N; k++)
        CHECK_NEAR(ev[k - 1], 2.0 - 2.0 * cos(k * M_PI_VAL / (N + 1)), 1e-14, "tridiag eigenvalue");

    /* Q diag(d) Q^T with a Householder Q, eigenvalues spanning 1e-8 .. 1e3 */
    double v[N], d[N] = {1e3, -7.5, 3.25, 1e-8, 0.5, -2.0, 42.0, 1e-3, 9.0, -1e2}, A[N * N];
    double vv = 0.0;
    for (int i = 0; i < N; i++) {
        v[i] = urand();
        vv += v[i] * v[i];
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++) {
                double qik = (i == k) - 2.0 * v[i] * v[k] / vv;
                double qjk = (j == k) - 2.0 * v[j] * v[k] / vv;
                s += qik * d[k] * qjk;
            }
            A[i * N + j] = s;
        }
    CHECK(hdg_sym_eig(N, A, ev) == 0, "Jacobi did not converge (Householder)");
    double sorted[N] = {-1e2, -7.5, -2.0, 1e-8, 1e-3, 0.5, 3.25, 9.0, 42.0, 1e3};
    for (int i = 0; i < N; i++)
        CHECK_NEAR(ev[i], sorted[i], 1e-14 * 1e3, "Householder-similar eigenvalue"); /* eps n ||A|| */
}

static void test_cond(void)
{
    double D[9] = {1, 0, 0, 0, -5, 0, 0, 0, 0.25};
    CHECK_NEAR(hdg_cond2(3, D), 20.0, 1e-13, "cond diag(1,-5,0.25)");
    double J[4] = {1, 1, 0, 1};                /* (3 + sqrt 5) / 2 */
    CHECK_NEAR(hdg_cond2(2, J), (3.0 + sqrt(5.0)) / 2.0, 1e-14, "cond [1 1; 0 1]");
    double H[16];                              /* Hilbert(4): cond2 = 15513.7387389326 (mpmath)*/
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) H[i * 4 + j] = 1.0 / (i + j + 1);
    CHECK_NEAR(hdg_cond2(4, H), 15513.73873893259, 2e-7, "cond Hilbert(4)");
    double S[4] = {1, 2, 2, 4};
    CHECK(isinf(hdg_cond2(2, S)), "singular matrix: cond %g, expected inf", hdg_cond2(2, S));

    double R[6] = {3, 0, 0, 4, 0, 0}, sv[2];   /* 3 x 2: singular values 4, 3 */
    CHECK(hdg_svd_values(3, 2, R, sv) == 0, "svd did not converge");
    CHECK_NEAR(sv[0], 4.0, 1e-15, "sigma_1");
    CHECK_NEAR(sv[1], 3.0, 1e-15, "sigma_2");
    double Rt[6] = {1, 1, 0, 0, 1, 1};         /* 2 x 3: singular values sqrt3, 1 */
    hdg_svd_values(2, 3, Rt, sv);
    CHECK_NEAR(sv[0], sqrt(3.0), 1e-15, "sigma_1 (wide)");
    CHECK_NEAR(sv[1], 1.0, 1e-15, "sigma_2 (wide)");
}

int main(void)
{
    test_lu();
    test_invert();
    test_matmul();
    test_cholesky();
    test_sym_eig();
    test_cond();
    return test_summary("dense");
}
