/* png3d.h — pictures of a field on tetrahedra without ParaView, drawn by
 * png.h: a plane section, and the boundary surface seen from an angle.
 *
 * Both turn the tetrahedra into flat triangles for hdg_png_write (its vxy,
 * m and vals: each triangle cut into m^2 sub-triangles filled with the
 * field at their centroids, in png.h's sub-triangle order), so the colour
 * map, range, colour bar, caption and ticks are the 2D picture's.
 *
 * The drawing does not know the solver's basis: the caller gives a sampler,
 * called once per flat triangle with the reference coordinates of the m^2
 * centroids in their tetrahedron, e (its index in the caller's list):
 *     sample(ctx, e, n, x, vals): vals[q] = the field at (x[0][q], x[1][q],
 *     x[2][q]), q < n,
 * on runtime/fem/refel.h's reference tetrahedron v0 = (-1,-1,-1),
 * v1 = (1,-1,-1), v2 = (-1,1,-1), v3 = (-1,-1,1) (the point with
 * barycentric weights l0..l3 on the element's vertices has
 * (r, s, t) = (2 l1 - 1, 2 l2 - 1, 2 l3 - 1)). */
#ifndef HDG_PNG3D_H
#define HDG_PNG3D_H

#include "hdg.h"

typedef void (*hdg_png_sampler)(void *ctx, int e, int n, const double *const *x, double *vals);

typedef struct hdg_png_tets {
    int ne;                  /* tetrahedra */
    const double *vxyz;      /* ne*12: x,y,z of v0, v1, v2, v3 per element */
    hdg_png_sampler sample;
    void *ctx;
} hdg_png_tets;

/* Flat triangles for hdg_png_write (new arrays; hdg_png_flat_free). */
typedef struct hdg_png_flat {
    int ne;          /* triangles */
    int m;           /* sub-triangles per triangle: m^2 */
    double *vxy;     /* ne*6: the triangles' corners in the picture's plane */
    double *vals;    /* ne*m*m: the field at the sub-triangles' centroids */
    int *elem;       /* ne: the tetrahedron each triangle lies in (or on) */
} hdg_png_flat;

void hdg_png_flat_free(hdg_png_flat *f);

/* The section of the tetrahedra by the plane x_axis = at (axis 0, 1, 2 for
 * x, y, z): each tetrahedron the plane cuts gives a triangle or a
 * quadrilateral (cut in two along a diagonal); a tetrahedron that the plane
 * only touches at a vertex or an edge gives nothing, and a face in the
 * plane is given by each tetrahedron that has it. The picture's plane
 * coordinates (right, up) are (x, y) for z = at, (y, z) for x = at and
 * (x, z) for y = at. A plane that cuts no tetrahedron: HDG_EINPUT saying the
 * range of that coordinate over the mesh. m >= 1. */
hdg_status hdg_png_slice(const hdg_png_tets *T, int axis, double at, int m, hdg_png_flat *out, hdg_error *err);

#define HDG_PNG_AZIMUTH 30.0     /* the surface view's default direction, degrees */
#define HDG_PNG_ELEVATION 25.0

/* The boundary surface (the faces of exactly one tetrahedron, found by their
 * vertices' coordinates: a periodic mesh shows both sides) seen from the
 * direction d = (cos el sin az, -cos el cos az, sin el) (azimuth az from the
 * front, -y, toward +x; elevation el above the x-y plane; orthographic):
 * the picture's plane coordinates are (right, up) = (p . (cos az, sin az, 0),
 * p . (-sin el sin az, sin el cos az, cos el)). Faces turned away from the
 * viewer (outward normal . d <= 0) are left out, the others drawn far to
 * near (painter's algorithm by the depth of their centroids, d . p), so on a
 * convex domain every drawn face is wholly visible. With the defaults a box
 * shows its front (y = min), right (x = max) and top (z = max) faces. */
hdg_status hdg_png_surface(const hdg_png_tets *T, double azimuth, double elevation, int m, hdg_png_flat *out,
                           hdg_error *err);

/* The picture's plane coordinates of a point p of the surface view (as
 * hdg_png_surface maps it); depth: d . p (larger is nearer). */
void hdg_png_view_point(double azimuth, double elevation, const double p[3], double *right, double *up,
                        double *depth);

#endif
