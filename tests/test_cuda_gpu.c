/* test_cuda_gpu.c — the CUDA backend on a GPU (ctest label `gpu`; run by
 * `make test-gpu`). Skips (77) without a GPU unless HDG_REQUIRE_GPU=1.
 *   1. the representative IR kernels (test_kernels.h) on the device
 *      against the C backend (JIT) on the same inputs;
 *   2. the dense-block SpMV against the host SpMV, PCG on the device (Jacobi
 *      and face-block Jacobi) against PCG on the host;
 *   3. SpMV bandwidth against the copy kernel, measured in the same run and
 *      printed (HDG_BENCH_NF faces, default 200000, m = 4). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/pipeline.h"
#include "compiler/pipeline_cuda.h"
#include "runtime/solve/krylov.h"
#include "test.h"
#include "test_device.h"
#include "test_kernels.h"

static hdg_cuda_device *dev;
static unsigned long long rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int same(double x, double y, double tol)
{
    if (x != x || y != y) return x != x && y != y;
    if (isinf(x) || isinf(y)) return x == y;
    return fabs(x - y) <= tol * (1.0 + fabs(x));
}

/* ------------------------------------------------ IR kernels vs the C backend */

typedef struct kdata {
    long long n;
    double *in[HDG_KMAX_IN], *geom, *params;
    int *imap[HDG_KMAX_IMAP];
    double t;
} kdata;

static hdg_cuptr up(const void *h, size_t bytes)
{
    hdg_cuptr p = 0;
    hdg_error err;
    if (hdg_cuda_alloc(dev, bytes, &p, &err) || hdg_cuda_upload(dev, p, h, bytes, &err))
        CHECK(0, "upload: %s", err.msg);
    return p;
}

static void compare(const hdg_compiled *cc, const hdg_cuda_compiled *gc, const char *name, const kdata *d, double tol)
{
    int k = hdg_cuda_compiled_find(gc, name);
    const hdg_kernel_info *info = NULL;
    hdg_kernel_fn fn = hdg_compiled_find(cc, name, &info);
    CHECK(k >= 0 && fn, "kernel %s", name);
    if (k < 0 || !fn) return;
    long long n = d->n;
    hdg_kargs ha = { .nitems = n, .geom = d->geom, .params = d->params, .t = d->t };
    hdg_kargs da = ha;
    hdg_cuptr dbuf[32];
    int nb = 0;
    for (int s = 0; s < info->nin; s++)
        if (info->in[s].stride) {
            ha.in[s] = d->in[s];
            dbuf[nb] = up(d->in[s], sizeof(double) * n * info->in[s].stride);
            da.in[s] = (const double *)(uintptr_t)dbuf[nb++];
        }
    for (int s = 0; s < info->nimap; s++)
        if (info->imap[s].stride) {
            ha.imap[s] = d->imap[s];
            dbuf[nb] = up(d->imap[s], sizeof(int) * n * info->imap[s].stride);
            da.imap[s] = (const int *)(uintptr_t)dbuf[nb++];
        }
    if (info->ngeom) {
        dbuf[nb] = up(d->geom, sizeof(double) * n * info->ngeom);
        da.geom = (const double *)(uintptr_t)dbuf[nb++];
    }
    if (info->nparams) {
        dbuf[nb] = up(d->params, sizeof(double) * info->nparams);
        da.params = (const double *)(uintptr_t)dbuf[nb++];
    }
    double *hout[HDG_KMAX_OUT] = { 0 };
    hdg_cuptr dout[HDG_KMAX_OUT] = { 0 };
    hdg_error err;
    for (int s = 0; s < info->nout; s++) {
        size_t bytes = sizeof(double) * n * info->out[s].stride;
        hout[s] = hdg_xcalloc(bytes + 8, 1);
        ha.out[s] = hout[s];
        dout[s] = up(hout[s], bytes);
        da.out[s] = (double *)(uintptr_t)dout[s];
    }
    hdg_launch(fn, n, &ha);
    hdg_status st = hdg_launch_cuda(gc, k, n, &da, &err);
    if (!st) st = hdg_cuda_sync(dev, &err);
    CHECK(st == HDG_OK, "%s on the GPU: %s", name, err.msg);
    int bad = 0;
    for (int s = 0; s < info->nout && !st; s++) {
        size_t cnt = (size_t)n * info->out[s].stride;
        double *g = hdg_xmalloc(sizeof(double) * cnt + 8);
        if (hdg_cuda_download(dev, g, dout[s], sizeof(double) * cnt, &err)) CHECK(0, "download: %s", err.msg);
        for (size_t i = 0; i < cnt && bad < 5; i++)
            if (!same(hout[s][i], g[i], tol)) {
                bad++;
                CHECK(0, "%s out[%d][%zu]: C %.17g, CUDA %.17g", name, s, i, hout[s][i], g[i]);
            }
        free(g);
    }
    printf("%s: %lld items agree (registers %d, stack %d B)\n", name, n, gc->stats[k].registers, gc->stats[k].stack_bytes);
    for (int s = 0; s < info->nout; s++) {
        free(hout[s]);
        hdg_cuda_free(dev, dout[s]);
    }
    for (int i = 0; i < nb; i++) hdg_cuda_free(dev, dbuf[i]);
}

