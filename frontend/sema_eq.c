/* sema_eq.c — semantic analysis of the equations: each equation's test function, its
 * expansion into classified atoms (merged by coupling), its nonlinear residuals with their
 * Jacobians, and the pairing of equations with unknowns (post-processed ones included). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sema.h"
#include "support/util.h"

/* ---------------------------------------------------------------- equations */

static bool test_decl(sema *S, decl *d, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    item *t = &d->test;
    hdg_test *tt = &p->tests[ei];
    *tt = (hdg_test){t->name, 1, -1, t->loc};
    symbol *clash = sema_lookup(S, t->name);
    if (clash && clash->loc.line != 0) {
        sema_error(S, t->loc, "duplicate definition of '%s' (first defined at %d:%d)", t->name, clash->loc.line,
                   clash->loc.col);
        return false;
    }
    if (clash && !sema_shadow_builtin(S, clash, t->loc, "a test function")) return false;   /* its equation's name */
    int sp = sema_space_ref(S, t->space, t->space_loc);
    if (sp < 0 || !sema_power_ok(S, t)) return false;
    tt->space = sp;
    tt->ncomp = t->power;
    (void)pr;
    return true;
}

/* Pairs an HDG equation with the first unknown of its test's space and shape. */
static void pair_hdg(sema *S, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    const hdg_test *t = &p->tests[ei];
    int left = -1;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->equation >= 0 || pr->failed[u] || x->post) continue;
        if (x->space == t->space && x->ncomp == t->ncomp) {
            p->unknowns[u].equation = ei;
            p->equations[ei].unknown = u;
            return;
        }
        if (left < 0 && !pr->reported[u]) left = u;
    }
    if (left >= 0) {
        const hdg_unknown *x = &p->unknowns[left];
        sema_error(S, t->loc, "test function '%s' is in %s, but the unknown left without an equation, "
                   "'%s', is in %s", t->name, sema_space_str(S, t->space, t->ncomp), x->name,
                   sema_space_str(S, x->space, x->ncomp));
        pr->reported[left] = true;
    } else {
        sema_error(S, t->loc, "test function '%s' : %s matches no unknown without an equation",
                   t->name, sema_space_str(S, t->space, t->ncomp));
    }
}

/* A DG equation determines the unknown under dt(). */
static void pair_dg_(sema *S, int ei, pairing *pr);
static void pair_dg(sema *S, int ei, pairing *pr)
{
    int before = S->d->nerrors;
    pair_dg_(S, ei, pr);
    if (S->d->nerrors != before && S->p->equations[ei].unknown < 0) pr->eq_failed = true;
}

static void pair_dg_(sema *S, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    hdg_equation *e = &p->equations[ei];
    const hdg_test *t = &p->tests[ei];
    int u = -1;
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        if (!a->dt) continue;
        if (u >= 0 && a->trial != u) {
            sema_error(S, a->loc, "dt() of two unknowns in one equation ('%s' and '%s')",
                       p->unknowns[u].name, p->unknowns[a->trial].name);
            return;
        }
        u = a->trial;
    }
    if (u < 0) {
        sema_error(S, e->loc, "equation has no dt() term: in a DG problem each equation advances one "
                              "unknown in time, as in (dt(u), v) = ...");
        return;
    }
    hdg_unknown *x = &p->unknowns[u];
    if (x->equation >= 0) {
        sema_error(S, e->loc, "unknown '%s' is advanced by two equations (at %s and here)", x->name,
                   sema_fmt_loc(S, p->equations[x->equation].loc));
        return;
    }
    if (x->space != t->space || x->ncomp != t->ncomp) {
        sema_error(S, t->loc, "test function '%s' is in %s, but the equation advances '%s', which is in %s",
                   t->name, sema_space_str(S, t->space, t->ncomp), x->name, sema_space_str(S, x->space, x->ncomp));
        x->equation = ei;   /* reported: no "has no equation" as well */
        e->unknown = u;
        return;
    }
    x->equation = ei;
    e->unknown = u;
}

