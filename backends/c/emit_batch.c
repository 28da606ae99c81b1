/* emit_batch.c — kernels batched across SIMD lanes (see emit.h, `batch`).
 *
 * A batched kernel runs W items at once, one per lane of a vector: every
 * value that depends on the item (a "varying" value: loaded from a slot, or
 * computed from one) is a W-wide vector (Clang/GCC `vector_size` types),
 * everything else (loop indices, tables, parameters, their arithmetic) stays
 * scalar and is splatted where it meets a vector. The loops keep their
 * shapes and their constant bounds, so every floating-point operation of the
 * element body is one full-width vector operation: no remainders, no masked
 * stores, no per-element loop overhead. Slots are gathered (transposed) into
 * vectors at the start of a batch and outputs scattered at its end; a last
 * batch of fewer than W items repeats its last item in the spare lanes.
 *
 * Every lane does the operations of the scalar kernel in the same order, so
 * a lane's results are those of the scalar kernel for its item, up to the
 * C compiler's contraction of a * b + c. Data-dependent choices become
 * per-lane selects: comparisons give masks (all bits set or clear), `?:`
 * blends both arms, the pivot search of the LU runs on vectors and each lane
 * swaps its own rows. A zero row of the block-sparse local matrices is
 * skipped when it is zero in every lane (the others subtract 0 * x: the
 * same values while the factors are finite).
 *
 * A kernel that reads another item's data (rows through an imap, the item's
 * index) cannot be batched this way and keeps the scalar form; so does one
 * that indexes by a varying integer or mixes varying and uniform operands in
 * a dense operation, one with neither a dense operation nor a function call
 * (its loops vectorise over one item's values already), and one whose locals
 * would pass HDG_EMIT_C_BATCH_MAX 4 items wide. hdg_emit_c_batchable says
 * which and why. Locals past HDG_EMIT_C_BATCH_STACK_MAX live in a block the
 * kernel mallocs per call instead of on the stack. */
#include "backends/c/emit.h"
#include "backends/c/emit_dense.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bctx {
    const hdg_ir_kernel *k;
    hdg_emit_c_printer *p;
    hdg_str *out;
    unsigned char *vt;       /* by tensor id: varying */
    unsigned char *vv;       /* by var id: varying */
    int W;
    int unroll;              /* every loop of the kernel unrolled (HDG_EMIT_C_UNROLL_MAX) */
    long long *heap;         /* by tensor id: byte offset of a local in the heap block, -1 on
                                the stack; NULL: all on the stack (HDG_EMIT_C_BATCH_STACK_MAX) */
    const char *why;         /* first reason the kernel cannot be batched */
} bctx;

/* ---------------------------------------------------------------- analysis */

static int vary(const bctx *b, const hdg_ir_expr *e)
{
    switch (e->op) {
    case HDG_E_ITEM: return 1;
    case HDG_E_VAR: return b->vv[e->var->id];
    case HDG_E_LOAD:
        if (b->vt[e->t->id] || e->row) return 1;
        break;
    default: break;
    }
    for (int i = 0; i < e->n; i++)
        if (vary(b, e->a[i])) return 1;
    return 0;
}

static int mark(unsigned char *flag, int id)
{
    if (flag[id]) return 0;
    flag[id] = 1;
    return 1;
}

/* One pass of the varying analysis; returns 1 when something changed. */
static int vary_block(bctx *b, const hdg_ir_stmt *s)
{
    int changed = 0;
    for (; s; s = s->next) {
        switch (s->kind) {
        case HDG_S_FOR: changed |= vary_block(b, s->body.first); break;
        case HDG_S_LET:
            if (vary(b, s->value)) changed |= mark(b->vv, s->var->id);
            break;
        case HDG_S_STORE:
            if (vary(b, s->value) || vary(b, s->dst)) changed |= mark(b->vt, s->dst->t->id);
            break;
        default: {
            hdg_ir_tensor *r[4], *w[4];
            int nr = hdg_ir_dense_reads(s, r), nw = hdg_ir_stmt_writes(s, w, 4), v = 0;
            for (int i = 0; i < nr; i++) v |= b->vt[r[i]->id];
            for (int i = 0; i < nw && v; i++) changed |= mark(b->vt, w[i]->id);
            break;
        }
        }
    }
    return changed;
}

static int is_bool(const hdg_ir_expr *e)
{
    return (e->op >= HDG_E_LT && e->op <= HDG_E_OR) || e->op == HDG_E_NOT;
}

/* Why an expression cannot be batched, or NULL. A varying int must be a
 * truth value (a mask): a comparison, a logic operation or a let of one. */
static const char *check_expr(const bctx *b, const hdg_ir_expr *e)
{
    if (e->op == HDG_E_ITEM) return "it reads the item's index";
    if (e->op == HDG_E_LOAD) {
        if (e->row) return "it reads slot rows of other items";
        if (e->t->kind == HDG_IR_IMAP) return "it reads an integer map";
        for (int i = 0; i < e->n; i++)
            if (vary(b, e->a[i])) return "it indexes a tensor by an item-dependent value";
    }
    if (e->type == HDG_IR_INT && vary(b, e) && !is_bool(e) && e->op != HDG_E_VAR &&
        !(e->op == HDG_E_SELECT && is_bool(e->a[1]) && is_bool(e->a[2])))
        return "it computes an item-dependent integer";
    if (e->op >= HDG_E_LT && e->op <= HDG_E_NE)
        for (int i = 0; i < e->n; i++)
            if (e->a[i]->type == HDG_IR_INT && vary(b, e->a[i])) return "it compares item-dependent truth values";
    for (int i = 0; i < e->n; i++) {
        const char *w = check_expr(b, e->a[i]);
        if (w) return w;
    }
    return NULL;
}

