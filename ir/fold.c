/* fold.c — constant folding and algebraic simplification. Operations on
 * constants are evaluated at compile time when the result is finite (an
 * overflow or a NaN is left for run time); calls of libm functions fold with
 * the host's libm, which may differ from a device libm in the last ulp. By
 * default only IEEE-exact identities are used: x*1 -> x, x*(-1) -> -x,
 * x/1 -> x, x - (+0) -> x, x + (-0) -> x, (-0) - x -> -x, x^0 -> 1, x^1 -> x,
 * pow(x, 2) -> x^2, x + (-c) -> x - c, x - (-y) -> x + y, (-x)*(-y) -> x*y,
 * select on a constant or with equal arms; ints fold freely (x*0, x+0,
 * (x+1)+2 -> x+3). With HDG_IR_FINITE, identities that are wrong only for
 * NaN, infinities or the sign of zero are used too: x*0 -> 0, x+0 -> x,
 * 0-x -> -x, 0/x -> 0, x-x -> 0. Statements: loops of trip count 0 vanish,
 * loops of trip count 1 are replaced by their body (index = 0), lets of a
 * constant or a variable are propagated into their uses, and `+= -0` (or,
 * finite, `+= 0`) is dropped. */
#include "ir/ir.h"

#include <math.h>
#include <stdlib.h>

typedef struct fctx {
    hdg_ir_kernel *k;
    unsigned flags;
    hdg_ir_expr **map;    /* by variable id: its replacement */
} fctx;

static int finite_math(const fctx *c) { return (c->flags & HDG_IR_FINITE) != 0; }

static int is_num(const hdg_ir_expr *e, double v)
{
    return e->op == HDG_E_NUM && e->num == v && signbit(e->num) == signbit(v);
}
static int is_zero(const hdg_ir_expr *e) { return e->op == HDG_E_NUM && e->num == 0; }
static int is_int(const hdg_ir_expr *e, long long v) { return e->op == HDG_E_INT && e->ival == v; }

static hdg_ir_expr *num(fctx *c, double v) { return hdg_ir_num(c->k, v); }
static hdg_ir_expr *integer(fctx *c, long long v) { return hdg_ir_int(c->k, v); }
static hdg_ir_expr *op2(fctx *c, hdg_ir_op op, hdg_ir_expr *a, hdg_ir_expr *b)
{
    hdg_ir_expr *v[2] = { a, b };
    return hdg_ir_op_new(c->k, op, 2, v, 0);
}
static hdg_ir_expr *neg(fctx *c, hdg_ir_expr *a) { return hdg_ir_neg(c->k, a); }

/* A constant result, or NULL when it is not finite (left for run time). */
static hdg_ir_expr *finite(fctx *c, double v) { return isfinite(v) ? num(c, v) : NULL; }

double hdg_ir_powi_eval(double x, long long n)
{
    unsigned long long m = n < 0 ? 0 - (unsigned long long)n : (unsigned long long)n;
    double r = 1.0, b = x;
    while (m) {
        if (m & 1) r *= b;
        m >>= 1;
        if (m) b *= b;
    }
    return n < 0 ? 1.0 / r : r;
}

static double call(long long fn, double x, double y)
{
    switch ((hdg_ir_fn)fn) {
    case HDG_FN_SIN: return sin(x);
    case HDG_FN_COS: return cos(x);
    case HDG_FN_TAN: return tan(x);
    case HDG_FN_ASIN: return asin(x);
    case HDG_FN_ACOS: return acos(x);
    case HDG_FN_ATAN: return atan(x);
    case HDG_FN_SINH: return sinh(x);
    case HDG_FN_COSH: return cosh(x);
    case HDG_FN_TANH: return tanh(x);
    case HDG_FN_EXP: return exp(x);
    case HDG_FN_LOG: return log(x);
    case HDG_FN_SQRT: return sqrt(x);
    case HDG_FN_ABS: return fabs(x);
    case HDG_FN_FLOOR: return floor(x);
    case HDG_FN_CEIL: return ceil(x);
    case HDG_FN_ATAN2: return atan2(x, y);
    default: return NAN;
    }
}

