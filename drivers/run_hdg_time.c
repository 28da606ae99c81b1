/* run_hdg_time.c — the host's side of the implicit time stepping of transient
 * HDG problems: the callbacks of the scheme loop (drivers/time_scheme.h, which
 * says what sigma and the history h are for each scheme).
 *
 * The element matrices depend on sigma: per sigma (one at a time; a BDF2/3
 * run's SDIRK start first, then the BDF's) K_e is condensed and the trace matrix
 * assembled, kept (B0, for the lifting), Dirichlet-eliminated and preconditioned;
 * when a matrix term's coefficient depends on t (hdg_hdg_matrix_depends_on_t), all
 * of that again at each solve's time.
 * Every solve then costs the rhs kernel (F_e from the data at its time and h),
 * the rhs assembly, the Dirichlet data at its time lifted with B0, a Krylov solve
 * warm-started from the last trace, and the recovery. After each step: the errors
 * in time, the --vtk series file and the step callback when due.
 *
 * Nonlinear problems (issue 41): every solve is Newton's (run_hdg_newton.h) on the
 * stage's equation sigma M u + R(u) = M h, warm-started from the last solve's state
 * (the initial state's projection and the trace 0 for the first), the Dirichlet
 * dofs of the trace set to the data at the solve's time; the local kernel reads
 * sigma and h itself, so no matrix is kept between solves. Reported: newton.steps
 * (over all solves), newton.steps_per_time_step[], newton.steps_max (one solve's),
 * newton.solves, newton.linear_iterations_total; a solve that fails names the time
 * step and its time with the residual history (exit 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/nonfinite.h"
#include "drivers/run_hdg_newton_time.h"
#include "drivers/run_png.h"
#include "drivers/run_hdg_null.h"
#include "runtime/parallel/comm.h"
#include "drivers/time_scheme.h"
#include "runtime/output/vtk.h"
#include "support/util.h"

/* ---------------------------------------------------------------- one matrix */

typedef struct level {
    double sigma;
    double t;                /* the time K_e was built at (matters when the matrix depends on t) */
    hdg_blockmat B0;         /* before the Dirichlet elimination (the lifting); r->B is the
                                eliminated matrix the Krylov solver sees */
    hdg_hdg_ksp K;
    double diag;             /* the eliminated Dirichlet rows' diagonal (hdg_hdg_dirichlet_diag) */
    int ready;
} level;

static void level_free(level *v)
{
    if (v->ready) hdg_hdg_ksp_free(&v->K);
    hdg_blockmat_free(&v->B0);
    v->ready = 0;
}

static hdg_status blockmat_copy(hdg_blockmat *dst, const hdg_blockmat *src, hdg_error *err)
{
    hdg_status st = hdg_blockmat_init(dst, src->nf, src->m, src->na, src->nbr, err);
    if (!st) memcpy(dst->A, src->A, sizeof(double) * (size_t)src->nf * src->na * src->m * src->m);
    return st;
}

static void null_apply(void *ctx, const double *z, double *Kz)
{
    hdg_blockmat_spmv(ctx, z, Kz);
}

/* K_e at sigma, the trace matrix assembled (kept as B0), Dirichlet-eliminated
 * in r->B, checked for a null space (run_hdg_null.h) and its solver set up. */
static hdg_status level_init(hdg_run *r, level *v, hdg_error *err)
{
    r->params[r->L.p_sigma] = v->sigma;
    hdg_status st = hdg_hdg_local_stage(r, err);
    if (!st) st = hdg_hdg_assemble_stage(r, err);
    if (!st) st = blockmat_copy(&v->B0, &r->B, err);
    if (st) return st;
    v->diag = hdg_hdg_dirichlet_diag(r->amax);
    hdg_blockmat_apply_dirichlet_dofs(&r->B, r->rhs, r->isdir, r->mixed ? r->dofdir : NULL, r->xD, v->diag);
    hdg_hdg_null N;   /* the same decision on every rank: the Gram matrices are summed */
    hdg_hdg_null_find(r->p, &r->L, r->mesh, r->o->dist, null_apply, &r->B, r->amax, &N);
    if ((st = hdg_hdg_null_transient(r->p, &N, v->sigma, r->rep, err))) return st;
    if ((st = hdg_comm_agree(hdg_hdg_ksp_init(&v->K, r, err), err))) return st;
    v->ready = 1;
    return HDG_OK;
}

