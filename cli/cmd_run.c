/* cmd_run.c — `hdgc run FILE.hdg [options]`: a client of the public API
 * (include/hdgc.h): load the problem, set its options, solve, print the summary
 * and write the JSON report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "hdgc.h"
#include "support/util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc run FILE.hdg [--mesh square:N | FILE.msh] [--order k] [--set name=value]...\n"
               "                [--backend c|cuda|auto] [--solver cg|gmres|petsc] [--petsc OPTS]\n"
               "                [--precond mg|block|jacobi|none] [--format block|csr] [--rtol r] [--maxit n] [--restart m]\n"
               "                [--vtk out.vtu|out.pvtu|out.pvd] [--vtk-format binary|ascii] [--every n]\n"
               "                [--cfl c] [--dt D] [--final-time T]\n"
               "                [--newton hdgc|snes] [--newton-max-steps n] [--newton-rtol r] [--newton-atol a]\n"
               "                [--newton-check on|off]\n"
               "                [--png out.png] [--field NAME] [--size WxH] [--edges] [--slice x|y|z=C]\n"
               "                [--kernels generated|handwritten] [--json report.json] [--no-cache] [--quiet]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Solves the problem of FILE.hdg (docs/language.md) on a mesh and reports the errors\n"
           "against its exact solution. HDG problems (with a trace unknown): element kernels,\n"
           "static condensation, trace system in dense block format, Krylov solve, recovery.\n"
           "Explicit DG problems (with dt() terms): LSERK4 time stepping to the final time.\n"
           "Nonlinear DG (fluxes nonlinear in the unknowns): dt from the current wave speed every\n"
           "5 steps, conserved totals reported (totals.*), and a stop naming the element and time\n"
           "when the state or a term turns non-finite or a shock forms (docs/method.md, 6).\n"
           "HDG problems with dt() terms: implicit time stepping (BDF1-3, SDIRK2-3: the file's\n"
           "'time' line), one trace solve per step or stage on a matrix assembled once.\n"
           "\n"
           "options:\n"
           "  --mesh SPEC         square:N[,perturb=p][,domain=[a,b]^2][,periodic=x|y|xy] or a\n"
           "                      Gmsh file f.msh[,periodic=A:B[,C:D]], either [,refine=L]\n"
           "                      (default square:8, cube:4 for a 3D file; see 'hdgc mesh --help')\n"
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
           "                      10000 trace unknowns on (2000 under GMRES), block below.\n"
           "                      An indefinite or saddle-point trace system (Helmholtz, Stokes)\n"
           "                      gets a direct solve (MUMPS LU) up to 100000 unknowns, GMRES\n"
           "                      with mg and an LU coarse solve above (solver.reason says why)\n"
           "  --format NAME       trace matrix the solver multiplies with: block (dense blocks of\n"
           "                      m x m per face pair, default) or csr (for comparison; host only)\n"
           "  --rtol r            relative residual tolerance of the solver, at least 2.2e-16;\n"
           "                      a solver that stagnates above it fails and says so. Default:\n"
           "                      1e-14 (PETSc 1e-12), or the attainable accuracy where the\n"
           "                      residual stops decreasing first (below 1e-10, or near the\n"
           "                      rounding floor eps ||A|| ||x|| / ||b||), so that the algebra\n"
           "                      never limits the discretisation. A run that stops where the\n"
           "                      residual may dominate the error warns\n"
           "  --maxit n           iteration limit (default max(1000, 2 x unknowns))\n"
           "  --restart m         GMRES restart length (default 100, at most the unknowns)\n"
           "  --newton NAME       nonlinear HDG problems: hdgc (default: hdgc's own Newton loop) or\n"
           "                      snes: PETSc's SNES owns the iteration (host; with dt() terms\n"
           "                      each implicit solve; under mpirun too),\n"
           "                      each step J^-1 F by static condensation as a PCShell; --petsc\n"
           "                      takes any -snes_*/-ksp_*/-pc_* option (\"-snes_monitor\n"
           "                      -snes_linesearch_type basic\"), -trace_* ones go to the trace\n"
           "                      solve (--solver petsc: \"-trace_pc_type gamg\"); docs/solvers.md\n"
           "  --newton-max-steps n  nonlinear HDG problems: Newton's step limit (default 25);\n"
           "                      a run that reaches it fails with the residual history\n"
           "  --newton-rtol r     Newton stops at |R| <= r |R_0| + a (default 1e-10), or at\n"
           "  --newton-atol a     the attainable accuracy (|R| within 100 eps of the sum of\n"
           "                      its terms' sizes; docs/solvers.md, Newton); default a = 0\n"
           "  --newton-check on   each step, the finite-difference check of the residual\n"
           "                      against the Jacobian along the step (report\n"
           "                      newton.check_1e-3[], newton.check_1e-4[]: tenfold apart\n"
           "                      when the Jacobian is right)\n"
           "  --vtk FILE          write the solution (.vtu; DG: .pvd time series, staged as\n"
           "                      FILE.partial.pvd and renamed at the end, so a run that blows\n"
           "                      up never replaces a good series; steady HDG: x.pvd gets\n"
           "                      x_00000.vtu; HDG with dt(): with --every n, x_NNNNN.vtu\n"
           "                      every n steps and at the end, u* in each, x.pvd at the end;\n"
           "                      HDG: x.pvtu = one x_p<rank>.vtu per mpirun rank + x.pvtu;\n"
           "                      under mpirun x.vtu is gathered on rank 0). Vector and tensor\n"
           "                      unknowns (q) are one array of 3 or 9 components (z = 0)\n"
           "  --vtk-format F      binary (default: the arrays zlib-compressed, appended raw)\n"
           "                      or ascii (readable text, several times larger)\n"
           "  --every n           time-dependent problems: write every n steps (with --vtk\n"
           "                      x.pvd, or a --png frame pattern)\n"
           "  --png FILE          a picture of a field (cairo, viridis; axes with coordinate\n"
           "                      ticks, a colour bar with ticks, a caption with the time of a\n"
           "                      time-dependent run; DG: at the final time); the report gets\n"
           "                      output.png_min/max. Frames of a time-dependent run (DG, HDG\n"
           "                      with dt()): a pattern 'f/Ez_%%04d.png' writes t = 0, every\n"
           "                      --every n steps and the end, in one colour range (+-1.1 x\n"
           "                      the first non-zero frame's max |value|); steady HDG: no pattern\n"
           "  --field NAME        the field --png draws: an element unknown or a component\n"
           "                      (u, q_x, q_y, ustar); default the first scalar element unknown\n"
           "  --size WxH          --png picture size in pixels (default 800x800, 200..8192)\n"
           "  --edges             --png: draw the elements' edges\n"
           "  --slice z=C         --png on a tetrahedral mesh: the section by the plane z = C\n"
           "                      (or x=C, y=C) with coordinate axes; without it the boundary\n"
           "                      surface seen from azimuth 30, elevation 25 (no axes)\n"
           "  --cfl c             DG: CFL number (overrides the file): dt = c x the Hesthaven-\n"
           "                      Warburton step of speed 1 / the equations' wave speed\n"
           "  --dt D              time-dependent problems: a fixed step (overrides the file's\n"
           "                      dt, and for DG its cfl); the steps are ceil(T/D) of T/steps\n"
           "  --final-time T      time-dependent problems: final time (overrides the file)\n"
           "  --kernels NAME      generated (default) or handwritten: the hand-written C kernels\n"
           "                      of backends/handwritten/ (examples/poisson.hdg, maxwell2d.hdg,\n"
           "                      orders 1..8) in place of the generated ones, after both agree\n"
           "                      on the first elements (to compare whole runs; with --backend\n"
           "                      cuda the hand-written CUDA kernels)\n"
           "  --json FILE         write the full report (status, error, sizes, solver, errors,\n"
           "                      timings), also for a run that fails\n"
           "  --no-cache          do not use the on-disk kernel cache\n"
           "  --quiet             print nothing but errors\n"
           "\n"
           "On a terminal (stderr a TTY, TERM not dumb) a progress line shows the stage, the\n"
           "Krylov iterations with their residual, or the DG steps with the time and an ETA;\n"
           "it is erased at the end and never written to a file, a pipe or with --quiet.\n"
           "\n"
           "Under mpirun (mpirun -np P hdgc run ...; docs/mpi.md) the run is distributed: rank 0\n"
           "partitions the mesh (METIS), each rank solves its part (HDG: the trace system by PETSc,\n"
           "--precond mg as PETSc's PCMG; DG: ghost elements exchanged every stage), rank 0 prints\n"
           "and writes --json (mpi.*: ranks, per-rank elements and times). HDGC_MPI=0 runs alone.\n\n"
           "Numbers are decimal (no hex, inf or nan); each option but --set at most once.\n"
           "Environment: HDG_THREADS (1..256), HDGC_CACHE_DIR, HDGC_MEMORY_LIMIT (bytes; default\n"
           "MemAvailable: a run that needs more is refused with the estimate).\n"
           "\n"
           "Exit status: 0 solved; 1 bad input, a solver that did not converge, a blow-up or too\n"
           "little memory; 2 bad usage.\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "hdgc run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

/* The options of `hdgc run` that are run options of the API (hdgc_problem_set_option,
 * the same name without the dashes); --set, --json, --quiet, --no-cache and --edges are
 * handled here. */
static const char *const api_options[] = {"mesh", "backend", "solver", "petsc", "precond", "format", "vtk",
                                          "vtk-format", "png", "field", "size", "slice", "order", "rtol", "maxit", "every",
                                          "restart", "cfl", "dt", "final-time", "kernels",
                                          "newton", "newton-max-steps", "newton-rtol", "newton-atol", "newton-check"};

typedef struct run_args {
    const char *path, *json;
    const char **name, **value;   /* API options in the order given */
    int nopt;
    const char **set_name;        /* --set name=value */
    double *set_value;
    int nsets;
    int quiet, no_cache, edges;
    const char **seen;            /* options given so far (each at most once, but --set) */
    int nseen;
} run_args;

static const char *get(const run_args *A, const char *name)
{
    for (int i = 0; i < A->nopt; i++)
        if (!strcmp(A->name[i], name)) return A->value[i];
    return NULL;
}

static int is_api_option(const char *name)
{
    for (size_t i = 0; i < sizeof api_options / sizeof *api_options; i++)
        if (!strcmp(api_options[i], name)) return 1;
    return 0;
}

/* One option with its value v; returns -1 to go on, else an exit code. */
static int option(run_args *A, const char *a, char *v)
{
    if (strcmp(a, "--set") && hdg_cli_twice("run", A->seen, &A->nseen, a)) return 2;
    if (!strcmp(a, "--json")) A->json = v;
    else if (!strcmp(a, "--set")) {
        double d;
        char *eq = strchr(v, '=');
        if (!eq || eq == v || !hdg_parse_double(eq + 1, &d)) return bad("--set %s: expected name=number", v);
        *eq = '\0';
        for (int k = 0; k < A->nsets; k++)
            if (!strcmp(A->set_name[k], v)) return bad("--set %s given twice", v);
        A->set_name[A->nsets] = v, A->set_value[A->nsets++] = d;
    } else if (a[0] == '-' && a[1] == '-' && is_api_option(a + 2)) {
        hdg_error err;
        if (hdgc_check_option(a + 2, v, &err)) return bad("%s", err.msg);
        A->name[A->nopt] = a + 2, A->value[A->nopt++] = v;
    } else return bad("unknown option '%s'", a);
    return -1;
}

/* Output paths are checked before the run, not after it. */
static int check_outputs(const run_args *A)
{
    const char *mesh = get(A, "mesh"), *vtk = get(A, "vtk"), *png = get(A, "png");
    int rc = hdg_cli_check_output("run", "--json", A->json, A->path);
    if (!rc) rc = hdg_cli_check_output("run", "--vtk", vtk, A->path);
    if (!rc) rc = hdg_cli_check_output("run", "--json", A->json, mesh);   /* a .msh file */
    if (!rc) rc = hdg_cli_check_output("run", "--vtk", vtk, mesh);
    if (!rc) rc = hdg_cli_check_output("run", "--png", png, A->path);
    if (!rc) rc = hdg_cli_check_output("run", "--png", png, mesh);
    if (!rc && !vtk && get(A, "vtk-format")) {
        fprintf(stderr, "hdgc run: --vtk-format goes with --vtk\n");
        rc = 2;
    }
    if (!rc && !png && (get(A, "field") || get(A, "size") || get(A, "slice") || A->edges)) {
        fprintf(stderr, "hdgc run: --field, --size, --edges and --slice go with --png\n");
        rc = 2;
    }
    if (!rc && png && ((A->json && hdg_cli_same_file(A->json, png)) || (vtk && hdg_cli_same_file(vtk, png)))) {
        fprintf(stderr, "hdgc run: --png names the same file as --json or --vtk '%s'\n", png);
        rc = 2;
    }
    if (!rc && A->json && vtk && hdg_cli_same_file(A->json, vtk)) {
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
        if (!strcmp(a, "--no-cache")) { A->no_cache = 1; continue; }
        if (!strcmp(a, "--edges")) { A->edges = 1; continue; }
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
    return check_outputs(A) ? 2 : -1;
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

/* Options of the wrong family are refused, not ignored; returns an exit code or -1. */
static int check_family(const run_args *A, const hdgc_problem *p)
{
    static const char *const solver[] = {"solver", "precond", "petsc", "format", "rtol", "maxit", "restart"};
    static const char *const time[] = {"cfl", "dt", "final-time", "every"};
    static const char *const newton[] = {"newton", "newton-max-steps", "newton-rtol", "newton-atol", "newton-check"};
    int dg = !strcmp(hdgc_problem_method(p), "DG"), transient = hdgc_problem_transient(p);
    if (!dg && transient && get(A, "cfl")) {
        fprintf(stderr, "hdgc run: --cfl applies to explicit DG problems; %s is HDG with implicit time stepping "
                "(its step is the file's 'dt', e.g. --set of a param it uses)\n", A->path);
        return 2;
    }
    for (size_t i = 0; dg && i < sizeof solver / sizeof *solver; i++)
        if (get(A, solver[i])) {
            fprintf(stderr, "hdgc run: --%s applies to the trace system of HDG problems; %s is explicit DG (no "
                    "linear system to solve)\n", solver[i], A->path);
            return 2;
        }
    for (size_t i = 0; !transient && i < sizeof time / sizeof *time; i++)
        if (get(A, time[i])) {
            fprintf(stderr, "hdgc run: --%s applies to time-dependent (DG) problems; %s is steady HDG\n", time[i],
                    A->path);
            return 2;
        }
    for (size_t i = 0; (dg || !hdgc_problem_nonlinear(p)) && i < sizeof newton / sizeof *newton; i++)
        if (get(A, newton[i])) {
            fprintf(stderr, "hdgc run: --%s applies to nonlinear HDG problems (Newton); %s is %s\n", newton[i], A->path,
                    dg ? "explicit DG (no Newton)" : "linear (one linear solve)");
            return 2;
        }
    return -1;
}

/* The problem with the options of the command line; NULL after printing why (*rc). */
static hdgc_problem *setup(const run_args *A, int *rc)
{
    hdg_error err;
    hdgc_problem *p = NULL;
    hdg_status st = hdgc_problem_load(A->path, &p, &err);
    fputs(p ? hdgc_problem_warnings(p) : "", stderr);
    for (int i = 0; !st && i < A->nsets; i++) st = hdgc_problem_set_param(p, A->set_name[i], A->set_value[i], &err);
    const char *order = get(A, "order");
    if (!st && order) st = hdgc_problem_set_option(p, "order", order, &err);
    if (st) {
        fprintf(stderr, "%s\n", err.msg);
        *rc = 1;
        if (A->json && hdgc_write_status_report(A->json, "failed", A->path, st, err.msg, 1, &err)) {
            fprintf(stderr, "hdgc run: error: %s\n", err.msg);
        }
        hdgc_problem_free(p);
        return NULL;
    }
    if ((*rc = check_family(A, p)) >= 0) {
        hdgc_problem_free(p);
        return NULL;
    }
    for (int i = 0; !st && i < A->nopt; i++) st = hdgc_problem_set_option(p, A->name[i], A->value[i], &err);
    if (!st) st = hdgc_problem_set_option(p, "fields", "off", &err);   /* the command prints and writes files */
    if (!st && A->no_cache) st = hdgc_problem_set_option(p, "cache", "off", &err);
    if (!st && A->edges) st = hdgc_problem_set_option(p, "edges", "on", &err);
    if (!st) st = hdgc_problem_set_output(p, A->quiet ? NULL : stdout, A->quiet ? 0 : -1, &err);
    if (st) {   /* checked in parse_args: an internal error */
        fprintf(stderr, "hdgc run: error: %s\n", err.msg);
        *rc = 1;
        hdgc_problem_free(p);
        return NULL;
    }
    return p;
}

/* Solves and reports; returns the exit code. */
static int solve(const run_args *A, hdgc_problem *p)
{
    hdg_error err = {0};
    hdgc_result *r = NULL;
    hdg_status st = hdgc_solve(p, &r, &err);
    const char *note = hdgc_result_string(r, "backend_note");
    if (note && !A->quiet) fprintf(stderr, "hdgc run: %s\n", note);
    /* every warning of the report (hdgc_result_warning: *.warning and warnings.*), in its order */
    for (int i = 0; !A->quiet && i < hdgc_result_nwarnings(r); i++)
        fprintf(stderr, "hdgc run: warning: %s\n", hdgc_result_warning(r, i, NULL));
    if (!A->quiet && (!st || st == HDG_ESOLVER)) fputs(hdgc_result_summary(r), stdout);
    if (st) fprintf(stderr, "hdgc run: error: %s\n", err.msg);
    int rc = st ? 1 : 0;
    if (A->json && r && hdgc_result_write_report(r, A->json, rc, &err)) {
        fprintf(stderr, "hdgc run: error: %s\n", err.msg);
        rc = 1;
    }
    hdgc_result_free(r);
    return rc;
}

int hdg_cmd_run(int argc, char **argv)
{
    run_args A;
    memset(&A, 0, sizeof A);
    size_t n = (size_t)argc + 1;
    A.name = calloc(n, sizeof *A.name), A.value = calloc(n, sizeof *A.value);
    A.set_name = calloc(n, sizeof *A.set_name), A.set_value = calloc(n, sizeof *A.set_value);
    A.seen = calloc(n, sizeof *A.seen);
    int rc = parse_args(argc, argv, &A);
    if (hdgc_mpi_rank() > 0) A.json = NULL;   /* under mpirun rank 0 writes the report */
    if (rc < 0) {
        hdg_error err;
        if (A.json && replace_early(A.json) && hdgc_write_status_report(A.json, "running", NULL, HDG_OK, NULL, -1, &err)) {
            fprintf(stderr, "hdgc run: error: %s\n", err.msg);
            rc = 1;
        } else {
            hdgc_problem *p = setup(&A, &rc);
            if (p) rc = solve(&A, p);
            hdgc_problem_free(p);
        }
    }
    free(A.name), free(A.value), free(A.set_name), free(A.set_value), free(A.seen);
    return rc;
}