static int cmp_holds(hdg_ir_op op, double x, double y)
{
    switch (op) {
    case HDG_E_LT: return x < y;
    case HDG_E_LE: return x <= y;
    case HDG_E_GT: return x > y;
    case HDG_E_GE: return x >= y;
    case HDG_E_EQ: return x == y;
    default: return x != y;
    }
}

static int is_bool(const hdg_ir_expr *e)
{
    hdg_ir_range r = hdg_ir_expr_range(e);
    return r.known && r.lo >= 0 && r.hi <= 1;
}

/* Folds both-int-constant operations (C semantics; divisors are positive). */
static hdg_ir_expr *fold_int_consts(fctx *c, const hdg_ir_expr *e)
{
    long long x = e->a[0]->ival, y = e->n > 1 ? e->a[1]->ival : 0;
    switch (e->op) {
    case HDG_E_NEG: return integer(c, -x);
    case HDG_E_NOT: return integer(c, !x);
    case HDG_E_ADD: return integer(c, x + y);
    case HDG_E_SUB: return integer(c, x - y);
    case HDG_E_MUL: return integer(c, x * y);
    case HDG_E_DIV: return y > 0 ? integer(c, x / y) : NULL;
    case HDG_E_MOD: return y > 0 ? integer(c, x % y) : NULL;
    case HDG_E_MIN: return integer(c, x < y ? x : y);
    case HDG_E_MAX: return integer(c, x > y ? x : y);
    case HDG_E_AND: return integer(c, x && y);
    case HDG_E_OR: return integer(c, x || y);
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: case HDG_E_EQ: case HDG_E_NE:
        return integer(c, cmp_holds(e->op, (double)x, (double)y));
    default: return NULL;
    }
}

static hdg_ir_expr *fold_num_consts(fctx *c, const hdg_ir_expr *e)
{
    double x = e->a[0]->num, y = e->n > 1 ? e->a[1]->num : 0;
    switch (e->op) {
    case HDG_E_NEG: return num(c, -x);
    case HDG_E_ADD: return finite(c, x + y);
    case HDG_E_SUB: return finite(c, x - y);
    case HDG_E_MUL: return finite(c, x * y);
    case HDG_E_DIV: return finite(c, x / y);
    case HDG_E_POW: return finite(c, pow(x, y));
    case HDG_E_MIN: return finite(c, fmin(x, y));
    case HDG_E_MAX: return finite(c, fmax(x, y));
    case HDG_E_POWI: return finite(c, hdg_ir_powi_eval(x, e->ival));
    case HDG_E_CALL: return finite(c, call(e->ival, x, y));
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: case HDG_E_EQ: case HDG_E_NE:
        return integer(c, cmp_holds(e->op, x, y));
    default: return NULL;
    }
}

