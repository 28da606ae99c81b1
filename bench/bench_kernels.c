/* bench_kernels.c — generated vs hand-written kernels (bench_kernels.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_kernels.h"
#include "bench/bench_kernels_cuda.h"
#include "drivers/mesh_data.h"
#include "compiler/module.h"
#include "compiler/pipeline.h"
#include "drivers/run_dg_common.h"
#include "drivers/run_hdg_common.h"
#include "ir/lower.h"
#include "runtime/parallel/parallel.h"
#include "support/util.h"

/* The problem at one order, compiled, with the per-element data its kernels read. */
typedef struct subject {
    hdg_problem *p;
    int dg;
    hdg_lowered L;           /* HDG */
    hdg_geom geo;
    hdg_dg_data d;           /* DG */
    hdg_compiled cc;
    double *geom, *params;   /* HDG's own (DG's live in d) */
    hdg_kargs a;             /* geom, params, imap; nitems = elements */
} subject;

static void subject_free(subject *s)
{
    hdg_compiled_free(&s->cc);
    if (s->dg) hdg_dg_data_free(&s->d);
    else hdg_lowered_free(&s->L), hdg_geom_free(&s->geo);
    free(s->geom), free(s->params);
    hdg_problem_free(s->p);
    memset(s, 0, sizeof *s);
}

static hdg_status setup_hdg(subject *s, hdg_mesh *mesh, hdg_compile_options *co, hdg_error *err)
{
    hdg_status st = hdg_lower_hdg(s->p, &s->L, err);
    if (!st) st = hdg_compile_c(s->L.mod, co, &s->cc, err);
    if (!st) st = hdg_geom_init(&s->geo, mesh, err);
    if (st) return st;
    s->geom = hdg_xcalloc((size_t)mesh->ne * (size_t)s->L.ngeom, sizeof(double));
    hdg_hdg_fill_geom(&s->L, mesh, &s->geo, s->geom);
    s->params = hdg_hdg_params(s->p);
    s->a.geom = s->geom, s->a.params = s->params;
    return HDG_OK;
}

/* DG: with the stage values of hdg_dg_probe_params, so that the right-hand
 * side enters the step kernel. */
static hdg_status setup_dg(subject *s, hdg_mesh *mesh, hdg_compile_options *co, hdg_error *err)
{
    hdg_run_options defaults;
    const hdg_run_options *ro = hdg_dg_options(NULL, &defaults);
    hdg_status st = hdg_dg_lower_problem(&s->d, s->p, mesh, err);
    if (!st) st = hdg_compile_c(s->d.L.mod, co, &s->cc, err);
    if (!st) st = hdg_dg_prepare(&s->d, ro, err);
    if (st) return st;
    s->params = hdg_dg_probe_params(&s->d);
    s->a.geom = s->d.geom, s->a.params = s->params, s->a.imap[0] = s->d.fmap, s->a.t = 0.25;
    return HDG_OK;
}

static hdg_status setup(subject *s, const char *file, int k, hdg_mesh *mesh, hdg_error *err)
{
    memset(s, 0, sizeof *s);
    hdg_frontend_options fo = {k, NULL, 0};
    if (!(s->p = hdg_cli_load_problem(file, &fo))) return hdg_fail(err, HDG_EINPUT, "%s does not load", file);
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.source_file = s->p->file;
    s->dg = s->p->method != HDG_METHOD_HDG;
    s->a.nitems = mesh->ne;
    return s->dg ? setup_dg(s, mesh, &co, err) : setup_hdg(s, mesh, &co, err);
}

/* ------------------------------------------------------------- timing */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double run_once(hdg_kernel_fn fn, const hdg_kargs *a, int threads)
{
    if (threads <= 1) {
        double t0 = cpu_now();
        fn(0, a->nitems, a);
        return cpu_now() - t0;
    }
    double t0 = hdg_wtime();
    hdg_launch(fn, a->nitems, a);
    return hdg_wtime() - t0;
}

/* One kernel of both versions: compared on every element, then timed. */
typedef struct result {
    const hdg_kernel_info *info;
    double sec_gen, sec_hw;
    hdg_hw_diff diff;
} result;

