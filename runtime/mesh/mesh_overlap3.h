/* mesh_overlap3.h — the overlap check of tetrahedral meshes (mesh_overlap3.c), called
 * by hdg_mesh_build_topology (mesh.c) once the faces are paired. */
#ifndef HDG_MESH_OVERLAP3_H
#define HDG_MESH_OVERLAP3_H

#include "runtime/mesh/mesh.h"

/* bf: nb geometric boundary faces (faces of one element, and both copies of a
 * periodic face), 5 ints each: the 3 vertices ordered so that (b-a)x(c-a) points
 * out of the element, the element, its vertex off the face. HDG_EINPUT naming two
 * elements when some point just inside a boundary face is covered twice. */
hdg_status hdg_mesh_overlap3(const hdg_mesh *m, int nb, const int *bf, hdg_error *err);

#endif
