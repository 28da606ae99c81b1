/* poisson3d.c — hand-written C kernels for examples/poisson3d.hdg: -div(kappa grad u) = f by
 * LDG-H (HDG) on affine tetrahedra, u = exp(x) cos(2y) + x^2 y z, so
 * f = kappa (3 exp(x) cos(2y) - 2 y z).
 *
 * They stand for the generated kernels of the same names, with their ABI, slots and layout
 * (ir/lower.h): element dofs [q.x | q.y | q.z | u], np PKD modes each (the orthonormal basis
 * of hdg_simplex_eval); trace dofs per local face nk Dubiner modes in the face coordinates of
 * the element's own local face (hdg_face_basis_eval, the face's vertices as
 * hdg_simplex_face_vertices lists them); geom as hdg_g_* of dimension 3 (38 values: no marker
 * sets); params[0] = kappa, params[1] = tau.
 *
 *   poisson3d_local    out[0] Ke (nt x nt), out[1] Fe (nt):  Ke = D - C A^-1 B, Fe = -C A^-1 F
 *   poisson3d_recover  in[0] uhat (nt)  -> out[0] x (4 np):  x = A^-1 (F - B uhat)
 *
 * How (the 2D set's algorithm, backends/handwritten/poisson.c, with a third direction): with
 * an orthonormal basis the q blocks of A are (J/kappa) I, so q is eliminated,
 *     q_d = kappa S_d u - (kappa/J) B_d uhat,   S_d = sum_k dr_k/dx_d T_k,
 * T_k[i][j] = int dP_i/dr_k P_j on the reference tetrahedron, B_d the faces' sJ n_d E_f
 * (E_f[i][a] = int_f P_i L_a), leaving the SPD np x np system on u
 *     Su = kappa J sum_d S_d^T S_d + tau sum_f sJ_f M_f
 * (with -J S_d + sum_f sJ_f n_fd M_f = J S_d^T, integration by parts, which the generated
 * kernel's A holds to rounding), factored by Cholesky. With
 *     G = kappa sum_d S_d^T B_d + tau [sJ_f E_f]_f   (np x nt),
 *     H = (kappa/J) [sJ_f sJ_g (n_f . n_g) E_f^T E_g] + tau diag(sJ_f I):
 *     Ke = G^T Su^-1 G - H,  Fe = -G^T Su^-1 F,   u = Su^-1 (F + G uhat).
 * Su, G and H are combinations of reference matrices (T_k^T T_l, face masses, T_k^T E_f,
 * E_f^T E_g) made once per order, with coefficients from the element's dr_k/dx_d, J, normals
 * and sJ: no quadrature per element but the source's. The generated local kernel factors the
 * whole A (4 np) instead.
 *
 * Rules as in ir/lower_hdg.c, so the load vector agrees to rounding: volume hdg_quad_simplex of
 * degree 2k+4 (the reference tables and the source), faces the triangle rule of degree 2k+5.
 * Orders 1..6; workspace allocated once per call (a range of elements), not per element.
 * Tables: hdg_hw_poisson3d_c(k) builds them on first use (not thread-safe: called before
 * launches). No CUDA version: --backend cuda with --kernels handwritten is refused for
 * poisson3d by name (overlay_cuda.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/sets.h"
#include "ir/lower.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

#define KMAX 6
#define DIM 3
#define NFE 4

/* Reference tables of one order; row-major. */
typedef struct tables {
    int ready, np, nk, nq;
    double *lam;            /* nq x 4 barycentric coordinates of the volume points */
    double *wP;             /* nq x np: w_q P_i(q) (the source) */
    double *T[DIM];         /* np x np: T_k[i][j] = int dP_i/dr_k P_j */
    double *TT[DIM][DIM];   /* np x np: T_k^T T_l */
    double *M[NFE];         /* np x np: int_f P_i P_j */
    double *E[NFE];         /* np x nk: int_f P_i L_a */
    double *TE[DIM][NFE];   /* np x nk: T_k^T E_f */
    double *EE[NFE][NFE];   /* nk x nk: E_f^T E_g */
} tables;

static tables tab[KMAX + 1];

static const double VREF[4][3] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};

