/* cmd_bench_stages.c — `hdgc bench stages FILE.hdg`: the HDG element stages
 * (local, recover, post, errors) against the cost model at the FMA peak of one
 * core. Per order: the problem is lowered and compiled as `hdgc run` does,
 * each element kernel runs over every element of the mesh on this thread
 * alone (no thread pool), fed with the outputs of the stage before it (recover
 * gets a random trace vector), best of --reps; the peak is a loop of
 * independent 4-wide FMAs compiled by the same in-process JIT as the kernels
 * (so it uses what the kernels may use). Times are the thread's CPU time.
 * Printed per stage: time per element,
 * the cost model's flops per element (hdg_kernel_info.flops), GFLOP/s, the
 * fraction of the peak, and "x model": time over flops/peak (1 = the kernel
 * runs at the FMA peak on the counted flops; the goal of issue 13 is <= 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/c/jit.h"
#include "cli/commands.h"
#include "drivers/mesh_data.h"
#include "compiler/module.h"
#include "compiler/pipeline.h"
#include "drivers/run_hdg_common.h"
#include "ir/lower.h"
#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"
#include "runtime/output/report.h"
#include "support/util.h"

#define MAXK 16

/* CPU time of this thread: on a shared machine the time slices other jobs
 * take do not count (wall time would charge them to the kernel). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#define NSTAGE 4

static const char *const stage_name[NSTAGE] = {"local", "recover", "post", "errors"};

typedef struct row {
    int ok;
    double sec[NSTAGE];        /* best seconds over all elements */
    long long flops[NSTAGE];   /* cost model, per element */
    int present[NSTAGE];
    int lanes[NSTAGE];         /* items per batch of the kernel (1: one at a time) */
} row;

typedef struct options {
    const char *file, *mesh, *json;
    int kmin, kmax, reps;
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc bench stages FILE.hdg [--orders a..b] [--mesh SPEC] [--reps R] [--json F]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Times the HDG element kernels (local, recover, post, errors) of FILE.hdg on\n"
           "one thread over every element of the mesh, and compares each with the flops\n"
           "of the cost model (hdgc ir) at the FMA peak of one core, measured in the same\n"
           "run by a JIT-compiled loop of independent 4-wide FMAs. Columns per stage:\n"
           "us/el (best time per element), flops (model, per element), GF/s, %%peak and\n"
           "x model = time / (flops / peak): 1 means the counted flops run at the peak;\n"
           "lanes: elements per SIMD batch of the kernel (1: one at a time; HDGC_BATCH).\n"
           "\n"
           "options:\n"
           "  --orders a..b   orders to run (default: the file's)\n"
           "  --mesh SPEC     as for hdgc run (default square:64)\n"
           "  --reps R        timed runs per kernel, best kept (default 5)\n"
           "  --json F        also write the figures to F\n");
}

static int bad(const char *fmt, const char *arg) { return hdg_bench_bad("bench stages", usage, fmt, arg); }

static int parse_orders(const char *v, options *o)
{
    return hdg_cli_range(v, 1, MAXK, &o->kmin, &o->kmax);
}

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->mesh = "square:64", o->reps = 5;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        }
        if (a[0] != '-') {
            if (o->file) return bad("unexpected argument '%s'", a);
            o->file = a;
            continue;
        }
        if (!v) return bad("option %s needs a value", a);
        i++;
        long r;
        if (!strcmp(a, "--mesh")) o->mesh = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else if (!strcmp(a, "--reps")) {
            if (!hdg_parse_long(v, 1, 1000, &r)) return bad("--reps needs an integer 1..1000, not '%s'", v);
            o->reps = (int)r;
        } else if (!strcmp(a, "--orders")) {
            if (!parse_orders(v, o)) return bad("--orders needs a..b with 1 <= a <= b <= 16, not '%s'", v);
        } else return bad("unknown option '%s'", a);
    }
    if (!o->file) return bad("%s", "no FILE.hdg given");
    return hdg_cli_check_output("bench stages", "--json", o->json, o->file) ? 2 : -1;
}

/* ------------------------------------------------------------- FMA peak */

static const char fma_src[] =
    "typedef double v4 __attribute__((vector_size(32)));\n"
    "double hdg_fma_peak(long long n)\n"
    "{\n"
    "    v4 b = {1.0 + 1e-12, 1.0 - 1e-12, 1.0 + 2e-12, 1.0 - 2e-12}, c = {1e-9, 2e-9, 3e-9, 4e-9};\n"
    "    v4 x0 = b, x1 = x0 + c, x2 = x1 + c, x3 = x2 + c, x4 = x3 + c, x5 = x4 + c;\n"
    "    v4 x6 = x5 + c, x7 = x6 + c, x8 = x7 + c, x9 = x8 + c, x10 = x9 + c, x11 = x10 + c;\n"
    "    for (long long i = 0; i < n; ++i) {\n"
    "        x0 = x0 * b + c; x1 = x1 * b + c; x2 = x2 * b + c; x3 = x3 * b + c;\n"
    "        x4 = x4 * b + c; x5 = x5 * b + c; x6 = x6 * b + c; x7 = x7 * b + c;\n"
    "        x8 = x8 * b + c; x9 = x9 * b + c; x10 = x10 * b + c; x11 = x11 * b + c;\n"
    "    }\n"
    "    v4 s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;\n"
    "    return s[0] + s[1] + s[2] + s[3];\n"
    "}\n";

