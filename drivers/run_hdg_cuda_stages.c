/* run_hdg_cuda_stages.c — the stages of the device HDG driver
 * (run_hdg_cuda.c, run_hdg_cuda_internal.h) before and after the solve: the
 * local systems and their statistics, trace assembly, the Dirichlet
 * elimination, the null space, recovery (with the mean fixed), post-processing,
 * errors, the estimate and output. */
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

/* A non-symmetric problem that may be singular (run_hdg_null.h): K_e comes
 * back for the left null vector test (the assembled K is not kept here). */
static hdg_status left_null(drun *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    unsigned char *none = hdg_xcalloc((size_t)M->nf + 1, 1);
    int t = r->asym > HDG_HDG_SYMMETRIC ? hdg_hdg_null_candidate(r->p, M, none) : -1;
    free(none);
    if (t < 0) return HDG_OK;
    size_t n = (size_t)M->ne * r->L.nt * r->L.nt;
    double *K = hdg_xmalloc(sizeof(double) * (n + 1));
    hdg_status st = hdg_cuda_download(r->dev, K, r->Ke, sizeof(double) * n, err);
    if (!st) r->left_null = hdg_hdg_null_left(&r->L, M, K, t, r->amax);
    free(K);
    return st;
}

/* F_e comes back to find the element with NaN/Inf (a func that is not
 * finite), when the right-hand side is not finite. */
hdg_status hdg_dcu_fe_finite(drun *r, hdg_error *err)
{
    int nt = r->L.nt, ne = r->mesh->ne;
    double *F = hdg_xmalloc(sizeof(double) * ((size_t)ne * nt + 1));
    hdg_status st = hdg_cuda_download(r->dev, F, r->Fe, sizeof(double) * (size_t)ne * nt, err);
    int bad = st ? -1 : hdg_nonfinite_first(F, ne, nt, nt);
    free(F);
    if (bad >= 0) return hdg_hdg_bad_element(r->p, r->mesh, bad, 0, err);
    return st;
}