/* ---------------------------------------------------------------- one solve */

typedef struct stepper {
    hdg_run *r;
    hdg_time_ops ops;
    hdg_hdg_series *W;       /* --vtk x.pvd --every n, or NULL */
    long long n;             /* ne * nl */
    level lv[2];             /* [0] the scheme's, [1] the SDIRK start of a BDF: used one
                                after the other (the start's freed before the scheme's is built) */
    int cur;                 /* the level in r->B (-1: none) */
    int tdep;                /* a matrix term depends on t: the level is rebuilt at each solve's time */
    long long its, its_max, solves;
    int nlevels;             /* matrices built */
    double *e2, *zero_post;  /* errors in time */
    double *zero;            /* n zeros: the errors kernel on them gives the exact solution's norms */
    double err_max[32];
    hdg_hdg_watch watch;     /* the blow-up watch */
    hdg_png_hdg_frames png;  /* --png with a frame pattern (run_png.h) */
    hdg_newton *nw;          /* nonlinear: Newton's state (the last solve's solution), else NULL */
    long long step;          /* the time steps done */
    hdg_newton_tally tally;  /* nonlinear: the Newton steps (run_hdg_newton_time.h) */
} stepper;

/* Nonlinear: Newton for the element unknowns r->xe at time t, sigma of level v, the
 * history r->hist, from the last solve's state. */
static hdg_status newton_solve(stepper *S, int v, double t, hdg_error *err)
{
    hdg_run *r = S->r;
    hdg_newton *N = S->nw;
    r->t = t;
    r->params[r->L.p_sigma] = S->ops.sigma[v];
    hdg_status st = hdg_hdg_dirichlet_data(r, err);
    if (st) st = hdg_hdg_at_time(err, t, st);
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before Newton's collectives */
    hdg_newton_dirichlet(N);
    st = hdg_newton_time_solve(N, &S->tally, S->step + 1, t, err);
    S->its += N->linear, S->solves += N->steps, S->nlevels += N->steps;
    if (N->linear_max > S->its_max) S->its_max = N->linear_max;
    if (st) return st;
    memcpy(r->xe, N->sl, sizeof(double) * (size_t)N->nl);   /* the solution: the state */
    if (!r->x) r->x = hdg_xmalloc(sizeof(double) * (size_t)N->nt);
    memcpy(r->x, N->st, sizeof(double) * (size_t)N->nt);
    return HDG_OK;
}

/* The element unknowns r->xe (= ops.out) at time t from the history r->hist (sigma of
 * level v). */
