/* run_hdg_cuda_solve.c — the trace solve of the device HDG driver
 * (run_hdg_cuda.c, run_hdg_cuda_internal.h): the device preconditioners
 * (mg's coarse space on the host), PETSc under mpirun and the direct solve,
 * the definiteness, the Krylov solve on the device and the uniqueness probes. */
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


/* A copy of the null vectors on the host (NULL: none), for PETSc and the probes (they free it). */
static double *null_host(const drun *r)
{
    if (!r->zh) return NULL;
    size_t n = (size_t)r->B.nf * r->B.m * (size_t)r->nz;
    double *z = hdg_xmalloc(sizeof(double) * (n + 1));
    memcpy(z, r->zh, sizeof(double) * n);
    return z;
}

static hdg_status mg_setup(drun *r, const char *petsc, dprecond *d, hdg_error *err)
{
    hdg_blockmat B;
    double t0 = hdg_wtime();
    hdg_status st = hdg_cuda_blockmat_download(&r->B, &B, err);
    if (st) return st;
    hdg_report_number(r->rep, "solver.mg.download_seconds", hdg_wtime() - t0);
    st = hdg_hdg_mg_coarse(&d->mg, &B, r->mesh, r->L.nk, r->null_mask, petsc, r->rep, err);
    hdg_blockmat_free(&B);
    if (!st) st = hdg_cuda_csr_upload(&r->la, &d->mg.C.P, &d->dP, err);
    if (!st) st = hdg_cuda_csr_upload(&r->la, &d->mg.C.R, &d->dR, err);
    if (!st) st = hdg_cuda_csr_upload(&r->la, &d->mg.C.AP, &d->dAP, err);
    if (!st) st = hdg_cuda_precond_block(&r->B, &d->P, err);
    if (st) return st;
    hdg_linop host = hdg_hdg_mg_coarse_op(&d->mg);
    hdg_cuda_host_op_init(&d->cs, &r->la, &host);
    hdg_linop A = hdg_cuda_blockmat_op(&r->B), D = hdg_cuda_precond_op(&d->P);
    hdg_linop P = hdg_cuda_csr_op(&d->dP), R = hdg_cuda_csr_op(&d->dR), Cs = hdg_cuda_host_op_op(&d->cs);
    double *x0 = hdg_mg_start_vector(A.n);
    hdg_cuptr dx0 = 0;
    st = hdg_cuda_vec_upload(&r->la, x0, A.n, &dx0, err);
    free(x0);
    if (!st) st = hdg_mg_init(&d->g, &A, &D, &P, &R, &Cs, d->mg.C.nc, &r->la.ops, NULL, DPTR(dx0), NULL, err);
    hdg_cuda_free(r->dev, dx0);
    hdg_error derr;
    if (hdg_cuda_linalg_check(&r->la, &derr)) st = hdg_fail(err, derr.code, "%s", derr.msg);
    if (st) return st;
    d->g.AP = hdg_cuda_csr_op(&d->dAP);
    hdg_hdg_mg_report(r->rep, &d->g);
    d->M = hdg_mg_op(&d->g);
    return HDG_OK;
}

hdg_status hdg_dcu_precond_setup(drun *r, const char *name, const char *petsc, dprecond *d, hdg_error *err)
{
    memset(d, 0, sizeof *d);
    hdg_status st = HDG_OK;
    if (!strcmp(name, "mg")) return mg_setup(r, petsc, d, err);
    if (!strcmp(name, "block")) st = hdg_cuda_precond_block(&r->B, &d->P, err);
    else if (!strcmp(name, "jacobi")) st = hdg_cuda_precond_jacobi(&r->B, &d->P, err);
    if (!st && d->P.L) d->M = hdg_cuda_precond_op(&d->P);
    return st;
}

void hdg_dcu_precond_free(dprecond *d)
{
    if (d->g.v) hdg_mg_free(&d->g);
    hdg_cuda_host_op_free(&d->cs);
    hdg_cuda_csr_free(&d->dP);
    hdg_cuda_csr_free(&d->dR);
    hdg_cuda_csr_free(&d->dAP);
    hdg_cuda_precond_free(&d->P);
    hdg_hdg_mg_free(&d->mg);
}

/* Under mpirun: the piece's trace matrix comes to the host once (per matrix)
 * and PETSc sets up the solver of the pieces summed (as the host driver's);
 * each solve brings the right-hand side to the host and the solution on every
 * face of the piece back to the device. */