/* C (nx x ny) = X^T Y with X (n x nx), Y (n x ny) */
static double *atb(int n, const double *X, int nx, const double *Y, int ny)
{
    double *C = hdg_xmalloc(sizeof(double) * (size_t)nx * ny);
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            double s = 0;
            for (int m = 0; m < n; m++) s += X[(size_t)m * nx + i] * Y[(size_t)m * ny + j];
            C[(size_t)i * ny + j] = s;
        }
    return C;
}

/* C (nx x ny) = sum_q w_q X[q][i] Y[q][j] */
static double *integrate(int nq, const double *w, const double *X, int nx, const double *Y, int ny)
{
    double *C = hdg_xcalloc((size_t)nx * ny, sizeof(double));
    for (int q = 0; q < nq; q++)
        for (int i = 0; i < nx; i++) {
            double xi = w[q] * X[(size_t)q * nx + i];
            for (int j = 0; j < ny; j++) C[(size_t)i * ny + j] += xi * Y[(size_t)q * ny + j];
        }
    return C;
}

static hdg_status volume_tables(tables *t, int k, hdg_error *err)
{
    int np = t->np;
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, DIM, 2 * k + 4, err);
    if (st) return st;
    int n = t->nq = q.n;
    double *P = hdg_xmalloc(sizeof(double) * (size_t)n * np), *dP[DIM];
    for (int d = 0; d < DIM; d++) dP[d] = hdg_xmalloc(sizeof(double) * (size_t)n * np);
    hdg_simplex_eval(DIM, k, n, (const double *const *)q.x, P, dP);
    t->lam = hdg_xmalloc(sizeof(double) * 4 * (size_t)n);
    t->wP = hdg_xmalloc(sizeof(double) * (size_t)n * np);
    for (int i = 0; i < n; i++) {
        double *l = t->lam + 4 * i;
        l[0] = -(1 + q.x[0][i] + q.x[1][i] + q.x[2][i]) / 2;
        for (int d = 0; d < DIM; d++) l[d + 1] = (1 + q.x[d][i]) / 2;
        for (int m = 0; m < np; m++) t->wP[(size_t)i * np + m] = q.w[i] * P[(size_t)i * np + m];
    }
    for (int d = 0; d < DIM; d++) t->T[d] = integrate(n, q.w, dP[d], np, P, np);
    for (int a = 0; a < DIM; a++)
        for (int b = 0; b < DIM; b++) t->TT[a][b] = atb(np, t->T[a], np, t->T[b], np);
    free(P);
    for (int d = 0; d < DIM; d++) free(dP[d]);
    hdg_quad_free(&q);
    return HDG_OK;
}

static hdg_status face_tables(tables *t, int k, hdg_error *err)
{
    int np = t->np, nk = t->nk;
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, 2, 2 * k + 5, err);
    if (st) return st;
    int n = q.n;
    double *L = hdg_xmalloc(sizeof(double) * (size_t)n * nk), *P = hdg_xmalloc(sizeof(double) * (size_t)n * np);
    double *x[DIM];
    for (int d = 0; d < DIM; d++) x[d] = hdg_xmalloc(sizeof(double) * (size_t)n);
    hdg_face_basis_eval(DIM, k, n, (const double *const *)q.x, L);
    for (int f = 0; f < NFE; f++) {
        const int *w = hdg_simplex_face_vertices(DIM, f);
        for (int i = 0; i < n; i++) {   /* the face point (a, b) in the element: as ir/lower_hdg.c */
            double phi[3] = {-(q.x[0][i] + q.x[1][i]) / 2, (1 + q.x[0][i]) / 2, (1 + q.x[1][i]) / 2};
            for (int d = 0; d < DIM; d++) x[d][i] = phi[0] * VREF[w[0]][d] + phi[1] * VREF[w[1]][d] + phi[2] * VREF[w[2]][d];
        }
        hdg_simplex_eval(DIM, k, n, (const double *const *)x, P, NULL);
        t->M[f] = integrate(n, q.w, P, np, P, np);
        t->E[f] = integrate(n, q.w, P, np, L, nk);
    }
    for (int d = 0; d < DIM; d++)
        for (int f = 0; f < NFE; f++) t->TE[d][f] = atb(np, t->T[d], np, t->E[f], nk);
    for (int f = 0; f < NFE; f++)
        for (int g = 0; g < NFE; g++) t->EE[f][g] = atb(np, t->E[f], nk, t->E[g], nk);
    free(L), free(P);
    for (int d = 0; d < DIM; d++) free(x[d]);
    hdg_quad_free(&q);
    return HDG_OK;
}

