/* run_hdg.c — the HDG driver: lower, compile, element kernels, trace system
 * assembly (dense block, seed 000), Dirichlet elimination, Krylov solve,
 * recovery, errors, output. The runtime parts are called through their
 * headers; the kernels only through hdg_kernel_fn + hdg_kernel_info. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/handwritten.h"
#include "drivers/mesh_data.h"
#include "drivers/nonfinite.h"
#include "compiler/pipeline.h"
#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "drivers/run_hdg_internal.h"
#include "drivers/run_hdg_mg.h"
#include "drivers/run_hdg_null.h"
#include "drivers/run_png.h"
#include "ir/lower.h"
#include "runtime/solve/blockmat.h"
#include "runtime/parallel/comm.h"
#include "runtime/solve/csr.h"
#include "runtime/fem/geometry.h"
#include "runtime/solve/krylov.h"
#include "runtime/mesh/mesh.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/parallel/parallel.h"
#include "runtime/petsc/petsc.h"
#include "runtime/output/vtk_dist.h"
#include "support/util.h"


hdg_kargs hdg_hdg_kargs(const hdg_run *r, const double *geom, long long n)
{
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = n;
    a.geom = geom;
    a.params = r->params;
    a.t = r->t;
    return a;
}

hdg_kernel_fn hdg_hdg_kernel(const hdg_run *r, const char *name, hdg_error *err)
{
    hdg_kernel_fn f = hdg_compiled_find(&r->cc, name, NULL);
    if (!f) hdg_fail(err, HDG_EINTERNAL, "kernel '%s' missing from the compiled module", name);
    return f;
}

/* ---------------------------------------------------------------- stages */

/* --kernels handwritten: the hand-written kernels replace the generated ones
 * after agreeing with them on the first elements. */
static hdg_status use_handwritten(hdg_run *r, hdg_error *err)
{
    char used[256];
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, r->mesh->ne);
    hdg_status st = hdg_hw_use_c(r->p->name, r->L.k, &r->cc, &a, used, sizeof used, err);
    if (!st) hdg_report_string(r->rep, "kernels_handwritten", used);
    return st;
}

/* One pass over the element matrices, threaded by fixed blocks of elements
 * (the results do not depend on the thread count): the sum of the diagonals,
 * max |K_e|, max |K_e - K_e^T|, and the first element whose K_e (F_e) holds a
 * NaN or Inf (-1: none). */
#define SCAN_BLOCK 1024
typedef struct scan_job {
    const double *Ke, *Fe;
    int nt;
    long long ne;
    double *part;   /* per block: diag, amax, asym, first bad K_e, first bad F_e */
} scan_job;

static void scan_blocks(long long b0, long long b1, void *vctx)
{
    const scan_job *j = vctx;
    const int nt = j->nt;
    for (long long b = b0; b < b1; b++) {
        long long e1 = (b + 1) * SCAN_BLOCK < j->ne ? (b + 1) * SCAN_BLOCK : j->ne;
        double diag = 0, amax = 0, asym = 0, badK = -1, badF = -1;
        for (long long e = b * SCAN_BLOCK; e < e1; e++) {
            const double *K = j->Ke + e * (long long)nt * nt, *F = j->Fe + e * nt;
            int fin = 1;
            for (int i = 0; i < nt; i++) {
                diag += K[i * nt + i];
                for (int k = 0; k < nt; k++) {
                    double v = K[i * nt + k], av = fabs(v), dv = fabs(v - K[k * nt + i]);
                    fin &= v - v == 0;
                    amax = av > amax ? av : amax;
                    asym = dv > asym ? dv : asym;
                }
            }
            if (!fin && badK < 0) badK = (double)e;
            fin = 1;
            for (int i = 0; i < nt; i++) fin &= F[i] - F[i] == 0;
            if (!fin && badF < 0) badF = (double)e;
        }
        double *p = j->part + 5 * b;
        p[0] = diag, p[1] = amax, p[2] = asym, p[3] = badK, p[4] = badF;
    }
}

