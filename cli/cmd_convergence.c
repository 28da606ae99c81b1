/* cmd_convergence.c — `hdgc convergence FILE.hdg --orders 1..6 --meshes 4,8,16,32`:
 * runs the problem for every order and mesh, prints the L2 errors of every
 * unknown with an exact solution, the observed rates log(e_coarse/e_fine) /
 * log(N_fine/N_coarse) and the rate fitted over all meshes (least squares of
 * log e against log h, h = 1/N: hdgc_plot_fit), writes the table as JSON and,
 * with --plot, draws error against h (hdgc_plot_write). On a terminal a progress
 * line shows the run under way. A client of the public API (include/hdgc.h):
 * hdgc_problem_load_with + hdgc_problem_set_option + hdgc_solve per run, the
 * table an hdgc_report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "hdgc.h"
#include "support/progress.h"
#include "support/util.h"

#define MAXN 16
#define MAXU 64   /* unknowns tabulated */

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc convergence FILE.hdg [--orders a..b | k,k,...] [--meshes N,N,... | SPEC,SPEC,...]\n"
               "                        [--mesh-options OPTS | --refine SPEC [--levels a..b]]\n"
               "                        [--dt D,D,... (one mesh)]\n"
               "                        [--set name=value]... [--solver S]\n"
               "                        [--precond P] [--petsc OPTS] [--rtol r] [--json FILE]\n"
               "                        [--plot FILE.svg|FILE.png] [--quiet]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Runs FILE.hdg on the meshes square:N (cube:N for a 'mesh tetrahedron' file; N from\n"
           "--meshes, default 4,8,16) for every\n"
           "order (default 1..4) and prints, per order, the L2 error of every unknown that\n"
           "has an exact solution and the observed rate between consecutive meshes:\n"
           "    rate = log(e_coarse / e_fine) / log(h_coarse / h_fine),\n"
           "then the fitted rate: the least-squares slope of log(error) against log(h),\n"
           "h = 1/N, over the meshes (errors that are zero or not finite left out; none\n"
           "with fewer than two meshes). The JSON holds every run (\"runs\"), the rates\n"
           "between meshes (\"rates\") and the fitted ones (\"fits\": order, unknown,\n"
           "rate, points). On a terminal a line on stderr shows the run under way.\n"
           "\n"
           "options:\n"
           "  --orders SPEC       a..b or a comma list (default 1..4)\n"
           "  --meshes LIST       comma list of N for square:N / cube:N (default 4,8,16), or of mesh\n"
           "                      specs: a.msh,b.msh or square:8,perturb=0.2,square:16,perturb=0.2\n"
           "                      (a name=value piece is an option of the spec before it, and\n"
           "                      so is a pair C:D after periodic=A:B);\n"
           "                      then h is each mesh's longest edge and rates use it\n"
           "  --mesh-options OPTS appended to each mesh spec, e.g. perturb=0.2\n"
           "  --refine SPEC       instead of square:N, the mesh SPEC (a .msh file, square:N,...)\n"
           "                      refined uniformly L times for L in --levels (SPEC,refine=L:\n"
           "                      each triangle into 4); N = 2^L in the table, h = 1/N relative\n"
           "  --levels SPEC       refinement levels a..b or l,l,... from 0 to 10 (default 0..2)\n"
           "  --dt LIST           convergence in time: the time-dependent problem on one mesh\n"
           "                      (--meshes N or SPEC, default square:8) with each fixed step of\n"
           "                      the comma list (as --dt of hdgc run); the first column and the\n"
           "                      rates are then in the step each run took, T/ceil(T/D) (the JSON\n"
           "                      keeps D as dt_requested); refused on a steady problem\n"
           "  --set, --solver, --precond, --petsc, --rtol, --final-time, --cfl: as for hdgc run\n"
           "  --json FILE         also write the table, the rates and the fits as JSON to FILE\n"
           "  --plot FILE         error against h on log-log axes, one line per unknown and\n"
           "                      order, the fitted rates in the legend; FILE.svg or FILE.png\n"
           "  --quiet             print nothing but errors\n"
           "\n"
           "Exit status: 0 when every run succeeded, 1 otherwise, 2 bad usage.\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "hdgc convergence: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static int int_list(const char *s, int *out, int max)
{
    int n = 0;
    const char *dots = strstr(s, "..");
    if (dots) {
        char *e1, *e2;
        long a = strtol(s, &e1, 10), b = strtol(dots + 2, &e2, 10);
        if (!(*s >= '0' && *s <= '9') || !(dots[2] >= '0' && dots[2] <= '9') || e1 != dots || *e2 || a < 1 || b < a || b - a + 1 > max) return -1;
        for (long k = a; k <= b; k++) out[n++] = (int)k;
        return n;
    }
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || !(*s >= '0' && *s <= '9') || v < 1 || v > 100000 || n == max) return -1;
        out[n++] = (int)v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return n;
}

