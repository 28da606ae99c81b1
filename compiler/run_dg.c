/* run_dg.c — the explicit DG driver: lower the problem (ir/lower_dg.h),
 * compile its kernels, set up geometry and face maps, integrate with LSERK4
 * (runtime/lserk4.h) to the final time watching the energy, then report the
 * L2 errors, the energy, the step count and timings (and write VTK).
 *
 * Each LSERK4 stage is one launch of the fused <name>_step kernel: it reads
 * the state U (its own element and the neighbours' face values), updates the
 * residual in place and writes the new state to a second buffer; the two
 * state buffers swap after every stage, so the right-hand side never goes
 * through memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/pipeline.h"
#include "compiler/run.h"
#include "compiler/mesh_data.h"
#include "ir/lower_dg.h"
#include "runtime/geometry.h"
#include "runtime/lserk4.h"
#include "runtime/mesh.h"
#include "runtime/refel.h"
#include "runtime/vtk.h"
#include "support/util.h"

typedef struct dgrun {
    const hdg_problem *p;
    hdg_mesh *mesh;
    hdg_dg_lowered L;
    hdg_compiled comp;
    hdg_refel re;
    hdg_geom g;
    double *geom, *params, *U, *U2, *res, *E, *Eel;   /* U2: the other state buffer */
    int *fmap;
    int *pos;                         /* kernel position of mesh element e (hdg_dg_order_elements) */
    hdg_kernel_fn k_step, k_initial, k_errors, k_energy;
    const hdg_kernel_info *i_step;
    long long n;                      /* ne * F * Np */
    double t_stages;                  /* time in the stage kernel */
    long long nstages;
} dgrun;

/* ------------------------------------------------------------------ energy */

static hdg_kargs kargs(const dgrun *r, double t);

/* 1/2 sum over fields of int U_f^2 (exact for the nodal polynomials): the
 * <name>_energy kernel per element, summed here in element order. */
static double energy(dgrun *r)
{
    hdg_kargs a = kargs(r, 0.0);
    a.in[0] = r->U;
    a.out[0] = r->Eel;
    hdg_launch(r->k_energy, r->mesh->ne, &a);
    double sum = 0;
    for (int e = 0; e < r->mesh->ne; e++) sum += r->Eel[e];
    return sum;
}

/* ------------------------------------------------------------------ setup */

static hdg_status setup(dgrun *r, const hdg_run_options *opt, hdg_report *rep, hdg_error *err)
{
    const hdg_problem *p = r->p;
    double t0 = hdg_wtime();
    hdg_status st = hdg_lower_dg(p, &r->L, err);
    if (st) return st;
    double t1 = hdg_wtime();
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.use_cache = opt->use_cache;
    co.source_file = p->file;
    st = hdg_compile_c(r->L.mod, &co, &r->comp, err);
    if (st) return st;
    double t2 = hdg_wtime();
    r->k_step = hdg_compiled_find(&r->comp, r->L.step, &r->i_step);
    r->k_initial = hdg_compiled_find(&r->comp, r->L.initial, NULL);
    r->k_errors = hdg_compiled_find(&r->comp, r->L.errors, NULL);
    r->k_energy = hdg_compiled_find(&r->comp, r->L.energy, NULL);
    if (!r->k_step || !r->k_initial || !r->k_errors || !r->k_energy)
        return hdg_fail(err, HDG_EINTERNAL, "a DG kernel is missing from the compiled module");
    if ((st = hdg_refel_init(&r->re, r->L.N, err))) return st;
    if ((st = hdg_geom_init(&r->g, r->mesh, err))) return st;
    int ne = r->mesh->ne;
    r->n = (long long)ne * r->L.nfields * r->L.Np;
    r->geom = hdg_xmalloc(sizeof(double) * (size_t)ne * r->L.ngeom);
    r->fmap = hdg_xmalloc(sizeof(int) * (size_t)ne * r->L.nimap);
    if ((st = hdg_dg_fill_maps(&r->L, p, r->mesh, &r->g, r->geom, r->fmap, err))) return st;
    r->pos = hdg_xmalloc(sizeof(int) * (size_t)ne);
    hdg_dg_order_elements(&r->L, r->mesh, r->geom, r->fmap, r->pos);
    r->params = hdg_xcalloc((size_t)r->L.nparams, sizeof(double));
    for (int i = 0; i < p->nparams; i++) r->params[i] = p->params[i].value;
    r->U = hdg_xcalloc((size_t)r->n, sizeof(double));
    r->U2 = hdg_xcalloc((size_t)r->n, sizeof(double));
    r->res = hdg_xcalloc((size_t)r->n, sizeof(double));
    r->E = hdg_xcalloc((size_t)ne * (r->L.nerr + r->L.nfields), sizeof(double));
    r->Eel = hdg_xcalloc((size_t)ne, sizeof(double));
    hdg_report_number(rep, "timings.lower", t1 - t0);
    hdg_report_number(rep, "timings.compile", t2 - t1);
    hdg_report_int(rep, "compile.cache_hits", r->comp.stats.cache_hit ? 1 : 0);
    hdg_report_int(rep, "compile.kernels", r->comp.nkernels);
    hdg_report_int(rep, "compile.source_bytes", (long long)r->comp.source_bytes);
    hdg_report_number(rep, "timings.setup", hdg_wtime() - t2);
    return HDG_OK;
}

