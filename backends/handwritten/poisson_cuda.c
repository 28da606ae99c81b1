/* poisson_cuda.c — the hand-written CUDA kernels of examples/poisson.hdg
 * (poisson.cu, embedded at build time as hdg_hw_poisson_cu) for one order k:
 * the sizes and the reference tables, built with the runtime's quadrature
 * and Dubiner/Legendre bases by the same rules as the lowering
 * (ir/lower_hdg.c: volume rule of degree 2k+4, k+3 Gauss-Legendre points per
 * face, post rule of degree 2(k+1)), printed in front of the body. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"
#include "backends/cuda/emit.h"
#include "backends/handwritten/sets.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

extern const char hdg_hw_poisson_cu[];

#define KMIN 1
#define KMAX 8

/* reference vertices, as the lowering */
static const double VR[3] = {-1, 1, -1}, VS[3] = {-1, -1, 1};

static void put_table(hdg_str *s, const char *name, const double *v, int n)
{
    hdg_str_printf(s, "__device__ const double %s[%d] = {", name, n);
    for (int i = 0; i < n; i++) hdg_str_printf(s, "%s%.17g", i ? (i % 4 ? ", " : ",\n    ") : "\n    ", v[i]);
    hdg_str_puts(s, "};\n");
}

/* T[b][i][j] = sum_q w[q] X[b][q][i] Y[b][q][j] (the lowering's integrate) */
static double *integrate(int nb, int nq, const double *w, const double *X, int nx, const double *Y, int ny)
{
    double *T = hdg_xcalloc((size_t)nb * nx * ny, sizeof(double));
    for (int b = 0; b < nb; b++)
        for (int q = 0; q < nq; q++)
            for (int i = 0; i < nx; i++) {
                double xi = w[q] * X[((size_t)b * nq + q) * nx + i];
                for (int j = 0; j < ny; j++) T[((size_t)b * nx + i) * ny + j] += xi * Y[((size_t)b * nq + q) * ny + j];
            }
    return T;
}

/* inverse of the n x n matrix A (Gauss-Jordan, partial pivoting); 0 if singular */
static int invert(const double *A, int n, double *X)
{
    double *W = hdg_xmalloc(sizeof(double) * (size_t)(n * 2 * n));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2 * n; j++) W[i * 2 * n + j] = j < n ? A[i * n + j] : (j - n == i);
    int ok = 1;
    for (int p = 0; p < n && ok; p++) {
        int b = p;
        for (int i = p + 1; i < n; i++)
            if (fabs(W[i * 2 * n + p]) > fabs(W[b * 2 * n + p])) b = i;
        if (W[b * 2 * n + p] == 0) { ok = 0; break; }
        for (int j = 0; j < 2 * n; j++) {
            double t = W[p * 2 * n + j];
            W[p * 2 * n + j] = W[b * 2 * n + j], W[b * 2 * n + j] = t;
        }
        double ip = 1 / W[p * 2 * n + p];
        for (int j = 0; j < 2 * n; j++) W[p * 2 * n + j] *= ip;
        for (int i = 0; i < n; i++)
            if (i != p) {
                double l = W[i * 2 * n + p];
                for (int j = 0; j < 2 * n; j++) W[i * 2 * n + j] -= l * W[p * 2 * n + j];
            }
    }
    for (int i = 0; i < n && ok; i++) memcpy(X + i * n, W + i * 2 * n + n, sizeof(double) * (size_t)n);
    free(W);
    return ok;
}

/* C (n x m) = A (n x n) B (n x m) */
static void matmul(const double *A, const double *B, int n, int m, double *C)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int l = 0; l < n; l++) s += A[i * n + l] * B[l * m + j];
            C[i * m + j] = s;
        }
}

/* Volume tables: the element basis (degree k) on the rule of degree 2k+4;
 * T_Pr_P, T_Ps_P, the source rule, M^-1 (into MinvOut) and M^-1 T_Pr_P,
 * M^-1 T_Ps_P. Returns the point count, or -1 with err. */
