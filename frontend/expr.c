/* expr.c — expression trees: constructors that fold constants and trivial
 * identities, the evaluator, the printer, and simple queries. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/internal.h"
#include "support/util.h"

#define SIZE_CAP (INT_MAX / 4)

static int sat_add(int a, int b) { return a > SIZE_CAP - b ? SIZE_CAP : a + b; }

static hdg_expr *node(hdg_problem *p, hdg_expr_kind kind, int nkids, const hdg_expr *const *kids)
{
    hdg_expr *e = hdg_arena_alloc(p->arena, sizeof *e);
    e->kind = kind;
    e->nkids = nkids;
    e->depth = 1;
    e->size = 1;
    for (int i = 0; i < nkids; i++) {
        e->kid[i] = kids[i];
        if (kids[i]->depth + 1 > e->depth) e->depth = kids[i]->depth + 1;
        e->size = sat_add(e->size, kids[i]->size);
    }
    return e;
}

static const hdg_expr *node1(hdg_problem *p, hdg_expr_kind kind, const hdg_expr *a)
{
    return node(p, kind, 1, &a);
}

static const hdg_expr *node2(hdg_problem *p, hdg_expr_kind kind, const hdg_expr *a, const hdg_expr *b)
{
    const hdg_expr *k[2] = {a, b};
    return node(p, kind, 2, k);
}

bool hdg_expr_is_num(const hdg_expr *e, double v) { return e->kind == HDG_EX_NUM && e->num == v; }
static bool is_num(const hdg_expr *e) { return e->kind == HDG_EX_NUM; }

const hdg_expr *ex_num(hdg_problem *p, double v)
{
    hdg_expr *e = node(p, HDG_EX_NUM, 0, NULL);
    e->num = v == 0 ? 0.0 : v;   /* no -0 */
    return e;
}

const hdg_expr *ex_leaf(hdg_problem *p, hdg_expr_kind kind, int index)
{
    hdg_expr *e = node(p, kind, 0, NULL);
    e->index = index;
    return e;
}

const hdg_expr *ex_state(hdg_problem *p, int unknown, int comp, hdg_op op, hdg_side side)
{
    hdg_expr *e = node(p, HDG_EX_STATE, 0, NULL);
    e->index = unknown;
    e->comp = comp;
    e->op = (int)op;
    e->side = (int)side;
    return e;
}

/* Folds only when the result is a finite number. */
static const hdg_expr *folded(hdg_problem *p, double v, const hdg_expr *otherwise)
{
    return isfinite(v) ? ex_num(p, v) : otherwise;
}

const hdg_expr *ex_neg(hdg_problem *p, const hdg_expr *a)
{
    if (is_num(a)) return ex_num(p, -a->num);
    if (a->kind == HDG_EX_NEG) return a->kid[0];
    if (a->kind == HDG_EX_SUB) return node2(p, HDG_EX_SUB, a->kid[1], a->kid[0]);
    if (a->kind == HDG_EX_MUL && is_num(a->kid[0]))
        return node2(p, HDG_EX_MUL, ex_num(p, -a->kid[0]->num), a->kid[1]);
    return node1(p, HDG_EX_NEG, a);
}

const hdg_expr *ex_add(hdg_problem *p, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(a) && is_num(b)) return folded(p, a->num + b->num, node2(p, HDG_EX_ADD, a, b));
    if (hdg_expr_is_num(a, 0)) return b;
    if (hdg_expr_is_num(b, 0)) return a;
    if (b->kind == HDG_EX_NEG) return ex_sub(p, a, b->kid[0]);
    if (is_num(b) && b->num < 0) return ex_sub(p, a, ex_num(p, -b->num));
    if (a->kind == HDG_EX_NEG) return ex_sub(p, b, a->kid[0]);
    return node2(p, HDG_EX_ADD, a, b);
}

