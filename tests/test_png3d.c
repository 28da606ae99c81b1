/* test_png3d.c — pictures of fields on tetrahedra (runtime/output/png3d.c) on
 * the unit cube cut into N^3 cubes of 6 tetrahedra each, decoded with libpng:
 *  - slice x = 0.37 (no mesh vertex on it): the section's triangles cover the
 *    unit square exactly once (total area 1, all in it); the picture of
 *    f = y + 2z has, at 49 points of the square, the colour of the colour
 *    map's level for f there within 2 levels (the sub-triangles are small);
 *  - slice z = 0.5 (a plane of mesh faces) of f = x + 2y: the same check;
 *  - a plane outside the mesh is refused, naming the coordinate's range;
 *  - the surface view (azimuth 30, elevation 25) of a field constant on each
 *    side of the cube (1 on x = 1, 2 on y = 0, 3 on z = 1, 4, 5, 6 on the
 *    hidden sides x = 0, y = 1, z = 0): the centre of the front, right and
 *    top sides has exactly their colour, the range is 1..3 (the hidden sides
 *    are not drawn), a pixel beside the cube is white, and only visible,
 *    boundary faces are drawn: 2 N^2 triangles a side, 6 N^2 in all;
 *  - the drivers' path (drivers/run_png.c hdg_png_draw) on a tetrahedral
 *    hdg_mesh with a modal field (the PKD coefficients of f = x + 2y at
 *    degree 2, from the reference element's Vinv): --slice z=0.37 gives the
 *    colours of f within the levels its sub-triangles allow (m = 6: 11; an
 *    axis swapped or mirrored is off by up to 76), the report's output.png_view and caption
 *    say the plane; without --slice the surface (6 N^2 triangles, no ticks);
 *    --slice on a 2D mesh is refused; the DG state's sampler
 *    (hdg_png_sample_nodal: nodal values interpolated) gives f exactly;
 *  - a perturbed cube:3 (runtime/mesh hdg_mesh_cube, perturb 0.1: interior
 *    vertices moved, sides flat): slices x = 0.5, y = 0.31, z = 0.77 each
 *    cover the unit square once (area 1), and the surface shows 3 sides of
 *    2 N^2 of its 12 N^2 boundary faces;
 *  - --edges on the surface view of the cube and a copy moved toward the
 *    viewer in front of part of it: inside the copy's faces no edge of the
 *    faces behind shows (edges drawn with each face, far to near). */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run.h"
#include "drivers/run_png.h"
#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh.h"
#include "runtime/output/png.h"
#include "runtime/output/png3d.h"
#include "runtime/output/report.h"
#include "support/util.h"
#include "test.h"

#define N 4
#define NE (6 * N * N * N)

static double VXYZ[NE * 12];