static void free_run(dgrun *r)
{
    free(r->geom);
    free(r->fmap);
    free(r->pos);
    free(r->params);
    free(r->U);
    free(r->U2);
    free(r->res);
    free(r->E);
    free(r->Eel);
    hdg_geom_free(&r->g);
    hdg_refel_free(&r->re);
    hdg_compiled_free(&r->comp);
    hdg_dg_lowered_free(&r->L);
}

static hdg_kargs kargs(const dgrun *r, double t)
{
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = r->mesh->ne;
    a.geom = r->geom;
    a.params = r->params;
    a.t = t;
    return a;
}

/* ------------------------------------------------------------------ stepping */

/* One step: per stage res = a res + dt rhs(t + c dt, U); U2 = U + b res; swap. */
static void step(dgrun *r, double t, double dt)
{
    for (int s = 0; s < 5; s++) {
        r->params[r->L.p_rka] = hdg_lserk4_a[s];
        r->params[r->L.p_rkb] = hdg_lserk4_b[s];
        r->params[r->L.p_dt] = dt;
        hdg_kargs a = kargs(r, t + hdg_lserk4_c[s] * dt);
        a.in[0] = r->U;
        a.imap[0] = r->fmap;
        a.out[0] = r->U2;
        a.out[1] = r->res;
        double t0 = hdg_wtime();
        hdg_launch(r->k_step, r->mesh->ne, &a);
        r->t_stages += hdg_wtime() - t0;
        r->nstages++;
        double *u = r->U;
        r->U = r->U2;
        r->U2 = u;
    }
}

/* ------------------------------------------------------------------ output */

typedef struct vtkout {
    const char *path;       /* .pvd (series) or .vtu (final only) */
    int series;
    int p, nlat;
    double *I, *vxy, **vals;
    char **files;
    double *times;
    int nfiles;
} vtkout;

static void vtk_open(vtkout *v, const dgrun *r, const char *path)
{
    memset(v, 0, sizeof *v);
    v->path = path;
    size_t len = strlen(path);
    v->series = len > 4 && !strcmp(path + len - 4, ".pvd");
    v->p = r->L.N > 0 ? r->L.N : 1;
    v->nlat = hdg_vtk_lattice_size(v->p);
    double *lr = hdg_xmalloc(sizeof(double) * v->nlat * 2);
    hdg_vtk_lattice(v->p, lr, lr + v->nlat);
    v->I = hdg_xmalloc(sizeof(double) * (size_t)v->nlat * r->L.Np);
    hdg_refel_interp(&r->re, v->nlat, lr, lr + v->nlat, v->I);
    free(lr);
    int ne = r->mesh->ne;
    v->vxy = hdg_xmalloc(sizeof(double) * 6 * (size_t)ne);
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < 3; k++) {
            v->vxy[6 * e + 2 * k] = r->mesh->vx[r->mesh->ev[3 * e + k]];
            v->vxy[6 * e + 2 * k + 1] = r->mesh->vy[r->mesh->ev[3 * e + k]];
        }
    v->vals = hdg_xmalloc(sizeof(double *) * r->L.nfields);
    for (int f = 0; f < r->L.nfields; f++) v->vals[f] = hdg_xmalloc(sizeof(double) * (size_t)ne * v->nlat);
}

