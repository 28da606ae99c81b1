/* test_dg3d.c — explicit nodal DG on tetrahedra (ir/lower_dg.c with the
 * dimension as data, drivers/mesh_data.c, drivers/run_dg*.c):
 *   maps     the face maps pair every interior face node with the
 *            neighbour's node at the same physical point (1e-12 of the
 *            element size), on perturbed cube meshes, N = 1..5, before and
 *            after the Morton element order;
 *   semi     the semi-discrete energy rate sum_e J_e U^T M rhs(U) of
 *            examples/maxwell3d.hdg at a random state: 0 to round-off with
 *            the central flux (|rate| < 1e-12 of its scale), negative with
 *            upwind; the fused step kernel equals rhs + update;
 *   weak     weak-form advection (-(a u, grad v), the three S_k = M^-1 D_k^T M)
 *            gives the strong form's right-hand side to 1e-11;
 *   rates N COARSE FINE  the fields' L2 errors at t = 0.5 fall at rate N+1
 *            (within 0.3) from mesh COARSE to FINE (twice as fine) with
 *            the upwind flux, whose energy never increases (every step);
 *   energy   central flux: LSERK4's drift falls like dt^5 (by > 24 when
 *            the cfl halves) and stays below 1e-10 relative over 300 steps
 *            at cfl 0.05; upwind: non-increasing at every step over 120;
 *   refuse   the API's fields (a snapshot callback) are refused in 3D
 *            before any step, naming the option.
 * Run as test_dg3d_maps [PART [ARGS]] (default: maps). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/pipeline.h"
#include "drivers/mesh_data.h"
#include "drivers/run.h"
#include "ir/lower_dg.h"
#include "runtime/fem/geometry.h"
#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh.h"
#include "runtime/solve/lserk4.h"
#include "test.h"
#include "test_problem.h"

static hdg_problem *load(int order, double alpha)
{
    hdg_setting s = { "alpha", alpha };
    return test_load_problem(HDG_EXAMPLES "/maxwell3d.hdg", order, &s, 1);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

/* ------------------------------------------------------------- face maps */

/* Node i of element e in physical coordinates. */
static void node_xyz(const hdg_mesh *m, const hdg_refel *re, int e, int i, double *x)
{
    double r[3] = { re->r[i], re->s[i], re->t[i] };
    hdg_geom_map_point(m, e, r, x);
}

/* Every interior face node of every element against its exterior node; the
 * rows of geom/fmap are kernel rows, row[e] the row of mesh element e
 * (NULL: the mesh order). period[d] > 0: coordinate d is periodic. Returns
 * the orientations seen (bit o). */
static int check_pairs(const hdg_mesh *m, const hdg_refel *re, const hdg_dg_lowered *L, const int *fmap,
                       const int *row, const double *period, const char *what)
{
    int nfe = 4, Nfp = re->Nfp, *elem = malloc(sizeof(int) * m->ne), seen = 0, bad = 0;
    long long pairs = 0;
    double worst = 0;
    for (int e = 0; e < m->ne; e++) elem[row ? row[e] : e] = e;
    for (int e = 0; e < m->ne && bad < 5; e++) {
        const int *M = fmap + (size_t)(row ? row[e] : e) * L->nimap;
        for (int j = 0; j < nfe; j++) {
            if (M[2 * nfe + j] >= 0) continue;   /* a boundary face */
            int o = elem[M[j]], xr = M[nfe + j];
            seen |= 1 << (xr % 6);
            double h = 0;
            for (int i = 0; i < Nfp; i++) {
                double a[3], b[3], d = 0;
                node_xyz(m, re, e, re->Fmask[j * Nfp + i], a);
                node_xyz(m, re, o, hdg_dg_exterior_node(re, xr, i), b);
                for (int k = 0; k < 3; k++) {
                    double dk = a[k] - b[k];
                    if (period && period[k] > 0) dk -= period[k] * round(dk / period[k]);
                    d = fmax(d, fabs(dk));
                    h = fmax(h, fabs(a[k]));
                }
                worst = fmax(worst, d);
                pairs++;
                if (d > 1e-12 * fmax(h, 1)) {
                    bad++;
                    CHECK(0, "%s: element %d face %d node %d: neighbour %d's node is %.3g away", what, e, j, i, o, d);
                }
            }
        }
    }
    CHECK(pairs > 0, "%s: no interior face nodes", what);
    printf("  %s: %lld face node pairs, largest distance %.2g, orientations seen 0x%x\n", what, pairs, worst, seen);
    free(elem);
    return seen;
}