static hdg_role role_of(const hdg_problem *p, const hdg_equation *e, const hdg_atom *a)
{
    if (a->trial < 0) return HDG_ROLE_SOURCE;
    if (e->post) return p->unknowns[a->trial].post ? HDG_ROLE_POST : HDG_ROLE_POST_SOURCE;
    if (p->method == HDG_METHOD_DG)
        return a->dt ? HDG_ROLE_TIME : a->domain == HDG_VOLUME ? HDG_ROLE_VOLUME : HDG_ROLE_FLUX;
    if (a->dt) return HDG_ROLE_TIME;
    bool tr = p->unknowns[a->trial].trace;
    if (e->trace) return tr ? HDG_ROLE_TRACE_TRACE : HDG_ROLE_TRACE_LOCAL;
    return tr ? HDG_ROLE_LOCAL_TRACE : HDG_ROLE_LOCAL_LOCAL;
}

/* Adds a side's atoms: trial atoms go left (sign), sources right (-sign). */
static bool same_coupling(const hdg_atom *a, const hdg_atom *b)
{
    return a->domain == b->domain && a->markers == b->markers && a->test_comp == b->test_comp &&
           a->test_op == b->test_op && a->trial == b->trial && a->trial_comp == b->trial_comp &&
           a->trial_op == b->trial_op && a->side == b->side && a->dt == b->dt && a->role == b->role;
}

static const hdg_expr *balanced_sum(hdg_problem *p, const hdg_expr **c, int n)
{
    if (n == 1) return c[0];
    int h = (n + 1) / 2;
    return ex_add(p, balanced_sum(p, c, h), balanced_sum(p, c + h, n - h));
}

/* Atoms of one coupling (same test, trial, operators, side, domain, role) are one
 * integral of the sum of their coefficients: merged, in the order of their first
 * appearance, so the kernels have as many terms as the problem has couplings however
 * many integrals the equation writes (5000 copies of (c*u, w) would be 5000 loops for
 * the C compiler, whose time grows faster than linearly with them). */
static void merge_atoms(sema *S, hdg_equation *e)
{
    int n = e->natoms, out = 0;
    const hdg_expr **c = hdg_xmalloc((size_t)(n + 1) * sizeof *c);
    bool *done = hdg_xcalloc((size_t)n + 1, sizeof *done);
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        int m = 0;
        for (int j = i; j < n; j++)
            if (!done[j] && same_coupling(&e->atoms[i], &e->atoms[j])) {
                c[m++] = e->atoms[j].coef;
                done[j] = true;
            }
        hdg_atom a = e->atoms[i];
        if (m > 1) a.coef = balanced_sum(S->p, c, m);
        if (hdg_expr_is_num(a.coef, 0)) continue;
        if (ex_too_big(a.coef)) {
            sema_error(S, a.loc, "the terms of this coupling are too large when summed (more than %d nodes "
                       "or %d levels)", HDG_EXPR_MAX_SIZE, HDG_EXPR_MAX_DEPTH);
            continue;
        }
        e->atoms[out++] = a;
    }
    e->natoms = out;
    free(c);
    free(done);
}

/* ---------------------------------------------------------------- nonlinear terms */

/* Every distinct STATE leaf of e, appended to leaves[0..*n) (at most cap). */
static void state_leaves(const hdg_expr *e, const hdg_expr **leaves, int *n, int cap)
{
    if (e->kind == HDG_EX_STATE) {
        for (int i = 0; i < *n; i++)
            if (leaves[i]->index == e->index && leaves[i]->comp == e->comp && leaves[i]->op == e->op &&
                leaves[i]->side == e->side)
                return;
        if (*n < cap) leaves[(*n)++] = e;
        return;
    }
    for (int i = 0; i < e->nkids; i++) state_leaves(e->kid[i], leaves, n, cap);
}

/* A residual term: coef (moved to the left-hand side) times the test; merged with an earlier one of the
 * same domain and test component/operator. */