hdg_status hdg_dcu_dist_setup(drun *r, const hdg_hdg_solver *s, hdg_petsc_dsolver **h, double *init, hdg_error *err)
{
    const hdg_mesh_dist *d = r->o->dist;
    hdg_blockmat B;
    memset(&B, 0, sizeof B);
    *h = NULL;
    hdg_status st = hdg_comm_agree(hdg_cuda_blockmat_download(&r->B, &B, err), err);
    if (st) return st;
    hdg_petsc_dist_mg g = {0};
    int mg = s->dist_mg && hdg_hdg_dist_mg(r->o, r->mesh, &B, r->L.nk, r->null_mask, &g, err);
    hdg_petsc_dist pd = {d->fgid, d->fstart[d->rank], d->nf_global, d->nf_owned, mg ? &g : NULL};
    double *z = null_host(r);   /* the null space, for PETSc */
    hdg_petsc_opts po = {s->petsc, r->asym <= HDG_HDG_SYMMETRIC, s->so.rtol, s->so.maxit, s->so.restart, z, r->nz};
    hdg_petsc_info pi;
    st = hdg_petsc_dist_create(&B, &pd, &po, h, &pi, err);
    *init = pi.init_seconds;
    free((void *)g.fixed), free(z);
    hdg_blockmat_free(&B);
    return st;
}

hdg_status hdg_dcu_dist_apply(drun *r, hdg_hdg_solver *s, hdg_petsc_dsolver *h, double init, hdg_cuptr guess,
                             hdg_solve_info *info, hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    double *b = hdg_xmalloc(sizeof(double) * ((size_t)n + 1)), *x = hdg_xcalloc((size_t)n + 1, sizeof(double));
    hdg_status st = hdg_cuda_download(r->dev, b, r->rhs, sizeof(double) * (size_t)n, err);
    if (!st && guess) st = hdg_cuda_download(r->dev, x, guess, sizeof(double) * (size_t)n, err);
    st = hdg_comm_agree(st, err);
    hdg_petsc_info pi;
    memset(&pi, 0, sizeof pi);
    if (!st) st = hdg_petsc_dist_apply(h, b, x, &pi, err);
    *info = (hdg_solve_info){.iterations = pi.iterations, .residual = pi.residual, .converged = pi.converged && !st,
                             .sv_min = pi.sv_min, .sv_max = pi.sv_max};
    hdg_hdg_report_solve(r->rep, s, info, st);
    if (pi.ksp_type[0]) {
        hdg_report_string(r->rep, "solver.ksp_type", pi.ksp_type);
        hdg_report_string(r->rep, "solver.pc_type", pi.pc_type);
        hdg_report_string(r->rep, "solver.converged_reason", pi.reason);
        hdg_report_number(r->rep, "solver.petsc_init_seconds", init);
    }
    if (!st) st = hdg_hdg_near_singular(info, err);   /* PETSc's estimates (CG, GMRES) */
    if (!st) hdg_hdg_solve_warning(r->rep, r->mesh, r->L.k, s, info);
    if (!st && !r->x) st = hdg_dcu_dalloc(r, (size_t)n, &r->x, err);
    if (!st) st = hdg_cuda_upload(r->dev, r->x, x, sizeof(double) * (size_t)n, err);
    free(b), free(x);
    return st;
}

static hdg_status dist_solve(drun *r, hdg_hdg_solver *s, hdg_error *err)
{
    hdg_petsc_dsolver *h;
    double init = 0;
    hdg_solve_info info;
    hdg_status st = hdg_dcu_dist_setup(r, s, &h, &init, err);
    if (!st) st = hdg_dcu_dist_apply(r, s, h, init, 0, &info, err);
    hdg_petsc_dist_free(h);
    return st;
}

hdg_status hdg_dcu_definiteness(drun *r, hdg_hdg_definite *d, hdg_error *err)
{
    size_t n = (size_t)r->B.nf * r->B.m;
    hdg_dcu_apply a = {r, 0, 0, HDG_OK, {0}};
    a.st = hdg_dcu_dalloc(r, n, &a.x, &a.err);
    if (!a.st) a.st = hdg_dcu_dalloc(r, n, &a.y, &a.err);
    hdg_hdg_definiteness(r->p, &r->L, r->mesh, r->dofdir, r->amax, r->o->dist, hdg_dcu_device_apply,
                         &a, r->rep, d);
    hdg_cuda_free(r->dev, a.x), hdg_cuda_free(r->dev, a.y);
    hdg_error derr;
    if (!a.st && hdg_cuda_linalg_check(&r->la, &derr)) a.st = hdg_fail(&a.err, derr.code, "%s", derr.msg);
    if (a.st) *err = a.err;
    return a.st;
}