/* spec's mesh with the vertices of element e listed in the e-th (mod 12) even
 * permutation (orientation kept), the topology rebuilt: the local face
 * numbers of neighbours vary, so the faces meet in all 6 orientations. */
static hdg_status shuffled(hdg_mesh *m, const char *spec, hdg_error *err)
{
    static const int even[12][4] = { { 0, 1, 2, 3 }, { 1, 2, 0, 3 }, { 2, 0, 1, 3 }, { 0, 2, 3, 1 },
                                     { 2, 3, 0, 1 }, { 3, 0, 2, 1 }, { 0, 3, 1, 2 }, { 3, 1, 0, 2 },
                                     { 1, 0, 3, 2 }, { 1, 3, 2, 0 }, { 3, 2, 1, 0 }, { 2, 1, 3, 0 } };
    hdg_mesh a = {0};
    hdg_status st = hdg_mesh_load(&a, spec, err);
    if (st) return st;
    memset(m, 0, sizeof *m);
    m->dim = 3, m->nv = a.nv, m->ne = a.ne;
    m->vx = malloc(sizeof(double) * a.nv), m->vy = malloc(sizeof(double) * a.nv), m->vz = malloc(sizeof(double) * a.nv);
    memcpy(m->vx, a.vx, sizeof(double) * a.nv), memcpy(m->vy, a.vy, sizeof(double) * a.nv);
    memcpy(m->vz, a.vz, sizeof(double) * a.nv);
    m->ev = malloc(sizeof(int) * 4 * a.ne);
    for (int e = 0; e < a.ne; e++)
        for (int k = 0; k < 4; k++) m->ev[4 * e + k] = a.ev[4 * e + even[e % 12][k]];
    hdg_mesh_free(&a);
    return hdg_mesh_build_topology(m, err);
}

