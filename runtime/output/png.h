/* png.h — a picture of a scalar field on a triangle mesh, drawn with cairo
 * into a PNG file: the field in the viridis colour map, a colour bar with
 * the range, and a caption line.
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
} hdg_png_plot;

/* Where things went: pixel (px, py) of a point (x, y) of the mesh is
 * px = ox + scale*x, py = oy - scale*y (pixel centres at half-integers);
 * vmin, vmax: the colour range used. */
typedef struct hdg_png_layout {
    double scale, ox, oy;
    double vmin, vmax;
} hdg_png_layout;

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
