/* emit.c — the CUDA emitter (see emit.h). The statements of every item are
 * printed by the C emitter's printer (backends/c/emit.h) with CUDA
 * qualifiers; this file adds what is CUDA's own: the prelude, the placement
 * of tables (__constant__ or __device__ const), the choice of the mapping of
 * items to threads (the block-per-item kernels are planned in block_plan.c
 * and printed by emit_block.c), and the __global__ wrappers with their
 * launch shape. */
#include "backends/cuda/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"
#include "backends/cuda/block.h"

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

long long hdg_cuda_thread_locals_limit(size_t total_mem, int sm_count, int threads_per_sm)
{
    long long lim = (long long)(total_mem / 2 / ((size_t)sm_count * (size_t)threads_per_sm + 1));
    return lim < 1 ? 1 : lim > HDG_CUDA_BLOCK_MIN_LOCALS ? HDG_CUDA_BLOCK_MIN_LOCALS : lim;
}

typedef struct cuda_opts {
    int line_directives;
    char file_name[256];
    int block, constant_bytes;
    int mapping, max_shared;
    long long thread_locals_max;
} cuda_opts;

static hdg_status resolve(const hdg_ir_module *m, const hdg_emit_cuda_options *o, cuda_opts *r, hdg_error *err)
{
    cuda_opts d = { 0, "", 128, 49152, HDG_CUDA_MAPPING_AUTO, HDG_CUDA_SHARED_OPTIN_SM90, HDG_CUDA_BLOCK_MIN_LOCALS };
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
        if (o->thread_locals_max > 0) r->thread_locals_max = o->thread_locals_max;
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

static long long local_bytes(const hdg_ir_kernel *k)
{
    long long b = 0;
    for (int i = 0; i < k->ntensors; i++)
        if (k->tensors[i]->kind == HDG_IR_LOCAL) b += hdg_cuda_tensor_bytes(k->tensors[i]);
    return b;
}

static const char *item_name(const hdg_ir_kernel *k) { return k->item == HDG_KITEM_FACE ? "face" : "element"; }

/* The mapping of a kernel's items to threads (see emit.h). note gets the
 * reason when a block per item keeps its locals in global scratch. */
static hdg_cuda_shape choose_mapping(const hdg_ir_kernel *k, const cuda_opts *o, bplan *pl, char *note, size_t nn)
{
    hdg_cuda_shape s = { HDG_CUDA_ITEM_PER_THREAD, o->block, o->block, 0, 0 };
    note[0] = 0;
    if (o->mapping == HDG_CUDA_MAPPING_THREAD) return s;
    hdg_cuda_block_plan(k, pl);
    if (o->mapping == HDG_CUDA_MAPPING_AUTO && pl->locals <= o->thread_locals_max) return s;
    s.mapping = HDG_CUDA_BLOCK_PER_ITEM;
    s.block = pl->block;
    s.items_per_block = 1;
    if (pl->shared > o->max_shared) {
        snprintf(note, nn, "its locals need %lld B, more than the %d B of shared memory a block may have: "
                 "they live in a global scratch slice per block", pl->shared, o->max_shared);
        s.scratch_bytes = pl->shared;
        return s;
    }
    s.shared_bytes = (int)pl->shared;
    return s;
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
        if (s->scratch_bytes)
            hdg_str_printf(out, " * one thread block per %s, %d threads per block, locals %lld B per block in global scratch\n"
                                " * (%s) */\n", item_name(k), s->block, s->scratch_bytes, note);
        else
            hdg_str_printf(out, " * one thread block per %s, %d threads per block, shared memory %d B per block (locals %lld B) */\n",
                           item_name(k), s->block, s->shared_bytes, pl->locals);
        hdg_cuda_emit_block_kernel(k, s, pl, co, out);
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
    hdg_cuda_emit_block_helpers(m, shape, out);
    for (int i = 0; i < nk; i++) {
        if (shapes) shapes[i] = shape[i];
        emit_kernel(m->kernels[i], &shape[i], &plan[i], note[i], &co, out);
        hdg_cuda_block_plan_free(&plan[i]);
    }
    free(shape);
    free(plan);
    free(note);
    return HDG_OK;
}