static void maps_on(const char *spec, const double *period)
{
    hdg_mesh m = {0};
    hdg_geom g = {0};
    hdg_error err;
    if (!strncmp(spec, "shuffled:", 9))
        CHECK(shuffled(&m, spec + 9, &err) == HDG_OK, "%s: %s", spec, err.msg);
    else
        CHECK(hdg_mesh_load(&m, spec, &err) == HDG_OK, "%s: %s", spec, err.msg);
    CHECK(m.dim == 3, "%s: dimension %d", spec, m.dim);
    if (m.dim != 3 || hdg_geom_init(&g, &m, &err) != HDG_OK) {
        hdg_mesh_free(&m);
        return;
    }
    /* the face maps need of the lowering only its layout and of the problem its
     * boundary conditions (none here: no flux needs exterior values) */
    hdg_problem p;
    memset(&p, 0, sizeof p);
    p.name = "maps";
    hdg_dg_lowered L;
    memset(&L, 0, sizeof L);
    L.dim = 3, L.ngeom = hdg_dg_g_size(3), L.nimap = 3 * 4;
    CHECK(L.ngeom == 38, "3D geometry row of %d values", L.ngeom);
    int seen = 0;
    double *geom = malloc(sizeof(double) * m.ne * L.ngeom);
    int *fmap = malloc(sizeof(int) * m.ne * L.nimap), *pos = malloc(sizeof(int) * m.ne);
    for (int N = 1; N <= 5; N++) {
        hdg_refel re = {0};
        CHECK(hdg_refel_init(&re, 3, N, &err) == HDG_OK, "%s", err.msg);
        CHECK(hdg_dg_fill_maps(&L, &p, &m, &g, geom, fmap, &err) == HDG_OK, "%s", err.msg);
        char what[128];
        snprintf(what, sizeof what, "%s N = %d", spec, N);
        seen |= check_pairs(&m, &re, &L, fmap, NULL, period, what);
        hdg_dg_order_elements(&L, &m, geom, fmap, pos);
        snprintf(what, sizeof what, "%s N = %d, Morton order", spec, N);
        check_pairs(&m, &re, &L, fmap, pos, period, what);
        int moved = 0;
        for (int e = 0; e < m.ne; e++) moved += pos[e] != e;
        CHECK(moved > 0, "%s: the Morton order moved no element", spec);
        /* the geometry row of element e: J, the last vertex's z, a normal, dr/dz */
        int e = m.ne / 2, r = pos[e];
        const double *G = geom + (size_t)r * L.ngeom;
        CHECK(G[hdg_dg_g_j(3)] == g.J[e] && G[hdg_dg_g_x(3, 3, 2)] == m.vz[m.ev[4 * e + 3]] &&
                  G[hdg_dg_g_face(3, 2) + 2] == g.n[2][4 * e + 2] && G[hdg_dg_g_face(3, 3) + 3] == g.Fscale[4 * e + 3] &&
                  G[hdg_dg_g_ginv(3, 0, 2)] == g.Ginv[0][2][e],
              "%s: geometry row of element %d", spec, e);
        hdg_refel_free(&re);
    }
    free(geom), free(fmap), free(pos);
    if (!strncmp(spec, "shuffled:", 9) || strstr(spec, "shuffled_cube"))
        CHECK(seen == 0x3f, "%s: orientations seen 0x%x, not all 6", spec, seen);
    else
        CHECK(seen & ~1, "%s: only orientation 0 seen (0x%x): the permutations are not exercised", spec, seen);
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
}

static void test_maps(void)
{
    maps_on("cube:2,perturb=0.2", NULL);
    maps_on("cube:3,perturb=0.25", NULL);
    maps_on("cube:3,perturb=0.25,domain=[-1,2]x[0,1]x[0,0.5]", NULL);
    maps_on("shuffled:cube:3,perturb=0.2", NULL);
    /* the periodic file of the nonlinear totals tests (tests/data/nldg/make_shuffled_cube.py): all 6
     * orientations, across the paired sides too */
    maps_on(HDG_TEST_DATA "/nldg/shuffled_cube_v22.msh,periodic=left:right,front:back,bottom:top",
            (const double[3]){ 1, 1, 1 });
}

/* ------------------------------------------------ semi-discrete energy */

/* sum_e J_e sum_f U_f^T M V_f */
static double mass_dot(const hdg_refel *re, const hdg_geom *g, int ne, int F, const double *U, const double *V)
{
    int Np = re->Np;
    double s = 0;
    for (int e = 0; e < ne; e++)
        for (int f = 0; f < F; f++) {
            const double *u = U + ((size_t)e * F + f) * Np, *v = V + ((size_t)e * F + f) * Np;
            for (int i = 0; i < Np; i++)
                for (int j = 0; j < Np; j++) s += g->J[e] * u[i] * re->M[i * Np + j] * v[j];
        }
    return s;
}