/* Peak double-precision flop/s of one core: 12 independent chains of 4-wide
 * FMAs (2 flops per lane), best of reps samples of ~0.1 s. */
static hdg_status fma_peak(int reps, double *peak, hdg_error *err)
{
    hdg_jit *jit = NULL;
    hdg_status st = hdg_jit_compile(fma_src, "fma_peak", NULL, &jit, NULL, err);
    if (st) return st;
    double (*fn)(long long) = (double (*)(long long))hdg_jit_lookup(jit, "hdg_fma_peak");
    if (!fn) {
        hdg_jit_free(jit);
        return hdg_fail(err, HDG_EINTERNAL, "fma peak: symbol not found");
    }
    long long n = 1 << 20;
    double best = 0, sink = 0;
    for (int r = 0; r < reps + 1; r++) {
        double t0 = cpu_now();
        sink += fn(n);
        double t = cpu_now() - t0;
        if (t < 0.05) { n *= 2, r--; continue; }
        best = fmax(best, (double)n * 12 * 4 * 2 / t);
    }
    *peak = sink == sink ? best : best;   /* keep the result alive */
    hdg_jit_free(jit);
    return HDG_OK;
}

/* ------------------------------------------------------------- kernels */

/* Named per-element buffers: an output becomes the input of the same name. */
typedef struct buffers {
    int n;
    char name[16][32];
    double *data[16];
    int stride[16];
} buffers;

static double *buffer(buffers *b, const char *name, int stride, long long ne, int fill)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->name[i], name) && b->stride[i] == stride) return b->data[i];
    if (b->n == 16) return NULL;
    double *d = hdg_xmalloc(sizeof(double) * (size_t)(ne * stride));
    unsigned long long s = 12345;
    for (long long i = 0; i < ne * stride; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        d[i] = fill ? (double)(s >> 11) / 9007199254740992.0 * 2 - 1 : 0;
    }
    snprintf(b->name[b->n], sizeof b->name[0], "%s", name);
    b->stride[b->n] = stride, b->data[b->n] = d;
    return b->data[b->n++];
}

/* Runs the kernel `name` over all elements reps times (after one untimed run);
 * the best time in *sec. */
static hdg_status time_kernel(const hdg_compiled *cc, const char *name, hdg_kargs a, long long ne, buffers *b,
                              int reps, double *sec, long long *flops, hdg_error *err)
{
    const hdg_kernel_info *info;
    hdg_kernel_fn fn = hdg_compiled_find(cc, name, &info);
    if (!fn) return hdg_fail(err, HDG_EINTERNAL, "kernel %s not found", name);
    for (int s = 0; s < info->nin; s++)
        if (info->in[s].stride && !(a.in[s] = buffer(b, info->in[s].name, info->in[s].stride, ne, 1)))
            return hdg_fail(err, HDG_EINTERNAL, "too many buffers");
    for (int s = 0; s < info->nout; s++)
        if (info->out[s].stride && !(a.out[s] = buffer(b, info->out[s].name, info->out[s].stride, ne, 0)))
            return hdg_fail(err, HDG_EINTERNAL, "too many buffers");
    *sec = INFINITY;
    for (int r = 0; r <= reps; r++) {
        double t0 = cpu_now();
        fn(0, ne, &a);
        double t = cpu_now() - t0;
        if (r) *sec = fmin(*sec, t);
    }
    *flops = info->flops;
    return HDG_OK;
}

static hdg_status bench_order(const hdg_problem *p, const options *o, const hdg_mesh *mesh, row *out,
                              hdg_error *err)
{
    hdg_lowered L;
    hdg_compiled cc = {0};
    hdg_geom geo = {0};
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.source_file = p->file;
    buffers b = {0};
    double *geom = NULL, *params = hdg_hdg_params(p);
    hdg_status st = hdg_lower_hdg(p, &L, err);
    if (st) { free(params); return st; }
    if (!(st = hdg_compile_c(L.mod, &co, &cc, err)) && !(st = hdg_geom_init(&geo, mesh, err))) {
        long long ne = mesh->ne;
        geom = hdg_xmalloc(sizeof(double) * (size_t)(ne * L.ngeom));
        hdg_hdg_fill_geom(&L, mesh, &geo, geom);
        hdg_kargs a = {.nitems = ne, .geom = geom, .params = params};
        const char *names[NSTAGE] = {L.local, L.recover, L.post, L.errors};
        for (int s = 0; s < NSTAGE && !st; s++) {
            if (!names[s][0]) continue;
            st = time_kernel(&cc, names[s], a, ne, &b, o->reps, &out->sec[s], &out->flops[s], err);
            out->present[s] = !st;
            out->lanes[s] = 1;
            for (int i = 0; i < cc.nkernels; i++)
                if (!strcmp(cc.info[i].name, names[s])) out->lanes[s] = cc.lanes[i];
        }
        out->ok = !st;
    }
    for (int i = 0; i < b.n; i++) free(b.data[i]);
    free(geom), free(params);
    hdg_geom_free(&geo);
    hdg_compiled_free(&cc);
    hdg_lowered_free(&L);
    return st;
}

