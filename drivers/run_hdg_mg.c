/* run_hdg_mg.c — --precond mg for the HDG drivers (run_hdg_mg.h). */
#include "drivers/run_hdg_mg.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/mesh_dist.h"
#include "runtime/petsc/petsc.h"
#include "support/util.h"

static void coarse_apply(void *ctx, const double *x, double *y)
{
    hdg_petsc_amg_apply(ctx, x, y);   /* an error leaves NaN in y: the Krylov solver stops on it */
}

hdg_linop hdg_hdg_mg_coarse_op(hdg_hdg_mg *h)
{
    hdg_linop op = {h->amg, h->C.nc, coarse_apply};
    return op;
}

static void csr_rect_apply(void *ctx, const double *x, double *y) { hdg_csr_spmv(ctx, x, y); }

static hdg_linop csr_rect_op(const hdg_csr *C)
{
    hdg_linop op = {(void *)C, C->n, csr_rect_apply};
    return op;
}

hdg_status hdg_hdg_mg_coarse(hdg_hdg_mg *h, const hdg_blockmat *B, const hdg_mesh *M, int nk, unsigned null_mask,
                             const char *petsc, hdg_report *rep, hdg_error *err)
{
    memset(h, 0, sizeof *h);
    double t0 = hdg_wtime();
    hdg_status st = hdg_mg_coarse_build(&h->C, B, hdg_mesh_dim(M), nk, M->nv, M->ftv, null_mask, err);   /* topological: periodic */
    if (st) return st;
    double t1 = hdg_wtime();
    hdg_petsc_info pi;
    st = hdg_petsc_amg_create(&h->C.Ac, petsc, &h->amg, &pi, err);
    hdg_report_int(rep, "solver.mg.coarse_unknowns", h->C.nc);
    hdg_report_int(rep, "solver.mg.coarse_nonzeros", h->C.Ac.nnz);
    hdg_report_int(rep, "solver.mg.fixed_face_components", h->C.nfixed);
    hdg_report_number(rep, "solver.mg.galerkin_seconds", t1 - t0);
    hdg_report_number(rep, "solver.mg.amg_setup_seconds", hdg_wtime() - t1 - (pi.init_seconds - pi.prior_seconds));
    hdg_report_number(rep, "solver.petsc_init_seconds", pi.init_seconds);
    if (*hdg_petsc_module_path()) {
        hdg_report_string(rep, "solver.petsc_module", hdg_petsc_module_path());
        hdg_report_string(rep, "solver.mpi_defaults", hdg_petsc_mpi_defaults());
    }
    if (!st) {
        hdg_report_string(rep, "solver.mg.coarse_ksp", pi.ksp_type);
        hdg_report_string(rep, "solver.mg.coarse_pc", pi.pc_type);
    }
    return st;
}

static void fused_start(void *ctx, double s, const double *r, double *d, double *z, int z_zero)
{
    const hdg_hdg_mg *h = ctx;
    hdg_blockmat_smooth_start(h->B, h->Di, &h->lo, s, r, d, z, z_zero);
}

static void fused_step(void *ctx, double c1, double c2, const double *d, double *r, double *dn, double *z)
{
    const hdg_hdg_mg *h = ctx;
    hdg_blockmat_smooth_step(h->B, h->Di, &h->lo, c1, c2, d, r, dn, z);
}

static void fused_resid(void *ctx, const double *d, double *r)
{
    const hdg_hdg_mg *h = ctx;
    hdg_blockmat_residual_update(h->B, &h->lo, d, r);
}

static void fused_jacobi(void *ctx, const double *x, double *y)
{
    const hdg_hdg_mg *h = ctx;
    hdg_blockmat_jacobi_product(h->B, h->Di, &h->lo, x, y);
}

