/* lower_expr.c — hdg_expr trees -> IR expressions (see lower_expr.h). */
#include <math.h>

#include "ir/lower_expr.h"

static hdg_ir_fn builtin_fn(int b)
{
    switch (b) {
    case HDG_BUILTIN_SIN: return HDG_FN_SIN;
    case HDG_BUILTIN_COS: return HDG_FN_COS;
    case HDG_BUILTIN_EXP: return HDG_FN_EXP;
    case HDG_BUILTIN_LOG: return HDG_FN_LOG;
    case HDG_BUILTIN_SQRT: return HDG_FN_SQRT;
    case HDG_BUILTIN_TANH: return HDG_FN_TANH;
    default: return HDG_FN_ABS;
    }
}

static hdg_ir_op cmp_op(int c)
{
    static const hdg_ir_op ops[] = {HDG_E_LT, HDG_E_LE, HDG_E_GT, HDG_E_GE, HDG_E_EQ, HDG_E_NE};
    return ops[c];
}

static hdg_ir_expr *need(hdg_ir_kernel *k, hdg_ir_expr *v, const char *what)
{
    if (!v) hdg_ir_builder_error(k, "%s is not available in this expression", what);
    return v;
}

static hdg_ir_expr *power(hdg_ir_kernel *k, hdg_ir_expr *a, const hdg_expr *ex, hdg_ir_expr *b)
{
    if (ex->kind == HDG_EX_NUM && ex->num == floor(ex->num) && fabs(ex->num) <= 64)
        return hdg_ir_powi(k, a, (int)ex->num);
    return hdg_ir_pow(k, a, b);
}

static hdg_ir_expr *call(hdg_ir_kernel *k, const hdg_lower_env *env, const hdg_expr *e)
{
    const hdg_func *f = &env->p->funcs[e->index];
    hdg_lower_env inner = *env;
    for (int i = 0; i < f->nargs && i < e->nkids; i++) {
        hdg_ir_expr *v = hdg_lower_expr(k, env, e->kid[i]);
        if (!v) return NULL;
        inner.coord[f->args[i]] = v;
    }
    return hdg_lower_expr(k, &inner, f->body[e->comp]);
}

hdg_ir_expr *hdg_lower_expr(hdg_ir_kernel *k, const hdg_lower_env *env, const hdg_expr *e)
{
    hdg_ir_expr *a = NULL, *b = NULL;
    if (e->kind >= HDG_EX_NEG && e->kind != HDG_EX_CALL && e->nkids > 0) {
        a = hdg_lower_expr(k, env, e->kid[0]);
        if (!a) return NULL;
        if (e->nkids > 1 && e->kind != HDG_EX_IF) {
            b = hdg_lower_expr(k, env, e->kid[1]);
            if (!b) return NULL;
        }
    }
    switch (e->kind) {
    case HDG_EX_NUM: return hdg_ir_num(k, e->num);
    case HDG_EX_PI: return hdg_ir_num(k, 3.14159265358979323846);
    case HDG_EX_PARAM: return hdg_ir_param(k, e->index, env->p->params[e->index].name);
    case HDG_EX_COORD: return need(k, env->coord[e->index], hdg_var_name((hdg_var)e->index));
    case HDG_EX_NORMAL: return need(k, env->normal[e->index], e->index == 2 ? "nz" : e->index ? "ny" : "nx");
    case HDG_EX_NEG: return hdg_ir_neg(k, a);
    case HDG_EX_ADD: return hdg_ir_add(k, a, b);
    case HDG_EX_SUB: return hdg_ir_sub(k, a, b);
    case HDG_EX_MUL: return hdg_ir_mul(k, a, b);
    case HDG_EX_DIV: return hdg_ir_div(k, a, b);
    case HDG_EX_POW: return power(k, a, e->kid[1], b);
    case HDG_EX_CALL: return call(k, env, e);
    case HDG_EX_BUILTIN: return hdg_ir_call(k, builtin_fn(e->index), a);
    case HDG_EX_CMP: return hdg_ir_cmp(k, cmp_op(e->index), a, b);
    case HDG_EX_IF: {
        hdg_ir_expr *x = hdg_lower_expr(k, env, e->kid[1]);
        hdg_ir_expr *y = x ? hdg_lower_expr(k, env, e->kid[2]) : NULL;
        return y ? hdg_ir_select(k, a, x, y) : NULL;
    }
    case HDG_EX_WAVESPEED: break;   /* explicit DG only (the frontend refuses it in HDG) */
    case HDG_EX_STATE: {   /* nonlinear problems: where the lowering put the state */
        hdg_ir_expr *v = env->state ? env->state(env->state_ctx, k, e->index, e->comp, e->op, e->side) : NULL;
        if (!v) hdg_ir_builder_error(k, "the state of unknown %d is not available here", e->index);
        return v;
    }
    }
    hdg_ir_builder_error(k, "unknown expression kind %d", (int)e->kind);
    return NULL;
}
