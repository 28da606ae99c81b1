/* run_hdg_newton_time.c — see run_hdg_newton_time.h. */
#include "drivers/run_hdg_newton_time.h"

hdg_status hdg_newton_time_solve(hdg_newton *N, hdg_newton_tally *T, long long step, double t, hdg_error *err)
{
    char where[96];
    snprintf(where, sizeof where, "time step %lld (the solve at t = %.6g)", step, t);
    hdg_status st = hdg_newton_solve(N, where, err);
    T->steps += N->steps, T->step_now += N->steps, T->solves++, T->seconds += N->seconds;
    T->linear += N->linear;
    if (N->steps > T->max) T->max = N->steps;
    if (N->linear_max > T->linear_max) T->linear_max = N->linear_max;
    if (st) T->failed = 1;
    return st;
}

void hdg_newton_time_step_done(hdg_newton_tally *T, hdg_report *rep)
{
    hdg_report_array_push_number(rep, "newton.steps_per_time_step", (double)T->step_now);
    T->step_now = 0;
}

void hdg_newton_time_report(const hdg_newton_tally *T, hdg_report *rep, FILE *log, long long steps)
{
    hdg_report_int(rep, "newton.steps", T->steps);
    hdg_report_int(rep, "newton.steps_max", T->max);
    hdg_report_int(rep, "newton.solves", T->solves);
    hdg_report_int(rep, "newton.linear_iterations_total", T->linear);
    hdg_report_number(rep, "newton.seconds", T->seconds);
    hdg_report_bool(rep, "newton.converged", !T->failed);
    if (log && !T->failed && T->solves)
        fprintf(log, "  newton: %lld solves in %lld time steps, %lld Newton steps (at most %d in one solve)\n",
                T->solves, steps, T->steps, T->max);
}