hdg_status hdg_dcu_local_stage(drun *r, hdg_error *err)
{
    int nt = r->L.nt, ne = r->mesh->ne;
    hdg_cuptr stats = 0;
    hdg_status st = hdg_dcu_dalloc(r, (size_t)ne * nt * nt, &r->Ke, err);
    if (!st) st = hdg_dcu_dalloc(r, (size_t)ne * nt, &r->Fe, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.out[0] = DPTR(r->Ke);
    a.out[1] = DPTR(r->Fe);
    if (r->L.nonlinear) a.in[0] = DPTR(r->sl), a.in[1] = DPTR(r->ste);   /* Newton's state */
    if (r->L.nonlinear) a.in[2] = DPTR(r->hist);   /* transient: the time scheme's history (else unread) */
    if (!st) st = hdg_dcu_launch(r, r->L.local, ne, &a, err);
    if (!st) st = hdg_dcu_dalloc(r, 3 * (size_t)ne, &stats, err);
    if (!st) st = hdg_cuda_element_stats(&r->la, ne, nt, r->Ke, stats, err);
    double *s = hdg_xmalloc(sizeof(double) * (3 * (size_t)ne + 1));
    if (!st) st = hdg_cuda_download(r->dev, s, stats, sizeof(double) * 3 * (size_t)ne, err);
    hdg_cuda_free(r->dev, stats);
    double diag = 0, amax = 0, asym = 0;
    for (int e = 0; e < ne && !st; e++) {
        diag += s[3 * e];
        amax = fmax(amax, s[3 * e + 1]);
        asym = fmax(asym, s[3 * e + 2]);
    }
    int bad = st ? -1 : hdg_nonfinite_first(s, ne, 3, 3);
    free(s);
    if (bad >= 0) st = hdg_hdg_bad_element(r->p, r->mesh, bad, 1, err);
    if ((st = hdg_comm_agree(st, err))) return st;   /* under mpirun: every rank decides alike below */
    if (!st) st = hdg_hdg_trace_sign(r->rep, diag, amax, asym, &r->amax, &r->negated, &r->asym, err);
    if (!st && r->negated) {
        r->la.ops.scal(&r->la, (long long)ne * nt * nt, -1.0, DPTR(r->Ke));
        r->la.ops.scal(&r->la, (long long)ne * nt, -1.0, DPTR(r->Fe));
        st = hdg_cuda_linalg_check(&r->la, err);
    }
    if (!st && !r->L.nonlinear) st = left_null(r, err);   /* for the null stage (Newton runs none) */
    return st;
}

hdg_status hdg_dcu_trace_setup(drun *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    if (r->assembled) return HDG_OK;
    r->assembled = 1;
    int nfe = hdg_mesh_nfe(M), na = hdg_mesh_na(M);
    int *nbr = hdg_xmalloc(sizeof(int) * na * ((size_t)M->nf + 1));
    hdg_hdg_maps maps;   /* S_o of each orientation: sign flips on triangles, dense on tetrahedra */
    hdg_hdg_face_maps(&r->L, &maps);
    hdg_status st = hdg_blockmat_neighbours_n(nfe, M->nf, M->ne, M->ef, M->fe, M->flf, nbr, err);
    if (!st) st = hdg_cuda_topology_upload(&r->la, M->ne, M->nf, M->ef, M->eforient, M->fe, M->flf, nbr, &maps.S,
                                           &r->T, err);
    if (!st) st = hdg_cuda_blockmat_alloc(&r->la, M->nf, nbr, &r->B, err);
    free(nbr);
    hdg_hdg_face_maps_free(&maps);
    if (!st) st = hdg_dcu_dalloc(r, (size_t)M->nf * r->L.m, &r->rhs, err);
    return st;
}

hdg_status hdg_dcu_assemble_stage(drun *r, hdg_error *err)
{
    int first = !r->assembled;
    hdg_status st = hdg_dcu_trace_setup(r, err);
    if (!st) st = hdg_cuda_trace_assemble(&r->T, r->Ke, r->Fe, &r->B, r->rhs, err);
    /* the element matrices are not needed any more (a transient run reassembles
     * from them every step): their memory is the largest allocation of the run */
    if (!st && first && !r->p->transient) {
        hdg_cuda_free(r->dev, r->Ke);
        r->Ke = 0;
    }
    return st;
}

/* The Dirichlet kernels run on the device over the boundary faces; their
 * values come back to be placed (a few faces): r->dofdir, r->xD. */
hdg_status hdg_dcu_dirichlet_data(drun *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m, nk = r->L.nk;
    unsigned char *isdir = hdg_xcalloc((size_t)M->nf + 1, 1), *dofdir = hdg_xcalloc((size_t)M->nf * m + 1, 1);
    double *xD = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double));
    int *faces = hdg_xmalloc(sizeof(int) * (size_t)(M->nbf + 1)), gs = hdg_gf_size(hdg_mesh_dim(M));
    double *fg = hdg_xmalloc(sizeof(double) * gs * (size_t)(M->nbf + 1));
    hdg_cuptr dfg = 0, duD = 0;
    hdg_status st = HDG_OK;
    for (int i = 0; i < r->L.ndir && !st; i++) {
        int n = hdg_hdg_dirichlet_faces(r->p, &r->L, M, i, faces, fg);
        if (!n) continue;
        int nc = r->p->unknowns[r->p->bcs[r->L.dir_bc[i]].unknown].ncomp;
        size_t nu = (size_t)n * nc * nk;
        double *uD = hdg_xmalloc(sizeof(double) * nu);
        st = hdg_dcu_upload(r, fg, sizeof(double) * gs * (size_t)n, &dfg, err);
        if (!st) st = hdg_dcu_dalloc(r, nu, &duD, err);
        hdg_kargs a = hdg_dcu_kargs(r, dfg, n);
        a.out[0] = DPTR(duD);
        if (!st) st = hdg_dcu_launch(r, r->L.dirichlet[i], n, &a, err);
        if (!st) st = hdg_cuda_download(r->dev, uD, duD, sizeof(double) * nu, err);
        if (!st) st = hdg_hdg_dirichlet_finite(r->p, &r->L, M, i, faces, n, uD, err);
        if (!st) hdg_hdg_dirichlet_store(r->p, &r->L, i, faces, n, uD, isdir, dofdir, xD);
        free(uD);
        hdg_cuda_free(r->dev, dfg), hdg_cuda_free(r->dev, duD);
        dfg = duD = 0;
    }
    if (!st) r->null_t = hdg_hdg_null_candidate(r->p, M, isdir);
    free(faces), free(fg), free(isdir);
    free(r->dofdir), free(r->xD);
    r->dofdir = dofdir;   /* for the definiteness (hdg_dcu_definiteness) */
    r->xD = xD;
    return st;
}