const hdg_expr *ex_sub(hdg_problem *p, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(a) && is_num(b)) return folded(p, a->num - b->num, node2(p, HDG_EX_SUB, a, b));
    if (hdg_expr_is_num(b, 0)) return a;
    if (hdg_expr_is_num(a, 0)) return ex_neg(p, b);
    if (b->kind == HDG_EX_NEG) return ex_add(p, a, b->kid[0]);
    if (is_num(b) && b->num < 0) return ex_add(p, a, ex_num(p, -b->num));
    return node2(p, HDG_EX_SUB, a, b);
}

const hdg_expr *ex_mul(hdg_problem *p, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(a) && is_num(b)) return folded(p, a->num * b->num, node2(p, HDG_EX_MUL, a, b));
    if (hdg_expr_is_num(a, 0) || hdg_expr_is_num(b, 0)) return ex_num(p, 0);
    if (hdg_expr_is_num(a, 1)) return b;
    if (hdg_expr_is_num(b, 1)) return a;
    if (hdg_expr_is_num(a, -1)) return ex_neg(p, b);
    if (hdg_expr_is_num(b, -1)) return ex_neg(p, a);
    if (is_num(b)) return ex_mul(p, b, a);                 /* numbers first */
    if (a->kind == HDG_EX_NEG) return ex_neg(p, ex_mul(p, a->kid[0], b));
    if (b->kind == HDG_EX_NEG) return ex_neg(p, ex_mul(p, a, b->kid[0]));
    if (is_num(a) && b->kind == HDG_EX_MUL && is_num(b->kid[0]))
        return ex_mul(p, ex_num(p, a->num * b->kid[0]->num), b->kid[1]);
    return node2(p, HDG_EX_MUL, a, b);
}

const hdg_expr *ex_div(hdg_problem *p, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(a) && is_num(b) && b->num != 0)
        return folded(p, a->num / b->num, node2(p, HDG_EX_DIV, a, b));
    if (hdg_expr_is_num(b, 1)) return a;
    if (hdg_expr_is_num(b, -1)) return ex_neg(p, a);
    if (hdg_expr_is_num(a, 0) && !hdg_expr_is_num(b, 0)) return a;
    if (a->kind == HDG_EX_NEG) return ex_neg(p, ex_div(p, a->kid[0], b));
    if (b->kind == HDG_EX_NEG) return ex_neg(p, ex_div(p, a, b->kid[0]));
    return node2(p, HDG_EX_DIV, a, b);
}

const hdg_expr *ex_pow(hdg_problem *p, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(a) && is_num(b)) return folded(p, pow(a->num, b->num), node2(p, HDG_EX_POW, a, b));
    if (hdg_expr_is_num(b, 1)) return a;
    if (hdg_expr_is_num(b, 0)) return ex_num(p, 1);
    return node2(p, HDG_EX_POW, a, b);
}

static double builtin(hdg_builtin f, double v)
{
    switch (f) {
    case HDG_BUILTIN_SIN: return sin(v);
    case HDG_BUILTIN_COS: return cos(v);
    case HDG_BUILTIN_EXP: return exp(v);
    case HDG_BUILTIN_LOG: return log(v);
    case HDG_BUILTIN_SQRT: return sqrt(v);
    case HDG_BUILTIN_TANH: return tanh(v);
    case HDG_BUILTIN_ABS: return fabs(v);
    }
    return NAN;
}

const hdg_expr *ex_builtin(hdg_problem *p, hdg_builtin f, const hdg_expr *a)
{
    hdg_expr *e = (hdg_expr *)node1(p, HDG_EX_BUILTIN, a);
    e->index = (int)f;
    if (is_num(a)) return folded(p, builtin(f, a->num), e);
    return e;
}

static double compare(hdg_cmp op, double a, double b)
{
    switch (op) {
    case HDG_CMP_LT: return a < b;
    case HDG_CMP_LE: return a <= b;
    case HDG_CMP_GT: return a > b;
    case HDG_CMP_GE: return a >= b;
    case HDG_CMP_EQ: return a == b;
    case HDG_CMP_NE: return a != b;
    }
    return 0;
}

