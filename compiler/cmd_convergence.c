/* cmd_convergence.c — `hdgc convergence FILE.hdg --orders 1..6 --meshes 4,8,16,32`:
 * runs the problem for every order and mesh, prints the L2 errors of every
 * unknown with an exact solution and the observed rates log2(e_coarse/e_fine)
 * / log2(N_fine/N_coarse), and writes the table as JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/commands.h"
#include "compiler/run.h"
#include "support/util.h"

#define MAXN 16

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc convergence FILE.hdg [--orders a..b | k,k,...] [--meshes N,N,...]\n"
               "                        [--mesh-options OPTS] [--set name=value]... [--solver S]\n"
               "                        [--precond P] [--petsc OPTS] [--rtol r] [--json FILE]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Runs FILE.hdg on the meshes square:N (N from --meshes, default 4,8,16) for every\n"
           "order (default 1..4) and prints, per order, the L2 error of every unknown that\n"
           "has an exact solution and the observed rate between consecutive meshes:\n"
           "    rate = log(e_coarse / e_fine) / log(N_fine / N_coarse).\n"
           "\n"
           "options:\n"
           "  --orders SPEC       a..b or a comma list (default 1..4)\n"
           "  --meshes LIST       comma list of N for square:N (default 4,8,16)\n"
           "  --mesh-options OPTS appended to each mesh spec, e.g. perturb=0.2\n"
           "  --set, --solver, --precond, --petsc, --rtol, --final-time, --cfl: as for hdgc run\n"
           "  --json FILE         where the table goes (default NAME-convergence.json)\n"
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

typedef struct conv {
    const char *path, *json, *mopts;
    int orders[MAXN], norders, meshes[MAXN], nmeshes;
    hdg_setting *sets;
    int nsets;
    hdg_run_options ro;
    int warned;   /* a compile warning (kernel cache disabled) is printed once */
} conv;

static int parse(int argc, char **argv, conv *C)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(); return 0; }
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
            if ((C->nmeshes = int_list(v, C->meshes, MAXN)) <= 0) return bad("--meshes %s: expected N,N,...", v);
        } else if (!strcmp(a, "--mesh-options")) C->mopts = v;
        else if (!strcmp(a, "--json")) C->json = v;
        else if (!strcmp(a, "--solver")) C->ro.solver = v;
        else if (!strcmp(a, "--precond")) C->ro.precond = v;
        else if (!strcmp(a, "--petsc")) C->ro.petsc = v;
        else if (!strcmp(a, "--rtol") && isnum && d > 0 && d < 1) C->ro.rtol = d;
        else if (!strcmp(a, "--final-time") && isnum && d > 0) C->ro.final_time = d;
        else if (!strcmp(a, "--cfl") && isnum && d > 0) C->ro.cfl = d;
        else if (!strcmp(a, "--set")) {
            char *eq = strchr(argv[i], '=');
            if (!eq || eq == argv[i] || !hdg_parse_double(eq + 1, &d)) return bad("--set %s: expected name=number", v);
            *eq = '\0';
            for (int k = 0; k < C->nsets; k++)
                if (!strcmp(C->sets[k].name, argv[i])) return bad("--set %s given twice", argv[i]);
            C->sets[C->nsets++] = (hdg_setting){argv[i], d};
        } else return bad("unknown option or bad value: '%s'", a);
    }
    if (!C->path) return bad("no file given%s", "");
    if (hdg_cli_check_output("convergence", "--json", C->json, C->path)) return 2;   /* before any run */
    return -1;
}

