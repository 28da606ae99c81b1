/* run_hdg.c — the HDG driver: lower, compile, element kernels, trace system
 * assembly (dense block, seed 000), Dirichlet elimination, Krylov solve,
 * recovery, errors, output. The runtime parts are called through their
 * headers; the kernels only through hdg_kernel_fn + hdg_kernel_info. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/mesh_data.h"
#include "compiler/pipeline.h"
#include "compiler/run.h"
#include "ir/lower.h"
#include "runtime/blockmat.h"
#include "runtime/csr.h"
#include "runtime/geometry.h"
#include "runtime/krylov.h"
#include "runtime/mesh.h"
#include "runtime/refel.h"
#include "runtime/vtk.h"
#include "support/util.h"

typedef struct hdg_run {
    const hdg_problem *p;
    hdg_mesh *mesh;
    const hdg_run_options *o;
    hdg_report *rep;
    hdg_lowered L;
    hdg_compiled cc;
    hdg_geom geo;
    double *params;
    double *geom;        /* ne * ngeom */
    double *Ke, *Fe;     /* ne * nt * nt, ne * nt */
    double *flip;        /* m */
    hdg_blockmat B;
    double *rhs, *x;     /* nf * m */
    unsigned char *isdir;
    double *xD;
    double *xe;          /* ne * nl element dofs */
    double *xp;          /* ne * npost post-processed dofs */
    int negated, symmetric;
} hdg_run;

static hdg_kargs kargs(const hdg_run *r, const double *geom, long long n)
{
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.nitems = n;
    a.geom = geom;
    a.params = r->params;
    return a;
}

static hdg_kernel_fn kernel(const hdg_run *r, const char *name, hdg_error *err)
{
    hdg_kernel_fn f = hdg_compiled_find(&r->cc, name, NULL);
    if (!f) hdg_fail(err, HDG_EINTERNAL, "kernel '%s' missing from the compiled module", name);
    return f;
}

/* ---------------------------------------------------------------- stages */

static hdg_status local_stage(hdg_run *r, hdg_error *err)
{
    int nt = r->L.nt, ne = r->mesh->ne;
    hdg_kernel_fn f = kernel(r, r->L.local, err);
    if (!f) return err->code;
    r->Ke = hdg_xmalloc(sizeof(double) * (size_t)ne * nt * nt);
    r->Fe = hdg_xmalloc(sizeof(double) * (size_t)ne * nt);
    hdg_kargs a = kargs(r, r->geom, ne);
    a.out[0] = r->Ke;
    a.out[1] = r->Fe;
    hdg_launch(f, ne, &a);
    /* The trace equation may be written with either sign; CG needs a positive
     * diagonal, so a system with a negative trace diagonal is negated (the
     * equation times -1: same solution). Symmetry is measured on K_e. */
    double diag = 0, amax = 0, asym = 0;
    for (long long e = 0; e < ne; e++) {
        const double *K = r->Ke + e * (long long)nt * nt;
        for (int i = 0; i < nt; i++) {
            diag += K[i * nt + i];
            for (int j = 0; j < nt; j++) {
                amax = fmax(amax, fabs(K[i * nt + j]));
                asym = fmax(asym, fabs(K[i * nt + j] - K[j * nt + i]));
            }
        }
    }
    if (!isfinite(diag))
        return hdg_fail(err, HDG_ESOLVER, "the element matrices contain NaN or Inf "
                        "(a singular local system? check tau > 0 and the coefficients)");
    r->symmetric = asym <= 1e-12 * amax;
    if (diag < 0) {
        r->negated = 1;
        for (long long i = 0; i < (long long)ne * nt * nt; i++) r->Ke[i] = -r->Ke[i];
        for (long long i = 0; i < (long long)ne * nt; i++) r->Fe[i] = -r->Fe[i];
    }
    hdg_report_number(r->rep, "trace_matrix.symmetry_defect", amax > 0 ? asym / amax : 0);
    hdg_report_bool(r->rep, "trace_matrix.negated", r->negated);
    return HDG_OK;
}

