/* poisson.c — hand-written C kernels for examples/poisson.hdg: -div(kappa grad u) = f
 * by LDG-H (HDG) on affine triangles, f = 2 pi^2 kappa sin(pi x) sin(pi y).
 *
 * They stand for the generated kernels of the same names, with their ABI,
 * slots and layout (ir/lower.h): element dofs [q.x | q.y | u], np Dubiner modes
 * each; trace dofs per local face nk = k+1 Legendre modes in the element's
 * face orientation; geom HDG_G_* (20 values: no marker sets); params[0] =
 * kappa, params[1] = tau.
 *
 *   poisson_local    out[0] Ke (nt x nt), out[1] Fe (nt):  Ke = D - C A^-1 B, Fe = -C A^-1 F
 *   poisson_recover  in[0] uhat (nt)  -> out[0] x (3 np):  x = A^-1 (F - B uhat)
 *   poisson_post     in[0] x (3 np)   -> out[0] u* (npp):  (grad u*, grad w) = -(q/kappa, grad w),
 *                    mean constraint u*_0 = u_0 (mode 0 is the constant)
 *
 * How: with an orthonormal basis the q blocks of A are (J/kappa) I, so A is
 * factored by block elimination of q (q = (kappa/J)(Sx u - Bx uhat), Sx the
 * element's "u dx(r)" matrix, Bx its face matrix), leaving the SPD np x np
 * Schur complement on u
 *     Su = (kappa/J)(Sx^T Sx + Sy^T Sy) + tau sum_f sJ_f Mf_f,
 * factored by Cholesky. With G = (kappa/J)(Sx^T Bx + Sy^T By) + tau Bt and
 * H = D - (kappa/J)(Bx^T Bx + By^T By):
 *     Ke = H + G^T Su^-1 G,   Fe = -G^T Su^-1 F,
 * by one triangular solve (Z = L^-1 [G | F]) and one symmetric rank update
 * (Z^T Z), the latter accumulated onto H in double-double (syrk_dd), and Ke
 * projected onto the complement of its exact null vector, the constant trace
 * (null_close). Why both: H + Z^T Z cancels (max|H| ~ 4.5 max|Ke| at k = 8)
 * and the table products hold the identities only to rounding, so a plain
 * double Ke has |Ke c| ~ 4e-15 max|Ke| (generated: 1.2e-15), an error that is
 * the same in every element of a uniform mesh and acts like a reaction term:
 * the global L2 errors of u were 10-350x those of the generated kernels at
 * k = 6..8 (square:16, square:32). Su, G, H are linear combinations of
 * reference matrices (Tr^T Tr, Tr^T Ts + Ts^T Tr, Ts^T Ts, face masses,
 * Tr^T E_f, Ts^T E_f, E_f^T E_g)
 * made once per order, with coefficients from rx, ry, sx, sy, J, the normals
 * and sJ: no quadrature per element but the source's. Sx^T Sx uses the
 * identity -Sx + Ex = Sx^T (integration by parts, exact with the exact
 * rules), which the generated kernel's A holds to rounding. The generated
 * local kernel factors all of A (3 np) by LU instead: at k = 8 about 3.0
 * Mflop per element against 0.16 here (+0.18 for the double-double update).
 *
 * Rules as in ir/lower_hdg.c, so the load vector agrees to rounding: volume
 * hdg_quad_triangle of degree 2k+4 (reference tables and the source), faces
 * k+3 Gauss-Legendre points, post tables degree 2(k+1).
 *
 * Speed: the order is a compile-time constant (one inline body per kernel,
 * instantiated for k = 1..8 by HW_ORDERS), workspace on the stack, no malloc
 * per element; the bodies are cloned for AVX-512 / AVX2+FMA / baseline
 * (HW_ISA) as the JIT compiles the generated ones for the host; sin(pi x) of
 * the source is an inline polynomial (sinpi) so that the point loop
 * vectorizes. Dense algebra: fixed-size loops (the default), or LAPACK
 * dpotrf/dpotrs and BLAS dtrsm with -DHW_POISSON_LAPACK=1 (the update is
 * syrk_dd's loops either way; the timings that follow predate it): OpenBLAS's
 * per-call cost makes those 2-3.5x slower at k <= 2, 1.3-2x at k = 3..5
 * (and they take its buffer lock from every pool thread); about even at
 * k = 8. With them OpenBLAS is set to one thread (the runtime's pool already
 * runs kernels on several threads). Tables: hdg_hw_poisson_c(k) builds them on first use
 * (not thread-safe: called before launches). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/sets.h"
#include "ir/lower.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

#ifndef HW_POISSON_LAPACK
#define HW_POISSON_LAPACK 0   /* see the dense helpers below; CMake option HDG_HW_LAPACK */
#endif

