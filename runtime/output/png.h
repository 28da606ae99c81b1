/* png.h — a picture of a scalar field on a triangle mesh, drawn with cairo
 * into a PNG file: the field in the viridis colour map inside a frame with
 * axis ticks and coordinates (x below, y on the left, at nice numbers), a
 * colour bar with ticks at nice numbers of the range, and a caption line.
 *
 * The drawing does not know the solver's basis. Each element (vertices
 * (x0,y0), (x1,y1), (x2,y2), CCW) is cut into m^2 sub-triangles on the
 * equispaced lattice of degree m and each sub-triangle is filled with the
 * colour of one value, the field at its centroid, given by the caller in
 * "sub-triangle order" (hdg_png_centroids gives their reference points):
 *     for j = 0..m-1, for i = 0..m-1-j:  the upright triangle (i,j),(i+1,j),(i,j+1)
 *     for j = 0..m-2, for i = 0..m-2-j:  the inverted one (i+1,j),(i+1,j+1),(i,j+1)
 * on the reference triangle v0 = (-1,-1), v1 = (1,-1), v2 = (-1,1); the
 * lattice point (i,j) is (r, s) = (-1 + 2i/m, -1 + 2j/m), at
 * x = -(r+s)/2 x0 + (1+r)/2 x1 + (1+s)/2 x2 (same for y).
 *
 * Sub-triangles are filled without antialiasing (no seams between them), so
 * the pixel whose centre lies inside a sub-triangle (away from its edges)
 * has exactly the colour hdg_png_colour gives for its value. */
#ifndef HDG_PNG_H
#define HDG_PNG_H

#include "hdg.h"

#define HDG_PNG_MIN_SIZE 200     /* width and height at least this, */
#define HDG_PNG_MAX_SIZE 8192    /* and at most this many pixels */

typedef struct hdg_png_plot {
    int width, height;        /* image size in pixels */
    int ne;                   /* elements */
    const double *vxy;        /* ne*6: x0,y0,x1,y1,x2,y2 per element */
    int m;                    /* sub-triangles per element: m^2 (m >= 1) */
    const double *vals;       /* ne*m*m values in sub-triangle order, element by element */
    double vmin, vmax;        /* colour range; vmin >= vmax: the values' min and max */
    const char *field;        /* colour bar title (may be NULL) */
    const char *caption;      /* caption line (may be NULL) */
    int edges;                /* draw the elements' edges (thin, grey) */
    int noaxes;               /* no frame, ticks or coordinates (a view whose plane
                               * coordinates mean nothing: png3d.h's surface, its
                               * triangles given far to near); the edges are then
                               * drawn with each element, so nearer ones cover them */
} hdg_png_plot;

#define HDG_PNG_MAX_TICKS 16

/* Where things went: pixel (px, py) of a point (x, y) of the mesh is
 * px = ox + scale*x, py = oy - scale*y (pixel centres at half-integers);
 * vmin, vmax: the colour range used. The frame around the mesh's bounding
 * box: columns frame_x0..frame_x1, rows frame_y0..frame_y1 (pixel edges);
 * tick marks point out of it, below it at x = xt[i] and left of it at
 * y = yt[i], each with its label (hdg_png_tick_label) beyond the mark.
 * The colour bar covers columns bar_x .. bar_x + bar_w, value v at row
 * bar_bot - (v - vmin) / (vmax - vmin) (bar_bot - bar_top); its ticks ct[i]
 * are marks right of it with their labels. font: the text size in pixels.
 * A plot with noaxes has nxt = nyt = 0 and no frame drawn. */
typedef struct hdg_png_layout {
    double scale, ox, oy;
    double vmin, vmax;
    double frame_x0, frame_y0, frame_x1, frame_y1;
    double bar_x, bar_w, bar_top, bar_bot, font;
    int nxt, nyt, nct;
    double xt[HDG_PNG_MAX_TICKS], yt[HDG_PNG_MAX_TICKS], ct[HDG_PNG_MAX_TICKS];
    double xstep, ystep, cstep;   /* the ticks' spacing */
} hdg_png_layout;

/* Ticks at the multiples of a nice step (1, 2 or 5 x 10^k) inside [lo, hi],
 * about `target` of them (at least 3 for target >= 4 when lo < hi; lo = hi:
 * lo alone): writes at most max of them to t, returns how many, *step the
 * step. */
int hdg_png_ticks(double lo, double hi, int target, double *t, int max, double *step);

/* A tick's label: v with the decimals its step needs ("0.2", "1", "-0.05"
 * for steps 0.2, 1, 0.05), or %.3g for very large or small numbers. */
void hdg_png_tick_label(double v, double step, char *buf, size_t n);

/* The m^2 sub-triangles' centroids in reference coordinates, in sub-triangle
 * order (r[k], s[k]). */
void hdg_png_centroids(int m, double *r, double *s);

/* The colour of v in the range [vmin, vmax] (clamped; vmin >= vmax: the
 * middle): viridis quantised to 256 levels, as 8-bit r, g, b. */
void hdg_png_colour(double v, double vmin, double vmax, unsigned char rgb[3]);

/* Draws the plot and writes it to path (atomically: a temporary beside it,
 * renamed when whole). Sizes outside [HDG_PNG_MIN_SIZE, HDG_PNG_MAX_SIZE],
 * m < 1, non-finite coordinates or values: HDG_EINPUT; an unwritable path:
 * HDG_EIO. lay (may be NULL) receives the layout. */
hdg_status hdg_png_write(const char *path, const hdg_png_plot *pl, hdg_png_layout *lay, hdg_error *err);

#endif
