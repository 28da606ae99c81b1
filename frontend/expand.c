/* expand.c — expands an expression of the language into a sum of monomials
 *
 *     coefficient * [unknown factor] * [test factor]      per vector component,
 *
 * distributing products, expanding vectors (dot, grad, div, n), derivatives
 * (product rule, symbolic in the coefficient), jump/avg/ext, and inlining named
 * fluxes and funcs. Integrals (a, b) and <a, b> turn fields into forms (lists of
 * atoms with a domain). Everything the compiler cannot lower is rejected here
 * with its own message: nonlinear terms, two test functions, a trace unknown in
 * a volume integral, jump() in HDG, ... */
#include <stdio.h>
#include <string.h>

#include "frontend/sema.h"

static const fac NOFAC = {-1, 0, HDG_OP_VALUE, HDG_SIDE_NONE, false};

static val err(void) { return (val){.kind = V_ERR}; }

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

static poly p_new(sema *S, int cap)
{
    poly r = {hdg_arena_alloc(S->tmp, (size_t)(cap > 0 ? cap : 1) * sizeof(mono)), 0};
    return r;
}

/* Appends m to r (room must exist), merging with a monomial of the same factors. */
static void p_put(sema *S, poly *r, mono m)
{
    for (int i = 0; i < r->n; i++)
        if (same_key(&r->m[i], &m)) {
            r->m[i].coef = ex_add(S->p, r->m[i].coef, m.coef);
            return;
        }
    r->m[r->n++] = m;
}

static poly p_compact(poly r)
{
    int k = 0;
    for (int i = 0; i < r.n; i++)
        if (!hdg_expr_is_num(r.m[i].coef, 0)) r.m[k++] = r.m[i];
    r.n = k;
    return r;
}

/* a + sign * b */
static poly p_add(sema *S, poly a, poly b, int sign)
{
    poly r = p_new(S, a.n + b.n);
    for (int i = 0; i < a.n; i++) p_put(S, &r, a.m[i]);
    for (int i = 0; i < b.n; i++) {
        mono m = b.m[i];
        if (sign < 0) m.coef = ex_neg(S->p, m.coef);
        p_put(S, &r, m);
    }
    return p_compact(r);
}

static poly p_scale(sema *S, poly a, const hdg_expr *c)
{
    poly r = p_new(S, a.n);
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        m.coef = ex_mul(S->p, c, m.coef);
        r.m[r.n++] = m;
    }
    return p_compact(r);
}

static poly p_divide(sema *S, poly a, const hdg_expr *c)
{
    poly r = p_new(S, a.n);
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        m.coef = ex_div(S->p, m.coef, c);
        r.m[r.n++] = m;
    }
    return p_compact(r);
}

static poly p_data(sema *S, const hdg_expr *e)
{
    poly r = p_new(S, 1);
    if (!hdg_expr_is_num(e, 0)) r.m[r.n++] = (mono){e, NOFAC, NOFAC};
    return r;
}

static const mono *first_trial(poly a)
{
    for (int i = 0; i < a.n; i++)
        if (a.m[i].trial.id >= 0) return &a.m[i];
    return NULL;
}

static const mono *first_test(poly a)
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

static const char *test_label(const ectx *cx) { return cx->test ? cx->test : "?"; }

/* ---------------------------------------------------------------- nonlinear terms
 * In an equation, a term nonlinear in the unknowns (a product of two unknowns, a power,
 * a quotient or a function of one) is kept as data: its unknown factors become STATE
 * leaves of the coefficient (the current state), and sema_eq.c turns such monomials into
 * residual terms with their Jacobians. A linear term never meets a STATE leaf, so it
 * takes exactly the linear path. */

static bool p_has_trial(poly a) { return first_trial(a) != NULL; }

static bool p_has_state(poly a)
{
    for (int i = 0; i < a.n; i++)
        if (hdg_expr_has_state(a.m[i].coef)) return true;
    return false;
}

/* m's unknown factor moved into its coefficient as a STATE leaf. */
static bool state_mono(sema *S, mono *m, hdg_loc at)
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
static bool stateify(sema *S, poly *a, hdg_loc at)
{
    if (!p_has_trial(*a)) return true;
    poly r = p_new(S, a->n);
    for (int i = 0; i < a->n; i++) {
        mono m = a->m[i];
        if (!state_mono(S, &m, at)) return false;
        p_put(S, &r, m);
    }
    *a = p_compact(r);
    return true;
}

/* Does a * b need the nonlinear path (in an equation)? */
static bool nonlinear_product(const ectx *cx, poly a, poly b)
{
    if (cx->mode != X_EQUATION) return false;
    bool ta = p_has_trial(a), tb = p_has_trial(b);
    return (ta && (tb || p_has_state(b))) || (tb && p_has_state(a));
}

/* a * b, rejecting products of two test functions (and, outside equations, of two unknowns). */
static bool p_mul(sema *S, const ectx *cx, poly a, poly b, poly *out, hdg_loc at)
{
    if (nonlinear_product(cx, a, b) && !(stateify(S, &a, at) && stateify(S, &b, at))) return false;
    poly r = p_new(S, a.n * b.n);
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
                           test_label(cx), test_label(cx));
                return false;
            }
            mono m = {ex_mul(S->p, x->coef, y->coef), x->trial.id >= 0 ? x->trial : y->trial,
                      x->test.id >= 0 ? x->test : y->test};
            p_put(S, &r, m);
        }
    *out = p_compact(r);
    return true;
}

/* ---------------------------------------------------------------- values */

static val field1(poly a)
{
    val v = {.kind = V_FIELD, .ncomp = 1};
    v.c[0] = a;
    return v;
}

static val field4(poly xx, poly xy, poly yx, poly yy)
{
    val v = {.kind = V_FIELD, .ncomp = 4};
    v.c[0] = xx, v.c[1] = xy, v.c[2] = yx, v.c[3] = yy;
    return v;
}

/* A field of n components c[0..n). */
static val fieldn(int n, const poly *c)
{
    val v = {.kind = V_FIELD, .ncomp = n};
    for (int k = 0; k < n; k++) v.c[k] = c[k];
    return v;
}

/* Shapes by their number of components: 2, 3 a vector (2D, 3D), 4, 9 a matrix (2x2, 3x3). */
static bool is_vec(int ncomp) { return ncomp == 2 || ncomp == 3; }
static bool is_mat(int ncomp) { return ncomp == 4 || ncomp == 9; }
/* The length of a vector, the rows of a matrix: 2 or 3 (1 for a scalar). */
static int vdim(int ncomp) { return ncomp == 2 || ncomp == 4 ? 2 : ncomp == 1 ? 1 : 3; }

static val data1(sema *S, const hdg_expr *e) { return field1(p_data(S, e)); }

bool val_is_data(const val *v)
{
    if (v->kind != V_FIELD) return false;
    for (int c = 0; c < v->ncomp; c++)
        if (first_trial(v->c[c]) || first_test(v->c[c])) return false;
    return true;
}

const hdg_expr *val_data(sema *S, const val *v, int c)
{
    const hdg_expr *e = ex_num(S->p, 0);
    for (int i = 0; i < v->c[c].n; i++) e = ex_add(S->p, e, v->c[c].m[i].coef);
    return e;
}

bool val_is_zero(const val *v)
{
    if (v->kind != V_FIELD || v->ncomp != 1) return false;
    return v->c[0].n == 0;
}

const char *shape_noun(int ncomp) { return is_mat(ncomp) ? "matrix" : is_vec(ncomp) ? "vector" : "scalar"; }

