/* test_frontend_nonlinear.c — terms nonlinear in the unknowns (issue 41, items 1-2): the residual
 * terms and Jacobian atoms of examples/nonlinear_diffusion.hdg, bratu.hdg, burgers2d.hdg and euler2d.hdg
 * (counts per equation, roles, domains), and every derivative the compiler derived checked at sample
 * states and points against central differences of the residual coefficient, to 1e-7 relative: for
 * every value of every unknown (component, value/dx/dy, side) — so a wrong derivative, a missing one
 * or a spurious one fails. Linear atoms never read the state; a linear example has no residual terms;
 * steady nonlinear problems start from 'initial' (default 0). The examples' data against their PDEs:
 * nonlinear_diffusion's symbolic f against -div((1 + u^2) grad u) of its exact u, and euler2d's vortex
 * against the Euler equations, by central differences (each fails with gamma or kappa off by 1%). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "test.h"

static hdg_problem *load_from(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.hdg", dir, name);
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, NULL, &d);
    CHECK(p != NULL && d.nerrors == 0, "%s loads", name);
    hdg_diags_free(&d);
    return p;
}

static hdg_problem *load(const char *name) { return load_from(HDG_EXAMPLES, name); }

/* ---------------------------------------------------------------- a sample state */

#define NOPS 4
#define NSIDES 3
typedef struct state {
    const hdg_problem *p;
    double *v;   /* [unknown][comp][op][side] */
} state;

static double *slot(const state *s, int u, int c, int op, int side)
{
    return &s->v[((u * HDG_MAX_COMP + c) * NOPS + op) * NSIDES + side];
}

static double state_value(void *ctx, int u, int c, int op, int side)
{
    return *slot(ctx, u, c, op, side);
}

/* Values away from every kink of the examples (abs, the maximum wave speed) and with positive
 * density and pressure for euler2d (E large against |m|^2 / (2 rho)). */
static void fill(state *s, int seed)
{
    const hdg_problem *p = s->p;
    for (int u = 0; u < p->nunknowns; u++)
        for (int c = 0; c < HDG_MAX_COMP; c++)
            for (int op = 0; op < NOPS; op++)
                for (int side = 0; side < NSIDES; side++) {
                    double v = op ? 0.2 + 0.07 * op + 0.03 * c : 0.7 + 0.13 * u + 0.05 * c;
                    if (op == 0 && !strcmp(p->unknowns[u].name, "E")) v = 3.0;
                    v *= 1 + 0.1 * seed;
                    if (side == HDG_SIDE_EXTERIOR) v = v * 1.1 + 0.05;
                    *slot(s, u, c, op, side) = v;
                }
}

static double eval(const hdg_expr *e, state *s, double x, double y, double nx, double ny)
{
    bool d3 = s->p->dim == 3;   /* a 3D normal (0.48, -0.64, 0.6) */
    hdg_eval_env env = {.x = x, .y = y, .t = 0.1, .nx = d3 ? 0.8 * nx : nx, .ny = d3 ? 0.8 * ny : ny,
                        .problem = s->p, .state = state_value, .state_ctx = s, .z = 0.4, .nz = d3 ? 0.6 : 0};
    return hdg_expr_eval(e, &env);
}

static const hdg_atom *jac_of(const hdg_residual *r, int u, int c, int op, int side)
{
    for (int j = 0; j < r->njac; j++) {
        const hdg_atom *a = &r->jac[j];
        if (a->trial == u && a->trial_comp == c && (int)a->trial_op == op && (int)a->side == side) return a;
    }
    return NULL;
}

/* Every (unknown, component, op, side): d coef / d that value by central differences against the
 * Jacobian atom (0 where there is none). Returns the number of derivatives compared that are non-zero. */
