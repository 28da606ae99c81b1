/* emit.c — the C emitter (see emit.h). Walks a verified IR module and prints
 * C11: tables with %.17g (exact round trip), loops with constant bounds,
 * restrict slot pointers computed once per item, lets as const locals, dense
 * ops as calls of small static inline helpers with constant sizes at the
 * call site (so the C compiler specializes them), and origins as comments or
 * #line directives. Only what a kernel uses is declared, so the output is
 * clean under -Wall -Wextra -Werror. Expressions print with C precedence and
 * the IR's tree shape (floating point is not associative). */
#include "backends/c/emit.h"
#include "backends/c/emit_dense.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* include/hdg_kernel.h, verbatim (tests/test_ir_emit.c checks they agree). */
static const char abi_header[] =
    "/* hdg_kernel.h - the fixed ABI between generated kernels and the runtime.\n"
    " *\n"
    " * Every kernel hdgc generates, for every backend, is one function\n"
    " *\n"
    " *     void NAME(long long begin, long long end, const hdg_kargs *a);\n"
    " *\n"
    " * that processes the items (elements or faces) begin <= item < end. All data\n"
    " * reaches it through hdg_kargs: per-item blocks of doubles in in[] / out[] /\n"
    " * geom (item i owns the `stride` values starting at i * stride), integer maps\n"
    " * imap[] (item i owns `stride` ints starting at i * stride), user parameters\n"
    " * by index and the time. A kernel may also read an input or map at an explicit\n"
    " * row (e.g. the element of a face, taken from an imap): the slot's flags say\n"
    " * so. Outputs are only ever written at the kernel's own item, so any split of\n"
    " * [0, nitems) across threads is race-free. Buffers in in[]/geom/imap must not\n"
    " * overlap buffers in out[] (generated code uses restrict).\n"
    " *\n"
    " * hdg_kernel_info is the per-kernel metadata the compiler fills (from the IR):\n"
    " * which slots the kernel uses, their strides and meaning, and the cost model.\n"
    " * It is plain data (fixed-size strings), safe to copy and keep.\n"
    " *\n"
    " * This file is plain C (and valid C++ / CUDA); the C emitter pastes it verbatim\n"
    " * at the top of every generated source so generated files are self-contained. */\n"
    "#ifndef HDG_KERNEL_H\n"
    "#define HDG_KERNEL_H\n"
    "\n"
    "#define HDG_KERNEL_ABI_VERSION 1\n"
    "#define HDG_KMAX_IN   8\n"
    "#define HDG_KMAX_OUT  8\n"
    "#define HDG_KMAX_IMAP 4\n"
    "\n"
    "typedef struct hdg_kargs {\n"
    "    long long nitems;                 /* items (elements or faces) in the whole mesh */\n"
    "    const double *geom;               /* per-item geometric factors, info.ngeom each */\n"
    "    const double *params;             /* user parameters by index, info.nparams of them */\n"
    "    double t;                         /* time */\n"
    "    const double *in[HDG_KMAX_IN];    /* inputs, info.in[s].stride values per row */\n"
    "    double *out[HDG_KMAX_OUT];        /* outputs, info.out[s].stride values per item */\n"
    "    const int *imap[HDG_KMAX_IMAP];   /* integer maps, info.imap[s].stride ints per row */\n"
    "} hdg_kargs;\n"
    "\n"
    "typedef void (*hdg_kernel_fn)(long long begin, long long end, const hdg_kargs *a);\n"
    "\n"
    "/* What a kernel iterates over. */\n"
    "enum { HDG_KITEM_ELEMENT = 0, HDG_KITEM_FACE = 1 };\n"
    "\n"
    "/* Slot flags. */\n"
    "enum {\n"
    "    HDG_KSLOT_ITEM   = 1,  /* accessed at the kernel's own item (row = item) */\n"
    "    HDG_KSLOT_GATHER = 2,  /* read at rows computed by the kernel (e.g. from an imap) */\n"
    "    HDG_KSLOT_READS  = 4   /* output that the kernel also reads (+=, in-place ops):\n"
    "                              the runtime must initialise it before the call */\n"
    "};\n"
    "\n"
    "typedef struct hdg_kslot {\n"
    "    char name[32];       /* the IR tensor's name */\n"
    "    int stride;          /* values per row */\n"
    "    int flags;           /* HDG_KSLOT_* */\n"
    "    char doc[96];        /* what the slot holds, free text from the lowering */\n"
    "} hdg_kslot;\n"
    "\n"
    "typedef struct hdg_kernel_info {\n"
    "    char name[64];               /* the exported symbol */\n"
    "    int item;                    /* HDG_KITEM_* */\n"
    "    int nin, nout, nimap;        /* slots 0..n-1 used (holes allowed: stride 0) */\n"
    "    int ngeom;                   /* geometric factors per item (0: geom unused) */\n"
    "    int nparams;                 /* 1 + highest parameter index read (0: none) */\n"
    "    hdg_kslot in[HDG_KMAX_IN], out[HDG_KMAX_OUT], imap[HDG_KMAX_IMAP];\n"
    "    /* cost model, per item (see docs/ir.md): */\n"
    "    long long flops;             /* floating-point operations (calls weighted) */\n"
    "    long long bytes_read;        /* from in[] / geom / imap (tables not counted) */\n"
    "    long long bytes_written;     /* to out[] */\n"
    "    long long table_bytes;       /* constant tables referenced (stay in cache) */\n"
    "} hdg_kernel_info;\n"
    "\n"
    "#endif\n";

const char *hdg_emit_c_abi_header(void) { return abi_header; }

