/* cuda_linalg.c — device vector ops, dense-block SpMV, preconditioners and
 * the copy kernel (see cuda_linalg.h). The kernels are the text below,
 * compiled by NVRTC with HDG_M / HDG_NA fixed. */
#include "runtime/cuda/cuda_linalg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/cuda_trace.h"

static const char kernels[] =
    "/* hdgc runtime kernels: vector ops, dense-block SpMV, preconditioners. */\n"
    "#define HDG_BLOCK 256\n"
    "\n"
    "/* bandwidth reference and vecops copy: y = x */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_copy(long long n, const double *__restrict__ x,\n"
    "                                                                   double *__restrict__ y)\n"
    "{\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        y[i] = x[i];\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_axpy(long long n, double a, const double *__restrict__ x,\n"
    "                                                                   double *__restrict__ y)\n"
    "{\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        y[i] += a * x[i];\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_xpay(long long n, const double *__restrict__ x, double a,\n"
    "                                                                   double *__restrict__ y)\n"
    "{\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        y[i] = x[i] + a * y[i];\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_scal(long long n, double a, double *__restrict__ x)\n"
    "{\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        x[i] *= a;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_set(long long n, double a, double *__restrict__ x)\n"
    "{\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        x[i] = a;\n"
    "}\n"
    "\n"
    "/* Sum of HDG_BLOCK values in shared memory by a fixed tree (deterministic). */\n"
    "static __device__ __forceinline__ double hdg_block_sum(double *s)\n"
    "{\n"
    "    for (int w = HDG_BLOCK / 2; w > 0; w >>= 1) {\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];\n"
    "    }\n"
    "    __syncthreads();\n"
    "    return s[0];\n"
    "}\n"
    "\n"
    "/* partial[b] = sum over the items of block b (launched with nparts blocks). */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_dot(long long n, const double *__restrict__ x,\n"
    "                                                                  const double *__restrict__ y,\n"
    "                                                                  double *__restrict__ partial)\n"
    "{\n"
    "    __shared__ double s[HDG_BLOCK];\n"
    "    double t = 0.0;\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        t += x[i] * y[i];\n"
    "    s[threadIdx.x] = t;\n"
    "    double b = hdg_block_sum(s);\n"
    "    if (threadIdx.x == 0) partial[blockIdx.x] = b;\n"
    "}\n"
    "\n"
    "/* One block: result[0] = sum of the nparts partials. */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_reduce(int nparts, const double *__restrict__ partial,\n"
    "                                                                     double *__restrict__ result)\n"
    "{\n"
    "    __shared__ double s[HDG_BLOCK];\n"
    "    double t = 0.0;\n"
    "    for (int i = threadIdx.x; i < nparts; i += HDG_BLOCK) t += partial[i];\n"
    "    s[threadIdx.x] = t;\n"
    "    double b = hdg_block_sum(s);\n"
    "    if (threadIdx.x == 0) result[0] = b;\n"
    "}\n"
    "\n"
    "/* y = B x, dense block format, coalesced layout: one thread per output row\n"
    " * t = l*HDG_M + i; A[(b*HDG_M + j)*rows + t] is entry (i, j) of block b of row l. */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_spmv(int nf, const double *__restrict__ A,\n"
    "                                                                   const int *__restrict__ nbr,\n"
    "                                                                   const double *__restrict__ x,\n"
    "                                                                   double *__restrict__ y)\n"
    "{\n"
    "    const long long rows = (long long)nf * HDG_M;\n"
    "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= rows) return;\n"
    "    const int l = (int)(t / HDG_M);\n"
    "    double s = 0.0;\n"
    "#pragma unroll\n"
    "    for (int b = 0; b < HDG_NA; ++b) {\n"
    "        const int g = __ldg(nbr + (long long)l * HDG_NA + b);\n"
    "        if (g < 0) continue;\n"
    "        const double *__restrict__ xg = x + (long long)g * HDG_M;\n"
    "        const double *__restrict__ Ab = A + (long long)b * HDG_M * rows + t;\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < HDG_M; ++j) s += Ab[(long long)j * rows] * __ldg(xg + j);\n"
    "    }\n"
    "    y[t] = s;\n"
    "}\n"
    "\n"
    "/* Jacobi: y = d .* x */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_diag(long long n, const double *__restrict__ d,\n"
    "                                                                   const double *__restrict__ x,\n"
    "                                                                   double *__restrict__ y)\n"
    "{\n"
    "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        y[i] = d[i] * x[i];\n"
    "}\n"
    "\n"
    "/* face-block Jacobi: y_l = D_l^-1 x_l, D[j*rows + t] = (D_l^-1)(i, j), t = l*HDG_M + i */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_block(int nf, const double *__restrict__ D,\n"
    "                                                                    const double *__restrict__ x,\n"
    "                                                                    double *__restrict__ y)\n"
    "{\n"
    "    const long long rows = (long long)nf * HDG_M;\n"
    "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= rows) return;\n"
    "    const double *__restrict__ xl = x + (t / HDG_M) * HDG_M;\n"
    "    double s = 0.0;\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < HDG_M; ++j) s += D[(long long)j * rows + t] * __ldg(xl + j);\n"
    "    y[t] = s;\n"
    "}\n"
    "\n"
    "/* y = C x, compressed sparse rows (n rows, any number of columns), one thread\n"
    " * per row, entries summed in stored order (as hdg_csr_spmv) */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_csr(int n, const int *__restrict__ rowptr,\n"
    "                                                                  const int *__restrict__ col,\n"
    "                                                                  const double *__restrict__ val,\n"
    "                                                                  const double *__restrict__ x,\n"
    "                                                                  double *__restrict__ y)\n"
    "{\n"
    "    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    double s = 0.0;\n"
    "    for (int k = rowptr[i]; k < rowptr[i + 1]; ++k) s += val[k] * __ldg(x + col[k]);\n"
    "    y[i] = s;\n"
    "}\n"
    "\n"
    "/* Jacobi: d[t] = 1 / A_tt; bad[t] = 1 where A_tt is 0 or not finite */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_jacobi_init(int nf, const double *__restrict__ A,\n"
    "        double *__restrict__ d, int *__restrict__ bad)\n"
    "{\n"
    "    const long long rows = (long long)nf * HDG_M;\n"
    "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= rows) return;\n"
    "    const double v = A[(long long)(t % HDG_M) * rows + t];\n"
    "    bad[t] = v == 0.0 || !isfinite(v);\n"
    "    d[t] = 1.0 / v;\n"
    "}\n"
    "\n"
    "/* Face-block Jacobi: D[j*rows + l*M + i] = (A_ll^-1)(i, j) by LU with partial\n"
    " * pivoting (hdg_invert); bad[l] = 1 for a singular block. One thread per face. */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_block_init(int nf, const double *__restrict__ A,\n"
    "        double *__restrict__ D, int *__restrict__ bad)\n"
    "{\n"
    "    const long long rows = (long long)nf * HDG_M;\n"
    "    const long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (l >= nf) return;\n"
    "    double LU[HDG_M][HDG_M], X[HDG_M][HDG_M];\n"
    "    int piv[HDG_M];\n"
    "    for (int i = 0; i < HDG_M; i++)\n"
    "        for (int j = 0; j < HDG_M; j++) {\n"
    "            LU[i][j] = A[(long long)j * rows + l * HDG_M + i];\n"
    "            X[i][j] = i == j ? 1.0 : 0.0;\n"
    "        }\n"
    "    bad[l] = 0;\n"
    "    for (int k = 0; k < HDG_M; k++) {\n"
    "        int p = k;\n"
    "        double big = fabs(LU[k][k]);\n"
    "        for (int i = k + 1; i < HDG_M; i++)\n"
    "            if (fabs(LU[i][k]) > big) big = fabs(LU[i][k]), p = i;\n"
    "        piv[k] = p;\n"
    "        if (big == 0.0) { bad[l] = 1; return; }\n"
    "        if (p != k)\n"
    "            for (int c = 0; c < HDG_M; c++) { double s = LU[k][c]; LU[k][c] = LU[p][c]; LU[p][c] = s; }\n"
    "        const double inv = 1.0 / LU[k][k];\n"
    "        for (int i = k + 1; i < HDG_M; i++) {\n"
    "            const double m = LU[i][k] *= inv;\n"
    "            if (m != 0.0)\n"
    "                for (int j = k + 1; j < HDG_M; j++) LU[i][j] -= m * LU[k][j];\n"
    "        }\n"
    "    }\n"
    "    for (int k = 0; k < HDG_M; k++)\n"
    "        if (piv[k] != k)\n"
    "            for (int c = 0; c < HDG_M; c++) { double s = X[k][c]; X[k][c] = X[piv[k]][c]; X[piv[k]][c] = s; }\n"
    "    for (int i = 1; i < HDG_M; i++)\n"
    "        for (int k = 0; k < i; k++)\n"
    "            if (LU[i][k] != 0.0)\n"
    "                for (int c = 0; c < HDG_M; c++) X[i][c] -= LU[i][k] * X[k][c];\n"
    "    for (int i = HDG_M - 1; i >= 0; i--) {\n"
    "        for (int k = i + 1; k < HDG_M; k++)\n"
    "            if (LU[i][k] != 0.0)\n"
    "                for (int c = 0; c < HDG_M; c++) X[i][c] -= LU[i][k] * X[k][c];\n"
    "        const double inv = 1.0 / LU[i][i];\n"
    "        for (int c = 0; c < HDG_M; c++) X[i][c] *= inv;\n"
    "    }\n"
    "    for (int i = 0; i < HDG_M; i++)\n"
    "        for (int j = 0; j < HDG_M; j++) D[(long long)j * rows + l * HDG_M + i] = X[i][j];\n"
    "}\n";

