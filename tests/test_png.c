/* test_png.c — `hdgc run --png` (runtime/output/png.c, drivers/run_png.c): poisson at
 * k = 3 on square:8 drawn at 640x480, decoded with libpng:
 *  - the image has the size asked for;
 *  - at the pixel under the centroid of every sub-triangle of chosen elements
 *    (large enough to hold that pixel), the colour is the colour map's for the
 *    field there, computed here from the run's element dofs (Dubiner basis);
 *  - output.png_min/max equal the min/max of those samples over all elements;
 *  - the colour map is viridis at both ends (dark blue, yellow);
 *  - DG frames (maxwell2d, a pattern, --every 40 of 149 steps): 5 frames
 *    (t = 0, 40, 80, 120 and the end) and no more, all of the size asked for,
 *    the fixed range symmetric and 1.1x the initial max |Ez| (1 at k = 4 on
 *    square:8: 1.1 within 1e-3), no frame clamped;
 *  - --edges darkens the pixels on the elements' edges (the midpoint of
 *    each edge of element 0) and changes at most a fifth of the picture;
 *  - --field q_y draws a component, an unknown field is refused listing the
 *    fields, a path in a missing folder is an I/O error;
 *  - ticks: hdg_png_ticks gives nice steps (1, 2, 5 x 10^k) inside the range,
 *    hdg_png_tick_label their digits; a picture of [-1, 2] x [0, 1] drawn by
 *    hdg_png_write has its frame, a black tick mark out of it at every x and
 *    y tick of its layout and at every colour bar tick, and label ink beyond
 *    each mark;
 *  - captions (hdg_png_caption, output.png_caption): the time of a transient
 *    HDG run (heat: t = 0.5) and of every DG frame, none in a steady one. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run.h"
#include "ir/lower.h"
#include "runtime/mesh/mesh.h"
#include "drivers/run_png.h"
#include "runtime/output/png.h"
#include "runtime/fem/refel.h"
#include "test.h"
#include "test_problem.h"

#define W 640
#define H 480

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

static int with_edges;   /* run(): --edges */

typedef struct run_out {
    hdg_status st;
    hdg_run_fields f;
    double vmin, vmax, scale, ox, oy, m;
    char msg[2560], caption[512];
} run_out;

static run_out run_every(hdg_problem *p, const char *path, const char *field, int every, double *frames)
{
    run_out r;
    memset(&r, 0, sizeof r);
    hdg_run_options o;
    hdg_run_options_default(&o);
    o.mesh = "square:8";
    o.png = path, o.png_field = field, o.png_width = W, o.png_height = H;
    o.fields = &r.f;
    o.every = every;
    o.png_edges = with_edges;
    hdg_report *rep = hdg_report_new();
    hdg_error err = {0};
    r.st = hdg_run_problem(p, &o, rep, &err);
    snprintf(r.msg, sizeof r.msg, "%s", err.msg);
    int found;
    r.vmin = hdg_report_get_number(rep, "output.png_min", &found);
    r.vmax = hdg_report_get_number(rep, "output.png_max", &found);
    r.scale = hdg_report_get_number(rep, "output.png_scale", &found);
    r.ox = hdg_report_get_number(rep, "output.png_origin_x", &found);
    r.oy = hdg_report_get_number(rep, "output.png_origin_y", &found);
    r.m = hdg_report_get_number(rep, "output.png_subdivision", &found);
    const char *cap = hdg_report_get_string(rep, "output.png_caption");
    snprintf(r.caption, sizeof r.caption, "%s", cap ? cap : "");
    if (frames) {
        frames[0] = hdg_report_get_number(rep, "output.png_frames", &found);
        frames[1] = hdg_report_get_number(rep, "output.png_frames_clamped", &found);
    }
    hdg_report_free(rep);
    return r;
}

static run_out run(hdg_problem *p, const char *path, const char *field)
{
    return run_every(p, path, field, 0, NULL);
}

