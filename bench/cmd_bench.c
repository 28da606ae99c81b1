/* cmd_bench.c — `hdgc bench spmv`: the trace-matrix SpMV benchmark of issue 5.
 *
 * Builds a mesh, its face coupling lists and an HDG-structured trace matrix
 * (random symmetric, diagonally dominant element matrices K_e gathered by the
 * real per-face assembly, face orientations included), copies it to CSR, and
 * times dense-block SpMV against CSR SpMV next to a STREAM triad measured in
 * the same run. Prints bandwidths, ratios, and the agreement of the products.
 * With --backend cuda the same matrix goes to the GPU (bench_spmv_cuda.h):
 * dense block against the device copy kernel and cuSPARSE CSR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_spmv_cuda.h"
#include "cli/commands.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/mesh/mesh.h"
#include "runtime/parallel/parallel.h"
#include "runtime/output/report.h"
#include "runtime/parallel/stream.h"
#include "runtime/mesh/mesh_size.h"
#include "support/util.h"

#define AGREE_TOL 1e-14
#define MIN_BATCH_S 0.02 /* one timed sample runs SpMVs for at least this long */

typedef struct options {
    int order, sweep, kmin, kmax, reps, threads, cuda;
    size_t triad_mib;
    const char *mesh, *json;
} options;