static const char *check_block(const bctx *b, const hdg_ir_stmt *s)
{
    for (; s; s = s->next) {
        const char *w = NULL;
        if (s->kind == HDG_S_FOR) w = check_block(b, s->body.first);
        else if (s->kind == HDG_S_LET) w = check_expr(b, s->value);
        else if (s->kind == HDG_S_STORE) {
            w = check_expr(b, s->dst);
            if (!w) w = check_expr(b, s->value);
            if (!w && s->dst->t->type == HDG_IR_INT && b->vt[s->dst->t->id])
                w = "it stores item-dependent integers";
        } else {
            hdg_ir_tensor *t[8];
            int n = hdg_ir_dense_reads(s, t);
            n += hdg_ir_stmt_writes(s, t + n, 4);
            for (int i = 0; i < n && !w; i++)
                if (t[i]->type == HDG_IR_DOUBLE && !b->vt[t[i]->id])
                    w = "a dense operation has an operand that is the same for every item";
        }
        if (w) return w;
    }
    return NULL;
}

/* e calls a function (exp, cos, pow, ...) */
static int calls_expr(const hdg_ir_expr *e)
{
    if (e->op == HDG_E_CALL || e->op == HDG_E_POW) return 1;
    for (int i = 0; i < e->n; i++)
        if (calls_expr(e->a[i])) return 1;
    return 0;
}

/* The block has a dense operation or a function call (what batching pays for). */
static int worth_block(const hdg_ir_stmt *s)
{
    for (; s; s = s->next) {
        if (s->kind == HDG_S_FOR && worth_block(s->body.first)) return 1;
        if (s->kind > HDG_S_STORE) return 1;
        if (s->value && calls_expr(s->value)) return 1;
    }
    return 0;
}

static void analyse(bctx *b)
{
    const hdg_ir_kernel *k = b->k;
    b->vt = hdg_xcalloc((size_t)k->m->next_tensor_id + 1, 1);
    b->vv = hdg_xcalloc((size_t)k->m->next_var_id + 1, 1);
    for (int i = 0; i < k->ntensors; i++)
        if (k->tensors[i]->kind != HDG_IR_LOCAL && k->tensors[i]->kind != HDG_IR_TABLE)
            b->vt[k->tensors[i]->id] = 1;
    while (vary_block(b, k->body.first)) {}
    b->why = check_block(b, k->body.first);
    /* Without dense operations or calls, the scalar kernel's loops vectorise across an item's
       values already, and the gather and scatter of a batch are pure cost: maxwell2d's volume
       and update kernels ran 1.2-2.9x slower batched (docs/performance.md). */
    if (!b->why && !worth_block(k->body.first))
        b->why = "no dense operation and no function call: its loops vectorise one item at a time";
}

/* Bytes of a local in the batched kernel: W times the scalar size when varying. */
static long long vbytes(const bctx *b, const hdg_ir_tensor *t)
{
    return hdg_emit_c_local_bytes(t) * (b->vt[t->id] ? b->W : 1);
}

const char *hdg_emit_c_batchable(const hdg_ir_kernel *k, int W, char *why, size_t size)
{
    bctx b = { .k = k, .W = W };
    analyse(&b);
    if (why && size) snprintf(why, size, "%s", b.why ? b.why : "");
    if (!b.why) {   /* W times the locals: see HDG_EMIT_C_BATCH_MAX */
        hdg_str sink;
        hdg_str_init(&sink);
        hdg_emit_c_printer *p = hdg_emit_c_printer_new(k, &sink, NULL);
        long long total = 0;
        for (int i = 0; i < k->ntensors; i++)
            if (k->tensors[i]->kind == HDG_IR_LOCAL && hdg_emit_c_uses(p, k->tensors[i]))
                total += vbytes(&b, k->tensors[i]);
        hdg_emit_c_printer_free(p);
        hdg_str_free(&sink);
        long long max = (long long)HDG_EMIT_C_BATCH_MAX * (W > 4 ? W : 4) / 4;
        if (total > max) {
            b.why = "its locals would not fit in the cache";
            if (why && size)
                snprintf(why, size, "its locals would take %lld KiB %d items wide, more than %lld KiB",
                         total / 1024, W, max / 1024);
        }
    }
    free(b.vt);
    free(b.vv);
    return b.why;
}

/* The kernel's size with every loop unrolled: its statements times the trips
 * of their loops, a dense operation by its multiply-adds. */
static long long unrolled_block(const hdg_ir_stmt *s, long long trips)
{
    long long n = 0;
    for (; s; s = s->next) {
        const hdg_ir_tensor *A = s->A, *B = s->B;
        switch (s->kind) {
        case HDG_S_FOR: n += unrolled_block(s->body.first, trips * s->var->extent); break;
        case HDG_S_LET: case HDG_S_STORE: n += trips; break;
        case HDG_S_MATMUL: n += trips * s->C->size * (s->transa ? A->shape[0] : A->shape[1]); break;
        case HDG_S_LU: case HDG_S_CHOL: n += trips * A->size * A->shape[0] / 3; break;
        default: n += trips * A->shape[0] * B->size; break;   /* the solves */
        }
    }
    return n;
}

long long hdg_emit_c_unrolled_size(const hdg_ir_kernel *k) { return unrolled_block(k->body.first, 1); }

int hdg_emit_c_short_loop(const hdg_ir_stmt *loop)
{
    if (loop->kind != HDG_S_FOR || loop->var->extent > HDG_EMIT_C_UNROLL_TRIPS) return 0;
    for (const hdg_ir_stmt *s = loop->body.first; s; s = s->next)
        if (s->kind == HDG_S_FOR) return 0;
    return 1;
}

/* ------------------------------------------------------------- expressions */

static void vexpr(bctx *b, const hdg_ir_expr *e);

