/* verify.c — the IR checker. Every backend and pass calls hdg_ir_verify
 * first, so a lowering bug surfaces as one clear message naming the kernel
 * and tensor instead of as broken generated code. Checks: builder errors,
 * unclosed loops, variable scopes (each variable defined once, used only
 * where visible), types, tensor ownership and kinds (stores only to LOCAL or
 * OUT, rows only on IN/IMAP), dense-op shapes, and bounds: every index whose
 * int range is known must lie in its dimension (under a select arm only an
 * index entirely outside is an error, since the select may guard it). */
#include "ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vctx {
    const hdg_ir_kernel *k;
    char *visible, *defined;   /* by variable id */
    char msg[512];
} vctx;

static int fail(vctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(vctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    return 0;
}
#define FAIL fail

static int owned(vctx *c, const hdg_ir_tensor *t)
{
    if (!t) return FAIL(c, "a null tensor");
    if (t->kind == HDG_IR_TABLE) {
        if (t->kernel || t->size == 0) return FAIL(c, "table %s has a bad shape", t->name);
        return 1;
    }
    if (t->kernel != c->k) return FAIL(c, "tensor %s belongs to kernel %s", t->name, t->kernel->name);
    return 1;
}

static int check_expr(vctx *c, const hdg_ir_expr *e, int guarded);

static int check_index(vctx *c, const hdg_ir_expr *e, int guarded)
{
    const hdg_ir_tensor *t = e->t;
    if (!owned(c, t)) return 0;
    if (e->n != t->rank) return FAIL(c, "%s has rank %d but is indexed with %d", t->name, t->rank, e->n);
    if (e->row) {
        if (t->kind != HDG_IR_IN && t->kind != HDG_IR_IMAP)
            return FAIL(c, "%s: only inputs and imaps can be read at an explicit row", t->name);
        if (e->row->type != HDG_IR_INT) return FAIL(c, "%s: the row is not an int", t->name);
        if (!check_expr(c, e->row, guarded)) return 0;
    }
    for (int i = 0; i < e->n; i++) {
        const hdg_ir_expr *x = e->a[i];
        if (!x) return FAIL(c, "%s: null index %d", t->name, i);
        if (x->type != HDG_IR_INT) return FAIL(c, "%s: index %d is not an int", t->name, i);
        if (!check_expr(c, x, guarded)) return 0;
        hdg_ir_range r = hdg_ir_expr_range(x);
        if (!r.known) continue;
        int outside = guarded ? (r.hi < 0 || r.lo >= t->shape[i]) : (r.lo < 0 || r.hi >= t->shape[i]);
        if (outside) {
            hdg_str s;
            hdg_str_init(&s);
            hdg_ir_print_expr(x, &s);
            FAIL(c, "%s: index %d (%s) has range [%lld, %lld], outside [0, %d)", t->name, i, s.s,
                 r.lo, r.hi, t->shape[i]);
            hdg_str_free(&s);
            return 0;
        }
    }
    return 1;
}

static int check_expr(vctx *c, const hdg_ir_expr *e, int guarded)
{
    if (!e) return FAIL(c, "a null expression");
    for (int i = 0; i < e->n && e->op != HDG_E_LOAD; i++) {
        if (!e->a[i]) return FAIL(c, "'%s' has a null operand", hdg_ir_op_name(e->op));
        if (!check_expr(c, e->a[i], guarded || (e->op == HDG_E_SELECT && i > 0))) return 0;
    }
    const hdg_ir_expr *x = e->a[0], *y = e->a[1];
    switch (e->op) {
    case HDG_E_NUM: case HDG_E_TIME:
        return e->type == HDG_IR_DOUBLE || FAIL(c, "bad constant type");
    case HDG_E_INT: case HDG_E_ITEM:
        return e->type == HDG_IR_INT || FAIL(c, "bad int type");
    case HDG_E_PARAM:
        return e->ival >= 0 || FAIL(c, "parameter index %lld < 0", e->ival);
    case HDG_E_VAR:
        if (!e->var) return FAIL(c, "a null variable");
        if (!c->visible[e->var->id]) return FAIL(c, "variable %s used outside its scope", e->var->name);
        return e->type == e->var->type || FAIL(c, "variable %s used with the wrong type", e->var->name);
    case HDG_E_LOAD:
        if (e->type != e->t->type) return FAIL(c, "load of %s with the wrong type", e->t->name);
        return check_index(c, e, guarded);
    case HDG_E_NEG:
        return e->type == x->type || FAIL(c, "negation changes the type");
    case HDG_E_NOT:
        return (x->type == HDG_IR_INT && e->type == HDG_IR_INT) || FAIL(c, "'!' of a double");
    case HDG_E_TODBL:
        return (x->type == HDG_IR_INT && e->type == HDG_IR_DOUBLE) || FAIL(c, "bad conversion");
    case HDG_E_POWI: case HDG_E_POW: case HDG_E_CALL:
        if (e->op == HDG_E_CALL && (e->ival < 0 || e->ival >= HDG_FN_COUNT ||
                                   e->n != hdg_ir_fn_arity((hdg_ir_fn)e->ival)))
            return FAIL(c, "a call of an unknown function");
        for (int i = 0; i < e->n; i++)
            if (e->a[i]->type != HDG_IR_DOUBLE) return FAIL(c, "'%s' of an int", hdg_ir_op_name(e->op));
        return e->type == HDG_IR_DOUBLE || FAIL(c, "'%s' must be double", hdg_ir_op_name(e->op));
    case HDG_E_ADD: case HDG_E_SUB: case HDG_E_MUL: case HDG_E_DIV: case HDG_E_MIN: case HDG_E_MAX:
        if (x->type != y->type || e->type != x->type)
            return FAIL(c, "'%s' mixes int and double", hdg_ir_op_name(e->op));
        if (e->op == HDG_E_DIV && e->type == HDG_IR_INT && !(y->op == HDG_E_INT && y->ival > 0))
            return FAIL(c, "int division needs a positive constant divisor");
        return 1;
    case HDG_E_MOD:
        if (x->type != HDG_IR_INT || !(y->op == HDG_E_INT && y->ival > 0) || e->type != HDG_IR_INT)
            return FAIL(c, "'%%' needs an int and a positive int constant");
        return 1;
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: case HDG_E_EQ: case HDG_E_NE:
        return (x->type == y->type && e->type == HDG_IR_INT) ||
               FAIL(c, "'%s' compares int with double", hdg_ir_op_name(e->op));
    case HDG_E_AND: case HDG_E_OR:
        return (x->type == HDG_IR_INT && y->type == HDG_IR_INT && e->type == HDG_IR_INT) ||
               FAIL(c, "'%s' needs ints", hdg_ir_op_name(e->op));
    case HDG_E_SELECT:
        if (x->type != HDG_IR_INT) return FAIL(c, "select on a double condition");
        return (e->a[1]->type == e->a[2]->type && e->type == e->a[1]->type) ||
               FAIL(c, "select arms of different types");
    default:
        return FAIL(c, "unknown expression op %d", (int)e->op);
    }
}

static int dims_ok(const hdg_ir_tensor *t) { return t->type == HDG_IR_DOUBLE && t->rank >= 1 && t->rank <= 2; }
static int writable(const hdg_ir_tensor *t) { return t->kind == HDG_IR_LOCAL || t->kind == HDG_IR_OUT; }
static int square(const hdg_ir_tensor *t) { return t->rank == 2 && t->shape[0] == t->shape[1]; }

static const char *dfail(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static const char *dfail(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}
#define DFAIL(...) dfail(buf, n, __VA_ARGS__)

static const char *owner_msg(const hdg_ir_kernel *k, const hdg_ir_tensor *t, char *buf, size_t n)
{
    if (!t) return DFAIL("a dense op has a null operand");
    if (t->kind == HDG_IR_TABLE ? t->kernel != NULL : t->kernel != k)
        return DFAIL("tensor %s of a dense op belongs to another kernel", t->name);
    return NULL;
}

const char *hdg_ir_check_dense(const hdg_ir_kernel *k, const hdg_ir_stmt *s, char *buf, size_t n)
{
    hdg_ir_tensor *ops[4] = { s->A, s->B, s->C, s->piv };
    int need[4] = { 1, s->kind == HDG_S_MATMUL || s->kind == HDG_S_LU_SOLVE || s->kind == HDG_S_CHOL_SOLVE,
                    s->kind == HDG_S_MATMUL, s->kind == HDG_S_LU || s->kind == HDG_S_LU_SOLVE };
    for (int i = 0; i < 4; i++) {
        const char *m = need[i] ? owner_msg(k, ops[i], buf, n) : NULL;
        if (m) return m;
    }
    const hdg_ir_tensor *A = s->A, *B = s->B, *C = s->C, *piv = s->piv;
    switch (s->kind) {
    case HDG_S_MATMUL: {
        if (!dims_ok(A) || !dims_ok(B) || !dims_ok(C))
            return DFAIL("matmul %s = %s %s: operands must be double matrices or vectors", C->name, A->name, B->name);
        if (!writable(C)) return DFAIL("matmul: result %s is not a local or output", C->name);
        if (C == A || C == B) return DFAIL("matmul: result %s aliases an operand", C->name);
        int m, p, p2, q;
        hdg_ir_matrix_dims(A, s->transa, &m, &p);
        hdg_ir_matrix_dims(B, s->transb, &p2, &q);
        if (p != p2) return DFAIL("matmul %s = %s %s: inner dimensions %d and %d differ", C->name, A->name, B->name, p, p2);
        int ok = C->rank == 2 ? (C->shape[0] == m && C->shape[1] == q) : (C->size == m * q && (m == 1 || q == 1));
        if (!ok) return DFAIL("matmul %s = %s %s: the result must be %d x %d", C->name, A->name, B->name, m, q);
        return NULL;
    }
    case HDG_S_LU: case HDG_S_CHOL:
        if (!dims_ok(A) || !square(A) || !writable(A))
            return DFAIL("%s: %s must be a square local or output matrix", s->kind == HDG_S_LU ? "lu" : "chol", A->name);
        if (s->kind == HDG_S_LU && (piv->type != HDG_IR_INT || piv->kind != HDG_IR_LOCAL || piv->rank != 1 ||
                                    piv->shape[0] != A->shape[0]))
            return DFAIL("lu %s: pivots %s must be a local int vector of %d", A->name, piv->name, A->shape[0]);
        return NULL;
    case HDG_S_LU_SOLVE: case HDG_S_CHOL_SOLVE:
        if (!dims_ok(A) || !square(A)) return DFAIL("solve: %s must be a square matrix", A->name);
        if (!dims_ok(B) || !writable(B) || B->shape[0] != A->shape[0])
            return DFAIL("solve with %s: right-hand side %s must be a local or output with %d rows", A->name, B->name, A->shape[0]);
        if (B == A) return DFAIL("solve: %s is both the matrix and the right-hand side", A->name);
        if (s->kind == HDG_S_LU_SOLVE && (piv->type != HDG_IR_INT || piv->rank != 1 || piv->shape[0] != A->shape[0]))
            return DFAIL("lu_solve %s: pivots %s must be an int vector of %d", A->name, piv->name, A->shape[0]);
        return NULL;
    default:
        return DFAIL("not a dense op");
    }
}

static int check_block(vctx *c, const hdg_ir_stmt *s);

static int check_stmt(vctx *c, const hdg_ir_stmt *s)
{
    switch (s->kind) {
    case HDG_S_FOR: {
        hdg_ir_var *v = s->var;
        if (!v || !v->is_loop || v->type != HDG_IR_INT) return FAIL(c, "a loop without an int index");
        if (v->extent < 0) return FAIL(c, "loop %s has a negative trip count", v->name);
        if (c->defined[v->id]) return FAIL(c, "variable %s defined twice", v->name);
        c->defined[v->id] = c->visible[v->id] = 1;
        int ok = check_block(c, s->body.first);
        c->visible[v->id] = 0;
        return ok;
    }
    case HDG_S_LET:
        if (!s->var || s->var->is_loop) return FAIL(c, "a let without a variable");
        if (!check_expr(c, s->value, 0)) return 0;
        if (s->value->type != s->var->type) return FAIL(c, "let %s: value of the wrong type", s->var->name);
        if (c->defined[s->var->id]) return FAIL(c, "variable %s defined twice", s->var->name);
        c->defined[s->var->id] = c->visible[s->var->id] = 1;
        return 1;
    case HDG_S_STORE:
        if (!s->dst || s->dst->op != HDG_E_LOAD || s->dst->row)
            return FAIL(c, "a store whose destination is not a tensor element");
        if (!owned(c, s->dst->t)) return 0;
        if (!writable(s->dst->t)) return FAIL(c, "store into %s, which is not a local or output", s->dst->t->name);
        if (!check_expr(c, s->dst, 0) || !check_expr(c, s->value, 0)) return 0;
        if (s->value->type != s->dst->t->type)
            return FAIL(c, "store into %s: value of the wrong type", s->dst->t->name);
        return 1;
    default: {
        char buf[256];
        const char *m = hdg_ir_check_dense(c->k, s, buf, sizeof buf);
        return m ? FAIL(c, "%s", m) : 1;
    }
    }
}

/* Variables defined in a block stop being visible at its end. */
static int check_block(vctx *c, const hdg_ir_stmt *first)
{
    int ok = 1;
    const hdg_ir_stmt *s;
    for (s = first; s && ok; s = s->next) ok = check_stmt(c, s);
    for (const hdg_ir_stmt *t = first; t != s; t = t->next)
        if (t->kind == HDG_S_LET) c->visible[t->var->id] = 0;
    return ok;
}

hdg_status hdg_ir_verify(const hdg_ir_kernel *k, hdg_error *err)
{
    if (k->error) return hdg_fail(err, HDG_EINTERNAL, "IR kernel %s: %s", k->name, k->error);
    if (k->depth != 1)
        return hdg_fail(err, HDG_EINTERNAL, "IR kernel %s: %d loop(s) left open", k->name, k->depth - 1);
    vctx c = { .k = k };
    size_t nv = (size_t)k->m->next_var_id + 1;
    c.visible = hdg_xcalloc(nv, 1);
    c.defined = hdg_xcalloc(nv, 1);
    int ok = check_block(&c, k->body.first);
    free(c.visible);
    free(c.defined);
    if (!ok) return hdg_fail(err, HDG_EINTERNAL, "IR kernel %s: %s", k->name, c.msg);
    return HDG_OK;
}

hdg_status hdg_ir_verify_module(const hdg_ir_module *m, hdg_error *err)
{
    for (int i = 0; i < m->ntables; i++)
        if (m->tables[i]->size == 0)
            return hdg_fail(err, HDG_EINTERNAL, "IR module %s: table %s has a bad shape", m->name, m->tables[i]->name);
    for (int i = 0; i < m->nkernels; i++) {
        hdg_status st = hdg_ir_verify(m->kernels[i], err);
        if (st) return st;
    }
    return HDG_OK;
}
