/* krylov.c — PCG, restarted GMRES and the host vector operations (the
 * trace matrices as operators and the preconditioners: precond.c). */
#include "runtime/solve/krylov.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/parallel/parallel.h"
#include "support/util.h"

#define VEC_GRAIN 8192 /* vector entries per chunk, at least */

/* ==== host vector operations ==== */

typedef struct vec_job {
    const double *x;
    double *y;
    double a;
} vec_job;

static double *host_alloc(void *ctx, long long n)
{
    return hdg_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
}

static void host_free(void *ctx, double *x) { free(x); }

static double dot_part(long long b, long long e, void *vctx)
{
    const vec_job *j = vctx;
    const double *x = j->x, *y = j->y;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long long i = b;
    for (; i + 4 <= e; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < e; i++) s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

static double host_dot(void *ctx, long long n, const double *x, const double *y)
{
    vec_job j = {x, (double *)y, 0};
    return hdg_parallel_sum(n, dot_part, &j);
}

static double host_norm2(void *ctx, long long n, const double *x)
{
    return sqrt(host_dot(ctx, n, x, x));
}

static void axpy_range(long long b, long long e, void *vctx)
{
    const vec_job *j = vctx;
    for (long long i = b; i < e; i++) j->y[i] += j->a * j->x[i];
}

static void xpay_range(long long b, long long e, void *vctx)
{
    const vec_job *j = vctx;
    for (long long i = b; i < e; i++) j->y[i] = j->x[i] + j->a * j->y[i];
}

static void copy_range(long long b, long long e, void *vctx)
{
    const vec_job *j = vctx;
    memcpy(j->y + b, j->x + b, sizeof(double) * (size_t)(e - b));
}

static void scal_range(long long b, long long e, void *vctx)
{
    const vec_job *j = vctx;
    for (long long i = b; i < e; i++) j->y[i] *= j->a;
}

static void set_range(long long b, long long e, void *vctx)
{
    const vec_job *j = vctx;
    for (long long i = b; i < e; i++) j->y[i] = j->a;
}

static void host_axpy(void *ctx, long long n, double a, const double *x, double *y)
{
    vec_job j = {x, y, a};
    hdg_parallel_for_grain(n, VEC_GRAIN, axpy_range, &j);
}

static void host_xpay(void *ctx, long long n, const double *x, double a, double *y)
{
    vec_job j = {x, y, a};
    hdg_parallel_for_grain(n, VEC_GRAIN, xpay_range, &j);
}

static void host_copy(void *ctx, long long n, const double *x, double *y)
{
    vec_job j = {x, y, 0};
    hdg_parallel_for_grain(n, VEC_GRAIN, copy_range, &j);
}

static void host_scal(void *ctx, long long n, double a, double *x)
{
    vec_job j = {NULL, x, a};
    hdg_parallel_for_grain(n, VEC_GRAIN, scal_range, &j);
}

static void host_set(void *ctx, long long n, double a, double *x)
{
    vec_job j = {NULL, x, a};
    hdg_parallel_for_grain(n, VEC_GRAIN, set_range, &j);
}

static const hdg_vecops host_ops = {NULL,      host_alloc, host_free, host_dot,  host_norm2,
                                    host_axpy, host_xpay,  host_copy, host_scal, host_set};

const hdg_vecops *hdg_vecops_host(void) { return &host_ops; }

/* ==== common solver plumbing ==== */

hdg_solve_opts hdg_solve_opts_default(void)
{
    hdg_solve_opts o = {1e-10, 0.0, 1000, 30, 0, NULL, NULL, 0.0};
    return o;
}

typedef struct solver {
    const char *name;    /* "CG", "GMRES(30)" */
    const hdg_linop *A, *M;
    const hdg_vecops *v;
    hdg_solve_opts o;
    long long n;
    double bnorm, tol, t0;
    double smin, smax;   /* the Krylov estimates of the extreme singular values (hdg_solve_info) */
} solver;

/* r = b - A x; returns ||r||. */
static double residual(const solver *s, const double *b, const double *x, double *r)
{
    s->A->apply(s->A->ctx, x, r);
    s->v->xpay(s->v->ctx, s->n, b, -1.0, r);
    return s->v->norm2(s->v->ctx, s->n, r);
}

static void monitor(const solver *s, int it, double rnorm)
{
    if (s->o.monitor && s->o.verbose_every > 0 && it % s->o.verbose_every == 0)
        s->o.monitor(s->o.monitor_ctx, it, rnorm / s->bnorm);
}

static void set_info(const solver *s, hdg_solve_info *info, int it, double rnorm, int converged)
{
    if (!info) return;
    info->iterations = it;
    info->residual = s->bnorm > 0 ? rnorm / s->bnorm : 0.0;
    info->converged = converged;
    info->stagnated = 0;
    info->seconds = hdg_wtime() - s->t0;
    info->sv_min = isfinite(s->smin) ? s->smin : 0;
    info->sv_max = s->smax;
}

/* ---- extreme eigenvalue / singular value estimates ---- */

static void keep_extremes(solver *s, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi)) return;
    if (lo < s->smin) s->smin = lo;
    if (hi > s->smax) s->smax = hi;
}

