/* test_mg.c — the two-level trace preconditioner (--precond mg, runtime/solve/mg.h)
 * and the default stopping rule (issue 13):
 *  - iterations do not grow with h: on square:64 at most 1.3x those on
 *    square:16 (k = 1, 3, 5; a perturbed mesh; a variable full diffusion
 *    tensor; convection-diffusion under GMRES), and far fewer than the
 *    face-block Jacobi's;
 *  - the solution is the block-Jacobi one's (fields to 1e-9), also with a
 *    constant null space (pure Neumann) and two trace unknowns;
 *  - the defaults (no --rtol, no --precond) keep u* at rate k+2 - 0.3 from
 *    square:16 to square:32 at k = 3, choose mg from 10000 trace unknowns;
 *    a loose --rtol that stops above 1e-5 h^(k+2) warns, the default does not.
 *
 * usage: test_mg GROUP   (poisson1 | poisson3 | poisson5 | perturbed | tensor |
 *                         convdiff | same | defaults) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "test.h"
#include "test_run.h"

typedef struct result {
    hdg_status st;
    double ustar, u, iters, amg_setup;
    char precond[16], stopped[32];
    int warned;
    hdg_run_fields f;
} result;

static result run(const char *file, const char *mesh, int k, const char *precond, double rtol)
{
    result r;
    memset(&r, 0, sizeof r);
    hdg_run_options o;
    hdg_run_options_default(&o);
    o.mesh = mesh, o.precond = precond, o.rtol = rtol, o.fields = &r.f;
    hdg_report *rep;
    r.st = test_run(file, k, &o, &rep);
    r.u = test_report_number(rep, "errors.u");
    r.ustar = test_report_number(rep, "errors.ustar");
    r.iters = test_report_number(rep, "solver.iterations");
    r.amg_setup = test_report_number(rep, "solver.mg.amg_setup_seconds");
    const char *s = hdg_report_get_string(rep, "solver.precond");
    snprintf(r.precond, sizeof r.precond, "%s", s ? s : "");
    s = hdg_report_get_string(rep, "solver.stopped");
    snprintf(r.stopped, sizeof r.stopped, "%s", s ? s : "");
    r.warned = hdg_report_get_string(rep, "solver.warning") != NULL;
    hdg_report_free(rep);
    return r;
}

/* ||a - b|| / ||b|| of the element fields. */
static double field_diff(const result *a, const result *b)
{
    return a->f.n == b->f.n ? test_fields_l2diff(a->f.x, b->f.x, b->f.n) : INFINITY;
}

static const char *data(const char *name)
{
    static char b[512];
    if (!strncmp(name, "examples/", 9)) snprintf(b, sizeof b, "%s/%s", HDG_EXAMPLES, name + 9);
    else snprintf(b, sizeof b, "%s/hdg/%s", HDG_TEST_DATA, name);
    return b;
}

/* mg iterations on square:8..64 (mesh options opts): flat in h. */
static void flat(const char *name, int k, const char *opts)
{
    const int N[] = {8, 16, 32, 64};
    double it[4];
    for (int i = 0; i < 4; i++) {
        char mesh[64];
        snprintf(mesh, sizeof mesh, "square:%d%s", N[i], opts);
        result r = run(data(name), mesh, k, "mg", 1e-12);
        CHECK(r.st == HDG_OK, "%s %s k=%d solves", name, mesh, k);
        it[i] = r.iters;
        printf("%s %s k=%d mg: %.0f iterations, error u %.3e\n", name, mesh, k, r.iters, r.u);
        hdg_run_fields_free(&r.f);
    }
    CHECK(it[3] <= 1.3 * it[1], "%s k=%d: %.0f iterations on square:64 > 1.3 x %.0f on square:16", name, k, it[3],
          it[1]);
    CHECK(it[3] <= 40, "%s k=%d: %.0f iterations on square:64", name, k, it[3]);
    char mesh[64];
    snprintf(mesh, sizeof mesh, "square:16%s", opts);
    result b = run(data(name), mesh, k, "block", 1e-12);
    printf("%s %s k=%d block: %.0f iterations\n", name, mesh, k, b.iters);
    CHECK(b.st == HDG_OK && 5 * it[1] < b.iters, "mg %.0f vs block %.0f iterations on square:16", it[1], b.iters);
    hdg_run_fields_free(&b.f);
}

/* mg and block-Jacobi CG give the same fields (to tol: GMRES on the
 * convection-dominated problem leaves ~5e-9 between two preconditioners at
 * rtol 1e-12). */