const hdg_expr *ex_cmp(hdg_problem *p, hdg_cmp op, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(a) && is_num(b)) return ex_num(p, compare(op, a->num, b->num));
    hdg_expr *e = (hdg_expr *)node2(p, HDG_EX_CMP, a, b);
    e->index = (int)op;
    return e;
}

const hdg_expr *ex_if(hdg_problem *p, const hdg_expr *c, const hdg_expr *a, const hdg_expr *b)
{
    if (is_num(c)) return c->num != 0 ? a : b;
    if (a == b || (is_num(a) && is_num(b) && a->num == b->num)) return a;
    const hdg_expr *k[3] = {c, a, b};
    return node(p, HDG_EX_IF, 3, k);
}

const hdg_expr *ex_call(hdg_problem *p, int func, int comp, int nargs, const hdg_expr *const *args)
{
    const hdg_expr *fixed = p->funcs[func].body[comp];
    if (fixed && fixed->kind == HDG_EX_NUM) return ex_num(p, fixed->num);   /* Id().xy = 0 */
    hdg_expr *e = node(p, HDG_EX_CALL, nargs, args);
    e->index = func;
    e->comp = comp;
    const hdg_expr *body = p->funcs[func].body[comp];
    if (body) {
        if (body->depth + 1 > e->depth) e->depth = body->depth + 1;
        e->size = sat_add(e->size, body->size);
    }
    return e;
}

/* Rebuilds e's kind over new kids, through the folding constructors. */
static const hdg_expr *rebuild(hdg_problem *p, const hdg_expr *e, const hdg_expr *const *k)
{
    switch (e->kind) {
    case HDG_EX_NEG: return ex_neg(p, k[0]);
    case HDG_EX_ADD: return ex_add(p, k[0], k[1]);
    case HDG_EX_SUB: return ex_sub(p, k[0], k[1]);
    case HDG_EX_MUL: return ex_mul(p, k[0], k[1]);
    case HDG_EX_DIV: return ex_div(p, k[0], k[1]);
    case HDG_EX_POW: return ex_pow(p, k[0], k[1]);
    case HDG_EX_BUILTIN: return ex_builtin(p, (hdg_builtin)e->index, k[0]);
    case HDG_EX_CMP: return ex_cmp(p, (hdg_cmp)e->index, k[0], k[1]);
    case HDG_EX_IF: return ex_if(p, k[0], k[1], k[2]);
    case HDG_EX_CALL: return ex_call(p, e->index, e->comp, e->nkids, k);
    default: return e;
    }
}

const hdg_expr *ex_subst(hdg_problem *p, const hdg_expr *e, const hdg_expr *const vals[HDG_NVARS])
{
    if (e->kind == HDG_EX_COORD) return vals[e->index] ? vals[e->index] : e;
    if (e->nkids == 0) return e;
    const hdg_expr *k[HDG_NVARS] = {NULL};
    bool changed = false;
    for (int i = 0; i < e->nkids; i++) {
        k[i] = ex_subst(p, e->kid[i], vals);
        changed |= k[i] != e->kid[i];
    }
    return changed ? rebuild(p, e, k) : e;
}

/* e with every STATE leaf on the exterior side; NULL when a leaf is already exterior or a derivative. */
const hdg_expr *ex_state_exterior(hdg_problem *p, const hdg_expr *e)
{
    if (e->kind == HDG_EX_STATE) {
        if (e->side == HDG_SIDE_EXTERIOR || e->op != HDG_OP_VALUE) return NULL;
        return ex_state(p, e->index, e->comp, HDG_OP_VALUE, HDG_SIDE_EXTERIOR);
    }
    if (e->nkids == 0) return e;
    const hdg_expr *k[HDG_NVARS] = {NULL};
    bool changed = false;
    for (int i = 0; i < e->nkids; i++) {
        if (!(k[i] = ex_state_exterior(p, e->kid[i]))) return NULL;
        changed |= k[i] != e->kid[i];
    }
    return changed ? rebuild(p, e, k) : e;
}