static hdg_status vtk_write(vtkout *v, const dgrun *r, double t, hdg_error *err)
{
    int ne = r->mesh->ne, F = r->L.nfields, Np = r->L.Np;
    for (int f = 0; f < F; f++)
        for (int e = 0; e < ne; e++)
            for (int q = 0; q < v->nlat; q++) {
                double s = 0;
                for (int j = 0; j < Np; j++) s += v->I[q * Np + j] * r->U[((size_t)r->pos[e] * F + f) * Np + j];
                v->vals[f][(size_t)e * v->nlat + q] = s;
            }
    char names[HDG_DG_MAX_FIELDS][64];
    const char *np[HDG_DG_MAX_FIELDS];
    for (int f = 0; f < F; f++) {
        snprintf(names[f], sizeof names[f], "%s", r->L.field_name[f]);
        for (char *c = names[f]; *c; c++)
            if (*c == '.') *c = '_';
        np[f] = names[f];
    }
    hdg_str file;
    hdg_str_init(&file);
    if (v->series) {
        hdg_str_printf(&file, "%.*s_%05d.vtu", (int)(strlen(v->path) - 4), v->path, v->nfiles);
    } else {
        hdg_str_printf(&file, "%s", v->path);
    }
    hdg_status st = hdg_vtk_write(file.s, ne, v->vxy, v->p, F, np, (const double *const *)v->vals,
                                  HDG_VTK_LAGRANGE, err);
    if (st) { hdg_str_free(&file); return st; }
    v->files = hdg_xrealloc(v->files, sizeof(char *) * (v->nfiles + 1));
    v->times = hdg_xrealloc(v->times, sizeof(double) * (v->nfiles + 1));
    v->files[v->nfiles] = hdg_str_take(&file);
    v->times[v->nfiles++] = t;
    if (v->series) return hdg_pvd_write(v->path, v->nfiles, (const char *const *)v->files, v->times, err);
    return HDG_OK;
}

static void vtk_close(vtkout *v, int nfields)
{
    for (int i = 0; i < v->nfiles; i++) free(v->files[i]);
    free(v->files);
    free(v->times);
    free(v->I);
    free(v->vxy);
    if (v->vals)
        for (int f = 0; f < nfields; f++) free(v->vals[f]);
    free(v->vals);
}

/* ------------------------------------------------------------------ errors */

static void report_errors(dgrun *r, double t, hdg_report *rep)
{
    hdg_kargs a = kargs(r, t);
    a.in[0] = r->U;
    a.out[0] = r->E;
    hdg_launch(r->k_errors, r->mesh->ne, &a);
    int nout = r->L.nerr + r->L.nfields;
    double sums[2 * HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < r->mesh->ne; e++)
        for (int k = 0; k < nout; k++) sums[k] += r->E[(size_t)e * nout + k];
    const hdg_problem *p = r->p;
    for (int u = 0; u < p->nunknowns; u++) {   /* one entry per unknown, vector components combined */
        double s = 0;
        int have = 0;
        for (int k = 0; k < r->L.nerr; k++)
            if (r->L.field_unknown[r->L.err_field[k]] == u) { s += sums[k]; have = 1; }
        if (!have) continue;
        char path[96];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        hdg_report_number(rep, path, sqrt(s));
    }
}

/* ------------------------------------------------------------------ driver */

static void progress(const hdg_run_options *opt, long long s, long long n, double t, double rate)
{
    if (opt->progress)
        fprintf(stderr, "\rstep %lld/%lld  t = %.6g  %.1f steps/s   ", s, n, t, rate);
}

