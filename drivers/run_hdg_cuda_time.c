/* run_hdg_cuda_time.c — implicit time stepping of HDG on the device
 * (run_hdg_cuda_internal.h), the device twin of run_hdg_time.c; a nonlinear
 * problem's solves are Newton's (the shared loop with the device's operations,
 * run_hdg_cuda_newton.c), as on the host. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/nonfinite.h"
#include "drivers/run_hdg_cuda_internal.h"
#include "drivers/run_hdg_newton_time.h"
#include "drivers/run_png.h"
#include "drivers/time_scheme.h"
#include "runtime/parallel/comm.h"
#include "support/util.h"

/* ------------------------------------------------------- time stepping
 * HDG with dt() terms (drivers/time_scheme.h): per sigma (and per solve when a
 * matrix term depends on t) the local kernel, the matrix, its elimination and
 * preconditioner; every solve the rhs kernel, the
 * matrix and rhs reassembled from the kept K_e (a gather: no copy of the matrix
 * is kept), the Dirichlet data at its time eliminated, a Krylov solve from the
 * last trace and the recovery with the history; all on the device. */
typedef struct dtime {
    drun *r;
    hdg_time_ops ops;
    int cur, ready, nlevels;
    int tdep;                /* a matrix term depends on t: rebuilt at each solve's time */
    double built_t;          /* the time of the current K_e */
    hdg_hdg_solver s;
    dprecond d;
    long long its, its_max, solves;
    hdg_cuptr e2, zp, zx;    /* errors in time: per element, zero post dofs, zero element dofs */
    double *e2h, err_max[32];
    hdg_hdg_watch watch;     /* the blow-up watch */
    hdg_hdg_series W;        /* --vtk x.pvd --every n */
    int many;
    hdg_png_hdg_frames png;  /* --png with a frame pattern (run_png.h) */
    hdg_petsc_dsolver *dist; /* under mpirun: PETSc's solver of the current matrix */
    double dist_init;
    hdg_dcu_newton *nw;      /* nonlinear: Newton's state (the last solve's solution), else NULL */
    long long step;          /* the time steps done */
    hdg_newton_tally tally;  /* nonlinear: the Newton steps (run_hdg_newton_time.h) */
} dtime;

/* sigma into the kernels' parameters on the device. */
static hdg_status dtime_sigma(drun *r, double sigma, hdg_error *err)
{
    double *params = hdg_hdg_params(r->p);
    params[r->L.p_sigma] = sigma;
    hdg_status st = hdg_cuda_upload(r->dev, r->params, params, sizeof(double) * ((size_t)r->p->nparams + 1), err);
    free(params);
    return st;
}

/* K_e at sigma of level v and time t, the matrix, its elimination and solver. */
static hdg_status dtime_level(dtime *D, int v, double t, hdg_error *err)
{
    drun *r = D->r;
    if (D->ready) hdg_dcu_precond_free(&D->d), D->ready = 0;
    hdg_status st = dtime_sigma(r, D->ops.sigma[v], err);
    hdg_cuda_free(r->dev, r->Ke), hdg_cuda_free(r->dev, r->Fe);
    r->Ke = r->Fe = 0;
    r->t = t;
    D->cur = -1, D->built_t = t;
    if (!st) st = hdg_dcu_local_stage(r, err);
    if (!st) st = hdg_dcu_assemble_stage(r, err);
    if (!st) st = hdg_dcu_dirichlet_stage(r, err);
    long long n = (long long)r->B.nf * r->B.m;
    hdg_hdg_definite def;
    if (!st) st = hdg_comm_agree(hdg_dcu_definiteness(r, &def, err), err);
    if (!st) st = hdg_hdg_choose_solver(r->o, r->asym, n, &def, &D->s, err);
    if (!st && strcmp(D->s.format, "block"))
        st = hdg_fail(err, HDG_EINPUT, "--format %s: the device solver multiplies in the dense block format only; "
                      "use --format block or --backend c", D->s.format);
    hdg_petsc_dist_free(D->dist);
    D->dist = NULL;
    if (!st) st = hdg_comm_agree(st, err);
    hdg_hdg_null N;   /* a step's matrix with a null space is refused (run_hdg_null.h) */
    if (!st) st = hdg_dcu_null_find(r, &N, err);
    if (!st) st = hdg_hdg_null_transient(r->p, &N, D->ops.sigma[v], r->rep, err);
    if (!st && r->o->dist) st = hdg_dcu_dist_setup(r, &D->s, &D->dist, &D->dist_init, err);
    else if (!st && !strcmp(D->s.method, "petsc")) memset(&D->d, 0, sizeof D->d);   /* the direct solve */
    else if (!st) st = hdg_dcu_precond_setup(r, D->s.precond, D->s.petsc, &D->d, err);
    if (!st && !r->x && !(st = hdg_dcu_dalloc(r, (size_t)n, &r->x, err))) st = hdg_cuda_memset0(r->dev, r->x, sizeof(double) * (size_t)n, err);
    if (!st) D->ready = 1, D->cur = v, D->nlevels++;
    return st;
}

