/* test_dg.c — explicit nodal DG end to end (ir/lower_dg.c, drivers/run_dg.c,
 * runtime/solve/lserk4.c):
 *   1. the generated right-hand side (fused kernel, and volume then surface
 *      kernels) of examples/maxwell2d.hdg equals a plain Hesthaven-Warburton
 *      Maxwell RHS written here (node pairs found by coordinates) to 1e-13,
 *      on a perturbed square and on a Gmsh mesh, upwind and central, N = 1,
 *      3, 4, 5, 8; the fused LSERK4 stage kernel equals rhs + update, the
 *      energy kernel a plain 1/2 sum J u^T M u; weak-form advection (test
 *      function differentiated) gives the same rhs as the strong form; in
 *      the Morton element order the rhs rows are the same, moved;
 *   2. LSERK4 is 4th order on y' = -y + cos(t) (plain integrator);
 *   3. Maxwell Ez converges at rate >= N+1-0.6, N = 2..5, on square:4 -> 8,
 *      square:4,perturb=0.2 -> 8, and the Gmsh mesh maxwell05 -> its
 *      uniform refinement; acoustics and advection at >= N+0.5;
 *   4. energy: upwind never increases (checked after every step), central
 *      flux conserves it to the time-stepping error (bound below) and the
 *      drift falls like dt^4 when the cfl halves; 1000 steps on square:16
 *      without energy growth;
 *   5. the lowering refuses unsupported forms with located messages, and a
 *      blow-up (cfl far too large) gives HDG_ESOLVER with step and time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/pipeline.h"
#include "drivers/run.h"
#include "drivers/mesh_data.h"
#include "ir/lower_dg.h"
#include "runtime/fem/geometry.h"
#include "runtime/solve/lserk4.h"
#include "runtime/mesh/mesh.h"
#include "runtime/fem/refel.h"
#include "test.h"
#include "test_problem.h"

static hdg_problem *load(const char *name, int order, const char *set, double val)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", HDG_EXAMPLES, name);
    hdg_setting s = { set, val };
    return test_load_problem(path, order, set ? &s : NULL, set ? 1 : 0);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* ------------------------------------------------ 1. reference HW Maxwell RHS */

/* rhs of dHx/dt = -dEz/dy, dHy/dt = dEz/dx, dEz/dt = dHy/dx - dHx/dy with the
 * H&W upwind/central flux and PEC walls, fields per element [Hx, Hy, Ez][Np]. */
