/* test_hdg_local.c — the generated HDG element kernels against an independent,
 * straightforward implementation written here (issue 4):
 *   - K_e and F_e of the local kernel vs D - C A^-1 B and Ft - C A^-1 Fl built
 *     by plain loops over quadrature points from the LDG-H forms written out
 *     by hand (not from the compiler's atoms);
 *   - the recovery kernel's x = A^-1 (Fl - B uhat) for a random uhat (this
 *     checks A, B and Fl themselves);
 *   - patch tests: for Poisson a constant trace gives no flux (K_e 1 = 0), with
 *     reaction it does not; K_e symmetric for the symmetric problems.
 * The forms: with kappa, c, beta, tau(n) = tau0 + |beta.n|,
 *   (q/kappa, r) - (u, div r) + <uhat, r.n>                         (rows of q)
 *   -(q + beta u, grad w) + <q.n + beta.n uhat + tau (u - uhat), w>
 *     + (c u, w) - (f, w)                                            (rows of u)
 *   <q.n + beta.n uhat + tau (u - uhat), mu>                        (trace rows)
 * Coefficients and f are evaluated with the frontend's host evaluator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/pipeline.h"
#include "ir/lower.h"
#include "runtime/solve/dense.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "test.h"

typedef struct problem_forms {
    const char *file;
    const char *kappa;     /* func name or param name */
    const char *c;         /* param name or NULL */
    const char *bx, *by;   /* params or NULL */
    const char *tau;       /* param */
    const char *f;         /* func */
} problem_forms;

static const hdg_problem *P;

static double value_of(const char *name, double x, double y)
{
    if (!name) return 0;
    hdg_eval_env env = {.x = x, .y = y, .problem = P};
    int i = hdg_problem_func(P, name);
    if (i >= 0) return hdg_expr_eval(P->funcs[i].body[0], &env);
    i = hdg_problem_param(P, name);
    return i >= 0 ? P->params[i].value : NAN;
}

static const double VR[3] = {-1, 1, -1}, VS[3] = {-1, -1, 1};

/* geometry of the test triangle */
typedef struct tri {
    double x[3], y[3], J, rx, ry, sx, sy, nx[3], ny[3], sJ[3];
} tri;

static void tri_init(tri *t, const double *xy)
{
    for (int v = 0; v < 3; v++) t->x[v] = xy[2 * v], t->y[v] = xy[2 * v + 1];
    double xr = (t->x[1] - t->x[0]) / 2, xs = (t->x[2] - t->x[0]) / 2;
    double yr = (t->y[1] - t->y[0]) / 2, ys = (t->y[2] - t->y[0]) / 2;
    t->J = xr * ys - xs * yr;
    t->rx = ys / t->J, t->ry = -xs / t->J, t->sx = -yr / t->J, t->sy = xr / t->J;
    for (int j = 0; j < 3; j++) {
        int a = j, b = (j + 1) % 3;
        double dx = t->x[b] - t->x[a], dy = t->y[b] - t->y[a], L = sqrt(dx * dx + dy * dy);
        t->nx[j] = dy / L, t->ny[j] = -dx / L, t->sJ[j] = L / 2;
    }
}

static void map(const tri *t, double r, double s, double *x, double *y)
{
    double l0 = -(r + s) / 2, l1 = (1 + r) / 2, l2 = (1 + s) / 2;
    *x = l0 * t->x[0] + l1 * t->x[1] + l2 * t->x[2];
    *y = l0 * t->y[0] + l1 * t->y[1] + l2 * t->y[2];
}

/* Reference blocks: A (nl x nl), B (nl x nt), C (nt x nl), D (nt x nt), Fl, Ft. */
typedef struct ref {
    int k, np, nl, nt, m;
    double *A, *B, *C, *D, *Fl, *Ft;
} ref;

