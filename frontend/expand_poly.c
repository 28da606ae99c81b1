/* expand_poly.c — the polynomials of the expansion: sums of monomials
 * coefficient * [unknown factor] * [test factor], their sums, scalings and products, and
 * the nonlinear products that keep their unknown factors as STATE leaves. */
#include <stdio.h>
#include <string.h>

#include "frontend/expand.h"

/* ---------------------------------------------------------------- polynomials */

static bool fac_eq(const fac *a, const fac *b)
{
    return a->id == b->id && (a->id < 0 || (a->comp == b->comp && a->op == b->op &&
                                            a->side == b->side && a->dt == b->dt));
}

static bool same_key(const mono *a, const mono *b)
{
    return fac_eq(&a->trial, &b->trial) && fac_eq(&a->test, &b->test);
}

poly poly_new(sema *S, int cap)
{
    poly r = {hdg_arena_alloc(S->tmp, (size_t)(cap > 0 ? cap : 1) * sizeof(mono)), 0};
    return r;
}

/* Appends m to r (room must exist), merging with a monomial of the same factors. */
void poly_put(sema *S, poly *r, mono m)
{
    for (int i = 0; i < r->n; i++)
        if (same_key(&r->m[i], &m)) {
            r->m[i].coef = ex_add(S->p, r->m[i].coef, m.coef);
            return;
        }
    r->m[r->n++] = m;
}

poly poly_compact(poly r)
{
    int k = 0;
    for (int i = 0; i < r.n; i++)
        if (!hdg_expr_is_num(r.m[i].coef, 0)) r.m[k++] = r.m[i];
    r.n = k;
    return r;
}

/* a + sign * b */
poly poly_add(sema *S, poly a, poly b, int sign)
{
    poly r = poly_new(S, a.n + b.n);
    for (int i = 0; i < a.n; i++) poly_put(S, &r, a.m[i]);
    for (int i = 0; i < b.n; i++) {
        mono m = b.m[i];
        if (sign < 0) m.coef = ex_neg(S->p, m.coef);
        poly_put(S, &r, m);
    }
    return poly_compact(r);
}

poly poly_scale(sema *S, poly a, const hdg_expr *c)
{
    poly r = poly_new(S, a.n);
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        m.coef = ex_mul(S->p, c, m.coef);
        r.m[r.n++] = m;
    }
    return poly_compact(r);
}

poly poly_divide(sema *S, poly a, const hdg_expr *c)
{
    poly r = poly_new(S, a.n);
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        m.coef = ex_div(S->p, m.coef, c);
        r.m[r.n++] = m;
    }
    return poly_compact(r);
}

poly poly_data(sema *S, const hdg_expr *e)
{
    poly r = poly_new(S, 1);
    if (!hdg_expr_is_num(e, 0)) r.m[r.n++] = (mono){e, NOFAC, NOFAC};
    return r;
}

const mono *poly_first_trial(poly a)
{
    for (int i = 0; i < a.n; i++)
        if (a.m[i].trial.id >= 0) return &a.m[i];
    return NULL;
}

const mono *poly_first_test(poly a)
{
    for (int i = 0; i < a.n; i++)
        if (a.m[i].test.id >= 0) return &a.m[i];
    return NULL;
}

const char *unknown_label(sema *S, const fac *f)
{
    const hdg_unknown *u = &S->p->unknowns[f->id];
    if (u->ncomp == 1) return u->name;
    const char *sfx = hdg_comp_suffix(u->ncomp, f->comp);
    size_t n = strlen(u->name), m = strlen(sfx);
    char *s = hdg_arena_alloc(S->tmp, n + m + 1);
    memcpy(s, u->name, n);
    memcpy(s + n, sfx, m + 1);
    return s;
}

const char *expand_test_label(const ectx *cx) { return cx->test ? cx->test : "?"; }

/* ---------------------------------------------------------------- nonlinear terms
 * In an equation, a term nonlinear in the unknowns (a product of two unknowns, a power,
 * a quotient or a function of one) is kept as data: its unknown factors become STATE
 * leaves of the coefficient (the current state), and sema_eq.c turns such monomials into
 * residual terms with their Jacobians. A linear term never meets a STATE leaf, so it
 * takes exactly the linear path. */

bool poly_has_trial(poly a) { return poly_first_trial(a) != NULL; }

bool poly_has_state(poly a)
{
    for (int i = 0; i < a.n; i++)
        if (hdg_expr_has_state(a.m[i].coef)) return true;
    return false;
}

/* m's unknown factor moved into its coefficient as a STATE leaf. */
bool expand_state_mono(sema *S, mono *m, hdg_loc at)
{
    if (m->trial.id < 0) return true;
    if (m->trial.dt) {
        sema_error(S, at, "dt(%s) in a nonlinear term: a time derivative must appear linearly, as in "
                   "(dt(%s), v)", unknown_label(S, &m->trial), S->p->unknowns[m->trial.id].name);
        return false;
    }
    m->coef = ex_mul(S->p, m->coef, ex_state(S->p, m->trial.id, m->trial.comp, m->trial.op, m->trial.side));
    m->trial = NOFAC;
    return true;
}

/* a with every unknown factor moved into its coefficient as a STATE leaf. */
bool poly_stateify(sema *S, poly *a, hdg_loc at)
{
    if (!poly_has_trial(*a)) return true;
    poly r = poly_new(S, a->n);
    for (int i = 0; i < a->n; i++) {
        mono m = a->m[i];
        if (!expand_state_mono(S, &m, at)) return false;
        poly_put(S, &r, m);
    }
    *a = poly_compact(r);
    return true;
}

/* Does a * b need the nonlinear path (in an equation)? */
static bool nonlinear_product(const ectx *cx, poly a, poly b)
{
    if (cx->mode != X_EQUATION) return false;
    bool ta = poly_has_trial(a), tb = poly_has_trial(b);
    return (ta && (tb || poly_has_state(b))) || (tb && poly_has_state(a));
}

/* a * b, rejecting products of two test functions (and, outside equations, of two unknowns). */
bool poly_mul(sema *S, const ectx *cx, poly a, poly b, poly *out, hdg_loc at)
{
    if (nonlinear_product(cx, a, b) && !(poly_stateify(S, &a, at) && poly_stateify(S, &b, at))) return false;
    poly r = poly_new(S, a.n * b.n);
    for (int i = 0; i < a.n; i++)
        for (int j = 0; j < b.n; j++) {
            const mono *x = &a.m[i], *y = &b.m[j];
            if (x->trial.id >= 0 && y->trial.id >= 0) {
                sema_error(S, at, "nonlinear in the unknowns: product of '%s' and '%s'",
                           unknown_label(S, &x->trial), unknown_label(S, &y->trial));
                return false;
            }
            if (x->test.id >= 0 && y->test.id >= 0) {
                sema_error(S, at, "two test functions in a term: '%s' times '%s'",
                           expand_test_label(cx), expand_test_label(cx));
                return false;
            }
            mono m = {ex_mul(S->p, x->coef, y->coef), x->trial.id >= 0 ? x->trial : y->trial,
                      x->test.id >= 0 ? x->test : y->test};
            poly_put(S, &r, m);
        }
    *out = poly_compact(r);
    return true;
}