/* Refinement levels a..b or l,l,...: increasing, 0..10; returns how many or -1. */
static int level_list(const char *s, int *out)
{
    long a;
    int lo, hi;
    char first[16];
    if (strstr(s, "..")) {
        if (!hdg_cli_range(s, 0, 10, &lo, &hi)) return -1;
        for (int l = lo; l <= hi; l++) out[l - lo] = l;
        return hi - lo + 1;
    }
    int n = 0;
    for (const char *p = s; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len >= sizeof first || n == MAXN) return -1;
        memcpy(first, p, len);
        first[len] = '\0';
        if (!hdg_parse_long(first, 0, 10, &a) || (n && a <= out[n - 1])) return -1;
        out[n++] = (int)a;
        p += len + (c != NULL);
        if (c && !*p) return -1;
    }
    return n;
}

typedef struct conv {
    const char *path, *json, *mopts, *plot;
    const char *refine;   /* --refine SPEC: the meshes are SPEC,refine=L for L in --levels (N = 2^L) */
    int orders[MAXN], norders, meshes[MAXN], nmeshes;
    int levels_given;     /* --levels: meshes[] holds 2^L */
    char *specs[MAXN];    /* --meshes SPEC,SPEC,...: the meshes as given (NULL: square:N or --refine) */
    double h[MAXN];       /* column m's h: 1/N, 1/2^L, the longest edge of specs[m], or the step
                             the run of column m took (T / ceil(T / dts[m])) */
    double dts[MAXN];     /* --dt D,D,...: the steps asked for, the columns on mesh 0 */
    int ndts;
    const char **names;   /* --set name=value: room for argc */
    double *values;
    int nsets;
    const char *opt[6];   /* --solver, --precond, --petsc, --rtol, --final-time, --cfl as given (NULL: default) */
    int file_warned;      /* the file's warnings (diagnostics) are printed once */
    char *said[64];       /* the run warnings printed so far: one that repeats is printed once */
    int nsaid;
    int usage;    /* an option the problem refuses (every run would): exit 2 after the first */
    int quiet;
    hdg_progress pg;
    /* the results: err[o][m][u] (NaN: none), the unknowns of the first problem loaded */
    double err[MAXN][MAXN][MAXU];
    char name[128], uname[MAXU][64];
    int nu, exact[MAXU];
    int dim;      /* the file's dimension: --meshes N means square:N (2) or cube:N (3) */
} conv;

/* --meshes: N,N,... (square:N) or mesh specs; a list with a ':' or a ".msh" is specs. */
static int is_spec_list(const char *s)
{
    return strchr(s, ':') || strstr(s, ".msh") || strstr(s, ".MSH");
}

/* A further pair A:B of a periodic=A:B option (no '=', '.', '/', not square:N). */
static int periodic_pair(const char *p, size_t len)
{
    const char *colon = memchr(p, ':', len);
    return colon && colon > p && !memchr(p, '=', len) && !memchr(p, '.', len) && !memchr(p, '/', len) &&
           strncmp(p, "square:", 7);
}

/* Splits SPEC,SPEC,... into C->specs: a piece "name=value" (refine=1, perturb=0.2) is an
 * option of the spec before it, and so is a pair A:B after periodic=A:B. Returns how many, or -1. */
