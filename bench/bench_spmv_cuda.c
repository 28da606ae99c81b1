/* bench_spmv_cuda.c — dense-block SpMV on the GPU against the copy kernel
 * and cuSPARSE CSR SpMV, for `hdgc bench spmv --backend cuda` (see
 * bench_spmv_cuda.h). */
#include "bench/bench_spmv_cuda.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cusparse.h"
#include "compiler/pipeline_cuda.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_linalg.h"

#define MAX_CALLS 1000000         /* calls per sample, at most */
#define CHUNK_BYTES (32u << 20)   /* the copy check downloads this much at a time */

struct hdg_spmv_cuda {
    hdg_cuda_device *dev;
    int cusparse;                 /* 1: measured */
    char note[2048];              /* why not */
    char version[32], library[256];
};

hdg_status hdg_spmv_cuda_open(hdg_spmv_cuda **out, hdg_error *err)
{
    *out = NULL;
    hdg_spmv_cuda *S = hdg_xcalloc(1, sizeof *S);
    hdg_status st = hdg_cuda_device_open(0, &S->dev, err);
    if (st) {
        free(S);
        return st;
    }
    hdg_error lerr;
    hdg_error_clear(&lerr);
    if (hdg_cuda_device_props(S->dev)->emulated)
        snprintf(S->note, sizeof S->note, "not available on the emulator");
    else if (hdg_cusparse_load(S->version, sizeof S->version, S->library, sizeof S->library, &lerr))
        snprintf(S->note, sizeof S->note, "%s", strncmp(lerr.msg, "cuSPARSE ", 9) ? lerr.msg : lerr.msg + 9);
    else
        S->cusparse = 1;
    *out = S;
    return HDG_OK;
}

void hdg_spmv_cuda_close(hdg_spmv_cuda *S)
{
    if (!S) return;
    hdg_cuda_device_close(S->dev);
    free(S);
}

int hdg_spmv_cuda_has_cusparse(const hdg_spmv_cuda *S) { return S->cusparse; }

/* ---- the three kernels ---- */

enum { K_BLOCK, K_COPY, K_CSR };

typedef struct job {
    int kind;
    hdg_cuda_linalg *L;
    const hdg_cuda_blockmat *dB;
    hdg_cusparse_spmv *sp;
    hdg_cuptr x, y;               /* K_BLOCK: x, y; K_COPY: source, destination */
    long long n;                  /* K_COPY: doubles */
} job;

static hdg_status job_run(const job *j, hdg_error *err)
{
    switch (j->kind) {
    case K_BLOCK: return hdg_cuda_blockmat_spmv(j->dB, j->x, j->y, err);
    case K_COPY: return hdg_cuda_vec_copy(j->L, j->n, j->x, j->y, err);
    default: return hdg_cusparse_spmv_run(j->sp, err);
    }
}

/* Device seconds of `calls` back-to-back calls (events around the batch). */
static hdg_status time_batch(hdg_cuda_device *dev, const job *j, int calls, double *seconds, hdg_error *err)
{
    hdg_cuda_timer t;
    hdg_status st = hdg_cuda_timer_start(dev, &t, err);
    if (st) return st;
    for (int i = 0; i < calls && !st; i++) st = job_run(j, err);
    double s = 0;
    hdg_error terr;
    hdg_status tst = hdg_cuda_timer_stop(dev, &t, &s, &terr);
    if (st) return st;
    if (tst) return hdg_fail(err, tst, "%s", terr.msg);
    *seconds = s;
    return HDG_OK;
}

/* Calls per sample so that a sample lasts >= HDG_SPMV_CUDA_MIN_SAMPLE_S:
 * grows the batch until one lasts that long (the first batches warm up). */