static void scan_element_matrices(const double *Ke, const double *Fe, long long ne, int nt, double *diag,
                                  double *amax, double *asym, int *badK, int *badF)
{
    long long nb = (ne + SCAN_BLOCK - 1) / SCAN_BLOCK;
    scan_job j = {Ke, Fe, nt, ne, hdg_xmalloc(sizeof(double) * 5 * (size_t)(nb + 1))};
    hdg_parallel_for_grain(nb, 1, scan_blocks, &j);
    *diag = *amax = *asym = 0, *badK = *badF = -1;
    for (long long b = 0; b < nb; b++) {
        const double *p = j.part + 5 * b;
        *diag += p[0];
        *amax = p[1] > *amax ? p[1] : *amax;
        *asym = p[2] > *asym ? p[2] : *asym;
        if (*badK < 0 && p[3] >= 0) *badK = (int)p[3];
        if (*badF < 0 && p[4] >= 0) *badF = (int)p[4];
    }
    free(j.part);
}

hdg_status hdg_hdg_local_stage(hdg_run *r, hdg_error *err)
{
    int nt = r->L.nt, ne = r->mesh->ne;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.local, err);
    if (!f) return err->code;
    if (!r->Ke) r->Ke = hdg_xmalloc(sizeof(double) * (size_t)ne * nt * nt);
    if (!r->Fe) r->Fe = hdg_xmalloc(sizeof(double) * (size_t)ne * nt);
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.out[0] = r->Ke;
    a.out[1] = r->Fe;
    if (r->L.nonlinear) a.in[0] = r->state_l, a.in[1] = r->state_te;   /* Newton's state */
    if (r->L.nonlinear) a.in[2] = r->hist;   /* transient: the time scheme's history (else unread) */
    hdg_launch(f, ne, &a);
    hdg_status st = HDG_OK;
    double diag, amax, asym;
    int bad, badF;
    scan_element_matrices(r->Ke, r->Fe, ne, nt, &diag, &amax, &asym, &bad, &badF);
    if (bad >= 0) st = hdg_hdg_bad_element(r->p, r->mesh, bad, 1, err);
    else if ((bad = badF) >= 0) st = hdg_hdg_bad_element(r->p, r->mesh, bad, 0, err);
    if ((st = hdg_comm_agree(st, err))) return st;   /* under mpirun: every rank decides alike below */
    st = hdg_hdg_trace_sign(r->rep, diag, amax, asym, &r->amax, &r->negated, &r->asym, err);
    if (st) return st;
    if (r->negated) {
        for (long long i = 0; i < (long long)ne * nt * nt; i++) r->Ke[i] = -r->Ke[i];
        for (long long i = 0; i < (long long)ne * nt; i++) r->Fe[i] = -r->Fe[i];
    }
    return HDG_OK;
}

hdg_status hdg_hdg_assemble_stage(hdg_run *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m;
    if (!r->B.A) {
        int nfe = hdg_mesh_nfe(M), na = hdg_mesh_na(M);
        int *nbr = hdg_xmalloc(sizeof(int) * na * (size_t)M->nf);
        hdg_status st = hdg_blockmat_neighbours_n(nfe, M->nf, M->ne, M->ef, M->fe, M->flf, nbr, err);
        if (!st) st = hdg_blockmat_init(&r->B, M->nf, m, na, nbr, err);
        free(nbr);
        if (st) return st;
        if (!r->maps.buf) hdg_hdg_face_maps(&r->L, &r->maps);   /* Newton's residual may have built them */
        r->rhs = hdg_xcalloc((size_t)M->nf * m, sizeof(double));
    }
    return hdg_blockmat_assemble_maps(&r->B, r->rhs, M->ne, r->Ke, r->Fe, M->ef, M->eforient, M->fe,
                                      M->flf, &r->maps.S, err);
}

