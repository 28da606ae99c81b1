/* test_frontend.c — the frontend API on the examples: counts, classification,
 * post-processing fields, --order/--set, manufactured sources checked against
 * finite differences, Neumann data, marker matching, diagnostics rendering. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "test.h"

#define PI 3.14159265358979323846

static hdg_problem *load(const char *name, const hdg_frontend_options *opt)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.hdg", HDG_EXAMPLES, name);
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, opt, &d);
    if (!p) {
        char *s = hdg_diags_render(&d);
        fprintf(stderr, "%s", s);
        free(s);
    }
    CHECK(p != NULL, "%s loads", name);
    CHECK(d.nerrors == 0, "%s: %d errors", name, d.nerrors);
    hdg_diags_free(&d);
    return p;
}

static double eval(const hdg_problem *p, const hdg_expr *e, double x, double y)
{
    hdg_eval_env env = {.x = x, .y = y, .problem = p};
    return hdg_expr_eval(e, &env);
}

static int count_role(const hdg_equation *e, hdg_role r)
{
    int n = 0;
    for (int i = 0; i < e->natoms; i++) n += e->atoms[i].role == r;
    return n;
}

static void test_poisson(void)
{
    hdg_problem *p = load("poisson", NULL);
    if (!p) return;
    CHECK(p->method == HDG_METHOD_HDG, "HDG");
    CHECK(p->nelement == 2 && p->ntrace == 1 && p->npost == 1 && p->nunknowns == 4,
          "counts %d %d %d %d", p->nelement, p->ntrace, p->npost, p->nunknowns);
    int u = hdg_problem_unknown(p, "u"), us = hdg_problem_unknown(p, "ustar");
    CHECK(u == 1 && us == 3, "indices %d %d", u, us);
    const hdg_unknown *x = &p->unknowns[us];
    CHECK(x->post && !x->trace && x->index == 0 && x->mean == u, "post fields");
    CHECK(p->unknowns[u].mean == -1 && !p->unknowns[u].post, "u is no post unknown");
    CHECK(p->spaces[x->space].degree == 4 && p->spaces[x->space].degree_offset == 1, "W = P k+1");
    CHECK(x->exact[0] != NULL, "exact ustar");
    CHECK(p->nequations == 4, "4 equations");
    const hdg_equation *e = &p->equations[x->equation];
    CHECK(x->equation == 3 && e->post && !e->trace && e->unknown == us, "post equation");
    CHECK(e->natoms == 4 && count_role(e, HDG_ROLE_POST) == 2 && count_role(e, HDG_ROLE_POST_SOURCE) == 2,
          "post atoms");
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        CHECK(a->domain == HDG_VOLUME, "post atoms are volume atoms");
        if (a->role == HDG_ROLE_POST) CHECK(a->trial == us && a->trial_op == a->test_op, "(grad u*, grad w)");
        if (a->role == HDG_ROLE_POST_SOURCE) {
            CHECK(a->trial == hdg_problem_unknown(p, "q"), "q is the data");
            CHECK_NEAR(eval(p, a->coef, 0.3, 0.4), 1.0, 1e-15, "+1/kappa on the left");
        }
    }
    for (int i = 0; i < 3; i++) CHECK(!p->equations[i].post, "main equations");
    CHECK(p->equations[2].trace && count_role(&p->equations[2], HDG_ROLE_TRACE_TRACE) == 1, "trace eq");
    CHECK(count_role(&p->equations[0], HDG_ROLE_LOCAL_TRACE) == 2, "local-trace atoms");
    CHECK(count_role(&p->equations[1], HDG_ROLE_SOURCE) == 1, "source atom");
    CHECK(!strcmp(hdg_role_name(HDG_ROLE_POST), "post") && !strcmp(hdg_role_name(HDG_ROLE_POST_SOURCE), "post-source"),
          "role names");
    char *s = hdg_problem_summary(p);
    CHECK(strstr(s, "ustar : W      post 0, mean of u\n") != NULL, "summary: %s", s);
    CHECK(strstr(s, "post-processing equation for ustar") != NULL, "summary header");
    free(s);
    hdg_problem_free(p);

    hdg_setting sets[] = {{"kappa", 2}};
    hdg_frontend_options opt = {5, sets, 1};
    p = load("poisson", &opt);
    if (!p) return;
    CHECK(p->degree == 5, "--order");
    for (int i = 0; i < p->nspaces; i++)
        CHECK(p->spaces[i].degree == 5 + p->spaces[i].degree_offset, "space %s degree %d", p->spaces[i].name,
              p->spaces[i].degree);
    CHECK(p->params[0].overridden && p->params[0].value == 2, "--set kappa");
    CHECK_NEAR(eval(p, p->equations[0].atoms[0].coef, 0, 0), 0.5, 1e-15, "1/kappa follows --set");
    /* f = 2 pi^2 kappa sin sin uses the param: 2 pi^2 * 2 * sin(pi/2)^2 at (1/2, 1/2) */
    CHECK_NEAR(eval(p, p->equations[1].atoms[6].coef, 0.5, 0.5), 4 * PI * PI, 1e-12, "f with kappa = 2");
    hdg_problem_free(p);
}