/* One measured order. */
typedef struct result {
    int k, m, nf, threads;
    double block_bytes, csr_bytes, flops;
    double block_best, block_median, csr_best, csr_median; /* seconds per SpMV */
    double smooth_bytes, smooth_best, smooth_median;      /* a smoother step (single), seconds */
    double triad; /* GB/s, best of the passes interleaved with the SpMVs */
    double reldiff;
    long long nnz;
} result;

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc bench spmv [--order k | --sweep [--orders a..b]] [--mesh SPEC]\n"
               "                       [--reps R] [--threads T] [--triad-mib S] [--json F]\n"
               "                       [--backend c|cuda|auto]\n"
               "       hdgc bench pipeline FILE.hdg [--orders a..b] [--mesh SPEC] [--backends c,cuda] ...\n"
               "                       (stage times per backend: hdgc bench pipeline --help)\n"
               "       hdgc bench stages FILE.hdg [--orders a..b] [--mesh SPEC] ...\n"
               "                       (HDG element kernels vs FMA peak: hdgc bench stages --help)\n"
               "       hdgc bench kernels FILE.hdg [--orders a..b] [--mesh SPEC] [--threads n] ...\n"
               "                       (generated vs hand-written kernels: hdgc bench kernels --help)\n"
               "       hdgc bench partition [--mesh SPEC] [--parts 2,4,...] [--order k] ...\n"
               "                       (mpirun partitions and halo volumes: hdgc bench partition --help)\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Benchmarks the HDG trace-matrix SpMV: the dense block format of hdgc's solver against\n"
           "CSR, next to a STREAM triad measured in the same run.\n"
           "\n"
           "The matrix has the exact HDG structure of the mesh: m = k+1 dofs per face,\n"
           "one row of 5 blocks of m x m per face (3 on boundary faces), assembled face\n"
           "by face from random symmetric, diagonally dominant element matrices\n"
           "(deterministic: the same run gives the same matrix). The CSR matrix is a\n"
           "value-for-value copy. Both products are checked to agree within a relative\n"
           "%g (max |y_block - y_csr| / max |y_csr|); a larger difference exits 1.\n"
           "\n"
           "options:\n"
           "  --order k        polynomial degree on faces, 1..10 (default 2)\n"
           "  --mesh SPEC      square:N[,perturb=p] or a Gmsh .msh (default square:256)\n"
           "  --sweep          run k = 1..6 (or --orders a..b) and print one table\n"
           "  --orders a..b    the range of --sweep\n"
           "  --reps R         timed samples per format (default 10); each sample runs\n"
           "                   enough SpMVs to last >= %.0f ms; best and median reported;\n"
           "                   a triad pass follows each pair of samples\n"
           "  --threads T      thread count (default: HDG_THREADS or all CPUs)\n"
           "  --triad-mib S    size of each of the 3 triad arrays in MiB (default %zu;\n"
           "                   keep it far above the last-level cache)\n"
           "  --json F         also write the figures to the JSON file F\n"
           "  --backend B      c (the host, default; also 'host'), cuda (the GPU columns\n"
           "                   below) or auto (cuda when a GPU opens, else c, saying why):\n"
           "                   the names of hdgc run --backend\n"
           "  --help           this text\n"
           "\n"
           "Bytes per SpMV (docs/method.md, \"The trace matrix\"): dense block\n"
           "8 (nf na m^2 + 2 nf m) + 4 nf na,\n"
           "CSR 12 nnz + 20 n. \"smoother\" (smo): one middle Chebyshev step of the\n"
           "--precond mg smoother on the single-precision copies (SpMV, residual, face-\n"
           "block solve and updates in one pass), 4 (nf na m^2 + nf m^2) + 48 nf m + 4 nf na.\n"
           "GB/s = bytes / best time; %%triad = that over the triad's\n"
           "GB/s (the best of the passes interleaved with the samples, so that the load of\n"
           "a shared machine affects both alike). Keep the matrix far above the\n"
           "last-level cache for bandwidth figures: the dense block matrix of square:N\n"
           "is about 0.64 N^2 MB at k = 1, 1.3 N^2 MB at k = 2 and 6.3 N^2 MB at k = 6\n"
           "(square:512: 167 MB at k = 1). The thread count also follows HDG_THREADS.\n"
           "\n"
           "--backend cuda (GPU 0; the host builds the same matrix and computes the\n"
           "reference product; no triad):\n"
           "  dense block    the block SpMV of the device solver (coalesced layout)\n"
           "  cuSPARSE CSR   cusparseSpMV on the same matrix as CSR (32-bit indices,\n"
           "                 CUSPARSE_SPMV_ALG_DEFAULT); libcusparse is loaded at run\n"
           "                 time ($HDGC_LIBCUSPARSE overrides); when it is missing, or\n"
           "                 on the CUDA emulator, a note says so and the column is skipped\n"
           "  copy           the device copy kernel on an array of the matrix's size:\n"
           "                 the bandwidth reference, 2 x 8 nf na m^2 bytes per call\n"
           "  %%copy          GB/s over the copy kernel's GB/s (the goal: block >= 80%%)\n"
           "  blk/cusp       cuSPARSE time over block time (the published dense-block\n"
           "                 SpMV reports 2x)\n"
           "Device times come from CUDA events; each sample runs enough calls to last\n"
           ">= %.0f ms on the device; the samples of the three kernels are interleaved.\n"
           "The block and cuSPARSE products are checked against the host product\n"
           "(relative %g) and the copy bit for bit; a larger difference exits 1. With\n"
           "no usable GPU the driver's message is printed and the exit code is 1.\n"
           "HDGC_LIBCUDA=emulator runs the device code on the host (no timings worth\n"
           "reading).\n",
           AGREE_TOL, MIN_BATCH_S * 1e3, HDG_STREAM_DEFAULT_BYTES >> 20, HDG_SPMV_CUDA_MIN_SAMPLE_S * 1e3,
           HDG_SPMV_CUDA_TOL);
}

/* ---- a deterministic HDG-structured matrix ---- */