static void put_residual(sema *S, hdg_equation *e, const fatom *f, const hdg_expr *coef)
{
    hdg_problem *p = S->p;
    for (int u = 0; u < p->nunknowns; u++)
        if (p->unknowns[u].post && ex_mentions_unknown(coef, u)) {
            sema_error(S, f->loc, "nonlinear term in the post-processed unknown '%s': post-processing is "
                       "linear in it", p->unknowns[u].name);
            return;
        }
    for (int i = 0; i < e->nresiduals; i++) {
        hdg_residual *r = &e->residuals[i];
        if (r->domain == f->domain && r->test_comp == f->m.test.comp && r->test_op == f->m.test.op) {
            r->coef = ex_add(p, r->coef, coef);
            return;
        }
    }
    e->residuals[e->nresiduals++] = (hdg_residual){.domain = f->domain, .test = e->test,
                                                   .test_comp = f->m.test.comp, .test_op = f->m.test.op,
                                                   .coef = coef, .loc = f->loc};
}

#define HDG_MAX_STATE_LEAVES 64

/* The Jacobian atoms of a residual term: d coef / d STATE(u, c, op, side) for each leaf it reads. */
static void residual_jacobian(sema *S, const hdg_equation *e, hdg_residual *r)
{
    hdg_problem *p = S->p;
    const hdg_expr *leaves[HDG_MAX_STATE_LEAVES];
    int n = 0;
    state_leaves(r->coef, leaves, &n, HDG_MAX_STATE_LEAVES);
    if (n == HDG_MAX_STATE_LEAVES) {
        sema_error(S, r->loc, "this nonlinear term reads more than %d values of the unknowns",
                   HDG_MAX_STATE_LEAVES - 1);
        return;
    }
    r->jac = hdg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof(hdg_atom));
    for (int i = 0; i < n; i++) {
        const hdg_expr *s = leaves[i];
        const hdg_expr *d = hdg_expr_diff_state(p, r->coef, s->index, s->comp, s->op, s->side);
        if (!d) {
            sema_error(S, r->loc, "this nonlinear term is too large to differentiate");
            return;
        }
        if (hdg_expr_is_num(d, 0)) continue;
        hdg_atom *a = &r->jac[r->njac++];
        *a = (hdg_atom){.domain = r->domain, .markers = r->markers, .test = r->test, .test_comp = r->test_comp,
                        .test_op = r->test_op, .trial = s->index, .trial_comp = s->comp,
                        .trial_op = (hdg_op)s->op, .side = (hdg_side)s->side, .coef = d, .loc = r->loc};
        a->role = role_of(p, e, a);
    }
}

static void residual_jacobians(sema *S, hdg_equation *e)
{
    int k = 0;
    for (int i = 0; i < e->nresiduals; i++)   /* terms that cancelled: none */
        if (!hdg_expr_is_num(e->residuals[i].coef, 0)) e->residuals[k++] = e->residuals[i];
    e->nresiduals = k;
    if (k && e->post) {
        sema_error(S, e->residuals[0].loc, "nonlinear term in the post-processing equation for '%s': "
                   "post-processing equations are linear", e->unknown >= 0 ? S->p->unknowns[e->unknown].name : "?");
        return;
    }
    for (int i = 0; i < k; i++) residual_jacobian(S, e, &e->residuals[i]);
    if (k) S->p->nonlinear = true;
}

static void put_atoms(sema *S, hdg_equation *e, const val *v, int sign)
{
    hdg_problem *p = S->p;
    for (int i = 0; i < v->natoms; i++) {
        const fatom *f = &v->atoms[i];
        bool src = f->m.trial.id < 0;
        if (src && hdg_expr_has_state(f->m.coef)) {
            put_residual(S, e, f, sign > 0 ? f->m.coef : ex_neg(p, f->m.coef));
            continue;
        }
        const hdg_expr *c = (sign > 0) != src ? f->m.coef : ex_neg(p, f->m.coef);
        if (hdg_expr_is_num(c, 0)) continue;
        if (ex_too_big(c)) {
            sema_error(S, f->loc, "term too large when expanded (more than %d nodes or %d levels)",
                       HDG_EXPR_MAX_SIZE, HDG_EXPR_MAX_DEPTH);
            continue;
        }
        hdg_atom *a = &e->atoms[e->natoms++];
        *a = (hdg_atom){.domain = f->domain, .markers = NULL, .test = e->test,
                        .test_comp = f->m.test.comp, .test_op = f->m.test.op,
                        .trial = f->m.trial.id, .trial_comp = src ? 0 : f->m.trial.comp,
                        .trial_op = f->m.trial.op, .side = f->m.trial.side, .dt = f->m.trial.dt,
                        .coef = c, .loc = f->loc};
        a->role = role_of(p, e, a);
    }
}

