/* expr.c — IR expressions: constructors with the typing rules (int operands
 * of double arithmetic are converted, comparisons give int), structural
 * hashing and equality, int value ranges, speculation safety, substitution,
 * and the per-statement read/write sets the passes share. */
#include "ir/ir.h"

#include <string.h>

/* ------------------------------------------------------------ op tables */

static const struct { const char *name; int arity, flops; } fns[HDG_FN_COUNT] = {
    [HDG_FN_SIN] = { "sin", 1, 20 },    [HDG_FN_COS] = { "cos", 1, 20 },
    [HDG_FN_TAN] = { "tan", 1, 20 },    [HDG_FN_ASIN] = { "asin", 1, 20 },
    [HDG_FN_ACOS] = { "acos", 1, 20 },  [HDG_FN_ATAN] = { "atan", 1, 20 },
    [HDG_FN_SINH] = { "sinh", 1, 20 },  [HDG_FN_COSH] = { "cosh", 1, 20 },
    [HDG_FN_TANH] = { "tanh", 1, 20 },  [HDG_FN_EXP] = { "exp", 1, 20 },
    [HDG_FN_LOG] = { "log", 1, 20 },    [HDG_FN_SQRT] = { "sqrt", 1, 1 },
    [HDG_FN_ABS] = { "fabs", 1, 1 },    [HDG_FN_FLOOR] = { "floor", 1, 1 },
    [HDG_FN_CEIL] = { "ceil", 1, 1 },   [HDG_FN_ATAN2] = { "atan2", 2, 40 },
};

const char *hdg_ir_fn_name(hdg_ir_fn fn) { return (unsigned)fn < HDG_FN_COUNT ? fns[fn].name : "?"; }
int hdg_ir_fn_arity(hdg_ir_fn fn) { return (unsigned)fn < HDG_FN_COUNT ? fns[fn].arity : 0; }
int hdg_ir_fn_flops(hdg_ir_fn fn) { return (unsigned)fn < HDG_FN_COUNT ? fns[fn].flops : 0; }

const char *hdg_ir_op_name(hdg_ir_op op)
{
    static const char *const names[HDG_E_NOPS] = {
        [HDG_E_NUM] = "num", [HDG_E_INT] = "int", [HDG_E_VAR] = "var", [HDG_E_ITEM] = "item",
        [HDG_E_TIME] = "t", [HDG_E_PARAM] = "param", [HDG_E_LOAD] = "load",
        [HDG_E_NEG] = "-", [HDG_E_NOT] = "!", [HDG_E_TODBL] = "double", [HDG_E_POWI] = "^",
        [HDG_E_CALL] = "call", [HDG_E_ADD] = "+", [HDG_E_SUB] = "-", [HDG_E_MUL] = "*",
        [HDG_E_DIV] = "/", [HDG_E_MOD] = "%", [HDG_E_POW] = "pow", [HDG_E_MIN] = "min",
        [HDG_E_MAX] = "max", [HDG_E_LT] = "<", [HDG_E_LE] = "<=", [HDG_E_GT] = ">",
        [HDG_E_GE] = ">=", [HDG_E_EQ] = "==", [HDG_E_NE] = "!=", [HDG_E_AND] = "&&",
        [HDG_E_OR] = "||", [HDG_E_SELECT] = "select",
    };
    return (unsigned)op < HDG_E_NOPS ? names[op] : "?";
}

int hdg_ir_op_prec(const hdg_ir_expr *e)
{
    switch (e->op) {
    case HDG_E_SELECT: return 1;
    case HDG_E_OR: return 2;
    case HDG_E_AND: return 3;
    case HDG_E_EQ: case HDG_E_NE: return 4;
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: return 5;
    case HDG_E_ADD: case HDG_E_SUB: return 6;
    case HDG_E_MUL: case HDG_E_DIV: case HDG_E_MOD: return 7;
    case HDG_E_NEG: case HDG_E_NOT: case HDG_E_TODBL: return 8;
    case HDG_E_POWI: return 9;
    case HDG_E_NUM: return e->num < 0 || (e->num == 0 && 1 / e->num < 0) ? 8 : 10;
    case HDG_E_INT: return e->ival < 0 ? 8 : 10;
    default: return 10;
    }
}