static void same(const char *name, const char *mesh, double tol)
{
    result a = run(data(name), mesh, 3, "mg", 1e-12), b = run(data(name), mesh, 3, "block", 1e-12);
    double d = field_diff(&a, &b);
    printf("%s %s: mg %.0f, block %.0f iterations, fields differ by %.2e\n", name, mesh, a.iters, b.iters, d);
    CHECK(a.st == HDG_OK && b.st == HDG_OK, "both solve");
    CHECK(d <= tol, "%s: mg and block fields differ by %.2e", name, d);
    CHECK(!strcmp(a.precond, "mg"), "solver.precond '%s'", a.precond);
    hdg_run_fields_free(&a.f), hdg_run_fields_free(&b.f);
}

/* Default settings: rate of u*, the preconditioner chosen by size, no warning;
 * a loose rtol warns. */
static void defaults(void)
{
    const char *file = data("poisson_exp.hdg");
    result c = run(file, "square:16", 3, NULL, 0), f = run(file, "square:32", 3, NULL, 0);
    CHECK(c.st == HDG_OK && f.st == HDG_OK, "default runs solve");
    double rate = log2(c.ustar / f.ustar);
    printf("defaults: u* %.3e (square:16, %s, %s), %.3e (square:32, %s, %s): rate %.2f\n", c.ustar, c.precond,
           c.stopped, f.ustar, f.precond, f.stopped, rate);
    CHECK(rate >= 5 - 0.3, "u* rate %.2f < k+2-0.3 = 4.7 with the default stopping rule", rate);
    CHECK(!strcmp(c.precond, "block") && !strcmp(f.precond, "mg"), "default precond %s (3264 unknowns), %s (12800)",
          c.precond, f.precond);
    CHECK(!c.warned && !f.warned, "no warning with the defaults");
    /* the module was loaded before the solve (to choose mg): its load is PETSc's start, not the AMG set-up's */
    CHECK(f.amg_setup >= 0, "solver.mg.amg_setup_seconds %.3g < 0", f.amg_setup);
    result l = run(file, "square:32", 3, "mg", 1e-8);
    printf("rtol 1e-8: u* %.3e, warned %d\n", l.ustar, l.warned);
    CHECK(l.st == HDG_OK && l.warned, "a loose rtol warns");
    CHECK(l.ustar > 2 * f.ustar, "the loose rtol's u* %.3e is worse than the default's %.3e (else no warning due)",
          l.ustar, f.ustar);
    hdg_run_fields_free(&c.f), hdg_run_fields_free(&f.f), hdg_run_fields_free(&l.f);
}

/* The solve warning (run_hdg_common.c) on square:16 at k = 3 (bound max(1e-13, 1e-5 h^5) = 5.4e-11):
 * none at the rounding floor, which no rtol passes; a stagnation above its floor is named as such. */
/* The solver whose solve is warned about: method, and the --rtol given (0: the default rule). */
static hdg_hdg_solver solver_of(const char *method, double rtol)
{
    hdg_hdg_solver s;
    memset(&s, 0, sizeof s);
    s.method = method, s.precond = "block", s.format = "block";
    s.so = hdg_solve_opts_default();
    s.so.rtol = !strcmp(method, "petsc") ? HDG_HDG_RTOL_PETSC : HDG_HDG_RTOL;
    s.so.attainable = HDG_HDG_ATTAINABLE;
    if (rtol > 0) s.so.rtol = rtol, s.so.attainable = 0;
    return s;
}

static const char *warning_with(const hdg_mesh *M, const hdg_hdg_solver *s, int stagnated, double residual,
                                double floor, int its, char *buf, size_t n)
{
    hdg_solve_info info;
    memset(&info, 0, sizeof info);
    info.converged = 1, info.stagnated = stagnated, info.residual = residual, info.floor = floor;
    info.iterations = its;
    hdg_report *rep = hdg_report_new();
    hdg_hdg_solve_warning(rep, M, 3, s, &info);
    const char *w = hdg_report_get_string(rep, "solver.warning");
    snprintf(buf, n, "%s", w ? w : "");
    hdg_report_free(rep);
    return buf;
}

/* An explicit --rtol 1e-6 of CG (the wording of a given rtol). */
static const char *warning_its(const hdg_mesh *M, int stagnated, double residual, double floor, int its, char *buf,
                               size_t n)
{
    hdg_hdg_solver s = solver_of("cg", 1e-6);
    return warning_with(M, &s, stagnated, residual, floor, its, buf, n);
}

static const char *warning_for(const hdg_mesh *M, int stagnated, double residual, double floor, char *buf, size_t n)
{
    return warning_its(M, stagnated, residual, floor, 0, buf, n);
}

