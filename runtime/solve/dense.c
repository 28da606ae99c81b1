/* dense.c — small dense linear algebra (see dense.h). Plain loops, row-major,
 * written for accuracy first: partial pivoting, Jacobi rotations computed in
 * the stable Rutishauser form. */
#include "runtime/solve/dense.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "support/util.h"

static void swap_rows(double *A, int ncols, int i, int j)
{
    if (i == j) return;
    double *a = A + (size_t)i * ncols, *b = A + (size_t)j * ncols;
    for (int c = 0; c < ncols; c++) {
        double t = a[c];
        a[c] = b[c];
        b[c] = t;
    }
}

int hdg_lu_factor(int n, double *A, int *piv)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        double big = fabs(A[(size_t)k * n + k]);
        for (int i = k + 1; i < n; i++) {
            double v = fabs(A[(size_t)i * n + k]);
            if (v > big) {
                big = v;
                p = i;
            }
        }
        piv[k] = p;
        if (big == 0.0) return k + 1;
        swap_rows(A, n, k, p);
        double *rk = A + (size_t)k * n, inv = 1.0 / rk[k];
        for (int i = k + 1; i < n; i++) {
            double *ri = A + (size_t)i * n;
            double l = ri[k] *= inv;
            if (l != 0.0)
                for (int j = k + 1; j < n; j++) ri[j] -= l * rk[j];
        }
    }
    return 0;
}