static hdg_status assemble_stage(hdg_run *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m, nk = r->L.k + 1;
    int *nbr = hdg_xmalloc(sizeof(int) * 5 * (size_t)M->nf);
    hdg_status st = hdg_blockmat_neighbours(M->nf, M->ne, M->ef, M->fe, M->flf, nbr, err);
    if (!st) st = hdg_blockmat_init(&r->B, M->nf, m, 5, nbr, err);
    free(nbr);
    if (st) return st;
    r->flip = hdg_xmalloc(sizeof(double) * (size_t)m);
    for (int i = 0; i < m; i++) r->flip[i] = (i % nk) % 2 ? -1 : 1;
    r->rhs = hdg_xcalloc((size_t)M->nf * m, sizeof(double));
    return hdg_blockmat_assemble(&r->B, r->rhs, M->ne, r->Ke, r->Fe, M->ef, M->eforient, M->fe,
                                 M->flf, r->flip, err);
}

/* Projects every Dirichlet condition onto its faces and eliminates them. */
static hdg_status dirichlet_stage(hdg_run *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m, nk = r->L.k + 1;
    r->isdir = hdg_xcalloc((size_t)M->nf, 1);
    r->xD = hdg_xcalloc((size_t)M->nf * m, sizeof(double));
    int *faces = hdg_xmalloc(sizeof(int) * (size_t)(M->nbf + 1));
    double *fg = hdg_xmalloc(sizeof(double) * HDG_GF_SIZE * (size_t)(M->nbf + 1));
    hdg_status st = HDG_OK;
    for (int i = 0; i < r->L.ndir && !st; i++) {
        const hdg_bc *bc = &r->p->bcs[r->L.dir_bc[i]];
        int n = 0, nc = r->p->unknowns[bc->unknown].ncomp;
        for (int f = 0; f < M->nf; f++)
            if (hdg_face_on_markers(M, f, &bc->markers)) {
                faces[n] = f;
                double *g = fg + (size_t)n * HDG_GF_SIZE;
                g[HDG_GF_XA] = M->vx[M->fv[2 * f]], g[HDG_GF_YA] = M->vy[M->fv[2 * f]];
                g[HDG_GF_XB] = M->vx[M->fv[2 * f + 1]], g[HDG_GF_YB] = M->vy[M->fv[2 * f + 1]];
                n++;
            }
        if (!n) continue;
        hdg_kernel_fn fn = kernel(r, r->L.dirichlet[i], err);
        if (!fn) { st = err->code; break; }
        double *uD = hdg_xmalloc(sizeof(double) * (size_t)n * nc * nk);
        hdg_kargs a = kargs(r, fg, n);
        a.out[0] = uD;
        hdg_launch(fn, n, &a);
        int off = r->L.toff[bc->unknown];
        for (int t = 0; t < n; t++) {
            r->isdir[faces[t]] |= (unsigned char)(1u << (r->p->unknowns[bc->unknown].index & 7));
            memcpy(r->xD + (size_t)faces[t] * m + off, uD + (size_t)t * nc * nk,
                   sizeof(double) * (size_t)(nc * nk));
        }
        free(uD);
    }
    free(faces);
    free(fg);
    /* The trace matrix eliminates whole faces: a face that is Dirichlet for one
     * trace unknown must be Dirichlet for all of them. */
    unsigned all = (1u << (r->p->ntrace < 8 ? r->p->ntrace : 8)) - 1;
    for (int f = 0; f < M->nf && !st; f++)
        if (r->isdir[f] && r->isdir[f] != all)
            st = hdg_fail(err, HDG_EINPUT, "face %d (marker '%s') has a Dirichlet condition for some "
                          "trace unknowns but not all; mixed conditions on one face are not "
                          "supported yet", f, M->marker_names[M->fmark[f]] ? M->marker_names[M->fmark[f]] : "?");
    if (!st) hdg_blockmat_apply_dirichlet(&r->B, r->rhs, r->isdir, r->xD);
    return st;
}