void hdg_cuda_linalg_source(int m, int na, hdg_str *out)
{
    hdg_str_printf(out, "#define HDG_M %d\n#define HDG_NA %d\n", m, na);
    hdg_str_puts(out, kernels);
    hdg_cuda_trace_source(out);
}

/* ------------------------------------------------------------------- setup */


static const hdg_vecops device_ops;

hdg_status hdg_cuda_linalg_init(hdg_cuda_linalg *L, hdg_cuda_device *dev, hdg_cuda_module *mod,
                                int m, int na, hdg_error *err)
{
    memset(L, 0, sizeof *L);
    L->dev = dev;
    L->mod = mod;
    L->m = m;
    L->na = na;
    struct { hdg_cuda_func **f; const char *name; } fns[] = {
        { &L->copy, "hdg_rt_copy" }, { &L->axpy, "hdg_rt_axpy" }, { &L->xpay, "hdg_rt_xpay" },
        { &L->scal, "hdg_rt_scal" }, { &L->set, "hdg_rt_set" }, { &L->dot, "hdg_rt_dot" },
        { &L->reduce, "hdg_rt_reduce" }, { &L->spmv, "hdg_rt_spmv" }, { &L->diag, "hdg_rt_diag" },
        { &L->block, "hdg_rt_block" }, { &L->kstats, "hdg_rt_kstats" }, { &L->assemble, "hdg_rt_assemble" },
        { &L->dirichlet, "hdg_rt_dirichlet" }, { &L->scatter, "hdg_rt_scatter" }, { &L->jinit, "hdg_rt_jacobi_init" },
        { &L->binit, "hdg_rt_block_init" }, { &L->csr, "hdg_rt_csr" },
    };
    hdg_status st = HDG_OK;
    for (size_t i = 0; i < sizeof fns / sizeof *fns && !st; i++) st = hdg_cuda_module_function(mod, fns[i].name, fns[i].f, err);
    /* partials: 4 per multiprocessor (528 on an H100), a fixed number per
     * device so that reductions repeat bit for bit */
    int sms = hdg_cuda_device_props(dev)->sm_count;
    L->nparts = sms < 1 ? 1 : sms > 256 ? 1024 : 4 * sms;
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * (size_t)L->nparts, &L->partial, err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double), &L->result, err);
    if (st) {
        hdg_cuda_linalg_free(L);
        return st;
    }
    L->ops = device_ops;
    L->ops.ctx = L;
    hdg_error_clear(&L->sticky);
    return HDG_OK;
}