static int volume(int k, int np, hdg_str *s, double *MinvOut, hdg_error *err)
{
    hdg_quad2d q;
    if (hdg_quad_triangle(&q, 2 * k + 4, err)) return -1;
    double *B[3], *lam = hdg_xmalloc(sizeof(double) * 3 * (size_t)q.n);
    for (int i = 0; i < 3; i++) B[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * np));
    hdg_dubiner_eval(k, q.n, q.r, q.s, B[0], B[1], B[2]);
    for (int i = 0; i < q.n; i++)
        lam[3 * i] = -(q.r[i] + q.s[i]) / 2, lam[3 * i + 1] = (1 + q.r[i]) / 2, lam[3 * i + 2] = (1 + q.s[i]) / 2;
    double *T0 = integrate(1, q.n, q.w, B[0], np, B[0], np), *Tr = integrate(1, q.n, q.w, B[1], np, B[0], np);
    double *Ts = integrate(1, q.n, q.w, B[2], np, B[0], np);
    put_table(s, "vol_w", q.w, q.n);
    put_table(s, "vol_lam", lam, 3 * q.n);
    put_table(s, "vol_P", B[0], q.n * np);
    put_table(s, "T_Pr_P", Tr, np * np);
    put_table(s, "T_Ps_P", Ts, np * np);
    double *Minv = hdg_xmalloc(sizeof(double) * (size_t)(np * np)), *MT = hdg_xmalloc(sizeof(double) * (size_t)(np * np));
    int ok = invert(T0, np, Minv), n = q.n;
    matmul(Minv, Tr, np, np, MT);
    put_table(s, "MTr", MT, np * np);
    matmul(Minv, Ts, np, np, MT);
    put_table(s, "MTs", MT, np * np);
    memcpy(MinvOut, Minv, sizeof(double) * (size_t)(np * np));
    free(lam), free(T0), free(Tr), free(Ts), free(Minv), free(MT);
    for (int i = 0; i < 3; i++) free(B[i]);
    hdg_quad2d_free(&q);
    if (!ok) return hdg_fail(err, HDG_EINTERNAL, "poisson (CUDA): singular mass matrix at k=%d", k), -1;
    return n;
}

/* Face tables on k+3 Gauss-Legendre points: TF_P_P, TF_P_L, TF_L_L and
 * MTFPL[f] = Minv TF_P_L[f]. */
static hdg_status faces(int k, int np, const double *Minv, hdg_str *s, hdg_error *err)
{
    int n = k + 3, nk = k + 1;
    double *t = hdg_xmalloc(sizeof(double) * (size_t)n), *w = hdg_xmalloc(sizeof(double) * (size_t)n);
    hdg_status st = hdg_gauss_legendre(n, t, w, err);
    if (st) { free(t), free(w); return st; }
    double *L = hdg_xmalloc(sizeof(double) * (size_t)(n * nk)), *L3 = hdg_xmalloc(sizeof(double) * (size_t)(3 * n * nk));
    double *r = hdg_xmalloc(sizeof(double) * (size_t)(3 * n)), *ss = hdg_xmalloc(sizeof(double) * (size_t)(3 * n));
    double *P = hdg_xmalloc(sizeof(double) * (size_t)(3 * n * np));
    hdg_legendre_eval(k, n, t, L, NULL);
    for (int f = 0; f < 3; f++) {
        memcpy(L3 + f * n * nk, L, sizeof(double) * (size_t)(n * nk));
        for (int q = 0; q < n; q++) {
            int a = f, b = (f + 1) % 3;
            r[f * n + q] = (1 - t[q]) / 2 * VR[a] + (1 + t[q]) / 2 * VR[b];
            ss[f * n + q] = (1 - t[q]) / 2 * VS[a] + (1 + t[q]) / 2 * VS[b];
        }
    }
    hdg_dubiner_eval(k, 3 * n, r, ss, P, NULL, NULL);
    double *TPP = integrate(3, n, w, P, np, P, np), *TPL = integrate(3, n, w, P, np, L3, nk);
    double *TLL = integrate(1, n, w, L, nk, L, nk), *M = hdg_xmalloc(sizeof(double) * (size_t)(3 * np * nk));
    for (int f = 0; f < 3; f++) matmul(Minv, TPL + f * np * nk, np, nk, M + f * np * nk);
    put_table(s, "TF_P_P", TPP, 3 * np * np);
    put_table(s, "TF_P_L", TPL, 3 * np * nk);
    put_table(s, "TF_L_L", TLL, nk * nk);
    put_table(s, "MTFPL", M, 3 * np * nk);
    free(t), free(w), free(L), free(L3), free(r), free(ss), free(P), free(TPP), free(TPL), free(TLL), free(M);
    return HDG_OK;
}