static hdg_status solve_stage(hdg_run *r, hdg_error *err)
{
    const hdg_run_options *o = r->o;
    long long n = (long long)r->B.nf * r->B.m;
    r->x = hdg_xcalloc((size_t)n, sizeof(double));
    const char *solver = o->solver ? o->solver : (r->symmetric ? "cg" : "gmres");
    const char *pc = o->precond ? o->precond : "block";
    const char *fmt = o->format ? o->format : "block";
    hdg_csr csr;
    memset(&csr, 0, sizeof csr);
    hdg_linop A = hdg_blockmat_op(&r->B), M;
    memset(&M, 0, sizeof M);
    hdg_status st = HDG_OK;
    if (!strcmp(fmt, "csr")) {
        if ((st = hdg_csr_from_blockmat(&csr, &r->B, err))) return st;
        A = hdg_csr_op(&csr);
    } else if (strcmp(fmt, "block")) {
        return hdg_fail(err, HDG_EINPUT, "unknown matrix format '%s' (block, csr)", fmt);
    }
    if (!strcmp(pc, "block")) st = hdg_precond_block_init(&M, &r->B, err);
    else if (!strcmp(pc, "jacobi")) st = hdg_precond_jacobi_init(&M, &r->B, err);
    else if (strcmp(pc, "none")) st = hdg_fail(err, HDG_EINPUT, "unknown preconditioner '%s' "
                                               "(jacobi, block, none)", pc);
    if (st) return st;
    hdg_solve_opts so = hdg_solve_opts_default();
    if (o->rtol > 0) so.rtol = o->rtol;
    if (o->maxit > 0) so.maxit = o->maxit;
    else so.maxit = (int)fmin(100000, fmax(1000, 2.0 * (double)n));
    so.restart = o->restart > 0 ? o->restart : 100;
    hdg_solve_info info;
    memset(&info, 0, sizeof info);
    if (!strcmp(solver, "cg")) st = hdg_pcg(&A, M.apply ? &M : NULL, r->rhs, r->x, &so, NULL, &info, err);
    else if (!strcmp(solver, "gmres"))
        st = hdg_gmres(&A, M.apply ? &M : NULL, r->rhs, r->x, &so, NULL, &info, err);
    else st = hdg_fail(err, HDG_EINPUT, "unknown solver '%s' (cg, gmres)", solver);
    hdg_precond_free(&M);
    hdg_csr_free(&csr);
    hdg_report_string(r->rep, "solver.format", fmt);
    hdg_report_string(r->rep, "solver.method", solver);
    hdg_report_string(r->rep, "solver.precond", pc);
    hdg_report_number(r->rep, "solver.rtol", so.rtol);
    hdg_report_int(r->rep, "solver.iterations", info.iterations);
    hdg_report_number(r->rep, "solver.residual", info.residual);
    hdg_report_bool(r->rep, "solver.converged", info.converged && !st);
    return st;
}

/* Element-local trace values (flipped on reversed faces), then x = A^-1 (F - B uhat). */
static hdg_status recover_stage(hdg_run *r, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    int m = r->L.m, nt = r->L.nt, nl = r->L.nl;
    hdg_kernel_fn f = kernel(r, r->L.recover, err);
    if (!f) return err->code;
    double *uh = hdg_xmalloc(sizeof(double) * (size_t)M->ne * nt);
    hdg_blockmat_scatter_to_elements(M->ne, m, M->ef, M->eforient, r->flip, r->x, uh);
    r->xe = hdg_xmalloc(sizeof(double) * (size_t)M->ne * nl);
    hdg_kargs a = kargs(r, r->geom, M->ne);
    a.in[0] = uh;
    a.out[0] = r->xe;
    hdg_launch(f, M->ne, &a);
    free(uh);
    return HDG_OK;
}

static hdg_status post_stage(hdg_run *r, hdg_error *err)
{
    const hdg_lowered *L = &r->L;
    int ne = r->mesh->ne, n = L->npp * r->p->unknowns[L->post_unknown].ncomp;
    hdg_kernel_fn f = kernel(r, L->post, err);
    if (!f) return err->code;
    r->xp = hdg_xmalloc(sizeof(double) * (size_t)ne * n);
    hdg_kargs a = kargs(r, r->geom, ne);
    a.in[0] = r->xe;
    a.out[0] = r->xp;
    hdg_launch(f, ne, &a);
    return HDG_OK;
}