static hdg_status build_tables(int k, hdg_error *err)
{
    tables *t = &tab[k];
    if (t->ready) return HDG_OK;
    t->np = hdg_simplex_count(DIM, k), t->nk = hdg_simplex_count(DIM - 1, k);
    hdg_status st = volume_tables(t, k, err);
    if (!st) st = face_tables(t, k, err);
    if (!st) t->ready = 1;
    return st;
}

/* ---------------------------------------------------------------- per element */

/* One element's geometry (ir/lower.h hdg_g_*, d = 3). */
typedef struct elem {
    const double *v;          /* 4 vertices, x y z each */
    double J, Gi[DIM][DIM];   /* Gi[k][x] = dr_k/dx */
    double n[NFE][DIM], sJ[NFE];
} elem;

static elem load_elem(const double *g)
{
    elem e;
    e.v = g;
    e.J = g[hdg_g_J(DIM)];
    for (int k = 0; k < DIM; k++)
        for (int x = 0; x < DIM; x++) e.Gi[k][x] = g[hdg_g_ginv(DIM, k, x)];
    for (int f = 0; f < NFE; f++) {
        for (int d = 0; d < DIM; d++) e.n[f][d] = g[hdg_g_face(DIM, f) + d];
        e.sJ[f] = g[hdg_g_face(DIM, f) + DIM];
    }
    return e;
}

/* The workspace of one call. */
typedef struct work {
    double *Su;   /* np x np, then its Cholesky factor */
    double *G;    /* np x nt; in the local kernel then Z^T (nt+1 x np) */
    double *F;    /* np */
    double *Z;    /* np x nt (local) or np (recover) */
} work;

static void work_init(work *w, const tables *t)
{
    int np = t->np, nt = NFE * t->nk;
    w->Su = hdg_xmalloc(sizeof(double) * (size_t)np * np);
    w->G = hdg_xmalloc(sizeof(double) * (size_t)np * (nt + 1));
    w->F = hdg_xmalloc(sizeof(double) * (size_t)np);
    w->Z = hdg_xmalloc(sizeof(double) * (size_t)np * (nt + 1));
}

static void work_free(work *w) { free(w->Su), free(w->G), free(w->F), free(w->Z); }

/* Su, G and F of element e (the source at the volume points). */
static void assemble(const tables *t, const elem *e, double kap, double tau, work *w)
{
    int np = t->np, nk = t->nk, nt = NFE * nk;
    double g[DIM][DIM], cf[NFE][DIM];   /* g_kl = sum_d Gi[k][d] Gi[l][d]; cf[f][k] = sum_d Gi[k][d] n_fd */
    for (int a = 0; a < DIM; a++)
        for (int b = 0; b < DIM; b++) {
            double s = 0;
            for (int d = 0; d < DIM; d++) s += e->Gi[a][d] * e->Gi[b][d];
            g[a][b] = kap * e->J * s;
        }
    for (int f = 0; f < NFE; f++)
        for (int a = 0; a < DIM; a++) {
            double s = 0;
            for (int d = 0; d < DIM; d++) s += e->Gi[a][d] * e->n[f][d];
            cf[f][a] = kap * e->sJ[f] * s;
        }
    for (size_t i = 0; i < (size_t)np * np; i++) {
        double s = 0;
        for (int a = 0; a < DIM; a++)
            for (int b = 0; b < DIM; b++) s += g[a][b] * t->TT[a][b][i];
        for (int f = 0; f < NFE; f++) s += tau * e->sJ[f] * t->M[f][i];
        w->Su[i] = s;
    }
    for (int i = 0; i < np; i++)
        for (int f = 0; f < NFE; f++)
            for (int a = 0; a < nk; a++) {
                size_t ia = (size_t)i * nk + a;
                double s = tau * e->sJ[f] * t->E[f][ia];
                for (int b = 0; b < DIM; b++) s += cf[f][b] * t->TE[b][f][ia];
                w->G[(size_t)i * nt + f * nk + a] = s;
            }
    memset(w->F, 0, sizeof(double) * (size_t)np);
    for (int q = 0; q < t->nq; q++) {
        const double *l = t->lam + 4 * q;
        double x[DIM] = {0, 0, 0};
        for (int v = 0; v < 4; v++)
            for (int d = 0; d < DIM; d++) x[d] += l[v] * e->v[DIM * v + d];
        double fq = e->J * kap * (3 * exp(x[0]) * cos(2 * x[1]) - 2 * x[1] * x[2]);
        for (int i = 0; i < np; i++) w->F[i] += fq * t->wP[(size_t)q * np + i];
    }
}