static void test_kernels(void)
{
    enum { N = 3000 };
    hdg_ir_module *mc = tk_module("tkg"), *mg = tk_module("tkg");
    hdg_compiled cc;
    hdg_cuda_compiled gc;
    hdg_error err;
    hdg_status st = hdg_compile_c(mc, NULL, &cc, &err);
    CHECK(st == HDG_OK, "C backend: %s", err.msg);
    hdg_status st2 = hdg_compile_cuda(mg, NULL, dev, &gc, &err);
    CHECK(st2 == HDG_OK, "CUDA backend: %s", err.msg);
    if (st || st2) goto done;
    kdata d = { .n = N, .t = 0.75 };
    double params[1] = { 2.5 };
    d.params = params;
    d.geom = hdg_xmalloc(sizeof(double) * N);
    for (int e = 0; e < N; e++) d.geom[e] = 0.5 + fabs(urand());
    compare(&cc, &gc, "mass", &d, 1e-14);
    free(d.geom);
    d.geom = NULL;

    /* schur: A nonsingular (diagonal shifted, a tiny pivot forces swaps), P SPD */
    int sizes[8] = { TK_NA * TK_NA, TK_NA * TK_NB, TK_NB * TK_NA, TK_NB * TK_NB, TK_NP * TK_NP, TK_NP, TK_NA, TK_NB };
    for (int s = 0; s < 8; s++) {
        d.in[s] = hdg_xmalloc(sizeof(double) * N * sizes[s]);
        for (long long i = 0; i < (long long)N * sizes[s]; i++) d.in[s][i] = urand();
    }
    for (int e = 0; e < N; e++) {
        double *A = d.in[0] + e * sizes[0], *P = d.in[4] + e * sizes[4];
        for (int i = 0; i < TK_NA; i++) A[i * TK_NA + i] += 2.0;
        A[0] = 1e-3;
        double L[TK_NP * TK_NP];
        memcpy(L, P, sizeof L);
        for (int i = 0; i < TK_NP; i++)
            for (int j = 0; j < TK_NP; j++) {
                double t = i == j ? TK_NP : 0;
                for (int l = 0; l < TK_NP; l++) t += L[i * TK_NP + l] * L[j * TK_NP + l];
                P[i * TK_NP + j] = t;
            }
    }
    compare(&cc, &gc, "schur", &d, 1e-11);
    for (int s = 0; s < 8; s++) free(d.in[s]), d.in[s] = NULL;

    /* jump: face f of element f, exterior element f+1 (boundary every 7th face) */
    d.in[0] = hdg_xmalloc(sizeof(double) * N * 3);
    for (int i = 0; i < N * 3; i++) d.in[0][i] = urand();
    d.imap[0] = hdg_xmalloc(sizeof(int) * N * 4);
    for (int f = 0; f < N; f++) {
        int *r = d.imap[0] + 4 * f;
        r[0] = f, r[1] = f % 3, r[2] = f % 7 == 0 ? -1 : (f + 1) % N, r[3] = f % 7 == 0 ? -1 : (f + 2) % 3;
    }
    compare(&cc, &gc, "jump", &d, 0);
    free(d.in[0]);
    free(d.imap[0]);
    d.in[0] = NULL;
    d.imap[0] = NULL;

    d.in[0] = hdg_xmalloc(sizeof(double) * N * 2);
    for (int i = 0; i < N * 2; i++) d.in[0][i] = 2 * urand();
    compare(&cc, &gc, "misc", &d, 1e-14);   /* libm vs CUDA math: within an ulp or two */
    free(d.in[0]);
done:
    if (!st) hdg_compiled_free(&cc);
    if (!st2) hdg_cuda_compiled_free(&gc);
    hdg_ir_module_free(mc);
    hdg_ir_module_free(mg);
}

/* ------------------------------------------------------------ linear algebra */

/* Off-diagonal entries of a symmetric block matrix: block (g, l) = block (l, g)^T. */
static double entry(int l, int g, int i, int j)
{
    if (l > g) return entry(g, l, j, i);
    unsigned long long h = (unsigned long long)l * 1000003ULL ^ (unsigned long long)g * 9176ULL ^ (unsigned)(i * 31 + j);
    h *= 0x9E3779B97F4A7C15ULL;
    double v = (double)(h >> 11) / 9007199254740992.0 - 0.5;
    return 0.1 * v;
}