#if HW_POISSON_LAPACK
/* after refel.h: lapack.h brings <complex.h>, whose macro I is a parameter name there */
#include <cblas.h>
#include <lapacke.h>

void openblas_set_num_threads(int num_threads);   /* OpenBLAS extension (linked) */
#endif

#define KMAX 8
#define NPK(k) (((k) + 1) * ((k) + 2) / 2)
#define NPMAX NPK(KMAX)            /* 45 Dubiner modes */
#define NPPMAX NPK(KMAX + 1)       /* 55 post modes */
#define NTMAX (3 * (KMAX + 1))     /* 27 trace dofs */
#define NGEOM HDG_G_FIXED          /* poisson has no marker sets */

/* Reference tables of one order. Square matrices are symmetric unless named
 * otherwise; all row-major. */
typedef struct tables {
    int ready, nq;
    double *lam[3];       /* nq barycentric coordinates of the volume points, each */
    double *wP;           /* nq x np: w_q P_i(q) (source) */
    double *Tr, *Ts;      /* np x np: Tr[i][j] = int dP_i/dr P_j */
    double *RR, *RS, *SS; /* Tr^T Tr, Tr^T Ts + Ts^T Tr, Ts^T Ts */
    double *Mf[3];        /* face f: int P_i P_j dt */
    double *E[3], *RE[3], *SE[3]; /* E_f[i][a] = int P_i L_a dt; Tr^T E_f, Ts^T E_f */
    double *EE[3][3];     /* nk x nk: E_f^T E_g */
    double *PRR, *PRS, *PSS; /* npp x npp post stiffness parts (RS: both cross terms) */
    double *PKr, *PKs;    /* npp x np: int dQ_i/dr P_j, int dQ_i/ds P_j */
    double *block;        /* one allocation for all of the above */
} tables;

static tables tab[KMAX + 1];

/* ---------------------------------------------------------------- set-up */

static double *take(double **p, size_t n)
{
    double *r = *p;
    *p += n;
    return r;
}

/* C (nx x ny, row-major) = sum_q w_q X[q][i] Y[q][j]; as ir/lower_hdg.c's integrate() */
static void integrate(int nq, const double *w, const double *X, int nx, const double *Y, int ny, double *C)
{
    memset(C, 0, sizeof(double) * (size_t)(nx * ny));
    for (int q = 0; q < nq; q++)
        for (int i = 0; i < nx; i++) {
            double xi = w[q] * X[q * nx + i];
            for (int j = 0; j < ny; j++) C[i * ny + j] += xi * Y[q * ny + j];
        }
}

/* C (nx x ny, row-major) = X^T Y with X (n x nx), Y (n x ny) row-major */
static void atb(int n, const double *X, int nx, const double *Y, int ny, double *C)
{
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            double s = 0;
            for (int m = 0; m < n; m++) s += X[m * nx + i] * Y[m * ny + j];
            C[i * ny + j] = s;
        }
}

static hdg_status volume_part(tables *t, int k, double **p, hdg_error *err)
{
    int np = NPK(k);
    hdg_quad2d q;
    hdg_status st = hdg_quad_triangle(&q, 2 * k + 4, err);
    if (st) return st;
    int n = q.n;
    double *P = hdg_xmalloc(sizeof(double) * (size_t)(3 * n * np)), *Pr = P + n * np, *Ps = Pr + n * np;
    hdg_dubiner_eval(k, n, q.r, q.s, P, Pr, Ps);
    t->nq = n;
    for (int v = 0; v < 3; v++) t->lam[v] = take(p, (size_t)n);
    t->wP = take(p, (size_t)(n * np));
    for (int i = 0; i < n; i++) {
        t->lam[0][i] = -(q.r[i] + q.s[i]) / 2;   /* barycentric, as ir/lower_hdg.c */
        t->lam[1][i] = (1 + q.r[i]) / 2, t->lam[2][i] = (1 + q.s[i]) / 2;
        for (int m = 0; m < np; m++) t->wP[i * np + m] = q.w[i] * P[i * np + m];
    }
    size_t nn = (size_t)(np * np);
    t->Tr = take(p, nn), t->Ts = take(p, nn), t->RR = take(p, nn), t->RS = take(p, nn), t->SS = take(p, nn);
    integrate(n, q.w, Pr, np, P, np, t->Tr);
    integrate(n, q.w, Ps, np, P, np, t->Ts);
    /* Tr, Ts as n = np "points" of atb: (Tr^T Tr)[i][j] = sum_m Tr[m][i] Tr[m][j] */
    double *tmp = hdg_xmalloc(sizeof(double) * nn);
    atb(np, t->Tr, np, t->Tr, np, t->RR);
    atb(np, t->Tr, np, t->Ts, np, t->RS);
    atb(np, t->Ts, np, t->Tr, np, tmp);
    for (size_t i = 0; i < nn; i++) t->RS[i] += tmp[i];
    atb(np, t->Ts, np, t->Ts, np, t->SS);
    free(tmp), free(P);
    hdg_quad2d_free(&q);
    return HDG_OK;
}