static hdg_emit_c_options resolve(const hdg_emit_c_options *o)
{
    hdg_emit_c_options r = { 0, "hdgc_kernels.c", 0, "static inline", "static const", "restrict", NULL, 0, "hdg_", 0, 0 };
    if (!o) return r;
    r.line_directives = o->line_directives;
    r.no_header = o->no_header;
    if (o->file_name) r.file_name = o->file_name;
    if (o->helper_qualifier) r.helper_qualifier = o->helper_qualifier;
    if (o->table_qualifier) r.table_qualifier = o->table_qualifier;
    if (o->restrict_kw) r.restrict_kw = o->restrict_kw;
    r.loop_pragma = o->loop_pragma;
    r.loop_pragma_min = o->loop_pragma_min;
    if (o->dense_prefix) r.dense_prefix = o->dense_prefix;
    r.fixed_size_helpers = o->fixed_size_helpers;
    r.batch = o->batch;
    return r;
}

/* ------------------------------------------------------------------ tables */

static void num_lit(hdg_str *out, double v)
{
    char buf[48];
    if (v != v) { hdg_str_puts(out, "NAN"); return; }
    if (v > 1.7976931348623157e308) { hdg_str_puts(out, "HUGE_VAL"); return; }
    if (v < -1.7976931348623157e308) { hdg_str_puts(out, "-HUGE_VAL"); return; }
    snprintf(buf, sizeof buf - 2, "%.17g", v);   /* exact round trip */
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    hdg_str_puts(out, buf);
}

/* Table entries are written as hexadecimal floating constants (C99, C++17):
 * exact like %.17g but about 3x faster to print, which matters for the warm
 * path (a cache hit still emits the source to hash it). */
static void num_lit_hex(hdg_str *out, double v)
{
    char buf[48];
    if (v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
        num_lit(out, v);
        return;
    }
    if (v == 0) { hdg_str_puts(out, v == 0 && 1 / v < 0 ? "-0.0" : "0.0"); return; }
    snprintf(buf, sizeof buf, "%a", v);
    hdg_str_puts(out, buf);
}

static void table_values(const hdg_ir_tensor *t, int dim, int offset, int indent, hdg_str *out)
{
    int stride = 1;
    for (int d = dim + 1; d < t->rank; d++) stride *= t->shape[d];
    hdg_str_putc(out, '{');
    int n = t->rank && dim < 3 ? t->shape[dim] : 1;
    for (int i = 0; i < n; i++) {
        if (dim + 1 < t->rank) {
            hdg_str_printf(out, "%s\n%*s", i ? "," : "", indent + 4, "");
            table_values(t, dim + 1, offset + i * stride, indent + 4, out);
            continue;
        }
        if (i) hdg_str_puts(out, ", ");
        if (t->type == HDG_IR_INT) hdg_str_printf(out, "%d", t->idata[offset + i]);
        else num_lit_hex(out, t->data[offset + i]);
    }
    if (dim + 1 < t->rank) hdg_str_printf(out, "\n%*s", indent, "");
    hdg_str_putc(out, '}');
}

void hdg_emit_c_table_init(const hdg_ir_tensor *t, int indent, hdg_str *out)
{
    table_values(t, 0, 0, indent, out);
}

static void mark_expr_tables(const hdg_ir_expr *e, unsigned char *used)
{
    if (e->op == HDG_E_LOAD) used[e->t->id] = 1;
    if (e->row) mark_expr_tables(e->row, used);
    for (int i = 0; i < e->n; i++) mark_expr_tables(e->a[i], used);
}

static void mark_block_tables(const hdg_ir_stmt *s, unsigned char *used)
{
    for (; s; s = s->next) {
        if (s->kind == HDG_S_FOR) mark_block_tables(s->body.first, used);
        if (s->value) mark_expr_tables(s->value, used);
        if (s->dst) mark_expr_tables(s->dst, used);
        hdg_ir_tensor *r[4];
        int n = hdg_ir_dense_reads(s, r);
        for (int i = 0; i < n; i++) used[r[i]->id] = 1;
    }
}