int hdg_ir_is_leaf(const hdg_ir_expr *e)
{
    switch (e->op) {
    case HDG_E_NUM: case HDG_E_INT: case HDG_E_VAR: case HDG_E_ITEM: case HDG_E_TIME:
    case HDG_E_PARAM:
        return 1;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------ constructors */

static hdg_ir_expr *node(hdg_ir_kernel *k, hdg_ir_op op, hdg_ir_type type)
{
    hdg_ir_expr *e = hdg_ir_alloc(k->m, sizeof *e);
    e->op = op;
    e->type = type;
    return e;
}

hdg_ir_expr *hdg_ir_num(hdg_ir_kernel *k, double v)
{
    hdg_ir_expr *e = node(k, HDG_E_NUM, HDG_IR_DOUBLE);
    e->num = v;
    return e;
}

hdg_ir_expr *hdg_ir_int(hdg_ir_kernel *k, long long v)
{
    hdg_ir_expr *e = node(k, HDG_E_INT, HDG_IR_INT);
    e->ival = v;
    return e;
}

hdg_ir_expr *hdg_ir_item(hdg_ir_kernel *k) { return node(k, HDG_E_ITEM, HDG_IR_INT); }
hdg_ir_expr *hdg_ir_time(hdg_ir_kernel *k) { return node(k, HDG_E_TIME, HDG_IR_DOUBLE); }

hdg_ir_expr *hdg_ir_param(hdg_ir_kernel *k, int index, const char *name)
{
    hdg_ir_expr *e = node(k, HDG_E_PARAM, HDG_IR_DOUBLE);
    e->ival = index;
    e->name = hdg_ir_strdup(k->m, name);
    if (index < 0) hdg_ir_builder_error(k, "parameter index %d < 0", index);
    return e;
}

hdg_ir_expr *hdg_ir_var_ref(hdg_ir_kernel *k, hdg_ir_var *v)
{
    if (!v) {
        hdg_ir_builder_error(k, "reference to a null variable");
        return hdg_ir_int(k, 0);
    }
    hdg_ir_expr *e = node(k, HDG_E_VAR, v->type);
    e->var = v;
    return e;
}

hdg_ir_expr *hdg_ir_load_row(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *row, int n,
                             hdg_ir_expr *const *idx)
{
    if (!t) {
        hdg_ir_builder_error(k, "load from a null tensor");
        return hdg_ir_num(k, 0);
    }
    hdg_ir_expr *e = node(k, HDG_E_LOAD, t->type);
    e->t = t;
    e->row = row;
    if (n != t->rank) {
        hdg_ir_builder_error(k, "%s has rank %d but %d indices were given", t->name, t->rank, n);
        n = n < 0 ? 0 : n > 3 ? 3 : n;
    }
    e->n = n;
    for (int i = 0; i < n; i++) {
        e->a[i] = idx[i];
        if (!idx[i]) hdg_ir_builder_error(k, "%s: null index %d", t->name, i);
        else if (idx[i]->type != HDG_IR_INT) hdg_ir_builder_error(k, "%s: index %d is not an int", t->name, i);
    }
    if (row && t->kind != HDG_IR_IN && t->kind != HDG_IR_IMAP)
        hdg_ir_builder_error(k, "%s: only inputs and imaps can be read at an explicit row", t->name);
    if (row && row->type != HDG_IR_INT) hdg_ir_builder_error(k, "%s: the row is not an int", t->name);
    return e;
}

hdg_ir_expr *hdg_ir_load(hdg_ir_kernel *k, hdg_ir_tensor *t, int n, hdg_ir_expr *const *idx)
{
    return hdg_ir_load_row(k, t, NULL, n, idx);
}

hdg_ir_expr *hdg_ir_ld0(hdg_ir_kernel *k, hdg_ir_tensor *t) { return hdg_ir_load(k, t, 0, NULL); }
hdg_ir_expr *hdg_ir_ld1(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *i)
{
    return hdg_ir_load(k, t, 1, &i);
}
hdg_ir_expr *hdg_ir_ld2(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *i, hdg_ir_expr *j)
{
    hdg_ir_expr *idx[2] = { i, j };
    return hdg_ir_load(k, t, 2, idx);
}
hdg_ir_expr *hdg_ir_ld3(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *i, hdg_ir_expr *j,
                        hdg_ir_expr *l)
{
    hdg_ir_expr *idx[3] = { i, j, l };
    return hdg_ir_load(k, t, 3, idx);
}

static int arity(hdg_ir_op op, long long ival)
{
    switch (op) {
    case HDG_E_NUM: case HDG_E_INT: case HDG_E_VAR: case HDG_E_ITEM: case HDG_E_TIME:
    case HDG_E_PARAM: case HDG_E_LOAD: return 0;
    case HDG_E_NEG: case HDG_E_NOT: case HDG_E_TODBL: case HDG_E_POWI: return 1;
    case HDG_E_CALL: return hdg_ir_fn_arity((hdg_ir_fn)ival);
    case HDG_E_SELECT: return 3;
    default: return 2;
    }
}

static hdg_ir_expr *to_double(hdg_ir_kernel *k, hdg_ir_expr *a)
{
    if (a->type == HDG_IR_DOUBLE) return a;
    if (a->op == HDG_E_INT) return hdg_ir_num(k, (double)a->ival);
    hdg_ir_expr *e = node(k, HDG_E_TODBL, HDG_IR_DOUBLE);
    e->n = 1;
    e->a[0] = a;
    return e;
}

static int is_pos_int_const(const hdg_ir_expr *e) { return e->op == HDG_E_INT && e->ival > 0; }

hdg_ir_expr *hdg_ir_op_new(hdg_ir_kernel *k, hdg_ir_op op, int n, hdg_ir_expr *const *in,
                           long long ival)
{
    if (op < HDG_E_NEG || op >= HDG_E_NOPS || n != arity(op, ival)) {
        hdg_ir_builder_error(k, "operator %s with %d operands", hdg_ir_op_name(op), n);
        return hdg_ir_num(k, 0);
    }
    hdg_ir_expr *a[3] = { 0 };
    for (int i = 0; i < n; i++) {
        if (!in[i]) {
            hdg_ir_builder_error(k, "operator %s: operand %d is null", hdg_ir_op_name(op), i);
            return hdg_ir_num(k, 0);
        }
        a[i] = in[i];
    }
    hdg_ir_type type = HDG_IR_DOUBLE;
    switch (op) {
    case HDG_E_NEG:
        type = a[0]->type;
        break;
    case HDG_E_TODBL:
        return to_double(k, a[0]);
    case HDG_E_NOT:
        type = HDG_IR_INT;
        if (a[0]->type != HDG_IR_INT) hdg_ir_builder_error(k, "'!' needs an int operand");
        break;
    case HDG_E_POWI: case HDG_E_CALL: case HDG_E_POW:
        for (int i = 0; i < n; i++) a[i] = to_double(k, a[i]);
        break;
    case HDG_E_ADD: case HDG_E_SUB: case HDG_E_MUL: case HDG_E_DIV: case HDG_E_MIN: case HDG_E_MAX:
        if (a[0]->type != a[1]->type) {
            a[0] = to_double(k, a[0]);
            a[1] = to_double(k, a[1]);
        }
        type = a[0]->type;
        if (op == HDG_E_DIV && type == HDG_IR_INT && !is_pos_int_const(a[1]))
            hdg_ir_builder_error(k, "int division needs a positive constant divisor");
        break;
    case HDG_E_MOD:
        type = HDG_IR_INT;
        if (a[0]->type != HDG_IR_INT || !is_pos_int_const(a[1]))
            hdg_ir_builder_error(k, "'%%' needs an int and a positive int constant");
        break;
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: case HDG_E_EQ: case HDG_E_NE:
        if (a[0]->type != a[1]->type) {
            a[0] = to_double(k, a[0]);
            a[1] = to_double(k, a[1]);
        }
        type = HDG_IR_INT;
        break;
    case HDG_E_AND: case HDG_E_OR:
        type = HDG_IR_INT;
        if (a[0]->type != HDG_IR_INT || a[1]->type != HDG_IR_INT)
            hdg_ir_builder_error(k, "'%s' needs int operands (use comparisons)", hdg_ir_op_name(op));
        break;
    case HDG_E_SELECT:
        if (a[0]->type != HDG_IR_INT) hdg_ir_builder_error(k, "select: the condition must be an int");
        if (a[1]->type != a[2]->type) {
            a[1] = to_double(k, a[1]);
            a[2] = to_double(k, a[2]);
        }
        type = a[1]->type;
        break;
    default:
        break;
    }
    hdg_ir_expr *e = node(k, op, type);
    e->n = n;
    e->ival = ival;
    for (int i = 0; i < n; i++) e->a[i] = a[i];
    return e;
}

static hdg_ir_expr *op1(hdg_ir_kernel *k, hdg_ir_op op, hdg_ir_expr *a, long long ival)
{
    return hdg_ir_op_new(k, op, 1, &a, ival);
}

static hdg_ir_expr *op2(hdg_ir_kernel *k, hdg_ir_op op, hdg_ir_expr *a, hdg_ir_expr *b)
{
    hdg_ir_expr *v[2] = { a, b };
    return hdg_ir_op_new(k, op, 2, v, 0);
}

hdg_ir_expr *hdg_ir_neg(hdg_ir_kernel *k, hdg_ir_expr *a) { return op1(k, HDG_E_NEG, a, 0); }
hdg_ir_expr *hdg_ir_not(hdg_ir_kernel *k, hdg_ir_expr *a) { return op1(k, HDG_E_NOT, a, 0); }
hdg_ir_expr *hdg_ir_todbl(hdg_ir_kernel *k, hdg_ir_expr *a) { return op1(k, HDG_E_TODBL, a, 0); }
hdg_ir_expr *hdg_ir_powi(hdg_ir_kernel *k, hdg_ir_expr *a, int n) { return op1(k, HDG_E_POWI, a, n); }
hdg_ir_expr *hdg_ir_add(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_ADD, a, b); }
hdg_ir_expr *hdg_ir_sub(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_SUB, a, b); }
hdg_ir_expr *hdg_ir_mul(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_MUL, a, b); }
hdg_ir_expr *hdg_ir_div(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_DIV, a, b); }
hdg_ir_expr *hdg_ir_mod(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_MOD, a, b); }
hdg_ir_expr *hdg_ir_pow(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_POW, a, b); }
hdg_ir_expr *hdg_ir_min(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_MIN, a, b); }
hdg_ir_expr *hdg_ir_max(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return op2(k, HDG_E_MAX, a, b); }