static hdg_status make_matrix(int nf, int m, hdg_blockmat *B, hdg_error *err)
{
    int *nbr = hdg_xmalloc(sizeof(int) * (size_t)nf * 5);
    for (int l = 0; l < nf; l++) {
        int off[5] = { 0, -1, 1, -2, 2 };
        for (int a = 0; a < 5; a++) {
            int g = l + off[a];
            nbr[l * 5 + a] = g >= 0 && g < nf ? g : -1;
        }
    }
    hdg_status st = hdg_blockmat_init(B, nf, m, 5, nbr, err);
    free(nbr);
    if (st) return st;
    for (int l = 0; l < nf; l++)
        for (int a = 0; a < 5; a++) {
            int g = B->nbr[l * 5 + a];
            if (g < 0) continue;
            double *blk = hdg_blockmat_block(B, l, a);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++)
                    blk[i * m + j] = l == g ? (i == j ? 4.0 : 0.02 * ((i + j) % 3 - 1)) : entry(l, g, i, j);
        }
    return HDG_OK;
}

static void test_linalg(void)
{
    enum { NF = 5000, M = 4 };
    hdg_error err;
    hdg_blockmat B;
    CHECK(make_matrix(NF, M, &B, &err) == HDG_OK, "matrix: %s", err.msg);
    hdg_cuda_linalg L;
    hdg_status st = hdg_cuda_linalg_open(dev, M, 5, 1, &L, &err);
    CHECK(st == HDG_OK, "runtime kernels: %s", err.msg);
    if (st) { hdg_blockmat_free(&B); return; }
    long long n = (long long)NF * M;
    double *x = hdg_xmalloc(sizeof(double) * n), *y = hdg_xmalloc(sizeof(double) * n), *yg = hdg_xmalloc(sizeof(double) * n);
    for (long long i = 0; i < n; i++) x[i] = urand();
    hdg_blockmat_spmv(&B, x, y);
    hdg_cuda_blockmat dB;
    hdg_cuptr dx = 0, dy = 0;
    st = hdg_cuda_blockmat_upload(&L, &B, &dB, &err);
    if (!st) st = hdg_cuda_vec_upload(&L, x, n, &dx, &err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * n, &dy, &err);
    if (!st) st = hdg_cuda_blockmat_spmv(&dB, dx, dy, &err);
    if (!st) st = hdg_cuda_download(dev, yg, dy, sizeof(double) * n, &err);
    CHECK(st == HDG_OK, "device SpMV: %s", err.msg);
    double worst = 0;
    for (long long i = 0; i < n && !st; i++) worst = fmax(worst, fabs(y[i] - yg[i]) / (1 + fabs(y[i])));
    CHECK(worst < 1e-14, "SpMV host vs device: %.3g", worst);
    /* vector ops through the table */
    const hdg_vecops *v = &L.ops;
    double dd = v->dot(v->ctx, n, (const double *)(uintptr_t)dx, (const double *)(uintptr_t)dx), hd = 0;
    for (long long i = 0; i < n; i++) hd += x[i] * x[i];
    CHECK(fabs(dd - hd) <= 1e-12 * hd, "dot %.17g vs %.17g", dd, hd);
    CHECK(v->dot(v->ctx, n, (const double *)(uintptr_t)dx, (const double *)(uintptr_t)dx) == dd, "dot deterministic");

    /* PCG: host vs device, Jacobi and face-block Jacobi */
    for (int kind = 0; kind < 2 && !st; kind++) {
        hdg_linop A = hdg_blockmat_op(&B), Mh;
        hdg_cuda_precond P;
        st = kind ? hdg_precond_block_init(&Mh, &B, &err) : hdg_precond_jacobi_init(&Mh, &B, &err);
        if (!st) st = kind ? hdg_cuda_precond_block(&dB, &P, &err) : hdg_cuda_precond_jacobi(&dB, &P, &err);
        CHECK(st == HDG_OK, "preconditioner: %s", err.msg);
        if (st) break;
        hdg_linop dA = hdg_cuda_blockmat_op(&dB), dM = hdg_cuda_precond_op(&P);
        double *xh = hdg_xcalloc((size_t)n, sizeof(double)), *xd = hdg_xcalloc((size_t)n, sizeof(double));
        hdg_solve_opts o = hdg_solve_opts_default();
        o.rtol = 1e-12;
        hdg_solve_info ih, id;
        hdg_status s1 = hdg_pcg(&A, &Mh, y, xh, &o, NULL, &ih, &err);
        CHECK(s1 == HDG_OK, "host PCG: %s", err.msg);
        hdg_status s2 = hdg_cuda_pcg(&L, &dA, &dM, y, xd, &o, &id, &err);
        CHECK(s2 == HDG_OK, "device PCG: %s", err.msg);
        double ex = 0, ed = 0;
        for (long long i = 0; i < n; i++) ex = fmax(ex, fabs(xh[i] - x[i])), ed = fmax(ed, fabs(xd[i] - xh[i]));
        CHECK(ex < 1e-9 && ed < 1e-10, "%s PCG: host error %.3g, host vs device %.3g", kind ? "block" : "Jacobi", ex, ed);
        CHECK(abs(ih.iterations - id.iterations) <= 1, "iterations host %d device %d", ih.iterations, id.iterations);
        printf("PCG (%s): %d iterations on the host, %d on the device, %.3f ms vs %.3f ms\n", kind ? "face-block Jacobi" : "Jacobi",
               ih.iterations, id.iterations, ih.seconds * 1e3, id.seconds * 1e3);
        free(xh);
        free(xd);
        hdg_precond_free(&Mh);
        hdg_cuda_precond_free(&P);
    }
    hdg_cuda_free(dev, dx);
    hdg_cuda_free(dev, dy);
    hdg_cuda_blockmat_free(&dB);
    hdg_cuda_linalg_free(&L);
    hdg_blockmat_free(&B);
    free(x);
    free(y);
    free(yg);
}