/* An operand: parenthesised unless a leaf, a load or a call. */
static void vsub(bctx *b, const hdg_ir_expr *e)
{
    int bare = hdg_ir_is_leaf(e) || e->op == HDG_E_LOAD || e->op == HDG_E_CALL;
    if (!bare) hdg_str_putc(b->out, '(');
    vexpr(b, e);
    if (!bare) hdg_str_putc(b->out, ')');
}

/* An operand that must be a vector: uniform doubles splatted, uniform truth values made masks. */
static void vwide(bctx *b, const hdg_ir_expr *e)
{
    if (vary(b, e)) { vsub(b, e); return; }
    hdg_str_puts(b->out, e->type == HDG_IR_INT ? "hdg_v_mask(" : "hdg_v_splat(");
    hdg_emit_c_expr(b->p, e);
    hdg_str_putc(b->out, ')');
}

static void vcall(bctx *b, const char *name, const hdg_ir_expr *e)
{
    hdg_str_printf(b->out, "hdg_v_%s(", name);
    for (int i = 0; i < e->n; i++) {
        if (i) hdg_str_puts(b->out, ", ");
        vwide(b, e->a[i]);
    }
    hdg_str_putc(b->out, ')');
}

static void vexpr(bctx *b, const hdg_ir_expr *e)
{
    hdg_str *out = b->out;
    if (!vary(b, e) || e->op == HDG_E_LOAD || e->op == HDG_E_VAR) {   /* scalar text, or a vector's name */
        hdg_emit_c_expr(b->p, e);
        return;
    }
    switch (e->op) {
    case HDG_E_NEG: hdg_str_putc(out, '-'); vsub(b, e->a[0]); return;
    case HDG_E_NOT: hdg_str_putc(out, '~'); vsub(b, e->a[0]); return;
    case HDG_E_TODBL: hdg_str_puts(out, "hdg_v_todbl("); vexpr(b, e->a[0]); hdg_str_putc(out, ')'); return;
    case HDG_E_POWI:
        if ((e->ival == 2 || e->ival == 3) && hdg_ir_is_leaf(e->a[0])) {   /* as emit.c: the same contractions */
            hdg_str_putc(out, '(');
            for (long long i = 0; i < e->ival; i++) {
                if (i) hdg_str_puts(out, " * ");
                vexpr(b, e->a[0]);
            }
            hdg_str_putc(out, ')');
        } else {
            hdg_str_puts(out, "hdg_v_powi(");
            vexpr(b, e->a[0]);
            hdg_str_printf(out, ", %lld)", e->ival);
        }
        return;
    case HDG_E_CALL: vcall(b, hdg_ir_fn_name((hdg_ir_fn)e->ival), e); return;
    case HDG_E_POW: vcall(b, "pow", e); return;
    case HDG_E_MIN: vcall(b, "fmin", e); return;
    case HDG_E_MAX: vcall(b, "fmax", e); return;
    case HDG_E_SELECT:
        if (vary(b, e->a[0])) {
            hdg_str_puts(out, e->type == HDG_IR_INT ? "hdg_v_selm(" : "hdg_v_sel(");
            vexpr(b, e->a[0]);
            hdg_str_puts(out, ", ");
            vwide(b, e->a[1]);
            hdg_str_puts(out, ", ");
            vwide(b, e->a[2]);
            hdg_str_putc(out, ')');
        } else {   /* a uniform choice between vectors */
            hdg_str_putc(out, '(');
            hdg_emit_c_expr(b->p, e->a[0]);
            hdg_str_puts(out, ") ? ");
            vwide(b, e->a[1]);
            hdg_str_puts(out, " : ");
            vwide(b, e->a[2]);
        }
        return;
    case HDG_E_AND:
    case HDG_E_OR:
        vwide(b, e->a[0]);
        hdg_str_puts(out, e->op == HDG_E_AND ? " & " : " | ");
        vwide(b, e->a[1]);
        return;
    default:   /* arithmetic and comparisons: vector op scalar splats the scalar */
        vsub(b, e->a[0]);
        hdg_str_printf(out, " %s ", hdg_ir_op_name(e->op));
        vsub(b, e->a[1]);
        return;
    }
}

/* -------------------------------------------------------------- statements */

static void indent(bctx *b, int n) { hdg_str_printf(b->out, "%*s", n, ""); }

static void vblock(bctx *b, const hdg_ir_stmt *s, int ind);

static void vstmt(bctx *b, const hdg_ir_stmt *s, int ind)
{
    hdg_str *out = b->out;
    int varying = 0;
    if (s->kind == HDG_S_LET) {
        if (!hdg_emit_c_live(b->p, s->var)) return;
        varying = b->vv[s->var->id];
    } else if (s->kind == HDG_S_STORE) {
        varying = b->vt[s->dst->t->id];
    }
    if (!varying && s->kind != HDG_S_FOR) {   /* uniform lets and stores; dense ops (hdg_v_ prefix) */
        hdg_emit_c_stmt(b->p, s, ind);
        return;
    }
    int back = hdg_emit_c_origin(b->p, s, ind);
    indent(b, ind);
    if (s->kind == HDG_S_FOR) {
        const char *v = s->var->name;
        if (b->unroll || hdg_emit_c_short_loop(s)) hdg_str_puts(out, "HDG_UNROLL ");
        hdg_str_printf(out, "for (int %s = 0; %s < %d; ++%s) {\n", v, v, s->var->extent, v);
        if (back) hdg_emit_c_line_back(b->p);
        vblock(b, s->body.first, ind + 4);
        indent(b, ind);
        hdg_str_puts(out, "}\n");
        return;
    }
    if (s->kind == HDG_S_LET) {
        hdg_str_printf(out, "const %s %s = ", s->var->type == HDG_IR_INT ? "hdg_vl" : "hdg_vd", s->var->name);
        vexpr(b, s->value);
    } else {
        hdg_emit_c_expr(b->p, s->dst);
        hdg_str_puts(out, s->accumulate ? " += " : " = ");
        vwide(b, s->value);
    }
    hdg_str_puts(out, ";\n");
    if (back) hdg_emit_c_line_back(b->p);
}

