/* expand_val.c — the values of the expansion (scalar, vector and matrix fields of
 * polynomials, and forms): their shapes and the arithmetic + - * / ^ on them, matrix
 * products included. */
#include <stdio.h>
#include <string.h>

#include "frontend/expand.h"

val val_err(void) { return (val){.kind = V_ERR}; }

/* ---------------------------------------------------------------- values */

val val_field1(poly a)
{
    val v = {.kind = V_FIELD, .ncomp = 1};
    v.c[0] = a;
    return v;
}

val val_field4(poly xx, poly xy, poly yx, poly yy)
{
    val v = {.kind = V_FIELD, .ncomp = 4};
    v.c[0] = xx, v.c[1] = xy, v.c[2] = yx, v.c[3] = yy;
    return v;
}

/* A field of n components c[0..n). */
val val_fieldn(int n, const poly *c)
{
    val v = {.kind = V_FIELD, .ncomp = n};
    for (int k = 0; k < n; k++) v.c[k] = c[k];
    return v;
}

/* Shapes by their number of components: 2, 3 a vector (2D, 3D), 4, 9 a matrix (2x2, 3x3). */
bool shape_is_vec(int ncomp) { return ncomp == 2 || ncomp == 3; }
bool shape_is_mat(int ncomp) { return ncomp == 4 || ncomp == 9; }
/* The length of a vector, the rows of a matrix: 2 or 3 (1 for a scalar). */
int shape_dim(int ncomp) { return ncomp == 2 || ncomp == 4 ? 2 : ncomp == 1 ? 1 : 3; }

val val_data1(sema *S, const hdg_expr *e) { return val_field1(poly_data(S, e)); }

bool val_is_data(const val *v)
{
    if (v->kind != V_FIELD) return false;
    for (int c = 0; c < v->ncomp; c++)
        if (poly_first_trial(v->c[c]) || poly_first_test(v->c[c])) return false;
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

const char *shape_noun(int ncomp) { return shape_is_mat(ncomp) ? "matrix" : shape_is_vec(ncomp) ? "vector" : "scalar"; }

const char *shape_components(int ncomp)
{
    switch (ncomp) {
    case 2: return ".x and .y";
    case 3: return ".x, .y and .z";
    case 4: return ".xx, .xy, .yx and .yy";
    default: return ".xx, .xy, .xz, .yx, .yy, .yz, .zx, .zy and .zz";
    }
}

/* Requires a field (not an integral). */
bool val_need_field(sema *S, const val *v, hdg_loc at, const char *where)
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
    if (!val_need_field(S, v, at, where)) return false;
    if (v->ncomp != 1) {
        sema_error(S, at, "expected a scalar %s, not a %s", where, shape_noun(v->ncomp));
        return false;
    }
    return true;
}

/* A scalar field without unknowns or tests; what says where it is ("inside sin()"). */
bool val_need_data(sema *S, const ectx *cx, val *v, hdg_loc at, const char *what)
{
    if (!need_scalar(S, v, at, what)) return false;
    if (cx->mode == X_EQUATION && !poly_stateify(S, &v->c[0], at)) return false;   /* nonlinear: sin(u) */
    const mono *t = poly_first_trial(v->c[0]);
    if (t) {
        sema_error(S, at, "nonlinear in the unknowns: '%s' %s", unknown_label(S, &t->trial), what);
        return false;
    }
    if (poly_first_test(v->c[0])) {
        sema_error(S, at, "the test function '%s' cannot appear %s", expand_test_label(cx), what);
        return false;
    }
    return true;
}

val val_neg(sema *S, val v)
{
    if (v.kind == V_FIELD)
        for (int c = 0; c < v.ncomp; c++) v.c[c] = poly_scale(S, v.c[c], ex_num(S->p, -1));
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
    if (sign < 0) b = val_neg(S, b);
    val r = {.kind = V_FORM, .natoms = a.natoms + b.natoms};
    r.atoms = hdg_arena_alloc(S->tmp, (size_t)(r.natoms ? r.natoms : 1) * sizeof(fatom));
    if (a.natoms) memcpy(r.atoms, a.atoms, (size_t)a.natoms * sizeof(fatom));
    if (b.natoms) memcpy(r.atoms + a.natoms, b.atoms, (size_t)b.natoms * sizeof(fatom));
    return r;
}