/* HDG: the post-processed unknown an equation's terms use (-1: none); false
 * when they use two. */
static bool find_post(sema *S, const val *l, const val *r, int *pu)
{
    const val *sides[2] = {l, r};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < sides[k]->natoms; i++) {
            const fatom *f = &sides[k]->atoms[i];
            int u = f->m.trial.id;
            if (u < 0 || !S->p->unknowns[u].post || u == *pu) continue;
            if (*pu >= 0) {
                sema_error(S, f->loc, "two post-processed unknowns in one equation ('%s' and '%s'): each "
                           "post-processing equation determines one", S->p->unknowns[*pu].name,
                           S->p->unknowns[u].name);
                return false;
            }
            *pu = u;
        }
    return true;
}

/* A post-processing equation: volume integrals, element unknowns of the main
 * system as data, its test in the space of the post-processed unknown pu. */
static void pair_post(sema *S, int ei, int pu, pairing *pr)
{
    hdg_problem *p = S->p;
    hdg_equation *e = &p->equations[ei];
    const hdg_test *t = &p->tests[ei];
    hdg_unknown *x = &p->unknowns[pu];
    if (t->space != x->space || t->ncomp != x->ncomp) {   /* most likely a main equation using ustar */
        hdg_loc at = e->loc;
        for (int i = e->natoms - 1; i >= 0; i--)
            if (e->atoms[i].trial == pu) at = e->atoms[i].loc;
        sema_error(S, at, "post-processed unknown '%s' in an equation tested in %s: it is computed after the "
                   "solve and appears only in its own post-processing equation, tested in %s", x->name,
                   sema_space_str(S, t->space, t->ncomp), sema_space_str(S, x->space, x->ncomp));
        pr->eq_failed = true;
        return;
    }
    int before = S->d->nerrors;
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        if (a->trial >= 0 && p->unknowns[a->trial].trace)
            sema_error(S, a->loc, "trace unknown '%s' in the post-processing equation for '%s': "
                       "post-processing uses only element unknowns", p->unknowns[a->trial].name, x->name);
        else if (a->domain == HDG_BOUNDARY)
            sema_error(S, a->loc, "boundary integral in the post-processing equation for '%s': "
                       "post-processing equations have volume integrals (a, b) only", x->name);
    }
    if (x->equation >= 0)
        sema_error(S, e->loc, "post-processed unknown '%s' has two equations (at %s and here)", x->name,
                   sema_fmt_loc(S, p->equations[x->equation].loc));
    else
        x->equation = ei;
    e->unknown = pu;
    if (S->d->nerrors != before) pr->eq_failed = true;
}

static bool side_ok(sema *S, const val *v, const ast *a)
{
    if (v->kind == V_ERR) return false;
    if (v->kind == V_FORM || val_is_zero(v)) return true;
    sema_error(S, a->loc, "each side of an equation must be a sum of integrals (a, b) and <a, b>, or 0");
    return false;
}

/* Transient HDG: dt() applies to an element unknown of the main system, in an
 * element equation (expand.c refuses it in trace equations and on trace
 * unknowns); the post-processing runs at the end on the final state. */
static bool transient_atoms(sema *S, const hdg_equation *e)
{
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        if (!a->dt) continue;
        if (e->post) {
            sema_error(S, a->loc, "dt() in a post-processing equation: post-processing runs once, on the "
                                  "final state");
            return false;
        }
        if (a->domain != HDG_VOLUME) {
            sema_error(S, a->loc, "dt() in a boundary integral: the time derivative term is (dt(u), v)");
            return false;
        }
    }
    return true;
}

