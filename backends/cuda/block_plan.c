/* block_plan.c — the plan of a block-per-item CUDA kernel (see block.h):
 * which loop of each top-level statement is spread over the threads (a loop
 * whose variable v indexes one dimension of every store as v + c, c free of
 * the nest's loops, so distinct threads never write the same entry; thread 0
 * otherwise), and the shared-memory layout of the locals by lifetime. */
#include "backends/cuda/block.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ accesses of a statement */

static int shared_kind(const hdg_ir_tensor *t) { return t->kind == HDG_IR_LOCAL || t->kind == HDG_IR_OUT; }

static void access_expr(const hdg_ir_expr *e, unsigned char *acc)
{
    if (e->op == HDG_E_LOAD && shared_kind(e->t)) acc[e->t->id] |= A_READ;
    if (e->row) access_expr(e->row, acc);
    for (int i = 0; i < e->n; i++) access_expr(e->a[i], acc);
}

void hdg_cuda_block_access(const hdg_ir_stmt *s, unsigned char *acc)
{
    hdg_ir_tensor *t[4];
    switch (s->kind) {
    case HDG_S_FOR:
        for (const hdg_ir_stmt *c = s->body.first; c; c = c->next) hdg_cuda_block_access(c, acc);
        return;
    case HDG_S_LET:
        access_expr(s->value, acc);
        return;
    case HDG_S_STORE:
        access_expr(s->value, acc);
        for (int i = 0; i < s->dst->n; i++) access_expr(s->dst->a[i], acc);
        acc[s->dst->t->id] |= A_WRITE | (s->accumulate ? A_READ : 0);
        return;
    default: {   /* dense ops; in-place ones read what they write */
        int n = hdg_ir_dense_reads(s, t);
        for (int i = 0; i < n; i++)
            if (shared_kind(t[i])) acc[t[i]->id] |= A_READ;
        n = hdg_ir_stmt_writes(s, t, 4);
        for (int i = 0; i < n; i++)
            if (shared_kind(t[i])) acc[t[i]->id] |= A_READ | A_WRITE;
        return;
    }
    }
}

/* ------------------------------------------- which loop a statement spreads */

/* What one top-level loop nest binds and stores; arrays by var / tensor id,
 * cleared after each statement through the lists. */
typedef struct nest {
    unsigned char *inside;       /* var bound inside the statement (loop index or let) */
    const hdg_ir_expr **letval;  /* the value of a let bound inside */
    unsigned char *vary;         /* memo of varies(): 0 unknown, 1 no, 2 yes */
    unsigned char *written;      /* tensor stored to inside the statement */
    const hdg_ir_expr **key;     /* written tensor: the index expression all accesses share */
    int *dim;                    /* ... and its dimension */
    const hdg_ir_var **bound;
    int nbound, capbound;
    const hdg_ir_stmt **stores;
    int nstores, capstores;
    const hdg_ir_tensor **wlist;
    int nw, capw;
    int dense;                   /* a dense op inside */
} nest;

static void nest_init(nest *n, const hdg_ir_module *m)
{
    memset(n, 0, sizeof *n);
    size_t nv = (size_t)m->next_var_id + 1, nt = (size_t)m->next_tensor_id + 1;
    n->inside = hdg_xcalloc(nv, 1);
    n->vary = hdg_xcalloc(nv, 1);
    n->letval = hdg_xcalloc(nv, sizeof *n->letval);
    n->written = hdg_xcalloc(nt, 1);
    n->key = hdg_xcalloc(nt, sizeof *n->key);
    n->dim = hdg_xcalloc(nt, sizeof *n->dim);
}

static void nest_free(nest *n)
{
    free(n->inside), free(n->vary), free(n->letval), free(n->written), free(n->key), free(n->dim);
    free(n->bound), free(n->stores), free(n->wlist);
}

#define PUSH(arr, cnt, cap, x)                                                   \
    do {                                                                         \
        if ((cnt) == (cap)) {                                                    \
            (cap) = (cap) ? 2 * (cap) : 16;                                      \
            (arr) = hdg_xrealloc((void *)(arr), (size_t)(cap) * sizeof *(arr));  \
        }                                                                        \
        (arr)[(cnt)++] = (x);                                                    \
    } while (0)

static void collect(nest *n, const hdg_ir_stmt *s)
{
    switch (s->kind) {
    case HDG_S_FOR:
    case HDG_S_LET:
        n->inside[s->var->id] = 1;
        n->letval[s->var->id] = s->kind == HDG_S_LET ? s->value : NULL;
        PUSH(n->bound, n->nbound, n->capbound, s->var);
        if (s->kind == HDG_S_FOR)
            for (const hdg_ir_stmt *c = s->body.first; c; c = c->next) collect(n, c);
        return;
    case HDG_S_STORE:
        PUSH(n->stores, n->nstores, n->capstores, s);
        if (!n->written[s->dst->t->id]) PUSH(n->wlist, n->nw, n->capw, s->dst->t);
        n->written[s->dst->t->id] = 1;
        return;
    default:
        n->dense = 1;
        return;
    }
}