void hdg_cuda_linalg_free(hdg_cuda_linalg *L)
{
    if (!L || !L->dev) return;
    hdg_cuda_free(L->dev, L->partial);
    hdg_cuda_free(L->dev, L->result);
    hdg_cuda_module_unload(L->mod);
    memset(L, 0, sizeof *L);
}

hdg_status hdg_cuda_linalg_check(const hdg_cuda_linalg *L, hdg_error *err)
{
    if (!L->failed) return HDG_OK;
    return hdg_fail(err, L->sticky.code, "%s", L->sticky.msg);
}

/* ------------------------------------------------------------------ launch */

static unsigned grid_for(long long n)
{
    long long g = (n + HDG_CUDA_RT_BLOCK - 1) / HDG_CUDA_RT_BLOCK;
    return (unsigned)(g > (1 << 20) ? (1 << 20) : g);   /* grid-stride beyond */
}

static hdg_status launch(hdg_cuda_linalg *L, hdg_cuda_func *f, const char *what, unsigned grid, void **params,
                         hdg_error *err)
{
    return hdg_cuda_launch(L->dev, f, what, grid, HDG_CUDA_RT_BLOCK, 0, params, err);
}

hdg_status hdg_cuda_linalg_launch(hdg_cuda_linalg *L, hdg_cuda_func *f, const char *what, long long n,
                                  void **params, hdg_error *err)
{
    if (n <= 0) return HDG_OK;
    long long grid = (n + HDG_CUDA_RT_BLOCK - 1) / HDG_CUDA_RT_BLOCK;
    if (grid > 0x7fffffffLL) return hdg_fail(err, HDG_EDEVICE, "%s: %lld threads are too many for one launch", what, n);
    return launch(L, f, what, (unsigned)grid, params, err);
}

