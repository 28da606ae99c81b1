/* bench_dg.c — explicit DG throughput (not a test; built as bench_dg):
 * examples/maxwell2d.hdg (or FILE.hdg) on square:M (default 128), cube:M for a
 * `mesh tetrahedron` file, for N = Nmin..Nmax.
 *   usage: bench_dg [M[,mesh options]] [Nmin] [Nmax] [rounds] [steps] [FILE.hdg]
 * (M may carry the mesh options of square:M, e.g. 16,periodic=xy).
 * Per degree and round it times, on the same random state,
 *   rhs     the fused right-hand-side kernel <name>_rhs alone (RHS evals/s);
 *   2-pass  one LSERK4 stage as <name>_rhs then <name>_update;
 *   stage   one LSERK4 stage as the fused <name>_step kernel, if the module
 *           has one (looked up by name, so this file also builds against
 *           trees without it);
 * all in the element order the driver uses (hdg_dg_order_elements, where the
 * tree has it; mesh order otherwise), then runs whole LSERK4 steps through
 * hdg_run_dg (energy watched every step, as in a real run) for DoF updates per
 * second: `steps` steps, or as many more as make the run last 0.5 s. Every figure is
 * the median over the rounds; rounds sweep all degrees in turn so that load
 * from other jobs on a shared machine spreads over all of them. A STREAM
 * triad is measured before every degree of every round; bandwidth fractions
 * use the median triad.
 * Bytes are the minimum traffic per element: rhs reads U and writes rhs
 * (16 B per DoF); a fused stage reads U and res and writes U' and res (32 B
 * per DoF); the two-pass stage adds the update's rhs, res, U traffic (56 B per
 * DoF in all); each pass also reads the geometry (8 B x ngeom: 20 on triangles)
 * and the face map (4 B x nimap: 9). Neighbour values are assumed to come from
 * cache. GFlop/s count the dense products of the Hesthaven-Warburton right-hand
 * side, the same for any implementation: the dim derivative matrices applied
 * to the F fields (2 dim F Np^2) and the lift (2 F Np (dim+1) Nfp) per element
 * (maxwell2d: 4 x 3 Np^2 and 2 x 3 Np 3Nfp; maxwell3d: 6 x 6 Np^2 and 2 x 6 Np 4Nfp). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/pipeline.h"
#include "drivers/run.h"
#include "drivers/mesh_data.h"
#include "ir/lower_dg.h"
#include "runtime/fem/geometry.h"
#include "runtime/solve/lserk4.h"
#include "runtime/mesh/mesh.h"
#include "runtime/parallel/parallel.h"
#include "runtime/parallel/stream.h"
#include "support/util.h"

#define MAXR 15
#define MAXN 10

typedef struct sample { double triad, rhs, twopass, stage, dofs_per_s; } sample;

typedef struct bench {
    hdg_mesh m;
    hdg_geom g;
    double rmin;
    int N;
    hdg_problem *p;
    hdg_dg_lowered L;
    hdg_compiled comp;
    hdg_kernel_fn rhs, update, step;
    double *geom, *params, *U, *U2, *R, *res;
    int *fmap;
    long long n;
    const char *file;
} bench;

/* Launches per second of fn(a) over the mesh: repeats until 0.25 s have passed. */
/* BENCH_DG_CPU=1 with one thread (HDG_THREADS=1): kernel rates by this thread's CPU time, so that
 * time slices other jobs take on a shared machine are not charged to a kernel (cache and memory
 * bandwidth interference still are); otherwise wall time. */
static int cpu_clock(void)
{
    const char *s = getenv("BENCH_DG_CPU");
    return s && *s == '1' && hdg_parallel_threads() == 1;
}

static double now(void)
{
    if (!cpu_clock()) return hdg_wtime();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The STREAM triad a[i] = b[i] + 3 c[i] (24 B per entry, 3 x 256 MiB) on this thread, best of 3,
 * timed as the kernels are (now()): with BENCH_DG_CPU=1 by CPU time, else hdg_stream_triad. */
static double triad(void)
{
    if (!cpu_clock()) return hdg_stream_triad(0, 3);
    long long n = 256LL * 1024 * 1024 / 8;
    double *a = hdg_xmalloc(sizeof(double) * (size_t)n), *x = hdg_xmalloc(sizeof(double) * (size_t)n);
    double *y = hdg_xmalloc(sizeof(double) * (size_t)n), best = 0;
    for (long long i = 0; i < n; i++) a[i] = 0.0, x[i] = 1.0, y[i] = 2.0;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        for (long long i = 0; i < n; i++) a[i] = x[i] + 3.0 * y[i];
        double dt = now() - t0;
        if (dt > 0 && a[n - 1] == 7.0) best = fmax(best, 24.0 * (double)n / dt * 1e-9);
    }
    free(a), free(x), free(y);
    return best;
}

static double rate(const bench *b, hdg_kernel_fn f1, const hdg_kargs *a1, hdg_kernel_fn f2, const hdg_kargs *a2)
{
    long long reps = 0;
    double t0 = now(), t;
    do {
        hdg_launch(f1, b->m.ne, a1);
        if (f2) hdg_launch(f2, b->m.ne, a2);
        reps++;
        t = now() - t0;
    } while (t < 0.25 || reps < 3);
    return reps / t;
}

