/* plot.h — a log-log line plot (series of points, a title, axis titles) written
 * as SVG or PNG by the file name's extension. It knows nothing of problems:
 * hdgc convergence gives it error against h per (unknown, order).
 *
 * The layout is computed once into a list of lines, polylines, markers and
 * texts in pixel coordinates (runtime/output/plot_list.h), then written either as SVG
 * text (runtime/output/plot_svg.c: one <polyline class="series"> per series with
 * points, <text class="legend"> per legend entry, readable by tests and
 * people) or drawn by cairo into a PNG (runtime/output/plot_png.c).
 *
 * Axes: log10 of x and y, from a power of ten to a power of ten, ticks and
 * labels (10^k) at powers of ten, grid lines there. A point with x or y not
 * finite and positive is left out of its series. With fits set, each series
 * of two or more points gets its least-squares line (hdg_plot_fit) dashed over
 * its x range and its slope printed "%.2f" in its colour left of the data. */
#ifndef HDG_PLOT_H
#define HDG_PLOT_H

#include "hdg.h"

#define HDG_PLOT_MIN_SIZE 300    /* width and height at least this, */
#define HDG_PLOT_MAX_SIZE 8192   /* and at most this many pixels */

enum { HDG_PLOT_UNKNOWN = 0, HDG_PLOT_SVG = 1, HDG_PLOT_PNG = 2 };

typedef struct hdg_plot_series {
    const char *label;       /* legend text (NULL: no legend entry) */
    int n;                   /* points */
    const double *x, *y;     /* the points, drawn in this order */
    int colour, marker;      /* palette colour and marker shape (indices, taken modulo their counts) */
} hdg_plot_series;

typedef struct hdg_plot {
    int width, height;               /* pixels */
    const char *title, *xlabel, *ylabel;   /* may be NULL */
    int nseries;
    const hdg_plot_series *series;
    int fits;                        /* mark each series' fitted line and slope */
} hdg_plot;

/* Least-squares fit of log(y) = slope*log(x) + icept over the points with x and
 * y finite and positive; returns how many there were. With fewer than 2 (or all
 * at one x) slope and icept are NaN. slope or icept may be NULL. */
int hdg_plot_fit(int n, const double *x, const double *y, double *slope, double *icept);

/* HDG_PLOT_SVG for a path ending in ".svg", HDG_PLOT_PNG for ".png" (any case),
 * else HDG_PLOT_UNKNOWN. */
int hdg_plot_format(const char *path);

/* Lays out and writes the plot to path (atomically), in the format its
 * extension names. Unknown extension, size outside [HDG_PLOT_MIN_SIZE,
 * HDG_PLOT_MAX_SIZE], a series with n < 0: HDG_EINPUT; an unwritable path:
 * HDG_EIO. */
hdg_status hdg_plot_write(const char *path, const hdg_plot *pl, hdg_error *err);

#endif
