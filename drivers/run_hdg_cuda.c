/* run_hdg_cuda.c — the HDG driver on a GPU (--backend cuda). The same
 * lowering as run_hdg.c, its kernels compiled for the device
 * (compiler/pipeline_cuda.h); the geometry goes to the device once, then
 * every stage runs there: local systems, their statistics, trace assembly
 * into the dense-block layout, Dirichlet elimination, the Krylov solve
 * (runtime/solve/krylov.h with the device vector ops; --precond mg builds its
 * coarse space on the host and keeps only the coarse solve there), scatter
 * to the elements, recovery, post-processing and errors. What comes back:
 * one statistics triple and one squared error per element, the Dirichlet
 * face values, the element fields only when VTK output is asked for, and
 * for mg the trace matrix once (set-up) and the coarse vectors. The decisions and
 * reports are the host driver's (run_hdg_common.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/handwritten.h"
#include "drivers/mesh_data.h"
#include "drivers/nonfinite.h"
#include "compiler/pipeline_cuda.h"
#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "drivers/run_hdg_cuda_internal.h"
#include "drivers/run_hdg_mg.h"
#include "drivers/run_hdg_null.h"
#include "drivers/run_png.h"
#include "drivers/time_scheme.h"
#include "runtime/solve/blockmat.h"
#include "runtime/parallel/comm.h"
#include "runtime/cuda/cuda_trace.h"
#include "runtime/fem/geometry.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/solve/mg.h"
#include "runtime/petsc/petsc.h"
#include "support/util.h"


hdg_kargs hdg_dcu_kargs(const drun *r, hdg_cuptr geom, long long n)
{
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = n;
    a.geom = DPTR(geom);
    a.params = DPTR(r->params);
    a.t = r->t;
    return a;
}

hdg_status hdg_dcu_launch(drun *r, const char *name, long long n, const hdg_kargs *a, hdg_error *err)
{
    int k = hdg_cuda_compiled_find(&r->cc, name);
    if (k < 0) return hdg_fail(err, HDG_EINTERNAL, "kernel '%s' missing from the compiled module", name);
    return hdg_launch_cuda(&r->cc, k, n, a, err);
}

hdg_status hdg_dcu_dalloc(drun *r, size_t doubles, hdg_cuptr *p, hdg_error *err)
{
    return hdg_cuda_alloc(r->dev, sizeof(double) * (doubles ? doubles : 1), p, err);
}

hdg_status hdg_dcu_upload(drun *r, const void *h, size_t bytes, hdg_cuptr *p, hdg_error *err)
{
    hdg_status st = hdg_cuda_alloc(r->dev, bytes ? bytes : 1, p, err);
    if (!st && bytes) st = hdg_cuda_upload(r->dev, *p, h, bytes, err);
    return st;
}

/* ------------------------------------------------------------------ stages */

static hdg_status setup_stage(drun *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    hdg_status st = hdg_geom_init(&r->geo, r->mesh, err);
    if (st) return st;
    r->geom_h = hdg_xcalloc((size_t)M->ne * (size_t)r->L.ngeom, sizeof(double));
    hdg_hdg_fill_geom(&r->L, M, &r->geo, r->geom_h);
    double *params = hdg_hdg_params(r->p);
    st = hdg_dcu_upload(r, r->geom_h, sizeof(double) * (size_t)M->ne * r->L.ngeom, &r->geom, err);
    if (!st) st = hdg_dcu_upload(r, params, sizeof(double) * ((size_t)r->p->nparams + 1), &r->params, err);
    free(params);
    return st;
}

/* ---------------------------------------------------------------- driver */

