/* run_dg_loop.c — the LSERK4 loop of the explicit DG drivers
 * (hdg_dg_integrate, run_dg_common.h): the energy and errors from the
 * engine's kernels, the energy watch that declares an instability, progress,
 * and the report and log of a run. */
#include "drivers/run_dg_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_dg_vtk.h"
#include "drivers/run_png.h"
#include "runtime/parallel/comm.h"
#include "support/progress.h"
#include "support/util.h"

/* ------------------------------------------------------------------ energy, errors */

/* 1/2 sum over fields of int U_f^2 (exact for the nodal polynomials): the
 * <name>_energy kernel per element, summed here in kernel-row order. */
static hdg_status energy(const hdg_dg_data *d, const hdg_dg_engine *eng, double *Eel, double *sum, hdg_error *err)
{
    hdg_status st = eng->energy(eng->ctx, Eel, err);
    if (st) return st;
    double s = 0;
    for (int e = 0; e < d->ne_own; e++) s += Eel[e];
    hdg_comm_sum(&s, 1);   /* mpirun: every rank's elements, and every rank decides alike */
    *sum = s;
    return HDG_OK;
}

/* errors.<unknown>: sqrt of the summed squared errors of its fields. */
static hdg_status report_errors(const hdg_dg_data *d, const hdg_dg_engine *eng, double t, double *E,
                                hdg_report *rep, hdg_error *err)
{
    hdg_status st = eng->errors(eng->ctx, t, E, err);
    if (st) return st;
    int nout = d->nerrout;
    double sums[3 * HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < d->ne_own; e++)
        for (int k = 0; k < nout; k++) sums[k] += E[(size_t)e * nout + k];
    hdg_comm_sum(sums, nout);
    const hdg_problem *p = d->p;
    for (int u = 0; u < p->nunknowns; u++) {   /* one entry per unknown, vector components combined */
        double s = 0;
        int have = 0;
        for (int k = 0; k < d->L.nerr; k++)
            if (d->L.field_unknown[d->L.err_field[k]] == u) { s += sums[k]; have = 1; }
        if (!have) continue;
        char path[96];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        hdg_report_number(rep, path, sqrt(s));
    }
    return HDG_OK;
}

/* ------------------------------------------------------------------ the energy watch */

/* How the energy is watched (run_dg_common.h, hdg_dg_integrate). */
typedef enum { WATCH_BOUNDED, WATCH_EXACT, WATCH_LOOSE } watch_mode;
static const char *const watch_names[] = { "bounded", "exact", "loose" };

typedef struct watch {
    watch_mode mode;
    double e0, emin;       /* initial energy, smallest so far */
    double floor;          /* absolute round-off of an energy made of subnormal products (bounded) */
    double maxrise;        /* largest (E - emin) / emin */
    double eex, eex_last;  /* largest exact-solution energy so far, the latest one (WATCH_EXACT) */
    double *peak;          /* peak[j]: the largest energy of samples 0..j (sample 0: the initial state) */
    long long samples, exact_every, cap;   /* cap: peak's length (nonlinear runs may take more steps) */
} watch;

static void watch_init(watch *w, const hdg_dg_data *d, double e0, long long nsamples)
{
    memset(w, 0, sizeof *w);
    w->mode = d->energy_bounded ? WATCH_BOUNDED : d->L.nerr == d->L.nfields ? WATCH_EXACT : WATCH_LOOSE;
    w->e0 = w->emin = e0;
    w->floor = (double)d->n_global * DBL_MIN;
    w->exact_every = nsamples > 250 ? nsamples / 50 : 5;   /* at most ~1/5 of the steps' time */
    w->cap = nsamples + 2;
    w->peak = hdg_xmalloc(sizeof(double) * (size_t)w->cap);
    w->peak[0] = e0;
}

static void watch_free(watch *w) { free(w->peak), w->peak = NULL; }