void hdg_emit_c_tables(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *o)
{
    hdg_emit_c_options opt = resolve(o);
    unsigned char *used = hdg_xcalloc((size_t)m->next_tensor_id + 1, 1);
    for (int i = 0; i < m->nkernels; i++) mark_block_tables(m->kernels[i]->body.first, used);
    for (int i = 0; i < m->ntables; i++) {
        const hdg_ir_tensor *t = m->tables[i];
        if (!used[t->id]) continue;
        hdg_str_printf(out, "%s %s %s", opt.table_qualifier, t->type == HDG_IR_INT ? "int" : "double", t->name);
        if (t->rank == 0) hdg_str_puts(out, "[1]");
        for (int d = 0; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
        hdg_str_puts(out, " = ");
        table_values(t, 0, 0, 0, out);
        hdg_str_puts(out, ";\n");
    }
    free(used);
}

/* ----------------------------------------------------------------- helpers */

enum { H_MATMUL = 1, H_LU = 2, H_LU_SOLVE = 4, H_CHOL = 8, H_CHOL_SOLVE = 16, H_POWI = 32,
       H_IMIN = 64, H_IMAX = 128 };

static int powi_inline(const hdg_ir_expr *e)
{
    return (e->ival == 2 || e->ival == 3) && hdg_ir_is_leaf(e->a[0]);
}

static unsigned expr_helpers(const hdg_ir_expr *e)
{
    unsigned h = 0;
    if (e->op == HDG_E_POWI && !powi_inline(e)) h |= H_POWI;
    if (e->op == HDG_E_MIN && e->type == HDG_IR_INT) h |= H_IMIN;
    if (e->op == HDG_E_MAX && e->type == HDG_IR_INT) h |= H_IMAX;
    if (e->row) h |= expr_helpers(e->row);
    for (int i = 0; i < e->n; i++) h |= expr_helpers(e->a[i]);
    return h;
}

static unsigned block_helpers(const hdg_ir_stmt *s)
{
    unsigned h = 0;
    for (; s; s = s->next) {
        switch (s->kind) {
        case HDG_S_FOR: h |= block_helpers(s->body.first); break;
        case HDG_S_MATMUL: h |= H_MATMUL; break;
        case HDG_S_LU: h |= H_LU; break;
        case HDG_S_LU_SOLVE: h |= H_LU_SOLVE; break;
        case HDG_S_CHOL: h |= H_CHOL; break;
        case HDG_S_CHOL_SOLVE: h |= H_CHOL_SOLVE; break;
        default: break;
        }
        if (s->value) h |= expr_helpers(s->value);
        if (s->dst) h |= expr_helpers(s->dst);
    }
    return h;
}

/* The helpers' texts; @Q is the qualifier, @R the restrict keyword. Their
 * operation counts are the cost model's (ir.h). */
static const char *const helper_text[] = {
    /* H_MATMUL: C[m][n] = alpha op(A) op(B) + beta C, op(A)(i,p) = A[i*sa0 + p*sa1] */
    "@Q void hdg_matmul(int m, int n, int k, double alpha, const double *@R A, int sa0, int sa1,\n"
    "    const double *@R B, int sb0, int sb1, double beta, double *@R C)\n"
    "{\n"
    "    /* tiles of up to 4 x 16 entries of C, summed over p in order into s (the\n"
    "       rounding of a dot product), p outside the rows: consecutive updates of\n"
    "       one sum are a tile row apart, so none waits on the one before it */\n"
    "    for (int i0 = 0; i0 < m; i0 += 4)\n"
    "        for (int j0 = 0; j0 < n; j0 += 16) {\n"
    "            int h = m - i0 < 4 ? m - i0 : 4, w = n - j0 < 16 ? n - j0 : 16;\n"
    "            double s[4][16];\n"
    "            for (int i = 0; i < h; ++i)\n"
    "                for (int j = 0; j < w; ++j) s[i][j] = 0.0;\n"
    "            for (int p = 0; p < k; ++p)\n"
    "                for (int i = 0; i < h; ++i) {\n"
    "                    double aip = A[(i0 + i) * sa0 + p * sa1];\n"
    "                    for (int j = 0; j < w; ++j) s[i][j] += aip * B[p * sb0 + (j0 + j) * sb1];\n"
    "                }\n"
    "            for (int i = 0; i < h; ++i)\n"
    "                for (int j = 0; j < w; ++j) {\n"
    "                    double t = alpha != 1.0 ? s[i][j] * alpha : s[i][j];\n"
    "                    double *@R c = C + (i0 + i) * n + j0 + j;\n"
    "                    *c = beta == 0.0 ? t : beta == 1.0 ? *c + t : t + beta * *c;\n"
    "                }\n"
    "        }\n"
    "}\n",
    /* H_LU: A = P L U in place, partial pivoting; piv[k] = row swapped with k */
    "@Q void hdg_lu(int n, double *@R A, int *@R piv)\n"
    "{\n"
    "    /* a pivot at rounding level of the largest entry: singular, marked by a NaN\n"
    "       pivot so that everything computed from the factors is NaN (the caller's check) */\n"
    HDG_EMIT_LU_SCALE
    "    for (int k = 0; k < n; ++k) {\n"
    HDG_EMIT_LU_PIVOT
    "        for (int i = k + 1; i < n; ++i) {\n"
    "            double aik = A[i * n + k], l = aik / d;\n"
    "            A[i * n + k] = l;\n"
    "            /* local matrices are block-sparse: skip zero rows (tested before the\n"
    "               division, so the branch does not wait for it; a NaN pivot still\n"
    "               reaches the solution through the NaN multipliers) */\n"
    "            if (aik == 0.0 || l == 0.0) continue;\n"
    "            for (int j = k + 1; j < n; ++j) A[i * n + j] -= l * A[k * n + j];\n"
    "        }\n"
    "    }\n"
    "}\n",
    /* H_LU_SOLVE: B[n][m] = A^-1 B with the factors of hdg_lu */
    "@Q void hdg_lu_solve(int n, int m, const double *@R A, const int *@R piv, double *@R B)\n"
    "{\n"
    HDG_EMIT_LU_PERMUTE
    "    /* forward substitution by columns: once row k is final it updates the rows\n"
    "       below, which are independent of each other (by rows, every update of a\n"
    "       row would wait on the one before it); each row still takes its updates\n"
    "       in the order k = 0, 1, ..., so the rounding is that of the row order.\n"
    "       The backward substitution stays by rows: by columns it would add the\n"
    "       updates of a row in the reverse order (other rounding than the CUDA\n"
    "       block helpers, which the mappings' tests compare to 1e-13) */\n"
    "    for (int k = 0; k < n - 1; ++k)\n"
    "        for (int i = k + 1; i < n; ++i) {\n"
    "            double l = A[i * n + k];\n"
    "            if (l == 0.0) continue;\n"
    "            for (int j = 0; j < m; ++j) B[i * m + j] -= l * B[k * m + j];\n"
    "        }\n"
    "    for (int i = n - 1; i >= 0; --i) {\n"
    "        for (int k = i + 1; k < n; ++k) {\n"
    "            double u = A[i * n + k];\n"
    "            for (int j = 0; j < m; ++j) B[i * m + j] -= u * B[k * m + j];\n"
    "        }\n"
    "        double d = A[i * n + i];\n"
    "        for (int j = 0; j < m; ++j) B[i * m + j] /= d;\n"
    "    }\n"
    "}\n",
    /* H_CHOL: A = L D L^T (the square-root-free Cholesky; A symmetric, its lower triangle
       read): L's strict lower part below the diagonal, 1 / D_j on it, and above it the
       products L_ij D_j (row j, column i) that the later columns use. One division per
       column and no square root (a Cholesky's sqrt and division in a row made one long
       chain per column). A zero pivot: inf or NaN entries */
    "@Q void hdg_chol(int n, double *@R A)\n"
    "{\n"
    "    for (int j = 0; j < n; ++j) {\n"
    "        double d = A[j * n + j];\n"
    "        for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[k * n + j];\n"
    "        double r = 1.0 / d;\n"
    "        A[j * n + j] = r;\n"
    "        for (int i = j + 1; i < n; ++i) {\n"
    "            double s = A[i * n + j];\n"
    "            for (int k = 0; k < j; ++k) s -= A[i * n + k] * A[k * n + j];\n"
    "            A[j * n + i] = s;\n"
    "            A[i * n + j] = s * r;\n"
    "        }\n"
    "    }\n"
    "}\n",
    /* H_CHOL_SOLVE: B[n][m] = (L D L^T)^-1 B with hdg_chol's factors */
    "@Q void hdg_chol_solve(int n, int m, const double *@R L, double *@R B)\n"
    "{\n"
    "    for (int i = 1; i < n; ++i)\n"
    "        for (int k = 0; k < i; ++k) {\n"
    "            double l = L[i * n + k];\n"
    "            for (int j = 0; j < m; ++j) B[i * m + j] -= l * B[k * m + j];\n"
    "        }\n"
    "    for (int i = n - 1; i >= 0; --i) {\n"
    "        double d = L[i * n + i];\n"
    "        for (int j = 0; j < m; ++j) B[i * m + j] *= d;\n"
    "        for (int k = i + 1; k < n; ++k) {\n"
    "            double l = L[k * n + i];\n"
    "            for (int j = 0; j < m; ++j) B[i * m + j] -= l * B[k * m + j];\n"
    "        }\n"
    "    }\n"
    "}\n",
    /* H_POWI: x^n by binary exponentiation (as hdg_ir_powi_eval) */
    "@Q double hdg_powi(double x, int n)\n"
    "{\n"
    "    unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;\n"
    "    double r = 1.0, b = x;\n"
    "    while (m) {\n"
    "        if (m & 1u) r *= b;\n"
    "        m >>= 1;\n"
    "        if (m) b *= b;\n"
    "    }\n"
    "    return n < 0 ? 1.0 / r : r;\n"
    "}\n",
    "@Q int hdg_imin(int x, int y) { return x < y ? x : y; }\n",
    "@Q int hdg_imax(int x, int y) { return x > y ? x : y; }\n",
};

static void put_template(hdg_str *out, const char *text, const hdg_emit_c_options *opt)
{
    for (const char *p = text; *p; p++) {
        /* the loop pragma goes before the helpers' outermost loops (4 spaces in) */
        if (opt->loop_pragma && p - text >= 5 && !strncmp(p - 5, "\n    for (", 10))
            hdg_str_printf(out, "%s\n    ", opt->loop_pragma);
        if (p[0] == '@' && p[1] == 'Q') hdg_str_puts(out, opt->helper_qualifier), p++;
        else if (p[0] == '@' && p[1] == 'R') hdg_str_puts(out, opt->restrict_kw), p++;
        else hdg_str_putc(out, *p);
    }
}

void hdg_emit_c_helpers(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *o)
{
    hdg_emit_c_options opt = resolve(o);
    unsigned h = 0;
    for (int i = 0; i < m->nkernels; i++)   /* batched kernels use the vector helpers */
        if (opt.batch <= 1 || hdg_emit_c_batchable(m->kernels[i], opt.batch, NULL, 0))
            h |= block_helpers(m->kernels[i]->body.first);
    for (unsigned i = 0; i < sizeof helper_text / sizeof *helper_text; i++)
        if (h & (1u << i)) {
            const char *fast = i < HDG_EMIT_C_NFIXED ? hdg_emit_c_fixed_text[i] : NULL;
            put_template(out, opt.fixed_size_helpers > 0 && fast ? fast : helper_text[i], &opt);
            hdg_str_putc(out, '\n');
        }
}

/* ------------------------------------------------------------- expressions */

/* The printer of one kernel's statements (public as hdg_emit_c_printer). */
typedef struct hdg_emit_c_printer {
    const hdg_ir_kernel *k;
    hdg_str *out;
    hdg_emit_c_options opt;
    int *live;                  /* by var id: the let is needed (others are not printed) */
    const hdg_ir_origin *last;  /* last origin printed as a comment */
    unsigned char *used;        /* by tensor id: U_REF, U_ITEM (see declarations) */
    long long *heap;            /* by tensor id: byte offset of a local in the kernel's heap
                                   block (hdg_heap), -1 on the stack; NULL: all on the stack */
} ectx;

static void expr(ectx *c, const hdg_ir_expr *e);

static int cprec(const hdg_ir_expr *e)
{
    if (e->op == HDG_E_NOT || e->op == HDG_E_POWI || e->op == HDG_E_ITEM) return 10;  /* printed in parens */
    return hdg_ir_op_prec(e);
}

static void sub(ectx *c, const hdg_ir_expr *e, int min)
{
    int paren = cprec(e) < min;
    if (paren) hdg_str_putc(c->out, '(');
    expr(c, e);
    if (paren) hdg_str_putc(c->out, ')');
}

static const char *slot_array(const hdg_ir_tensor *t)
{
    switch (t->kind) {
    case HDG_IR_IN: return "in";
    case HDG_IR_OUT: return "out";
    case HDG_IR_IMAP: return "imap";
    default: return "geom";
    }
}

/* Row-major linear index of a load into a slot; constant parts summed. */
static void linear(ectx *c, const hdg_ir_expr *e)
{
    int stride = e->t->size, any = 0;
    long long constant = 0;
    for (int d = 0; d < e->n; d++) {
        stride /= e->t->shape[d];
        const hdg_ir_expr *x = e->a[d];
        if (x->op == HDG_E_INT) {
            constant += x->ival * stride;
            continue;
        }
        if (any) hdg_str_puts(c->out, " + ");
        sub(c, x, 7);
        if (stride != 1) hdg_str_printf(c->out, " * %d", stride);
        any = 1;
    }
    if (!any) hdg_str_printf(c->out, "%lld", constant);
    else if (constant > 0) hdg_str_printf(c->out, " + %lld", constant);
    else if (constant < 0) hdg_str_printf(c->out, " - %lld", -constant);
}

static void load(ectx *c, const hdg_ir_expr *e)
{
    const hdg_ir_tensor *t = e->t;
    if (t->kind == HDG_IR_TABLE || t->kind == HDG_IR_LOCAL) {
        hdg_str_puts(c->out, t->name);
        if (t->rank == 0) hdg_str_puts(c->out, "[0]");
        for (int i = 0; i < e->n; i++) {
            hdg_str_putc(c->out, '[');
            expr(c, e->a[i]);
            hdg_str_putc(c->out, ']');
        }
        return;
    }
    if (e->row) {
        hdg_str_printf(c->out, "a->%s[%d][(long long)(", slot_array(t), t->slot);
        expr(c, e->row);
        hdg_str_printf(c->out, ") * %d + ", t->size);
        linear(c, e);
        hdg_str_putc(c->out, ']');
        return;
    }
    hdg_str_printf(c->out, "%s[", t->name);
    linear(c, e);
    hdg_str_putc(c->out, ']');
}

static void call(ectx *c, const char *name, const hdg_ir_expr *e)
{
    hdg_str_printf(c->out, "%s(", name);
    for (int i = 0; i < e->n; i++) {
        if (i) hdg_str_puts(c->out, ", ");
        expr(c, e->a[i]);
    }
    hdg_str_putc(c->out, ')');
}

static void expr(ectx *c, const hdg_ir_expr *e)
{
    hdg_str *out = c->out;
    int p = hdg_ir_op_prec(e);
    switch (e->op) {
    case HDG_E_NUM: num_lit(out, e->num); return;
    case HDG_E_INT: hdg_str_printf(out, "%lld", e->ival); return;
    case HDG_E_VAR: hdg_str_puts(out, e->var->name); return;
    case HDG_E_ITEM: hdg_str_puts(out, "((int)e)"); return;
    case HDG_E_TIME: hdg_str_puts(out, "a->t"); return;
    case HDG_E_PARAM: hdg_str_printf(out, "a->params[%lld]", e->ival); return;
    case HDG_E_LOAD: load(c, e); return;
    case HDG_E_NEG:
        hdg_str_putc(out, '-');
        sub(c, e->a[0], p + 1);
        return;
    case HDG_E_NOT:
        hdg_str_puts(out, "(!");
        sub(c, e->a[0], p + 1);
        hdg_str_putc(out, ')');
        return;
    case HDG_E_TODBL:
        hdg_str_puts(out, "(double)");
        sub(c, e->a[0], p + 1);
        return;
    case HDG_E_POWI:
        if (powi_inline(e)) {
            hdg_str_putc(out, '(');
            for (long long i = 0; i < e->ival; i++) {
                if (i) hdg_str_puts(out, " * ");
                expr(c, e->a[0]);
            }
            hdg_str_putc(out, ')');
        } else {
            hdg_str_puts(out, "hdg_powi(");
            expr(c, e->a[0]);
            hdg_str_printf(out, ", %lld)", e->ival);
        }
        return;
    case HDG_E_CALL: call(c, hdg_ir_fn_name((hdg_ir_fn)e->ival), e); return;
    case HDG_E_POW: call(c, "pow", e); return;
    case HDG_E_MIN: call(c, e->type == HDG_IR_INT ? "hdg_imin" : "fmin", e); return;
    case HDG_E_MAX: call(c, e->type == HDG_IR_INT ? "hdg_imax" : "fmax", e); return;
    case HDG_E_SELECT:
        sub(c, e->a[0], 4);
        hdg_str_puts(out, " ? ");
        sub(c, e->a[1], 2);
        hdg_str_puts(out, " : ");
        sub(c, e->a[2], 1);
        return;
    default: {
        /* comparisons and logic: parenthesize nested ones (-Wparentheses) */
        int lmin = p, rmin = p + 1;
        if (p <= 5) lmin = rmin = p <= 3 ? 4 : 6;
        sub(c, e->a[0], lmin);
        hdg_str_printf(out, " %s ", hdg_ir_op_name(e->op));
        sub(c, e->a[1], rmin);
        return;
    }
    }
}

/* -------------------------------------------------------------- statements */

static int same_origin(const hdg_ir_origin *a, const hdg_ir_origin *b)
{
    if (a == b) return 1;
    if (!a || !b) return 0;
    return a->line == b->line && a->col == b->col &&
           !strcmp(a->file ? a->file : "", b->file ? b->file : "") &&
           !strcmp(a->text ? a->text : "", b->text ? b->text : "");
}

static void indent(ectx *c, int n) { hdg_str_printf(c->out, "%*s", n, ""); }

static int count_lines(const hdg_str *s)
{
    int n = 0;
    for (size_t i = 0; i < s->len; i++) n += s->s[i] == '\n';
    return n;
}

static void quoted(hdg_str *out, const char *s)
{
    hdg_str_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') hdg_str_putc(out, '\\');
        hdg_str_putc(out, (unsigned char)*s < ' ' ? ' ' : *s);
    }
    hdg_str_putc(out, '"');
}

