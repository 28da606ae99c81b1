/* plot.c — the log-log plot of plot.h: the fit, the layout into a list of
 * drawing items (plot_list.h), and the output by extension. Layout, left to
 * right: y axis title, y tick labels, the plot area (the slopes in a column
 * left of the data), the legend; the title above, the x tick labels and the x
 * axis title below. */
#include "runtime/output/plot.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/output/plot_list.h"
#include "support/util.h"

static const unsigned PALETTE[10] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                     0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
#define GRID_RGB 0xdddddd
#define INK_RGB 0x000000

static int valid(double x, double y)
{
    return isfinite(x) && isfinite(y) && x > 0 && y > 0;
}

int hdg_plot_fit(int n, const double *x, const double *y, double *slope, double *icept)
{
    int m = 0;
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        if (valid(x[i], y[i])) mx += log(x[i]), my += log(y[i]), m++;
    double s = NAN, c = NAN;
    if (m >= 2) {
        mx /= m, my /= m;
        for (int i = 0; i < n; i++)
            if (valid(x[i], y[i])) {
                double dx = log(x[i]) - mx;
                sxx += dx * dx, sxy += dx * (log(y[i]) - my);
            }
        if (sxx > 0) s = sxy / sxx, c = my - s * mx;
    }
    if (slope) *slope = s;
    if (icept) *icept = c;
    return m;
}

int hdg_plot_format(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n < 5 || path[n - 5] == '/') return HDG_PLOT_UNKNOWN;   /* a name before the extension */
    char ext[5];
    for (int i = 0; i < 4; i++) ext[i] = (char)tolower((unsigned char)path[n - 4 + i]);
    ext[4] = '\0';
    return !strcmp(ext, ".svg") ? HDG_PLOT_SVG : !strcmp(ext, ".png") ? HDG_PLOT_PNG : HDG_PLOT_UNKNOWN;
}

/* ---- the item list ------------------------------------------------------------------ */

static pl_item *add(pl_list *L, pl_kind kind, const char *cls, unsigned rgb, int n)
{
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 64;
        L->it = realloc(L->it, (size_t)L->cap * sizeof *L->it);
        if (!L->it) abort();
    }
    pl_item *it = &L->it[L->n++];
    memset(it, 0, sizeof *it);
    it->kind = kind, it->cls = cls, it->rgb = rgb, it->n = n, it->lw = 1;
    it->xy = hdg_xmalloc(2 * (size_t)(n > 2 ? n : 2) * sizeof *it->xy);
    return it;
}

static void line(pl_list *L, const char *cls, unsigned rgb, double lw, double x0, double y0, double x1, double y1)
{
    pl_item *it = add(L, PL_LINE, cls, rgb, 2);
    it->lw = lw;
    it->xy[0] = x0, it->xy[1] = y0, it->xy[2] = x1, it->xy[3] = y1;
}

static pl_item *text(pl_list *L, const char *cls, unsigned rgb, double x, double y, double font, int anchor,
                     const char *s, const char *sup)
{
    pl_item *it = add(L, PL_TEXT, cls, rgb, 1);
    it->xy[0] = x, it->xy[1] = y, it->font = font, it->anchor = anchor;
    it->text = hdg_xstrdup(s);
    it->sup = sup ? hdg_xstrdup(sup) : NULL;
    return it;
}

static void marker(pl_list *L, unsigned rgb, int shape, double size, double x, double y)
{
    pl_item *it = add(L, PL_MARK, "marker", rgb, 1);
    it->xy[0] = x, it->xy[1] = y, it->marker = shape, it->size = size, it->fill = 1;
}

void pl_free(pl_list *L)
{
    for (int i = 0; i < L->n; i++) free(L->it[i].xy), free(L->it[i].text), free(L->it[i].sup);
    free(L->it);
    memset(L, 0, sizeof *L);
}

/* ---- axes ------------------------------------------------------------------------- */

