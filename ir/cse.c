/* cse.c — common-subexpression elimination by value numbering. Each
 * straight-line block is walked in order; every non-leaf subexpression a
 * statement evaluates is hash-consed into a `let` temporary placed right
 * before the statement, reusing an existing temporary (of this block or of
 * an enclosing one) when an equal expression is already available. Loads of
 * LOCAL and OUT tensors carry the tensor's version, bumped by every store or
 * dense op writing it (and, for a loop, before its body), so a temporary is
 * never reused across a write. The arms of a select are only evaluated
 * conditionally, so their parts are numbered only when speculatable (loads
 * provably in bounds); otherwise an arm stays as it is. A second sweep then
 * puts back every temporary used exactly once, directly in a later
 * statement of the same block with no write in between to what it loads:
 * only values used twice or more (or used inside a nested loop) remain
 * temporaries. Lets written by the lowering are numbered like the rest, so
 * two lets of the same value become one. */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct list { hdg_ir_stmt *first, *last; } list;

static void push(list *l, hdg_ir_stmt *s)
{
    s->next = NULL;
    if (l->last) l->last->next = s;
    else l->first = s;
    l->last = s;
}

static int mutable_tensor(const hdg_ir_tensor *t) { return t->kind == HDG_IR_LOCAL || t->kind == HDG_IR_OUT; }

/* ---------------------------------------------------- value numbering */

typedef struct entry {
    hdg_ir_expr *key;
    hdg_ir_var *var;
    unsigned long long hash;
    int nver;
    int *tid;            /* mutable tensors the key loads, and their versions */
    unsigned *ver;
} entry;

typedef struct scope {
    struct scope *parent;
    entry *tab;
    size_t cap, count;
} scope;

typedef struct cctx {
    hdg_ir_kernel *k;
    hdg_ir_expr **alias;     /* by var id: a let folded into an earlier equal one */
    int nalias;              /* variables made by numbering itself have ids >= nalias */
    unsigned *version;       /* by tensor id */
    scope *sc;
    list *out;
    const hdg_ir_origin *origin;
} cctx;

static int count_mutable_loads(const hdg_ir_expr *e, int *tid, unsigned *ver, const unsigned *version, int n)
{
    if (e->op == HDG_E_LOAD && mutable_tensor(e->t)) {
        if (tid) {
            tid[n] = e->t->id;
            ver[n] = version[e->t->id];
        }
        n++;
    }
    if (e->row) n = count_mutable_loads(e->row, tid, ver, version, n);
    for (int i = 0; i < e->n; i++) n = count_mutable_loads(e->a[i], tid, ver, version, n);
    return n;
}

static int entry_valid(const cctx *c, const entry *en)
{
    for (int i = 0; i < en->nver; i++)
        if (c->version[en->tid[i]] != en->ver[i]) return 0;
    return 1;
}

static hdg_ir_var *lookup(cctx *c, hdg_ir_expr *e, unsigned long long h)
{
    for (scope *s = c->sc; s; s = s->parent) {
        if (!s->cap) continue;
        for (size_t i = h & (s->cap - 1); s->tab[i].key; i = (i + 1) & (s->cap - 1)) {
            entry *en = &s->tab[i];
            if (en->hash == h && hdg_ir_expr_equal(en->key, e) && entry_valid(c, en)) return en->var;
        }
    }
    return NULL;
}

static void insert(cctx *c, hdg_ir_expr *e, unsigned long long h, hdg_ir_var *v)
{
    scope *s = c->sc;
    if (2 * (s->count + 1) > s->cap) {
        size_t oldcap = s->cap;
        entry *old = s->tab;
        s->cap = oldcap ? 2 * oldcap : 64;
        s->tab = hdg_xcalloc(s->cap, sizeof *s->tab);
        for (size_t i = 0; i < oldcap; i++) {
            if (!old[i].key) continue;
            size_t j = old[i].hash & (s->cap - 1);
            while (s->tab[j].key) j = (j + 1) & (s->cap - 1);
            s->tab[j] = old[i];
        }
        free(old);
    }
    size_t i = h & (s->cap - 1);
    while (s->tab[i].key) i = (i + 1) & (s->cap - 1);
    entry *en = &s->tab[i];
    en->key = e;
    en->var = v;
    en->hash = h;
    en->nver = count_mutable_loads(e, NULL, NULL, c->version, 0);
    en->tid = hdg_ir_alloc(c->k->m, (en->nver + 1) * sizeof *en->tid);
    en->ver = hdg_ir_alloc(c->k->m, (en->nver + 1) * sizeof *en->ver);
    count_mutable_loads(e, en->tid, en->ver, c->version, 0);
    s->count++;
}

