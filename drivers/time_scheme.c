/* time_scheme.c — see time_scheme.h. */
#include "drivers/time_scheme.h"

#include <math.h>
#include <string.h>

static hdg_time_scheme sdirk(int order)
{
    hdg_time_scheme s = {order == 2 ? "sdirk2" : "sdirk3", 0, 0, {0}, order, 0, {{0}}, {0}, order};
    if (order == 2) {
        double g = 1 - sqrt(0.5);
        s.gamma = g;
        s.A[0][0] = g, s.A[1][0] = 1 - g, s.A[1][1] = g;
        s.c[0] = g, s.c[1] = 1;
    } else {   /* Alexander (1977): L-stable, stiffly accurate, order 3 */
        double g = 0.43586652150845899941601945;
        double t2 = (1 + g) / 2, b1 = -(6 * g * g - 16 * g + 1) / 4, b2 = (6 * g * g - 20 * g + 5) / 4;
        s.gamma = g;
        s.A[0][0] = g;
        s.A[1][0] = t2 - g, s.A[1][1] = g;
        s.A[2][0] = b1, s.A[2][1] = b2, s.A[2][2] = g;
        s.c[0] = g, s.c[1] = t2, s.c[2] = 1;
    }
    return s;
}

hdg_time_scheme hdg_time_scheme_of(const char *name)
{
    static const hdg_time_scheme bdf[3] = {{"bdf1", 1, 1, {1, 0, 0}, 0, 0, {{0}}, {0}, 1},
                                           {"bdf2", 2, 1.5, {2, -0.5, 0}, 0, 0, {{0}}, {0}, 2},
                                           {"bdf3", 3, 11.0 / 6, {3, -1.5, 1.0 / 3}, 0, 0, {{0}}, {0}, 3}};
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, bdf[i].name)) return bdf[i];
    return sdirk(!strcmp(name, "sdirk2") ? 2 : 3);
}

hdg_status hdg_time_steps(const char *name, double final, double dt, const char *from, double *dt_out, long long *n,
                          hdg_error *err)
{
    if (!(final > 0) || !(dt > 0))
        return hdg_fail(err, HDG_EINPUT, "%s: the final time (%g) and the step dt (%g) must be positive", name,
                        final, dt);
    double k = ceil(final / dt * (1 - 1e-12));
    if (!(k <= HDG_TIME_MAX_STEPS))
        return hdg_fail(err, HDG_EINPUT, "%s: the time step dt = %g (from %s) needs %.3g steps to reach t = %g, more "
                        "than the limit of %.0e implicit steps (each a trace solve); raise the step or lower the "
                        "final time", name, dt, from, k, final, HDG_TIME_MAX_STEPS);
    *n = k < 1 ? 1 : (long long)k;
    *dt_out = final / (double)*n;
    return HDG_OK;
}

void hdg_time_report(hdg_report *R, const hdg_time_scheme *sc, double dt, long long nsteps, double final,
                     long long solves, int matrices, long long its, long long its_max)
{
    hdg_report_string(R, "time.method", sc->name);
    hdg_report_int(R, "time.order", sc->order);
    hdg_report_number(R, "time.dt", dt);
    hdg_report_int(R, "time.steps", nsteps);
    hdg_report_number(R, "time.final", final);
    hdg_report_int(R, "time.solves", solves);
    hdg_report_int(R, "time.matrices", matrices);
    hdg_report_int(R, "solver.iterations_total", its);
    hdg_report_int(R, "solver.iterations_max", its_max);
}

/* y = sum_i c[i] x[i]. */
static void combine(const hdg_time_ops *o, double *y, int nx, const double *c, double *const *x)
{
    o->v->set(o->v->ctx, o->n, 0.0, y);
    for (int j = 0; j < nx; j++) o->v->axpy(o->v->ctx, o->n, c[j], x[j], y);
}

/* One SDIRK step from u (t0) to u (t0 + dt) on level lv; d: the stages' dt(u). */
static hdg_status sdirk_step(hdg_time_ops *o, const hdg_time_scheme *sc, int lv, double t0, double dt, double *u,
                             double **d, hdg_error *err)
{
    const hdg_vecops *v = o->v;
    double ig = 1 / (sc->gamma * dt);
    for (int i = 0; i < sc->stages; i++) {
        double c[4] = {ig};
        double *x[4] = {u};
        for (int j = 0; j < i; j++) c[j + 1] = ig * dt * sc->A[i][j], x[j + 1] = d[j];
        combine(o, o->hist, i + 1, c, x);
        hdg_status st = o->solve(o->ctx, lv, t0 + sc->c[i] * dt, err);
        if (st) return st;
        v->copy(v->ctx, o->n, o->out, d[i]);           /* d_i = ig U_i - h */
        v->scal(v->ctx, o->n, ig, d[i]);
        v->axpy(v->ctx, o->n, -1.0, o->hist, d[i]);
    }
    v->copy(v->ctx, o->n, o->out, u);
    return HDG_OK;
}

hdg_status hdg_time_run(const hdg_time_scheme *sc, double dt, long long nsteps, hdg_time_ops *o,
                        hdg_progress *line, hdg_error *err)
{
    const hdg_vecops *v = o->v;
    long long n = o->n;
    int depth = sc->bdf ? sc->bdf : 1;
    double *buf[7];
    for (int i = 0; i < 7; i++) buf[i] = v->alloc(v->ctx, n), v->set(v->ctx, n, 0.0, buf[i]);
    double *U[3] = {buf[0], buf[1], buf[2]}, *w = buf[3], *d[3] = {buf[4], buf[5], buf[6]};   /* u^n, u^n-1, u^n-2 */
    hdg_status st = o->initial(o->ctx, U[0], err);
    hdg_time_scheme start = sdirk(sc->bdf == 3 ? 3 : 2);
    o->sigma[0] = sc->bdf ? sc->a0 / dt : 1 / (sc->gamma * dt);
    o->sigma[1] = 1 / (start.gamma * dt);
    for (long long s = 0; s < nsteps && !st; s++) {
        double t0 = (double)s * dt;
        hdg_progress_update(line, 0, "step %lld/%lld, t = %.4g", s + 1, nsteps, t0 + dt);
        v->copy(v->ctx, n, U[0], w);
        if (!sc->bdf) st = sdirk_step(o, sc, 0, t0, dt, w, d, err);
        else if (s < sc->bdf - 1) st = sdirk_step(o, &start, 1, t0, dt, w, d, err);   /* the BDF's start */
        else {
            double c[3];
            for (int j = 0; j < sc->bdf; j++) c[j] = sc->a[j] / dt;
            combine(o, o->hist, sc->bdf, c, U);
            if (!(st = o->solve(o->ctx, 0, t0 + dt, err))) v->copy(v->ctx, n, o->out, w);
        }
        if (st) break;
        double *oldest = U[depth - 1];   /* u^(n+1) into U[0], the older ones shifted */
        for (int j = depth - 1; j > 0; j--) U[j] = U[j - 1];
        U[0] = oldest;
        v->copy(v->ctx, n, w, U[0]);
        v->copy(v->ctx, n, w, o->out);
        if (o->after_step) st = o->after_step(o->ctx, s + 1, nsteps, t0 + dt, err);
    }
    for (int i = 0; i < 7; i++) v->free(v->ctx, buf[i]);
    return st;
}