/* Eigenvalues of the symmetric tridiagonal (d, e) (n x n) below x. */
static int sturm_count(const double *d, const double *e, int n, double x)
{
    int c = 0;
    double q = 1;
    for (int i = 0; i < n; i++) {
        q = d[i] - x - (i ? e[i - 1] * e[i - 1] / q : 0);
        if (q == 0) q = 1e-300;
        if (q < 0) c++;
    }
    return c;
}

/* Its smallest and largest eigenvalues by bisection. */
static void tridiagonal_extremes(const double *d, const double *e, int n, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (int i = 0; i < n; i++) {   /* Gershgorin */
        double r = (i ? fabs(e[i - 1]) : 0) + (i < n - 1 ? fabs(e[i]) : 0);
        a = fmin(a, d[i] - r), b = fmax(b, d[i] + r);
    }
    double l0 = a, h0 = b, l1 = a, h1 = b;
    for (int k = 0; k < 200; k++) {
        double m0 = (l0 + h0) / 2, m1 = (l1 + h1) / 2;
        if (sturm_count(d, e, n, m0) >= 1) h0 = m0; else l0 = m0;
        if (sturm_count(d, e, n, m1) >= n) h1 = m1; else l1 = m1;
    }
    *lo = (l0 + h0) / 2, *hi = (l1 + h1) / 2;
}

/* x <- R^-1 R^-T x (R k x k upper triangular, column-major with leading dimension ld). */
static void rtr_solve(const double *R, int ld, int k, double *x)
{
    for (int i = 0; i < k; i++) {   /* R^T w = x */
        double t = x[i];
        for (int j = 0; j < i; j++) t -= R[j + (size_t)i * ld] * x[j];
        x[i] = t / R[i + (size_t)i * ld];
    }
    for (int i = k - 1; i >= 0; i--) {   /* R v = w */
        double t = x[i];
        for (int j = i + 1; j < k; j++) t -= R[i + (size_t)j * ld] * x[j];
        x[i] = t / R[i + (size_t)i * ld];
    }
}

/* x <- R^T R x */
static void rtr_apply(const double *R, int ld, int k, double *x, double *t)
{
    for (int i = 0; i < k; i++) {
        t[i] = 0;
        for (int j = i; j < k; j++) t[i] += R[i + (size_t)j * ld] * x[j];
    }
    for (int j = 0; j < k; j++) {
        x[j] = 0;
        for (int i = 0; i <= j; i++) x[j] += R[i + (size_t)j * ld] * t[i];
    }
}