const char *shape_components(int ncomp)
{
    switch (ncomp) {
    case 2: return ".x and .y";
    case 3: return ".x, .y and .z";
    case 4: return ".xx, .xy, .yx and .yy";
    default: return ".xx, .xy, .xz, .yx, .yy, .yz, .zx, .zy and .zz";
    }
}

static const char *shape_name(int ncomp) { return shape_noun(ncomp); }

/* Requires a field (not an integral). */
static bool need_field(sema *S, const val *v, hdg_loc at, const char *where)
{
    if (v->kind == V_ERR) return false;
    if (v->kind == V_FORM) {
        sema_error(S, at, "an integral cannot appear %s", where);
        return false;
    }
    return true;
}

static bool need_scalar(sema *S, const val *v, hdg_loc at, const char *where)
{
    if (!need_field(S, v, at, where)) return false;
    if (v->ncomp != 1) {
        sema_error(S, at, "expected a scalar %s, not a %s", where, shape_name(v->ncomp));
        return false;
    }
    return true;
}

/* A scalar field without unknowns or tests; what says where it is ("inside sin()"). */
static bool need_data(sema *S, const ectx *cx, val *v, hdg_loc at, const char *what)
{
    if (!need_scalar(S, v, at, what)) return false;
    if (cx->mode == X_EQUATION && !stateify(S, &v->c[0], at)) return false;   /* nonlinear: sin(u) */
    const mono *t = first_trial(v->c[0]);
    if (t) {
        sema_error(S, at, "nonlinear in the unknowns: '%s' %s", unknown_label(S, &t->trial), what);
        return false;
    }
    if (first_test(v->c[0])) {
        sema_error(S, at, "the test function '%s' cannot appear %s", test_label(cx), what);
        return false;
    }
    return true;
}

static val v_neg(sema *S, val v)
{
    if (v.kind == V_FIELD)
        for (int c = 0; c < v.ncomp; c++) v.c[c] = p_scale(S, v.c[c], ex_num(S->p, -1));
    if (v.kind == V_FORM) {
        fatom *a = hdg_arena_alloc(S->tmp, (size_t)(v.natoms ? v.natoms : 1) * sizeof(fatom));
        for (int i = 0; i < v.natoms; i++) {
            a[i] = v.atoms[i];
            a[i].m.coef = ex_neg(S->p, a[i].m.coef);
        }
        v.atoms = a;
    }
    return v;
}

static val form_concat(sema *S, val a, val b, int sign)
{
    if (sign < 0) b = v_neg(S, b);
    val r = {.kind = V_FORM, .natoms = a.natoms + b.natoms};
    r.atoms = hdg_arena_alloc(S->tmp, (size_t)(r.natoms ? r.natoms : 1) * sizeof(fatom));
    if (a.natoms) memcpy(r.atoms, a.atoms, (size_t)a.natoms * sizeof(fatom));
    if (b.natoms) memcpy(r.atoms + a.natoms, b.atoms, (size_t)b.natoms * sizeof(fatom));
    return r;
}

static val v_add(sema *S, val a, val b, int sign, hdg_loc at)
{
    if (a.kind == V_ERR || b.kind == V_ERR) return err();
    if (a.kind == V_FIELD && b.kind == V_FIELD) {
        if (a.ncomp != b.ncomp) {
            sema_error(S, at, "cannot %s a %s and a %s", sign > 0 ? "add" : "subtract",
                       shape_name(a.ncomp), shape_name(b.ncomp));
            return err();
        }
        for (int c = 0; c < a.ncomp; c++) a.c[c] = p_add(S, a.c[c], b.c[c], sign);
        return a;
    }
    if (a.kind == V_FORM && b.kind == V_FORM) return form_concat(S, a, b, sign);
    if (a.kind == V_FORM && val_is_zero(&b)) return a;
    if (b.kind == V_FORM && val_is_zero(&a)) return sign > 0 ? b : v_neg(S, b);
    sema_error(S, at, "cannot add an integral and a pointwise expression: every term of an "
                      "equation is an integral (a, b) or <a, b>");
    return err();
}

static val form_scale(sema *S, val f, const hdg_expr *c, bool divide)
{
    fatom *a = hdg_arena_alloc(S->tmp, (size_t)(f.natoms ? f.natoms : 1) * sizeof(fatom));
    for (int i = 0; i < f.natoms; i++) {
        a[i] = f.atoms[i];
        a[i].m.coef = divide ? ex_div(S->p, a[i].m.coef, c) : ex_mul(S->p, c, a[i].m.coef);
    }
    f.atoms = a;
    return f;
}

/* An integral times or over v: v must be a constant (numbers, pi, params). */
static bool const_factor(sema *S, const val *v, hdg_loc at, const hdg_expr **c)
{
    if (v->kind == V_FORM) {
        sema_error(S, at, "cannot multiply or divide two integrals");
        return false;
    }
    if (val_is_data(v) && v->ncomp == 1) {
        *c = val_data(S, v, 0);
        if (ex_is_const(*c)) return true;
    }
    sema_error(S, at, "an integral can only be multiplied or divided by a constant "
                      "(numbers and params); move the factor inside the integral");
    return false;
}

/* a[0]*b[0] + a[sa]*b[sb] (+ a[2 sa]*b[2 sb] when d = 3): one entry of a matrix product or a dot
 * product (sa, sb: the strides), summed left to right. */
static bool p_dotn(sema *S, const ectx *cx, int d, const poly *a, int sa, const poly *b, int sb, poly *out,
                   hdg_loc at)
{
    poly x;
    if (!p_mul(S, cx, a[0], b[0], &x, at)) return false;
    for (int k = 1; k < d; k++) {
        poly y;
        if (!p_mul(S, cx, a[k * sa], b[k * sb], &y, at)) return false;
        x = p_add(S, x, y, 1);
    }
    *out = x;
    return true;
}

/* matrix * vector, vector * matrix (v^T A), matrix * matrix. */
static val mat_mul(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    int d = vdim(a.ncomp);
    if (vdim(b.ncomp) != d) {
        sema_error(S, at, "cannot multiply a %s and a %s of another size", shape_name(a.ncomp),
                   shape_name(b.ncomp));
        return err();
    }
    val r = {.kind = V_FIELD, .ncomp = is_mat(a.ncomp) && is_mat(b.ncomp) ? d * d : d};
    for (int i = 0; i < r.ncomp; i++) {
        bool ok;
        if (r.ncomp == d * d) ok = p_dotn(S, cx, d, &a.c[d * (i / d)], 1, &b.c[i % d], d, &r.c[i], at);
        else if (is_mat(a.ncomp)) ok = p_dotn(S, cx, d, &a.c[d * i], 1, &b.c[0], 1, &r.c[i], at);
        else ok = p_dotn(S, cx, d, &a.c[0], 1, &b.c[i], d, &r.c[i], at);
        if (!ok) return err();
    }
    return r;
}

static val v_mul(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    if (a.kind == V_ERR || b.kind == V_ERR) return err();
    const hdg_expr *c;
    if (a.kind == V_FORM) return const_factor(S, &b, at, &c) ? form_scale(S, a, c, false) : err();
    if (b.kind == V_FORM) return const_factor(S, &a, at, &c) ? form_scale(S, b, c, false) : err();
    if (is_vec(a.ncomp) && is_vec(b.ncomp)) {
        sema_error(S, at, "cannot multiply two vectors: use dot(a, b)");
        return err();
    }
    if (a.ncomp > 1 && b.ncomp > 1) return mat_mul(S, cx, a, b, at);
    val r = {.kind = V_FIELD, .ncomp = a.ncomp > b.ncomp ? a.ncomp : b.ncomp};
    for (int k = 0; k < r.ncomp; k++)
        if (!p_mul(S, cx, a.c[a.ncomp > 1 ? k : 0], b.c[b.ncomp > 1 ? k : 0], &r.c[k], at))
            return err();
    return r;
}