static void hw_maxwell_rhs(const hdg_refel *re, const hdg_mesh *m, const hdg_geom *g, double alpha,
                           const double *U, double *rhs)
{
    int Np = re->Np, Nfp = re->Nfp;
    double *fl = malloc(sizeof(double) * 3 * 3 * Nfp);
    for (int e = 0; e < m->ne; e++) {
        const double *Hx = U + (size_t)e * 3 * Np, *Hy = Hx + Np, *Ez = Hy + Np;
        double *rHx = rhs + (size_t)e * 3 * Np, *rHy = rHx + Np, *rEz = rHy + Np;
        for (int i = 0; i < Np; i++) {
            double hxr = 0, hxs = 0, hyr = 0, hys = 0, ezr = 0, ezs = 0;
            for (int j = 0; j < Np; j++) {
                double dr = re->Dr[i * Np + j], ds = re->Ds[i * Np + j];
                hxr += dr * Hx[j]; hxs += ds * Hx[j];
                hyr += dr * Hy[j]; hys += ds * Hy[j];
                ezr += dr * Ez[j]; ezs += ds * Ez[j];
            }
            double rx = g->rx[e], ry = g->ry[e], sx = g->sx[e], sy = g->sy[e];
            rHx[i] = -(ry * ezr + sy * ezs);
            rHy[i] = rx * ezr + sx * ezs;
            rEz[i] = (rx * hyr + sx * hys) - (ry * hxr + sy * hxs);
        }
        for (int j = 0; j < 3; j++) {
            int f = m->ef[3 * e + j];
            int other = m->fe[2 * f] == e && m->flf[2 * f] == j ? m->fe[2 * f + 1] : m->fe[2 * f];
            int olf = m->fe[2 * f] == e && m->flf[2 * f] == j ? m->flf[2 * f + 1] : m->flf[2 * f];
            double nx = g->nx[3 * e + j], ny = g->ny[3 * e + j];
            for (int i = 0; i < Nfp; i++) {
                int n = re->Fmask[j * Nfp + i];
                double dHx, dHy, dEz;
                if (other < 0) {
                    dHx = 0, dHy = 0, dEz = 2 * Ez[n];
                } else {   /* the neighbour's face node at the same place */
                    double x, y, best = 1e300;
                    int P = -1;
                    hdg_geom_map(m, e, re->r[n], re->s[n], &x, &y);
                    for (int k = 0; k < Nfp; k++) {
                        int q = re->Fmask[olf * Nfp + k];
                        double xo, yo;
                        hdg_geom_map(m, other, re->r[q], re->s[q], &xo, &yo);
                        double d = hypot(xo - x, yo - y);
                        if (d < best) best = d, P = q;
                    }
                    const double *O = U + (size_t)other * 3 * Np;
                    dHx = Hx[n] - O[P], dHy = Hy[n] - O[Np + P], dEz = Ez[n] - O[2 * Np + P];
                }
                double ndotdH = nx * dHx + ny * dHy, fs = g->Fscale[3 * e + j];
                fl[0 * 3 * Nfp + j * Nfp + i] = fs * (ny * dEz + alpha * (ndotdH * nx - dHx)) / 2;
                fl[1 * 3 * Nfp + j * Nfp + i] = fs * (-nx * dEz + alpha * (ndotdH * ny - dHy)) / 2;
                fl[2 * 3 * Nfp + j * Nfp + i] = fs * (-nx * dHy + ny * dHx - alpha * dEz) / 2;
            }
        }
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < Np; i++) {
                double s = 0;
                for (int k = 0; k < 3 * Nfp; k++) s += re->LIFT[i * 3 * Nfp + k] * fl[c * 3 * Nfp + k];
                rhs[(size_t)e * 3 * Np + c * Np + i] += s;
            }
    }
    free(fl);
}

/* The fused stage kernel equals the LSERK4 update applied to the rhs kernel's
 * output: res' = a res + dt rhs, U' = U + b res' (rhs in r1, a->in[0] = U). */
static void check_step(const hdg_compiled *comp, const hdg_dg_lowered *L, const hdg_kargs *a0, const hdg_mesh *m,
                       const double *U, const double *r1, size_t n)
{
    const hdg_kernel_info *info = NULL;
    hdg_kernel_fn fstep = hdg_compiled_find(comp, L->step, &info);
    CHECK(fstep != NULL, "kernel %s", L->step);
    if (!fstep) return;
    CHECK(info->in[0].flags & HDG_KSLOT_GATHER && info->out[1].flags & HDG_KSLOT_READS, "step slots");
    double *params = malloc(sizeof(double) * L->nparams), *Un = malloc(sizeof(double) * n);
    double *res = malloc(sizeof(double) * n), *res0 = malloc(sizeof(double) * n);
    memcpy(params, a0->params, sizeof(double) * L->nparams);
    double ra = hdg_lserk4_a[2], rb = hdg_lserk4_b[2], dt = 0.0123;
    params[L->p_rka] = ra, params[L->p_rkb] = rb, params[L->p_dt] = dt;
    for (size_t i = 0; i < n; i++) res[i] = res0[i] = urand();
    hdg_kargs a = *a0;
    a.params = params;
    a.out[0] = Un;
    a.out[1] = res;
    hdg_launch(fstep, m->ne, &a);
    double du = 0, dr = 0;
    for (size_t i = 0; i < n; i++) {
        double r = ra * res0[i] + dt * r1[i];
        dr = fmax(dr, fabs(res[i] - r));
        du = fmax(du, fabs(Un[i] - (U[i] + rb * r)));
    }
    CHECK(dr <= 1e-14 && du <= 1e-14, "fused stage differs from rhs + update: res %.3g, U %.3g", dr, du);
    free(params); free(Un); free(res); free(res0);
}

/* In the element order of hdg_dg_order_elements (a permutation, neighbours
 * renumbered) the rhs kernel gives the same rows, moved: rhs'[pos[e]] = rhs[e]
 * exactly (the same arithmetic per element). */
