/* mesh.h — triangle and tetrahedral meshes: the structured generators (square:N,
 * cube:N), the Gmsh reader, and the topology every other layer relies on. The
 * conventions below are written for triangles; the 3D ones follow them (the block
 * after this one).
 *
 * Conventions (fixed; other layers depend on them):
 *  - Triangles are counter-clockwise. Clockwise input is reoriented silently by
 *    swapping its vertices 1 and 2 (counted in nreoriented).
 *  - Reference triangle v0=(-1,-1), v1=(1,-1), v2=(-1,1). Local face j of an element
 *    joins local vertex j to vertex (j+1)%3 (face 0: v0-v1, 1: v1-v2, 2: v2-v0).
 *  - Global face f: fe[2f] is its FIRST element (the lowest-numbered element that
 *    has it), fe[2f+1] the second one (-1 on a boundary face). The canonical
 *    direction of f is the one in which fe[2f] traverses it (v_j -> v_{j+1});
 *    fv[2f], fv[2f+1] are its vertices in that order. The second element
 *    traverses it reversed. eforient[3e+j] = 0 when element e traverses its local
 *    face j canonically, 1 when reversed. flf[2f+k] = local face index of f in fe[2f+k].
 *  - Faces are numbered in order of first appearance scanning elements e = 0..ne-1,
 *    local faces j = 0..2 (so fe[2f] < fe[2f+1] and faces are roughly element-local).
 *  - Coupling list (row structure of the trace matrix, na = 5 blocks a row):
 *      fnbr[5f+0] = f;
 *      fnbr[5f+1], fnbr[5f+2] = local faces (flf[2f]+1)%3, (flf[2f]+2)%3 of fe[2f];
 *      fnbr[5f+3], fnbr[5f+4] = local faces (flf[2f+1]+1)%3, (flf[2f+1]+2)%3 of fe[2f+1]
 *                               (-1 on boundary faces: 3 valid entries there, 5 inside).
 *    fnbr_elem[5f+a] is the element the block couples through and fnbr_lf[5f+a]
 *    the local index of face fnbr[5f+a] in that element (for a = 0: fe[2f], flf[2f];
 *    the diagonal block also collects fe[2f+1] when it exists). -1 for padding.
 *  - Boundary markers: fmark[f] = 0 on interior faces, > 0 on boundary faces.
 *    Marker ids run 1..nmarkers; marker_names[id] is the name, NULL for an id
 *    that names nothing (Gmsh physical tags need not be contiguous; [0] unused).
 *    square:N: 1 "bottom" (y = ymin), 2 "right", 3 "top", 4 "left".
 *    Gmsh: the physical tag of the boundary line elements is the marker; the name
 *    comes from $PhysicalNames (dimension 1) or is the decimal tag. Boundary faces
 *    that no physical line covers get one extra marker named "boundary" (id =
 *    largest tag + 1; "boundary_untagged" if a physical group already uses the name
 *    "boundary"); their count is nuntagged. A physical line on an interior edge is
 *    ignored; when two physical lines cover one face, the first in the file wins.
 *  - Periodic meshes (mesh_periodic.c): vtop[v] is the topological vertex of the
 *    geometric vertex v (the smallest vertex identified with it; vtop[vtop[v]] = vtop[v]),
 *    NULL when nothing is identified. Coordinates stay per element: ev, vx, vy are the
 *    geometric vertices, and faces are paired through vtop, so a periodic face (an
 *    interior face whose two elements see translated copies of it) has two elements like
 *    any interior face. fv holds its geometric vertices as the FIRST element sees them;
 *    the second element's copy is the same edge translated (hdg_mesh_face_shift) and
 *    traversed reversed. ftv[2f], ftv[2f+1] = vtop of fv (= fv without periodicity):
 *    what a vertex-based space (the P1 coarse space of mg.c) must use. The paired
 *    groups' faces are interior: their tags are dropped and their marker names cleared.
 *  - Element numbers in messages are 0-based and always written "element E";
 *    file positions are "path:LINE:" with 1-based lines.
 */
/* Dimension as data (one code path for 2D and 3D). The strides of the arrays
 * below, with d = dim:
 *   ev, ef, eforient: hdg_mesh_nfe(m) = d+1 per element (vertices = faces);
 *   fv, ftv:          hdg_mesh_nvf(m) = d per face;
 *   fnbr, fnbr_elem, fnbr_lf: hdg_mesh_na(m) = 2d+1 per face (5 in 2D, 7 in 3D);
 *   fe, flf:          2 per face.
 * Local face j of an element has the vertices ev[hdg_simplex_face_vertices(d, j)[k]],
 * k < d (runtime/fem/refel.h; in 2D (j, j+1 mod 3) as above). fv[d f + k] lists them
 * in the order the FIRST element sees them; eforient[(d+1) e + j] is the orientation o
 * of that element's order against fv (hdg_face_orientation(d, fv, its order), so
 * b_k = a_pi(k)): 0 for the first element; in 2D 1 means reversed, in 3D o = 0..5.
 * The coupling list in 3D: fnbr[7f+0] = f, fnbr[7f+1..3] = local faces
 * (flf[2f]+1..3)%4 of fe[2f], fnbr[7f+4..6] = (flf[2f+1]+1..3)%4 of fe[2f+1].
 * Tetrahedra are stored positively oriented (det of (v1-v0, v2-v0, v3-v0) > 0). */
