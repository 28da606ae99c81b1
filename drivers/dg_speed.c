/* dg_speed.c — characteristic speed and energy class of an explicit DG
 * problem, read from its atoms (see dg_speed.h). */
#include "drivers/dg_speed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/solve/dense.h"
#include "runtime/solve/lserk4.h"
#include "support/util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { KIND_A, KIND_B, KIND_C, KIND_R };   /* A, B, C: dx, dy, dz terms (kind = direction) */
#define MAXF HDG_DG_MAX_FIELDS

/* One volume atom with an unknown: coefficient, row and column field, which
 * matrix it adds to and with what sign. */
typedef struct vterm {
    const hdg_atom *a;
    int row, col, kind;
    double sign;
} vterm;

typedef struct form {
    const hdg_problem *p;
    int F, dim;
    const hdg_atom *time[MAXF];   /* the dt() atom of each row */
    vterm *t;
    int nt;
    int dep_xy, dep_t;            /* some coefficient depends on x, y (or z), on t */
    int dep_state;                /* nonlinear: the Jacobian atoms of residuals read the state */
    const double *U;              /* dep_state: the element's state (fields x Np) and the node */
    int Np, node;
    int field_of[64][3];
} form;

/* HDG_EX_STATE leaves at the form's point: the node's value (values only:
 * the lowering refuses derivatives of the state in DG residuals). */
static double state_at(void *ctx, int unknown, int comp, int op, int side)
{
    const form *fm = ctx;
    (void)side;
    if (!fm->U || op != HDG_OP_VALUE || unknown < 0 || unknown >= 64 || comp < 0 || comp > 2) return NAN;
    int f = fm->field_of[unknown][comp];
    return f >= 0 ? fm->U[(size_t)f * fm->Np + fm->node] : NAN;
}

static int depends_xy(const hdg_expr *e)
{
    return hdg_expr_depends(e, HDG_VAR_X) || hdg_expr_depends(e, HDG_VAR_Y) || hdg_expr_depends(e, HDG_VAR_Z);
}

/* The environment of a coefficient at the point x (dim coordinates), time t
 * and normal n (NULL: 0). */
static hdg_eval_env env_at(const hdg_problem *p, int dim, const double *x, double t, const double *n)
{
    hdg_eval_env env = {.x = x[0], .y = x[1], .t = t, .nx = n ? n[0] : 0, .ny = n ? n[1] : 0, .problem = p};
    if (dim == 3) env.z = x[2], env.nz = n ? n[2] : 0;
    return env;
}

/* The direction (0, 1, 2) of a derivative operator. */
static int op_kind(int op) { return op == HDG_OP_DX ? KIND_A : op == HDG_OP_DY ? KIND_B : KIND_C; }

static void form_build(form *fm, const hdg_problem *p, const hdg_dg_lowered *L)
{
    memset(fm, 0, sizeof *fm);
    fm->p = p;
    fm->F = L->nfields;
    fm->dim = L->dim;
    int (*field_of)[3] = fm->field_of;
    memset(fm->field_of, -1, sizeof fm->field_of);
    for (int f = 0; f < L->nfields; f++) field_of[L->field_unknown[f]][L->field_comp[f]] = f;
    int nmax = 0;
    for (int e = 0; e < p->nequations; e++) {
        nmax += p->equations[e].natoms;
        for (int r = 0; r < p->equations[e].nresiduals; r++) nmax += p->equations[e].residuals[r].njac;
    }
    fm->t = hdg_xmalloc(sizeof(vterm) * (size_t)(nmax + 1));
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *q = &p->equations[e];
        int rowf[3] = { -1, -1, -1 };
        for (int i = 0; i < q->natoms; i++)
            if (q->atoms[i].role == HDG_ROLE_TIME) {
                const hdg_atom *a = &q->atoms[i];
                rowf[a->test_comp] = field_of[a->trial][a->trial_comp];
                fm->time[rowf[a->test_comp]] = a;
            }
        for (int i = 0; i < q->natoms; i++) {
            const hdg_atom *a = &q->atoms[i];
            if (a->role != HDG_ROLE_VOLUME || a->trial < 0 || rowf[a->test_comp] < 0) continue;
            vterm v = { a, rowf[a->test_comp], field_of[a->trial][a->trial_comp], KIND_R, 1.0 };
            if (a->trial_op != HDG_OP_VALUE) v.kind = op_kind(a->trial_op);
            else if (a->test_op != HDG_OP_VALUE) {   /* (c u, dx v) = -(dx(c u), v) + faces */
                v.kind = op_kind(a->test_op);
                v.sign = -1.0;
            }
            fm->t[fm->nt++] = v;
        }
        /* nonlinear: the flux Jacobian dF_l/dU from the Jacobian atoms of the volume residuals (c(U), dx_l v):
           as the weak-form atoms above, A_l = -dc/dU; those of (c(U), v) join R */
        for (int r = 0; r < q->nresiduals; r++) {
            const hdg_residual *res = &q->residuals[r];
            if (res->domain != HDG_VOLUME || rowf[res->test_comp] < 0) continue;
            for (int j = 0; j < res->njac; j++) {
                const hdg_atom *a = &res->jac[j];
                if (a->trial < 0) continue;
                vterm v = { a, rowf[res->test_comp], field_of[a->trial][a->trial_comp], KIND_R, 1.0 };
                if (res->test_op != HDG_OP_VALUE) v.kind = op_kind(res->test_op), v.sign = -1.0;
                fm->t[fm->nt++] = v;
                fm->dep_state = 1;
            }
        }
    }
    for (int f = 0; f < fm->F; f++)
        if (fm->time[f]) {
            fm->dep_xy |= depends_xy(fm->time[f]->coef);
            fm->dep_t |= hdg_expr_depends(fm->time[f]->coef, HDG_VAR_T);
        }
    for (int i = 0; i < fm->nt; i++) {
        fm->dep_xy |= depends_xy(fm->t[i].a->coef);
        fm->dep_t |= hdg_expr_depends(fm->t[i].a->coef, HDG_VAR_T);
    }
}