static void ref_build(ref *R, const problem_forms *pf, const tri *t, int k)
{
    int np = (k + 1) * (k + 2) / 2, m = k + 1, nl = 3 * np, nt = 3 * m;
    R->k = k, R->np = np, R->nl = nl, R->nt = nt, R->m = m;
    R->A = calloc((size_t)nl * nl, sizeof(double));
    R->B = calloc((size_t)nl * nt, sizeof(double));
    R->C = calloc((size_t)nt * nl, sizeof(double));
    R->D = calloc((size_t)nt * nt, sizeof(double));
    R->Fl = calloc((size_t)nl, sizeof(double));
    R->Ft = calloc((size_t)nt, sizeof(double));
    double tau0 = value_of(pf->tau, 0, 0), bx = value_of(pf->bx, 0, 0), by = value_of(pf->by, 0, 0);
    hdg_error err;
    /* volume terms */
    hdg_quad2d q;
    hdg_quad_triangle(&q, 2 * k + 4, &err);
    double *P0 = malloc(sizeof(double) * (size_t)q.n * np), *Pr = malloc(sizeof(double) * (size_t)q.n * np),
           *Ps = malloc(sizeof(double) * (size_t)q.n * np);
    hdg_dubiner_eval(k, q.n, q.r, q.s, P0, Pr, Ps);
    int QX = 0, QY = np, U = 2 * np;
    for (int p = 0; p < q.n; p++) {
        double x, y;
        map(t, q.r[p], q.s[p], &x, &y);
        double wJ = q.w[p] * t->J, kap = value_of(pf->kappa, x, y), cc = value_of(pf->c, x, y);
        double f = value_of(pf->f, x, y);
        for (int i = 0; i < np; i++) {
            double phi = P0[p * np + i];
            double dx = t->rx * Pr[p * np + i] + t->sx * Ps[p * np + i];
            double dy = t->ry * Pr[p * np + i] + t->sy * Ps[p * np + i];
            for (int j = 0; j < np; j++) {
                double psi = P0[p * np + j];
                R->A[(QX + i) * nl + QX + j] += wJ * phi * psi / kap;
                R->A[(QY + i) * nl + QY + j] += wJ * phi * psi / kap;
                R->A[(QX + i) * nl + U + j] -= wJ * psi * dx;       /* -(u, div r) */
                R->A[(QY + i) * nl + U + j] -= wJ * psi * dy;
                R->A[(U + i) * nl + QX + j] -= wJ * psi * dx;       /* -(q, grad w) */
                R->A[(U + i) * nl + QY + j] -= wJ * psi * dy;
                R->A[(U + i) * nl + U + j] -= wJ * psi * (bx * dx + by * dy);   /* -(beta u, grad w) */
                R->A[(U + i) * nl + U + j] += wJ * cc * phi * psi;
            }
            R->Fl[U + i] += wJ * f * phi;
        }
    }
    hdg_quad2d_free(&q);
    free(P0), free(Pr), free(Ps);
    /* face terms */
    int n = k + 3;
    double *tq = malloc(sizeof(double) * n), *wq = malloc(sizeof(double) * n);
    hdg_gauss_legendre(n, tq, wq, &err);
    double *L = malloc(sizeof(double) * (size_t)n * m), *Pf = malloc(sizeof(double) * (size_t)n * np);
    hdg_legendre_eval(k, n, tq, L, NULL);
    for (int j = 0; j < 3; j++) {
        double r[32], s[32];
        for (int p = 0; p < n; p++) {
            int a = j, b = (j + 1) % 3;
            r[p] = (1 - tq[p]) / 2 * VR[a] + (1 + tq[p]) / 2 * VR[b];
            s[p] = (1 - tq[p]) / 2 * VS[a] + (1 + tq[p]) / 2 * VS[b];
        }
        hdg_dubiner_eval(k, n, r, s, Pf, NULL, NULL);
        double nx = t->nx[j], ny = t->ny[j], bn = bx * nx + by * ny, tau = tau0 + fabs(bn);
        for (int p = 0; p < n; p++) {
            double ws = wq[p] * t->sJ[j];
            for (int i = 0; i < np; i++) {
                double phi = Pf[p * np + i];
                for (int jj = 0; jj < np; jj++) {
                    double psi = Pf[p * np + jj];
                    R->A[(U + i) * nl + QX + jj] += ws * nx * phi * psi;
                    R->A[(U + i) * nl + QY + jj] += ws * ny * phi * psi;
                    R->A[(U + i) * nl + U + jj] += ws * tau * phi * psi;
                }
                for (int a = 0; a < m; a++) {
                    double mu = L[p * m + a];
                    int col = j * m + a;
                    R->B[(QX + i) * nt + col] += ws * nx * phi * mu;
                    R->B[(QY + i) * nt + col] += ws * ny * phi * mu;
                    R->B[(U + i) * nt + col] += ws * (bn - tau) * phi * mu;
                    R->C[col * nl + QX + i] += ws * nx * mu * phi;
                    R->C[col * nl + QY + i] += ws * ny * mu * phi;
                    R->C[col * nl + U + i] += ws * tau * mu * phi;
                }
            }
            for (int a = 0; a < m; a++)
                for (int b = 0; b < m; b++)
                    R->D[(j * m + a) * nt + j * m + b] += ws * (bn - tau) * L[p * m + a] * L[p * m + b];
        }
    }
    free(tq), free(wq), free(L), free(Pf);
}