static int spec_list(const char *s, conv *C)
{
    int n = 0, periodic = 0;
    for (const char *p = s; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        int option = eq && eq > p && !memchr(p, ':', (size_t)(eq - p)) && !memchr(p, '.', (size_t)(eq - p)) && !memchr(p, '/', (size_t)(eq - p));
        int pair = periodic && periodic_pair(p, len);
        periodic = (option && len > 9 && !strncmp(p, "periodic=", 9)) || pair;
        option |= pair;
        if (!len || (option && !n)) return -1;
        if (option) {
            size_t old = strlen(C->specs[n - 1]);
            char *t = realloc(C->specs[n - 1], old + len + 2);
            if (!t) return -1;
            t[old] = ',', memcpy(t + old + 1, p, len), t[old + 1 + len] = '\0';
            C->specs[n - 1] = t;
        } else {
            if (n == MAXN || !(C->specs[n] = malloc(len + 1))) return -1;
            memcpy(C->specs[n], p, len), C->specs[n][len] = '\0';
            C->meshes[n] = n + 1, n++;
        }
        p += len + (c != NULL);
        if (c && !*p) return -1;
    }
    return n;
}

/* The first column: a length (or a step) per column rather than N. */
static int real_h(const conv *C) { return C->specs[0] || C->ndts; }
static const char *h_name(const conv *C) { return C->ndts ? "dt" : "h"; }

static void mesh_spec(const conv *C, int m, char *buf, size_t n);

/* The file's dimension (2 when it does not load: the runs then say why). */
static int file_dim(const conv *C)
{
    hdgc_problem *p = NULL;
    char *diags = NULL;
    hdg_error err = {0};
    int dim = 2;
    if (!hdgc_problem_load_with(C->path, 0, C->nsets, C->names, C->values, &p, &diags, &err))
        dim = hdgc_problem_dim(p);
    hdgc_problem_free(p);
    hdgc_free(diags);
    return dim;
}

/* The first column's mesh with --refine SPEC or square:N,OPTS, loaded once before the runs:
 * a file that cannot be read or a bad spec is one message, not one per run. 1 when it fails. */
static int check_first_mesh(const conv *C)
{
    if (C->specs[0] || (!C->refine && !C->mopts)) return 0;
    char spec[4200];
    mesh_spec(C, 0, spec, sizeof spec);
    hdgc_mesh *mesh = NULL;
    hdg_error err = {0};
    hdg_status st = hdgc_mesh_load(spec, HDGC_MESH_GEOMETRY, &mesh, &err);
    hdgc_mesh_free(mesh);
    if (st) fprintf(stderr, "hdgc convergence: %s %s: %s\n", C->refine ? "--refine" : "--mesh-options",
                    C->refine ? C->refine : C->mopts, err.msg);
    return st != HDG_OK;
}

/* Column m's h: 1/N for square:N and --refine (N = 2^L), the longest edge of a mesh spec
 * (each mesh loaded once, before the runs: a bad one stops here). 1 when one fails. */
static int mesh_sizes(conv *C)
{
    if (check_first_mesh(C)) return 1;
    for (int m = 0; m < C->nmeshes; m++) {
        C->h[m] = C->ndts ? C->dts[m] : 1.0 / C->meshes[m];
        if (!C->specs[0] || C->ndts) continue;
        hdgc_mesh *mesh = NULL;
        hdg_error err = {0};
        hdg_status st = hdgc_mesh_load(C->specs[m], HDGC_MESH_GEOMETRY, &mesh, &err);
        if (!st) st = hdgc_mesh_h(mesh, NULL, &C->h[m], &err);
        hdgc_mesh_free(mesh);
        if (st) {
            fprintf(stderr, "hdgc convergence: mesh %d of --meshes, %s: %s\n", m + 1, C->specs[m], err.msg);
            return 1;
        }
    }
    return 0;
}

static void free_conv(conv *C)
{
    for (int m = 0; m < MAXN; m++) free(C->specs[m]);
    for (int k = 0; k < C->nsaid; k++) free(C->said[k]);
    free((void *)C->names), free(C->values);
    free(C);
}

