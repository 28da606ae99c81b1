/* fuse.c — loop fusion. In every block, a loop moves down to a later loop of
 * the same trip count, or that loop up to it, and the two become one (the
 * earlier body first in each iteration) when that changes no result:
 *  - the statements the moving loop passes touch no entry it touches where
 *    either writes (boxes of indices from value ranges, lets followed), and
 *    a loop moving up uses no let it passes;
 *  - across different iterations the two bodies touch no common entry where
 *    either writes: for each pair of accesses, the indices' box with the
 *    loop index fixed at a and the other's at b != a are disjoint.
 * So every entry sees the same operations in the same order as before, and
 * results are unchanged to the bit. Two more rules keep it from costing
 * time: the loops must write a common tensor, and both or neither may sum
 * over their index (a sum is not vectorised, and would stop its partner).
 * What it is for: the terms of a local matrix are lowered one loop nest
 * each, and each nest loads, adds to and stores the entries it touches;
 * fused, the terms that write the same entry do so in one pass (one load
 * and one store), and terms of other blocks share their table loads; sums
 * over the same index (the errors kernel's values at a point) run as
 * independent chains in one loop instead of one latency-bound loop each.
 * Inner loops are fused after the outer ones, so nests of equal shape merge
 * level by level. A work budget per kernel keeps the analysis cheap on
 * large kernels (it then fuses less, never wrongly). */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_EXTENT = 512, MAX_OUTER = 16, MAX_COMBOS = 4096, BUDGET = 4000000 };

typedef struct access {
    hdg_ir_tensor *t;
    const hdg_ir_expr *ref;      /* the LOAD (indices), NULL: the whole tensor */
    int write;
} access;

typedef struct alist { access *a; int n, cap; } alist;

typedef struct box { long long lo[3], hi[3]; int known; } box;

typedef struct fctx {
    hdg_ir_kernel *k;
    const hdg_ir_expr **letval;  /* by var id: the value of a let */
    hdg_ir_expr **map;           /* by var id, for hdg_ir_subst */
    int nvars;
    unsigned char *bound;        /* by var id: lets a loop moving up would pass */
    const hdg_ir_var *fixed;     /* index held at fixval while taking boxes */
    long long fixval;
    const hdg_ir_var *outer[MAX_OUTER];   /* the loops around the block */
    long long outval[MAX_OUTER];          /* ... held at these values while pinned */
    int nouter, pinned;
    int depth;
    long budget;
} fctx;

/* ------------------------------------------------------------- accesses */

static int tracked(const hdg_ir_tensor *t) { return t->kind == HDG_IR_LOCAL || t->kind == HDG_IR_OUT; }

static void add(alist *l, hdg_ir_tensor *t, const hdg_ir_expr *ref, int write)
{
    if (!tracked(t)) return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->a = hdg_xrealloc(l->a, (size_t)l->cap * sizeof *l->a);
    }
    l->a[l->n++] = (access){ t, ref, write };
}

static void loads(alist *l, const hdg_ir_expr *e)
{
    if (e->op == HDG_E_LOAD) add(l, e->t, e->row ? NULL : e, 0);
    if (e->row) loads(l, e->row);
    for (int i = 0; i < e->n; i++) loads(l, e->a[i]);
}

static void collect(fctx *c, alist *l, const hdg_ir_stmt *s)
{
    hdg_ir_tensor *t[4];
    switch (s->kind) {
    case HDG_S_FOR:
        for (const hdg_ir_stmt *b = s->body.first; b; b = b->next) collect(c, l, b);
        return;
    case HDG_S_LET:
        c->letval[s->var->id] = s->value;
        loads(l, s->value);
        return;
    case HDG_S_STORE:
        loads(l, s->value);
        for (int i = 0; i < s->dst->n; i++) loads(l, s->dst->a[i]);
        add(l, s->dst->t, s->dst, 1);
        return;
    default: {
        int n = hdg_ir_dense_reads(s, t);
        for (int i = 0; i < n; i++) add(l, t[i], NULL, 0);
        n = hdg_ir_stmt_writes(s, t, 4);
        for (int i = 0; i < n; i++) add(l, t[i], NULL, 1);
        return;
    }
    }
}

