/* test_frontend3d.c — the language in three dimensions (issue 39, item 1): 'mesh tetrahedron'
 * gives dim 3; the atoms of examples/poisson3d.hdg, maxwell3d.hdg and acoustics3d.hdg (counts per
 * equation, roles, d/dz and nz present); their data against the PDE they claim (the symbolic
 * source of poisson3d against 3 exp(x) cos(2y) - 2 y z, the cavity mode of maxwell3d and the standing
 * wave of acoustics3d against dt E = curl H, dt H = -curl E, div E = 0, n x E = 0 on the walls,
 * by central differences); 3x3 matrix algebra, cross, outer, curl, grad of a 3-vector and div of a
 * 3x3 matrix in funcs against hand-computed numbers; funcs of (x, y, z, t) in any order, d/dz of
 * data, and the component suffixes of 3 and 9 components. */
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
    if (!p || d.nerrors) {
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

static double eval3(const hdg_problem *p, const hdg_expr *e, double x, double y, double z, double t)
{
    hdg_eval_env env = {.x = x, .y = y, .t = t, .z = z, .problem = p};
    return hdg_expr_eval(e, &env);
}

/* ---------------------------------------------------------------- atoms */

typedef struct counts {
    int natoms, dz, nz, roles[HDG_ROLE_POST_SOURCE + 1];
} counts;

static bool has_nz(const hdg_expr *e)
{
    if (e->kind == HDG_EX_NORMAL) return e->index == 2;
    for (int i = 0; i < e->nkids; i++)
        if (has_nz(e->kid[i])) return true;
    return false;
}

static counts count_eq(const hdg_equation *q)
{
    counts c = {0};
    c.natoms = q->natoms;
    for (int i = 0; i < q->natoms; i++) {
        const hdg_atom *a = &q->atoms[i];
        c.roles[a->role]++;
        c.dz += (a->trial >= 0 && a->trial_op == HDG_OP_DZ) || a->test_op == HDG_OP_DZ;
        c.nz += has_nz(a->coef);
    }
    return c;
}

static void check_poisson3d(void)
{
    hdg_problem *p = load("poisson3d");
    if (!p) return;
    CHECK(p->dim == 3 && !strcmp(p->mesh, "tetrahedron"), "dim %d mesh %s", p->dim, p->mesh);
    CHECK(p->method == HDG_METHOD_HDG && p->nequations == 4, "HDG with 4 equations (%d)", p->nequations);
    CHECK(p->unknowns[0].ncomp == 3 && p->tests[0].ncomp == 3, "q : V^3, r : V^3");
    /* eq 1: 3 q.r, 3 -u div r (dx, dy, dz), 3 uhat r.n (nx, ny, nz) */
    counts c = count_eq(&p->equations[0]);
    CHECK(c.natoms == 9 && c.roles[HDG_ROLE_LOCAL_LOCAL] == 6 && c.roles[HDG_ROLE_LOCAL_TRACE] == 3,
          "eq 1: %d atoms", c.natoms);
    CHECK(c.dz == 1 && c.nz == 1, "eq 1: dz %d nz %d", c.dz, c.nz);
    c = count_eq(&p->equations[1]);
    CHECK(c.natoms == 9 && c.roles[HDG_ROLE_LOCAL_LOCAL] == 7 && c.roles[HDG_ROLE_LOCAL_TRACE] == 1 &&
          c.roles[HDG_ROLE_SOURCE] == 1 && c.dz == 1 && c.nz == 1, "eq 2: %d atoms, dz %d nz %d", c.natoms, c.dz, c.nz);
    c = count_eq(&p->equations[2]);
    CHECK(c.natoms == 5 && c.roles[HDG_ROLE_TRACE_LOCAL] == 4 && c.roles[HDG_ROLE_TRACE_TRACE] == 1 && c.nz == 1,
          "eq 3: %d atoms", c.natoms);
    c = count_eq(&p->equations[3]);
    CHECK(c.natoms == 6 && c.roles[HDG_ROLE_POST] == 3 && c.roles[HDG_ROLE_POST_SOURCE] == 3 && c.dz == 2,
          "eq 4 (post): %d atoms, dz %d", c.natoms, c.dz);
    /* f = -div(kappa grad uex) taken symbolically: 3 exp(x) cos(2y) - 2 y z, no multiple of u */
    int f = hdg_problem_func(p, "f");
    CHECK(f >= 0 && p->funcs[f].nargs == 3 && p->funcs[f].args[2] == HDG_VAR_Z, "f(x, y, z)");
    double pts[3][3] = {{0.1, 0.2, 0.3}, {0.7, 0.4, 0.9}, {0.5, 0.95, 0.05}};
    for (int i = 0; f >= 0 && i < 3; i++) {
        double x = pts[i][0], y = pts[i][1], z = pts[i][2];
        CHECK_NEAR(eval3(p, p->funcs[f].body[0], x, y, z, 0), 3 * exp(x) * cos(2 * y) - 2 * y * z, 1e-13, "f");
        /* exact q = -grad(uex): against central differences of u */
        const hdg_expr *const *q = p->unknowns[0].exact, *u = p->unknowns[1].exact[0];
        double h = 1e-5, X[3] = {x, y, z};
        for (int k = 0; k < 3; k++) {
            double a[3] = {X[0], X[1], X[2]}, b[3] = {X[0], X[1], X[2]};
            a[k] += h, b[k] -= h;
            double du = (eval3(p, u, a[0], a[1], a[2], 0) - eval3(p, u, b[0], b[1], b[2], 0)) / (2 * h);
            CHECK_NEAR(eval3(p, q[k], x, y, z, 0), -du, 1e-8, "exact q = -grad u");
        }
    }
    /* not a Laplace eigenfunction: f / u differs between points (it was 1 everywhere for exp(x) sin(y + z)) */
    double ratio[3];
    for (int i = 0; f >= 0 && i < 3; i++)
        ratio[i] = eval3(p, p->funcs[f].body[0], pts[i][0], pts[i][1], pts[i][2], 0) /
                   eval3(p, p->unknowns[1].exact[0], pts[i][0], pts[i][1], pts[i][2], 0);
    CHECK(f >= 0 && fabs(ratio[0] - ratio[1]) > 0.1 && fabs(ratio[0] - ratio[2]) > 0.1,
          "the source is no multiple of u: f/u = %g, %g, %g", ratio[0], ratio[1], ratio[2]);
    hdg_problem_free(p);
}

/* d/d(var) of the exact solution component e at (x, y, z, t) by central differences. */
static double dexact(const hdg_problem *p, const hdg_expr *e, int var, const double X[4])
{
    double h = 1e-5, a[4], b[4];
    memcpy(a, X, sizeof a);
    memcpy(b, X, sizeof b);
    a[var] += h, b[var] -= h;
    return (eval3(p, e, a[0], a[1], a[2], a[3]) - eval3(p, e, b[0], b[1], b[2], b[3])) / (2 * h);
}

static void check_maxwell3d(void)
{
    hdg_problem *p = load("maxwell3d");
    if (!p) return;
    CHECK(p->dim == 3 && p->method == HDG_METHOD_DG, "maxwell3d: 3D DG");
    for (int e = 0; e < 2 && p->nequations == 2; e++) {
        counts c = count_eq(&p->equations[e]);
        /* 3 dt, 6 curl terms (two per component), 30 flux: cross (4 per component) + upwind (6) */
        CHECK(c.natoms == 39 && c.roles[HDG_ROLE_TIME] == 3 && c.roles[HDG_ROLE_VOLUME] == 6 &&
              c.roles[HDG_ROLE_FLUX] == 30 && c.dz == 2 && c.nz == 14, "eq %d: %d atoms, dz %d nz %d", e + 1,
              c.natoms, c.dz, c.nz);
    }
    const hdg_expr *const *E = p->unknowns[0].exact, *const *H = p->unknowns[1].exact;
    CHECK(p->unknowns[0].ncomp == 3 && p->unknowns[1].ncomp == 3 && E[2] && H[2], "E, H : V^3 with exact");
    double pts[2][4] = {{0.13, 0.37, 0.71, 0.3}, {0.8, 0.25, 0.45, 0.77}};
    for (int i = 0; i < 2; i++) {
        const double *X = pts[i];
        double divE = 0;
        for (int k = 0; k < 3; k++) {
            int j = (k + 1) % 3, l = (k + 2) % 3;   /* (curl F)_k = d F_l / d x_j - d F_j / d x_l */
            double curlH = dexact(p, H[l], j, X) - dexact(p, H[j], l, X);
            double curlE = dexact(p, E[l], j, X) - dexact(p, E[j], l, X);
            CHECK_NEAR(dexact(p, E[k], 3, X), curlH, 1e-7, "dt E = curl H");
            CHECK_NEAR(dexact(p, H[k], 3, X), -curlE, 1e-7, "dt H = -curl E");
            divE += dexact(p, E[k], k, X);
        }
        CHECK_NEAR(divE, 0, 1e-7, "div E = 0");
        /* PEC: the tangential components of E vanish on the walls x = 0, y = 1, z = 0 */
        CHECK_NEAR(eval3(p, E[1], 0, X[1], X[2], X[3]), 0, 1e-14, "E.y at x = 0");
        CHECK_NEAR(eval3(p, E[2], 0, X[1], X[2], X[3]), 0, 1e-14, "E.z at x = 0");
        CHECK_NEAR(eval3(p, E[0], X[0], 1, X[2], X[3]), 0, 1e-14, "E.x at y = 1");
        CHECK_NEAR(eval3(p, E[2], X[0], 1, X[2], X[3]), 0, 1e-14, "E.z at y = 1");
        CHECK_NEAR(eval3(p, E[0], X[0], X[1], 0, X[3]), 0, 1e-14, "E.x at z = 0");
        CHECK_NEAR(eval3(p, E[1], X[0], X[1], 0, X[3]), 0, 1e-14, "E.y at z = 0");
    }
    hdg_problem_free(p);
}

static void check_acoustics3d(void)
{
    hdg_problem *p = load("acoustics3d");
    if (!p) return;
    CHECK(p->dim == 3 && p->method == HDG_METHOD_DG && p->nequations == 2, "acoustics3d: 3D DG");
    if (p->nequations != 2) return;
    counts c = count_eq(&p->equations[0]);
    CHECK(c.natoms == 12 && c.roles[HDG_ROLE_VOLUME] == 3 && c.dz == 1 && c.nz == 2, "eq 1: %d atoms", c.natoms);
    c = count_eq(&p->equations[1]);
    CHECK(c.natoms == 30 && c.roles[HDG_ROLE_TIME] == 3 && c.roles[HDG_ROLE_VOLUME] == 3 && c.dz == 1,
          "eq 2: %d atoms", c.natoms);
    const hdg_expr *P = p->unknowns[0].exact[0], *const *U = p->unknowns[1].exact;
    double X[4] = {0.21, 0.66, 0.38, 0.41};
    double divU = dexact(p, U[0], 0, X) + dexact(p, U[1], 1, X) + dexact(p, U[2], 2, X);
    CHECK_NEAR(dexact(p, P, 3, X), -divU, 1e-7, "dt p = -div u");
    for (int k = 0; k < 3; k++) CHECK_NEAR(dexact(p, U[k], 3, X), -dexact(p, P, k, X), 1e-7, "dt u = -grad p");
    CHECK_NEAR(eval3(p, U[2], X[0], X[1], 1, X[3]), 0, 1e-14, "u.n = 0 at z = 1");
    /* the rigid wall's exterior state u - 2 (u.n) n: 3 rules of 3 terms each, with nz */
    const hdg_bc *b = &p->bcs[0];
    CHECK(p->nbcs == 1 && b->nrules == 4 && b->rules[3].unknown == 1 && b->rules[3].comp == 2 &&
          b->rules[3].nterms == 3, "ext(u).z = u.z - 2 (u.n) nz: %d rules", b->nrules);
    hdg_problem_free(p);
}

/* ---------------------------------------------------------------- algebra in funcs */

static double fval(const hdg_problem *p, const char *name, int ncomp, int c, double x, double y, double z)
{
    int f = hdg_problem_func(p, name);
    CHECK(f >= 0 && p->funcs[f].ncomp == ncomp, "func %s has %d components (%d)", name, ncomp,
          f >= 0 ? p->funcs[f].ncomp : -1);
    if (f < 0 || p->funcs[f].ncomp != ncomp) return NAN;
    return eval3(p, p->funcs[f].body[c], x, y, z, 0);
}

static void check_algebra(void)
{
    const char *src =
        "problem a\nmesh tetrahedron\ndegree k = 1\n"
        "func A() = [[2, 1, 0], [0, 3, 1], [1, 0, 4]]\n"
        "func v(x, y, z) = [x, y, z]\n"
        "func Ai() = inv(A)\n"
        "func dA() = det(A)\n"
        "func tA() = trace(A)\n"
        "func At() = transpose(A)\n"
        "func Av(x, y, z) = A*v\n"
        "func vA(x, y, z) = v*A\n"
        "func AA() = A*A\n"
        "func cr(x, y, z) = cross(v, [1, 2, 3])\n"
        "func ou(x, y, z) = outer(v, [1, 2, 3])\n"
        "func cu(x, y, z) = curl([y*z, x*z*z, x*y*y*z])\n"
        "func gv(x, y, z) = grad([x*y, y*z, z*x])\n"
        "func dv(x, y, z) = div([[x*y, 0, z], [0, y*z, 0], [x, 0, x*z]])\n"
        "func gs(x, y, z) = grad(x*y*z)\n"
        "func ix(x, y, z) = A[1][2] + A[2, 0] + A.yz + v(x, y, z)[2] + v(x, y, z).z\n"
        "func dzf(x, y, z) = dz(x*z^2 + y)\n"
        "func order(z, t, x) = z - 2*x + 10*t\n"
        "func callo(x, y, z, t) = order(x, y, z)\n"
        "func mydet(x, y, z) = det(grad([x*x, y*y, z*z]))\n"
        "space V = L2(P k)\nunknown u : V\nequation (dt(u), w) = 0 for w : V\ntime lserk4, final = 1, dt = 0.1\n";
    hdg_problem *p = parse("algebra", src);
    if (!p) return;
    double x = 0.3, y = 0.7, z = 1.1;
    /* A = [[2,1,0],[0,3,1],[1,0,4]]: det 25, inverse adj/25 */
    double Ainv[9] = {12, -4, 1, 1, 8, -2, -3, 1, 6};
    for (int c = 0; c < 9; c++) CHECK_NEAR(fval(p, "Ai", 9, c, 0, 0, 0), Ainv[c] / 25, 1e-15, "inv(A)");
    CHECK_NEAR(fval(p, "dA", 1, 0, 0, 0, 0), 25, 0, "det(A)");
    CHECK_NEAR(fval(p, "tA", 1, 0, 0, 0, 0), 9, 0, "trace(A)");
    double A[9] = {2, 1, 0, 0, 3, 1, 1, 0, 4}, v[3] = {x, y, z};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            CHECK_NEAR(fval(p, "At", 9, 3 * i + j, 0, 0, 0), A[3 * j + i], 0, "transpose(A)");
            double aa = 0;
            for (int k = 0; k < 3; k++) aa += A[3 * i + k] * A[3 * k + j];
            CHECK_NEAR(fval(p, "AA", 9, 3 * i + j, 0, 0, 0), aa, 0, "A*A");
            CHECK_NEAR(fval(p, "ou", 9, 3 * i + j, x, y, z), v[i] * (j + 1), 1e-15, "outer");
        }
    for (int i = 0; i < 3; i++) {
        double av = 0, va = 0;
        for (int k = 0; k < 3; k++) av += A[3 * i + k] * v[k], va += v[k] * A[3 * k + i];
        CHECK_NEAR(fval(p, "Av", 3, i, x, y, z), av, 1e-15, "A*v");
        CHECK_NEAR(fval(p, "vA", 3, i, x, y, z), va, 1e-15, "v*A");
    }
    double cr[3] = {y * 3 - z * 2, z * 1 - x * 3, x * 2 - y * 1};
    for (int i = 0; i < 3; i++) CHECK_NEAR(fval(p, "cr", 3, i, x, y, z), cr[i], 1e-15, "cross");
    /* curl(y z, x z^2, x y^2 z) = (2 x y z - 2 x z, y - y^2 z, z^2 - z) */
    double cu[3] = {2 * x * y * z - 2 * x * z, y - y * y * z, z * z - z};
    for (int i = 0; i < 3; i++) CHECK_NEAR(fval(p, "cu", 3, i, x, y, z), cu[i], 1e-14, "curl");
    /* grad(x y, y z, z x): rows d v_i / d(x, y, z) */
    double gv[9] = {y, x, 0, 0, z, y, z, 0, x};
    for (int c = 0; c < 9; c++) CHECK_NEAR(fval(p, "gv", 9, c, x, y, z), gv[c], 1e-15, "grad of a 3-vector");
    double dv[3] = {y + 1, z, 1 + x};   /* row by row */
    for (int i = 0; i < 3; i++) CHECK_NEAR(fval(p, "dv", 3, i, x, y, z), dv[i], 1e-15, "div of a 3x3 matrix");
    double gs[3] = {y * z, x * z, x * y};
    for (int i = 0; i < 3; i++) CHECK_NEAR(fval(p, "gs", 3, i, x, y, z), gs[i], 1e-15, "grad of a scalar");
    CHECK_NEAR(fval(p, "ix", 1, 0, x, y, z), 1 + 1 + 1 + 2 * z, 1e-15, "indices and components");
    CHECK_NEAR(fval(p, "dzf", 1, 0, x, y, z), 2 * x * z, 1e-15, "dz of data");
    /* order(z, t, x) called as order(x, y, z): z := x, t := y, x := z */
    int f = hdg_problem_func(p, "callo");
    hdg_eval_env env = {.x = x, .y = y, .z = z, .t = 0.5, .problem = p};
    CHECK(f >= 0 && p->funcs[f].nargs == 4, "func of 4 arguments");
    if (f >= 0) CHECK_NEAR(hdg_expr_eval(p->funcs[f].body[0], &env), x - 2 * z + 10 * y, 1e-15, "argument order");
    CHECK_NEAR(fval(p, "mydet", 1, 0, x, y, z), 8 * x * y * z, 1e-14, "det of a 3x3 gradient");
    /* d/dz of an expression through a func call (chain rule over the formal argument z) */
    int g = hdg_problem_func(p, "order");
    if (g >= 0) {
        const hdg_expr *dz = hdg_expr_diff(p, p->funcs[f].body[0], HDG_VAR_Z);
        CHECK(dz && fabs(hdg_expr_eval(dz, &env) + 2) < 1e-15, "d callo / dz = -2");
    }
    hdg_problem_free(p);
}