/* The output paths, before any run: 2 with a message, else -1. */
static int check_outputs(const conv *C)
{
    if (C->plot && !hdgc_plot_format(C->plot)) return bad("--plot %s: expected a file name ending in .svg or .png", C->plot);
    if (hdg_cli_check_output("convergence", "--json", C->json, C->path)) return 2;
    if (hdg_cli_check_output("convergence", "--plot", C->plot, C->path)) return 2;
    if (C->plot && C->json && hdg_cli_same_file(C->plot, C->json)) {
        fprintf(stderr, "hdgc convergence: --plot names the same file as --json '%s'\n", C->plot);
        return 2;
    }
    hdg_ofile o;   /* a folder that exists but takes no file (/proc): found now, not after the runs */
    hdg_error err = {0};
    if (C->plot && hdg_ofile_open(&o, C->plot, &err)) {
        fprintf(stderr, "hdgc convergence: --plot %s\n", err.msg);
        return 2;
    }
    if (C->plot) hdg_ofile_abort(&o);
    return -1;
}

/* D,D,...: positive decimal steps; how many, or -1. */
static int dt_list(const char *s, double *out)
{
    int n = 0;
    for (const char *p = s; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char buf[64];
        if (!len || len >= sizeof buf || n == MAXN) return -1;
        memcpy(buf, p, len), buf[len] = '\0';
        if (!hdg_parse_double(buf, &out[n]) || !(out[n] > 0)) return -1;
        n++;
        p += len + (c != NULL);
        if (c && !*p) return -1;
    }
    return n;
}

static int parse(int argc, char **argv, conv *C)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(); return 0; }
        if (!strcmp(a, "--quiet")) { C->quiet = 1; continue; }
        if (a[0] != '-') {
            if (C->path) return bad("more than one file ('%s')", a);
            C->path = a;
            continue;
        }
        if (!v) return bad("%s needs a value", a);
        i++;
        double d = 0;
        int isnum = hdg_parse_double(v, &d);   /* decimal only: no hex, inf, nan */
        if (!strcmp(a, "--orders")) {
            if ((C->norders = int_list(v, C->orders, MAXN)) <= 0) return bad("--orders %s: expected a..b or k,k,...", v);
        } else if (!strcmp(a, "--meshes")) {
            if (C->nmeshes) return bad("--meshes given twice ('%s')", v);
            if (is_spec_list(v)) {
                if ((C->nmeshes = spec_list(v, C)) <= 0) return bad("--meshes %s: expected N,N,... or mesh specs SPEC,SPEC,...", v);
            } else if ((C->nmeshes = int_list(v, C->meshes, MAXN)) <= 0) return bad("--meshes %s: expected N,N,...", v);
        } else if (!strcmp(a, "--mesh-options")) C->mopts = v;
        else if (!strcmp(a, "--refine")) C->refine = v;
        else if (!strcmp(a, "--levels")) {
            int lv[MAXN], n = level_list(v, lv);
            if (n <= 0) return bad("--levels %s: expected increasing levels a..b or l,l,... from 0 to 10", v);
            for (int k = 0; k < n; k++) C->meshes[k] = 1 << lv[k];
            C->nmeshes = n, C->levels_given = 1;
        }
        else if (!strcmp(a, "--dt")) {
            if ((C->ndts = dt_list(v, C->dts)) <= 0) return bad("--dt %s: expected positive steps D,D,...", v);
        }
        else if (!strcmp(a, "--json")) C->json = v;
        else if (!strcmp(a, "--plot")) C->plot = v;
        else if (!strcmp(a, "--solver")) C->opt[0] = v;
        else if (!strcmp(a, "--precond")) C->opt[1] = v;
        else if (!strcmp(a, "--petsc")) C->opt[2] = v;
        else if (!strcmp(a, "--rtol") && isnum && d > 0 && d < 1) C->opt[3] = v;
        else if (!strcmp(a, "--final-time") && isnum && d > 0) C->opt[4] = v;
        else if (!strcmp(a, "--cfl") && isnum && d > 0) C->opt[5] = v;
        else if (!strcmp(a, "--set")) {
            char *eq = strchr(argv[i], '=');
            if (!eq || eq == argv[i] || !hdg_parse_double(eq + 1, &d)) return bad("--set %s: expected name=number", v);
            *eq = '\0';
            for (int k = 0; k < C->nsets; k++)
                if (!strcmp(C->names[k], argv[i])) return bad("--set %s given twice", argv[i]);
            C->names[C->nsets] = argv[i], C->values[C->nsets++] = d;
        } else return bad("unknown option or bad value: '%s'", a);
    }
    if (!C->path) return bad("no file given%s", "");
    if (C->ndts && (C->nmeshes > 1 || C->refine))
        return bad("--dt sweeps the time step on one mesh: give one mesh (--meshes N or SPEC)%s", "");
    if (C->refine && C->mopts) return bad("--mesh-options applies to square:N; with --refine write them in the spec ('%s')", C->refine);
    if (!C->refine && C->levels_given) return bad("--levels goes with --refine SPEC%s", "");
    if (C->refine && C->nmeshes && !C->levels_given) return bad("--meshes gives the meshes; with --refine use --levels%s", "");
    if (C->specs[0] && C->mopts) return bad("--mesh-options applies to square:N; with mesh specs write them in each spec ('%s')", C->mopts);
    return check_outputs(C);
}