/* Nonlinear: Newton (the host's loop, the device's operations: run_hdg_cuda_newton.c) for
 * the element unknowns at time t, sigma of level v, the history r->hist, from the last
 * solve's state; the Dirichlet dofs of its trace set to the data at t (as on the host,
 * run_hdg_time.c). No matrix is kept between solves: the local kernel reads sigma and h. */
static hdg_status dtime_newton(dtime *D, int v, double t, hdg_error *err)
{
    drun *r = D->r;
    hdg_newton *N = hdg_dcu_newton_state(D->nw);
    r->t = t;
    hdg_status st = dtime_sigma(r, D->ops.sigma[v], err);
    if (!st && (st = hdg_dcu_dirichlet_data(r, err))) st = hdg_hdg_at_time(err, t, st);
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before Newton's collectives */
    hdg_dcu_newton_dirichlet(D->nw);
    st = hdg_newton_time_solve(N, &D->tally, D->step + 1, t, err);
    D->its += N->linear, D->solves += N->steps, D->nlevels += N->steps;
    if (N->linear_max > D->its_max) D->its_max = N->linear_max;
    return st ? st : N->ops->solution(N, err);   /* the state into r->xe (the scheme's out) and r->x */
}

static hdg_status dtime_solve(void *ctx, int v, double t, hdg_error *err)
{
    dtime *D = ctx;
    drun *r = D->r;
    if (D->nw) return dtime_newton(D, v, t, err);
    int ne = r->mesh->ne, nt = r->L.nt;
    hdg_status st = D->cur == v && !(D->tdep && D->built_t != t) ? HDG_OK : dtime_level(D, v, t, err);
    if (st) st = hdg_hdg_at_time(err, t, st);
    r->t = t;
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(r->hist);
    a.out[0] = DPTR(r->Fe);
    if (!st) st = hdg_dcu_launch(r, r->L.rhs, ne, &a, err);
    if (!st && !isfinite(r->la.ops.norm2(&r->la, (long long)ne * nt, DPTR(r->Fe))) && (st = hdg_dcu_fe_finite(r, err)))
        st = hdg_hdg_at_time(err, t, st);   /* the sources, Neumann data or history: named as on the host */
    if (!st && r->negated) r->la.ops.scal(&r->la, (long long)ne * nt, -1.0, DPTR(r->Fe));
    if (!st) st = hdg_dcu_assemble_stage(r, err);
    if (!st && (st = hdg_dcu_dirichlet_stage(r, err))) st = hdg_hdg_at_time(err, t, st);
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before the collective solve */
    hdg_solve_info info;
    memset(&info, 0, sizeof info);
    if (D->dist) {
        if ((st = hdg_dcu_dist_apply(r, &D->s, D->dist, D->dist_init, 0, &info, err))) return st;
        D->its += info.iterations, D->solves++;
        if (info.iterations > D->its_max) D->its_max = info.iterations;
        return hdg_dcu_recover(r, err);
    }
    hdg_linop A = hdg_cuda_blockmat_op(&r->B);
    const hdg_linop *Mp = D->d.M.apply ? &D->d.M : NULL;
    if (!strcmp(D->s.method, "petsc")) st = hdg_dcu_direct_solve(r, &D->s, &info, err);   /* indefinite, serial */
    else if (!strcmp(D->s.method, "cg")) st = hdg_pcg(&A, Mp, DPTR(r->rhs), DPTR(r->x), &D->s.so, &r->la.ops, &info, err);
    else st = hdg_gmres(&A, Mp, DPTR(r->rhs), DPTR(r->x), &D->s.so, &r->la.ops, &info, err);
    hdg_error derr;
    if (hdg_cuda_linalg_check(&r->la, &derr)) st = hdg_fail(err, derr.code, "%s", derr.msg);
    hdg_hdg_report_solve(r->rep, &D->s, &info, st);
    if (!st) st = hdg_hdg_near_singular(&info, err);
    if (st) return st;
    D->its += info.iterations, D->solves++;
    if (info.iterations > D->its_max) D->its_max = info.iterations;
    return hdg_dcu_recover(r, err);
}

