/* test_tensor.c — components and 2x2 matrices in the language (issue 18): the values of
 * matrix algebra in funcs (products, transpose, inv, det, trace, grad of a vector, div of a
 * matrix, indexing) against hand-computed numbers, Poisson written with components giving
 * the atoms of examples/poisson.hdg, inv(K) in examples/anisotropic.hdg, the manufactured
 * source and exact gradient of examples/elasticity.hdg against finite differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "test.h"

static hdg_problem *parse(const char *name, const char *src)
{
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_parse(name, src, strlen(src), NULL, &d);
    if (!p) {
        char *s = hdg_diags_render(&d);
        fprintf(stderr, "%s", s);
        free(s);
    }
    CHECK(p != NULL, "%s parses", name);
    hdg_diags_free(&d);
    return p;
}

static hdg_problem *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.hdg", HDG_EXAMPLES, name);
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, NULL, &d);
    CHECK(p != NULL && d.nerrors == 0, "%s loads", name);
    hdg_diags_free(&d);
    return p;
}

static double eval(const hdg_problem *p, const hdg_expr *e, double x, double y)
{
    hdg_eval_env env = {.x = x, .y = y, .problem = p};
    return hdg_expr_eval(e, &env);
}

/* component c of func name at (x, y); checks the func's shape */
static double fval(const hdg_problem *p, const char *name, int ncomp, int c, double x, double y)
{
    int f = hdg_problem_func(p, name);
    CHECK(f >= 0 && p->funcs[f].ncomp == ncomp, "func %s has %d components", name, ncomp);
    if (f < 0 || p->funcs[f].ncomp != ncomp) return NAN;
    return eval(p, p->funcs[f].body[c], x, y);
}

static const char *HEAD =
    "problem m\ndegree k = 1\nparam tau = 1\n"
    "space V = L2(P k)\nspace M = trace(P k)\nunknown q : V^2, u : V\ntrace uhat : M\n";
static const char *TAIL =
    "equation (q, r) - (u, div(r)) + <uhat, dot(r, n)> = 0 for r : V^2\n"
    "equation -(q, grad(w)) + <dot(q, n) + tau*(u - uhat), w> = (f0, w) for w : V\n"
    "equation <dot(q, n) + tau*(u - uhat), mu> = 0 for mu : M\n"
    "boundary dirichlet uhat = 0 on all\n";