static int check_residual(const char *name, const hdg_problem *p, const hdg_residual *r, state *s, double x,
                          double y)
{
    double nx = 0.6, ny = -0.8;
    int nonzero = 0;
    for (int u = 0; u < p->nunknowns; u++)
        for (int c = 0; c < p->unknowns[u].ncomp; c++)
            for (int op = 0; op < NOPS; op++)
                for (int side = 0; side < NSIDES; side++) {
                    double *v = slot(s, u, c, op, side), v0 = *v, h = 1e-5 * (fabs(v0) > 1 ? fabs(v0) : 1);
                    *v = v0 + h;
                    double fp = eval(r->coef, s, x, y, nx, ny);
                    *v = v0 - h;
                    double fm = eval(r->coef, s, x, y, nx, ny);
                    *v = v0;
                    double fd = (fp - fm) / (2 * h);
                    const hdg_atom *a = jac_of(r, u, c, op, side);
                    double d = a ? eval(a->coef, s, x, y, nx, ny) : 0;
                    double tol = 1e-7 * (fabs(d) > 1 ? fabs(d) : 1);
                    CHECK(fabs(fd - d) <= tol, "%s @%d:%d: d/d %s[%d] op %d side %d: derived %.12g, "
                          "central differences %.12g", name, r->loc.line, r->loc.col, p->unknowns[u].name, c,
                          op, side, d, fd);
                    if (a) {
                        CHECK(a->test == r->test && a->test_comp == r->test_comp && a->test_op == r->test_op &&
                              a->domain == r->domain, "%s: Jacobian atom keeps the residual's test and domain",
                              name);
                        nonzero++;
                    }
                }
    return nonzero;
}

/* Checks every residual of p at three states and points; returns the Jacobian atoms compared. */
static int check_problem(const char *name, const hdg_problem *p)
{
    state s = {p, calloc((size_t)p->nunknowns * HDG_MAX_COMP * NOPS * NSIDES, sizeof(double))};
    static const double pts[3][2] = {{0.3, 0.7}, {0.81, 0.12}, {0.5, 0.45}};
    int n = 0;
    for (int k = 0; k < 3; k++) {
        fill(&s, k);
        for (int e = 0; e < p->nequations; e++)
            for (int i = 0; i < p->equations[e].nresiduals; i++)
                n += check_residual(name, p, &p->equations[e].residuals[i], &s, pts[k][0], pts[k][1]);
    }
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++)
            CHECK(!hdg_expr_has_state(p->equations[e].atoms[i].coef), "%s: linear atoms do not read the state",
                  name);
    free(s.v);
    return n;
}

/* ---------------------------------------------------------------- the examples */

typedef struct shape {
    int nres, njac, roles[HDG_ROLE_POST_SOURCE + 1], boundary;
} shape;

static shape shape_of(const hdg_equation *e)
{
    shape s = {0};
    s.nres = e->nresiduals;
    for (int i = 0; i < e->nresiduals; i++) {
        s.boundary += e->residuals[i].domain == HDG_BOUNDARY;
        s.njac += e->residuals[i].njac;
        for (int j = 0; j < e->residuals[i].njac; j++) s.roles[e->residuals[i].jac[j].role]++;
    }
    return s;
}

static void nonlinear_diffusion(void)
{
    hdg_problem *p = load("nonlinear_diffusion");
    if (!p) return;
    CHECK(p->nonlinear && p->method == HDG_METHOD_HDG, "nonlinear_diffusion: nonlinear HDG");
    shape s0 = shape_of(&p->equations[0]), s1 = shape_of(&p->equations[1]), s2 = shape_of(&p->equations[2]),
          s3 = shape_of(&p->equations[3]);
    CHECK(s0.nres == 0 && s3.nres == 0, "nonlinear_diffusion: the q equation and the post-processing are linear");
    /* -(kappa(u) q, grad w): two volume terms, each d/du and d/dq.c; <kappa(u) q.n, w>: d/du, d/dq.x, d/dq.y */
    CHECK(s1.nres == 3 && s1.boundary == 1 && s1.njac == 7 && s1.roles[HDG_ROLE_LOCAL_LOCAL] == 7,
          "nonlinear_diffusion: u equation: 3 residual terms, 7 local-local Jacobian atoms (got %d, %d)",
          s1.nres, s1.njac);
    CHECK(s2.nres == 1 && s2.boundary == 1 && s2.njac == 3 && s2.roles[HDG_ROLE_TRACE_LOCAL] == 3,
          "nonlinear_diffusion: trace equation: 1 residual term, 3 trace-local Jacobian atoms (got %d, %d)",
          s2.nres, s2.njac);
    int u = hdg_problem_unknown(p, "u"), uh = hdg_problem_unknown(p, "uhat");
    CHECK(p->unknowns[u].initial_given && hdg_expr_is_num(p->unknowns[u].initial[0], 0) &&
          !p->unknowns[uh].initial_given && hdg_expr_is_num(p->unknowns[uh].initial[0], 0),
          "nonlinear_diffusion: initial guesses u = 0 (given), uhat = 0 (default)");
    CHECK(check_problem("nonlinear_diffusion", p) == 3 * 10, "nonlinear_diffusion: 10 derivatives x 3 samples");
    hdg_problem_free(p);
}

