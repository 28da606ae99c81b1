/* emit_block.c — printing a block-per-item CUDA kernel from its plan (see
 * block.h): the locals as views of the dynamic shared memory, each statement
 * spread over the threads or run by thread 0, __syncthreads() where a
 * statement touches bytes an earlier one wrote (or read) since the last
 * barrier, and the block-cooperative dense helpers. */
#include "backends/cuda/block.h"

#include <stdio.h>
#include <stdlib.h>

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
     * update over the threads (a warp per row, its lanes over the columns).
     * No __restrict__ here: threads pass piv[k] and rows of A to each other
     * across the __syncthreads() inside, and restrict (noalias once inlined)
     * lets the compiler move their loads above the barrier, which on an H200
     * read a stale pivot, diverged the barriers and stopped the kernel with
     * CUDA_ERROR_ILLEGAL_INSTRUCTION (session 11). */
    "static __device__ __forceinline__ void hdg_blk_lu(int n, double *A, int *piv)\n"
    "{\n"
    "    const int lanes = blockDim.x < 32 ? (int)blockDim.x : 32;\n"
    "    const int lane = threadIdx.x % lanes, warp = threadIdx.x / lanes, warps = blockDim.x / lanes;\n"
    "    double tiny = 0.0; /* thread 0: a pivot at rounding level of the largest entry is singular (NaN) */\n"
    "    if (threadIdx.x == 0) {\n"
    "        #pragma unroll 1\n"
    "        for (int i = 0; i < n * n; ++i) tiny = fabs(A[i]) > tiny ? fabs(A[i]) : tiny;\n"
    "        tiny *= 1e-14;\n"
    "    }\n"
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
    "            if (!(big > tiny)) A[p * n + k] = NAN;\n"
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
    /* HDG_S_CHOL_SOLVE: one thread per column of B, the host helper's order in each
       (L D L^T: 1 / D_i on L's diagonal) */
    "static __device__ __forceinline__ void hdg_blk_chol_solve(int n, int m, const double *__restrict__ L,\n"
    "    double *__restrict__ B)\n"
    "{\n"
    "    #pragma unroll 1\n"
    "    for (int j = threadIdx.x; j < m; j += blockDim.x) {\n"
    "        #pragma unroll 1\n"
    "        for (int i = 1; i < n; ++i)\n"
    "            #pragma unroll 1\n"
    "            for (int k = 0; k < i; ++k) B[i * m + j] -= L[i * n + k] * B[k * m + j];\n"
    "        #pragma unroll 1\n"
    "        for (int i = n - 1; i >= 0; --i) {\n"
    "            B[i * m + j] *= L[i * n + i];\n"
    "            #pragma unroll 1\n"
    "            for (int k = i + 1; k < n; ++k) B[i * m + j] -= L[k * n + i] * B[k * m + j];\n"
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

void hdg_cuda_emit_block_helpers(const hdg_ir_module *m, const hdg_cuda_shape *shapes, hdg_str *out)
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
    return oa >= 0 && ob >= 0 && oa < ob + hdg_cuda_padded(tb) && ob < oa + hdg_cuda_padded(ta);
}

/* A barrier before statement s when it reads what was written, or writes
 * what was read or written, since the last one, unless both sides ran on
 * thread 0 alone (one: s does). Pending accesses by thread 0 alone are kept
 * in the bits above A_READ | A_WRITE. */
static void barrier_before(bctx *b, const hdg_ir_stmt *s, int one, int ind)
{
    const hdg_ir_kernel *k = b->k;
    hdg_cuda_block_access(s, b->acc);
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

void hdg_cuda_emit_block_kernel(const hdg_ir_kernel *k, const hdg_cuda_shape *sh, const bplan *pl,
                                const hdg_emit_c_options *co, hdg_str *out)
{
    hdg_emit_c_options bo = *co;
    bo.dense_prefix = "hdg_blk_";
    hdg_emit_c_printer *p = hdg_emit_c_printer_new(k, out, &bo);
    hdg_str_printf(out, "extern \"C\" __global__ void __launch_bounds__(%d) %s(long long begin, long long end, hdg_kargs hdg_args%s)\n{\n",
                   sh->block, k->name, sh->scratch_bytes ? ", double *hdg_scratch" : "");  /* shared between threads: no restrict */
    hdg_str_puts(out, "    const hdg_kargs *const a = &hdg_args;\n");
    hdg_str_puts(out, "    (void)a;\n");
    if (pl->shared && sh->scratch_bytes) {   /* locals too big for shared memory: this block's global slice */
        hdg_str_printf(out, "    double *const hdg_sm = hdg_scratch + (long long)blockIdx.x * %lld;\n", sh->scratch_bytes / 8);
        for (int i = 0; i < k->ntensors; i++)
            if (pl->offset[i] >= 0) declare_shared(k->tensors[i], pl->offset[i], out);
    } else if (pl->shared) {
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
