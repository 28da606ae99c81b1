/* test_dg_speed.c — the explicit DG time step follows the characteristic
 * speed of the equations (drivers/dg_speed.c), and the drivers' guards
 * (drivers/run_dg_common.c, run_dg_loop.c):
 *   1. spectral radius: symmetric, non-symmetric with eigenvalues +-2, a
 *      rotation (+-i: 1), nilpotent (0);
 *   2. speeds read from the forms: maxwell2d and acoustics2d 1, advection2d
 *      hypot(ax, ay) (with --set), weak form = strong form, 2 dt(u) halves
 *      it, a non-symmetric system its eigenvalue, a coefficient 1 + x its
 *      largest value on the mesh, 1 + 2t its largest up to the final time; no dx()/dy() term: unknown, with a reason;
 *   2b. reaction: (c u, v) adds c / 4.65 (decay) or c / 3.16 (growth,
 *      rotation) to the element's inverse unit step;
 *   3. runs: advection with ax = 5.7 at cfl 0.75 takes a step 1/speed as
 *      long as ax = 1 (to the rounding to whole steps) and its error stays
 *      within 3x of the ax = 1 error (before: a step 5.7x too long, an
 *      effective cfl of 4.3, which blows up); maxwell2d keeps
 *      the Hesthaven-Warburton step hdg_dg_dt(N, rmin, cfl);
 *   4. energy class: maxwell2d (upwind, central), acoustics2d bounded;
 *      advection2d not (inflow data, named), with ext(u) = 0 bounded; not
 *      with alpha = -1 (anti-dissipative flux), a boundary ext(u) = u on a
 *      wave system, a non-symmetric system, a source or a growth term;
 *   5. the energy watch: on stable runs the energy never rises above its
 *      minimum by more than 1e-13 (measured <= 1.1e-14, N = 1..8, five
 *      meshes, upwind and central; the bound in the driver is 1e-10);
 *      maxwell2d at cfl 1.3 to t = 2, slightly unstable (error 3.5e-4 with
 *      exit 0 before), stops with "unstable" and a cfl to try;
 *   6. step counts over 1e8 (cfl 1e-300, final time 1e300, a file's dt =
 *      1e-300) are refused with HDG_EINPUT naming dt and the limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/dg_speed.h"
#include "drivers/run.h"
#include "runtime/solve/lserk4.h"
#include "test.h"
#include "test_problem.h"

static hdg_problem *load(const char *name, int order, const char *set, double val)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", HDG_EXAMPLES, name);
    hdg_setting s = { set, val };
    return test_load_problem(path, order, set ? &s : NULL, set ? 1 : 0);
}

static hdg_problem *parse(const char *src) { return test_parse_problem(src); }

/* A one-field problem on 'u' with the equation line eq and boundary data g. */
static hdg_problem *scalar(const char *eq, const char *g)
{
    static char src[2048];
    snprintf(src, sizeof src,
             "problem s\nmesh triangle\ndegree N = 2\nparam ax = 1\nspace V = L2(P N)\nunknown u : V\n%s\n"
             "boundary inflow on all: ext(u) = %s\ntime lserk4, final = 1, cfl = 0.5\n", eq, g);
    return parse(src);
}

static const char *UPWIND = "<(ax*nx - abs(ax*nx))/2 * jump(u), v> for v : V";

/* ------------------------------------------------------------ 1 */

static void test_radius(void)
{
    double sym[4] = { 0, 1, 1, 0 }, ns[4] = { 0, 4, 1, 0 }, rot[4] = { 0, -1, 1, 0 }, nil[9] = { 0, 1, 5, 0, 0, 2, 0, 0, 0 };
    CHECK_NEAR(hdg_spectral_radius(2, sym), 1, 1e-14, "rho [[0 1][1 0]]");
    CHECK_NEAR(hdg_spectral_radius(2, ns), 2, 1e-9, "rho [[0 4][1 0]]");
    CHECK_NEAR(hdg_spectral_radius(2, rot), 1, 1e-9, "rho of a rotation");
    CHECK(hdg_spectral_radius(3, nil) < 1e-6, "nilpotent: rho %g", hdg_spectral_radius(3, nil));
}