static double normalise(double *x, int k)
{
    double n = 0;
    for (int i = 0; i < k; i++) n += x[i] * x[i];
    n = sqrt(n);
    for (int i = 0; i < k && n > 0; i++) x[i] /= n;
    return n;
}

/* The extreme singular values of R (the rotated Arnoldi Hessenberg, whose
 * singular values are those of the (k+1) x k Hessenberg: estimates of A M^-1's
 * on the Krylov space) by 40 steps of power and inverse iteration. */
static void triangular_extremes(const double *R, int ld, int k, double *lo, double *hi)
{
    double *x = hdg_xmalloc(sizeof(double) * (size_t)(2 * k + 2)), *t = x + k + 1, l = 0, h = 0;
    int singular = 0;
    for (int i = 0; i < k; i++) singular |= R[i + (size_t)i * ld] == 0;
    for (int i = 0; i < k; i++) x[i] = 1 + 0.1 * i / k;
    normalise(x, k);
    for (int it = 0; it < 40; it++) rtr_apply(R, ld, k, x, t), h = normalise(x, k);
    for (int i = 0; i < k && !singular; i++) x[i] = 1 + 0.1 * i / k;
    normalise(x, k);
    for (int it = 0; it < 40 && !singular; it++) rtr_solve(R, ld, k, x), l = normalise(x, k);
    *hi = sqrt(h), *lo = singular ? 0 : l > 0 ? 1 / sqrt(l) : INFINITY;
    free(x);
}


/* Checks the arguments, fills s, handles b = 0 and a NaN right-hand side.
 * Returns 1 when the caller is done (with *st set). */
static int solver_start(solver *s, const char *name, const hdg_linop *A, const hdg_linop *M,
                        const double *b, double *x, const hdg_solve_opts *o, const hdg_vecops *v,
                        hdg_solve_info *info, hdg_status *st, hdg_error *err)
{
    s->t0 = hdg_wtime();
    s->smin = INFINITY, s->smax = 0;
    s->name = name;
    s->A = A;
    s->M = M;
    s->v = v ? v : hdg_vecops_host();
    s->o = o ? *o : hdg_solve_opts_default();
    s->n = A ? A->n : 0;
    s->bnorm = 0;
    if (info) memset(info, 0, sizeof *info);
    if (!A || !A->apply || A->n < 0 || !b || !x) {
        *st = hdg_fail(err, HDG_EINPUT, "%s: missing matrix, right-hand side or solution vector", name);
        return 1;
    }
    if (M && (!M->apply || M->n != A->n)) {
        *st = hdg_fail(err, HDG_EINPUT, "%s: preconditioner size %lld differs from matrix size %lld",
                       name, M->n, A->n);
        return 1;
    }
    s->bnorm = s->v->norm2(s->v->ctx, s->n, b);
    if (!isfinite(s->bnorm)) {
        set_info(s, info, 0, NAN, 0);
        *st = hdg_fail(err, HDG_ESOLVER, "%s: right-hand side contains NaN or Inf", name);
        return 1;
    }
    s->tol = fmax(s->o.rtol * s->bnorm, s->o.atol);
    if (s->bnorm == 0) {
        s->v->set(s->v->ctx, s->n, 0.0, x);
        set_info(s, info, 0, 0.0, 1);
        *st = HDG_OK;
        return 1;
    }
    return 0;
}

static hdg_status not_converged(const solver *s, hdg_solve_info *info, int it, double rnorm,
                                hdg_error *err)
{
    set_info(s, info, it, rnorm, 0);
    return hdg_fail(err, HDG_ESOLVER, "%s did not converge: %d iterations, relative residual %.3g > rtol %.3g",
                    s->name, it, rnorm / s->bnorm, s->o.rtol);
}

/* The rounding floor of the true residual: eps ||A|| ||x||, with ||A|| taken
 * as ||A r|| / ||r||. The stagnated residual r is rounding noise, rich in the
 * matrix's largest modes, so the ratio is within a small factor of ||A||_2;
 * tmp: a work vector. One product, only when a solve stagnates. */