/* The elimination of r->dofdir at r->xD from r->B, r->rhs, on the device. */
hdg_status hdg_dcu_dirichlet_eliminate(drun *r, hdg_error *err)
{
    size_t n = (size_t)r->mesh->nf * r->L.m;
    hdg_cuptr disd = 0, dxD = 0;
    hdg_status st = hdg_dcu_upload(r, r->dofdir, n, &disd, err);   /* the elimination is per dof */
    if (!st) st = hdg_dcu_upload(r, r->xD, sizeof(double) * n, &dxD, err);
    if (!st) st = hdg_cuda_trace_dirichlet(&r->B, disd, dxD, r->rhs, hdg_hdg_dirichlet_diag(r->amax), err);
    hdg_cuda_free(r->dev, disd), hdg_cuda_free(r->dev, dxD);
    return st;
}

hdg_status hdg_dcu_dirichlet_stage(drun *r, hdg_error *err)
{
    hdg_status st = hdg_dcu_dirichlet_data(r, err);
    return st ? st : hdg_dcu_dirichlet_eliminate(r, err);
}

/* Under mpirun, or with several free constants: the right-hand side projected on the host
 * (with sums over the ranks under mpirun; run_hdg_null.h), and back. */
static hdg_status host_project(drun *r, hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    hdg_hdg_data data = {r->p, r->mesh, r->L.k};
    double *b = hdg_xmalloc(sizeof(double) * ((size_t)n + 1));
    hdg_status st = hdg_cuda_download(r->dev, b, r->rhs, sizeof(double) * (size_t)n, err);
    if (r->o->dist) st = hdg_comm_agree(st, err);
    if (!st && r->fixes)
        st = hdg_hdg_null_project_all(r->p, r->fixes, r->o->dist, r->B.nf, r->L.m, r->zh, b, &data, r->rep, err);
    else if (!st) st = hdg_hdg_null_project_dist(r->o->dist, r->B.nf, r->L.m, r->zh, b, &data, r->rep, err);
    if (!st) st = hdg_cuda_upload(r->dev, r->rhs, b, sizeof(double) * (size_t)n, err);
    free(b);
    return st;
}

void hdg_dcu_device_apply(void *ctx, const double *x, double *y)
{
    hdg_dcu_apply *a = ctx;
    size_t n = (size_t)a->r->B.nf * a->r->B.m;
    hdg_linop A = hdg_cuda_blockmat_op(&a->r->B);
    if (!a->st) a->st = hdg_cuda_upload(a->r->dev, a->x, x, sizeof(double) * n, &a->err);
    if (!a->st) A.apply(A.ctx, DPTR(a->x), DPTR(a->y));
    if (!a->st) a->st = hdg_cuda_download(a->r->dev, y, a->y, sizeof(double) * n, &a->err);
    if (a->st) memset(y, 0, sizeof(double) * n);
}