static hdg_status measure(const subject *s, int i, hdg_kernel_fn hw, const hdg_bench_kernels_opts *o, result *r,
                          hdg_error *err)
{
    const hdg_kernel_info *info = &s->cc.info[i];
    hdg_kargs a = s->a, g, h;
    long long ne = a.nitems;
    for (int k = 0; k < info->nin; k++)
        a.in[k] = info->in[k].stride ? hdg_hw_random(ne * info->in[k].stride, 1000 + (unsigned)k) : NULL;
    r->info = info;
    hdg_status st = hdg_hw_compare(s->cc.fn[i], hw, info, &a, ne, &r->diff, err);
    g = a, h = a;
    for (int k = 0; k < info->nout; k++) {
        long long n = ne * info->out[k].stride;
        g.out[k] = info->out[k].stride ? hdg_hw_random(n, 77 + (unsigned)k) : NULL;
        h.out[k] = info->out[k].stride ? hdg_hw_random(n, 77 + (unsigned)k) : NULL;
    }
    r->sec_gen = r->sec_hw = INFINITY;
    for (int rep = 0; !st && rep <= o->reps; rep++) {   /* the first round warms up */
        double tg = run_once(s->cc.fn[i], &g, o->threads), th = run_once(hw, &h, o->threads);
        if (rep) r->sec_gen = fmin(r->sec_gen, tg), r->sec_hw = fmin(r->sec_hw, th);
    }
    for (int k = 0; k < HDG_KMAX_IN; k++) free((void *)a.in[k]);
    for (int k = 0; k < HDG_KMAX_OUT; k++) free(g.out[k]), free(h.out[k]);
    return st;
}

/* ------------------------------------------------------------- output */

static void print_head(FILE *out, const hdg_bench_kernels_opts *o, long long ne)
{
    if (!out) return;
    if (o->cuda)
        fprintf(out, "%s on %s (%lld elements), CUDA (device events), best of %d, alternating\n", o->file, o->mesh,
                ne, o->reps);
    else
        fprintf(out, "%s on %s (%lld elements), %d thread%s, best of %d, alternating\n", o->file, o->mesh, ne,
                o->threads, o->threads > 1 ? "s" : "", o->reps);
    fprintf(out, "%2s %-20s %10s %10s %8s %8s %8s %8s %8s %10s\n", "k", "kernel", "gen us/el", "hw us/el",
            "gen GF/s", "hw GF/s", "gen GB/s", "hw GB/s", "gen/hw", "max diff");
}

static void record(FILE *out, hdg_report *rep, int k, const result *r, long long ne)
{
    const hdg_kernel_info *f = r->info;
    double tg = r->sec_gen / (double)ne, th = r->sec_hw / (double)ne;
    double bytes = (double)(f->bytes_read + f->bytes_written), flops = (double)f->flops;
    if (out)
        fprintf(out, "%2d %-20s %10.3f %10.3f %8.2f %8.2f %8.2f %8.2f %8.3f %10.2e%s\n", k, f->name, tg * 1e6,
                th * 1e6, flops / tg * 1e-9, flops / th * 1e-9, bytes / tg * 1e-9, bytes / th * 1e-9, tg / th,
                r->diff.rel, r->diff.rel <= HDG_HW_RTOL ? "" : "  DIFFERENT");
    if (!rep) return;
    hdg_report *x = hdg_report_array_push_object(rep, "rows");
    hdg_report_int(x, "order", k);
    hdg_report_string(x, "kernel", f->name);
    hdg_report_number(x, "generated_seconds_per_element", tg);
    hdg_report_number(x, "handwritten_seconds_per_element", th);
    hdg_report_number(x, "generated_gflops", flops / tg * 1e-9);
    hdg_report_number(x, "handwritten_gflops", flops / th * 1e-9);
    hdg_report_number(x, "generated_gbytes", bytes / tg * 1e-9);
    hdg_report_number(x, "handwritten_gbytes", bytes / th * 1e-9);
    hdg_report_number(x, "ratio", tg / th);
    hdg_report_number(x, "max_rel_diff", r->diff.rel);
    hdg_report_bool(x, "agree", r->diff.rel <= HDG_HW_RTOL);
}