static void bratu(void)
{
    hdg_problem *p = load("bratu");
    if (!p) return;
    shape s1 = shape_of(&p->equations[1]);
    CHECK(p->nonlinear && s1.nres == 1 && s1.njac == 1 && s1.roles[HDG_ROLE_LOCAL_LOCAL] == 1 && s1.boundary == 0,
          "bratu: one volume residual -(lambda exp(u), w) with one local-local derivative");
    CHECK(shape_of(&p->equations[0]).nres == 0 && shape_of(&p->equations[2]).nres == 0, "bratu: others linear");
    CHECK(check_problem("bratu", p) == 3, "bratu: 1 derivative x 3 samples");
    hdg_problem_free(p);
}

static void burgers2d(void)
{
    hdg_problem *p = load("burgers2d");
    if (!p) return;
    shape s = shape_of(&p->equations[0]);
    /* -(F, grad v): two volume terms (d/du each); <Fn, v>: d/du and d/d ext(u) */
    CHECK(p->nonlinear && p->method == HDG_METHOD_DG && s.nres == 3 && s.boundary == 1 && s.njac == 4 &&
          s.roles[HDG_ROLE_VOLUME] == 2 && s.roles[HDG_ROLE_FLUX] == 2,
          "burgers2d: 3 residual terms, 2 volume + 2 flux derivatives (got %d, %d)", s.nres, s.njac);
    CHECK(p->unknowns[0].needs_exterior, "burgers2d: the flux reads ext(u)");
    CHECK(check_problem("burgers2d", p) == 12, "burgers2d: 4 derivatives x 3 samples");
    hdg_problem_free(p);
}

/* tests/data/nldg/euler_vortex.hdg: examples/euler2d.hdg with the wave speed written by hand */
static void euler2d(void)
{
    hdg_problem *p = load_from(HDG_TEST_DATA "/nldg", "euler_vortex");
    if (!p) return;
    int n = check_problem("euler2d", p);
    shape s[3];
    for (int e = 0; e < 3; e++) s[e] = shape_of(&p->equations[e]);
    /* mass: linear volume term, nonlinear flux (the wave speed); momentum: 4 volume + 2 boundary;
       energy: 2 volume + 1 boundary. The flux terms read all 4 values on both sides. */
    CHECK(p->nonlinear && s[0].nres == 1 && s[1].nres == 6 && s[2].nres == 3,
          "euler2d: 1, 6 and 3 residual terms (got %d, %d, %d)", s[0].nres, s[1].nres, s[2].nres);
    CHECK(s[0].roles[HDG_ROLE_FLUX] == 8 && s[1].roles[HDG_ROLE_FLUX] == 16 && s[2].roles[HDG_ROLE_FLUX] == 8,
          "euler2d: every flux term depends on rho, m.x, m.y, E on both sides (got %d, %d, %d)",
          s[0].roles[HDG_ROLE_FLUX], s[1].roles[HDG_ROLE_FLUX], s[2].roles[HDG_ROLE_FLUX]);
    CHECK(n == 3 * (s[0].njac + s[1].njac + s[2].njac), "euler2d: every derivative compared");
    hdg_problem_free(p);
}

