/* run_dg.c — the explicit DG driver on the host: lower the problem
 * (ir/lower_dg.h), compile its kernels to C (JIT), set up geometry and face
 * maps, integrate with LSERK4 (runtime/solve/lserk4.h) to the final time watching
 * the energy, then report the L2 errors, the energy, the step count and
 * timings (and write VTK). All but how the kernels run is shared with the
 * GPU driver (run_dg_common.h); this file is the host's hdg_dg_engine.
 *
 * Each LSERK4 stage is one launch of the fused <name>_step kernel: it reads
 * the state U (its own element and the neighbours' face values), updates the
 * residual in place and writes the new state to a second buffer; the two
 * state buffers swap after every stage, so the right-hand side never goes
 * through memory.
 *
 * Under mpirun (opt->dist) each rank steps its own elements. The piece also
 * holds the ghosts (one layer of face neighbours); before every stage their
 * states come from their owners (hdg_dg_halo_*), and while they travel the
 * stage runs on the own elements that need no ghost, then, once they are in,
 * on the rest. Ghost rows are never computed, only received. */
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/handwritten.h"
#include "compiler/pipeline.h"
#include "drivers/run.h"
#include "drivers/run_dg_common.h"
#include "runtime/parallel/comm.h"
#include "runtime/solve/lserk4.h"
#include "support/util.h"

typedef struct dgrun {
    hdg_dg_data *d;
    hdg_compiled comp;
    hdg_kernel_fn k_step, k_initial, k_errors, k_energy;
    const hdg_kernel_info *i_step;
    double *U, *U2, *res;             /* U2: the other state buffer */
} dgrun;

static hdg_kargs kargs(const dgrun *r, double t)
{
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = r->d->mesh->ne;
    a.geom = r->d->geom;
    a.params = r->d->params;
    a.t = t;
    return a;
}

/* ------------------------------------------------------------------ the engine */

static hdg_status initial(void *ctx, hdg_error *err)
{
    dgrun *r = ctx;
    (void)err;
    hdg_kargs a = kargs(r, 0.0);
    a.out[0] = r->U;
    hdg_launch(r->k_initial, r->d->ne_own, &a);   /* ghosts: from the exchange */
    return HDG_OK;
}

/* One step: per stage res = a res + dt rhs(t + c dt, U); U2 = U + b res; swap. */
static hdg_status step(void *ctx, double t, double dt, double *seconds, hdg_error *err)
{
    dgrun *r = ctx;
    hdg_dg_data *d = r->d;
    (void)err;
    *seconds = 0;
    for (int s = 0; s < 5; s++) {
        d->params[d->L.p_rka] = hdg_lserk4_a[s];
        d->params[d->L.p_rkb] = hdg_lserk4_b[s];
        d->params[d->L.p_dt] = dt;
        hdg_kargs a = kargs(r, t + hdg_lserk4_c[s] * dt);
        a.in[0] = r->U;
        a.imap[0] = d->fmap;
        a.out[0] = r->U2;
        a.out[1] = r->res;
        double t0 = hdg_wtime();
        hdg_dg_halo_begin(d, r->U);
        hdg_launch_range(r->k_step, 0, d->ne_inner, &a);
        hdg_dg_halo_end(d, r->U);
        hdg_launch_range(r->k_step, d->ne_inner, d->ne_own, &a);
        *seconds += hdg_wtime() - t0;
        double *u = r->U;
        r->U = r->U2;
        r->U2 = u;
    }
    return HDG_OK;
}

static hdg_status energy(void *ctx, double *Eel, hdg_error *err)
{
    dgrun *r = ctx;
    (void)err;
    hdg_kargs a = kargs(r, 0.0);
    a.in[0] = r->U;
    a.out[0] = Eel;
    hdg_launch(r->k_energy, r->d->ne_own, &a);
    return HDG_OK;
}

static hdg_status errors(void *ctx, double t, double *E, hdg_error *err)
{
    dgrun *r = ctx;
    (void)err;
    hdg_kargs a = kargs(r, t);
    a.in[0] = r->U;
    a.out[0] = E;
    hdg_launch(r->k_errors, r->d->ne_own, &a);
    return HDG_OK;
}

