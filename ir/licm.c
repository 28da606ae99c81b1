/* licm.c — loop-invariant code motion. Loops are treated innermost first.
 * In a loop's body, a `let` whose value depends neither on the loop's index
 * nor on anything defined inside the loop, and loads no tensor the loop
 * writes, moves in front of the loop; in the other statements every maximal
 * such subexpression (that is not a leaf) becomes a new `let` in front of
 * the loop. Because inner loops are done first, an invariant climbs as far
 * out as it can: this is what takes per-element geometric factors (a
 * Jacobian, a metric term) out of quadrature and basis loops. Inside the
 * arms of a select only speculatable expressions (loads provably in bounds)
 * move, since the arm might not have been evaluated; loops are never empty
 * here (trip counts are static, zero-trip loops are left alone), so the
 * rest is evaluated at least as often as before. */
#include "ir/ir.h"

#include <stdlib.h>

typedef struct list { hdg_ir_stmt *first, *last; } list;

static void push(list *l, hdg_ir_stmt *s)
{
    s->next = NULL;
    if (l->last) l->last->next = s;
    else l->first = s;
    l->last = s;
}

typedef struct lctx {
    hdg_ir_kernel *k;
    char *variant;             /* by var id (grows: hoisting makes variables) */
    size_t nvariant;
    hdg_ir_tensor *w[64];      /* tensors the loop writes */
    int nw, all_written;
    list pre;                  /* lets to place before the loop */
} lctx;

static void set_variant(lctx *c, int id, char v)
{
    if ((size_t)id >= c->nvariant) {
        size_t n = 2 * (size_t)id + 16;
        c->variant = hdg_xrealloc(c->variant, n);
        for (size_t i = c->nvariant; i < n; i++) c->variant[i] = 0;
        c->nvariant = n;
    }
    c->variant[id] = v;
}

static int is_variant(const lctx *c, int id) { return (size_t)id < c->nvariant && c->variant[id]; }

static void mark_defined(lctx *c, const hdg_ir_stmt *s, char v)
{
    for (; s; s = s->next) {
        if (s->var) set_variant(c, s->var->id, v);
        if (s->kind == HDG_S_FOR) mark_defined(c, s->body.first, v);
    }
}

static int invariant(const lctx *c, const hdg_ir_expr *e)
{
    if (e->op == HDG_E_VAR) return !is_variant(c, e->var->id);
    if (e->op == HDG_E_LOAD && e->t->kind != HDG_IR_TABLE && e->t->kind != HDG_IR_IN &&
        e->t->kind != HDG_IR_GEOM && e->t->kind != HDG_IR_IMAP) {
        if (c->all_written) return 0;
        for (int i = 0; i < c->nw; i++)
            if (c->w[i] == e->t) return 0;
    }
    if (e->row && !invariant(c, e->row)) return 0;
    for (int i = 0; i < e->n; i++)
        if (!invariant(c, e->a[i])) return 0;
    return 1;
}

static hdg_ir_expr *hoist(lctx *c, hdg_ir_expr *e, const hdg_ir_origin *origin)
{
    for (hdg_ir_stmt *s = c->pre.first; s; s = s->next)
        if (hdg_ir_expr_equal(s->value, e)) return hdg_ir_var_ref(c->k, s->var);
    hdg_ir_stmt *s = hdg_ir_let_stmt(c->k, "t", e);
    s->origin = origin;
    push(&c->pre, s);
    return hdg_ir_var_ref(c->k, s->var);
}

static hdg_ir_expr *extract(lctx *c, hdg_ir_expr *e, int guarded, const hdg_ir_origin *origin)
{
    if (hdg_ir_is_leaf(e)) return e;
    if (invariant(c, e) && (!guarded || hdg_ir_speculatable(e))) return hoist(c, e, origin);
    hdg_ir_expr *a[3], *row = e->row ? extract(c, e->row, guarded, origin) : NULL;
    int changed = row != e->row;
    for (int i = 0; i < e->n; i++) {
        a[i] = extract(c, e->a[i], guarded || (e->op == HDG_E_SELECT && i > 0), origin);
        changed |= a[i] != e->a[i];
    }
    if (!changed) return e;
    hdg_ir_expr *n = hdg_ir_alloc(c->k->m, sizeof *n);
    *n = *e;
    n->row = row;
    for (int i = 0; i < e->n; i++) n->a[i] = a[i];
    return n;
}

/* The store's destination keeps its tensor; only its indices may move. */
static hdg_ir_expr *extract_dst(lctx *c, hdg_ir_expr *dst, const hdg_ir_origin *origin)
{
    hdg_ir_expr *a[3];
    int changed = 0;
    for (int i = 0; i < dst->n; i++) {
        a[i] = extract(c, dst->a[i], 0, origin);
        changed |= a[i] != dst->a[i];
    }
    if (!changed) return dst;
    hdg_ir_expr *n = hdg_ir_alloc(c->k->m, sizeof *n);
    *n = *dst;
    for (int i = 0; i < dst->n; i++) n->a[i] = a[i];
    return n;
}

/* Moves what is invariant in loop f to c->pre. */
static void hoist_loop(lctx *c, hdg_ir_stmt *f)
{
    c->nw = hdg_ir_stmt_writes(f, c->w, 64);
    c->all_written = c->nw == 64;
    set_variant(c, f->var->id, 1);
    mark_defined(c, f->body.first, 1);
    list body = { 0 };
    for (hdg_ir_stmt *s = f->body.first, *next; s; s = next) {
        next = s->next;
        if (s->kind == HDG_S_LET && invariant(c, s->value)) {
            set_variant(c, s->var->id, 0);
            push(&c->pre, s);
            continue;
        }
        if (s->kind == HDG_S_LET) s->value = extract(c, s->value, 0, s->origin);
        if (s->kind == HDG_S_STORE) {
            s->value = extract(c, s->value, 0, s->origin);
            s->dst = extract_dst(c, s->dst, s->origin);
        }
        push(&body, s);
    }
    f->body.first = body.first;
    f->body.last = body.last;
    mark_defined(c, f->body.first, 0);   /* leave the array clean for the caller */
    set_variant(c, f->var->id, 0);
}

static void licm_block(lctx *c, hdg_ir_block *b)
{
    list out = { 0 };
    for (hdg_ir_stmt *s = b->first, *next; s; s = next) {
        next = s->next;
        if (s->kind == HDG_S_FOR) {
            licm_block(c, &s->body);
            if (s->var->extent > 0) {
                c->pre.first = c->pre.last = NULL;
                hoist_loop(c, s);
                for (hdg_ir_stmt *p = c->pre.first, *pn; p; p = pn) {
                    pn = p->next;
                    push(&out, p);
                }
            }
        }
        push(&out, s);
    }
    b->first = out.first;
    b->last = out.last;
}

void hdg_ir_licm(hdg_ir_kernel *k)
{
    lctx c = { .k = k };
    c.nvariant = (size_t)k->m->next_var_id + 1;
    c.variant = hdg_xcalloc(c.nvariant, 1);
    licm_block(&c, &k->body);
    free(c.variant);
}