/* examples/euler2d.hdg: the same with 'wavespeed', which its Jacobians hold fixed: the mass flux term
 * 0.5*wavespeed*jump(rho) reads rho on both sides only; the momentum rows' Fm reads rho, m.x, m.y (its
 * E part is linear), the energy row all four; wavespeed needs every unknown's exterior state. */
static void euler2d_wavespeed(void)
{
    hdg_problem *p = load("euler2d");
    if (!p) return;
    int n = check_problem("euler2d", p);
    shape s[3];
    for (int e = 0; e < 3; e++) s[e] = shape_of(&p->equations[e]);
    CHECK(s[0].roles[HDG_ROLE_FLUX] == 2 && s[1].roles[HDG_ROLE_FLUX] == 12 && s[2].roles[HDG_ROLE_FLUX] == 8,
          "euler2d (wavespeed): 2, 12, 8 flux derivatives (got %d, %d, %d)",
          s[0].roles[HDG_ROLE_FLUX], s[1].roles[HDG_ROLE_FLUX], s[2].roles[HDG_ROLE_FLUX]);
    int ws = 0;
    for (int e = 0; e < 3; e++)
        for (int r = 0; r < p->equations[e].nresiduals; r++)
            ws += hdg_expr_has_wavespeed(p->equations[e].residuals[r].coef);
    CHECK(ws == 4, "euler2d: 'wavespeed' in the 4 face terms (got %d)", ws);
    for (int u = 0; u < p->nunknowns; u++)
        CHECK(p->unknowns[u].needs_exterior, "euler2d: wavespeed needs ext(%s)", p->unknowns[u].name);
    CHECK(n == 3 * (s[0].njac + s[1].njac + s[2].njac), "euler2d (wavespeed): every derivative compared");
    hdg_problem_free(p);
}

/* The same in three dimensions: dz(u) is a value of its own, nz enters the boundary terms. */
static void nonlinear3d(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/frontend/nonlinear3d.hdg", HDG_TEST_DATA);
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, NULL, &d);
    CHECK(p != NULL && d.nerrors == 0, "nonlinear3d loads");
    hdg_diags_free(&d);
    if (!p) return;
    shape s = shape_of(&p->equations[1]);
    /* (u dz(u) + exp(q.z), w): d/du, d/d dz(u), d/d q.z; <uhat^3, w>: d/d uhat (local-trace) */
    CHECK(p->dim == 3 && p->nonlinear && s.nres == 2 && s.njac == 4 && s.roles[HDG_ROLE_LOCAL_LOCAL] == 3 &&
          s.roles[HDG_ROLE_LOCAL_TRACE] == 1, "nonlinear3d: 2 residual terms, 3 local-local + 1 local-trace "
          "derivatives (got %d, %d)", s.nres, s.njac);
    bool dz = false;
    for (int i = 0; i < p->equations[1].nresiduals; i++)
        for (int j = 0; j < p->equations[1].residuals[i].njac; j++)
            dz |= p->equations[1].residuals[i].jac[j].trial_op == HDG_OP_DZ;
    CHECK(dz, "nonlinear3d: a Jacobian atom in dz(u)");
    CHECK(check_problem("nonlinear3d", p) == 12, "nonlinear3d: 4 derivatives x 3 samples");
    hdg_problem_free(p);
}

/* ---------------------------------------------------------------- the examples' data against their PDEs */

static double ex_at(const hdg_problem *p, const hdg_expr *e, double x, double y, double t)
{
    hdg_eval_env env = {.x = x, .y = y, .t = t, .problem = p};
    return hdg_expr_eval(e, &env);
}

