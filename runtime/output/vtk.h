/* vtk.h — VTK XML output (.vtu for ParaView) of discontinuous high-order
 * nodal fields on triangles (dim 2) and tetrahedra (dim 3), and ParaView
 * collections (.pvd) for time series. One writer for both: the dimension is
 * data (hdg_vtk_data.dim).
 *
 * The writer does not know the reference element of the solver. The caller
 * samples each field on the equispaced lattice of degree p of every element,
 * in this fixed order ("lattice order"):
 *   triangle:    for j = 0..p, for i = 0..p-j:
 *                (r, s) = (-1 + 2i/p, -1 + 2j/p)
 *   tetrahedron: for k = 0..p, for j = 0..p-k, for i = 0..p-k-j:
 *                (r, s, t) = (-1 + 2i/p, -1 + 2j/p, -1 + 2k/p)
 * on the reference simplex v0 = (-1,...,-1), v1 = v0 + 2 e_r, v2 = v0 + 2 e_s
 * (, v3 = v0 + 2 e_t) (runtime/fem/refel.h's), so there are n_lat =
 * (p+1)(p+2)/2, resp. (p+1)(p+2)(p+3)/6 values per element
 * (hdg_vtk_lattice_points gives the points). p = 0 means one value per
 * element, at the centroid. A lattice point lies at
 *   x = l0 x0 + l1 x1 + l2 x2 (+ l3 x3),  l1 = (1+r)/2, l2 = (1+s)/2,
 *   l3 = (1+t)/2, l0 = 1 - l1 - l2 (- l3)
 * (the same for y, z) in an element with vertices x0, x1, ... (in 2D:
 * x = -(r+s)/2 x0 + (1+r)/2 x1 + (1+s)/2 x2).
 *
 * Points are duplicated per element (fields are discontinuous). Fields are
 * scalars, vectors or tensors: a vector (dim components) is written as one
 * array of 3 components (z = 0 in 2D), a tensor (dim x dim, row by row) as
 * one of 9 (row by row; in 2D xx, xy, yx, yy with zeros in the third row
 * and column), so ParaView draws them as arrows and tensors.
 *
 * Format: binary (the default), the arrays appended raw after the XML,
 * zlib-compressed in blocks (VTK's vtkZLibDataCompressor layout with UInt64
 * headers: the number of blocks, the block size, the size of a partial last
 * block, the compressed sizes, then the blocks), in the machine's byte
 * order as byte_order says; or ASCII, Float64 printed with %.17g (exact
 * round-trip). Both hold Float64 values, Int64 connectivity and offsets. */
#ifndef HDG_VTK_H
#define HDG_VTK_H

#include "hdg.h"

enum {
    /* One cell per element, its points in VTK's order.
     * Triangles: VTK_TRIANGLE (5) for p = 1, VTK_LAGRANGE_TRIANGLE (69) for
     * p >= 2: the 3 vertices, the p-1 points of edges v0-v1, v1-v2, v2-v0
     * (each walked in that direction), then the interior, recursively laid
     * out as a triangle of degree p-3.
     * Tetrahedra: VTK_TETRA (10) for p = 1, VTK_LAGRANGE_TETRAHEDRON (71) for
     * p >= 2 (vtkHigherOrderTetra): the 4 vertices v0..v3, the p-1 points of
     * the edges v0-v1, v1-v2, v2-v0, v0-v3, v1-v3, v2-v3 (each walked in that
     * direction), the interiors of the faces (v0,v1,v3), (v1,v2,v3),
     * (v2,v0,v3), (v0,v2,v1), each laid out as a Lagrange triangle of degree
     * p-3 whose vertices are, in its order, (v0,v1,v3), (v2,v3,v1),
     * (v0,v3,v2), (v0,v2,v1) (vtkHigherOrderTetra's FaceBCoords), then the
     * interior, recursively laid out as a tetrahedron of degree p-4. */
    HDG_VTK_LAGRANGE = 0,
    /* Each element cut into p^dim linear cells (VTK_TRIANGLE, VTK_TETRA) on
     * its lattice; works in every VTK reader. */
    HDG_VTK_SUBDIVIDE = 1
};

enum { HDG_VTK_BINARY = 0, HDG_VTK_ASCII = 1 };

#define HDG_VTK_MAX_DEGREE 255

/* n_lat, the number of lattice points of degree p on the simplex of
 * dimension dim (2 or 3): (p+1)(p+2)/2 or (p+1)(p+2)(p+3)/6 (0 if p < 0). */
int hdg_vtk_lattice_count(int dim, int p);

/* The reference coordinates of the lattice of degree p in lattice order:
 * x[d][k] for d < dim, k < n_lat (p = 0: the centroid, -1/3 in 2D, -1/2 in
 * 3D). */
void hdg_vtk_lattice_points(int dim, int p, double *const *x);

/* VTK's Lagrange point order (triangle or tetrahedron): lat[k] = the lattice
 * index of VTK point k, for k < n_lat (p >= 0). */