static hdg_status face_part(tables *t, int k, double **p, hdg_error *err)
{
    static const double VR[3] = {-1, 1, -1}, VS[3] = {-1, -1, 1};
    int np = NPK(k), nk = k + 1, n = k + 3;
    double tq[KMAX + 3], w[KMAX + 3], r[3 * (KMAX + 3)], s[3 * (KMAX + 3)];
    hdg_status st = hdg_gauss_legendre(n, tq, w, err);
    if (st) return st;
    double *L = hdg_xmalloc(sizeof(double) * (size_t)(n * nk + 3 * n * np + np * nk)), *P = L + n * nk;
    double *Er = P + 3 * n * np;
    hdg_legendre_eval(k, n, tq, L, NULL);
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < n; i++) {
            int a = f, b = (f + 1) % 3;
            r[f * n + i] = (1 - tq[i]) / 2 * VR[a] + (1 + tq[i]) / 2 * VR[b];
            s[f * n + i] = (1 - tq[i]) / 2 * VS[a] + (1 + tq[i]) / 2 * VS[b];
        }
    hdg_dubiner_eval(k, 3 * n, r, s, P, NULL, NULL);
    for (int f = 0; f < 3; f++) {
        const double *Pf = P + f * n * np;
        t->Mf[f] = take(p, (size_t)(np * np));
        t->E[f] = take(p, (size_t)(np * nk)), t->RE[f] = take(p, (size_t)(np * nk));
        t->SE[f] = take(p, (size_t)(np * nk));
        integrate(n, w, Pf, np, Pf, np, t->Mf[f]);
        integrate(n, w, Pf, np, L, nk, Er);
        memcpy(t->E[f], Er, sizeof(double) * (size_t)(np * nk));
        atb(np, t->Tr, np, Er, nk, t->RE[f]);
        atb(np, t->Ts, np, Er, nk, t->SE[f]);
    }
    for (int f = 0; f < 3; f++)
        for (int g = 0; g < 3; g++) {
            double *C = t->EE[f][g] = take(p, (size_t)(nk * nk));
            for (int a = 0; a < nk; a++)
                for (int b = 0; b < nk; b++) {
                    double x = 0;
                    for (int i = 0; i < np; i++) x += t->E[f][i * nk + a] * t->E[g][i * nk + b];
                    C[a * nk + b] = x;
                }
        }
    free(L);
    return HDG_OK;
}

static hdg_status post_part(tables *t, int k, double **p, hdg_error *err)
{
    int np = NPK(k), npp = NPK(k + 1);
    hdg_quad2d q;
    hdg_status st = hdg_quad_triangle(&q, 2 * (k + 1), err);
    if (st) return st;
    int n = q.n;
    double *Q = hdg_xmalloc(sizeof(double) * (size_t)(3 * n * npp + 3 * n * np + npp * npp));
    double *Qr = Q + n * npp, *Qs = Qr + n * npp, *P = Qs + n * npp, *tmp = P + 3 * n * np;
    hdg_dubiner_eval(k + 1, n, q.r, q.s, Q, Qr, Qs);
    hdg_dubiner_eval(k, n, q.r, q.s, P, NULL, NULL);
    size_t nn = (size_t)(npp * npp);
    t->PRR = take(p, nn), t->PRS = take(p, nn), t->PSS = take(p, nn);
    t->PKr = take(p, (size_t)(npp * np)), t->PKs = take(p, (size_t)(npp * np));
    integrate(n, q.w, Qr, npp, Qr, npp, t->PRR);
    integrate(n, q.w, Qr, npp, Qs, npp, t->PRS);
    integrate(n, q.w, Qs, npp, Qr, npp, tmp);
    for (size_t i = 0; i < nn; i++) t->PRS[i] += tmp[i];
    integrate(n, q.w, Qs, npp, Qs, npp, t->PSS);
    integrate(n, q.w, Qr, npp, P, np, t->PKr);
    integrate(n, q.w, Qs, npp, P, np, t->PKs);
    free(Q);
    hdg_quad2d_free(&q);
    return HDG_OK;
}

