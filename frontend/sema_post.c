/* sema_post.c — semantic analysis of the post-processing declarations: post-processed
 * unknowns (HDG only) and mean conditions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sema.h"
#include "support/util.h"

/* ---------------------------------------------------------------- post-processing */

/* 'mean u = g' on an element unknown of the main system: the domain mean of
 * u is that of g (data in x, y); it fixes the constant of a pure Neumann
 * problem (the driver refuses such a problem without it). */
static void mean_value_decl(sema *S, decl *d, const pairing *pr, decl **first, hdg_unknown *u, int ui)
{
    if (pr->failed[ui]) return;
    if (first[ui]) {
        if (first[ui]->kind == d->kind)
            sema_error(S, d->loc, "duplicate %s condition for '%s' (first at %s)", d->kind == D_RIGID ? "rigid" : "mean",
                       u->name, sema_fmt_loc(S, first[ui]->loc));
        else
            sema_error(S, d->loc, "both 'mean %s' and 'rigid %s' are given (the other at %s): 'rigid' fixes the "
                       "mean of '%s' too; keep one", u->name, u->name, sema_fmt_loc(S, first[ui]->loc), u->name);
        return;
    }
    first[ui] = d;
    bool rigid = d->kind == D_RIGID;
    if (S->p->nonlinear && S->p->method == HDG_METHOD_HDG) {   /* run_hdg_newton.c has no null-space stage */
        sema_error(S, d->loc, "'%s %s = ...' in a problem with terms nonlinear in the unknowns: Newton does not fix "
                   "a free constant %sof the solution yet; make the solution unique with a Dirichlet face (or a "
                   "Robin or reaction term)", rigid ? "rigid" : "mean", u->name, rigid ? "or rigid motion " : "");
        return;
    }
    ectx cx = sema_data_ctx(rigid ? "a rigid condition" : "a mean condition", sema_all_coords(S) & ~(1u << HDG_VAR_T),
                            false);   /* x, y (z) */
    const hdg_expr *e[HDG_MAX_COMP] = {NULL};
    if (!sema_data_expr(S, &cx, d->expr, u->ncomp, NULL, e, rigid ? "the rigid condition's value" : "the mean value"))
        return;
    for (int c = 0; c < u->ncomp; c++) u->mean_value[c] = e[c];
    u->mean_loc = d->loc;
    u->rigid = rigid;
}

/* 'rigid u = g' on a vector element unknown of the main system with one component per
 * coordinate (a displacement): u and g have the same L2 projection on the rigid motions
 * (translations and rotations), int (u - g).r = 0 for each; it fixes the rigid motions a
 * traction-only elasticity problem leaves free (the driver refuses one without it). */
static void rigid_decl(sema *S, decl *d, const pairing *pr, decl **first)
{
    hdg_problem *p = S->p;
    symbol *s = sema_lookup(S, d->name);
    if (s && s->failed) return;
    if (!s) {
        const char *near = sema_suggest(S, d->name, NULL, SUGGEST_UNKNOWN);
        if (near) sema_error(S, d->name_loc, "undefined name '%s'; did you mean '%s'?", d->name, near);
        else sema_error(S, d->name_loc, "undefined name '%s'", d->name);
        return;
    }
    hdg_unknown *u = s->kind == SYM_UNKNOWN ? &p->unknowns[s->index] : NULL;
    if (!u || u->trace || u->post) {
        sema_error(S, d->name_loc, "a rigid condition fixes the rigid motions of an element unknown of the main "
                   "system, and '%s' is %s", d->name,
                   !u ? "not an unknown" : u->trace ? "a trace unknown" : "a post-processed unknown");
        return;
    }
    if (u->ncomp != p->dim) {
        sema_error(S, d->name_loc, "'rigid %s = g' needs a vector unknown with one component per coordinate (%d in "
                   "%dD: a displacement), and '%s' is a %s%s", u->name, p->dim, p->dim, u->name, shape_noun(u->ncomp),
                   u->ncomp == 1 ? "; a scalar's constant is fixed by 'mean'" : "");
        return;
    }
    mean_value_decl(S, d, pr, first, u, s->index);
}

