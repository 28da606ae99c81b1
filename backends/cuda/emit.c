/* emit.c — the CUDA emitter (see emit.h). The statements of every item are
 * printed by the C emitter's printer (backends/c/emit.h) with CUDA
 * qualifiers; this file adds what is CUDA's own: the prelude, the placement
 * of tables (__constant__ or __device__ const), the choice of the mapping of
 * items to threads, the plan of a block-per-item kernel (which loop each
 * statement spreads over the threads, where the barriers go, where each
 * local lives in shared memory), its block-cooperative dense helpers, and
 * the __global__ wrappers with their launch shape. */
#include "backends/cuda/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"

static const char prelude[] =
    "/* NVRTC compiles without system headers: the libm constants the\n"
    " * printer may use (nvcc gets them from math.h). */\n"
    "#ifndef NAN\n"
    "#define NAN __builtin_bit_cast(double, 0x7ff8000000000000ULL)\n"
    "#endif\n"
    "#ifndef HUGE_VAL\n"
    "#define HUGE_VAL __builtin_bit_cast(double, 0x7ff0000000000000ULL)\n"
    "#endif\n";

const char *hdg_emit_cuda_prelude(void) { return prelude; }

typedef struct cuda_opts {
    int line_directives;
    char file_name[256];
    int block, constant_bytes;
    int mapping, max_shared;
} cuda_opts;

static hdg_status resolve(const hdg_ir_module *m, const hdg_emit_cuda_options *o, cuda_opts *r, hdg_error *err)
{
    cuda_opts d = { 0, "", 128, 49152, HDG_CUDA_MAPPING_AUTO, HDG_CUDA_SHARED_OPTIN_SM90 };
    *r = d;
    snprintf(r->file_name, sizeof r->file_name, "%s.cu", m->name);
    if (o) {
        r->line_directives = o->line_directives;
        if (o->file_name) snprintf(r->file_name, sizeof r->file_name, "%s", o->file_name);
        if (o->block > 0) r->block = o->block;
        if (o->constant_bytes) r->constant_bytes = o->constant_bytes < 0 ? 0 : o->constant_bytes;
        if (o->mapping < 0 || o->mapping > HDG_CUDA_MAPPING_BLOCK)
            return hdg_fail(err, HDG_EINPUT, "CUDA mapping %d: expected 0 (auto), 1 (thread) or 2 (block)", o->mapping);
        r->mapping = o->mapping;
        if (o->max_shared > 0) r->max_shared = o->max_shared;
    }
    const char *env = getenv("HDGC_CUDA_MAPPING");
    if (r->mapping == HDG_CUDA_MAPPING_AUTO && env && *env) {
        static const char *const names[] = { "auto", "thread", "block" };
        int found = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(env, names[i])) found = i;
        if (found < 0) return hdg_fail(err, HDG_EINPUT, "HDGC_CUDA_MAPPING=%s: expected auto, thread or block", env);
        r->mapping = found;
    }
    return HDG_OK;
}

/* ------------------------------------------------------- table placement */

/* A table goes to __constant__ memory only when every read of it is at an
 * index all threads of a warp agree on (loop indices, constants, parameters,
 * lets of those, values of uniform table reads): the constant cache then
 * broadcasts. Reads at per-item indices (e.g. a node map indexed by the local
 * face of the item) would serialize there; such tables use __device__ const
 * and the read-only data cache. */
enum { T_USED = 1, T_SCATTERED = 2 };

typedef struct place_ctx {
    unsigned char *tab;      /* by tensor id */
    unsigned char *uniform;  /* by var id: let/loop value uniform across items */
} place_ctx;