static int setup(bench *b, int N)
{
    hdg_error err;
    hdg_setting none = { NULL, 0 };
    hdg_frontend_options fo = { N, &none, 0 };
    hdg_diags d;
    hdg_diags_init(&d);
    b->N = N;
    b->p = hdg_problem_load(b->file, &fo, &d);
    hdg_diags_free(&d);
    if (!b->p) return -1;
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    if (hdg_lower_dg(b->p, &b->L, &err) || hdg_compile_c(b->L.mod, &co, &b->comp, &err)) {
        fprintf(stderr, "bench_dg: %s\n", err.msg);
        return -1;
    }
    char name[128];
    snprintf(name, sizeof name, "%s_step", b->p->name);
    b->rhs = hdg_compiled_find(&b->comp, b->L.rhs, NULL);
    b->update = hdg_compiled_find(&b->comp, b->L.update, NULL);
    b->step = hdg_compiled_find(&b->comp, name, NULL);
    if (!b->rhs || !b->update) return -1;
    int ne = b->m.ne;
    b->n = (long long)ne * b->L.nfields * b->L.Np;
    b->geom = hdg_xmalloc(sizeof(double) * (size_t)ne * b->L.ngeom);
    b->fmap = hdg_xmalloc(sizeof(int) * (size_t)ne * b->L.nimap);
    if (hdg_dg_fill_maps(&b->L, b->p, &b->m, &b->g, b->geom, b->fmap, &err)) {
        fprintf(stderr, "bench_dg: %s\n", err.msg);
        return -1;
    }
    int *pos = hdg_xmalloc(sizeof(int) * (size_t)ne);
    hdg_dg_order_elements(&b->L, &b->m, b->geom, b->fmap, pos);
    free(pos);
    b->params = hdg_xcalloc((size_t)b->L.nparams, sizeof(double));
    for (int i = 0; i < b->p->nparams; i++) b->params[i] = b->p->params[i].value;
    b->params[b->L.p_rka] = hdg_lserk4_a[1];
    b->params[b->L.p_rkb] = hdg_lserk4_b[1];
    b->params[b->L.p_dt] = 1e-9;   /* tiny steps: the state stays bounded however often we run */
    double *v[4];
    for (int k = 0; k < 4; k++) v[k] = hdg_xmalloc(sizeof(double) * (size_t)b->n);
    b->U = v[0], b->U2 = v[1], b->R = v[2], b->res = v[3];
    unsigned long long s = 88172645463325252ULL;
    for (long long i = 0; i < b->n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        b->U[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        b->U2[i] = b->R[i] = b->res[i] = 0;
    }
    if (b->p->nonlinear) {   /* a random state means nothing to a nonlinear flux (rho < 0): the initial one */
        hdg_kernel_fn init = hdg_compiled_find(&b->comp, b->L.initial, NULL);
        if (!init) return -1;
        hdg_kargs a = { .nitems = ne, .geom = b->geom, .params = b->params, .t = 0.0 };
        a.imap[0] = b->fmap, a.out[0] = b->U;
        hdg_launch(init, ne, &a);
    }
    return 0;
}

static void teardown(bench *b)
{
    free(b->geom), free(b->fmap), free(b->params);
    free(b->U), free(b->U2), free(b->R), free(b->res);
    hdg_compiled_free(&b->comp);
    hdg_dg_lowered_free(&b->L);
    hdg_problem_free(b->p);
    b->p = NULL;
}

static int measure(bench *b, int steps, sample *out)
{
    hdg_error err;
    hdg_kargs ar = { .nitems = b->m.ne, .geom = b->geom, .params = b->params, .t = 0.1 };
    ar.in[0] = b->U, ar.imap[0] = b->fmap, ar.out[0] = b->R;
    hdg_kargs au = ar;
    au.in[0] = b->R, au.imap[0] = NULL, au.out[0] = b->U2, au.out[1] = b->res;
    hdg_kargs as = ar;
    as.out[0] = b->U2, as.out[1] = b->res;
    out->triad = triad();
    out->rhs = rate(b, b->rhs, &ar, NULL, NULL);
    out->twopass = rate(b, b->rhs, &ar, b->update, &au);
    out->stage = b->step ? rate(b, b->step, &as, NULL, NULL) : 0;
    for (int pass = 0; pass < 2; pass++) {   /* a second, longer run when the first was short */
        hdg_run_options o;
        memset(&o, 0, sizeof o);
        o.use_cache = 1;
        o.cfl = 0.75;
        o.final_time = (steps - 0.5) * hdg_dg_dt(b->N, b->rmin, 0.75);
        hdg_report *rep = hdg_report_new();
        if (hdg_run_dg(b->p, &b->m, &o, rep, &err)) {
            fprintf(stderr, "bench_dg: %s\n", err.msg);
            hdg_report_free(rep);
            return -1;
        }
        out->dofs_per_s = hdg_report_get_number(rep, "perf.dof_updates_per_s", NULL);
        double t = hdg_report_get_number(rep, "timings.steps", NULL);
        hdg_report_free(rep);
        if (t >= 0.5 || !(t > 0)) break;
        steps = (int)fmin(steps * ceil(0.5 / t), 1000);
    }
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const sample *s, int n, size_t off)
{
    double v[MAXR];
    for (int i = 0; i < n; i++) v[i] = *(const double *)((const char *)&s[i] + off);
    qsort(v, (size_t)n, sizeof v[0], cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int M = argc > 1 ? atoi(argv[1]) : 128, n0 = argc > 2 ? atoi(argv[2]) : 1, n1 = argc > 3 ? atoi(argv[3]) : 8;
    int rounds = argc > 4 ? atoi(argv[4]) : 3, steps = argc > 5 ? atoi(argv[5]) : 2;
    if (n0 < 1) n0 = 1;
    if (n1 > MAXN) n1 = MAXN;
    if (rounds < 1) rounds = 1;
    if (rounds > MAXR) rounds = MAXR;
    hdg_error err;
    bench b;
    memset(&b, 0, sizeof b);
    b.file = argc > 6 ? argv[6] : HDG_EXAMPLES "/maxwell2d.hdg";
    hdg_setting none = { NULL, 0 };
    hdg_frontend_options fo = { 1, &none, 0 };
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p0 = hdg_problem_load(b.file, &fo, &d);
    hdg_diags_free(&d);
    if (!p0) {
        fprintf(stderr, "bench_dg: cannot load %s\n", b.file);
        return 1;
    }
    int dim = p0->dim;
    hdg_problem_free(p0);
    char spec[160];
    const char *opts = argc > 1 ? strchr(argv[1], ',') : NULL;   /* "16,periodic=xy" */
    snprintf(spec, sizeof spec, "%s:%d%s", dim == 3 ? "cube" : "square", M, opts ? opts : "");
    if (hdg_mesh_load(&b.m, spec, &err) || hdg_geom_init(&b.g, &b.m, &err)) {
        fprintf(stderr, "bench_dg: %s\n", err.msg);
        return 1;
    }
    b.rmin = 1e300;
    for (int e = 0; e < b.m.ne; e++) b.rmin = fmin(b.rmin, b.g.rin[e]);
    static sample S[MAXN + 1][MAXR];
    long long dofs[MAXN + 1];
    double flops[MAXN + 1], per_el = 0;
    for (int r = 0; r < rounds; r++)
        for (int N = n0; N <= n1; N++) {
            if (setup(&b, N) || measure(&b, steps, &S[N][r])) return 1;
            dofs[N] = b.n;
            flops[N] = 2.0 * dim * b.L.nfields * b.L.Np * b.L.Np + 2.0 * b.L.nfields * b.L.Np * (dim + 1) * b.L.Nfp;
            per_el = 8.0 * b.L.ngeom + 4.0 * b.L.nimap;
            fprintf(stderr, "round %d N %d: triad %.2f GB/s, rhs %.1f/s, 2-pass stage %.1f/s, stage %.1f/s, "
                            "%.3e DoF/s\n", r + 1, N, S[N][r].triad, S[N][r].rhs, S[N][r].twopass, S[N][r].stage,
                    S[N][r].dofs_per_s);
            teardown(&b);
        }
    printf("%s (%d elements), %d threads, %s, medians of %d rounds, %d steps per run\n", spec, b.m.ne,
           hdg_parallel_threads(), b.file, rounds, steps);
    if (cpu_clock())
        printf("kernel rates and triad by thread CPU time (BENCH_DG_CPU=1); DoF upd/s of the step kernel alone: "
               "stage/s x DoFs / 5\n");
    printf("%2s %8s %6s %9s %7s %7s %9s %9s %7s %11s\n", "N", "DoFs", "triad", "rhs/s", "GFlop/s", "of trd",
           "2-pass/s", "stage/s", "of trd", "DoF upd/s");
    for (int N = n0; N <= n1; N++) {
        double tr = median(S[N], rounds, offsetof(sample, triad));
        double rh = median(S[N], rounds, offsetof(sample, rhs));
        double tp = median(S[N], rounds, offsetof(sample, twopass));
        double st = median(S[N], rounds, offsetof(sample, stage));
        double du = median(S[N], rounds, offsetof(sample, dofs_per_s));
        if (cpu_clock()) du = st * (double)dofs[N] / 5;   /* LSERK4: 5 stages a step */
        double el_bytes = per_el * (double)b.m.ne;
        double rhs_gbs = (16 * (double)dofs[N] + el_bytes) * rh * 1e-9;
        double st_gbs = (32 * (double)dofs[N] + el_bytes) * st * 1e-9;
        printf("%2d %8lld %6.2f %9.1f %7.2f %6.1f%% %9.1f %9.1f %6.1f%% %11.3e\n", N, dofs[N], tr, rh,
               flops[N] * b.m.ne * rh * 1e-9, 100 * rhs_gbs / tr, tp, st, 100 * st_gbs / tr, du);
    }
    hdg_geom_free(&b.g);
    hdg_mesh_free(&b.m);
    return 0;
}
