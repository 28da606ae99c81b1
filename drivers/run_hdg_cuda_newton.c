/* run_hdg_cuda_newton.c — Newton for nonlinear HDG on the device (--backend
 * cuda; issue 41; docs/solvers.md, "Newton"). The loop is the host's
 * (run_hdg_newton.h: the norms, the stop, the line search, the check, the
 * reports); these are its operations (hdg_newton_ops), on the state that the
 * loop keeps in host vectors:
 *   first guess  the initial kernel on the device, the Dirichlet data (their
 *                kernels on the device, as the linear run's);
 *   residual     the state to the device (s_l, s_t; s_t scattered to the
 *                elements there), the residual kernel on the device, its rows
 *                R_l, R_t, M_l, M_t back; the trace rows summed over a face's
 *                two elements on the host (one addition a row), Dirichlet rows 0;
 *   linear step  the state to the device, the local kernel with it (K_e, F_e of
 *                Newton's system), trace assembly, the Dirichlet elimination,
 *                the Krylov solve (the solver the linear run would choose,
 *                warm-started from s_t; a chosen CG that breaks down: GMRES, as on
 *                the host; under mpirun PETSc's solver of the pieces summed, on the
 *                host as for a linear device run) and the recovery with the state,
 *                all on the device;
 *                s' = (s'_l, s'_t) back;
 *   solution     the state to the device as the run's x_e and trace, for the
 *                post-processing, errors, estimate and output stages.
 * The steady run (hdg_dcu_newton_stage) and every solve of the time stepping
 * (run_hdg_cuda_time.c: hdg_dcu_newton_open, the kernels reading sigma and the
 * history r->hist) use them alike.
 * What crosses per step: the state and s' (ne nl + nf m doubles each way) and,
 * per residual, the state up and the residual rows down (2 ne (nl + nt)). */
#include <stdlib.h>
#include <string.h>

#include "drivers/nonfinite.h"
#include "drivers/run_hdg_cuda_internal.h"
#include "drivers/run_hdg_newton.h"
#include "runtime/parallel/comm.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/krylov.h"
#include "support/util.h"

struct hdg_dcu_newton {
    drun *r;
    hdg_newton N;
    hdg_cuptr st;               /* the state's trace (nf m) */
    hdg_cuptr Rl, Ml, Rt, Mt;   /* the residual kernel's outputs */
    hdg_hdg_maps maps;          /* the orientation maps, for the trace rows (host) */
};
typedef struct hdg_dcu_newton dnewton;

static hdg_status download(drun *r, double *h, hdg_cuptr d, long long n, hdg_error *err)
{
    return hdg_cuda_download(r->dev, h, d, sizeof(double) * (size_t)n, err);
}

/* The state (sl, st) into r->sl and r->ste (st scattered to the elements on the device). */
static hdg_status to_device(dnewton *D, const double *sl, const double *st, hdg_error *err)
{
    drun *r = D->r;
    hdg_status s = hdg_cuda_upload(r->dev, r->sl, sl, sizeof(double) * (size_t)r->mesh->ne * r->L.nl, err);
    if (!s) s = hdg_cuda_upload(r->dev, D->st, st, sizeof(double) * (size_t)r->mesh->nf * r->L.m, err);
    return s ? s : hdg_cuda_trace_scatter(&r->T, D->st, r->ste, err);
}

static hdg_status dev_first_guess(hdg_newton *N, hdg_error *err)
{
    dnewton *D = N->ctx;
    drun *r = D->r;
    int ne = r->mesh->ne, nl = r->L.nl;
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.out[0] = DPTR(r->sl);
    hdg_status st = hdg_dcu_launch(r, r->L.initial, ne, &a, err);
    if (!st) st = download(r, N->sl, r->sl, N->nl, err);
    int bad = st ? -1 : hdg_nonfinite_first(N->sl, ne, nl, nl);
    if (bad >= 0) return hdg_hdg_initial_not_finite(r->p, bad, err);
    if (!st) st = hdg_dcu_dirichlet_data(r, err);
    for (long long i = 0; i < N->nt && !st; i++) N->st[i] = r->dofdir[i] ? r->xD[i] : 0;
    return st;
}

