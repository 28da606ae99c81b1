/* geometry.h — per-element affine geometric factors of a triangle mesh.
 *
 * Element e maps the reference triangle v0=(-1,-1), v1=(1,-1), v2=(-1,1) onto its
 * vertices (x0,y0), (x1,y1), (x2,y2) (counter-clockwise, mesh.h):
 *     x = -(r+s)/2 x0 + (1+r)/2 x1 + (1+s)/2 x2     (same for y)
 * so xr = (x1-x0)/2, xs = (x2-x0)/2, J = xr ys - xs yr > 0 (area = 2 J), and
 *     rx = ys/J, ry = -xs/J, sx = -yr/J, sy = xr/J.
 * Face arrays are indexed 3e+j by element and local face j (v_j -> v_{j+1}):
 *     nx, ny  outward unit normal;  sJ = face length / 2 (Jacobian from [-1,1]);
 *     Fscale = sJ / J.
 * Normals and sJ are computed from the face's edge vector, so the two elements of
 * an interior face get exactly opposite normals and identical sJ. */
#ifndef HDG_GEOMETRY_H
#define HDG_GEOMETRY_H

#include "hdg.h"
#include "runtime/mesh/mesh.h"

typedef struct hdg_geom {
    int ne;
    int dim;                     /* the mesh's: 2 or 3 */
    /* Per element (ne each): G[d][k] = dx_d/dr_k and Ginv[k][d] = dr_k/dx_d for
     * d, k < dim (the other pointers NULL); the 2D names alias them. */
    union {
        double *G[3][3];
        struct { double *xr, *xs, *G02, *yr, *ys; };
    };
    union {
        double *Ginv[3][3];
        struct { double *rx, *ry, *Ginv02, *sx, *sy; };
    };
    double *J;                   /* ne */
    /* Per local face, (dim+1) ne each, index (dim+1) e + j: the outward normal
     * n[d] (d < dim; nx, ny alias n[0], n[1]), sJ and Fscale. */
    union {
        double *n[3];
        struct { double *nx, *ny, *nz; };
    };
    double *sJ, *Fscale;
    double *rin;                 /* ne: inscribed radius */
    double *h;                   /* ne: longest edge */
} hdg_geom;

/* Fails (HDG_EINPUT naming the element) if some J <= 0: the mesh must come from
 * hdg_mesh_build_topology, which makes every triangle counter-clockwise. */
hdg_status hdg_geom_init(hdg_geom *g, const hdg_mesh *m, hdg_error *err);
void hdg_geom_free(hdg_geom *g);

/* The affine factors of one simplex of dimension dim (2 or 3), the dimension
 * as data: the reference simplex of refel.h mapped onto the vertices
 * X[k*dim+d] (k = 0..dim in the reference vertex order):
 *     x = X_0 + sum_k (X_(k+1) - X_0) (1 + r_k)/2,
 * G[d][k] = dx_d/dr_k = (X_(k+1),d - X_0,d)/2, J = det G (|K| = J |K_ref|),
 * Ginv = G^-1 (Ginv[k][d] = dr_k/dx_d). Faces f (refel.h's numbering, at most
 * 4): n[f] the outward unit normal (away from the vertex off the face, for
 * either sign of J), sJ[f] = |f| / 2 (the face Jacobian from the reference
 * interval or triangle, both of measure 2), Fscale[f] = sJ[f] / J; rin the
 * inscribed radius (dim |K| / sum |f| = 4 |J| / sum_f |f|) and h the longest
 * edge. On a triangle the numbers are those hdg_geom_init stores, to the
 * bit. */
typedef struct hdg_simplex_geom {
    double G[3][3], Ginv[3][3], J;
    double n[4][3], sJ[4], Fscale[4];
    double rin, h;
} hdg_simplex_geom;

void hdg_simplex_geometry(int dim, const double *X, hdg_simplex_geom *g);

/* Physical point (x, y) of reference point (r, s) in element e (a triangle). */
void hdg_geom_map(const hdg_mesh *m, int e, double r, double s, double *x, double *y);

/* Any dimension: x[d] (d < dim) of the reference point r[k] (k < dim) in element e. */
void hdg_geom_map_point(const hdg_mesh *m, int e, const double *r, double *x);

#endif