/* 1/2 sum of int exact^2 at the state's time, from the _errors kernel. */
static hdg_status exact_energy(const hdg_dg_data *d, const hdg_dg_engine *eng, double t, double *E, double *eex,
                               hdg_error *err)
{
    hdg_status st = eng->errors(eng->ctx, t, E, err);
    if (st) return st;
    int nout = d->nerrout, off = d->L.nerr + d->L.nfields;
    double s = 0;
    for (int e = 0; e < d->ne_own; e++)
        for (int k = 0; k < d->L.nerr; k++) s += E[(size_t)e * nout + off + k];
    hdg_comm_sum(&s, 1);
    *eex = 0.5 * s;
    return HDG_OK;
}

/* The largest cfl worth trying: half the one that failed, rounded down to two digits. */
static double cfl_hint(const hdg_dg_data *d)
{
    double c = 0.5 * (d->cfl_eff > 0 ? d->cfl_eff : d->cfl);
    double q = pow(10.0, floor(log10(c)) - 1);
    return floor(c / q) * q;
}

static hdg_status unstable(const hdg_dg_data *d, const char *how, double from, double en, long long step, double t,
                           hdg_report *rep, hdg_error *err)
{
    hdg_report_int(rep, "blowup.step", step);
    hdg_report_number(rep, "blowup.time", t);
    hdg_report_number(rep, "energy.end", en);
    char hint[480], rel[48] = "";
    if (from > 0 && isfinite(en)) snprintf(rel, sizeof rel, " (%+.2g relative)", (en - from) / from);
    if (d->cfl_eff > 0 || !(d->p->time.dt > 0)) snprintf(hint, sizeof hint, "try --cfl <= %.2g", cfl_hint(d));
    else snprintf(hint, sizeof hint, "try a smaller 'dt' than %g", d->dt);
    if (!d->energy_bounded) {   /* the form did not rule out a growth of its own */
        size_t len = strlen(hint);
        snprintf(hint + len, sizeof hint - len, ", unless the scheme itself lets the energy grow (%s)",
                 d->energy_why);
    }
    return hdg_fail(err, HDG_ESOLVER, "unstable: the energy grew from %.13g to %.13g%s at step %lld (t = %.6g)%s; "
                                      "the time step dt = %.4g is too large: %s", from, en, rel, step, t, how, d->dt,
                    hint);
}

/* How far the energy may rise over the exact solution's (WATCH_EXACT):
 * en > eex(t) + HDG_DG_EXACT_MARGIN * (the largest of the initial energy and
 * the exact solution's so far) is growth the solution does not have. */
#define HDG_DG_EXACT_MARGIN 3.0

/* WATCH_EXACT: the energy against the exact solution's at the same time, at
 * the scheduled samples and at any sample whose energy passes the bound of
 * the latest exact energy (so that a growth between two scheduled samples is
 * looked at, without an _errors call per sample otherwise). */
static hdg_status watch_exact(watch *w, const hdg_dg_data *d, const hdg_dg_engine *eng, double en, long long k,
                              long long s, double t, double *E, hdg_report *rep, hdg_error *err)
{
    double scale = fmax(w->e0, w->eex);
    int due = k % w->exact_every == 0 || s == d->nsteps;
    /* en and the exact energies are reduced over the ranks: every rank decides alike */
    int suspect = en > w->eex_last + HDG_DG_EXACT_MARGIN * scale;
    if (!due && !suspect) return HDG_OK;
    double eex = 0;
    hdg_status st = exact_energy(d, eng, t, E, &eex, err);
    if (st) return st;
    w->eex = fmax(w->eex, eex);
    w->eex_last = eex;
    scale = fmax(w->e0, w->eex);
    if (en > eex + HDG_DG_EXACT_MARGIN * scale) {
        char how[200];
        snprintf(how, sizeof how, ", above the exact solution's (%.6g) by more than %g times the largest of its and the initial energy so far (%.6g)",
                 eex, HDG_DG_EXACT_MARGIN, scale);
        return unstable(d, how, w->e0, en, s, t, rep, err);
    }
    return HDG_OK;
}