static void semi_at(const char *spec, int N, double alpha)
{
    hdg_problem *p = load(N, alpha);
    if (!p) return;
    hdg_error err;
    hdg_mesh m = {0};
    hdg_geom g = {0};
    hdg_refel re = {0};
    hdg_dg_lowered L;
    hdg_compiled comp = {0};
    CHECK(hdg_mesh_load(&m, spec, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_refel_init(&re, 3, N, &err) == HDG_OK, "%s", err.msg);
    hdg_status st = hdg_lower_dg(p, &L, &err);
    CHECK(st == HDG_OK, "lower: %s", err.msg);
    if (st) goto out;
    CHECK(hdg_compile_c(L.mod, NULL, &comp, &err) == HDG_OK, "compile: %s", err.msg);
    hdg_kernel_fn frhs = hdg_compiled_find(&comp, L.rhs, NULL), fstep = hdg_compiled_find(&comp, L.step, NULL);
    hdg_kernel_fn fupd = hdg_compiled_find(&comp, L.update, NULL), fen = hdg_compiled_find(&comp, L.energy, NULL);
    CHECK(frhs && fstep && fupd && fen, "kernels");
    if (!frhs || !fstep || !fupd || !fen) goto out;
    int F = L.nfields;
    size_t n = (size_t)m.ne * F * re.Np;
    double *geom = malloc(sizeof(double) * m.ne * L.ngeom);
    int *fmap = malloc(sizeof(int) * m.ne * L.nimap);
    double *U = malloc(sizeof(double) * n), *R = calloc(n, sizeof(double)), *E = calloc((size_t)m.ne, sizeof(double));
    double *params = calloc((size_t)L.nparams, sizeof(double));
    for (int i = 0; i < p->nparams; i++) params[i] = p->params[i].value;
    CHECK(hdg_dg_fill_maps(&L, p, &m, &g, geom, fmap, &err) == HDG_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++) U[i] = urand();
    hdg_kargs a = { .nitems = m.ne, .geom = geom, .params = params, .t = 0.25, .in = { U }, .imap = { fmap } };
    a.out[0] = R;
    hdg_launch(frhs, m.ne, &a);
    double rate = mass_dot(&re, &g, m.ne, F, U, R), uu = mass_dot(&re, &g, m.ne, F, U, U);
    double rr = mass_dot(&re, &g, m.ne, F, R, R), scale = sqrt(uu * rr);
    a.out[0] = E;
    hdg_launch(fen, m.ne, &a);
    double en = 0;
    for (int e = 0; e < m.ne; e++) en += E[e];
    CHECK(fabs(en - 0.5 * uu) <= 1e-13 * uu, "energy kernel %.17g vs %.17g", en, 0.5 * uu);
    if (alpha == 0)
        CHECK(fabs(rate) <= 1e-12 * scale, "%s N = %d central: dE/dt = %.3g, scale %.3g (ratio %.2g)", spec, N, rate,
              scale, rate / scale);
    else
        CHECK(rate < -1e-3 * scale, "%s N = %d upwind: dE/dt = %.3g, scale %.3g", spec, N, rate, scale);
    printf("  %s N = %d alpha = %g: dE/dt / (|U| |rhs|) = %.3g\n", spec, N, alpha, rate / scale);
    /* the fused stage: res = a res + dt rhs; Unew = U + b res */
    double *res = malloc(sizeof(double) * n), *res2 = malloc(sizeof(double) * n), *Un = calloc(n, sizeof(double));
    double *U2 = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) res[i] = res2[i] = urand();
    params[L.p_rka] = hdg_lserk4_a[1], params[L.p_rkb] = hdg_lserk4_b[1], params[L.p_dt] = 0.01;
    hdg_kargs s = a;
    s.in[0] = U, s.out[0] = Un, s.out[1] = res;
    hdg_launch(fstep, m.ne, &s);
    memcpy(U2, U, sizeof(double) * n);
    hdg_kargs u = a;
    u.in[0] = R, u.out[0] = U2, u.out[1] = res2;
    hdg_launch(fupd, m.ne, &u);
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fmax(fabs(Un[i] - U2[i]), fabs(res[i] - res2[i])));
    CHECK(d <= 1e-13, "step kernel differs from rhs + update by %.3g", d);
    free(res), free(res2), free(Un), free(U2);
    free(geom), free(fmap), free(U), free(R), free(E), free(params);
out:
    hdg_compiled_free(&comp);
    hdg_dg_lowered_free(&L);
    hdg_refel_free(&re);
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
    hdg_problem_free(p);
}

static void test_semi(void)
{
    semi_at("cube:2,perturb=0.2", 2, 0);
    semi_at("cube:2,perturb=0.2", 3, 0);
    semi_at("cube:2,perturb=0.2", 3, 1);
}