static const char *fname(const hdg_problem *p) { return p->file ? p->file : "<input>"; }

/* A[d] (d < dim) and R (F x F, row-major) at (x, t), rows divided by c_T.
 * Returns 0, or -1 with why filled (c_T not positive, a value not finite). */
static int form_eval(const form *fm, const double *x, double t, double (*A)[MAXF * MAXF], double *R, char *why,
                     size_t n)
{
    int F = fm->F;
    hdg_eval_env env = env_at(fm->p, fm->dim, x, t, NULL);
    if (fm->dep_state) env.state = state_at, env.state_ctx = (void *)fm;
    char at[160];
    if (fm->dim == 2) snprintf(at, sizeof at, "(x, y, t) = (%g, %g, %g)", x[0], x[1], t);
    else snprintf(at, sizeof at, "(x, y, z, t) = (%g, %g, %g, %g)", x[0], x[1], x[2], t);
    for (int d = 0; d < fm->dim; d++) memset(A[d], 0, sizeof(double) * F * F);
    memset(R, 0, sizeof(double) * F * F);
    for (int i = 0; i < fm->nt; i++) {
        const vterm *v = &fm->t[i];
        double c = hdg_expr_eval(v->a->coef, &env);
        if (!isfinite(c)) {
            snprintf(why, n, "%s:%d:%d: the coefficient of this term is %g at %s", fname(fm->p), v->a->loc.line,
                     v->a->loc.col, c, at);
            return -1;
        }
        double *M = v->kind == KIND_R ? R : A[v->kind];
        M[v->row * F + v->col] += v->sign * c;
    }
    for (int f = 0; f < F; f++) {
        double c = fm->time[f] ? hdg_expr_eval(fm->time[f]->coef, &env) : 1.0;
        if (!(c > 0) || !isfinite(c)) {
            snprintf(why, n, "%s:%d:%d: the dt() coefficient is %g at %s, not positive", fname(fm->p),
                     fm->time[f]->loc.line, fm->time[f]->loc.col, c, at);
            return -1;
        }
        for (int j = 0; j < F; j++) {
            for (int d = 0; d < fm->dim; d++) A[d][f * F + j] /= c;
            R[f * F + j] /= c;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ spectral radius */

static double max_abs(int n, const double *C)
{
    double s = 0;
    for (int i = 0; i < n * n; i++) s = fmax(s, fabs(C[i]));
    return s;
}

static int symmetric(int n, const double *C, double tol)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (fabs(C[i * n + j] - C[j * n + i]) > tol) return 0;
    return 1;
}

/* One step of the repeated squaring in Gelfand's bound: S = M M, M = S / |S|_F; returns |S|_F
 * (0: M is nilpotent, M unchanged). Shared by both spectral-radius bounds below. */
static double square_normalised(int n, double *M, double *S)
{
    double s2 = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int l = 0; l < n; l++) s += M[i * n + l] * M[l * n + j];
            S[i * n + j] = s;
            s2 += s * s;
        }
    if (!(s2 > 0)) return 0;
    s2 = sqrt(s2);
    for (int i = 0; i < n * n; i++) M[i] = S[i] / s2;
    return s2;
}