/* ------------------------------------------------------------ 2 */

static hdg_dg_speed speed_of(const hdg_problem *p, const char *mesh)
{
    hdg_dg_speed s;
    memset(&s, 0, sizeof s);
    hdg_error err;
    hdg_mesh m = {0};
    hdg_geom g = {0};
    hdg_refel re = {0};
    hdg_dg_lowered L;
    CHECK(hdg_mesh_load(&m, mesh, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "%s", err.msg);
    if (hdg_lower_dg(p, &L, &err) == HDG_OK) {
        CHECK(hdg_refel_init(&re, 2, L.N, &err) == HDG_OK, "%s", err.msg);
        hdg_dg_char_speed(p, &L, &m, &re, &g, 1.0, &s);
        hdg_refel_free(&re);
        hdg_dg_lowered_free(&L);
    } else {
        CHECK(0, "lowering: %s", err.msg);
    }
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
    return s;
}

static void expect_speed(hdg_problem *p, double want, const char *what)
{
    if (!p) return;
    hdg_dg_speed s = speed_of(p, "square:3,perturb=0.2");
    CHECK(s.known && fabs(s.max - want) <= 1e-12 * want, "%s: speed %.17g (want %.17g) %s", what, s.max, want, s.why);
    hdg_problem_free(p);
}

static void test_speeds(void)
{
    char eq[512];
    expect_speed(load("maxwell2d.hdg", 3, NULL, 0), 1, "maxwell2d");
    expect_speed(load("acoustics2d.hdg", 2, NULL, 0), 1, "acoustics2d");
    expect_speed(load("advection2d.hdg", 2, NULL, 0), hypot(1, 0.5), "advection2d");
    expect_speed(load("advection2d.hdg", 2, "ax", 5.7), hypot(5.7, 0.5), "advection2d, ax = 5.7");
    snprintf(eq, sizeof eq, "equation (dt(u), v) - (ax*u, dx(v)) = -<(ax*nx + abs(ax*nx))/2*u + "
                            "(ax*nx - abs(ax*nx))/2*ext(u), v> for v : V");
    expect_speed(scalar(eq, "0"), 1, "weak form");
    snprintf(eq, sizeof eq, "equation (2*dt(u), v) + (ax*dx(u), v) = %s", UPWIND);
    expect_speed(scalar(eq, "0"), 0.5, "2 dt(u)");
    snprintf(eq, sizeof eq, "equation (dt(u), v) + ((1 + x)*dx(u), v) = <((1 + x)*nx - abs((1 + x)*nx))/2 * "
                            "jump(u), v> for v : V");
    expect_speed(scalar(eq, "0"), 2, "coefficient 1 + x on [0, 1]^2");
    snprintf(eq, sizeof eq, "equation (dt(u), v) + ((1 + 2*t)*dx(u), v) = <((1 + 2*t)*nx - abs((1 + 2*t)*nx))/2 * "
                            "jump(u), v> for v : V");
    expect_speed(scalar(eq, "0"), 3, "coefficient 1 + 2t, final time 1");
    expect_speed(parse("problem a\nmesh triangle\ndegree N = 2\nspace V = L2(P N)\nunknown p : V, q : V\n"
                       "equation (dt(p), v) + (4*dx(q), v) = 0 for v : V\n"
                       "equation (dt(q), w) + (dx(p), w) = 0 for w : V\ntime lserk4, final = 1, cfl = 1\n"),
                 2, "A = [[0 4] [1 0]]");
    hdg_problem *p = parse("problem o\nmesh triangle\ndegree N = 2\nspace V = L2(P N)\nunknown u : V\n"
                           "equation (dt(u), v) + (u, v) = 0 for v : V\ntime lserk4, final = 1, cfl = 1\n");
    if (p) {
        hdg_dg_speed s = speed_of(p, "square:2");
        CHECK(!s.known && strstr(s.why, "dx()/dy()"), "no derivatives: known %d, %s", s.known, s.why);
        hdg_problem_free(p);
    }
}

/* ------------------------------------------------------------ 2b: reaction */

/* The reaction's rate joins the advective bound (issue 38.4): a decay c by
 * the real-axis limit, a growth -c and a rotation (eigenvalues +-iw) by the
 * half-disk; with a constant speed the smallest element still rules, so
 * unit = 1 / (1 / unit_0 + react). */
static void expect_reaction(hdg_problem *p, double want_react, double unit0, const char *what)
{
    if (!p) return;
    hdg_dg_speed s = speed_of(p, "square:3,perturb=0.2");
    double want = 1.0 / (1.0 / unit0 + want_react);
    CHECK(s.known && fabs(s.react - want_react) <= 1e-12 * want_react && fabs(s.unit - want) <= 1e-12 * want,
          "%s: react %.17g (want %.17g), unit %.17g (want %.17g) %s", what, s.react, want_react, s.unit, want, s.why);
    hdg_problem_free(p);
}

static void test_reaction(void)
{
    char eq[512];
    snprintf(eq, sizeof eq, "equation (dt(u), v) + (ax*dx(u), v) = %s", UPWIND);
    hdg_problem *p = scalar(eq, "0");
    if (!p) return;
    hdg_dg_speed s0 = speed_of(p, "square:3,perturb=0.2");
    hdg_problem_free(p);
    CHECK(s0.known && s0.react == 0 && fabs(s0.unit - s0.rmin * hdg_dg_dt(2, 1, 1)) <= 1e-15 * s0.unit,
          "no reaction: unit %.17g = rmin k_N %.17g", s0.unit, s0.rmin * hdg_dg_dt(2, 1, 1));
    snprintf(eq, sizeof eq, "equation (dt(u), v) + (ax*dx(u), v) + (50*u, v) = %s", UPWIND);
    expect_reaction(scalar(eq, "0"), 50 / hdg_lserk4_real_limit, s0.unit, "decay 50");
    snprintf(eq, sizeof eq, "equation (dt(u), v) + (ax*dx(u), v) - (50*u, v) = %s", UPWIND);
    expect_reaction(scalar(eq, "0"), 50 / hdg_lserk4_disk_radius, s0.unit, "growth 50");
    snprintf(eq, sizeof eq, "equation (2*dt(u), v) + (2*ax*dx(u), v) + (50*u, v) = %s", UPWIND);
    expect_reaction(scalar(eq, "0"), 25 / hdg_lserk4_real_limit, s0.unit, "decay 50 over dt() coefficient 2");
    p = parse("problem a\nmesh triangle\ndegree N = 2\nspace V = L2(P N)\nunknown p : V, q : V\n"
              "equation (dt(p), v) + (dx(q), v) - (30*q, v) = 0 for v : V\n"
              "equation (dt(q), w) + (dx(p), w) + (30*p, w) = 0 for w : V\ntime lserk4, final = 1, cfl = 1\n");
    expect_reaction(p, 30 / hdg_lserk4_disk_radius, s0.unit, "rotation +-30i");
}

/* ------------------------------------------------------------ 3, 5, 6: runs */

typedef struct runres {
    hdg_status st;
    double err, dt, speed, maxrise;
    long long steps;
    char msg[2048];
} runres;

static runres run(hdg_problem *p, const char *mesh, double final, double cfl)
{
    runres r;
    memset(&r, 0, sizeof r);
    hdg_run_options o;
    hdg_run_options_default(&o);
    o.mesh = mesh;
    o.final_time = final;
    o.cfl = cfl;
    hdg_report *rep = hdg_report_new();
    hdg_error err;
    hdg_error_clear(&err);
    r.st = hdg_run_problem(p, &o, rep, &err);
    snprintf(r.msg, sizeof r.msg, "%s", err.msg);
    char path[96];
    snprintf(path, sizeof path, "errors.%s", p->unknowns[p->nunknowns - 1].name);
    r.err = hdg_report_get_number(rep, path, NULL);
    r.dt = hdg_report_get_number(rep, "dt", NULL);
    r.speed = hdg_report_get_number(rep, "speed", NULL);
    r.maxrise = hdg_report_get_number(rep, "energy.max_rise", NULL);
    r.steps = (long long)hdg_report_get_number(rep, "steps", NULL);
    hdg_report_free(rep);
    return r;
}

static void test_advection_step(void)
{
    hdg_problem *p1 = load("advection2d.hdg", 3, NULL, 0), *p5 = load("advection2d.hdg", 3, "ax", 5.7);
    if (p1 && p5) {
        runres a = run(p1, "square:4", 0.5, 0.75), b = run(p5, "square:4", 0.5, 0.75);
        CHECK(a.st == HDG_OK && b.st == HDG_OK, "%s %s", a.msg, b.msg);
        CHECK_NEAR(b.speed, hypot(5.7, 0.5), 1e-12, "speed reported");
        double ra = a.dt * a.speed, rb = b.dt * b.speed;   /* dt ~ 1/speed up to whole steps */
        CHECK(fabs(rb / ra - 1) <= 1.0 / a.steps, "dt * speed %.6g (ax = 5.7) vs %.6g (ax = 1)", rb, ra);
        /* measured: 1.57e-3 and 1.56e-3 (square:4, N = 3, t = 0.5) */
        CHECK(b.err < 3 * a.err && b.err < 2e-3, "ax = 5.7: error %.3e, ax = 1: %.3e", b.err, a.err);
    }
    hdg_problem_free(p1);
    hdg_problem_free(p5);
    hdg_problem *m = load("maxwell2d.hdg", 3, NULL, 0);
    if (m) {
        hdg_mesh sq = {0};
        hdg_geom g = {0};
        hdg_error err;
        CHECK(hdg_mesh_load(&sq, "square:4,perturb=0.2", &err) == HDG_OK && hdg_geom_init(&g, &sq, &err) == HDG_OK,
              "%s", err.msg);
        double rmin = INFINITY;
        for (int e = 0; e < sq.ne; e++) rmin = fmin(rmin, g.rin[e]);
        long long n = hdg_dg_nsteps(1.0, hdg_dg_dt(3, rmin, 0.75));
        runres r = run(m, "square:4,perturb=0.2", 1.0, 0.75);
        CHECK(r.st == HDG_OK && r.steps == n && r.dt == 1.0 / n, "maxwell: %lld steps of %.17g (want %lld) %s",
              r.steps, r.dt, n, r.msg);
        hdg_geom_free(&g);
        hdg_mesh_free(&sq);
        hdg_problem_free(m);
    }
}

/* ------------------------------------------------------------ 4 */

static void expect_bounded(hdg_problem *p, int want, const char *why_has, const char *what)
{
    if (!p) return;
    hdg_dg_lowered L;
    hdg_error err;
    char why[320] = "";
    if (hdg_lower_dg(p, &L, &err) == HDG_OK) {
        int b = hdg_dg_energy_bounded(p, &L, why, sizeof why);
        CHECK(b == want && (!why_has || strstr(why, why_has)), "%s: bounded %d (want %d), '%s'", what, b, want, why);
        hdg_dg_lowered_free(&L);
    } else {
        CHECK(0, "%s: %s", what, err.msg);
    }
    hdg_problem_free(p);
}

static void test_energy_class(void)
{
    char eq[512];
    expect_bounded(load("maxwell2d.hdg", 2, NULL, 0), 1, NULL, "maxwell2d");
    expect_bounded(load("maxwell2d.hdg", 2, "alpha", 0), 1, NULL, "maxwell2d central");
    expect_bounded(load("acoustics2d.hdg", 2, NULL, 0), 1, NULL, "acoustics2d");
    expect_bounded(load("maxwell2d.hdg", 2, "alpha", -1), 0, "face terms can feed energy", "maxwell2d alpha = -1");
    expect_bounded(parse("problem w\nmesh triangle\ndegree N = 2\nspace V = L2(P N)\nunknown a : V, b : V\n"
                         "equation (dt(a), v) + (dx(b), v) = <nx*jump(b)/2 - jump(a)/2, v> for v : V\n"
                         "equation (dt(b), w) + (dx(a), w) = <nx*jump(a)/2 - jump(b)/2, w> for w : V\n"
                         "boundary open on all: ext(a) = a, ext(b) = b\ntime lserk4, final = 1, cfl = 1\n"),
                   0, "this boundary condition can feed energy", "ext(u) = u on a wave system");
    expect_bounded(load("advection2d.hdg", 2, NULL, 0), 0, "boundary 'inflow' gives exterior data for u",
                   "advection2d");
    snprintf(eq, sizeof eq, "equation (dt(u), v) + (ax*dx(u), v) = %s", UPWIND);
    expect_bounded(scalar(eq, "0"), 1, NULL, "advection, ext(u) = 0");
    snprintf(eq, sizeof eq, "equation (dt(u), v) + (ax*dx(u), v) = (sin(x), v) + %s", UPWIND);
    expect_bounded(scalar(eq, "0"), 0, "source", "advection with a source");
    snprintf(eq, sizeof eq, "equation (dt(u), v) + (ax*dx(u), v) - (u, v) = %s", UPWIND);
    expect_bounded(scalar(eq, "0"), 0, "(u, v)", "growth term");
    expect_bounded(parse("problem a\nmesh triangle\ndegree N = 2\nspace V = L2(P N)\nunknown p : V, q : V\n"
                         "equation (dt(p), v) + (4*dx(q), v) = 0 for v : V\n"
                         "equation (dt(q), w) + (dx(p), w) = 0 for w : V\ntime lserk4, final = 1, cfl = 1\n"),
                   0, "not symmetric", "non-symmetric system");
}

/* ------------------------------------------------------------ 5, 6 */

static void test_watch(void)
{
    const char *meshes[] = { "square:4,perturb=0.3", HDG_TEST_DATA "/maxwell05_v22.msh" };
    double worst = 0;
    for (int N = 1; N <= 8; N += 3)
        for (int k = 0; k < 2; k++)
            for (int alpha = 0; alpha < 2; alpha++) {
                hdg_problem *p = load(k ? "acoustics2d.hdg" : "maxwell2d.hdg", N, "alpha", alpha);
                if (!p) continue;
                runres r = run(p, meshes[k], 0.3, 0);
                CHECK(r.st == HDG_OK, "stable run N = %d: %s", N, r.msg);
                worst = fmax(worst, r.maxrise);
                hdg_problem_free(p);
            }
    CHECK(worst <= 1e-13, "stable runs: the energy rose %.3g over its minimum", worst);
    hdg_problem *p = load("maxwell2d.hdg", 4, NULL, 0);
    if (p) {
        runres r = run(p, "square:8", 2.0, 1.3);
        CHECK(r.st == HDG_ESOLVER && strstr(r.msg, "unstable: the energy grew from") && strstr(r.msg, "--cfl <= 0.6"),
              "cfl 1.3: %d %s", r.st, r.msg);
        runres t = run(p, "square:2", 1.0, 1e-300);
        CHECK(t.st == HDG_EINPUT && strstr(t.msg, "limit of 1e+08 steps") && strstr(t.msg, "dt = "),
              "cfl 1e-300: %d %s", t.st, t.msg);
        t = run(p, "square:2", 1e300, 0);
        CHECK(t.st == HDG_EINPUT && strstr(t.msg, "limit of 1e+08 steps"), "final 1e300: %d %s", t.st, t.msg);
        hdg_problem_free(p);
    }
    p = parse("problem f\nmesh triangle\ndegree N = 1\nspace V = L2(P N)\nunknown u : V\n"
              "equation (dt(u), v) + (dx(u), v) = 0 for v : V\ntime lserk4, final = 1, dt = 1e-300\n");
    if (p) {
        runres t = run(p, "square:2", 0, 0);
        CHECK(t.st == HDG_EINPUT && strstr(t.msg, "'dt = 1e-300'") && strstr(t.msg, "1e+300 steps"), "dt 1e-300: %s",
              t.msg);
        hdg_problem_free(p);
    }
}

int main(void)
{
    test_radius();
    test_speeds();
    test_reaction();
    test_energy_class();
    test_advection_step();
    test_watch();
    return test_summary("dg_speed");
}