static hdg_ir_expr *simplify_int(fctx *c, hdg_ir_expr *e)
{
    hdg_ir_expr *x = e->a[0], *y = e->a[1];
    switch (e->op) {
    case HDG_E_ADD:
        if (is_int(y, 0)) return x;
        if (is_int(x, 0)) return y;
        if (y->op == HDG_E_INT && (x->op == HDG_E_ADD || x->op == HDG_E_SUB) && x->a[1]->op == HDG_E_INT)
            return op2(c, HDG_E_ADD, x->a[0], integer(c, y->ival + (x->op == HDG_E_ADD ? 1 : -1) * x->a[1]->ival));
        return e;
    case HDG_E_SUB:
        if (is_int(y, 0)) return x;
        if (is_int(x, 0)) return neg(c, y);
        if (hdg_ir_expr_equal(x, y)) return integer(c, 0);
        if (y->op == HDG_E_INT && x->op == HDG_E_ADD && x->a[1]->op == HDG_E_INT)
            return op2(c, HDG_E_ADD, x->a[0], integer(c, x->a[1]->ival - y->ival));
        return e;
    case HDG_E_MUL:
        if (is_int(x, 0) || is_int(y, 0)) return integer(c, 0);
        if (is_int(y, 1)) return x;
        if (is_int(x, 1)) return y;
        if (y->op == HDG_E_INT && x->op == HDG_E_MUL && x->a[1]->op == HDG_E_INT)
            return op2(c, HDG_E_MUL, x->a[0], integer(c, x->a[1]->ival * y->ival));
        return e;
    case HDG_E_DIV:
        return is_int(y, 1) ? x : e;
    case HDG_E_MOD:
        return is_int(y, 1) ? integer(c, 0) : e;
    case HDG_E_AND:
        if (is_int(x, 0) || is_int(y, 0)) return integer(c, 0);
        if (x->op == HDG_E_INT && is_bool(y)) return y;
        if (y->op == HDG_E_INT && is_bool(x)) return x;
        return e;
    case HDG_E_OR:
        if ((x->op == HDG_E_INT && x->ival) || (y->op == HDG_E_INT && y->ival)) return integer(c, 1);
        if (is_int(x, 0) && is_bool(y)) return y;
        if (is_int(y, 0) && is_bool(x)) return x;
        return e;
    default:
        return e;
    }
}

static hdg_ir_expr *simplify_double(fctx *c, hdg_ir_expr *e)
{
    hdg_ir_expr *x = e->a[0], *y = e->a[1];
    int fin = finite_math(c);
    switch (e->op) {
    case HDG_E_ADD:
        if (is_num(y, -0.0) || (fin && is_zero(y))) return x;
        if (is_num(x, -0.0) || (fin && is_zero(x))) return y;
        if (y->op == HDG_E_NUM && y->num < 0) return op2(c, HDG_E_SUB, x, num(c, -y->num));
        if (y->op == HDG_E_NEG) return op2(c, HDG_E_SUB, x, y->a[0]);
        if (x->op == HDG_E_NEG) return op2(c, HDG_E_SUB, y, x->a[0]);
        return e;
    case HDG_E_SUB:
        if (is_num(y, 0.0) || (fin && is_zero(y))) return x;
        if (is_num(x, -0.0) || (fin && is_zero(x))) return neg(c, y);
        if (fin && hdg_ir_expr_equal(x, y)) return num(c, 0);
        if (y->op == HDG_E_NUM && y->num < 0) return op2(c, HDG_E_ADD, x, num(c, -y->num));
        if (y->op == HDG_E_NEG) return op2(c, HDG_E_ADD, x, y->a[0]);
        return e;
    case HDG_E_MUL:
        if (fin && (is_zero(x) || is_zero(y))) return num(c, 0);
        if (is_num(y, 1)) return x;
        if (is_num(x, 1)) return y;
        if (is_num(y, -1)) return neg(c, x);
        if (is_num(x, -1)) return neg(c, y);
        if (x->op == HDG_E_NEG && y->op == HDG_E_NEG) return op2(c, HDG_E_MUL, x->a[0], y->a[0]);
        return e;
    case HDG_E_DIV:
        if (is_num(y, 1)) return x;
        if (is_num(y, -1)) return neg(c, x);
        if (fin && is_zero(x)) return num(c, 0);
        return e;
    case HDG_E_POW:
        if (is_num(y, 0) || is_num(y, -0.0)) return num(c, 1);
        if (is_num(y, 1)) return x;
        if (is_num(y, 2)) return hdg_ir_powi(c->k, x, 2);
        return e;
    case HDG_E_POWI:
        if (e->ival == 0) return num(c, 1);
        if (e->ival == 1) return x;
        return e;
    default:
        return e;
    }
}