static int uniform_expr(place_ctx *c, const hdg_ir_expr *e)
{
    switch (e->op) {
    case HDG_E_NUM: case HDG_E_INT: case HDG_E_TIME: case HDG_E_PARAM: return 1;
    case HDG_E_ITEM: return 0;
    case HDG_E_VAR: return c->uniform[e->var->id];
    default: break;
    }
    int u = 1;
    if (e->row) u &= uniform_expr(c, e->row);
    for (int i = 0; i < e->n; i++) u &= uniform_expr(c, e->a[i]);
    if (e->op == HDG_E_LOAD) {
        if (e->t->kind != HDG_IR_TABLE) return 0;
        c->tab[e->t->id] |= T_USED | (u ? 0 : T_SCATTERED);
    }
    return u;
}

static void place_block(place_ctx *c, const hdg_ir_stmt *s)
{
    for (; s; s = s->next) {
        switch (s->kind) {
        case HDG_S_FOR:
            c->uniform[s->var->id] = 1;
            place_block(c, s->body.first);
            break;
        case HDG_S_LET:
            c->uniform[s->var->id] = (unsigned char)uniform_expr(c, s->value);
            break;
        case HDG_S_STORE:
            uniform_expr(c, s->value);
            uniform_expr(c, s->dst);
            break;
        default: {   /* dense ops read whole tables in loops of constant bounds: uniform */
            hdg_ir_tensor *r[4];
            int n = hdg_ir_dense_reads(s, r);
            for (int i = 0; i < n; i++)
                if (r[i]->kind == HDG_IR_TABLE) c->tab[r[i]->id] |= T_USED;
            break;
        }
        }
    }
}