hdg_ir_expr *hdg_ir_call(hdg_ir_kernel *k, hdg_ir_fn fn, hdg_ir_expr *x)
{
    return hdg_ir_op_new(k, HDG_E_CALL, 1, &x, fn);
}

hdg_ir_expr *hdg_ir_call2(hdg_ir_kernel *k, hdg_ir_fn fn, hdg_ir_expr *x, hdg_ir_expr *y)
{
    hdg_ir_expr *v[2] = { x, y };
    return hdg_ir_op_new(k, HDG_E_CALL, 2, v, fn);
}

hdg_ir_expr *hdg_ir_cmp(hdg_ir_kernel *k, hdg_ir_op op, hdg_ir_expr *a, hdg_ir_expr *b)
{
    if (op < HDG_E_LT || op > HDG_E_OR) {
        hdg_ir_builder_error(k, "hdg_ir_cmp: %s is not a comparison", hdg_ir_op_name(op));
        return hdg_ir_int(k, 0);
    }
    return op2(k, op, a, b);
}

hdg_ir_expr *hdg_ir_select(hdg_ir_kernel *k, hdg_ir_expr *c, hdg_ir_expr *a, hdg_ir_expr *b)
{
    hdg_ir_expr *v[3] = { c, a, b };
    return hdg_ir_op_new(k, HDG_E_SELECT, 3, v, 0);
}