/* Projects every Dirichlet condition onto its faces at time r->t: r->isdir, r->xD. */
hdg_status hdg_hdg_dirichlet_data(hdg_run *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m, nk = r->L.nk, gs = hdg_gf_size(hdg_mesh_dim(M));
    if (!r->isdir) r->isdir = hdg_xcalloc((size_t)M->nf, 1);
    if (!r->xD) r->xD = hdg_xcalloc((size_t)M->nf * m, sizeof(double));
    if (!r->dofdir) r->dofdir = hdg_xcalloc((size_t)M->nf * m + 1, 1);
    int *faces = hdg_xmalloc(sizeof(int) * (size_t)(M->nbf + 1));
    double *fg = hdg_xmalloc(sizeof(double) * gs * (size_t)(M->nbf + 1));
    hdg_status st = HDG_OK;
    for (int i = 0; i < r->L.ndir && !st; i++) {
        int n = hdg_hdg_dirichlet_faces(r->p, &r->L, M, i, faces, fg);
        if (!n) continue;
        hdg_kernel_fn fn = hdg_hdg_kernel(r, r->L.dirichlet[i], err);
        if (!fn) { st = err->code; break; }
        int nc = r->p->unknowns[r->p->bcs[r->L.dir_bc[i]].unknown].ncomp;
        double *uD = hdg_xmalloc(sizeof(double) * (size_t)n * nc * nk);
        hdg_kargs a = hdg_hdg_kargs(r, fg, n);
        a.out[0] = uD;
        hdg_launch(fn, n, &a);
        st = hdg_hdg_dirichlet_finite(r->p, &r->L, M, i, faces, n, uD, err);
        if (!st) hdg_hdg_dirichlet_store(r->p, &r->L, i, faces, n, uD, r->isdir, r->dofdir, r->xD);
        free(uD);
    }
    free(faces);
    free(fg);
    if (!st) r->mixed = hdg_hdg_dirichlet_mixed(M, m, r->isdir, r->dofdir);
    return st;
}

/* ... and eliminates them from the trace system. */
static hdg_status dirichlet_stage(hdg_run *r, hdg_error *err)
{
    hdg_status st = hdg_hdg_dirichlet_data(r, err);
    if (!st) hdg_blockmat_apply_dirichlet_dofs(&r->B, r->rhs, r->isdir, r->mixed ? r->dofdir : NULL, r->xD,
                                               hdg_hdg_dirichlet_diag(r->amax));
    return st;
}

static void blockmat_apply(void *ctx, const double *x, double *y) { hdg_blockmat_spmv(ctx, x, y); }

/* The null space of the trace matrix, per trace unknown, found on the
 * assembled matrix (run_hdg_null.h): one free constant is fixed by the
 * 'mean' condition of the unknown it moves, the right-hand side checked and
 * projected; anything else is refused. */
static hdg_status null_stage(hdg_run *r, hdg_error *err)
{
    hdg_hdg_null N;
    hdg_hdg_null_find(r->p, &r->L, r->mesh, r->o->dist, blockmat_apply, &r->B, r->amax, &N);
    int t = r->asym > HDG_HDG_SYMMETRIC ? hdg_hdg_null_candidate(r->p, r->mesh, r->isdir) : -1;
    long long left = t >= 0 && hdg_hdg_null_left(&r->L, r->mesh, r->Ke, t, r->amax);
    hdg_comm_imin(&left, 1);   /* every element annihilates the constants by itself */
    hdg_hdg_null_fixes F;
    hdg_status st = hdg_hdg_null_decide_all(r->p, &r->L, &N, (int)left, r->asym, r->rep, &F, err);
    if (st || !F.dim) return st;
    hdg_hdg_data data = {r->p, r->mesh, r->L.k};
    if (F.dim > 1 || F.fix[0].c.comp < 0) {   /* several free constants, rotations: an orthonormal basis, every solver projects them */
        r->fixes = hdg_xmalloc(sizeof *r->fixes);
        *r->fixes = F;
        r->nz = F.dim;
        r->null_mask = hdg_hdg_null_mask(r->p, &F);
        r->z = hdg_hdg_null_basis(&r->L, r->mesh, r->o->dist, &F);
        return hdg_hdg_null_project_all(r->p, &F, r->o->dist, r->B.nf, r->B.m, r->z, r->rhs, &data, r->rep, err);
    }
    hdg_hdg_null_fix fix = F.fix[0];
    r->null_u = fix.u, r->null_c = fix.c.comp, r->null_mask = 1u << (fix.g - 1), r->nz = 1;
    r->z = hdg_hdg_null_cand_vector(&r->L, r->mesh, fix.c);
    if (r->o->dist) return hdg_hdg_null_project_dist(r->o->dist, r->B.nf, r->L.m, r->z, r->rhs, &data, r->rep, err);
    return hdg_hdg_null_project_rhs(hdg_vecops_host(), (long long)r->B.nf * r->B.m, r->z, r->rhs, &data, r->rep, err);
}