hdg_status hdg_dcu_direct_solve(drun *r, hdg_hdg_solver *s, hdg_solve_info *info, hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    hdg_blockmat B;
    memset(&B, 0, sizeof B);
    memset(info, 0, sizeof *info);
    double *b = hdg_xmalloc(sizeof(double) * ((size_t)n + 1)), *x = hdg_xcalloc((size_t)n + 1, sizeof(double));
    double *z = null_host(r);
    hdg_status st = hdg_cuda_blockmat_download(&r->B, &B, err);
    if (!st) st = hdg_cuda_download(r->dev, b, r->rhs, sizeof(double) * (size_t)n, err);
    hdg_petsc_opts po = {s->petsc, r->asym <= HDG_HDG_SYMMETRIC, s->so.rtol, s->so.maxit, s->so.restart, z, r->nz};
    hdg_petsc_info pi;
    memset(&pi, 0, sizeof pi);
    if (!st) {
        st = hdg_petsc_solve(&B, b, x, &po, &pi, err);
        *info = (hdg_solve_info){.iterations = pi.iterations, .residual = pi.residual, .converged = pi.converged && !st,
                             .sv_min = pi.sv_min, .sv_max = pi.sv_max};
        hdg_hdg_report_solve(r->rep, s, info, st);
        if (pi.ksp_type[0]) {
            hdg_report_string(r->rep, "solver.ksp_type", pi.ksp_type);
            hdg_report_string(r->rep, "solver.pc_type", pi.pc_type);
            hdg_report_string(r->rep, "solver.converged_reason", pi.reason);
            hdg_report_number(r->rep, "solver.petsc_init_seconds", pi.init_seconds);
        }
        if (!st) st = hdg_hdg_near_singular(info, err);   /* PETSc's estimates (CG, GMRES) */
        if (!st) hdg_hdg_solve_warning(r->rep, r->mesh, r->L.k, s, info);
    }
    if (!st && !r->x) st = hdg_dcu_dalloc(r, (size_t)n, &r->x, err);
    if (!st) st = hdg_cuda_upload(r->dev, r->x, x, sizeof(double) * (size_t)n, err);
    hdg_blockmat_free(&B);
    free(b), free(x), free(z);
    return st;
}

/* The native solve on the device and the uniqueness probe's (hdg_hdg_unique_probe): the
 * same solver and preconditioner, the probe's vectors from and to the host. */
typedef struct dprobe {
    hdg_dcu_apply a;      /* K x for the probe's host vectors */
    const hdg_linop *A, *M;
    hdg_hdg_solver *s;
    hdg_cuptr b, x;       /* the probe's device vectors */
} dprobe;

static hdg_status native_solve(dprobe *p, double *b, double *x, hdg_solve_info *info, hdg_error *err)
{
    drun *r = p->a.r;
    hdg_status st = !strcmp(p->s->method, "cg") ? hdg_pcg(p->A, p->M, b, x, &p->s->so, &r->la.ops, info, err)
                                                 : hdg_gmres(p->A, p->M, b, x, &p->s->so, &r->la.ops, info, err);
    hdg_error derr;
    if (hdg_cuda_linalg_check(&r->la, &derr)) st = hdg_fail(err, derr.code, "%s", derr.msg);
    return st;
}

static void probe_apply(void *ctx, const double *x, double *y)
{
    hdg_dcu_device_apply(&((dprobe *)ctx)->a, x, y);
}

static hdg_status probe_solve(void *ctx, const double *b, double *x, hdg_error *err)
{
    dprobe *p = ctx;
    drun *r = p->a.r;
    size_t bytes = sizeof(double) * (size_t)r->B.nf * r->B.m;
    if (p->a.st) return hdg_fail(err, p->a.st, "%s", p->a.err.msg);
    hdg_solve_info info;
    hdg_solve_opts so = p->s->so;
    p->s->so.monitor = NULL;   /* no progress line for the probe */
    hdg_status st = hdg_cuda_upload(r->dev, p->b, b, bytes, err);
    if (!st) st = hdg_cuda_memset0(r->dev, p->x, bytes, err);
    if (!st) st = native_solve(p, DPTR(p->b), DPTR(p->x), &info, err);
    p->s->so = so;
    if (!st) st = hdg_hdg_near_singular(&info, err);
    if (!st) st = hdg_cuda_download(r->dev, x, p->x, bytes, err);
    return st;
}