static hdg_status build_tables(int k, hdg_error *err)
{
    tables *t = &tab[k];
    if (t->ready) return HDG_OK;
    int np = NPK(k), nk = k + 1, npp = NPK(k + 1), m = k + 3;
    size_t n = (size_t)(4 * m * m * np + 5 * np * np + 3 * (np * np + 3 * np * nk) + 9 * nk * nk +
                        3 * npp * npp + 2 * npp * np);
    double *p = t->block = hdg_xmalloc(sizeof(double) * n);
    hdg_status st = volume_part(t, k, &p, err);
    if (!st) st = face_part(t, k, &p, err);
    if (!st) st = post_part(t, k, &p, err);
    if (st) { free(t->block); memset(t, 0, sizeof *t); return st; }
    t->ready = 1;
    return HDG_OK;
}

/* ---------------------------------------------------------------- kernels */

typedef struct elem {
    double J, rx, ry, sx, sy, nx[3], ny[3], sJ[3];
} elem;

static inline elem load_elem(const double *g)
{
    elem e = {g[HDG_G_J], g[HDG_G_RX], g[HDG_G_RY], g[HDG_G_SX], g[HDG_G_SY], {0}, {0}, {0}};
    for (int f = 0; f < 3; f++)
        e.nx[f] = g[HDG_G_FACE0 + 3 * f], e.ny[f] = g[HDG_G_FACE0 + 3 * f + 1],
        e.sJ[f] = g[HDG_G_FACE0 + 3 * f + 2];
    return e;
}

/* Su = kappa J (a RR + b RS + c SS) + tau sum_f sJ_f Mf_f: its lower triangle, column-major */
static inline __attribute__((always_inline)) void schur_u(const int np, const tables *t, const elem *e,
                                                          double kap, double tau, double *restrict S)
{
    double ca = kap * e->J * (e->rx * e->rx + e->ry * e->ry);
    double cb = kap * e->J * (e->rx * e->sx + e->ry * e->sy);
    double cc = kap * e->J * (e->sx * e->sx + e->sy * e->sy);
    double t0 = tau * e->sJ[0], t1 = tau * e->sJ[1], t2 = tau * e->sJ[2];
    const double *restrict RR = t->RR, *restrict RS = t->RS, *restrict SS = t->SS;
    const double *restrict M0 = t->Mf[0], *restrict M1 = t->Mf[1], *restrict M2 = t->Mf[2];
    for (int j = 0; j < np; j++)   /* column j, rows i >= j (the tables are symmetric) */
        for (int i = j * np + j; i < (j + 1) * np; i++)
            S[i] = ca * RR[i] + cb * RS[i] + cc * SS[i] + t0 * M0[i] + t1 * M1[i] + t2 * M2[i];
}

/* sin(pi x) without a libm call, so that the source's point loop vectorizes:
 * r = x - 2 rint(x/2) in [-1, 1] (exact; rint by the 1.5 2^52 shift, |x| < 2^51),
 * folded into [-1/2, 1/2] by sin(pi r) = sin(pi (+-1 - r)) (exact), then the
 * Taylor series of sin(pi r) to degree 21 (next term < 2e-18) by Horner in r^2.
 * Agrees with sin(3.141592653589793 * x) to a few ulps of 1. */
static inline __attribute__((always_inline)) double sinpi(double x)
{
    static const double c[11] = {3.141592653589793, -5.16771278004997, 2.5501640398773455,
                                 -0.5992645293207921, 0.08214588661112823, -0.0073704309457143504,
                                 0.00046630280576761255, -2.1915353447830217e-05, 7.952054001475513e-07,
                                 -2.2948428997269873e-08, 5.392664662608129e-10};
    const double shift = 6755399441055744.0;
    double h = x * 0.5, n = (h + shift) - shift, r = x - 2 * n;
    r = r > 0.5 ? 1 - r : r;
    r = r < -0.5 ? -1 - r : r;
    double z = r * r, p = c[10];
    for (int i = 9; i >= 0; i--) p = p * z + c[i];
    return r * p;
}