static void vblock(bctx *b, const hdg_ir_stmt *s, int ind)
{
    for (; s; s = s->next) vstmt(b, s, ind);
}

/* ------------------------------------------------------------ declarations */

static const char *ctype(const bctx *b, const hdg_ir_tensor *t)
{
    if (t->type == HDG_IR_INT) return "int";
    return b->vt[t->id] ? "hdg_vd" : "double";
}

static void declare_local(bctx *b, const hdg_ir_tensor *t, int ind)
{
    hdg_str *out = b->out;
    int lanes = t->type == HDG_IR_INT && b->vt[t->id];   /* pivots: int name[n][W] */
    indent(b, ind);
    if (b->heap && b->heap[t->id] >= 0) {   /* a pointer (to rows) into the heap block */
        for (int pass = 0; pass < 2; pass++) {
            if (pass) hdg_str_puts(out, " = (");
            hdg_str_printf(out, "%s (*%s%s)", ctype(b, t), pass ? "" : "restrict ", pass ? "" : t->name);
            for (int d = 1; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
            if (lanes) hdg_str_puts(out, "[HDG_W]");
        }
        hdg_str_printf(out, ")(hdg_heap + %lld);\n", b->heap[t->id]);
        return;
    }
    hdg_str_printf(out, "%s %s", ctype(b, t), t->name);
    if (t->rank == 0) hdg_str_puts(out, "[1]");
    for (int d = 0; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
    if (lanes) hdg_str_puts(out, "[HDG_W]");
    hdg_str_puts(out, ";\n");
}

/* A slot's values of the batch's items, transposed into a vector per value.
 * An output the kernel reads (HDG_KSLOT_READS) is gathered too; the others
 * start at zero (the scatter writes every value of the slot). */
static void gather(bctx *b, const hdg_ir_tensor *t, const hdg_kernel_info *info)
{
    hdg_str *out = b->out;
    if (t->kind == HDG_IR_OUT && !(info->out[t->slot].flags & HDG_KSLOT_READS)) {
        hdg_str_printf(out, "        hdg_vd %s[%d] = {{0}};\n", t->name, t->size);
        return;
    }
    hdg_str_printf(out, "        hdg_vd %s[%d];\n", t->name, t->size);
    const char *base = t->kind == HDG_IR_GEOM ? "a->geom" : t->kind == HDG_IR_IN ? "a->in" : "a->out";
    hdg_str_printf(out, "        {\n            const double *hdg_rows[HDG_W];\n");
    if (t->kind == HDG_IR_GEOM)
        hdg_str_printf(out, "            HDG_LANES hdg_rows[l] = a->geom + hdg_el[l] * %d;\n", t->size);
    else
        hdg_str_printf(out, "            HDG_LANES hdg_rows[l] = %s[%d] + hdg_el[l] * %d;\n", base, t->slot, t->size);
    hdg_str_printf(out, "            hdg_v_get(%s, %d, hdg_rows);\n        }\n", t->name, t->size);
}

static void scatter(bctx *b, const hdg_ir_tensor *t)
{
    hdg_str *out = b->out;
    hdg_str_printf(out, "        {\n            double *hdg_rows[HDG_W];\n");
    hdg_str_printf(out, "            HDG_LANES hdg_rows[l] = a->out[%d] + hdg_el[l] * %d;\n", t->slot, t->size);
    hdg_str_printf(out, "            hdg_v_put(%s, %d, hdg_rows, hdg_nl);\n        }\n", t->name, t->size);
}

/* Locals of more than HDG_EMIT_C_BATCH_STACK_MAX bytes in all (times max(W, 4) / 4) go, each
 * local of 4 KiB or more, into one 64-byte aligned block the kernel mallocs per call (per chunk
 * of items), as the scalar kernels' past HDG_EMIT_C_STACK_MAX (emit.c): the stack a batched
 * kernel needs stays bounded whatever the degree. Returns the block's size (0: none). */
static long long place_locals(bctx *b)
{
    const hdg_ir_kernel *k = b->k;
    long long total = 0, heap = 0;
    for (int i = 0; i < k->ntensors; i++)
        if (k->tensors[i]->kind == HDG_IR_LOCAL && hdg_emit_c_uses(b->p, k->tensors[i]))
            total += vbytes(b, k->tensors[i]);
    if (total <= (long long)HDG_EMIT_C_BATCH_STACK_MAX * (b->W > 4 ? b->W : 4) / 4) return 0;
    b->heap = hdg_xmalloc(((size_t)k->m->next_tensor_id + 1) * sizeof *b->heap);
    for (int i = 0; i <= k->m->next_tensor_id; i++) b->heap[i] = -1;
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        long long n = vbytes(b, t);
        if (t->kind != HDG_IR_LOCAL || !hdg_emit_c_uses(b->p, t) || n < 4096) continue;
        b->heap[t->id] = heap;
        heap += (n + 63) / 64 * 64;
    }
    return heap;
}

/* The block, aligned to 64 bytes (a vector of 8 doubles) by hand: the generated code declares
 * malloc and free only. Without memory, every output of the items is NaN (the runtime's checks
 * of the kernels' results see it) and the kernel returns. */
static void heap_open(bctx *b, long long bytes)
{
    hdg_str *out = b->out;
    hdg_str_printf(out, "    char *hdg_heap0 = (char *)malloc(%lld);   /* locals too large for the stack */\n",
                   bytes + 64);
    hdg_str_puts(out, "    if (!hdg_heap0) {\n");
    hdg_str_puts(out, "        for (long long e = begin; e < end; ++e) {\n");
    for (int i = 0; i < b->k->ntensors; i++) {
        const hdg_ir_tensor *t = b->k->tensors[i];
        if (t->kind != HDG_IR_OUT || !hdg_emit_c_uses(b->p, t)) continue;
        hdg_str_printf(out, "            for (int i = 0; i < %d; ++i) a->out[%d][e * %d + i] = NAN;\n",
                       t->size, t->slot, t->size);
    }
    hdg_str_puts(out, "        }\n        return;\n    }\n");
    hdg_str_puts(out, "    char *hdg_heap = hdg_heap0 + (-(__UINTPTR_TYPE__)hdg_heap0 & 63);\n");
}

void hdg_emit_c_batch_kernel(const hdg_ir_kernel *k, hdg_str *out, const hdg_emit_c_options *opt, int W)
{
    hdg_emit_c_options o = *opt;
    o.dense_prefix = "hdg_v_";
    o.loop_pragma = NULL;
    bctx b = { .k = k, .out = out, .W = W };
    b.p = hdg_emit_c_printer_new(k, out, &o);
    analyse(&b);
    b.unroll = hdg_emit_c_unrolled_size(k) <= HDG_EMIT_C_UNROLL_MAX;
    hdg_str_printf(out, "/* %d items per call of the body, one per vector lane%s (see emit_batch.c) */\n", W,
                   b.unroll ? ", every loop unrolled" : "");
    hdg_str_printf(out, "void %s(long long begin, long long end, const hdg_kargs *a);\n", k->name);
    hdg_str_printf(out, "void %s(long long begin, long long end, const hdg_kargs *a)\n{\n", k->name);
    hdg_str_puts(out, "    (void)a;\n");
    long long heap = place_locals(&b);
    if (heap) heap_open(&b, heap);
    hdg_str_puts(out, "    for (long long e = begin; e < end; e += HDG_W) {\n");
    hdg_str_puts(out, "        const int hdg_nl = end - e < HDG_W ? (int)(end - e) : HDG_W;\n");
    hdg_str_puts(out, "        long long hdg_el[HDG_W];\n");
    hdg_str_puts(out, "        HDG_LANES hdg_el[l] = e + (l < hdg_nl ? l : hdg_nl - 1);\n");
    hdg_kernel_info info;
    hdg_ir_kernel_info(k, &info);
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        if (t->kind != HDG_IR_LOCAL && hdg_emit_c_uses(b.p, t)) gather(&b, t, &info);
    }
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        if (t->kind == HDG_IR_LOCAL && hdg_emit_c_uses(b.p, t)) declare_local(&b, t, 8);
    }
    vblock(&b, k->body.first, 8);
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        if (t->kind == HDG_IR_OUT && hdg_emit_c_uses(b.p, t)) scatter(&b, t);
    }
    hdg_str_puts(out, heap ? "    }\n    free(hdg_heap0);\n}\n\n" : "    }\n}\n\n");
    hdg_emit_c_printer_free(b.p);
    free(b.vt);
    free(b.vv);
    free(b.heap);
}