static void report_device(drun *r)
{
    hdg_report *R = r->rep;
    const hdg_cuda_props *d = hdg_cuda_device_props(r->dev);
    hdg_report_string(R, "device.name", d->name);
    hdg_report_int(R, "device.compute_capability", d->cc_major * 10 + d->cc_minor);
    hdg_report_number(R, "device.memory_gib", (double)d->total_mem / (1024.0 * 1024.0 * 1024.0));
    hdg_report_int(R, "compile.cache_hits", r->cc.image.cache_hit ? 1 : 0);
    hdg_report_number(R, "compile.seconds", r->cc.t_compile);
    hdg_report_number(R, "compile.ir_passes_seconds", r->cc.t_optimize);
    hdg_report_number(R, "compile.emit_seconds", r->cc.t_emit);
    hdg_report_number(R, "compile.load_seconds", r->cc.t_load);
    hdg_report_int(R, "compile.source_bytes", r->cc.source ? (long long)strlen(r->cc.source) : 0);
    if (r->cc.image.warning[0]) hdg_report_string(R, "compile.warning", r->cc.image.warning);
    const char *names[] = { r->L.local, r->L.recover }, *paths[] = { "device.local_kernel", "device.recover_kernel" };
    for (int i = 0; i < 2; i++) {
        int k = hdg_cuda_compiled_find(&r->cc, names[i]);
        if (k < 0) continue;
        const hdg_cuda_shape *sh = &r->cc.shape[k];
        char path[96];
        snprintf(path, sizeof path, "%s.mapping", paths[i]);
        hdg_report_string(R, path, sh->mapping == HDG_CUDA_ITEM_PER_THREAD ? "thread per element"
                                   : sh->scratch_bytes ? "block per element, locals in global scratch"
                                                       : "block per element, locals in shared memory");
        snprintf(path, sizeof path, "%s.threads_per_block", paths[i]);
        hdg_report_int(R, path, sh->block);
        snprintf(path, sizeof path, "%s.shared_bytes", paths[i]);
        hdg_report_int(R, path, sh->shared_bytes);
        snprintf(path, sizeof path, "%s.scratch_bytes", paths[i]);
        hdg_report_int(R, path, sh->scratch_bytes);
        if (r->cc.stats[k].registers < 0) continue;
        snprintf(path, sizeof path, "%s.registers", paths[i]);
        hdg_report_int(R, path, r->cc.stats[k].registers);
        snprintf(path, sizeof path, "%s.stack_bytes", paths[i]);
        hdg_report_int(R, path, r->cc.stats[k].stack_bytes);
    }
}

static void run_free(drun *r)
{
    hdg_cuptr *p[] = { &r->geom, &r->params, &r->Ke, &r->Fe, &r->rhs, &r->x, &r->uh, &r->xe, &r->xp, &r->z, &r->hist,
                       &r->sl, &r->ste };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) hdg_cuda_free(r->dev, *p[i]);
    hdg_cuda_blockmat_free(&r->B);
    hdg_cuda_topology_free(&r->T);
    hdg_cuda_linalg_free(&r->la);
    hdg_cuda_compiled_free(&r->cc);
    hdg_lowered_free(&r->L);
    hdg_geom_free(&r->geo);
    free(r->geom_h);
    free(r->dofdir), free(r->xD);
    free(r->eta);
    free(r->zh), free(r->fixes);
}

/* Stage times include the device work: each stage ends with a sync. */
#define STAGE(name, call)                                                   \
    do {                                                                    \
        double t_ = hdg_wtime();                                            \
        hdg_progress_update(&line, 1, "%s ...", name);                      \
        st = (call);                                                        \
        if (!st) st = hdg_cuda_sync(r.dev, err);                            \
        st = hdg_comm_agree(st, err);   /* mpirun: every rank's */          \
        hdg_report_number(r.rep, "timings." name, hdg_wtime() - t_);        \
        if (st) goto done;                                                  \
    } while (0)

/* --kernels handwritten: the set's C kernels probed on the host, then its
 * CUDA kernels in place of the generated ones (backends/handwritten/handwritten.h). */