static hdg_status state(void *ctx, const double **U, hdg_error *err)
{
    (void)err;
    *U = ((dgrun *)ctx)->U;
    return HDG_OK;
}

/* ------------------------------------------------------------------ driver */

/* --kernels handwritten: the hand-written kernels replace the generated ones
 * after agreeing with them on the first elements (at a stage with nonzero
 * coefficients, so the right-hand side counts). */
static hdg_status use_handwritten(dgrun *r, const hdg_run_options *opt, hdg_report *rep, hdg_error *err)
{
    if (!opt->kernels || strcmp(opt->kernels, "handwritten")) return HDG_OK;
    hdg_dg_data *d = r->d;
    double *params = hdg_dg_probe_params(d);
    hdg_kargs a = kargs(r, 0.25);
    a.params = params;
    a.imap[0] = d->fmap;
    char used[256];
    hdg_status st = hdg_hw_use_c(d->p->name, d->L.N, &r->comp, &a, used, sizeof used, err);
    if (!st) hdg_report_string(rep, "kernels_handwritten", used);
    free(params);
    return st;
}

/* Under mpirun rank 0 compiles first; the others then find the kernels in
 * the cache (one compilation per node sharing it). */
static hdg_status compile(dgrun *r, const hdg_compile_options *co, hdg_error *err)
{
    int rank = hdg_comm_rank();
    hdg_status st = rank ? HDG_OK : hdg_compile_c(r->d->L.mod, co, &r->comp, err);
    if (!hdg_comm_active() || (st = hdg_comm_agree(st, err))) return st;
    return hdg_comm_agree(rank ? hdg_compile_c(r->d->L.mod, co, &r->comp, err) : HDG_OK, err);
}

static hdg_status setup(dgrun *r, const hdg_run_options *opt, hdg_report *rep, hdg_error *err)
{
    hdg_dg_data *d = r->d;
    double t1 = hdg_wtime();
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.use_cache = opt->use_cache;
    co.source_file = d->p->file;
    hdg_status st = compile(r, &co, err);
    if (st) return st;
    double t2 = hdg_wtime();
    if ((st = hdg_dg_prepare(d, opt, err)) || (st = use_handwritten(r, opt, rep, err))) return st;
    r->k_step = hdg_compiled_find(&r->comp, d->L.step, &r->i_step);
    r->k_initial = hdg_compiled_find(&r->comp, d->L.initial, NULL);
    r->k_errors = hdg_compiled_find(&r->comp, d->L.errors, NULL);
    r->k_energy = hdg_compiled_find(&r->comp, d->L.energy, NULL);
    if (!r->k_step || !r->k_initial || !r->k_errors || !r->k_energy)
        return hdg_fail(err, HDG_EINTERNAL, "a DG kernel is missing from the compiled module");
    r->U = hdg_xcalloc((size_t)d->n, sizeof(double));
    r->U2 = hdg_xcalloc((size_t)d->n, sizeof(double));
    r->res = hdg_xcalloc((size_t)d->n, sizeof(double));
    hdg_dg_report_setup(rep, d, t2 - t1, hdg_wtime() - t2, r->comp.stats.cache_hit, r->comp.nkernels,
                        (long long)r->comp.source_bytes);
    if (r->comp.stats.warning[0]) hdg_report_string(rep, "compile.warning", r->comp.stats.warning);
    return HDG_OK;
}

hdg_status hdg_run_dg(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                      hdg_report *rep, hdg_error *err)
{
    hdg_run_options defaults;
    opt = hdg_dg_options(opt, &defaults);
    hdg_dg_data d;
    dgrun r;
    memset(&r, 0, sizeof r);
    r.d = &d;
    hdg_status st = hdg_dg_lower_problem(&d, p, mesh, err);
    if (!st) st = setup(&r, opt, rep, err);
    if (!st) {
        hdg_dg_engine eng = { &r, r.i_step, initial, step, energy, errors, state };
        st = hdg_dg_integrate(&d, &eng, opt, rep, err);
    }
    free(r.U);
    free(r.U2);
    free(r.res);
    hdg_compiled_free(&r.comp);
    hdg_dg_data_free(&d);
    return st;
}