static hdg_status errors_stage(hdg_run *r, hdg_error *err)
{
    const hdg_lowered *L = &r->L;
    if (!L->nerr) return HDG_OK;
    int ne = r->mesh->ne;
    hdg_kernel_fn f = kernel(r, L->errors, err);
    if (!f) return err->code;
    double *e2 = hdg_xmalloc(sizeof(double) * (size_t)ne * L->nerr);
    hdg_kargs a = kargs(r, r->geom, ne);
    a.in[0] = r->xe;
    a.in[1] = r->xp;
    a.out[0] = e2;
    hdg_launch(f, ne, &a);
    double tot[64] = {0};
    for (int e = 0; e < ne; e++)
        for (int t = 0; t < L->nerr; t++) tot[t] += e2[(size_t)e * L->nerr + t];
    free(e2);
    /* one figure per unknown: the L2 norm over its components */
    for (int t = 0; t < L->nerr; t++) {
        int u = L->err_unknown[t];
        if (t > 0 && L->err_unknown[t - 1] == u) continue;
        double s = 0;
        for (int v = t; v < L->nerr && L->err_unknown[v] == u; v++) s += tot[v];
        char path[160];
        snprintf(path, sizeof path, "errors.%s", r->p->unknowns[u].name);
        hdg_report_number(r->rep, path, sqrt(s));
    }
    return HDG_OK;
}

/* Modal field (n modes of degree deg, stride per element, first mode at base)
 * at the lattice points (lr, ls): a new array of ne * nlat values. */
static double *lattice_values(int deg, int n, int nlat, const double *lr, const double *ls,
                              const double *x, int ne, int stride, int base)
{
    double *P = hdg_xmalloc(sizeof(double) * (size_t)nlat * n);
    hdg_dubiner_eval(deg, nlat, lr, ls, P, NULL, NULL);
    double *v = hdg_xcalloc((size_t)ne * nlat, sizeof(double));
    for (int e = 0; e < ne; e++)
        for (int q = 0; q < nlat; q++) {
            double s = 0;
            for (int i = 0; i < n; i++) s += P[q * n + i] * x[(size_t)e * stride + base + i];
            v[(size_t)e * nlat + q] = s;
        }
    free(P);
    return v;
}

/* Element fields (and the post-processed one) as Lagrange triangles of the
 * highest degree among them, for the .vtu file. */
static hdg_status vtk_stage(hdg_run *r, hdg_error *err)
{
    const hdg_problem *p = r->p;
    const hdg_lowered *L = &r->L;
    int ne = r->mesh->ne, post = L->post_unknown >= 0 && r->xp;
    int deg = post && L->kpost > L->k ? L->kpost : L->k;
    int nlat = hdg_vtk_lattice_size(deg);
    double *lr = hdg_xmalloc(sizeof(double) * (size_t)nlat), *ls = hdg_xmalloc(sizeof(double) * (size_t)nlat);
    hdg_vtk_lattice(deg, lr, ls);
    int nf = 0;
    const char *names[64];
    double *vals[64];
    char namebuf[64][80];
    for (int u = 0; u < p->nunknowns && nf < 62; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        int is_post = post && u == L->post_unknown;
        if (L->uoff[u] < 0 && !is_post) continue;
        for (int c = 0; c < x->ncomp; c++) {
            snprintf(namebuf[nf], sizeof namebuf[nf], x->ncomp > 1 ? "%s_%c" : "%s", x->name, "xy"[c]);
            names[nf] = namebuf[nf];
            int npost = L->npp * x->ncomp;
            vals[nf++] = is_post ? lattice_values(L->kpost, L->npp, nlat, lr, ls, r->xp, ne, npost, c * L->npp)
                                 : lattice_values(L->k, L->np, nlat, lr, ls, r->xe, ne, L->nl,
                                                  L->uoff[u] + c * L->np);
        }
    }
    double *vxy = hdg_xmalloc(sizeof(double) * 6 * (size_t)ne);
    for (int e = 0; e < ne; e++)
        for (int v = 0; v < 6; v++) vxy[6 * e + v] = r->geom[(size_t)e * L->ngeom + v];
    hdg_status st = hdg_vtk_write(r->o->vtk, ne, vxy, deg, nf, names, (const double *const *)vals,
                                  HDG_VTK_LAGRANGE, err);
    for (int i = 0; i < nf; i++) free(vals[i]);
    free(vxy), free(lr), free(ls);
    return st;
}