static hdg_status use_handwritten(drun *r, hdg_error *err)
{
    char used[256];
    double *params = hdg_hdg_params(r->p);
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = r->mesh->ne, a.geom = r->geom_h, a.params = params;
    hdg_status st = hdg_hw_use_cuda(r->p->name, r->L.k, r->L.mod, &r->cc, &a, used, sizeof used, err);
    free(params);
    if (!st) hdg_report_string(r->rep, "kernels_handwritten", used);
    return st;
}

static hdg_status compile_stage(drun *r, hdg_error *err)
{
    hdg_cuda_compile_options co = HDG_CUDA_COMPILE_OPTIONS_DEFAULT;
    co.use_cache = r->o->use_cache;
    int rank = hdg_comm_rank();   /* mpirun: rank 0 first, the others then hit the cache */
    hdg_status st = rank ? HDG_OK : hdg_compile_cuda(r->L.mod, &co, r->dev, &r->cc, err);
    if (hdg_comm_active() && !(st = hdg_comm_agree(st, err)) && rank)
        st = hdg_compile_cuda(r->L.mod, &co, r->dev, &r->cc, err);
    if (!st) st = hdg_cuda_linalg_open(r->dev, r->L.m, hdg_mesh_na(r->mesh), r->o->use_cache, &r->la, err);
    return st;
}

hdg_status hdg_run_hdg_cuda(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *o,
                            struct hdg_cuda_device *dev, hdg_report *rep, hdg_error *err)
{
    drun r;
    memset(&r, 0, sizeof r);
    r.p = p, r.mesh = mesh, r.o = o, r.rep = rep, r.dev = dev;
    r.null_t = -1;
    r.fix.c.t = -1;
    hdg_status st;
    hdg_progress line;   /* the stage names on a terminal (o->progress) */
    hdg_progress_begin(&line, o->progress ? stderr : NULL);
    STAGE("lower", hdg_lower_hdg(p, &r.L, err));
    hdg_lowered_drop_jinv(&r.L);   /* SNES (their only user) runs on the host */
    STAGE("compile", compile_stage(&r, err));
    report_device(&r);
    hdg_hdg_report_dofs(rep, mesh, &r.L);
    if (o->dist) {   /* the whole problem's */
        hdg_report_int(rep, "dofs.trace", o->dist->nf_global * r.L.m);
        hdg_report_int(rep, "dofs.element", o->dist->ne_global * r.L.nl);
    }
    STAGE("geometry", setup_stage(&r, err));
    if (o->kernels && !strcmp(o->kernels, "handwritten")) STAGE("handwritten", use_handwritten(&r, err));
    if (p->transient) {   /* implicit time stepping (Newton at every solve when nonlinear): the steps, then the
                             final state's stages */
        STAGE("steps", hdg_dcu_time_stage(&r, &line, err));
        goto final;
    }
    if (p->nonlinear) {   /* Newton: run_hdg_cuda_newton.c */
        STAGE("newton", hdg_dcu_newton_stage(&r, err));
        goto final;
    }
    STAGE("local", hdg_dcu_local_stage(&r, err));
    STAGE("assemble", hdg_dcu_assemble_stage(&r, err));
    STAGE("dirichlet", hdg_dcu_dirichlet_stage(&r, err));
    STAGE("nullspace", hdg_dcu_null_stage(&r, err));
    STAGE("solve", hdg_dcu_solve_stage(&r, err));
    STAGE("recover", hdg_dcu_recover_stage(&r, err));
final:
    if (r.L.post_unknown >= 0) STAGE("postprocess", hdg_dcu_post_stage(&r, err));
    STAGE("errors", hdg_dcu_errors_stage(&r, err));
    if (r.L.estimate[0]) STAGE("estimate", hdg_dcu_estimate_stage(&r, err));
    if (o->vtk || o->png || o->fields || o->snapshot) STAGE("output", hdg_dcu_output_stage(&r, err));
done:
    hdg_progress_end(&line);
    run_free(&r);
    return st;
}