/* ------------------------------------------------- weak and strong form */

/* Upwind advection in 3D, strong form (a.grad u, v) or weak form -(a u, grad v)
 * with the full upwind flux: with exact integration the same right-hand side. */
static const char *advection3d_src(int weak)
{
    static char src[2048];
    snprintf(src, sizeof src,
             "problem adv3%s\nmesh tetrahedron\ndegree N = 3\nparam ax = 0.8\nparam ay = -0.45\nparam az = 0.3\n"
             "func g(x, y, z, t) = sin(x - t) * cos(2*y) * exp(z)\nspace V = L2(P N)\nunknown u : V\n%s\n"
             "boundary inflow on all: ext(u) = g(x, y, z, t)\ntime lserk4, final = 1, cfl = 0.5\n",
             weak ? "weak" : "strong",
             weak ? "equation (dt(u), v) - (ax*u, dx(v)) - (ay*u, dy(v)) - (az*u, dz(v)) = -<((ax*nx + ay*ny + az*nz) + "
                    "abs(ax*nx + ay*ny + az*nz))/2*u + ((ax*nx + ay*ny + az*nz) - abs(ax*nx + ay*ny + az*nz))/2*ext(u), "
                    "v> for v : V"
                  : "equation (dt(u), v) + (ax*dx(u) + ay*dy(u) + az*dz(u), v) = <(ax*nx + ay*ny + az*nz - abs(ax*nx "
                    "+ ay*ny + az*nz))/2 * jump(u), v> for v : V");
    return src;
}