/* ------------------------------------------------------ hashing, equality */

unsigned long long hdg_ir_expr_hash(const hdg_ir_expr *e)
{
    unsigned long long h = 1469598103934665603ULL;
#define MIX(x) (h = (h ^ (unsigned long long)(x)) * 1099511628211ULL)
    MIX(e->op);
    MIX(e->type);
    switch (e->op) {
    case HDG_E_NUM: {
        unsigned long long bits;
        memcpy(&bits, &e->num, sizeof bits);
        MIX(bits);
        MIX(bits >> 32);
        break;
    }
    case HDG_E_VAR: MIX(e->var->id); break;
    case HDG_E_LOAD:
        MIX(e->t->id);
        if (e->row) MIX(hdg_ir_expr_hash(e->row));
        break;
    default: MIX(e->ival); break;
    }
    for (int i = 0; i < e->n; i++) MIX(hdg_ir_expr_hash(e->a[i]));
#undef MIX
    return h;
}

int hdg_ir_expr_equal(const hdg_ir_expr *a, const hdg_ir_expr *b)
{
    if (a == b) return 1;
    if (!a || !b || a->op != b->op || a->type != b->type || a->n != b->n) return 0;
    switch (a->op) {
    case HDG_E_NUM:
        if (memcmp(&a->num, &b->num, sizeof a->num)) return 0;
        break;
    case HDG_E_VAR:
        if (a->var != b->var) return 0;
        break;
    case HDG_E_LOAD:
        if (a->t != b->t || !hdg_ir_expr_equal(a->row, b->row)) return 0;
        if ((a->row == NULL) != (b->row == NULL)) return 0;
        break;
    default:
        if (a->ival != b->ival) return 0;
        break;
    }
    for (int i = 0; i < a->n; i++)
        if (!hdg_ir_expr_equal(a->a[i], b->a[i])) return 0;
    return 1;
}