/* rho = lim |C^k|^(1/k) by repeated squaring of C / |C| (renormalised). */
static double gelfand(int n, const double *C, double scale)
{
    double *M = hdg_xmalloc(sizeof(double) * n * n), *S = hdg_xmalloc(sizeof(double) * n * n);
    double nrm = 0, L = 0, k = 1, est = 0;
    for (int i = 0; i < n * n; i++) M[i] = C[i] / scale, nrm += M[i] * M[i];
    nrm = sqrt(nrm);
    for (int i = 0; i < n * n; i++) M[i] /= nrm;
    L = log(nrm);
    for (int it = 0; it < 50; it++) {
        est = scale * exp(L / k);
        double s2 = square_normalised(n, M, S);
        if (!(s2 > 0)) { est = 0; break; }   /* nilpotent */
        L = 2 * L + log(s2);
        k *= 2;
        est = scale * exp(L / k);
    }
    free(M);
    free(S);
    return est;
}

double hdg_spectral_radius(int n, const double *C)
{
    if (n == 1) return fabs(C[0]);
    double scale = max_abs(n, C);
    if (!(scale > 0)) return 0;
    if (!symmetric(n, C, 1e-14 * scale)) return gelfand(n, C, scale);
    double *W = hdg_xmalloc(sizeof(double) * n * n), *ev = hdg_xmalloc(sizeof(double) * n);
    memcpy(W, C, sizeof(double) * n * n);
    double r = hdg_sym_eig(n, W, ev) ? gelfand(n, C, scale) : fmax(fabs(ev[0]), fabs(ev[n - 1]));
    free(W);
    free(ev);
    return r;
}

/* rho(A cos th + B sin th) */
static double rho_dir(int F, const double *A, const double *B, double th, double *C)
{
    double c = cos(th), s = sin(th);
    for (int i = 0; i < F * F; i++) C[i] = A[i] * c + B[i] * s;
    return hdg_spectral_radius(F, C);
}

/* max over unit n of rho(A nx + B ny): hypot for one field; else 32
 * directions on [0, pi) (rho has period pi), then a golden-section search
 * around the best one. */