hdg_status hdg_dcu_null_find(drun *r, hdg_hdg_null *N, hdg_error *err)
{
    size_t n = (size_t)r->B.nf * r->B.m;
    hdg_dcu_apply a = {r, 0, 0, HDG_OK, {0}};
    a.st = hdg_dcu_dalloc(r, n, &a.x, &a.err);
    if (!a.st) a.st = hdg_dcu_dalloc(r, n, &a.y, &a.err);
    hdg_hdg_null_find(r->p, &r->L, r->mesh, r->o->dist, hdg_dcu_device_apply, &a, r->amax, N);   /* collective */
    hdg_cuda_free(r->dev, a.x), hdg_cuda_free(r->dev, a.y);
    hdg_error derr;
    if (!a.st && hdg_cuda_linalg_check(&r->la, &derr)) a.st = hdg_fail(&a.err, derr.code, "%s", derr.msg);
    if (a.st) *err = a.err;
    return hdg_comm_agree(a.st, err);
}

/* As the host's: the null space per trace unknown found on the device
 * matrix, the right-hand side checked and projected there. */
hdg_status hdg_dcu_null_stage(drun *r, hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    hdg_status fst = HDG_OK;
    if (!isfinite(r->la.ops.norm2(&r->la, n, DPTR(r->rhs)))) {
        fst = hdg_dcu_fe_finite(r, err);
        if (!fst) fst = hdg_fail(err, HDG_EINPUT, "the right-hand side of the trace system is not finite");
    }
    if ((fst = hdg_comm_agree(fst, err))) return fst;   /* mpirun: before the reductions below */
    hdg_hdg_null N;
    hdg_status st = hdg_dcu_null_find(r, &N, err);
    long long left = r->null_t >= 0 && r->left_null;
    hdg_comm_imin(&left, 1);   /* every piece annihilates the constants */
    hdg_hdg_null_fixes F;
    if (!st) st = hdg_hdg_null_decide_all(r->p, &r->L, &N, (int)left, r->asym, r->rep, &F, err);
    if (!st) r->fix = F.fix[0];
    if (st || !F.dim || r->fix.c.t < 0) return st;
    r->nz = F.dim;
    r->null_mask = hdg_hdg_null_mask(r->p, &F);
    if (F.dim > 1 || r->fix.c.comp < 0) {   /* several free constants, rotations: an orthonormal basis (run_hdg_null.h) */
        r->fixes = hdg_xmalloc(sizeof *r->fixes);
        *r->fixes = F;
        r->zh = hdg_hdg_null_basis(&r->L, r->mesh, r->o->dist, &F);
    } else r->zh = hdg_hdg_null_cand_vector(&r->L, r->mesh, r->fix.c);
    st = hdg_dcu_upload(r, r->zh, sizeof(double) * (size_t)n * (size_t)r->nz, &r->z, err);
    if (st) return st;
    if (r->o->dist || r->fixes) return host_project(r, err);
    hdg_hdg_data data = {r->p, r->mesh, r->L.k};
    st = hdg_hdg_null_project_rhs(&r->la.ops, n, DPTR(r->z), DPTR(r->rhs), &data, r->rep, err);
    return st ? st : hdg_cuda_linalg_check(&r->la, err);
}


