/* run_dg_nonlinear.c — the explicit DG drivers' steps for a nonlinear
 * problem: the time step from the current wave speed, admissibility and the
 * conserved totals (see run_dg_nonlinear.h). */
#include "drivers/run_dg_nonlinear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_dg_common.h"
#include "runtime/output/report.h"
#include "runtime/parallel/comm.h"
#include "runtime/solve/lserk4.h"
#include "support/util.h"

/* The first own element (mesh numbering) with a non-finite state value, its
 * field and node in *fb, *ib; -1 when all are finite. */
static int nonfinite_state(const hdg_dg_data *d, const double *U, int *fb, int *ib)
{
    int F = d->L.nfields, Np = d->L.Np;
    for (int e = 0; e < d->mesh->ne; e++) {
        int row = d->pos[e];
        if (row >= d->ne_own) continue;
        const double *u = U + (size_t)row * F * Np;
        for (int i = 0; i < F * Np; i++)
            if (!isfinite(u[i])) {
                *fb = i / Np, *ib = i % Np;
                return e;
            }
    }
    return -1;
}

/* "rho = 1.2, m.x = ..." at node i of mesh element e. */
static void state_text(const hdg_dg_data *d, const double *U, int e, int i, char *buf, size_t n)
{
    int F = d->L.nfields, Np = d->L.Np;
    const double *u = U + (size_t)d->pos[e] * F * Np;
    size_t len = 0;
    buf[0] = 0;
    for (int f = 0; f < F && len + 1 < n; f++) {
        int w = snprintf(buf + len, n - len, "%s%s = %.6g", f ? ", " : "", d->L.field_name[f], u[f * Np + i]);
        if (w < 0) break;
        len += (size_t)w;
    }
}

static void node_xy(const hdg_dg_data *d, int e, int i, double *x)
{
    x[0] = x[1] = x[2] = 0;
    if (d->L.dim == 2) hdg_geom_map(d->mesh, e, d->re.r[i], d->re.s[i], &x[0], &x[1]);
    else hdg_geom_map_point(d->mesh, e, (double[]){ d->re.r[i], d->re.s[i], d->re.t[i] }, x);
}

static hdg_status inadmissible(const hdg_dg_data *d, const char *what, long long s, double t, hdg_error *err)
{
    return hdg_fail(err, HDG_ESOLVER, "DG problem '%s': the state left the admissible set at t = %.6g (step %lld)%s: "
                                      "%s (the solution is no longer smooth or physical there: a shock, a vacuum or "
                                      "an unstable step; see docs/method.md, section 6)",
                    d->p->name, t, s, hdg_comm_size() > 1 ? " on some rank" : "", what);
}

/* Every rank agrees on the verdict; the failing rank's message wins. */
static hdg_status agree(hdg_status st, hdg_error *err)
{
    return hdg_comm_active() ? hdg_comm_agree(st, err) : st;
}

static hdg_status check_state(const hdg_dg_data *d, const double *U, long long s, double t, hdg_error *err)
{
    int f = 0, i = 0, e = nonfinite_state(d, U, &f, &i);
    hdg_status st = HDG_OK;
    if (e >= 0) {
        char what[512], xs[96];
        double x[3];
        node_xy(d, e, i, x);
        if (d->L.dim == 2) snprintf(xs, sizeof xs, "(%.4g, %.4g)", x[0], x[1]);
        else snprintf(xs, sizeof xs, "(%.4g, %.4g, %.4g)", x[0], x[1], x[2]);
        snprintf(what, sizeof what, "%s is %g at element %d, node %d %s", d->L.field_name[f],
                 U[((size_t)d->pos[e] * d->L.nfields + f) * d->L.Np + i], e, i, xs);
        st = inadmissible(d, what, s, t, err);
    }
    return agree(st, err);
}

/* HDG_EX_STATE leaves at one node of one element: both sides the node's value. */
typedef struct node_state { const hdg_dg_data *d; const double *u; int node; } node_state;