static void test_algebra(void)
{
    char src[4096];
    snprintf(src, sizeof src, "%s"
             "func A(x, y) = [[1 + x, y], [2*x, 3]]\n"
             "func B(x, y) = [[x, 1], [y, 2]]\n"
             "func v(x, y) = [x, y^2]\n"
             "func AB(x, y) = A*B\n"
             "func vA(x, y) = v*A\n"
             "func Av(x, y) = A*v\n"
             "func dt_(x, y) = det(A) + trace(B)\n"
             "func idx(x, y) = transpose(A)[0][1] + 10*A[1, 0] + 100*A.xy + 1000*v.y + 10000*v[0]\n"
             "func row(x, y) = A[1]\n"
             "func I2(x, y) = inv(A)*A\n"
             "func gv(x, y) = grad(v)\n"
             "func dA(x, y) = div([[x*y, y^2], [x^2, x*y]])\n"
             "func lin(x, y) = 2*A - B/2 + A*3\n"
             "func f0(x, y) = 1\n"
             "%s", HEAD, TAIL);
    hdg_problem *p = parse("algebra.hdg", src);
    if (!p) return;
    double x = 0.3, y = 0.7;
    double A[4] = {1 + x, y, 2 * x, 3}, B[4] = {x, 1, y, 2}, v[2] = {x, y * y};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            CHECK_NEAR(fval(p, "AB", 4, 2 * i + j, x, y), A[2 * i] * B[j] + A[2 * i + 1] * B[2 + j], 1e-14,
                       "(A*B)_ij");
    for (int i = 0; i < 2; i++) {
        CHECK_NEAR(fval(p, "vA", 2, i, x, y), v[0] * A[i] + v[1] * A[2 + i], 1e-14, "(v*A)_j = v_i A_ij");
        CHECK_NEAR(fval(p, "Av", 2, i, x, y), A[2 * i] * v[0] + A[2 * i + 1] * v[1], 1e-14, "(A*v)_i");
        CHECK_NEAR(fval(p, "row", 2, i, x, y), A[2 + i], 1e-14, "A[1] is row 1");
    }
    CHECK_NEAR(fval(p, "dt_", 1, 0, x, y), A[0] * A[3] - A[1] * A[2] + B[0] + B[3], 1e-14, "det + trace");
    CHECK_NEAR(fval(p, "idx", 1, 0, x, y), A[2] + 10 * A[2] + 100 * A[1] + 1000 * v[1] + 10000 * v[0], 1e-11,
               "indexing");
    for (int c = 0; c < 4; c++) {
        CHECK_NEAR(fval(p, "I2", 4, c, x, y), c == 0 || c == 3 ? 1 : 0, 1e-14, "inv(A)*A = I");
        CHECK_NEAR(fval(p, "lin", 4, c, x, y), 5 * A[c] - B[c] / 2, 1e-14, "2A - B/2 + 3A");
    }
    double gv[4] = {1, 0, 0, 2 * y};   /* (grad v)_ij = d v_i / d x_j */
    for (int c = 0; c < 4; c++) CHECK_NEAR(fval(p, "gv", 4, c, x, y), gv[c], 1e-14, "grad of a vector");
    CHECK_NEAR(fval(p, "dA", 2, 0, x, y), y + 2 * y, 1e-14, "div of a matrix, row 0");
    CHECK_NEAR(fval(p, "dA", 2, 1, x, y), 2 * x + x, 1e-14, "div of a matrix, row 1");
    char *s = hdg_problem_summary(p);
    CHECK(strstr(s, "  A(x, y) = [[1 + x, y], [2*x, 3]]\n") != NULL, "matrix func in the summary");
    free(s);
    hdg_problem_free(p);
}

/* examples/poisson.hdg's first two equations written component by component */
static void test_components_poisson(void)
{
    const char *src =
        "problem poisson\ndegree k = 3\nparam kappa = 1\nparam tau = 1\n"
        "func uex(x, y) = sin(pi*x) * sin(pi*y)\nfunc f(x, y) = 2*pi^2*kappa*sin(pi*x)*sin(pi*y)\n"
        "space V = L2(P k)\nspace M = trace(P k)\nspace W = L2(P k+1)\n"
        "unknown q : V^2, u : V\ntrace uhat : M\n"
        "flux qn = q[0]*nx + q.y*ny + tau*(u - uhat)\n"
        "equation (q.x/kappa, r[0]) + (q[1]/kappa, r.y) - (u, dx(r[0]) + dy(r[1])) + <uhat, r.x*n[0] + r.y*n.y> = 0"
        " for r : V^2\n"
        "equation -(q[0], dx(w)) - (q[1], grad(w)[1]) + <qn, w> = (f, w) for w : V\n"
        "equation <qn, mu> = 0 for mu : M\n"
        "postprocess ustar : W\n"
        "equation (grad(ustar), grad(w)) = -(q/kappa, grad(w)) for w : W\n"
        "mean ustar = u\n"
        "boundary dirichlet uhat = [uex, 0][0] on all\n"
        "exact u = uex, q = [-kappa*grad(uex)[0], -kappa*grad(uex).y], ustar = uex\n";
    hdg_problem *c = parse("components.hdg", src), *p = load("poisson");
    if (!c || !p) goto done;
    CHECK(c->nequations == p->nequations, "equations");
    for (int e = 0; e < p->nequations && e < c->nequations; e++) {
        const hdg_equation *a = &p->equations[e], *b = &c->equations[e];
        CHECK(a->natoms == b->natoms, "equation %d: %d atoms, %d with components", e + 1, a->natoms, b->natoms);
        for (int i = 0; i < a->natoms; i++) {
            char *sa = hdg_atom_str(p, &a->atoms[i]);
            bool found = false;
            for (int j = 0; j < b->natoms && !found; j++) {
                char *sb = hdg_atom_str(c, &b->atoms[j]);
                found = !strcmp(sa, sb);
                free(sb);
            }
            CHECK(found, "equation %d: atom '%s' also with components", e + 1, sa);
            free(sa);
        }
    }
    int q = hdg_problem_unknown(c, "q");
    for (int k = 0; k < 2; k++)
        CHECK_NEAR(eval(c, c->unknowns[q].exact[k], 0.3, 0.4), eval(p, p->unknowns[q].exact[k], 0.3, 0.4), 1e-14,
                   "exact q from components");
done:
    hdg_problem_free(c);
    hdg_problem_free(p);
}

