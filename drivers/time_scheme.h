/* time_scheme.h — the implicit schemes of transient HDG (BDF1-3, SDIRK2-3), apart from
 * the drivers that solve (run_hdg_time.c on the host, run_hdg_cuda_time.c on the device).
 *
 * Every implicit solve of a scheme is the HDG problem with the time atoms (c dt(u), w)
 * read as sigma c (u, w) - c (h, w): the driver's solve(level, t) takes sigma from the
 * level (0: the scheme's, 1: the SDIRK start of a BDF) and the history h from ops->hist,
 * and leaves the new element state in ops->out.
 *   BDFk:  sigma = a0/dt, h = sum_j a_j u^(n+1-j) / dt;
 *   SDIRK (stiffly accurate, diagonal gamma), stage i at t_n + c_i dt:
 *          sigma = 1/(gamma dt), h = (u^n + dt sum_{j<i} a_ij d_j)/(gamma dt),
 *          d_i = sigma U_i - h, u^(n+1) = U_s.
 * BDF2/3 take their first one/two steps with SDIRK2/3. The vectors (host or device) are
 * handled through ops->v only. */
#ifndef HDG_TIME_SCHEME_H
#define HDG_TIME_SCHEME_H

#include "hdg.h"
#include "runtime/solve/krylov.h"
#include "runtime/output/report.h"
#include "support/progress.h"

typedef struct hdg_time_scheme {
    const char *name;
    int bdf;                 /* steps of a BDF (0: SDIRK) */
    double a0, a[3];         /* BDF */
    int stages;              /* SDIRK */
    double gamma, A[3][3], c[3];
    int order;
} hdg_time_scheme;

/* "bdf1".."bdf3", "sdirk2", "sdirk3" (the frontend accepts no other name). */
hdg_time_scheme hdg_time_scheme_of(const char *name);

typedef struct hdg_time_ops {
    void *ctx;
    const hdg_vecops *v;
    long long n;             /* element dofs: ne * nl */
    double *hist;            /* n: the history the solves read */
    double *out;             /* n: where solve leaves the new state */
    double sigma[2];         /* set by hdg_time_run: level 0 (the scheme), 1 (a BDF's start) */
    /* the initial state (t = 0) into u */
    hdg_status (*initial)(void *ctx, double *u, hdg_error *err);
    hdg_status (*solve)(void *ctx, int level, double t, hdg_error *err);
    /* after step `step` (1-based), at time t, the state in out; NULL: nothing */
    hdg_status (*after_step)(void *ctx, long long step, long long nsteps, double t, hdg_error *err);
} hdg_time_ops;

/* nsteps steps of dt from t = 0; the final state is left in ops->out. */
hdg_status hdg_time_run(const hdg_time_scheme *sc, double dt, long long nsteps, hdg_time_ops *ops,
                        hdg_progress *line, hdg_error *err);

/* time.* (method, order, dt, steps, final, solves, matrices) and the iteration counts. */
void hdg_time_report(hdg_report *rep, const hdg_time_scheme *sc, double dt, long long nsteps, double final,
                     long long solves, int matrices, long long its, long long its_max);

/* The most steps an implicit run may take: each is one trace solve (SDIRK: one per stage),
 * about a steady solve's cost, so 1e6 steps take hours even on the coarsest mesh (explicit
 * DG's steps are kernel passes: HDG_DG_MAX_STEPS, 1e8). */
#define HDG_TIME_MAX_STEPS 1e6

/* Steps and step: final/dt rounded up, dt shortened to land on final (dt from `from`:
 * "--dt D" or "the file's 'dt = D'"; final from --final-time T or the file's 'final');
 * more than HDG_TIME_MAX_STEPS steps are refused, naming the setting that made dt. */
hdg_status hdg_time_steps(const char *name, double final, double dt, const char *from, double *dt_out, long long *n,
                          hdg_error *err);

#endif
