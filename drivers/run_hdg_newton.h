/* run_hdg_newton.h — Newton's method for nonlinear HDG problems on the host
 * (drivers/run_hdg_newton.c; docs/solvers.md, "Newton"): one solve from a given
 * state, shared by the steady run (hdg_run_hdg_newton) and by every stage of the
 * implicit time stepping of transient nonlinear problems (run_hdg_time.c). Not a
 * public interface: compiler/ only. */
#ifndef HDG_RUN_HDG_NEWTON_H
#define HDG_RUN_HDG_NEWTON_H

#include "drivers/run_hdg_internal.h"

#define HDG_NEWTON_MAX_HISTORY 256

typedef struct hdg_newton {
    hdg_run *r;
    long long nl, nt;         /* ne nl, nf m */
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
} hdg_newton;

/* The state's storage for the run r (zeroed) and its release. */
void hdg_newton_init(hdg_newton *N, hdg_run *r);
void hdg_newton_free(hdg_newton *N);

/* The Dirichlet data r->xD on the Dirichlet dofs of the state's trace. */
void hdg_newton_dirichlet(hdg_newton *N);

/* Newton from the state (N->sl, N->st) at r's time, sigma and history: on success the
 * state is the solution. where: NULL (steady), or the words naming the time step for a
 * failure's message ("time step 3 (t = 0.03)"). A failure: HDG_ESOLVER with the residual
 * history, newton.converged false in the report. */
hdg_status hdg_newton_solve(hdg_newton *N, const char *where, hdg_error *err);

/* max r_{n+1} / r_n^2 over the last steps of the last solve (see run_hdg_newton.c). */
double hdg_newton_quadratic_constant(const hdg_newton *N);

#endif