static double max_over_directions_2d(int F, const double *A, const double *B)
{
    if (F == 1) return hypot(A[0], B[0]);
    double C[MAXF * MAXF];
    enum { K = 32 };
    double best = -1, thb = 0;
    for (int k = 0; k < K; k++) {
        double th = M_PI * k / K, r = rho_dir(F, A, B, th, C);
        if (r > best) best = r, thb = th;
    }
    const double g = (sqrt(5.0) - 1) / 2;
    double a = thb - M_PI / K, b = thb + M_PI / K;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = rho_dir(F, A, B, x1, C), f2 = rho_dir(F, A, B, x2, C);
    for (int it = 0; it < 40; it++) {
        if (f1 > f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = rho_dir(F, A, B, x1, C);
        else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = rho_dir(F, A, B, x2, C);
        best = fmax(best, fmax(f1, f2));
    }
    return best;
}

/* The unit vector of polar angle th and azimuth ph. */
static void sphere_dir(double th, double ph, double *n)
{
    n[0] = sin(th) * cos(ph), n[1] = sin(th) * sin(ph), n[2] = cos(th);
}

/* rho(A nx + B ny + C nz) at the direction (th, ph) */
static double rho_dir3(int F, double (*A)[MAXF * MAXF], double th, double ph, double *C)
{
    double n[3];
    sphere_dir(th, ph, n);
    for (int i = 0; i < F * F; i++) C[i] = A[0][i] * n[0] + A[1][i] * n[1] + A[2][i] * n[2];
    return hdg_spectral_radius(F, C);
}

/* max over unit n of rho(A nx + B ny + C nz): the norm for one field; else
 * a 16 x 32 grid of polar and azimuthal angles on the half sphere (rho(-M)
 * = rho(M)), then a pattern search around the best direction, the step
 * halved when no neighbour is larger, down to 1e-6. */
static double max_over_directions_3d(int F, double (*A)[MAXF * MAXF])
{
    if (F == 1) return sqrt(A[0][0] * A[0][0] + A[1][0] * A[1][0] + A[2][0] * A[2][0]);
    double C[MAXF * MAXF], best = -1, thb = 0, phb = 0;
    enum { KT = 16, KP = 32 };
    for (int i = 0; i <= KT; i++)
        for (int j = 0; j < (i == 0 ? 1 : KP); j++) {
            double th = 0.5 * M_PI * i / KT, ph = 2 * M_PI * j / KP, r = rho_dir3(F, A, th, ph, C);
            if (r > best) best = r, thb = th, phb = ph;
        }
    for (double h = M_PI / KP; h > 1e-6;) {
        static const int step[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
        int moved = 0;
        for (int k = 0; k < 4; k++) {
            double th = thb + step[k][0] * h, ph = phb + step[k][1] * h, r = rho_dir3(F, A, th, ph, C);
            if (r > best) best = r, thb = th, phb = ph, moved = 1;
        }
        if (!moved) h /= 2;
    }
    return best;
}

static double max_over_directions(int dim, int F, double (*A)[MAXF * MAXF])
{
    return dim == 2 ? max_over_directions_2d(F, A[0], A[1]) : max_over_directions_3d(F, A);
}

/* The state-dependent speed (nonlinear problems), evaluated at every node
 * at every step, so cheaper: rho by Gelfand's formula |C^k|_F^(1/k), which
 * bounds rho from above for every k, at k = 2^8 or once it settles (1e-10
 * relative): too large by a factor c^(1/256) at most, c the conditioning of
 * C's eigenvectors (a step a little shorter, never a longer one); the directions sampled without the
 * refinement: 16 on [0, pi) in 2D (rho(n) of a flux Jacobian is a smooth
 * function of n: |v.n| + c for Euler, sampled within 0.5% of |v|), a
 * 6 x 12 grid of the half sphere in 3D. */
static double rho_fast(int n, const double *C)
{
    if (n == 1) return fabs(C[0]);
    double scale = max_abs(n, C);
    if (!(scale > 0)) return 0;
    double M[MAXF * MAXF], S[MAXF * MAXF], nrm = 0, L, k = 1, lr;   /* lr = log(rho / scale) */
    for (int i = 0; i < n * n; i++) M[i] = C[i] / scale, nrm += M[i] * M[i];
    nrm = sqrt(nrm);
    for (int i = 0; i < n * n; i++) M[i] /= nrm;
    L = log(nrm);
    lr = L;
    for (int it = 0; it < 8; it++) {
        double s2 = square_normalised(n, M, S);
        if (!(s2 > 0)) return 0;   /* nilpotent */
        L = 2 * L + log(s2);
        k *= 2;
        double l2 = L / k;
        if (fabs(l2 - lr) <= 1e-10) { lr = l2; break; }
        lr = l2;
    }
    return scale * exp(lr);
}

/* tr(C^2) = sum of the squared eigenvalues, >= 0 when they are real: a negative one (beyond
 * rounding, eps |C|_F^2) proves a pair that is not real, a system not hyperbolic at this state. */
static int not_real(int F, const double *C)
{
    double tr = 0, fr = 0;
    for (int i = 0; i < F; i++)
        for (int j = 0; j < F; j++) tr += C[i * F + j] * C[j * F + i], fr += C[i * F + j] * C[i * F + j];
    return tr < -1e-8 * fr;
}

/* The largest rho over the sampled directions; -1 when A_n at one of them has eigenvalues
 * that are not real (n in bad). */
static double max_over_directions_sampled(int dim, int F, double (*A)[MAXF * MAXF], double *bad)
{
    if (F == 1) return dim == 2 ? hypot(A[0][0], A[1][0]) : sqrt(A[0][0] * A[0][0] + A[1][0] * A[1][0] + A[2][0] * A[2][0]);
    double C[MAXF * MAXF], best = 0, n[3];
    int KT = dim == 2 ? 1 : 6, KP = dim == 2 ? 16 : 12;
    for (int i = 0; i < KT; i++)
        for (int j = 0; j < KP; j++) {
            if (dim == 2) n[0] = cos(M_PI * j / KP), n[1] = sin(M_PI * j / KP), n[2] = 0;
            else sphere_dir(0.5 * M_PI * (i + 0.5) / KT, 2 * M_PI * j / KP, n);
            for (int q = 0; q < F * F; q++) {
                C[q] = A[0][q] * n[0] + A[1][q] * n[1];
                if (dim == 3) C[q] += A[2][q] * n[2];
            }
            if (not_real(F, C)) {
                memcpy(bad, n, sizeof n);
                return -1;
            }
            best = fmax(best, rho_fast(F, C));
        }
    return best;
}

/* ------------------------------------------------------------ the speed */

/* The reaction R's rate over the stability limit of its eigenvalues
 * (dg_speed.h): a symmetric R by its eigenvalues, any other by its spectral
 * radius and the disk. */
static double react_rate(int F, const double *R)
{
    double scale = max_abs(F, R);
    if (!(scale > 0)) return 0;
    if (!symmetric(F, R, 1e-14 * scale)) return hdg_spectral_radius(F, R) / hdg_lserk4_disk_radius;
    double W[MAXF * MAXF], ev[MAXF];
    memcpy(W, R, sizeof(double) * F * F);
    if (hdg_sym_eig(F, W, ev)) return hdg_spectral_radius(F, R) / hdg_lserk4_disk_radius;
    double r = 0;
    for (int i = 0; i < F; i++)
        r = fmax(r, ev[i] >= 0 ? ev[i] / hdg_lserk4_real_limit : -ev[i] / hdg_lserk4_disk_radius);
    return r;
}

/* Largest speed and reaction rate over the points x[i*3 + d] and the
 * sample times. */
static int speed_at(const form *fm, int npts, const double *x, double final, double *speed, double *react,
                    char *why, size_t n)
{
    int F = fm->F, nt = fm->dep_t ? 9 : 1;
    double A[3][MAXF * MAXF], R[MAXF * MAXF], s = 0, r = 0;
    for (int k = 0; k < nt; k++)
        for (int i = 0; i < npts; i++) {
            if (form_eval(fm, x + 3 * i, final * k / 8.0, A, R, why, n)) return -1;
            s = fmax(s, max_over_directions(fm->dim, F, A));
            r = fmax(r, react_rate(F, R));
        }
    *speed = s;
    *react = r;
    return 0;
}

/* The element's step at cfl 1: the advective and the reaction bounds joined
 * (dg_speed.h); INFINITY when neither bounds it. */
static double unit_step(double speed, double react, double rin, double kN)
{
    double adv = speed > 0 ? rin * kN / speed : INFINITY;
    if (!(react > 0)) return adv;
    return 1.0 / (speed / (rin * kN) + react);
}

/* The physical point of node i of element e (the triangle's map written as
 * always, hdg_geom_map). */
static void node_point(const hdg_mesh *m, const hdg_refel *re, int e, int i, double *x)
{
    if (re->dim == 2) {
        hdg_geom_map(m, e, re->r[i], re->s[i], &x[0], &x[1]);
        return;
    }
    double r[3] = { re->r[i], re->s[i], re->t[i] };
    hdg_geom_map_point(m, e, r, x);
}

void hdg_dg_char_speed_piece(const hdg_problem *p, const hdg_dg_lowered *L, const hdg_mesh *m,
                             const hdg_refel *re, const hdg_geom *g, double final, hdg_dg_speed *out)
{
    memset(out, 0, sizeof *out);
    out->dim = L->dim;
    form fm;
    form_build(&fm, p, L);
    int Np = re->Np;
    double *x = hdg_xcalloc(3 * (size_t)Np, sizeof(double)), s0 = 0, r0 = 0;
    double kN = hdg_dg_dt(re->N, 1.0, 1.0);
    int ok = 1;
    if (!fm.dep_xy) ok = !speed_at(&fm, 1, x, final, &s0, &r0, out->why, sizeof out->why);
    out->rmin = out->unit = INFINITY;
    for (int e = 0; ok && e < m->ne; e++) {
        double s = s0, r = r0;
        if (fm.dep_xy) {
            for (int i = 0; i < Np; i++) node_point(m, re, e, i, x + 3 * i);
            ok = !speed_at(&fm, Np, x, final, &s, &r, out->why, sizeof out->why);
        }
        if (ok && s > 0) out->rmin = fmin(out->rmin, g->rin[e] / s);
        if (ok) out->unit = fmin(out->unit, unit_step(s, r, g->rin[e], kN));
        out->max = fmax(out->max, s);
        out->react = fmax(out->react, r);
    }
    out->known = ok;
    free(x);
    free(fm.t);
}

int hdg_dg_speed_state_dependent(const hdg_problem *p, const hdg_dg_lowered *L)
{
    form fm;
    form_build(&fm, p, L);
    free(fm.t);
    return fm.dep_state;
}

int hdg_dg_char_speed_state(const hdg_problem *p, const hdg_dg_lowered *L, const hdg_mesh *m, const hdg_refel *re,
                            const hdg_geom *g, double t, const double *U, const int *pos, int nrows,
                            hdg_dg_speed *out)
{
    memset(out, 0, sizeof *out);
    out->dim = L->dim;
    out->rmin = out->unit = INFINITY;
    form fm;
    form_build(&fm, p, L);
    fm.Np = re->Np;
    double x[3] = {0}, kN = hdg_dg_dt(re->N, 1.0, 1.0), A[3][MAXF * MAXF], R[MAXF * MAXF];
    int bad = -1;
    for (int e = 0; bad < 0 && e < m->ne; e++) {
        int row = pos ? pos[e] : e;
        if (row >= nrows) continue;   /* ghosts: their owners measure them */
        fm.U = U + (size_t)row * L->nfields * re->Np;
        double s = 0, r = 0;
        for (int i = 0; bad < 0 && i < re->Np; i++) {
            fm.node = i;
            node_point(m, re, e, i, x);
            if (form_eval(&fm, x, t, A, R, out->why, sizeof out->why)) { bad = e; break; }
            double nb[3] = {0, 0, 0}, si = max_over_directions_sampled(fm.dim, fm.F, A, nb);
            if (si < 0 && !fm.dep_state) si = max_over_directions(fm.dim, fm.F, A);   /* linear: the file's system */
            if (si < 0) {
                snprintf(out->why, sizeof out->why, "at node %d (%.4g, %.4g%s) the flux Jacobian A_n for n = (%.3g, "
                         "%.3g%s) has eigenvalues that are not real (tr(A_n^2) < 0): the equations are not hyperbolic "
                         "at this state (for gas dynamics or shallow water: a negative density, pressure or depth)",
                         i, x[0], x[1], fm.dim == 3 ? ", ..." : "", nb[0], nb[1], fm.dim == 3 ? ", ..." : "");
                bad = e;
                break;
            }
            s = fmax(s, si);
            r = fmax(r, react_rate(fm.F, R));
        }
        if (bad >= 0) break;
        if (s > 0) out->rmin = fmin(out->rmin, g->rin[e] / s);
        out->unit = fmin(out->unit, unit_step(s, r, g->rin[e], kN));
        out->max = fmax(out->max, s);
        out->react = fmax(out->react, r);
    }
    out->known = bad < 0;
    free(fm.t);
    return bad;
}

void hdg_dg_speed_settle(hdg_dg_speed *sp)
{
    if (!sp->known || sp->max > 0) return;
    snprintf(sp->why, sizeof sp->why, sp->dim == 3 ? "no dx()/dy()/dz() term of an unknown gives a wave speed (the "
                                                     "flux Jacobian A nx + B ny + C nz is 0)"
                                                   : "no dx()/dy() term of an unknown gives a wave speed (the flux "
                                                     "Jacobian A nx + B ny is 0)");
    sp->known = 0;
}

void hdg_dg_char_speed(const hdg_problem *p, const hdg_dg_lowered *L, const hdg_mesh *m, const hdg_refel *re,
                       const hdg_geom *g, double final, hdg_dg_speed *out)
{
    hdg_dg_char_speed_piece(p, L, m, re, g, final, out);
    hdg_dg_speed_settle(out);
}

/* ------------------------------------------------------------ energy class */

static int why_at(char *why, size_t n, const hdg_problem *p, hdg_loc loc, const char *what)
{
    snprintf(why, n, "%s:%d:%d: %s", fname(p), loc.line, loc.col, what);
    return 0;
}

static int sources_free(const hdg_problem *p, char *why, size_t n)
{
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->role == HDG_ROLE_SOURCE && !hdg_expr_is_num(a->coef, 0))
                return why_at(why, n, p, a->loc, "a source term");
        }
    return 1;
}

