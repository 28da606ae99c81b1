/* cost.c — the compile-time cost model and the kernel metadata. Flops are
 * counted by walking the IR: each statement's operations times the trip
 * counts of the loops around it, dense ops by the exact operation counts of
 * the helpers the emitters print (formulas in ir.h and docs/ir.md). Bytes
 * are the compulsory traffic of one item: the whole stride of every global
 * slot it touches (they are contiguous per item), plus each load at an
 * explicit row; tables are counted apart since they stay in cache. */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

static long long powi_flops(long long n)
{
    unsigned long long m = n < 0 ? 0 - (unsigned long long)n : (unsigned long long)n;
    if (m == 0) return 0;
    int bits = 0, pop = 0;
    for (unsigned long long x = m; x > 1; x >>= 1) bits++;
    for (unsigned long long x = m; x; x &= x - 1) pop++;
    return bits + pop - 1 + (n < 0);
}

long long hdg_ir_expr_flops(const hdg_ir_expr *e)
{
    long long f = e->row ? hdg_ir_expr_flops(e->row) : 0;
    for (int i = 0; i < e->n; i++) f += hdg_ir_expr_flops(e->a[i]);
    switch (e->op) {
    case HDG_E_ADD: case HDG_E_SUB: case HDG_E_MUL: case HDG_E_DIV: case HDG_E_MIN: case HDG_E_MAX:
        return f + (e->type == HDG_IR_DOUBLE);
    case HDG_E_LT: case HDG_E_LE: case HDG_E_GT: case HDG_E_GE: case HDG_E_EQ: case HDG_E_NE:
        return f + (e->a[0]->type == HDG_IR_DOUBLE);
    case HDG_E_POWI: return f + powi_flops(e->ival);
    case HDG_E_CALL: return f + hdg_ir_fn_flops((hdg_ir_fn)e->ival);
    case HDG_E_POW: return f + 40;
    default: return f;
    }
}

static long long dense_flops(const hdg_ir_stmt *s)
{
    long long n = s->A->rank >= 1 ? s->A->shape[0] : 1;
    long long cols = s->B ? (s->B->rank == 2 ? s->B->shape[1] : 1) : 0;
    switch (s->kind) {
    case HDG_S_MATMUL: {
        int m, p, p2, q;
        hdg_ir_matrix_dims(s->A, s->transa, &m, &p);
        hdg_ir_matrix_dims(s->B, s->transb, &p2, &q);
        long long mq = (long long)m * q;
        return 2 * mq * p + (s->alpha != 1 ? mq : 0) + (s->beta != 0 ? mq : 0) +
               (s->beta != 0 && s->beta != 1 ? mq : 0);
    }
    case HDG_S_LU: return n * (n - 1) / 2 + n * (n - 1) * (2 * n - 1) / 3;
    case HDG_S_LU_SOLVE: return cols * (2 * n * n - n);
    case HDG_S_CHOL: {
        long long f = 0;
        for (long long j = 0; j < n; j++) f += 2 * j + 1 + (n - 1 - j) * (2 * j + 1);   /* L D L^T; 1: 1 / D_j */
        return f;
    }
    case HDG_S_CHOL_SOLVE: return cols * (2 * n * n - n);
    default: return 0;
    }
}

long long hdg_ir_stmt_flops(const hdg_ir_stmt *s)
{
    switch (s->kind) {
    case HDG_S_FOR: {
        long long f = 0;
        for (const hdg_ir_stmt *b = s->body.first; b; b = b->next) f += hdg_ir_stmt_flops(b);
        return f * s->var->extent;
    }
    case HDG_S_LET: return hdg_ir_expr_flops(s->value);
    case HDG_S_STORE:
        return hdg_ir_expr_flops(s->value) + hdg_ir_expr_flops(s->dst) +
               (s->accumulate && s->dst->t->type == HDG_IR_DOUBLE);
    default: return dense_flops(s);
    }
}

/* ------------------------------------------------------------------ usage */

enum { AT_ITEM = 1, AT_ROW = 2, WRITTEN = 4, READ = 8 };

typedef struct usage {
    unsigned char *flags;     /* by tensor id */
    long long row_bytes;      /* loads at explicit rows, times trip counts */
    long long nparams;
} usage;

static int elem_bytes(const hdg_ir_tensor *t) { return t->type == HDG_IR_INT ? 4 : 8; }

static void use_expr(usage *u, const hdg_ir_expr *e, long long mult)
{
    if (e->op == HDG_E_PARAM && e->ival + 1 > u->nparams) u->nparams = e->ival + 1;
    if (e->op == HDG_E_LOAD) {
        u->flags[e->t->id] |= READ | (e->row ? AT_ROW : AT_ITEM);
        if (e->row) {
            u->row_bytes += mult * elem_bytes(e->t);
            use_expr(u, e->row, mult);
        }
    }
    for (int i = 0; i < e->n; i++) use_expr(u, e->a[i], mult);
}