/* the coefficient of trial (u, comp) x test comp in equation e at (x, y) (volume, values) */
static double coef(const hdg_problem *p, int e, int trial, int tc, int vc, double x, double y)
{
    const hdg_equation *q = &p->equations[e];
    double s = 0;
    for (int i = 0; i < q->natoms; i++) {
        const hdg_atom *a = &q->atoms[i];
        if (a->trial == trial && a->trial_comp == tc && a->test_comp == vc && a->domain == HDG_VOLUME &&
            a->trial_op == HDG_OP_VALUE && a->test_op == HDG_OP_VALUE)
            s += eval(p, a->coef, x, y);
    }
    return s;
}

static void test_anisotropic(void)
{
    hdg_problem *p = load("anisotropic");
    if (!p) return;
    int q = hdg_problem_unknown(p, "q");
    const double pts[][2] = {{0.2, 0.3}, {0.7, 0.1}, {0.9, 0.8}};
    for (int t = 0; t < 3; t++) {
        double x = pts[t][0], y = pts[t][1], K[4], Ki[4];
        for (int c = 0; c < 4; c++) K[c] = fval(p, "K", 4, c, x, y);
        /* (inv(K) q, r) = sum_ij r_i Kinv_ij q_j: the q_j x r_i coefficient is Kinv_ij */
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) Ki[2 * i + j] = coef(p, 0, q, j, i, x, y);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                CHECK_NEAR(Ki[2 * i] * K[j] + Ki[2 * i + 1] * K[2 + j], i == j, 1e-13, "inv(K)*K = I at a point");
    }
    hdg_problem_free(p);
}

/* tests/data/hdg/tensor_diffusion.hdg writes K^-1 q by hand (adj/det); the same file with
 * K a matrix func and (inv(K)*q, r) gives the same coefficients, the post equation too */