static double rounding_floor(const solver *s, const double *x, const double *r, double rnorm, double *tmp)
{
    if (!(rnorm > 0)) return 0;
    s->A->apply(s->A->ctx, r, tmp);
    double anorm = s->v->norm2(s->v->ctx, s->n, tmp) / rnorm;
    return DBL_EPSILON * anorm * s->v->norm2(s->v->ctx, s->n, x);
}

/* fl: the rounding floor (rounding_floor), computed by the caller. */
static hdg_status stagnated(const solver *s, hdg_solve_info *info, int it, double rnorm, double fl,
                            hdg_error *err)
{
    int ok = s->o.attainable > 0 &&
             (rnorm <= s->o.attainable * s->bnorm || rnorm <= HDG_ROUNDING_FLOOR_FACTOR * fl);
    int singular = ok && rnorm > HDG_ROUNDING_FLOOR_MAX * s->bnorm;
    ok = ok && !singular;
    set_info(s, info, it, rnorm, ok);
    if (info) info->floor = fl / s->bnorm;
    if (ok && info) info->stagnated = 1;
    if (ok) return HDG_OK;
    if (singular)
        return hdg_fail(err, HDG_ESOLVER, "%s stagnated at relative residual %.3g after %d iterations, at its rounding "
                        "floor eps ||A|| ||x|| / ||b|| = %.2g: a floor that high means a huge x, the system is "
                        "singular or nearly so", s->name, rnorm / s->bnorm, it, fl / s->bnorm);
    return hdg_fail(err, HDG_ESOLVER, "%s stagnated at relative residual %.3g after %d iterations (the rounding "
                    "floor eps ||A|| ||x|| / ||b|| is %.2g): rtol %.3g is below what double precision reaches "
                    "for this system (ask for a larger rtol)",
                    s->name, rnorm / s->bnorm, it, fl / s->bnorm, s->o.rtol);
}

/* Stagnation: the solver's own residual (CG's recursive one, GMRES's
 * estimate) claimed convergence or went far below the true one, and the true
 * one no longer decreases (by half) from one restart to the next. Called at each (re)start with the
 * true residual; returns 1 after two such restarts in a row. */
typedef struct stall {
    double last_true, own;   /* true residual at the last restart; own residual at the end of the cycle */
    int count, lost;
} stall;

static void stall_init(stall *t)
{
    t->last_true = INFINITY;
    t->own = INFINITY;
    t->count = t->lost = 0;
}

static int stall_check(stall *t, double true_rn, double tol)
{
    /* the recursion claimed convergence, or lost touch with the truth */
    t->lost = t->own <= tol || t->own < 1e-2 * true_rn;
    t->count = t->lost && true_rn > 0.5 * t->last_true ? t->count + 1 : 0;
    t->last_true = true_rn;
    t->own = INFINITY;
    return t->count >= 2;
}

/* At a restart: the solve has stagnated (two restarts without progress, or
 * maxit with the recursion lost), or, under the default rule (attainable >
 * 0), the recursion claimed convergence and the true residual rn already
 * lies within HDG_ROUNDING_FLOOR_FACTOR of the rounding floor, where more
 * iterations cannot take it much lower (this saves the restart cycles that
 * would only confirm it). *fl gets the floor when it returns 1. */
static int ends_here(const solver *s, stall *t, int stuck, int it, double rn, const double *x, const double *r,
                     double *tmp, double *fl)
{
    if (stuck || (it >= s->o.maxit && t->lost)) {
        *fl = rounding_floor(s, x, r, rn, tmp);
        return 1;
    }
    if (!(s->o.attainable > 0) || !t->lost) return 0;
    *fl = rounding_floor(s, x, r, rn, tmp);
    return rn <= HDG_ROUNDING_FLOOR_FACTOR * *fl;
}