/* --solver petsc: the same system (Dirichlet eliminated, null space
 * attached) solved by PETSc (runtime/petsc/petsc.h). */
static hdg_petsc_opts petsc_opts(const hdg_run *r, const hdg_hdg_solver *s)
{
    return (hdg_petsc_opts){s->petsc, r->asym <= HDG_HDG_SYMMETRIC, s->so.rtol, s->so.maxit, s->so.restart, r->z, r->nz};
}

/* Under mpirun: PETSc's solver of the pieces summed, set up once per matrix. */
static hdg_status dist_init(hdg_hdg_ksp *K, hdg_run *r, hdg_error *err)
{
    const hdg_mesh_dist *d = r->o->dist;
    hdg_petsc_dist_mg g = {0};
    int mg = K->s.dist_mg && hdg_hdg_dist_mg(r->o, r->mesh, &r->B, r->L.nk, r->null_mask, &g, err);
    hdg_petsc_dist pd = {d->fgid, d->fstart[d->rank], d->nf_global, d->nf_owned, mg ? &g : NULL};
    hdg_petsc_opts po = petsc_opts(r, &K->s);
    hdg_petsc_info pi;
    hdg_status st = hdg_petsc_dist_create(&r->B, &pd, &po, &K->dist, &pi, err);
    free((void *)g.fixed);
    K->dist_init_seconds = pi.init_seconds;
    return st;
}

static hdg_status petsc_stage(hdg_run *r, hdg_hdg_ksp *K, hdg_solve_info *info, hdg_error *err)
{
    hdg_hdg_solver *s = &K->s;
    hdg_petsc_opts po = petsc_opts(r, s);
    hdg_petsc_info pi;
    hdg_status st = K->dist ? hdg_petsc_dist_apply(K->dist, r->rhs, r->x, &pi, err)
                            : hdg_petsc_solve(&r->B, r->rhs, r->x, &po, &pi, err);
    if (K->dist) pi.init_seconds = K->dist_init_seconds;
    *info = (hdg_solve_info){.iterations = pi.iterations, .residual = pi.residual, .converged = pi.converged && !st,
                             .sv_min = pi.sv_min, .sv_max = pi.sv_max};
    hdg_hdg_report_solve(r->rep, s, info, st);
    if (!st) st = hdg_hdg_near_singular(info, err);   /* PETSc's estimates (CG, GMRES) */
    if (!st) hdg_hdg_solve_warning(r->rep, r->mesh, r->L.k, s, info);
    if (pi.ksp_type[0]) {
        hdg_report_string(r->rep, "solver.ksp_type", pi.ksp_type);
        hdg_report_string(r->rep, "solver.pc_type", pi.pc_type);
        hdg_report_string(r->rep, "solver.converged_reason", pi.reason);
        hdg_report_number(r->rep, "solver.petsc_init_seconds", pi.init_seconds);
        hdg_report_string(r->rep, "solver.petsc_module", hdg_petsc_module_path());
        hdg_report_string(r->rep, "solver.mpi_defaults", hdg_petsc_mpi_defaults());
    }
    return st;
}

/* The solver of the trace system B (as it is now: Dirichlet eliminated),
 * preconditioner set up once and kept for every solve with B. */
hdg_status hdg_hdg_ksp_init(hdg_hdg_ksp *K, hdg_run *r, hdg_error *err)
{
    memset(K, 0, sizeof *K);
    K->n = (long long)r->B.nf * r->B.m;
    if (!r->x) r->x = hdg_xcalloc((size_t)K->n, sizeof(double));
    /* the null space's constants (run_hdg_null.h) have K z ~ 0: the definiteness test skips them itself */
    hdg_hdg_definiteness(r->p, &r->L, r->mesh, r->dofdir, r->amax, r->o->dist, blockmat_apply, &r->B, r->rep,
                         &K->def);
    hdg_status st = hdg_hdg_choose_solver(r->o, r->asym, K->n, &K->def, &K->s, err);
    if (!st && r->o->dist) st = dist_init(K, r, err);
    if (st || !strcmp(K->s.method, "petsc")) return st;
    K->A = hdg_blockmat_op(&r->B);
    if (!strcmp(K->s.format, "csr")) {
        if ((st = hdg_csr_from_blockmat(&K->csr, &r->B, err))) return st;
        K->A = hdg_csr_op(&K->csr);
    }
    if (!strcmp(K->s.precond, "block")) st = hdg_precond_block_init(&K->M, &r->B, err);
    else if (!strcmp(K->s.precond, "jacobi")) st = hdg_precond_jacobi_init(&K->M, &r->B, err);
    else if (!strcmp(K->s.precond, "mg")) {
        double t0 = hdg_wtime();
        st = hdg_hdg_mg_host(&K->mg, &r->B, r->mesh, r->L.nk, r->null_mask, K->s.petsc, r->rep, &K->M, err);
        hdg_report_number(r->rep, "solver.mg.setup_seconds", hdg_wtime() - t0);
    }
    return st;
}