static void emit_tables(const hdg_ir_module *m, const cuda_opts *o, hdg_str *out)
{
    place_ctx c;
    c.tab = hdg_xcalloc((size_t)m->next_tensor_id + 1, 1);
    c.uniform = hdg_xcalloc((size_t)m->next_var_id + 1, 1);
    for (int i = 0; i < m->nkernels; i++) place_block(&c, m->kernels[i]->body.first);
    long long constant = 0;
    for (int i = 0; i < m->ntables; i++) {
        const hdg_ir_tensor *t = m->tables[i];
        if (!(c.tab[t->id] & T_USED)) continue;
        long long bytes = (long long)t->size * (t->type == HDG_IR_INT ? 4 : 8);
        int in_constant = !(c.tab[t->id] & T_SCATTERED) && constant + bytes <= o->constant_bytes;
        if (in_constant) constant += bytes;
        hdg_str_printf(out, "%s %s %s", in_constant ? "static __constant__" : "static __device__ const",
                       t->type == HDG_IR_INT ? "int" : "double", t->name);
        if (t->rank == 0) hdg_str_puts(out, "[1]");
        for (int d = 0; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
        hdg_str_puts(out, " = ");
        hdg_emit_c_table_init(t, 0, out);
        hdg_str_puts(out, ";\n");
    }
    free(c.tab);
    free(c.uniform);
}

/* ----------------------------------------------------------------- kernels */

static int tensor_bytes(const hdg_ir_tensor *t) { return t->size * (t->type == HDG_IR_INT ? 4 : 8); }

static long long local_bytes(const hdg_ir_kernel *k)
{
    long long b = 0;
    for (int i = 0; i < k->ntensors; i++)
        if (k->tensors[i]->kind == HDG_IR_LOCAL) b += tensor_bytes(k->tensors[i]);
    return b;
}

static const char *item_name(const hdg_ir_kernel *k) { return k->item == HDG_KITEM_FACE ? "face" : "element"; }

/* ------------------------------------------------ accesses of a statement */

/* What a statement (its loops included) does to the LOCAL and OUT tensors,
 * by tensor id: the only memory a block's threads share. */
enum { A_READ = 1, A_WRITE = 2 };

static int shared_kind(const hdg_ir_tensor *t) { return t->kind == HDG_IR_LOCAL || t->kind == HDG_IR_OUT; }

static void access_expr(const hdg_ir_expr *e, unsigned char *acc)
{
    if (e->op == HDG_E_LOAD && shared_kind(e->t)) acc[e->t->id] |= A_READ;
    if (e->row) access_expr(e->row, acc);
    for (int i = 0; i < e->n; i++) access_expr(e->a[i], acc);
}

static void access_stmt(const hdg_ir_stmt *s, unsigned char *acc)
{
    hdg_ir_tensor *t[4];
    switch (s->kind) {
    case HDG_S_FOR:
        for (const hdg_ir_stmt *c = s->body.first; c; c = c->next) access_stmt(c, acc);
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

/* How a top-level statement of a block-per-item kernel runs on the block. */
enum { RUN_SKIP, RUN_ALL, RUN_ONE, RUN_LOOP, RUN_PAIR, RUN_DENSE };

typedef struct splan {
    int run;
    const hdg_ir_stmt *loop;    /* RUN_LOOP, RUN_PAIR: the loop spread over the threads */
    const hdg_ir_stmt *inner;   /* RUN_PAIR: the loop right inside it, collapsed with it */
    int extent;                 /* iterations (work items) spread over the threads */
} splan;

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

typedef struct bplan {
    int n;                 /* top-level statements */
    splan *st;             /* by statement */
    long long *offset;     /* by index in k->tensors: byte offset of a used local, -1 otherwise */
    long long locals;      /* bytes of the used locals, each 8-byte aligned */
    long long shared;      /* bytes of shared memory after sharing between lifetimes */
    int block;             /* threads per block */
} bplan;

static long long padded(const hdg_ir_tensor *t) { return ((long long)tensor_bytes(t) + 7) & ~7LL; }

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
        access_stmt(s, acc);
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
        pl->locals += padded(t);
        int r = find(parent, i);
        if (padded(t) > size[r]) size[r] = padded(t);
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

static void plan_kernel(const hdg_ir_kernel *k, bplan *pl)
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

static void plan_free(bplan *pl)
{
    free(pl->st);
    free(pl->offset);
}

/* The mapping of a kernel's items to threads (see emit.h). note gets the
 * reason when a block per item was wanted but does not fit. */
static hdg_cuda_shape choose_mapping(const hdg_ir_kernel *k, const cuda_opts *o, bplan *pl, char *note, size_t nn)
{
    hdg_cuda_shape s = { HDG_CUDA_ITEM_PER_THREAD, o->block, o->block, 0 };
    note[0] = 0;
    if (o->mapping == HDG_CUDA_MAPPING_THREAD) return s;
    plan_kernel(k, pl);
    if (o->mapping == HDG_CUDA_MAPPING_AUTO && pl->locals <= HDG_CUDA_BLOCK_MIN_LOCALS) return s;
    if (pl->shared > o->max_shared) {
        snprintf(note, nn, "a thread block per %s would need %lld B of shared memory for its locals, more than "
                 "the %d B a block may have", item_name(k), pl->shared, o->max_shared);
        return s;
    }
    s.mapping = HDG_CUDA_BLOCK_PER_ITEM;
    s.block = pl->block;
    s.items_per_block = 1;
    s.shared_bytes = (int)pl->shared;
    return s;
}

/* ------------------------------------------------------ block-per-item code */

/* Block-cooperative versions of the dense helpers (same signatures), called
 * by every thread of the block with operands in shared (or global) memory. */
static const char *const blk_helper_text[] = {
    /* HDG_S_MATMUL: one thread per entry of C, the sum in the host helper's order */
    "static __device__ __forceinline__ void hdg_blk_matmul(int m, int n, int k, double alpha, const double *__restrict__ A,\n"
    "    int sa0, int sa1, const double *__restrict__ B, int sb0, int sb1, double beta, double *__restrict__ C)\n"
    "{\n"
    "    #pragma unroll 1\n"
    "    for (int t = threadIdx.x; t < m * n; t += blockDim.x) {\n"
    "        const int i = t / n, j = t % n;\n"
    "        double s = 0.0;\n"
    "        #pragma unroll 1\n"
    "        for (int p = 0; p < k; ++p) s += A[i * sa0 + p * sa1] * B[p * sb0 + j * sb1];\n"
    "        if (alpha != 1.0) s *= alpha;\n"
    "        if (beta == 0.0) C[t] = s;\n"
    "        else if (beta == 1.0) C[t] += s;\n"
    "        else C[t] = s + beta * C[t];\n"
    "    }\n"
    "}\n",
    /* HDG_S_LU: the host's pivots (first largest |a|, by thread 0), swap and
     * update over the threads (a warp per row, its lanes over the columns) */
    "static __device__ __forceinline__ void hdg_blk_lu(int n, double *__restrict__ A, int *__restrict__ piv)\n"
    "{\n"
    "    const int lanes = blockDim.x < 32 ? (int)blockDim.x : 32;\n"
    "    const int lane = threadIdx.x % lanes, warp = threadIdx.x / lanes, warps = blockDim.x / lanes;\n"
    "    #pragma unroll 1\n"
    "    for (int k = 0; k < n; ++k) {\n"
    "        if (threadIdx.x == 0) {\n"
    "            int p = k;\n"
    "            double big = fabs(A[k * n + k]);\n"
    "            #pragma unroll 1\n"
    "            for (int i = k + 1; i < n; ++i)\n"
    "                if (fabs(A[i * n + k]) > big) {\n"
    "                    big = fabs(A[i * n + k]);\n"
    "                    p = i;\n"
    "                }\n"
    "            piv[k] = p;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        const int p = piv[k];\n"
    "        if (p != k) {\n"
    "            #pragma unroll 1\n"
    "            for (int j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "                const double t = A[k * n + j];\n"
    "                A[k * n + j] = A[p * n + j];\n"
    "                A[p * n + j] = t;\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "        const double d = A[k * n + k];\n"
    "        #pragma unroll 1\n"
    "        for (int i = k + 1 + threadIdx.x; i < n; i += blockDim.x) A[i * n + k] = A[i * n + k] / d;\n"
    "        __syncthreads();\n"
    "        #pragma unroll 1\n"
    "        for (int i = k + 1 + warp; i < n && warp < warps; i += warps) {\n"
    "            const double l = A[i * n + k];\n"
    "            if (l == 0.0) continue; /* local matrices are block-sparse: skip zero rows */\n"
    "            #pragma unroll 1\n"
    "            for (int j = k + 1 + lane; j < n; j += lanes) A[i * n + j] -= l * A[k * n + j];\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n",
    /* HDG_S_LU_SOLVE: one thread per column of B, the host helper's order in each */
    "static __device__ __forceinline__ void hdg_blk_lu_solve(int n, int m, const double *__restrict__ A,\n"
    "    const int *__restrict__ piv, double *__restrict__ B)\n"
    "{\n"
    "    #pragma unroll 1\n"
    "    for (int j = threadIdx.x; j < m; j += blockDim.x) {\n"
    "        #pragma unroll 1\n"
    "        for (int k = 0; k < n; ++k) {\n"
    "            const int p = piv[k];\n"
    "            if (p != k) {\n"
    "                const double t = B[k * m + j];\n"
    "                B[k * m + j] = B[p * m + j];\n"
    "                B[p * m + j] = t;\n"
    "            }\n"
    "        }\n"
    "        #pragma unroll 1\n"
    "        for (int i = 1; i < n; ++i)\n"
    "            #pragma unroll 1\n"
    "            for (int k = 0; k < i; ++k) {\n"
    "                const double l = A[i * n + k];\n"
    "                if (l == 0.0) continue;\n"
    "                B[i * m + j] -= l * B[k * m + j];\n"
    "            }\n"
    "        #pragma unroll 1\n"
    "        for (int i = n - 1; i >= 0; --i) {\n"
    "            #pragma unroll 1\n"
    "            for (int k = i + 1; k < n; ++k) B[i * m + j] -= A[i * n + k] * B[k * m + j];\n"
    "            B[i * m + j] /= A[i * n + i];\n"
    "        }\n"
    "    }\n"
    "}\n",
    /* HDG_S_CHOL: thread 0 runs the one-thread helper */
    "static __device__ __forceinline__ void hdg_blk_chol(int n, double *__restrict__ A)\n"
    "{\n"
    "    if (threadIdx.x == 0) hdg_chol(n, A);\n"
    "}\n",
    /* HDG_S_CHOL_SOLVE: one thread per column of B, the host helper's order in each */
    "static __device__ __forceinline__ void hdg_blk_chol_solve(int n, int m, const double *__restrict__ L,\n"
    "    double *__restrict__ B)\n"
    "{\n"
    "    #pragma unroll 1\n"
    "    for (int j = threadIdx.x; j < m; j += blockDim.x) {\n"
    "        #pragma unroll 1\n"
    "        for (int i = 0; i < n; ++i) {\n"
    "            #pragma unroll 1\n"
    "            for (int k = 0; k < i; ++k) B[i * m + j] -= L[i * n + k] * B[k * m + j];\n"
    "            B[i * m + j] /= L[i * n + i];\n"
    "        }\n"
    "        #pragma unroll 1\n"
    "        for (int i = n - 1; i >= 0; --i) {\n"
    "            #pragma unroll 1\n"
    "            for (int k = i + 1; k < n; ++k) B[i * m + j] -= L[k * n + i] * B[k * m + j];\n"
    "            B[i * m + j] /= L[i * n + i];\n"
    "        }\n"
    "    }\n"
    "}\n",
};

static int blk_helper_index(hdg_ir_skind kind)
{
    switch (kind) {
    case HDG_S_MATMUL: return 0;
    case HDG_S_LU: return 1;
    case HDG_S_LU_SOLVE: return 2;
    case HDG_S_CHOL: return 3;
    case HDG_S_CHOL_SOLVE: return 4;
    default: return -1;
    }
}

static void emit_blk_helpers(const hdg_ir_module *m, const hdg_cuda_shape *shapes, hdg_str *out)
{
    unsigned used = 0;
    for (int i = 0; i < m->nkernels; i++)
        if (shapes[i].mapping == HDG_CUDA_BLOCK_PER_ITEM)
            for (const hdg_ir_stmt *s = m->kernels[i]->body.first; s; s = s->next)
                if (blk_helper_index(s->kind) >= 0) used |= 1u << blk_helper_index(s->kind);
    for (int i = 0; i < 5; i++)
        if (used & (1u << i)) {
            hdg_str_puts(out, blk_helper_text[i]);
            hdg_str_putc(out, '\n');
        }
}

typedef struct bctx {
    const hdg_ir_kernel *k;
    hdg_emit_c_printer *p;
    hdg_str *out;
    const hdg_emit_c_options *co;
    const bplan *pl;
    unsigned char *pend;   /* by tensor id: A_READ / A_WRITE since the last barrier */
    unsigned char *acc;    /* scratch: the statement's accesses */
} bctx;

/* Do a and b (LOCAL or OUT) share memory? Locals by byte range (lifetimes share bytes). */
static int same_memory(const bctx *b, int ia, int ib)
{
    if (ia == ib) return 1;
    const hdg_ir_tensor *ta = b->k->tensors[ia], *tb = b->k->tensors[ib];
    if (ta->kind != HDG_IR_LOCAL || tb->kind != HDG_IR_LOCAL) return 0;
    long long oa = b->pl->offset[ia], ob = b->pl->offset[ib];
    return oa >= 0 && ob >= 0 && oa < ob + padded(tb) && ob < oa + padded(ta);
}

/* A barrier before statement s when it reads what was written, or writes
 * what was read or written, since the last one, unless both sides ran on
 * thread 0 alone (one: s does). Pending accesses by thread 0 alone are kept
 * in the bits above A_READ | A_WRITE. */
static void barrier_before(bctx *b, const hdg_ir_stmt *s, int one, int ind)
{
    const hdg_ir_kernel *k = b->k;
    access_stmt(s, b->acc);
    int need = 0;
    for (int i = 0; i < k->ntensors && !need; i++) {
        int a = b->acc[k->tensors[i]->id];
        if (!a) continue;
        for (int q = 0; q < k->ntensors && !need; q++) {
            int p = b->pend[k->tensors[q]->id];
            int w = one ? p & 3 : (p | p >> 2) & 3;
            if (w && ((a & A_WRITE) || (w & A_WRITE)) && same_memory(b, i, q)) need = 1;
        }
    }
    if (need) {
        hdg_str_printf(b->out, "%*s__syncthreads();\n", ind, "");
        for (int i = 0; i < k->ntensors; i++) b->pend[k->tensors[i]->id] = 0;
    }
    for (int i = 0; i < k->ntensors; i++) {
        int id = k->tensors[i]->id;
        b->pend[id] |= (unsigned char)(one ? b->acc[id] << 2 : b->acc[id]);
        b->acc[id] = 0;
    }
}

static int holds(const hdg_ir_stmt *s, const hdg_ir_stmt *loop)
{
    if (s == loop) return 1;
    if (s->kind != HDG_S_FOR) return 0;
    for (const hdg_ir_stmt *c = s->body.first; c; c = c->next)
        if (holds(c, loop)) return 1;
    return 0;
}

/* A loop nest whose loop pl->loop runs spread over the threads: the loops
 * around it run whole in every thread. */
static void emit_spread(bctx *b, const hdg_ir_stmt *s, const splan *pl, int ind)
{
    hdg_str *out = b->out;
    int back = hdg_emit_c_origin(b->p, s, ind);
    const char *v = s->var->name;
    int n = s->var->extent;
    if (s == pl->loop && pl->run == RUN_LOOP) {
        hdg_str_printf(out, "%*sfor (int %s = threadIdx.x; %s < %d; %s += blockDim.x) {  /* threads over %s */\n", ind, "",
                       v, v, n, v, v);
        if (back) hdg_emit_c_line_back(b->p);
        hdg_emit_c_block(b->p, s->body.first, ind + 4);
    } else if (s == pl->loop) {
        const hdg_ir_stmt *in = pl->inner;
        const char *w = in->var->name;
        int m = in->var->extent;
        hdg_str_printf(out, "%*sfor (int hdg_t = threadIdx.x; hdg_t < %d; hdg_t += blockDim.x) {  /* threads over %s x %s */\n",
                       ind, "", n * m, v, w);
        if (back) hdg_emit_c_line_back(b->p);
        hdg_str_printf(out, "%*sconst int %s = hdg_t / %d;\n", ind + 4, "", v, m);
        hdg_str_printf(out, "%*sconst int %s = hdg_t %% %d;\n", ind + 4, "", w, m);
        for (const hdg_ir_stmt *c = s->body.first; c != in; c = c->next) hdg_emit_c_stmt(b->p, c, ind + 4);
        hdg_emit_c_block(b->p, in->body.first, ind + 4);
    } else {
        if (b->co->loop_pragma && n >= b->co->loop_pragma_min) hdg_str_printf(out, "%*s%s\n", ind, "", b->co->loop_pragma);
        hdg_str_printf(out, "%*sfor (int %s = 0; %s < %d; ++%s) {\n", ind, "", v, v, n, v);
        if (back) hdg_emit_c_line_back(b->p);
        for (const hdg_ir_stmt *c = s->body.first; c; c = c->next)
            if (holds(c, pl->loop)) emit_spread(b, c, pl, ind + 4);
            else hdg_emit_c_stmt(b->p, c, ind + 4);
    }
    hdg_str_printf(out, "%*s}\n", ind, "");
}

static void emit_block_stmt(bctx *b, const hdg_ir_stmt *s, const splan *pl, int ind)
{
    switch (pl->run) {
    case RUN_SKIP:
        return;
    case RUN_ALL: case RUN_DENSE:
        barrier_before(b, s, 0, ind);
        hdg_emit_c_stmt(b->p, s, ind);
        if (s->kind == HDG_S_LU)   /* hdg_blk_lu ends with a barrier */
            for (int i = 0; i < b->k->ntensors; i++) b->pend[b->k->tensors[i]->id] = 0;
        return;
    case RUN_ONE:
        barrier_before(b, s, 1, ind);
        hdg_str_printf(b->out, "%*sif (threadIdx.x == 0) {  /* one thread: no loop writes apart */\n", ind, "");
        hdg_emit_c_stmt(b->p, s, ind + 4);
        hdg_str_printf(b->out, "%*s}\n", ind, "");
        return;
    default:
        barrier_before(b, s, 0, ind);
        emit_spread(b, s, pl, ind);
        return;
    }
}

/* A local in shared memory: a pointer with the local's shape, so the
 * statement printer indexes it as it indexes an array. */
static void declare_shared(const hdg_ir_tensor *t, long long offset, hdg_str *out)
{
    const char *type = t->type == HDG_IR_INT ? "int" : "double";
    hdg_str dims;
    hdg_str_init(&dims);
    for (int d = 1; d < t->rank; d++) hdg_str_printf(&dims, "[%d]", t->shape[d]);
    const char *cast = t->type == HDG_IR_INT ? "(int *)" : "";
    if (t->rank <= 1)
        hdg_str_printf(out, "    %s *const %s = %s(hdg_sm + %lld);\n", type, t->name, cast, offset / 8);
    else
        hdg_str_printf(out, "    %s (*const %s)%s = (%s (*)%s)(hdg_sm + %lld);\n", type, t->name, dims.s, type, dims.s,
                       offset / 8);
    hdg_str_free(&dims);
}

static void emit_block_per_item(const hdg_ir_kernel *k, const hdg_cuda_shape *sh, const bplan *pl,
                                const hdg_emit_c_options *co, hdg_str *out)
{
    hdg_emit_c_options bo = *co;
    bo.dense_prefix = "hdg_blk_";
    hdg_emit_c_printer *p = hdg_emit_c_printer_new(k, out, &bo);
    hdg_str_printf(out, "extern \"C\" __global__ void __launch_bounds__(%d) %s(long long begin, long long end, hdg_kargs hdg_args)\n{\n",
                   sh->block, k->name);
    hdg_str_puts(out, "    const hdg_kargs *const a = &hdg_args;\n");
    hdg_str_puts(out, "    (void)a;\n");
    if (pl->shared) {
        hdg_str_puts(out, "    extern __shared__ double hdg_smem[];\n");
        hdg_str_puts(out, "    double *const hdg_sm = hdg_smem;\n");
        for (int i = 0; i < k->ntensors; i++)
            if (pl->offset[i] >= 0) declare_shared(k->tensors[i], pl->offset[i], out);
    }
    hdg_str_puts(out, "    for (long long e = begin + blockIdx.x; e < end; e += gridDim.x) {\n");
    hdg_emit_c_decls(p, 8, 0);
    bctx b = { k, p, out, &bo, pl, NULL, NULL };
    b.pend = hdg_xcalloc((size_t)k->m->next_tensor_id + 1, 1);
    b.acc = hdg_xcalloc((size_t)k->m->next_tensor_id + 1, 1);
    int j = 0;
    for (const hdg_ir_stmt *s = k->body.first; s; s = s->next, j++) emit_block_stmt(&b, s, &pl->st[j], 8);
    hdg_str_puts(out, "        __syncthreads();   /* the next item reuses the shared memory */\n");
    hdg_str_puts(out, "    }\n}\n\n");
    free(b.pend);
    free(b.acc);
    hdg_emit_c_printer_free(p);
}

static void emit_item_per_thread(const hdg_ir_kernel *k, const hdg_cuda_shape *s,
                                 const hdg_emit_c_options *co, hdg_str *out)
{
    hdg_str_printf(out, "extern \"C\" __global__ void __launch_bounds__(%d) %s(long long begin, long long end, hdg_kargs hdg_args)\n{\n",
                   s->block, k->name);
    hdg_str_puts(out, "    const hdg_kargs *const a = &hdg_args;\n");
    hdg_str_puts(out, "    (void)a;\n");
    hdg_str_puts(out, "    const long long hdg_stride = (long long)gridDim.x * blockDim.x;\n");
    hdg_str_puts(out, "    for (long long e = begin + (long long)blockIdx.x * blockDim.x + threadIdx.x; e < end; e += hdg_stride) {\n");
    hdg_emit_c_item(k, out, 8, co);
    hdg_str_puts(out, "    }\n}\n\n");
}

static void emit_kernel(const hdg_ir_kernel *k, const hdg_cuda_shape *s, const bplan *pl, const char *note,
                        const hdg_emit_c_options *co, hdg_str *out)
{
    hdg_ir_cost cost = hdg_ir_kernel_cost(k);
    hdg_str_printf(out, "/* kernel %s (per %s): flops %lld, read %lld B, write %lld B, tables %lld B per item;\n",
                   k->name, item_name(k), cost.flops, cost.bytes_read, cost.bytes_written, cost.table_bytes);
    switch (s->mapping) {
    case HDG_CUDA_ITEM_PER_THREAD:
        hdg_str_printf(out, " * one thread per %s, %d threads per block, locals %lld B per thread", item_name(k), s->block,
                       local_bytes(k));
        if (note[0]) hdg_str_printf(out, "\n * (%s)", note);
        hdg_str_puts(out, " */\n");
        emit_item_per_thread(k, s, co, out);
        break;
    case HDG_CUDA_BLOCK_PER_ITEM:
        hdg_str_printf(out, " * one thread block per %s, %d threads per block, shared memory %d B per block (locals %lld B) */\n",
                       item_name(k), s->block, s->shared_bytes, pl->locals);
        emit_block_per_item(k, s, pl, co, out);
        break;
    }
}

hdg_status hdg_emit_cuda(const hdg_ir_module *m, hdg_str *out, const hdg_emit_cuda_options *opt,
                         hdg_cuda_shape *shapes, hdg_error *err)
{
    hdg_status st = hdg_ir_verify_module(m, err);
    if (st) return st;
    cuda_opts o;
    if ((st = resolve(m, opt, &o, err))) return st;
    hdg_emit_c_options co = {0};
    co.line_directives = o.line_directives;
    co.file_name = o.file_name;
    co.no_header = 1;
    co.helper_qualifier = "static __device__ __forceinline__";
    co.table_qualifier = "static __device__ const";
    co.restrict_kw = "__restrict__";
    co.loop_pragma = "#pragma unroll 1";   /* see emit.h: PTX generation time */
    co.loop_pragma_min = 6;
    int nk = m->nkernels;
    hdg_cuda_shape *shape = hdg_xcalloc((size_t)nk + 1, sizeof *shape);
    bplan *plan = hdg_xcalloc((size_t)nk + 1, sizeof *plan);
    char (*note)[256] = hdg_xcalloc((size_t)nk + 1, sizeof *note);
    for (int i = 0; i < nk; i++) shape[i] = choose_mapping(m->kernels[i], &o, &plan[i], note[i], sizeof note[i]);
    hdg_str_printf(out, "/* Generated by hdgc %s from module %s for CUDA (NVRTC, or nvcc -ptx). Do not edit. */\n",
                   HDG_VERSION, m->name);
    hdg_str_puts(out, hdg_emit_c_abi_header());
    hdg_str_putc(out, '\n');
    hdg_str_puts(out, prelude);
    hdg_str_putc(out, '\n');
    emit_tables(m, &o, out);
    hdg_str_putc(out, '\n');
    hdg_emit_c_helpers(m, out, &co);
    emit_blk_helpers(m, shape, out);
    for (int i = 0; i < nk; i++) {
        if (shapes) shapes[i] = shape[i];
        emit_kernel(m->kernels[i], &shape[i], &plan[i], note[i], &co, out);
        plan_free(&plan[i]);
    }
    free(shape);
    free(plan);
    free(note);
    return HDG_OK;
}