static void ref_free(ref *R) { free(R->A), free(R->B), free(R->C), free(R->D), free(R->Fl), free(R->Ft); }

static double maxabs(const double *a, long n)
{
    double m = 0;
    for (long i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

static void check_problem(const problem_forms *pf, int k, const double *xy)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", HDG_EXAMPLES, pf->file);
    hdg_frontend_options fo = {k, NULL, 0};
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, &fo, &d);
    hdg_diags_free(&d);
    CHECK(p != NULL, "%s loads", pf->file);
    if (!p) return;
    P = p;
    hdg_lowered L;
    hdg_compiled cc;
    hdg_error err = {0};
    hdg_status st = hdg_lower_hdg(p, &L, &err);
    if (!st) st = hdg_compile_c(L.mod, NULL, &cc, &err);
    CHECK(st == HDG_OK, "%s k=%d compiles: %s", pf->file, k, err.msg);
    if (st) { hdg_problem_free(p); return; }
    tri t;
    tri_init(&t, xy);
    double *g = calloc((size_t)L.ngeom, sizeof(double));
    for (int v = 0; v < 3; v++) g[HDG_G_X0 + 2 * v] = t.x[v], g[HDG_G_Y0 + 2 * v] = t.y[v];
    g[HDG_G_J] = t.J, g[HDG_G_RX] = t.rx, g[HDG_G_RY] = t.ry, g[HDG_G_SX] = t.sx, g[HDG_G_SY] = t.sy;
    for (int j = 0; j < 3; j++)
        g[HDG_G_FACE0 + 3 * j] = t.nx[j], g[HDG_G_FACE0 + 3 * j + 1] = t.ny[j],
        g[HDG_G_FACE0 + 3 * j + 2] = t.sJ[j];   /* marker flags 0: an interior element */
    double *params = calloc((size_t)p->nparams + 1, sizeof(double));
    for (int i = 0; i < p->nparams; i++) params[i] = p->params[i].value;
    int nt = L.nt, nl = L.nl;
    double *Ke = calloc((size_t)nt * nt, sizeof(double)), *Fe = calloc((size_t)nt, sizeof(double));
    hdg_kargs a = {0};
    a.nitems = 1, a.geom = g, a.params = params, a.out[0] = Ke, a.out[1] = Fe;
    hdg_compiled_find(&cc, L.local, NULL)(0, 1, &a);

    ref R;
    ref_build(&R, pf, &t, k);
    CHECK(R.nl == nl && R.nt == nt, "sizes %d %d vs %d %d", R.nl, R.nt, nl, nt);
    /* Kref = D - C A^-1 [B Fl] */
    double *LU = malloc(sizeof(double) * (size_t)nl * nl), *W = malloc(sizeof(double) * (size_t)nl * (nt + 1));
    int *piv = malloc(sizeof(int) * (size_t)nl);
    memcpy(LU, R.A, sizeof(double) * (size_t)nl * nl);
    for (int i = 0; i < nl; i++) {
        for (int j = 0; j < nt; j++) W[i * (nt + 1) + j] = R.B[i * nt + j];
        W[i * (nt + 1) + nt] = R.Fl[i];
    }
    CHECK(hdg_lu_factor(nl, LU, piv) == 0, "reference A factors");
    hdg_lu_solve(nl, LU, piv, nt + 1, W);
    double *Kr = malloc(sizeof(double) * (size_t)nt * nt), *Fr = malloc(sizeof(double) * (size_t)nt);
    for (int i = 0; i < nt; i++) {
        for (int j = 0; j <= nt; j++) {
            double s = j < nt ? R.D[i * nt + j] : R.Ft[i];
            for (int l = 0; l < nl; l++) s -= R.C[i * nl + l] * W[l * (nt + 1) + j];
            if (j < nt) Kr[i * nt + j] = s;
            else Fr[i] = s;
        }
    }
    double kmax = maxabs(Kr, (long)nt * nt), fmax_ = maxabs(Fr, nt), dk = 0, df = 0, asym = 0;
    for (int i = 0; i < nt * nt; i++) dk = fmax(dk, fabs(Ke[i] - Kr[i]));
    for (int i = 0; i < nt; i++) df = fmax(df, fabs(Fe[i] - Fr[i]));
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++) asym = fmax(asym, fabs(Ke[i * nt + j] - Ke[j * nt + i]));
    printf("%-26s k=%d: |Ke-Kref|/|Kref| %.2e  |Fe-Fref|/|Fref| %.2e  asym %.2e", pf->file, k,
           dk / kmax, df / fmax_, asym / kmax);
    CHECK(dk <= 1e-12 * kmax, "%s k=%d K_e differs by %.3e (max %.3e)", pf->file, k, dk, kmax);
    CHECK(df <= 1e-12 * fmax_, "%s k=%d F_e differs by %.3e (max %.3e)", pf->file, k, df, fmax_);
    if (!pf->bx) CHECK(asym <= 1e-12 * kmax, "%s k=%d K_e not symmetric: %.3e", pf->file, k, asym);

    /* recovery for a random trace: x = A^-1 (Fl - B uh) */
    double *uh = malloc(sizeof(double) * (size_t)nt), *x = malloc(sizeof(double) * (size_t)nl),
           *xr = malloc(sizeof(double) * (size_t)nl);
    srand(7);
    for (int i = 0; i < nt; i++) uh[i] = (double)rand() / RAND_MAX - 0.5;
    for (int i = 0; i < nl; i++) {
        xr[i] = R.Fl[i];
        for (int j = 0; j < nt; j++) xr[i] -= R.B[i * nt + j] * uh[j];
    }
    hdg_lu_solve(nl, LU, piv, 1, xr);
    hdg_kargs b = {0};
    b.nitems = 1, b.geom = g, b.params = params, b.in[0] = uh, b.out[0] = x;
    hdg_compiled_find(&cc, L.recover, NULL)(0, 1, &b);
    double dx = 0, xmax = maxabs(xr, nl);
    for (int i = 0; i < nl; i++) dx = fmax(dx, fabs(x[i] - xr[i]));
    printf("  recovery %.2e", dx / xmax);
    CHECK(dx <= 1e-12 * xmax, "%s k=%d recovery differs by %.3e", pf->file, k, dx);

    /* patch test: a constant trace (Legendre mode 0 = sqrt(2) on every face) */
    double *one = calloc((size_t)nt, sizeof(double)), flux = 0;
    for (int j = 0; j < 3; j++) one[j * R.m] = sqrt(2.0);
    for (int i = 0; i < nt; i++) {
        double s = 0;
        for (int j = 0; j < nt; j++) s += Ke[i * nt + j] * one[j];
        flux = fmax(flux, fabs(s));
    }
    printf("  |K 1|/|K| %.2e\n", flux / kmax);
    if (!pf->c && !pf->bx) CHECK(flux <= 1e-12 * kmax, "%s k=%d: constant trace gives flux %.3e", pf->file, k, flux);
    if (pf->c) CHECK(flux > 1e-3 * kmax, "%s k=%d: reaction must see a constant: %.3e", pf->file, k, flux);
    /* ... and exactly so in the stored doubles (ir/lower_hdg_kernels.c, null_close): every row's and
     * every column's three mode-0 entries sum to 0.0 in any order */
    if (!pf->c && !pf->bx && R.m == nt / 3) {
        int inexact = 0, m0 = R.m;
        for (int i = 0; i < nt; i++) {
            const double *r0 = Ke + (size_t)i * nt;
            double a = r0[0], b = r0[m0], c = r0[2 * m0];
            double ca = Ke[i], cb = Ke[(size_t)m0 * nt + i], cc = Ke[(size_t)2 * m0 * nt + i];
            inexact += (a + b) + c != 0.0 || a + (b + c) != 0.0 || (a + c) + b != 0.0;
            inexact += (ca + cb) + cc != 0.0 || ca + (cb + cc) != 0.0;
        }
        CHECK(inexact == 0, "%s k=%d: K_e c = 0 not exact in %d rows/columns", pf->file, k, inexact);
    }

    free(one), free(uh), free(x), free(xr), free(LU), free(W), free(piv), free(Kr), free(Fr);
    ref_free(&R);
    free(Ke), free(Fe), free(g), free(params);
    hdg_compiled_free(&cc);
    hdg_lowered_free(&L);
    hdg_problem_free(p);
}

