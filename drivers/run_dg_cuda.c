/* run_dg_cuda.c — the explicit DG driver on a GPU (`hdgc run --backend
 * cuda`): the lowering of the host driver compiled with NVRTC
 * (compiler/pipeline_cuda.h), everything else shared with it
 * (run_dg_common.h); this file is the device's hdg_dg_engine.
 *
 * Geometry, face map and parameters go to the device once; the initial
 * state is computed there by the _initial kernel, and every LSERK4 stage is
 * one launch of the fused _step kernel on two device state buffers that swap
 * after each stage, as on the host. The parameters of the five stages (a, b,
 * dt) sit in a table of five rows uploaded before the first step, each stage
 * pointing at its own row, so a step is five launches and no copy. The host
 * sees the ne element energies (summed there in the same order as on the
 * host, at the same steps), the element errors at the end, and the state
 * only when VTK output is asked. Time in the stage kernel is measured with
 * device events around the five launches of a step. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/handwritten.h"
#include "compiler/pipeline_cuda.h"
#include "drivers/run.h"
#include "drivers/run_dg_common.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/solve/lserk4.h"
#include "support/util.h"

typedef struct dgdev {
    hdg_dg_data *d;
    hdg_cuda_device *dev;
    hdg_cuda_compiled comp;
    int k_step, k_initial, k_errors, k_energy;
    hdg_cuptr geom, fmap, params, U, U2, res, E, Eel;   /* params: 5 rows, one per stage */
    double dt_params;                                    /* the dt in params */
    size_t bytes;                                        /* device memory of the run */
    double *Uh;                                          /* host copy of the state (output) */
} dgdev;

#define DPTR(p) ((double *)(uintptr_t)(p))

static hdg_kargs kargs(const dgdev *r, int stage, double t)
{
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = r->d->mesh->ne;
    a.geom = DPTR(r->geom);
    a.params = DPTR(r->params + (hdg_cuptr)stage * (hdg_cuptr)r->d->L.nparams * sizeof(double));
    a.t = t;
    return a;
}

/* ------------------------------------------------------------------ the engine */

static hdg_status initial(void *ctx, hdg_error *err)
{
    dgdev *r = ctx;
    hdg_kargs a = kargs(r, 0, 0.0);
    a.out[0] = DPTR(r->U);
    return hdg_launch_cuda(&r->comp, r->k_initial, r->d->mesh->ne, &a, err);
}

/* Under mpirun, before a stage: the own rows next to a ghost (rows ne_inner
 * .. ne_own, which hold every row a neighbour needs) come to the host, the
 * ghosts' rows are exchanged (run_dg_common.h) and go back to the device
 * (rows ne_own .. ne). */
static hdg_status halo(dgdev *r, hdg_error *err)
{
    hdg_dg_data *d = r->d;
    if (!d->dist) return HDG_OK;
    size_t per = (size_t)d->L.nfields * d->L.Np, ne = (size_t)d->mesh->ne;
    if (!r->Uh) r->Uh = hdg_xmalloc(sizeof(double) * (size_t)d->n);
    size_t lo = per * (size_t)d->ne_inner, mid = per * (size_t)d->ne_own, hi = per * ne;
    hdg_status st = hdg_cuda_download(r->dev, r->Uh + lo, r->U + lo * sizeof(double), sizeof(double) * (mid - lo), err);
    hdg_dg_halo_begin(d, r->Uh);
    hdg_dg_halo_end(d, r->Uh);
    if (!st && hi > mid) st = hdg_cuda_upload(r->dev, r->U + mid * sizeof(double), r->Uh + mid, sizeof(double) * (hi - mid), err);
    return st;
}

/* One step: per stage res = a res + dt rhs(t + c dt, U); U2 = U + b res; swap.
 * Under mpirun the kernel runs on the own rows (0 .. ne_own), the ghosts'
 * refreshed first. */
static hdg_status upload_params(dgdev *r, double dt, hdg_error *err);