static int brightness(const picture *p, double x, double y, const run_out *r)
{
    const unsigned char *c = p->rgb + 3 * ((long)floor(r->oy - r->scale * y) * p->w + (long)floor(r->ox + r->scale * x));
    return c[0] + c[1] + c[2];
}

static void check_edges(hdg_problem *p)
{
    with_edges = 1;
    run_out r = run(p, "poisson_k3_edges.png", NULL);
    with_edges = 0;
    CHECK(r.st == HDG_OK, "--edges: %s", r.msg);
    picture a = decode("poisson_k3.png"), b = decode("poisson_k3_edges.png");
    hdg_mesh mesh;
    hdg_error err = {0};
    memset(&mesh, 0, sizeof mesh);
    if (!a.rgb || !b.rgb || hdg_mesh_load(&mesh, "square:8", &err)) {
        CHECK(0, "decoding or mesh: %s", err.msg);
        free(a.rgb), free(b.rgb);
        return;
    }
    for (int k = 0; k < 3; k++) {   /* the edge midpoints of element 0 */
        int i = mesh.ev[k], j = mesh.ev[(k + 1) % 3];
        double x = 0.5 * (mesh.vx[i] + mesh.vx[j]), y = 0.5 * (mesh.vy[i] + mesh.vy[j]);
        int ba = brightness(&a, x, y, &r), bb = brightness(&b, x, y, &r);
        CHECK(bb < ba, "edge %d of element 0 at (%g, %g): brightness %d with --edges, %d without", k, x, y, bb, ba);
    }
    long ndiff = 0;
    for (long i = 0; i < (long)a.w * a.h; i++) ndiff += memcmp(a.rgb + 3 * i, b.rgb + 3 * i, 3) != 0;
    CHECK(ndiff > 0 && ndiff < (long)a.w * a.h / 5, "--edges changed %ld pixels", ndiff);
    free(a.rgb), free(b.rgb);
    hdg_run_fields_free(&r.f);
    hdg_mesh_free(&mesh);
}

static void check_frames(void)
{
    hdg_problem *p = test_load_problem(HDG_EXAMPLES "/maxwell2d.hdg", 0, NULL, 0);
    if (!p) return;
    for (int i = 0; i < 8; i++) {   /* leftovers of an earlier run */
        char name[64];
        snprintf(name, sizeof name, "Ez_frame_%02d.png", i);
        remove(name);
    }
    double fr[2] = {0};
    run_out r = run_every(p, "Ez_frame_%02d.png", "Ez", 40, fr);
    CHECK(r.st == HDG_OK, "maxwell2d frames: %s", r.msg);
    CHECK(fr[0] == 5 && fr[1] == 0, "frames %g, clamped %g", fr[0], fr[1]);
    CHECK(r.vmin == -r.vmax && fabs(r.vmax - 1.1) < 1e-3, "fixed range [%g, %g]", r.vmin, r.vmax);
    CHECK(strstr(r.caption, "maxwell2d   Ez   N = 4") && strstr(r.caption, "t = "), "last frame's caption '%s'",
          r.caption);
    for (int i = 0; i < 6; i++) {
        char name[64];
        snprintf(name, sizeof name, "Ez_frame_%02d.png", i);
        picture pic = decode(name);
        CHECK(i < 5 ? pic.rgb && pic.w == W && pic.h == H : !pic.rgb, "frame %d: %dx%d", i, pic.w, pic.h);
        free(pic.rgb);
    }
    hdg_run_fields_free(&r.f);
    hdg_problem_free(p);
}

/* The field (np modes at x + base, row stride nl) at the m^2 sub-triangle
 * centroids of every element: ne*m*m values. */