static void test_weak(void)
{
    hdg_error err;
    hdg_mesh m = {0};
    hdg_geom g = {0};
    CHECK(hdg_mesh_load(&m, "cube:2,perturb=0.2", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "%s", err.msg);
    double *out[2] = {0}, *U = NULL;
    size_t n = 0;
    for (int weak = 0; weak < 2; weak++) {
        hdg_problem *p = test_parse_problem(advection3d_src(weak));
        if (!p) break;
        hdg_dg_lowered L;
        hdg_compiled comp = {0};
        CHECK(hdg_lower_dg(p, &L, &err) == HDG_OK, "lower: %s", err.msg);
        CHECK(hdg_compile_c(L.mod, NULL, &comp, &err) == HDG_OK, "compile: %s", err.msg);
        hdg_kernel_fn frhs = hdg_compiled_find(&comp, L.rhs, NULL);
        CHECK(frhs != NULL, "rhs kernel");
        n = (size_t)m.ne * L.Np;
        if (!U) {
            U = malloc(sizeof(double) * n);
            for (size_t i = 0; i < n; i++) U[i] = urand();
        }
        out[weak] = calloc(n, sizeof(double));
        double *geom = malloc(sizeof(double) * m.ne * L.ngeom), *params = calloc((size_t)L.nparams, sizeof(double));
        int *fmap = malloc(sizeof(int) * m.ne * L.nimap);
        for (int i = 0; i < p->nparams; i++) params[i] = p->params[i].value;
        CHECK(hdg_dg_fill_maps(&L, p, &m, &g, geom, fmap, &err) == HDG_OK, "%s", err.msg);
        hdg_kargs a = { .nitems = m.ne, .geom = geom, .params = params, .t = 0.3, .in = { U }, .imap = { fmap } };
        a.out[0] = out[weak];
        if (frhs) hdg_launch(frhs, m.ne, &a);
        free(geom), free(params), free(fmap);
        hdg_compiled_free(&comp);
        hdg_dg_lowered_free(&L);
        hdg_problem_free(p);
    }
    if (out[0] && out[1]) {
        double d = 0, scale = 0;
        for (size_t i = 0; i < n; i++) d = fmax(d, fabs(out[0][i] - out[1][i])), scale = fmax(scale, fabs(out[0][i]));
        printf("  weak vs strong advection on cube:2,perturb=0.2, N = 3: rhs differ by %.3g (scale %.3g)\n", d, scale);
        CHECK(scale > 1 && d <= 1e-11 * scale, "weak and strong forms differ by %.3g (scale %.3g)", d, scale);
    }
    free(out[0]), free(out[1]), free(U);
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
}

/* ------------------------------------------------------------- whole runs */

typedef struct runres {
    hdg_status st;
    double errH, errE, e0, e1, maxinc, dt;
    long long steps;
    char msg[2048];
} runres;

static double field_error(hdg_report *rep, const hdg_problem *p, const char *prefix)
{
    double s = 0;
    for (int u = 0; u < p->nunknowns; u++)
        if (p->unknowns[u].name[0] == prefix[0]) {
            char path[80];
            snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
            double e = hdg_report_get_number(rep, path, NULL);
            s += e * e;
        }
    return sqrt(s);
}

static runres run(hdg_problem *p, const char *spec, double final, double cfl)
{
    runres rr;
    memset(&rr, 0, sizeof rr);
    hdg_mesh m = {0};
    hdg_error err;
    hdg_error_clear(&err);
    CHECK(hdg_mesh_load(&m, spec, &err) == HDG_OK, "%s: %s", spec, err.msg);
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.use_cache = 1;
    o.final_time = final;
    o.cfl = cfl;
    hdg_report *rep = hdg_report_new();
    rr.st = hdg_run_dg(p, &m, &o, rep, &err);
    snprintf(rr.msg, sizeof rr.msg, "%s", err.msg);
    rr.errH = field_error(rep, p, "H");
    rr.errE = field_error(rep, p, "E");
    rr.e0 = hdg_report_get_number(rep, "energy.start", NULL);
    rr.e1 = hdg_report_get_number(rep, "energy.end", NULL);
    rr.maxinc = hdg_report_get_number(rep, "energy.max_rel_increase", NULL);
    rr.dt = hdg_report_get_number(rep, "dt", NULL);
    rr.steps = (long long)hdg_report_get_number(rep, "steps", NULL);
    hdg_report_free(rep);
    hdg_mesh_free(&m);
    return rr;
}

static void test_rates(int N, const char *coarse, const char *fine)
{
    hdg_problem *p = load(N, 1);
    if (!p) return;
    runres a = run(p, coarse, 0.5, 0), b = run(p, fine, 0.5, 0);
    CHECK(a.st == HDG_OK && b.st == HDG_OK, "%s %s", a.msg, b.msg);
    double rH = log2(a.errH / b.errH), rE = log2(a.errE / b.errE);
    printf("  N = %d, %s -> %s: H %.3e -> %.3e (rate %.2f), E %.3e -> %.3e (rate %.2f); %lld + %lld steps\n", N, coarse, fine, a.errH,
           b.errH, rH, a.errE, b.errE, rE, a.steps, b.steps);
    CHECK(fabs(rH - (N + 1)) <= 0.3 && fabs(rE - (N + 1)) <= 0.3, "N = %d: rates H %.3f E %.3f, not %d +- 0.3", N,
          rH, rE, N + 1);
    CHECK(a.maxinc <= 1e-13 && b.maxinc <= 1e-13 && b.e1 < b.e0, "upwind energy increased (max step %.3g %.3g)",
          a.maxinc, b.maxinc);
    hdg_problem_free(p);
}

static void test_energy(void)
{
    hdg_problem *p = load(3, 0);
    if (p) {
        /* central flux: the semi-discrete energy is exact (dg3d_semi); LSERK4
         * dissipates O(dt^5) of it per unit time (|R(iy)|^2 = 1 - O(y^6)) */
        runres a = run(p, "cube:2,perturb=0.2", 1.0, 0.4), b = run(p, "cube:2,perturb=0.2", 1.0, 0.2);
        runres c = run(p, "cube:2,perturb=0.2", 0.5, 0.05);
        double da = fabs(a.e1 - a.e0) / a.e0, db = fabs(b.e1 - b.e0) / b.e0, dc = fabs(c.e1 - c.e0) / c.e0;
        CHECK(a.st == HDG_OK && b.st == HDG_OK && c.st == HDG_OK, "%s %s %s", a.msg, b.msg, c.msg);
        printf("  central: cfl 0.4 %lld steps drift %.3g, cfl 0.2 %lld steps drift %.3g, cfl 0.05 %lld steps drift "
               "%.3g\n", a.steps, da, b.steps, db, c.steps, dc);
        CHECK(db < da / 24, "energy drift does not fall like dt^5: %.3g -> %.3g", da, db);
        CHECK(c.steps >= 200 && dc < 1e-10, "central flux: %lld steps, energy drift %.3g", c.steps, dc);
        CHECK(c.maxinc <= 1e-13, "central flux: the energy increased (max step %.3g)", c.maxinc);
        hdg_problem_free(p);
    }
    p = load(3, 1);
    if (p) {
        runres a = run(p, "cube:2,perturb=0.2", 3.0, 0);
        printf("  upwind: %lld steps, energy %.6g -> %.6g, max step increase %.3g\n", a.steps, a.e0, a.e1, a.maxinc);
        CHECK(a.st == HDG_OK && a.steps >= 100 && a.maxinc <= 1e-13 && a.e1 < a.e0,
              "upwind: %s %lld steps, energy %.17g -> %.17g (max step %.3g)", a.msg, a.steps, a.e0, a.e1, a.maxinc);
        hdg_problem_free(p);
    }
}

/* The snapshot of a 3D run (the API's fields): dim 3, the tetrahedron's lattice with its third
 * coordinate, four vertices of three coordinates an element (it was refused: "fields is not
 * available in 3D yet"). */
typedef struct snap_seen {
    int calls, dim, nlat, ok;
} snap_seen;

static hdg_status on_snapshot(void *ctx, const hdg_snapshot *s, hdg_error *err)
{
    (void)err;
    snap_seen *seen = ctx;
    seen->calls++, seen->dim = s->dim, seen->nlat = s->nlat;
    int ok = s->lt != NULL;
    for (int q = 0; ok && q < s->nlat; q++) ok = s->lr[q] + s->ls[q] + s->lt[q] <= -1 + 1e-14;
    for (int e = 0; ok && e < s->ne; e++)   /* cube:1: every vertex coordinate is 0 or 1 */
        for (int k = 0; k < 12; k++) ok = ok && (s->vxy[12 * e + k] == 0 || s->vxy[12 * e + k] == 1);
    seen->ok = ok;
    return HDG_OK;
}

static void test_snapshot(void)
{
    hdg_problem *p = load(2, 1);
    if (!p) return;
    hdg_mesh m = {0};
    hdg_error err;
    hdg_error_clear(&err);
    CHECK(hdg_mesh_load(&m, "cube:1", &err) == HDG_OK, "%s", err.msg);
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.final_time = 0.1;
    snap_seen seen = {0};
    o.snapshot = on_snapshot, o.snapshot_ctx = &seen;
    hdg_report *rep = hdg_report_new();
    hdg_status st = hdg_run_dg(p, &m, &o, rep, &err);
    CHECK(st == HDG_OK, "run: %s", err.msg);
    CHECK(seen.calls == 1 && seen.dim == 3 && seen.nlat == 10 && seen.ok, "snapshot: %d calls, dim %d, nlat %d, ok %d",
          seen.calls, seen.dim, seen.nlat, seen.ok);
    hdg_report_free(rep);
    hdg_mesh_free(&m);
    hdg_problem_free(p);
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "maps";
    if (!strcmp(part, "maps")) test_maps();
    else if (!strcmp(part, "semi")) test_semi();
    else if (!strcmp(part, "rates") && argc > 4) test_rates(atoi(argv[2]), argv[3], argv[4]);
    else if (!strcmp(part, "energy")) test_energy();
    else if (!strcmp(part, "snapshot")) test_snapshot();
    else if (!strcmp(part, "weak")) test_weak();
    else CHECK(0, "unknown part '%s' (maps, semi, weak, rates N COARSE FINE, energy, snapshot)", part);
    return test_summary("dg3d");
}