static hdg_status implicit_solve(void *ctx, int v, double t, hdg_error *err)
{
    stepper *S = ctx;
    hdg_run *r = S->r;
    if (S->nw) return newton_solve(S, v, t, err);
    S->lv[v].sigma = S->ops.sigma[v];
    const hdg_mesh *M = r->mesh;
    int nt = r->L.nt, ne = M->ne;
    r->t = t;
    if (S->cur != v || (S->tdep && S->lv[v].t != t)) {
        if (S->cur >= 0) level_free(&S->lv[S->cur]);
        S->cur = -1;
        hdg_status st = level_init(r, &S->lv[v], err);
        if (st) return hdg_hdg_at_time(err, t, st);
        S->lv[v].t = t;
        S->cur = v;
        S->nlevels++;
    }
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.rhs, err);
    if (!f) return err->code;
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = r->hist;
    a.out[0] = r->Fe;
    hdg_launch(f, ne, &a);
    int bad = hdg_nonfinite_first(r->Fe, ne, nt, nt);
    hdg_status st = HDG_OK;
    if (bad >= 0)   /* the sources, Neumann data or the history at this time */
        st = hdg_hdg_at_time(err, t, hdg_hdg_bad_element(r->p, M, bad, 0, err));
    if (!st && r->negated)
        for (long long i = 0; i < (long long)ne * nt; i++) r->Fe[i] = -r->Fe[i];
    if (!st) hdg_blockmat_assemble_rhs_maps(M->nf, r->rhs, r->Fe, M->ef, M->eforient, M->fe, M->flf, &r->maps.S);
    if (!st && (st = hdg_hdg_dirichlet_data(r, err))) st = hdg_hdg_at_time(err, t, st);
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before the solve, a collective */
    hdg_blockmat_dirichlet_rhs(&S->lv[v].B0, r->rhs, r->isdir, r->mixed ? r->dofdir : NULL, r->xD,
                               S->lv[v].diag);
    hdg_solve_info info;
    if ((st = hdg_hdg_ksp_solve(&S->lv[v].K, r, &info, err))) return st;
    S->its += info.iterations, S->solves++;
    if (info.iterations > S->its_max) S->its_max = info.iterations;
    return hdg_hdg_recover(r, err);
}

/* The squared errors per element of the element dofs x at r->t into S->e2 (post dofs zero). */
static hdg_status errors_of(stepper *S, const double *x, hdg_error *err)
{
    hdg_run *r = S->r;
    int ne = r->mesh->ne;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.errors, err);
    if (!f) return err->code;
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = x;
    a.in[1] = S->zero_post;
    a.out[0] = S->e2;
    hdg_launch(f, ne, &a);
    return HDG_OK;
}

/* The norm of the element dofs x over every rank. */
static double state_norm(const stepper *S, const double *x)
{
    const hdg_vecops *v = hdg_vecops_host();
    double n2 = v->dot(v->ctx, S->n, x, x);
    hdg_comm_sum(&n2, 1);
    return sqrt(n2);
}

/* The L2 errors of the element unknowns at r->t (their maxima over the steps) and the
 * blow-up watch, with the exact solution's norms at r->t. */
static hdg_status track_errors(stepper *S, long long step, hdg_error *err)
{
    hdg_run *r = S->r;
    const hdg_lowered *L = &r->L;
    double l2[32], exact[32];
    int ne = r->mesh->ne, have = L->nerr > 0;
    hdg_status st = have ? errors_of(S, r->xe, err) : HDG_OK;
    if (!st && have) {
        hdg_hdg_errors_track(r->p, L, S->e2, ne, S->err_max);
        hdg_hdg_errors_l2(r->p, L, S->e2, ne, l2);
        st = errors_of(S, S->zero, err);
    }
    if (!st && have) hdg_hdg_errors_l2(r->p, L, S->e2, ne, exact), hdg_hdg_watch_exact(&S->watch, r->p, exact);
    if (st) return st;
    return hdg_hdg_watch_step(&S->watch, r->p, state_norm(S, r->xe), have ? l2 : NULL, step, r->t, r->rep, err);
}

/* The watch's scale: the exact solutions' norms at HDG_HDG_WATCH_SAMPLES + 1 times in [0, final]. */
static hdg_status watch_scale(stepper *S, double final, hdg_error *err)
{
    hdg_run *r = S->r;
    double exact[32];
    hdg_status st = HDG_OK;
    for (int j = 0; r->L.nerr && j <= HDG_HDG_WATCH_SAMPLES && !st; j++) {
        r->t = final * j / HDG_HDG_WATCH_SAMPLES;
        if (!(st = errors_of(S, S->zero, err))) {
            hdg_hdg_errors_l2(r->p, &r->L, S->e2, r->mesh->ne, exact);
            hdg_hdg_watch_exact(&S->watch, r->p, exact);
        }
    }
    r->t = 0;
    return st;
}