static hdg_status blew_up(const solver *s, hdg_solve_info *info, int it, double rnorm,
                          const char *what, hdg_error *err)
{
    set_info(s, info, it, rnorm, 0);
    return hdg_fail(err, HDG_ESOLVER, "%s breakdown at iteration %d: %s", s->name, it, what);
}

/* ==== preconditioned conjugate gradients ==== */

static const char *rz_trouble(double rz)
{
    return isnan(rz) ? "NaN in r^T M r"
                     : "r^T M r <= 0 (preconditioner not SPD; GMRES does not need an SPD preconditioner: --solver gmres)";
}

static const char *pq_trouble(double pq)
{
    return isnan(pq) ? "NaN in p^T A p"
                     : "p^T A p <= 0 (matrix not SPD: indefinite, or not symmetric; GMRES solves such systems: --solver "
                       "gmres)";
}

typedef struct cg_vecs {
    double *r, *z, *p, *q;
    double *la, *lb;   /* host: the CG steps alpha_j and ratios beta_j of the current (re)start */
    int nl, cap;
} cg_vecs;

static void lanczos_push(cg_vecs *w, double alpha, double beta)
{
    if (w->nl == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->la = hdg_xrealloc(w->la, sizeof(double) * (size_t)w->cap);
        w->lb = hdg_xrealloc(w->lb, sizeof(double) * (size_t)w->cap);
    }
    w->la[w->nl] = alpha, w->lb[w->nl] = beta, w->nl++;
}

/* The Lanczos matrix of the CG steps (Saad, "Iterative methods", 6.7.3):
 * d_j = 1/alpha_j + beta_(j-1)/alpha_(j-1), e_j = sqrt(beta_j)/alpha_j; its
 * extreme eigenvalues estimate those of M^-1 A. */
static void lanczos_extremes(solver *s, cg_vecs *w)
{
    int n = w->nl;
    if (n < 1) return;
    double *d = hdg_xmalloc(sizeof(double) * (size_t)(2 * n + 1)), *e = d + n, lo, hi;
    for (int j = 0; j < n; j++) {
        d[j] = 1 / w->la[j] + (j ? w->lb[j - 1] / w->la[j - 1] : 0);
        e[j] = sqrt(w->lb[j]) / w->la[j];
    }
    tridiagonal_extremes(d, e, n, &lo, &hi);
    keep_extremes(s, lo, hi);
    free(d);
    w->nl = 0;
}

/* A breakdown (p^T A p <= 0, r^T M r <= 0) with the recursive residual rn far
 * below the true one is roundoff, not an indefinite matrix: stagnation. */
static hdg_status cg_breakdown(solver *s, const double *b, const double *x, cg_vecs *w, hdg_solve_info *info,
                               int it, double rn, const char *what, hdg_error *err)
{
    double rt = residual(s, b, x, w->q);
    if (isfinite(rt) && rn < 1e-2 * rt) return stagnated(s, info, it, rt, rounding_floor(s, x, w->q, rt, w->p), err);
    return blew_up(s, info, it, rn, what, err);
}