/* -div(kappa grad u) + c u by central differences of the exact solution. */
static double fd_operator(const hdg_problem *p, int kf, int uf, double c, double x, double y)
{
    const hdg_expr *K = p->funcs[kf].body[0], *U = p->funcs[uf].body[0];
    double h = 1e-4;
    double kxp = eval(p, K, x + h / 2, y), kxm = eval(p, K, x - h / 2, y);
    double kyp = eval(p, K, x, y + h / 2), kym = eval(p, K, x, y - h / 2);
    double u0 = eval(p, U, x, y);
    double ux = kxp * (eval(p, U, x + h, y) - u0) - kxm * (u0 - eval(p, U, x - h, y));
    double uy = kyp * (eval(p, U, x, y + h) - u0) - kym * (u0 - eval(p, U, x, y - h));
    return -(ux + uy) / (h * h) + c * u0;
}

static void test_reaction_diffusion(void)
{
    hdg_problem *p = load("reaction_diffusion", NULL);
    if (!p) return;
    int kf = hdg_problem_func(p, "kappa"), uf = hdg_problem_func(p, "uex"), ff = hdg_problem_func(p, "f");
    double c = p->params[hdg_problem_param(p, "c")].value;
    CHECK(c > 0, "c > 0");
    const double pts[][2] = {{0.2, 0.3}, {0.7, 0.1}, {0.5, 0.9}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        CHECK(eval(p, p->funcs[kf].body[0], x, y) >= 1, "kappa >= 1");
        CHECK_NEAR(eval(p, p->funcs[ff].body[0], x, y), fd_operator(p, kf, uf, c, x, y), 1e-4,
                   "manufactured f = -div(kappa grad uex) + c uex");
    }
    int q = hdg_problem_unknown(p, "q");
    double h = 1e-6, x = 0.3, y = 0.6;
    double dux = (eval(p, p->funcs[uf].body[0], x + h, y) - eval(p, p->funcs[uf].body[0], x - h, y)) / (2 * h);
    CHECK_NEAR(eval(p, p->unknowns[q].exact[0], x, y), -eval(p, p->funcs[kf].body[0], x, y) * dux, 1e-7,
               "exact q.x = -kappa du/dx");
    int us = hdg_problem_unknown(p, "ustar");
    CHECK(us >= 0 && p->unknowns[us].post && p->spaces[p->unknowns[us].space].degree == 3, "ustar in P3");
    hdg_problem_free(p);
}

static void test_convection_diffusion(void)
{
    hdg_problem *p = load("convection_diffusion", NULL);
    if (!p) return;
    CHECK(p->nbcs == 2 && p->bcs[0].kind == HDG_BC_DIRICHLET && p->bcs[1].kind == HDG_BC_NEUMANN, "bcs");
    const hdg_bc *nb = &p->bcs[1];
    CHECK(nb->markers.n == 2 && hdg_markers_match(&nb->markers, "right", 2) && hdg_markers_match(&nb->markers, "top", 0),
          "neumann markers");
    CHECK(!hdg_markers_match(&nb->markers, "left", 4), "left is Dirichlet");
    const hdg_equation *e = &p->equations[nb->equation];
    CHECK(e->trace && nb->equation == 2, "neumann source goes to the trace equation");
    const hdg_atom *src = &e->atoms[e->natoms - 1];
    CHECK(src->role == HDG_ROLE_SOURCE && src->domain == HDG_BOUNDARY && src->markers == &nb->markers, "source atom");
    /* on the right side (n = (1, 0)): g = -kappa du/dx + bx u */
    double x = 1, y = 0.3, h = 1e-6;
    int uf = hdg_problem_func(p, "uex");
    const hdg_expr *U = p->funcs[uf].body[0];
    double dux = (eval(p, U, x + h, y) - eval(p, U, x - h, y)) / (2 * h);
    hdg_eval_env env = {.x = x, .y = y, .nx = 1, .problem = p};
    double kappa = p->params[hdg_problem_param(p, "kappa")].value, bx = p->params[hdg_problem_param(p, "bx")].value;
    CHECK_NEAR(hdg_expr_eval(src->coef, &env), -kappa * dux + bx * eval(p, U, x, y), 1e-7, "neumann data");
    const char *tags[] = {NULL, "bottom", "right", "top", "left"};
    hdg_diags d;
    hdg_diags_init(&d);
    CHECK(hdg_problem_check_mesh_markers(p, tags, 5, &d) == 0, "markers of square:N covered");
    const char *three[] = {NULL, "bottom", "right", "top"};
    CHECK(hdg_problem_check_mesh_markers(p, three, 4, &d) == 1, "left missing from the mesh");
    CHECK(d.count == 1 && strstr(d.items[0].msg, "'left' is not in the mesh") != NULL, "%s",
          d.count ? d.items[0].msg : "");
    hdg_diags_free(&d);
    hdg_problem_free(p);
}