static unsigned long long splitmix(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(unsigned long long *s) /* in [-1, 1) */
{
    return (double)(splitmix(s) >> 11) * 0x1.0p-52 - 1.0;
}

/* ne element matrices of (3m) x (3m): symmetric, off-diagonal entries in
 * [-1, 1), diagonal 1 + 3m (strictly dominant). */
static double *random_element_matrices(int ne, int m)
{
    int n = 3 * m;
    double *K = hdg_xmalloc(sizeof(double) * (size_t)ne * n * n);
    unsigned long long s = 12345;
    for (int e = 0; e < ne; e++) {
        double *Ke = K + (size_t)e * n * n;
        for (int i = 0; i < n; i++) {
            Ke[i * n + i] = 1.0 + n + 0.5 * uniform(&s);
            for (int j = i + 1; j < n; j++) Ke[i * n + j] = Ke[j * n + i] = uniform(&s);
        }
    }
    return K;
}

static hdg_status build_matrix(const hdg_mesh *M, int m, hdg_blockmat *B, hdg_error *err)
{
    int *nbr = hdg_xmalloc(sizeof(int) * 5 * (size_t)(M->nf ? M->nf : 1));
    hdg_status st = hdg_blockmat_neighbours(M->nf, M->ne, M->ef, M->fe, M->flf, nbr, err);
    if (!st) st = hdg_blockmat_init(B, M->nf, m, 5, nbr, err);
    free(nbr);
    if (st) return st;
    double *flip = hdg_xmalloc(sizeof(double) * m);
    for (int i = 0; i < m; i++) flip[i] = i % 2 ? -1.0 : 1.0; /* orthonormal Legendre */
    double *K = random_element_matrices(M->ne, m);
    st = hdg_blockmat_assemble(B, NULL, M->ne, K, NULL, M->ef, M->eforient, M->fe, M->flf, flip, err);
    free(K);
    free(flip);
    if (st) hdg_blockmat_free(B);
    return st;
}

/* ---- timing ---- */

typedef struct kernel {
    const hdg_blockmat *B;
    const hdg_csr *C;
    const double *x;
    double *y;
    const double *Di;                 /* the smoother step: its block inverse, */
    const hdg_blockmat_lo *lo;        /* the single-precision copies and */
    double *r, *z;                    /* the residual and iterate it updates (y: the new d) */
} kernel;

static void run_block(const kernel *k) { hdg_blockmat_spmv(k->B, k->x, k->y); }
static void run_csr(const kernel *k) { hdg_csr_spmv(k->C, k->x, k->y); }
static void run_smooth(const kernel *k)
{
    hdg_blockmat_smooth_step(k->B, k->Di, k->lo, 0.5, 0.5, k->x, k->r, k->y, k->z);
}

/* Seconds per call of one batch of `batch` calls. */
static double time_batch(void (*fn)(const kernel *), const kernel *k, int batch)
{
    double t0 = hdg_wtime();
    for (int i = 0; i < batch; i++) fn(k);
    return (hdg_wtime() - t0) / batch;
}

/* Calls per sample so that one sample lasts about MIN_BATCH_S. */
static int batch_size(void (*fn)(const kernel *), const kernel *k)
{
    double t = time_batch(fn, k, 1);
    t = fmin(t, time_batch(fn, k, 1));
    if (t <= 0) return 1000;
    double b = ceil(MIN_BATCH_S / t);
    return b > 1000 ? 1000 : (int)b;
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

/* Times both formats, the smoother step and the triad with their samples
 * interleaved (block, CSR, smoother, triad, block, ...) so that load from
 * other processes hits all alike. */
static void time_all(const kernel *kb, const kernel *kc, const kernel *ks, hdg_triad *triad, int reps, result *r)
{
    int bb = batch_size(run_block, kb), bc = batch_size(run_csr, kc), bs = batch_size(run_smooth, ks);
    double *tb = hdg_xmalloc(sizeof(double) * reps), *tc = hdg_xmalloc(sizeof(double) * reps);
    double *ts = hdg_xmalloc(sizeof(double) * reps);
    r->triad = 0.0;
    for (int i = 0; i < reps; i++) {
        tb[i] = time_batch(run_block, kb, bb);
        tc[i] = time_batch(run_csr, kc, bc);
        ts[i] = time_batch(run_smooth, ks, bs);
        r->triad = fmax(r->triad, hdg_triad_pass(triad));
    }
    best_median(tb, reps, &r->block_best, &r->block_median);
    best_median(tc, reps, &r->csr_best, &r->csr_median);
    best_median(ts, reps, &r->smooth_best, &r->smooth_median);
    free(tb);
    free(tc);
    free(ts);
}

/* max |a - b| / max |b| */
static double relative_difference(const double *a, const double *b, size_t n)
{
    double d = 0.0, s = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
    }
    return s > 0 ? d / s : d;
}

/* The matrices of order k on a mesh, a random x and the block product y = B x. */
typedef struct problem {
    hdg_blockmat B;
    hdg_csr C;
    double *x, *y;
    double *Di, *r, *z;   /* the smoother step: Di = each row's first block (its values do not matter) */
    hdg_blockmat_lo lo;
} problem;

static hdg_status problem_build(const hdg_mesh *M, int k, problem *p, hdg_error *err)
{
    memset(p, 0, sizeof *p);
    hdg_status st = build_matrix(M, k + 1, &p->B, err);
    if (st) return st;
    if ((st = hdg_csr_from_blockmat(&p->C, &p->B, err))) {
        hdg_blockmat_free(&p->B);
        return st;
    }
    size_t n = (size_t)p->B.nf * p->B.m;
    p->x = hdg_xmalloc(sizeof(double) * n);
    p->y = hdg_xcalloc(n, sizeof(double));
    unsigned long long s = 777;
    for (size_t i = 0; i < n; i++) p->x[i] = uniform(&s);
    hdg_blockmat_spmv(&p->B, p->x, p->y);
    size_t mm = (size_t)p->B.m * p->B.m;
    p->Di = hdg_xmalloc(sizeof(double) * (size_t)p->B.nf * mm);
    for (int l = 0; l < p->B.nf; l++) memcpy(p->Di + l * mm, hdg_blockmat_block(&p->B, l, 0), sizeof(double) * mm);
    p->r = hdg_xcalloc(n, sizeof(double));
    p->z = hdg_xcalloc(n, sizeof(double));
    (void)hdg_blockmat_lo_init(&p->lo, &p->B, p->Di);   /* values in [-1, 1): never refused */
    return HDG_OK;
}

static void problem_free(problem *p)
{
    hdg_blockmat_lo_free(&p->lo);
    free(p->Di);
    free(p->r);
    free(p->z);
    free(p->x);
    free(p->y);
    hdg_csr_free(&p->C);
    hdg_blockmat_free(&p->B);
}

/* Builds the matrices for order k on mesh M, checks agreement, times both. */
static hdg_status bench_order(const hdg_mesh *M, int k, int reps, hdg_triad *triad, result *r,
                              hdg_error *err)
{
    memset(r, 0, sizeof *r);
    problem p;
    hdg_status st = problem_build(M, k, &p, err);
    if (st) return st;
    size_t n = (size_t)p.B.nf * p.B.m;
    double *yc = hdg_xcalloc(n, sizeof(double)), *dn = hdg_xcalloc(n, sizeof(double));
    kernel kb = {.B = &p.B, .C = &p.C, .x = p.x, .y = p.y}, kc = {.B = &p.B, .C = &p.C, .x = p.x, .y = yc};
    kernel ks = {&p.B, &p.C, p.x, dn, p.Di, &p.lo, p.r, p.z};
    run_csr(&kc);
    r->reldiff = relative_difference(p.y, yc, n);
    time_all(&kb, &kc, &ks, triad, reps, r);
    r->smooth_bytes = hdg_blockmat_smooth_bytes(&p.B);
    free(dn);
    r->k = k;
    r->m = k + 1;
    r->nf = p.B.nf;
    r->nnz = p.C.nnz;
    r->threads = hdg_parallel_threads();
    r->block_bytes = hdg_blockmat_spmv_bytes(&p.B);
    r->csr_bytes = hdg_csr_spmv_bytes(&p.C);
    r->flops = hdg_blockmat_spmv_flops(&p.B);
    free(yc);
    problem_free(&p);
    return HDG_OK;
}

/* ---- output ---- */

static double gbs(double bytes, double t) { return bytes / t / 1e9; }

static int agrees(const result *r) { return r->reldiff <= AGREE_TOL; }

static void print_single(const result *r)
{
    double triad = r->triad;
    printf("triad: %.2f GB/s (best of the passes run between the SpMV samples)\n", triad);
    printf("matrix: %d face rows, m = %d, %lld nonzeros; dense block %.1f MB, CSR %.1f MB per SpMV\n",
           r->nf, r->m, r->nnz, r->block_bytes / 1e6, r->csr_bytes / 1e6);
    printf("\n%-12s %10s %10s %9s %9s %8s\n", "format", "best ms", "median ms", "GB/s", "GFLOP/s",
           "%triad");
    printf("%-12s %10.3f %10.3f %9.2f %9.2f %7.1f%%\n", "dense block", r->block_best * 1e3,
           r->block_median * 1e3, gbs(r->block_bytes, r->block_best), r->flops / r->block_best / 1e9,
           100 * gbs(r->block_bytes, r->block_best) / triad);
    printf("%-12s %10.3f %10.3f %9.2f %9.2f %7.1f%%\n", "CSR", r->csr_best * 1e3, r->csr_median * 1e3,
           gbs(r->csr_bytes, r->csr_best), r->flops / r->csr_best / 1e9,
           100 * gbs(r->csr_bytes, r->csr_best) / triad);
    printf("%-12s %10.3f %10.3f %9.2f %9s %7.1f%%\n", "smoother", r->smooth_best * 1e3, r->smooth_median * 1e3,
           gbs(r->smooth_bytes, r->smooth_best), "", 100 * gbs(r->smooth_bytes, r->smooth_best) / triad);
    printf("%-12s %10s %10s %9.2f\n\n", "triad", "", "", triad);
    printf("block/triad bandwidth: %.3f\n", gbs(r->block_bytes, r->block_best) / triad);
    printf("block vs CSR speedup: %.3fx (best), %.3fx (median)\n", r->csr_best / r->block_best,
           r->csr_median / r->block_median);
    printf("relative difference max|y_block - y_csr|/max|y_csr|: %.3e (%s, tolerance %.0e)\n",
           r->reldiff, agrees(r) ? "agree" : "DISAGREE", AGREE_TOL);
}

static void print_sweep(const result *r, int n)
{
    printf("%2s %2s %9s %9s %9s %9s %9s %9s %9s %8s %8s %9s %9s %10s\n", "k", "m", "block MB", "CSR MB",
           "block ms", "CSR ms", "blk GB/s", "CSR GB/s", "trd GB/s", "blk/trd", "blk/CSR", "smo ms", "smo GB/s",
           "rel.diff");
    for (int i = 0; i < n; i++, r++)
        printf("%2d %2d %9.1f %9.1f %9.3f %9.3f %9.2f %9.2f %9.2f %8.3f %7.3fx %9.3f %9.2f %10.2e%s\n", r->k, r->m,
               r->block_bytes / 1e6, r->csr_bytes / 1e6, r->block_best * 1e3, r->csr_best * 1e3,
               gbs(r->block_bytes, r->block_best), gbs(r->csr_bytes, r->csr_best), r->triad,
               gbs(r->block_bytes, r->block_best) / r->triad, r->csr_best / r->block_best, r->smooth_best * 1e3,
               gbs(r->smooth_bytes, r->smooth_best), r->reldiff, agrees(r) ? "" : " DISAGREE");
    printf("times and GB/s: best of the samples; triad: best of the passes run between them\n");
}

static void report_result(hdg_report *j, const result *r)
{
    double triad = r->triad;
    hdg_report_int(j, "order", r->k);
    hdg_report_int(j, "m", r->m);
    hdg_report_int(j, "faces", r->nf);
    hdg_report_number(j, "flops", r->flops);
    hdg_report_number(j, "block.bytes", r->block_bytes);
    hdg_report_number(j, "block.best_s", r->block_best);
    hdg_report_number(j, "block.median_s", r->block_median);
    hdg_report_number(j, "block.gbs", gbs(r->block_bytes, r->block_best));
    hdg_report_number(j, "block.gflops", r->flops / r->block_best / 1e9);
    hdg_report_int(j, "csr.nnz", r->nnz);
    hdg_report_number(j, "csr.bytes", r->csr_bytes);
    hdg_report_number(j, "csr.best_s", r->csr_best);
    hdg_report_number(j, "csr.median_s", r->csr_median);
    hdg_report_number(j, "csr.gbs", gbs(r->csr_bytes, r->csr_best));
    hdg_report_number(j, "csr.gflops", r->flops / r->csr_best / 1e9);
    hdg_report_number(j, "smooth.bytes", r->smooth_bytes);
    hdg_report_number(j, "smooth.best_s", r->smooth_best);
    hdg_report_number(j, "smooth.median_s", r->smooth_median);
    hdg_report_number(j, "smooth.gbs", gbs(r->smooth_bytes, r->smooth_best));
    hdg_report_number(j, "triad.gbs", triad);
    hdg_report_number(j, "ratio.block_triad", gbs(r->block_bytes, r->block_best) / triad);
    hdg_report_number(j, "ratio.block_csr_speedup", r->csr_best / r->block_best);
    hdg_report_number(j, "ratio.block_csr_speedup_median", r->csr_median / r->block_median);
    hdg_report_number(j, "reldiff", r->reldiff);
    hdg_report_bool(j, "agree", agrees(r));
}

/* res: host results; with S (--backend cuda) dres instead. */
static int write_json(const options *o, const hdg_mesh *M, const result *res, const hdg_spmv_cuda *S,
                      const hdg_spmv_cuda_result *dres, int n)
{
    hdg_report *j = hdg_report_new();
    hdg_report_string(j, "benchmark", "spmv");
    hdg_report_string(j, "mesh.spec", o->mesh);
    hdg_report_int(j, "mesh.elements", M->ne);
    hdg_report_int(j, "mesh.faces", M->nf);
    hdg_report_int(j, "threads", hdg_parallel_threads());
    hdg_report_int(j, "reps", o->reps);
    if (S) hdg_spmv_cuda_report(S, j);
    else hdg_report_int(j, "triad_bytes_per_array", (long long)(o->triad_mib << 20));
    for (int i = 0; i < n; i++) {
        hdg_report *r = o->sweep ? hdg_report_array_push_object(j, "sweep") : j;
        if (S) hdg_spmv_cuda_report_result(r, &dres[i]);
        else report_result(r, &res[i]);
    }
    return hdg_cli_write_report(j, o->json);
}

/* ---- command line ---- */

static int bad_usage(const char *fmt, const char *arg) { return hdg_bench_bad("bench", usage, fmt, arg); }

static int parse_int(const char *s, int lo, int hi, int *out)
{
    long v;
    if (!hdg_parse_long(s, lo, hi, &v)) return 0;   /* decimal digits only */
    *out = (int)v;
    return 1;
}

/* Returns -1 when the options are fine, else the exit code. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.order = 2, .kmin = 1, .kmax = 6, .reps = 10,
                   .triad_mib = HDG_STREAM_DEFAULT_BYTES >> 20, .mesh = "square:256"};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        }
        if (!strcmp(a, "--sweep")) {
            o->sweep = 1;
            continue;
        }
        if (strcmp(a, "--order") && strcmp(a, "--mesh") && strcmp(a, "--reps") && strcmp(a, "--json") &&
            strcmp(a, "--threads") && strcmp(a, "--orders") && strcmp(a, "--triad-mib") && strcmp(a, "--backend"))
            return bad_usage(a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
        if (!v) return bad_usage("option %s needs a value", a);
        i++;
        if (!strcmp(a, "--mesh")) o->mesh = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else if (!strcmp(a, "--backend")) {
            if (strcmp(v, "c") && strcmp(v, "host") && strcmp(v, "cuda") && strcmp(v, "auto"))
                return bad_usage("--backend needs c, cuda or auto (as hdgc run), not '%s'", v);
            o->cuda = !strcmp(v, "cuda") ? 1 : !strcmp(v, "auto") ? 2 : 0;
        } else if (!strcmp(a, "--order")) {
            if (!parse_int(v, 1, 10, &o->order)) return bad_usage("--order needs an integer 1..10, not '%s'", v);
        } else if (!strcmp(a, "--reps")) {
            if (!parse_int(v, 1, 1000, &o->reps)) return bad_usage("--reps needs an integer 1..1000, not '%s'", v);
        } else if (!strcmp(a, "--threads")) {
            if (!parse_int(v, 1, HDG_MAX_THREADS, &o->threads))
                return bad_usage("--threads needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--triad-mib")) {
            if (!parse_int(v, 1, 1 << 16, &n)) return bad_usage("--triad-mib needs a positive integer, not '%s'", v);
            o->triad_mib = (size_t)n;
        } else {
            if (!strstr(v, "..") || !hdg_cli_range(v, 1, 10, &o->kmin, &o->kmax))
                return bad_usage("--orders needs a range a..b with 1 <= a <= b <= 10, not '%s'", v);
            o->sweep = 1;
        }
    }
    return -1;
}

/* ---- --backend cuda ---- */

static void print_str(hdg_str *s)
{
    fputs(s->s ? s->s : "", stdout);
    fflush(stdout);
    hdg_str_free(s);
}

/* Orders k0 .. k0+n-1 on GPU 0: bench_spmv_cuda.h. */
static int bench_device(const options *o, const hdg_mesh *M, int k0, int n)
{
    hdg_error err;
    hdg_error_clear(&err);
    hdg_spmv_cuda *S;
    if (hdg_spmv_cuda_open(&S, &err)) {
        fprintf(stderr, "hdgc: error: --backend cuda: %s\n", err.msg);
        return 1;
    }
    hdg_str out;
    hdg_str_init(&out);
    hdg_spmv_cuda_describe(S, &out);
    print_str(&out);
    hdg_spmv_cuda_result *res = hdg_xcalloc((size_t)n, sizeof *res);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        problem p;
        hdg_status st = problem_build(M, k0 + i, &p, &err);
        if (!st) {
            st = hdg_spmv_cuda_measure(S, &p.B, &p.C, p.x, p.y, o->reps, &res[i], &err);
            problem_free(&p);
        }
        if (st) {
            fprintf(stderr, "hdgc: error: %s\n", err.msg);
            rc = 1;
        }
    }
    if (!rc) {
        if (o->sweep) hdg_spmv_cuda_format_sweep(res, n, &out);
        else hdg_spmv_cuda_format_single(&res[0], &out);
        print_str(&out);
        for (int i = 0; i < n; i++)
            if (!hdg_spmv_cuda_agrees(&res[i])) {
                fprintf(stderr, "hdgc: error: a device result differs from the host at k = %d (block %.3e, "
                                "cuSPARSE %.3e, tolerance %.0e; copy %s)\n", res[i].k, res[i].block_reldiff,
                        res[i].csr_reldiff, HDG_SPMV_CUDA_TOL, res[i].copy_exact ? "exact" : "wrong");
                rc = 1;
            }
        if (o->json && write_json(o, M, NULL, S, res, n)) rc = 1;
    }
    free(res);
    hdg_spmv_cuda_close(S);
    return rc;
}