/* In-place Cholesky of the SPD n x n A (lower triangle: L, L L^T = A); nonzero when A is not
 * positive definite. */
static int chol(int n, double *A)
{
    for (int j = 0; j < n; j++) {
        double d = A[(size_t)j * n + j];
        for (int m = 0; m < j; m++) d -= A[(size_t)j * n + m] * A[(size_t)j * n + m];
        if (!(d > 0)) return 1;
        d = sqrt(d);
        A[(size_t)j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = A[(size_t)i * n + j];
            for (int m = 0; m < j; m++) s -= A[(size_t)i * n + m] * A[(size_t)j * n + m];
            A[(size_t)i * n + j] = s / d;
        }
    }
    return 0;
}

/* B (n x nr) = L^-1 B */
static void lower_solve(int n, const double *L, int nr, double *B)
{
    for (int i = 0; i < n; i++) {
        double *bi = B + (size_t)i * nr;
        for (int m = 0; m < i; m++) {
            double l = L[(size_t)i * n + m];
            const double *bm = B + (size_t)m * nr;
            for (int c = 0; c < nr; c++) bi[c] -= l * bm[c];
        }
        double d = 1 / L[(size_t)i * n + i];
        for (int c = 0; c < nr; c++) bi[c] *= d;
    }
}

/* b (n) = L^-T b */
static void upper_solve(int n, const double *L, double *b)
{
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int m = i + 1; m < n; m++) s -= L[(size_t)m * n + i] * b[m];
        b[i] = s / L[(size_t)i * n + i];
    }
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = NAN;
}

static void local_kernel(int k, long long begin, long long end, const hdg_kargs *a)
{
    const tables *t = &tab[k];
    int np = t->np, nk = t->nk, nt = NFE * nk, ng = hdg_g_fixed(DIM), nz = nt + 1;
    double kap = a->params[0], tau = a->params[1];
    work w;
    work_init(&w, t);
    for (long long el = begin; el < end; el++) {
        double *Ke = a->out[0] + el * nt * nt, *Fe = a->out[1] + el * nt;
        elem e = load_elem(a->geom + el * ng);
        assemble(t, &e, kap, tau, &w);
        if (chol(np, w.Su)) {
            poison(Ke, (size_t)nt * nt), poison(Fe, (size_t)nt);
            continue;
        }
        for (int i = 0; i < np; i++) {   /* Z = L^-1 [G | F] */
            memcpy(w.Z + (size_t)i * nz, w.G + (size_t)i * nt, sizeof(double) * (size_t)nt);
            w.Z[(size_t)i * nz + nt] = w.F[i];
        }
        lower_solve(np, w.Su, nz, w.Z);
        for (int i = 0; i < np; i++)   /* Zt = Z^T (nz x np): the products below run along rows */
            for (int c = 0; c < nz; c++) w.G[(size_t)c * np + i] = w.Z[(size_t)i * nz + c];
        const double *Zt = w.G, *zf = Zt + (size_t)nt * np;
        for (int r = 0; r < nt; r++) {   /* Ke = Z_G^T Z_G - H (symmetric: one half), Fe = -Z_G^T Z_F */
            int f = r / nk, ra = r % nk;
            const double *zr = Zt + (size_t)r * np;
            double s = 0;
            for (int i = 0; i < np; i++) s += zr[i] * zf[i];
            Fe[r] = -s;
            for (int c = r; c < nt; c++) {
                const double *zc = Zt + (size_t)c * np;
                s = 0;
                for (int i = 0; i < np; i++) s += zr[i] * zc[i];
                int g = c / nk, ca = c % nk;
                double nn = 0;
                for (int d = 0; d < DIM; d++) nn += e.n[f][d] * e.n[g][d];
                s -= kap / e.J * e.sJ[f] * e.sJ[g] * nn * t->EE[f][g][(size_t)ra * nk + ca];
                if (r == c) s -= tau * e.sJ[f];
                Ke[(size_t)r * nt + c] = Ke[(size_t)c * nt + r] = s;
            }
        }
    }
    work_free(&w);
}