static double node_value(void *ctx, int unknown, int comp, int op, int side)
{
    const node_state *ns = ctx;
    (void)side;
    const hdg_dg_lowered *L = &ns->d->L;
    if (op != HDG_OP_VALUE) return NAN;
    for (int f = 0; f < L->nfields; f++)
        if (L->field_unknown[f] == unknown && L->field_comp[f] == comp) return ns->u[(size_t)f * L->Np + ns->node];
    return NAN;
}

/* Every nonlinear term at every node of the own elements, with the node's
 * state on both sides of a face term and the normal of the element's face
 * 0: the first that is not finite (a sqrt or log of a negative number, a
 * division by zero) is named in msg, with the element, the point and the
 * state there. Returns the element, or -1. */
static int residual_nonfinite(const hdg_dg_data *d, const double *U, double t, char *msg, size_t n)
{
    const hdg_problem *p = d->p;
    int F = d->L.nfields, Np = d->L.Np, dim = d->L.dim;
    for (int e = 0; e < d->mesh->ne; e++) {
        int row = d->pos[e];
        if (row >= d->ne_own) continue;
        const double *g = d->geom + (size_t)row * d->L.ngeom;
        node_state ns = { d, U + (size_t)row * F * Np, 0 };
        for (int i = 0; i < Np; i++) {
            double x[3];
            node_xy(d, e, i, x);
            ns.node = i;
            hdg_eval_env env = {.x = x[0], .y = x[1], .t = t, .problem = p, .z = x[2]};
            env.nx = g[hdg_dg_g_face(dim, 0)], env.ny = g[hdg_dg_g_face(dim, 0) + 1];
            if (dim == 3) env.nz = g[hdg_dg_g_face(dim, 0) + 2];
            env.state = node_value, env.state_ctx = &ns;
            for (int q = 0; q < p->nequations; q++)
                for (int r = 0; r < p->equations[q].nresiduals; r++) {
                    const hdg_residual *res = &p->equations[q].residuals[r];
                    double v = hdg_expr_eval(res->coef, &env);
                    if (isfinite(v)) continue;
                    char sv[300];
                    state_text(d, U, e, i, sv, sizeof sv);
                    snprintf(msg, n, "the %s term at %s:%d:%d is %g at element %d, node %d (%.4g, %.4g%s), where %s",
                             res->domain == HDG_BOUNDARY ? "face" : "volume", p->file ? p->file : "<input>",
                             res->loc.line, res->loc.col, v, e, i, x[0], x[1], dim == 3 ? ", ..." : "", sv);
                    return e;
                }
        }
    }
    return -1;
}

/* int U_f over the own elements, and int |U_f| (the scale of the drift). */
static void totals(const hdg_dg_data *d, const hdg_dg_nl *nl, const double *U, double *tot, double *abs_tot)
{
    int F = d->L.nfields, Np = d->L.Np;
    double s[2 * HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < d->mesh->ne; e++) {
        int row = d->pos[e];
        if (row >= d->ne_own) continue;
        const double *u = U + (size_t)row * F * Np;
        double J = d->g.J[e];
        for (int f = 0; f < F; f++) {
            double a = 0, b = 0;
            for (int i = 0; i < Np; i++) a += nl->w[i] * u[f * Np + i], b += fabs(nl->w[i] * u[f * Np + i]);
            s[f] += J * a, s[F + f] += J * b;
        }
    }
    hdg_comm_sum(s, 2 * F);
    for (int f = 0; f < F; f++) tot[f] = s[f], abs_tot[f] = s[F + f];
}

double hdg_dg_smooth_limit(int N) { return 0.25 / ((double)N * N * N * N); }

/* The degree of each modal basis function (refel.h: Dubiner modes in H&W
 * order, (i, j) with i + j <= N on the triangle, (i, j, k) on the
 * tetrahedron). */
static void mode_degrees(int dim, int N, int *deg)
{
    int m = 0;
    for (int i = 0; i <= N; i++)
        for (int j = 0; j <= N - i; j++)
            if (dim == 2) deg[m++] = i + j;
            else
                for (int k = 0; k <= N - i - j; k++) deg[m++] = i + j + k;
}

