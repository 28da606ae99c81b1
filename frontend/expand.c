/* expand.c — expands an expression of the language into a sum of monomials
 *
 *     coefficient * [unknown factor] * [test factor]      per vector component,
 *
 * distributing products, expanding vectors (dot, grad, div, n), derivatives
 * (product rule, symbolic in the coefficient), jump/avg/ext, and inlining named
 * fluxes and funcs. Integrals (a, b) and <a, b> turn fields into forms (lists of
 * atoms with a domain). Everything the compiler cannot lower is rejected here
 * with its own message: nonlinear terms, two test functions, a trace unknown in
 * a volume integral, jump() in HDG, ...
 * This file holds the dispatch over the AST (expand), names, derivatives, integrals, if(),
 * brackets and indices; the polynomials are in expand_poly.c, the values and their
 * arithmetic in expand_val.c, calls in expand_call.c, ext/jump/avg and dt() in
 * expand_ext.c (their shared functions: expand.h). */
#include <stdio.h>
#include <string.h>

#include "frontend/expand.h"
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
        sema_error(S, at, "cannot differentiate the test function '%s' of a trace space", expand_test_label(cx));
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
bool expand_state_diff_ok(sema *S, const ectx *cx, const hdg_expr *e, hdg_var var, hdg_loc at)
{
    if (e->kind == HDG_EX_WAVESPEED) {
        sema_error(S, at, "'wavespeed' cannot be differentiated");
        return false;
    }
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
        if (!expand_state_diff_ok(S, cx, e->kid[i], var, at)) return false;
    return true;
}

static bool diff_poly(sema *S, const ectx *cx, poly a, hdg_var var, poly *out, hdg_loc at)
{
    poly r = poly_new(S, 3 * a.n);
    hdg_op op = var == HDG_VAR_X ? HDG_OP_DX : var == HDG_VAR_Y ? HDG_OP_DY : HDG_OP_DZ;
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        if (!expand_state_diff_ok(S, cx, m.coef, var, at)) return false;
        const hdg_expr *dc = hdg_expr_diff(S->p, m.coef, var);
        if (!dc) {
            sema_error(S, at, "expression too large to differentiate");
            return false;
        }
        if (!hdg_expr_is_num(dc, 0)) poly_put(S, &r, (mono){dc, m.trial, m.test});
        if (m.trial.id >= 0) {
            mono t = m;
            if (!diff_fac(S, cx, &t.trial, true, op, at)) return false;
            poly_put(S, &r, t);
        }
        if (m.test.id >= 0) {
            mono t = m;
            if (!diff_fac(S, cx, &t.test, false, op, at)) return false;
            poly_put(S, &r, t);
        }
    }
    *out = poly_compact(r);
    return true;
}

val val_diff(sema *S, const ectx *cx, val a, hdg_var var, hdg_loc at)
{
    val r = a;
    for (int c = 0; c < a.ncomp; c++)
        if (!diff_poly(S, cx, a.c[c], var, &r.c[c], at)) return val_err();
    return r;
}

/* ---------------------------------------------------------------- names */