static void recover_kernel(int k, long long begin, long long end, const hdg_kargs *a)
{
    const tables *t = &tab[k];
    int np = t->np, nk = t->nk, nt = NFE * nk, ng = hdg_g_fixed(DIM);
    double kap = a->params[0], tau = a->params[1];
    work w;
    work_init(&w, t);
    double *tu = hdg_xmalloc(sizeof(double) * DIM * (size_t)np);
    for (long long el = begin; el < end; el++) {
        const double *uh = a->in[0] + el * nt;
        double *x = a->out[0] + el * (DIM + 1) * np, *u = x + DIM * np;
        elem e = load_elem(a->geom + el * ng);
        assemble(t, &e, kap, tau, &w);
        if (chol(np, w.Su)) {
            poison(x, (size_t)(DIM + 1) * np);
            continue;
        }
        for (int i = 0; i < np; i++) {   /* u = Su^-1 (F + G uhat) */
            double s = w.F[i];
            for (int c = 0; c < nt; c++) s += w.G[(size_t)i * nt + c] * uh[c];
            u[i] = s;
        }
        lower_solve(np, w.Su, 1, u);
        upper_solve(np, w.Su, u);
        for (int b = 0; b < DIM; b++)   /* T_b u */
            for (int i = 0; i < np; i++) {
                double s = 0;
                for (int j = 0; j < np; j++) s += t->T[b][(size_t)i * np + j] * u[j];
                tu[b * np + i] = s;
            }
        for (int d = 0; d < DIM; d++)   /* q_d = kappa S_d u - (kappa/J) B_d uhat */
            for (int i = 0; i < np; i++) {
                double s = 0, bu = 0;
                for (int b = 0; b < DIM; b++) s += e.Gi[b][d] * tu[b * np + i];
                for (int f = 0; f < NFE; f++) {
                    double v = 0;
                    for (int c = 0; c < nk; c++) v += t->E[f][(size_t)i * nk + c] * uh[f * nk + c];
                    bu += e.sJ[f] * e.n[f][d] * v;
                }
                x[d * np + i] = kap * s - kap / e.J * bu;
            }
    }
    free(tu);
    work_free(&w);
}

/* ---------------------------------------------------------------- instances */

#define HW_ORDERS(X) X(1) X(2) X(3) X(4) X(5) X(6)
#define HW_WRAP(K)                                                                         \
    static void poisson3d_local_k##K(long long b, long long e, const hdg_kargs *a) { local_kernel(K, b, e, a); } \
    static void poisson3d_recover_k##K(long long b, long long e, const hdg_kargs *a) { recover_kernel(K, b, e, a); }
HW_ORDERS(HW_WRAP)

#define HW_ROW(K) {poisson3d_local_k##K, poisson3d_recover_k##K},
static const hdg_kernel_fn fns[KMAX][2] = {HW_ORDERS(HW_ROW)};

int hdg_hw_poisson3d_c(int k, hdg_hw_kernel *out, hdg_error *err)
{
    static const char *const names[2] = {"poisson3d_local", "poisson3d_recover"};
    if (k < 1 || k > KMAX)
        return hdg_fail(err, HDG_EINPUT, "hand-written poisson3d kernels: order %d outside 1..%d", k, KMAX), -1;
    if (build_tables(k, err)) return -1;
    for (int i = 0; i < 2; i++) out[i] = (hdg_hw_kernel){names[i], fns[k - 1][i]};
    return 2;
}