/* The smoothness indicator (Persson & Peraire's modal decay): per own
 * element and field, the share of the top-degree modes in the field's
 * modal energy, S = sum_{deg N} uh^2 / max(sum uh^2, the mean over the
 * elements of sum uh^2) (uh = V^-1 u, orthonormal modes; the mean keeps a
 * field that is nearly 0 somewhere from counting as rough there). Its
 * largest value over the ranks in *smax; the element and field in *eb, *fb
 * (this rank's). */
static void smoothness(const hdg_dg_data *d, const double *U, double *smax, double *mine, int *eb, int *fb)
{
    int F = d->L.nfields, Np = d->L.Np, N = d->L.N;
    int *deg = hdg_xmalloc(sizeof(int) * (size_t)Np);
    double *uh = hdg_xmalloc(sizeof(double) * (size_t)Np), mean[HDG_DG_MAX_FIELDS + 1] = {0};
    double *top = hdg_xcalloc((size_t)d->mesh->ne * F * 2, sizeof(double)), *all = top + (size_t)d->mesh->ne * F;
    mode_degrees(d->L.dim, N, deg);
    for (int e = 0; e < d->mesh->ne; e++) {
        int row = d->pos[e];
        if (row >= d->ne_own) continue;
        for (int f = 0; f < F; f++) {
            const double *u = U + ((size_t)row * F + f) * Np;
            double t = 0, a = 0;
            for (int m = 0; m < Np; m++) {
                double c = 0;
                for (int i = 0; i < Np; i++) c += d->re.Vinv[m * Np + i] * u[i];
                a += c * c;
                if (deg[m] == N) t += c * c;
            }
            top[(size_t)e * F + f] = t, all[(size_t)e * F + f] = a;
            mean[f] += a;
        }
        mean[F] += 1;
    }
    hdg_comm_sum(mean, F + 1);
    double best = 0;
    *eb = -1, *fb = 0;
    for (int e = 0; e < d->mesh->ne; e++) {
        if (d->pos[e] >= d->ne_own) continue;
        for (int f = 0; f < F; f++) {
            double den = fmax(all[(size_t)e * F + f], mean[f] / fmax(mean[F], 1)), v = den > 0 ? top[(size_t)e * F + f] / den : 0;
            if (v > best) best = v, *eb = e, *fb = f;
        }
    }
    *mine = best;
    hdg_comm_max(&best, 1);
    *smax = best;
    free(deg), free(uh), free(top);
}

/* Speed of the state (over the ranks), admissibility of its Jacobian. */
static hdg_status speed(hdg_dg_data *d, const double *U, long long s, double t, hdg_error *err)
{
    int e = hdg_dg_char_speed_state(d->p, &d->L, d->mesh, &d->re, &d->g, t, U, d->pos, d->ne_own, &d->speed);
    hdg_status st = HDG_OK;
    if (e >= 0) {
        char what[900], sv[300];
        state_text(d, U, e, 0, sv, sizeof sv);
        snprintf(what, sizeof what, "no wave speed at element %d: %s (the state at its first node: %s)",
                 e, d->speed.why, sv);
        st = inadmissible(d, what, s, t, err);
        d->speed.known = 1;   /* the verdict travels through agree, not the speed's reduction */
    }
    if ((st = agree(st, err))) return st;
    hdg_dg_speed_reduce(&d->speed);
    if (!d->speed.known && !d->nl_fixed)   /* a fixed dt runs without one (a state at rest) */
        return hdg_fail(err, HDG_ESOLVER, "DG problem '%s': no wave speed at t = %.6g (step %lld): %s", d->p->name, t,
                        s, d->speed.why);
    return HDG_OK;
}

/* A fixed dt (--dt, the file's dt) is kept as given: the cfl it amounts to against the
 * state's wave speed is recorded, and the first time it exceeds 1 (the step of Hesthaven
 * and Warburton, docs/method.md section 5) the run warns (hdg_dg_nl_warn). */
