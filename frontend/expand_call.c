/* expand_call.c — calls in an expression: the builtin operators (grad, div, curl, dx, dy,
 * dz; dot, cross, outer; transpose, inv, det, trace), builtin functions and user funcs. */
#include <stdio.h>
#include <string.h>

#include "frontend/expand.h"

/* ---------------------------------------------------------------- calls */

static const char *kind_noun(sym_kind k)
{
    switch (k) {
    case SYM_PI: return "a constant";
    case SYM_COORD: return "a coordinate";
    case SYM_NORMAL: case SYM_VNORMAL: return "the normal";
    case SYM_WAVESPEED: return "the wave speed";
    case SYM_DEGREE: return "the degree";
    case SYM_PARAM: return "a param";
    case SYM_SPACE: return "a space";
    case SYM_UNKNOWN: return "an unknown";
    case SYM_FLUX: return "a flux";
    default: return "a function";
    }
}

bool expand_arity(sema *S, const ast *a, int n)
{
    if (a->nargs == n) return true;
    sema_error(S, a->loc, "%s() takes %d argument%s, not %d", a->name, n, n == 1 ? "" : "s", a->nargs);
    return false;
}

static const hdg_var AXES[3] = {HDG_VAR_X, HDG_VAR_Y, HDG_VAR_Z};

/* sum_j d v_j / d x_j of a vector v (d components), summed left to right (every derivative is
 * taken, so each reports its own error). */
static val op_div_rows(sema *S, const ectx *cx, val v, hdg_loc at)
{
    val r = val_diff(S, cx, val_field1(v.c[0]), HDG_VAR_X, at);
    for (int j = 1; j < v.ncomp; j++) {
        val dj = val_diff(S, cx, val_field1(v.c[j]), AXES[j], at);
        r = val_add(S, r, dj, 1, at);
    }
    return r;
}