static int ext_data_free(const hdg_problem *p, const hdg_dg_lowered *L, char *why, size_t n)
{
    for (int b = 0; b < p->nbcs; b++)
        for (int r = 0; r < p->bcs[b].nrules; r++) {
            const hdg_ext_rule *x = &p->bcs[b].rules[r];
            int f = 0;
            while (f < L->nfields && !(L->field_unknown[f] == x->unknown && L->field_comp[f] == x->comp)) f++;
            if (f < L->nfields && L->needs_ext[f] && x->data && !hdg_expr_is_num(x->data, 0)) {
                char msg[200];
                snprintf(msg, sizeof msg, "boundary '%s' gives exterior data for %s", p->bcs[b].label,
                         L->field_name[f]);
                return why_at(why, n, p, x->loc, msg);
            }
        }
    return 1;
}

/* ------------------------------------------------------------ faces */

/* The face terms of a row field's equation, per normal: Fi (x interior
 * values), Fe (x exterior values), over c (the common dt() coefficient). */
typedef struct faces {
    const hdg_problem *p;
    const hdg_dg_lowered *L;
    int field_of[64][3];
    double c;
} faces;

static int row_of(const faces *fc, const hdg_equation *q, int test_comp)
{
    for (int i = 0; i < q->natoms; i++)
        if (q->atoms[i].role == HDG_ROLE_TIME && q->atoms[i].test_comp == test_comp)
            return fc->field_of[q->atoms[i].trial][q->atoms[i].trial_comp];
    return -1;
}