static hdg_status dev_residual(hdg_newton *N, const double *sl, const double *st, hdg_error *err)
{
    dnewton *D = N->ctx;
    drun *r = D->r;
    const hdg_mesh *M = r->mesh;
    long long nte = (long long)M->ne * r->L.nt;
    hdg_status s = to_device(D, sl, st, err);
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, M->ne);
    a.in[0] = DPTR(r->sl), a.in[1] = DPTR(r->ste), a.in[2] = DPTR(r->hist);   /* hist: transient only */
    a.out[0] = DPTR(D->Rl), a.out[1] = DPTR(D->Rt), a.out[2] = DPTR(D->Ml), a.out[3] = DPTR(D->Mt);
    if (!s) s = hdg_dcu_launch(r, r->L.residual, M->ne, &a, err);
    if (!s) s = download(r, N->Rl, D->Rl, N->nl, err);
    if (!s) s = download(r, N->Ml, D->Ml, N->nl, err);
    if (!s) s = download(r, N->Rt, D->Rt, nte, err);
    if (!s) s = download(r, N->Mt, D->Mt, nte, err);
    if (s) return s;
    memset(N->Rg, 0, sizeof(double) * (size_t)N->nt);
    memset(N->Mg, 0, sizeof(double) * (size_t)N->nt);
    hdg_blockmat_assemble_rhs_maps(M->nf, N->Rg, N->Rt, M->ef, M->eforient, M->fe, M->flf, &D->maps.S);
    hdg_blockmat_assemble_rhs_maps(M->nf, N->Mg, N->Mt, M->ef, M->eforient, M->fe, M->flf, &D->maps.S);
    for (long long i = 0; i < N->nt; i++)
        if (r->dofdir[i]) N->Rg[i] = N->Mg[i] = 0;
    return HDG_OK;
}

/* One Krylov solve of r->B x = r->rhs from x = the state's trace, reported as the host's. */
static hdg_status krylov_run(dnewton *D, hdg_hdg_solver *s, const dprecond *d, hdg_solve_info *info,
                             hdg_error *err)
{
    drun *r = D->r;
    long long n = (long long)r->B.nf * r->B.m;
    r->la.ops.copy(&r->la, n, DPTR(D->st), DPTR(r->x));   /* the guess: the state's trace */
    hdg_linop A = hdg_cuda_blockmat_op(&r->B);
    const hdg_linop *Mp = d->M.apply ? &d->M : NULL;
    memset(info, 0, sizeof *info);
    hdg_status st = !strcmp(s->method, "cg") ? hdg_pcg(&A, Mp, DPTR(r->rhs), DPTR(r->x), &s->so, &r->la.ops, info, err)
                                              : hdg_gmres(&A, Mp, DPTR(r->rhs), DPTR(r->x), &s->so, &r->la.ops, info, err);
    hdg_error derr;
    if (hdg_cuda_linalg_check(&r->la, &derr)) st = hdg_fail(err, derr.code, "%s", derr.msg);
    hdg_hdg_report_solve(r->rep, s, info, st);
    if (!st) st = hdg_hdg_near_singular(info, err);
    if (!st) hdg_hdg_solve_warning(r->rep, r->mesh, r->L.k, s, info);
    return st;
}

/* Newton's trace system solved on the device into r->x: the linear run's choice of solver
 * (hdg_hdg_choose_solver on the device matrix's definiteness), CG falling back to GMRES. */
static hdg_status krylov(dnewton *D, hdg_newton *N, int *its, hdg_error *err)
{
    drun *r = D->r;
    long long n = (long long)r->B.nf * r->B.m;
    hdg_hdg_definite def;
    hdg_hdg_solver s;
    hdg_solve_info info;
    memset(&info, 0, sizeof info);
    hdg_status st = hdg_dcu_definiteness(r, &def, err);
    if (!st) st = hdg_hdg_choose_solver(r->o, r->asym, n, &def, &s, err);
    if (!st && !r->x) st = hdg_dcu_dalloc(r, (size_t)n, &r->x, err);
    if ((st = hdg_comm_agree(st, err))) return st;
    if (r->o->dist) {   /* under mpirun: PETSc's solver of the pieces summed, from the state's trace */
        hdg_petsc_dsolver *h = NULL;
        double init = 0;
        st = hdg_dcu_dist_setup(r, &s, &h, &init, err);
        if (!st) st = hdg_dcu_dist_apply(r, &s, h, init, D->st, &info, err);
        hdg_petsc_dist_free(h);
        *its = info.iterations;
        return st;
    }
    if (!strcmp(s.method, "petsc")) {   /* indefinite: PETSc's direct solve on the host (serial) */
        st = hdg_dcu_direct_solve(r, &s, &info, err);
        *its = info.iterations;
        return st;
    }
    if (strcmp(s.format, "block"))
        return hdg_fail(err, HDG_EINPUT, "--format %s: the device solver multiplies in the dense block "
                        "format only; use --format block or --backend c", s.format);
    int cg = !r->o->solver && !strcmp(s.method, "cg");   /* chosen, not given */
    if (cg && N->gmres) s.method = "gmres";
    dprecond d;
    st = hdg_dcu_precond_setup(r, s.precond, s.petsc, &d, err);
    if (!st) st = krylov_run(D, &s, &d, &info, err);
    if (st == HDG_ESOLVER && cg && !N->gmres) {
        hdg_newton_fallback(N, err);
        s.method = "gmres";
        st = krylov_run(D, &s, &d, &info, err);
    }
    hdg_dcu_precond_free(&d);
    *its = info.iterations;
    return st;
}