/* --backend auto: cuda when GPU 0 opens, else c, saying why (as hdgc run --backend auto). */
static void choose_auto(options *o)
{
    if (o->cuda != 2) return;
    hdg_cuda_device *dev = NULL;
    hdg_error err = {0};
    o->cuda = !hdg_cuda_device_open(0, &dev, &err);
    if (o->cuda) hdg_cuda_device_close(dev);
    else printf("auto chose c: %s\n", err.msg);
}

static int bench_spmv(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    choose_auto(&o);
    if (o.threads) hdg_parallel_set_threads(o.threads);
    hdg_mesh M;
    hdg_error err;
    hdg_error_clear(&err);
    int k0 = o.sweep ? o.kmin : o.order, k1 = o.sweep ? o.kmax : o.order, n = k1 - k0 + 1;
    double m = k1 + 1;   /* per element: 1.5 faces x 5 blocks of m^2, dense and CSR, plus vectors */
    if (hdg_mesh_spec_memory_check(o.mesh, 1.5 * (5 * m * m * 20 + 8 * m * 8), &err) ||
        hdg_mesh_load(&M, o.mesh, &err)) {
        fprintf(stderr, "hdgc: error: %s\n", err.msg);
        return 1;
    }
    printf("spmv benchmark: mesh %s (%d elements, %d faces), %s%d, %d samples per %s\n", o.mesh, M.ne,
           M.nf, o.cuda ? "backend cuda, host threads " : "threads ", hdg_parallel_threads(), o.reps,
           o.cuda ? "kernel" : "format");
    if (o.sweep) printf("orders: k = %d..%d\n", k0, k1);
    else printf("order: k = %d\n", o.order);
    fflush(stdout);
    if (o.cuda) {
        rc = bench_device(&o, &M, k0, n);
        hdg_mesh_free(&M);
        return rc;
    }
    hdg_triad triad;
    if (hdg_triad_init(&triad, o.triad_mib << 20)) {
        fprintf(stderr, "hdgc: error: cannot allocate the triad arrays (3 x %zu MiB)\n", o.triad_mib);
        hdg_mesh_free(&M);
        return 1;
    }
    result *res = hdg_xcalloc((size_t)n, sizeof *res);
    for (int i = 0; i < n && rc < 0; i++)
        if (bench_order(&M, k0 + i, o.reps, &triad, &res[i], &err)) {
            fprintf(stderr, "hdgc: error: %s\n", err.msg);
            rc = 1;
        } else if (res[i].triad <= 0) {
            fprintf(stderr, "hdgc: error: the triad computed a wrong result\n");
            rc = 1;
        }
    hdg_triad_free(&triad);
    if (rc < 0) {
        if (o.sweep) print_sweep(res, n);
        else print_single(&res[0]);
        rc = 0;
        for (int i = 0; i < n; i++)
            if (!agrees(&res[i])) {
                fprintf(stderr, "hdgc: error: dense-block and CSR products differ at k = %d "
                                "(relative %.3e > %.0e)\n", res[i].k, res[i].reldiff, AGREE_TOL);
                rc = 1;
            }
        if (o.json && write_json(&o, &M, res, NULL, NULL, n)) rc = 1;
    }
    free(res);
    hdg_mesh_free(&M);
    return rc;
}

int hdg_cmd_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        if (argc < 2) {
            fprintf(stderr, "hdgc bench: no benchmark given (available: spmv, pipeline, stages, kernels, partition)\n");
            usage(stderr);
            return 2;
        }
        help();
        return 0;
    }
    if (!strcmp(argv[1], "spmv")) return bench_spmv(argc, argv);
    if (!strcmp(argv[1], "pipeline")) return hdg_cmd_bench_pipeline(argc, argv);
    if (!strcmp(argv[1], "stages")) return hdg_cmd_bench_stages(argc, argv);
    if (!strcmp(argv[1], "kernels")) return hdg_cmd_bench_kernels(argc, argv);
    if (!strcmp(argv[1], "partition")) return hdg_cmd_bench_partition(argc, argv);
    fprintf(stderr, "hdgc bench: unknown benchmark '%s' (available: spmv, pipeline, stages, kernels, partition)\n", argv[1]);
    usage(stderr);
    return 2;
}
