/* png.c — a scalar field on a triangle mesh as a PNG picture, drawn with
 * cairo (png.h). Layout: the caption across the top, the mesh scaled to fit
 * the plot area on the left (aspect ratio kept), the colour bar on the right. */
#include "runtime/output/png.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "support/util.h"

/* viridis: a degree-6 polynomial fit of the colour map (per channel, in t),
 * tabulated at 256 levels. */
static const double VIRIDIS[7][3] = {
    {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
    {0.1050930431085774, 1.404613529898575, 1.384590162594685},
    {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
    {-4.634230498983486, -5.799100973351585, -19.33244095627987},
    {6.228269936347081, 14.17993336680509, 56.69055260068105},
    {4.776384997670288, -13.74514537774601, -65.35303263337234},
    {-5.435455855934631, 4.645852612178535, 26.3124352495832},
};

static void level_rgb(int level, unsigned char rgb[3])
{
    double t = level / 255.0;
    for (int c = 0; c < 3; c++) {
        double v = 0;
        for (int k = 6; k >= 0; k--) v = v * t + VIRIDIS[k][c];
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        rgb[c] = (unsigned char)lround(255 * v);
    }
}

void hdg_png_colour(double v, double vmin, double vmax, unsigned char rgb[3])
{
    double t = vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.5;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    level_rgb((int)floor(t * 255 + 0.5), rgb);
}

void hdg_png_centroids(int m, double *r, double *s)
{
    int k = 0;
    for (int up = 1; up >= 0; up--)
        for (int j = 0; j < m - !up; j++)
            for (int i = 0; i < m - !up - j; i++, k++) {
                double a = up ? i + 1.0 / 3 : i + 2.0 / 3, b = up ? j + 1.0 / 3 : j + 2.0 / 3;
                r[k] = -1 + 2 * a / m;
                s[k] = -1 + 2 * b / m;
            }
}

/* ---- layout --------------------------------------------------------------------- */

typedef struct frame {
    double cap_h, bar_w, pad;   /* caption band, colour bar band, margin (pixels) */
    double font;                /* font size */
} frame;

static frame frame_of(const hdg_png_plot *pl)
{
    double u = fmin(pl->width, pl->height) / 800.0;   /* 1 at 800 pixels */
    u = u < 0.4 ? 0.4 : u;
    return (frame){.cap_h = 44 * u, .bar_w = 170 * u, .pad = 16 * u, .font = 18 * u};
}

static void layout(const hdg_png_plot *pl, const frame *F, hdg_png_layout *L)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (long long k = 0; k < 3LL * pl->ne; k++) {
        double x = pl->vxy[2 * k], y = pl->vxy[2 * k + 1];
        x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
    }
    double w = pl->width - F->bar_w - 2 * F->pad, h = pl->height - F->cap_h - 2 * F->pad;
    double dx = x1 > x0 ? x1 - x0 : 1, dy = y1 > y0 ? y1 - y0 : 1;
    L->scale = fmin(w / dx, h / dy);
    L->ox = F->pad + 0.5 * (w - L->scale * dx) - L->scale * x0;
    L->oy = F->cap_h + F->pad + 0.5 * (h + L->scale * dy) + L->scale * y0;
}

static void value_range(const hdg_png_plot *pl, hdg_png_layout *L)
{
    L->vmin = pl->vmin, L->vmax = pl->vmax;
    if (pl->vmin < pl->vmax) return;
    L->vmin = INFINITY, L->vmax = -INFINITY;
    for (long long k = 0; k < (long long)pl->ne * pl->m * pl->m; k++)
        L->vmin = fmin(L->vmin, pl->vals[k]), L->vmax = fmax(L->vmax, pl->vals[k]);
}

/* ---- drawing -------------------------------------------------------------------- */

static void set_colour(cairo_t *cr, double v, const hdg_png_layout *L)
{
    unsigned char c[3];
    hdg_png_colour(v, L->vmin, L->vmax, c);
    cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
}

/* Element e's m^2 sub-triangles, each filled with its value's colour. */
static void draw_element(cairo_t *cr, const hdg_png_plot *pl, const hdg_png_layout *L, long long e)
{
    const double *v = pl->vxy + 6 * e, *val = pl->vals + e * pl->m * pl->m;
    int m = pl->m, k = 0;
    double ex[2] = {v[2] - v[0], v[3] - v[1]}, ey[2] = {v[4] - v[0], v[5] - v[1]};
#define PT(a, b) L->ox + L->scale * (v[0] + ((a) * ex[0] + (b) * ey[0]) / m), \
                 L->oy - L->scale * (v[1] + ((a) * ex[1] + (b) * ey[1]) / m)
    for (int up = 1; up >= 0; up--)
        for (int j = 0; j < m - !up; j++)
            for (int i = 0; i < m - !up - j; i++, k++) {
                if (up) {
                    cairo_move_to(cr, PT(i, j)), cairo_line_to(cr, PT(i + 1, j)), cairo_line_to(cr, PT(i, j + 1));
                } else {
                    cairo_move_to(cr, PT(i + 1, j)), cairo_line_to(cr, PT(i + 1, j + 1));
                    cairo_line_to(cr, PT(i, j + 1));
                }
                cairo_close_path(cr);
                set_colour(cr, val[k], L);
                cairo_fill(cr);
            }
#undef PT
}

/* The elements' outlines, antialiased, half-transparent dark grey. */
static void draw_edges(cairo_t *cr, const hdg_png_plot *pl, const frame *F, const hdg_png_layout *L)
{
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.5);
    cairo_set_line_width(cr, fmax(0.5, F->font / 18));
    for (long long e = 0; e < pl->ne; e++) {
        const double *v = pl->vxy + 6 * e;
        cairo_move_to(cr, L->ox + L->scale * v[0], L->oy - L->scale * v[1]);
        for (int k = 1; k < 3; k++) cairo_line_to(cr, L->ox + L->scale * v[2 * k], L->oy - L->scale * v[2 * k + 1]);
        cairo_close_path(cr);
    }
    cairo_stroke(cr);
}