/* 'mean ustar = u': the post-processed unknown takes the element mean of u. */
static void mean_decl(sema *S, decl *d, const pairing *pr, decl **first)
{
    hdg_problem *p = S->p;
    symbol *s = sema_lookup(S, d->name);
    if (s && s->failed) return;
    symbol *v = d->label ? sema_lookup(S, d->label) : NULL;   /* 'mean x = u': post-processing */
    if (s && s->kind == SYM_UNKNOWN && !p->unknowns[s->index].post && !p->unknowns[s->index].trace &&
        !(v && v->kind == SYM_UNKNOWN)) {
        mean_value_decl(S, d, pr, first, &p->unknowns[s->index], s->index);
        return;
    }
    if (!s || s->kind != SYM_UNKNOWN || !p->unknowns[s->index].post) {
        sema_error(S, d->name_loc, "mean constraint for '%s', which is not a post-processed unknown "
                   "(declare it with 'postprocess %s : W')", d->name, d->name);
        return;
    }
    hdg_unknown *x = &p->unknowns[s->index];
    if (pr->failed[s->index]) return;
    if (first[s->index]) {
        sema_error(S, d->loc, "duplicate mean constraint for '%s' (first at %s)", x->name,
                   sema_fmt_loc(S, first[s->index]->loc));
        return;
    }
    first[s->index] = d;
    if (!d->label) {
        sema_error(S, d->expr->loc, "the mean of post-processed '%s' is that of an element unknown: "
                   "'mean %s = u'", x->name, x->name);
        return;
    }
    symbol *m = sema_lookup(S, d->label);
    if (m && m->failed) return;
    if (!m) {
        const char *near = sema_suggest(S, d->label, NULL, SUGGEST_UNKNOWN);
        if (near) sema_error(S, d->label_loc, "undefined name '%s'; did you mean '%s'?", d->label, near);
        else sema_error(S, d->label_loc, "undefined name '%s'", d->label);
        return;
    }
    const hdg_unknown *u = m->kind == SYM_UNKNOWN ? &p->unknowns[m->index] : NULL;
    if (!u || u->trace || u->post) {
        sema_error(S, d->label_loc, "the mean of '%s' must be that of an element unknown of the main "
                   "system, and '%s' is %s", x->name, d->label,
                   !u ? "not an unknown" : u->trace ? "a trace unknown" : "a post-processed unknown");
        return;
    }
    if (u->ncomp != x->ncomp) {
        sema_error(S, d->label_loc, "'%s' is a %s but '%s' is a %s: a mean constraint needs the same shape",
                   x->name, shape_noun(x->ncomp), u->name, shape_noun(u->ncomp));
        return;
    }
    x->mean = m->index;
}

void sema_postprocessing(sema *S, decl *ds, pairing *pr)
{
    hdg_problem *p = S->p;
    decl **first = hdg_arena_alloc(S->tmp, (size_t)(p->nunknowns + 1) * sizeof(decl *));
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_MEAN) mean_decl(S, d, pr, first);
        else if (d->kind == D_RIGID && p->method != HDG_METHOD_DG) rigid_decl(S, d, pr, first);
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (!x->post || pr->failed[u] || first[u]) continue;
        sema_error(S, x->loc, "post-processed unknown '%s' has no mean constraint: add 'mean %s = u' "
                   "with u the element unknown whose element means it keeps", x->name, x->name);
    }
    int n = 0;   /* the lowering solves them one after the other, per element */
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->post && ++n == HDG_MAX_POST + 1)
            sema_error(S, x->loc, "postprocess unknown '%s': at most %d are supported", x->name, HDG_MAX_POST);
    }
}

/* DG problems have no post-processing step. */
void sema_no_post(sema *S, decl *ds, pairing *pr)
{
    hdg_problem *p = S->p;
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_POST)
            sema_error(S, d->loc, "postprocess is for HDG problems (a local step after the trace solve); "
                       "this problem is DG");
        else if (d->kind == D_MEAN || d->kind == D_RIGID)
            sema_error(S, d->loc, "%s conditions are for HDG problems; this problem is DG",
                       d->kind == D_MEAN ? "mean" : "rigid");
    for (int u = 0; u < p->nunknowns; u++) {
        if (p->unknowns[u].post) pr->failed[u] = true;
        int nc = p->unknowns[u].ncomp;
        if ((nc == 4 || nc == 9) && !p->unknowns[u].post) {   /* the DG lowering has scalars and vectors */
            sema_error(S, p->unknowns[u].loc, "tensor unknown '%s': V^(%s) unknowns are for HDG "
                       "problems; this problem is DG", p->unknowns[u].name, nc == 4 ? "2x2" : "3x3");
            pr->failed[u] = true;
            symbol *s = sema_lookup(S, p->unknowns[u].name);
            if (s && s->kind == SYM_UNKNOWN) s->failed = true;   /* its uses stay silent */
        }
    }
}