static val v_div(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    if (a.kind == V_ERR || b.kind == V_ERR) return err();
    if (b.kind == V_FORM) {
        sema_error(S, at, "cannot divide by an integral");
        return err();
    }
    if (b.ncomp != 1) {
        sema_error(S, at, "cannot divide by a %s", shape_name(b.ncomp));
        return err();
    }
    if (cx->mode == X_EQUATION && a.kind == V_FIELD && (p_has_trial(b.c[0]) || p_has_state(b.c[0]))) {
        if (!stateify(S, &b.c[0], at)) return err();   /* nonlinear: a / u */
        for (int k = 0; k < a.ncomp; k++)
            if (!stateify(S, &a.c[k], at)) return err();
    }
    const mono *t = first_trial(b.c[0]);
    if (t) {
        sema_error(S, at, "nonlinear in the unknowns: division by '%s'", unknown_label(S, &t->trial));
        return err();
    }
    if (first_test(b.c[0])) {
        sema_error(S, at, "the test function '%s' cannot be in a denominator", test_label(cx));
        return err();
    }
    const hdg_expr *c = val_data(S, &b, 0);
    if (a.kind == V_FORM) {
        if (!ex_is_const(c)) return const_factor(S, &b, at, &c), err();
        return form_scale(S, a, c, true);
    }
    for (int k = 0; k < a.ncomp; k++) a.c[k] = p_divide(S, a.c[k], c);
    return a;
}

static val v_pow(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    if (!need_scalar(S, &a, at, "as the base of a power") ||
        !need_data(S, cx, &b, at, "in an exponent"))
        return err();
    const hdg_expr *e = val_data(S, &b, 0);
    if (hdg_expr_is_num(e, 1)) return a;
    if (cx->mode == X_EQUATION && !stateify(S, &a.c[0], at)) return err();   /* nonlinear: u^2 */
    const mono *t = first_trial(a.c[0]);
    if (t) {
        sema_error(S, at, "nonlinear in the unknowns: power of '%s'", unknown_label(S, &t->trial));
        return err();
    }
    if (first_test(a.c[0])) {
        sema_error(S, at, "the test function '%s' cannot be raised to a power", test_label(cx));
        return err();
    }
    return data1(S, ex_pow(S->p, val_data(S, &a, 0), e));
}

/* ---------------------------------------------------------------- derivatives */

static bool diff_fac(sema *S, const ectx *cx, fac *f, bool trial, hdg_op op, hdg_loc at)
{
    if (trial) {
        const hdg_unknown *u = &S->p->unknowns[f->id];
        if (cx->mode == X_EXT) {
            sema_error(S, at, "derivatives of unknowns are not allowed in an exterior state");
            return false;
        }
        if (u->trace) {
            sema_error(S, at, "cannot differentiate the trace unknown '%s': it lives on faces", u->name);
            return false;
        }
        if (f->dt) {
            sema_error(S, at, "a space derivative of dt() is not supported");
            return false;
        }
        if (f->side == HDG_SIDE_EXTERIOR) {
            sema_error(S, at, "cannot differentiate an exterior value (ext, jump, avg)");
            return false;
        }
    } else if (cx->test_trace) {
        sema_error(S, at, "cannot differentiate the test function '%s' of a trace space", test_label(cx));
        return false;
    }
    if (f->op != HDG_OP_VALUE) {
        sema_error(S, at, "second derivatives are not supported");
        return false;
    }
    f->op = op;
    return true;
}

/* A nonlinear term's STATE leaves may be differentiated in space once: values of element unknowns on
 * the interior side (as diff_fac asks of an unknown factor). */
static bool state_diff_ok(sema *S, const ectx *cx, const hdg_expr *e, hdg_var var, hdg_loc at)
{
    if (e->kind == HDG_EX_STATE) {
        fac f = {e->index, e->comp, (hdg_op)e->op, (hdg_side)e->side, false};
        if (var == HDG_VAR_T) {
            sema_error(S, at, "dt() of a nonlinear term ('%s'): a time derivative must appear linearly, as in "
                       "(dt(u), v)", unknown_label(S, &f));
            return false;
        }
        return diff_fac(S, cx, &f, true, HDG_OP_DX, at);
    }
    for (int i = 0; i < e->nkids; i++)
        if (!state_diff_ok(S, cx, e->kid[i], var, at)) return false;
    return true;
}

static bool diff_poly(sema *S, const ectx *cx, poly a, hdg_var var, poly *out, hdg_loc at)
{
    poly r = p_new(S, 3 * a.n);
    hdg_op op = var == HDG_VAR_X ? HDG_OP_DX : var == HDG_VAR_Y ? HDG_OP_DY : HDG_OP_DZ;
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        if (!state_diff_ok(S, cx, m.coef, var, at)) return false;
        const hdg_expr *dc = hdg_expr_diff(S->p, m.coef, var);
        if (!dc) {
            sema_error(S, at, "expression too large to differentiate");
            return false;
        }
        if (!hdg_expr_is_num(dc, 0)) p_put(S, &r, (mono){dc, m.trial, m.test});
        if (m.trial.id >= 0) {
            mono t = m;
            if (!diff_fac(S, cx, &t.trial, true, op, at)) return false;
            p_put(S, &r, t);
        }
        if (m.test.id >= 0) {
            mono t = m;
            if (!diff_fac(S, cx, &t.test, false, op, at)) return false;
            p_put(S, &r, t);
        }
    }
    *out = p_compact(r);
    return true;
}

static val v_diff(sema *S, const ectx *cx, val a, hdg_var var, hdg_loc at)
{
    val r = a;
    for (int c = 0; c < a.ncomp; c++)
        if (!diff_poly(S, cx, a.c[c], var, &r.c[c], at)) return err();
    return r;
}

/* ---------------------------------------------------------------- names */

static val test_value(sema *S, const ectx *cx)
{
    val v = {.kind = V_FIELD, .ncomp = cx->test_ncomp};
    for (int c = 0; c < v.ncomp; c++) {
        v.c[c] = p_new(S, 1);
        fac t = {cx->test_id, c, HDG_OP_VALUE, HDG_SIDE_NONE, false};
        v.c[c].m[v.c[c].n++] = (mono){ex_num(S->p, 1), NOFAC, t};
    }
    return v;
}

static val unknown_value(sema *S, int id)
{
    const hdg_unknown *u = &S->p->unknowns[id];
    val v = {.kind = V_FIELD, .ncomp = u->ncomp};
    for (int c = 0; c < v.ncomp; c++) {
        v.c[c] = p_new(S, 1);
        fac t = {id, c, HDG_OP_VALUE, u->trace ? HDG_SIDE_NONE : HDG_SIDE_INTERIOR, false};
        v.c[c].m[v.c[c].n++] = (mono){ex_num(S->p, 1), t, NOFAC};
    }
    return v;
}

static bool normals_ok(sema *S, const ectx *cx, const char *name, hdg_loc at)
{
    if (cx->normals) return true;
    sema_error(S, at, "the normal '%s' is only defined on faces: use it inside <a, b> "
                      "or in a boundary condition", name);
    return false;
}