/* ---------------------------------------------------------------- tensors in HDG, suffixes */

static void check_tensor_hdg(void)
{
    const char *src =
        "problem el3\nmesh tetrahedron\ndegree k = 1\nparam tau = 1\n"
        "space V = L2(P k)\nspace M = trace(P k)\n"
        "unknown L : V^(3x3), u : V^3\ntrace uhat : M^3\n"
        "flux tn = -L*n + tau*(u - uhat)\n"
        "equation (L, G) + (u, div(G)) - <uhat, G*n> = 0 for G : V^(3x3)\n"
        "equation (L, grad(v)) + <tn, v> = (grad(x*y*z), v) for v : V^3\n"
        "equation <tn, eta> = 0 for eta : M^3\n"
        "boundary dirichlet uhat.z = 0 on left\n"
        "boundary dirichlet uhat = [x, y, z] on right\n"
        "boundary neumann tn = [0, 0, nz + 2*uhat.z] on top\n"
        "exact u = [x, y, z], L = grad([x, y, z])\n";
    hdg_problem *p = parse("el3", src);
    if (!p) return;
    CHECK(p->unknowns[0].ncomp == 9 && p->unknowns[1].ncomp == 3 && p->unknowns[2].ncomp == 3, "shapes 9, 3, 3");
    counts c = count_eq(&p->equations[0]);
    /* (L, G): 9; (u, div G): 9 (u_i d G_ij / d x_j); <uhat, G n>: 9 */
    CHECK(c.natoms == 27 && c.dz == 3 && c.nz == 3, "eq 1: %d atoms, dz %d, nz %d", c.natoms, c.dz, c.nz);
    CHECK(p->bcs[0].comp == 2, "uhat.z is component 2 (%d)", p->bcs[0].comp);
    /* a Robin term on the third component only: a trace-trace atom of equation 3, and the summary
       shows it (it once looked at components 0 and 1 only) */
    c = count_eq(&p->equations[2]);
    CHECK(c.roles[HDG_ROLE_TRACE_TRACE] >= 1 && p->bcs[2].nrobin[2] == 1 && p->bcs[2].nrobin[0] == 0,
          "robin on uhat.z: %d trace-trace atoms", c.roles[HDG_ROLE_TRACE_TRACE]);
    char *sum = hdg_problem_summary(p);
    CHECK(strstr(sum, "neumann on top: tn = [0, 0, nz + 2*uhat.z]  (source and trace-trace atoms of equation 3"),
          "summary of a Robin term on .z:\n%s", sum);
    free(sum);
    double L[9];
    for (int k = 0; k < 9; k++) L[k] = eval3(p, p->unknowns[0].exact[k], 0.2, 0.3, 0.4, 0);
    for (int k = 0; k < 9; k++) CHECK_NEAR(L[k], k % 4 == 0 ? 1 : 0, 0, "exact L = identity");
    hdg_problem_free(p);
    static const char *sfx[] = {".xx", ".xy", ".xz", ".yx", ".yy", ".yz", ".zx", ".zy", ".zz"};
    for (int k = 0; k < 9; k++) CHECK(!strcmp(hdg_comp_suffix(9, k), sfx[k]), "suffix %d", k);
    CHECK(!strcmp(hdg_comp_field_suffix(9, 5), "_yz") && !strcmp(hdg_comp_field_suffix(3, 2), "_z") &&
          !strcmp(hdg_comp_suffix(3, 2), ".z") && !strcmp(hdg_comp_suffix(4, 2), ".yx") &&
          !strcmp(hdg_comp_suffix(3, 3), ""), "suffixes of 3 and 9 components; 2x2 unchanged");
    CHECK(!strcmp(hdg_var_name(HDG_VAR_Z), "z"), "var name z");
}