static void nest_clear(nest *n)
{
    for (int i = 0; i < n->nbound; i++) {
        int id = n->bound[i]->id;
        n->inside[id] = n->vary[id] = 0;
        n->letval[id] = NULL;
    }
    for (int i = 0; i < n->nw; i++) n->written[n->wlist[i]->id] = 0;
    n->nbound = n->nstores = n->nw = n->dense = 0;
}

/* 1 when e may differ between iterations of the nest: it uses one of its loop
 * indices (lets bound inside are looked through) or loads a tensor it writes. */
static int varies(nest *n, const hdg_ir_expr *e)
{
    if (e->op == HDG_E_VAR && n->inside[e->var->id]) {
        int id = e->var->id;
        if (!n->vary[id]) n->vary[id] = n->letval[id] && !varies(n, n->letval[id]) ? 1 : 2;
        return n->vary[id] == 2;
    }
    if (e->op == HDG_E_LOAD && n->written[e->t->id]) return 1;
    if (e->row && varies(n, e->row)) return 1;
    for (int i = 0; i < e->n; i++)
        if (varies(n, e->a[i])) return 1;
    return 0;
}

/* Walks the additive terms of e (lets bound inside looked through): counts
 * the terms +v in *plus; fails on -v or on any other term that varies. */
static int terms(nest *n, const hdg_ir_expr *e, const hdg_ir_var *v, int sign, int *plus, int depth)
{
    if (depth > 32) return 0;
    switch (e->op) {
    case HDG_E_ADD:
        return terms(n, e->a[0], v, sign, plus, depth + 1) && terms(n, e->a[1], v, sign, plus, depth + 1);
    case HDG_E_SUB:
        return terms(n, e->a[0], v, sign, plus, depth + 1) && terms(n, e->a[1], v, -sign, plus, depth + 1);
    case HDG_E_VAR:
        if (e->var == v) {
            *plus += sign > 0;
            return sign > 0;
        }
        if (n->inside[e->var->id] && n->letval[e->var->id])
            return terms(n, n->letval[e->var->id], v, sign, plus, depth + 1);
        return !varies(n, e);
    default:
        return !varies(n, e);
    }
}

/* e = v + c with c the same in every iteration of the nest: distinct v give distinct e. */
static int v_plus_c(nest *n, const hdg_ir_expr *e, const hdg_ir_var *v)
{
    int plus = 0;
    return e->type == HDG_IR_INT && terms(n, e, v, 1, &plus, 0) && plus == 1;
}

/* Every load of a tensor the nest writes is at the tensor's key in its dimension. */
static int loads_at_key(const nest *n, const hdg_ir_expr *e)
{
    if (e->op == HDG_E_LOAD && n->written[e->t->id] && !hdg_ir_expr_equal(e->a[n->dim[e->t->id]], n->key[e->t->id]))
        return 0;
    if (e->row && !loads_at_key(n, e->row)) return 0;
    for (int i = 0; i < e->n; i++)
        if (!loads_at_key(n, e->a[i])) return 0;
    return 1;
}

static int stmt_loads_at_key(const nest *n, const hdg_ir_stmt *s)
{
    switch (s->kind) {
    case HDG_S_FOR:
        for (const hdg_ir_stmt *c = s->body.first; c; c = c->next)
            if (!stmt_loads_at_key(n, c)) return 0;
        return 1;
    case HDG_S_LET: return loads_at_key(n, s->value);
    case HDG_S_STORE:
        for (int i = 0; i < s->dst->n; i++)
            if (!loads_at_key(n, s->dst->a[i])) return 0;
        return loads_at_key(n, s->value);
    default: return 0;
    }
}

/* May the iterations of loop index v run on different threads? Every tensor
 * the nest (top) writes must be stored, and loaded, always at one index
 * expression v + c in one dimension, the same for all its accesses; then
 * distinct v never touch the same entry, whatever the other loops do. */
static int qualifies(nest *n, const hdg_ir_var *v, const hdg_ir_stmt *top)
{
    for (int i = 0; i < n->nw; i++) n->key[n->wlist[i]->id] = NULL;
    for (int i = 0; i < n->nstores; i++) {
        const hdg_ir_expr *dst = n->stores[i]->dst;
        int id = dst->t->id;
        if (n->key[id]) {
            if (!hdg_ir_expr_equal(dst->a[n->dim[id]], n->key[id])) return 0;
            continue;
        }
        for (int d = 0; d < dst->n && !n->key[id]; d++)
            if (v_plus_c(n, dst->a[d], v)) n->key[id] = dst->a[d], n->dim[id] = d;
        if (!n->key[id]) return 0;
    }
    return stmt_loads_at_key(n, top);
}