static double volume6(const double *v)
{
    double a[3], b[3], c[3];
    for (int d = 0; d < 3; d++) a[d] = v[3 + d] - v[d], b[d] = v[6 + d] - v[d], c[d] = v[9 + d] - v[d];
    return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* cube (i,j,k): the 6 tetrahedra (c, c + e_a, c + e_a + e_b, c + (1,1,1)) / N */
static void build_cube(void)
{
    static const int PERM[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int e = 0;
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                for (int q = 0; q < 6; q++, e++) {
                    int u[3] = {i, j, k};
                    double *v = VXYZ + 12 * e;
                    for (int d = 0; d < 3; d++) v[d] = (double)u[d] / N;
                    for (int s = 0; s < 3; s++) {
                        u[PERM[q][s]]++;
                        for (int d = 0; d < 3; d++) v[3 * (s + 1) + d] = (double)u[d] / N;
                    }
                    if (volume6(v) < 0)
                        for (int d = 0; d < 3; d++) {
                            double t = v[6 + d];
                            v[6 + d] = v[9 + d], v[9 + d] = t;
                        }
                }
}

/* ---- fields, sampled at reference coordinates ----------------------------- */

typedef double (*field_fn)(const double *x);

static const double *SAMPLE_V = VXYZ;   /* the tetrahedra the sampler maps through */

static void sampler(void *ctx, int e, int n, const double *const *x, double *vals)
{
    field_fn f = (field_fn)ctx;
    const double *v = SAMPLE_V + 12 * e;
    for (int q = 0; q < n; q++) {
        double l[4] = {0, (1 + x[0][q]) / 2, (1 + x[1][q]) / 2, (1 + x[2][q]) / 2}, p[3];
        l[0] = 1 - l[1] - l[2] - l[3];
        for (int d = 0; d < 3; d++) p[d] = l[0] * v[d] + l[1] * v[3 + d] + l[2] * v[6 + d] + l[3] * v[9 + d];
        vals[q] = f(p);
    }
}

static double f_yz(const double *x) { return x[1] + 2 * x[2]; }
static double f_xy(const double *x) { return x[0] + 2 * x[1]; }

static double f_sides(const double *x)
{
    const double t = 1e-12;
    if (fabs(x[0] - 1) < t) return 1;
    if (fabs(x[1]) < t) return 2;
    if (fabs(x[2] - 1) < t) return 3;
    if (fabs(x[0]) < t) return 4;
    if (fabs(x[1] - 1) < t) return 5;
    if (fabs(x[2]) < t) return 6;
    return 0;
}

/* ---- pictures -------------------------------------------------------------- */

typedef struct picture {
    unsigned char *rgb;
    int w, h;
} picture;

static picture decode(const char *path)
{
    picture pic = {0};
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) return pic;
    im.format = PNG_FORMAT_RGB;
    pic.rgb = malloc(PNG_IMAGE_SIZE(im));
    if (!png_image_finish_read(&im, NULL, pic.rgb, 0, NULL)) {
        free(pic.rgb);
        pic.rgb = NULL;
        return pic;
    }
    pic.w = (int)im.width, pic.h = (int)im.height;
    return pic;
}

static const unsigned char *pixel_at(const picture *p, const hdg_png_layout *L, double x, double y)
{
    long px = (long)floor(L->ox + L->scale * x), py = (long)floor(L->oy - L->scale * y);
    if (px < 0 || py < 0 || px >= p->w || py >= p->h) return NULL;
    return p->rgb + 3 * (py * p->w + px);
}

/* The colour map's level (0..255) nearest to the colour c. */
static int level_of(const unsigned char *c)
{
    int best = -1, bd = 1 << 30;
    for (int l = 0; l < 256; l++) {
        unsigned char m[3];
        hdg_png_colour(l / 255.0, 0, 1, m);
        int d = 0;
        for (int k = 0; k < 3; k++) d += (c[k] - m[k]) * (c[k] - m[k]);
        if (d < bd) bd = d, best = l;
    }
    return best;
}

static double flat_area(const hdg_png_flat *f, double *lo, double *hi)
{
    double A = 0;
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
    for (int t = 0; t < f->ne; t++) {
        const double *v = f->vxy + 6 * t;
        A += 0.5 * fabs((v[2] - v[0]) * (v[5] - v[1]) - (v[4] - v[0]) * (v[3] - v[1]));
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 2; d++) lo[d] = fmin(lo[d], v[2 * k + d]), hi[d] = fmax(hi[d], v[2 * k + d]);
    }
    return A;
}