static hdg_status dtime_fields_out(drun *r, hdg_hdg_series *W, hdg_png_hdg_frames *F, double t, long long step,
                                   hdg_error *err);

static hdg_status dtime_initial(void *ctx, double *u, hdg_error *err)
{
    dtime *D = ctx;
    drun *r = D->r;
    r->t = 0;
    int ne = r->mesh->ne;
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.out[0] = u;
    hdg_status st = hdg_dcu_launch(r, r->L.initial, ne, &a, err);
    double n2 = st ? 0 : r->la.ops.dot(&r->la, (long long)ne * r->L.nl, u, u);
    if (!st && !isfinite(n2)) {   /* name the element */
        double *h = hdg_xmalloc(sizeof(double) * ((size_t)ne * r->L.nl + 1));
        st = hdg_cuda_download(r->dev, h, (hdg_cuptr)(uintptr_t)u, sizeof(double) * (size_t)ne * r->L.nl, err);
        int bad = st ? -1 : hdg_nonfinite_first(h, ne, r->L.nl, r->L.nl);
        free(h);
        if (!st) st = hdg_hdg_initial_not_finite(r->p, bad, err);
    }
    if (!st && D->nw)   /* Newton's first start (its trace 0) */
        st = hdg_cuda_download(r->dev, hdg_dcu_newton_state(D->nw)->sl, (hdg_cuptr)(uintptr_t)u,
                               sizeof(double) * (size_t)ne * r->L.nl, err);
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before the norm's sum */
    hdg_comm_sum(&n2, 1);
    st = hdg_hdg_watch_step(&D->watch, r->p, sqrt(n2), NULL, 0, 0.0, r->rep, err);
    if (!st && hdg_png_hdg_frame_due(&D->png, r->o, 0, 1)) {   /* frame 0: the initial state through r->xe */
        r->la.ops.copy(&r->la, (long long)ne * r->L.nl, u, DPTR(r->xe));   /* (free until the first solve) */
        st = dtime_fields_out(r, NULL, &D->png, 0.0, 0, err);
    }
    return st;
}

/* A state within the run on the host (u* post-processed): the caller's snapshot
 * (step > 0), the next file of the --vtk series (W) and/or the next --png frame (F). */
static hdg_status dtime_fields_out(drun *r, hdg_hdg_series *W, hdg_png_hdg_frames *F, double t, long long step,
                                   hdg_error *err)
{
    int ne = r->mesh->ne;
    hdg_status st = r->L.npost ? hdg_dcu_post_stage(r, err) : HDG_OK;
    double *xe = hdg_xmalloc(sizeof(double) * ((size_t)ne * r->L.nl + 1));
    double *xp = r->L.npost ? hdg_xmalloc(sizeof(double) * ((size_t)ne * r->L.npost_dofs + 1)) : NULL;
    if (!st) st = hdg_cuda_download(r->dev, xe, r->xe, sizeof(double) * (size_t)ne * r->L.nl, err);
    if (!st && xp) st = hdg_cuda_download(r->dev, xp, r->xp, sizeof(double) * (size_t)ne * r->L.npost_dofs, err);
    hdg_run_options o = *r->o;
    o.vtk = NULL;
    if (!st && step > 0) st = hdg_hdg_output_at(r->p, &r->L, ne, r->geom_h, xe, xp, NULL, &o, t, step, 0, err);
    if (!st && W) st = hdg_hdg_series_write(W, r->p, &r->L, ne, r->geom_h, xe, xp, r->o, t, err);
    if (!st && F) st = hdg_png_hdg_frame(F, r->p, &r->L, r->mesh, xe, xp, t, r->o, r->rep, err);
    free(xe), free(xp);
    return st;
}