static void report_time(stepper *S, const hdg_time_scheme *sc, double dt, long long nsteps, double final)
{
    hdg_run *r = S->r;
    hdg_time_report(r->rep, sc, dt, nsteps, final, S->solves, S->nlevels, S->its, S->its_max);
    hdg_hdg_report_errors_max(r->p, &r->L, S->err_max, r->rep);
}

/* The next --png frame of r->xe at t (u* post-processed first). */
static hdg_status png_frame(stepper *S, double t, hdg_error *err)
{
    hdg_run *r = S->r;
    double t0 = r->t;
    r->t = t;
    hdg_status st = r->L.npost ? hdg_hdg_post_stage(r, err) : HDG_OK;
    r->t = t0;
    return st ? st : hdg_png_hdg_frame(&S->png, r->p, &r->L, r->mesh, r->xe, r->xp, t, r->o, r->rep, err);
}

static hdg_status initial_state(void *ctx, double *u, hdg_error *err)
{
    hdg_run *r = ((stepper *)ctx)->r;
    int ne = r->mesh->ne;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.initial, err);
    if (!f) return err->code;
    r->t = 0;
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.out[0] = u;
    hdg_launch(f, ne, &a);
    int bad = hdg_nonfinite_first(u, ne, r->L.nl, r->L.nl);
    hdg_status st = bad >= 0 ? hdg_hdg_initial_not_finite(r->p, bad, err) : HDG_OK;
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before the norm's sum */
    stepper *S = ctx;
    if (S->nw) memcpy(S->nw->sl, u, sizeof(double) * (size_t)S->n);   /* Newton's first start */
    st = hdg_hdg_watch_step(&S->watch, r->p, state_norm(S, u), NULL, 0, 0.0, r->rep, err);
    if (!st && hdg_png_hdg_frame_due(&S->png, r->o, 0, 1)) {   /* frame 0: the initial state (r->xe, the */
        memcpy(r->xe, u, sizeof(double) * (size_t)S->n);       /* solves' output, is free until the first) */
        st = png_frame(S, 0.0, err);
    }
    return st;
}

/* ---------------------------------------------------------------- output */

/* A file of the --vtk series at time t, u* post-processed for it. */
static hdg_status series_write(hdg_hdg_series *W, hdg_run *r, double t, hdg_error *err)
{
    double t0 = r->t;
    r->t = t;
    hdg_status st = r->L.npost ? hdg_hdg_post_stage(r, err) : HDG_OK;
    r->t = t0;
    if (!st) st = hdg_hdg_series_write(W, r->p, &r->L, r->mesh->ne, r->geom, r->xe, r->xp, r->o, t, err);
    return st;
}

/* The caller's snapshot hook (API on_step) after step `step` (time t), u* post-processed. */
static hdg_status step_snapshot(hdg_run *r, double t, long long step, hdg_error *err)
{
    double t0 = r->t;
    r->t = t;
    hdg_status st = r->L.npost ? hdg_hdg_post_stage(r, err) : HDG_OK;
    r->t = t0;
    hdg_run_options o = *r->o;
    o.vtk = NULL;
    if (!st) st = hdg_hdg_output_at(r->p, &r->L, r->mesh->ne, r->geom, r->xe, r->xp, NULL, &o, t, step, 0, err);
    return st;
}

/* After each step: the errors in time, the series file, the --png frame and the step callback when due. */
static hdg_status after_step(void *ctx, long long step, long long nsteps, double t, hdg_error *err)
{
    stepper *S = ctx;
    hdg_run *r = S->r;
    r->t = t;
    S->step = step;
    if (S->nw) hdg_newton_time_step_done(&S->tally, r->rep);
    hdg_status st = track_errors(S, step, err);
    if (!st && S->W && step % r->o->every == 0 && step < nsteps) st = series_write(S->W, r, t, err);
    int every = r->o->snapshot_every;
    if (!st && r->o->snapshot && every > 0 && step % every == 0 && step < nsteps) st = step_snapshot(r, t, step, err);
    if (!st && hdg_png_hdg_frame_due(&S->png, r->o, step, nsteps)) st = png_frame(S, t, err);
    return st;
}