/* The energy en after step s (time t): an instability? */
static hdg_status watch_check(watch *w, const hdg_dg_data *d, const hdg_dg_engine *eng, double en, long long s,
                              double t, double *E, hdg_report *rep, hdg_error *err)
{
    long long k = w->samples++;
    if (!isfinite(en)) return unstable(d, "", w->emin, en, s, t, rep, err);
    if (w->emin > 0) w->maxrise = fmax(w->maxrise, (en - w->emin) / w->emin);
    if (k + 2 > w->cap) w->cap = 2 * (k + 2), w->peak = hdg_xrealloc(w->peak, sizeof(double) * (size_t)w->cap);
    w->peak[k + 1] = fmax(w->peak[k], en);
    if (w->mode == WATCH_BOUNDED) {
        if (en - w->emin > HDG_DG_ENERGY_RTOL * w->emin + w->floor)
            return unstable(d, ", which it cannot do in this problem", w->emin, en, s, t, rep, err);
        w->emin = fmin(w->emin, en);
        return HDG_OK;
    }
    w->emin = fmin(w->emin, en);
    if (w->mode == WATCH_EXACT) {
        hdg_status st = watch_exact(w, d, eng, en, k, s, t, E, rep, err);
        if (st) return st;
    }
    /* a blow-up: 1e8 times the largest energy of the first half of the samples so far (not of the initial
     * state alone: a source may fill a tiny or zero initial state at any rate) */
    double ref = w->peak[(k + 1) / 2];
    if (k >= 1 && ref > 0 && en > 1e8 * ref) {
        char how[120];
        snprintf(how, sizeof how, ", 1e8 times the largest energy of the first half of the run so far (%.6g)", ref);
        return unstable(d, how, w->e0, en, s, t, rep, err);
    }
    return HDG_OK;
}

/* ------------------------------------------------------------------ the loop */

/* "step 120/4000  t = 0.03  812 steps/s  ETA 4s" on the progress line. */
static void progress(hdg_progress *line, long long s, long long n, double t, int force)
{
    if (!line->f) return;
    char eta[32];
    hdg_progress_eta(line, (double)s, (double)n, eta, sizeof eta);
    double el = hdg_wtime() - line->start;
    hdg_progress_update(line, force, "step %lld/%lld  t = %.6g  %.1f steps/s  %s", s, n, t,
                        el > 0 ? (double)s / el : 0.0, eta);
}

static void report_header(const hdg_dg_data *d, hdg_report *rep)
{
    hdg_report_string(rep, "method", "DG");
    hdg_report_int(rep, "order", d->L.N);
    hdg_report_int(rep, "dofs.total", d->n_global);
    hdg_report_int(rep, "dofs.per_element", (long long)d->L.nfields * d->L.Np);
    hdg_report_int(rep, "dofs.fields", d->L.nfields);
    hdg_report_number(rep, "time.final", d->final);
    hdg_report_number(rep, "time.cfl", d->cfl);
    hdg_report_int(rep, "steps", d->nsteps);
    hdg_report_number(rep, "dt", d->dt);
    if (d->speed.known) hdg_report_number(rep, "speed", d->speed.max);
    if (d->speed.known && d->speed.react > 0) hdg_report_number(rep, "time.reaction_step", 1.0 / d->speed.react);
    if (d->cfl_eff > 0) hdg_report_number(rep, "time.cfl_effective", d->cfl_eff);
}