/* ----------------------------------------------------------------- boxes */

static hdg_ir_range var_range(void *ctx, const hdg_ir_var *v)
{
    fctx *c = ctx;
    if (v == c->fixed) return (hdg_ir_range){ c->fixval, c->fixval, 1 };
    for (int i = 0; c->pinned && i < c->nouter; i++)
        if (v == c->outer[i]) return (hdg_ir_range){ c->outval[i], c->outval[i], 1 };
    if (v->id < c->nvars && c->letval[v->id] && c->depth < 64 && c->budget > 0) {
        c->budget--;   /* a let followed: counted, so chains of lets cannot blow up */
        c->depth++;
        hdg_ir_range r = hdg_ir_expr_range_env(c->letval[v->id], var_range, c);
        c->depth--;
        if (r.known) return r;
    }
    return v->known ? (hdg_ir_range){ v->lo, v->hi, 1 } : (hdg_ir_range){ 0, 0, 0 };
}

/* The entries an access may touch, with `fixed` (if any) held at `at`. */
static box box_of(fctx *c, const access *x, const hdg_ir_var *fixed, long long at)
{
    box b = { { 0 }, { 0 }, 0 };
    c->budget--;
    if (!x->ref) return b;
    c->fixed = fixed;
    c->fixval = at;
    b.known = 1;
    for (int i = 0; i < x->ref->n && b.known; i++) {
        hdg_ir_range r = hdg_ir_expr_range_env(x->ref->a[i], var_range, c);
        b.known = r.known;
        b.lo[i] = r.lo;
        b.hi[i] = r.hi;
    }
    c->fixed = NULL;
    return b;
}

static int disjoint(const box *a, const box *b, int rank)
{
    if (!a->known || !b->known) return 0;
    for (int i = 0; i < rank; i++)   /* a scalar (rank 0) is one entry: never disjoint */
        if (a->hi[i] < b->lo[i] || b->hi[i] < a->lo[i]) return 1;
    return 0;
}

static int conflict(const access *x, const access *y) { return x->t == y->t && (x->write || y->write); }

/* May x, with loop index i1 at u, and y, with i2 at v, touch a common entry
 * for some u != v (n trips; i1 NULL: no such loop, n = 1 and u = v = 0)?
 * Where the plain boxes overlap, asked again for every value of the loops
 * around the block, which both see at the same value. */
static int clash(fctx *c, const access *x, const hdg_ir_var *i1, const access *y, const hdg_ir_var *i2, int n)
{
    box a = box_of(c, x, NULL, 0), b = box_of(c, y, NULL, 0);
    if (disjoint(&a, &b, x->t->rank)) return 0;
    if (!a.known || !b.known) return 1;
    long combos = 1;
    for (int i = 0; i < c->nouter && combos <= MAX_COMBOS; i++) combos *= c->outer[i]->extent;
    c->budget -= combos * ((long)n * n + 2L * n);
    if (combos > MAX_COMBOS || c->budget < 0) return 1;
    box *bx = hdg_xmalloc(2 * (size_t)n * sizeof *bx), *by = bx + n;
    int hit = 0;
    for (int i = 0; i < c->nouter; i++) c->outval[i] = 0;
    c->pinned = 1;
    for (long k = 0; k < combos && !hit; k++) {
        for (int u = 0; u < n; u++) bx[u] = box_of(c, x, i1, u), by[u] = box_of(c, y, i2, u);
        for (int u = 0; u < n && !hit; u++)
            for (int v = 0; v < n && !hit; v++)
                if ((u != v || !i1) && !disjoint(&bx[u], &by[v], x->t->rank)) hit = 1;
        for (int i = 0; i < c->nouter && ++c->outval[i] == c->outer[i]->extent; i++) c->outval[i] = 0;
    }
    c->pinned = 0;
    free(bx);
    return hit;
}