/* Records the first error of an operation that cannot return one. */
static void keep(hdg_cuda_linalg *L, hdg_status st, const hdg_error *e)
{
    if (!st || L->failed) return;
    L->failed = 1;
    L->sticky = *e;
}

/* --------------------------------------------------------------- vecops */

static double *v_alloc(void *ctx, long long n)
{
    hdg_cuda_linalg *L = ctx;
    hdg_cuptr p = 0;
    hdg_error e;
    if (L->failed) return NULL;
    keep(L, hdg_cuda_alloc(L->dev, sizeof(double) * (size_t)(n > 0 ? n : 1), &p, &e), &e);
    return (double *)(uintptr_t)p;
}

static void v_free(void *ctx, double *x)
{
    hdg_cuda_linalg *L = ctx;
    hdg_cuda_free(L->dev, (hdg_cuptr)(uintptr_t)x);
}

static double v_dot(void *ctx, long long n, const double *x, const double *y)
{
    hdg_cuda_linalg *L = ctx;
    hdg_error e;
    if (L->failed) return NAN;
    hdg_cuptr dx = (hdg_cuptr)(uintptr_t)x, dy = (hdg_cuptr)(uintptr_t)y;
    void *p1[] = { &n, &dx, &dy, &L->partial };
    void *p2[] = { &L->nparts, &L->partial, &L->result };
    double r = NAN;
    hdg_status st = launch(L, L->dot, "hdg_rt_dot", (unsigned)L->nparts, p1, &e);
    if (!st) st = launch(L, L->reduce, "hdg_rt_reduce", 1, p2, &e);
    if (!st) st = hdg_cuda_download(L->dev, &r, L->result, sizeof r, &e);
    keep(L, st, &e);
    return st ? NAN : r;
}

static double v_norm2(void *ctx, long long n, const double *x)
{
    double d = v_dot(ctx, n, x, x);
    return d >= 0 ? sqrt(d) : NAN;
}

static void v_axpy(void *ctx, long long n, double a, const double *x, double *y)
{
    hdg_cuda_linalg *L = ctx;
    hdg_error e;
    if (L->failed) return;
    hdg_cuptr dx = (hdg_cuptr)(uintptr_t)x, dy = (hdg_cuptr)(uintptr_t)y;
    void *p[] = { &n, &a, &dx, &dy };
    keep(L, launch(L, L->axpy, "hdg_rt_axpy", grid_for(n), p, &e), &e);
}

