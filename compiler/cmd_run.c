/* cmd_run.c — `hdgc run FILE.hdg [options]`: parse, check, lower, compile and
 * solve a problem; print a summary and optionally write JSON / VTK. */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/commands.h"
#include "compiler/run.h"
#include "compiler/run_png.h"
#include "support/progress.h"
#include "support/util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc run FILE.hdg [--mesh square:N | FILE.msh] [--order k] [--set name=value]...\n"
               "                [--backend c|cuda|auto] [--solver cg|gmres|petsc] [--petsc OPTS]\n"
               "                [--precond mg|block|jacobi|none] [--format block|csr] [--rtol r] [--maxit n] [--restart m]\n"
               "                [--vtk out.vtu|out.pvd] [--every n] [--cfl c] [--final-time T]\n"
               "                [--png out.png] [--field NAME] [--size WxH] [--edges]\n"
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
           "  --solver NAME       cg or gmres (default: cg when the trace matrix is symmetric), or\n"
           "                      petsc: PETSc's KSP on the trace matrix as BAIJ of the face\n"
           "                      block size (host; default CG or GMRES with PC GAMG)\n"
           "  --petsc OPTS        PETSc options for --solver petsc (or the coarse solve of --precond\n"
           "                      mg, e.g. \"-pc_type gamg\"), after PETSC_OPTIONS, e.g.\n"
           "                      \"-ksp_type preonly -pc_type lu -pc_factor_mat_solver_type mumps\"\n"
           "  --precond NAME      mg (two-level: Chebyshev face-block smoother, continuous P1\n"
           "                      coarse space solved by PETSc's BoomerAMG; iterations do not\n"
           "                      grow with the mesh; --petsc OPTS tune the coarse solve),\n"
           "                      block (face-block Jacobi), jacobi or none. Default: mg from\n"
           "                      10000 trace unknowns on, block below\n"
           "  --format NAME       trace matrix the solver multiplies with: block (dense blocks of\n"
           "                      seed 000, default) or csr (for comparison; host only)\n"
           "  --rtol r            relative residual tolerance of the solver, at least 2.2e-16;\n"
           "                      a solver that stagnates above it fails and says so. Default:\n"
           "                      1e-14 (PETSc 1e-12), or the attainable accuracy where the\n"
           "                      residual stops decreasing first (below 1e-10), so that the\n"
           "                      algebra never limits the discretisation. A run that stops\n"
           "                      where the residual may dominate the error warns\n"
           "  --maxit n           iteration limit (default max(1000, 2 x unknowns))\n"
           "  --restart m         GMRES restart length (default 100, at most the unknowns)\n"
           "  --vtk FILE          write the solution (.vtu; DG: .pvd time series, staged as\n"
           "                      FILE.partial.pvd and renamed at the end, so a run that blows\n"
           "                      up never replaces a good series; HDG: x.pvd gets x_00000.vtu)\n"
           "  --every n           DG: write every n steps (with --vtk or a --png pattern)\n"
           "  --png FILE          a picture of a field (cairo, viridis, colour bar with its\n"
           "                      min/max, caption; DG: at the final time); the report gets\n"
           "                      output.png_min/max. DG frames: a pattern 'f/Ez_%%04d.png'\n"
           "                      writes t = 0, every --every n steps and the end, in one\n"
           "                      colour range (+-1.1 x the first non-zero frame's max |value|)\n"
           "  --field NAME        the field --png draws: an element unknown or a component\n"
           "                      (u, q_x, q_y, ustar); default the first scalar element unknown\n"
           "  --size WxH          --png picture size in pixels (default 800x800, 200..8192)\n"
           "  --edges             --png: draw the elements' edges\n"
           "  --cfl c             DG: CFL number (overrides the file): dt = c x the Hesthaven-\n"
           "                      Warburton step of speed 1 / the equations' wave speed\n"
           "  --final-time T      DG: final time (overrides the file)\n"
           "  --json FILE         write the full report (status, error, sizes, solver, errors,\n"
           "                      timings), also for a run that fails\n"
           "  --no-cache          do not use the on-disk kernel cache\n"
           "  --quiet             print nothing but errors\n"
           "\n"
           "On a terminal (stderr a TTY, TERM not dumb) a progress line shows the stage, the\n"
           "Krylov iterations with their residual, or the DG steps with the time and an ETA;\n"
           "it is erased at the end and never written to a file, a pipe or with --quiet.\n"
           "\n"
           "Numbers are decimal (no hex, inf or nan); each option but --set at most once.\n"
           "Environment: HDG_THREADS (1..256), HDGC_CACHE_DIR, HDGC_MEMORY_LIMIT (bytes; default\n"
           "MemAvailable: a run that needs more is refused with the estimate).\n"
           "\n"
           "Exit status: 0 solved; 1 bad input, a solver that did not converge, a blow-up or too\n"
           "little memory; 2 bad usage.\n");
}