void hdg_hdg_ksp_free(hdg_hdg_ksp *K)
{
    hdg_petsc_dist_free(K->dist);
    if (K->s.precond && !strcmp(K->s.precond, "mg")) hdg_hdg_mg_free(&K->mg);
    else hdg_precond_free(&K->M);
    hdg_csr_free(&K->csr);
    memset(K, 0, sizeof *K);
}

/* B x = rhs, x (r->x) the initial guess; reported (solver.*), *info filled. */
hdg_status hdg_hdg_ksp_solve(hdg_hdg_ksp *K, hdg_run *r, hdg_solve_info *info, hdg_error *err)
{
    memset(info, 0, sizeof *info);
    if (!strcmp(K->s.method, "petsc")) return petsc_stage(r, K, info, err);
    const hdg_linop *Mp = K->M.apply ? &K->M : NULL;
    hdg_hdg_null_op nc;
    hdg_linop Mn;
    double *t = NULL;
    if (r->z) {   /* solve on the complement of the constants */
        t = hdg_xmalloc(sizeof(double) * (size_t)K->n);
        Mn = hdg_hdg_null_precond_all(&nc, Mp, hdg_vecops_host(), r->z, r->nz, t, K->n);
        Mp = &Mn;
    }
    hdg_status st;
    double t0 = hdg_wtime();
    if (!strcmp(K->s.method, "cg")) st = hdg_pcg(&K->A, Mp, r->rhs, r->x, &K->s.so, NULL, info, err);
    else st = hdg_gmres(&K->A, Mp, r->rhs, r->x, &K->s.so, NULL, info, err);
    hdg_report_number(r->rep, "solver.krylov_seconds", hdg_wtime() - t0);
    free(t);
    hdg_hdg_report_solve(r->rep, &K->s, info, st);
    if (!st) st = hdg_hdg_near_singular(info, err);
    if (!st) hdg_hdg_solve_warning(r->rep, r->mesh, r->L.k, &K->s, info);
    return st;
}

/* The uniqueness probe's solve (hdg_hdg_unique_probe): the same solver and
 * preconditioner, its report put aside. */
typedef struct probe_ctx {
    hdg_hdg_ksp *K;
    hdg_run *r;
} probe_ctx;

static void probe_apply(void *ctx, const double *x, double *y) { hdg_blockmat_spmv(&((probe_ctx *)ctx)->r->B, x, y); }

static hdg_status probe_solve(void *ctx, const double *b, double *x, hdg_error *err)
{
    probe_ctx *c = ctx;
    hdg_run *r = c->r;
    double *rhs = r->rhs, *x0 = r->x;
    hdg_report *rep = r->rep, *aside = hdg_report_new();
    r->rhs = (double *)b, r->x = x, r->rep = aside;
    hdg_solve_info info;
    hdg_status st = hdg_hdg_ksp_solve(c->K, r, &info, err);
    r->rhs = rhs, r->x = x0, r->rep = rep;
    hdg_report_free(aside);
    return st;
}

static hdg_status solve_stage(hdg_run *r, hdg_error *err)
{
    hdg_hdg_ksp K;
    hdg_solve_info info;
    hdg_status st = hdg_comm_agree(hdg_hdg_ksp_init(&K, r, err), err);
    if (!st) st = hdg_hdg_ksp_solve(&K, r, &info, err);
    if (!st && hdg_hdg_probe_wanted(&K.def, &info)) {
        probe_ctx c = {&K, r};
        st = hdg_comm_agree(hdg_hdg_unique_probe(r->B.nf, r->B.m, r->o->dist, probe_apply, probe_solve, &c, r->z, r->nz,
                                                 r->rep, err), err);
    }
    hdg_hdg_ksp_free(&K);
    return st;
}