const hdg_expr *hdg_expr_at_time(hdg_problem *p, const hdg_expr *e, double t0)
{
    const hdg_expr *vals[HDG_NVARS] = {NULL};
    vals[HDG_VAR_T] = ex_num(p, t0);
    return ex_subst(p, e, vals);
}

static const hdg_expr *inline_calls(hdg_problem *p, const hdg_expr *e)
{
    if (e->nkids == 0) return e;
    const hdg_expr *k[HDG_NVARS] = {NULL};
    for (int i = 0; i < e->nkids; i++) k[i] = inline_calls(p, e->kid[i]);
    if (e->kind != HDG_EX_CALL) return rebuild(p, e, k);
    const hdg_func *f = &p->funcs[e->index];
    const hdg_expr *vals[HDG_NVARS] = {NULL};
    for (int i = 0; i < f->nargs; i++) vals[f->args[i]] = k[i];
    return ex_subst(p, inline_calls(p, f->body[e->comp]), vals);
}

const hdg_expr *hdg_expr_inline(hdg_problem *p, const hdg_expr *e)
{
    if (ex_too_big(e)) return NULL;
    if (e->kind != HDG_EX_CALL && e->nkids == 0) return e;
    const hdg_expr *r = inline_calls(p, e);
    return ex_too_big(r) ? NULL : r;
}

bool ex_too_big(const hdg_expr *e) { return e->size > HDG_EXPR_MAX_SIZE || e->depth > HDG_EXPR_MAX_DEPTH; }

bool hdg_expr_depends(const hdg_expr *e, hdg_var var)
{
    if (e->kind == HDG_EX_COORD) return e->index == (int)var;
    for (int i = 0; i < e->nkids; i++)
        if (hdg_expr_depends(e->kid[i], var)) return true;
    return false;
}

bool hdg_expr_has_normal(const hdg_expr *e)
{
    if (e->kind == HDG_EX_NORMAL) return true;
    for (int i = 0; i < e->nkids; i++)
        if (hdg_expr_has_normal(e->kid[i])) return true;
    return false;
}

bool hdg_expr_has_state(const hdg_expr *e)
{
    if (e->kind == HDG_EX_STATE || e->kind == HDG_EX_WAVESPEED) return true;
    for (int i = 0; i < e->nkids; i++)
        if (hdg_expr_has_state(e->kid[i])) return true;
    return false;
}

bool hdg_expr_has_wavespeed(const hdg_expr *e)
{
    if (e->kind == HDG_EX_WAVESPEED) return true;
    for (int i = 0; i < e->nkids; i++)
        if (hdg_expr_has_wavespeed(e->kid[i])) return true;
    return false;
}

bool ex_mentions_unknown(const hdg_expr *e, int unknown)
{
    if (e->kind == HDG_EX_STATE) return e->index == unknown;
    for (int i = 0; i < e->nkids; i++)
        if (ex_mentions_unknown(e->kid[i], unknown)) return true;
    return false;
}

bool ex_is_const(const hdg_expr *e)
{
    if (e->kind == HDG_EX_COORD || e->kind == HDG_EX_NORMAL || e->kind == HDG_EX_STATE ||
        e->kind == HDG_EX_WAVESPEED)
        return false;
    for (int i = 0; i < e->nkids; i++)
        if (!ex_is_const(e->kid[i])) return false;
    return true;
}

/* ---------------------------------------------------------------- evaluation */