/* The mesh of column m: square:N[,OPTS], with --refine SPEC,refine=L (N = 2^L), or specs[m]. */
static void mesh_spec(const conv *C, int m, char *buf, size_t n)
{
    if (C->ndts) m = 0;   /* --dt: one mesh */
    int N = C->meshes[m];
    if (C->specs[0]) snprintf(buf, n, "%s", C->specs[m]);
    else if (C->refine) {
        int L = 0;
        while ((1 << L) < N) L++;
        snprintf(buf, n, "%s,refine=%d", C->refine, L);
    } else snprintf(buf, n, "%s:%d%s%s", C->dim == 3 ? "cube" : "square", N, C->mopts ? "," : "",
                    C->mopts ? C->mopts : "");
}

/* The run options of every run, then the mesh and no fields (only errors are read). */
static hdg_status set_options(const conv *C, hdgc_problem *p, int m, const char *mesh, hdg_error *err)
{
    static const char *names[6] = {"solver", "precond", "petsc", "rtol", "final-time", "cfl"};
    hdg_status st = HDG_OK;
    for (int k = 0; k < 6 && !st; k++)
        if (C->opt[k]) st = hdgc_problem_set_option(p, names[k], C->opt[k], err);
    if (!st && C->ndts) {
        char dt[40];
        snprintf(dt, sizeof dt, "%.17g", C->dts[m]);
        st = hdgc_problem_set_option(p, "dt", dt, err);
    }
    if (!st) st = hdgc_problem_set_option(p, "mesh", mesh, err);
    if (!st) st = hdgc_problem_set_option(p, "fields", "off", err);
    return st;
}

/* The row of one run in the JSON; errs[u] = L2 error of unknown u or NaN. */
static void record_run(const conv *C, const hdgc_problem *p, const hdgc_result *r, hdg_status st, const char *msg,
                       int order, int m, const char *mesh, hdgc_report *all, double *errs)
{
    hdgc_report *row = hdgc_report_push(all, "runs");
    hdgc_report_set_string(row, "status", st ? "failed" : "ok");
    if (st) hdgc_report_set_string(row, "error", msg);
    hdgc_report_set_int(row, "order", order);
    if (real_h(C)) hdgc_report_set_number(row, h_name(C), C->h[m]);
    else hdgc_report_set_int(row, "N", C->meshes[m]);
    if (C->ndts) hdgc_report_set_number(row, "dt_requested", C->dts[m]);
    hdgc_report_set_string(row, "mesh", mesh);
    for (int u = 0; u < hdgc_problem_nunknowns(p) && u < MAXU; u++) {
        char path[160];
        snprintf(path, sizeof path, "errors.%s", hdgc_problem_unknown(p, u, NULL));
        errs[u] = hdgc_result_has(r, path) ? hdgc_result_number(r, path) : NAN;   /* a null reads as NaN */
        if (hdgc_result_has(r, path)) hdgc_report_set_number(row, path, errs[u]);
    }
    if (hdgc_result_has(r, "solver.iterations"))
        hdgc_report_set_int(row, "iterations", (long long)hdgc_result_number(r, "solver.iterations"));
    for (int i = 0; i < hdgc_result_nwarnings(r); i++) hdgc_report_push_string(row, "warnings", hdgc_result_warning(r, i, NULL));
}