static bool coord_ok(sema *S, const ectx *cx, hdg_var v, hdg_loc at)
{
    if (cx->coords & (1u << v)) return true;
    if (!cx->coords)
        sema_error(S, at, "'%s' cannot be used in %s: it must be a constant", hdg_var_name(v), cx->where);
    else
        sema_error(S, at, "'%s' is not an argument of %s", hdg_var_name(v), cx->where);
    return false;
}

static bool ready(sema *S, const symbol *s, const char *kind, hdg_loc at)
{
    if (s->ready) return true;
    if (!s->failed)
        sema_error(S, at, "%s '%s' is used before its definition (at %d:%d)", kind, s->name,
                   s->loc.line, s->loc.col);
    return false;
}

static val func_value(sema *S, const ectx *cx, int fi, const hdg_expr *const *args)
{
    const hdg_func *f = &S->p->funcs[fi];
    val v = {.kind = V_FIELD, .ncomp = f->ncomp};
    for (int c = 0; c < f->ncomp; c++) v.c[c] = p_data(S, ex_call(S->p, fi, c, f->nargs, args));
    (void)cx;
    return v;
}

static val flux_value(sema *S, const ectx *cx, symbol *s, hdg_loc at)
{
    flux_def *fl = &S->fluxes[s->index];
    if (cx->mode != X_EQUATION) {
        sema_error(S, at, "flux '%s' can only be used in equations", fl->name);
        return err();
    }
    if (fl->visiting) {
        sema_error(S, at, "flux '%s' is defined in terms of itself", fl->name);
        return err();
    }
    if (cx->flux_depth >= 64) {
        sema_error(S, at, "fluxes nested too deeply (more than 64 levels)");
        return err();
    }
    if (cx->integral == 2 && cx->test_trace && cx->eq >= 0) {   /* for neumann conditions */
        if (fl->trace_eq < 0) fl->trace_eq = cx->eq, fl->trace_eqs = 1;
        else if (fl->trace_eq != cx->eq) fl->trace_eqs = 2;
    }
    ectx sub = *cx;
    sub.flux_depth++;
    fl->visiting = 1;
    val v = expand(S, &sub, fl->body);
    fl->visiting = 0;
    if (v.kind == V_FIELD) fl->ncomp = v.ncomp;
    if (v.kind == V_FORM) {
        sema_error(S, fl->loc, "flux '%s' is a pointwise expression: it cannot contain integrals", fl->name);
        return err();
    }
    return v;
}

static val name_value(sema *S, const ectx *cx, const ast *a)
{
    if (cx->test && !strcmp(a->name, cx->test)) return test_value(S, cx);
    symbol *s = sema_lookup(S, a->name);
    if (s && s->failed) return err();   /* its definition was already reported */
    if (!s) {
        if (sema_3d_only(S, a->name, a->loc)) return err();
        const char *near = sema_suggest(S, a->name, cx->test, SUGGEST_VALUE);
        if (near) sema_error(S, a->loc, "undefined name '%s'; did you mean '%s'?", a->name, near);
        else sema_error(S, a->loc, "undefined name '%s'", a->name);
        return err();
    }
    hdg_problem *p = S->p;
    switch (s->kind) {
    case SYM_PI: return data1(S, ex_leaf(p, HDG_EX_PI, 0));
    case SYM_COORD:
        if (!coord_ok(S, cx, (hdg_var)s->index, a->loc)) return err();
        return data1(S, ex_leaf(p, HDG_EX_COORD, s->index));
    case SYM_NORMAL:
        if (!normals_ok(S, cx, s->name, a->loc)) return err();
        return data1(S, ex_leaf(p, HDG_EX_NORMAL, s->index));
    case SYM_VNORMAL: {
        if (!normals_ok(S, cx, s->name, a->loc)) return err();
        poly c[3];
        for (int k = 0; k < p->dim; k++) c[k] = p_data(S, ex_leaf(p, HDG_EX_NORMAL, k));
        return fieldn(p->dim, c);
    }
    case SYM_FN: case SYM_OP:
        sema_error(S, a->loc, "'%s' is a function: call it as %s(...)", s->name, s->name);
        return err();
    case SYM_DEGREE: return data1(S, ex_num(p, p->degree));
    case SYM_PARAM:
        if (!ready(S, s, "param", a->loc)) return err();
        return data1(S, ex_leaf(p, HDG_EX_PARAM, s->index));
    case SYM_FUNC: {
        if (!ready(S, s, "func", a->loc)) return err();
        const hdg_func *f = &p->funcs[s->index];
        const hdg_expr *args[HDG_NVARS];
        for (int i = 0; i < f->nargs; i++) {
            if (!(cx->coords & (1u << f->args[i]))) {
                sema_error(S, a->loc, "func '%s' depends on %s, which is not available in %s",
                           f->name, hdg_var_name(f->args[i]), cx->where);
                return err();
            }
            args[i] = ex_leaf(p, HDG_EX_COORD, f->args[i]);
        }
        return func_value(S, cx, s->index, args);
    }
    case SYM_SPACE:
        sema_error(S, a->loc, "'%s' is a space, not a value", s->name);
        return err();
    case SYM_UNKNOWN:
        if (cx->mode == X_DATA && cx->bc_trace && !p->unknowns[s->index].trace) {
            sema_error(S, a->loc, "the %s unknown '%s' cannot be used in %s: a neumann condition is linear "
                       "in trace unknowns only (a Robin condition, as in 'qn = alpha*uhat - g')",
                       p->unknowns[s->index].post ? "post-processed" : "element", s->name, cx->where);
            return err();
        }
        if (cx->mode == X_DATA && !cx->bc_trace) {
            sema_error(S, a->loc, "the unknown '%s' cannot be used in %s", s->name, cx->where);
            return err();
        }
        return unknown_value(S, s->index);
    case SYM_FLUX: return flux_value(S, cx, s, a->loc);
    }
    return err();
}

/* ---------------------------------------------------------------- calls */

static const char *kind_noun(sym_kind k)
{
    switch (k) {
    case SYM_PI: return "a constant";
    case SYM_COORD: return "a coordinate";
    case SYM_NORMAL: case SYM_VNORMAL: return "the normal";
    case SYM_DEGREE: return "the degree";
    case SYM_PARAM: return "a param";
    case SYM_SPACE: return "a space";
    case SYM_UNKNOWN: return "an unknown";
    case SYM_FLUX: return "a flux";
    default: return "a function";
    }
}

static bool arity(sema *S, const ast *a, int n)
{
    if (a->nargs == n) return true;
    sema_error(S, a->loc, "%s() takes %d argument%s, not %d", a->name, n, n == 1 ? "" : "s", a->nargs);
    return false;
}

/* ext() of a nonlinear term: its STATE leaves on the exterior side. */
static bool ext_state(sema *S, mono *m, const char *op, hdg_loc at)
{
    for (int u = 0; u < S->p->nunknowns; u++)
        if (S->p->unknowns[u].trace && ex_mentions_unknown(m->coef, u)) {
            sema_error(S, at, "%s() of the trace unknown '%s': trace unknowns are single-valued on faces", op,
                       S->p->unknowns[u].name);
            return false;
        }
    const hdg_expr *e = ex_state_exterior(S->p, m->coef);
    if (!e) {
        sema_error(S, at, "%s() must apply to unknowns directly (not to ext, dt or derivatives)", op);
        return false;
    }
    m->coef = e;
    return true;
}

/* ext() of every monomial: the exterior trace of the unknowns (in a nonlinear term, of its
 * state), other data unchanged. */