double hdg_expr_eval(const hdg_expr *e, const hdg_eval_env *env)
{
    const hdg_expr *const *k = e->kid;
    switch (e->kind) {
    case HDG_EX_NUM: return e->num;
    case HDG_EX_PI: return 3.14159265358979323846;
    case HDG_EX_PARAM: return env->problem ? env->problem->params[e->index].value : NAN;
    case HDG_EX_COORD:
        return e->index == HDG_VAR_X ? env->x : e->index == HDG_VAR_Y ? env->y : e->index == HDG_VAR_Z ? env->z
                                                                                                   : env->t;
    case HDG_EX_NORMAL: return e->index == 0 ? env->nx : e->index == 1 ? env->ny : env->nz;
    case HDG_EX_NEG: return -hdg_expr_eval(k[0], env);
    case HDG_EX_ADD: return hdg_expr_eval(k[0], env) + hdg_expr_eval(k[1], env);
    case HDG_EX_SUB: return hdg_expr_eval(k[0], env) - hdg_expr_eval(k[1], env);
    case HDG_EX_MUL: return hdg_expr_eval(k[0], env) * hdg_expr_eval(k[1], env);
    case HDG_EX_DIV: return hdg_expr_eval(k[0], env) / hdg_expr_eval(k[1], env);
    case HDG_EX_POW: return pow(hdg_expr_eval(k[0], env), hdg_expr_eval(k[1], env));
    case HDG_EX_BUILTIN: return builtin((hdg_builtin)e->index, hdg_expr_eval(k[0], env));
    case HDG_EX_CMP: return compare((hdg_cmp)e->index, hdg_expr_eval(k[0], env), hdg_expr_eval(k[1], env));
    case HDG_EX_IF: return hdg_expr_eval(k[0], env) != 0 ? hdg_expr_eval(k[1], env) : hdg_expr_eval(k[2], env);
    case HDG_EX_STATE:
        return env->state ? env->state(env->state_ctx, e->index, e->comp, e->op, e->side) : NAN;
    case HDG_EX_WAVESPEED: return env->wavespeed;
    case HDG_EX_CALL: {
        if (!env->problem) return NAN;
        const hdg_func *f = &env->problem->funcs[e->index];
        hdg_eval_env inner = *env;
        for (int i = 0; i < f->nargs; i++) {
            double v = hdg_expr_eval(k[i], env);
            if (f->args[i] == HDG_VAR_X) inner.x = v;
            else if (f->args[i] == HDG_VAR_Y) inner.y = v;
            else if (f->args[i] == HDG_VAR_Z) inner.z = v;
            else inner.t = v;
        }
        return hdg_expr_eval(f->body[e->comp], &inner);
    }
    }
    return NAN;
}

/* ---------------------------------------------------------------- printing */

const char *hdg_builtin_name(hdg_builtin f)
{
    static const char *names[] = {"sin", "cos", "exp", "log", "sqrt", "tanh", "abs"};
    return (unsigned)f < 7 ? names[f] : "?";
}

const char *hdg_cmp_name(hdg_cmp c)
{
    static const char *names[] = {"<", "<=", ">", ">=", "==", "!="};
    return (unsigned)c < 6 ? names[c] : "?";
}

const char *hdg_var_name(hdg_var v)
{
    static const char *names[] = {"x", "y", "t", "z"};
    return (unsigned)v < HDG_NVARS ? names[v] : "?";
}