static void test_inv_by_hand(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hdg/tensor_diffusion.hdg", HDG_TEST_DATA);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "%s", path);
    if (!f) return;
    static char src[8192], out[9000];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    const char *hand = "[dot([c(x, y), -b(x, y)], q), dot([-b(x, y), a(x, y)], q)]/detK(x, y)";
    char *o = out;
    const char *s = src, *hit;
    while ((hit = strstr(s, hand))) {
        o += sprintf(o, "%.*s%s", (int)(hit - s), s, "inv(K)*q");
        s = hit + strlen(hand);
    }
    sprintf(o, "%s\nfunc K(x, y) = [[a, b], [b, c]]\n", s);
    /* K must be defined before use: move its line up, after detK */
    char *k = strstr(out, "\nfunc K(x, y)"), *at = strstr(out, "func  uex");
    CHECK(k && at && o != out, "rewrote %s", path);
    if (!k || !at) return;
    char line[64];
    snprintf(line, sizeof line, "%s", k + 1);
    *k = 0;
    size_t ll = strlen(line);
    memmove(at + ll, at, strlen(at) + 1);
    memcpy(at, line, ll);
    hdg_problem *p = parse("inv.hdg", out), *h = NULL;
    hdg_diags d;
    hdg_diags_init(&d);
    h = hdg_problem_load(path, NULL, &d);
    hdg_diags_free(&d);
    CHECK(p && h, "both load");
    if (p && h) {
        int q = hdg_problem_unknown(p, "q");
        const double pts[][2] = {{0.1, 0.2}, {0.6, 0.9}};
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                    double x = pts[t][0], y = pts[t][1], want = coef(h, 0, q, j, i, x, y);
                    CHECK(fabs(want) > 1e-3, "K^-1_%d%d is nonzero", i, j);
                    CHECK_NEAR(coef(p, 0, q, j, i, x, y), want, 1e-13, "inv(K) = adj(K)/det(K)");
                }
    }
    hdg_problem_free(p);
    hdg_problem_free(h);
}

/* f = -div(sigma(uex)) and L = grad(uex) against central differences of uex */
static void test_elasticity(void)
{
    hdg_problem *p = load("elasticity");
    if (!p) return;
    int L = hdg_problem_unknown(p, "L"), u = hdg_problem_unknown(p, "u"), uh = hdg_problem_unknown(p, "uhat");
    CHECK(p->unknowns[L].ncomp == 4 && p->unknowns[u].ncomp == 2 && p->unknowns[uh].ncomp == 2 &&
          p->unknowns[uh].trace, "L : V^(2x2), u : V^2, uhat : M^2");
    CHECK(p->tests[p->equations[0].test].ncomp == 4 && p->equations[0].unknown == L, "G : V^(2x2) pairs with L");
    double mu = p->params[hdg_problem_param(p, "mu")].value, lam = p->params[hdg_problem_param(p, "lam")].value;
    double x = 0.35, y = 0.6, h = 1e-4;
    /* grad uex by differences, then sigma, then its divergence */
#define U(c, X, Y) fval(p, "uex", 2, c, X, Y)
#define G(i, j, X, Y) (j == 0 ? (U(i, X + h, Y) - U(i, X - h, Y)) / (2 * h) : (U(i, X, Y + h) - U(i, X, Y - h)) / (2 * h))
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            CHECK_NEAR(eval(p, p->unknowns[L].exact[2 * i + j], x, y), G(i, j, x, y), 1e-6, "exact L = grad(uex)");
    for (int i = 0; i < 2; i++) {
        double div = 0;
        for (int j = 0; j < 2; j++) {
            double s[2];
            for (int side = 0; side < 2; side++) {
                double X = x + (j == 0 ? (side ? h : -h) : 0), Y = y + (j == 1 ? (side ? h : -h) : 0);
                double tr = G(0, 0, X, Y) + G(1, 1, X, Y);
                s[side] = mu * (G(i, j, X, Y) + G(j, i, X, Y)) + (i == j ? lam * tr : 0);
            }
            div += (s[1] - s[0]) / (2 * h);
        }
        CHECK_NEAR(fval(p, "f", 2, i, x, y), -div, 1e-4, "f = -div(sigma(uex))");
    }
#undef G
#undef U
    char *s = hdg_problem_summary(p);
    CHECK(strstr(s, "  L : V^(2x2)    element 0\n") && strstr(s, "  uhat : M^2     trace 0\n") &&
          strstr(s, "local-trace  boundary  -ny * uhat.x * G.xy") && strstr(s, "(mu + lam) * L.yy * dx(v.x)"),
          "summary: %s", s);
    free(s);
    hdg_problem_free(p);
}

int main(void)
{
    test_algebra();
    test_components_poisson();
    test_anisotropic();
    test_inv_by_hand();
    test_elasticity();
    return test_summary("tensor");
}