/* ----------------------------------------------------------------- helpers */

/* The vector types, lane-wise functions and dense operations of batched
 * kernels: the scalar helpers' algorithms (emit.c) with a vector per entry. */
static const char vector_helpers[] =
    /* GCC notes that a vector argument's ABI depends on -mavx: these functions are all static */
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC diagnostic ignored \"-Wpsabi\"\n"
    "#endif\n"
    "typedef double hdg_vd __attribute__((vector_size(HDG_W * 8)));\n"
    "typedef long long hdg_vl __attribute__((vector_size(HDG_W * 8)));\n"
    "#define HDG_VQ static inline __attribute__((always_inline, unused))\n"
    /* the JIT does not unroll loops unless told: lane and tile loops are unrolled by pragma */
    HDG_EMIT_UNROLL_DEF
    "#define HDG_LANES HDG_UNROLL for (int l = 0; l < HDG_W; ++l)\n"
    "HDG_VQ hdg_vd hdg_v_splat(double x) { return x - (hdg_vd){0}; }   /* x - 0 is x, -0 too */\n"
    "HDG_VQ hdg_vl hdg_v_mask(int c) { return (hdg_vl){0} - (long long)(c != 0); }\n"
    "HDG_VQ hdg_vd hdg_v_sel(hdg_vl m, hdg_vd x, hdg_vd y) { return (hdg_vd)((m & (hdg_vl)x) | (~m & (hdg_vl)y)); }\n"
    "HDG_VQ hdg_vl hdg_v_selm(hdg_vl m, hdg_vl x, hdg_vl y) { return (m & x) | (~m & y); }\n"
    "HDG_VQ hdg_vd hdg_v_todbl(hdg_vl m) { return hdg_v_sel(m, hdg_v_splat(1.0), hdg_v_splat(0.0)); }\n"
    "HDG_VQ int hdg_v_all(hdg_vl m) { int r = 1; HDG_LANES r &= m[l] != 0; return r; }\n"
    "HDG_VQ hdg_vd hdg_v_fabs(hdg_vd x) { return (hdg_vd)((hdg_vl)x & ~(hdg_vl)hdg_v_splat(-0.0)); }\n"
    "#define HDG_V1(f) HDG_VQ hdg_vd hdg_v_##f(hdg_vd x) \\\n"
    "    { hdg_vd r; HDG_LANES r[l] = f(x[l]); return r; }\n"
    "#define HDG_V2(f) HDG_VQ hdg_vd hdg_v_##f(hdg_vd x, hdg_vd y) \\\n"
    "    { hdg_vd r; HDG_LANES r[l] = f(x[l], y[l]); return r; }\n"
    "HDG_V1(sin) HDG_V1(cos) HDG_V1(tan) HDG_V1(asin) HDG_V1(acos) HDG_V1(atan) HDG_V1(sinh)\n"
    "HDG_V1(cosh) HDG_V1(tanh) HDG_V1(exp) HDG_V1(log) HDG_V1(sqrt) HDG_V1(floor)\n"
    "HDG_V1(ceil) HDG_V2(atan2) HDG_V2(pow) HDG_V2(fmin) HDG_V2(fmax)\n"
    /* v[i][l] = rows[l][i]; rows[l][i] = v[i][l] for the first nl lanes: transposes of
       4 x 4 blocks in registers (W = 8: gathers by two per block of 4 entries, the lanes'
       halves), the rest lane by lane into a vector value (not through memory: a vector load
       right after scalar stores to it waits for them to retire) */
    "#if (HDG_W == 4 || HDG_W == 8) && defined(__clang__)\n"
    "typedef double hdg_vq __attribute__((vector_size(32)));\n"
    "typedef double hdg_vdu __attribute__((vector_size(32), aligned(8)));   /* unaligned rows */\n"
    "#define HDG_T4(a, b, c, d, r0, r1, r2, r3) do { \\\n"
    "    hdg_vq ab0 = __builtin_shufflevector(a, b, 0, 4, 2, 6), ab1 = __builtin_shufflevector(a, b, 1, 5, 3, 7); \\\n"
    "    hdg_vq cd0 = __builtin_shufflevector(c, d, 0, 4, 2, 6), cd1 = __builtin_shufflevector(c, d, 1, 5, 3, 7); \\\n"
    "    r0 = __builtin_shufflevector(ab0, cd0, 0, 1, 4, 5); r1 = __builtin_shufflevector(ab1, cd1, 0, 1, 4, 5); \\\n"
    "    r2 = __builtin_shufflevector(ab0, cd0, 2, 3, 6, 7); r3 = __builtin_shufflevector(ab1, cd1, 2, 3, 6, 7); \\\n"
    "} while (0)\n"
    "HDG_VQ void hdg_v_get4(const double *const rows[4], int i, hdg_vq t[4])\n"
    "{\n"
    "    hdg_vq a = *(const hdg_vdu *)(rows[0] + i), b = *(const hdg_vdu *)(rows[1] + i);\n"
    "    hdg_vq c = *(const hdg_vdu *)(rows[2] + i), d = *(const hdg_vdu *)(rows[3] + i);\n"
    "    HDG_T4(a, b, c, d, t[0], t[1], t[2], t[3]);\n"
    "}\n"
    "HDG_VQ void hdg_v_get(hdg_vd *restrict v, int n, const double *const rows[HDG_W])\n"
    "{\n"
    "    int i = 0;\n"
    "    for (; i + 4 <= n; i += 4) {\n"
    "        hdg_vq lo[4];\n"
    "        hdg_v_get4(rows, i, lo);\n"
    "#if HDG_W == 4\n"
    "        HDG_UNROLL for (int j = 0; j < 4; ++j) v[i + j] = lo[j];\n"
    "#else\n"
    "        hdg_vq hi[4];\n"
    "        hdg_v_get4(rows + 4, i, hi);\n"
    "        HDG_UNROLL for (int j = 0; j < 4; ++j) v[i + j] = __builtin_shufflevector(lo[j], hi[j], 0, 1, 2, 3, 4, 5, 6, 7);\n"
    "#endif\n"
    "    }\n"
    "    for (; i < n; ++i) {\n"
    "        hdg_vd t;\n"
    "        HDG_LANES t[l] = rows[l][i];\n"
    "        v[i] = t;\n"
    "    }\n"
    "}\n"
    /* 8 wide, scalar stores: transposed ones (two 4 x 4 blocks per 4 entries) made
       poisson's local kernel 6-8% slower at k = 3, 4 (its 90-156 outputs per item) */
    "HDG_VQ void hdg_v_put(const hdg_vd *restrict v, int n, double *const rows[HDG_W], int nl)\n"
    "{\n"
    "    int i = 0;\n"
    "#if HDG_W == 4\n"
    "    if (nl == 4)\n"
    "        for (; i + 4 <= n; i += 4) {\n"
    "            hdg_vq r0, r1, r2, r3;\n"
    "            HDG_T4(v[i], v[i + 1], v[i + 2], v[i + 3], r0, r1, r2, r3);\n"
    "            *(hdg_vdu *)(rows[0] + i) = r0, *(hdg_vdu *)(rows[1] + i) = r1;\n"
    "            *(hdg_vdu *)(rows[2] + i) = r2, *(hdg_vdu *)(rows[3] + i) = r3;\n"
    "        }\n"
    "#endif\n"
    "    for (int l = 0; l < nl; ++l)\n"
    "        for (int j = i; j < n; ++j) rows[l][j] = v[j][l];\n"
    "}\n"
    "#else\n"
    "HDG_VQ void hdg_v_get(hdg_vd *restrict v, int n, const double *const rows[HDG_W])\n"
    "{\n"
    "    HDG_LANES for (int i = 0; i < n; ++i) v[i][l] = rows[l][i];\n"
    "}\n"
    "HDG_VQ void hdg_v_put(const hdg_vd *restrict v, int n, double *const rows[HDG_W], int nl)\n"
    "{\n"
    "    for (int l = 0; l < nl; ++l)\n"
    "        for (int i = 0; i < n; ++i) rows[l][i] = v[i][l];\n"
    "}\n"
    "#endif\n"
    "HDG_VQ hdg_vd hdg_v_powi(hdg_vd x, int n)\n"
    "{\n"
    "    unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;\n"
    "    hdg_vd r = hdg_v_splat(1.0), b = x;\n"
    "    while (m) {\n"
    "        if (m & 1u) r *= b;\n"
    "        m >>= 1;\n"
    "        if (m) b *= b;\n"
    "    }\n"
    "    return n < 0 ? 1.0 / r : r;\n"
    "}\n"
    /* C = alpha op(A) op(B) + beta C; each entry summed over p in order (as hdg_matmul), by
       tiles of h x w <= 2 x 4 entries whose sums stay in registers: the tiles' shapes are
       constants once the helper is inlined at a call with constant sizes */
    "HDG_VQ void hdg_v_mm_tile(int h, int w, int i0, int j0, int n, int k, double alpha,\n"
    "    const hdg_vd *restrict A, int sa0, int sa1, const hdg_vd *restrict B, int sb0, int sb1,\n"
    "    double beta, hdg_vd *restrict C)\n"
    "{\n"
    "    hdg_vd s[2][4];\n"
    "    HDG_UNROLL for (int i = 0; i < h; ++i) HDG_UNROLL for (int j = 0; j < w; ++j) s[i][j] = hdg_v_splat(0.0);\n"
    "    for (int p = 0; p < k; ++p)\n"
    "        HDG_UNROLL for (int i = 0; i < h; ++i) {\n"
    "            hdg_vd aip = A[(i0 + i) * sa0 + p * sa1];\n"
    "            HDG_UNROLL for (int j = 0; j < w; ++j) s[i][j] += aip * B[p * sb0 + (j0 + j) * sb1];\n"
    "        }\n"
    "    HDG_UNROLL for (int i = 0; i < h; ++i)\n"
    "        HDG_UNROLL for (int j = 0; j < w; ++j) {\n"
    "            hdg_vd t = alpha != 1.0 ? s[i][j] * alpha : s[i][j];\n"
    "            hdg_vd *restrict c = C + (i0 + i) * n + j0 + j;\n"
    "            *c = beta == 0.0 ? t : beta == 1.0 ? *c + t : t + beta * *c;\n"
    "        }\n"
    "}\n"
    "HDG_VQ void hdg_v_matmul(int m, int n, int k, double alpha, const hdg_vd *restrict A, int sa0,\n"
    "    int sa1, const hdg_vd *restrict B, int sb0, int sb1, double beta, hdg_vd *restrict C)\n"
    "{\n"
    "    int m2 = m - m % 2, n4 = n - n % 4;\n"
    "    for (int i0 = 0; i0 < m2; i0 += 2) {\n"
    "        for (int j0 = 0; j0 < n4; j0 += 4) hdg_v_mm_tile(2, 4, i0, j0, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "        if (n % 4) hdg_v_mm_tile(2, n % 4, i0, n4, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "    }\n"
    "    if (m % 2) {\n"
    "        for (int j0 = 0; j0 < n4; j0 += 4) hdg_v_mm_tile(1, 4, m2, j0, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "        if (n % 4) hdg_v_mm_tile(1, n % 4, m2, n4, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "    }\n"
    "}\n"
    /* rows k and p[l] > k of the n x m matrix A swapped in each lane l where p[l] != k, by
       vector selects (a lane's own scalar swaps would stall the vector loads after them) */
    "HDG_VQ void hdg_v_swap_rows(int k, int n, int m, hdg_vl p, hdg_vd *restrict A)\n"
    "{\n"
    "    for (int i = k + 1; i < n; ++i) {\n"
    "        hdg_vl s = p == (long long)i;\n"
    "        if (hdg_v_all(~s)) continue;\n"
    "        for (int j = 0; j < m; ++j) {\n"
    "            hdg_vd a = A[k * m + j], b = A[i * m + j];\n"
    "            A[k * m + j] = hdg_v_sel(s, b, a);\n"
    "            A[i * m + j] = hdg_v_sel(s, a, b);\n"
    "        }\n"
    "    }\n"
    "}\n"
    /* A = P L U with partial pivoting per lane (hdg_lu's rule: a pivot below 1e-14 x the
       largest |entry| is made NaN); piv[k][l] = the row lane l swapped with k */
    "HDG_VQ void hdg_v_lu(int n, hdg_vd *restrict A, int piv[][HDG_W])\n"
    "{\n"
    /* the largest |entry|, in 4 independent running maxima (one would wait for each compare) */
    "    hdg_vd b[4];\n"
    "    HDG_UNROLL for (int j = 0; j < 4; ++j) b[j] = hdg_v_splat(0.0);\n"
    "    int i = 0;\n"
    "    for (; i + 4 <= n * n; i += 4)\n"
    "        HDG_UNROLL for (int j = 0; j < 4; ++j) {\n"
    "            hdg_vd x = hdg_v_fabs(A[i + j]);\n"
    "            b[j] = hdg_v_sel(x > b[j], x, b[j]);\n"
    "        }\n"
    "    for (; i < n * n; ++i) {\n"
    "        hdg_vd x = hdg_v_fabs(A[i]);\n"
    "        b[0] = hdg_v_sel(x > b[0], x, b[0]);\n"
    "    }\n"
    "    b[0] = hdg_v_sel(b[1] > b[0], b[1], b[0]), b[2] = hdg_v_sel(b[3] > b[2], b[3], b[2]);\n"
    "    hdg_vd big0 = hdg_v_sel(b[2] > b[0], b[2], b[0]);\n"
    "    hdg_vd tiny = big0 * 1e-14;\n"
    "    for (int k = 0; k < n; ++k) {\n"
    "        hdg_vd big = hdg_v_fabs(A[k * n + k]);\n"
    "        hdg_vl p = hdg_v_mask(1) & (long long)k;\n"
    "        for (int i = k + 1; i < n; ++i) {\n"
    "            hdg_vd x = hdg_v_fabs(A[i * n + k]);\n"
    "            hdg_vl gt = x > big;\n"
    "            big = hdg_v_sel(gt, x, big);\n"
    "            p = (gt & (long long)i) | (~gt & p);\n"
    "        }\n"
    "        HDG_LANES piv[k][l] = (int)p[l];\n"
    "        if (!hdg_v_all(p == (long long)k)) hdg_v_swap_rows(k, n, n, p, A);\n"
    "        A[k * n + k] = hdg_v_sel(big > tiny, A[k * n + k], hdg_v_splat(NAN));\n"
    "        hdg_vd d = A[k * n + k];\n"
    "        for (int i = k + 1; i < n; ++i) {\n"
    "            hdg_vd aik = A[i * n + k], q = aik / d;\n"
    "            A[i * n + k] = q;\n"
    "            if (hdg_v_all(aik == 0.0)) continue;   /* not waiting for the division */\n"
    "            for (int j = k + 1; j < n; ++j) A[i * n + j] -= q * A[k * n + j];\n"
    "        }\n"
    "    }\n"
    "}\n"
    /* B = A^-1 B with hdg_v_lu's factors: every entry takes hdg_lu_solve's operations in its
       order (forward: row i's updates from k = 0, 1, ..., i - 1; backward: from k = i + 1, ...,
       n - 1, then the division), done row by row on tiles of w <= 4 entries kept in registers
       while k runs */
    "HDG_VQ void hdg_v_fwd_tile(int w, int i, int j0, int n, int m, const hdg_vd *restrict A, hdg_vd *restrict B)\n"
    "{\n"
    "    hdg_vd s[4];\n"
    "    HDG_UNROLL for (int j = 0; j < w; ++j) s[j] = B[i * m + j0 + j];\n"
    "    for (int k = 0; k < i; ++k) {\n"
    "        hdg_vd q = A[i * n + k];\n"
    "        if (hdg_v_all(q == 0.0)) continue;\n"
    "        HDG_UNROLL for (int j = 0; j < w; ++j) s[j] -= q * B[k * m + j0 + j];\n"
    "    }\n"
    "    HDG_UNROLL for (int j = 0; j < w; ++j) B[i * m + j0 + j] = s[j];\n"
    "}\n"
    "HDG_VQ void hdg_v_bwd_tile(int w, int i, int j0, int n, int m, const hdg_vd *restrict A, hdg_vd *restrict B)\n"
    "{\n"
    "    hdg_vd s[4];\n"
    "    HDG_UNROLL for (int j = 0; j < w; ++j) s[j] = B[i * m + j0 + j];\n"
    "    for (int k = i + 1; k < n; ++k) {\n"
    "        hdg_vd u = A[i * n + k];\n"
    "        HDG_UNROLL for (int j = 0; j < w; ++j) s[j] -= u * B[k * m + j0 + j];\n"
    "    }\n"
    "    hdg_vd d = A[i * n + i];\n"
    "    HDG_UNROLL for (int j = 0; j < w; ++j) B[i * m + j0 + j] = s[j] / d;\n"
    "}\n"
    "HDG_VQ void hdg_v_lu_solve(int n, int m, const hdg_vd *restrict A, int piv[][HDG_W], hdg_vd *restrict B)\n"
    "{\n"
    "    for (int k = 0; k < n; ++k) {\n"
    "        hdg_vl p;\n"
    "        HDG_LANES p[l] = piv[k][l];\n"
    "        if (!hdg_v_all(p == (long long)k)) hdg_v_swap_rows(k, n, m, p, B);\n"
    "    }\n"
    "    int m4 = m - m % 4;\n"
    "    for (int i = 1; i < n; ++i) {\n"
    "        for (int j0 = 0; j0 < m4; j0 += 4) hdg_v_fwd_tile(4, i, j0, n, m, A, B);\n"
    "        if (m % 4) hdg_v_fwd_tile(m % 4, i, m4, n, m, A, B);\n"
    "    }\n"
    "    for (int i = n - 1; i >= 0; --i) {\n"
    "        for (int j0 = 0; j0 < m4; j0 += 4) hdg_v_bwd_tile(4, i, j0, n, m, A, B);\n"
    "        if (m % 4) hdg_v_bwd_tile(m % 4, i, m4, n, m, A, B);\n"
    "    }\n"
    "}\n"
    "HDG_VQ void hdg_v_chol(int n, hdg_vd *restrict A)\n"
    "{\n"
    "    for (int j = 0; j < n; ++j) {\n"
    "        hdg_vd d = A[j * n + j];\n"
    "        for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[k * n + j];\n"
    "        hdg_vd r = 1.0 / d;\n"
    "        A[j * n + j] = r;\n"
    "        for (int i = j + 1; i < n; ++i) {\n"
    "            hdg_vd s = A[i * n + j];\n"
    "            for (int k = 0; k < j; ++k) s -= A[i * n + k] * A[k * n + j];\n"
    "            A[j * n + i] = s;\n"
    "            A[i * n + j] = s * r;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "HDG_VQ void hdg_v_chol_solve(int n, int m, const hdg_vd *restrict L, hdg_vd *restrict B)\n"
    "{\n"
    "    for (int i = 1; i < n; ++i)\n"
    "        for (int k = 0; k < i; ++k) {\n"
    "            hdg_vd q = L[i * n + k];\n"
    "            for (int j = 0; j < m; ++j) B[i * m + j] -= q * B[k * m + j];\n"
    "        }\n"
    "    for (int i = n - 1; i >= 0; --i) {\n"
    "        hdg_vd d = L[i * n + i];\n"
    "        for (int j = 0; j < m; ++j) B[i * m + j] *= d;\n"
    "        for (int k = i + 1; k < n; ++k) {\n"
    "            hdg_vd q = L[k * n + i];\n"
    "            for (int j = 0; j < m; ++j) B[i * m + j] -= q * B[k * m + j];\n"
    "        }\n"
    "    }\n"
    "}\n";

void hdg_emit_c_batch_helpers(hdg_str *out, int W)
{
    hdg_str_printf(out, "#define HDG_W %d\n", W);
    hdg_str_puts(out, vector_helpers);
    hdg_str_putc(out, '\n');
}