static int has(const hdg_hw_kernel *hw, int nk, const char *name)
{
    for (int j = 0; j < nk; j++)
        if (!strcmp(hw[j].name, name)) return j;
    return -1;
}

/* The generated kernels of order k without a counterpart, once (at the first order). */
static void missing(FILE *out, hdg_report *rep, const subject *s, const hdg_hw_kernel *hw, int nk)
{
    hdg_str list;
    hdg_str_init(&list);
    for (int i = 0; i < s->cc.nkernels; i++)
        if (has(hw, nk, s->cc.info[i].name) < 0)
            hdg_str_printf(&list, "%s%s", list.len ? ", " : "", s->cc.info[i].name);
    if (out && list.len) fprintf(out, "no hand-written counterpart (not compared): %s\n", list.s);
    if (rep) hdg_report_string(rep, "missing", list.len ? list.s : "");
    hdg_str_free(&list);
}

/* ------------------------------------------------------------- CUDA */

/* The kernels of the set's CUDA version as a list for has()/missing() (no fn). */
static int cuda_names(const hdg_hw_set *set, int k, hdg_hw_cuda *hc, hdg_hw_kernel *hw, hdg_error *err)
{
    if (!set->cuda) return hdg_fail(err, HDG_EINPUT, "no hand-written CUDA kernels for %s", set->module), -1;
    if (set->cuda(k, hc, err)) return -1;
    for (int j = 0; j < hc->n; j++) hw[j].name = hc->name[j], hw[j].fn = NULL;
    return hc->n;
}

static hdg_status compile_both(hdg_ir_module *m, hdg_cuda_device *dev, const hdg_hw_set *set, int k,
                               hdg_cuda_compiled *g, hdg_cuda_compiled *h, hdg_error *err)
{
    hdg_cuda_compile_options co = HDG_CUDA_COMPILE_OPTIONS_DEFAULT;
    co.no_optimize = 1;   /* the C compile optimized m */
    hdg_status st = hdg_compile_cuda(m, &co, dev, g, err);
    if (!st) st = hdg_compile_cuda(m, &co, dev, h, err);
    return st ? st : hdg_hw_cuda_overlay(set, k, h, err);
}

static hdg_status measure_cuda(const subject *s, hdg_cuda_device *dev, const hdg_cuda_compiled *g,
                               const hdg_cuda_compiled *h, int i, const hdg_bench_kernels_opts *o, result *r,
                               hdg_error *err)
{
    const hdg_kernel_info *info = &g->info[i];
    hdg_kargs a = s->a;
    for (int k = 0; k < info->nin; k++)
        a.in[k] = info->in[k].stride ? hdg_hw_random(a.nitems * info->in[k].stride, 1000 + (unsigned)k) : NULL;
    r->info = info;
    hdg_status st = hdg_bench_kernel_cuda(dev, g, h, i, &a, o->reps, &r->sec_gen, &r->sec_hw, &r->diff, err);
    for (int k = 0; k < HDG_KMAX_IN; k++) free((void *)a.in[k]);
    return st;
}

/* ------------------------------------------------------------- driver */