/* F[i] = J sum_q w_q f(x_q) P_i(x_q), f = 2 pi^2 kappa sin(pi x) sin(pi y) */
static inline __attribute__((always_inline)) void source(const int np, const int nq, const tables *t,
                                                         const double *g, double J, double kap,
                                                         double *restrict F)
{
    const double pi = 3.141592653589793, c = J * 2 * pi * pi * kap;
    const double x0 = g[HDG_G_X0], x1 = g[HDG_G_X1], x2 = g[HDG_G_X2];
    const double y0 = g[HDG_G_Y0], y1 = g[HDG_G_Y1], y2 = g[HDG_G_Y2];
    const double *restrict l0 = t->lam[0], *restrict l1 = t->lam[1], *restrict l2 = t->lam[2];
    double fq[(KMAX + 3) * (KMAX + 3)];
    for (int q = 0; q < nq; q++)
        fq[q] = c * sinpi(l0[q] * x0 + l1[q] * x1 + l2[q] * x2) * sinpi(l0[q] * y0 + l1[q] * y1 + l2[q] * y2);
    for (int i = 0; i < np; i++) F[i] = 0;
    for (int q = 0; q < nq; q++) {
        const double *restrict w = t->wP + q * np;
        for (int i = 0; i < np; i++) F[i] += fq[q] * w[i];
    }
}

/* Writes NaN over n outputs (a singular local matrix: degenerate element). */
static void poison(double *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = NAN;
}

/* ------------------------------------------------ dense helpers
 * HW_POISSON_LAPACK 1: LAPACK dpotrf/dpotrs, BLAS dtrsm (OpenBLAS);
 * 0: the same operations as loops with the order's constant bounds. */

#define AI static inline __attribute__((always_inline))

/* S = L L^T in place (n x n column-major, lower triangle); nonzero: not positive definite */
AI int chol(const int n, double *restrict S)
{
#if HW_POISSON_LAPACK
    return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, S, n) != 0;
#else
    for (int j = 0; j < n; j++) {   /* left-looking: column j from the finished columns, four at a time */
        double *restrict cj = S + j * n;
        int m = 0;
        for (; m + 4 <= j; m += 4) {
            const double *restrict c0 = S + m * n, *restrict c1 = c0 + n;
            const double *restrict c2 = c1 + n, *restrict c3 = c2 + n;
            double l0 = c0[j], l1 = c1[j], l2 = c2[j], l3 = c3[j];
            for (int i = j; i < n; i++) cj[i] -= l0 * c0[i] + l1 * c1[i] + l2 * c2[i] + l3 * c3[i];
        }
        for (; m < j; m++) {
            const double *restrict cm = S + m * n;
            double l = cm[j];
            for (int i = j; i < n; i++) cj[i] -= l * cm[i];
        }
        if (!(cj[j] > 0)) return 1;
        double d = sqrt(cj[j]), inv = 1 / d;
        cj[j] = d;
        for (int i = j + 1; i < n; i++) cj[i] *= inv;
    }
    return 0;
#endif
}

/* b = (L L^T)^-1 b */
AI void chol_solve(const int n, const double *restrict L, double *restrict b)
{
#if HW_POISSON_LAPACK
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, L, n, b, n);
#else
    for (int m = 0; m < n; m++) {
        const double *restrict c = L + m * n;
        double x = b[m] / c[m];
        b[m] = x;
        for (int i = m + 1; i < n; i++) b[i] -= c[i] * x;
    }
    for (int m = n - 1; m >= 0; m--) {
        const double *restrict c = L + m * n;
        double x = b[m];
        for (int i = m + 1; i < n; i++) x -= c[i] * b[i];
        b[m] = x / c[m];
    }
#endif
}

/* Z = L^-1 Z, Z n x w row-major */
AI void trsm_rows(const int n, const int w, const double *restrict L, double *restrict Z)
{
#if HW_POISSON_LAPACK   /* row-major, L's storage is the upper triangle of L^T */
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, n, w, 1.0, L, n, Z, w);
#else
    for (int m = 0; m < n; m++) {
        const double *restrict c = L + m * n;
        double *restrict zm = Z + m * w, inv = 1 / c[m];
        for (int j = 0; j < w; j++) zm[j] *= inv;
        for (int i = m + 1; i < n; i++) {
            double *restrict zi = Z + i * w, l = c[i];
            for (int j = 0; j < w; j++) zi[j] -= l * zm[j];
        }
    }
#endif
}

/* (hi + lo) += Z^T Z on the upper triangle (w x w row-major), Z n x w row-major,
 * accumulated in double-double (TwoProduct by fma, TwoSum; Ogita-Rump-Oishi's
 * Dot2): Ke = H + Z^T Z cancels (max|H| ~ 4.5 max|Ke| at k = 8), and a plain
 * double sum leaves errors of eps |H| in Ke that the global solve amplifies.
 * Needs -ffp-contract=off (ISO C mode, -std=c11), so that no fma is formed
 * inside TwoSum. */