static void check_order(const hdg_dg_lowered *L, const hdg_mesh *m, hdg_kernel_fn frhs, const hdg_kargs *a0,
                        const double *U, const double *r1, int width)
{
    int ne = m->ne;
    double *geom = malloc(sizeof(double) * ne * L->ngeom), *U2 = malloc(sizeof(double) * ne * width);
    double *r2 = malloc(sizeof(double) * ne * width);
    int *fmap = malloc(sizeof(int) * ne * L->nimap), *pos = malloc(sizeof(int) * ne), *seen = calloc(ne, sizeof(int));
    memcpy(geom, a0->geom, sizeof(double) * ne * L->ngeom);
    memcpy(fmap, a0->imap[0], sizeof(int) * ne * L->nimap);
    hdg_dg_order_elements(L, m, geom, fmap, pos);
    int perm = 1, moved = 0;
    for (int e = 0; e < ne; e++) {
        if (pos[e] < 0 || pos[e] >= ne || seen[pos[e]]++) perm = 0;
        else memcpy(U2 + (size_t)pos[e] * width, U + (size_t)e * width, sizeof(double) * width);
        moved += pos[e] != e;
    }
    CHECK(perm && (ne < 16 || moved > 0), "element order is not a permutation (or moves nothing: %d)", moved);
    if (perm) {
        hdg_kargs a = *a0;
        a.geom = geom, a.imap[0] = fmap, a.in[0] = U2, a.out[0] = r2;
        hdg_launch(frhs, ne, &a);
        double d = 0;
        for (int e = 0; e < ne; e++)
            for (int i = 0; i < width; i++) d = fmax(d, fabs(r2[(size_t)pos[e] * width + i] - r1[(size_t)e * width + i]));
        CHECK(d == 0, "rhs in Morton element order differs by %.3g", d);
    }
    free(geom); free(U2); free(r2); free(fmap); free(pos); free(seen);
}

/* The energy kernel equals 1/2 sum_e J_e sum_f u^T M u computed plainly. */
static void check_energy(const hdg_compiled *comp, const hdg_dg_lowered *L, const hdg_refel *re, const hdg_geom *g,
                         const hdg_kargs *a0, const double *U, int ne)
{
    hdg_kernel_fn fen = hdg_compiled_find(comp, L->energy, NULL);
    CHECK(fen != NULL, "kernel %s", L->energy);
    if (!fen) return;
    double *E = malloc(sizeof(double) * ne), sum = 0, ref = 0;
    hdg_kargs a = *a0;
    a.out[0] = E;
    hdg_launch(fen, ne, &a);
    int Np = re->Np, F = L->nfields;
    for (int e = 0; e < ne; e++) {
        sum += E[e];
        for (int f = 0; f < F; f++) {
            const double *u = U + ((size_t)e * F + f) * Np;
            for (int i = 0; i < Np; i++)
                for (int j = 0; j < Np; j++) ref += 0.5 * g->J[e] * u[i] * re->M[i * Np + j] * u[j];
        }
    }
    CHECK(ref > 0 && fabs(sum - ref) <= 1e-13 * ref, "energy kernel %.17g vs %.17g", sum, ref);
    free(E);
}