static int has_store(const hdg_ir_stmt *s)
{
    if (s->kind == HDG_S_STORE) return 1;
    if (s->kind != HDG_S_FOR) return 0;
    for (const hdg_ir_stmt *c = s->body.first; c; c = c->next)
        if (has_store(c)) return 1;
    return 0;
}

/* The loop in loop's body that holds all of its stores, or NULL. */
static const hdg_ir_stmt *store_loop(const hdg_ir_stmt *loop)
{
    const hdg_ir_stmt *found = NULL;
    for (const hdg_ir_stmt *c = loop->body.first; c; c = c->next) {
        if (c->kind == HDG_S_STORE) return NULL;
        if (c->kind == HDG_S_FOR && has_store(c)) {
            if (found) return NULL;
            found = c;
        }
    }
    return found;
}

/* The loop that is the last statement of loop's body with only lets before it. */
static const hdg_ir_stmt *perfect_inner(const hdg_ir_stmt *loop)
{
    const hdg_ir_stmt *c = loop->body.first;
    while (c && c->kind == HDG_S_LET) c = c->next;
    return c && c->kind == HDG_S_FOR && !c->next ? c : NULL;
}

static int cols(const hdg_ir_tensor *t) { return t->rank == 2 ? t->shape[1] : 1; }

static int dense_extent(const hdg_ir_stmt *s)
{
    int r, c, n = s->A->shape[0];
    switch (s->kind) {
    case HDG_S_MATMUL: hdg_ir_matrix_dims(s->C, 0, &r, &c); return r * c;
    case HDG_S_LU: return (n - 1) * (n - 1);
    case HDG_S_LU_SOLVE: case HDG_S_CHOL_SOLVE: return cols(s->B);
    default: return 1;
    }
}

static splan plan_stmt(nest *n, hdg_emit_c_printer *p, const hdg_ir_stmt *s)
{
    splan r = { RUN_ALL, NULL, NULL, 1 };
    switch (s->kind) {
    case HDG_S_LET: r.run = hdg_emit_c_live(p, s->var) ? RUN_ALL : RUN_SKIP; return r;
    case HDG_S_STORE: r.run = RUN_ONE; return r;
    case HDG_S_FOR: break;
    default:
        r.run = RUN_DENSE;
        r.extent = dense_extent(s);
        return r;
    }
    collect(n, s);
    if (n->dense) r.run = RUN_ONE;
    else if (n->nstores) {
        r.run = RUN_ONE;
        for (const hdg_ir_stmt *l = s; l; l = store_loop(l)) {
            if (!qualifies(n, l->var, s)) continue;
            r.run = RUN_LOOP;
            r.loop = l;
            r.extent = l->var->extent;
            const hdg_ir_stmt *in = perfect_inner(l);
            if (in && qualifies(n, in->var, s)) {
                r.run = RUN_PAIR;
                r.inner = in;
                r.extent *= in->var->extent;
            }
            break;
        }
    }
    nest_clear(n);
    return r;
}

/* ------------------------------------------------------ shared-memory layout */

/* s is `dst[i][j] = src[i][j]` over loops i, j: the same shape, the same loop
 * indices in the same places, nothing else stored. */
static int pointwise_copy(const hdg_ir_stmt *s, const hdg_ir_tensor **dst, const hdg_ir_tensor **src)
{
    while (s->kind == HDG_S_FOR && s->body.first && !s->body.first->next) s = s->body.first;
    if (s->kind != HDG_S_STORE || s->accumulate || s->value->op != HDG_E_LOAD || s->value->row) return 0;
    const hdg_ir_tensor *d = s->dst->t, *r = s->value->t;
    if (d->kind != HDG_IR_LOCAL || r->kind != HDG_IR_LOCAL || d == r || d->type != r->type || d->rank != r->rank)
        return 0;
    for (int i = 0; i < d->rank; i++) {
        const hdg_ir_expr *x = s->dst->a[i];
        if (d->shape[i] != r->shape[i] || x->op != HDG_E_VAR || !x->var->is_loop ||
            !hdg_ir_expr_equal(x, s->value->a[i]))
            return 0;
    }
    *dst = d, *src = r;
    return 1;
}