static val test_value(sema *S, const ectx *cx)
{
    val v = {.kind = V_FIELD, .ncomp = cx->test_ncomp};
    for (int c = 0; c < v.ncomp; c++) {
        v.c[c] = poly_new(S, 1);
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
        v.c[c] = poly_new(S, 1);
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

/* 'wavespeed': a face integral of an explicit DG equation (docs/language.md). */
static bool wavespeed_ok(sema *S, const ectx *cx, hdg_loc at)
{
    const char *why = cx->mode != X_EQUATION ? "it is not defined in data, conditions or exact solutions"
                      : cx->hdg ? "it is an explicit DG numerical flux's speed, and this is an HDG problem"
                      : cx->integral != 2 ? "it is defined on faces only: use it inside <a, b>"
                      : NULL;
    if (!why) return true;
    sema_error(S, at, "'wavespeed' (the spectral radius of the normal flux Jacobian) cannot be used here: %s", why);
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

bool expand_ready(sema *S, const symbol *s, const char *kind, hdg_loc at)
{
    if (s->ready) return true;
    if (!s->failed)
        sema_error(S, at, "%s '%s' is used before its definition (at %d:%d)", kind, s->name,
                   s->loc.line, s->loc.col);
    return false;
}

val expand_func_value(sema *S, const ectx *cx, int fi, const hdg_expr *const *args)
{
    const hdg_func *f = &S->p->funcs[fi];
    val v = {.kind = V_FIELD, .ncomp = f->ncomp};
    for (int c = 0; c < f->ncomp; c++) v.c[c] = poly_data(S, ex_call(S->p, fi, c, f->nargs, args));
    (void)cx;
    return v;
}

static val flux_value(sema *S, const ectx *cx, symbol *s, hdg_loc at)
{
    flux_def *fl = &S->fluxes[s->index];
    if (cx->mode != X_EQUATION) {
        sema_error(S, at, "flux '%s' can only be used in equations", fl->name);
        return val_err();
    }
    if (fl->visiting) {
        sema_error(S, at, "flux '%s' is defined in terms of itself", fl->name);
        return val_err();
    }
    if (cx->flux_depth >= 64) {
        sema_error(S, at, "fluxes nested too deeply (more than 64 levels)");
        return val_err();
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
        return val_err();
    }
    return v;
}

static val name_value(sema *S, const ectx *cx, const ast *a)
{
    if (cx->test && !strcmp(a->name, cx->test)) return test_value(S, cx);
    symbol *s = sema_lookup(S, a->name);
    if (s && s->failed) return val_err();   /* its definition was already reported */
    if (!s) {
        if (sema_3d_only(S, a->name, a->loc)) return val_err();
        const char *near = sema_suggest(S, a->name, cx->test, SUGGEST_VALUE);
        if (near) sema_error(S, a->loc, "undefined name '%s'; did you mean '%s'?", a->name, near);
        else sema_error(S, a->loc, "undefined name '%s'", a->name);
        return val_err();
    }
    hdg_problem *p = S->p;
    switch (s->kind) {
    case SYM_PI: return val_data1(S, ex_leaf(p, HDG_EX_PI, 0));
    case SYM_COORD:
        if (!coord_ok(S, cx, (hdg_var)s->index, a->loc)) return val_err();
        return val_data1(S, ex_leaf(p, HDG_EX_COORD, s->index));
    case SYM_NORMAL:
        if (!normals_ok(S, cx, s->name, a->loc)) return val_err();
        return val_data1(S, ex_leaf(p, HDG_EX_NORMAL, s->index));
    case SYM_VNORMAL: {
        if (!normals_ok(S, cx, s->name, a->loc)) return val_err();
        poly c[3];
        for (int k = 0; k < p->dim; k++) c[k] = poly_data(S, ex_leaf(p, HDG_EX_NORMAL, k));
        return val_fieldn(p->dim, c);
    }
    case SYM_WAVESPEED:
        if (!wavespeed_ok(S, cx, a->loc)) return val_err();
        return val_data1(S, ex_leaf(p, HDG_EX_WAVESPEED, 0));
    case SYM_FN: case SYM_OP:
        sema_error(S, a->loc, "'%s' is a function: call it as %s(...)", s->name, s->name);
        return val_err();
    case SYM_DEGREE: return val_data1(S, ex_num(p, p->degree));
    case SYM_PARAM:
        if (!expand_ready(S, s, "param", a->loc)) return val_err();
        return val_data1(S, ex_leaf(p, HDG_EX_PARAM, s->index));
    case SYM_FUNC: {
        if (!expand_ready(S, s, "func", a->loc)) return val_err();
        const hdg_func *f = &p->funcs[s->index];
        const hdg_expr *args[HDG_NVARS];
        for (int i = 0; i < f->nargs; i++) {
            if (!(cx->coords & (1u << f->args[i]))) {
                sema_error(S, a->loc, "func '%s' depends on %s, which is not available in %s",
                           f->name, hdg_var_name(f->args[i]), cx->where);
                return val_err();
            }
            args[i] = ex_leaf(p, HDG_EX_COORD, f->args[i]);
        }
        return expand_func_value(S, cx, s->index, args);
    }
    case SYM_SPACE:
        sema_error(S, a->loc, "'%s' is a space, not a value", s->name);
        return val_err();
    case SYM_UNKNOWN:
        if (cx->mode == X_DATA && cx->bc_trace && !p->unknowns[s->index].trace) {
            sema_error(S, a->loc, "the %s unknown '%s' cannot be used in %s: a neumann condition is linear "
                       "in trace unknowns only (a Robin condition, as in 'qn = alpha*uhat - g')",
                       p->unknowns[s->index].post ? "post-processed" : "element", s->name, cx->where);
            return val_err();
        }
        if (cx->mode == X_DATA && !cx->bc_trace) {
            sema_error(S, a->loc, "the unknown '%s' cannot be used in %s", s->name, cx->where);
            return val_err();
        }
        return unknown_value(S, s->index);
    case SYM_FLUX: return flux_value(S, cx, s, a->loc);
    }
    return val_err();
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
        return val_err();
    }
    if (cx->integral) {
        sema_error(S, a->loc, "an integral inside an integral");
        return val_err();
    }
    ectx sub = *cx;
    sub.integral = bnd ? 2 : 1;
    sub.normals = bnd;
    val l = expand(S, &sub, a->a);
    val r = expand(S, &sub, a->b);
    if (l.kind == V_ERR || r.kind == V_ERR) return val_err();
    if (l.ncomp != r.ncomp) {
        sema_error(S, a->loc, "the two sides of %s have different shapes: a %s and a %s",
                   bnd ? "<a, b>" : "(a, b)", shape_noun(l.ncomp), shape_noun(r.ncomp));
        return val_err();
    }
    poly acc = poly_new(S, 0);
    for (int c = 0; c < l.ncomp; c++) {
        poly prod;
        if (!poly_mul(S, cx, l.c[c], r.c[c], &prod, a->loc)) return val_err();
        acc = poly_add(S, acc, prod, 1);
    }
    val f = {.kind = V_FORM, .natoms = acc.n};
    f.atoms = hdg_arena_alloc(S->tmp, (size_t)(acc.n ? acc.n : 1) * sizeof(fatom));
    for (int i = 0; i < acc.n; i++) {
        mono *m = &acc.m[i];
        if (m->trial.id >= 0 && hdg_expr_has_state(m->coef) && !expand_state_mono(S, m, a->loc))   /* if(u > 0, u, 0) */
            return val_err();
        if (m->test.id < 0) {
            sema_error(S, a->loc, "no test function in a term: every term of this equation must "
                                  "contain '%s'", expand_test_label(cx));
            return val_err();
        }
        if (!bnd && m->trial.id >= 0 && S->p->unknowns[m->trial.id].trace) {
            sema_error(S, a->loc, "trace unknown '%s' in a volume integral: trace unknowns live on "
                                  "faces, use <a, b>", S->p->unknowns[m->trial.id].name);
            return val_err();
        }
        int tu = bnd ? -1 : state_trace_unknown(S, m->coef);
        if (tu >= 0) {
            sema_error(S, a->loc, "trace unknown '%s' in a volume integral: trace unknowns live on "
                                  "faces, use <a, b>", S->p->unknowns[tu].name);
            return val_err();
        }
        if (!bnd && cx->test_trace) {
            sema_error(S, a->loc, "test function '%s' of a trace space in a volume integral: use <a, b>",
                       expand_test_label(cx));
            return val_err();
        }
        if (bnd && m->trial.dt) {
            sema_error(S, a->loc, "dt() in a boundary integral: the time derivative term is (dt(u), v)");
            return val_err();
        }
        f.atoms[i] = (fatom){*m, bnd ? HDG_BOUNDARY : HDG_VOLUME, a->loc};
    }
    return f;
}

static val if_value(sema *S, const ectx *cx, const ast *a)
{
    const ast *c = a->a;
    val l = expand(S, cx, c->a), r = expand(S, cx, c->b);
    if (l.kind == V_ERR || r.kind == V_ERR) return val_err();
    if (!val_need_data(S, cx, &l, c->loc, "in a condition") || !val_need_data(S, cx, &r, c->loc, "in a condition"))
        return val_err();
    const hdg_expr *cond = ex_cmp(S->p, (hdg_cmp)c->op, val_data(S, &l, 0), val_data(S, &r, 0));
    val x = expand(S, cx, a->b), y = expand(S, cx, a->c);
    if (!val_need_field(S, &x, a->loc, "in if()") || !val_need_field(S, &y, a->loc, "in if()")) return val_err();
    if (x.ncomp != y.ncomp) {
        sema_error(S, a->loc, "the branches of if() have different shapes: a %s and a %s",
                   shape_noun(x.ncomp), shape_noun(y.ncomp));
        return val_err();
    }
    val v = x;
    hdg_problem *p = S->p;
    const hdg_expr *zero = ex_num(p, 0);
    for (int k = 0; k < x.ncomp; k++) {
        if (val_is_data(&x) && val_is_data(&y)) {   /* if(c, a, b) */
            v.c[k] = poly_data(S, ex_if(p, cond, val_data(S, &x, k), val_data(S, &y, k)));
            continue;
        }
        poly px = poly_new(S, x.c[k].n), py = poly_new(S, y.c[k].n);   /* if(c, 1, 0) a + if(c, 0, 1) b */
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
        v.c[k] = poly_add(S, px, py, 1);
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
    if (!bracket_size(S, a, n)) return val_err();
    val x[3];
    for (int k = 0; k < n; k++) {
        x[k] = expand(S, cx, ent[k]);
        if (x[k].kind == V_ERR || !val_need_field(S, &x[k], a->loc, n == 2 ? "in [a, b]" : "in [a, b, c]"))
            return val_err();
    }
    for (int k = 0; k < n; k++)
        if (shape_is_mat(x[k].ncomp)) {
            if (n == 2)
                sema_error(S, a->loc, "an entry of [a, b] is a matrix: [a, b] is a vector of two scalars or a "
                                      "matrix of two rows [[a, b], [c, d]]");
            else
                sema_error(S, a->loc, "an entry of [a, b, c] is a matrix: [a, b, c] is a vector of three "
                                      "scalars or a matrix of three rows [[a, b, c], [d, e, f], [g, h, i]]");
            return val_err();
        }
    for (int k = 1; k < n; k++)
        if (x[k].ncomp != x[0].ncomp) {
            sema_error(S, a->loc, "the entries of %s have different shapes: a %s and a %s",
                       n == 2 ? "[a, b]" : "[a, b, c]", shape_noun(x[0].ncomp), shape_noun(x[k].ncomp));
            return val_err();
        }
    poly r[9];
    int m = x[0].ncomp;   /* 1: a vector; n: the rows of a matrix */
    for (int k = 0; k < n; k++)
        for (int c = 0; c < m; c++) r[m * k + c] = x[k].c[c];
    return val_fieldn(n * m, r);
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
                   "tetrahedron')", a->name, shape_noun(ncomp), shape_components(ncomp), a->name);
    else
        sema_error(S, a->loc, "no component '.%s' in a %s: its components are %s", a->name, shape_noun(ncomp),
                   shape_components(ncomp));
    return -1;
}

/* v[i], v.x; A[i] (row i, a vector), A[i][j], A[i, j], A.xy. */
static val index_value(sema *S, const ectx *cx, const ast *a)
{
    val v = expand(S, cx, a->a);
    if (v.kind == V_ERR || !val_need_field(S, &v, a->loc, "before [i] or .x")) return val_err();
    if (v.ncomp == 1) {
        sema_error(S, a->loc, "a scalar has no components: [i] and .x apply to vectors and matrices");
        return val_err();
    }
    const char *shape = shape_noun(v.ncomp);
    if (a->name) {
        int c = component_name(S, a, v.ncomp);
        return c < 0 ? val_err() : val_field1(v.c[c]);
    }
    if (a->c && !shape_is_mat(v.ncomp)) {
        sema_error(S, a->loc, "a vector has one index: v[i]");
        return val_err();
    }
    int i = index_number(S, a->b, shape);
    if (i < 0) return val_err();
    if (shape_is_vec(v.ncomp)) return val_field1(v.c[i]);
    int d = shape_dim(v.ncomp);
    if (!a->c) return val_fieldn(d, &v.c[d * i]);
    int j = index_number(S, a->c, shape);
    return j < 0 ? val_err() : val_field1(v.c[d * i + j]);
}

val expand(sema *S, const ectx *cx, const ast *a)
{
    switch (a->kind) {
    case AST_NUM: return val_data1(S, ex_num(S->p, a->num));
    case AST_NAME: return name_value(S, cx, a);
    case AST_NEG: return val_neg(S, expand(S, cx, a->a));
    case AST_BIN: {
        val l = expand(S, cx, a->a);
        if (l.kind == V_ERR) return l;
        val r = expand(S, cx, a->b);
        if (r.kind == V_ERR) return r;
        switch (a->op) {
        case '+': return val_add(S, l, r, 1, a->loc);
        case '-': return val_add(S, l, r, -1, a->loc);
        case '*': return val_mul(S, cx, l, r, a->loc);
        case '/': return val_div(S, cx, l, r, a->loc);
        default: return val_pow(S, cx, l, r, a->loc);
        }
    }
    case AST_CALL: return expand_call(S, cx, a);
    case AST_VEC: return bracket_value(S, cx, a);
    case AST_INDEX: return index_value(S, cx, a);
    case AST_VINT: case AST_BINT: return integral(S, cx, a);
    case AST_IF: return if_value(S, cx, a);
    case AST_CMP:
        sema_error(S, a->loc, "a comparison can only be the condition of if(c, a, b)");
        return val_err();
    }
    return val_err();
}