#ifndef HDG_MESH_H
#define HDG_MESH_H

#include <stddef.h>

#include "hdg.h"

typedef struct hdg_mesh {
    int dim;               /* 2: triangles, 3: tetrahedra (0 before build_topology: read as 2) */
    int nv, ne, nf, nbf;   /* vertices, elements, faces, boundary faces */
    double *vx, *vy;       /* nv: vertex coordinates */
    double *vz;            /* nv: z coordinates (dim 3 only; NULL in 2D) */
    int *ev;               /* (d+1)ne: vertices of element e, positively oriented */
    int *ef;               /* (d+1)ne: global face of local face j of element e */
    int *eforient;         /* (d+1)ne: orientation against fv (see above; 2D: 0 canonical, 1 reversed) */
    int *fv;               /* d nf: face vertices as the first element sees them */
    int *fe;               /* 2nf: first and second element (-1: boundary) */
    int *flf;              /* 2nf: local face index in fe[2f+k] (-1: none) */
    int *fmark;            /* nf: 0 interior, > 0 boundary marker id */
    int *fnbr;             /* na nf (na = 2d+1): coupling list, -1 padding */
    int *fnbr_elem;        /* na nf: element each coupling goes through, -1 padding */
    int *fnbr_lf;          /* na nf: local face of fnbr[na f+a] in fnbr_elem[na f+a] */
    int nmarkers;          /* largest marker id */
    char **marker_names;   /* nmarkers+1 entries, [0] and unused ids NULL */
    char *source;          /* the spec or path the mesh came from */
    int nreoriented;       /* clockwise triangles / inverted tetrahedra that were flipped */
    int nuntagged;         /* boundary faces given the "boundary" marker */
    int untagged_marker;   /* id of that marker, 0 if there is none */

    /* Periodicity (see above): NULL / 0 / NULL on an ordinary mesh. */
    int *vtop;             /* nv: topological vertex of each vertex, or NULL */
    int *ftv;              /* d nf: topological vertices of each face (always set) */
    int nperiodic;         /* periodic faces */
    char *periodic;        /* the pairs, "left:right,bottom:top", for messages */

    /* A rank's piece of a distributed mesh (mesh_dist.h): the marker of its
     * partition interfaces (boundary faces of the piece, interior to the
     * domain), 0 on a whole mesh. */
    int partition_marker;

    /* Provenance (NULL for generated meshes), used in error messages. */
    long long *vtag;       /* nv: Gmsh node tag of each vertex */
    int *eline;            /* ne: 1-based file line defining each element */
    /* Constructor input to hdg_mesh_build_topology: tagged boundary faces,
     * dim+2 ints each (the face's dim vertices in any order, marker id, file
     * line or 0): 4 ints for an edge, 5 for a triangle. */
    int ntag;
    int *tag;
} hdg_mesh;

static inline int hdg_mesh_dim(const hdg_mesh *m) { return m->dim ? m->dim : 2; }
static inline int hdg_mesh_nfe(const hdg_mesh *m) { return hdg_mesh_dim(m) + 1; }
static inline int hdg_mesh_nvf(const hdg_mesh *m) { return hdg_mesh_dim(m); }
static inline int hdg_mesh_na(const hdg_mesh *m) { return 2 * hdg_mesh_dim(m) + 1; }

/* square:N on [x0,x1]x[y0,y1]: N x N cells, each cut by its diagonal from
 * (xi,yj) to (xi+1,yj+1) into 2 triangles; 2N^2 triangles, (N+1)^2 vertices
 * (vertex (i,j) has index j(N+1)+i), 3N^2+2N faces. perturb = p moves interior
 * vertices by a pseudo-random offset in (-p h, p h) per coordinate (fixed seed,
 * identical on every machine); always valid for p <= 0.25, checked anyway.
 * 1 <= N <= 8000 (element counts stay far from INT_MAX). */
hdg_status hdg_mesh_square(hdg_mesh *m, int N, double perturb, double x0, double x1,
                           double y0, double y1, hdg_error *err);