static void print_num(hdg_str *b, double v)
{
    char buf[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    hdg_str_puts(b, buf);
}

static int prec_of(const hdg_expr *e)
{
    switch (e->kind) {
    case HDG_EX_ADD: case HDG_EX_SUB: return 1;
    case HDG_EX_MUL: case HDG_EX_DIV: return 2;
    case HDG_EX_NEG: return 3;
    case HDG_EX_POW: return 4;
    case HDG_EX_NUM: return e->num < 0 ? 3 : 5;
    case HDG_EX_CMP: return 0;
    default: return 5;
    }
}

/* "u", "q.x", "dx(u)", "ext(u)", "dy(ext(q.x))": as the unknown is written in the language. */
static void print_state(hdg_str *b, const hdg_problem *p, const hdg_expr *e)
{
    static const char *ops[] = {"", "dx(", "dy(", "dz("};
    bool ext = e->side == HDG_SIDE_EXTERIOR;
    hdg_str_puts(b, ops[e->op]);
    if (ext) hdg_str_puts(b, "ext(");
    if (p) hdg_str_printf(b, "%s%s", p->unknowns[e->index].name,
                          hdg_comp_suffix(p->unknowns[e->index].ncomp, e->comp));
    else hdg_str_printf(b, "unknown%d.%d", e->index, e->comp);
    if (ext) hdg_str_putc(b, ')');
    if (e->op) hdg_str_putc(b, ')');
}

static void print(hdg_str *b, const hdg_problem *p, const hdg_expr *e, int need)
{
    bool paren = prec_of(e) < need;
    if (paren) hdg_str_putc(b, '(');
    const hdg_expr *const *k = e->kid;
    switch (e->kind) {
    case HDG_EX_NUM: print_num(b, e->num); break;
    case HDG_EX_PI: hdg_str_puts(b, "pi"); break;
    case HDG_EX_PARAM:
        if (p) hdg_str_puts(b, p->params[e->index].name);
        else hdg_str_printf(b, "param%d", e->index);
        break;
    case HDG_EX_COORD: hdg_str_puts(b, hdg_var_name((hdg_var)e->index)); break;
    case HDG_EX_NORMAL: hdg_str_puts(b, e->index == 0 ? "nx" : e->index == 1 ? "ny" : "nz"); break;
    case HDG_EX_NEG: hdg_str_putc(b, '-'); print(b, p, k[0], 3); break;
    case HDG_EX_ADD: print(b, p, k[0], 1); hdg_str_puts(b, " + "); print(b, p, k[1], 1); break;
    case HDG_EX_SUB: print(b, p, k[0], 1); hdg_str_puts(b, " - "); print(b, p, k[1], 2); break;
    case HDG_EX_MUL: print(b, p, k[0], 2); hdg_str_putc(b, '*'); print(b, p, k[1], 3); break;
    case HDG_EX_DIV: print(b, p, k[0], 2); hdg_str_putc(b, '/'); print(b, p, k[1], 3); break;
    case HDG_EX_POW: print(b, p, k[0], 5); hdg_str_putc(b, '^'); print(b, p, k[1], 4); break;
    case HDG_EX_BUILTIN:
        hdg_str_printf(b, "%s(", hdg_builtin_name((hdg_builtin)e->index));
        print(b, p, k[0], 0);
        hdg_str_putc(b, ')');
        break;
    case HDG_EX_CMP:
        print(b, p, k[0], 1);
        hdg_str_printf(b, " %s ", hdg_cmp_name((hdg_cmp)e->index));
        print(b, p, k[1], 1);
        break;
    case HDG_EX_IF:
        hdg_str_puts(b, "if(");
        for (int i = 0; i < 3; i++) {
            if (i) hdg_str_puts(b, ", ");
            print(b, p, k[i], 0);
        }
        hdg_str_putc(b, ')');
        break;
    case HDG_EX_CALL:
        if (p) hdg_str_puts(b, p->funcs[e->index].name);
        else hdg_str_printf(b, "func%d", e->index);
        hdg_str_putc(b, '(');
        for (int i = 0; i < e->nkids; i++) {
            if (i) hdg_str_puts(b, ", ");
            print(b, p, k[i], 0);
        }
        hdg_str_putc(b, ')');
        if (p) hdg_str_puts(b, hdg_comp_suffix(p->funcs[e->index].ncomp, e->comp));
        break;
    case HDG_EX_STATE: print_state(b, p, e); break;
    case HDG_EX_WAVESPEED: hdg_str_puts(b, "wavespeed"); break;
    }
    if (paren) hdg_str_putc(b, ')');
}

void hdg_expr_print_to(hdg_str *b, const hdg_problem *p, const hdg_expr *e, int need) { print(b, p, e, need); }

char *hdg_expr_str(const hdg_problem *p, const hdg_expr *e)
{
    hdg_str b;
    hdg_str_init(&b);
    if (e->size > 20000) hdg_str_printf(&b, "<expression of %d nodes>", e->size);
    else print(&b, p, e, 0);
    return hdg_str_take(&b);
}