/* Returns 1 when a #line back into the generated file is due after the statement. */
static int origin(ectx *c, const hdg_ir_stmt *s, int ind)
{
    const hdg_ir_origin *o = s->origin;
    if (!o) return 0;
    if (c->opt.line_directives) {
        if (o->line <= 0) return 0;
        hdg_str_printf(c->out, "#line %d ", o->line);
        quoted(c->out, o->file ? o->file : "?");
        hdg_str_putc(c->out, '\n');
        return 1;
    }
    if (same_origin(o, c->last)) return 0;
    c->last = o;
    hdg_str text;
    hdg_str_init(&text);
    hdg_ir_origin_str(o, &text);
    indent(c, ind);
    hdg_str_puts(c->out, "/* ");
    for (size_t i = 0; i < text.len; i++) {
        char ch = text.s[i], next = text.s[i + 1];
        hdg_str_putc(c->out, (unsigned char)ch < ' ' ? ' ' : ch);
        if ((ch == '*' && next == '/') || (ch == '/' && next == '*')) hdg_str_putc(c->out, ' ');
    }
    hdg_str_puts(c->out, " */\n");
    hdg_str_free(&text);
    return 0;
}

static void line_back(ectx *c)
{
    hdg_str_printf(c->out, "#line %d ", count_lines(c->out) + 2);
    quoted(c->out, c->opt.file_name);
    hdg_str_putc(c->out, '\n');
}