static double *samples(const run_out *r, const hdg_lowered *L, int ne, int base, int m)
{
    int ns = m * m;
    double *rs = malloc(sizeof(double) * 2 * ns), *P = malloc(sizeof(double) * ns * L->np);
    hdg_png_centroids(m, rs, rs + ns);
    hdg_dubiner_eval(L->k, ns, rs, rs + ns, P, NULL, NULL);
    double *v = calloc((size_t)ne * ns, sizeof(double));
    for (int e = 0; e < ne; e++)
        for (int q = 0; q < ns; q++)
            for (int i = 0; i < L->np; i++) v[e * ns + q] += P[q * L->np + i] * r->f.x[(long)e * L->nl + base + i];
    free(rs), free(P);
    return v;
}

/* The pixels under the centroids of element e's sub-triangles, where a whole
 * pixel fits around the centroid; returns how many were compared. */
static int check_element(const picture *pic, const run_out *r, const hdg_mesh *mesh, int e, const double *v, int m)
{
    int ns = m * m, n = 0;
    double rs[2 * 256];
    hdg_png_centroids(m, rs, rs + ns);
    const int *ev = mesh->ev + 3 * e;
    double side = r->scale * hypot(mesh->vx[ev[1]] - mesh->vx[ev[0]], mesh->vy[ev[1]] - mesh->vy[ev[0]]) / m;
    if (side * 0.29 < 1.5) return 0;   /* inradius of a right sub-triangle ~ 0.29 side */
    for (int q = 0; q < ns; q++) {
        double a = (1 + rs[q]) / 2, b = (1 + rs[ns + q]) / 2, x = 0, y = 0, l[3] = {1 - a - b, a, b};
        for (int k = 0; k < 3; k++) x += l[k] * mesh->vx[ev[k]], y += l[k] * mesh->vy[ev[k]];
        int px = (int)floor(r->ox + r->scale * x), py = (int)floor(r->oy - r->scale * y);
        unsigned char want[3];
        hdg_png_colour(v[e * ns + q], r->vmin, r->vmax, want);
        const unsigned char *got = pic->rgb + 3 * ((long)py * pic->w + px);
        CHECK(!memcmp(got, want, 3), "element %d sub-triangle %d pixel (%d,%d): %d,%d,%d, want %d,%d,%d", e, q, px,
              py, got[0], got[1], got[2], want[0], want[1], want[2]);
        n++;
    }
    return n;
}

/* Right of the mesh (x > 1), the colour bar shows both ends of the range:
 * whole pixel rows of the colours of png_max and png_min. */
static void check_bar(const picture *pic, const run_out *r)
{
    unsigned char top[3], bot[3];
    hdg_png_colour(r->vmax, r->vmin, r->vmax, top), hdg_png_colour(r->vmin, r->vmin, r->vmax, bot);
    int x0 = (int)ceil(r->ox + r->scale * 1.0) + 2, ntop = 0, nbot = 0;
    for (int y = 0; y < pic->h; y++)
        for (int x = x0; x < pic->w; x++) {
            const unsigned char *c = pic->rgb + 3 * ((long)y * pic->w + x);
            ntop += !memcmp(c, top, 3), nbot += !memcmp(c, bot, 3);
        }
    CHECK(ntop >= 10 && nbot >= 10, "colour bar: %d pixels of the max colour, %d of the min", ntop, nbot);
}