hdg_status hdg_run_hdg_time(hdg_run *r, hdg_progress *line, hdg_error *err)
{
    hdg_time_scheme sc = hdg_time_scheme_of(r->p->time.method);
    double final, dt;
    long long nsteps;
    hdg_status st = hdg_hdg_time_plan(r->p, r->o, &final, &dt, &nsteps, err);
    if (st) return st;
    const hdg_lowered *L = &r->L;
    int ne = r->mesh->ne;
    hdg_hdg_series W = {0};
    int many = hdg_hdg_series_wanted(r->o);
    stepper S = {.r = r, .n = (long long)ne * L->nl, .cur = -1, .W = many ? &W : NULL,
                 .tdep = hdg_hdg_matrix_depends_on_t(r->p)};
    r->hist = hdg_xcalloc((size_t)S.n, sizeof(double));
    r->xe = hdg_xcalloc((size_t)S.n, sizeof(double));
    S.ops = (hdg_time_ops){&S, hdg_vecops_host(), S.n, r->hist, r->xe, {0, 0}, initial_state, implicit_solve, after_step};
    S.e2 = hdg_xcalloc((size_t)ne * (L->nerr ? L->nerr : 1), sizeof(double));
    if (L->npost) S.zero_post = hdg_xcalloc((size_t)ne * L->npost_dofs, sizeof(double));
    S.zero = hdg_xcalloc((size_t)S.n + 1, sizeof(double));
    hdg_hdg_watch_init(&S.watch, sc.name, dt, nsteps);
    hdg_newton nw;
    if (L->nonlinear) hdg_newton_init(&nw, r), nw.quiet = 1, S.nw = &nw;
    r->t = 0;
    st = S.nw && r->o->newton_snes ? hdg_snes_attach(S.nw, err) : HDG_OK;   /* SNES per solve */
    if (!st) st = hdg_png_hdg_frames_open(&S.png, r->o, err);
    if (!st) st = watch_scale(&S, final, err);
    if (!st) st = hdg_hdg_dirichlet_data(r, err);   /* which faces are Dirichlet (the data follow every solve) */
    if (!st) st = hdg_time_run(&sc, dt, nsteps, &S.ops, line, err);
    hdg_progress_end(line);
    if (S.nw) hdg_newton_time_report(&S.tally, r->rep, r->o->log, S.step);
    if (!st) {
        r->t = final;
        report_time(&S, &sc, dt, nsteps, final);
        if (L->post_unknown >= 0) st = hdg_hdg_post_stage(r, err);
        if (!st) st = hdg_hdg_errors_stage(r, err);
        if (!st && L->estimate[0]) st = hdg_hdg_estimate_stage(r, err);
        if (!st && many) st = series_write(&W, r, final, err);
        if (!st && many) hdg_report_int(r->rep, "output.vtk_files", W.n);
        if (!st && ((r->o->vtk && !many) || r->o->snapshot)) {
            hdg_run_options o = *r->o;
            if (many) o.vtk = NULL;
            st = hdg_hdg_output_at(r->p, L, ne, r->geom, r->xe, r->xp, r->eta, &o, final, nsteps, 1, err);
        }
    }
    if (many) st = hdg_hdg_series_close(&W, r->o, st, err);
    level_free(&S.lv[0]);
    level_free(&S.lv[1]);
    free(S.e2), free(S.zero_post), free(S.zero);
    hdg_hdg_watch_free(&S.watch);
    if (S.nw) hdg_snes_detach(S.nw), hdg_newton_free(S.nw), r->state_l = NULL;
    return st;
}