/* No entry touched by both where either writes. */
static int independent(fctx *c, const alist *p, const alist *q)
{
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < q->n; j++)
            if (conflict(&p->a[i], &q->a[j]) && clash(c, &p->a[i], NULL, &q->a[j], NULL, 1)) return 0;
    return 1;
}

/* Both write one tensor: fusing saves a pass over it. Loops that do not
 * share a target stay apart (a loop of calls, like an exact solution at the
 * quadrature points, would make the loop it joins spill around each call). */
static int same_target(const alist *p, const alist *q)
{
    for (int i = 0; i < p->n; i++)
        for (int j = 0; p->a[i].write && j < q->n; j++)
            if (q->a[j].write && q->a[j].t == p->a[i].t) return 1;
    return 0;
}

/* Does loop l (accesses p) store to one entry in two iterations (a sum over
 * its index, like M[i][n] += M[i][j] w[j] over j)? Such a loop is not
 * vectorised; fused with one that is, neither would be. */
static int reduces(fctx *c, const hdg_ir_stmt *l, const alist *p)
{
    if (l->var->extent < 2) return 0;
    for (int i = 0; i < p->n; i++) {
        if (!p->a[i].write) continue;
        box a = box_of(c, &p->a[i], l->var, 0), b = box_of(c, &p->a[i], l->var, 1);
        if (!disjoint(&a, &b, p->a[i].t->rank)) return 1;
    }
    return 0;
}

/* Fusing loops l1 and l2 (accesses p, q) keeps every entry's history: what
 * both touch with a write is touched in the same iteration only. */
static int fusable(fctx *c, const hdg_ir_stmt *l1, const alist *p, const hdg_ir_stmt *l2, const alist *q)
{
    int n = l1->var->extent;
    if (n != l2->var->extent || n > MAX_EXTENT || !same_target(p, q)) return 0;
    if (reduces(c, l1, p) != reduces(c, l2, q)) return 0;
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < q->n; j++)
            if (conflict(&p->a[i], &q->a[j]) && clash(c, &p->a[i], l1->var, &q->a[j], l2->var, n)) return 0;
    return 1;
}

/* ---------------------------------------------------------------- fusion */

static void subst_block(fctx *c, hdg_ir_stmt *s)
{
    for (; s; s = s->next) {
        if (s->kind == HDG_S_FOR) subst_block(c, s->body.first);
        if (s->value) s->value = hdg_ir_subst(c->k, s->value, c->map, c->nvars);
        if (s->dst) s->dst = hdg_ir_subst(c->k, s->dst, c->map, c->nvars);
        if (s->kind == HDG_S_LET) c->letval[s->var->id] = s->value;
    }
}

/* l1's body followed by l2's, under l1's index, becomes the body of `into`
 * (l2 when l1 moves down to it, l1 when l2 moves up). */
static void fuse(fctx *c, hdg_ir_stmt *l1, hdg_ir_stmt *l2, hdg_ir_stmt *into)
{
    c->map[l2->var->id] = hdg_ir_var_ref(c->k, l1->var);
    subst_block(c, l2->body.first);
    c->map[l2->var->id] = NULL;
    hdg_ir_block b = l1->body;
    if (!b.first) b = l2->body;
    else if (l2->body.first) b.last->next = l2->body.first, b.last = l2->body.last;
    into->body = b;
    into->var = l1->var;
}

static int expr_uses(const hdg_ir_expr *e, const unsigned char *bound)
{
    if (e->op == HDG_E_VAR && bound[e->var->id]) return 1;
    if (e->row && expr_uses(e->row, bound)) return 1;
    for (int i = 0; i < e->n; i++)
        if (expr_uses(e->a[i], bound)) return 1;
    return 0;
}

/* Does a statement use a variable marked in bound (a let it would move above)? */
static int stmt_uses(const hdg_ir_stmt *s, const unsigned char *bound)
{
    for (; s; s = s->next) {
        if (s->value && expr_uses(s->value, bound)) return 1;
        if (s->dst && expr_uses(s->dst, bound)) return 1;
        if (s->kind == HDG_S_FOR && stmt_uses(s->body.first, bound)) return 1;
    }
    return 0;
}