/* Post-processing tables (degree k+1 against k+1 and k) on the rule of degree 2(k+1). */
static hdg_status post(int k, int np, int npp, hdg_str *s, hdg_error *err)
{
    hdg_quad2d q;
    hdg_status st = hdg_quad_triangle(&q, 2 * (k + 1), err);
    if (st) return st;
    double *b1[3], *b0[3];
    for (int i = 0; i < 3; i++) {
        b1[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * npp));
        b0[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * np));
    }
    hdg_dubiner_eval(k + 1, q.n, q.r, q.s, b1[0], b1[1], b1[2]);
    hdg_dubiner_eval(k, q.n, q.r, q.s, b0[0], b0[1], b0[2]);
    static const char *names[4] = {"TP_Pr_Pr", "TP_Pr_Ps", "TP_Ps_Pr", "TP_Ps_Ps"};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            double *T = integrate(1, q.n, q.w, b1[1 + a], npp, b1[1 + b], npp);
            put_table(s, names[2 * a + b], T, npp * npp);
            free(T);
        }
    for (int a = 0; a < 2; a++) {
        double *T = integrate(1, q.n, q.w, b1[1 + a], npp, b0[0], np);
        put_table(s, a ? "TPK_Ps_P" : "TPK_Pr_P", T, npp * np);
        free(T);
    }
    for (int i = 0; i < 3; i++) free(b1[i]), free(b0[i]);
    hdg_quad2d_free(&q);
    return HDG_OK;
}

hdg_status hdg_hw_poisson_cuda(int k, hdg_hw_cuda *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if (k < KMIN || k > KMAX)
        return hdg_fail(err, HDG_EINPUT, "hand-written CUDA poisson kernels cover k = %d..%d, not %d", KMIN, KMAX, k);
    int np = (k + 1) * (k + 2) / 2, nk = k + 1, nf = 3 * nk, nb = nf + 1, npp = (k + 2) * (k + 3) / 2;
    /* threads per block: about one per entry of the NP x NB right-hand sides
     * (21 at k = 1, 240 at k = 4), whole warps, at most 256 */
    int nt = k == 1 ? 32 : k == 2 ? 64 : k <= 4 ? 128 : 256;
    hdg_str s;
    hdg_str_init(&s);
    hdg_str_printf(&s, "/* hand-written poisson kernels (backends/handwritten/poisson.cu), order k = %d */\n", k);
    hdg_str_puts(&s, hdg_emit_c_abi_header());
    hdg_str_puts(&s, hdg_emit_cuda_prelude());
    hdg_str_printf(&s, "#define K %d\n#define NP %d\n#define NK %d\n#define NF %d\n#define NB %d\n#define NPP %d\n"
                       "#define NT %d\n", k, np, nk, nf, nb, npp, nt);
    double *Minv = hdg_xmalloc(sizeof(double) * (size_t)(np * np));
    hdg_str tables;
    hdg_str_init(&tables);
    int nq = volume(k, np, &tables, Minv, err);
    hdg_status st = nq < 0 ? err->code : faces(k, np, Minv, &tables, err);
    if (!st) st = post(k, np, npp, &tables, err);
    free(Minv);
    if (st) {
        hdg_str_free(&s), hdg_str_free(&tables);
        return st;
    }
    hdg_str_printf(&s, "#define NQ %d\n%s\n%s", nq, tables.s, hdg_hw_poisson_cu);
    hdg_str_free(&tables);
    out->source = hdg_str_take(&s);
    static const char *names[3] = {"poisson_local", "poisson_recover", "poisson_post"};
    int shared[3] = {(5 * np * np + 3 * np * nb) * 8, (5 * np * np + 4 * np + nf) * 8, (npp * npp + npp) * 8};
    out->n = 3;
    for (int i = 0; i < 3; i++) {
        snprintf(out->name[i], sizeof out->name[i], "%s", names[i]);
        out->block[i] = nt;
        out->items_per_block[i] = 1;
        out->shared_bytes[i] = shared[i];
    }
    return HDG_OK;
}