static void v_xpay(void *ctx, long long n, const double *x, double a, double *y)
{
    hdg_cuda_linalg *L = ctx;
    hdg_error e;
    if (L->failed) return;
    hdg_cuptr dx = (hdg_cuptr)(uintptr_t)x, dy = (hdg_cuptr)(uintptr_t)y;
    void *p[] = { &n, &dx, &a, &dy };
    keep(L, launch(L, L->xpay, "hdg_rt_xpay", grid_for(n), p, &e), &e);
}

static void v_copy(void *ctx, long long n, const double *x, double *y)
{
    hdg_cuda_linalg *L = ctx;
    hdg_error e;
    if (L->failed) return;
    keep(L, hdg_cuda_vec_copy(L, n, (hdg_cuptr)(uintptr_t)x, (hdg_cuptr)(uintptr_t)y, &e), &e);
}

static void v_scal(void *ctx, long long n, double a, double *x)
{
    hdg_cuda_linalg *L = ctx;
    hdg_error e;
    if (L->failed) return;
    hdg_cuptr dx = (hdg_cuptr)(uintptr_t)x;
    void *p[] = { &n, &a, &dx };
    keep(L, launch(L, L->scal, "hdg_rt_scal", grid_for(n), p, &e), &e);
}

static void v_set(void *ctx, long long n, double a, double *x)
{
    hdg_cuda_linalg *L = ctx;
    hdg_error e;
    if (L->failed) return;
    hdg_cuptr dx = (hdg_cuptr)(uintptr_t)x;
    void *p[] = { &n, &a, &dx };
    keep(L, launch(L, L->set, "hdg_rt_set", grid_for(n), p, &e), &e);
}

static const hdg_vecops device_ops = { NULL, v_alloc, v_free, v_dot, v_norm2, v_axpy, v_xpay, v_copy, v_scal, v_set };

hdg_status hdg_cuda_vec_upload(hdg_cuda_linalg *L, const double *host, long long n, hdg_cuptr *dev,
                               hdg_error *err)
{
    hdg_status st = hdg_cuda_alloc(L->dev, sizeof(double) * (size_t)(n > 0 ? n : 1), dev, err);
    if (!st) st = hdg_cuda_upload(L->dev, *dev, host, sizeof(double) * (size_t)n, err);
    if (st) {
        hdg_cuda_free(L->dev, *dev);
        *dev = 0;
    }
    return st;
}

hdg_status hdg_cuda_vec_copy(hdg_cuda_linalg *L, long long n, hdg_cuptr x, hdg_cuptr y, hdg_error *err)
{
    void *p[] = { &n, &x, &y };
    return launch(L, L->copy, "hdg_rt_copy", grid_for(n), p, err);
}

/* ------------------------------------------------------------ block matrix */

static hdg_status check_shape(const hdg_cuda_linalg *L, const hdg_blockmat *B, hdg_error *err)
{
    if (B->m != L->m || B->na != L->na)
        return hdg_fail(err, HDG_EINTERNAL, "device kernels were compiled for %d x %d blocks, %d per row; the matrix has %d x %d, %d",
                        L->m, L->m, L->na, B->m, B->m, B->na);
    return HDG_OK;
}

hdg_status hdg_cuda_blockmat_upload(hdg_cuda_linalg *L, const hdg_blockmat *B, hdg_cuda_blockmat *dB,
                                    hdg_error *err)
{
    memset(dB, 0, sizeof *dB);
    hdg_status st = check_shape(L, B, err);
    if (st) return st;
    int nf = B->nf, m = B->m, na = B->na;
    size_t rows = (size_t)nf * m, slice = rows * m;   /* one block column b: m*rows values */
    dB->L = L;
    dB->nf = nf;
    dB->m = m;
    dB->na = na;
    st = hdg_cuda_alloc(L->dev, sizeof(double) * slice * na, &dB->A, err);
    if (!st) st = hdg_cuda_alloc(L->dev, sizeof(int) * (size_t)nf * na, &dB->nbr, err);
    if (!st) st = hdg_cuda_upload(L->dev, dB->nbr, B->nbr, sizeof(int) * (size_t)nf * na, err);
    double *tmp = st ? NULL : hdg_xmalloc(sizeof(double) * (slice ? slice : 1));
    for (int b = 0; b < na && !st; b++) {   /* repack one block column at a time */
        for (int l = 0; l < nf; l++) {
            const double *blk = hdg_blockmat_block(B, l, b);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) tmp[(size_t)j * rows + (size_t)l * m + i] = blk[i * m + j];
        }
        st = hdg_cuda_upload(L->dev, dB->A + sizeof(double) * slice * b, tmp, sizeof(double) * slice, err);
    }
    free(tmp);
    if (st) hdg_cuda_blockmat_free(dB);
    return st;
}