static void report_perf(const hdg_dg_data *d, const hdg_dg_engine *eng, double t_steps, double t_stages,
                        double t_out, long long nstages, hdg_report *rep)
{
    long long ne = d->ne_global;
    double t[2] = {t_steps, t_stages};
    hdg_comm_max(t, 2);   /* mpirun: the slowest rank's, for the whole mesh's work */
    t_steps = t[0], t_stages = t[1];
    hdg_report_number(rep, "timings.steps", t_steps);
    hdg_report_number(rep, "timings.stages", t_stages);
    hdg_report_number(rep, "timings.output", t_out);
    hdg_report_int(rep, "perf.stage_evals", nstages);
    if (t_stages > 0) {   /* a stage: right-hand side and update, one kernel */
        const hdg_kernel_info *i = eng->step_info;
        double bytes = (double)(i->bytes_read + i->bytes_written) * ne;
        hdg_report_number(rep, "perf.stage_evals_per_s", nstages / t_stages);
        hdg_report_number(rep, "perf.stage_gbytes_per_s", bytes * nstages / t_stages * 1e-9);
        hdg_report_number(rep, "perf.stage_gflops", (double)i->flops * ne * nstages / t_stages * 1e-9);
    }
    if (t_steps > 0) hdg_report_number(rep, "perf.dof_updates_per_s", (double)d->n_global * d->nsteps / t_steps);
}

static void log_summary(const hdg_dg_data *d, const hdg_run_options *opt, double e0, double e1, double t_steps,
                        const hdg_report *rep)
{
    const hdg_problem *p = d->p;
    char sp[64] = "";
    if (d->speed.known) snprintf(sp, sizeof sp, " (cfl %.3g, speed %.4g)", d->cfl_eff, d->speed.max);
    fprintf(opt->log, "%s: DG, order %d, %lld elements, %lld dofs, %lld steps of dt = %.4g%s to t = %g (%.3g s)\n",
            p->name, d->L.N, d->ne_global, d->n_global, d->nsteps, d->dt, sp, d->final, t_steps);
    fprintf(opt->log, "  energy %.10g -> %.10g\n", e0, e1);
    for (int u = 0; u < p->nunknowns; u++) {
        char path[96];
        int found = 0;
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        double ev = hdg_report_get_number(rep, path, &found);
        if (found) fprintf(opt->log, "  L2 error %-8s %.6e\n", p->unknowns[u].name, ev);
    }
}

