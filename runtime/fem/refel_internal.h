/* refel_internal.h — what refel.c (the shared construction and the triangle)
 * and refel_tet.c (the tetrahedron's basis and nodes) share; not an API. */
#ifndef HDG_REFEL_INTERNAL_H
#define HDG_REFEL_INTERNAL_H

#include "runtime/fem/refel.h"

/* H&W Warpfactor / evalwarp: the displacement from equispaced to the
 * Gauss-Lobatto points gll (N+1 of them), interpolated, at x, divided by
 * 1 - x^2 (0 at the end points). */
double hdg_refel_warp_factor(int N, const double *gll, double x);

/* The warp-and-blend nodes of the reference triangle (H&W Nodes2D + xytors)
 * for blending parameter alpha, in the lattice order. N >= 1. */
hdg_status hdg_refel_tri_nodes(int N, double alpha, double *r, double *s, hdg_error *err);

/* Index of the lattice point with integer coordinates c[0..dim-1] (c[d]
 * along x_d, sum <= N) in the node order of refel.h. */
int hdg_refel_lattice_index(int dim, int N, const int *c);

/* The tetrahedron's PKD basis and gradients (hdg_simplex_eval, dim 3). */
void hdg_refel_tet_eval(int N, int npts, const double *const *x, double *P, double *const *dP);

/* The tetrahedron's warp-and-blend nodes (H&W Nodes3D, their optimised
 * alpha), in the lattice order, and its face node set: the triangle's
 * warp-and-blend nodes for the same alpha, made exactly symmetric under the
 * six orientations (face coordinates a, b). N >= 1. */
hdg_status hdg_refel_tet_nodes(int N, double *r, double *s, double *t, hdg_error *err);
hdg_status hdg_refel_tet_face_nodes(int N, double *a, double *b, hdg_error *err);

#endif