/* The run's warnings on stderr, as `hdgc run` prints them, each text once over the sweep. */
static void print_warnings(conv *C, const hdgc_result *r, int order, const char *mesh)
{
    for (int i = 0; i < hdgc_result_nwarnings(r); i++) {
        const char *w = hdgc_result_warning(r, i, NULL);
        int k = 0;
        while (k < C->nsaid && strcmp(C->said[k], w)) k++;
        if (k < C->nsaid) continue;
        if (C->nsaid < (int)(sizeof C->said / sizeof *C->said)) C->said[C->nsaid++] = hdg_xstrdup(w);
        if (!C->quiet) fprintf(stderr, "hdgc convergence: order %d, %s: warning: %s\n", order, mesh, w);
    }
}

/* Runs one (order, mesh); errs[u] = L2 error or NaN. The progress line is
 * erased before anything is printed. */
static hdg_status one(conv *C, int order, int m, hdgc_report *all, double *errs, hdgc_problem **pout)
{
    hdgc_problem *p = NULL;
    char *diags = NULL;
    hdg_error err = {0};
    hdg_status st = hdgc_problem_load_with(C->path, order, C->nsets, C->names, C->values, &p, &diags, &err);
    if (st) {
        hdg_progress_end(&C->pg);
        if (diags) fputs(diags, stderr);
        else fprintf(stderr, "%s\n", err.msg);
        hdgc_free(diags);
        return st;
    }
    hdg_progress_end(&C->pg);
    if (!C->file_warned && !C->quiet && diags) fputs(diags, stderr);   /* the file's warnings, once */
    C->file_warned = 1;
    hdgc_free(diags);
    char mesh[4200];
    mesh_spec(C, m, mesh, sizeof mesh);
    hdgc_result *r = NULL;
    if (C->ndts && !hdgc_problem_transient(p))
        st = hdg_fail(&err, HDG_EINPUT, "--dt applies to time-dependent problems; %s is steady %s", C->path,
                      hdgc_problem_method(p));
    else st = set_options(C, p, m, mesh, &err);
    if (st) {   /* the same for every run: said once, exit 2 */
        hdg_progress_end(&C->pg);
        fprintf(stderr, "hdgc convergence: %s\n", err.msg);
        C->usage = 1;
        *pout = p;
        return st;
    }
    st = hdgc_solve(p, &r, &err);
    hdg_progress_end(&C->pg);
    if (C->ndts && hdgc_result_has(r, "time.dt")) C->h[m] = hdgc_result_number(r, "time.dt");   /* HDG: the step taken */
    else if (C->ndts && hdgc_result_has(r, "dt")) C->h[m] = hdgc_result_number(r, "dt");       /* DG */
    if (st) fprintf(stderr, "hdgc convergence: order %d, %s: %s\n", order, mesh, err.msg);
    print_warnings(C, r, order, mesh);
    record_run(C, p, r, st, err.msg, order, m, mesh, all, errs);
    hdgc_result_free(r);
    *pout = p;
    return st;
}

/* The unknowns of the first problem loaded (names, which have an exact solution). */
static void record_unknowns(conv *C, const hdgc_problem *q)
{
    if (C->nu) return;
    snprintf(C->name, sizeof C->name, "%s", hdgc_problem_name(q));
    C->nu = hdgc_problem_nunknowns(q) < MAXU ? hdgc_problem_nunknowns(q) : MAXU;
    for (int u = 0; u < C->nu; u++)
        snprintf(C->uname[u], sizeof C->uname[u], "%s", hdgc_problem_unknown(q, u, &C->exact[u]));
}

static void print_header(const conv *C, int o)
{
    if (C->quiet) return;
    printf("%s, order %d\n  %*s", C->name, C->orders[o], real_h(C) ? 9 : 6, real_h(C) ? h_name(C) : "N");
    for (int u = 0; u < C->nu; u++)
        if (C->exact[u]) printf("  %12s %5s", C->uname[u], "rate");
    printf("\n");
}