static bool ext_poly(sema *S, const ectx *cx, poly a, poly *out, const char *op, hdg_loc at)
{
    poly r = p_new(S, a.n);
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        if (m.test.id >= 0) {
            sema_error(S, at, "the test function '%s' cannot be inside %s()", test_label(cx), op);
            return false;
        }
        if (m.trial.id >= 0) {
            if (S->p->unknowns[m.trial.id].trace) {
                sema_error(S, at, "%s() of the trace unknown '%s': trace unknowns are single-valued on faces",
                           op, S->p->unknowns[m.trial.id].name);
                return false;
            }
            if (m.trial.side == HDG_SIDE_EXTERIOR || m.trial.dt || m.trial.op != HDG_OP_VALUE) {
                sema_error(S, at, "%s() must apply to unknowns directly (not to ext, dt or derivatives)", op);
                return false;
            }
            m.trial.side = HDG_SIDE_EXTERIOR;
        }
        if (hdg_expr_has_state(m.coef) && !ext_state(S, &m, op, at)) return false;
        p_put(S, &r, m);
    }
    *out = p_compact(r);
    return true;
}

static val op_ext(sema *S, const ectx *cx, const ast *a, int op)
{
    static const char *names[] = {[OP_JUMP] = "jump", [OP_AVG] = "avg", [OP_EXT] = "ext"};
    const char *name = names[op];
    if (!arity(S, a, 1)) return err();
    if (cx->mode != X_EQUATION) {
        sema_error(S, a->loc, "%s() can only be used in the boundary integrals of equations", name);
        return err();
    }
    if (cx->hdg) {
        sema_error(S, a->loc, "%s() in an HDG problem: HDG elements couple only through trace unknowns",
                   name);
        return err();
    }
    if (cx->integral != 2) {
        sema_error(S, a->loc, "%s() can only be used in boundary integrals <a, b>", name);
        return err();
    }
    val v = expand(S, cx, a->args[0]);
    if (!need_field(S, &v, a->loc, "inside ext(), jump() or avg()")) return err();
    val e = v;
    for (int c = 0; c < v.ncomp; c++)
        if (!ext_poly(S, cx, v.c[c], &e.c[c], name, a->loc)) return err();
    if (op == OP_EXT) return e;
    val r = v;
    for (int c = 0; c < v.ncomp; c++) {
        r.c[c] = p_add(S, v.c[c], e.c[c], op == OP_JUMP ? -1 : 1);
        if (op == OP_AVG) r.c[c] = p_scale(S, r.c[c], ex_num(S->p, 0.5));
    }
    return r;
}

static val op_dt(sema *S, const ectx *cx, const ast *a)
{
    if (!arity(S, a, 1)) return err();
    if (cx->mode == X_EQUATION && cx->hdg && cx->test_trace) {
        sema_error(S, a->loc, "dt() in the equation of a trace test function ('%s'): in HDG only element "
                              "unknowns have a time derivative, in their element equations", test_label(cx));
        return err();
    }
    val v = expand(S, cx, a->args[0]);
    if (!need_field(S, &v, a->loc, "inside dt()")) return err();
    for (int c = 0; c < v.ncomp; c++) {
        poly r = p_new(S, v.c[c].n);
        for (int i = 0; i < v.c[c].n; i++) {
            mono m = v.c[c].m[i];
            if (m.test.id >= 0) {
                sema_error(S, a->loc, "the test function '%s' cannot be inside dt()", test_label(cx));
                return err();
            }
            if (m.trial.id < 0) {   /* data: the derivative in t, symbolically */
                if (!state_diff_ok(S, cx, m.coef, HDG_VAR_T, a->loc)) return err();
                const hdg_expr *dc = hdg_expr_diff(S->p, m.coef, HDG_VAR_T);
                if (!dc) {
                    sema_error(S, a->loc, "expression too large to differentiate");
                    return err();
                }
                if (!hdg_expr_is_num(dc, 0)) r.m[r.n++] = (mono){dc, m.trial, m.test};
                continue;
            }
            if (m.trial.dt || m.trial.op != HDG_OP_VALUE || m.trial.side == HDG_SIDE_EXTERIOR) {
                sema_error(S, a->loc, "dt() must apply to unknowns directly (not to derivatives or ext)");
                return err();
            }
            const hdg_unknown *x = &S->p->unknowns[m.trial.id];
            if (x->trace || x->post) {
                sema_error(S, a->loc, "dt() of the %s unknown '%s': only element unknowns have a time "
                                      "derivative", x->trace ? "trace" : "post-processed", x->name);
                return err();
            }
            if (hdg_expr_depends(m.coef, HDG_VAR_T)) {
                sema_error(S, a->loc, "dt() of a time-dependent coefficient is not supported");
                return err();
            }
            m.trial.dt = true;
            r.m[r.n++] = m;
        }
        v.c[c] = r;
    }
    return v;
}

static const hdg_var AXES[3] = {HDG_VAR_X, HDG_VAR_Y, HDG_VAR_Z};

/* sum_j d v_j / d x_j of a vector v (d components), summed left to right (every derivative is
 * taken, so each reports its own error). */
static val op_div_rows(sema *S, const ectx *cx, val v, hdg_loc at)
{
    val r = v_diff(S, cx, field1(v.c[0]), HDG_VAR_X, at);
    for (int j = 1; j < v.ncomp; j++) {
        val dj = v_diff(S, cx, field1(v.c[j]), AXES[j], at);
        r = v_add(S, r, dj, 1, at);
    }
    return r;
}

/* Refuses unknowns and tests in the matrix of inv(). */
static bool inv_data(sema *S, const ectx *cx, const val *v, const ast *a)
{
    for (int c = 0; c < v->ncomp; c++) {
        const mono *t = first_trial(v->c[c]);
        if (t) {
            sema_error(S, a->loc, "inv() needs a matrix of data (numbers, params, funcs), not of the "
                       "unknown '%s'", unknown_label(S, &t->trial));
            return false;
        }
        if (first_test(v->c[c])) {
            sema_error(S, a->loc, "the test function '%s' cannot be inside inv()", test_label(cx));
            return false;
        }
    }
    return true;
}

/* The cofactors of a 3x3 matrix of data: cof[3 i + j] = (-1)^(i+j) minor_ij. */
static void cofactors3(hdg_problem *p, const hdg_expr *const *m, const hdg_expr **cof)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int r0 = (i + 1) % 3, r1 = (i + 2) % 3, c0 = (j + 1) % 3, c1 = (j + 2) % 3;
            cof[3 * i + j] = ex_sub(p, ex_mul(p, m[3 * r0 + c0], m[3 * r1 + c1]),
                                    ex_mul(p, m[3 * r0 + c1], m[3 * r1 + c0]));
        }
}

/* inv(A) = adj(A) / det(A) of a matrix of data (symbolic: works for variable coefficients). */
static val matrix_inv(sema *S, const ectx *cx, val v, const ast *a)
{
    if (!inv_data(S, cx, &v, a)) return err();
    hdg_problem *p = S->p;
    const hdg_expr *m[9], *cof[9] = {NULL}, *det;
    for (int c = 0; c < v.ncomp; c++) m[c] = val_data(S, &v, c);
    if (v.ncomp == 4) {
        det = ex_sub(p, ex_mul(p, m[0], m[3]), ex_mul(p, m[1], m[2]));
    } else {
        cofactors3(p, m, cof);   /* the cyclic minors carry their signs */
        det = ex_add(p, ex_add(p, ex_mul(p, m[0], cof[0]), ex_mul(p, m[1], cof[1])), ex_mul(p, m[2], cof[2]));
    }
    if (hdg_expr_is_num(det, 0)) {
        sema_error(S, a->loc, "inv() of a singular matrix (its determinant is 0)");
        return err();
    }
    if (v.ncomp == 4)
        return field4(p_data(S, ex_div(p, m[3], det)), p_data(S, ex_div(p, ex_neg(p, m[1]), det)),
                      p_data(S, ex_div(p, ex_neg(p, m[2]), det)), p_data(S, ex_div(p, m[0], det)));
    poly r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r[3 * i + j] = p_data(S, ex_div(p, cof[3 * j + i], det));
    return fieldn(9, r);
}

