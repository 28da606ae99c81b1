/* sema_time.c — semantic analysis of exact solutions and initial conditions (with the
 * default initial state) and of the time settings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sema.h"
#include "support/util.h"

/* ---------------------------------------------------------------- exact, initial, time */

/* Does some atom of the main system take dt() of unknown u? */
static bool under_dt(const hdg_problem *p, int u)
{
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++)
            if (p->equations[e].atoms[i].dt && p->equations[e].atoms[i].trial == u) return true;
    return false;
}

void sema_solutions(sema *S, decl *d, const pairing *pr)
{
    hdg_problem *p = S->p;
    bool initial = d->kind == D_INITIAL;
    if (initial && p->method != HDG_METHOD_DG && !p->transient && !p->nonlinear) {
        if (pr->eq_failed) return;   /* a failed equation may be the nonlinear one */
        sema_error(S, d->loc, "initial conditions are for time-dependent problems (with dt() terms) and "
                              "the first guess of nonlinear ones");
        return;
    }
    for (item *it = d->items.head; it; it = it->next) {
        symbol *s = sema_lookup(S, it->name);
        if (s && s->failed) continue;
        if (!s || s->kind != SYM_UNKNOWN) {
            sema_error(S, it->loc, "%s for '%s', which is not an unknown",
                       initial ? "initial condition" : "exact solution", it->name);
            continue;
        }
        hdg_unknown *u = &p->unknowns[s->index];
        if (pr->failed[s->index]) continue;
        if (initial && u->post) {
            sema_error(S, it->loc, "initial guess for the post-processed unknown '%s': it is computed from "
                                   "the solution", it->name);
            continue;
        }
        if (initial && p->transient && !under_dt(p, s->index)) {
            if (pr->eq_failed) continue;   /* its dt() term may be in the failed equation (a refused c(u) dt(u)) */
            sema_error(S, it->loc, "initial condition for '%s', which has no dt() term: in HDG only the "
                                   "unknowns under dt() start from an initial state", it->name);
            continue;
        }
        const hdg_expr **slot = initial ? u->initial : u->exact;
        if (slot[0]) {
            sema_error(S, it->loc, "duplicate %s for '%s'", initial ? "initial condition" : "exact solution",
                       it->name);
            continue;
        }
        ectx cx = sema_data_ctx(initial ? "an initial condition" : "an exact solution", sema_all_coords(S), false);
        const hdg_expr *e[HDG_MAX_COMP] = {NULL};
        if (!sema_data_expr(S, &cx, it->expr, u->ncomp, NULL, e,
                            initial ? "the initial condition" : "the exact solution"))
            continue;
        for (int c = 0; c < u->ncomp; c++) slot[c] = initial ? hdg_expr_at_time(p, e[c], 0) : e[c];
        if (initial) u->initial_given = true;
    }
}

void sema_default_initial(sema *S)
{
    hdg_problem *p = S->p;
    bool steady_guess = p->nonlinear && p->method == HDG_METHOD_HDG && !p->transient;   /* Newton: 0 */
    if (p->method != HDG_METHOD_DG && !p->transient && !steady_guess) return;
    for (int u = 0; u < p->nunknowns; u++) {
        hdg_unknown *x = &p->unknowns[u];
        if (steady_guess) {
            for (int c = 0; c < x->ncomp && !x->initial_given && !x->post; c++) x->initial[c] = ex_num(p, 0);
            continue;
        }
        if (x->initial_given || (p->transient && !under_dt(p, u))) continue;
        for (int c = 0; c < x->ncomp; c++)
            x->initial[c] = x->exact[c] ? hdg_expr_at_time(p, x->exact[c], 0) : ex_num(p, 0);
    }
}

/* DG: the explicit lserk4; HDG with dt() terms: the implicit BDF1-3 and
 * SDIRK2-3 (drivers/run_hdg_time.c). */
static void time_method(sema *S, decl *d)
{
    static const char *implicit[] = {"bdf1", "bdf2", "bdf3", "sdirk2", "sdirk3"};
    bool is_implicit = false;
    for (int i = 0; i < 5; i++) is_implicit |= !strcmp(d->name, implicit[i]);
    if (S->p->transient) {
        if (is_implicit) return;
        if (!strcmp(d->name, "lserk4"))
            sema_error(S, d->name_loc, "'lserk4' is explicit, for DG problems: an HDG problem with dt() "
                                       "terms takes an implicit scheme: bdf1, bdf2, bdf3, sdirk2 or sdirk3");
        else
            sema_error(S, d->name_loc, "unknown time-stepping method '%s': an HDG problem takes bdf1, bdf2, "
                                       "bdf3, sdirk2 or sdirk3", d->name);
    } else if (strcmp(d->name, "lserk4")) {
        if (is_implicit)
            sema_error(S, d->name_loc, "'%s' is implicit, for HDG problems (trace unknowns and dt() terms): "
                                       "a DG problem takes 'lserk4'", d->name);
        else
            sema_error(S, d->name_loc, "unknown time-stepping method '%s': the supported one is 'lserk4'",
                       d->name);
    }
}

void sema_time_decl(sema *S, decl *d)
{
    hdg_problem *p = S->p;
    hdg_time *tm = &p->time;
    if (tm->given) {
        sema_error(S, d->loc, "duplicate 'time' declaration (first at %s)", sema_fmt_loc(S, tm->loc));
        return;
    }
    *tm = (hdg_time){true, d->name, 0, p->transient ? 0 : 1, 0, d->loc};
    if (p->method != HDG_METHOD_DG && !p->transient) {
        sema_error(S, d->loc, "time settings are for time-dependent problems, with dt() terms");
        return;
    }
    time_method(S, d);
    static const char *keys[] = {"final", "cfl", "dt"};
    bool seen[3] = {false, false, false};
    for (item *it = d->items.head; it; it = it->next) {
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(it->name, keys[i])) k = i;
        if (k < 0) {
            const char *near = hdg_closest_name(it->name, keys, 3);
            if (near) sema_error(S, it->loc, "unknown time setting '%s'; did you mean '%s'?", it->name, near);
            else sema_error(S, it->loc, "unknown time setting '%s' (use final, cfl, dt)", it->name);
            continue;
        }
        if (seen[k]) {
            sema_error(S, it->loc, "duplicate time setting '%s'", it->name);
            continue;
        }
        seen[k] = true;
        ectx cx = sema_data_ctx("the time settings", 0, false);
        const hdg_expr *e[2];
        if (!sema_data_expr(S, &cx, it->expr, 1, NULL, e, "a time setting")) continue;
        hdg_eval_env env = {.problem = p};
        double v = hdg_expr_eval(e[0], &env);
        if (!(v > 0) || !isfinite(v)) {
            sema_error(S, it->expr->loc, "time setting '%s' must be a positive number", it->name);
            continue;
        }
        if (k == 1 && p->transient) {
            sema_error(S, it->loc, "'cfl' is for explicit DG time stepping: an implicit HDG scheme takes a "
                                   "fixed step, 'dt = D'");
            continue;
        }
        if (k == 0) tm->final = v;
        else if (k == 1) tm->cfl = v;
        else tm->dt = v;
    }
    if (!seen[0]) sema_error(S, d->loc, "the time settings need 'final = T'");
    else if (p->transient && !seen[2])
        sema_error(S, d->loc, "the time settings of an HDG problem need a step, 'dt = D' (e.g. 'time %s, "
                              "final = 1, dt = 0.01')", tm->method);
}