hdg_status hdg_dg_integrate(hdg_dg_data *d, const hdg_dg_engine *eng, const hdg_run_options *opt,
                            hdg_report *rep, hdg_error *err)
{
    int ne = d->mesh->ne;
    long long nsteps = d->nsteps, s = 0, nstages = 0;
    double final = d->final, dt = d->dt;
    if (!d->nl.on) report_header(d, rep);
    double *Eel = hdg_xcalloc((size_t)ne, sizeof(double));
    double *E = hdg_xcalloc((size_t)ne * d->nerrout, sizeof(double));
    hdg_dg_vtk v = {0};
    hdg_png_frames pf = {0};
    double e0 = 0, eprev = 0, maxinc = 0, t_stages = 0, tcur = 0;   /* tcur: time of the state */
    hdg_progress line;
    hdg_progress_begin(&line, NULL);
    watch w = {0};

    hdg_status st = eng->initial(eng->ctx, err);
    if (!st && d->nl.on) {   /* the step from the initial state */
        st = hdg_dg_nl_begin(d, eng, err);
        if (d->nl_fixed) d->nsteps = nsteps, d->dt = dt;
        nsteps = d->nsteps, dt = d->dt;
        report_header(d, rep);
    }
    if (!st) st = energy(d, eng, Eel, &e0, err);
    if (st) goto done;
    eprev = e0;
    hdg_report_number(rep, "energy.start", e0);
    if (opt->vtk || opt->snapshot) {
        hdg_dg_vtk_open(&v, d, opt->vtk);
        v.ascii = opt->vtk_ascii;
        if (v.series && (st = hdg_dg_vtk_write_state(&v, d, eng, 0.0, err))) goto done;
        if (nsteps > 0 && (st = hdg_dg_vtk_snapshot(&v, d, eng, opt, 0, 0.0, 0, err))) goto done;
    }
    if (opt->png && ((st = hdg_png_dg_open(&pf, d, opt, err)) ||
                     (st = hdg_png_dg_step(&pf, d, eng, opt, 0, nsteps, 0.0, rep, err))))
        goto done;
    long long mon = nsteps <= 2000 ? 1 : nsteps / 2000;
    watch_init(&w, d, e0, nsteps / mon);
    hdg_report_string(rep, "energy.watch", watch_names[w.mode]);
    if (w.mode != WATCH_BOUNDED) hdg_report_string(rep, "energy.watch_reason", d->energy_why);
    double tstart = hdg_wtime(), t_out = 0;
    hdg_progress_begin(&line, opt->progress ? stderr : NULL);

    for (s = 0; s < nsteps; s++) {
        double t = d->nl.on ? tcur : (double)s * dt, secs = 0;
        if (d->nl.on && s > 0 && (st = hdg_dg_nl_step(d, eng, s, t, &dt, &nsteps, err))) goto done;
        if ((st = eng->step(eng->ctx, t, dt, &secs, err))) goto done;
        t_stages += secs;
        nstages += 5;
        long long done_steps = s + 1;
        double tn = done_steps == nsteps ? final : d->nl.on ? t + dt : (double)done_steps * dt;
        tcur = tn;
        if (done_steps % mon == 0 || done_steps == nsteps) {
            double en;
            if ((st = energy(d, eng, Eel, &en, err))) goto done;
            if (d->nl.on && !isfinite(en) && (st = hdg_dg_nl_nonfinite(d, eng, done_steps, tn, err))) goto done;
            if ((st = watch_check(&w, d, eng, en, done_steps, tn, E, rep, err))) goto done;
            if (eprev > 0) maxinc = fmax(maxinc, (en - eprev) / eprev);
            eprev = en;
        }
        if (opt->vtk && v.series && opt->every > 0 && done_steps % opt->every == 0 && done_steps != nsteps) {
            double t0 = hdg_wtime();
            if ((st = hdg_dg_vtk_write_state(&v, d, eng, tn, err))) goto done;
            t_out += hdg_wtime() - t0;
        }
        if (done_steps != nsteps && (st = hdg_dg_vtk_snapshot(&v, d, eng, opt, done_steps, tn, 0, err))) goto done;
        if (opt->png && (st = hdg_png_dg_step(&pf, d, eng, opt, done_steps, nsteps, tn, rep, err))) goto done;
        progress(&line, done_steps, nsteps, tn, 0);
    }
    double t_steps = hdg_wtime() - tstart;
    hdg_progress_end(&line);
    if (d->nl.on && (st = hdg_dg_nl_end(d, eng, nsteps, final, err))) goto done;
    if (opt->vtk) {
        double t0 = hdg_wtime();
        if ((st = hdg_dg_vtk_write_state(&v, d, eng, final, err)) || (st = hdg_dg_vtk_commit(&v, d, err))) goto done;
        t_out += hdg_wtime() - t0;
    }
    if ((st = hdg_dg_vtk_snapshot(&v, d, eng, opt, nsteps, final, 1, err))) goto done;
    hdg_report_number(rep, "energy.end", eprev);
    hdg_report_number(rep, "energy.max_rel_increase", maxinc);
    hdg_report_number(rep, "energy.max_rise", w.maxrise);
    hdg_report_int(rep, "energy.samples", nsteps / mon);
    double t0 = hdg_wtime();
    if ((st = report_errors(d, eng, final, E, rep, err))) goto out;
    hdg_report_number(rep, "timings.errors", hdg_wtime() - t0);
    report_perf(d, eng, t_steps, t_stages, t_out, nstages, rep);
    if (opt->log) log_summary(d, opt, e0, eprev, t_steps, rep);
    if (d->nl.on) hdg_dg_nl_report(d, rep, opt->log);
done:
    if (d->nl.on) hdg_dg_nl_warn(d, opt, rep);
    hdg_progress_end(&line);
    if (st) {   /* the errors where it stopped, when they can still be had */
        hdg_dg_vtk_failed(&v, err);
        hdg_error ignored;
        report_errors(d, eng, tcur, E, rep, &ignored);
    }
out:
    watch_free(&w);
    hdg_dg_vtk_close(&v, d->L.nfields);
    hdg_png_dg_close(&pf);
    free(E);
    free(Eel);
    return st;
}