static hdg_status fixed_step(hdg_dg_data *d, double t)
{
    hdg_dg_nl *nl = &d->nl;
    double unit = d->speed.known ? d->speed.unit : INFINITY;
    d->cfl_eff = unit > 0 && unit < INFINITY ? d->dt / unit : 0;
    if (nl->samples == 1) nl->unitmin = unit, nl->cflmax = d->cfl_eff;
    nl->unitmin = fmin(nl->unitmin, unit);
    nl->cflmax = fmax(nl->cflmax, d->cfl_eff);
    if (d->cfl_eff > 1 && !nl->warned) nl->warned = 1, nl->warn_t = t, nl->warn_cfl = d->cfl_eff, nl->warn_unit = unit;
    nl->dtmin = nl->dtmax = d->dt;
    return HDG_OK;
}

/* After a failure with a fixed dt above cfl 1: it may be the cause. */
static const char *fixed_hint(const hdg_dg_data *d, char *buf, size_t n)
{
    buf[0] = 0;
    if (d->nl_fixed && d->nl.cflmax > 1)
        snprintf(buf, n, "; or the fixed time step dt = %.4g, cfl %.3g against the wave speed, is unstable: try a "
                 "smaller dt or --cfl", d->dt, d->nl.cflmax);
    return buf;
}

/* The checks and the step at time t before step s. */
static hdg_status sample(hdg_dg_data *d, const hdg_dg_engine *eng, long long s, double t, int last,
                         hdg_error *err)
{
    hdg_dg_nl *nl = &d->nl;
    const double *U;
    hdg_status st = eng->state(eng->ctx, &U, err);
    if (st || (st = check_state(d, U, s, t, err))) return st;
    char what[900];
    st = residual_nonfinite(d, U, t, what, sizeof what) >= 0 ? inadmissible(d, what, s, t, err) : HDG_OK;
    if ((st = agree(st, err))) return st;
    if (!nl->Usave) nl->Usave = hdg_xmalloc(sizeof(double) * (size_t)d->n);
    memcpy(nl->Usave, U, sizeof(double) * (size_t)d->n);
    nl->tsave = t, nl->ssave = s;
    double abs_tot[HDG_DG_MAX_FIELDS], sm, smine, lim = hdg_dg_smooth_limit(d->L.N);
    int se, sf;
    smoothness(d, U, &sm, &smine, &se, &sf);
    nl->smooth_max = fmax(nl->smooth_max, sm);
    if (sm > lim) {
        hdg_status bad = HDG_OK;
        if (smine == sm && se >= 0) {
            double x[3];
            char hint[200];
            node_xy(d, se, 0, x);
            bad = hdg_fail(err, HDG_ESOLVER, "DG problem '%s': the solution left the smooth regime at t = %.6g (step "
                                             "%lld): at element %d (near (%.4g, %.4g%s)) the top-degree modes hold "
                                             "%.3g of %s's modal energy, above the limit %.3g = 0.25/N^4 for N = %d: "
                                             "a shock (or a front the mesh does not resolve); explicit DG has no "
                                             "limiter yet, so it stops here rather than go on with Gibbs "
                                             "oscillations (docs/method.md, section 6): end before the shock "
                                             "time, or refine%s",
                           d->p->name, t, s, se, x[0], x[1], d->L.dim == 3 ? ", ..." : "", sm,
                           d->L.field_name[sf], lim, d->L.N, fixed_hint(d, hint, sizeof hint));
        }
        if (!hdg_comm_active()) return bad;
        return hdg_comm_agree(bad, err);
    }
    totals(d, nl, U, nl->tot, abs_tot);
    int F = d->L.nfields;
    double drift = 0;
    for (int f = 0; f < F; f++) {
        if (!nl->samples) nl->tot0[f] = nl->tot[f], nl->scale[f] = fmax(fabs(nl->tot[f]), abs_tot[f]);
        double sc = nl->scale[f] > 0 ? nl->scale[f] : 1.0;
        drift = fmax(drift, fabs(nl->tot[f] - nl->tot0[f]) / sc);
    }
    nl->drift = fmax(nl->drift, drift);
    if (nl->nhist == nl->caphist) {
        nl->caphist = nl->caphist ? 2 * nl->caphist : 64;
        nl->hist = hdg_xrealloc(nl->hist, sizeof(double) * (size_t)nl->caphist * (F + 3));
    }
    double *h = nl->hist + (size_t)nl->nhist++ * (F + 3);
    h[0] = t, h[1] = (double)s, h[2] = drift;
    memcpy(h + 3, nl->tot, sizeof(double) * F);
    if (last) return HDG_OK;
    if ((st = speed(d, U, s, t, err))) return st;
    nl->samples++;
    nl->speedmax = fmax(nl->speedmax, d->speed.max);
    if (d->nl_fixed) return fixed_step(d, t);
    double dt = d->cfl * d->speed.unit, left = d->final - t;
    if (!(dt > 0) || !isfinite(dt))
        return hdg_fail(err, HDG_ESOLVER, "DG problem '%s': the time step from the wave speed is %g at t = %.6g",
                        d->p->name, dt, t);
    if (!(left / dt <= HDG_DG_MAX_STEPS))
        return hdg_fail(err, HDG_ESOLVER, "DG problem '%s': at t = %.6g the wave speed %.3g asks for a step dt = %.3g, "
                                          "more than %.0e steps to the final time %g", d->p->name, t, d->speed.max, dt,
                        HDG_DG_MAX_STEPS, d->final);
    long long n = hdg_dg_nsteps(left, dt);
    d->nsteps = s + n;
    d->dt = left / (double)n;
    d->cfl_eff = d->dt / d->speed.unit;
    nl->dtmin = nl->samples == 1 ? d->dt : fmin(nl->dtmin, d->dt);
    nl->dtmax = fmax(nl->dtmax, d->dt);
    return HDG_OK;
}