static void equation_decl(sema *S, decl *d, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    hdg_equation *e = &p->equations[ei];
    *e = (hdg_equation){.test = ei, .unknown = -1, .loc = d->loc};
    if (!test_decl(S, d, ei, pr)) {
        pr->eq_failed = true;
        return;
    }
    const hdg_test *t = &p->tests[ei];
    e->trace = p->spaces[t->space].kind == HDG_SPACE_TRACE;
    if (e->trace && p->method == HDG_METHOD_DG) {
        sema_error(S, t->loc, "test function '%s' is in the trace space %s, but a DG problem has no trace "
                   "unknowns", t->name, p->spaces[t->space].name);
        return;
    }
    ectx cx = {0};
    cx.mode = X_EQUATION;
    cx.coords = sema_all_coords(S);
    cx.where = "an equation";
    cx.test = t->name;
    cx.test_id = ei;
    cx.test_ncomp = t->ncomp;
    cx.test_trace = e->trace;
    cx.eq = ei;
    cx.hdg = p->method == HDG_METHOD_HDG;
    val l = expand(S, &cx, d->lhs);
    val r = expand(S, &cx, d->expr);
    bool ok = side_ok(S, &l, d->lhs);
    ok = side_ok(S, &r, d->expr) && ok;
    if (!ok) {
        pr->eq_failed = true;
        return;
    }
    int pu = -1;
    if (p->method == HDG_METHOD_HDG && !find_post(S, &l, &r, &pu)) {
        pr->eq_failed = true;
        return;
    }
    e->post = pu >= 0;
    e->atoms = hdg_arena_alloc(p->arena, (size_t)(l.natoms + r.natoms + 1) * sizeof(hdg_atom));
    e->residuals = hdg_arena_alloc(p->arena, (size_t)(l.natoms + r.natoms + 1) * sizeof(hdg_residual));
    put_atoms(S, e, &l, 1);
    put_atoms(S, e, &r, -1);
    merge_atoms(S, e);
    if (p->transient && !transient_atoms(S, e)) {
        pr->eq_failed = true;
        return;
    }
    if (p->method == HDG_METHOD_DG) pair_dg(S, ei, pr);
    else if (e->post) pair_post(S, ei, pu, pr);
    else pair_hdg(S, ei, pr);
    residual_jacobians(S, e);
}

void sema_equations(sema *S, decl *ds, pairing *pr)
{
    hdg_problem *p = S->p;
    int ei = 0;
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_EQUATION) equation_decl(S, d, ei++, pr);
    for (int i = 0; i < p->nequations; i++)   /* DG: which unknowns need an exterior state */
        for (int k = 0; k < p->equations[i].natoms; k++) {
            const hdg_atom *a = &p->equations[i].atoms[k];
            if (a->side == HDG_SIDE_EXTERIOR) p->unknowns[a->trial].needs_exterior = true;
        }
    for (int i = 0; i < p->nequations; i++)   /* ... and in nonlinear terms */
        for (int k = 0; k < p->equations[i].nresiduals; k++) {
            const hdg_residual *r = &p->equations[i].residuals[k];
            for (int j = 0; j < r->njac; j++)
                if (r->jac[j].side == HDG_SIDE_EXTERIOR) p->unknowns[r->jac[j].trial].needs_exterior = true;
            if (hdg_expr_has_wavespeed(r->coef))   /* the speed of both sides: every unknown's exterior */
                for (int u = 0; u < p->nunknowns; u++) p->unknowns[u].needs_exterior |= !p->unknowns[u].trace;
        }
    for (int u = 0; u < p->nunknowns && !pr->eq_failed && p->nequations > 0; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->equation >= 0 || pr->failed[u] || pr->reported[u]) continue;
        if (x->post)
            sema_error(S, x->loc, "post-processed unknown '%s' has no equation: add one with a test "
                       "function in %s, e.g. 'equation (grad(%s), grad(w)) = ... for w : %s'", x->name,
                       sema_space_str(S, x->space, x->ncomp), x->name, sema_space_str(S, x->space, x->ncomp));
        else
            sema_error(S, x->loc, "unknown '%s' has no equation", x->name);
    }
}