/* A pointer to a dense-op operand's first element. */
static void base(ectx *c, const hdg_ir_tensor *t)
{
    if (t->kind == HDG_IR_TABLE || t->kind == HDG_IR_LOCAL) {
        if (t->rank <= 1) hdg_str_puts(c->out, t->name);
        else hdg_str_printf(c->out, "&%s[0]%s", t->name, t->rank == 3 ? "[0][0]" : "[0]");
    } else {
        hdg_str_puts(c->out, t->name);
    }
}

static int cols(const hdg_ir_tensor *t) { return t->rank == 2 ? t->shape[1] : 1; }

static void dense(ectx *c, const hdg_ir_stmt *s)
{
    hdg_str *out = c->out;
    int n = s->A->shape[0];
    switch (s->kind) {
    case HDG_S_MATMUL: {
        int m, k, k2, q;
        hdg_ir_matrix_dims(s->A, s->transa, &m, &k);
        hdg_ir_matrix_dims(s->B, s->transb, &k2, &q);
        hdg_str_printf(out, "%smatmul(%d, %d, %d, ", c->opt.dense_prefix, m, q, k);
        num_lit(out, s->alpha);
        hdg_str_puts(out, ", ");
        base(c, s->A);
        hdg_str_printf(out, ", %d, %d, ", s->transa ? 1 : cols(s->A), s->transa ? cols(s->A) : 1);
        base(c, s->B);
        hdg_str_printf(out, ", %d, %d, ", s->transb ? 1 : cols(s->B), s->transb ? cols(s->B) : 1);
        num_lit(out, s->beta);
        hdg_str_puts(out, ", ");
        base(c, s->C);
        break;
    }
    case HDG_S_LU:
        hdg_str_printf(out, "%slu(%d, ", c->opt.dense_prefix, n);
        base(c, s->A);
        hdg_str_puts(out, ", ");
        base(c, s->piv);
        break;
    case HDG_S_LU_SOLVE:
        hdg_str_printf(out, "%slu_solve(%d, %d, ", c->opt.dense_prefix, n, cols(s->B));
        base(c, s->A);
        hdg_str_puts(out, ", ");
        base(c, s->piv);
        hdg_str_puts(out, ", ");
        base(c, s->B);
        break;
    case HDG_S_CHOL:
        hdg_str_printf(out, "%schol(%d, ", c->opt.dense_prefix, n);
        base(c, s->A);
        break;
    case HDG_S_CHOL_SOLVE:
        hdg_str_printf(out, "%schol_solve(%d, %d, ", c->opt.dense_prefix, n, cols(s->B));
        base(c, s->A);
        hdg_str_puts(out, ", ");
        base(c, s->B);
        break;
    default:
        break;
    }
    hdg_str_puts(out, ");\n");
}

