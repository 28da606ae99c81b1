/* cmd_bench_pipeline.c — `hdgc bench pipeline FILE.hdg`: the stage times of
 * a whole run (HDG: local, assembly, Dirichlet, solve, recovery,
 * post-processing, errors; DG: the time steps) for each order and backend in
 * one process, the speedup of each backend over the first, and whether their
 * errors agree. Each (order, backend) runs once to compile (kernel caches
 * warm), then --reps times; a stage's figure is its best time over the reps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "compiler/module.h"
#include "drivers/run.h"
#include "runtime/cuda/cuda_driver.h"
#include "support/util.h"

#define MAXK 16
#define MAXB 4
#define AGREE 1e-8      /* errors agree to this, relative ... */
#define AGREE_ABS 1e-11 /* ... or absolute: the rounding floor of a solve to 1e-14 at k >= 5 */

static const char *const hdg_stages[] = { "geometry", "local", "assemble", "dirichlet", "solve", "recover",
                                          "postprocess", "errors", NULL };
static const char *const dg_stages[] = { "setup", "steps", NULL };

typedef struct cell {
    int ok;
    double t[16], run;         /* best seconds per stage, best sum */
    double err, iters, gflops; /* first unknown's error; HDG iterations; DG stage GFLOP/s */
    char err_name[64];
} cell;

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc bench pipeline FILE.hdg [--orders a..b] [--mesh SPEC] [--backends c,cuda]\n"
               "                          [--reps R] [--rtol r] [--final-time T] [--json F]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Runs FILE.hdg for every order and backend in one process and prints the time\n"
           "of every stage (HDG: geometry, local, assemble, dirichlet, solve, recover,\n"
           "postprocess, errors; DG: setup and the time steps), their sum (run: without\n"
           "parsing, mesh, lowering and compiling), the speedup of each backend over the\n"
           "first one on that sum, and whether the errors of the backends agree (relative\n"
           "%g, or %g absolute where an error nears the rounding floor of the solve;\n"
           "a larger difference exits 1). Every (order, backend) runs once first to\n"
           "compile its kernels; then --reps timed runs; a stage's figure is its best time.\n"
           "On the GPU each stage ends with a synchronisation, so its time includes the\n"
           "device work.\n"
           "\n"
           "options:\n"
           "  --orders a..b     orders to run (default: the file's)\n"
           "  --mesh SPEC       as for hdgc run (default square:8)\n"
           "  --backends LIST   comma list of c, cuda (default c,cuda; where no GPU opens,\n"
           "                    c alone, saying why the GPU part is skipped)\n"
           "  --reps R          timed runs per cell (default 3)\n"
           "  --rtol r          solver tolerance (HDG; default: as hdgc run)\n"
           "  --final-time T    end time (DG; default the file's)\n"
           "  --json F          also write the figures to F\n"
           "\n"
           "Example: hdgc bench pipeline examples/poisson.hdg --orders 1..9 --mesh square:80\n"
           "--json hdg-gpu.json (and --mesh square:512).\n", AGREE, AGREE_ABS);
}

static int bad(const char *fmt, const char *arg) { return hdg_bench_bad("bench pipeline", usage, fmt, arg); }

typedef struct options {
    const char *file, *mesh, *json;
    int kmin, kmax, reps, nb, backends_given;
    const char *backend[MAXB];
    double rtol, final_time;
} options;