hdg_status hdg_dg_nl_begin(hdg_dg_data *d, const hdg_dg_engine *eng, hdg_error *err)
{
    hdg_dg_nl *nl = &d->nl;
    int Np = d->L.Np;
    nl->w = hdg_xcalloc((size_t)Np, sizeof(double));
    for (int i = 0; i < Np; i++)
        for (int j = 0; j < Np; j++) nl->w[i] += d->re.M[j * Np + i];
    return sample(d, eng, 0, 0.0, 0, err);
}

hdg_status hdg_dg_nl_step(hdg_dg_data *d, const hdg_dg_engine *eng, long long s, double t, double *dt,
                          long long *nsteps, hdg_error *err)
{
    if (s % HDG_DG_NL_EVERY) return HDG_OK;
    hdg_status st = sample(d, eng, s, t, 0, err);
    *dt = d->dt, *nsteps = d->nsteps;
    return st;
}

hdg_status hdg_dg_nl_nonfinite(hdg_dg_data *d, const hdg_dg_engine *eng, long long s, double t, hdg_error *err)
{
    const double *U;
    hdg_status st = eng->state(eng->ctx, &U, err);
    if (st) return st;
    int f = 0, i = 0, e = nonfinite_state(d, U, &f, &i);
    char what[1400], last[900] = "";
    if (d->nl.Usave && residual_nonfinite(d, d->nl.Usave, d->nl.tsave, last, sizeof last) < 0) last[0] = 0;
    if (e >= 0)
        snprintf(what, sizeof what, "%s is %g at element %d, node %d", d->L.field_name[f],
                 U[((size_t)d->pos[e] * d->L.nfields + f) * d->L.Np + i], e, i);
    else
        snprintf(what, sizeof what, "the energy is not finite");
    if (last[0]) {
        size_t len = strlen(what);
        snprintf(what + len, sizeof what - len, "; at the last check (t = %.6g, step %lld) %s", d->nl.tsave,
                 d->nl.ssave, last);
    }
    return agree(e >= 0 ? inadmissible(d, what, s, t, err) : hdg_fail(err, HDG_ESOLVER, "DG problem '%s': %s at t = %.6g "
                                                                     "(step %lld) on some rank", d->p->name, what, t, s),
                 err);
}