/* cube:N on box = {x0,x1,y0,y1,z0,z1}: N^3 cells, each cut into the 6 tetrahedra of
 * the Kuhn (Freudenthal) split along its main diagonal (x0,y0,z0)-(x1,y1,z1), so
 * neighbouring cells match; 6N^3 tetrahedra, (N+1)^3 vertices (vertex (i,j,k) has
 * index (k(N+1)+j)(N+1)+i; cell (i,j,k)'s tetrahedra are 6((kN+j)N+i)+0..5),
 * 12N^3+6N^2 faces of which 12N^2 on the boundary. Markers: 1 "left" (x = x0),
 * 2 "right" (x = x1), 3 "front" (y = y0), 4 "back" (y = y1), 5 "bottom" (z = z0),
 * 6 "top" (z = z1); 2N^2 faces each. perturb = p moves interior vertices by
 * p h_a times a pseudo-random number in (-1, 1) per coordinate a (fixed seed);
 * every tetrahedron stays positive for p < 1/6 (the minimum of its volume over
 * the box of displacements is at a corner: 1 - 6p of the unperturbed one), checked
 * anyway. 1 <= N <= 280 (element counts stay far from INT_MAX). */
hdg_status hdg_mesh_cube(hdg_mesh *m, int N, double perturb, const double box[6], hdg_error *err);

/* Gmsh .msh, format 2.2 or 4.1 ASCII: 3-node triangles, 2-node boundary lines
 * (physical tags = markers), points ignored, anything else an error. */
hdg_status hdg_mesh_read_gmsh(hdg_mesh *m, const char *path, hdg_error *err);

/* The same from bytes in memory (need not be NUL-terminated); name stands for
 * the path in messages and m->source (the fuzz harness, fuzz/gmsh.c, uses it). */
hdg_status hdg_mesh_read_gmsh_buffer(hdg_mesh *m, const char *name, const char *data, size_t len,
                                     hdg_error *err);

/* "square:N[,perturb=p][,domain=[a,b]^2 | ,domain=[a,b]x[c,d]][,periodic=x|y|xy]" or
 * "PATH.msh[,periodic=A:B[,C:D]]", either followed by ",refine=L" (0 <= L <= 10): refined
 * uniformly L times (hdg_mesh_refine). */
hdg_status hdg_mesh_load(hdg_mesh *m, const char *spec, hdg_error *err);

/* Periodicity (mesh_periodic.c): on a built mesh, pairs the boundary groups of
 * pairs = "A:B[,C:D...]" (marker names or integer ids): each face of A must match a face
 * of B translated by the vector between the groups' bounding-box centres (midpoints and
 * ends within 1e-10 of the mesh size), paired vertices are identified (vtop), the
 * groups' tags and names are dropped, and the topology is rebuilt. Errors name the
 * face without a partner with its element and coordinates. */
hdg_status hdg_mesh_make_periodic(hdg_mesh *m, const char *pairs, hdg_error *err);

/* Is face f periodic (its second element sees a translated copy)? */
int hdg_mesh_face_periodic(const hdg_mesh *m, int f);

/* The translation from the second element's copy of face f to the first's
 * (0, 0 on an ordinary face or a boundary face). */
void hdg_mesh_face_shift(const hdg_mesh *m, int f, double *dx, double *dy);

/* ",periodic=..." in a mesh spec without ",refine=" (hdg_mesh_spec_refine strips
 * that first): the offset of the comma, or -1. */
long hdg_mesh_spec_periodic(const char *spec, size_t len);

/* Uniform refinement (mesh_refine.c): every triangle into four through its edge midpoints
 * (vertex nv + f is the midpoint of face f; element e's children are 4e..4e+3), both halves
 * of a boundary edge keep its marker, marker names are kept. */
hdg_status hdg_mesh_refine(const hdg_mesh *in, hdg_mesh *out, hdg_error *err);

/* ",refine=L" at the end of a spec: returns L and sets *base_len to the length of the spec
 * before it; -1 without the suffix (*base_len = strlen), -2 when L is not 0..10, -3 when
 * other options follow it (refine must come last). */
int hdg_mesh_spec_refine(const char *spec, size_t *base_len);

/* From dim (0 reads as 2), nv, vx, vy (vz in 3D), ne, ev (and optionally tag, eline,
 * vtag, markers): checks and reorients the elements, builds faces, orientation,
 * coupling lists and markers, with one code path for both dimensions (faces are
 * paired by their sorted topological vertex tuples). Called by the constructors.
 * Fails on degenerate elements (|area| <= 1e-14 h^2, |volume| <= 1e-14 h^3 for
 * the longest edge h), overlapping elements (two on the same side of a face; in
 * 2D also any two covering a common area: found from the winding number of the
 * geometric boundary, mesh.c), non-manifold faces, tagged faces that are not
 * mesh faces. */
hdg_status hdg_mesh_build_topology(hdg_mesh *m, hdg_error *err);

/* Frees every array and zeroes *m (safe on a zeroed or failed mesh). */
void hdg_mesh_free(hdg_mesh *m);

/* Marker id of a name, -1 if no marker has it. */
int hdg_mesh_marker_id(const hdg_mesh *m, const char *name);

/* Number of faces carrying marker id. */
int hdg_mesh_marker_count(const hdg_mesh *m, int id);

/* Sets marker id's name (grows the table; replaces an existing name). */
void hdg_mesh_set_marker_name(hdg_mesh *m, int id, const char *name);

#endif