/* Runs one (order, mesh); errors[u] = L2 error or NaN. */
static hdg_status one(conv *C, int order, int N, hdg_report *all, double *errs, hdg_problem **pout)
{
    hdg_frontend_options fo = {order, C->sets, C->nsets};
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(C->path, &fo, &d);
    if (!p) {
        char *t = hdg_diags_render(&d);
        fputs(t, stderr);
        free(t);
        hdg_diags_free(&d);
        return HDG_EINPUT;
    }
    hdg_diags_free(&d);
    char mesh[256];
    snprintf(mesh, sizeof mesh, "square:%d%s%s", N, C->mopts ? "," : "", C->mopts ? C->mopts : "");
    hdg_run_options ro = C->ro;
    ro.mesh = mesh;
    hdg_report *rep = hdg_report_new();
    hdg_error err = {0};
    hdg_status st = hdg_run_problem(p, &ro, rep, &err);
    if (st) fprintf(stderr, "hdgc convergence: order %d, %s: %s\n", order, mesh, err.msg);
    const char *w = hdg_report_get_string(rep, "compile.warning");
    if (w && !C->warned) fprintf(stderr, "hdgc convergence: warning: %s\n", w), C->warned = 1;
    hdg_report *row = hdg_report_array_push_object(all, "runs");
    hdg_report_string(row, "status", st ? "failed" : "ok");
    if (st) hdg_report_string(row, "error", err.msg);
    hdg_report_int(row, "order", order);
    hdg_report_int(row, "N", N);
    hdg_report_string(row, "mesh", mesh);
    for (int u = 0; u < p->nunknowns; u++) {
        char path[160];
        int found;
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        errs[u] = hdg_report_get_number(rep, path, &found);
        if (!found) errs[u] = NAN;
        else hdg_report_number(row, path, errs[u]);
    }
    int found;
    double it = hdg_report_get_number(rep, "solver.iterations", &found);
    if (found) hdg_report_int(row, "iterations", (long long)it);
    hdg_report_free(rep);
    *pout = p;
    return st;
}

int hdg_cmd_convergence(int argc, char **argv)
{
    conv C;
    memset(&C, 0, sizeof C);
    hdg_run_options_default(&C.ro);
    C.sets = calloc((size_t)argc + 1, sizeof *C.sets);
    int rc = parse(argc, argv, &C);
    if (rc >= 0) { free(C.sets); return rc; }
    if (!C.norders) for (int k = 1; k <= 4; k++) C.orders[C.norders++] = k;
    if (!C.nmeshes) C.meshes[0] = 4, C.meshes[1] = 8, C.meshes[2] = 16, C.nmeshes = 3;
    hdg_report *all = hdg_report_new();
    int failed = 0;
    char name[128] = "problem";
    for (int o = 0; o < C.norders; o++) {
        double prev[64], cur[64];
        hdg_problem *p = NULL;
        for (int m = 0; m < C.nmeshes; m++) {
            hdg_problem *q = NULL;
            hdg_status st = one(&C, C.orders[o], C.meshes[m], all, cur, &q);
            if (!q) { failed = 1; break; }
            if (st) failed = 1;
            if (!p) {
                snprintf(name, sizeof name, "%s", q->name);
                printf("%s, order %d\n  %6s", q->name, C.orders[o], "N");
                for (int u = 0; u < q->nunknowns; u++)
                    if (q->unknowns[u].exact[0]) printf("  %12s %5s", q->unknowns[u].name, "rate");
                printf("\n");
            }
            printf("  %6d", C.meshes[m]);
            for (int u = 0; u < q->nunknowns && u < 64; u++) {
                if (!q->unknowns[u].exact[0]) continue;
                printf("  %12.4e", cur[u]);
                if (m > 0 && cur[u] > 0 && prev[u] > 0) {
                    double rate = log(prev[u] / cur[u]) / log((double)C.meshes[m] / C.meshes[m - 1]);
                    printf(" %5.2f", rate);
                    hdg_report *rr = hdg_report_array_push_object(all, "rates");
                    hdg_report_int(rr, "order", C.orders[o]);
                    hdg_report_int(rr, "N", C.meshes[m]);
                    hdg_report_string(rr, "unknown", q->unknowns[u].name);
                    hdg_report_number(rr, "rate", rate);
                } else printf(" %5s", "-");
                prev[u] = cur[u];
            }
            printf("\n");
            fflush(stdout);
            hdg_problem_free(p);
            p = q;
        }
        hdg_problem_free(p);
    }
    char def[160];
    snprintf(def, sizeof def, "%s-convergence.json", name);
    const char *out = C.json ? C.json : def;
    hdg_error err = {0};
    if (hdg_report_write(all, out, &err)) {
        fprintf(stderr, "hdgc convergence: %s\n", err.msg);
        failed = 1;
    } else printf("table written to %s\n", out);
    hdg_report_free(all);
    free(C.sets);
    return failed ? 1 : 0;
}