void hdg_lu_solve(int n, const double *LU, const int *piv, int nrhs, double *B)
{
    for (int k = 0; k < n; k++) swap_rows(B, nrhs, k, piv[k]);
    for (int i = 1; i < n; i++) {               /* L y = P b, unit diagonal */
        double *bi = B + (size_t)i * nrhs;
        for (int k = 0; k < i; k++) {
            double l = LU[(size_t)i * n + k];
            if (l == 0.0) continue;
            const double *bk = B + (size_t)k * nrhs;
            for (int c = 0; c < nrhs; c++) bi[c] -= l * bk[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {          /* U x = y */
        double *bi = B + (size_t)i * nrhs;
        for (int k = i + 1; k < n; k++) {
            double u = LU[(size_t)i * n + k];
            if (u == 0.0) continue;
            const double *bk = B + (size_t)k * nrhs;
            for (int c = 0; c < nrhs; c++) bi[c] -= u * bk[c];
        }
        double inv = 1.0 / LU[(size_t)i * n + i];
        for (int c = 0; c < nrhs; c++) bi[c] *= inv;
    }
}

int hdg_invert(int n, double *A)
{
    size_t nn = (size_t)n * n;
    double *LU = hdg_xmalloc(nn * sizeof *LU);
    int *piv = hdg_xmalloc((size_t)(n ? n : 1) * sizeof *piv);
    memcpy(LU, A, nn * sizeof *LU);
    int bad = hdg_lu_factor(n, LU, piv);
    if (!bad) {
        memset(A, 0, nn * sizeof *A);
        for (int i = 0; i < n; i++) A[(size_t)i * n + i] = 1.0;
        hdg_lu_solve(n, LU, piv, n, A);
    }
    free(LU);
    free(piv);
    return bad;
}

void hdg_matmul(int m, int n, int k, double alpha, const double *A, const double *B,
                double beta, double *C)
{
    for (int i = 0; i < m; i++) {
        double *ci = C + (size_t)i * n;
        if (beta == 0.0)
            for (int j = 0; j < n; j++) ci[j] = 0.0;
        else if (beta != 1.0)
            for (int j = 0; j < n; j++) ci[j] *= beta;
        for (int p = 0; p < k; p++) {
            double a = alpha * A[(size_t)i * k + p];
            if (a == 0.0) continue;
            const double *bp = B + (size_t)p * n;
            for (int j = 0; j < n; j++) ci[j] += a * bp[j];
        }
    }
}

int hdg_cholesky(int n, double *A)
{
    for (int j = 0; j < n; j++) {
        double *rj = A + (size_t)j * n;
        double d = rj[j];
        for (int k = 0; k < j; k++) d -= rj[k] * rj[k];
        if (!(d > 0.0)) return j + 1;
        d = sqrt(d);
        rj[j] = d;
        for (int i = j + 1; i < n; i++) {
            double *ri = A + (size_t)i * n, v = ri[j];
            for (int k = 0; k < j; k++) v -= ri[k] * rj[k];
            ri[j] = v / d;
        }
        for (int k = j + 1; k < n; k++) rj[k] = 0.0;
    }
    return 0;
}

/* The rotation (c, s) that zeroes the off-diagonal entry of the symmetric
 * 2x2 matrix [app apq; apq aqq] (Rutishauser's stable formulas). */
static void jacobi_rotation(double app, double aqq, double apq, double *c, double *s)
{
    double theta = (aqq - app) / (2.0 * apq);
    double t = 1.0 / (fabs(theta) + sqrt(1.0 + theta * theta));
    if (fabs(theta) > 1e150) t = 0.5 / fabs(theta);    /* theta^2 would overflow */
    if (theta < 0.0) t = -t;
    *c = 1.0 / sqrt(1.0 + t * t);
    *s = t * *c;
}

static void sort_ascending(int n, double *v)
{
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;
        for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
        v[j + 1] = x;
    }
}

int hdg_sym_eig(int n, double *A, double *eval)
{
    double norm = 0.0;
    for (size_t i = 0; i < (size_t)n * n; i++) norm += A[i] * A[i];
    norm = sqrt(norm);
    int converged = 0;
    for (int sweep = 0; sweep < 60 && !converged; sweep++) {
        converged = 1;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = A[(size_t)p * n + q];
                double app = A[(size_t)p * n + p], aqq = A[(size_t)q * n + q];
                /* negligible: below rounding of the diagonal (relative test,
                 * keeps small eigenvalues accurate) or of the whole matrix */
                if (fabs(apq) <= DBL_EPSILON * 0.5 * sqrt(fabs(app * aqq)) ||
                    fabs(apq) <= 1e-3 * DBL_EPSILON * norm) {
                    A[(size_t)p * n + q] = A[(size_t)q * n + p] = 0.0;
                    continue;
                }
                converged = 0;
                double c, s;
                jacobi_rotation(app, aqq, apq, &c, &s);
                for (int k = 0; k < n; k++) {       /* columns p, q */
                    double *rk = A + (size_t)k * n;
                    double akp = rk[p], akq = rk[q];
                    rk[p] = c * akp - s * akq;
                    rk[q] = s * akp + c * akq;
                }
                double *rp = A + (size_t)p * n, *rq = A + (size_t)q * n;
                for (int k = 0; k < n; k++) {       /* rows p, q */
                    double apk = rp[k], aqk = rq[k];
                    rp[k] = c * apk - s * aqk;
                    rq[k] = s * apk + c * aqk;
                }
                rp[q] = rq[p] = 0.0;
            }
    }
    for (int i = 0; i < n; i++) eval[i] = A[(size_t)i * n + i];
    sort_ascending(n, eval);
    return converged ? 0 : 1;
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

int hdg_svd_values(int m, int n, const double *A, double *sval)
{
    /* Orthogonalize the rows of W = A (or of A^T when n < m, so rows are the
     * longer vectors); the singular values are then the row norms. */
    int rows = m <= n ? m : n, len = m <= n ? n : m;
    double *W = hdg_xmalloc((size_t)rows * len * sizeof *W + 1);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (m <= n) W[(size_t)i * len + j] = A[(size_t)i * n + j];
            else W[(size_t)j * len + i] = A[(size_t)i * n + j];
    int converged = 0;
    for (int sweep = 0; sweep < 60 && !converged; sweep++) {
        converged = 1;
        for (int p = 0; p < rows - 1; p++)
            for (int q = p + 1; q < rows; q++) {
                double *wp = W + (size_t)p * len, *wq = W + (size_t)q * len;
                double a = dot(len, wp, wp), b = dot(len, wq, wq), g = dot(len, wp, wq);
                if (g == 0.0 || fabs(g) <= DBL_EPSILON * sqrt(a * b)) continue;
                converged = 0;
                double c, s;
                jacobi_rotation(a, b, g, &c, &s);
                for (int k = 0; k < len; k++) {
                    double x = wp[k], y = wq[k];
                    wp[k] = c * x - s * y;
                    wq[k] = s * x + c * y;
                }
            }
    }
    for (int i = 0; i < rows; i++) {
        const double *w = W + (size_t)i * len;
        double scale = 0.0, sum = 0.0;         /* overflow-safe norm */
        for (int k = 0; k < len; k++) scale = fmax(scale, fabs(w[k]));
        if (scale > 0.0)
            for (int k = 0; k < len; k++) sum += (w[k] / scale) * (w[k] / scale);
        sval[i] = scale * sqrt(sum);
    }
    sort_ascending(rows, sval);
    for (int i = 0; i < rows / 2; i++) {       /* descending */
        double t = sval[i];
        sval[i] = sval[rows - 1 - i];
        sval[rows - 1 - i] = t;
    }
    free(W);
    return converged ? 0 : 1;
}

double hdg_cond2(int n, const double *A)
{
    if (n <= 0) return 1.0;
    double *sv = hdg_xmalloc((size_t)n * sizeof *sv);
    hdg_svd_values(n, n, A, sv);
    double c = sv[n - 1] > 0.0 ? sv[0] / sv[n - 1] : INFINITY;
    free(sv);
    return c;
}