static void block(ectx *c, const hdg_ir_stmt *s, int ind);

static void stmt(ectx *c, const hdg_ir_stmt *s, int ind)
{
    hdg_str *out = c->out;
    if (s->kind == HDG_S_LET && !c->live[s->var->id]) return;   /* unused: would warn */
    int back = origin(c, s, ind);
    indent(c, ind);
    switch (s->kind) {
    case HDG_S_FOR: {
        const char *v = s->var->name;
        if (c->opt.loop_pragma && s->var->extent >= c->opt.loop_pragma_min) {
            hdg_str_printf(out, "%s\n", c->opt.loop_pragma);
            indent(c, ind);
        }
        if (c->opt.fixed_size_helpers > 0 && hdg_emit_c_short_loop(s)) hdg_str_puts(out, "HDG_UNROLL ");
        hdg_str_printf(out, "for (int %s = 0; %s < %d; ++%s) {\n", v, v, s->var->extent, v);
        if (back) line_back(c);
        block(c, s->body.first, ind + 4);
        indent(c, ind);
        hdg_str_puts(out, "}\n");
        return;
    }
    case HDG_S_LET:
        hdg_str_printf(out, "const %s %s = ", s->var->type == HDG_IR_INT ? "int" : "double", s->var->name);
        expr(c, s->value);
        hdg_str_puts(out, ";\n");
        break;
    case HDG_S_STORE:
        load(c, s->dst);
        hdg_str_puts(out, s->accumulate ? " += " : " = ");
        expr(c, s->value);
        hdg_str_puts(out, ";\n");
        break;
    default:
        dense(c, s);
        break;
    }
    if (back) line_back(c);
}

static void block(ectx *c, const hdg_ir_stmt *s, int ind)
{
    for (; s; s = s->next) stmt(c, s, ind);
}

/* ------------------------------------------------------------ declarations */

enum { U_REF = 1, U_ITEM = 2 };

/* Counts references to variables (from stores, and from lets that are used
 * themselves) and marks the tensors used (U_ITEM: through the item's pointer). */
static void use_expr(const hdg_ir_expr *e, unsigned char *u, int *uses)
{
    if (e->op == HDG_E_VAR) uses[e->var->id]++;
    if (e->op == HDG_E_LOAD && u) u[e->t->id] |= U_REF | (e->row ? 0 : U_ITEM);
    if (e->row) use_expr(e->row, u, uses);
    for (int i = 0; i < e->n; i++) use_expr(e->a[i], u, uses);
}