static void check_picture(hdg_problem *p, const char *path, const char *field, int comp)
{
    run_out r = run(p, path, field);
    CHECK(r.st == HDG_OK, "run: %s", r.msg);
    picture pic = decode(path);
    CHECK(pic.rgb && pic.w == W && pic.h == H, "decoded %s: %dx%d", path, pic.w, pic.h);
    hdg_lowered L;
    hdg_error err = {0};
    hdg_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    if (!pic.rgb || r.st || hdg_lower_hdg(p, &L, &err) || hdg_mesh_load(&mesh, "square:8", &err)) {
        CHECK(0, "set-up: %s", err.msg);
        return;
    }
    int m = (int)r.m, u = comp < 0 ? 1 : 0, base = L.uoff[u] + (comp < 0 ? 0 : comp * L.np);
    CHECK(m >= 2 && m <= 16, "subdivision %d", m);
    double *v = samples(&r, &L, mesh.ne, base, m), lo = INFINITY, hi = -INFINITY;
    for (long i = 0; i < (long)mesh.ne * m * m; i++) lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    CHECK_NEAR(r.vmin, lo, 1e-13, "output.png_min vs the samples' min");
    CHECK_NEAR(r.vmax, hi, 1e-13, "output.png_max vs the samples' max");
    check_bar(&pic, &r);
    int n = 0, chosen[] = {0, 17, 54, 63, 64, 90, 127};
    for (int i = 0; i < 7; i++) n += check_element(&pic, &r, &mesh, chosen[i], v, m);
    CHECK(n >= 7 * 20, "only %d pixels compared", n);
    printf("%s: range [%.6g, %.6g], m = %d, %d pixels compared\n", path, r.vmin, r.vmax, m, n);
    if (comp < 0) {   /* u = sin(pi x) sin(pi y) on the unit square */
        CHECK(fabs(r.vmin) < 1e-2 && fabs(r.vmax - 1) < 1e-2, "range of u [%g, %g]", r.vmin, r.vmax);
    }
    free(v), free(pic.rgb);
    hdg_run_fields_free(&r.f);
    hdg_lowered_free(&L);
    hdg_mesh_free(&mesh);
}

static void check_colour_map(void)
{
    unsigned char lo[3], hi[3], mid[3];
    hdg_png_colour(0, 0, 1, lo), hdg_png_colour(1, 0, 1, hi), hdg_png_colour(0.5, 0, 1, mid);
    const int want[3][3] = {{68, 1, 84}, {253, 231, 37}, {33, 145, 140}};   /* viridis 0, 1, 0.5 */
    const unsigned char *got[3] = {lo, hi, mid};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            CHECK(abs(got[k][c] - want[k][c]) <= 6, "viridis point %d channel %d: %d vs %d", k, c, got[k][c],
                  want[k][c]);
}

static void check_refusals(hdg_problem *p)
{
    run_out r = run(p, "poisson_bad.png", "w");
    CHECK(r.st == HDG_EINPUT && strstr(r.msg, "no such field") && strstr(r.msg, "u, ") && strstr(r.msg, "q_x"),
          "unknown field: %d %s", r.st, r.msg);
    hdg_run_fields_free(&r.f);
    r = run(p, "no-such-folder/p.png", NULL);
    CHECK(r.st == HDG_EIO, "missing folder: %d %s", r.st, r.msg);
    hdg_run_fields_free(&r.f);
}

static void check_tick_values(void)
{
    double t[HDG_PNG_MAX_TICKS], step;
    int n = hdg_png_ticks(-0.0023, 1.0002, 6, t, HDG_PNG_MAX_TICKS, &step);
    CHECK(n == 6 && step == 0.2 && t[0] == 0 && fabs(t[5] - 1) < 1e-15, "ticks of [-0.0023, 1.0002]: %d, step %g", n,
          step);
    n = hdg_png_ticks(-1, 2, 5, t, HDG_PNG_MAX_TICKS, &step);
    CHECK(n == 7 && step == 0.5 && t[0] == -1 && t[6] == 2, "ticks of [-1, 2]: %d, step %g", n, step);
    n = hdg_png_ticks(3e-5, 7.1e-5, 5, t, HDG_PNG_MAX_TICKS, &step);
    CHECK(n >= 3 && t[0] >= 3e-5 * (1 - 1e-12) && t[n - 1] <= 7.1e-5, "ticks of a small range: %d", n);
    n = hdg_png_ticks(0.5, 0.5, 5, t, HDG_PNG_MAX_TICKS, &step);
    CHECK(n == 1 && t[0] == 0.5, "a constant field: one tick");
    n = hdg_png_ticks(-1, 1, 5, t, HDG_PNG_MAX_TICKS, &step);
    int zero = 0;
    for (int i = 0; i < n; i++) zero += t[i] == 0 && !signbit(t[i]);
    CHECK(zero == 1, "0 is a tick, not -0");
    char b[64];
    hdg_png_tick_label(0.6000000000000001, 0.2, b, sizeof b);
    CHECK(!strcmp(b, "0.6"), "label %s", b);
    hdg_png_tick_label(-0.05, 0.05, b, sizeof b);
    CHECK(!strcmp(b, "-0.05"), "label %s", b);
    hdg_png_tick_label(20, 5, b, sizeof b);
    CHECK(!strcmp(b, "20"), "label %s", b);
    hdg_png_tick_label(4e-5, 1e-5, b, sizeof b);
    CHECK(!strcmp(b, "4e-05"), "label %s", b);
}