/* Refuses unknowns and tests in the matrix of inv(). */
static bool inv_data(sema *S, const ectx *cx, const val *v, const ast *a)
{
    for (int c = 0; c < v->ncomp; c++) {
        const mono *t = poly_first_trial(v->c[c]);
        if (t) {
            sema_error(S, a->loc, "inv() needs a matrix of data (numbers, params, funcs), not of the "
                       "unknown '%s'", unknown_label(S, &t->trial));
            return false;
        }
        if (poly_first_test(v->c[c])) {
            sema_error(S, a->loc, "the test function '%s' cannot be inside inv()", expand_test_label(cx));
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
    if (!inv_data(S, cx, &v, a)) return val_err();
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
        return val_err();
    }
    if (v.ncomp == 4)
        return val_field4(poly_data(S, ex_div(p, m[3], det)), poly_data(S, ex_div(p, ex_neg(p, m[1]), det)),
                          poly_data(S, ex_div(p, ex_neg(p, m[2]), det)), poly_data(S, ex_div(p, m[0], det)));
    poly r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r[3 * i + j] = poly_data(S, ex_div(p, cof[3 * j + i], det));
    return val_fieldn(9, r);
}

/* det() of a 3x3 matrix (entries may hold one unknown or the test between them: linear terms only). */
static bool det3(sema *S, const ectx *cx, const val *v, poly *out, hdg_loc at)
{
    poly acc = poly_new(S, 0);
    for (int j = 0; j < 3; j++) {   /* expansion along row 0, cyclic minors */
        int c0 = (j + 1) % 3, c1 = (j + 2) % 3;
        poly a, b, minor, term;
        if (!poly_mul(S, cx, v->c[3 + c0], v->c[6 + c1], &a, at) ||
            !poly_mul(S, cx, v->c[3 + c1], v->c[6 + c0], &b, at))
            return false;
        minor = poly_add(S, a, b, -1);
        if (!poly_mul(S, cx, v->c[j], minor, &term, at)) return false;
        acc = poly_add(S, acc, term, 1);
    }
    *out = acc;
    return true;
}

/* transpose(), inv(), det(), trace() of a 2x2 or 3x3 matrix. */
static val matrix_op(sema *S, const ectx *cx, val v, int op, const ast *a)
{
    if (!shape_is_mat(v.ncomp)) {
        sema_error(S, a->loc, "%s() needs a matrix, not a %s", a->name, shape_noun(v.ncomp));
        return val_err();
    }
    int d = shape_dim(v.ncomp);
    switch (op) {
    case OP_TRANSPOSE: {
        if (d == 2) return val_field4(v.c[0], v.c[2], v.c[1], v.c[3]);
        poly r[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) r[3 * i + j] = v.c[3 * j + i];
        return val_fieldn(9, r);
    }
    case OP_TRACE: {
        poly r = poly_add(S, v.c[0], v.c[d + 1], 1);
        if (d == 3) r = poly_add(S, r, v.c[8], 1);
        return val_field1(r);
    }
    case OP_DET: {
        if (d == 3) {
            poly r;
            return det3(S, cx, &v, &r, a->loc) ? val_field1(r) : val_err();
        }
        poly ad, bc;
        if (!poly_mul(S, cx, v.c[0], v.c[3], &ad, a->loc) || !poly_mul(S, cx, v.c[1], v.c[2], &bc, a->loc))
            return val_err();
        return val_field1(poly_add(S, ad, bc, -1));
    }
    default: return matrix_inv(S, cx, v, a);
    }
}

/* grad() of a scalar (a vector) or of a vector (the matrix (grad v)_ij = d v_i / d x_j). */
static val op_grad(sema *S, const ectx *cx, val v, hdg_loc at)
{
    if (shape_is_mat(v.ncomp)) {
        sema_error(S, at, "grad() needs a scalar or a vector, not a matrix");
        return val_err();
    }
    int d = S->p->dim;
    val g[3];
    for (int j = 0; j < d; j++) {
        g[j] = val_diff(S, cx, v, AXES[j], at);
        if (g[j].kind == V_ERR) return val_err();
    }
    poly r[9];
    for (int i = 0; i < v.ncomp; i++)
        for (int j = 0; j < d; j++) r[d * i + j] = g[j].c[i];
    return val_fieldn(v.ncomp * d, r);
}

/* div() of a vector (a scalar) or of a matrix, row by row: (div A)_i = sum_j d A_ij / d x_j. */
static val op_divergence(sema *S, const ectx *cx, val v, hdg_loc at)
{
    if (v.ncomp == 1) {
        sema_error(S, at, "div() needs a vector or a matrix, not a scalar");
        return val_err();
    }
    if (shape_is_vec(v.ncomp)) return op_div_rows(S, cx, v, at);
    int d = shape_dim(v.ncomp);
    poly r[3];
    bool ok = true;
    for (int i = 0; i < d; i++) {
        val ri = op_div_rows(S, cx, val_fieldn(d, &v.c[d * i]), at);
        if (ri.kind == V_ERR) ok = false;
        else r[i] = ri.c[0];
    }
    return ok ? val_fieldn(d, r) : val_err();
}

/* curl() of a 3-vector: (dy v_z - dz v_y, dz v_x - dx v_z, dx v_y - dy v_x). */
static val op_curl(sema *S, const ectx *cx, val v, hdg_loc at)
{
    if (v.ncomp != 3) {
        sema_error(S, at, "curl() needs a vector (3 components), not a %s", shape_noun(v.ncomp));
        return val_err();
    }
    poly r[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;   /* (curl v)_i = d v_k / d x_j - d v_j / d x_k */
        val a = val_diff(S, cx, val_field1(v.c[k]), AXES[j], at);
        if (a.kind == V_ERR) return val_err();
        val b = val_diff(S, cx, val_field1(v.c[j]), AXES[k], at);
        if (b.kind == V_ERR) return val_err();
        r[i] = poly_add(S, a.c[0], b.c[0], -1);
    }
    return val_fieldn(3, r);
}

/* dot(), cross(), outer() of two vectors. */
static val vector_op(sema *S, const ectx *cx, val v, val w, int op, const ast *a)
{
    static const char *need[] = {[OP_DOT] = "dot() needs two vectors",
                                 [OP_CROSS] = "cross() needs two vectors of 3 components",
                                 [OP_OUTER] = "outer() needs two vectors"};
    int d = shape_dim(v.ncomp);
    if (!shape_is_vec(v.ncomp) || v.ncomp != w.ncomp || (op == OP_CROSS && d != 3)) {
        sema_error(S, a->loc, "%s", need[op]);
        return val_err();
    }
    if (op == OP_DOT) {
        poly r;
        return poly_dotn(S, cx, d, v.c, 1, w.c, 1, &r, a->loc) ? val_field1(r) : val_err();
    }
    poly r[9];
    for (int i = 0; i < (op == OP_CROSS ? 3 : d * d); i++) {
        if (op == OP_OUTER) {
            if (!poly_mul(S, cx, v.c[i / d], w.c[i % d], &r[i], a->loc)) return val_err();
            continue;
        }
        int j = (i + 1) % 3, k = (i + 2) % 3;   /* (v x w)_i = v_j w_k - v_k w_j */
        poly x, y;
        if (!poly_mul(S, cx, v.c[j], w.c[k], &x, a->loc) || !poly_mul(S, cx, v.c[k], w.c[j], &y, a->loc))
            return val_err();
        r[i] = poly_add(S, x, y, -1);
    }
    return val_fieldn(op == OP_CROSS ? 3 : d * d, r);
}

static bool two_args(int op) { return op == OP_DOT || op == OP_CROSS || op == OP_OUTER; }

static val op_call(sema *S, const ectx *cx, const ast *a, int op)
{
    if (op == OP_DT) return expand_op_dt(S, cx, a);
    if (op == OP_JUMP || op == OP_AVG || op == OP_EXT) return expand_op_ext(S, cx, a, op);
    if (!expand_arity(S, a, two_args(op) ? 2 : 1)) return val_err();
    char where[64];
    snprintf(where, sizeof where, "inside %s()", a->name);
    val v = expand(S, cx, a->args[0]);
    if (!val_need_field(S, &v, a->loc, where)) return val_err();
    switch (op) {
    case OP_GRAD: return op_grad(S, cx, v, a->loc);
    case OP_DIV: return op_divergence(S, cx, v, a->loc);
    case OP_CURL: return op_curl(S, cx, v, a->loc);
    case OP_TRANSPOSE: case OP_INV: case OP_DET: case OP_TRACE: return matrix_op(S, cx, v, op, a);
    case OP_DX: return val_diff(S, cx, v, HDG_VAR_X, a->loc);
    case OP_DY: return val_diff(S, cx, v, HDG_VAR_Y, a->loc);
    case OP_DZ: return val_diff(S, cx, v, HDG_VAR_Z, a->loc);
    case OP_DOT: case OP_CROSS: case OP_OUTER: {
        val w = expand(S, cx, a->args[1]);
        if (!val_need_field(S, &w, a->loc, where)) return val_err();
        return vector_op(S, cx, v, w, op, a);
    }
    }
    return val_err();
}

static val user_call(sema *S, const ectx *cx, const ast *a, symbol *s)
{
    if (!expand_ready(S, s, "func", a->loc)) return val_err();
    const hdg_func *f = &S->p->funcs[s->index];
    if (a->nargs != f->nargs) {
        sema_error(S, a->loc, "func '%s' takes %d argument%s, not %d", f->name, f->nargs,
                   f->nargs == 1 ? "" : "s", a->nargs);
        return val_err();
    }
    const hdg_expr *args[HDG_NVARS];
    char where[300];
    snprintf(where, sizeof where, "in a call of func '%s'", f->name);
    for (int i = 0; i < a->nargs; i++) {
        val v = expand(S, cx, a->args[i]);
        if (v.kind == V_ERR || !val_need_data(S, cx, &v, a->args[i]->loc, where)) return val_err();
        args[i] = val_data(S, &v, 0);
    }
    return expand_func_value(S, cx, s->index, args);
}

val expand_call(sema *S, const ectx *cx, const ast *a)
{
    if (cx->test && !strcmp(a->name, cx->test)) {
        sema_error(S, a->loc, "'%s' is a test function, not a function", a->name);
        return val_err();
    }
    symbol *s = sema_lookup(S, a->name);
    if (!s) {
        if (sema_3d_only(S, a->name, a->loc)) return val_err();
        const char *near = sema_suggest(S, a->name, NULL, SUGGEST_CALL);
        if (near) sema_error(S, a->loc, "undefined function '%s'; did you mean '%s'?", a->name, near);
        else sema_error(S, a->loc, "undefined function '%s'", a->name);
        return val_err();
    }
    if (s->failed) return val_err();
    if (s->kind == SYM_OP) return op_call(S, cx, a, s->index);
    if (s->kind == SYM_FUNC) return user_call(S, cx, a, s);
    if (s->kind != SYM_FN) {
        sema_error(S, a->loc, "'%s' is %s, not a function", a->name, kind_noun(s->kind));
        return val_err();
    }
    if (!expand_arity(S, a, 1)) return val_err();
    char where[64];
    snprintf(where, sizeof where, "inside %s()", a->name);
    val v = expand(S, cx, a->args[0]);
    if (v.kind == V_ERR || !val_need_data(S, cx, &v, a->loc, where)) return val_err();
    return val_data1(S, ex_builtin(S->p, (hdg_builtin)s->index, val_data(S, &v, 0)));
}