static void warnings(void)
{
    hdg_mesh M;
    hdg_error err;
    CHECK(hdg_mesh_square(&M, 16, 0, 0, 1, 0, 1, &err) == HDG_OK, "%s", err.msg);
    char b[512];
    CHECK(!*warning_for(&M, 0, 1e-14, 0, b, sizeof b), "rtol reached: %s", b);
    CHECK(!*warning_for(&M, 1, 9e-11, 5e-11, b, sizeof b), "at the floor: %s", b);
    CHECK(strstr(warning_for(&M, 1, 9e-11, 1e-15, b, sizeof b), "stagnated at relative residual 9e-11") &&
          strstr(b, "above its rounding floor 1e-15") && strstr(b, "another --precond or --solver"),
          "above the floor: %s", b);
    CHECK(strstr(warning_for(&M, 0, 1e-8, 0, b, sizeof b), "a smaller --rtol"), "loose rtol: %s", b);
    printf("%s\n", b);
    /* a residual below the bound, but after 2000 iterations: kappa ~ (2 n / ln(2/r))^2 = 2.0e4 */
    CHECK(strstr(warning_its(&M, 0, 1e-12, 0, 2000, b, sizeof b), "after 2000 iterations") &&
          strstr(b, "condition number near 2e+04") && strstr(b, "--precond mg"), "ill-conditioned: %s", b);
    printf("%s\n", b);
    CHECK(!*warning_its(&M, 0, 1e-12, 0, 25, b, sizeof b), "the same residual after 25 iterations: %s", b);
    CHECK(!*warning_its(&M, 0, 1e-14, 0, 2000, b, sizeof b), "at the default rtol, not amplified: %s", b);
    CHECK(!*warning_its(&M, 1, 9e-11, 5e-11, 2000, b, sizeof b), "at the floor after 2000 iterations: %s", b);
    /* no --rtol given (PETSc's default 1e-12): the remedy names an rtol, not "the default" that ran */
    hdg_hdg_solver petsc = solver_of("petsc", 0), given = solver_of("petsc", 1e-8);
    CHECK(strstr(warning_with(&M, &petsc, 0, 1e-10, 0, 20, b, sizeof b), "--rtol 1e-13 (this solver's default is "
                  "1e-12) removes it") && !strstr(b, "or the default"), "petsc, default rtol: %s", b);
    printf("%s\n", b);
    CHECK(strstr(warning_with(&M, &given, 0, 1e-8, 0, 20, b, sizeof b), "a smaller --rtol (1e-11) removes it"),
          "petsc, --rtol 1e-8: %s", b);
    CHECK(strstr(warning_with(&M, &petsc, 0, 1e-12, 0, 2000, b, sizeof b), "condition number near") &&
          strstr(b, "-pc_type") && !strstr(b, "--precond mg") && !strstr(b, "or the default"),
          "petsc, default rtol, ill-conditioned: %s", b);
    printf("%s\n", b);
    /* the eliminated Dirichlet rows' diagonal: the power of two nearest max |K_e| / 8 */
    static const double amax[] = {8, 24, 20, 8e-9, 8e12, 0, INFINITY, NAN, 1e-320};
    static const double want[] = {1, 4, 2, 0x1p-30, 0x1p40, 1, 1, 1, 0x1p-1000};
    for (int i = 0; i < 9; i++)
        CHECK(hdg_hdg_dirichlet_diag(amax[i]) == want[i], "dirichlet diagonal for max |K_e| = %g: %g, want %g", amax[i],
              hdg_hdg_dirichlet_diag(amax[i]), want[i]);
    hdg_mesh_free(&M);
}

int main(int argc, char **argv)
{
    const char *g = argc > 1 ? argv[1] : "poisson3";
    if (!strcmp(g, "poisson1")) flat("poisson_exp.hdg", 1, "");
    else if (!strcmp(g, "poisson3")) flat("poisson_exp.hdg", 3, "");
    else if (!strcmp(g, "poisson5")) flat("poisson_exp.hdg", 5, "");
    else if (!strcmp(g, "perturbed")) flat("poisson_exp.hdg", 3, ",perturb=0.2");
    else if (!strcmp(g, "tensor")) flat("tensor_diffusion.hdg", 3, "");
    else if (!strcmp(g, "convdiff")) flat("examples/convection_diffusion.hdg", 3, "");
    else if (!strcmp(g, "same")) {
        same("poisson_exp.hdg", "square:16,perturb=0.2", 1e-9);
        same("poisson_neumann.hdg", "square:16", 1e-9);
        same("two_traces.hdg", "square:16", 1e-9);
        same("examples/convection_diffusion.hdg", "square:16", 5e-8);
    } else if (!strcmp(g, "defaults")) defaults();
    else if (!strcmp(g, "warnings")) warnings();
    else {
        fprintf(stderr, "test_mg: unknown group %s\n", g);
        return 2;
    }
    return test_summary(g);
}