/* A 2D file keeps dim 2 and its own use of the name 'z' (a test function), with no warning. */
static void check_2d_names(void)
{
    const char *src =
        "problem m\ndegree k = 1\nspace V = L2(P k)\nunknown Ez : V\n"
        "func nz(x, y) = x\nfunc cross(x, y) = y\n"
        "equation (dt(Ez), z) = (nz + cross, z) for z : V\ntime lserk4, final = 1, dt = 0.1\n";
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_parse("names2d", src, strlen(src), NULL, &d);
    CHECK(p && d.nerrors == 0 && d.nwarnings == 0, "a 2D file may name things z, nz, cross (%d errors, %d warnings)",
          d.nerrors, d.nwarnings);
    if (p) CHECK(p->dim == 2 && !strcmp(p->mesh, "triangle"), "default mesh triangle, dim 2");
    hdg_diags_free(&d);
    /* a 2D file on a tetrahedral mesh: refused at the problem line (no mesh line), not on triangles */
    hdg_diags_init(&d);
    if (p) {
        CHECK(hdg_problem_check_mesh_dim(p, 2, &d) == 0 && d.nerrors == 0, "a 2D file on triangles");
        CHECK(hdg_problem_check_mesh_dim(p, 3, &d) == 1 && d.count == 1 && d.items[0].loc.line == 1 &&
              strstr(d.items[0].msg, "the file is two-dimensional (mesh triangle, the default) but the mesh has "
                                     "tetrahedra"), "a 2D file on tetrahedra: %s", d.count ? d.items[0].msg : "-");
    }
    hdg_diags_free(&d);
    hdg_problem_free(p);
}

int main(void)
{
    check_poisson3d();
    check_maxwell3d();
    check_acoustics3d();
    check_algebra();
    check_tensor_hdg();
    check_2d_names();
    return test_summary("frontend3d");
}