static hdg_ir_expr *vn(cctx *c, hdg_ir_expr *e);

/* e with its operands numbered (the node itself not interned). */
static hdg_ir_expr *vn_operands(cctx *c, hdg_ir_expr *e)
{
    hdg_ir_expr *a[3], *row = e->row ? vn(c, e->row) : NULL;
    int changed = row != e->row;
    for (int i = 0; i < e->n; i++) {
        if (e->op == HDG_E_SELECT && i > 0) {
            hdg_ir_expr *arm = hdg_ir_subst(c->k, e->a[i], c->alias, c->nalias);
            a[i] = hdg_ir_speculatable(arm) ? vn(c, arm) : arm;
        } else {
            a[i] = vn(c, e->a[i]);
        }
        changed |= a[i] != e->a[i];
    }
    if (!changed) return e;
    hdg_ir_expr *n = hdg_ir_alloc(c->k->m, sizeof *n);
    *n = *e;
    n->row = row;
    for (int i = 0; i < e->n; i++) n->a[i] = a[i];
    return n;
}

static hdg_ir_expr *vn(cctx *c, hdg_ir_expr *e)
{
    if (e->op == HDG_E_VAR)
        return e->var->id < c->nalias && c->alias[e->var->id] ? c->alias[e->var->id] : e;
    if (hdg_ir_is_leaf(e)) return e;
    hdg_ir_expr *n = vn_operands(c, e);
    unsigned long long h = hdg_ir_expr_hash(n);
    hdg_ir_var *v = lookup(c, n, h);
    if (!v) {
        hdg_ir_stmt *s = hdg_ir_let_stmt(c->k, "t", n);
        s->origin = c->origin;
        push(c->out, s);
        insert(c, n, h, s->var);
        v = s->var;
    }
    return hdg_ir_var_ref(c->k, v);
}

static void bump_writes(cctx *c, const hdg_ir_stmt *s)
{
    hdg_ir_tensor *w[64];
    int n = hdg_ir_stmt_writes(s, w, 64);
    if (n == 64) {   /* too many to list: invalidate every mutable tensor */
        for (int i = 0; i < c->k->ntensors; i++) c->version[c->k->tensors[i]->id]++;
        return;
    }
    for (int i = 0; i < n; i++) c->version[w[i]->id]++;
}

static void vn_block(cctx *c, hdg_ir_stmt *first, list *out)
{
    scope sc = { c->sc, NULL, 0, 0 };
    list *saved = c->out;
    c->sc = &sc;
    c->out = out;
    for (hdg_ir_stmt *s = first, *next; s; s = next) {
        next = s->next;
        c->origin = s->origin;
        switch (s->kind) {
        case HDG_S_LET: {
            if (hdg_ir_is_leaf(s->value)) {
                c->alias[s->var->id] = vn(c, s->value);
                break;
            }
            hdg_ir_expr *n = vn_operands(c, s->value);
            unsigned long long h = hdg_ir_expr_hash(n);
            hdg_ir_var *v = lookup(c, n, h);
            if (v && v->type == s->var->type) {
                c->alias[s->var->id] = hdg_ir_var_ref(c->k, v);
                break;
            }
            s->value = n;
            push(out, s);
            insert(c, n, h, s->var);
            break;
        }
        case HDG_S_STORE:
            s->dst = vn_operands(c, s->dst);
            s->value = vn(c, s->value);
            push(out, s);
            bump_writes(c, s);
            break;
        case HDG_S_FOR: {
            bump_writes(c, s);
            list body = { 0 };
            vn_block(c, s->body.first, &body);
            s->body.first = body.first;
            s->body.last = body.last;
            push(out, s);
            break;
        }
        default:
            push(out, s);
            bump_writes(c, s);
            break;
        }
    }
    free(sc.tab);
    c->sc = sc.parent;
    c->out = saved;
}

/* --------------------------------------------- putting single uses back */

typedef struct ictx {
    hdg_ir_kernel *k;
    int *uses;              /* by var id, whole kernel */
    int *direct_at;         /* by var id: index in the current block of the statement using it */
    hdg_ir_expr **map;      /* by var id: the value put back in place of the var */
    int nv;                 /* entries of the arrays above */
} ictx;