/* ---------------------------------------------------------------- driver */

static void run_free(hdg_run *r)
{
    hdg_lowered_free(&r->L);
    hdg_compiled_free(&r->cc);
    hdg_geom_free(&r->geo);
    hdg_blockmat_free(&r->B);
    free(r->params), free(r->geom), free(r->Ke), free(r->Fe), free(r->flip);
    free(r->rhs), free(r->x), free(r->isdir), free(r->xD), free(r->xe), free(r->xp);
}

static void report_sizes(hdg_run *r)
{
    hdg_report *R = r->rep;
    hdg_report_int(R, "dofs.trace", (long long)r->mesh->nf * r->L.m);
    hdg_report_int(R, "dofs.trace_per_face", r->L.m);
    hdg_report_int(R, "dofs.element", (long long)r->mesh->ne * r->L.nl);
    hdg_report_int(R, "dofs.element_per_element", r->L.nl);
    hdg_report_int(R, "compile.cache_hits", r->cc.stats.cache_hit ? 1 : 0);
    hdg_report_number(R, "compile.seconds", r->cc.stats.compile_seconds);
    hdg_report_number(R, "compile.ir_passes_seconds", r->cc.t_optimize);
    hdg_report_number(R, "compile.emit_seconds", r->cc.t_emit);
    hdg_report_number(R, "compile.load_seconds", r->cc.stats.load_seconds);
    hdg_report_int(R, "compile.source_bytes", (long long)r->cc.source_bytes);
    if (r->cc.stats.warning[0]) hdg_report_string(R, "compile.warning", r->cc.stats.warning);
}

#define STAGE(name, call)                                                  \
    do {                                                                   \
        double t_ = hdg_wtime();                                           \
        st = (call);                                                       \
        hdg_report_number(r.rep, "timings." name, hdg_wtime() - t_);       \
        if (st) goto done;                                                 \
    } while (0)

hdg_status hdg_run_hdg(const hdg_problem *p, hdg_mesh *mesh, const hdg_run_options *o,
                       hdg_report *rep, hdg_error *err)
{
    hdg_run r;
    memset(&r, 0, sizeof r);
    r.p = p, r.mesh = mesh, r.o = o, r.rep = rep;
    r.params = hdg_xcalloc((size_t)p->nparams + 1, sizeof(double));
    for (int i = 0; i < p->nparams; i++) r.params[i] = p->params[i].value;
    hdg_status st;
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.use_cache = o->use_cache;
    STAGE("lower", hdg_lower_hdg(p, &r.L, err));
    STAGE("compile", hdg_compile_c(r.L.mod, &co, &r.cc, err));
    report_sizes(&r);
    STAGE("geometry", hdg_geom_init(&r.geo, mesh, err));
    r.geom = hdg_xcalloc((size_t)mesh->ne * (size_t)r.L.ngeom, sizeof(double));
    hdg_hdg_fill_geom(&r.L, mesh, &r.geo, r.geom);
    STAGE("local", local_stage(&r, err));
    STAGE("assemble", assemble_stage(&r, err));
    STAGE("dirichlet", dirichlet_stage(&r, err));
    STAGE("solve", solve_stage(&r, err));
    STAGE("recover", recover_stage(&r, err));
    if (r.L.post_unknown >= 0) STAGE("postprocess", post_stage(&r, err));
    STAGE("errors", errors_stage(&r, err));
    if (o->vtk) STAGE("output", vtk_stage(&r, err));
done:
    run_free(&r);
    return st;
}