/* A slice's picture: at 7 x 7 points of the unit square, the level of f. */
static void check_slice(const char *path, int axis, double at, field_fn f, double want_area)
{
    hdg_png_tets T = {.ne = NE, .vxyz = VXYZ, .sample = sampler, .ctx = (void *)f};
    hdg_png_flat F;
    hdg_error err = {0};
    int m = 24;
    CHECK(hdg_png_slice(&T, axis, at, m, &F, &err) == HDG_OK, "%s: %s", path, err.msg);
    if (!F.ne) return;
    double lo[2], hi[2], A = flat_area(&F, lo, hi);
    CHECK_NEAR(A, want_area, 1e-12, "the section's area");
    CHECK(lo[0] > -1e-15 && lo[1] > -1e-15 && hi[0] < 1 + 1e-15 && hi[1] < 1 + 1e-15, "%s: section outside the square",
          path);
    hdg_png_plot pl = {.width = 700, .height = 600, .ne = F.ne, .vxy = F.vxy, .m = F.m, .vals = F.vals, .vmin = 0,
                       .vmax = 3, .field = "f", .caption = path};
    hdg_png_layout L;
    CHECK(hdg_png_write(path, &pl, &L, &err) == HDG_OK, "%s: %s", path, err.msg);
    picture pic = decode(path);
    CHECK(pic.rgb && pic.w == 700 && pic.h == 600, "%s: decoded %dx%d", path, pic.w, pic.h);
    int worst = 0;
    for (int a = 0; a < 7 && pic.rgb; a++)
        for (int b = 0; b < 7; b++) {
            double u = 0.06 + 0.147 * a, w = 0.06 + 0.147 * b, p[3];
            long px = (long)floor(L.ox + L.scale * u), py = (long)floor(L.oy - L.scale * w);
            const unsigned char *c = pic.rgb + 3 * (py * pic.w + px);
            p[axis] = at;   /* the pixel's centre as a point of space */
            p[axis == 0 ? 1 : 0] = (px + 0.5 - L.ox) / L.scale;
            p[axis == 2 ? 1 : 2] = (L.oy - py - 0.5) / L.scale;
            int want = (int)floor(f(p) / 3 * 255 + 0.5), got = level_of(c);
            if (abs(got - want) > worst) worst = abs(got - want);
            CHECK(abs(got - want) <= 2, "%s: at (%g, %g) level %d, want %d", path, u, w, got, want);
        }
    printf("%s: %d triangles, area %.15g, worst level difference %d\n", path, F.ne, A, worst);
    free(pic.rgb);
    hdg_png_flat_free(&F);
}

static void check_surface(void)
{
    hdg_png_tets T = {.ne = NE, .vxyz = VXYZ, .sample = sampler, .ctx = (void *)f_sides};
    hdg_png_flat F;
    hdg_error err = {0};
    CHECK(hdg_png_surface(&T, HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, 2, &F, &err) == HDG_OK, "surface: %s", err.msg);
    CHECK(F.ne == 6 * N * N, "surface: %d triangles drawn, want %d (3 sides of 2 N^2)", F.ne, 6 * N * N);
    hdg_png_plot pl = {.width = 600, .height = 600, .ne = F.ne, .vxy = F.vxy, .m = F.m, .vals = F.vals, .vmin = 1,
                       .vmax = 0, .field = "side", .caption = "surface", .noaxes = 1};
    hdg_png_layout L;
    CHECK(hdg_png_write("png3d_surface.png", &pl, &L, &err) == HDG_OK, "surface: %s", err.msg);
    CHECK(L.vmin == 1 && L.vmax == 3, "surface: range %g..%g, want 1..3 (hidden sides drawn?)", L.vmin, L.vmax);
    CHECK(L.nxt == 0 && L.nyt == 0, "surface: no axis ticks (%d, %d)", L.nxt, L.nyt);
    picture pic = decode("png3d_surface.png");
    CHECK(pic.rgb != NULL, "surface: not decoded");
    const double centre[3][3] = {{1, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 1}};   /* right, front, top */
    for (int s = 0; s < 3 && pic.rgb; s++) {
        double r, u, depth;
        hdg_png_view_point(HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, centre[s], &r, &u, &depth);
        const unsigned char *c = pixel_at(&pic, &L, r, u);
        unsigned char want[3];
        hdg_png_colour(s + 1, 1, 3, want);
        CHECK(c && !memcmp(c, want, 3), "surface: side %d's centre has colour (%d,%d,%d), want (%d,%d,%d)", s + 1,
              c ? c[0] : -1, c ? c[1] : -1, c ? c[2] : -1, want[0], want[1], want[2]);
    }
    double far[3] = {1.3, 0.5, 0.5}, r, u, depth;   /* beside the right side */
    hdg_png_view_point(HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, far, &r, &u, &depth);
    const unsigned char *c = pic.rgb ? pixel_at(&pic, &L, r, u) : NULL;
    CHECK(c && c[0] == 255 && c[1] == 255 && c[2] == 255, "surface: beside the cube not white");
    free(pic.rgb);
    hdg_png_flat_free(&F);
}