static int parse(int argc, char **argv, options *o)
{
    static char blist[256];
    memset(o, 0, sizeof *o);
    o->mesh = "square:8", o->reps = 3;
    o->backend[0] = "c", o->backend[1] = "cuda", o->nb = 2;
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
        if (!strcmp(a, "--mesh")) o->mesh = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else if (!strcmp(a, "--reps")) {
            long r;
            if (!hdg_parse_long(v, 1, 100, &r)) return bad("--reps needs an integer 1..100, not '%s'", v);
            o->reps = (int)r;
        } else if (!strcmp(a, "--rtol")) {
            if (!hdg_parse_double(v, &o->rtol) || !(o->rtol > 0 && o->rtol < 1)) return bad("--rtol needs a number in (0, 1), not '%s'", v);
        } else if (!strcmp(a, "--final-time")) {
            if (!hdg_parse_double(v, &o->final_time) || !(o->final_time > 0)) return bad("--final-time needs a positive number, not '%s'", v);
        } else if (!strcmp(a, "--orders")) {
            if (!hdg_cli_range(v, 1, MAXK, &o->kmin, &o->kmax))
                return bad("--orders needs a..b with 1 <= a <= b <= 16, not '%s'", v);
        } else if (!strcmp(a, "--backends")) {
            snprintf(blist, sizeof blist, "%s", v);
            o->nb = 0, o->backends_given = 1;
            for (char *s = strtok(blist, ","); s; s = strtok(NULL, ",")) {
                if (strcmp(s, "c") && strcmp(s, "cuda")) return bad("--backends: unknown backend '%s' (c, cuda)", s);
                if (o->nb == MAXB) return bad("--backends: at most 4, not '%s'", v);
                o->backend[o->nb++] = s;
            }
            if (!o->nb) return bad("--backends needs a list, not '%s'", v);
        } else return bad("unknown option '%s'", a);
    }
    if (!o->file) return bad("%s", "no FILE.hdg given");
    return hdg_cli_check_output("bench pipeline", "--json", o->json, o->file) ? 2 : -1;
}

/* One run; fills c from the report (best of the reps so far). */
static hdg_status run_once(const hdg_problem *p, const options *o, const char *backend, int timed, cell *c,
                           hdg_error *err)
{
    hdg_run_options ro;
    hdg_run_options_default(&ro);
    ro.mesh = o->mesh, ro.backend = backend;
    if (o->rtol > 0) ro.rtol = o->rtol;
    if (o->final_time > 0) ro.final_time = o->final_time;
    hdg_report *rep = hdg_report_new();
    hdg_status st = hdg_run_problem(p, &ro, rep, err);
    if (!st && timed) {
        const char *const *names = p->method == HDG_METHOD_HDG ? hdg_stages : dg_stages;
        double run = 0;
        int f;
        for (int s = 0; names[s]; s++) {
            char path[96];
            snprintf(path, sizeof path, "timings.%s", names[s]);
            double t = hdg_report_get_number(rep, path, &f);
            if (!f) t = 0;
            c->t[s] = c->ok ? fmin(c->t[s], t) : t;
            run += t;
        }
        c->run = c->ok ? fmin(c->run, run) : run;
        c->iters = hdg_report_get_number(rep, "solver.iterations", &f);
        double g = hdg_report_get_number(rep, "perf.stage_gflops", &f);
        c->gflops = f ? fmax(c->ok ? c->gflops : 0, g) : NAN;
        c->err = NAN;
        for (int u = 0; u < p->nunknowns; u++) {
            snprintf(c->err_name, sizeof c->err_name, "errors.%s", p->unknowns[u].name);
            c->err = hdg_report_get_number(rep, c->err_name, &f);
            if (f) break;
            c->err = NAN;
        }
        c->ok = 1;
    }
    hdg_report_free(rep);
    return st;
}

static void print_table(const hdg_problem *p, const options *o, cell (*cells)[MAXB])
{
    const char *const *names = p->method == HDG_METHOD_HDG ? hdg_stages : dg_stages;
    printf("%s (%s) on %s, best of %d; seconds per stage\n", p->name, p->method == HDG_METHOD_HDG ? "HDG" : "DG",
           o->mesh, o->reps);
    printf("%2s %-7s", "k", "backend");
    for (int s = 0; names[s]; s++) printf(" %11.11s", names[s]);
    printf(" %11s %8s %11s\n", "run", "speedup", p->method == HDG_METHOD_HDG ? "iterations" : "GFLOP/s");
    for (int k = o->kmin; k <= o->kmax; k++)
        for (int b = 0; b < o->nb; b++) {
            const cell *c = &cells[k - o->kmin][b];
            if (!c->ok) continue;
            printf("%2d %-7s", k, o->backend[b]);
            for (int s = 0; names[s]; s++) printf(" %11.4e", c->t[s]);
            const cell *c0 = &cells[k - o->kmin][0];
            printf(" %11.4e %7.2fx %11.4g\n", c->run, c0->ok && c->run > 0 ? c0->run / c->run : NAN,
                   p->method == HDG_METHOD_HDG ? c->iters : c->gflops);
        }
}

