/* mesh_internal.h — what mesh.c (topology, checks) shares with mesh_gen.c (square:N, cube:N,
 * specs). Not part of any API. */
#ifndef HDG_MESH_INTERNAL_H
#define HDG_MESH_INTERNAL_H

#include "runtime/mesh/mesh.h"

/* Twice the signed area of triangle v (counter-clockwise: > 0). */
double hdg_mesh_signed_area2(const hdg_mesh *m, const int *v);
/* 6 times the signed volume of tetrahedron v: det(v1-v0, v2-v0, v3-v0). */
double hdg_mesh_signed_volume6(const hdg_mesh *m, const int *v);
/* The sign of the permutation p of 0..n-1. */
int hdg_mesh_perm_sign(const int *p, int n);

#endif