static hdg_status bench_order(const hdg_bench_kernels_opts *o, hdg_cuda_device *dev, int k, hdg_mesh *mesh,
                              FILE *out, hdg_report *rep, int *mismatch, hdg_error *err)
{
    subject s;
    hdg_hw_cuda hc = {0};
    hdg_cuda_compiled g, h;
    memset(&g, 0, sizeof g), memset(&h, 0, sizeof h);
    hdg_status st = setup(&s, o->file, k, mesh, err);
    const hdg_hw_set *set = o->set ? o->set : s.p ? hdg_hw_find(s.p->name) : NULL;
    if (!st && !set)
        st = hdg_fail(err, HDG_EINPUT, "no hand-written kernels for problem '%s' (%s)", s.p->name, s.p->file);
    if (!st && (k < set->kmin || k > set->kmax))
        st = hdg_fail(err, HDG_EINPUT, "the hand-written %s kernels cover orders %d..%d, not %d", set->module,
                      set->kmin, set->kmax, k);
    hdg_hw_kernel hw[HDG_HW_MAX];
    int nk = st ? -1 : o->cuda ? cuda_names(set, k, &hc, hw, err) : set->c_kernels(k, hw, err);
    if (nk < 0 && !st) st = err->code;
    if (!st && o->cuda) st = compile_both(s.dg ? s.d.L.mod : s.L.mod, dev, set, k, &g, &h, err);
    if (!st && (k == o->kmin)) missing(out, rep, &s, hw, nk);
    for (int i = 0; !st && i < s.cc.nkernels; i++) {
        int j = has(hw, nk, s.cc.info[i].name);
        if (j < 0) continue;
        result r;
        st = o->cuda ? measure_cuda(&s, dev, &g, &h, i, o, &r, err) : measure(&s, i, hw[j].fn, o, &r, err);
        if (st) break;
        record(out, rep, k, &r, mesh->ne);
        if (r.diff.rel <= HDG_HW_RTOL) continue;
        ++*mismatch;
        if (o->msg) fprintf(o->msg, "hdgc bench kernels: order %d: %s differs from the hand-written one: output %s by %.3g "
                "(relative to its largest value; bound %g) at element %lld, value %d\n", k, r.info->name,
                r.info->out[r.diff.slot].name, r.diff.rel, HDG_HW_RTOL, r.diff.item, r.diff.index);
    }
    hdg_hw_cuda_free(&hc);
    hdg_cuda_compiled_free(&g), hdg_cuda_compiled_free(&h);
    subject_free(&s);
    return st;
}

hdg_status hdg_bench_kernels(const hdg_bench_kernels_opts *opt, FILE *out, hdg_report *rep, int *mismatch,
                             hdg_error *err)
{
    hdg_bench_kernels_opts o = *opt;
    if (o.reps < 1) o.reps = 5;
    if (o.threads < 1) o.threads = 1;
    *mismatch = 0;
    if (!o.kmin || !o.mesh) {   /* the file's order; the default mesh of its dimension */
        hdg_frontend_options fo = {0, NULL, 0};
        hdg_problem *p = hdg_cli_load_problem(o.file, &fo);
        if (!p) return hdg_fail(err, HDG_EINPUT, "%s does not load", o.file);
        if (!o.kmin) o.kmin = o.kmax = p->degree;
        if (!o.mesh) o.mesh = p->dim == 3 ? "cube:16" : "square:64";
        hdg_problem_free(p);
    }
    hdg_mesh mesh;
    hdg_status st = hdg_mesh_load(&mesh, o.mesh, err);
    if (st) return st;
    int threads0 = hdg_parallel_threads();
    if (o.threads > 1) hdg_parallel_set_threads(o.threads);
    if (rep) {
        hdg_report_string(rep, "benchmark", "kernels");
        hdg_report_string(rep, "file", o.file);
        hdg_report_string(rep, "mesh", o.mesh);
        hdg_report_int(rep, "elements", mesh.ne);
        hdg_report_string(rep, "backend", o.cuda ? "cuda" : "c");
        if (!o.cuda) hdg_report_int(rep, "threads", o.threads);
        hdg_report_int(rep, "reps", o.reps);
        hdg_report_number(rep, "rtol", HDG_HW_RTOL);
    }
    hdg_cuda_device *dev = NULL;
    if (o.cuda && !(st = hdg_cuda_device_open(0, &dev, err))) st = hdg_cuda_device_use(dev, err);
    if (!st) print_head(out, &o, mesh.ne);
    for (int k = o.kmin; k <= o.kmax && !st; k++) st = bench_order(&o, dev, k, &mesh, out, rep, mismatch, err);
    if (dev) hdg_cuda_device_close(dev);
    if (o.threads > 1) hdg_parallel_set_threads(threads0);
    if (rep) hdg_report_int(rep, "mismatches", *mismatch);
    hdg_mesh_free(&mesh);
    return st;
}
