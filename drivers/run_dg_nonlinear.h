/* run_dg_nonlinear.h — what the explicit DG drivers do for a nonlinear
 * problem (residual terms, issue 41; the kernels: ir/lower_dg_nonlinear.c),
 * between the steps of hdg_dg_integrate (run_dg_common.h):
 *   - the step: dt = cfl * the unit step of the current state's wave speed
 *     (dg_speed.h, hdg_dg_char_speed_state: the flux Jacobian the compiler
 *     derives, at every node), recomputed before every HDG_DG_NL_EVERY-th
 *     step; the steps left are then ceil((final - t) / dt), dt evened out
 *     over them, so the run ends exactly at the final time;
 *   - admissibility: at the same times, every state value must be finite, and
 *     so must every nonlinear term evaluated at every node (a face term with
 *     the node's state on both sides) and every coefficient of the flux
 *     Jacobian (a sqrt or log of a negative number, a division by a zero
 *     density: NaN); else the run stops (HDG_ESOLVER) naming the time, the
 *     step, the element, the field or the term, and the state there. A state
 *     that turns non-finite between two checks (the energy, watched after
 *     every step, is NaN) is named the same way, with the term that was not
 *     finite at the last check's state, if one was;
 *   - the smooth regime: at the same times, the modal decay indicator of
 *     Persson & Peraire per element and field (the top-degree modes' share
 *     of the modal energy, V^-1 u in the orthonormal basis, against the
 *     larger of the element's and the field's mean energy) must stay below
 *     hdg_dg_smooth_limit(N) = 0.25 / N^4 (a discontinuity puts ~1/N^4
 *     there; the smooth isentropic vortex on square:8 at most 1/4 of the
 *     limit, N = 1..4); else the run stops (HDG_ESOLVER) naming the time,
 *     the element and the field: no limiter yet, and Gibbs oscillations after
 *     a shock would look like an answer;
 *   - conserved totals: int_Omega U_f for every field (the nodal polynomial's
 *     exact integral, J sum_i w_i U_i with w = the column sums of the
 *     reference mass matrix), at the same times, with their drift
 *     |T - T0| / max(|T0|, int |U_f| at t = 0) (relative).
 * Under mpirun the speed, the totals and the verdicts are reduced over the
 * ranks, so every rank takes the same steps. */
#ifndef HDG_RUN_DG_NONLINEAR_H
#define HDG_RUN_DG_NONLINEAR_H

#include "drivers/run.h"
#include "ir/lower_dg.h"

double hdg_dg_smooth_limit(int N);

/* The most entries of totals.history. */
#define HDG_DG_NL_HISTORY 400

/* Steps between two speed (and admissibility, totals) evaluations. */
#define HDG_DG_NL_EVERY 5

typedef struct hdg_dg_nl {
    int on;                              /* the problem has residual terms */
    long long samples;                   /* speed evaluations */
    double dtmin, dtmax, speedmax;
    double unitmin, cflmax;              /* a fixed dt: the wave speed's step at cfl 1 (smallest), the
                                            largest cfl the fixed dt amounts to */
    int warned;                          /* a fixed dt: its cfl exceeded 1 (first at warn_t) */
    double warn_t, warn_cfl, warn_unit;
    double tot0[HDG_DG_MAX_FIELDS], tot[HDG_DG_MAX_FIELDS], scale[HDG_DG_MAX_FIELDS];
    double drift;                        /* largest relative drift of a total so far */
    double smooth_max;                   /* largest smoothness indicator so far */
    double *w;                           /* Np: the nodes' integration weights */
    double *hist;                        /* per check: t, step, drift, the F totals */
    long long nhist, caphist;
    double *Usave, tsave;                /* the state at the last check, its time and step */
    long long ssave;
} hdg_dg_nl;

struct hdg_dg_data;
struct hdg_dg_engine;

/* After the initial state: admissibility, totals, the first step; sets
 * d->dt, d->nsteps, d->speed, d->cfl_eff. */
hdg_status hdg_dg_nl_begin(struct hdg_dg_data *d, const struct hdg_dg_engine *eng, hdg_error *err);

/* Before step s (s >= 1) at time t: every HDG_DG_NL_EVERY steps the same
 * checks and a new step: *dt and *nsteps (d->dt, d->nsteps follow). */
hdg_status hdg_dg_nl_step(struct hdg_dg_data *d, const struct hdg_dg_engine *eng, long long s, double t,
                          double *dt, long long *nsteps, hdg_error *err);

/* A non-finite energy after step s (time t): the element, field and node
 * where the state is not finite, and which nonlinear term was not finite at
 * the last check's state (if one was): HDG_ESOLVER. */
hdg_status hdg_dg_nl_nonfinite(struct hdg_dg_data *d, const struct hdg_dg_engine *eng, long long s, double t,
                               hdg_error *err);

/* At the final time: admissibility and totals. */
hdg_status hdg_dg_nl_end(struct hdg_dg_data *d, const struct hdg_dg_engine *eng, long long s, double t,
                         hdg_error *err);

/* totals.<field>.{start,end}, totals.max_drift, totals.history (one object
 * per check: t, step, drift, the totals by field; every k-th of them when
 * there are more than HDG_DG_NL_HISTORY, the last one always), dt_min,
 * dt_max, speed_max, speed_samples, smoothness_max; and with a log, one line
 * of totals. */
void hdg_dg_nl_report(const struct hdg_dg_data *d, hdg_report *rep, FILE *log);
/* A fixed dt above cfl 1 against the state's wave speed: warnings.dt in the report. */
void hdg_dg_nl_warn(const struct hdg_dg_data *d, const hdg_run_options *opt, hdg_report *rep);

void hdg_dg_nl_free(hdg_dg_nl *nl);

#endif