/* nonlinear_diffusion: f = -div((1 + u^2) grad u) for the exact u, by central differences of u. */
static void diffusion_source(void)
{
    hdg_problem *p = load("nonlinear_diffusion");
    if (!p) return;
    const hdg_expr *u = p->unknowns[hdg_problem_unknown(p, "u")].exact[0];
    const hdg_expr *f = p->funcs[hdg_problem_func(p, "f")].body[0];
    static const double pts[3][2] = {{0.3, 0.7}, {0.81, 0.12}, {0.5, 0.45}};
    double h = 1e-4;
    for (int k = 0; k < 3; k++) {
        double x = pts[k][0], y = pts[k][1];
        double flux[2][2];   /* (1 + u^2) du/dx at x +- h/2, likewise in y */
        for (int s2 = 0; s2 < 2; s2++) {
            double sg = s2 ? 0.5 : -0.5;
            double ux = ex_at(p, u, x + sg * h, y, 0), uy = ex_at(p, u, x, y + sg * h, 0);
            flux[0][s2] = (1 + ux * ux) * (ex_at(p, u, x + sg * h + h / 2, y, 0) - ex_at(p, u, x + sg * h - h / 2, y, 0)) / h;
            flux[1][s2] = (1 + uy * uy) * (ex_at(p, u, x, y + sg * h + h / 2, 0) - ex_at(p, u, x, y + sg * h - h / 2, 0)) / h;
        }
        double div = (flux[0][1] - flux[0][0]) / h + (flux[1][1] - flux[1][0]) / h;
        CHECK_NEAR(ex_at(p, f, x, y, 0), -div, 1e-4 * (1 + fabs(div)), "nonlinear_diffusion: f = -div((1+u^2) grad u)");
    }
    hdg_problem_free(p);
}

/* euler2d: the exact vortex satisfies the Euler equations (central differences in x, y, t). */
static void euler_vortex(void)
{
    hdg_problem *p = load("euler2d");
    if (!p) return;
    double g = p->params[hdg_problem_param(p, "gamma")].value;
    const hdg_unknown *R = &p->unknowns[hdg_problem_unknown(p, "rho")], *M = &p->unknowns[hdg_problem_unknown(p, "m")],
                      *E = &p->unknowns[hdg_problem_unknown(p, "E")];
    /* U = rho, mx, my, E; fluxes F (x) and G (y) */
    static const double pts[3][3] = {{0.52, 0.47, 0.01}, {0.45, 0.6, 0.03}, {0.58, 0.5, 0.0}};
    double h = 1e-5;
    for (int k = 0; k < 3; k++) {
        double res[4] = {0};
        for (int dir = 0; dir < 3; dir++)   /* t, x, y */
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double x = pts[k][0] + (dir == 1) * sgn * h, y = pts[k][1] + (dir == 2) * sgn * h,
                       t = pts[k][2] + (dir == 0) * sgn * h;
                double r = ex_at(p, R->exact[0], x, y, t), mx = ex_at(p, M->exact[0], x, y, t),
                       my = ex_at(p, M->exact[1], x, y, t), e = ex_at(p, E->exact[0], x, y, t);
                double pr = (g - 1) * (e - 0.5 * (mx * mx + my * my) / r);
                double q[3][4] = {{r, mx, my, e},
                                  {mx, mx * mx / r + pr, mx * my / r, (e + pr) * mx / r},
                                  {my, my * mx / r, my * my / r + pr, (e + pr) * my / r}};
                for (int c = 0; c < 4; c++) res[c] += sgn * q[dir][c] / (2 * h);
            }
        for (int c = 0; c < 4; c++)
            CHECK_NEAR(res[c], 0, 1e-4, "euler2d: the exact vortex satisfies the Euler equations");
    }
    hdg_problem_free(p);
}

static void linear_unchanged(void)
{
    hdg_problem *p = load("poisson");
    if (!p) return;
    CHECK(!p->nonlinear, "poisson: linear");
    for (int e = 0; e < p->nequations; e++) CHECK(p->equations[e].nresiduals == 0, "poisson: no residual terms");
    hdg_problem_free(p);
}

int main(void)
{
    nonlinear_diffusion();
    bratu();
    burgers2d();
    euler2d();
    euler2d_wavespeed();
    nonlinear3d();
    diffusion_source();
    euler_vortex();
    linear_unchanged();
    return test_summary("frontend_nonlinear");
}