static hdg_status cg_loop(solver *s, const double *b, double *x, cg_vecs *w, hdg_solve_info *info,
                          hdg_error *err)
{
    const hdg_vecops *v = s->v;
    void *vc = v->ctx;
    long long n = s->n;
    int it = 0;
    stall t;
    stall_init(&t);
    for (;;) { /* (re)start from the true residual */
        double rn = residual(s, b, x, w->r);
        if (!isfinite(rn)) return blew_up(s, info, it, NAN, "NaN or Inf in the residual", err);
        if (rn <= s->tol) {
            set_info(s, info, it, rn, 1);
            return HDG_OK;
        }
        double fl;
        if (ends_here(s, &t, stall_check(&t, rn, s->tol), it, rn, x, w->r, w->q, &fl))
            return stagnated(s, info, it, rn, fl, err);
        if (it >= s->o.maxit) return not_converged(s, info, it, rn, err);
        double *z = s->M ? w->z : w->r;
        if (s->M) s->M->apply(s->M->ctx, w->r, z);
        double rz = s->M ? v->dot(vc, n, w->r, z) : rn * rn;
        if (!(rz > 0))
            return blew_up(s, info, it, rn, rz_trouble(rz), err);
        v->copy(vc, n, z, w->p);
        for (;;) {
            s->A->apply(s->A->ctx, w->p, w->q);
            double pq = v->dot(vc, n, w->p, w->q);
            if (!(pq > 0)) {
                if (isnan(pq)) return blew_up(s, info, it, rn, pq_trouble(pq), err);
                return cg_breakdown(s, b, x, w, info, it, rn, pq_trouble(pq), err);
            }
            double alpha = rz / pq;
            lanczos_push(w, alpha, 0);
            v->axpy(vc, n, alpha, w->p, x);
            v->axpy(vc, n, -alpha, w->q, w->r);
            it++;
            rn = v->norm2(vc, n, w->r);
            monitor(s, it, rn);
            if (!isfinite(rn)) return blew_up(s, info, it, NAN, "NaN or Inf in the residual", err);
            t.own = rn;
            if (rn <= s->tol || it >= s->o.maxit) { /* confirm on the true residual */
                lanczos_extremes(s, w);
                break;
            }
            if (s->M) s->M->apply(s->M->ctx, w->r, z);
            double rz_new = s->M ? v->dot(vc, n, w->r, z) : rn * rn;
            if (!(rz_new > 0)) {
                if (isnan(rz_new)) return blew_up(s, info, it, rn, rz_trouble(rz_new), err);
                return cg_breakdown(s, b, x, w, info, it, rn, rz_trouble(rz_new), err);
            }
            v->xpay(vc, n, z, rz_new / rz, w->p);
            w->lb[w->nl - 1] = rz_new / rz;
            rz = rz_new;
        }
    }
}

hdg_status hdg_pcg(const hdg_linop *A, const hdg_linop *M, const double *b, double *x,
                   const hdg_solve_opts *o, const hdg_vecops *v, hdg_solve_info *info,
                   hdg_error *err)
{
    solver s;
    hdg_status st;
    if (solver_start(&s, "CG", A, M, b, x, o, v, info, &st, err)) return st;
    cg_vecs w = {0};
    w.r = s.v->alloc(s.v->ctx, s.n);
    w.z = M ? s.v->alloc(s.v->ctx, s.n) : NULL;
    w.p = s.v->alloc(s.v->ctx, s.n);
    w.q = s.v->alloc(s.v->ctx, s.n);
    st = cg_loop(&s, b, x, &w, info, err);
    s.v->free(s.v->ctx, w.r);
    if (w.z) s.v->free(s.v->ctx, w.z);
    s.v->free(s.v->ctx, w.p);
    s.v->free(s.v->ctx, w.q);
    free(w.la), free(w.lb);
    return st;
}

/* ==== restarted GMRES, right preconditioning ==== */

typedef struct gmres_work {
    int m;
    double **V;           /* m+1 basis vectors */
    double *t, *u;        /* M^-1 v_j, correction */
    double *H;            /* (m+1) x m Hessenberg, column-major: H[i + j*(m+1)] */
    double *cs, *sn, *g, *y;
} gmres_work;

/* Applies the earlier rotations to column j of H, makes a new one that zeroes
 * H(j+1, j), and rotates g. */
static void givens_column(gmres_work *w, int j)
{
    int ld = w->m + 1;
    double *h = w->H + (size_t)j * ld;
    for (int i = 0; i < j; i++) {
        double a = h[i], b = h[i + 1];
        h[i] = w->cs[i] * a + w->sn[i] * b;
        h[i + 1] = -w->sn[i] * a + w->cs[i] * b;
    }
    double r = hypot(h[j], h[j + 1]);
    w->cs[j] = r > 0 ? h[j] / r : 1.0;
    w->sn[j] = r > 0 ? h[j + 1] / r : 0.0;
    h[j] = r;
    h[j + 1] = 0.0;
    w->g[j + 1] = -w->sn[j] * w->g[j];
    w->g[j] = w->cs[j] * w->g[j];
}

