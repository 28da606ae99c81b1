/* run_hdg_newton_time.h — Newton inside implicit time steps (issue 41; docs/solvers.md,
 * "Newton"), what the host's (run_hdg_time.c) and the device's (run_hdg_cuda_time.c) time
 * stepping share around the one Newton loop (run_hdg_newton.h): each implicit solve named
 * by its time step for a failure's message, and the counts over the solves, reported as
 * newton.steps, newton.steps_max, newton.solves, newton.steps_per_time_step[],
 * newton.linear_iterations_total, newton.seconds, newton.converged. Not a public
 * interface: compiler/ only. */
#ifndef HDG_RUN_HDG_NEWTON_TIME_H
#define HDG_RUN_HDG_NEWTON_TIME_H

#include <stdio.h>

#include "drivers/run_hdg_newton.h"

typedef struct hdg_newton_tally {
    long long steps;         /* Newton steps over all solves */
    long long step_now;      /* ... of the current time step */
    long long solves, linear;
    int max;                 /* the most Newton steps of one solve */
    int linear_max;          /* the most Krylov iterations of one Newton step */
    int failed;              /* a solve failed */
    double seconds;
} hdg_newton_tally;

/* Newton from N's state (its trace's Dirichlet dofs set by the caller to the data at t,
 * sigma and the history in place) for an implicit solve of time step `step` (1-based) at
 * time t; counted in T. On success the state is the solution. */
hdg_status hdg_newton_time_solve(hdg_newton *N, hdg_newton_tally *T, long long step, double t, hdg_error *err);

/* After a time step: its Newton steps into newton.steps_per_time_step[]. */
void hdg_newton_time_step_done(hdg_newton_tally *T, hdg_report *rep);

/* The totals (also after a failure: converged false), and with log the summary line of
 * `steps` time steps when converged. */
void hdg_newton_time_report(const hdg_newton_tally *T, hdg_report *rep, FILE *log, long long steps);

#endif
