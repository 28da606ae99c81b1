/* emit.c — the CUDA emitter (see emit.h). The statements of every item are
 * printed by the C emitter's printer (hdg_emit_c_item) with CUDA qualifiers;
 * this file adds what is CUDA's own: the prelude, the placement of tables
 * (__constant__ or __device__ const), the choice of the thread mapping and
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
} cuda_opts;

static cuda_opts resolve(const hdg_ir_module *m, const hdg_emit_cuda_options *o)
{
    cuda_opts r = { 0, "", 128, 49152 };
    snprintf(r.file_name, sizeof r.file_name, "%s.cu", m->name);
    if (!o) return r;
    r.line_directives = o->line_directives;
    if (o->file_name) snprintf(r.file_name, sizeof r.file_name, "%s", o->file_name);
    if (o->block > 0) r.block = o->block;
    if (o->constant_bytes) r.constant_bytes = o->constant_bytes < 0 ? 0 : o->constant_bytes;
    return r;
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

/* The mapping of a kernel's items to threads. Only the baseline exists so
 * far; a block-per-item mapping (threads over the output dofs, operands that
 * are reused held in shared memory) is chosen here, from the kernel's cost
 * and local sizes, when it lands. */
static hdg_cuda_shape choose_mapping(const hdg_ir_kernel *k, const cuda_opts *o)
{
    (void)k;
    hdg_cuda_shape s = { HDG_CUDA_ITEM_PER_THREAD, o->block, o->block, 0 };
    return s;
}

static long long local_bytes(const hdg_ir_kernel *k)
{
    long long b = 0;
    for (int i = 0; i < k->ntensors; i++)
        if (k->tensors[i]->kind == HDG_IR_LOCAL)
            b += (long long)k->tensors[i]->size * (k->tensors[i]->type == HDG_IR_INT ? 4 : 8);
    return b;
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

static void emit_kernel(const hdg_ir_kernel *k, const hdg_cuda_shape *s, const hdg_emit_c_options *co,
                        hdg_str *out)
{
    hdg_ir_cost cost = hdg_ir_kernel_cost(k);
    hdg_str_printf(out, "/* kernel %s (per %s): flops %lld, read %lld B, write %lld B, tables %lld B per item;\n"
                        " * one thread per %s, %d threads per block, locals %lld B per thread */\n",
                   k->name, k->item == HDG_KITEM_FACE ? "face" : "element", cost.flops, cost.bytes_read,
                   cost.bytes_written, cost.table_bytes, k->item == HDG_KITEM_FACE ? "face" : "element",
                   s->block, local_bytes(k));
    switch (s->mapping) {
    case HDG_CUDA_ITEM_PER_THREAD:
        emit_item_per_thread(k, s, co, out);
        break;
    }
}

hdg_status hdg_emit_cuda(const hdg_ir_module *m, hdg_str *out, const hdg_emit_cuda_options *opt,
                         hdg_cuda_shape *shapes, hdg_error *err)
{
    hdg_status st = hdg_ir_verify_module(m, err);
    if (st) return st;
    cuda_opts o = resolve(m, opt);
    hdg_emit_c_options co = {0};
    co.line_directives = o.line_directives;
    co.file_name = o.file_name;
    co.no_header = 1;
    co.helper_qualifier = "static __device__ __forceinline__";
    co.table_qualifier = "static __device__ const";
    co.restrict_kw = "__restrict__";
    co.loop_pragma = "#pragma unroll 1";   /* see emit.h: PTX generation time */
    co.loop_pragma_min = 6;
    hdg_str_printf(out, "/* Generated by hdgc %s from module %s for CUDA (NVRTC, or nvcc -ptx). Do not edit. */\n",
                   HDG_VERSION, m->name);
    hdg_str_puts(out, hdg_emit_c_abi_header());
    hdg_str_putc(out, '\n');
    hdg_str_puts(out, prelude);
    hdg_str_putc(out, '\n');
    emit_tables(m, &o, out);
    hdg_str_putc(out, '\n');
    hdg_emit_c_helpers(m, out, &co);
    for (int i = 0; i < m->nkernels; i++) {
        hdg_cuda_shape s = choose_mapping(m->kernels[i], &o);
        if (shapes) shapes[i] = s;
        emit_kernel(m->kernels[i], &s, &co, out);
    }
    return HDG_OK;
}