static void test_markers(void)
{
    const char *names[] = {"3", "left"};
    hdg_loc locs[2] = {{1, 1}, {1, 3}};
    hdg_markers m = {false, 2, names, locs};
    CHECK(hdg_markers_match(&m, "top", 3), "tag 3");
    CHECK(hdg_markers_match(&m, "left", 4), "name");
    CHECK(!hdg_markers_match(&m, "right", 2), "neither");
    CHECK(!hdg_markers_match(&m, "3x", 0), "no id");
    hdg_markers all = {true, 0, NULL, NULL};
    CHECK(hdg_markers_match(&all, "x", 9), "all");
}

static const char *GOOD_HEAD =
    "problem p\ndegree k = 2\nspace V = L2(P k)\nspace M = trace(P k)\nunknown q : V^2, u : V\ntrace uhat : M\n";

static void test_diagnostics(void)
{
    /* three independent errors in one run, in source order, with carets */
    char src[2048];
    snprintf(src, sizeof src, "%s"
             "equation (q, r) - (u, div(r)) + <uhat, dot(r, n)> = 0 for r : V^2\n"
             "equation -(q, grad(w)) + <dot(q, n) + tau*(u - uhat), w> = (f, w) for w : V\n"
             "equation <dot(q, n) + (u - uhat), mu> = 0 for mu : M\n"
             "boundary dirichlet uhat = 0 on all\n"
             "exact u = sin(pi*x)*sn(y)\n", GOOD_HEAD);
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_parse("t.hdg", src, strlen(src), NULL, &d);
    CHECK(p == NULL, "errors give no problem");
    CHECK(d.nerrors == 3, "three errors, got %d", d.nerrors);
    char *r = hdg_diags_render(&d);
    CHECK(strstr(r, "t.hdg:8:39: error: undefined name 'tau'\n") != NULL, "%s", r);
    CHECK(strstr(r, "t.hdg:8:61: error: undefined name 'f'\n") != NULL, "%s", r);
    CHECK(strstr(r, "t.hdg:11:21: error: undefined function 'sn'; did you mean 'sin'?\n"
                    "exact u = sin(pi*x)*sn(y)\n                    ^\n") != NULL, "%s", r);
    free(r);
    hdg_diags_free(&d);

    /* error cap: errors past max_errors are counted, not stored */
    char *many = malloc(100 * 32 + 64);
    size_t n = (size_t)sprintf(many, "problem p\n");
    for (int i = 0; i < 100; i++) n += (size_t)sprintf(many + n, "param a%d = b%d\n", i, i);
    hdg_diags_init(&d);
    d.max_errors = 10;
    p = hdg_problem_parse("m.hdg", many, n, NULL, &d);
    CHECK(!p && d.count == 10 && d.nerrors > 100, "cap: count %d nerrors %d", d.count, d.nerrors);
    r = hdg_diags_render(&d);
    CHECK(strstr(r, "more errors not shown") != NULL, "cap note");
    free(r);
    hdg_diags_free(&d);
    free(many);

    /* a NUL byte in the middle: reported at its column, the line echoed with '?' */
    const char nul[] = "problem p\nparam a = 1 \0 2\n";
    hdg_diags_init(&d);
    p = hdg_problem_parse("n.hdg", nul, sizeof nul - 1, NULL, &d);
    r = hdg_diags_render(&d);
    CHECK(!p && strstr(r, "n.hdg:2:13: error: unexpected byte 0x00") && strstr(r, "param a = 1 ? 2\n"), "%s", r);
    free(r);
    hdg_diags_free(&d);
}

int main(void)
{
    test_poisson();
    test_reaction_diffusion();
    test_convection_diffusion();
    test_markers();
    test_diagnostics();
    return test_summary("frontend");
}