AI void syrk_dd(const int n, const int w, const double *restrict Z, double *restrict hi, double *restrict lo)
{
    for (int m = 0; m < n; m++) {
        const double *restrict zm = Z + m * w;
        for (int i = 0; i < w; i++) {
            double *restrict h = hi + i * w, *restrict l = lo + i * w, a = zm[i];
            for (int j = i; j < w; j++) {
                double p = a * zm[j], e = fma(a, zm[j], -p), s = h[j] + p, b = s - h[j];
                l[j] += ((h[j] - (s - b)) + (p - b)) + e;
                h[j] = s;
            }
        }
    }
}

/* Ke c = 0 and c^T Ke = 0 made exact, c the constant trace (mode 0 of each
 * face; the three entries equal): in exact arithmetic they hold, since a
 * constant trace gives u = const, q = 0.
 * In floating point the rows of H and Z^T Z times c cancel only to eps |H|;
 * that defect acts like a spurious reaction term in every element, coherent
 * over the mesh, and cost 1-2.5 digits of the global error (k = 6..8).
 * It is closed exactly, as the generated kernels do (ir/lower_hdg.c,
 * null_close): the mode-0 columns and rows go onto the grid ulp(8 max|Ke|)
 * ((x + 8m) - 8m), where sums of a few entries are exact, then the third
 * mode-0 column is minus the sum of the other two in every row, and the third
 * mode-0 row likewise in every column. Ke c and c^T Ke are then exactly 0 in
 * the stored doubles, also after assembly (a projection left a rounding defect
 * of one sign over the mesh: u* 9.1e-12 instead of 6.7e-14 on square:256,
 * k = 3). Ke stays exactly symmetric. */
AI void null_close(const int nk, double *restrict K)
{
    const int nt = 3 * nk;
    double m = 0;
    for (int i = 0; i < nt * nt; i++) m = fmax(m, fabs(K[i]));
    const double sh = 8 * m;
    for (int i = 0; i < nt; i++)
        for (int f = 0; f < 3; f++) {
            double *col = &K[i * nt + f * nk], *row = &K[f * nk * nt + i];
            *col = (*col + sh) - sh;
            *row = (*row + sh) - sh;
        }
    for (int i = 0; i < nt; i++) K[i * nt + 2 * nk] = -(K[i * nt] + K[i * nt + nk]);
    for (int j = 0; j < nt; j++) K[2 * nk * nt + j] = -(K[j] + K[nk * nt + j]);
}

/* ------------------------------------------------ kernels */

