/* run_hdg_null.c — the constant null space of pure Neumann HDG problems (see
 * run_hdg_null.h). */
#include "drivers/run_hdg_null.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_hdg_common.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* The coefficient of atom A at the centroid of element 0 (a reaction
 * coefficient that --set made 0 is no reaction). */
static double at_centroid(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A)
{
    double x = 0, y = 0;
    if (M->ne == 0) return 0;   /* an empty piece under mpirun: the others decide */
    for (int i = 0; i < 3; i++) x += M->vx[M->ev[i]] / 3, y += M->vy[M->ev[i]] / 3;
    hdg_eval_env env = {x, y, 0, 0, 0, p};
    return hdg_expr_eval(A->coef, &env);
}

/* Does a term with an unknown on marked boundary faces (a Robin term, e.g.
 * 'qn = g - alpha*uhat') act: its coefficient nonzero at the midpoint of some
 * boundary face it covers, with that face's outward normal? (--set alpha=0
 * turns one off, leaving a pure Neumann problem.) */
static int robin_acts(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A)
{
    for (int f = 0; f < M->nf; f++) {
        if (M->fe[2 * f + 1] >= 0 || (M->partition_marker && M->fmark[f] == M->partition_marker)) continue;
        int id = M->fmark[f];
        const char *name = M->marker_names && id > 0 && id <= M->nmarkers ? M->marker_names[id] : NULL;
        if (!hdg_markers_match(A->markers, name, id)) continue;
        int a = M->fv[2 * f], b = M->fv[2 * f + 1];
        double dx = M->vx[b] - M->vx[a], dy = M->vy[b] - M->vy[a], len = hypot(dx, dy);
        hdg_eval_env env = {(M->vx[a] + M->vx[b]) / 2, (M->vy[a] + M->vy[b]) / 2, 0, dy / len, -dx / len, p};
        if (hdg_expr_eval(A->coef, &env) != 0) return 1;   /* NaN too */
    }
    return 0;
}

int hdg_hdg_null_candidate(const hdg_problem *p, const hdg_mesh *M, const unsigned char *isdir)
{
    for (int f = 0; f < M->nf; f++)
        if (isdir[f]) return -1;
    int t = -1;
    for (int u = 0; u < p->nunknowns && t < 0; u++)
        if (p->unknowns[u].trace && p->unknowns[u].ncomp == 1) t = u;
    for (int q = 0; q < p->nequations && t >= 0; q++) {
        const hdg_equation *E = &p->equations[q];
        for (int a = 0; a < E->natoms && !E->post; a++) {
            const hdg_atom *A = &E->atoms[a];
            if (A->trial < 0) continue;
            if (A->domain == HDG_BOUNDARY && A->markers && robin_acts(p, M, A)) return -1;   /* Robin */
            if (A->domain == HDG_VOLUME && A->trial_op == HDG_OP_VALUE && A->test_op == HDG_OP_VALUE &&
                p->unknowns[A->trial].ncomp == 1 && p->tests[A->test].ncomp == 1 && at_centroid(p, M, A) != 0)
                return -1;                                              /* reaction */
        }
    }
    return t;
}

double *hdg_hdg_null_vector(const hdg_lowered *L, int nf, int t)
{
    double *z = hdg_xcalloc((size_t)nf * L->m + 1, sizeof(double));
    for (int f = 0; f < nf; f++) z[(size_t)f * L->m + L->toff[t]] = 1.0;
    return z;
}

int hdg_hdg_null_confirmed(const hdg_vecops *v, long long n, const double *z, const double *Kz, double amax)
{
    double kz = v->norm2(v->ctx, n, Kz), zn = v->norm2(v->ctx, n, z);
    return isfinite(kz) && kz <= 1e-10 * amax * zn;
}