/* Can loop l (accesses p) move past the statements i < m < j not gone?
 * Moving up, it must not use a let bound among them. */
static int can_move(fctx *c, const hdg_ir_stmt *l, const alist *p, hdg_ir_stmt **st, const alist *acc,
                    const char *gone, int i, int j, int up)
{
    int ok = 1;
    for (int m = i + 1; m < j && ok; m++)
        if (!gone[m]) ok = independent(c, p, &acc[m]);
    if (!ok || !up) return ok;
    for (int m = i + 1; m < j; m++)
        if (!gone[m] && st[m]->kind == HDG_S_LET) c->bound[st[m]->var->id] = 1;
    hdg_ir_stmt one = *l;
    one.next = NULL;
    ok = !stmt_uses(&one, c->bound);
    for (int m = i + 1; m < j; m++)
        if (!gone[m] && st[m]->kind == HDG_S_LET) c->bound[st[m]->var->id] = 0;
    return ok;
}

static void accesses(fctx *c, alist *l, const hdg_ir_stmt *s)
{
    l->n = 0;
    collect(c, l, s);
}

static void fuse_block(fctx *c, hdg_ir_block *b)
{
    int n = 0;
    for (hdg_ir_stmt *s = b->first; s; s = s->next) n++;
    hdg_ir_stmt **st = hdg_xmalloc((size_t)n * sizeof *st);
    alist *acc = hdg_xcalloc((size_t)n + 1, sizeof *acc);
    char *gone = hdg_xcalloc((size_t)n + 1, 1);
    n = 0;
    for (hdg_ir_stmt *s = b->first; s; s = s->next) st[n] = s, accesses(c, &acc[n], s), n++;
    for (int j = 0; j < n; j++) {
        if (st[j]->kind != HDG_S_FOR) continue;
        for (int i = j - 1; i >= 0 && c->budget >= 0; i--) {
            if (gone[i] || st[i]->kind != HDG_S_FOR || st[i]->var->extent != st[j]->var->extent) continue;
            if (!fusable(c, st[i], &acc[i], st[j], &acc[j])) continue;
            if (can_move(c, st[i], &acc[i], st, acc, gone, i, j, 0)) {   /* st[i] down to st[j] */
                fuse(c, st[i], st[j], st[j]);
                gone[i] = 1;
                accesses(c, &acc[j], st[j]);
            } else if (can_move(c, st[j], &acc[j], st, acc, gone, i, j, 1)) {   /* st[j] up to st[i] */
                fuse(c, st[i], st[j], st[i]);
                gone[j] = 1;
                accesses(c, &acc[i], st[i]);
                break;
            }
        }
    }
    b->first = b->last = NULL;
    for (int i = 0; i < n; i++) {
        if (gone[i]) continue;
        st[i]->next = NULL;
        if (b->last) b->last->next = st[i];
        else b->first = st[i];
        b->last = st[i];
    }
    for (int i = 0; i < n; i++) free(acc[i].a);
    free(acc);
    for (int i = 0; i < n; i++)
        if (!gone[i] && st[i]->kind == HDG_S_FOR) {
            int push = c->nouter < MAX_OUTER;   /* deeper, an outer index just ranges */
            if (push) c->outer[c->nouter++] = st[i]->var;
            fuse_block(c, &st[i]->body);
            if (push) c->nouter--;
        }
    free(gone);
    free(st);
}

void hdg_ir_fuse(hdg_ir_kernel *k)
{
    fctx c = { 0 };
    c.k = k;
    c.nvars = k->m->next_var_id + 1;
    c.letval = hdg_xcalloc((size_t)c.nvars, sizeof *c.letval);
    c.map = hdg_xcalloc((size_t)c.nvars, sizeof *c.map);
    c.bound = hdg_xcalloc((size_t)c.nvars, 1);
    c.budget = BUDGET;
    alist all = { 0 };
    for (hdg_ir_stmt *s = k->body.first; s; s = s->next) collect(&c, &all, s);   /* every let's value */
    free(all.a);
    fuse_block(&c, &k->body);
    free(c.letval);
    free(c.map);
    free(c.bound);
}