static hdg_status device_probe(dprobe *p, hdg_error *err)
{
    drun *r = p->a.r;
    size_t n = (size_t)r->B.nf * r->B.m;
    double *z = null_host(r);
    hdg_status st = hdg_dcu_dalloc(r, n, &p->a.x, err);
    if (!st) st = hdg_dcu_dalloc(r, n, &p->a.y, err);
    if (!st) st = hdg_dcu_dalloc(r, n, &p->b, err);
    if (!st) st = hdg_dcu_dalloc(r, n, &p->x, err);
    if (!st) st = hdg_hdg_unique_probe(r->B.nf, r->B.m, NULL, probe_apply, probe_solve, p, z, r->nz, r->rep, err);
    if (!st && p->a.st) st = hdg_fail(err, p->a.st, "%s", p->a.err.msg);
    hdg_cuda_free(r->dev, p->a.x), hdg_cuda_free(r->dev, p->a.y);
    hdg_cuda_free(r->dev, p->b), hdg_cuda_free(r->dev, p->x);
    free(z);
    return st;
}

/* The uniqueness probe of the direct solve (on the host, as the solve). */
typedef struct hprobe {
    hdg_blockmat B;
    hdg_petsc_opts po;
} hprobe;

static void hprobe_apply(void *ctx, const double *x, double *y) { hdg_blockmat_spmv(&((hprobe *)ctx)->B, x, y); }

static hdg_status hprobe_solve(void *ctx, const double *b, double *x, hdg_error *err)
{
    hprobe *h = ctx;
    hdg_petsc_info pi;
    return hdg_petsc_solve(&h->B, b, x, &h->po, &pi, err);
}

static hdg_status direct_probe(drun *r, hdg_hdg_solver *s, hdg_error *err)
{
    hprobe h;
    memset(&h, 0, sizeof h);
    double *z = null_host(r);
    h.po = (hdg_petsc_opts){s->petsc, r->asym <= HDG_HDG_SYMMETRIC, s->so.rtol, s->so.maxit, s->so.restart, z, r->nz};
    hdg_status st = hdg_cuda_blockmat_download(&r->B, &h.B, err);
    if (!st) st = hdg_hdg_unique_probe(r->B.nf, r->B.m, NULL, hprobe_apply, hprobe_solve, &h, z, r->nz, r->rep, err);
    hdg_blockmat_free(&h.B);
    free(z);
    return st;
}

hdg_status hdg_dcu_solve_stage(drun *r, hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    hdg_hdg_solver s;
    hdg_hdg_definite def;
    hdg_status st = hdg_comm_agree(hdg_dcu_definiteness(r, &def, err), err);
    if (!st) st = hdg_comm_agree(hdg_hdg_choose_solver(r->o, r->asym, n, &def, &s, err), err);
    if (st) return st;
    if (r->o->dist) return dist_solve(r, &s, err);
    if (!strcmp(s.method, "petsc")) {
        hdg_solve_info info;
        st = hdg_dcu_direct_solve(r, &s, &info, err);
        if (!st && hdg_hdg_probe_wanted(&def, &info)) st = direct_probe(r, &s, err);
        return st;
    }
    if (strcmp(s.format, "block"))
        return hdg_fail(err, HDG_EINPUT, "--format %s: the device solver multiplies in the dense block "
                        "format only; use --format block or --backend c", s.format);
    dprecond d;
    st = hdg_dcu_precond_setup(r, s.precond, s.petsc, &d, err);
    if (!st) st = hdg_dcu_dalloc(r, (size_t)n, &r->x, err);
    if (!st) st = hdg_cuda_memset0(r->dev, r->x, sizeof(double) * (size_t)n, err);
    hdg_linop A = hdg_cuda_blockmat_op(&r->B);
    hdg_solve_info info;
    memset(&info, 0, sizeof info);
    const hdg_linop *Mp = d.M.apply ? &d.M : NULL;
    hdg_hdg_null_op nc;
    hdg_linop Mn;
    hdg_cuptr t = 0;
    if (!st && r->z && !(st = hdg_dcu_dalloc(r, (size_t)n, &t, err))) {   /* solve on the complement of the constants */
        Mn = hdg_hdg_null_precond_all(&nc, Mp, &r->la.ops, DPTR(r->z), r->nz, DPTR(t), n);
        Mp = &Mn;
    }
    if (st) {
        hdg_dcu_precond_free(&d);
        return st;
    }
    dprobe pr = {{r, 0, 0, HDG_OK, {0}}, &A, Mp, &s, 0, 0};
    st = native_solve(&pr, DPTR(r->rhs), DPTR(r->x), &info, err);
    hdg_hdg_report_solve(r->rep, &s, &info, st);
    if (!st) st = hdg_hdg_near_singular(&info, err);
    if (!st) hdg_hdg_solve_warning(r->rep, r->mesh, r->L.k, &s, &info);
    if (!st && hdg_hdg_probe_wanted(&def, &info)) st = device_probe(&pr, err);
    hdg_cuda_free(r->dev, t);
    hdg_dcu_precond_free(&d);
    return st;
}