/* One Arnoldi step: V[j+1] = A M^-1 V[j] orthogonalised (MGS, two passes);
 * returns the norm before normalisation (0: the space is invariant). */
static double arnoldi_step(solver *s, gmres_work *w, int j)
{
    const hdg_vecops *v = s->v;
    void *vc = v->ctx;
    long long n = s->n;
    double *h = w->H + (size_t)j * (w->m + 1), *next = w->V[j + 1];
    const double *src = w->V[j];
    if (s->M) {
        s->M->apply(s->M->ctx, w->V[j], w->t);
        src = w->t;
    }
    s->A->apply(s->A->ctx, src, next);
    for (int i = 0; i <= j + 1; i++) h[i] = 0.0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i <= j; i++) {
            double c = v->dot(vc, n, next, w->V[i]);
            h[i] += c;
            v->axpy(vc, n, -c, w->V[i], next);
        }
    double hn = v->norm2(vc, n, next);
    h[j + 1] = hn;
    if (hn > 0 && isfinite(hn)) v->scal(vc, n, 1.0 / hn, next);
    return hn;
}

/* x += M^-1 V y with H y = g (the first k columns). Returns 0 when the
 * triangular system is singular. */
static int gmres_update(solver *s, gmres_work *w, int k, double *x)
{
    int ld = w->m + 1;
    for (int i = k - 1; i >= 0; i--) {
        double d = w->H[i + (size_t)i * ld];
        if (d == 0) return 0;
        double t = w->g[i];
        for (int c = i + 1; c < k; c++) t -= w->H[i + (size_t)c * ld] * w->y[c];
        w->y[i] = t / d;
    }
    const hdg_vecops *v = s->v;
    v->set(v->ctx, s->n, 0.0, w->u);
    for (int i = 0; i < k; i++) v->axpy(v->ctx, s->n, w->y[i], w->V[i], w->u);
    if (s->M) {
        s->M->apply(s->M->ctx, w->u, w->t);
        v->axpy(v->ctx, s->n, 1.0, w->t, x);
    } else {
        v->axpy(v->ctx, s->n, 1.0, w->u, x);
    }
    return 1;
}

static hdg_status gmres_loop(solver *s, const double *b, double *x, gmres_work *w,
                             hdg_solve_info *info, hdg_error *err)
{
    int it = 0;
    stall t;
    stall_init(&t);
    for (;;) { /* one restart cycle */
        double beta = residual(s, b, x, w->V[0]);
        if (!isfinite(beta)) return blew_up(s, info, it, NAN, "NaN or Inf in the residual", err);
        if (beta <= s->tol) {
            set_info(s, info, it, beta, 1);
            return HDG_OK;
        }
        double fl;
        if (ends_here(s, &t, stall_check(&t, beta, s->tol), it, beta, x, w->V[0], w->V[1], &fl))
            return stagnated(s, info, it, beta, fl, err);
        if (it >= s->o.maxit) return not_converged(s, info, it, beta, err);
        s->v->scal(s->v->ctx, s->n, 1.0 / beta, w->V[0]);
        for (int i = 0; i <= w->m; i++) w->g[i] = 0.0;
        w->g[0] = beta;
        int k = 0;
        while (k < w->m && it < s->o.maxit) {
            double hn = arnoldi_step(s, w, k);
            if (!isfinite(hn)) return blew_up(s, info, it, NAN, "NaN or Inf in the Arnoldi vectors", err);
            givens_column(w, k);
            k++;
            it++;
            double est = fabs(w->g[k]);
            monitor(s, it, est);
            t.own = est;
            if (est <= s->tol || hn == 0) break;
        }
        double lo, hi;
        if (k > 0) triangular_extremes(w->H, w->m + 1, k, &lo, &hi), keep_extremes(s, lo, hi);
        if (!gmres_update(s, w, k, x))
            return blew_up(s, info, it, NAN, "singular Hessenberg matrix (A or M singular)", err);
    }
}