static void use_block(usage *u, const hdg_ir_stmt *s, long long mult)
{
    for (; s; s = s->next) {
        hdg_ir_tensor *t[4];
        switch (s->kind) {
        case HDG_S_FOR: use_block(u, s->body.first, mult * s->var->extent); break;
        case HDG_S_LET: use_expr(u, s->value, mult); break;
        case HDG_S_STORE:
            use_expr(u, s->value, mult);
            for (int i = 0; i < s->dst->n; i++) use_expr(u, s->dst->a[i], mult);
            u->flags[s->dst->t->id] |= WRITTEN | AT_ITEM | (s->accumulate ? READ : 0);
            break;
        default: {
            int n = hdg_ir_dense_reads(s, t);
            for (int i = 0; i < n; i++) u->flags[t[i]->id] |= READ | AT_ITEM;
            n = hdg_ir_stmt_writes(s, t, 4);
            for (int i = 0; i < n; i++) u->flags[t[i]->id] |= WRITTEN | AT_ITEM;
        }
        }
    }
}

static usage usage_of(const hdg_ir_kernel *k)
{
    usage u = { hdg_xcalloc((size_t)k->m->next_tensor_id + 1, 1), 0, 0 };
    use_block(&u, k->body.first, 1);
    return u;
}

static hdg_ir_cost cost_from(const hdg_ir_kernel *k, const usage *u)
{
    hdg_ir_cost c = { 0, u->row_bytes, 0, 0 };
    for (const hdg_ir_stmt *s = k->body.first; s; s = s->next) c.flops += hdg_ir_stmt_flops(s);
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        unsigned f = u->flags[t->id];
        long long bytes = (long long)t->size * elem_bytes(t);
        if (t->kind == HDG_IR_OUT) {
            if (f & WRITTEN) c.bytes_written += bytes;
            if (f & READ) c.bytes_read += bytes;
        } else if (t->kind != HDG_IR_LOCAL && (f & AT_ITEM)) {
            c.bytes_read += bytes;
        }
    }
    for (int i = 0; i < k->m->ntables; i++) {
        const hdg_ir_tensor *t = k->m->tables[i];
        if (u->flags[t->id]) c.table_bytes += (long long)t->size * elem_bytes(t);
    }
    return c;
}

hdg_ir_cost hdg_ir_kernel_cost(const hdg_ir_kernel *k)
{
    usage u = usage_of(k);
    hdg_ir_cost c = cost_from(k, &u);
    free(u.flags);
    return c;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    size_t len = src ? strlen(src) : 0;
    if (len >= n) len = n - 1;
    if (len) memcpy(dst, src, len);
    dst[len] = '\0';
}

void hdg_ir_kernel_info(const hdg_ir_kernel *k, hdg_kernel_info *info)
{
    memset(info, 0, sizeof *info);
    usage u = usage_of(k);
    hdg_ir_cost c = cost_from(k, &u);
    copy_str(info->name, sizeof info->name, k->name);
    info->item = k->item;
    info->nin = k->nin < HDG_KMAX_IN ? k->nin : HDG_KMAX_IN;
    info->nout = k->nout < HDG_KMAX_OUT ? k->nout : HDG_KMAX_OUT;
    info->nimap = k->nimap < HDG_KMAX_IMAP ? k->nimap : HDG_KMAX_IMAP;
    info->ngeom = k->geom ? k->geom->size : 0;
    info->nparams = (int)u.nparams;
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        hdg_kslot *slot = NULL;
        if (t->kind == HDG_IR_IN && t->slot < HDG_KMAX_IN) slot = &info->in[t->slot];
        if (t->kind == HDG_IR_OUT && t->slot < HDG_KMAX_OUT) slot = &info->out[t->slot];
        if (t->kind == HDG_IR_IMAP && t->slot < HDG_KMAX_IMAP) slot = &info->imap[t->slot];
        if (!slot) continue;
        unsigned f = u.flags[t->id];
        copy_str(slot->name, sizeof slot->name, t->name);
        copy_str(slot->doc, sizeof slot->doc, t->doc);
        slot->stride = t->size;
        slot->flags = ((f & AT_ITEM) ? HDG_KSLOT_ITEM : 0) | ((f & AT_ROW) ? HDG_KSLOT_GATHER : 0) |
                      (t->kind == HDG_IR_OUT && (f & READ) ? HDG_KSLOT_READS : 0);
    }
    info->flops = c.flops;
    info->bytes_read = c.bytes_read;
    info->bytes_written = c.bytes_written;
    info->table_bytes = c.table_bytes;
    free(u.flags);
}