/* The errors' buffers: per element on the device and the host, zero element and post dofs. */
static hdg_status dtime_errors_alloc(dtime *D, hdg_error *err)
{
    drun *r = D->r;
    int ne = r->mesh->ne;
    size_t n = (size_t)ne * r->L.nerr, nl = (size_t)ne * r->L.nl;
    D->e2h = hdg_xmalloc(sizeof(double) * (n + 1));
    hdg_status st = hdg_dcu_dalloc(r, n, &D->e2, err);
    if (!st && !(st = hdg_dcu_dalloc(r, nl, &D->zx, err))) st = hdg_cuda_memset0(r->dev, D->zx, sizeof(double) * nl, err);
    if (!st && r->L.npost && !(st = hdg_dcu_dalloc(r, (size_t)ne * r->L.npost_dofs, &D->zp, err)))
        st = hdg_cuda_memset0(r->dev, D->zp, sizeof(double) * (size_t)ne * r->L.npost_dofs, err);
    return st;
}

/* The squared errors per element of the element dofs x at r->t into D->e2h (post dofs zero). */
static hdg_status dtime_errors_of(dtime *D, hdg_cuptr x, hdg_error *err)
{
    drun *r = D->r;
    int ne = r->mesh->ne;
    hdg_kargs a = hdg_dcu_kargs(r, r->geom, ne);
    a.in[0] = DPTR(x);
    a.in[1] = DPTR(D->zp);
    a.out[0] = DPTR(D->e2);
    hdg_status st = hdg_dcu_launch(r, r->L.errors, ne, &a, err);
    if (!st) st = hdg_cuda_download(r->dev, D->e2h, D->e2, sizeof(double) * (size_t)ne * r->L.nerr, err);
    return st;
}

/* The errors in time (the post dofs zero: their errors are not kept) and the blow-up
 * watch, with the exact solution's norms at r->t. */
static hdg_status dtime_watch(dtime *D, long long step, hdg_error *err)
{
    drun *r = D->r;
    int ne = r->mesh->ne, have = r->L.nerr > 0;
    double l2[32], exact[32];
    hdg_status st = have ? dtime_errors_of(D, r->xe, err) : HDG_OK;
    if (!st && have) {
        hdg_hdg_errors_track(r->p, &r->L, D->e2h, ne, D->err_max);
        hdg_hdg_errors_l2(r->p, &r->L, D->e2h, ne, l2);
        st = dtime_errors_of(D, D->zx, err);
    }
    if (!st && have) hdg_hdg_errors_l2(r->p, &r->L, D->e2h, ne, exact), hdg_hdg_watch_exact(&D->watch, r->p, exact);
    if (st) return st;
    double n2 = r->la.ops.dot(&r->la, (long long)ne * r->L.nl, DPTR(r->xe), DPTR(r->xe));
    hdg_comm_sum(&n2, 1);
    return hdg_hdg_watch_step(&D->watch, r->p, sqrt(n2), have ? l2 : NULL, step, r->t, r->rep, err);
}

/* The watch's scale: the exact solutions' norms at HDG_HDG_WATCH_SAMPLES + 1 times in [0, final]. */
static hdg_status dtime_watch_scale(dtime *D, double final, hdg_error *err)
{
    drun *r = D->r;
    double exact[32];
    hdg_status st = HDG_OK;
    for (int j = 0; r->L.nerr && j <= HDG_HDG_WATCH_SAMPLES && !st; j++) {
        r->t = final * j / HDG_HDG_WATCH_SAMPLES;
        if (!(st = dtime_errors_of(D, D->zx, err))) {
            hdg_hdg_errors_l2(r->p, &r->L, D->e2h, r->mesh->ne, exact);
            hdg_hdg_watch_exact(&D->watch, r->p, exact);
        }
    }
    r->t = 0;
    return st;
}