/* ------------------------------------------------------------- output */

static void print_rows(const options *o, const row *rows, long long ne, double peak)
{
    printf("%s on %s (%lld elements), one thread, best of %d; FMA peak %.1f GFLOP/s\n", o->file, o->mesh, ne,
           o->reps, peak * 1e-9);
    printf("%2s %-8s %10s %10s %8s %7s %8s %5s\n", "k", "stage", "us/el", "flops", "GF/s", "%peak", "x model",
           "lanes");
    for (int k = o->kmin; k <= o->kmax; k++) {
        const row *r = &rows[k - o->kmin];
        for (int s = 0; s < NSTAGE && r->ok; s++) {
            if (!r->present[s]) continue;
            double tel = r->sec[s] / (double)ne, gf = (double)r->flops[s] / tel;
            printf("%2d %-8s %10.3f %10lld %8.2f %6.1f%% %8.2f %5d\n", k, stage_name[s], tel * 1e6, r->flops[s],
                   gf * 1e-9, 100 * gf / peak, peak / gf, r->lanes[s]);
        }
        if (r->ok && r->present[2])
            printf("%2d post/local time %.3f\n", k, r->sec[2] / r->sec[0]);
    }
}

static int write_json(const options *o, const row *rows, long long ne, double peak)
{
    hdg_report *j = hdg_report_new();
    hdg_report_string(j, "benchmark", "stages");
    hdg_report_string(j, "file", o->file);
    hdg_report_string(j, "mesh", o->mesh);
    hdg_report_int(j, "elements", ne);
    hdg_report_int(j, "reps", o->reps);
    hdg_report_number(j, "fma_peak_gflops", peak * 1e-9);
    for (int k = o->kmin; k <= o->kmax; k++) {
        const row *r = &rows[k - o->kmin];
        for (int s = 0; s < NSTAGE && r->ok; s++) {
            if (!r->present[s]) continue;
            hdg_report *x = hdg_report_array_push_object(j, "stages");
            double tel = r->sec[s] / (double)ne, gf = (double)r->flops[s] / tel;
            hdg_report_int(x, "order", k);
            hdg_report_string(x, "stage", stage_name[s]);
            hdg_report_number(x, "seconds_per_element", tel);
            hdg_report_int(x, "model_flops", r->flops[s]);
            hdg_report_number(x, "gflops", gf * 1e-9);
            hdg_report_number(x, "fraction_of_peak", gf / peak);
            hdg_report_int(x, "lanes", r->lanes[s]);
        }
    }
    return hdg_cli_write_report(j, o->json);
}

int hdg_cmd_bench_stages(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    rc = 0;
    hdg_frontend_options fo = {0, NULL, 0};
    hdg_problem *p = hdg_cli_load_problem(o.file, &fo);
    if (!p) return 1;
    if (p->method != HDG_METHOD_HDG) {
        fprintf(stderr, "hdgc bench stages: %s is not an HDG problem\n", o.file);
        hdg_problem_free(p);
        return 1;
    }
    if (!o.kmin) o.kmin = o.kmax = p->degree;
    hdg_error err = {0};
    hdg_mesh mesh;
    double peak = 0;
    if (hdg_mesh_load(&mesh, o.mesh, &err) || fma_peak(o.reps, &peak, &err)) {
        fprintf(stderr, "hdgc: error: %s\n", err.msg);
        hdg_problem_free(p);
        return 1;
    }
    row *rows = hdg_xcalloc(MAXK, sizeof *rows);
    for (int k = o.kmin; k <= o.kmax && !rc; k++) {
        fo.order = k;
        hdg_problem_free(p);
        if (!(p = hdg_cli_load_problem(o.file, &fo))) { rc = 1; break; }
        if (bench_order(p, &o, &mesh, &rows[k - o.kmin], &err)) {
            fprintf(stderr, "hdgc: error: order %d: %s\n", k, err.msg);
            rc = 1;
        }
    }
    print_rows(&o, rows, mesh.ne, peak);
    if (o.json && write_json(&o, rows, mesh.ne, peak)) rc = 1;
    hdg_mesh_free(&mesh);
    hdg_problem_free(p);
    free(rows);
    return rc;
}