static hdg_status step(void *ctx, double t, double dt, double *seconds, hdg_error *err)
{
    dgdev *r = ctx;
    hdg_cuda_timer tm = { NULL, NULL };
    *seconds = 0;
    hdg_status st = dt != r->dt_params ? upload_params(r, dt, err) : HDG_OK;   /* nonlinear: dt changes */
    if (!st) st = hdg_cuda_timer_start(r->dev, &tm, err);
    for (int s = 0; s < 5 && !st; s++) {
        hdg_kargs a = kargs(r, s, t + hdg_lserk4_c[s] * dt);
        a.in[0] = DPTR(r->U);
        a.imap[0] = (const int *)(uintptr_t)r->fmap;
        a.out[0] = DPTR(r->U2);
        a.out[1] = DPTR(r->res);
        st = halo(r, err);
        if (!st) st = hdg_launch_cuda(&r->comp, r->k_step, r->d->ne_own, &a, err);
        hdg_cuptr u = r->U;
        r->U = r->U2;
        r->U2 = u;
    }
    if (st) {   /* release the timer's events (if made), keep the first message */
        hdg_error ignored;
        double s;
        if (tm.start) hdg_cuda_timer_stop(r->dev, &tm, &s, &ignored);
        return st;
    }
    return hdg_cuda_timer_stop(r->dev, &tm, seconds, err);
}

static hdg_status energy(void *ctx, double *Eel, hdg_error *err)
{
    dgdev *r = ctx;
    hdg_kargs a = kargs(r, 0, 0.0);
    a.in[0] = DPTR(r->U);
    a.out[0] = DPTR(r->Eel);
    hdg_status st = hdg_launch_cuda(&r->comp, r->k_energy, r->d->ne_own, &a, err);   /* own rows (mpirun) */
    return st ? st : hdg_cuda_download(r->dev, Eel, r->Eel, sizeof(double) * (size_t)r->d->ne_own, err);
}

static hdg_status errors(void *ctx, double t, double *E, hdg_error *err)
{
    dgdev *r = ctx;
    hdg_kargs a = kargs(r, 0, t);
    a.in[0] = DPTR(r->U);
    a.out[0] = DPTR(r->E);
    hdg_status st = hdg_launch_cuda(&r->comp, r->k_errors, r->d->ne_own, &a, err);   /* own rows (mpirun) */
    size_t bytes = sizeof(double) * (size_t)r->d->ne_own * r->d->nerrout;
    return st ? st : hdg_cuda_download(r->dev, E, r->E, bytes, err);
}

static hdg_status state(void *ctx, const double **U, hdg_error *err)
{
    dgdev *r = ctx;
    if (!r->Uh) r->Uh = hdg_xmalloc(sizeof(double) * (size_t)r->d->n);
    *U = r->Uh;
    return hdg_cuda_download(r->dev, r->Uh, r->U, sizeof(double) * (size_t)r->d->n, err);
}

/* ------------------------------------------------------------------ setup */

static void human(char *buf, size_t n, double bytes)
{
    if (bytes >= 1024.0 * 1024 * 1024) snprintf(buf, n, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) snprintf(buf, n, "%.1f MiB", bytes / (1024.0 * 1024));
    else snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
}

/* Device buffers: geometry, face map, the stage parameter table, U, U2,
 * res, the element errors and energies. */
static size_t buffer_bytes(const hdg_dg_data *d, size_t sizes[8])
{
    size_t ne = (size_t)d->mesh->ne, n = (size_t)d->n, all = 0;
    sizes[0] = sizeof(double) * ne * d->L.ngeom;
    sizes[1] = sizeof(int) * ne * d->L.nimap;
    sizes[2] = sizeof(double) * 5 * (size_t)d->L.nparams;
    sizes[3] = sizes[4] = sizes[5] = sizeof(double) * n;
    sizes[6] = sizeof(double) * ne * d->nerrout;
    sizes[7] = sizeof(double) * ne;
    for (int i = 0; i < 8; i++) all += sizes[i];
    return all;
}