int hdg_hdg_null_left(const hdg_lowered *L, const hdg_mesh *M, const double *Ke, int t, double amax)
{
    int m = L->m, nt = L->nt, off = L->toff[t];
    double *y = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double));
    for (int e = 0; e < M->ne; e++) {
        const double *K = Ke + (size_t)e * nt * nt;
        for (int i = 0; i < 3; i++) {   /* column block of local face i, in the face's orientation */
            int g = M->ef[3 * e + i], rev = M->eforient ? M->eforient[3 * e + i] : 0;
            for (int p = 0; p < m; p++) {
                double w = 0;
                for (int j = 0; j < 3; j++) w += K[(j * m + off) * nt + i * m + p];
                y[(size_t)g * m + p] += rev && ((p % (L->k + 1)) & 1) ? -w : w;
            }
        }
    }
    double yn = 0;
    for (long long i = 0; i < (long long)M->nf * m; i++) yn += y[i] * y[i];
    free(y);
    return isfinite(yn) && sqrt(yn) <= 1e-10 * amax * sqrt((double)M->nf);
}

hdg_status hdg_hdg_null_symmetric(double asym_rel, hdg_error *err)
{
    if (asym_rel <= HDG_HDG_SYMMETRIC) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "the trace matrix is singular (the constants are a null vector of it or "
                    "of its transpose) and not symmetric (relative asymmetry %.3g): such a problem is not supported; give a Dirichlet "
                    "condition on part of the boundary", asym_rel);
}

hdg_status hdg_hdg_null_unknown(const hdg_problem *p, int *u, hdg_error *err)
{
    int first = -1;
    for (int i = 0; i < p->nunknowns; i++) {
        const hdg_unknown *x = &p->unknowns[i];
        if (x->trace || x->post || x->ncomp != 1) continue;
        if (x->mean_value[0]) {
            *u = i;
            return HDG_OK;
        }
        if (first < 0) first = i;
    }
    const char *name = first >= 0 ? p->unknowns[first].name : "u";
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is defined only up to a constant (no Dirichlet "
                    "face, no Robin or reaction term: the trace matrix is singular); add a condition 'mean %s = VALUE' "
                    "(e.g. 'mean %s = 0', or the exact solution) that fixes the domain mean of '%s'",
                    p->file, at.line, at.col, name, name, name);
}

hdg_status hdg_hdg_null_project_rhs(const hdg_vecops *v, long long n, const double *z, double *b, hdg_report *rep,
                                    hdg_error *err)
{
    double zb = v->dot(v->ctx, n, z, b), zz = v->dot(v->ctx, n, z, z), bn = v->norm2(v->ctx, n, b);
    double part = bn > 0 ? fabs(zb) / (sqrt(zz) * bn) : 0;
    hdg_report_number(rep, "solver.rhs_null_component", part);
    if (!(part <= 1e-6))
        return hdg_fail(err, HDG_EINPUT, "the data are not compatible with the pure Neumann problem: the "
                        "sources and boundary fluxes do not balance (their part along the constants is %.3g of "
                        "the right-hand side, more than 1e-6); check f and the Neumann data", part);
    v->axpy(v->ctx, n, -zb / zz, z, b);
    return HDG_OK;
}

/* Under mpirun each piece's b has partial sums on its partition faces: the
 * sums of the pieces' z.b are the whole z.b, z.z counts every face once (the
 * owned ones), and the projection is subtracted on the owned faces only.
 * ||b|| (for the compatibility ratio) is taken over owned rows, whose
 * partition faces hold a partial sum: an estimate, enough for a 1e-6 test. */
hdg_status hdg_hdg_null_project_dist(const hdg_mesh_dist *d, int nf, int m, const double *z, double *b,
                                     hdg_report *rep, hdg_error *err)
{
    double s[3] = {0, 0, 0};   /* z.b, z.z, b.b */
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < m; i++) {
            double zi = z[(size_t)f * m + i], bi = b[(size_t)f * m + i];
            s[0] += zi * bi;
            if (d->fowner[f] == d->rank) s[1] += zi * zi, s[2] += bi * bi;
        }
    hdg_comm_sum(s, 3);
    double part = s[2] > 0 ? fabs(s[0]) / sqrt(s[1] * s[2]) : 0;
    hdg_report_number(rep, "solver.rhs_null_component", part);
    if (!(part <= 1e-6))
        return hdg_fail(err, HDG_EINPUT, "the data are not compatible with the pure Neumann problem: the "
                        "sources and boundary fluxes do not balance (their part along the constants is %.3g of "
                        "the right-hand side, more than 1e-6); check f and the Neumann data", part);
    for (int f = 0; f < nf; f++)
        if (d->fowner[f] == d->rank)
            for (int i = 0; i < m; i++) b[(size_t)f * m + i] -= s[0] / s[1] * z[(size_t)f * m + i];
    return HDG_OK;
}

