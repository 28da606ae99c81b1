/* cmd_run.c — `hdgc run FILE.hdg [options]`: parse, check, lower, compile and
 * solve a problem; print a summary and optionally write JSON / VTK. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/commands.h"
#include "compiler/run.h"
#include "support/util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc run FILE.hdg [--mesh square:N | FILE.msh] [--order k] [--set name=value]...\n"
               "                [--backend c|cuda|auto] [--solver cg|gmres] [--precond block|jacobi|none]\n"
               "                [--format block|csr] [--rtol r] [--maxit n] [--restart m]\n"
               "                [--vtk out.vtu|out.pvd] [--every n] [--cfl c] [--final-time T]\n"
               "                [--json report.json] [--no-cache] [--quiet]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Solves the problem of FILE.hdg (docs/language.md) on a mesh and reports the errors\n"
           "against its exact solution. HDG problems (with a trace unknown): element kernels,\n"
           "static condensation, trace system in dense block format, Krylov solve, recovery.\n"
           "Explicit DG problems (with dt() terms): LSERK4 time stepping to the final time.\n"
           "\n"
           "options:\n"
           "  --mesh SPEC         square:N[,perturb=p][,domain=[a,b]^2] or a Gmsh .msh file\n"
           "                      (default square:8)\n"
           "  --order k           polynomial degree (overrides the file's degree)\n"
           "  --set name=value    override a param (repeatable)\n"
           "  --backend NAME      c (default: the host CPU), cuda (an NVIDIA GPU: the same\n"
           "                      kernels compiled with NVRTC, every stage on the device) or\n"
           "                      auto (cuda when a GPU opens, else c; the choice is printed)\n"
           "  --solver NAME       cg or gmres (default: cg when the trace matrix is symmetric)\n"
           "  --precond NAME      block (face-block Jacobi, default), jacobi or none\n"
           "  --format NAME       trace matrix the solver multiplies with: block (dense blocks of\n"
           "                      seed 000, default) or csr (for comparison; host only)\n"
           "  --rtol r            relative residual tolerance of the solver (default 1e-10)\n"
           "  --maxit n           iteration limit (default max(1000, 2 x unknowns))\n"
           "  --restart m         GMRES restart length (default 100)\n"
           "  --vtk FILE          write the solution (.vtu; DG: .pvd time series)\n"
           "  --every n           DG: write every n steps (with --vtk)\n"
           "  --cfl c             DG: CFL number (overrides the file)\n"
           "  --final-time T      DG: final time (overrides the file)\n"
           "  --json FILE         write the full report (sizes, solver, errors, timings)\n"
           "  --no-cache          do not use the on-disk kernel cache\n"
           "  --quiet             print nothing but errors\n"
           "\n"
           "Exit status: 0 solved; 1 bad input, a solver that did not converge or a blow-up;\n"
           "2 bad usage.\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "hdgc run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static int number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *s && !*end && errno == 0;
}

typedef struct run_args {
    const char *path, *json;
    hdg_frontend_options fo;
    hdg_setting *sets;
    hdg_run_options ro;
    int quiet;
} run_args;

/* Returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, run_args *A)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(); return 0; }
        if (!strcmp(a, "--quiet")) { A->quiet = 1; continue; }
        if (!strcmp(a, "--no-cache")) { A->ro.use_cache = 0; continue; }
        if (a[0] != '-' || !a[1]) {
            if (A->path) return bad("more than one file ('%s')", a);
            A->path = a;
            continue;
        }
        if (!v) return bad("%s needs a value", a);
        i++;
        if (!strcmp(a, "--mesh")) A->ro.mesh = v;
        else if (!strcmp(a, "--backend")) A->ro.backend = v;
        else if (!strcmp(a, "--solver")) A->ro.solver = v;
        else if (!strcmp(a, "--precond")) A->ro.precond = v;
        else if (!strcmp(a, "--format")) A->ro.format = v;
        else if (!strcmp(a, "--vtk")) A->ro.vtk = v;
        else if (!strcmp(a, "--json")) A->json = v;
        else if (!strcmp(a, "--order")) {
            if (!number(v, &d) || d != (int)d || d < 1 || d > 20)
                return bad("--order %s: expected an integer between 1 and 20", v);
            A->fo.order = (int)d;
        } else if (!strcmp(a, "--rtol")) {
            if (!number(v, &d) || !(d > 0 && d < 1)) return bad("--rtol %s: expected a number in (0, 1)", v);
            A->ro.rtol = d;
        } else if (!strcmp(a, "--maxit") || !strcmp(a, "--every") || !strcmp(a, "--restart")) {
            if (!number(v, &d) || d != (int)d || d < 1) return bad("%s: expected a positive integer", v);
            if (a[2] == 'm') A->ro.maxit = (int)d;
            else if (a[2] == 'r') A->ro.restart = (int)d;
            else A->ro.every = (int)d;
        } else if (!strcmp(a, "--cfl") || !strcmp(a, "--final-time")) {
            if (!number(v, &d) || !(d > 0)) return bad("%s: expected a positive number", v);
            if (a[2] == 'c') A->ro.cfl = d;
            else A->ro.final_time = d;
        } else if (!strcmp(a, "--set")) {
            char *arg = argv[i], *eq = strchr(arg, '=');
            if (!eq || eq == arg || !number(eq + 1, &d)) return bad("--set %s: expected name=number", arg);
            *eq = '\0';
            A->sets[A->fo.nsets++] = (hdg_setting){arg, d};
        } else return bad("unknown option '%s'", a);
    }
    if (!A->path) return bad("no file given%s", "");
    A->fo.sets = A->sets;
    return -1;
}

static void summary(FILE *f, const hdg_report *r, const hdg_problem *p)
{
    int found;
    if (p->method == HDG_METHOD_DG) goto times;   /* the DG driver logs its own summary */
    fprintf(f, "%s (%s, order %d) on %s: %.0f elements, %.0f faces\n", p->name,
            hdg_method_name(p->method), p->degree, p->file,
            hdg_report_get_number(r, "mesh.elements", &found), hdg_report_get_number(r, "mesh.faces", &found));
    double it = hdg_report_get_number(r, "solver.iterations", &found);
    if (found)
        fprintf(f, "  trace dofs %.0f, %s iterations %.0f, relative residual %.2e\n",
                hdg_report_get_number(r, "dofs.trace", &found),
                "solver", it, hdg_report_get_number(r, "solver.residual", &found));
    for (int u = 0; u < p->nunknowns; u++) {
        char path[160];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        double e = hdg_report_get_number(r, path, &found);
        if (found) fprintf(f, "  L2 error %-8s %.6e\n", p->unknowns[u].name, e);
    }