static void use_block(const hdg_ir_stmt *s, unsigned char *u, int *uses, const int *live)
{
    for (; s; s = s->next) {
        if (s->kind == HDG_S_FOR) use_block(s->body.first, u, uses, live);
        if (s->kind == HDG_S_LET && !live[s->var->id]) continue;
        if (s->value) use_expr(s->value, u, uses);
        if (s->dst) use_expr(s->dst, u, uses);
        hdg_ir_tensor *t[4];
        int n = hdg_ir_dense_reads(s, t);
        for (int i = 0; i < n && u; i++) u[t[i]->id] |= U_REF | U_ITEM;
        n = s->kind == HDG_S_FOR ? 0 : hdg_ir_stmt_writes(s, t, 4);
        for (int i = 0; i < n && u; i++) u[t[i]->id] |= U_REF | U_ITEM;
    }
}

/* An unused let would warn (-Wunused-variable): find the lets whose value is
 * needed, counting only references from needed statements, to a fixed point. */
static int *live_lets(const hdg_ir_kernel *k, unsigned char *u)
{
    size_t nv = (size_t)k->m->next_var_id + 1;
    int *live = hdg_xmalloc(nv * sizeof *live), *uses = hdg_xmalloc(nv * sizeof *uses);
    for (size_t i = 0; i < nv; i++) live[i] = 1;
    for (int changed = 1; changed;) {
        memset(uses, 0, nv * sizeof *uses);
        use_block(k->body.first, NULL, uses, live);
        changed = 0;
        for (size_t i = 0; i < nv; i++)
            if (live[i] && !uses[i]) live[i] = 0, changed = 1;
    }
    memset(uses, 0, nv * sizeof *uses);
    use_block(k->body.first, u, uses, live);
    free(uses);
    return live;
}

