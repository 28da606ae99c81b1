/* plot_list.h — the laid-out plot of plot.h as a list of drawing items in pixel
 * coordinates (y down), shared by the SVG writer (plot_svg.c) and the cairo
 * renderer (plot_png.c). Internal to runtime/. */
#ifndef HDG_PLOT_LIST_H
#define HDG_PLOT_LIST_H

#include <stdio.h>

#include "hdg.h"

typedef enum pl_kind {
    PL_RECT,     /* xy[0..3]: x, y, w, h; filled when fill, else outlined */
    PL_LINE,     /* xy[0..3]: x0, y0, x1, y1 */
    PL_POLY,     /* n points */
    PL_MARK,     /* xy[0..1]: centre; marker shape, size (half width) */
    PL_TEXT,     /* xy[0..1]: baseline anchor point; text (and superscript) */
} pl_kind;

enum { PL_START, PL_MIDDLE, PL_END };   /* text anchors */
enum { PL_CIRCLE, PL_SQUARE, PL_TRIANGLE, PL_DIAMOND, PL_DOWN, PL_NMARKERS };

typedef struct pl_item {
    pl_kind kind;
    const char *cls;       /* SVG class: series, marker, fit, rate, legend, tick, grid, frame, title, label */
    unsigned rgb;          /* 0xRRGGBB */
    double lw;             /* line width (lines, polylines, outlines) */
    int dash, fill;
    int n;
    double *xy;            /* 2n coordinates (PL_RECT: x, y, w, h) */
    int marker;
    double size;
    char *text, *sup;      /* PL_TEXT: text, then a superscript (NULL: none); UTF-8 */
    double font;           /* font size in pixels */
    int anchor, vertical;  /* PL_START/MIDDLE/END; vertical: rotated -90 degrees about xy */
} pl_item;

typedef struct pl_list {
    int width, height;
    pl_item *it;
    int n, cap;
} pl_list;

#define PL_FONT "sans-serif"

/* Width in pixels of text (and its superscript at 0.7 of the font, may be NULL)
 * at font size font, measured by cairo (plot_png.c). */
double pl_text_width(const char *text, const char *sup, double font);

void pl_free(pl_list *L);

/* plot_svg.c: the list as an SVG document. */
void pl_write_svg(const pl_list *L, FILE *f);   /* write errors: hdg_ofile_commit sees them */

/* plot_png.c: the list drawn by cairo, written as PNG to f. */
hdg_status pl_write_png(const pl_list *L, FILE *f, const char *path, hdg_error *err);

#endif