/* Memory the host can still give, in bytes (MemAvailable of /proc/meminfo,
 * else the physical memory; 0: unknown). */
static double host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb > 0) return kb * 1024.0;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return (double)pages * (double)page;
#endif
    return 0;
}

static void gmres_work_free(const solver *s, gmres_work *w)
{
    if (w->V)
        for (int i = 0; i <= w->m; i++)
            if (w->V[i]) s->v->free(s->v->ctx, w->V[i]);
    if (w->t) s->v->free(s->v->ctx, w->t);
    if (w->u) s->v->free(s->v->ctx, w->u);
    free(w->V), free(w->H), free(w->cs), free(w->sn), free(w->g), free(w->y);
}

/* The m + 3 vectors of length n and the (m+1) x m Hessenberg matrix; fails
 * with the figure when they exceed the host's available memory or an
 * allocation of the vecops fails (device memory). */
static hdg_status gmres_work_alloc(const solver *s, gmres_work *w, hdg_error *err)
{
    int m = w->m;
    double bytes = 8.0 * ((double)(m + 3) * (double)s->n + (double)(m + 1) * (m + 4));
    double avail = s->v == &host_ops ? host_available_bytes() : 0;
    if (avail > 0 && bytes > avail)
        return hdg_fail(err, HDG_ENOMEM, "%s needs %.0f bytes (%.3g GB) of workspace for %lld unknowns, more "
                        "than the %.3g GB of memory available: use a shorter restart", s->name, bytes,
                        bytes / 1e9, s->n, avail / 1e9);
    w->V = hdg_xcalloc((size_t)m + 1, sizeof(double *));
    int ok = 1;
    for (int i = 0; i <= m; i++) ok &= (w->V[i] = s->v->alloc(s->v->ctx, s->n)) != NULL;
    ok &= (w->t = s->v->alloc(s->v->ctx, s->n)) != NULL;
    ok &= (w->u = s->v->alloc(s->v->ctx, s->n)) != NULL;
    w->H = hdg_xcalloc((size_t)(m + 1) * m, sizeof(double));
    w->cs = hdg_xcalloc((size_t)m, sizeof(double));
    w->sn = hdg_xcalloc((size_t)m, sizeof(double));
    w->g = hdg_xcalloc((size_t)m + 1, sizeof(double));
    w->y = hdg_xcalloc((size_t)m, sizeof(double));
    if (!ok) {
        gmres_work_free(s, w);
        return hdg_fail(err, HDG_ENOMEM, "%s: could not allocate its %.3g GB of workspace for %lld unknowns: "
                        "use a shorter restart", s->name, bytes / 1e9, s->n);
    }
    return HDG_OK;
}

hdg_status hdg_gmres(const hdg_linop *A, const hdg_linop *M, const double *b, double *x,
                     const hdg_solve_opts *o, const hdg_vecops *v, hdg_solve_info *info,
                     hdg_error *err)
{
    int m = o && o->restart > 0 ? o->restart : hdg_solve_opts_default().restart;
    if (A && A->n > 0 && m > A->n) m = (int)A->n; /* a Krylov space has at most n dimensions */
    char name[32];
    snprintf(name, sizeof name, "GMRES(%d)", m);
    solver s;
    hdg_status st;
    if (solver_start(&s, name, A, M, b, x, o, v, info, &st, err)) return st;
    gmres_work w = {.m = m};
    if ((st = gmres_work_alloc(&s, &w, err))) {
        set_info(&s, info, 0, s.bnorm, 0);
        return st;
    }
    st = gmres_loop(&s, b, x, &w, info, err);
    gmres_work_free(&s, &w);
    return st;
}