void hdg_hdg_mg_report(hdg_report *rep, const hdg_mg *g)
{
    hdg_report_number(rep, "solver.mg.lmax", g->lmax);
    hdg_report_bool(rep, "solver.mg.fused_passes", g->F.start != NULL);
    hdg_report_int(rep, "solver.mg.smoothing_steps", g->o.nu);
}

hdg_status hdg_hdg_mg_host(hdg_hdg_mg *h, const hdg_blockmat *B, const hdg_mesh *M, int nk, unsigned null_mask,
                           const char *petsc, hdg_report *rep, hdg_linop *Mop, hdg_error *err)
{
    hdg_status st = hdg_hdg_mg_coarse(h, B, M, nk, null_mask, petsc, rep, err);
    if (!st) st = hdg_precond_block_init(&h->D, B, err);
    if (st) return st;
    hdg_linop A = hdg_blockmat_op(B), P = csr_rect_op(&h->C.P), R = csr_rect_op(&h->C.R);
    hdg_linop Cs = hdg_hdg_mg_coarse_op(h);
    double *x0 = hdg_mg_start_vector(A.n);
    h->B = B, h->Di = hdg_precond_block_inverse(&h->D);
    hdg_mg_fused F = {h, fused_start, fused_step, fused_resid, fused_jacobi};
    /* HDGC_MG_UNFUSED: the separate operations (same results); HDGC_MG_DOUBLE: the fused
     * passes read the double matrix; HDGC_MG_NO_AVX2: the single-precision passes without
     * their x86-64-v3 version */
    int fused = h->Di && hdg_blockmat_fused_ok(B) && !hdg_env_flag("HDGC_MG_UNFUSED");
    if (fused && !hdg_env_flag("HDGC_MG_DOUBLE") && hdg_blockmat_lo_init(&h->lo, B, h->Di))
        h->lo.vec = h->lo.vec && !hdg_env_flag("HDGC_MG_NO_AVX2");   /* the baseline passes (same results) */
    st = hdg_mg_init(&h->g, &A, &h->D, &P, &R, &Cs, h->C.nc, hdg_vecops_host(), NULL, x0, fused ? &F : NULL, err);
    free(x0);
    if (st) return st;
    h->g.AP = csr_rect_op(&h->C.AP);
    hdg_hdg_mg_report(rep, &h->g);
    hdg_report_string(rep, "solver.mg.smoother_precision", h->lo.A ? "single" : "double");
    if (h->lo.A) hdg_report_bool(rep, "solver.mg.smoother_avx2", h->lo.vec);
    *Mop = hdg_mg_op(&h->g);
    return HDG_OK;
}

void hdg_hdg_mg_free(hdg_hdg_mg *h)
{
    if (h->g.v) hdg_mg_free(&h->g);
    hdg_precond_free(&h->D);
    hdg_blockmat_lo_free(&h->lo);
    hdg_petsc_amg_free(h->amg);
    hdg_mg_coarse_free(&h->C);
    memset(h, 0, sizeof *h);
}

int hdg_hdg_dist_mg(const hdg_run_options *o, const hdg_mesh *M, const hdg_blockmat *B, int nk, unsigned null_mask,
                    hdg_petsc_dist_mg *g, hdg_error *err)
{
    const hdg_mesh_dist *d = o->dist;
    memset(g, 0, sizeof *g);
    if (!d || !o->dist_mg || null_mask) return 0;
    if (nk > HDG_PETSC_MG_MAX_NK) return 0;
    g->nvf = hdg_mesh_nvf(M);
    if (hdg_mg_hat_coefficients(hdg_mesh_dim(M), nk, g->H, err)) return 0;
    int nfixed;
    g->nk = nk, g->nv = M->nv, g->fv = M->ftv, g->vgid = d->vgid;
    g->vstart = d->vstart[d->rank], g->nv_global = d->vstart[d->size];
    g->nv_owned = (int)(d->vstart[d->rank + 1] - d->vstart[d->rank]);
    g->fixed = hdg_mg_fixed_components(B, nk, &nfixed);
    return 1;
}