/* ------------------------------------------------------------- int ranges */

#define BIG (1LL << 40)

static hdg_ir_range known(long long lo, long long hi)
{
    hdg_ir_range r = { lo, hi, 1 };
    if (lo < -BIG || hi > BIG) r.known = 0;
    return r;
}

static const hdg_ir_range unknown = { 0, 0, 0 };

static long long min2(long long a, long long b) { return a < b ? a : b; }
static long long max2(long long a, long long b) { return a > b ? a : b; }

hdg_ir_range hdg_ir_expr_range(const hdg_ir_expr *e) { return hdg_ir_expr_range_env(e, NULL, NULL); }

hdg_ir_range hdg_ir_expr_range_env(const hdg_ir_expr *e, hdg_ir_var_range_fn var, void *ctx)
{
    if (!e || e->type != HDG_IR_INT) return unknown;
    switch (e->op) {
    case HDG_E_INT: return known(e->ival, e->ival);
    case HDG_E_VAR:
        if (var) return var(ctx, e->var);
        return e->var->known ? known(e->var->lo, e->var->hi) : unknown;
    case HDG_E_LOAD:
        if (e->t->kind == HDG_IR_TABLE && e->t->idata && e->t->size > 0) {
            long long lo = e->t->idata[0], hi = lo;
            for (int i = 1; i < e->t->size; i++) {
                lo = min2(lo, e->t->idata[i]);
                hi = max2(hi, e->t->idata[i]);
            }
            return known(lo, hi);
        }
        return unknown;
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: case HDG_E_EQ: case HDG_E_NE:
    case HDG_E_AND: case HDG_E_OR: case HDG_E_NOT:
        return known(0, 1);
    default:
        break;
    }
    hdg_ir_range x = hdg_ir_expr_range_env(e->a[0], var, ctx);
    hdg_ir_range y = e->n > 1 ? hdg_ir_expr_range_env(e->a[1], var, ctx) : unknown;
    switch (e->op) {
    case HDG_E_NEG:
        return x.known ? known(-x.hi, -x.lo) : unknown;
    case HDG_E_SELECT: {
        hdg_ir_range z = hdg_ir_expr_range_env(e->a[2], var, ctx);
        return y.known && z.known ? known(min2(y.lo, z.lo), max2(y.hi, z.hi)) : unknown;
    }
    default:
        break;
    }
    if (!x.known || !y.known) return unknown;
    switch (e->op) {
    case HDG_E_ADD: return known(x.lo + y.lo, x.hi + y.hi);
    case HDG_E_SUB: return known(x.lo - y.hi, x.hi - y.lo);
    case HDG_E_MUL: {
        const long long lim = 1LL << 30;
        if (x.lo < -lim || x.hi > lim || y.lo < -lim || y.hi > lim) return unknown;
        long long p[4] = { x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi };
        return known(min2(min2(p[0], p[1]), min2(p[2], p[3])), max2(max2(p[0], p[1]), max2(p[2], p[3])));
    }
    case HDG_E_DIV:
        if (y.lo != y.hi || y.lo <= 0) return unknown;
        return known(x.lo / y.lo, x.hi / y.lo);
    case HDG_E_MOD: {
        if (y.lo != y.hi || y.lo <= 0) return unknown;
        long long c = y.lo;
        if (x.lo >= 0) return x.hi < c ? x : known(0, c - 1);
        if (x.hi <= 0) return x.lo > -c ? x : known(-(c - 1), 0);
        return known(-(c - 1), c - 1);
    }
    case HDG_E_MIN: return known(min2(x.lo, y.lo), min2(x.hi, y.hi));
    case HDG_E_MAX: return known(max2(x.lo, y.lo), max2(x.hi, y.hi));
    default: return unknown;
    }
}