hdg_status hdg_dg_nl_end(hdg_dg_data *d, const hdg_dg_engine *eng, long long s, double t, hdg_error *err)
{
    return sample(d, eng, s, t, 1, err);
}

void hdg_dg_nl_report(const hdg_dg_data *d, hdg_report *rep, FILE *log)
{
    const hdg_dg_nl *nl = &d->nl;
    char path[128];
    for (int f = 0; f < d->L.nfields; f++) {
        snprintf(path, sizeof path, "totals.%s.start", d->L.field_name[f]);
        hdg_report_number(rep, path, nl->tot0[f]);
        snprintf(path, sizeof path, "totals.%s.end", d->L.field_name[f]);
        hdg_report_number(rep, path, nl->tot[f]);
    }
    hdg_report_number(rep, "totals.max_drift", nl->drift);
    int F = d->L.nfields;
    long long every = (nl->nhist + HDG_DG_NL_HISTORY - 1) / HDG_DG_NL_HISTORY;
    for (long long k = 0; k < nl->nhist; k++) {
        if (k % every && k != nl->nhist - 1) continue;
        const double *h = nl->hist + (size_t)k * (F + 3);
        hdg_report *row = hdg_report_array_push_object(rep, "totals.history");
        hdg_report_number(row, "t", h[0]);
        hdg_report_int(row, "step", (long long)h[1]);
        hdg_report_number(row, "drift", h[2]);
        for (int f = 0; f < F; f++) hdg_report_number(row, d->L.field_name[f], h[3 + f]);
    }
    hdg_report_int(rep, "speed_samples", nl->samples);
    hdg_report_number(rep, "speed_max", nl->speedmax);
    hdg_report_number(rep, "dt_min", nl->dtmin);
    hdg_report_number(rep, "dt_max", nl->dtmax);
    hdg_report_number(rep, "smoothness_max", nl->smooth_max);
    if (d->nl_fixed) {
        hdg_report_number(rep, "dt_speed_min", nl->unitmin);
        hdg_report_number(rep, "time.cfl_effective_max", nl->cflmax);
    }
    if (!log) return;
    fprintf(log, "  totals");
    for (int f = 0; f < d->L.nfields; f++) fprintf(log, "%s %s %.10g", f ? "," : "", d->L.field_name[f], nl->tot[f]);
    fprintf(log, " (max relative drift %.2e)\n", nl->drift);
    if (d->nl_fixed)
        fprintf(log, "  dt fixed at %.4g: cfl up to %.3g against the wave speed (%lld speed samples, max speed "
                "%.4g)\n", d->dt, nl->cflmax, nl->samples, nl->speedmax);
    else
        fprintf(log, "  dt from the wave speed: %.4g .. %.4g (%lld speed samples, max speed %.4g)\n", nl->dtmin,
                nl->dtmax, nl->samples, nl->speedmax);
}

void hdg_dg_nl_warn(const hdg_dg_data *d, const hdg_run_options *opt, hdg_report *rep)
{
    const hdg_dg_nl *nl = &d->nl;
    if (!d->nl_fixed || !nl->warned) return;
    char from[64], msg[700];
    if (opt->dt > 0) snprintf(from, sizeof from, "--dt %g", opt->dt);
    else snprintf(from, sizeof from, "the file's 'dt = %g'", d->p->time.dt);
    snprintf(msg, sizeof msg, "the fixed time step dt = %.4g (from %s) is cfl %.3g against the wave speed at "
             "t = %.6g (the step at cfl 1 is %.4g there): explicit LSERK4 is stable up to about cfl 1 (docs/method.md, "
             "section 5), and above it the result may be inaccurate or blow up; give a smaller dt or a cfl "
             "(--cfl, which replaces the file's dt)", d->dt, from, nl->warn_cfl, nl->warn_t, nl->warn_unit);
    hdg_report_string(rep, "warnings.dt", msg);
}

void hdg_dg_nl_free(hdg_dg_nl *nl)
{
    free(nl->w);
    free(nl->Usave);
    free(nl->hist);
    nl->w = nl->Usave = nl->hist = NULL;
}
