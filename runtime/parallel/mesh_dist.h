/* mesh_dist.h — a mesh split over the ranks of an mpirun job (issue 16).
 *
 * Rank 0 holds the whole mesh (read from Gmsh or generated), partitions its
 * elements into P parts by their face-adjacency graph (hdg_mesh_partition:
 * METIS k-way with a fixed seed, so that a run is repeatable: PT-Scotch,
 * which Debian's PETSc has, gave a different partition on every run), numbers the faces owner by
 * owner, and sends each rank its piece; then it frees the whole mesh, and
 * no rank holds more than its piece (plus one layer of face neighbours when
 * ghosts are asked for).
 *
 * A piece is an ordinary hdg_mesh (its topology built by
 * hdg_mesh_build_topology): its own elements first, in global order, then
 * the ghost elements (DG). A face between a rank's element and an element
 * that the piece does not hold (a partition interface) is a boundary face of
 * the piece with the marker partition_marker (named "(partition)"): it is not
 * a boundary of the domain, so no boundary condition or boundary term
 * applies there (hdg_face_on_markers says 0). Physical markers and their
 * names are those of the whole mesh. A periodic mesh's piece has its
 * vertices identified (vtop) as in the whole mesh.
 *
 * Faces: global face ids are numbered owner by owner; a face is owned by the
 * rank of its first element (fe[0] of the whole mesh), so a domain-boundary
 * face is owned by the rank of its element, and rank r owns the ids
 * fstart[r] .. fstart[r+1]-1. */
#ifndef HDG_MESH_DIST_H
#define HDG_MESH_DIST_H

#include "hdg.h"
#include "runtime/mesh/mesh.h"

typedef struct hdg_mesh_dist {
    int rank, size;
    int ne_owned;            /* elements 0..ne_owned-1 of the piece are this rank's */
    long long ne_global, nf_global, nv_global, nbf_global;
    long long *egid;         /* ne (piece): global element id */
    long long *fgid;         /* nf (piece): global face id (owner-contiguous numbering) */
    int *fowner;             /* nf (piece): owning rank of each face */
    long long *fstart;       /* size + 1: the owned global face ids of each rank */
    int nf_owned;            /* faces of the piece this rank owns */
    /* Vertices (topological: a periodic mesh's identified vertices are one),
     * numbered owner by owner (a vertex belongs to the rank of the first
     * element that has it): vgid[v] for the piece's vertex v (vtop[v] on a
     * periodic piece has the same), rank r owns vstart[r] .. vstart[r+1]-1. */
    long long *vgid, *vstart;
    /* Ghost exchange (ghosts > 0): nnbr neighbour ranks; the elements sent to
     * nbr[i] are send_elem[send_off[i] .. send_off[i+1]-1] (own elements, piece
     * numbering), those received from it are the ghosts
     * recv_off[i] .. recv_off[i+1]-1, counted from ne_owned. */
    int nnbr;
    int *nbr, *send_off, *send_elem, *recv_off;
    /* Partition faces shared with each neighbour rank (ghosts = 0, HDG): nfnbr
     * ranks fnbr[i], the faces fshare[fshare_off[i] .. fshare_off[i+1]-1] (piece
     * numbering) in global id order, so that both sides list a pair's faces alike. */
    int nfnbr;
    int *fnbr, *fshare_off, *fshare;
} hdg_mesh_dist;

/* The part (0..nparts-1) of every element of m, from METIS on the element
 * graph (elements sharing a face are adjacent; periodic faces too).
 * nparts = 1: all 0; nparts >= elements: one element a part, the rest empty. */
hdg_status hdg_mesh_partition(const hdg_mesh *m, int nparts, int *part, hdg_error *err);

/* Collective. whole: the mesh on rank 0 (ignored elsewhere, may be NULL);
 * piece, d: this rank's piece. ghosts: 0 (HDG) or 1 (DG: one layer of face
 * neighbours, with the exchange lists). Rank 0 partitions; an error there
 * (the partitioner) reaches every rank. */
hdg_status hdg_mesh_distribute(const hdg_mesh *whole, int ghosts, hdg_mesh *piece, hdg_mesh_dist *d,
                               hdg_error *err);

/* Partition statistics of part on m (no MPI needed): per part, elements and
 * interface faces (faces with an element in another part), and neighbour
 * parts. Each array has nparts entries (NULL: not wanted). */
void hdg_mesh_partition_stats(const hdg_mesh *m, int nparts, const int *part, int *nelem, int *nhalo,
                              int *nnbr);

/* Collective among neighbours (ghosts = 0): v holds m values a face of the piece,
 * partial sums on the partition faces (e.g. trace rows assembled from this
 * rank's elements); on return each partition face holds the sum over the two
 * ranks that share it, the same bits on both (a + b = b + a). Without d, or
 * with no partition face, nothing happens. */
void hdg_mesh_dist_face_sum(const hdg_mesh_dist *d, int m, double *v);

void hdg_mesh_dist_free(hdg_mesh_dist *d);

#endif