hdg_status hdg_dcu_recover(drun *r, hdg_error *err)
{
    int ne = r->mesh->ne;
    hdg_status st = r->uh ? HDG_OK : hdg_dcu_dalloc(r, (size_t)ne * r->L.nt, &r->uh, err);
    if (!st) st = hdg_cuda_trace_scatter(&r->T, r->x, r->uh, err);
    if (!st && !r->xe) st = hdg_dcu_dalloc(r, (size_t)ne * r->L.nl, &r->xe, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(r->uh);
    a.in[1] = DPTR(r->hist);
    if (r->L.nonlinear) a.in[r->L.recover_state] = DPTR(r->sl), a.in[r->L.recover_state + 1] = DPTR(r->ste);
    a.out[0] = DPTR(r->xe);
    if (!st) st = hdg_dcu_launch(r, r->L.recover, ne, &a, err);
    return st;
}

/* The domain mean of the null space's unknown (the element fields come back). */
static hdg_status device_mean(drun *r, double *mean, hdg_error *err)
{
    size_t n = (size_t)r->mesh->ne * r->L.nl;
    double *xe = hdg_xmalloc(sizeof(double) * (n + 1));
    hdg_status st = hdg_cuda_download(r->dev, xe, r->xe, sizeof(double) * n, err);
    if (!st) *mean = hdg_hdg_domain_mean(&r->L, r->mesh, r->fix.u, r->fix.c.comp, xe);
    free(xe);
    return st;
}

/* The means of the fixes' unknowns at the trace r->x (several free constants). */
static hdg_status fix_means(void *ctx, const double *x, double *mean, hdg_error *err)
{
    drun *r = ctx;
    (void)x;   /* r->x itself */
    size_t n = (size_t)r->mesh->ne * r->L.nl;
    double *xe = hdg_xmalloc(sizeof(double) * (n + 1));
    hdg_status st = hdg_dcu_recover(r, err);
    if (!st) st = hdg_cuda_download(r->dev, xe, r->xe, sizeof(double) * n, err);
    for (int i = 0; !st && i < r->fixes->dim; i++)
        mean[i] = hdg_hdg_domain_mean(&r->L, r->mesh, r->fixes->fix[i].u, r->fixes->fix[i].c.comp, xe);
    free(xe);
    return st;
}

/* As the host's: x + c z fixes the domain mean (a second recovery measures
 * the response of the mean to z); several free constants: each its mean. */
hdg_status hdg_dcu_recover_stage(drun *r, hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    const hdg_vecops *v = &r->la.ops;
    if (r->fixes) {
        hdg_status st = hdg_hdg_null_shift_all(r->p, r->mesh, r->fixes, v, n, DPTR(r->z), DPTR(r->x), fix_means, r,
                                               r->rep, err);
        if (!st) st = hdg_cuda_linalg_check(&r->la, err);
        return st ? st : hdg_dcu_recover(r, err);
    }
    hdg_status st = hdg_dcu_recover(r, err);
    if (st || !r->z) return st;
    double m0 = 0, m1 = 0, c, want = hdg_hdg_mean_target(r->p, r->mesh, r->fix.u, r->fix.c.comp);
    if ((st = device_mean(r, &m0, err))) return st;
    v->axpy(v->ctx, n, 1.0, DPTR(r->z), DPTR(r->x));
    if ((st = hdg_dcu_recover(r, err)) || (st = device_mean(r, &m1, err))) return st;
    if ((st = hdg_hdg_mean_shift(r->p, r->fix.u, m0, m1, want, &c, err))) return st;
    v->axpy(v->ctx, n, c, DPTR(r->z), DPTR(r->x));
    hdg_report_number(r->rep, "solver.mean", want);
    if ((st = hdg_cuda_linalg_check(&r->la, err))) return st;
    return hdg_dcu_recover(r, err);
}

hdg_status hdg_dcu_post_stage(drun *r, hdg_error *err)
{
    int ne = r->mesh->ne, n = r->L.npost_dofs;
    hdg_status st = r->xp ? HDG_OK : hdg_dcu_dalloc(r, (size_t)ne * n, &r->xp, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(r->xe);
    a.out[0] = DPTR(r->xp);
    if (!st) st = hdg_dcu_launch(r, r->L.post, ne, &a, err);
    return st;
}

hdg_status hdg_dcu_errors_stage(drun *r, hdg_error *err)
{
    if (!r->L.nerr) return HDG_OK;
    int ne = r->mesh->ne;
    size_t n = (size_t)ne * r->L.nerr;
    hdg_cuptr de2 = 0;
    double *e2 = hdg_xmalloc(sizeof(double) * (n + 1));
    hdg_status st = hdg_dcu_dalloc(r, n, &de2, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(r->xe);
    a.in[1] = DPTR(r->xp);
    a.out[0] = DPTR(de2);
    if (!st) st = hdg_dcu_launch(r, r->L.errors, ne, &a, err);
    if (!st) st = hdg_cuda_download(r->dev, e2, de2, sizeof(double) * n, err);
    if (!st) st = hdg_hdg_check_finite(r->p, r->mesh, e2, ne, r->L.nerr, "the errors", err);
    if (!(st = hdg_comm_agree(st, err))) hdg_hdg_report_errors(r->p, &r->L, e2, ne, r->rep);
    hdg_cuda_free(r->dev, de2);
    free(e2);
    return st;
}

/* The error estimate ||u* - u|| per element: computed on the device, one
 * value per element comes back (run_hdg_common.h). */
hdg_status hdg_dcu_estimate_stage(drun *r, hdg_error *err)
{
    int ne = r->mesh->ne;
    hdg_cuptr de = 0;
    r->eta = hdg_xmalloc(sizeof(double) * ((size_t)ne + 1));
    hdg_status st = hdg_dcu_dalloc(r, (size_t)ne, &de, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(r->xe);
    a.in[1] = DPTR(r->xp);
    a.out[0] = DPTR(de);
    if (!st) st = hdg_dcu_launch(r, r->L.estimate, ne, &a, err);
    if (!st) st = hdg_cuda_download(r->dev, r->eta, de, sizeof(double) * (size_t)ne, err);
    hdg_cuda_free(r->dev, de);
    if ((st = hdg_comm_agree(st, err))) return st;   /* hdg_hdg_estimate reduces over the ranks */
    return hdg_hdg_estimate(r->p, r->mesh, &r->L, r->eta, r->rep, err);
}

/* The element fields come back only for output: VTK, or the caller's
 * hdg_run_fields. */
hdg_status hdg_dcu_output_stage(drun *r, hdg_error *err)
{
    int ne = r->mesh->ne, npost = r->xp ? r->L.npost_dofs : 0;
    double *xe = hdg_xmalloc(sizeof(double) * ((size_t)ne * r->L.nl + 1));
    double *xp = r->xp ? hdg_xmalloc(sizeof(double) * ((size_t)ne * npost + 1)) : NULL;
    hdg_status st = hdg_cuda_download(r->dev, xe, r->xe, sizeof(double) * (size_t)ne * r->L.nl, err);
    if (!st && xp) st = hdg_cuda_download(r->dev, xp, r->xp, sizeof(double) * (size_t)ne * npost, err);
    hdg_run_options o = *r->o;
    if (r->series) o.vtk = NULL;
    if (!st && (o.vtk || o.snapshot))
        st = hdg_hdg_output_at(r->p, &r->L, ne, r->geom_h, xe, xp, r->eta, &o, r->t, r->nsteps, 1, err);
    if (!st && r->o->png && !strchr(r->o->png, '%'))   /* a frame pattern: drawn by the steps */
        st = hdg_png_hdg(r->p, &r->L, r->mesh, xe, xp, r->p->transient ? r->t : NAN, r->o, r->rep, err);
    hdg_run_fields *f = r->o->fields;
    if (!st && f) {
        size_t nt = (size_t)r->mesh->nf * r->L.m;
        double *tr = hdg_xmalloc(sizeof(double) * (nt + 1));
        if ((st = hdg_cuda_download(r->dev, tr, r->x, sizeof(double) * nt, err))) {
            free(tr);
        } else {
            f->n = (long long)ne * r->L.nl, f->x = xe;
            f->npost = (long long)ne * npost, f->xpost = xp;
            f->ntrace = (long long)nt, f->trace_per_face = r->L.m, f->trace = tr;
            xe = xp = NULL;
        }
    }
    free(xe), free(xp);
    return st;
}