static hdg_status dev_linear_step(hdg_newton *N, int *its, hdg_error *err)
{
    dnewton *D = N->ctx;
    drun *r = D->r;
    hdg_status st = to_device(D, N->sl, N->st, err);
    hdg_cuda_free(r->dev, r->Ke), hdg_cuda_free(r->dev, r->Fe);   /* the last step's */
    r->Ke = r->Fe = 0;
    if (!st) st = hdg_dcu_local_stage(r, err);
    if (!st) st = hdg_dcu_assemble_stage(r, err);
    if (!st) st = hdg_dcu_dirichlet_eliminate(r, err);
    if (!st) st = krylov(D, N, its, err);
    if (!st) st = hdg_dcu_recover(r, err);
    if (!st) st = download(r, N->dl, r->xe, N->nl, err);
    if (!st) st = download(r, N->dt, r->x, N->nt, err);
    return st;
}

static hdg_status dev_solution(hdg_newton *N, hdg_error *err)
{
    dnewton *D = N->ctx;
    drun *r = D->r;
    hdg_status st = r->xe ? HDG_OK : hdg_dcu_dalloc(r, (size_t)N->nl, &r->xe, err);
    if (!st && !r->x) st = hdg_dcu_dalloc(r, (size_t)N->nt, &r->x, err);
    if (!st) st = hdg_cuda_upload(r->dev, r->xe, N->sl, sizeof(double) * (size_t)N->nl, err);
    if (!st) st = hdg_cuda_upload(r->dev, r->x, N->st, sizeof(double) * (size_t)N->nt, err);
    return st;
}

static const hdg_newton_ops dev_ops = {dev_first_guess, dev_residual, dev_linear_step, dev_solution};

hdg_status hdg_dcu_newton_open(drun *r, hdg_dcu_newton **out, hdg_error *err)
{
    const hdg_mesh *M = r->mesh;
    size_t nl = (size_t)M->ne * r->L.nl, nte = (size_t)M->ne * r->L.nt;
    hdg_dcu_newton *D = hdg_xcalloc(1, sizeof *D);
    D->r = r;
    *out = D;
    hdg_newton_init_ops(&D->N, &dev_ops, D, r->p, r->o, r->rep, M, &r->L);
    hdg_hdg_face_maps(&r->L, &D->maps);
    hdg_status st = hdg_dcu_trace_setup(r, err);   /* the topology, for the state's scatter */
    if (!st && !r->sl) st = hdg_dcu_dalloc(r, nl, &r->sl, err);
    if (!st && !r->ste) st = hdg_dcu_dalloc(r, nte, &r->ste, err);
    if (!st) st = hdg_dcu_dalloc(r, (size_t)D->N.nt, &D->st, err);
    if (!st) st = hdg_dcu_dalloc(r, nl, &D->Rl, err);
    if (!st) st = hdg_dcu_dalloc(r, nl, &D->Ml, err);
    if (!st) st = hdg_dcu_dalloc(r, nte, &D->Rt, err);
    if (!st) st = hdg_dcu_dalloc(r, nte, &D->Mt, err);
    return st;
}

hdg_newton *hdg_dcu_newton_state(hdg_dcu_newton *D)
{
    return &D->N;
}

void hdg_dcu_newton_dirichlet(hdg_dcu_newton *D)
{
    for (long long i = 0; i < D->N.nt; i++)
        if (D->r->dofdir[i]) D->N.st[i] = D->r->xD[i];
}

void hdg_dcu_newton_close(hdg_dcu_newton *D)
{
    if (!D) return;
    drun *r = D->r;
    hdg_cuptr *p[] = {&D->st, &D->Rl, &D->Ml, &D->Rt, &D->Mt};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) hdg_cuda_free(r->dev, *p[i]), *p[i] = 0;
    hdg_hdg_face_maps_free(&D->maps);
    hdg_newton_free(&D->N);
    free(D);
}

hdg_status hdg_dcu_newton_stage(drun *r, hdg_error *err)
{
    hdg_dcu_newton *D = NULL;
    hdg_status st = hdg_dcu_newton_open(r, &D, err);
    if (!st) st = hdg_newton_run(&D->N, err);
    hdg_dcu_newton_close(D);
    hdg_cuda_free(r->dev, r->Ke), hdg_cuda_free(r->dev, r->Fe);
    r->Ke = r->Fe = 0;
    return st;
}