AI void local_body(const int k, long long begin, long long end, const hdg_kargs *a)
{
    const int np = NPK(k), nk = k + 1, nt = 3 * nk, ld = nt + 1, nq = (k + 3) * (k + 3);
    const tables *t = &tab[k];
    const double kap = a->params[0], tau = a->params[1];
    double S[NPMAX * NPMAX], Z[NPMAX * (NTMAX + 1)], F[NPMAX];
    double C[(NTMAX + 1) * (NTMAX + 1)], Cl[(NTMAX + 1) * (NTMAX + 1)];   /* C + Cl: double-double */
    for (long long el = begin; el < end; el++) {
        const double *g = a->geom + el * NGEOM;
        double *restrict Ke = a->out[0] + el * nt * nt, *restrict Fe = a->out[1] + el * nt;
        elem e = load_elem(g);
        schur_u(np, t, &e, kap, tau, S);
        /* Z = [G | F] (np x ld row-major), G_f = kappa sJ_f (al RE_f + be SE_f) + tau sJ_f E_f */
        source(np, nq, t, g, e.J, kap, F);
        for (int i = 0; i < np; i++) Z[i * ld + nt] = F[i];
        for (int f = 0; f < 3; f++) {
            double al = kap * e.sJ[f] * (e.nx[f] * e.rx + e.ny[f] * e.ry);
            double be = kap * e.sJ[f] * (e.nx[f] * e.sx + e.ny[f] * e.sy), ga = tau * e.sJ[f];
            const double *restrict RE = t->RE[f], *restrict SE = t->SE[f], *restrict E = t->E[f];
            for (int i = 0; i < np; i++)
                for (int b = 0; b < nk; b++)
                    Z[i * ld + f * nk + b] = al * RE[i * nk + b] + be * SE[i * nk + b] + ga * E[i * nk + b];
        }
        /* C + Cl = [H 0; 0 0] (ld x ld row-major, upper triangle; the products exact),
         * H_fh = -(kappa/J) sJ_f sJ_h n_f.n_h E_f^T E_h - delta_fh tau sJ_f I */
        for (int f = 0; f < 3; f++)
            for (int h = f; h < 3; h++) {
                double c = -kap / e.J * e.sJ[f] * e.sJ[h] * (e.nx[f] * e.nx[h] + e.ny[f] * e.ny[h]);
                const double *restrict EE = t->EE[f][h];
                for (int i = 0; i < nk; i++)
                    for (int b = 0; b < nk; b++) {
                        int x = (f * nk + i) * ld + h * nk + b;
                        C[x] = c * EE[i * nk + b], Cl[x] = fma(c, EE[i * nk + b], -C[x]);
                    }
            }
        for (int i = 0; i < nt; i++) {   /* C_ii -= tau sJ: TwoSum into (C, Cl) */
            double d = -tau * e.sJ[i / nk], x = C[i * ld + i], s = x + d, b = s - x;
            C[i * ld + i] = s, Cl[i * ld + i] += (x - (s - b)) + (d - b);
        }
        for (int i = 0; i < ld; i++) C[i * ld + nt] = Cl[i * ld + nt] = 0;
        if (chol(np, S)) {
            poison(Ke, nt * nt), poison(Fe, nt);
            continue;
        }
        trsm_rows(np, ld, S, Z);
        syrk_dd(np, ld, Z, C, Cl);
        for (int i = 0; i < nt; i++) {
            for (int j = i; j < nt; j++) Ke[i * nt + j] = Ke[j * nt + i] = C[i * ld + j] + Cl[i * ld + j];
            Fe[i] = -(C[i * ld + nt] + Cl[i * ld + nt]);
        }
        null_close(nk, Ke);
    }
}

AI void recover_body(const int k, long long begin, long long end, const hdg_kargs *a)
{
    const int np = NPK(k), nk = k + 1, nt = 3 * nk, nq = (k + 3) * (k + 3);
    const tables *t = &tab[k];
    const double kap = a->params[0], tau = a->params[1];
    double S[NPMAX * NPMAX], bx[NPMAX], by[NPMAX], bt[NPMAX], vr[NPMAX], vs[NPMAX];
    for (long long el = begin; el < end; el++) {
        const double *g = a->geom + el * NGEOM, *restrict uh = a->in[0] + el * nt;
        double *restrict x = a->out[0] + el * 3 * np, *restrict u = x + 2 * np;
        elem e = load_elem(g);
        /* bx = Bx uhat, by = By uhat, bt = Bt uhat: sum_f sJ_f (nx_f, ny_f, 1) E_f uhat_f */
        for (int i = 0; i < np; i++) bx[i] = by[i] = bt[i] = 0;
        for (int f = 0; f < 3; f++) {
            const double *restrict E = t->E[f], *restrict uf = uh + f * nk;
            double cx = e.sJ[f] * e.nx[f], cy = e.sJ[f] * e.ny[f], c = e.sJ[f];
            for (int i = 0; i < np; i++) {
                double v = 0;
                for (int b = 0; b < nk; b++) v += E[i * nk + b] * uf[b];
                bx[i] += cx * v, by[i] += cy * v, bt[i] += c * v;
            }
        }
        /* u: Su u = F + G uhat, G uhat = kappa (Tr^T (rx bx + ry by) + Ts^T (sx bx + sy by)) + tau bt */
        source(np, nq, t, g, e.J, kap, u);
        for (int i = 0; i < np; i++)
            vr[i] = kap * (e.rx * bx[i] + e.ry * by[i]), vs[i] = kap * (e.sx * bx[i] + e.sy * by[i]),
            u[i] += tau * bt[i];
        for (int m = 0; m < np; m++) {
            const double *restrict tr = t->Tr + m * np, *restrict ts = t->Ts + m * np;
            for (int i = 0; i < np; i++) u[i] += tr[i] * vr[m] + ts[i] * vs[m];
        }
        schur_u(np, t, &e, kap, tau, S);
        if (chol(np, S)) {
            poison(x, 3 * np);
            continue;
        }
        chol_solve(np, S, u);
        /* q.x = kappa (rx Tr u + sx Ts u) - (kappa/J) bx, q.y likewise */
        double cj = kap / e.J;
        for (int i = 0; i < np; i++) {
            const double *restrict tr = t->Tr + i * np, *restrict ts = t->Ts + i * np;
            double du = 0, dv = 0;
            for (int j = 0; j < np; j++) du += tr[j] * u[j], dv += ts[j] * u[j];
            x[i] = kap * (e.rx * du + e.sx * dv) - cj * bx[i];
            x[np + i] = kap * (e.ry * du + e.sy * dv) - cj * by[i];
        }
    }
}