static void check_errors(void)
{
    hdg_png_tets T = {.ne = NE, .vxyz = VXYZ, .sample = sampler, .ctx = (void *)f_xy};
    hdg_png_flat F;
    hdg_error err = {0};
    CHECK(hdg_png_slice(&T, 2, 5, 4, &F, &err) == HDG_EINPUT &&
              strstr(err.msg, "the plane z = 5 does not cut the mesh (z from 0 to 1)"),
          "slice outside: %s", err.msg);
    CHECK(F.ne == 0 && !F.vxy, "a refused slice leaves nothing");
    CHECK(hdg_png_slice(&T, 3, 0.5, 4, &F, &err) == HDG_EINPUT, "axis 3: %s", err.msg);
    CHECK(hdg_png_slice(&T, 0, 0.5, 0, &F, &err) == HDG_EINPUT, "m = 0: %s", err.msg);
}

/* ---- the drivers' path: a modal field on an hdg_mesh ---------------------- */

static void check_driver(void)
{
    hdg_mesh mesh = {.dim = 3, .ne = NE, .nv = 4 * NE};
    mesh.vx = hdg_xmalloc(sizeof(double) * 4 * NE), mesh.vy = hdg_xmalloc(sizeof(double) * 4 * NE);
    mesh.vz = hdg_xmalloc(sizeof(double) * 4 * NE), mesh.ev = hdg_xmalloc(sizeof(int) * 4 * NE);
    for (int k = 0; k < 4 * NE; k++)
        mesh.vx[k] = VXYZ[3 * k], mesh.vy[k] = VXYZ[3 * k + 1], mesh.vz[k] = VXYZ[3 * k + 2], mesh.ev[k] = k;
    hdg_refel re;
    hdg_error err = {0};
    CHECK(hdg_refel_init(&re, 3, 2, &err) == HDG_OK, "refel: %s", err.msg);
    double *coef = hdg_xmalloc(sizeof(double) * (size_t)NE * re.Np), nodal[10];
    for (int e = 0; e < NE; e++) {   /* f = x + 2y at the nodes, then the modes: Vinv f */
        const double *v = VXYZ + 12 * e;
        for (int i = 0; i < re.Np; i++) {
            double l[4] = {0, (1 + re.r[i]) / 2, (1 + re.s[i]) / 2, (1 + re.t[i]) / 2}, p[3];
            l[0] = 1 - l[1] - l[2] - l[3];
            for (int d = 0; d < 3; d++) p[d] = l[0] * v[d] + l[1] * v[3 + d] + l[2] * v[6 + d] + l[3] * v[9 + d];
            nodal[i] = f_xy(p);
        }
        for (int j = 0; j < re.Np; j++) {
            double c = 0;
            for (int i = 0; i < re.Np; i++) c += re.Vinv[j * re.Np + i] * nodal[i];
            coef[(size_t)e * re.Np + j] = c;
        }
    }
    hdg_png_field f = {.deg = 2, .n = re.Np, .stride = re.Np, .base = 0, .x = coef, .name = "u"};
    {   /* the DG state's sampler: the nodal values interpolated, exact for f */
        double *nod = hdg_xmalloc(sizeof(double) * (size_t)NE * re.Np);
        for (int e = 0; e < NE; e++)
            for (int i = 0; i < re.Np; i++) {
                double c = 0;
                for (int j = 0; j < re.Np; j++) c += re.V[i * re.Np + j] * coef[(size_t)e * re.Np + j];
                nod[(size_t)e * re.Np + i] = c;
            }
        hdg_png_nodal nc = {&re, nod, re.Np, NULL, 0};
        hdg_png_tets Tn = {.ne = NE, .vxyz = VXYZ, .sample = hdg_png_sample_nodal, .ctx = &nc};
        hdg_png_tets Tx = {.ne = NE, .vxyz = VXYZ, .sample = sampler, .ctx = (void *)f_xy};
        hdg_png_flat Fn, Fx;
        CHECK(hdg_png_slice(&Tn, 1, 0.43, 5, &Fn, &err) == HDG_OK && hdg_png_slice(&Tx, 1, 0.43, 5, &Fx, &err) == HDG_OK,
              "nodal slice: %s", err.msg);
        double worst = Fn.ne == Fx.ne && Fn.ne > 0 ? 0 : INFINITY;
        for (long long k = 0; k < (long long)Fn.ne * 25 && Fn.ne == Fx.ne; k++) worst = fmax(worst, fabs(Fn.vals[k] - Fx.vals[k]));
        CHECK(worst < 1e-12, "the nodal sampler differs from f by %g", worst);
        hdg_png_flat_free(&Fn), hdg_png_flat_free(&Fx);
        free(nc.I), free(nod);
    }
    hdg_run_options o;
    hdg_run_options_default(&o);
    o.png = "png3d_driver_slice.png", o.png_width = 640, o.png_height = 560, o.png_slice = 3, o.png_slice_at = 0.37;
    hdg_report *rep = hdg_report_new();
    CHECK(hdg_png_draw(&mesh, &f, &o, "poisson3d   u", rep, &err) == HDG_OK, "driver slice: %s", err.msg);
    const char *view = hdg_report_get_string(rep, "output.png_view"), *cap = hdg_report_get_string(rep, "output.png_caption");
    CHECK(view && !strcmp(view, "slice z = 0.37"), "output.png_view %s", view ? view : "(none)");
    CHECK(cap && strstr(cap, "poisson3d   u   slice z = 0.37"), "output.png_caption %s", cap ? cap : "(none)");
    int found;
    hdg_png_layout L = {.scale = hdg_report_get_number(rep, "output.png_scale", &found),
                        .ox = hdg_report_get_number(rep, "output.png_origin_x", &found),
                        .oy = hdg_report_get_number(rep, "output.png_origin_y", &found)};
    double vmin = hdg_report_get_number(rep, "output.png_min", &found), vmax = hdg_report_get_number(rep, "output.png_max", &found);
    CHECK(vmin >= 0 && vmin < 0.05 && vmax > 2.95 && vmax <= 3 + 1e-12, "driver slice: range %g..%g", vmin, vmax);
    /* Each sub-triangle has the colour at its centroid: within (2/3) h / m of
     * any of its points (h the longest edge of a tetrahedron, sqrt(3)/N, the
     * largest a section of it can be; m sub-triangles a side), where
     * |grad f| = sqrt(5) changes f by that much times |grad f|. */
    double m = hdg_report_get_number(rep, "output.png_subdivision", &found);
    int tol = (int)ceil(255 * sqrt(5.0) * (2.0 / 3) * (sqrt(3.0) / N) / m / (vmax - vmin)) + 1;
    CHECK(m >= 2 && tol <= 12, "driver slice: subdivision %g (tolerance %d levels)", m, tol);
    picture pic = decode(o.png);
    int worst = 0;
    for (int a = 0; a < 7 && pic.rgb; a++)
        for (int b = 0; b < 7; b++) {
            double u = 0.06 + 0.147 * a, w = 0.06 + 0.147 * b;
            long px = (long)floor(L.ox + L.scale * u), py = (long)floor(L.oy - L.scale * w);
            double p[3] = {(px + 0.5 - L.ox) / L.scale, (L.oy - py - 0.5) / L.scale, 0.37};
            double t = (f_xy(p) - vmin) / (vmax - vmin);
            int want = (int)floor(t * 255 + 0.5), got = level_of(pic.rgb + 3 * (py * pic.w + px));
            if (abs(got - want) > worst) worst = abs(got - want);
            CHECK(abs(got - want) <= tol, "driver slice: at (%g, %g) level %d, want %d", u, w, got, want);
        }
    printf("driver slice: m = %g, worst level difference %d (at most %d)\n", m, worst, tol);
    free(pic.rgb);
    hdg_report_free(rep);

    rep = hdg_report_new();
    o.png = "png3d_driver_surface.png", o.png_slice = 0;
    CHECK(hdg_png_draw(&mesh, &f, &o, "poisson3d   u", rep, &err) == HDG_OK, "driver surface: %s", err.msg);
    view = hdg_report_get_string(rep, "output.png_view");
    CHECK(view && !strcmp(view, "surface, azimuth 30, elevation 25"), "output.png_view %s", view ? view : "(none)");
    CHECK(hdg_report_get_number(rep, "output.png_triangles", &found) == 6 * N * N &&
              hdg_report_get_number(rep, "output.png_xticks", &found) == 0,
          "driver surface: triangles and ticks");
    hdg_report_free(rep);

    o.png_slice = 1, o.png_slice_at = 0.5;
    CHECK(hdg_png_check_slice(&o, 2, &err) == HDG_EINPUT && strstr(err.msg, "--slice x=0.5: a plane section is drawn "
                                                                          "of a tetrahedral (3D) mesh; this mesh is 2D"),
          "--slice in 2D: %s", err.msg);
    hdg_refel_free(&re);
    free(coef), free(mesh.vx), free(mesh.vy), free(mesh.vz), free(mesh.ev);
}