hdg_status hdg_run_dg(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                      hdg_report *rep, hdg_error *err)
{
    hdg_run_options defaults;
    if (!opt) {
        memset(&defaults, 0, sizeof defaults);
        defaults.use_cache = 1;
        opt = &defaults;
    }
    dgrun r;
    long long s = 0;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.mesh = mesh;
    hdg_status st = setup(&r, opt, rep, err);
    if (st) { free_run(&r); return st; }

    double final = opt->final_time > 0 ? opt->final_time : p->time.final;
    double cfl = opt->cfl > 0 ? opt->cfl : (p->time.cfl > 0 ? p->time.cfl : 1.0);
    double rmin = INFINITY;
    for (int e = 0; e < mesh->ne; e++) rmin = fmin(rmin, r.g.rin[e]);
    double dtmax = p->time.dt > 0 && !(opt->cfl > 0) ? p->time.dt : hdg_dg_dt(r.L.N, rmin, cfl);
    if (!(final > 0) || !(dtmax > 0)) {
        free_run(&r);
        return hdg_fail(err, HDG_EINPUT, "DG problem '%s': the final time (%g) and the time step (%g) must be "
                                         "positive (time lserk4, final = T, cfl = C)", p->name, final, dtmax);
    }
    long long nsteps = hdg_dg_nsteps(final, dtmax);
    double dt = final / (double)nsteps;
    int ne = mesh->ne, F = r.L.nfields, Np = r.L.Np;
    hdg_report_string(rep, "method", "DG");
    hdg_report_int(rep, "order", r.L.N);
    hdg_report_int(rep, "dofs.total", r.n);
    hdg_report_int(rep, "dofs.per_element", (long long)F * Np);
    hdg_report_int(rep, "dofs.fields", F);
    hdg_report_number(rep, "time.final", final);
    hdg_report_number(rep, "time.cfl", cfl);
    hdg_report_int(rep, "steps", nsteps);
    hdg_report_number(rep, "dt", dt);

    hdg_kargs a = kargs(&r, 0.0);
    a.out[0] = r.U;
    hdg_launch(r.k_initial, ne, &a);
    double e0 = energy(&r), eprev = e0, maxinc = 0;
    hdg_report_number(rep, "energy.start", e0);

    vtkout v = {0};
    if (opt->vtk) {
        vtk_open(&v, &r, opt->vtk);
        if (v.series && (st = vtk_write(&v, &r, 0.0, err))) goto done;
    }
    long long mon = nsteps <= 2000 ? 1 : nsteps / 2000;
    double tstart = hdg_wtime(), tlast = tstart, t_out = 0;

    for (s = 0; s < nsteps; s++) {
        double t = (double)s * dt;
        step(&r, t, dt);
        long long done_steps = s + 1;
        double tn = done_steps == nsteps ? final : (double)done_steps * dt;
        if (done_steps % mon == 0 || done_steps == nsteps) {
            double en = energy(&r);
            if (!isfinite(en) || en > 1e8 * (e0 + 1e-300)) {
                hdg_report_int(rep, "blowup.step", done_steps);
                hdg_report_number(rep, "blowup.time", tn);
                hdg_report_number(rep, "energy.end", en);
                st = hdg_fail(err, HDG_ESOLVER, "DG time integration blew up at step %lld (t = %.6g): energy %g "
                                                "(started at %g); try a smaller cfl", done_steps, tn, en, e0);
                goto done;
            }
            if (eprev > 0) maxinc = fmax(maxinc, (en - eprev) / eprev);
            eprev = en;
        }
        if (opt->vtk && v.series && opt->every > 0 && done_steps % opt->every == 0 && done_steps != nsteps) {
            double t0 = hdg_wtime();
            if ((st = vtk_write(&v, &r, tn, err))) goto done;
            t_out += hdg_wtime() - t0;
        }
        double now = hdg_wtime();
        if (opt->progress && now - tlast > 0.5) {
            progress(opt, done_steps, nsteps, tn, done_steps / (now - tstart));
            tlast = now;
        }
    }
    double t_steps = hdg_wtime() - tstart;
    if (opt->progress) progress(opt, nsteps, nsteps, final, nsteps / fmax(t_steps, 1e-9)), fputc('\n', stderr);
    if (opt->vtk) {
        double t0 = hdg_wtime();
        if ((st = vtk_write(&v, &r, final, err))) goto done;
        t_out += hdg_wtime() - t0;
    }
    hdg_report_number(rep, "energy.end", eprev);
    hdg_report_number(rep, "energy.max_rel_increase", maxinc);
    hdg_report_int(rep, "energy.samples", nsteps / mon);
    double t0 = hdg_wtime();
    report_errors(&r, final, rep);
    hdg_report_number(rep, "timings.errors", hdg_wtime() - t0);
    hdg_report_number(rep, "timings.steps", t_steps);
    hdg_report_number(rep, "timings.stages", r.t_stages);
    hdg_report_number(rep, "timings.output", t_out);
    hdg_report_int(rep, "perf.stage_evals", r.nstages);
    if (r.t_stages > 0) {   /* a stage: right-hand side and update, one kernel */
        double bytes = (double)(r.i_step->bytes_read + r.i_step->bytes_written) * ne;
        hdg_report_number(rep, "perf.stage_evals_per_s", r.nstages / r.t_stages);
        hdg_report_number(rep, "perf.stage_gbytes_per_s", bytes * r.nstages / r.t_stages * 1e-9);
        hdg_report_number(rep, "perf.stage_gflops", (double)r.i_step->flops * ne * r.nstages / r.t_stages * 1e-9);
    }
    if (t_steps > 0) hdg_report_number(rep, "perf.dof_updates_per_s", (double)r.n * nsteps / t_steps);
    if (opt->log) {
        fprintf(opt->log, "%s: DG N = %d, %d elements, %lld dofs, %lld steps of dt = %.4g to t = %g (%.3g s)\n",
                p->name, r.L.N, ne, r.n, nsteps, dt, final, t_steps);
        fprintf(opt->log, "  energy %.10g -> %.10g\n", e0, eprev);
        for (int u = 0; u < p->nunknowns; u++) {
            char path[96];
            int found = 0;
            snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
            double ev = hdg_report_get_number(rep, path, &found);
            if (found) fprintf(opt->log, "  L2 error %-8s %.6e\n", p->unknowns[u].name, ev);
        }
    }
done:
    if (st) report_errors(&r, (double)s * dt, rep);
    vtk_close(&v, F);
    free_run(&r);
    return st;
}
