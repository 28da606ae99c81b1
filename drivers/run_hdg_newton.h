/* run_hdg_newton.h — Newton's method for nonlinear HDG problems
 * (drivers/run_hdg_newton.c; docs/solvers.md, "Newton"): one solve from a given
 * state, shared by the steady run (hdg_run_hdg_newton, and hdg_newton_run for a
 * driver of its own) and by every stage of the implicit time stepping of
 * transient nonlinear problems (run_hdg_time.c). The loop (the norms, the stop,
 * the line search, the check, the reports) is one; where the element work runs
 * is a table of operations on host vectors (hdg_newton_ops): the host's
 * (hdg_newton_init) and the device's (run_hdg_cuda_newton.c). Not a public
 * interface: compiler/ only. */
#ifndef HDG_RUN_HDG_NEWTON_H
#define HDG_RUN_HDG_NEWTON_H

#include "drivers/run_hdg_internal.h"

#define HDG_NEWTON_MAX_HISTORY 256
/* The attainable accuracy: |R| below HDG_NEWTON_FLOOR eps ||M|| (M the residual's sums of absolute
 * values) is rounding; the stop of hdgc's loop and of SNES (run_hdg_snes.c). */
#define HDG_NEWTON_FLOOR 100.0

typedef struct hdg_newton hdg_newton;

/* What a driver does for Newton, on host vectors (the state and its steps are
 * host arrays of N; a device driver copies them to and from the device). */
typedef struct hdg_newton_ops {
    /* s_0 into N->sl, N->st: the first guess projected (element unknowns), the trace 0
     * with the Dirichlet data on the Dirichlet dofs */
    hdg_status (*first_guess)(hdg_newton *N, hdg_error *err);
    /* R at (sl, st): the element rows into N->Rl, N->Ml, the assembled trace rows into
     * N->Rg, N->Mg with 0 on the Dirichlet dofs (rows that no norm counts) */
    hdg_status (*residual)(hdg_newton *N, const double *sl, const double *st, hdg_error *err);
    /* Newton's linear system at the state (N->sl, N->st) solved: s' into N->dl, N->dt,
     * the Krylov iterations into *its; a chosen CG that fails: hdg_newton_fallback */
    hdg_status (*linear_step)(hdg_newton *N, int *its, hdg_error *err);
    /* the state (N->sl, N->st) as the run's solution (element fields and trace) */
    hdg_status (*solution)(hdg_newton *N, hdg_error *err);
} hdg_newton_ops;

struct hdg_newton {
    hdg_run *r;               /* the host run (NULL on another driver: ctx) */
    const hdg_newton_ops *ops;
    void *ctx;                /* the driver's run */
    const hdg_problem *p;
    const hdg_run_options *o;
    hdg_report *rep;
    long long nl, nt;         /* ne nl, nf m */
    int m;                    /* trace dofs a face */
    double *sl, *st;          /* the state: the start on entry to a solve, the solution after it */
    double *dl, *dt;          /* the full step d = s' - s */
    double *tl, *tt;          /* a trial state of the line search */
    double *Rl, *Rt, *Ml, *Mt, *Rg, *Mg;   /* residual kernel outputs; assembled trace rows */
    double hist[HDG_NEWTON_MAX_HISTORY];   /* |R| of the current solve */
    int nhist;
    int gmres;                /* CG broke down at a step: GMRES from then on (solver chosen by default) */
    int arrays;               /* report the per-step arrays (newton.residuals[], ...: the steady run) */
    int quiet;                /* no log line per step (the time steps: the progress line instead) */
    const char *where;        /* during a solve: its where (hdg_newton_solve) */
    /* the last solve: its steps, linear iterations, stop at the attainable accuracy, the
     * final |R| and floor eps ||M||, the seconds of its steps */
    int steps, linear, linear_max, attained;
    double rn, fl, seconds;
    /* another solver of the same equations from the same state (--newton snes in time steps:
     * run_hdg_snes.c, hdg_snes_attach): when set, hdg_newton_solve is it; it fills what the
     * loop fills (the state, steps, linear, linear_max, seconds, hist, rn, fl, attained) */
    hdg_status (*solve)(hdg_newton *N, const char *where, hdg_error *err);
    void *solve_ctx;
};

/* The state's storage for the run r (zeroed), the host's operations, and its release. */
void hdg_newton_init(hdg_newton *N, hdg_run *r);
void hdg_newton_free(hdg_newton *N);
/* The same for another driver: its operations and run (ctx) on mesh M with lowering L. */
void hdg_newton_init_ops(hdg_newton *N, const hdg_newton_ops *ops, void *ctx, const hdg_problem *p,
                         const hdg_run_options *o, hdg_report *rep, const hdg_mesh *M, const hdg_lowered *L);

/* A steady run: the first guess, one solve, the reports (newton.*), the solution. */
hdg_status hdg_newton_run(hdg_newton *N, hdg_error *err);

/* A linear step's chosen CG failed (err says why): reported (newton.solver_fallback),
 * logged, err cleared, N->gmres set; the step then solves with GMRES, as the next ones. */
void hdg_newton_fallback(hdg_newton *N, hdg_error *err);

/* The Dirichlet data r->xD on the Dirichlet dofs of the state's trace (the host run N->r). */
void hdg_newton_dirichlet(hdg_newton *N);

/* Newton from the state (N->sl, N->st) at r's time, sigma and history: on success the
 * state is the solution. where: NULL (steady), or the words naming the time step for a
 * failure's message ("time step 3 (t = 0.03)"). A failure: HDG_ESOLVER with the residual
 * history, newton.converged false in the report. */
hdg_status hdg_newton_solve(hdg_newton *N, const char *where, hdg_error *err);

/* PETSc's SNES as N's solve (N->solve, the host run N->r; drivers/run_hdg_snes.c), and its
 * release (before hdg_newton_free); r->o is the trace solves' options in between. */
hdg_status hdg_snes_attach(hdg_newton *N, hdg_error *err);
void hdg_snes_detach(hdg_newton *N);

/* A residual history as text for a failure's message: "r0, r1, ..." (at most the last 40). */
void hdg_newton_history_text(const double *hist, int nhist, char *buf, size_t n);

/* max r_{n+1} / r_n^2 over the last steps of the last solve (see run_hdg_newton.c). */
double hdg_newton_quadratic_constant(const hdg_newton *N);

#endif
