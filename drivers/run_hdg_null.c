/* run_hdg_null.c — the decisions on a singular HDG trace system (one free
 * constant fixed by its mean, refusals), the projected preconditioner and the
 * domain means (see run_hdg_null.h). */
#include "drivers/run_hdg_null.h"
#include "drivers/run_hdg_null_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_hdg_common.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/fem/geometry.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

hdg_status hdg_hdg_null_decide(const hdg_problem *p, const hdg_lowered *L, const hdg_hdg_null *N, int left,
                               double asym, hdg_report *rep, hdg_hdg_null_fix *fix, hdg_error *err)
{
    memset(fix, 0, sizeof *fix);
    fix->c.t = -1;
    hdg_report_number(rep, "solver.null_smallest", N->smallest);
    if (!N->dim && !left) return HDG_OK;
    hdg_status st = hdg_hdg_null_symmetric(asym, err);
    if (st) return st;
    if (N->single < 0 || N->cand[N->single].comp < 0) return hdg_hdg_null_refuse(p, N, err);
    hdg_hdg_null_cand c = N->cand[N->single];
    if ((st = hdg_hdg_null_unknown(p, c, &fix->u, err))) return st;
    fix->c = c;
    fix->g = 1 + L->toff[c.t] / L->nk + c.comp;
    char what[256];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_report_string(rep, "solver.null_space", "constants");
    hdg_report_string(rep, "solver.null_vectors", what);
    hdg_report_string(rep, "solver.null_mean", p->unknowns[fix->u].name);
    return HDG_OK;
}

hdg_status hdg_hdg_null_transient(const hdg_problem *p, const hdg_hdg_null *N, double sigma, hdg_report *rep,
                                  hdg_error *err)
{
    hdg_report_number(rep, "solver.null_smallest", N->smallest);
    if (!N->dim) return HDG_OK;
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    return hdg_fail(err, HDG_EINPUT, "%s: the trace matrix of a time step is singular to rounding: %s (||K z|| = "
                    "%.3g largest entry x ||z||): the dt() term, weighted sigma = %.3g, is lost beside the others, "
                    "and the step would be solved with an arbitrary constant; use a smaller --dt, or give a "
                    "Dirichlet condition", p->name, what, N->sigma[0], sigma);
}

hdg_status hdg_hdg_null_symmetric(double asym_rel, hdg_error *err)
{
    if (asym_rel <= HDG_HDG_SYMMETRIC) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "the trace matrix is singular (the constants are a null vector of it or "
                    "of its transpose) and not symmetric (relative asymmetry %.3g): such a problem is not supported; give a Dirichlet "
                    "condition on part of the boundary", asym_rel);
}

/* Does equation q have trace unknown t as a trial? */
static int couples(const hdg_equation *E, int t)
{
    for (int a = 0; a < E->natoms; a++)
        if (E->atoms[a].trial == t) return 1;
    return 0;
}

/* The element unknowns of the main system that the constants of trace t move:
 * those with as many components, trial in an equation that has t as trial. */
static int moved_unknowns(const hdg_problem *p, int t, int *list)
{
    int n = 0;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->trace || x->post || x->ncomp != p->unknowns[t].ncomp) continue;
        for (int q = 0; q < p->nequations; q++) {
            const hdg_equation *E = &p->equations[q];
            if (E->post || !couples(E, t) || !couples(E, u)) continue;
            list[n++] = u;
            break;
        }
    }
    return n;
}