static void text(cairo_t *cr, double x, double y, const char *s)
{
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

static void draw_bar(cairo_t *cr, const hdg_png_plot *pl, const frame *F, const hdg_png_layout *L)
{
    double x = floor(pl->width - F->bar_w + F->pad), w = floor(0.22 * F->bar_w);   /* whole pixels: */
    double top = floor(F->cap_h + F->pad + 1.5 * F->font), bot = pl->height - F->pad - 1.5 * F->font;
    /* the outline below covers the pixels around the bands, not the bands */
    int n = (int)ceil(bot - top);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int i = 0; i < n; i++) {   /* one band a pixel row, top = vmax */
        double t = 1 - (i + 0.5) / n;
        set_colour(cr, L->vmin + t * (L->vmax - L->vmin), L);
        cairo_rectangle(cr, x, top + i, w, 1);
        cairo_fill(cr);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x - 0.5, top - 0.5, w + 1, n + 1);
    cairo_stroke(cr);
    char s[64];
    snprintf(s, sizeof s, "%.4g", L->vmax);
    text(cr, x + w + 0.3 * F->font, top + 0.4 * F->font, s);
    snprintf(s, sizeof s, "%.4g", L->vmin);
    text(cr, x + w + 0.3 * F->font, top + n + 0.4 * F->font, s);
    if (pl->field) text(cr, x, top - 0.6 * F->font, pl->field);
}

static void draw(cairo_t *cr, const hdg_png_plot *pl, const frame *F, const hdg_png_layout *L)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);   /* no seams between sub-triangles */
    for (long long e = 0; e < pl->ne; e++) draw_element(cr, pl, L, e);
    if (pl->edges) draw_edges(cr, pl, F, L);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, F->font);
    cairo_set_source_rgb(cr, 0, 0, 0);
    draw_bar(cr, pl, F, L);
    if (pl->caption) text(cr, F->pad, F->cap_h - 0.6 * F->font, pl->caption);
}

/* ---- output --------------------------------------------------------------------- */

static cairo_status_t to_file(void *f, const unsigned char *data, unsigned int n)
{
    return fwrite(data, 1, n, f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static hdg_status check(const hdg_png_plot *pl, hdg_error *err)
{
    if (pl->width < HDG_PNG_MIN_SIZE || pl->width > HDG_PNG_MAX_SIZE || pl->height < HDG_PNG_MIN_SIZE ||
        pl->height > HDG_PNG_MAX_SIZE)
        return hdg_fail(err, HDG_EINPUT, "png: size %dx%d outside %dx%d .. %dx%d", pl->width, pl->height,
                        HDG_PNG_MIN_SIZE, HDG_PNG_MIN_SIZE, HDG_PNG_MAX_SIZE, HDG_PNG_MAX_SIZE);
    if (pl->m < 1 || pl->ne < 1) return hdg_fail(err, HDG_EINPUT, "png: no elements or sub-triangles");
    for (long long k = 0; k < 6LL * pl->ne; k++)
        if (!isfinite(pl->vxy[k])) return hdg_fail(err, HDG_EINPUT, "png: element %lld: non-finite vertex", k / 6);
    for (long long k = 0; k < (long long)pl->ne * pl->m * pl->m; k++)
        if (!isfinite(pl->vals[k]))
            return hdg_fail(err, HDG_EINPUT, "png: element %lld: non-finite value", k / ((long long)pl->m * pl->m));
    return HDG_OK;
}

hdg_status hdg_png_write(const char *path, const hdg_png_plot *pl, hdg_png_layout *lay, hdg_error *err)
{
    hdg_status st = check(pl, err);
    if (st) return st;
    frame F = frame_of(pl);
    hdg_png_layout L;
    layout(pl, &F, &L);
    value_range(pl, &L);
    if (lay) *lay = L;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pl->width, pl->height);
    cairo_t *cr = cairo_create(s);
    draw(cr, pl, &F, &L);
    cairo_destroy(cr);
    hdg_ofile o;
    st = hdg_ofile_open(&o, path, err);
    if (!st) {
        cairo_status_t cs = cairo_surface_write_to_png_stream(s, to_file, o.f);
        if (cs == CAIRO_STATUS_SUCCESS) st = hdg_ofile_commit(&o, err);
        else {
            hdg_ofile_abort(&o);
            st = hdg_fail(err, HDG_EIO, "%s: %s", path, cairo_status_to_string(cs));
        }
    }
    cairo_surface_destroy(s);
    return st;
}