/* SpMV bandwidth vs the copy kernel in the same run (docs/performance.md). */
static void bench_spmv(void)
{
    const char *env = getenv("HDG_BENCH_NF");
    int nf = env ? atoi(env) : 200000, m = 4, reps = 20;
    hdg_error err;
    hdg_blockmat B;
    if (make_matrix(nf, m, &B, &err)) { CHECK(0, "%s", err.msg); return; }
    hdg_cuda_linalg L;
    if (hdg_cuda_linalg_open(dev, m, 5, 1, &L, &err)) { CHECK(0, "%s", err.msg); hdg_blockmat_free(&B); return; }
    long long n = (long long)nf * m;
    double bytes = hdg_blockmat_spmv_bytes(&B);
    long long ncopy = (long long)(bytes / 16);   /* a copy of ncopy doubles moves the same bytes */
    hdg_cuda_blockmat dB;
    hdg_cuptr dx = 0, dy = 0, c0 = 0, c1 = 0;
    hdg_status st = hdg_cuda_blockmat_upload(&L, &B, &dB, &err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * n, &dx, &err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * n, &dy, &err);
    if (!st) st = hdg_cuda_memset0(dev, dx, sizeof(double) * n, &err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * ncopy, &c0, &err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * ncopy, &c1, &err);
    if (!st) st = hdg_cuda_memset0(dev, c0, sizeof(double) * ncopy, &err);
    double ts = 0, tc = 0;
    hdg_cuda_timer t;
    if (!st) st = hdg_cuda_blockmat_spmv(&dB, dx, dy, &err);   /* warm up */
    if (!st) st = hdg_cuda_vec_copy(&L, ncopy, c0, c1, &err);
    if (!st) st = hdg_cuda_timer_start(dev, &t, &err);
    for (int r = 0; r < reps && !st; r++) st = hdg_cuda_blockmat_spmv(&dB, dx, dy, &err);
    if (!st) st = hdg_cuda_timer_stop(dev, &t, &ts, &err);
    if (!st) st = hdg_cuda_timer_start(dev, &t, &err);
    for (int r = 0; r < reps && !st; r++) st = hdg_cuda_vec_copy(&L, ncopy, c0, c1, &err);
    if (!st) st = hdg_cuda_timer_stop(dev, &t, &tc, &err);
    CHECK(st == HDG_OK, "bench: %s", err.msg);
    if (!st) {
        double bws = bytes * reps / ts / 1e9, bwc = 16.0 * ncopy * reps / tc / 1e9;
        printf("SpMV nf=%d m=%d: %.3f ms, %.1f GB/s, %.1f GFLOP/s; copy %.1f GB/s; SpMV/copy = %.0f%%\n", nf, m,
               ts / reps * 1e3, bws, hdg_blockmat_spmv_flops(&B) * reps / ts / 1e9, bwc, 100 * bws / bwc);
        CHECK(bws > 0 && bwc > 0, "bandwidths");
    }
    hdg_cuda_free(dev, dx);
    hdg_cuda_free(dev, dy);
    hdg_cuda_free(dev, c0);
    hdg_cuda_free(dev, c1);
    hdg_cuda_blockmat_free(&dB);
    hdg_cuda_linalg_free(&L);
    hdg_blockmat_free(&B);
}

int main(void)
{
    int rc = test_open_device(&dev);
    if (rc >= 0) return rc;
    test_kernels();
    test_linalg();
    bench_spmv();
    hdg_cuda_device_close(dev);
    return test_summary("cuda_gpu");
}