int hdg_ir_speculatable(const hdg_ir_expr *e)
{
    if (e->op == HDG_E_LOAD) {
        if (e->row) return 0;
        for (int i = 0; i < e->n; i++) {
            hdg_ir_range r = hdg_ir_expr_range(e->a[i]);
            if (!r.known || r.lo < 0 || r.hi >= e->t->shape[i]) return 0;
        }
    }
    for (int i = 0; i < e->n; i++)
        if (!hdg_ir_speculatable(e->a[i])) return 0;
    return 1;
}

/* ------------------------------------------------------------ substitution */

hdg_ir_expr *hdg_ir_subst(hdg_ir_kernel *k, hdg_ir_expr *e, hdg_ir_expr *const *map, int nmap)
{
    if (e->op == HDG_E_VAR) return e->var->id < nmap && map[e->var->id] ? map[e->var->id] : e;
    hdg_ir_expr *a[3], *row = e->row ? hdg_ir_subst(k, e->row, map, nmap) : NULL;
    int changed = row != e->row;
    for (int i = 0; i < e->n; i++) {
        a[i] = hdg_ir_subst(k, e->a[i], map, nmap);
        changed |= a[i] != e->a[i];
    }
    if (!changed) return e;
    hdg_ir_expr *c = hdg_ir_alloc(k->m, sizeof *c);
    *c = *e;
    c->row = row;
    for (int i = 0; i < e->n; i++) c->a[i] = a[i];
    return c;
}

/* ------------------------------------------------------- read/write sets */

static int add_unique(hdg_ir_tensor **out, int n, int max, hdg_ir_tensor *t)
{
    if (!t) return n;
    for (int i = 0; i < n; i++)
        if (out[i] == t) return n;
    if (n < max) out[n++] = t;
    return n;
}

static int writes(const hdg_ir_stmt *s, hdg_ir_tensor **out, int n, int max)
{
    for (; s; s = s->next) {
        switch (s->kind) {
        case HDG_S_FOR: n = writes(s->body.first, out, n, max); break;
        case HDG_S_LET: break;
        case HDG_S_STORE: n = add_unique(out, n, max, s->dst->t); break;
        case HDG_S_MATMUL: n = add_unique(out, n, max, s->C); break;
        case HDG_S_LU: n = add_unique(out, add_unique(out, n, max, s->A), max, s->piv); break;
        case HDG_S_CHOL: n = add_unique(out, n, max, s->A); break;
        case HDG_S_LU_SOLVE: case HDG_S_CHOL_SOLVE: n = add_unique(out, n, max, s->B); break;
        }
    }
    return n;
}

int hdg_ir_stmt_writes(const hdg_ir_stmt *s, hdg_ir_tensor **out, int max)
{
    hdg_ir_stmt one = *s;   /* just this statement, not its successors */
    one.next = NULL;
    return writes(&one, out, 0, max);
}

int hdg_ir_dense_reads(const hdg_ir_stmt *s, hdg_ir_tensor **out)
{
    int n = 0;
    switch (s->kind) {
    case HDG_S_MATMUL:
        n = add_unique(out, n, 4, s->A);
        n = add_unique(out, n, 4, s->B);
        if (s->beta != 0) n = add_unique(out, n, 4, s->C);
        break;
    case HDG_S_LU: case HDG_S_CHOL:
        n = add_unique(out, n, 4, s->A);
        break;
    case HDG_S_LU_SOLVE:
        n = add_unique(out, n, 4, s->A);
        n = add_unique(out, n, 4, s->piv);
        n = add_unique(out, n, 4, s->B);
        break;
    case HDG_S_CHOL_SOLVE:
        n = add_unique(out, n, 4, s->A);
        n = add_unique(out, n, 4, s->B);
        break;
    default:
        break;
    }
    return n;
}

void hdg_ir_matrix_dims(const hdg_ir_tensor *t, int trans, int *rows, int *cols)
{
    int r = t->rank >= 1 ? t->shape[0] : 1, c = t->rank == 2 ? t->shape[1] : 1;
    *rows = trans ? c : r;
    *cols = trans ? r : c;
}