static double f_one(const double *x) { return x[0] * 0 + 1; }

/* Pixel distance from (x, y) to the segment a-b. */
static double seg_dist(double x, double y, const double *a, const double *b)
{
    double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((x - a[0]) * dx + (y - a[1]) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(x - a[0] - t * dx, y - a[1] - t * dy);
}

/* Occlusion with --edges: the cube's tetrahedra and a copy moved toward the
 * viewer (3 d) and sideways, covering part of it. Inside the copy's drawn
 * triangles, 2 pixels away from their edges, the picture with edges equals
 * the one without: the edges of the faces behind are covered. */
static void check_occluded_edges(void)
{
    double d[3], r[3], u[3];
    for (int k = 0; k < 3; k++) {   /* the view's directions from hdg_png_view_point */
        double e[3] = {k == 0, k == 1, k == 2};
        hdg_png_view_point(HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, e, &r[k], &u[k], &d[k]);
    }
    double *v = hdg_xmalloc(sizeof VXYZ * 2);
    memcpy(v, VXYZ, sizeof VXYZ);
    for (int k = 0; k < 4 * NE; k++)
        for (int c = 0; c < 3; c++) v[12 * NE + 3 * k + c] = VXYZ[3 * k + c] + 3 * d[c] + 0.45 * r[c];
    hdg_png_tets T = {.ne = 2 * NE, .vxyz = v, .sample = sampler, .ctx = (void *)f_xy};
    SAMPLE_V = v;
    hdg_png_flat F;
    hdg_error err = {0};
    CHECK(hdg_png_surface(&T, HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, 2, &F, &err) == HDG_OK, "occlusion: %s", err.msg);
    hdg_png_plot pl = {.width = 500, .height = 500, .ne = F.ne, .vxy = F.vxy, .m = F.m, .vals = F.vals, .vmin = 1,
                       .vmax = 0, .noaxes = 1};
    hdg_png_layout L;
    CHECK(hdg_png_write("png3d_occ.png", &pl, &L, &err) == HDG_OK, "occlusion: %s", err.msg);
    pl.edges = 1;
    CHECK(hdg_png_write("png3d_occ_edges.png", &pl, &L, &err) == HDG_OK, "occlusion: %s", err.msg);
    picture a = decode("png3d_occ.png"), b = decode("png3d_occ_edges.png");
    long inside = 0, differ = 0, edge_px = 0;
    for (long py = 0; a.rgb && b.rgb && py < a.h; py++)
        for (long px = 0; px < a.w; px++) {
            double x = px + 0.5, y = py + 0.5, dmin = INFINITY;
            int in = 0;
            for (int t = 0; t < F.ne; t++) {
                if (F.elem[t] < NE) continue;   /* the copy's triangles only */
                double P[3][2];
                for (int k = 0; k < 3; k++)
                    P[k][0] = L.ox + L.scale * F.vxy[6 * t + 2 * k], P[k][1] = L.oy - L.scale * F.vxy[6 * t + 2 * k + 1];
                double s0 = (P[1][0] - P[0][0]) * (y - P[0][1]) - (P[1][1] - P[0][1]) * (x - P[0][0]);
                double s1 = (P[2][0] - P[1][0]) * (y - P[1][1]) - (P[2][1] - P[1][1]) * (x - P[1][0]);
                double s2 = (P[0][0] - P[2][0]) * (y - P[2][1]) - (P[0][1] - P[2][1]) * (x - P[2][0]);
                in |= (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0);
                for (int k = 0; k < 3; k++) dmin = fmin(dmin, seg_dist(x, y, P[k], P[(k + 1) % 3]));
            }
            long at = 3 * (py * a.w + px);
            int same = !memcmp(a.rgb + at, b.rgb + at, 3);
            if (in && dmin > 2) inside++, differ += !same;
            else edge_px += !same;
        }
    CHECK(inside > 1000 && differ == 0, "occlusion: %ld of %ld pixels inside the front copy show edges behind it",
          differ, inside);
    CHECK(edge_px > 100, "occlusion: --edges drew %ld pixels elsewhere", edge_px);
    SAMPLE_V = VXYZ;
    free(a.rgb), free(b.rgb), free(v);
    hdg_png_flat_free(&F);
}

static void check_cube_mesh(void)
{
    hdg_mesh mesh;
    hdg_error err = {0};
    const double box[6] = {0, 1, 0, 1, 0, 1};
    CHECK(hdg_mesh_cube(&mesh, 3, 0.1, box, &err) == HDG_OK, "cube:3: %s", err.msg);
    double *vxyz = hdg_xmalloc(sizeof(double) * 12 * (size_t)mesh.ne);
    hdg_png_vertices(&mesh, vxyz);
    hdg_png_tets T = {.ne = mesh.ne, .vxyz = vxyz, .sample = sampler, .ctx = (void *)f_one};   /* a constant */
    SAMPLE_V = vxyz;
    const double planes[3] = {0.5, 0.31, 0.77};
    for (int a = 0; a < 3; a++) {
        hdg_png_flat F;
        CHECK(hdg_png_slice(&T, a, planes[a], 1, &F, &err) == HDG_OK, "cube:3 slice %d: %s", a, err.msg);
        double lo[2], hi[2];
        CHECK_NEAR(flat_area(&F, lo, hi), 1.0, 1e-12, "cube:3, perturbed: the section's area");
        hdg_png_flat_free(&F);
    }
    hdg_png_flat F;
    CHECK(hdg_png_surface(&T, HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, 1, &F, &err) == HDG_OK, "cube:3 surface: %s", err.msg);
    CHECK(F.ne == 3 * 2 * 9 && mesh.nbf == 12 * 9, "cube:3 surface: %d of %d boundary faces drawn, want 54 of 108", F.ne,
          mesh.nbf);
    hdg_png_flat_free(&F);
    SAMPLE_V = VXYZ;
    free(vxyz);
    hdg_mesh_free(&mesh);
}

int main(void)
{
    build_cube();
    check_slice("png3d_slice_x.png", 0, 0.37, f_yz, 1.0);
    check_slice("png3d_slice_z.png", 2, 0.5, f_xy, 2.0);   /* faces in the plane: drawn from both sides */
    check_errors();
    check_surface();
    check_driver();
    check_cube_mesh();
    check_occluded_edges();
    return test_summary("png3d");
}