/* det() of a 3x3 matrix (entries may hold one unknown or the test between them: linear terms only). */
static bool det3(sema *S, const ectx *cx, const val *v, poly *out, hdg_loc at)
{
    poly acc = p_new(S, 0);
    for (int j = 0; j < 3; j++) {   /* expansion along row 0, cyclic minors */
        int c0 = (j + 1) % 3, c1 = (j + 2) % 3;
        poly a, b, minor, term;
        if (!p_mul(S, cx, v->c[3 + c0], v->c[6 + c1], &a, at) || !p_mul(S, cx, v->c[3 + c1], v->c[6 + c0], &b, at))
            return false;
        minor = p_add(S, a, b, -1);
        if (!p_mul(S, cx, v->c[j], minor, &term, at)) return false;
        acc = p_add(S, acc, term, 1);
    }
    *out = acc;
    return true;
}

/* transpose(), inv(), det(), trace() of a 2x2 or 3x3 matrix. */
static val matrix_op(sema *S, const ectx *cx, val v, int op, const ast *a)
{
    if (!is_mat(v.ncomp)) {
        sema_error(S, a->loc, "%s() needs a matrix, not a %s", a->name, shape_name(v.ncomp));
        return err();
    }
    int d = vdim(v.ncomp);
    switch (op) {
    case OP_TRANSPOSE: {
        if (d == 2) return field4(v.c[0], v.c[2], v.c[1], v.c[3]);
        poly r[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) r[3 * i + j] = v.c[3 * j + i];
        return fieldn(9, r);
    }
    case OP_TRACE: {
        poly r = p_add(S, v.c[0], v.c[d + 1], 1);
        if (d == 3) r = p_add(S, r, v.c[8], 1);
        return field1(r);
    }
    case OP_DET: {
        if (d == 3) {
            poly r;
            return det3(S, cx, &v, &r, a->loc) ? field1(r) : err();
        }
        poly ad, bc;
        if (!p_mul(S, cx, v.c[0], v.c[3], &ad, a->loc) || !p_mul(S, cx, v.c[1], v.c[2], &bc, a->loc))
            return err();
        return field1(p_add(S, ad, bc, -1));
    }
    default: return matrix_inv(S, cx, v, a);
    }
}

/* grad() of a scalar (a vector) or of a vector (the matrix (grad v)_ij = d v_i / d x_j). */
static val op_grad(sema *S, const ectx *cx, val v, hdg_loc at)
{
    if (is_mat(v.ncomp)) {
        sema_error(S, at, "grad() needs a scalar or a vector, not a matrix");
        return err();
    }
    int d = S->p->dim;
    val g[3];
    for (int j = 0; j < d; j++) {
        g[j] = v_diff(S, cx, v, AXES[j], at);
        if (g[j].kind == V_ERR) return err();
    }
    poly r[9];
    for (int i = 0; i < v.ncomp; i++)
        for (int j = 0; j < d; j++) r[d * i + j] = g[j].c[i];
    return fieldn(v.ncomp * d, r);
}

/* div() of a vector (a scalar) or of a matrix, row by row: (div A)_i = sum_j d A_ij / d x_j. */
static val op_divergence(sema *S, const ectx *cx, val v, hdg_loc at)
{
    if (v.ncomp == 1) {
        sema_error(S, at, "div() needs a vector or a matrix, not a scalar");
        return err();
    }
    if (is_vec(v.ncomp)) return op_div_rows(S, cx, v, at);
    int d = vdim(v.ncomp);
    poly r[3];
    bool ok = true;
    for (int i = 0; i < d; i++) {
        val ri = op_div_rows(S, cx, fieldn(d, &v.c[d * i]), at);
        if (ri.kind == V_ERR) ok = false;
        else r[i] = ri.c[0];
    }
    return ok ? fieldn(d, r) : err();
}

/* curl() of a 3-vector: (dy v_z - dz v_y, dz v_x - dx v_z, dx v_y - dy v_x). */
static val op_curl(sema *S, const ectx *cx, val v, hdg_loc at)
{
    if (v.ncomp != 3) {
        sema_error(S, at, "curl() needs a vector (3 components), not a %s", shape_name(v.ncomp));
        return err();
    }
    poly r[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;   /* (curl v)_i = d v_k / d x_j - d v_j / d x_k */
        val a = v_diff(S, cx, field1(v.c[k]), AXES[j], at);
        if (a.kind == V_ERR) return err();
        val b = v_diff(S, cx, field1(v.c[j]), AXES[k], at);
        if (b.kind == V_ERR) return err();
        r[i] = p_add(S, a.c[0], b.c[0], -1);
    }
    return fieldn(3, r);
}

/* dot(), cross(), outer() of two vectors. */
static val vector_op(sema *S, const ectx *cx, val v, val w, int op, const ast *a)
{
    static const char *need[] = {[OP_DOT] = "dot() needs two vectors",
                                 [OP_CROSS] = "cross() needs two vectors of 3 components",
                                 [OP_OUTER] = "outer() needs two vectors"};
    int d = vdim(v.ncomp);
    if (!is_vec(v.ncomp) || v.ncomp != w.ncomp || (op == OP_CROSS && d != 3)) {
        sema_error(S, a->loc, "%s", need[op]);
        return err();
    }
    if (op == OP_DOT) {
        poly r;
        return p_dotn(S, cx, d, v.c, 1, w.c, 1, &r, a->loc) ? field1(r) : err();
    }
    poly r[9];
    for (int i = 0; i < (op == OP_CROSS ? 3 : d * d); i++) {
        if (op == OP_OUTER) {
            if (!p_mul(S, cx, v.c[i / d], w.c[i % d], &r[i], a->loc)) return err();
            continue;
        }
        int j = (i + 1) % 3, k = (i + 2) % 3;   /* (v x w)_i = v_j w_k - v_k w_j */
        poly x, y;
        if (!p_mul(S, cx, v.c[j], w.c[k], &x, a->loc) || !p_mul(S, cx, v.c[k], w.c[j], &y, a->loc)) return err();
        r[i] = p_add(S, x, y, -1);
    }
    return fieldn(op == OP_CROSS ? 3 : d * d, r);
}

static bool two_args(int op) { return op == OP_DOT || op == OP_CROSS || op == OP_OUTER; }