typedef struct axis {
    double lo, hi;     /* log10 of the ends */
    double p0, p1;     /* their pixels */
} axis;

static double px(const axis *a, double v)
{
    return a->p0 + (log10(v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

typedef struct frame {
    double font, pad;
    double x0, x1, y0, y1;      /* plot area */
    double legend_x, lfont;     /* legend column, its font */
    double ratew;               /* width of the widest slope label (0: none) */
    int ystep;                  /* label every ystep-th decade */
} frame;

/* log10 range [lo, hi] of the series' points (ys: of their y, with the fitted
 * lines' ends when fits), lo = hi = NAN when there are none. */
static void data_range(const hdg_plot *pl, int ys, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (int s = 0; s < pl->nseries; s++) {
        const hdg_plot_series *S = &pl->series[s];
        double slope, c, xa = INFINITY, xb = -INFINITY;
        for (int i = 0; i < S->n; i++)
            if (valid(S->x[i], S->y[i])) {
                double v = log10(ys ? S->y[i] : S->x[i]);
                *lo = fmin(*lo, v), *hi = fmax(*hi, v);
                xa = fmin(xa, S->x[i]), xb = fmax(xb, S->x[i]);
            }
        if (!ys || !pl->fits || hdg_plot_fit(S->n, S->x, S->y, &slope, &c) < 2 || !isfinite(slope)) continue;
        double ya = log10(exp(c) * pow(xa, slope)), yb = log10(exp(c) * pow(xb, slope));
        if (isfinite(ya) && isfinite(yb)) *lo = fmin(*lo, fmin(ya, yb)), *hi = fmax(*hi, fmax(ya, yb));
    }
    if (*lo > *hi) *lo = -1, *hi = 0;
}

/* The axis over the log10 range [lo, hi] of the data with a margin, holding at
 * least two powers of ten (widened towards the nearer one). */
static void decades(double lo, double hi, axis *a)
{
    double pad = 0.05 * (hi - lo) + 0.05;
    a->lo = lo - pad, a->hi = hi + pad;
    double p = ceil(a->lo), q = floor(a->hi);
    if (q - p >= 1) return;
    if (q < p) a->lo = floor(a->lo), a->hi = ceil(a->hi);   /* inside one decade: that decade */
    else if (a->lo - (p - 1) < p + 1 - a->hi) a->lo = p - 1;
    else a->hi = p + 1;
}

/* The powers of ten 10^k0 .. 10^k1 on the axis. */
static void powers(const axis *a, int *k0, int *k1)
{
    *k0 = (int)ceil(a->lo - 1e-9), *k1 = (int)floor(a->hi + 1e-9);
}

static void exponent(int k, char *buf, size_t n)
{
    if (k < 0) snprintf(buf, n, "\xe2\x88\x92%d", -k);   /* U+2212 minus */
    else snprintf(buf, n, "%d", k);
}

static double tick_width(int k, double font)
{
    char e[16];
    exponent(k, e, sizeof e);
    return pl_text_width("10", e, font);
}

static void rate_text(double slope, char *buf, size_t n)
{
    snprintf(buf, n, "%.2f", slope);
}

/* ---- layout ----------------------------------------------------------------------- */

/* Margins and the plot area; y is the y axis (its range known). */
static void frame_of(const hdg_plot *pl, const axis *y, frame *F)
{
    double u = fmin(pl->width, pl->height) / 600.0;
    F->font = 14 * u, F->pad = 12 * u;
    double ytw = 0, legw = 0;
    int k0, k1;
    powers(y, &k0, &k1);
    for (int k = k0; k <= k1; k++) ytw = fmax(ytw, tick_width(k, F->font));
    int nleg = 0;
    F->ratew = 0;
    for (int s = 0; s < pl->nseries; s++) {
        const hdg_plot_series *S = &pl->series[s];
        if (S->label) legw = fmax(legw, pl_text_width(S->label, NULL, F->font)), nleg++;
        double slope;
        char r[32];
        if (pl->fits && hdg_plot_fit(S->n, S->x, S->y, &slope, NULL) >= 2 && isfinite(slope)) {
            rate_text(slope, r, sizeof r);
            F->ratew = fmax(F->ratew, pl_text_width(r, NULL, F->font));
        }
    }
    double legend = nleg ? 3 * F->font + legw + F->pad : 0;
    legend = fmin(legend, 0.45 * pl->width);
    F->x0 = F->pad + (pl->ylabel ? 1.6 * F->font : 0) + ytw + 0.6 * F->font;
    F->x1 = pl->width - F->pad - legend - F->font;
    F->y0 = F->pad + 2.2 * F->font;
    F->y1 = pl->height - F->pad - 1.6 * F->font - (pl->xlabel ? 1.6 * F->font : 0);
    F->legend_x = F->x1 + F->font;
    F->lfont = nleg ? fmin(F->font, (F->y1 - F->y0) / (1.5 * nleg)) : F->font;
    double ppd = (F->y1 - F->y0) / (y->hi - y->lo);
    F->ystep = (int)ceil(1.6 * F->font / ppd);
}

/* The x axis: the data's range with a margin (at least a tenth of a decade),
 * widened on the left until the slope column fits between the axis and the
 * leftmost point. */
static void x_axis(const hdg_plot *pl, const frame *F, axis *x)
{
    double lo, hi;
    data_range(pl, 0, &lo, &hi);
    double pad = fmax(0.06 * (hi - lo), 0.1);
    x->lo = lo - pad, x->hi = hi + pad;
    x->p0 = F->x0, x->p1 = F->x1;
    double need = F->ratew > 0 ? F->ratew + 1.2 * F->font : 0, w = F->x1 - F->x0;
    if (need > 0 && need < 0.5 * w && (lo - x->lo) / (x->hi - x->lo) * w < need)
        x->lo = (lo * w - need * x->hi) / (w - need);   /* (lo - x.lo) w / (x.hi - x.lo) = need */
}

/* Grid lines at the powers of ten inside, ticks there (and shorter ones at
 * 2..9 times them when a decade is wide enough) along one axis: horizontal
 * (along x, ticks up from y = at) or vertical (along y, ticks right from x = at). */
static void ticks(pl_list *L, const frame *F, const axis *a, int vertical)
{
    double t = 0.4 * F->font, at = vertical ? F->x0 : F->y1;
    int k0, k1;
    powers(a, &k0, &k1);
    int minor = fabs(a->p1 - a->p0) / (a->hi - a->lo) > 4 * F->font;
    for (int k = k0 - 1; k <= k1; k++)
        for (int m = 1; m <= 9; m++) {
            double v = log10(m) + k;
            if (v < a->lo - 1e-9 || v > a->hi + 1e-9 || (m > 1 && !minor)) continue;
            double p = px(a, m * pow(10, k)), len = m == 1 ? t : 0.5 * t;
            int inside = m == 1 && v > a->lo + 1e-6 && v < a->hi - 1e-6;
            if (vertical) {
                if (inside) line(L, "grid", GRID_RGB, 1, F->x0, p, F->x1, p);
                line(L, "tick", INK_RGB, 1, at, p, at + len, p);
            } else {
                if (inside) line(L, "grid", GRID_RGB, 1, p, F->y0, p, F->y1);
                line(L, "tick", INK_RGB, 1, p, at, p, at - len);
            }
        }
}

static void draw_grid(pl_list *L, const frame *F, const axis *x, const axis *y)
{
    ticks(L, F, x, 0);
    ticks(L, F, y, 1);
    pl_item *fr = add(L, PL_RECT, "frame", INK_RGB, 2);
    fr->xy[0] = F->x0, fr->xy[1] = F->y0, fr->xy[2] = F->x1 - F->x0, fr->xy[3] = F->y1 - F->y0;
}

/* The mantissa sets tried for the x labels, densest first: m x 10^k for m in the set. */
static const int MANTISSAS[4][10] = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 0}, {1, 2, 5, 0}, {1, 3, 0}, {1, 0}};

static void tick_text(int m, int k, char *t, size_t nt, char *e, size_t ne)
{
    exponent(k, e, ne);
    if (m == 1) snprintf(t, nt, "10");
    else snprintf(t, nt, "%d\xc3\x97" "10", m);   /* U+00D7 multiplication sign */
}

/* The labels m x 10^k (m in mantissa set `set`) on the x axis, drawn when
 * draw: how many, or -1 when two of them would overlap. */
static int minor_set(pl_list *L, const frame *F, const axis *x, int set, int draw)
{
    double last = -INFINITY;
    int n = 0;
    for (int k = (int)floor(x->lo) - 1; k <= (int)ceil(x->hi); k++)
        for (const int *m = MANTISSAS[set]; *m; m++) {
            double v = log10(*m) + k;
            if (v < x->lo - 1e-9 || v > x->hi + 1e-9) continue;
            char t[32], e[16];
            tick_text(*m, k, t, sizeof t, e, sizeof e);
            double w = pl_text_width(t, e, F->font), p = px(x, *m * pow(10, k));
            if (p - w / 2 < last + 0.6 * F->font) return -1;
            last = p + w / 2, n++;
            if (draw) text(L, "tick", INK_RGB, p, F->y1 + 1.3 * F->font, F->font, PL_MIDDLE, t, e);
        }
    return n;
}

/* With fewer than two powers of ten on the x axis (a range fitted inside a
 * decade or two), the labels of the densest mantissa set that fit; returns 0
 * when the powers of ten are to be labelled alone. */
static int x_minor_labels(pl_list *L, const frame *F, const axis *x)
{
    int k0, k1;
    powers(x, &k0, &k1);
    if (k1 - k0 >= 1) return 0;
    for (int set = 0; set < 4; set++) {
        int n = minor_set(L, F, x, set, 0);
        if (n >= 2 || (set == 3 && n >= 0)) return minor_set(L, F, x, set, 1), 1;
    }
    return 0;
}

/* 10^k under the x axis and left of the y axis, every few decades when they are narrow;
 * with fewer than two powers of ten on the x axis, the minor ticks' values too. */
static void draw_tick_labels(pl_list *L, const frame *F, const axis *x, const axis *y)
{
    char e[16];
    int k0, k1;
    if (!x_minor_labels(L, F, x)) {
        powers(x, &k0, &k1);
        double xlw = tick_width(k0, F->font) + F->font, xppd = (F->x1 - F->x0) / (x->hi - x->lo);
        int xstep = (int)ceil(xlw / xppd);
        for (int k = k0; k <= k1; k++) {
            if ((k1 - k) % xstep) continue;
            exponent(k, e, sizeof e);
            text(L, "tick", INK_RGB, px(x, pow(10, k)), F->y1 + 1.3 * F->font, F->font, PL_MIDDLE, "10", e);
        }
    }
    powers(y, &k0, &k1);
    for (int k = k0; k <= k1; k++) {
        if ((k1 - k) % F->ystep) continue;
        exponent(k, e, sizeof e);
        text(L, "tick", INK_RGB, F->x0 - 0.4 * F->font, px(y, pow(10, k)) + 0.35 * F->font, F->font, PL_END, "10", e);
    }
}

static void draw_titles(pl_list *L, const hdg_plot *pl, const frame *F)
{
    if (pl->title) text(L, "title", INK_RGB, 0.5 * (F->x0 + F->x1), F->pad + 1.2 * F->font, 1.15 * F->font, PL_MIDDLE, pl->title, NULL);
    if (pl->xlabel) text(L, "label", INK_RGB, 0.5 * (F->x0 + F->x1), pl->height - F->pad - 0.3 * F->font, F->font, PL_MIDDLE, pl->xlabel, NULL);
    if (pl->ylabel) {
        pl_item *t = text(L, "label", INK_RGB, F->pad + F->font, 0.5 * (F->y0 + F->y1), F->font, PL_MIDDLE, pl->ylabel, NULL);
        t->vertical = 1;
    }
}

static void draw_series(pl_list *L, const hdg_plot *pl, const frame *F, const axis *x, const axis *y)
{
    for (int s = 0; s < pl->nseries; s++) {
        const hdg_plot_series *S = &pl->series[s];
        unsigned rgb = PALETTE[S->colour % 10];
        int m = 0;
        for (int i = 0; i < S->n; i++) m += valid(S->x[i], S->y[i]);
        if (!m) continue;
        pl_item *p = add(L, PL_POLY, "series", rgb, m);
        p->lw = fmax(1, 0.12 * F->font);
        for (int i = 0, j = 0; i < S->n; i++)
            if (valid(S->x[i], S->y[i])) p->xy[2 * j] = px(x, S->x[i]), p->xy[2 * j + 1] = px(y, S->y[i]), j++;
        for (int j = 0; j < m; j++) marker(L, rgb, S->marker % PL_NMARKERS, 0.3 * F->font, p->xy[2 * j], p->xy[2 * j + 1]);
    }
}

typedef struct rate_label {
    double y;
    int s;
    double slope;
} rate_label;

static int by_y(const void *a, const void *b)
{
    double d = ((const rate_label *)a)->y - ((const rate_label *)b)->y;
    return d < 0 ? -1 : d > 0;
}

/* Spreads the labels' centres at least gap apart inside [top, bot] (sorted by y). */
static void spread(rate_label *r, int n, double gap, double top, double bot)
{
    for (int i = 0; i < n; i++) {
        if (i > 0 && r[i].y < r[i - 1].y + gap) r[i].y = r[i - 1].y + gap;
        if (r[i].y < top) r[i].y = top;
    }
    for (int i = n - 1; i >= 0; i--) {
        if (r[i].y > bot) r[i].y = bot;
        if (i < n - 1 && r[i].y > r[i + 1].y - gap) r[i].y = r[i + 1].y - gap;
    }
}

/* Each fitted line dashed over its series' x range, its slope in a column left of the data. */
static void draw_fits(pl_list *L, const hdg_plot *pl, const frame *F, const axis *x, const axis *y)
{
    rate_label *r = calloc((size_t)pl->nseries + 1, sizeof *r);
    int nr = 0;
    double xmin = INFINITY;
    for (int s = 0; s < pl->nseries; s++) {
        const hdg_plot_series *S = &pl->series[s];
        double slope, c, xa = INFINITY, xb = -INFINITY;
        if (hdg_plot_fit(S->n, S->x, S->y, &slope, &c) < 2 || !isfinite(slope)) continue;
        for (int i = 0; i < S->n; i++)
            if (valid(S->x[i], S->y[i])) xa = fmin(xa, S->x[i]), xb = fmax(xb, S->x[i]);
        double ya = exp(c) * pow(xa, slope), yb = exp(c) * pow(xb, slope);
        if (!(ya > 0 && yb > 0 && isfinite(ya) && isfinite(yb))) continue;
        line(L, "fit", PALETTE[S->colour % 10], fmax(1, 0.08 * F->font), px(x, xa), px(y, ya), px(x, xb), px(y, yb));
        L->it[L->n - 1].dash = 1;
        xmin = fmin(xmin, xa);
        r[nr++] = (rate_label){px(y, ya), s, slope};
    }
    qsort(r, (size_t)nr, sizeof *r, by_y);
    spread(r, nr, 1.15 * F->font, F->y0 + 0.6 * F->font, F->y1 - 0.6 * F->font);
    for (int i = 0; i < nr; i++) {
        char t[32];
        rate_text(r[i].slope, t, sizeof t);
        text(L, "rate", PALETTE[pl->series[r[i].s].colour % 10], px(x, xmin) - 0.6 * F->font, r[i].y + 0.35 * F->font,
             F->font, PL_END, t, NULL);
    }
    free(r);
}

static void draw_legend(pl_list *L, const hdg_plot *pl, const frame *F)
{
    double f = F->lfont, row = 1.5 * f, yc = F->y0 + 0.5 * row, x = F->legend_x;
    for (int s = 0; s < pl->nseries; s++) {
        const hdg_plot_series *S = &pl->series[s];
        if (!S->label) continue;
        unsigned rgb = PALETTE[S->colour % 10];
        line(L, "legend", rgb, fmax(1, 0.12 * F->font), x, yc, x + 2.2 * f, yc);
        marker(L, rgb, S->marker % PL_NMARKERS, 0.3 * f, x + 1.1 * f, yc);
        text(L, "legend", INK_RGB, x + 2.8 * f, yc + 0.35 * f, f, PL_START, S->label, NULL);
        yc += row;
    }
}

static void layout(const hdg_plot *pl, pl_list *L)
{
    memset(L, 0, sizeof *L);
    L->width = pl->width, L->height = pl->height;
    axis x, y;
    double lo, hi;
    data_range(pl, 1, &lo, &hi);
    decades(lo, hi, &y);
    frame F;
    frame_of(pl, &y, &F);
    y.p0 = F.y1, y.p1 = F.y0;
    x_axis(pl, &F, &x);
    pl_item *bg = add(L, PL_RECT, "background", 0xffffff, 2);
    bg->fill = 1, bg->xy[0] = 0, bg->xy[1] = 0, bg->xy[2] = pl->width, bg->xy[3] = pl->height;
    draw_grid(L, &F, &x, &y);
    draw_tick_labels(L, &F, &x, &y);
    draw_titles(L, pl, &F);
    if (pl->fits) draw_fits(L, pl, &F, &x, &y);
    draw_series(L, pl, &F, &x, &y);
    draw_legend(L, pl, &F);
}

/* ---- output ----------------------------------------------------------------------- */

static hdg_status check(const char *path, const hdg_plot *pl, hdg_error *err)
{
    if (!hdg_plot_format(path))
        return hdg_fail(err, HDG_EINPUT, "plot '%s': unknown extension (expected .svg or .png)", path);
    if (pl->width < HDG_PLOT_MIN_SIZE || pl->width > HDG_PLOT_MAX_SIZE || pl->height < HDG_PLOT_MIN_SIZE ||
        pl->height > HDG_PLOT_MAX_SIZE)
        return hdg_fail(err, HDG_EINPUT, "plot: size %dx%d outside %dx%d .. %dx%d", pl->width, pl->height,
                        HDG_PLOT_MIN_SIZE, HDG_PLOT_MIN_SIZE, HDG_PLOT_MAX_SIZE, HDG_PLOT_MAX_SIZE);
    for (int s = 0; s < pl->nseries; s++)
        if (pl->series[s].n < 0 || pl->series[s].colour < 0 || pl->series[s].marker < 0)
            return hdg_fail(err, HDG_EINPUT, "plot: series %d: negative count or index", s);
    return HDG_OK;
}

hdg_status hdg_plot_write(const char *path, const hdg_plot *pl, hdg_error *err)
{
    hdg_status st = check(path, pl, err);
    if (st) return st;
    pl_list L;
    layout(pl, &L);
    hdg_ofile o;
    st = hdg_ofile_open(&o, path, err);
    if (!st) {
        if (hdg_plot_format(path) == HDG_PLOT_SVG) pl_write_svg(&L, o.f);
        else st = pl_write_png(&L, o.f, path, err);
        if (st == HDG_OK) st = hdg_ofile_commit(&o, err);
        else hdg_ofile_abort(&o);
    }
    pl_free(&L);
    return st;
}