void hdg_vtk_lagrange_order_dim(int dim, int p, int *lat);

/* The same for triangles (dim 2). */
int hdg_vtk_lattice_size(int p);
void hdg_vtk_lattice(int p, double *r, double *s);
void hdg_vtk_lagrange_order(int p, int *lat);

/* Fields with one value per element (e.g. an error indicator), written as
 * cell data beside the lattice fields: n distinct names (distinct from the
 * lattice fields' too) and n arrays of ne values. With HDG_VTK_SUBDIVIDE
 * every sub-triangle of an element carries the element's value. */
typedef struct hdg_vtk_cells {
    int n;
    const char *const *names;
    const double *const *values;
} hdg_vtk_cells;

/* What one .vtu holds.
 *   dim     2 (or 0): triangles; 3: tetrahedra
 *   vxy     the vertex coordinates, element by element: 2D ne*6,
 *           x0,y0,x1,y1,x2,y2 (CCW); 3D ne*12, x0,y0,z0,...,x3,y3,z3
 *           (positively oriented: det(v1-v0, v2-v0, v3-v0) > 0, as VTK wants)
 *   names   nfields distinct, non-empty field names
 *   ncomp   per field 1 (scalar), dim (vector: x, y (, z)) or dim*dim
 *           (tensor, row by row: xx, xy, (xz,) yx, ...); NULL: every field
 *           a scalar
 *   values  one array of ne*n_lat values (lattice order, element by element)
 *           per component: the fields in order, each its components in order
 *   cells   cell fields (may be NULL: none)
 *   mode    HDG_VTK_LAGRANGE or HDG_VTK_SUBDIVIDE
 *   format  HDG_VTK_BINARY or HDG_VTK_ASCII
 * p = 0 writes one linear cell per element with the fields as cell data;
 * otherwise the fields are point data. */
typedef struct hdg_vtk_data {
    int ne;
    const double *vxy;
    int p;
    int nfields;
    const char *const *names;
    const int *ncomp;
    const double *const *values;
    const hdg_vtk_cells *cells;
    int mode;
    int format;
    int dim;
} hdg_vtk_data;

/* Writes an UnstructuredGrid .vtu file (binary: the compressed arrays are
 * held in memory, about the file's size, until the XML that gives their
 * offsets is written). Non-finite coordinates or values are
 * refused (HDG_EINPUT naming the field and element) before the file is
 * touched; an unwritable path gives HDG_EIO. The file is written atomically
 * (a temporary beside it, renamed over path when whole): on a write error no
 * partial file is left and a previous file at path is unchanged. */
hdg_status hdg_vtk_write_data(const char *path, const hdg_vtk_data *D, hdg_error *err);

/* hdg_vtk_write_data of scalar fields on triangles, binary. */
hdg_status hdg_vtk_write(const char *path, int ne, const double *vxy, int p, int nfields,
                         const char *const *names, const double *const *values, int mode,
                         hdg_error *err);
/* The same with cell fields (cells may be NULL: none). */
hdg_status hdg_vtk_write_cells(const char *path, int ne, const double *vxy, int p, int nfields,
                               const char *const *names, const double *const *values,
                               const hdg_vtk_cells *cells, int mode, hdg_error *err);

/* Writes a ParaView collection listing n data files with their times
 * (times = NULL uses 0, 1, 2, ...). files are paths as given to
 * hdg_vtk_write (absolute or relative to the current directory); the
 * collection stores each relative to the directory of the .pvd file, so the
 * output folder can be moved as a whole. Written atomically, as above. */
hdg_status hdg_pvd_write(const char *path, int n, const char *const *files, const double *times,
                         hdg_error *err);

/* The parallel file (.pvtu) over n pieces, each a .vtu written by
 * hdg_vtk_write_data with the degree, field names, components and cell
 * field names of D (its ne, vxy and values are not used): it declares the
 * same arrays in the same sections, types and numbers of components as the
 * pieces (PPoints, PPointData or, for p = 0, PCellData, and PCellData for
 * the cell fields) and lists the pieces' files, each stored relative to the
 * directory of path (as hdg_pvd_write does). Written atomically. */
hdg_status hdg_pvtu_write(const char *path, int n, const char *const *files, const hdg_vtk_data *D,
                          hdg_error *err);

/* One snapshot: path ending in .pvd writes the data to PATH_00000.vtu beside
 * it (the DG series' naming) and a one-entry collection (time 0) at path;
 * any other path is hdg_vtk_write_data's .vtu. */
hdg_status hdg_vtk_write_snapshot_data(const char *path, const hdg_vtk_data *D, hdg_error *err);
/* The same for scalar fields, binary. */
hdg_status hdg_vtk_write_snapshot(const char *path, int ne, const double *vxy, int p, int nfields,
                                  const char *const *names, const double *const *values, int mode,
                                  hdg_error *err);

#endif