hdg_status hdg_cuda_blockmat_download(const hdg_cuda_blockmat *dB, hdg_blockmat *B, hdg_error *err)
{
    memset(B, 0, sizeof *B);
    hdg_cuda_linalg *L = dB->L;
    int nf = dB->nf, m = dB->m, na = dB->na;
    size_t rows = (size_t)nf * m, slice = rows * m;
    int *nbr = hdg_xmalloc(sizeof(int) * ((size_t)nf * na + 1));
    hdg_status st = hdg_cuda_download(L->dev, nbr, dB->nbr, sizeof(int) * (size_t)nf * na, err);
    if (!st) st = hdg_blockmat_init(B, nf, m, na, nbr, err);
    free(nbr);
    double *tmp = st ? NULL : hdg_xmalloc(sizeof(double) * (slice ? slice : 1));
    for (int b = 0; b < na && !st; b++) {   /* one block column at a time, as uploaded */
        st = hdg_cuda_download(L->dev, tmp, dB->A + sizeof(double) * slice * b, sizeof(double) * slice, err);
        for (int l = 0; l < nf && !st; l++) {
            double *blk = hdg_blockmat_block(B, l, b);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) blk[i * m + j] = tmp[(size_t)j * rows + (size_t)l * m + i];
        }
    }
    free(tmp);
    if (st) hdg_blockmat_free(B);
    return st;
}

void hdg_cuda_blockmat_free(hdg_cuda_blockmat *dB)
{
    if (!dB || !dB->L) return;
    hdg_cuda_free(dB->L->dev, dB->A);
    hdg_cuda_free(dB->L->dev, dB->nbr);
    memset(dB, 0, sizeof *dB);
}

hdg_status hdg_cuda_blockmat_spmv(const hdg_cuda_blockmat *dB, hdg_cuptr x, hdg_cuptr y, hdg_error *err)
{
    hdg_cuda_linalg *L = dB->L;
    int nf = dB->nf;
    hdg_cuptr A = dB->A, nbr = dB->nbr;
    void *p[] = { &nf, &A, &nbr, &x, &y };
    long long rows = (long long)nf * dB->m;
    return launch(L, L->spmv, "hdg_rt_spmv", (unsigned)((rows + HDG_CUDA_RT_BLOCK - 1) / HDG_CUDA_RT_BLOCK), p, err);
}

static void blockmat_apply(void *ctx, const double *x, double *y)
{
    hdg_cuda_blockmat *dB = ctx;
    hdg_error e;
    if (dB->L->failed) return;
    keep(dB->L, hdg_cuda_blockmat_spmv(dB, (hdg_cuptr)(uintptr_t)x, (hdg_cuptr)(uintptr_t)y, &e), &e);
}

hdg_linop hdg_cuda_blockmat_op(hdg_cuda_blockmat *dB)
{
    hdg_linop op = { dB, (long long)dB->nf * dB->m, blockmat_apply };
    return op;
}

/* ---------------------------------------------------------- preconditioners */

/* Runs the init kernel of the preconditioner (one thread per row, Jacobi;
 * per face, block) writing P->d and one flag per item, then names the first
 * flagged item in the error. Built from the device matrix: nothing of it is
 * copied back. */