/* Element-local trace values (S_o of the face's orientation), then x = A^-1 (F - B uhat)
 * (transient: with the history r->hist). */
hdg_status hdg_hdg_recover(hdg_run *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int nt = r->L.nt, nl = r->L.nl;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.recover, err);
    if (!f) return err->code;
    double *uh = hdg_xmalloc(sizeof(double) * (size_t)M->ne * nt);
    if (!r->maps.buf) hdg_hdg_face_maps(&r->L, &r->maps);
    hdg_blockmat_scatter_maps(M->ne, M->ef, M->eforient, &r->maps.S, r->x, uh);
    if (!r->xe) r->xe = hdg_xmalloc(sizeof(double) * (size_t)M->ne * nl);
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, M->ne);
    a.in[0] = uh;
    a.in[1] = r->hist;
    if (r->L.nonlinear) a.in[r->L.recover_state] = r->state_l, a.in[r->L.recover_state + 1] = r->state_te;
    a.out[0] = r->xe;
    hdg_launch(f, M->ne, &a);
    free(uh);
    return HDG_OK;
}

/* With a constant null space: x + c z with c such that the domain mean of
 * the unknown is its condition's (the response of the mean to z measured by
 * a second recovery: the recovery is affine in the trace). */
/* The means of the fixes' unknowns at the trace r->x (several free constants). */
static hdg_status fix_means(void *ctx, const double *x, double *mean, hdg_error *err)
{
    hdg_run *r = ctx;
    (void)x;   /* r->x itself */
    hdg_status st = hdg_hdg_recover(r, err);
    for (int i = 0; !st && i < r->fixes->dim; i++)
        mean[i] = hdg_hdg_domain_mean(&r->L, r->mesh, r->fixes->fix[i].u, r->fixes->fix[i].c.comp, r->xe);
    return st;
}

static hdg_status recover_stage(hdg_run *r, hdg_error *err)
{
    if (r->fixes) {
        hdg_status st = hdg_hdg_null_shift_all(r->p, r->mesh, r->fixes, hdg_vecops_host(), (long long)r->B.nf * r->B.m, r->z, r->x,
                                               fix_means, r, r->rep, err);
        return st ? st : hdg_hdg_recover(r, err);
    }
    hdg_status st = hdg_hdg_recover(r, err);
    if (st || !r->z) return st;
    long long n = (long long)r->B.nf * r->B.m;
    const hdg_vecops *v = hdg_vecops_host();
    double m0 = hdg_hdg_domain_mean(&r->L, r->mesh, r->null_u, r->null_c, r->xe);
    v->axpy(v->ctx, n, 1.0, r->z, r->x);
    if ((st = hdg_hdg_recover(r, err))) return st;
    double m1 = hdg_hdg_domain_mean(&r->L, r->mesh, r->null_u, r->null_c, r->xe);
    double c, want = hdg_hdg_mean_target(r->p, r->mesh, r->null_u, r->null_c);
    if ((st = hdg_hdg_mean_shift(r->p, r->null_u, m0, m1, want, &c, err))) return st;
    v->axpy(v->ctx, n, c, r->z, r->x);
    hdg_report_number(r->rep, "solver.mean", want);
    return hdg_hdg_recover(r, err);
}

hdg_status hdg_hdg_post_stage(hdg_run *r, hdg_error *err)
{
    const hdg_lowered *L = &r->L;
    int ne = r->mesh->ne, n = L->npost_dofs;
    hdg_kernel_fn f = hdg_hdg_kernel(r, L->post, err);
    if (!f) return err->code;
    if (!r->xp) r->xp = hdg_xmalloc(sizeof(double) * (size_t)ne * n);
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = r->xe;
    a.out[0] = r->xp;
    hdg_launch(f, ne, &a);
    return HDG_OK;
}