static void face_mats(const faces *fc, const double *nv, double *Fi, double *Fe)
{
    const hdg_problem *p = fc->p;
    int F = fc->L->nfields;
    const double x0[3] = { 0, 0, 0 };
    hdg_eval_env env = env_at(p, fc->L->dim, x0, 0, nv);
    memset(Fi, 0, sizeof(double) * F * F);
    memset(Fe, 0, sizeof(double) * F * F);
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->role != HDG_ROLE_FLUX) continue;
            int r = row_of(fc, &p->equations[e], a->test_comp), col = fc->field_of[a->trial][a->trial_comp];
            double *M = a->side == HDG_SIDE_EXTERIOR ? Fe : Fi;
            M[r * F + col] += hdg_expr_eval(a->coef, &env) / fc->c;
        }
}

/* ext = M u on the faces of condition b */
static void ext_mat(const faces *fc, const hdg_bc *bc, const double *nv, double *M)
{
    int F = fc->L->nfields;
    const double x0[3] = { 0, 0, 0 };
    hdg_eval_env env = env_at(fc->p, fc->L->dim, x0, 0, nv);
    memset(M, 0, sizeof(double) * F * F);
    for (int r = 0; r < bc->nrules; r++) {
        int f = fc->field_of[bc->rules[r].unknown][bc->rules[r].comp];
        for (int j = 0; j < bc->rules[r].nterms; j++) {
            const hdg_ext_term *t = &bc->rules[r].terms[j];
            M[f * F + fc->field_of[t->unknown][t->comp]] += hdg_expr_eval(t->coef, &env);
        }
    }
}