static int dark(const picture *p, int x, int y)
{
    if (x < 0 || y < 0 || x >= p->w || y >= p->h) return 0;
    const unsigned char *c = p->rgb + 3 * ((long)y * p->w + x);
    return c[0] + c[1] + c[2] < 200;
}

/* Dark pixels in the box [x0, x1) x [y0, y1). */
static int ink(const picture *p, double x0, double x1, double y0, double y1)
{
    int n = 0;
    for (int y = (int)y0; y < (int)y1; y++)
        for (int x = (int)x0; x < (int)x1; x++) n += dark(p, x, y);
    return n;
}

/* Two triangles on [-1, 2] x [0, 1], the value x: the frame, the ticks and labels where the layout says. */
static void check_axes(void)
{
    const double vxy[12] = {-1, 0, 2, 0, 2, 1, -1, 0, 2, 1, -1, 1};
    double vals[2 * 16];
    int m = 4;
    double r[16], sr[16];
    hdg_png_centroids(m, r, sr);
    for (int e = 0; e < 2; e++)
        for (int q = 0; q < m * m; q++) {
            const double *v = vxy + 6 * e;
            vals[e * m * m + q] = -(r[q] + sr[q]) / 2 * v[0] + (1 + r[q]) / 2 * v[2] + (1 + sr[q]) / 2 * v[4];
        }
    hdg_png_plot pl = {.width = W, .height = H, .ne = 2, .vxy = vxy, .m = m, .vals = vals, .vmin = 1, .vmax = 0,
                       .field = "x", .caption = "axes"};
    hdg_png_layout L;
    hdg_error err = {0};
    CHECK(hdg_png_write("axes.png", &pl, &L, &err) == HDG_OK, "axes.png: %s", err.msg);
    picture p = decode("axes.png");
    if (!p.rgb) return;
    CHECK(L.nxt >= 3 && L.nyt >= 3 && L.nct >= 3, "ticks: %d x, %d y, %d on the bar", L.nxt, L.nyt, L.nct);
    CHECK(L.xt[0] >= -1 && L.xt[L.nxt - 1] <= 2 && L.yt[0] >= 0 && L.yt[L.nyt - 1] <= 1, "ticks inside the box");
    double len = 0.4 * L.font;
    CHECK(dark(&p, (int)L.frame_x0, (int)(L.frame_y0 + L.frame_y1) / 2) &&
              dark(&p, (int)(L.frame_x0 + L.frame_x1) / 2, (int)L.frame_y1 - 1),
          "the frame's left and bottom sides");
    for (int i = 0; i < L.nxt; i++) {
        int x = (int)floor(L.ox + L.scale * L.xt[i]), y = (int)L.frame_y1 + (int)(len / 2);
        CHECK(dark(&p, x, y), "x tick %g: mark at pixel (%d, %d)", L.xt[i], x, y);
        int n = ink(&p, x - L.font, x + L.font, L.frame_y1 + len + 1, L.frame_y1 + len + 1.5 * L.font);
        CHECK(n > 10, "x tick %g: %d pixels of label", L.xt[i], n);
    }
    for (int i = 0; i < L.nyt; i++) {
        int y = (int)floor(L.oy - L.scale * L.yt[i]), x = (int)L.frame_x0 - (int)(len / 2);
        CHECK(dark(&p, x, y), "y tick %g: mark at pixel (%d, %d)", L.yt[i], x, y);
        int n = ink(&p, L.frame_x0 - len - 4 * L.font, L.frame_x0 - len, y - 0.6 * L.font, y + 0.6 * L.font);
        CHECK(n > 10, "y tick %g: %d pixels of label", L.yt[i], n);
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 2 * m * m; k++) lo = fmin(lo, vals[k]), hi = fmax(hi, vals[k]);
    CHECK(L.vmin == lo && L.vmax == hi, "range [%g, %g]", L.vmin, L.vmax);
    for (int i = 0; i < L.nct; i++) {
        double f = (L.ct[i] - L.vmin) / (L.vmax - L.vmin);
        int y = (int)floor(L.bar_bot - f * (L.bar_bot - L.bar_top)), x = (int)(L.bar_x + L.bar_w + len / 2);
        CHECK(L.ct[i] >= L.vmin && L.ct[i] <= L.vmax && dark(&p, x, y), "bar tick %g: mark at (%d, %d)", L.ct[i], x, y);
        int n = ink(&p, L.bar_x + L.bar_w + len + 1, L.bar_x + L.bar_w + len + 3 * L.font, y - 0.6 * L.font,
                    y + 0.6 * L.font);
        CHECK(n > 10, "bar tick %g: %d pixels of label", L.ct[i], n);
    }
    free(p.rgb);
}