static void declare(ectx *c, const hdg_ir_tensor *t, int ind)
{
    hdg_str *out = c->out;
    const char *r = c->opt.restrict_kw;
    indent(c, ind);
    switch (t->kind) {
    case HDG_IR_LOCAL:
        if (c->heap && c->heap[t->id] >= 0) {   /* a pointer (to rows) into the heap block */
            const char *ty = t->type == HDG_IR_INT ? "int" : "double";
            hdg_str_printf(out, "%s (*%s %s)", ty, r, t->name);
            for (int d = 1; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
            hdg_str_printf(out, " = (%s (*)", ty);
            for (int d = 1; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
            hdg_str_printf(out, ")(hdg_heap + %lld);\n", c->heap[t->id]);
            return;
        }
        hdg_str_printf(out, "%s %s", t->type == HDG_IR_INT ? "int" : "double", t->name);
        if (t->rank == 0) hdg_str_puts(out, "[1]");
        for (int d = 0; d < t->rank; d++) hdg_str_printf(out, "[%d]", t->shape[d]);
        hdg_str_puts(out, ";\n");
        return;
    case HDG_IR_GEOM:
        hdg_str_printf(out, "const double *%s %s = a->geom + e * %d;\n", r, t->name, t->size);
        return;
    case HDG_IR_IN:
        hdg_str_printf(out, "const double *%s %s = a->in[%d] + e * %d;\n", r, t->name, t->slot, t->size);
        return;
    case HDG_IR_OUT:
        hdg_str_printf(out, "double *%s %s = a->out[%d] + e * %d;\n", r, t->name, t->slot, t->size);
        return;
    case HDG_IR_IMAP:
        hdg_str_printf(out, "const int *%s %s = a->imap[%d] + e * %d;\n", r, t->name, t->slot, t->size);
        return;
    default:
        return;
    }
}

hdg_emit_c_printer *hdg_emit_c_printer_new(const hdg_ir_kernel *k, hdg_str *out, const hdg_emit_c_options *o)
{
    ectx *c = hdg_xcalloc(1, sizeof *c);
    c->k = k;
    c->out = out;
    c->opt = resolve(o);
    c->used = hdg_xcalloc((size_t)k->m->next_tensor_id + 1, 1);
    c->live = live_lets(k, c->used);
    return c;
}

void hdg_emit_c_printer_free(hdg_emit_c_printer *c)
{
    if (!c) return;
    free(c->used);
    free(c->live);
    free(c->heap);
    free(c);
}

int hdg_emit_c_uses(const hdg_emit_c_printer *c, const hdg_ir_tensor *t)
{
    return (c->used[t->id] & (t->kind == HDG_IR_LOCAL ? U_REF : U_ITEM)) != 0;
}

int hdg_emit_c_live(const hdg_emit_c_printer *c, const hdg_ir_var *v) { return c->live[v->id]; }

void hdg_emit_c_decls(hdg_emit_c_printer *c, int ind, int locals)
{
    for (int pass = 0; pass < 1 + (locals != 0); pass++)   /* slot pointers first, then locals */
        for (int i = 0; i < c->k->ntensors; i++) {
            const hdg_ir_tensor *t = c->k->tensors[i];
            if ((t->kind == HDG_IR_LOCAL) == pass && hdg_emit_c_uses(c, t)) declare(c, t, ind);
        }
}

void hdg_emit_c_stmt(hdg_emit_c_printer *c, const hdg_ir_stmt *s, int ind) { stmt(c, s, ind); }
void hdg_emit_c_block(hdg_emit_c_printer *c, const hdg_ir_stmt *first, int ind) { block(c, first, ind); }
void hdg_emit_c_expr(hdg_emit_c_printer *c, const hdg_ir_expr *e) { expr(c, e); }
int hdg_emit_c_origin(hdg_emit_c_printer *c, const hdg_ir_stmt *s, int ind) { return origin(c, s, ind); }
void hdg_emit_c_line_back(hdg_emit_c_printer *c) { line_back(c); }

void hdg_emit_c_item(const hdg_ir_kernel *k, hdg_str *out, int ind, const hdg_emit_c_options *o)
{
    hdg_emit_c_printer *c = hdg_emit_c_printer_new(k, out, o);
    hdg_emit_c_decls(c, ind, 1);
    block(c, k->body.first, ind);
    hdg_emit_c_printer_free(c);
}

long long hdg_emit_c_local_bytes(const hdg_ir_tensor *t)
{
    long long n = t->type == HDG_IR_INT ? (long long)sizeof(int) : (long long)sizeof(double);
    for (int d = 0; d < t->rank; d++) n *= t->shape[d];
    return n;
}

/* Locals past HDG_EMIT_C_STACK_MAX bytes in all (high degrees: the local matrix
 * alone is 3.8 MB at k = 20) go, each local of 4 KiB or more, into one block the
 * kernel mallocs per call (per chunk of items): the stack a kernel needs stays
 * under HDG_EMIT_C_STACK_MAX whatever the degree. Returns the block's size (0: none). */
static long long place_locals(ectx *c)
{
    const hdg_ir_kernel *k = c->k;
    long long total = 0, heap = 0;
    for (int i = 0; i < k->ntensors; i++)
        if (k->tensors[i]->kind == HDG_IR_LOCAL && hdg_emit_c_uses(c, k->tensors[i]))
            total += hdg_emit_c_local_bytes(k->tensors[i]);
    if (total <= HDG_EMIT_C_STACK_MAX) return 0;
    c->heap = hdg_xmalloc(((size_t)k->m->next_tensor_id + 1) * sizeof *c->heap);
    for (int i = 0; i <= k->m->next_tensor_id; i++) c->heap[i] = -1;
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        long long n = hdg_emit_c_local_bytes(t);
        if (t->kind != HDG_IR_LOCAL || !hdg_emit_c_uses(c, t) || n < 4096) continue;
        c->heap[t->id] = heap;
        heap += (n + 63) / 64 * 64;
    }
    return heap;
}

/* Without memory for the heap block, every output of the items is NaN (the
 * runtime's checks of the kernels' results see it) and the kernel returns. */
static void heap_open(ectx *c, long long bytes)
{
    hdg_str *out = c->out;
    hdg_str_printf(out, "    char *hdg_heap = (char *)malloc(%lld);   /* locals too large for the stack */\n", bytes);
    hdg_str_puts(out, "    if (!hdg_heap) {\n");
    hdg_str_puts(out, "        for (long long e = begin; e < end; ++e) {\n");
    for (int i = 0; i < c->k->ntensors; i++) {
        const hdg_ir_tensor *t = c->k->tensors[i];
        if (t->kind != HDG_IR_OUT || !hdg_emit_c_uses(c, t)) continue;
        hdg_str_printf(out, "            for (int i = 0; i < %d; ++i) a->out[%d][e * %d + i] = NAN;\n",
                       t->size, t->slot, t->size);
    }
    hdg_str_puts(out, "        }\n        return;\n    }\n");
}

static void kernel(const hdg_ir_kernel *k, hdg_str *out, const hdg_emit_c_options *opt)
{
    hdg_ir_cost cost = hdg_ir_kernel_cost(k);
    hdg_str_printf(out, "/* kernel %s (per %s): flops %lld, read %lld B, write %lld B, tables %lld B per item */\n",
                   k->name, k->item == HDG_KITEM_FACE ? "face" : "element", cost.flops,
                   cost.bytes_read, cost.bytes_written, cost.table_bytes);
    hdg_str_printf(out, "void %s(long long begin, long long end, const hdg_kargs *a);\n", k->name);
    hdg_str_printf(out, "void %s(long long begin, long long end, const hdg_kargs *a)\n{\n", k->name);
    hdg_str_puts(out, "    (void)a;\n");
    hdg_emit_c_printer *c = hdg_emit_c_printer_new(k, out, opt);
    long long heap = place_locals(c);
    if (heap) heap_open(c, heap);
    hdg_str_puts(out, "    for (long long e = begin; e < end; ++e) {\n");
    hdg_emit_c_decls(c, 8, 1);
    block(c, k->body.first, 8);
    hdg_str_puts(out, heap ? "    }\n    free(hdg_heap);\n}\n\n" : "    }\n}\n\n");
    hdg_emit_c_printer_free(c);
}

hdg_status hdg_emit_c(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *o,
                      hdg_error *err)
{
    hdg_status st = hdg_ir_verify_module(m, err);
    if (st) return st;
    hdg_emit_c_options opt = resolve(o);
    opt.fixed_size_helpers = opt.fixed_size_helpers >= 0;   /* -1: the generic ones */
    hdg_str_printf(out, "/* Generated by hdgc %s from module %s. Do not edit. */\n", HDG_VERSION, m->name);
    if (!opt.no_header) hdg_str_puts(out, abi_header);
    hdg_str_puts(out, "\n#include <math.h>\n\n");
    hdg_str_puts(out, "void *malloc(__SIZE_TYPE__);\nvoid free(void *);\n\n");
    if (opt.fixed_size_helpers > 0) hdg_str_puts(out, HDG_EMIT_UNROLL_DEF "\n");
    hdg_emit_c_tables(m, out, &opt);
    hdg_str_putc(out, '\n');
    hdg_emit_c_helpers(m, out, &opt);
    int any = 0;
    for (int i = 0; i < m->nkernels && opt.batch > 1; i++) any |= !hdg_emit_c_batchable(m->kernels[i], opt.batch, NULL, 0);
    if (any) hdg_emit_c_batch_helpers(out, opt.batch);
    for (int i = 0; i < m->nkernels; i++) {
        char why[160];
        if (any && !hdg_emit_c_batchable(m->kernels[i], opt.batch, why, sizeof why)) {
            hdg_emit_c_batch_kernel(m->kernels[i], out, &opt, opt.batch);
            continue;
        }
        if (opt.batch > 1) hdg_str_printf(out, "/* one item at a time: %s */\n", why);
        kernel(m->kernels[i], out, &opt);
    }
    return HDG_OK;
}