static hdg_status alloc_buffers(dgdev *r, hdg_error *err)
{
    size_t sizes[8];
    size_t all = buffer_bytes(r->d, sizes);
    hdg_cuptr *bufs[8] = { &r->geom, &r->fmap, &r->params, &r->U, &r->U2, &r->res, &r->E, &r->Eel };
    for (int i = 0; i < 8; i++) {
        hdg_status st = hdg_cuda_alloc(r->dev, sizes[i], bufs[i], err);
        if (st) {
            char need[32], msg[sizeof err->msg];
            human(need, sizeof need, (double)all);
            snprintf(msg, sizeof msg, "%s", err->msg);
            return hdg_fail(err, st, "%s; the DG run of '%s' (order %d, %d elements) needs %s of device memory",
                            msg, r->d->p->name, r->d->L.N, r->d->mesh->ne, need);
        }
        r->bytes += sizes[i];
    }
    return HDG_OK;
}

/* The five rows of stage parameters with the step dt (again whenever a
 * nonlinear problem's step changes). */
static hdg_status upload_params(dgdev *r, double dt, hdg_error *err)
{
    const hdg_dg_data *d = r->d;
    size_t np = (size_t)d->L.nparams;
    double *table = hdg_xmalloc(sizeof(double) * 5 * np);
    for (int s = 0; s < 5; s++) {
        double *row = table + s * np;
        memcpy(row, d->params, sizeof(double) * np);
        row[d->L.p_rka] = hdg_lserk4_a[s];
        row[d->L.p_rkb] = hdg_lserk4_b[s];
        row[d->L.p_dt] = dt;
    }
    hdg_status st = hdg_cuda_upload(r->dev, r->params, table, sizeof(double) * 5 * np, err);
    free(table);
    r->dt_params = dt;
    return st;
}

/* geometry, face map, the five rows of stage parameters; res = 0 */
static hdg_status upload(dgdev *r, hdg_error *err)
{
    const hdg_dg_data *d = r->d;
    size_t ne = (size_t)d->mesh->ne;
    hdg_status st = hdg_cuda_upload(r->dev, r->geom, d->geom, sizeof(double) * ne * d->L.ngeom, err);
    if (!st) st = hdg_cuda_upload(r->dev, r->fmap, d->fmap, sizeof(int) * ne * d->L.nimap, err);
    if (!st) st = upload_params(r, d->dt, err);
    if (!st) st = hdg_cuda_memset0(r->dev, r->res, sizeof(double) * (size_t)d->n, err);
    return st;
}

static hdg_status find_kernels(dgdev *r, hdg_error *err)
{
    const hdg_dg_lowered *L = &r->d->L;
    r->k_step = hdg_cuda_compiled_find(&r->comp, L->step);
    r->k_initial = hdg_cuda_compiled_find(&r->comp, L->initial);
    r->k_errors = hdg_cuda_compiled_find(&r->comp, L->errors);
    r->k_energy = hdg_cuda_compiled_find(&r->comp, L->energy);
    if (r->k_step < 0 || r->k_initial < 0 || r->k_errors < 0 || r->k_energy < 0)
        return hdg_fail(err, HDG_EINTERNAL, "a DG kernel is missing from the compiled CUDA module");
    return HDG_OK;
}

/* device.* as the HDG device driver names them, plus what this run holds
 * there and the stage kernel's registers. */
static void report_device(const dgdev *r, double t_upload, hdg_report *rep)
{
    const hdg_cuda_props *pr = hdg_cuda_device_props(r->dev);
    const hdg_nvrtc_stats *s = &r->comp.stats[r->k_step];
    hdg_report_string(rep, "device.name", pr->name);
    hdg_report_int(rep, "device.compute_capability", pr->cc_major * 10 + pr->cc_minor);
    hdg_report_number(rep, "device.memory_gib", (double)pr->total_mem / (1024.0 * 1024.0 * 1024.0));
    if (pr->emulated) hdg_report_bool(rep, "device.emulated", 1);
    hdg_report_int(rep, "device.memory_used_bytes", (long long)r->bytes);
    hdg_report_int(rep, "device.step_kernel.registers", s->registers);
    hdg_report_int(rep, "device.step_kernel.stack_bytes", s->stack_bytes);
    hdg_report_int(rep, "device.step_kernel.spill_bytes", (long long)s->spill_stores + s->spill_loads);
    if (r->comp.image.warning[0]) hdg_report_string(rep, "compile.warning", r->comp.image.warning);
    hdg_report_number(rep, "timings.upload", t_upload);
}