static val op_call(sema *S, const ectx *cx, const ast *a, int op)
{
    if (op == OP_DT) return op_dt(S, cx, a);
    if (op == OP_JUMP || op == OP_AVG || op == OP_EXT) return op_ext(S, cx, a, op);
    if (!arity(S, a, two_args(op) ? 2 : 1)) return err();
    char where[64];
    snprintf(where, sizeof where, "inside %s()", a->name);
    val v = expand(S, cx, a->args[0]);
    if (!need_field(S, &v, a->loc, where)) return err();
    switch (op) {
    case OP_GRAD: return op_grad(S, cx, v, a->loc);
    case OP_DIV: return op_divergence(S, cx, v, a->loc);
    case OP_CURL: return op_curl(S, cx, v, a->loc);
    case OP_TRANSPOSE: case OP_INV: case OP_DET: case OP_TRACE: return matrix_op(S, cx, v, op, a);
    case OP_DX: return v_diff(S, cx, v, HDG_VAR_X, a->loc);
    case OP_DY: return v_diff(S, cx, v, HDG_VAR_Y, a->loc);
    case OP_DZ: return v_diff(S, cx, v, HDG_VAR_Z, a->loc);
    case OP_DOT: case OP_CROSS: case OP_OUTER: {
        val w = expand(S, cx, a->args[1]);
        if (!need_field(S, &w, a->loc, where)) return err();
        return vector_op(S, cx, v, w, op, a);
    }
    }
    return err();
}

static val user_call(sema *S, const ectx *cx, const ast *a, symbol *s)
{
    if (!ready(S, s, "func", a->loc)) return err();
    const hdg_func *f = &S->p->funcs[s->index];
    if (a->nargs != f->nargs) {
        sema_error(S, a->loc, "func '%s' takes %d argument%s, not %d", f->name, f->nargs,
                   f->nargs == 1 ? "" : "s", a->nargs);
        return err();
    }
    const hdg_expr *args[HDG_NVARS];
    char where[300];
    snprintf(where, sizeof where, "in a call of func '%s'", f->name);
    for (int i = 0; i < a->nargs; i++) {
        val v = expand(S, cx, a->args[i]);
        if (v.kind == V_ERR || !need_data(S, cx, &v, a->args[i]->loc, where)) return err();
        args[i] = val_data(S, &v, 0);
    }
    return func_value(S, cx, s->index, args);
}

static val call_value(sema *S, const ectx *cx, const ast *a)
{
    if (cx->test && !strcmp(a->name, cx->test)) {
        sema_error(S, a->loc, "'%s' is a test function, not a function", a->name);
        return err();
    }
    symbol *s = sema_lookup(S, a->name);
    if (!s) {
        if (sema_3d_only(S, a->name, a->loc)) return err();
        const char *near = sema_suggest(S, a->name, NULL, SUGGEST_CALL);
        if (near) sema_error(S, a->loc, "undefined function '%s'; did you mean '%s'?", a->name, near);
        else sema_error(S, a->loc, "undefined function '%s'", a->name);
        return err();
    }
    if (s->failed) return err();
    if (s->kind == SYM_OP) return op_call(S, cx, a, s->index);
    if (s->kind == SYM_FUNC) return user_call(S, cx, a, s);
    if (s->kind != SYM_FN) {
        sema_error(S, a->loc, "'%s' is %s, not a function", a->name, kind_noun(s->kind));
        return err();
    }
    if (!arity(S, a, 1)) return err();
    char where[64];
    snprintf(where, sizeof where, "inside %s()", a->name);
    val v = expand(S, cx, a->args[0]);
    if (v.kind == V_ERR || !need_data(S, cx, &v, a->loc, where)) return err();
    return data1(S, ex_builtin(S->p, (hdg_builtin)s->index, val_data(S, &v, 0)));
}

/* ---------------------------------------------------------------- integrals, if, vectors */

/* A trace unknown among the STATE leaves of e (-1: none). */
static int state_trace_unknown(sema *S, const hdg_expr *e)
{
    for (int u = 0; u < S->p->nunknowns; u++)
        if (S->p->unknowns[u].trace && ex_mentions_unknown(e, u)) return u;
    return -1;
}

static val integral(sema *S, const ectx *cx, const ast *a)
{
    bool bnd = a->kind == AST_BINT;
    if (cx->mode != X_EQUATION) {
        sema_error(S, a->loc, "integrals (a, b) and <a, b> can only appear in equations");
        return err();
    }
    if (cx->integral) {
        sema_error(S, a->loc, "an integral inside an integral");
        return err();
    }
    ectx sub = *cx;
    sub.integral = bnd ? 2 : 1;
    sub.normals = bnd;
    val l = expand(S, &sub, a->a);
    val r = expand(S, &sub, a->b);
    if (l.kind == V_ERR || r.kind == V_ERR) return err();
    if (l.ncomp != r.ncomp) {
        sema_error(S, a->loc, "the two sides of %s have different shapes: a %s and a %s",
                   bnd ? "<a, b>" : "(a, b)", shape_name(l.ncomp), shape_name(r.ncomp));
        return err();
    }
    poly acc = p_new(S, 0);
    for (int c = 0; c < l.ncomp; c++) {
        poly prod;
        if (!p_mul(S, cx, l.c[c], r.c[c], &prod, a->loc)) return err();
        acc = p_add(S, acc, prod, 1);
    }
    val f = {.kind = V_FORM, .natoms = acc.n};
    f.atoms = hdg_arena_alloc(S->tmp, (size_t)(acc.n ? acc.n : 1) * sizeof(fatom));
    for (int i = 0; i < acc.n; i++) {
        mono *m = &acc.m[i];
        if (m->trial.id >= 0 && hdg_expr_has_state(m->coef) && !state_mono(S, m, a->loc))   /* if(u > 0, u, 0) */
            return err();
        if (m->test.id < 0) {
            sema_error(S, a->loc, "no test function in a term: every term of this equation must "
                                  "contain '%s'", test_label(cx));
            return err();
        }
        if (!bnd && m->trial.id >= 0 && S->p->unknowns[m->trial.id].trace) {
            sema_error(S, a->loc, "trace unknown '%s' in a volume integral: trace unknowns live on "
                                  "faces, use <a, b>", S->p->unknowns[m->trial.id].name);
            return err();
        }
        int tu = bnd ? -1 : state_trace_unknown(S, m->coef);
        if (tu >= 0) {
            sema_error(S, a->loc, "trace unknown '%s' in a volume integral: trace unknowns live on "
                                  "faces, use <a, b>", S->p->unknowns[tu].name);
            return err();
        }
        if (!bnd && cx->test_trace) {
            sema_error(S, a->loc, "test function '%s' of a trace space in a volume integral: use <a, b>",
                       test_label(cx));
            return err();
        }
        if (bnd && m->trial.dt) {
            sema_error(S, a->loc, "dt() in a boundary integral: the time derivative term is (dt(u), v)");
            return err();
        }
        f.atoms[i] = (fatom){*m, bnd ? HDG_BOUNDARY : HDG_VOLUME, a->loc};
    }
    return f;
}