times:;
    static const char *stages[] = {"parse", "lower", "compile", "local", "assemble", "solve",
                                   "recover", "postprocess", "errors", "setup", "stages", "output", "total"};
    fprintf(f, "  time:");
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) {
        char path[64];
        snprintf(path, sizeof path, "timings.%s", stages[i]);
        double t = hdg_report_get_number(r, path, &found);
        if (found) fprintf(f, " %s %.3fs", stages[i], t);
    }
    fprintf(f, "%s\n", hdg_report_get_number(r, "compile.cache_hits", &found) > 0 ? " (kernels from cache)" : "");
}

int hdg_cmd_run(int argc, char **argv)
{
    run_args A;
    memset(&A, 0, sizeof A);
    hdg_run_options_default(&A.ro);
    A.sets = calloc((size_t)argc + 1, sizeof *A.sets);
    int rc = parse_args(argc, argv, &A);
    if (rc >= 0) { free(A.sets); return rc; }
    double t0 = hdg_wtime();
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(A.path, &A.fo, &d);
    char *text = hdg_diags_render(&d);
    fputs(text, stderr);
    free(text);
    hdg_diags_free(&d);
    if (!p) { free(A.sets); return 1; }
    A.ro.t_parse = hdg_wtime() - t0;
    A.ro.log = A.quiet ? NULL : stdout;
    A.ro.progress = !A.quiet && isatty(2);
    hdg_report *rep = hdg_report_new();
    hdg_error err = {0};
    hdg_status st = hdg_run_problem(p, &A.ro, rep, &err);
    const char *note = hdg_report_get_string(rep, "backend_note");
    if (note && !A.quiet) fprintf(stderr, "hdgc run: %s\n", note);
    if (!A.quiet && (!st || st == HDG_ESOLVER)) summary(stdout, rep, p);
    if (st) fprintf(stderr, "hdgc run: error: %s\n", err.msg);
    if (A.json) {
        hdg_error e2 = {0};
        if (hdg_report_write(rep, A.json, &e2)) {
            fprintf(stderr, "hdgc run: error: %s\n", e2.msg);
            if (!st) st = e2.code;
        }
    }
    hdg_report_free(rep);
    hdg_problem_free(p);
    free(A.sets);
    return st ? 1 : 0;
}