/* After each step: the errors in time, the blow-up watch and the step callback when due. */
static hdg_status dtime_after(void *ctx, long long step, long long nsteps, double t, hdg_error *err)
{
    dtime *D = ctx;
    drun *r = D->r;
    r->t = t;
    D->step = step;
    if (D->nw) hdg_newton_time_step_done(&D->tally, r->rep);
    hdg_status st = dtime_watch(D, step, err);
    int every = r->o->snapshot_every, snap = r->o->snapshot && every > 0 && step % every == 0 && step < nsteps;
    int file = D->many && step % r->o->every == 0 && step < nsteps, frame = hdg_png_hdg_frame_due(&D->png, r->o, step, nsteps);
    if (!st && (snap || file || frame))
        st = dtime_fields_out(r, file ? &D->W : NULL, frame ? &D->png : NULL, t, snap ? step : 0, err);
    return st;
}

hdg_status hdg_dcu_time_stage(drun *r, hdg_progress *line, hdg_error *err)
{
    hdg_time_scheme sc = hdg_time_scheme_of(r->p->time.method);
    double final, dt;
    long long nsteps;
    hdg_status st = hdg_hdg_time_plan(r->p, r->o, &final, &dt, &nsteps, err);
    long long n = (long long)r->mesh->ne * r->L.nl;
    if (!st) st = hdg_dcu_dalloc(r, (size_t)n, &r->hist, err);
    if (!st) st = hdg_dcu_dalloc(r, (size_t)n, &r->xe, err);
    if (st) return st;
    dtime D = {.r = r, .cur = -1, .many = hdg_hdg_series_wanted(r->o), .tdep = hdg_hdg_matrix_depends_on_t(r->p)};
    D.ops = (hdg_time_ops){&D, &r->la.ops, n, DPTR(r->hist), DPTR(r->xe), {0, 0}, dtime_initial, dtime_solve,
                           dtime_after};
    hdg_hdg_watch_init(&D.watch, sc.name, dt, nsteps);
    st = hdg_png_hdg_frames_open(&D.png, r->o, err);
    if (!st) st = dtime_errors_alloc(&D, err);
    if (!st && r->L.nonlinear && !(st = hdg_dcu_newton_open(r, &D.nw, err))) hdg_dcu_newton_state(D.nw)->quiet = 1;
    if (!st) st = dtime_watch_scale(&D, final, err);
    if (!st) st = hdg_time_run(&sc, dt, nsteps, &D.ops, line, err);
    hdg_progress_end(line);
    if (D.nw) hdg_newton_time_report(&D.tally, r->rep, r->o->log, D.step);
    hdg_dcu_newton_close(D.nw);
    if (D.ready) hdg_dcu_precond_free(&D.d);
    hdg_petsc_dist_free(D.dist);
    hdg_cuda_free(r->dev, D.e2), hdg_cuda_free(r->dev, D.zp), hdg_cuda_free(r->dev, D.zx);
    hdg_hdg_watch_free(&D.watch);
    free(D.e2h);
    r->t = final, r->nsteps = nsteps;
    if (D.many) {   /* the final state's file, then the collection; the output stage writes no .vtu */
        if (!st) st = dtime_fields_out(r, &D.W, NULL, final, 0, err);
        if (!st) hdg_report_int(r->rep, "output.vtk_files", D.W.n);
        st = hdg_hdg_series_close(&D.W, r->o, st, err);
        r->series = 1;
    }
    if (!st) hdg_time_report(r->rep, &sc, dt, nsteps, final, D.solves, D.nlevels, D.its, D.its_max);
    if (!st) hdg_hdg_report_errors_max(r->p, &r->L, D.err_max, r->rep);
    return st;
}

