/* diff.c — symbolic differentiation of expressions with respect to x, y, z or t,
 * or (nonlinear problems) with respect to one STATE leaf (a partial derivative).
 * Calls of user funcs use the chain rule with the derivative of the func body
 * (cached per func, component and variable); results are simplified by the
 * folding constructors of expr.c.
 *
 * A STATE leaf u (op value) is a function of the position: d u / d x = dx(u)
 * (STATE with op dx). Its derivative in t, and the derivative of dx(u) (a second
 * derivative), are not expressed: they differentiate to 0 here, and expand.c
 * refuses the terms that would need them before differentiating.
 * abs and comparisons: d|a| = sign(a) * a' with sign(0) = 1 (a sub-gradient), if()
 * differentiates each branch, a comparison is constant (docs/language.md). */
#include "frontend/internal.h"

/* What to differentiate with respect to: a coordinate (state == false) or a STATE leaf. */
typedef struct target {
    bool state;
    hdg_var var;
    int unknown, comp, op, side;
} target;

static const hdg_expr *d(hdg_problem *p, const hdg_expr *e, const target *v);

static const hdg_expr *num(hdg_problem *p, double v) { return ex_num(p, v); }

/* d(body of f, component c) / d(formal var) in terms of f's formal coordinates. */
static const hdg_expr *dbody(hdg_problem *p, int fi, int c, int var)
{
    hdg_func *f = &p->funcs[fi];
    target t = {.var = (hdg_var)var};
    if (!f->dbody[c][var]) f->dbody[c][var] = d(p, f->body[c], &t);
    return f->dbody[c][var];
}

/* Does e change with the target? (A STATE leaf changes with x, y, z.) */
static bool depends(const hdg_expr *e, const target *v)
{
    if (e->kind == HDG_EX_COORD) return !v->state && e->index == (int)v->var;
    if (e->kind == HDG_EX_WAVESPEED) return false;
    if (e->kind == HDG_EX_STATE)
        return v->state ? e->index == v->unknown && e->comp == v->comp && e->op == v->op && e->side == v->side
                        : v->var != HDG_VAR_T;
    for (int i = 0; i < e->nkids; i++)
        if (depends(e->kid[i], v)) return true;
    return false;
}

/* Structurally equal trees (the products a nonlinear term builds, u*u, are two leaves). */
static bool same(const hdg_expr *a, const hdg_expr *b)
{
    if (a == b) return true;
    if (a->kind != b->kind || a->index != b->index || a->comp != b->comp || a->nkids != b->nkids ||
        a->op != b->op || a->side != b->side || (a->kind == HDG_EX_NUM && a->num != b->num))
        return false;
    for (int i = 0; i < a->nkids; i++)
        if (!same(a->kid[i], b->kid[i])) return false;
    return true;
}

static const hdg_expr *d_state(hdg_problem *p, const hdg_expr *e, const target *v)
{
    if (v->state) return num(p, depends(e, v) ? 1 : 0);
    if (e->op != HDG_OP_VALUE || v->var == HDG_VAR_T) return num(p, 0);   /* refused by expand.c */
    hdg_op op = v->var == HDG_VAR_X ? HDG_OP_DX : v->var == HDG_VAR_Y ? HDG_OP_DY : HDG_OP_DZ;
    return ex_state(p, e->index, e->comp, op, (hdg_side)e->side);
}

static const hdg_expr *d_call(hdg_problem *p, const hdg_expr *e, const target *v)
{
    const hdg_func *f = &p->funcs[e->index];
    const hdg_expr *vals[HDG_NVARS] = {NULL};
    for (int i = 0; i < f->nargs; i++) {
        const hdg_expr *a = e->kid[i];
        if (!(a->kind == HDG_EX_COORD && a->index == (int)f->args[i])) vals[f->args[i]] = a;
    }
    const hdg_expr *sum = num(p, 0);
    for (int i = 0; i < f->nargs; i++) {
        const hdg_expr *da = d(p, e->kid[i], v);
        if (hdg_expr_is_num(da, 0)) continue;
        const hdg_expr *df = ex_subst(p, dbody(p, e->index, e->comp, f->args[i]), vals);
        sum = ex_add(p, sum, ex_mul(p, df, da));
    }
    return sum;
}