/* --kernels handwritten: the set's C kernels probed on the host, then its
 * CUDA kernels in place of the generated ones (backends/handwritten/handwritten.h). */
static hdg_status use_handwritten(dgdev *r, const hdg_run_options *opt, hdg_report *rep, hdg_error *err)
{
    if (!opt->kernels || strcmp(opt->kernels, "handwritten")) return HDG_OK;
    hdg_dg_data *d = r->d;
    double *params = hdg_dg_probe_params(d);
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = d->mesh->ne, a.geom = d->geom, a.params = params, a.imap[0] = d->fmap, a.t = 0.25;
    char used[256];
    hdg_status st = hdg_hw_use_cuda(d->p->name, d->L.N, d->L.mod, &r->comp, &a, used, sizeof used, err);
    if (!st) hdg_report_string(rep, "kernels_handwritten", used);
    free(params);
    return st;
}

static hdg_status setup(dgdev *r, const hdg_run_options *opt, hdg_report *rep, hdg_error *err)
{
    hdg_dg_data *d = r->d;
    double t1 = hdg_wtime();
    hdg_cuda_compile_options co = HDG_CUDA_COMPILE_OPTIONS_DEFAULT;
    co.use_cache = opt->use_cache;
    hdg_status st = hdg_compile_cuda(d->L.mod, &co, r->dev, &r->comp, err);
    if (st) return st;
    double t2 = hdg_wtime();
    if ((st = find_kernels(r, err))) return st;
    if ((st = hdg_dg_prepare(d, opt, err)) || (st = use_handwritten(r, opt, rep, err))) return st;
    double t3 = hdg_wtime();
    if ((st = alloc_buffers(r, err))) return st;
    if ((st = upload(r, err))) return st;
    if ((st = hdg_cuda_sync(r->dev, err))) return st;
    double t4 = hdg_wtime();
    hdg_dg_report_setup(rep, d, t2 - t1, t4 - t2, r->comp.image.cache_hit, r->comp.nkernels,
                        (long long)strlen(r->comp.source));
    report_device(r, t4 - t3, rep);
    return HDG_OK;
}

static void free_device(dgdev *r)
{
    hdg_cuptr bufs[8] = { r->geom, r->fmap, r->params, r->U, r->U2, r->res, r->E, r->Eel };
    for (int i = 0; i < 8; i++) hdg_cuda_free(r->dev, bufs[i]);
    hdg_cuda_compiled_free(&r->comp);
    free(r->Uh);
}

hdg_status hdg_run_dg_cuda(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                           struct hdg_cuda_device *dev, hdg_report *rep, hdg_error *err)
{
    if (!dev) return hdg_fail(err, HDG_EINTERNAL, "hdg_run_dg_cuda: no device");
    hdg_run_options defaults;
    opt = hdg_dg_options(opt, &defaults);
    hdg_dg_data d;
    dgdev r;
    memset(&r, 0, sizeof r);
    r.d = &d;
    r.dev = dev;
    hdg_status st = hdg_dg_lower_problem(&d, p, mesh, err);
    if (!st) st = setup(&r, opt, rep, err);
    if (!st) {
        hdg_dg_engine eng = { &r, &r.comp.info[r.k_step], initial, step, energy, errors, state };
        st = hdg_dg_integrate(&d, &eng, opt, rep, err);
    }
    free_device(&r);
    hdg_dg_data_free(&d);
    return st;
}
