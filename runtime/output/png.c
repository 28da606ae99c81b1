/* png.c — a scalar field on a triangle mesh as a PNG picture, drawn with
 * cairo (png.h). Layout: the caption across the top, the mesh scaled to fit
 * the plot area on the left (aspect ratio kept) in a frame with x ticks below
 * and y ticks on its left, the colour bar with its ticks on the right. */
#include "runtime/output/png.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- ticks ---------------------------------------------------------------------- */

int hdg_png_ticks(double lo, double hi, int target, double *t, int max, double *step)
{
    if (!(hi > lo) || target < 1) {
        *step = 1;
        if (max > 0) t[0] = lo;
        return max > 0;
    }
    double raw = (hi - lo) / target, p = pow(10, floor(log10(raw))), m = raw / p;
    double s = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    double i0 = ceil(lo / s - 1e-9), i1 = floor(hi / s + 1e-9);
    int n = 0;
    for (double i = i0; i <= i1 && n < max; i++) t[n++] = fabs(i) < 0.5 ? 0 : i * s;   /* no -0 */
    *step = s;
    return n;
}

void hdg_png_tick_label(double v, double step, char *buf, size_t n)
{
    double a = fmax(fabs(v), step);
    if (step < 1e-4 || a >= 1e6) {
        snprintf(buf, n, "%.3g", v);
        return;
    }
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(buf, n, "%.*f", dec, v);
}

/* ---- layout --------------------------------------------------------------------- */

typedef struct frame {
    double cap_h, bar_w, pad;   /* caption band, colour bar band, margin (pixels) */
    double font;                /* font size */
    double axis_w, axis_h;      /* the y labels' band on the left, the x labels' below */
} frame;