static hdg_status precond_init(hdg_cuda_blockmat *dB, hdg_cuda_precond *P, int kind, hdg_error *err)
{
    hdg_cuda_linalg *L = dB->L;
    memset(P, 0, sizeof *P);
    P->L = L, P->nf = dB->nf, P->m = dB->m, P->kind = kind;
    long long rows = (long long)dB->nf * dB->m, n = kind ? dB->nf : rows;
    size_t dsize = (size_t)rows * (kind ? (size_t)dB->m : 1);
    hdg_cuptr bad = 0, A = dB->A;
    int nf = dB->nf;
    int *flags = hdg_xmalloc(sizeof(int) * ((size_t)n + 1));
    hdg_status st = hdg_cuda_alloc(L->dev, sizeof(double) * (dsize ? dsize : 1), &P->d, err);
    if (!st) st = hdg_cuda_alloc(L->dev, sizeof(int) * ((size_t)n + 1), &bad, err);
    void *p[] = { &nf, &A, &P->d, &bad };
    if (!st) st = hdg_cuda_linalg_launch(L, kind ? L->binit : L->jinit, kind ? "hdg_rt_block_init" : "hdg_rt_jacobi_init",
                                         n, p, err);
    if (!st && n) st = hdg_cuda_download(L->dev, flags, bad, sizeof(int) * (size_t)n, err);
    for (long long i = 0; i < n && !st; i++) {
        if (!flags[i]) continue;
        if (kind) st = hdg_fail(err, HDG_EINPUT, "face-block Jacobi preconditioner: diagonal block of face %lld is singular", i);
        else st = hdg_fail(err, HDG_EINPUT, "Jacobi preconditioner: zero or non-finite diagonal entry at face %lld dof %lld (row %lld)",
                           i / dB->m, i % dB->m, i);
    }
    free(flags);
    hdg_cuda_free(L->dev, bad);
    if (st) hdg_cuda_precond_free(P);
    return st;
}

hdg_status hdg_cuda_precond_jacobi(hdg_cuda_blockmat *dB, hdg_cuda_precond *P, hdg_error *err)
{
    return precond_init(dB, P, 0, err);
}

hdg_status hdg_cuda_precond_block(hdg_cuda_blockmat *dB, hdg_cuda_precond *P, hdg_error *err)
{
    return precond_init(dB, P, 1, err);
}

static void precond_apply(void *ctx, const double *x, double *y)
{
    hdg_cuda_precond *P = ctx;
    hdg_cuda_linalg *L = P->L;
    hdg_error e;
    if (L->failed) return;
    hdg_cuptr dx = (hdg_cuptr)(uintptr_t)x, dy = (hdg_cuptr)(uintptr_t)y;
    long long n = (long long)P->nf * P->m;
    unsigned grid = (unsigned)((n + HDG_CUDA_RT_BLOCK - 1) / HDG_CUDA_RT_BLOCK);
    hdg_status st;
    if (P->kind == 0) {
        void *p[] = { &n, &P->d, &dx, &dy };
        st = launch(L, L->diag, "hdg_rt_diag", grid_for(n), p, &e);
    } else {
        int nf = P->nf;
        void *p[] = { &nf, &P->d, &dx, &dy };
        st = launch(L, L->block, "hdg_rt_block", grid, p, &e);
    }
    keep(L, st, &e);
}

hdg_linop hdg_cuda_precond_op(hdg_cuda_precond *P)
{
    hdg_linop op = { P, (long long)P->nf * P->m, precond_apply };
    return op;
}

void hdg_cuda_precond_free(hdg_cuda_precond *P)
{
    if (!P || !P->L) return;
    hdg_cuda_free(P->L->dev, P->d);
    memset(P, 0, sizeof *P);
}

/* --------------------------------------------------------------------- CSR */

hdg_status hdg_cuda_csr_upload(hdg_cuda_linalg *L, const hdg_csr *C, hdg_cuda_csr *dC, hdg_error *err)
{
    memset(dC, 0, sizeof *dC);
    dC->L = L, dC->n = C->n, dC->ncol = C->ncol, dC->nnz = C->nnz;
    size_t ri = sizeof(int) * ((size_t)C->n + 1), ci = sizeof(int) * (size_t)C->nnz;
    hdg_status st = hdg_cuda_alloc(L->dev, ri, &dC->rowptr, err);
    if (!st) st = hdg_cuda_upload(L->dev, dC->rowptr, C->rowptr, ri, err);
    if (!st) st = hdg_cuda_alloc(L->dev, ci ? ci : 1, &dC->col, err);
    if (!st && ci) st = hdg_cuda_upload(L->dev, dC->col, C->col, ci, err);
    if (!st) st = hdg_cuda_vec_upload(L, C->val, C->nnz, &dC->val, err);
    if (st) hdg_cuda_csr_free(dC);
    return st;
}