static void check_rhs(const char *mesh_spec, int order, double alpha)
{
    hdg_problem *p = load("maxwell2d.hdg", order, "alpha", alpha);
    if (!p) return;
    hdg_error err;
    hdg_mesh m = {0};
    hdg_geom g = {0};
    hdg_refel re = {0};
    hdg_dg_lowered L;
    hdg_compiled comp = {0};
    CHECK(hdg_mesh_load(&m, mesh_spec, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_refel_init(&re, 2, order, &err) == HDG_OK, "%s", err.msg);
    hdg_status st = hdg_lower_dg(p, &L, &err);
    CHECK(st == HDG_OK, "lower: %s", err.msg);
    if (st) goto out;
    CHECK(L.nfields == 3 && !strcmp(L.field_name[2], "Ez"), "fields %d", L.nfields);
    CHECK(hdg_compile_c(L.mod, NULL, &comp, &err) == HDG_OK, "compile: %s", err.msg);
    hdg_kernel_fn frhs = hdg_compiled_find(&comp, L.rhs, NULL);
    hdg_kernel_fn fvol = hdg_compiled_find(&comp, L.volume, NULL);
    const hdg_kernel_info *isurf = NULL;
    hdg_kernel_fn fsurf = hdg_compiled_find(&comp, L.surface, &isurf);
    CHECK(frhs && fvol && fsurf, "kernels %s %s %s", L.rhs, L.volume, L.surface);
    if (!frhs || !fvol || !fsurf) goto out;
    CHECK(isurf->out[0].flags & HDG_KSLOT_READS, "surface kernel accumulates into rhs");
    CHECK(isurf->in[0].flags & HDG_KSLOT_GATHER, "surface kernel gathers neighbour values");
    size_t n = (size_t)m.ne * 3 * re.Np;
    double *geom = malloc(sizeof(double) * m.ne * L.ngeom);
    int *fmap = malloc(sizeof(int) * m.ne * L.nimap);
    double *U = malloc(sizeof(double) * n), *r1 = calloc(n, sizeof(double));
    double *r2 = calloc(n, sizeof(double)), *ref = calloc(n, sizeof(double));
    double *params = calloc((size_t)L.nparams, sizeof(double));
    for (int i = 0; i < p->nparams; i++) params[i] = p->params[i].value;
    CHECK(hdg_dg_fill_maps(&L, p, &m, &g, geom, fmap, &err) == HDG_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++) U[i] = urand();
    hdg_kargs a = { .nitems = m.ne, .geom = geom, .params = params, .t = 0.25, .in = { U }, .imap = { fmap } };
    a.out[0] = r1;
    hdg_launch(frhs, m.ne, &a);
    a.out[0] = r2;
    hdg_launch(fvol, m.ne, &a);
    hdg_launch(fsurf, m.ne, &a);
    hw_maxwell_rhs(&re, &m, &g, alpha, U, ref);
    double scale = 0, d1 = 0, d2 = 0;
    for (size_t i = 0; i < n; i++) {
        scale = fmax(scale, fabs(ref[i]));
        d1 = fmax(d1, fabs(r1[i] - ref[i]));
        d2 = fmax(d2, fabs(r2[i] - ref[i]));
    }
    CHECK(scale > 1, "reference rhs is not trivial (%g)", scale);
    CHECK(d1 <= 1e-13 * scale, "%s N=%d alpha=%g: fused rhs differs from H&W by %.3g (scale %.3g)", mesh_spec,
          order, alpha, d1, scale);
    CHECK(d2 <= 1e-13 * scale, "%s N=%d alpha=%g: volume+surface differ from H&W by %.3g (scale %.3g)", mesh_spec,
          order, alpha, d2, scale);
    check_step(&comp, &L, &a, &m, U, r1, n);
    check_order(&L, &m, frhs, &a, U, r1, 3 * re.Np);
    check_energy(&comp, &L, &re, &g, &a, U, m.ne);
    free(geom); free(fmap); free(U); free(r1); free(r2); free(ref); free(params);
out:
    hdg_compiled_free(&comp);
    hdg_dg_lowered_free(&L);
    hdg_refel_free(&re);
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
    hdg_problem_free(p);
}

/* Weak form (derivatives on the test function, lifted by Sr = M^-1 Dr^T M)
 * and strong form of upwind advection give the same right-hand side: with
 * exact integration, -(a.grad u, v) + <(an - |an|)/2 jump(u), v> equals
 * (u, a.grad v) - <F*, v>, F* = (an + |an|)/2 u + (an - |an|)/2 ext(u). */
static const char *advection_src(int weak)
{
    static char src[2048];
    snprintf(src, sizeof src,
             "problem adv%s\nmesh triangle\ndegree N = 3\nparam ax = 0.8\nparam ay = -0.45\n"
             "func g(x, y, t) = sin(x - t) * cos(2*y)\nspace V = L2(P N)\nunknown u : V\n%s\n"
             "boundary inflow on all: ext(u) = g(x, y, t)\ntime lserk4, final = 1, cfl = 0.5\n",
             weak ? "weak" : "strong",
             weak ? "equation (dt(u), v) - (ax*u, dx(v)) - (ay*u, dy(v)) = -<((ax*nx + ay*ny) + abs(ax*nx + "
                    "ay*ny))/2*u + ((ax*nx + ay*ny) - abs(ax*nx + ay*ny))/2*ext(u), v> for v : V"
                  : "equation (dt(u), v) + (ax*dx(u) + ay*dy(u), v) = <(ax*nx + ay*ny - abs(ax*nx + ay*ny))/2 * "
                    "jump(u), v> for v : V");
    return src;
}

static void test_weak_strong(void)
{
    hdg_error err;
    hdg_mesh m = {0};
    hdg_geom g = {0};
    CHECK(hdg_mesh_load(&m, "square:3,perturb=0.2", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "%s", err.msg);
    double *out[2] = {0}, *U = NULL;
    size_t n = 0;
    for (int weak = 0; weak < 2; weak++) {
        const char *src = advection_src(weak);
        hdg_diags d;
        hdg_diags_init(&d);
        hdg_problem *p = hdg_problem_parse("adv.hdg", src, strlen(src), NULL, &d);
        if (!p) {
            char *t = hdg_diags_render(&d);
            CHECK(0, "advection (%s form) rejected: %s", weak ? "weak" : "strong", t);
            free(t);
        }
        hdg_diags_free(&d);
        if (!p) break;
        hdg_dg_lowered L;
        hdg_compiled comp = {0};
        CHECK(hdg_lower_dg(p, &L, &err) == HDG_OK, "lower: %s", err.msg);
        CHECK(hdg_compile_c(L.mod, NULL, &comp, &err) == HDG_OK, "compile: %s", err.msg);
        hdg_kernel_fn frhs = hdg_compiled_find(&comp, L.rhs, NULL);
        CHECK(frhs != NULL, "kernel %s", L.rhs);
        n = (size_t)m.ne * L.Np;
        if (!U) {
            U = malloc(sizeof(double) * n);
            for (size_t i = 0; i < n; i++) U[i] = urand();
        }
        double *geom = malloc(sizeof(double) * m.ne * L.ngeom), *params = calloc((size_t)L.nparams, sizeof(double));
        int *fmap = malloc(sizeof(int) * m.ne * L.nimap);
        for (int i = 0; i < p->nparams; i++) params[i] = p->params[i].value;
        CHECK(hdg_dg_fill_maps(&L, p, &m, &g, geom, fmap, &err) == HDG_OK, "%s", err.msg);
        out[weak] = calloc(n, sizeof(double));
        hdg_kargs a = { .nitems = m.ne, .geom = geom, .params = params, .t = 0.3, .in = { U }, .imap = { fmap } };
        a.out[0] = out[weak];
        if (frhs) hdg_launch(frhs, m.ne, &a);
        free(geom); free(params); free(fmap);
        hdg_compiled_free(&comp);
        hdg_dg_lowered_free(&L);
        hdg_problem_free(p);
    }
    if (out[0] && out[1]) {
        double scale = 0, d = 0;
        for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(out[0][i])), d = fmax(d, fabs(out[0][i] - out[1][i]));
        CHECK(scale > 1 && d <= 1e-12 * scale, "weak and strong advection differ by %.3g (scale %.3g)", d, scale);
    }
    free(out[0]); free(out[1]); free(U);
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
}

/* ------------------------------------------------------------- 2. LSERK4 */

static void ode(double t, const double *q, double *dq, void *ctx)
{
    (void)ctx;
    dq[0] = -q[0] + cos(t);
}

static void test_lserk4(void)
{
    double err[2];
    for (int k = 0; k < 2; k++) {
        int n = 10 << k;
        double q = 1, res, dq;
        hdg_lserk4_integrate(1, &q, &res, &dq, 0, 2.0 / n, n, ode, NULL);
        /* y = (cos t + sin t)/2 + e^-t / 2 */
        err[k] = fabs(q - ((cos(2.0) + sin(2.0)) / 2 + exp(-2.0) / 2));
    }
    double rate = log2(err[0] / err[1]);
    CHECK(rate > 3.8 && rate < 4.3, "LSERK4 order %.3f (errors %g %g)", rate, err[0], err[1]);
    CHECK(hdg_dg_nsteps(1.0, 0.3) == 4 && hdg_dg_nsteps(1.0, 0.25) == 4, "step count");
    /* N = 1: Gauss points +-1/sqrt(3), gap 2/sqrt(3) */
    CHECK_NEAR(hdg_dg_dt(1, 0.3, 0.5), 0.5 * 0.3 * 2 / sqrt(3.0) * 2 / 3, 1e-15, "dt formula");
}

/* y' = (a + ib) y as a real 2-vector */
static void ode_complex(double t, const double *q, double *dq, void *ctx)
{
    (void)t;
    const double *z = ctx;
    dq[0] = z[0] * q[0] - z[1] * q[1];
    dq[1] = z[1] * q[0] + z[0] * q[1];
}

/* |amplification| of one LSERK4 step at z = dt lambda */
static double amplification(double a, double b)
{
    double z[2] = { a, b }, q[2] = { 1, 0 }, res[2], dq[2];
    hdg_lserk4_integrate(2, q, res, dq, 0, 1.0, 1, ode_complex, z);
    return hypot(q[0], q[1]);
}

/* The stability limits that bound a reaction's step (lserk4.h, issue 38.4):
 * inside on the real axis and on the half-disk, and near the true limits. */
static void test_lserk4_region(void)
{
    CHECK(amplification(-hdg_lserk4_real_limit, 0) <= 1, "real limit %g: |P| %.17g", hdg_lserk4_real_limit,
          amplification(-hdg_lserk4_real_limit, 0));
    CHECK(amplification(-4.66, 0) > 1, "the real axis leaves the region before -4.66: |P| %.17g",
          amplification(-4.66, 0));
    double worst = 0, near = 0;
    for (int k = 0; k <= 180; k++) {
        double th = 3.14159265358979323846 * (0.5 + k / 180.0);
        worst = fmax(worst, amplification(hdg_lserk4_disk_radius * cos(th), hdg_lserk4_disk_radius * sin(th)));
        near = fmax(near, amplification(3.18 * cos(th), 3.18 * sin(th)));
    }
    CHECK(worst <= 1 + 1e-15, "half-disk of radius %g: largest |P| %.17g", hdg_lserk4_disk_radius, worst);
    CHECK(near > 1, "the region's boundary comes within 3.18 of 0: largest |P| %.17g", near);
}

/* ------------------------------------------------------- 3-5. whole runs */

typedef struct runres {
    hdg_status st;
    double err[4];
    double e0, e1, maxinc, dt;
    long long steps;
    char msg[2048];
} runres;

static runres run(hdg_problem *p, hdg_mesh *m, double final, double cfl)
{
    runres rr;
    memset(&rr, 0, sizeof rr);
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.use_cache = 1;
    o.final_time = final;
    o.cfl = cfl;
    hdg_report *rep = hdg_report_new();
    hdg_error err;
    hdg_error_clear(&err);
    rr.st = hdg_run_dg(p, m, &o, rep, &err);
    snprintf(rr.msg, sizeof rr.msg, "%s", err.msg);
    int k = 0;
    for (int u = 0; u < p->nunknowns && k < 4; u++) {
        char path[80];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        rr.err[k++] = hdg_report_get_number(rep, path, NULL);
    }
    rr.e0 = hdg_report_get_number(rep, "energy.start", NULL);
    rr.e1 = hdg_report_get_number(rep, "energy.end", NULL);
    rr.maxinc = hdg_report_get_number(rep, "energy.max_rel_increase", NULL);
    rr.dt = hdg_report_get_number(rep, "dt", NULL);
    rr.steps = (long long)hdg_report_get_number(rep, "steps", NULL);
    hdg_report_free(rep);
    return rr;
}

/* Each triangle cut into 4 by its edge midpoints (boundary faces untagged). */
static void refine(const hdg_mesh *c, hdg_mesh *f)
{
    memset(f, 0, sizeof *f);
    int nv = c->nv + c->nf;
    f->nv = nv;
    f->vx = malloc(sizeof(double) * nv);
    f->vy = malloc(sizeof(double) * nv);
    memcpy(f->vx, c->vx, sizeof(double) * c->nv);
    memcpy(f->vy, c->vy, sizeof(double) * c->nv);
    for (int k = 0; k < c->nf; k++) {
        f->vx[c->nv + k] = 0.5 * (c->vx[c->fv[2 * k]] + c->vx[c->fv[2 * k + 1]]);
        f->vy[c->nv + k] = 0.5 * (c->vy[c->fv[2 * k]] + c->vy[c->fv[2 * k + 1]]);
    }
    f->ne = 4 * c->ne;
    f->ev = malloc(sizeof(int) * 3 * f->ne);
    for (int e = 0; e < c->ne; e++) {
        int v0 = c->ev[3 * e], v1 = c->ev[3 * e + 1], v2 = c->ev[3 * e + 2];
        int m0 = c->nv + c->ef[3 * e], m1 = c->nv + c->ef[3 * e + 1], m2 = c->nv + c->ef[3 * e + 2];
        int t[4][3] = { { v0, m0, m2 }, { m0, v1, m1 }, { m2, m1, v2 }, { m0, m1, m2 } };
        memcpy(f->ev + 12 * e, t, sizeof t);
    }
    hdg_error err;
    CHECK(hdg_mesh_build_topology(f, &err) == HDG_OK, "refined mesh: %s", err.msg);
}

static void rates(const char *file, const char *what, hdg_mesh *coarse, hdg_mesh *fine, int field, double final,
                  double slack)
{
    for (int N = 2; N <= 5; N++) {
        hdg_problem *p = load(file, N, NULL, 0);
        if (!p) return;
        runres a = run(p, coarse, final, 0), b = run(p, fine, final, 0);
        CHECK(a.st == HDG_OK && b.st == HDG_OK, "%s: %s %s", file, a.msg, b.msg);
        double rate = log2(a.err[field] / b.err[field]);
        CHECK(rate >= N + 1 - slack, "%s on %s, N = %d: rate %.3f < %.2f (errors %.3e %.3e)", file, what, N, rate,
              N + 1 - slack, a.err[field], b.err[field]);
        CHECK(b.maxinc <= 1e-12 || strcmp(file, "maxwell2d.hdg"), "upwind energy increased by %.3g", b.maxinc);
        hdg_problem_free(p);
    }
}

static void test_rates(void)
{
    hdg_mesh m4 = {0}, m8 = {0}, p4 = {0}, p8 = {0}, g = {0}, gf = {0};
    hdg_error err;
    CHECK(hdg_mesh_square(&m4, 4, 0, 0, 1, 0, 1, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_mesh_square(&m8, 8, 0, 0, 1, 0, 1, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_mesh_load(&p4, "square:4,perturb=0.2", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_mesh_load(&p8, "square:8,perturb=0.2", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_mesh_read_gmsh(&g, HDG_TEST_DATA "/maxwell05_v22.msh", &err) == HDG_OK, "%s", err.msg);
    refine(&g, &gf);
    /* Ez is field index 2 (errors in declaration order Hx, Hy, Ez) */
    rates("maxwell2d.hdg", "square", &m4, &m8, 2, 0.5, 0.6);
    rates("maxwell2d.hdg", "perturbed square", &p4, &p8, 2, 0.5, 0.6);
    rates("maxwell2d.hdg", "gmsh maxwell05 on [-1,1]^2", &g, &gf, 2, 0.5, 0.6);
    rates("acoustics2d.hdg", "square", &m4, &m8, 0, 0.5, 0.5);          /* p */
    rates("acoustics2d.hdg", "square", &m4, &m8, 1, 0.5, 0.5);          /* u */
    rates("advection2d.hdg", "perturbed square", &p4, &p8, 0, 0.5, 0.5);
    hdg_mesh_free(&m4); hdg_mesh_free(&m8); hdg_mesh_free(&p4); hdg_mesh_free(&p8);
    hdg_mesh_free(&g); hdg_mesh_free(&gf);
}

static void test_energy(void)
{
    hdg_mesh m = {0}, big = {0};
    hdg_error err;
    CHECK(hdg_mesh_load(&m, "square:4,perturb=0.2", &err) == HDG_OK, "%s", err.msg);
    hdg_problem *p = load("maxwell2d.hdg", 3, "alpha", 0);
    if (p) {
        /* central flux: the semi-discrete energy is exact; LSERK4 loses
         * O((omega dt)^4) relatively per unit time. Bound tested: 5e-7 at
         * cfl 0.75, and the drift falls by > 12x when the cfl halves. */
        runres a = run(p, &m, 1.0, 0.75), b = run(p, &m, 1.0, 0.375);
        double da = fabs(a.e1 - a.e0) / a.e0, db = fabs(b.e1 - b.e0) / b.e0;
        CHECK(a.st == HDG_OK && b.st == HDG_OK, "%s %s", a.msg, b.msg);
        CHECK(da < 5e-7, "central flux energy drift %.3g", da);
        CHECK(db < da / 12, "energy drift does not fall like dt^4: %.3g -> %.3g", da, db);
        hdg_problem_free(p);
    }
    p = load("maxwell2d.hdg", 3, NULL, 0);
    if (p) {
        runres a = run(p, &m, 1.0, 0);
        CHECK(a.maxinc <= 1e-13 && a.e1 < a.e0, "upwind energy increased (max step %.3g, %.17g -> %.17g)", a.maxinc,
              a.e0, a.e1);
        /* 1000 steps on a finer mesh */
        CHECK(hdg_mesh_square(&big, 16, 0, 0, 1, 0, 1, &err) == HDG_OK, "%s", err.msg);
        hdg_geom g;
        CHECK(hdg_geom_init(&g, &big, &err) == HDG_OK, "%s", err.msg);
        double rmin = 1e300;
        for (int e = 0; e < big.ne; e++) rmin = fmin(rmin, g.rin[e]);
        hdg_geom_free(&g);
        double dt = hdg_dg_dt(3, rmin, 0.75);
        runres b = run(p, &big, 999.5 * dt, 0.75);
        CHECK(b.steps == 1000, "steps %lld", b.steps);
        CHECK(b.st == HDG_OK && b.maxinc <= 1e-13 && b.e1 <= b.e0, "1000 steps: %s, energy %.17g -> %.17g (max step %.3g)",
              b.msg, b.e0, b.e1, b.maxinc);
        /* blow-up: a cfl far beyond stability */
        runres c = run(p, &m, 2.0, 20);
        CHECK(c.st == HDG_ESOLVER && strstr(c.msg, "unstable: the energy grew from") && strstr(c.msg, "at step") &&
              strstr(c.msg, "(t = "), "blow-up: %d %s", c.st, c.msg);
        hdg_problem_free(p);
    }
    hdg_mesh_free(&m);
    hdg_mesh_free(&big);
}

/* ------------------------------------------------- rejected forms */

static void expect_reject(const char *eqs, const char *msg)
{
    char src[2048];
    snprintf(src, sizeof src,
             "problem bad\nmesh triangle\ndegree N = 2\nspace V = L2(P N)\nunknown a : V, b : V\n%s\n"
             "boundary wall on all: ext(a) = a, ext(b) = b\ntime lserk4, final = 1, cfl = 1\n", eqs);
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_parse("bad.hdg", src, strlen(src), NULL, &d);
    if (!p) {
        char *t = hdg_diags_render(&d);
        CHECK(strstr(t, msg) != NULL, "frontend rejected it differently: %s", t);
        free(t);
    } else {
        hdg_dg_lowered L;
        hdg_error err;
        CHECK(hdg_lower_dg(p, &L, &err) == HDG_EINPUT, "accepted: %s", eqs);
        CHECK(strstr(err.msg, msg) && strstr(err.msg, "bad.hdg:"), "message '%s' lacks '%s'", err.msg, msg);
        hdg_problem_free(p);
    }
    hdg_diags_free(&d);
}

static void test_reject(void)
{
    expect_reject("equation (dt(a) + dt(b), v) = 0 for v : V\nequation (dt(b), w) = 0 for w : V",
                  "dt() of two unknowns");   /* the frontend's own check */
    expect_reject("equation (dt(a), v) + (dx(b), dx(v)) = 0 for v : V\nequation (dt(b), w) = 0 for w : V",
                  "second order");
    expect_reject("equation (dt(a), v) = <dx(b), v> for v : V\nequation (dt(b), w) = 0 for w : V",
                  "derivatives inside a face term");
    expect_reject("equation (dt(a), v) = <jump(b), v> for v : V\nequation (dt(b), w) = 0 for w : V\n"
                  "boundary other on all: ext(a) = a",
                  "'other'");
}

int main(void)
{
    test_lserk4();
    test_lserk4_region();
    test_reject();
    check_rhs("square:3,perturb=0.2", 3, 1);
    check_rhs("square:3,perturb=0.2", 4, 0);
    check_rhs(HDG_TEST_DATA "/maxwell05_v22.msh", 5, 1);
    check_rhs("square:2", 1, 1);
    check_rhs("square:2", 8, 1);
    test_weak_strong();
    test_energy();
    test_rates();
    return test_summary("dg");
}