static int find(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* Byte offsets of the used locals. A local lives from the first to the last
 * top-level statement that touches it; locals whose lives do not overlap may
 * share bytes (barriers are placed by byte range, so reuse is race-free), and
 * a copy into a local born there from one that dies there (W = B before an
 * in-place solve) reuses the source's bytes: each thread reads and writes
 * the same entry. First fit, largest first. */
static void layout(const hdg_ir_kernel *k, hdg_emit_c_printer *p, bplan *pl)
{
    int nt = k->ntensors;
    int *first = hdg_xmalloc((size_t)(nt + 1) * sizeof *first), *last = hdg_xmalloc((size_t)(nt + 1) * sizeof *last);
    int *parent = hdg_xmalloc((size_t)(nt + 1) * sizeof *parent), *order = hdg_xmalloc((size_t)(nt + 1) * sizeof *order);
    long long *size = hdg_xcalloc((size_t)nt + 1, sizeof *size);
    unsigned char *acc = hdg_xcalloc((size_t)k->m->next_tensor_id + 1, 1);
    for (int i = 0; i < nt; i++) first[i] = -1, last[i] = -1, parent[i] = i;
    int j = 0;
    for (const hdg_ir_stmt *s = k->body.first; s; s = s->next, j++) {
        if (pl->st[j].run == RUN_SKIP) continue;
        hdg_cuda_block_access(s, acc);
        for (int i = 0; i < nt; i++) {
            const hdg_ir_tensor *t = k->tensors[i];
            if (!acc[t->id]) continue;
            acc[t->id] = 0;
            if (t->kind != HDG_IR_LOCAL) continue;
            if (first[i] < 0) first[i] = j;
            last[i] = j;
        }
    }
    j = 0;
    for (const hdg_ir_stmt *s = k->body.first; s; s = s->next, j++) {
        const hdg_ir_tensor *d, *r;
        if (!pointwise_copy(s, &d, &r)) continue;
        int di = -1, ri = -1;
        for (int i = 0; i < nt; i++) {
            if (k->tensors[i] == d) di = i;
            if (k->tensors[i] == r) ri = i;
        }
        int root = find(parent, ri);
        if (di < 0 || ri < 0 || first[di] != j || last[root] != j) continue;
        parent[di] = root;
        last[root] = last[di];
    }
    int nroots = 0;
    pl->locals = 0;
    for (int i = 0; i < nt; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        pl->offset[i] = -1;
        if (t->kind != HDG_IR_LOCAL || !hdg_emit_c_uses(p, t)) continue;
        pl->locals += hdg_cuda_padded(t);
        int r = find(parent, i);
        if (hdg_cuda_padded(t) > size[r]) size[r] = hdg_cuda_padded(t);
        if (r == i) order[nroots++] = i;
        if (first[i] < 0) first[i] = last[i] = 0;   /* declared, never touched: keep it apart */
    }
    for (int a = 1; a < nroots; a++)   /* largest first, then creation order */
        for (int b = a; b > 0 && size[order[b]] > size[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1], order[b - 1] = t;
        }
    pl->shared = 0;
    for (int a = 0; a < nroots; a++) {
        int r = order[a];
        long long at = 0;
        for (int moved = 1; moved;) {
            moved = 0;
            for (int b = 0; b < a; b++) {
                int q = order[b];
                int live = first[q] <= last[r] && first[r] <= last[q];
                if (live && pl->offset[q] < at + size[r] && at < pl->offset[q] + size[q]) {
                    at = pl->offset[q] + size[q];
                    moved = 1;
                }
            }
        }
        pl->offset[r] = at;
        if (at + size[r] > pl->shared) pl->shared = at + size[r];
    }
    for (int i = 0; i < nt; i++)
        if (k->tensors[i]->kind == HDG_IR_LOCAL && hdg_emit_c_uses(p, k->tensors[i])) pl->offset[i] = pl->offset[find(parent, i)];
    free(first), free(last), free(parent), free(order), free(size), free(acc);
}

void hdg_cuda_block_plan(const hdg_ir_kernel *k, bplan *pl)
{
    memset(pl, 0, sizeof *pl);
    for (const hdg_ir_stmt *s = k->body.first; s; s = s->next) pl->n++;
    pl->st = hdg_xcalloc((size_t)pl->n + 1, sizeof *pl->st);
    pl->offset = hdg_xcalloc((size_t)k->ntensors + 1, sizeof *pl->offset);
    hdg_str sink;
    hdg_str_init(&sink);
    hdg_emit_c_printer *p = hdg_emit_c_printer_new(k, &sink, NULL);
    nest n;
    nest_init(&n, k->m);
    int j = 0, widest = 1;
    for (const hdg_ir_stmt *s = k->body.first; s; s = s->next, j++) {
        pl->st[j] = plan_stmt(&n, p, s);
        if (pl->st[j].extent > widest) widest = pl->st[j].extent;
    }
    nest_free(&n);
    layout(k, p, pl);
    hdg_emit_c_printer_free(p);
    hdg_str_free(&sink);
    pl->block = (widest + 31) / 32 * 32;
    if (pl->block > 256) pl->block = 256;
}

void hdg_cuda_block_plan_free(bplan *pl)
{
    free(pl->st);
    free(pl->offset);
}