/* The smallest eigenvalue of the symmetric part of the n x n matrix K, relative to its size. */
static double min_sym_eig(int n, const double *K)
{
    double *S = hdg_xmalloc(sizeof(double) * n * n), *ev = hdg_xmalloc(sizeof(double) * n), scale = max_abs(n, K);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) S[i * n + j] = 0.5 * (K[i * n + j] + K[j * n + i]);
    double r = hdg_sym_eig(n, S, ev) ? -1 : scale > 0 ? ev[0] / scale : 0;
    free(S);
    free(ev);
    return r;
}

/* The k-th of the normals the face check samples: 64 on the circle in 2D;
 * in 3D a 9 x 16 grid of polar and azimuthal angles over the sphere (144,
 * the poles included). */
static int check_normals(int dim) { return dim == 2 ? 64 : 9 * 16; }

static void check_normal(int dim, int k, double *nv)
{
    if (dim == 2) {
        nv[0] = cos(M_PI * k / 32), nv[1] = sin(M_PI * k / 32), nv[2] = 0;
        return;
    }
    sphere_dir(M_PI * (k / 16) / 8, 2 * M_PI * (k % 16) / 16, nv);
}

/* The face terms cannot feed energy: with V(n) = (A_weak - A_strong) n / 2
 * the volume terms' share of the faces, every interior face (u, w: the two
 * sides) and every boundary face (w = M u) adds a quadratic form >= 0 to
 * -dE/dt. Checked at the normals of check_normal; coefficients must not
 * vary in space or time. Vd[d] (d < dim): the share's matrix of direction d. */
/* V(n) entry ij: Vx nx + Vy ny (+ Vz nz). */
static double vshare(double (*Vd)[MAXF * MAXF], int dim, const double *nv, int ij)
{
    double V = Vd[0][ij] * nv[0] + Vd[1][ij] * nv[1];
    return dim == 2 ? V : V + Vd[2][ij] * nv[2];
}

static int faces_dissipate(const faces *fc, double (*Vd)[MAXF * MAXF], char *why, size_t n)
{
    const hdg_problem *p = fc->p;
    int F = fc->L->nfields, F2 = 2 * F;
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->role == HDG_ROLE_FLUX && (a->markers || depends_xy(a->coef) || hdg_expr_depends(a->coef, HDG_VAR_T)))
                return why_at(why, n, p, a->loc, "a face term varies in space or time or sits on some markers only");
        }
    for (int b = 0; b < p->nbcs; b++)
        for (int r = 0; r < p->bcs[b].nrules; r++)
            for (int j = 0; j < p->bcs[b].rules[r].nterms; j++) {
                const hdg_expr *c = p->bcs[b].rules[r].terms[j].coef;
                if (depends_xy(c) || hdg_expr_depends(c, HDG_VAR_T))
                    return why_at(why, n, p, p->bcs[b].rules[r].loc, "an exterior state varies in space or time");
            }
    double *Fi = hdg_xmalloc(sizeof(double) * 4 * F * F), *Fe = Fi + F * F, *Gi = Fe + F * F, *Ge = Gi + F * F;
    double *K = hdg_xmalloc(sizeof(double) * F2 * F2), *M = hdg_xmalloc(sizeof(double) * F * F);
    int ok = 1, dim = fc->L->dim;
    for (int k = 0; k < check_normals(dim) && ok; k++) {
        double nv[3], mv[3];
        check_normal(dim, k, nv);
        for (int d = 0; d < 3; d++) mv[d] = -nv[d];
        face_mats(fc, nv, Fi, Fe);
        face_mats(fc, mv, Gi, Ge);
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) {
                double V = vshare(Vd, dim, nv, i * F + j);
                K[i * F2 + j] = Fi[i * F + j] - V;
                K[i * F2 + F + j] = Fe[i * F + j];
                K[(F + i) * F2 + j] = Ge[i * F + j];
                K[(F + i) * F2 + F + j] = Gi[i * F + j] + V;
            }
        if (min_sym_eig(F2, K) < -1e-12) ok = why_at(why, n, p, p->loc, "the face terms can feed energy (a flux "
                                                                          "that is neither upwind nor central)");
        for (int b = 0; b < p->nbcs && ok; b++) {
            ext_mat(fc, &p->bcs[b], nv, M);
            for (int i = 0; i < F; i++)
                for (int j = 0; j < F; j++) {
                    double s = Fi[i * F + j] - vshare(Vd, dim, nv, i * F + j);
                    for (int l = 0; l < F; l++) s += Fe[i * F + l] * M[l * F + j];
                    K[i * F + j] = s;
                }
            if (min_sym_eig(F, K) < -1e-12)
                ok = why_at(why, n, p, p->bcs[b].loc, "this boundary condition can feed energy");
        }
    }
    free(Fi);
    free(K);
    free(M);
    return ok;
}