static void count_uses(const hdg_ir_expr *e, int *uses)
{
    if (e->op == HDG_E_VAR) uses[e->var->id]++;
    if (e->row) count_uses(e->row, uses);
    for (int i = 0; i < e->n; i++) count_uses(e->a[i], uses);
}

static void count_block_uses(const hdg_ir_stmt *s, int *uses)
{
    for (; s; s = s->next) {
        if (s->kind == HDG_S_FOR) count_block_uses(s->body.first, uses);
        if (s->value) count_uses(s->value, uses);
        if (s->dst) count_uses(s->dst, uses);
    }
}

static void mark_direct(const hdg_ir_expr *e, int *direct_at, int at)
{
    if (e->op == HDG_E_VAR) direct_at[e->var->id] = at;
    if (e->row) mark_direct(e->row, direct_at, at);
    for (int i = 0; i < e->n; i++) mark_direct(e->a[i], direct_at, at);
}

static int loads_any(const hdg_ir_expr *e, hdg_ir_tensor *const *w, int nw)
{
    if (e->op == HDG_E_LOAD)
        for (int i = 0; i < nw; i++)
            if (e->t == w[i]) return 1;
    if (e->row && loads_any(e->row, w, nw)) return 1;
    for (int i = 0; i < e->n; i++)
        if (loads_any(e->a[i], w, nw)) return 1;
    return 0;
}

/* Is any tensor value loads written by statements at[from..to) ? */
static int written_between(hdg_ir_stmt **at, int from, int to, const hdg_ir_expr *value)
{
    for (int i = from; i < to; i++) {
        hdg_ir_tensor *w[64];
        int n = hdg_ir_stmt_writes(at[i], w, 64);
        if (n == 64 || (n && loads_any(value, w, n))) return 1;
    }
    return 0;
}

static void inline_block(ictx *c, hdg_ir_block *b)
{
    int n = 0;
    for (hdg_ir_stmt *s = b->first; s; s = s->next) n++;
    if (!n) return;
    hdg_ir_stmt **at = hdg_xmalloc(n * sizeof *at);
    n = 0;
    for (hdg_ir_stmt *s = b->first; s; s = s->next) {
        at[n] = s;
        if (s->value) mark_direct(s->value, c->direct_at, n);
        if (s->dst) mark_direct(s->dst, c->direct_at, n);
        n++;
    }
    list out = { 0 };
    for (int i = 0; i < n; i++) {
        hdg_ir_stmt *s = at[i];
        if (s->value) s->value = hdg_ir_subst(c->k, s->value, c->map, c->nv);
        if (s->dst) s->dst = hdg_ir_subst(c->k, s->dst, c->map, c->nv);
        if (s->kind == HDG_S_LET) {
            int id = s->var->id, j = c->direct_at[id];
            if (c->uses[id] == 1 && j > i && j < n && at[j]->kind != HDG_S_FOR &&
                !written_between(at, i + 1, j, s->value)) {
                c->map[id] = s->value;
                continue;
            }
        }
        if (s->kind == HDG_S_FOR) inline_block(c, &s->body);
        push(&out, s);
    }
    /* direct_at of this block's vars is stale for enclosing blocks: reset */
    for (int i = 0; i < n; i++)
        if (at[i]->kind == HDG_S_LET) c->direct_at[at[i]->var->id] = -1;
    b->first = out.first;
    b->last = out.last;
    free(at);
}

void hdg_ir_cse(hdg_ir_kernel *k)
{
    size_t nv = (size_t)k->m->next_var_id + 1;
    cctx c = { k, hdg_xcalloc(nv, sizeof(hdg_ir_expr *)), (int)nv,
               hdg_xcalloc((size_t)k->m->next_tensor_id + 1, sizeof(unsigned)), NULL, NULL, NULL };
    list out = { 0 };
    vn_block(&c, k->body.first, &out);
    k->body.first = out.first;
    k->body.last = out.last;
    free(c.alias);
    free(c.version);

    nv = (size_t)k->m->next_var_id + 1;   /* numbering made new variables */
    ictx ic = { k, hdg_xcalloc(nv, sizeof(int)), hdg_xmalloc(nv * sizeof(int)),
                hdg_xcalloc(nv, sizeof(hdg_ir_expr *)), (int)nv };
    for (size_t i = 0; i < nv; i++) ic.direct_at[i] = -1;
    count_block_uses(k->body.first, ic.uses);
    inline_block(&ic, &k->body);
    free(ic.uses);
    free(ic.direct_at);
    free(ic.map);
}