hdg_status hdg_hdg_errors_stage(hdg_run *r, hdg_error *err)
{
    const hdg_lowered *L = &r->L;
    if (!L->nerr) return HDG_OK;
    int ne = r->mesh->ne;
    hdg_kernel_fn f = hdg_hdg_kernel(r, L->errors, err);
    if (!f) return err->code;
    double *e2 = hdg_xmalloc(sizeof(double) * (size_t)ne * L->nerr);
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = r->xe;
    a.in[1] = r->xp;
    a.out[0] = e2;
    hdg_launch(f, ne, &a);
    hdg_status st = hdg_comm_agree(hdg_hdg_check_finite(r->p, r->mesh, e2, ne, L->nerr, "the errors", err), err);
    if (!st) hdg_hdg_report_errors(r->p, L, e2, ne, r->rep);
    free(e2);
    return st;
}

/* The error estimate ||u* - u|| per element (run_hdg_common.h). */
hdg_status hdg_hdg_estimate_stage(hdg_run *r, hdg_error *err)
{
    int ne = r->mesh->ne;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.estimate, err);
    if (!f) return err->code;
    r->eta = hdg_xmalloc(sizeof(double) * ((size_t)ne + 1));
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = r->xe;
    a.in[1] = r->xp;
    a.out[0] = r->eta;
    hdg_launch(f, ne, &a);
    return hdg_hdg_estimate(r->p, r->mesh, &r->L, r->eta, r->rep, err);
}

/* The fields sampled once: the .vtu/.pvtu file (--vtk) and the caller's
 * snapshot hook; under mpirun the report says how many files hold them. */
hdg_status hdg_hdg_output_stage(hdg_run *r, hdg_error *err)
{
    hdg_status st = hdg_hdg_output_estimate(r->p, &r->L, r->mesh->ne, r->geom, r->xe, r->xp, r->eta, r->o, err);
    if (!st && r->o->vtk && (r->o->dist || hdg_vtk_is_parallel(r->o->vtk)))
        hdg_report_int(r->rep, "output.vtk_pieces", hdg_vtk_dist_pieces(r->o->vtk));
    return st;
}

/* ---------------------------------------------------------------- driver */

/* Under mpirun rank 0 compiles first; the others then find the kernels in
 * the cache (one compilation per node sharing it). */
static hdg_status compile_stage(hdg_run *r, const hdg_compile_options *co, hdg_error *err)
{
    int rank = hdg_comm_rank();
    hdg_status st = rank ? HDG_OK : hdg_compile_c(r->L.mod, co, &r->cc, err);
    if (!hdg_comm_active() || (st = hdg_comm_agree(st, err))) return st;
    return rank ? hdg_compile_c(r->L.mod, co, &r->cc, err) : HDG_OK;
}

static void run_free(hdg_run *r)
{
    hdg_lowered_free(&r->L);
    hdg_compiled_free(&r->cc);
    hdg_geom_free(&r->geo);
    hdg_blockmat_free(&r->B);
    free(r->params), free(r->geom), free(r->Ke), free(r->Fe);
    hdg_hdg_face_maps_free(&r->maps);
    free(r->rhs), free(r->x), free(r->isdir), free(r->xD), free(r->xe), free(r->xp), free(r->z), free(r->fixes);
    free(r->hist), free(r->eta), free(r->dofdir), free(r->state_te);
}

static void report_sizes(hdg_run *r)
{
    hdg_report *R = r->rep;
    hdg_hdg_report_dofs(R, r->mesh, &r->L);
    if (r->o->dist) {   /* the whole problem's */
        hdg_report_int(R, "dofs.trace", r->o->dist->nf_global * r->L.m);
        hdg_report_int(R, "dofs.element", r->o->dist->ne_global * r->L.nl);
    }
    hdg_report_int(R, "compile.cache_hits", r->cc.stats.cache_hit ? 1 : 0);
    hdg_report_number(R, "compile.seconds", r->cc.stats.compile_seconds);
    hdg_report_number(R, "compile.ir_passes_seconds", r->cc.t_optimize);
    hdg_report_number(R, "compile.emit_seconds", r->cc.t_emit);
    hdg_report_number(R, "compile.load_seconds", r->cc.stats.load_seconds);
    hdg_report_int(R, "compile.source_bytes", (long long)r->cc.source_bytes);
    hdg_report_int(R, "compile.batch", r->cc.batch);
    hdg_report_int(R, "compile.batched_kernels", r->cc.nbatched);
    if (r->cc.stats.warning[0]) hdg_report_string(R, "compile.warning", r->cc.stats.warning);
}