static hdg_status calibrate(hdg_cuda_device *dev, const job *j, int *calls, hdg_error *err)
{
    int c = 1;
    for (int tries = 0; tries < 40; tries++) {
        double t;
        hdg_status st = time_batch(dev, j, c, &t, err);
        if (st) return st;
        if (t >= HDG_SPMV_CUDA_MIN_SAMPLE_S || c >= MAX_CALLS) break;
        double want = t > 0 ? ceil(c * 1.25 * HDG_SPMV_CUDA_MIN_SAMPLE_S / t) : 16.0 * c;
        c = want > MAX_CALLS ? MAX_CALLS : want < 2.0 * c ? 2 * c : (int)want;
    }
    *calls = c;
    return HDG_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void best_median(double *t, int n, double *best, double *median)
{
    qsort(t, n, sizeof *t, cmp_double);
    *best = t[0];
    *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Times the jobs with their samples interleaved; best/median per call. */
static hdg_status time_jobs(hdg_cuda_device *dev, const job *jobs, int njobs, int reps, int *calls, double *best,
                            double *median, hdg_error *err)
{
    hdg_status st = HDG_OK;
    for (int i = 0; i < njobs && !st; i++) st = calibrate(dev, &jobs[i], &calls[i], err);
    double *t = hdg_xmalloc(sizeof(double) * (size_t)njobs * reps);
    for (int r = 0; r < reps && !st; r++)
        for (int i = 0; i < njobs && !st; i++) {
            st = time_batch(dev, &jobs[i], calls[i], &t[(size_t)i * reps + r], err);
            t[(size_t)i * reps + r] /= calls[i];
        }
    for (int i = 0; i < njobs && !st; i++) best_median(t + (size_t)i * reps, reps, &best[i], &median[i]);
    free(t);
    return st;
}

/* ---- checks ---- */

/* max |a - b| / max |b| over n entries (NaN counts as a difference) */
static double relative_difference(const double *a, const double *b, size_t n)
{
    double d = 0.0, s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(a[i] - b[i]);
        d = e > d || e != e ? e : d;
        s = fmax(s, fabs(b[i]));
    }
    if (d != d) return NAN;
    return s > 0 ? d / s : d;
}

static hdg_status device_vs_host(hdg_cuda_device *dev, hdg_cuptr y, const double *y_host, size_t n, double *rel,
                                 hdg_error *err)
{
    double *h = hdg_xmalloc(sizeof(double) * (n ? n : 1));
    hdg_status st = hdg_cuda_download(dev, h, y, sizeof(double) * n, err);
    if (!st) *rel = relative_difference(h, y_host, n);
    free(h);
    return st;
}

/* Whether the device arrays a and b of `bytes` hold the same bytes. */
static hdg_status same_bytes(hdg_cuda_device *dev, hdg_cuptr a, hdg_cuptr b, size_t bytes, int *same, hdg_error *err)
{
    size_t chunk = bytes < CHUNK_BYTES ? bytes : CHUNK_BYTES;
    char *ha = hdg_xmalloc(chunk ? chunk : 1), *hb = hdg_xmalloc(chunk ? chunk : 1);
    hdg_status st = HDG_OK;
    *same = 1;
    for (size_t off = 0; off < bytes && !st && *same; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        st = hdg_cuda_download(dev, ha, a + off, len, err);
        if (!st) st = hdg_cuda_download(dev, hb, b + off, len, err);
        if (!st) *same = !memcmp(ha, hb, len);
    }
    free(ha);
    free(hb);
    return st;
}

int hdg_spmv_cuda_agrees(const hdg_spmv_cuda_result *r)
{
    return r->block_reldiff <= HDG_SPMV_CUDA_TOL && r->copy_exact &&
           (!r->has_csr || r->csr_reldiff <= HDG_SPMV_CUDA_TOL);
}

/* ---- one order ---- */

typedef struct dev_data {
    hdg_cuda_linalg L;
    hdg_cuda_blockmat dB;
    hdg_cusparse_spmv sp;
    hdg_cuptr x, yb, yc, copy;
} dev_data;

static void dev_data_free(hdg_cuda_device *dev, dev_data *d)
{
    hdg_cusparse_spmv_free(&d->sp);
    hdg_cuda_free(dev, d->x);
    hdg_cuda_free(dev, d->yb);
    hdg_cuda_free(dev, d->yc);
    hdg_cuda_free(dev, d->copy);
    hdg_cuda_blockmat_free(&d->dB);
    hdg_cuda_linalg_free(&d->L);
}

static hdg_status upload_all(hdg_spmv_cuda *S, const hdg_blockmat *B, const hdg_csr *C, const double *x, dev_data *d,
                             hdg_error *err)
{
    size_t n = (size_t)B->nf * B->m, abytes = sizeof(double) * (size_t)B->nf * B->na * B->m * B->m;
    hdg_status st = hdg_cuda_linalg_open(S->dev, B->m, B->na, 1, &d->L, err);
    if (!st) st = hdg_cuda_blockmat_upload(&d->L, B, &d->dB, err);
    if (!st) st = hdg_cuda_vec_upload(&d->L, x, (long long)n, &d->x, err);
    if (!st) st = hdg_cuda_alloc(S->dev, sizeof(double) * n, &d->yb, err);
    if (!st) st = hdg_cuda_alloc(S->dev, abytes, &d->copy, err);
    if (!st && S->cusparse) st = hdg_cuda_alloc(S->dev, sizeof(double) * n, &d->yc, err);
    if (!st && S->cusparse) st = hdg_cusparse_spmv_init(&d->sp, S->dev, C, d->x, d->yc, err);
    return st;
}

static hdg_status measure(hdg_spmv_cuda *S, const hdg_blockmat *B, const hdg_csr *C, const double *y_host, int reps,
                          dev_data *d, hdg_spmv_cuda_result *r, hdg_error *err)
{
    size_t n = (size_t)B->nf * B->m;
    long long avals = (long long)B->nf * B->na * B->m * B->m;
    job jobs[3] = {
        { K_BLOCK, &d->L, &d->dB, NULL, d->x, d->yb, 0 },
        { K_COPY, &d->L, NULL, NULL, d->dB.A, d->copy, avals },
        { K_CSR, &d->L, NULL, &d->sp, 0, 0, 0 },
    };
    int calls[3] = {0, 0, 0};
    double best[3] = {0, 0, 0}, median[3] = {0, 0, 0};
    hdg_status st = time_jobs(S->dev, jobs, S->cusparse ? 3 : 2, reps, calls, best, median, err);
    if (!st) st = hdg_cuda_sync(S->dev, err);
    if (!st) st = device_vs_host(S->dev, d->yb, y_host, n, &r->block_reldiff, err);
    if (!st && S->cusparse) st = device_vs_host(S->dev, d->yc, y_host, n, &r->csr_reldiff, err);
    if (!st) st = same_bytes(S->dev, d->dB.A, d->copy, sizeof(double) * (size_t)avals, &r->copy_exact, err);
    r->block_best = best[K_BLOCK], r->block_median = median[K_BLOCK], r->block_calls = calls[K_BLOCK];
    r->copy_best = best[K_COPY], r->copy_median = median[K_COPY], r->copy_calls = calls[K_COPY];
    r->csr_best = best[K_CSR], r->csr_median = median[K_CSR], r->csr_calls = calls[K_CSR];
    r->copy_bytes = 2.0 * sizeof(double) * (double)avals;
    return st;
}

hdg_status hdg_spmv_cuda_measure(hdg_spmv_cuda *S, const hdg_blockmat *B, const hdg_csr *C, const double *x,
                                 const double *y_host, int reps, hdg_spmv_cuda_result *r, hdg_error *err)
{
    memset(r, 0, sizeof *r);
    r->k = B->m - 1;
    r->m = B->m;
    r->nf = B->nf;
    r->nnz = C->nnz;
    r->flops = hdg_blockmat_spmv_flops(B);
    r->block_bytes = hdg_blockmat_spmv_bytes(B);
    r->csr_bytes = hdg_csr_spmv_bytes(C);
    r->has_csr = S->cusparse;
    r->block_reldiff = r->csr_reldiff = NAN;
    dev_data d;
    memset(&d, 0, sizeof d);
    hdg_status st = upload_all(S, B, C, x, &d, err);
    if (!st) st = measure(S, B, C, y_host, reps < 1 ? 1 : reps, &d, r, err);
    dev_data_free(S->dev, &d);
    return st;
}

/* ---- text ---- */

static double gbs(double bytes, double t) { return t > 0 ? bytes / t / 1e9 : 0.0; }

static const char *verdict(double rel) { return rel <= HDG_SPMV_CUDA_TOL ? "agree" : "DISAGREE"; }

void hdg_spmv_cuda_describe(const hdg_spmv_cuda *S, hdg_str *out)
{
    const hdg_cuda_props *p = hdg_cuda_device_props(S->dev);
    hdg_str_printf(out, "device: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n", p->name,
                   p->cc_major, p->cc_minor, p->sm_count, p->total_mem / 1073741824.0);
    if (p->emulated)
        hdg_str_puts(out, "note: the device is the CUDA emulator: kernels run on the host, so the timings "
                          "say nothing about a GPU\n");
    if (S->cusparse)
        hdg_str_printf(out, "cuSPARSE: %s (%s), CSR SpMV, 32-bit indices, CUSPARSE_SPMV_ALG_DEFAULT\n", S->version,
                       S->library);
    else
        hdg_str_printf(out, "cuSPARSE: %s (its column is skipped)\n", S->note);
}

static void row(hdg_str *out, const char *name, double best, double median, double bytes, double flops, double copy_gbs)
{
    hdg_str_printf(out, "%-14s %10.4f %10.4f %9.2f %9.2f %7.1f%%\n", name, best * 1e3, median * 1e3, gbs(bytes, best),
                   flops / best / 1e9, 100 * gbs(bytes, best) / copy_gbs);
}

void hdg_spmv_cuda_format_single(const hdg_spmv_cuda_result *r, hdg_str *out)
{
    double copy = gbs(r->copy_bytes, r->copy_best);
    hdg_str_printf(out, "matrix: %d face rows, m = %d, %lld nonzeros; dense block %.1f MB, CSR %.1f MB per SpMV; "
                        "copy %.1f MB (read + write)\n",
                   r->nf, r->m, r->nnz, r->block_bytes / 1e6, r->csr_bytes / 1e6, r->copy_bytes / 1e6);
    hdg_str_printf(out, "calls per sample: block %d, copy %d", r->block_calls, r->copy_calls);
    if (r->has_csr) hdg_str_printf(out, ", cuSPARSE %d", r->csr_calls);
    hdg_str_printf(out, "\n\n%-14s %10s %10s %9s %9s %8s\n", "kernel", "best ms", "median ms", "GB/s", "GFLOP/s",
                   "%copy");
    row(out, "dense block", r->block_best, r->block_median, r->block_bytes, r->flops, copy);
    if (r->has_csr) row(out, "cuSPARSE CSR", r->csr_best, r->csr_median, r->csr_bytes, r->flops, copy);
    else hdg_str_printf(out, "%-14s %10s\n", "cuSPARSE CSR", "skipped");
    hdg_str_printf(out, "%-14s %10.4f %10.4f %9.2f\n\n", "copy", r->copy_best * 1e3, r->copy_median * 1e3, copy);
    hdg_str_printf(out, "block/copy bandwidth: %.3f (%.1f%% of the copy kernel)\n", gbs(r->block_bytes, r->block_best) / copy,
                   100 * gbs(r->block_bytes, r->block_best) / copy);
    if (r->has_csr)
        hdg_str_printf(out, "block vs cuSPARSE speedup: %.3fx (best), %.3fx (median)\n", r->csr_best / r->block_best,
                       r->csr_median / r->block_median);
    else
        hdg_str_printf(out, "block vs cuSPARSE speedup: skipped (no cuSPARSE)\n");
    hdg_str_printf(out, "relative difference max|y_block - y_host|/max|y_host|: %.3e (%s, tolerance %.0e)\n",
                   r->block_reldiff, verdict(r->block_reldiff), HDG_SPMV_CUDA_TOL);
    if (r->has_csr)
        hdg_str_printf(out, "relative difference max|y_cusparse - y_host|/max|y_host|: %.3e (%s, tolerance %.0e)\n",
                       r->csr_reldiff, verdict(r->csr_reldiff), HDG_SPMV_CUDA_TOL);
    hdg_str_printf(out, "copy: %s\n", r->copy_exact ? "exact (destination equals source)" : "WRONG (destination differs)");
}

void hdg_spmv_cuda_format_sweep(const hdg_spmv_cuda_result *r, int n, hdg_str *out)
{
    hdg_str_printf(out, "%2s %2s %9s %9s %9s %9s %9s %9s %9s %8s %8s %10s %10s\n", "k", "m", "block MB", "block ms",
                   "cusp ms", "copy ms", "blk GB/s", "cusp GB/s", "copy GB/s", "blk/copy", "blk/cusp", "blk diff",
                   "cusp diff");
    for (int i = 0; i < n; i++, r++) {
        double copy = gbs(r->copy_bytes, r->copy_best), block = gbs(r->block_bytes, r->block_best);
        char cusp_ms[32] = "-", cusp_gbs[32] = "-", speedup[32] = "-", cusp_diff[32] = "-";
        if (r->has_csr) {
            snprintf(cusp_ms, sizeof cusp_ms, "%.4f", r->csr_best * 1e3);
            snprintf(cusp_gbs, sizeof cusp_gbs, "%.2f", gbs(r->csr_bytes, r->csr_best));
            snprintf(speedup, sizeof speedup, "%.3fx", r->csr_best / r->block_best);
            snprintf(cusp_diff, sizeof cusp_diff, "%.2e", r->csr_reldiff);
        }
        hdg_str_printf(out, "%2d %2d %9.1f %9.4f %9s %9.4f %9.2f %9s %9.2f %8.3f %8s %10.2e %10s%s\n", r->k, r->m,
                       r->block_bytes / 1e6, r->block_best * 1e3, cusp_ms, r->copy_best * 1e3, block, cusp_gbs, copy,
                       block / copy, speedup, r->block_reldiff, cusp_diff, hdg_spmv_cuda_agrees(r) ? "" : " DISAGREE");
    }
    hdg_str_printf(out, "times and GB/s: best of the samples; blk/copy: bandwidth ratio; blk/cusp: cuSPARSE time "
                        "over block time\n");
}

/* ---- JSON ---- */

void hdg_spmv_cuda_report(const hdg_spmv_cuda *S, hdg_report *j)
{
    const hdg_cuda_props *p = hdg_cuda_device_props(S->dev);
    hdg_report_string(j, "backend", "cuda");
    hdg_report_string(j, "device.name", p->name);
    hdg_report_int(j, "device.cc", p->cc_major * 10 + p->cc_minor);
    hdg_report_int(j, "device.sm_count", p->sm_count);
    hdg_report_bool(j, "device.emulated", p->emulated);
    hdg_report_number(j, "min_sample_s", HDG_SPMV_CUDA_MIN_SAMPLE_S);
    hdg_report_bool(j, "cusparse.available", S->cusparse);
    if (S->cusparse) {
        hdg_report_string(j, "cusparse.version", S->version);
        hdg_report_string(j, "cusparse.library", S->library);
        hdg_report_string(j, "cusparse.algorithm", "CUSPARSE_SPMV_ALG_DEFAULT");
    } else {
        hdg_report_string(j, "cusparse.note", S->note);
    }
}

void hdg_spmv_cuda_report_result(hdg_report *j, const hdg_spmv_cuda_result *r)
{
    double copy = gbs(r->copy_bytes, r->copy_best), block = gbs(r->block_bytes, r->block_best);
    hdg_report_int(j, "order", r->k);
    hdg_report_int(j, "m", r->m);
    hdg_report_int(j, "faces", r->nf);
    hdg_report_number(j, "flops", r->flops);
    hdg_report_number(j, "block.bytes", r->block_bytes);
    hdg_report_number(j, "block.best_s", r->block_best);
    hdg_report_number(j, "block.median_s", r->block_median);
    hdg_report_number(j, "block.gbs", block);
    hdg_report_number(j, "block.gflops", r->flops / r->block_best / 1e9);
    hdg_report_int(j, "block.calls_per_sample", r->block_calls);
    hdg_report_number(j, "block.reldiff", r->block_reldiff);
    hdg_report_number(j, "copy.bytes", r->copy_bytes);
    hdg_report_number(j, "copy.best_s", r->copy_best);
    hdg_report_number(j, "copy.median_s", r->copy_median);
    hdg_report_number(j, "copy.gbs", copy);
    hdg_report_int(j, "copy.calls_per_sample", r->copy_calls);
    hdg_report_bool(j, "copy.exact", r->copy_exact);
    hdg_report_int(j, "csr.nnz", r->nnz);
    hdg_report_number(j, "csr.bytes", r->csr_bytes);
    hdg_report_number(j, "ratio.block_copy", block / copy);
    if (r->has_csr) {
        hdg_report_number(j, "cusparse.best_s", r->csr_best);
        hdg_report_number(j, "cusparse.median_s", r->csr_median);
        hdg_report_number(j, "cusparse.gbs", gbs(r->csr_bytes, r->csr_best));
        hdg_report_number(j, "cusparse.gflops", r->flops / r->csr_best / 1e9);
        hdg_report_int(j, "cusparse.calls_per_sample", r->csr_calls);
        hdg_report_number(j, "cusparse.reldiff", r->csr_reldiff);
        hdg_report_number(j, "ratio.block_cusparse_speedup", r->csr_best / r->block_best);
        hdg_report_number(j, "ratio.block_cusparse_speedup_median", r->csr_median / r->block_median);
    }
    hdg_report_bool(j, "agree", hdg_spmv_cuda_agrees(r));
}
