/* mesh_size.h — the sizes and memory of a mesh known before it is built, so
 * that one too large for the machine is refused with a figure ("square:8000
 * needs about 44 GiB, more than the 7.1 GiB available") instead of an abort
 * half-way. The byte counts follow the arrays of runtime/mesh/mesh.c and
 * runtime/fem/geometry.c; keep them in step. */
#ifndef HDG_MESH_SIZE_H
#define HDG_MESH_SIZE_H

typedef struct hdg_mesh_size {
    double nv, ne, nf, nbf;   /* vertices, elements, faces, boundary faces */
    int dim;                  /* 2: triangles, 3: tetrahedra */
} hdg_mesh_size;

/* square:N[,...] or cube:N[,...]: 1 with the sizes of the mesh it builds; 0 for a
 * file or a spec the loader will refuse (it says why). */
int hdg_mesh_spec_size(const char *spec, hdg_mesh_size *s);

/* Bytes the mesh keeps (hdg_mesh arrays) and the peak while it is built
 * (those plus the topology's temporaries). */
double hdg_mesh_kept_bytes(const hdg_mesh_size *s);
double hdg_mesh_build_bytes(const hdg_mesh_size *s);

/* Bytes of hdg_geom_init's per-element arrays on ne elements of dimension dim. */
double hdg_geom_bytes(int dim, double ne);

/* For a square:N or cube:N spec, HDG_ENOMEM "SPEC needs about X GiB, more than
 * the Y GiB available" when building it, or keeping it plus extra bytes per
 * element, needs more memory than is available; for a mesh file, when about
 * 17 times its size does (its text plus the mesh it becomes). */
#include "hdg.h"
hdg_status hdg_mesh_spec_memory_check(const char *spec, double extra_per_element, hdg_error *err);

#endif