static const hdg_expr *d_builtin(hdg_problem *p, const hdg_expr *e, const target *v)
{
    const hdg_expr *a = e->kid[0], *da = d(p, a, v);
    if (hdg_expr_is_num(da, 0)) return da;
    switch ((hdg_builtin)e->index) {
    case HDG_BUILTIN_SIN: return ex_mul(p, ex_builtin(p, HDG_BUILTIN_COS, a), da);
    case HDG_BUILTIN_COS: return ex_neg(p, ex_mul(p, ex_builtin(p, HDG_BUILTIN_SIN, a), da));
    case HDG_BUILTIN_EXP: return ex_mul(p, e, da);
    case HDG_BUILTIN_LOG: return ex_div(p, da, a);
    case HDG_BUILTIN_SQRT: return ex_div(p, da, ex_mul(p, num(p, 2), e));
    case HDG_BUILTIN_TANH: return ex_mul(p, ex_sub(p, num(p, 1), ex_pow(p, e, num(p, 2))), da);
    case HDG_BUILTIN_ABS: return ex_if(p, ex_cmp(p, HDG_CMP_LT, a, num(p, 0)), ex_neg(p, da), da);
    }
    return num(p, 0);
}

static const hdg_expr *d(hdg_problem *p, const hdg_expr *e, const target *v)
{
    const hdg_expr *a = e->nkids > 0 ? e->kid[0] : NULL, *b = e->nkids > 1 ? e->kid[1] : NULL;
    switch (e->kind) {
    case HDG_EX_NUM: case HDG_EX_PI: case HDG_EX_PARAM: case HDG_EX_NORMAL: case HDG_EX_CMP:
    case HDG_EX_WAVESPEED:   /* held fixed (frontend.h); the expansion refuses its space derivatives */
        return num(p, 0);
    case HDG_EX_COORD: return num(p, !v->state && e->index == (int)v->var ? 1 : 0);
    case HDG_EX_STATE: return d_state(p, e, v);
    case HDG_EX_NEG: return ex_neg(p, d(p, a, v));
    case HDG_EX_ADD: return ex_add(p, d(p, a, v), d(p, b, v));
    case HDG_EX_SUB: return ex_sub(p, d(p, a, v), d(p, b, v));
    case HDG_EX_MUL:
        if (v->state && same(a, b)) return ex_mul(p, ex_mul(p, num(p, 2), a), d(p, a, v));   /* u*u: 2*u */
        return ex_add(p, ex_mul(p, d(p, a, v), b), ex_mul(p, a, d(p, b, v)));
    case HDG_EX_DIV: {
        const hdg_expr *da = d(p, a, v), *db = d(p, b, v);
        return ex_sub(p, ex_div(p, da, b), ex_div(p, ex_mul(p, a, db), ex_pow(p, b, num(p, 2))));
    }
    case HDG_EX_POW: {
        const hdg_expr *da = d(p, a, v);
        if (!depends(b, v))   /* b a^(b-1) a' */
            return ex_mul(p, ex_mul(p, b, ex_pow(p, a, ex_sub(p, b, num(p, 1)))), da);
        const hdg_expr *db = d(p, b, v);   /* a^b (b' log a + b a'/a) */
        return ex_mul(p, e, ex_add(p, ex_mul(p, db, ex_builtin(p, HDG_BUILTIN_LOG, a)),
                                   ex_div(p, ex_mul(p, b, da), a)));
    }
    case HDG_EX_BUILTIN: return d_builtin(p, e, v);
    case HDG_EX_IF: return ex_if(p, e->kid[0], d(p, e->kid[1], v), d(p, e->kid[2], v));
    case HDG_EX_CALL: return d_call(p, e, v);
    }
    return num(p, 0);
}

const hdg_expr *hdg_expr_diff(hdg_problem *p, const hdg_expr *e, hdg_var var)
{
    if (ex_too_big(e)) return NULL;
    target t = {.var = var};
    const hdg_expr *r = d(p, e, &t);
    return ex_too_big(r) ? NULL : r;
}

const hdg_expr *hdg_expr_diff_state(hdg_problem *p, const hdg_expr *e, int unknown, int comp, int op,
                                    int side)
{
    if (ex_too_big(e)) return NULL;
    target t = {.state = true, .unknown = unknown, .comp = comp, .op = (int)op, .side = (int)side};
    const hdg_expr *r = d(p, e, &t);
    return ex_too_big(r) ? NULL : r;
}
