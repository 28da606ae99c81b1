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

static hdg_status upload(drun *r, const void *h, size_t bytes, hdg_cuptr *p, hdg_error *err)
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
    st = upload(r, r->geom_h, sizeof(double) * (size_t)M->ne * r->L.ngeom, &r->geom, err);
    if (!st) st = upload(r, params, sizeof(double) * ((size_t)r->p->nparams + 1), &r->params, err);
    free(params);
    return st;
}

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
    if (!st) st = left_null(r, err);
    return st;
}

hdg_status hdg_dcu_assemble_stage(drun *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    if (r->assembled) return hdg_cuda_trace_assemble(&r->T, r->Ke, r->Fe, &r->B, r->rhs, err);
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
    if (!st) st = hdg_cuda_trace_assemble(&r->T, r->Ke, r->Fe, &r->B, r->rhs, err);
    /* the element matrices are not needed any more (a transient run reassembles
     * from them every step): their memory is the largest allocation of the run */
    if (!st && !r->p->transient) {
        hdg_cuda_free(r->dev, r->Ke);
        r->Ke = 0;
    }
    return st;
}

/* The Dirichlet kernels run on the device over the boundary faces; their
 * values come back to be placed (a few faces), then the elimination runs on
 * the device. */
hdg_status hdg_dcu_dirichlet_stage(drun *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m, nk = r->L.nk;
    unsigned char *isdir = hdg_xcalloc((size_t)M->nf + 1, 1), *dofdir = hdg_xcalloc((size_t)M->nf * m + 1, 1);
    double *xD = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double));
    int *faces = hdg_xmalloc(sizeof(int) * (size_t)(M->nbf + 1)), gs = hdg_gf_size(hdg_mesh_dim(M));
    double *fg = hdg_xmalloc(sizeof(double) * gs * (size_t)(M->nbf + 1));
    hdg_cuptr dfg = 0, duD = 0, disd = 0, dxD = 0;
    hdg_status st = HDG_OK;
    for (int i = 0; i < r->L.ndir && !st; i++) {
        int n = hdg_hdg_dirichlet_faces(r->p, &r->L, M, i, faces, fg);
        if (!n) continue;
        int nc = r->p->unknowns[r->p->bcs[r->L.dir_bc[i]].unknown].ncomp;
        size_t nu = (size_t)n * nc * nk;
        double *uD = hdg_xmalloc(sizeof(double) * nu);
        st = upload(r, fg, sizeof(double) * gs * (size_t)n, &dfg, err);
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
    if (!st) st = upload(r, dofdir, (size_t)M->nf * m, &disd, err);   /* the elimination is per dof */
    if (!st) st = upload(r, xD, sizeof(double) * (size_t)M->nf * m, &dxD, err);
    if (!st) st = hdg_cuda_trace_dirichlet(&r->B, disd, dxD, r->rhs, hdg_hdg_dirichlet_diag(r->amax), err);
    hdg_cuda_free(r->dev, disd), hdg_cuda_free(r->dev, dxD);
    free(faces), free(fg), free(isdir), free(xD);
    free(r->dofdir);
    r->dofdir = dofdir;   /* for the definiteness (hdg_dcu_definiteness) */
    return st;
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

/* A copy of the null vectors on the host (NULL: none), for PETSc and the probes (they free it). */
static double *null_host(const drun *r)
{
    if (!r->zh) return NULL;
    size_t n = (size_t)r->B.nf * r->B.m * (size_t)r->nz;
    double *z = hdg_xmalloc(sizeof(double) * (n + 1));
    memcpy(z, r->zh, sizeof(double) * n);
    return z;
}

/* K x on host vectors, the product on the device (hdg_dcu_definiteness, hdg_dcu_null_find);
 * y = 0 after a failure, which the callers check (a->st) before using y. */
typedef struct dapply {
    drun *r;
    hdg_cuptr x, y;
    hdg_status st;
    hdg_error err;
} dapply;

static void device_apply(void *ctx, const double *x, double *y)
{
    dapply *a = ctx;
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
    dapply a = {r, 0, 0, HDG_OK, {0}};
    a.st = hdg_dcu_dalloc(r, n, &a.x, &a.err);
    if (!a.st) a.st = hdg_dcu_dalloc(r, n, &a.y, &a.err);
    hdg_hdg_null_find(r->p, &r->L, r->mesh, r->o->dist, device_apply, &a, r->amax, N);   /* collective */
    hdg_cuda_free(r->dev, a.x), hdg_cuda_free(r->dev, a.y);
    hdg_error derr;
    if (!a.st && hdg_cuda_linalg_check(&r->la, &derr)) a.st = hdg_fail(&a.err, derr.code, "%s", derr.msg);
    if (a.st) *err = a.err;
    return hdg_comm_agree(a.st, err);
}

/* As the host's: the null space per trace unknown found on the device
 * matrix, the right-hand side checked and projected there. */
static hdg_status null_stage(drun *r, hdg_error *err)
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
    st = upload(r, r->zh, sizeof(double) * (size_t)n * (size_t)r->nz, &r->z, err);
    if (st) return st;
    if (r->o->dist || r->fixes) return host_project(r, err);
    hdg_hdg_data data = {r->p, r->mesh, r->L.k};
    st = hdg_hdg_null_project_rhs(&r->la.ops, n, DPTR(r->z), DPTR(r->rhs), &data, r->rep, err);
    return st ? st : hdg_cuda_linalg_check(&r->la, err);
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

hdg_status hdg_dcu_dist_apply(drun *r, hdg_hdg_solver *s, hdg_petsc_dsolver *h, double init, hdg_solve_info *info,
                             hdg_error *err)
{
    long long n = (long long)r->B.nf * r->B.m;
    double *b = hdg_xmalloc(sizeof(double) * ((size_t)n + 1)), *x = hdg_xcalloc((size_t)n + 1, sizeof(double));
    hdg_status st = hdg_comm_agree(hdg_cuda_download(r->dev, b, r->rhs, sizeof(double) * (size_t)n, err), err);
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
    if (!st) st = hdg_dcu_dist_apply(r, s, h, init, &info, err);
    hdg_petsc_dist_free(h);
    return st;
}

hdg_status hdg_dcu_definiteness(drun *r, hdg_hdg_definite *d, hdg_error *err)
{
    size_t n = (size_t)r->B.nf * r->B.m;
    dapply a = {r, 0, 0, HDG_OK, {0}};
    a.st = hdg_dcu_dalloc(r, n, &a.x, &a.err);
    if (!a.st) a.st = hdg_dcu_dalloc(r, n, &a.y, &a.err);
    hdg_hdg_definiteness(r->p, &r->L, r->mesh, r->dofdir, r->amax, r->o->dist, device_apply,
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
    dapply a;             /* K x for the probe's host vectors */
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

static void probe_apply(void *ctx, const double *x, double *y) { device_apply(&((dprobe *)ctx)->a, x, y); }

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

static hdg_status solve_stage(drun *r, hdg_error *err)
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

hdg_status hdg_dcu_recover(drun *r, hdg_error *err)
{
    int ne = r->mesh->ne;
    hdg_status st = r->uh ? HDG_OK : hdg_dcu_dalloc(r, (size_t)ne * r->L.nt, &r->uh, err);
    if (!st) st = hdg_cuda_trace_scatter(&r->T, r->x, r->uh, err);
    if (!st && !r->xe) st = hdg_dcu_dalloc(r, (size_t)ne * r->L.nl, &r->xe, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(r->uh);
    a.in[1] = DPTR(r->hist);
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
static hdg_status recover_stage(drun *r, hdg_error *err)
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

static hdg_status errors_stage(drun *r, hdg_error *err)
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
static hdg_status estimate_stage(drun *r, hdg_error *err)
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
static hdg_status output_stage(drun *r, hdg_error *err)
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
    hdg_cuptr *p[] = { &r->geom, &r->params, &r->Ke, &r->Fe, &r->rhs, &r->x, &r->uh, &r->xe, &r->xp, &r->z, &r->hist };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) hdg_cuda_free(r->dev, *p[i]);
    hdg_cuda_blockmat_free(&r->B);
    hdg_cuda_topology_free(&r->T);
    hdg_cuda_linalg_free(&r->la);
    hdg_cuda_compiled_free(&r->cc);
    hdg_lowered_free(&r->L);
    hdg_geom_free(&r->geo);
    free(r->geom_h);
    free(r->dofdir);
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
    STAGE("compile", compile_stage(&r, err));
    report_device(&r);
    hdg_hdg_report_dofs(rep, mesh, &r.L);
    if (o->dist) {   /* the whole problem's */
        hdg_report_int(rep, "dofs.trace", o->dist->nf_global * r.L.m);
        hdg_report_int(rep, "dofs.element", o->dist->ne_global * r.L.nl);
    }
    STAGE("geometry", setup_stage(&r, err));
    if (o->kernels && !strcmp(o->kernels, "handwritten")) STAGE("handwritten", use_handwritten(&r, err));
    if (p->transient) {   /* implicit time stepping: the steps, then the final state's stages */
        STAGE("steps", hdg_dcu_time_stage(&r, &line, err));
        goto final;
    }
    STAGE("local", hdg_dcu_local_stage(&r, err));
    STAGE("assemble", hdg_dcu_assemble_stage(&r, err));
    STAGE("dirichlet", hdg_dcu_dirichlet_stage(&r, err));
    STAGE("nullspace", null_stage(&r, err));
    STAGE("solve", solve_stage(&r, err));
    STAGE("recover", recover_stage(&r, err));
final:
    if (r.L.post_unknown >= 0) STAGE("postprocess", hdg_dcu_post_stage(&r, err));
    STAGE("errors", errors_stage(&r, err));
    if (r.L.estimate[0]) STAGE("estimate", estimate_stage(&r, err));
    if (o->vtk || o->png || o->fields || o->snapshot) STAGE("output", output_stage(&r, err));
done:
    hdg_progress_end(&line);
    run_free(&r);
    return st;
}