hdg_status hdg_cuda_csr_spmv(const hdg_cuda_csr *dC, hdg_cuptr x, hdg_cuptr y, hdg_error *err)
{
    int n = dC->n;
    hdg_cuptr rp = dC->rowptr, col = dC->col, val = dC->val;
    void *p[] = { &n, &rp, &col, &val, &x, &y };
    return hdg_cuda_linalg_launch(dC->L, dC->L->csr, "hdg_rt_csr", n, p, err);
}

static void csr_apply(void *ctx, const double *x, double *y)
{
    hdg_cuda_csr *dC = ctx;
    hdg_error e;
    if (dC->L->failed) return;
    keep(dC->L, hdg_cuda_csr_spmv(dC, (hdg_cuptr)(uintptr_t)x, (hdg_cuptr)(uintptr_t)y, &e), &e);
}

hdg_linop hdg_cuda_csr_op(hdg_cuda_csr *dC)
{
    hdg_linop op = { dC, dC->n, csr_apply };
    return op;
}

void hdg_cuda_csr_free(hdg_cuda_csr *dC)
{
    if (!dC || !dC->L) return;
    hdg_cuda_free(dC->L->dev, dC->rowptr);
    hdg_cuda_free(dC->L->dev, dC->col);
    hdg_cuda_free(dC->L->dev, dC->val);
    memset(dC, 0, sizeof *dC);
}

/* ------------------------------------------------------ host operator */

void hdg_cuda_host_op_init(hdg_cuda_host_op *H, hdg_cuda_linalg *L, const hdg_linop *host)
{
    H->L = L;
    H->host = *host;
    H->x = hdg_xmalloc(sizeof(double) * (size_t)(host->n > 0 ? host->n : 1));
    H->y = hdg_xmalloc(sizeof(double) * (size_t)(host->n > 0 ? host->n : 1));
}

static void host_op_apply(void *ctx, const double *x, double *y)
{
    hdg_cuda_host_op *H = ctx;
    hdg_cuda_linalg *L = H->L;
    size_t bytes = sizeof(double) * (size_t)H->host.n;
    hdg_error e;
    if (L->failed) return;
    hdg_status st = hdg_cuda_download(L->dev, H->x, (hdg_cuptr)(uintptr_t)x, bytes, &e);
    if (!st) H->host.apply(H->host.ctx, H->x, H->y);
    if (!st) st = hdg_cuda_upload(L->dev, (hdg_cuptr)(uintptr_t)y, H->y, bytes, &e);
    keep(L, st, &e);
}

hdg_linop hdg_cuda_host_op_op(hdg_cuda_host_op *H)
{
    hdg_linop op = { H, H->host.n, host_op_apply };
    return op;
}

void hdg_cuda_host_op_free(hdg_cuda_host_op *H)
{
    if (!H) return;
    free(H->x);
    free(H->y);
    memset(H, 0, sizeof *H);
}

/* -------------------------------------------------------------------- PCG */

hdg_status hdg_cuda_pcg(hdg_cuda_linalg *L, const hdg_linop *A, const hdg_linop *M, const double *b,
                        double *x, const hdg_solve_opts *o, hdg_solve_info *info, hdg_error *err)
{
    long long n = A->n;
    hdg_cuptr db = 0, dx = 0;
    hdg_status st = hdg_cuda_vec_upload(L, b, n, &db, err);
    if (!st) st = hdg_cuda_vec_upload(L, x, n, &dx, err);
    if (!st) {
        st = hdg_pcg(A, M, (const double *)(uintptr_t)db, (double *)(uintptr_t)dx, o, &L->ops, info, err);
        hdg_error dev_err;
        if (hdg_cuda_linalg_check(L, &dev_err)) st = hdg_fail(err, dev_err.code, "%s", dev_err.msg);
        hdg_status st2 = hdg_cuda_download(L->dev, x, dx, sizeof(double) * (size_t)n, st ? NULL : err);
        if (!st) st = st2;
    }
    hdg_cuda_free(L->dev, db);
    hdg_cuda_free(L->dev, dx);
    return st;
}