/* Vd[d] = (A_weak - A_strong) / 2 for each direction d (constant
 * coefficients, over c): the volume terms' share of the face integrals of
 * dE/dt. 0 when a part is not symmetric (no such identity). */
static int volume_faces(const form *fm, double c, double (*Vd)[MAXF * MAXF])
{
    int F = fm->F;
    double S[3][MAXF * MAXF], W[3][MAXF * MAXF];
    memset(S, 0, sizeof S);
    memset(W, 0, sizeof W);
    const double x0[3] = { 0, 0, 0 };
    hdg_eval_env env = env_at(fm->p, fm->dim, x0, 0, NULL);
    for (int i = 0; i < fm->nt; i++) {
        const vterm *v = &fm->t[i];
        if (v->kind == KIND_R) continue;
        double *M = v->sign > 0 ? S[v->kind] : W[v->kind];
        M[v->row * F + v->col] += v->sign * hdg_expr_eval(v->a->coef, &env) / c;
    }
    for (int d = 0; d < fm->dim; d++) {
        double scale = fmax(max_abs(F, S[d]), max_abs(F, W[d]));
        if (!symmetric(F, S[d], 1e-12 * scale) || !symmetric(F, W[d], 1e-12 * scale)) return 0;
    }
    for (int d = 0; d < fm->dim; d++)
        for (int i = 0; i < F * F; i++) Vd[d][i] = 0.5 * (W[d][i] - S[d][i]);
    return 1;
}

int hdg_dg_energy_bounded(const hdg_problem *p, const hdg_dg_lowered *L, char *why, size_t n)
{
    if (!sources_free(p, why, n) || !ext_data_free(p, L, why, n)) return 0;
    form fm;
    form_build(&fm, p, L);
    int F = fm.F, ok = 1;
    double A[3][MAXF * MAXF], R[MAXF * MAXF], c0 = 0;
    const double x0[3] = { 0, 0, 0 };
    if (fm.dep_xy || fm.dep_t) {
        snprintf(why, n, "coefficients of the volume or dt() terms vary in space or time");
        ok = 0;
    }
    if (ok && form_eval(&fm, x0, 0, A, R, why, n)) ok = 0;
    hdg_eval_env env = env_at(p, fm.dim, x0, 0, NULL);
    for (int f = 0; ok && f < F; f++) {
        double c = hdg_expr_eval(fm.time[f]->coef, &env);
        if (f == 0) c0 = c;
        if (c != c0) ok = why_at(why, n, p, fm.time[f]->loc, "the dt() coefficients differ between fields");
    }
    double scale = 0;
    int sym = 1;
    for (int d = 0; d < fm.dim; d++) scale = fmax(scale, max_abs(F, A[d]));
    for (int d = 0; d < fm.dim; d++) sym = sym && symmetric(F, A[d], 1e-12 * scale);
    if (ok && !sym) {
        snprintf(why, n, fm.dim == 2 ? "the flux Jacobians A, B are not symmetric"
                                     : "the flux Jacobians A, B, C are not symmetric");
        ok = 0;
    }
    if (ok && !volume_faces(&fm, c0, A)) {   /* A now holds the Vd */
        snprintf(why, n, fm.dim == 2 ? "the strong- and weak-form parts of A, B are not symmetric each"
                                     : "the strong- and weak-form parts of A, B, C are not symmetric each");
        ok = 0;
    }
    if (ok) {
        faces fc = { p, L, {{0}}, c0 };
        for (int f = 0; f < L->nfields; f++) fc.field_of[L->field_unknown[f]][L->field_comp[f]] = f;
        ok = faces_dissipate(&fc, A, why, n);
    }
    if (ok && max_abs(F, R) > 0) {   /* d/dt E gets -U^T R U: R's symmetric part must be >= 0 */
        double S[MAXF * MAXF], ev[MAXF];
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) S[i * F + j] = 0.5 * (R[i * F + j] + R[j * F + i]);
        if (hdg_sym_eig(F, S, ev) || ev[0] < -1e-12 * max_abs(F, R)) {
            snprintf(why, n, "the (u, v) terms can feed energy");
            ok = 0;
        }
    }
    free(fm.t);
    return ok;
}
