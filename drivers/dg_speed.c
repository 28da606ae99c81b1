/* dg_speed.c — the characteristic speed of an explicit DG problem, read from its
 * atoms (see dg_speed.h); the form it reads them into is shared with the energy
 * class (dg_energy.c) through dg_speed_internal.h. */
#include "drivers/dg_speed_internal.h"

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

int hdg_dgs_depends_xy(const hdg_expr *e)
{
    return hdg_expr_depends(e, HDG_VAR_X) || hdg_expr_depends(e, HDG_VAR_Y) || hdg_expr_depends(e, HDG_VAR_Z);
}

/* The environment of a coefficient at the point x (dim coordinates), time t
 * and normal n (NULL: 0). */
hdg_eval_env hdg_dgs_env_at(const hdg_problem *p, int dim, const double *x, double t, const double *n)
{
    hdg_eval_env env = {.x = x[0], .y = x[1], .t = t, .nx = n ? n[0] : 0, .ny = n ? n[1] : 0, .problem = p};
    if (dim == 3) env.z = x[2], env.nz = n ? n[2] : 0;
    return env;
}

/* The direction (0, 1, 2) of a derivative operator. */
static int op_kind(int op) { return op == HDG_OP_DX ? KIND_A : op == HDG_OP_DY ? KIND_B : KIND_C; }

void hdg_dgs_form_build(form *fm, const hdg_problem *p, const hdg_dg_lowered *L)
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
            fm->dep_xy |= hdg_dgs_depends_xy(fm->time[f]->coef);
            fm->dep_t |= hdg_expr_depends(fm->time[f]->coef, HDG_VAR_T);
        }
    for (int i = 0; i < fm->nt; i++) {
        fm->dep_xy |= hdg_dgs_depends_xy(fm->t[i].a->coef);
        fm->dep_t |= hdg_expr_depends(fm->t[i].a->coef, HDG_VAR_T);
    }
}

const char *hdg_dgs_fname(const hdg_problem *p) { return p->file ? p->file : "<input>"; }

/* A[d] (d < dim) and R (F x F, row-major) at (x, t), rows divided by c_T.
 * Returns 0, or -1 with why filled (c_T not positive, a value not finite). */
int hdg_dgs_form_eval(const form *fm, const double *x, double t, double (*A)[MAXF * MAXF], double *R, char *why,
                     size_t n)
{
    int F = fm->F;
    hdg_eval_env env = hdg_dgs_env_at(fm->p, fm->dim, x, t, NULL);
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
            snprintf(why, n, "%s:%d:%d: the coefficient of this term is %g at %s", hdg_dgs_fname(fm->p), v->a->loc.line,
                     v->a->loc.col, c, at);
            return -1;
        }
        double *M = v->kind == KIND_R ? R : A[v->kind];
        M[v->row * F + v->col] += v->sign * c;
    }
    for (int f = 0; f < F; f++) {
        double c = fm->time[f] ? hdg_expr_eval(fm->time[f]->coef, &env) : 1.0;
        if (!(c > 0) || !isfinite(c)) {
            snprintf(why, n, "%s:%d:%d: the dt() coefficient is %g at %s, not positive", hdg_dgs_fname(fm->p),
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

double hdg_dgs_max_abs(int n, const double *C)
{
    double s = 0;
    for (int i = 0; i < n * n; i++) s = fmax(s, fabs(C[i]));
    return s;
}

int hdg_dgs_symmetric(int n, const double *C, double tol)
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
    double scale = hdg_dgs_max_abs(n, C);
    if (!(scale > 0)) return 0;
    if (!hdg_dgs_symmetric(n, C, 1e-14 * scale)) return gelfand(n, C, scale);
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
void hdg_dgs_sphere_dir(double th, double ph, double *n)
{
    n[0] = sin(th) * cos(ph), n[1] = sin(th) * sin(ph), n[2] = cos(th);
}

/* rho(A nx + B ny + C nz) at the direction (th, ph) */
static double rho_dir3(int F, double (*A)[MAXF * MAXF], double th, double ph, double *C)
{
    double n[3];
    hdg_dgs_sphere_dir(th, ph, n);
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
    double scale = hdg_dgs_max_abs(n, C);
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
            else hdg_dgs_sphere_dir(0.5 * M_PI * (i + 0.5) / KT, 2 * M_PI * j / KP, n);
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
    double scale = hdg_dgs_max_abs(F, R);
    if (!(scale > 0)) return 0;
    if (!hdg_dgs_symmetric(F, R, 1e-14 * scale)) return hdg_spectral_radius(F, R) / hdg_lserk4_disk_radius;
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
            if (hdg_dgs_form_eval(fm, x + 3 * i, final * k / 8.0, A, R, why, n)) return -1;
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
    hdg_dgs_form_build(&fm, p, L);
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
    hdg_dgs_form_build(&fm, p, L);
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
    hdg_dgs_form_build(&fm, p, L);
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
            if (hdg_dgs_form_eval(&fm, x, t, A, R, out->why, sizeof out->why)) { bad = e; break; }
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