static hdg_ir_expr *fold(fctx *c, hdg_ir_expr *e)
{
    if (e->op == HDG_E_VAR) return c->map[e->var->id] ? c->map[e->var->id] : e;
    if (hdg_ir_is_leaf(e)) return e;
    hdg_ir_expr *a[3], *row = e->row ? fold(c, e->row) : NULL;
    int changed = row != e->row;
    for (int i = 0; i < e->n; i++) {
        a[i] = fold(c, e->a[i]);
        changed |= a[i] != e->a[i];
    }
    if (changed) {
        hdg_ir_expr *n = hdg_ir_alloc(c->k->m, sizeof *n);
        *n = *e;
        n->row = row;
        for (int i = 0; i < e->n; i++) n->a[i] = a[i];
        e = n;
    }
    if (e->op == HDG_E_LOAD) return e;
    if (e->op == HDG_E_SELECT) {
        if (e->a[0]->op == HDG_E_INT) return e->a[0]->ival ? e->a[1] : e->a[2];
        return hdg_ir_expr_equal(e->a[1], e->a[2]) ? e->a[1] : e;
    }
    if (e->op == HDG_E_TODBL) return e->a[0]->op == HDG_E_INT ? num(c, (double)e->a[0]->ival) : e;
    if (e->op == HDG_E_NEG && e->a[0]->op == HDG_E_NEG) return e->a[0]->a[0];
    int all_int = 1, all_num = 1;
    for (int i = 0; i < e->n; i++) {
        all_int &= e->a[i]->op == HDG_E_INT;
        all_num &= e->a[i]->op == HDG_E_NUM;
    }
    hdg_ir_expr *r = NULL;
    if (all_int) r = fold_int_consts(c, e);
    else if (all_num) r = fold_num_consts(c, e);
    if (r) return r;
    return e->type == HDG_IR_INT || (e->n == 2 && e->a[0]->type == HDG_IR_INT)
               ? simplify_int(c, e) : simplify_double(c, e);
}

/* ----------------------------------------------------------- statements */

typedef struct list { hdg_ir_stmt *first, *last; } list;

static void push(list *l, hdg_ir_stmt *s)
{
    s->next = NULL;
    if (l->last) l->last->next = s;
    else l->first = s;
    l->last = s;
}

static void fold_block(fctx *c, hdg_ir_stmt *s, list *out);

static void fold_stmt(fctx *c, hdg_ir_stmt *s, list *out)
{
    switch (s->kind) {
    case HDG_S_FOR:
        if (s->var->extent == 0) return;
        if (s->var->extent == 1) {
            c->map[s->var->id] = integer(c, 0);
            fold_block(c, s->body.first, out);
            return;
        }
        {
            list body = { 0 };
            fold_block(c, s->body.first, &body);
            if (!body.first) return;
            s->body.first = body.first;
            s->body.last = body.last;
        }
        break;
    case HDG_S_LET:
        s->value = fold(c, s->value);
        if (hdg_ir_is_leaf(s->value)) {
            c->map[s->var->id] = s->value;
            return;
        }
        break;
    case HDG_S_STORE: {
        hdg_ir_expr *d = fold(c, s->dst);
        if (d->op != HDG_E_LOAD) return;   /* cannot happen: loads stay loads */
        s->dst = d;
        s->value = fold(c, s->value);
        const hdg_ir_expr *v = s->value;
        if (s->accumulate && (is_num(v, -0.0) || is_int(v, 0) || (finite_math(c) && is_zero(v)))) return;
        break;
    }
    default:
        break;
    }
    push(out, s);
}

static void fold_block(fctx *c, hdg_ir_stmt *s, list *out)
{
    while (s) {
        hdg_ir_stmt *next = s->next;
        fold_stmt(c, s, out);
        s = next;
    }
}

void hdg_ir_fold(hdg_ir_kernel *k, unsigned flags)
{
    fctx c = { k, flags, hdg_xcalloc((size_t)k->m->next_var_id + 1, sizeof(hdg_ir_expr *)) };
    list out = { 0 };
    fold_block(&c, k->body.first, &out);
    k->body.first = out.first;
    k->body.last = out.last;
    free(c.map);
}