#define STAGE(name, call)                                                  \
    do {                                                                   \
        double t_ = hdg_wtime();                                           \
        hdg_progress_update(&line, 1, "%s ...", name);                     \
        st = hdg_comm_agree((call), err);   /* mpirun: every rank's */     \
        hdg_report_number(r.rep, "timings." name, hdg_wtime() - t_);       \
        if (st) goto done;                                                 \
    } while (0)

hdg_status hdg_run_hdg(const hdg_problem *p, hdg_mesh *mesh, const hdg_run_options *o,
                       hdg_report *rep, hdg_error *err)
{
    hdg_run r;
    memset(&r, 0, sizeof r);
    r.p = p, r.mesh = mesh, r.o = o, r.rep = rep;
    r.params = hdg_hdg_params(p);
    hdg_status st;
    hdg_progress line;   /* the stage names on a terminal (o->progress) */
    hdg_progress_begin(&line, o->progress ? stderr : NULL);
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.use_cache = o->use_cache;
    STAGE("lower", hdg_lower_hdg(p, &r.L, err));
    if (!o->newton_snes) hdg_lowered_drop_jinv(&r.L);   /* only SNES applies J^-1 (run_hdg_snes.c) */
    if (o->png && (st = hdg_png_hdg_field(p, &r.L, o->png_field, &(int){0}, &(int){0}, err))) goto done;
    STAGE("compile", compile_stage(&r, &co, err));
    report_sizes(&r);
    STAGE("geometry", hdg_geom_init(&r.geo, mesh, err));
    r.geom = hdg_xcalloc((size_t)mesh->ne * (size_t)r.L.ngeom, sizeof(double));
    hdg_hdg_fill_geom(&r.L, mesh, &r.geo, r.geom);
    if (o->kernels && !strcmp(o->kernels, "handwritten")) STAGE("handwritten", use_handwritten(&r, err));
    if (p->transient) {   /* implicit time stepping: run_hdg_time.c */
        STAGE("steps", hdg_run_hdg_time(&r, &line, err));
        goto fields;
    }
    if (p->nonlinear) {   /* Newton: run_hdg_newton.c */
        STAGE("newton", o->newton_snes ? hdg_run_hdg_snes(&r, err) : hdg_run_hdg_newton(&r, err));
        goto post;
    }
    STAGE("local", hdg_hdg_local_stage(&r, err));
    STAGE("assemble", hdg_hdg_assemble_stage(&r, err));
    STAGE("dirichlet", dirichlet_stage(&r, err));
    STAGE("nullspace", null_stage(&r, err));
    STAGE("solve", solve_stage(&r, err));
    STAGE("recover", recover_stage(&r, err));
post:
    if (r.L.post_unknown >= 0) STAGE("postprocess", hdg_hdg_post_stage(&r, err));
    STAGE("errors", hdg_hdg_errors_stage(&r, err));
    if (r.L.estimate[0]) STAGE("estimate", hdg_hdg_estimate_stage(&r, err));
    if (o->vtk || o->snapshot) STAGE("output", hdg_hdg_output_stage(&r, err));
fields:
    if (o->png && !strchr(o->png, '%'))   /* a frame pattern: drawn by the steps (run_hdg_time.c) */
        STAGE("png", hdg_png_hdg(p, &r.L, mesh, r.xe, r.xp, p->transient ? r.t : NAN, o, r.rep, err));
    if (o->fields) {   /* hand the element fields over */
        o->fields->n = (long long)mesh->ne * r.L.nl;
        o->fields->x = r.xe;
        o->fields->npost = r.xp ? (long long)mesh->ne * r.L.npost_dofs : 0;
        o->fields->xpost = r.xp;
        o->fields->ntrace = (long long)mesh->nf * r.L.m;
        o->fields->trace_per_face = r.L.m;
        o->fields->trace = r.x;
        r.xe = r.xp = r.x = NULL;
    }
done:
    hdg_progress_end(&line);
    run_free(&r);
    return st;
}