/* The time in the caption of a transient HDG run, and none in a steady one. */
static void check_captions(hdg_problem *poisson)
{
    char b[256];
    hdg_png_caption(b, sizeof b, "heat", "u", "k", 3, "square:8", 128, 0.5);
    CHECK(!strcmp(b, "heat   u   k = 3   square:8   (128 elements)   t = 0.5"), "caption '%s'", b);
    hdg_png_caption(b, sizeof b, "poisson", "u", "k", 3, "square:8", 128, NAN);
    CHECK(!strstr(b, "t ="), "steady caption '%s'", b);
    hdg_problem *heat = test_load_problem(HDG_EXAMPLES "/heat.hdg", 2, NULL, 0);
    hdg_problem *ps[2] = {poisson, heat};
    const char *want[2] = {"poisson   u   k = 3   square:8   (128 elements)", "t = 0.5"};
    for (int k = 0; k < 2 && heat; k++) {
        hdg_run_options o;
        hdg_run_options_default(&o);
        o.png = "caption.png";
        hdg_report *rep = hdg_report_new();
        hdg_error err = {0};
        CHECK(hdg_run_problem(ps[k], &o, rep, &err) == HDG_OK, "run: %s", err.msg);
        const char *c = hdg_report_get_string(rep, "output.png_caption");
        CHECK(c && strstr(c, want[k]) && (k || !strstr(c, "t =")), "caption '%s'", c ? c : "(none)");
        hdg_report_free(rep);
    }
    if (heat) hdg_problem_free(heat);
}

int main(void)
{
    hdg_problem *p = test_load_problem(HDG_EXAMPLES "/poisson.hdg", 3, NULL, 0);
    if (!p) return test_summary("png");
    check_colour_map();
    check_picture(p, "poisson_k3.png", NULL, -1);
    check_edges(p);
    check_picture(p, "poisson_k3_qy.png", "q_y", 1);
    check_refusals(p);
    check_tick_values();
    check_axes();
    check_captions(p);
    hdg_problem_free(p);
    check_frames();
    return test_summary("png");
}