/* Compile errors in generated code name the kernel: the line -> kernel map. */
static void kernel_lines(void)
{
    const char *src = "#include <math.h>\n"                       /* 1 */
                      "/* kernel poisson_local (per element): */\n"  /* 2 */
                      "void poisson_local(void) {\n"                 /* 3 */
                      "}\n"                                          /* 4 */
                      "/* kernel poisson_recover (per element): */\n"/* 5 */
                      "void poisson_recover(void) {\n";              /* 6 */
    char name[64];
    hdg_kernel_at_line(src, 1, name, sizeof name);
    CHECK(!strcmp(name, ""), "line 1: no kernel ('%s')", name);
    hdg_kernel_at_line(src, 3, name, sizeof name);
    CHECK(!strcmp(name, "poisson_local"), "line 3: '%s'", name);
    hdg_kernel_at_line(src, 6, name, sizeof name);
    CHECK(!strcmp(name, "poisson_recover"), "line 6: '%s'", name);
}

int main(void)
{
    kernel_lines();
    static const problem_forms forms[] = {
        {"poisson.hdg", "kappa", NULL, NULL, NULL, "tau", "f"},
        {"reaction_diffusion.hdg", "kappa", "c", NULL, NULL, "tau", "f"},
        {"convection_diffusion.hdg", "kappa", NULL, "bx", "by", "tau0", "f"},
    };
    /* a skewed triangle away from the origin, counter-clockwise */
    static const double xy[6] = {0.13, 0.21, 0.92, 0.07, 0.35, 0.83};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        for (int k = 1; k <= 6; k++) check_problem(&forms[i], k, xy);
    return test_summary("hdg_local");
}