static double text_width(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

static void bounds(const hdg_png_plot *pl, double *x0, double *x1, double *y0, double *y1)
{
    *x0 = INFINITY, *x1 = -INFINITY, *y0 = INFINITY, *y1 = -INFINITY;
    for (long long k = 0; k < 3LL * pl->ne; k++) {
        double x = pl->vxy[2 * k], y = pl->vxy[2 * k + 1];
        *x0 = fmin(*x0, x), *x1 = fmax(*x1, x), *y0 = fmin(*y0, y), *y1 = fmax(*y1, y);
    }
}

/* The widest label of the ticks t[0..n-1]. */
static double labels_width(cairo_t *cr, const double *t, int n, double step)
{
    double w = 0;
    char s[64];
    for (int i = 0; i < n; i++) {
        hdg_png_tick_label(t[i], step, s, sizeof s);
        w = fmax(w, text_width(cr, s));
    }
    return w;
}

static frame frame_of(const hdg_png_plot *pl, cairo_t *cr, hdg_png_layout *L)
{
    double u = fmin(pl->width, pl->height) / 800.0;   /* 1 at 800 pixels */
    u = u < 0.4 ? 0.4 : u;
    frame F = {.cap_h = 44 * u, .pad = 16 * u, .font = 18 * u};
    cairo_set_font_size(cr, F.font);
    double x0, x1, y0, y1;
    bounds(pl, &x0, &x1, &y0, &y1);
    L->nyt = hdg_png_ticks(y0, y1, 5, L->yt, HDG_PNG_MAX_TICKS, &L->ystep);
    L->nct = hdg_png_ticks(L->vmin, L->vmax, 6, L->ct, HDG_PNG_MAX_TICKS, &L->cstep);
    F.axis_w = labels_width(cr, L->yt, L->nyt, L->ystep) + 0.9 * F.font;
    F.axis_h = 1.9 * F.font;
    F.bar_w = fmax(170 * u, 0.22 * 170 * u + 1.3 * F.font + labels_width(cr, L->ct, L->nct, L->cstep)) + F.pad;
    return F;
}

/* The mesh fitted into the area left of the colour bar, below the caption,
 * right of and above the axis labels (aspect ratio kept), its frame and x ticks. */
static void layout(const hdg_png_plot *pl, cairo_t *cr, const frame *F, hdg_png_layout *L)
{
    double x0, x1, y0, y1;
    bounds(pl, &x0, &x1, &y0, &y1);
    double left = F->pad + F->axis_w, top = F->cap_h + F->pad;
    double w = pl->width - F->bar_w - left - F->pad, h = pl->height - top - F->pad - F->axis_h;
    double dx = x1 > x0 ? x1 - x0 : 1, dy = y1 > y0 ? y1 - y0 : 1;
    L->scale = fmin(w / dx, h / dy);
    L->ox = left + 0.5 * (w - L->scale * dx) - L->scale * x0;
    L->oy = top + 0.5 * (h + L->scale * dy) + L->scale * y0;
    L->frame_x0 = floor(L->ox + L->scale * x0) - 1, L->frame_x1 = ceil(L->ox + L->scale * x1) + 1;
    L->frame_y0 = floor(L->oy - L->scale * y1) - 1, L->frame_y1 = ceil(L->oy - L->scale * y0) + 1;
    /* as many x ticks as their labels leave room for */
    double t[HDG_PNG_MAX_TICKS], step;
    int target = 5;
    for (; target > 1; target--) {
        int n = hdg_png_ticks(x0, x1, target, t, HDG_PNG_MAX_TICKS, &step);
        if (n < 2 || (labels_width(cr, t, n, step) + F->font) * (n - 1) <= L->scale * (t[n - 1] - t[0]) + 1e-9) break;
    }
    L->nxt = hdg_png_ticks(x0, x1, target, L->xt, HDG_PNG_MAX_TICKS, &L->xstep);
    if (pl->noaxes) L->nxt = L->nyt = 0;
    L->font = F->font;
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

static void outline_path(cairo_t *cr, const hdg_png_plot *pl, const hdg_png_layout *L, long long e)
{
    const double *v = pl->vxy + 6 * e;
    cairo_move_to(cr, L->ox + L->scale * v[0], L->oy - L->scale * v[1]);
    for (int k = 1; k < 3; k++) cairo_line_to(cr, L->ox + L->scale * v[2 * k], L->oy - L->scale * v[2 * k + 1]);
    cairo_close_path(cr);
}

/* The elements first..last-1's outlines, antialiased, half-transparent dark grey. */
static void draw_edges(cairo_t *cr, const hdg_png_plot *pl, const frame *F, const hdg_png_layout *L,
                       long long first, long long last)
{
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.5);
    cairo_set_line_width(cr, fmax(0.5, F->font / 18));
    for (long long e = first; e < last; e++) outline_path(cr, pl, L, e);
    cairo_stroke(cr);
}

/* s with its anchor at (x, y): align 0 left, 0.5 centred, 1 right; the
 * baseline at y + 0.35 font (vertically centred on y). */
static void text_at(cairo_t *cr, double x, double y, double align, double font, const char *s)
{
    cairo_move_to(cr, x - align * text_width(cr, s), y + 0.35 * font);
    cairo_show_text(cr, s);
}

static void text(cairo_t *cr, double x, double y, const char *s)
{
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* A one-pixel black line from (x0, y0) to (x1, y1), on whole pixels. */
static void hline(cairo_t *cr, double x0, double y0, double x1, double y1)
{
    cairo_move_to(cr, x0, y0), cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
}

/* The frame around the mesh, ticks out of it at the tick values, their labels. */
static void draw_axes(cairo_t *cr, const frame *F, const hdg_png_layout *L)
{
    double len = 0.4 * F->font, fx0 = L->frame_x0 + 0.5, fx1 = L->frame_x1 - 0.5;
    double fy0 = L->frame_y0 + 0.5, fy1 = L->frame_y1 - 0.5;
    char s[64];
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, fx0, fy0, fx1 - fx0, fy1 - fy0);
    cairo_stroke(cr);
    for (int i = 0; i < L->nxt; i++) {
        double x = floor(L->ox + L->scale * L->xt[i]) + 0.5;
        hline(cr, x, fy1, x, fy1 + len);
        hdg_png_tick_label(L->xt[i], L->xstep, s, sizeof s);
        text_at(cr, x, fy1 + len + 0.75 * F->font, 0.5, F->font, s);
    }
    for (int i = 0; i < L->nyt; i++) {
        double y = floor(L->oy - L->scale * L->yt[i]) + 0.5;
        hline(cr, fx0 - len, y, fx0, y);
        hdg_png_tick_label(L->yt[i], L->ystep, s, sizeof s);
        text_at(cr, fx0 - len - 0.25 * F->font, y, 1, F->font, s);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
}

static void draw_bar(cairo_t *cr, const hdg_png_plot *pl, const frame *F, hdg_png_layout *L)
{
    double x = floor(pl->width - F->bar_w + F->pad), w = floor(0.22 * 170 * F->font / 18);   /* whole pixels: */
    double top = floor(F->cap_h + F->pad + 1.5 * F->font), bot = pl->height - F->pad - F->axis_h;
    /* the outline below covers the pixels around the bands, not the bands */
    int n = (int)ceil(bot - top);
    L->bar_x = x, L->bar_w = w, L->bar_top = top, L->bar_bot = top + n;
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int i = 0; i < n; i++) {   /* one band a pixel row, top = vmax */
        double t = 1 - (i + 0.5) / n;
        set_colour(cr, L->vmin + t * (L->vmax - L->vmin), L);
        cairo_rectangle(cr, x, top + i, w, 1);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x - 0.5, top - 0.5, w + 1, n + 1);
    cairo_stroke(cr);
    char s[64];
    double len = 0.4 * F->font;
    for (int i = 0; i < L->nct; i++) {
        double f = L->vmax > L->vmin ? (L->ct[i] - L->vmin) / (L->vmax - L->vmin) : 0.5;
        double y = floor(L->bar_bot - f * n) + 0.5;
        y = fmin(fmax(y, top + 0.5), top + n - 0.5);
        hline(cr, x + w + 0.5, y, x + w + 0.5 + len, y);
        hdg_png_tick_label(L->ct[i], L->cstep, s, sizeof s);
        text_at(cr, x + w + len + 0.3 * F->font, y, 0, F->font, s);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    if (pl->field) text(cr, x, top - 0.6 * F->font, pl->field);
}

static void draw(cairo_t *cr, const hdg_png_plot *pl, const frame *F, hdg_png_layout *L)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);   /* no seams between sub-triangles */
    for (long long e = 0; e < pl->ne; e++) {
        draw_element(cr, pl, L, e);
        if (pl->edges && pl->noaxes) {   /* a view drawn far to near: a face covers the edges behind it */
            draw_edges(cr, pl, F, L, e, e + 1);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
        }
    }
    if (pl->edges && !pl->noaxes) draw_edges(cr, pl, F, L, 0, pl->ne);
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (!pl->noaxes) draw_axes(cr, F, L);
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
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pl->width, pl->height);
    cairo_t *cr = cairo_create(s);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    hdg_png_layout L;
    memset(&L, 0, sizeof L);
    value_range(pl, &L);
    frame F = frame_of(pl, cr, &L);
    layout(pl, cr, &F, &L);
    draw(cr, pl, &F, &L);
    cairo_destroy(cr);
    if (lay) *lay = L;
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