/* Mesh m's row of order o: errors and the rates from mesh m-1 (also into the JSON). */
static void print_row(const conv *C, int o, int m, hdgc_report *all)
{
    if (C->quiet) ;
    else if (real_h(C)) printf("  %9.3e", C->h[m]);
    else printf("  %6d", C->meshes[m]);
    for (int u = 0; u < C->nu; u++) {
        if (!C->exact[u]) continue;
        double cur = C->err[o][m][u], prev = m > 0 ? C->err[o][m - 1][u] : NAN;
        if (!C->quiet) printf("  %12.4e", cur);
        double lh = m > 0 ? log(C->h[m - 1] / C->h[m]) : 0;
        if (m > 0 && cur > 0 && prev > 0 && fabs(lh) > 1e-9) {
            double rate = log(prev / cur) / lh;
            if (!C->quiet) printf(" %5.2f", rate);
            hdgc_report *rr = hdgc_report_push(all, "rates");
            hdgc_report_set_int(rr, "order", C->orders[o]);
            if (real_h(C)) hdgc_report_set_number(rr, h_name(C), C->h[m]);
            else hdgc_report_set_int(rr, "N", C->meshes[m]);
            hdgc_report_set_string(rr, "unknown", C->uname[u]);
            hdgc_report_set_number(rr, "rate", rate);
        } else if (!C->quiet) printf(" %5s", "-");
    }
    if (!C->quiet) printf("\n"), fflush(stdout);
}

/* The fitted rate of (order o, unknown u) over the meshes: NaN with fewer than 2 points. */
static double fit(const conv *C, int o, int u, int *points)
{
    double h[MAXN], e[MAXN], rate;
    for (int m = 0; m < C->nmeshes; m++) h[m] = C->h[m], e[m] = C->err[o][m][u];
    *points = hdgc_plot_fit(C->nmeshes, h, e, &rate, NULL);
    return rate;
}

/* Order o's fitted rates: a "fit" row under its table and "fits" in the JSON. */
static void print_fits(const conv *C, int o, hdgc_report *all)
{
    if (!C->quiet) printf("  %*s", real_h(C) ? 9 : 6, "fit");
    for (int u = 0; u < C->nu; u++) {
        if (!C->exact[u]) continue;
        int points;
        double rate = fit(C, o, u, &points);
        if (C->quiet) ;
        else if (isfinite(rate)) printf("  %12s %5.2f", "", rate);
        else printf("  %12s %5s", "", "-");
        hdgc_report *r = hdgc_report_push(all, "fits");
        hdgc_report_set_int(r, "order", C->orders[o]);
        hdgc_report_set_string(r, "unknown", C->uname[u]);
        hdgc_report_set_number(r, "rate", rate);   /* NaN: null */
        hdgc_report_set_int(r, "points", points);
    }
    if (!C->quiet) printf("\n"), fflush(stdout);
}

static void show_progress(conv *C, int done, int order, int m)
{
    char eta[40];
    int total = C->norders * C->nmeshes;
    hdg_progress_eta(&C->pg, done, total, eta, sizeof eta);
    char mesh[4200];
    mesh_spec(C, m, mesh, sizeof mesh);
    hdg_progress_update(&C->pg, 1, "run %d/%d: order %d, %.60s, %s", done + 1, total, order, mesh, eta);
}

/* All the runs of order o; 1 when one failed. */
static int sweep_order(conv *C, int o, hdgc_report *all)
{
    int failed = 0, header = 0;
    for (int m = 0; m < C->nmeshes; m++) {
        hdgc_problem *q = NULL;
        show_progress(C, o * C->nmeshes + m, C->orders[o], m);
        hdg_status st = one(C, C->orders[o], m, all, C->err[o][m], &q);
        if (!q || C->usage) {
            hdgc_problem_free(q);
            return 1;
        }
        failed |= st != HDG_OK;
        record_unknowns(C, q);
        hdgc_problem_free(q);
        if (!header) print_header(C, o), header = 1;
        print_row(C, o, m, all);
    }
    print_fits(C, o, all);
    return failed;
}