static val if_value(sema *S, const ectx *cx, const ast *a)
{
    const ast *c = a->a;
    val l = expand(S, cx, c->a), r = expand(S, cx, c->b);
    if (l.kind == V_ERR || r.kind == V_ERR) return err();
    if (!need_data(S, cx, &l, c->loc, "in a condition") || !need_data(S, cx, &r, c->loc, "in a condition"))
        return err();
    const hdg_expr *cond = ex_cmp(S->p, (hdg_cmp)c->op, val_data(S, &l, 0), val_data(S, &r, 0));
    val x = expand(S, cx, a->b), y = expand(S, cx, a->c);
    if (!need_field(S, &x, a->loc, "in if()") || !need_field(S, &y, a->loc, "in if()")) return err();
    if (x.ncomp != y.ncomp) {
        sema_error(S, a->loc, "the branches of if() have different shapes: a %s and a %s",
                   shape_name(x.ncomp), shape_name(y.ncomp));
        return err();
    }
    val v = x;
    hdg_problem *p = S->p;
    const hdg_expr *zero = ex_num(p, 0);
    for (int k = 0; k < x.ncomp; k++) {
        if (val_is_data(&x) && val_is_data(&y)) {   /* if(c, a, b) */
            v.c[k] = p_data(S, ex_if(p, cond, val_data(S, &x, k), val_data(S, &y, k)));
            continue;
        }
        poly px = p_new(S, x.c[k].n), py = p_new(S, y.c[k].n);   /* if(c, 1, 0) a + if(c, 0, 1) b */
        for (int i = 0; i < x.c[k].n; i++) {
            mono m = x.c[k].m[i];
            m.coef = ex_if(p, cond, m.coef, zero);
            px.m[px.n++] = m;
        }
        for (int i = 0; i < y.c[k].n; i++) {
            mono m = y.c[k].m[i];
            m.coef = ex_if(p, cond, zero, m.coef);
            py.m[py.n++] = m;
        }
        v.c[k] = p_add(S, px, py, 1);
    }
    return v;
}

/* Refuses a bracket whose number of entries is not the file's dimension. */
static bool bracket_size(sema *S, const ast *a, int n)
{
    int d = S->p->dim;
    if (n == d) return true;
    if (d == 2)
        sema_error(S, a->loc, "[a, b, c] needs 'mesh tetrahedron': this file is two-dimensional (mesh triangle), "
                              "its vectors are [a, b]");
    else
        sema_error(S, a->loc, "[a, b] is two-dimensional: in a file with 'mesh tetrahedron' a vector has 3 "
                              "entries, [a, b, c] (a matrix 3 rows, [[a, b, c], [d, e, f], [g, h, i]])");
    return false;
}

/* [a, b] (2D), [a, b, c] (3D): a vector of scalars, or a matrix by rows [[a, b], [c, d]]. */
static val bracket_value(sema *S, const ectx *cx, const ast *a)
{
    const ast *ent[3] = {a->a, a->b, a->c};
    int n = a->c ? 3 : 2;
    if (!bracket_size(S, a, n)) return err();
    val x[3];
    for (int k = 0; k < n; k++) {
        x[k] = expand(S, cx, ent[k]);
        if (x[k].kind == V_ERR || !need_field(S, &x[k], a->loc, n == 2 ? "in [a, b]" : "in [a, b, c]"))
            return err();
    }
    for (int k = 0; k < n; k++)
        if (is_mat(x[k].ncomp)) {
            if (n == 2)
                sema_error(S, a->loc, "an entry of [a, b] is a matrix: [a, b] is a vector of two scalars or a "
                                      "matrix of two rows [[a, b], [c, d]]");
            else
                sema_error(S, a->loc, "an entry of [a, b, c] is a matrix: [a, b, c] is a vector of three "
                                      "scalars or a matrix of three rows [[a, b, c], [d, e, f], [g, h, i]]");
            return err();
        }
    for (int k = 1; k < n; k++)
        if (x[k].ncomp != x[0].ncomp) {
            sema_error(S, a->loc, "the entries of %s have different shapes: a %s and a %s",
                       n == 2 ? "[a, b]" : "[a, b, c]", shape_name(x[0].ncomp), shape_name(x[k].ncomp));
            return err();
        }
    poly r[9];
    int m = x[0].ncomp;   /* 1: a vector; n: the rows of a matrix */
    for (int k = 0; k < n; k++)
        for (int c = 0; c < m; c++) r[m * k + c] = x[k].c[c];
    return fieldn(n * m, r);
}

/* The index i in v[i]: the number 0 or 1 (3D: 0, 1 or 2); -1 after an error. */
static int index_number(sema *S, const ast *i, const char *shape)
{
    bool d3 = S->p->dim == 3;
    if (i->kind != AST_NUM || !i->is_int) {
        sema_error(S, i->loc, "an index must be the number %s", d3 ? "0, 1 or 2" : "0 or 1");
        return -1;
    }
    if (i->num > (d3 ? 2 : 1)) {
        sema_error(S, i->loc, "index %.0f out of range: the indices of a %s are %s", i->num, shape,
                   d3 ? "0, 1 and 2" : "0 and 1");
        return -1;
    }
    return (int)i->num;
}

/* The component named by '.x', '.yy' ... (-1 after an error). */
static int component_name(sema *S, const ast *a, int ncomp)
{
    for (int c = 0; c < ncomp; c++)
        if (!strcmp(a->name, hdg_comp_suffix(ncomp, c) + 1)) return c;
    if (S->p->dim == 2 && (!strcmp(a->name, "z") || (strlen(a->name) == 2 && strchr(a->name, 'z') &&
                                                      strspn(a->name, "xyz") == 2)))
        sema_error(S, a->loc, "no component '.%s' in a %s: its components are %s ('.%s' needs 'mesh "
                   "tetrahedron')", a->name, shape_name(ncomp), shape_components(ncomp), a->name);
    else
        sema_error(S, a->loc, "no component '.%s' in a %s: its components are %s", a->name, shape_name(ncomp),
                   shape_components(ncomp));
    return -1;
}

/* v[i], v.x; A[i] (row i, a vector), A[i][j], A[i, j], A.xy. */
static val index_value(sema *S, const ectx *cx, const ast *a)
{
    val v = expand(S, cx, a->a);
    if (v.kind == V_ERR || !need_field(S, &v, a->loc, "before [i] or .x")) return err();
    if (v.ncomp == 1) {
        sema_error(S, a->loc, "a scalar has no components: [i] and .x apply to vectors and matrices");
        return err();
    }
    const char *shape = shape_name(v.ncomp);
    if (a->name) {
        int c = component_name(S, a, v.ncomp);
        return c < 0 ? err() : field1(v.c[c]);
    }
    if (a->c && !is_mat(v.ncomp)) {
        sema_error(S, a->loc, "a vector has one index: v[i]");
        return err();
    }
    int i = index_number(S, a->b, shape);
    if (i < 0) return err();
    if (is_vec(v.ncomp)) return field1(v.c[i]);
    int d = vdim(v.ncomp);
    if (!a->c) return fieldn(d, &v.c[d * i]);
    int j = index_number(S, a->c, shape);
    return j < 0 ? err() : field1(v.c[d * i + j]);
}

val expand(sema *S, const ectx *cx, const ast *a)
{
    switch (a->kind) {
    case AST_NUM: return data1(S, ex_num(S->p, a->num));
    case AST_NAME: return name_value(S, cx, a);
    case AST_NEG: return v_neg(S, expand(S, cx, a->a));
    case AST_BIN: {
        val l = expand(S, cx, a->a);
        if (l.kind == V_ERR) return l;
        val r = expand(S, cx, a->b);
        if (r.kind == V_ERR) return r;
        switch (a->op) {
        case '+': return v_add(S, l, r, 1, a->loc);
        case '-': return v_add(S, l, r, -1, a->loc);
        case '*': return v_mul(S, cx, l, r, a->loc);
        case '/': return v_div(S, cx, l, r, a->loc);
        default: return v_pow(S, cx, l, r, a->loc);
        }
    }
    case AST_CALL: return call_value(S, cx, a);
    case AST_VEC: return bracket_value(S, cx, a);
    case AST_INDEX: return index_value(S, cx, a);
    case AST_VINT: case AST_BINT: return integral(S, cx, a);
    case AST_IF: return if_value(S, cx, a);
    case AST_CMP:
        sema_error(S, a->loc, "a comparison can only be the condition of if(c, a, b)");
        return err();
    }
    return err();
}