static int bad2(const char *fmt, const char *opt, const char *arg)
{
    fprintf(stderr, "hdgc run: ");
    fprintf(stderr, fmt, opt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "hdgc run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

typedef struct run_args {
    const char *path, *json;
    hdg_frontend_options fo;
    hdg_setting *sets;
    hdg_run_options ro;
    int quiet;
    const char **seen;   /* options given so far (each at most once, but --set) */
    int nseen;
} run_args;

static int integer(const char *s, long lo, long hi, int *out)
{
    long v;
    if (!hdg_parse_long(s, lo, hi, &v)) return 0;
    *out = (int)v;
    return 1;
}

/* --size WxH */
static int size_arg(const char *v, hdg_run_options *o)
{
    char w[32];
    const char *x = strchr(v, 'x');
    if (!x || x - v >= (long)sizeof w) return 0;
    memcpy(w, v, (size_t)(x - v));
    w[x - v] = '\0';
    return integer(w, 200, 8192, &o->png_width) && integer(x + 1, 200, 8192, &o->png_height);
}

/* One option with its value v; returns -1 to go on, else an exit code. */
static int option(run_args *A, const char *a, char *v)
{
    double d;
    if (strcmp(a, "--set") && hdg_cli_twice("run", A->seen, &A->nseen, a)) return 2;
    if (!strcmp(a, "--mesh")) A->ro.mesh = v;
    else if (!strcmp(a, "--backend")) A->ro.backend = v;
    else if (!strcmp(a, "--solver")) A->ro.solver = v;
    else if (!strcmp(a, "--petsc")) A->ro.petsc = v;
    else if (!strcmp(a, "--precond")) A->ro.precond = v;
    else if (!strcmp(a, "--format")) A->ro.format = v;
    else if (!strcmp(a, "--vtk")) A->ro.vtk = v;
    else if (!strcmp(a, "--png")) {
        if (!hdg_png_pattern_ok(v)) return bad("--png %s: a frame pattern has one %%d (e.g. %%04d) and no other %%", v);
        A->ro.png = v;
    } else if (!strcmp(a, "--field")) A->ro.png_field = v;
    else if (!strcmp(a, "--size")) {
        if (!size_arg(v, &A->ro)) return bad("--size %s: expected WxH, each between 200 and 8192 pixels", v);
    } else if (!strcmp(a, "--json")) A->json = v;
    else if (!strcmp(a, "--order")) {
        if (!integer(v, 1, 20, &A->fo.order)) return bad("--order %s: expected an integer between 1 and 20", v);
    } else if (!strcmp(a, "--rtol")) {
        if (!hdg_parse_double(v, &d) || !(d > 0 && d < 1)) return bad("--rtol %s: expected a number in (0, 1)", v);
        if (d < DBL_EPSILON)   /* ||b - A x|| / ||b|| carries rounding errors of that size (hdg run) */
            return bad("--rtol %s: below the double precision epsilon 2.2e-16, out of any solver's reach", v);
        A->ro.rtol = d;
    } else if (!strcmp(a, "--maxit") || !strcmp(a, "--every") || !strcmp(a, "--restart")) {
        int k;
        if (!integer(v, 1, 1000000000, &k)) return bad2("%s %s: expected an integer between 1 and 1000000000", a, v);
        if (a[2] == 'm') A->ro.maxit = k;
        else if (a[2] == 'r') A->ro.restart = k;
        else A->ro.every = k;
    } else if (!strcmp(a, "--cfl") || !strcmp(a, "--final-time")) {
        if (!hdg_parse_double(v, &d) || !(d > 0)) return bad2("%s %s: expected a positive decimal number", a, v);
        if (a[2] == 'c') A->ro.cfl = d;
        else A->ro.final_time = d;
    } else if (!strcmp(a, "--set")) {
        char *eq = strchr(v, '=');
        if (!eq || eq == v || !hdg_parse_double(eq + 1, &d)) return bad("--set %s: expected name=number", v);
        *eq = '\0';
        for (int k = 0; k < A->fo.nsets; k++)
            if (!strcmp(A->sets[k].name, v)) return bad("--set %s given twice", v);
        A->sets[A->fo.nsets++] = (hdg_setting){v, d};
    } else return bad("unknown option '%s'", a);
    return -1;
}

/* Output paths are checked before the run, not after it. */
static int check_outputs(const run_args *A)
{
    int rc = hdg_cli_check_output("run", "--json", A->json, A->path);
    if (!rc) rc = hdg_cli_check_output("run", "--vtk", A->ro.vtk, A->path);
    if (!rc) rc = hdg_cli_check_output("run", "--json", A->json, A->ro.mesh);   /* a .msh file */
    if (!rc) rc = hdg_cli_check_output("run", "--vtk", A->ro.vtk, A->ro.mesh);
    if (!rc) rc = hdg_cli_check_output("run", "--png", A->ro.png, A->path);
    if (!rc) rc = hdg_cli_check_output("run", "--png", A->ro.png, A->ro.mesh);
    if (!rc && !A->ro.png && (A->ro.png_field || A->ro.png_width || A->ro.png_edges)) {
        fprintf(stderr, "hdgc run: --field, --size and --edges go with --png\n");
        rc = 2;
    }
    if (!rc && A->ro.png && ((A->json && hdg_cli_same_file(A->json, A->ro.png)) ||
                             (A->ro.vtk && hdg_cli_same_file(A->ro.vtk, A->ro.png)))) {
        fprintf(stderr, "hdgc run: --png names the same file as --json or --vtk '%s'\n", A->ro.png);
        rc = 2;
    }
    if (!rc && A->json && A->ro.vtk && hdg_cli_same_file(A->json, A->ro.vtk)) {
        fprintf(stderr, "hdgc run: --json and --vtk name the same file '%s'\n", A->json);
        rc = 2;
    }
    return rc;
}

/* Returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, run_args *A)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(); return 0; }
        if (!strcmp(a, "--quiet")) { A->quiet = 1; continue; }
        if (!strcmp(a, "--no-cache")) { A->ro.use_cache = 0; continue; }
        if (!strcmp(a, "--edges")) { A->ro.png_edges = 1; continue; }
        if (!*a) return bad("empty argument%s", "");
        if (a[0] != '-' || !a[1]) {
            if (A->path) return bad("more than one file ('%s')", a);
            A->path = a;
            continue;
        }
        if (i + 1 >= argc) return bad("%s needs a value", a);
        int rc = option(A, a, argv[++i]);
        if (rc >= 0) return rc;
    }
    if (!A->path) return bad("no file given%s", "");
    A->fo.sets = A->sets;
    return check_outputs(A) ? 2 : -1;
}

static void summary(FILE *f, const hdg_report *r, const hdg_problem *p)
{
    int found;
    if (p->method == HDG_METHOD_DG) goto times;   /* the DG driver logs its own summary */
    fprintf(f, "%s (%s, order %d) on %s: %.0f elements, %.0f faces\n", p->name,
            hdg_method_name(p->method), p->degree, p->file,
            hdg_report_get_number(r, "mesh.elements", &found), hdg_report_get_number(r, "mesh.faces", &found));
    double it = hdg_report_get_number(r, "solver.iterations", &found);
    const char *ksp = hdg_report_get_string(r, "solver.ksp_type"), *pc = hdg_report_get_string(r, "solver.pc_type");
    const char *why = hdg_report_get_string(r, "solver.converged_reason");
    char name[200] = "solver";
    if (ksp && pc && why) snprintf(name, sizeof name, "PETSc %s + %s (%s)", ksp, pc, why);
    if (found)
        fprintf(f, "  trace dofs %.0f, %s iterations %.0f, relative residual %.2e\n",
                hdg_report_get_number(r, "dofs.trace", &found),
                name, it, hdg_report_get_number(r, "solver.residual", &found));
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

/* The outcome, in every case: "status" ("ok" or "failed"), "exit_code", and
 * for a failure "error.kind" and "error.message". */
static void record_outcome(hdg_report *rep, hdg_status st, const char *msg, int rc)
{
    hdg_report_string(rep, "status", st ? "failed" : "ok");
    hdg_report_int(rep, "exit_code", rc);
    if (st) {
        hdg_report_string(rep, "error.kind", hdg_status_name(st));
        hdg_report_string(rep, "error.message", msg);
    }
}

/* Writes the report (atomically); a write error turns an ok run into exit 1. */
static int write_json(const hdg_report *rep, const char *path, int rc)
{
    hdg_error e2 = {0};
    if (!path || !hdg_report_write(rep, path, &e2)) return rc;
    fprintf(stderr, "hdgc run: error: %s\n", e2.msg);
    return 1;
}

/* A regular report file (or none yet) is replaced by {"status": "running"}
 * before the work, so a run killed on the way (out of memory, a signal)
 * leaves no older report that looks like its result, and an unwritable one
 * fails before the work. Not a device or FIFO (/dev/stdout gets one report). */
static int replace_early(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 || S_ISREG(st.st_mode);
}

static hdg_problem *load(run_args *A, hdg_report *rep)
{
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(A->path, &A->fo, &d);
    char *text = hdg_diags_render(&d);
    fputs(text, stderr);
    if (!p) {
        size_t n = strlen(text);
        while (n && text[n - 1] == '\n') text[--n] = '\0';
        hdg_report_string(rep, "file", A->path);
        record_outcome(rep, HDG_EINPUT, text, 1);
    }
    free(text);
    hdg_diags_free(&d);
    return p;
}

int hdg_cmd_run(int argc, char **argv)
{
    run_args A;
    memset(&A, 0, sizeof A);
    hdg_run_options_default(&A.ro);
    A.sets = calloc((size_t)argc + 1, sizeof *A.sets);
    A.seen = calloc((size_t)argc + 1, sizeof *A.seen);
    int rc = parse_args(argc, argv, &A);
    if (rc >= 0) { free(A.sets), free(A.seen); return rc; }
    double t0 = hdg_wtime();
    hdg_report *rep = hdg_report_new();
    hdg_report_string(rep, "status", "running");   /* first in the file; set at the end */
    if (A.json && replace_early(A.json) && write_json(rep, A.json, 0)) {
        hdg_report_free(rep);
        free(A.sets), free(A.seen);
        return 1;
    }
    hdg_problem *p = load(&A, rep);
    if (!p) {
        rc = write_json(rep, A.json, 1);
        hdg_report_free(rep);
        free(A.sets), free(A.seen);
        return rc;
    }
    const char *topt = A.ro.cfl > 0 ? "--cfl" : A.ro.final_time > 0 ? "--final-time" : A.ro.every > 0 ? "--every" : NULL;
    const hdg_run_options *R = &A.ro;
    const char *sopt = R->solver ? "--solver" : R->precond ? "--precond" : R->petsc ? "--petsc" : R->format ? "--format"
                       : R->rtol > 0 ? "--rtol" : R->maxit > 0 ? "--maxit" : R->restart > 0 ? "--restart" : NULL;
    if (sopt && p->method == HDG_METHOD_DG) {   /* solver options of an explicit problem: refused, not ignored */
        fprintf(stderr, "hdgc run: %s applies to the trace system of HDG problems; %s is explicit DG (no linear "
                "system to solve)\n", sopt, A.path);
        hdg_report_free(rep), hdg_problem_free(p);
        free(A.sets), free(A.seen);
        return 2;
    }
    if (topt && p->method != HDG_METHOD_DG) {   /* time options of a steady problem: refused, not ignored */
        fprintf(stderr, "hdgc run: %s applies to time-dependent (DG) problems; %s is steady HDG\n", topt, A.path);
        hdg_report_free(rep), hdg_problem_free(p);
        free(A.sets), free(A.seen);
        return 2;
    }
    A.ro.t_parse = hdg_wtime() - t0;
    A.ro.log = A.quiet ? NULL : stdout;
    A.ro.progress = !A.quiet && hdg_progress_tty();
    hdg_error err = {0};
    hdg_status st = hdg_run_problem(p, &A.ro, rep, &err);
    const char *note = hdg_report_get_string(rep, "backend_note");
    if (note && !A.quiet) fprintf(stderr, "hdgc run: %s\n", note);
    const char *warning = hdg_report_get_string(rep, "compile.warning");
    if (warning && !A.quiet) fprintf(stderr, "hdgc run: warning: %s\n", warning);
    const char *swarn = hdg_report_get_string(rep, "solver.warning");
    if (swarn && !A.quiet) fprintf(stderr, "hdgc run: warning: %s\n", swarn);
    if (!A.quiet && (!st || st == HDG_ESOLVER)) summary(stdout, rep, p);
    if (st) fprintf(stderr, "hdgc run: error: %s\n", err.msg);
    record_outcome(rep, st, err.msg, st ? 1 : 0);
    rc = write_json(rep, A.json, st ? 1 : 0);
    hdg_report_free(rep);
    hdg_problem_free(p);
    free(A.sets), free(A.seen);
    return rc;
}