AI void post_body(const int k, long long begin, long long end, const hdg_kargs *a)
{
    const int np = NPK(k), npp = NPK(k + 1), n = npp - 1;
    const tables *t = &tab[k];
    const double kap = a->params[0];
    double A[NPPMAX * NPPMAX], wr[NPMAX], ws[NPMAX];
    for (long long el = begin; el < end; el++) {
        const double *g = a->geom + el * NGEOM, *restrict x = a->in[0] + el * 3 * np;
        double *restrict up = a->out[0] + el * npp, *restrict r = up + 1;
        elem e = load_elem(g);
        /* A = J (a PRR + b PRS + c PSS) on modes 1..npp-1 (mode 0's row and column are zero) */
        double ca = e.J * (e.rx * e.rx + e.ry * e.ry), cb = e.J * (e.rx * e.sx + e.ry * e.sy);
        double cc = e.J * (e.sx * e.sx + e.sy * e.sy);
        for (int j = 1; j < npp; j++) {
            const double *restrict rr = t->PRR + j * npp, *restrict rs = t->PRS + j * npp,
                                   *restrict ss = t->PSS + j * npp;
            double *restrict aj = A + (j - 1) * n - 1;
            for (int i = j; i < npp; i++) aj[i] = ca * rr[i] + cb * rs[i] + cc * ss[i];
        }
        /* r = -(J/kappa) (PKr (rx qx + ry qy) + PKs (sx qx + sy qy)) */
        double cq = -e.J / kap;
        for (int j = 0; j < np; j++)
            wr[j] = cq * (e.rx * x[j] + e.ry * x[np + j]), ws[j] = cq * (e.sx * x[j] + e.sy * x[np + j]);
        for (int i = 1; i < npp; i++) {
            const double *restrict kr = t->PKr + i * np, *restrict ks = t->PKs + i * np;
            double s = 0;
            for (int j = 0; j < np; j++) s += kr[j] * wr[j] + ks[j] * ws[j];
            r[i - 1] = s;
        }
        up[0] = x[2 * np];   /* the mean constraint: u*_0 = u_0 */
        if (chol(n, A)) {
            poison(up, npp);
            continue;
        }
        chol_solve(n, A, r);
    }
}

/* ---------------------------------------------------------------- instances */

/* The host's vector ISA for the kernels' bodies, as the generated code gets
 * it (the JIT compiles for the host CPU); the library itself is built for the
 * baseline x86-64. ifunc clones: AVX-512, AVX2+FMA, baseline. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define HW_ISA __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef HW_ISA
#define HW_ISA
#endif

#define HW_ORDERS(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8)
#define HW_WRAP(K)                                                                     \
    HW_ISA static void poisson_local_k##K(long long b, long long e, const hdg_kargs *a)   \
    {                                                                                  \
        local_body(K, b, e, a);                                                        \
    }                                                                                  \
    HW_ISA static void poisson_recover_k##K(long long b, long long e, const hdg_kargs *a) \
    {                                                                                  \
        recover_body(K, b, e, a);                                                      \
    }                                                                                  \
    HW_ISA static void poisson_post_k##K(long long b, long long e, const hdg_kargs *a)    \
    {                                                                                  \
        post_body(K, b, e, a);                                                         \
    }
HW_ORDERS(HW_WRAP)

#define HW_ROW(K) {poisson_local_k##K, poisson_recover_k##K, poisson_post_k##K},
static const hdg_kernel_fn fns[KMAX][3] = {HW_ORDERS(HW_ROW)};

int hdg_hw_poisson_c(int k, hdg_hw_kernel *out, hdg_error *err)
{
    static const char *const names[3] = {"poisson_local", "poisson_recover", "poisson_post"};
    if (k < 1 || k > KMAX)
        return hdg_fail(err, HDG_EINPUT, "hand-written poisson kernels: order %d outside 1..%d", k, KMAX), -1;
    if (build_tables(k, err)) return -1;
#if HW_POISSON_LAPACK
    openblas_set_num_threads(1);
#endif
    for (int i = 0; i < 3; i++) out[i] = (hdg_hw_kernel){names[i], fns[k - 1][i]};
    return 3;
}