static int write_json(const hdg_problem *p, const options *o, cell (*cells)[MAXB])
{
    const char *const *names = p->method == HDG_METHOD_HDG ? hdg_stages : dg_stages;
    hdg_report *j = hdg_report_new();
    hdg_report_string(j, "benchmark", "pipeline");
    hdg_report_string(j, "problem", p->name);
    hdg_report_string(j, "mesh", o->mesh);
    hdg_report_int(j, "reps", o->reps);
    for (int k = o->kmin; k <= o->kmax; k++)
        for (int b = 0; b < o->nb; b++) {
            const cell *c = &cells[k - o->kmin][b];
            if (!c->ok) continue;
            hdg_report *r = hdg_report_array_push_object(j, "runs");
            hdg_report_int(r, "order", k);
            hdg_report_string(r, "backend", o->backend[b]);
            for (int s = 0; names[s]; s++) {
                char path[96];
                snprintf(path, sizeof path, "timings.%s", names[s]);
                hdg_report_number(r, path, c->t[s]);
            }
            hdg_report_number(r, "timings.run", c->run);
            hdg_report_number(r, c->err_name, c->err);
            if (p->method == HDG_METHOD_HDG) hdg_report_number(r, "solver.iterations", c->iters);
            else hdg_report_number(r, "perf.stage_gflops", c->gflops);
        }
    return hdg_cli_write_report(j, o->json);
}

/* The default backends c,cuda without a GPU: the host part alone, saying why (an explicit
 * --backends cuda still fails with the device's error). */
static void drop_missing_gpu(options *o)
{
    if (o->backends_given) return;
    hdg_cuda_device *dev = NULL;
    hdg_error err = {0};
    if (!hdg_cuda_device_open(0, &dev, &err)) {
        hdg_cuda_device_close(dev);
        return;
    }
    o->nb = 1;
    printf("bench pipeline: the GPU part (cuda) is skipped: %s\n", err.msg);
}

int hdg_cmd_bench_pipeline(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    drop_missing_gpu(&o);
    hdg_frontend_options fo = {0, NULL, 0};
    hdg_problem *p0 = hdg_cli_load_problem(o.file, &fo);
    if (!p0) return 1;
    if (!o.kmin) o.kmin = o.kmax = p0->degree;
    hdg_problem_free(p0);
    cell (*cells)[MAXB] = hdg_xcalloc(MAXK, sizeof *cells);
    hdg_problem *p = NULL;
    rc = 0;
    for (int k = o.kmin; k <= o.kmax && !rc; k++) {
        fo.order = k;
        hdg_problem_free(p);
        if (!(p = hdg_cli_load_problem(o.file, &fo))) {
            rc = 1;
            break;
        }
        for (int b = 0; b < o.nb && !rc; b++) {
            hdg_error err = {0};
            cell *c = &cells[k - o.kmin][b];
            hdg_status st = run_once(p, &o, o.backend[b], 0, c, &err);
            for (int r = 0; r < o.reps && !st; r++) st = run_once(p, &o, o.backend[b], 1, c, &err);
            if (st) {
                fprintf(stderr, "hdgc: error: order %d, backend %s: %s\n", k, o.backend[b], err.msg);
                rc = 1;
            }
        }
    }
    if (p) {
        print_table(p, &o, cells);
        for (int k = o.kmin; k <= o.kmax; k++)
            for (int b = 1; b < o.nb; b++) {
                const cell *c0 = &cells[k - o.kmin][0], *c = &cells[k - o.kmin][b];
                if (!c0->ok || !c->ok || isnan(c0->err)) continue;
                double a = fabs(c->err - c0->err), d = a / fmax(fabs(c0->err), 1e-300);
                int ok = d <= AGREE || a <= AGREE_ABS;
                printf("k = %d: %s %s %.6e, %s %.6e: %s (relative %.1e, absolute %.1e)\n", k, c0->err_name, o.backend[0],
                       c0->err, o.backend[b], c->err, ok ? "agree" : "DISAGREE", d, a);
                if (!ok) rc = 1;
            }
        if (o.json && write_json(p, &o, cells)) rc = 1;
    }
    hdg_problem_free(p);
    free(cells);
    return rc;
}