val val_add(sema *S, val a, val b, int sign, hdg_loc at)
{
    if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
    if (a.kind == V_FIELD && b.kind == V_FIELD) {
        if (a.ncomp != b.ncomp) {
            sema_error(S, at, "cannot %s a %s and a %s", sign > 0 ? "add" : "subtract",
                       shape_noun(a.ncomp), shape_noun(b.ncomp));
            return val_err();
        }
        for (int c = 0; c < a.ncomp; c++) a.c[c] = poly_add(S, a.c[c], b.c[c], sign);
        return a;
    }
    if (a.kind == V_FORM && b.kind == V_FORM) return form_concat(S, a, b, sign);
    if (a.kind == V_FORM && val_is_zero(&b)) return a;
    if (b.kind == V_FORM && val_is_zero(&a)) return sign > 0 ? b : val_neg(S, b);
    sema_error(S, at, "cannot add an integral and a pointwise expression: every term of an "
                      "equation is an integral (a, b) or <a, b>");
    return val_err();
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
bool poly_dotn(sema *S, const ectx *cx, int d, const poly *a, int sa, const poly *b, int sb, poly *out,
               hdg_loc at)
{
    poly x;
    if (!poly_mul(S, cx, a[0], b[0], &x, at)) return false;
    for (int k = 1; k < d; k++) {
        poly y;
        if (!poly_mul(S, cx, a[k * sa], b[k * sb], &y, at)) return false;
        x = poly_add(S, x, y, 1);
    }
    *out = x;
    return true;
}

/* matrix * vector, vector * matrix (v^T A), matrix * matrix. */
static val mat_mul(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    int d = shape_dim(a.ncomp);
    if (shape_dim(b.ncomp) != d) {
        sema_error(S, at, "cannot multiply a %s and a %s of another size", shape_noun(a.ncomp),
                   shape_noun(b.ncomp));
        return val_err();
    }
    val r = {.kind = V_FIELD, .ncomp = shape_is_mat(a.ncomp) && shape_is_mat(b.ncomp) ? d * d : d};
    for (int i = 0; i < r.ncomp; i++) {
        bool ok;
        if (r.ncomp == d * d) ok = poly_dotn(S, cx, d, &a.c[d * (i / d)], 1, &b.c[i % d], d, &r.c[i], at);
        else if (shape_is_mat(a.ncomp)) ok = poly_dotn(S, cx, d, &a.c[d * i], 1, &b.c[0], 1, &r.c[i], at);
        else ok = poly_dotn(S, cx, d, &a.c[0], 1, &b.c[i], d, &r.c[i], at);
        if (!ok) return val_err();
    }
    return r;
}

val val_mul(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
    const hdg_expr *c;
    if (a.kind == V_FORM) return const_factor(S, &b, at, &c) ? form_scale(S, a, c, false) : val_err();
    if (b.kind == V_FORM) return const_factor(S, &a, at, &c) ? form_scale(S, b, c, false) : val_err();
    if (shape_is_vec(a.ncomp) && shape_is_vec(b.ncomp)) {
        sema_error(S, at, "cannot multiply two vectors: use dot(a, b)");
        return val_err();
    }
    if (a.ncomp > 1 && b.ncomp > 1) return mat_mul(S, cx, a, b, at);
    val r = {.kind = V_FIELD, .ncomp = a.ncomp > b.ncomp ? a.ncomp : b.ncomp};
    for (int k = 0; k < r.ncomp; k++)
        if (!poly_mul(S, cx, a.c[a.ncomp > 1 ? k : 0], b.c[b.ncomp > 1 ? k : 0], &r.c[k], at))
            return val_err();
    return r;
}

val val_div(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
    if (b.kind == V_FORM) {
        sema_error(S, at, "cannot divide by an integral");
        return val_err();
    }
    if (b.ncomp != 1) {
        sema_error(S, at, "cannot divide by a %s", shape_noun(b.ncomp));
        return val_err();
    }
    if (cx->mode == X_EQUATION && a.kind == V_FIELD && (poly_has_trial(b.c[0]) || poly_has_state(b.c[0]))) {
        if (!poly_stateify(S, &b.c[0], at)) return val_err();   /* nonlinear: a / u */
        for (int k = 0; k < a.ncomp; k++)
            if (!poly_stateify(S, &a.c[k], at)) return val_err();
    }
    const mono *t = poly_first_trial(b.c[0]);
    if (t) {
        sema_error(S, at, "nonlinear in the unknowns: division by '%s'", unknown_label(S, &t->trial));
        return val_err();
    }
    if (poly_first_test(b.c[0])) {
        sema_error(S, at, "the test function '%s' cannot be in a denominator", expand_test_label(cx));
        return val_err();
    }
    const hdg_expr *c = val_data(S, &b, 0);
    if (a.kind == V_FORM) {
        if (!ex_is_const(c)) return const_factor(S, &b, at, &c), val_err();
        return form_scale(S, a, c, true);
    }
    for (int k = 0; k < a.ncomp; k++) a.c[k] = poly_divide(S, a.c[k], c);
    return a;
}

val val_pow(sema *S, const ectx *cx, val a, val b, hdg_loc at)
{
    if (!need_scalar(S, &a, at, "as the base of a power") ||
        !val_need_data(S, cx, &b, at, "in an exponent"))
        return val_err();
    const hdg_expr *e = val_data(S, &b, 0);
    if (hdg_expr_is_num(e, 1)) return a;
    if (cx->mode == X_EQUATION && !poly_stateify(S, &a.c[0], at)) return val_err();   /* nonlinear: u^2 */
    const mono *t = poly_first_trial(a.c[0]);
    if (t) {
        sema_error(S, at, "nonlinear in the unknowns: power of '%s'", unknown_label(S, &t->trial));
        return val_err();
    }
    if (poly_first_test(a.c[0])) {
        sema_error(S, at, "the test function '%s' cannot be raised to a power", expand_test_label(cx));
        return val_err();
    }
    return val_data1(S, ex_pow(S->p, val_data(S, &a, 0), e));
}