hdg_status hdg_hdg_null_unknown(const hdg_problem *p, hdg_hdg_null_cand c, int *u, hdg_error *err)
{
    int list[64], n = moved_unknowns(p, c.t, list);
    for (int i = 0; i < n; i++)
        if (p->unknowns[list[i]].mean_value[c.comp]) {
            *u = list[i];
            return HDG_OK;
        }
    const hdg_unknown *T = &p->unknowns[c.t];
    const char *name = n ? p->unknowns[list[0]].name : "u";
    char what[64] = "", val[64] = "VALUE";
    if (T->ncomp > 1) {
        snprintf(what, sizeof what, " (component %d)", c.comp);
        snprintf(val, sizeof val, "[%s]", T->ncomp == 2 ? "VALUE, VALUE" : "VALUE, ...");
    }
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is defined only up to a constant (no Dirichlet "
                    "face, no Robin or reaction term fixes the constants of the trace unknown '%s'%s: they are a "
                    "null vector of the trace matrix); add a condition 'mean %s = %s' (e.g. the exact solution) "
                    "that fixes the domain mean of '%s'%s", p->file, at.line, at.col, T->name, what, name, val, name,
                    what);
}

/* y = x - sum (z.x / z.z) z over the (orthogonal) vectors */
static void project(const hdg_hdg_null_op *c, const double *x, double *y)
{
    if (x != y) c->v->copy(c->v->ctx, c->n, x, y);
    for (int j = 0; j < c->nz; j++) {
        const double *z = c->z + (size_t)j * (size_t)c->n;
        c->v->axpy(c->v->ctx, c->n, -c->v->dot(c->v->ctx, c->n, z, y) / c->zz[j], z, y);
    }
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

hdg_linop hdg_hdg_null_precond_all(hdg_hdg_null_op *c, const hdg_linop *M, const hdg_vecops *v, const double *z,
                                   int nz, double *t, long long n)
{
    c->M = M, c->v = v, c->z = z, c->t = t, c->n = n, c->nz = nz;
    for (int j = 0; j < nz; j++) c->zz[j] = v->dot(v->ctx, n, z + (size_t)j * (size_t)n, z + (size_t)j * (size_t)n);
    hdg_linop op = {c, n, null_apply};
    return op;
}


/* The integral of an orthonormal (Dubiner, PKD) expansion over an element is
 * its mode 0 times psi_0 times the element's measure over the reference one's
 * ... i.e. mode 0 times psi_0 (psi_0^2 |K_ref| = 1) times |K| (the other modes
 * are orthogonal to constants); psi_0 at the reference centroid. */
double hdg_hdg_domain_mean(const hdg_lowered *L, const hdg_mesh *M, int u, int comp, const double *xe)
{
    if (comp < 0) return hdg_hdg_rigid_moment(L, M, u, -1 - comp, xe);
    double r = -1.0 / 3, s = -1.0 / 3, P0 = 0, sum = 0, tot = 0;
    if (hdg_mesh_dim(M) == 2) hdg_dubiner_eval(0, 1, &r, &s, &P0, NULL, NULL);
    else {
        double c = -0.5;
        const double *x[3] = {&c, &c, &c};
        hdg_simplex_eval(3, 0, 1, x, &P0, NULL);
    }
    for (int e = 0; e < M->ne; e++) {
        double a = hdg_hdg_element_volume(M, e);
        sum += xe[(size_t)e * L->nl + L->uoff[u] + comp * L->np] * P0 * a;
        tot += a;
    }
    double st[2] = {sum, tot};
    hdg_comm_sum(st, 2);   /* under mpirun: over every rank's elements */
    return st[0] / st[1];
}

double hdg_hdg_mean_target(const hdg_problem *p, const hdg_mesh *M, int u, int comp)
{
    if (comp < 0) return hdg_hdg_rigid_target(p, M, u, -1 - comp);
    hdg_error err;
    hdg_quad q;
    if (hdg_quad_simplex(&q, hdg_mesh_dim(M), 2 * p->degree + 4, &err)) return NAN;
    double sum = 0, tot = 0;
    for (int e = 0; e < M->ne; e++) {
        double a = hdg_hdg_element_volume(M, e), s = 0, ws = 0;
        for (int i = 0; i < q.n; i++) {
            hdg_eval_env env = {.problem = p};
            hdg_hdg_element_point(M, e, &q, i, &env);
            s += q.w[i] * hdg_expr_eval(p->unknowns[u].mean_value[comp], &env);
            ws += q.w[i];
        }
        sum += s / ws * a;
        tot += a;
    }
    hdg_quad_free(&q);
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