/* y = x - (z.x / z.z) z */
static void project(const hdg_hdg_null_op *c, const double *x, double *y)
{
    if (x != y) c->v->copy(c->v->ctx, c->n, x, y);
    c->v->axpy(c->v->ctx, c->n, -c->v->dot(c->v->ctx, c->n, c->z, y) / c->zz, c->z, y);
}

static void null_apply(void *ctx, const double *x, double *y)
{
    const hdg_hdg_null_op *c = ctx;
    if (!c->M) {
        project(c, x, y);
        return;
    }
    project(c, x, c->t);
    c->M->apply(c->M->ctx, c->t, y);
    project(c, y, y);
}

hdg_linop hdg_hdg_null_precond(hdg_hdg_null_op *c, const hdg_linop *M, const hdg_vecops *v, const double *z,
                               double *t, long long n)
{
    c->M = M, c->v = v, c->z = z, c->t = t, c->n = n;
    c->zz = v->dot(v->ctx, n, z, z);
    hdg_linop op = {c, n, null_apply};
    return op;
}

static double area(const hdg_mesh *M, int e)
{
    const int *v = M->ev + 3 * e;
    return 0.5 * fabs((M->vx[v[1]] - M->vx[v[0]]) * (M->vy[v[2]] - M->vy[v[0]]) -
                      (M->vx[v[2]] - M->vx[v[0]]) * (M->vy[v[1]] - M->vy[v[0]]));
}

/* The integral of a Dubiner expansion over an element is its mode 0 times
 * psi_0 times the area (the other modes are orthogonal to constants). */
double hdg_hdg_domain_mean(const hdg_lowered *L, const hdg_mesh *M, int u, const double *xe)
{
    double r = -1.0 / 3, s = -1.0 / 3, P0 = 0, sum = 0, tot = 0;
    hdg_dubiner_eval(0, 1, &r, &s, &P0, NULL, NULL);
    for (int e = 0; e < M->ne; e++) {
        double a = area(M, e);
        sum += xe[(size_t)e * L->nl + L->uoff[u]] * P0 * a;
        tot += a;
    }
    double st[2] = {sum, tot};
    hdg_comm_sum(st, 2);   /* under mpirun: over every rank's elements */
    return st[0] / st[1];
}

double hdg_hdg_mean_target(const hdg_problem *p, const hdg_mesh *M, int u)
{
    hdg_error err;
    hdg_quad2d q;
    if (hdg_quad_triangle(&q, 2 * p->degree + 4, &err)) return NAN;
    double sum = 0, tot = 0;
    for (int e = 0; e < M->ne; e++) {
        const int *v = M->ev + 3 * e;
        double a = area(M, e), s = 0, ws = 0;
        for (int i = 0; i < q.n; i++) {
            double l0 = -(q.r[i] + q.s[i]) / 2, l1 = (1 + q.r[i]) / 2, l2 = (1 + q.s[i]) / 2;
            hdg_eval_env env = {l0 * M->vx[v[0]] + l1 * M->vx[v[1]] + l2 * M->vx[v[2]],
                                l0 * M->vy[v[0]] + l1 * M->vy[v[1]] + l2 * M->vy[v[2]], 0, 0, 0, p};
            s += q.w[i] * hdg_expr_eval(p->unknowns[u].mean_value[0], &env);
            ws += q.w[i];
        }
        sum += s / ws * a;
        tot += a;
    }
    hdg_quad2d_free(&q);
    double st[2] = {sum, tot};
    hdg_comm_sum(st, 2);
    return st[0] / st[1];
}

hdg_status hdg_hdg_mean_shift(const hdg_problem *p, int u, double m0, double m1, double want, double *c,
                              hdg_error *err)
{
    if (!(fabs(m1 - m0) > 1e-8) || !isfinite(want))
        return hdg_fail(err, HDG_EINTERNAL, "the constant trace changes the mean of '%s' by %g (target %g)",
                        p->unknowns[u].name, m1 - m0, want);
    *c = (want - m1) / (m1 - m0);
    return HDG_OK;
}
