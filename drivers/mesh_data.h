/* mesh_data.h — the per-element (and per-face) data the generated kernels read,
 * filled from a mesh in the layouts the lowerings define (ir/lower.h HDG_G_*,
 * ir/lower_dg.h DG_G_* / DG_M_*). The runtime knows neither layout and the
 * lowerings know no mesh; this driver code is the one place that knows both. */
#ifndef HDG_MESH_DATA_H
#define HDG_MESH_DATA_H

#include "frontend/frontend.h"
#include "hdg.h"
#include "ir/lower.h"
#include "ir/lower_dg.h"
#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"

/* Is face f a boundary face carrying one of the markers of mk? Matches "all",
 * marker names, and integer tags written in the file against mesh ids — the
 * same rule `hdgc check --mesh` and the marker check of `hdgc run` use. */
int hdg_face_on_markers(const hdg_mesh *m, int f, const hdg_markers *mk);

/* HDG: ne x L->ngeom doubles (vertices, affine map, per face nx ny sJ, then
 * the marker-set flags). */
void hdg_hdg_fill_geom(const hdg_lowered *L, const hdg_mesh *m, const hdg_geom *g, double *geom);

/* DG: per-element geometry (ne x ngeom doubles, hdg_dg_g_*) and face map (ne x
 * nimap ints; ir/lower_dg.h, the layouts of the mesh's dimension, which must be
 * the problem's: HDG_EINPUT otherwise; in 3D the exterior node row carries the
 * face's orientation, compared on the topological vertices): boundary faces get the first EXTERIOR condition whose
 * markers include the face's marker. HDG_EINPUT when a boundary face whose
 * exterior values a flux needs has no condition (a partition interface needs
 * none: it bounds only ghosts, whose rows are never computed). */
hdg_status hdg_dg_fill_maps(const hdg_dg_lowered *L, const hdg_problem *p, const hdg_mesh *m,
                            const hdg_geom *g, double *geom, int *fmap, hdg_error *err);

/* DG element order for the kernels: Morton (Z-curve) order of the centroids
 * (16 bits a coordinate in 2D, 21 in 3D), so
 * that neighbours lie close in memory and the face values a stage reads from
 * them come from cache. (In the row-by-row numbering of square:N the
 * neighbour across a horizontal edge is 2N elements ahead and not yet
 * touched: at N = 4 on square:128 its loads took 40% of the surface kernel's
 * time, and a stage ran 1.3x (N = 4) to 2x (N = 1) slower than in this
 * order.) Reorders the rows of geom and fmap as filled by hdg_dg_fill_maps
 * (neighbour numbers included); pos[e] receives the position of mesh element
 * e, i.e. its row in the state arrays. */
void hdg_dg_order_elements(const hdg_dg_lowered *L, const hdg_mesh *m, double *geom, int *fmap, int *pos);
/* The same with the elements grouped by class first (cls[e] ascending, Morton
 * order within a class; cls NULL: one class): under mpirun the own elements
 * that need no ghost, then those that do, then the ghosts, so that each group
 * is a range of rows. */
void hdg_dg_order_elements_classed(const hdg_dg_lowered *L, const hdg_mesh *m, const int *cls, double *geom,
                                   int *fmap, int *pos);

#endif