/* Error against h per (order, unknown with an exact solution), the fitted rate in the legend. */
static int write_plot(const conv *C)
{
    int ns = 0, nexact = 0;
    hdgc_plot_series *S = calloc((size_t)(C->norders * C->nu) + 1, sizeof *S);
    double *h = calloc((size_t)C->nmeshes, sizeof *h);
    char(*label)[160] = calloc((size_t)(C->norders * C->nu) + 1, sizeof *label);
    for (int m = 0; m < C->nmeshes; m++) h[m] = C->h[m];
    for (int o = 0; o < C->norders; o++) {
        nexact = 0;
        for (int u = 0; u < C->nu; u++) {
            if (!C->exact[u]) continue;
            int points;
            double rate = fit(C, o, u, &points);
            if (points >= 2 && isfinite(rate))
                snprintf(label[ns], sizeof label[ns], "%s, k=%d: rate %.2f", C->uname[u], C->orders[o], rate);
            else snprintf(label[ns], sizeof label[ns], "%s, k=%d", C->uname[u], C->orders[o]);
            S[ns] = (hdgc_plot_series){label[ns], C->nmeshes, h, C->err[o][0] + u, o, nexact++};
            ns++;
        }
    }
    /* the errors of one unknown are MAXU apart: copy them out */
    double *y = calloc((size_t)ns * (size_t)C->nmeshes + 1, sizeof *y);
    for (int s = 0; s < ns; s++) {
        for (int m = 0; m < C->nmeshes; m++) y[s * C->nmeshes + m] = S[s].y[m * MAXU];
        S[s].y = y + s * C->nmeshes;
    }
    char title[200];
    snprintf(title, sizeof title, "%s: L2 error against h", C->name);
    hdgc_plot pl = {960, 640, title, C->ndts ? "dt" : C->specs[0] ? "h (longest edge)" : C->refine ? "h / h(base mesh) = 1/2^L" : "h = 1/N", "L2 error", ns, S, 1};
    hdg_error err = {0};
    hdg_status st = hdgc_plot_write(C->plot, &pl, &err);
    if (st) fprintf(stderr, "hdgc convergence: %s\n", err.msg);
    else if (!C->quiet) printf("plot written to %s\n", C->plot);
    free(y), free(label), free(h), free(S);
    return st != HDG_OK;
}

static void init_results(conv *C)
{
    snprintf(C->name, sizeof C->name, "problem");
    for (int o = 0; o < MAXN; o++)
        for (int m = 0; m < MAXN; m++)
            for (int u = 0; u < MAXU; u++) C->err[o][m][u] = NAN;
}

int hdg_cmd_convergence(int argc, char **argv)
{
    conv *C = calloc(1, sizeof *C);
    C->names = calloc((size_t)argc + 1, sizeof *C->names);
    C->values = calloc((size_t)argc + 1, sizeof *C->values);
    int rc = parse(argc, argv, C);
    if (rc >= 0) { free_conv(C); return rc; }
    if (!C->norders) for (int k = 1; k <= 4; k++) C->orders[C->norders++] = k;
    if (C->ndts) {   /* one mesh, a column per step */
        if (!C->nmeshes) C->meshes[0] = 8;
        C->nmeshes = C->ndts;
    }
    if (!C->nmeshes && C->refine) C->meshes[0] = 1, C->meshes[1] = 2, C->meshes[2] = 4, C->nmeshes = 3;
    if (!C->nmeshes) C->meshes[0] = 4, C->meshes[1] = 8, C->meshes[2] = 16, C->nmeshes = 3;
    init_results(C);
    C->dim = file_dim(C);
    if (mesh_sizes(C)) { free_conv(C); return 1; }
    hdgc_report *all = hdgc_report_new();
    int failed = 0;
    hdg_progress_begin(&C->pg, !C->quiet && hdg_progress_tty() ? stderr : NULL);
    for (int o = 0; o < C->norders && !C->usage; o++) failed |= sweep_order(C, o, all);
    hdg_progress_end(&C->pg);
    if (C->usage) {
        hdgc_report_free(all);
        free_conv(C);
        return 2;
    }
    if (hdgc_mpi_rank() > 0) {   /* under mpirun rank 0 writes the files */
        hdgc_report_free(all);
        free_conv(C);
        return failed ? 1 : 0;
    }
    if (C->plot) failed |= write_plot(C);
    hdg_error err = {0};
    if (C->json && hdgc_report_write(all, C->json, &err)) {   /* no file unless asked for */
        fprintf(stderr, "hdgc convergence: %s\n", err.msg);
        failed = 1;
    } else if (C->json && !C->quiet) printf("table written to %s\n", C->json);
    hdgc_report_free(all);
    free_conv(C);
    return failed ? 1 : 0;
}
