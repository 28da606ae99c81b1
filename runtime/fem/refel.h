/* refel.h — the nodal reference simplex of degree N, the dimension as data:
 * the triangle (dim 2) and the tetrahedron (dim 3) (Hesthaven & Warburton,
 * "Nodal Discontinuous Galerkin Methods", ch. 6 and 10): orthonormal
 * Dubiner/PKD basis, warp-and-blend nodes, Vandermonde, derivative and mass
 * matrices, face node maps, the face space (the reference simplex of
 * dimension dim-1), face mass matrix, the lift operator and the face node
 * permutations between two elements sharing a face. Also the 1D orthonormal
 * Legendre basis for face/trace spaces of triangles.
 *
 * Vertices: v0 = (-1,...,-1) and v_k = v0 + 2 e_(k-1), k = 1..dim.
 *
 * Reference triangle: v0 = (-1,-1), v1 = (1,-1), v2 = (-1,1), area 2.
 * Local face j joins vertex j to vertex (j+1)%3: face 0 is s = -1, face 1 is
 * r + s = 0, face 2 is r = -1. A face parameter t in [-1,1] runs from vertex j
 * (t = -1) to vertex (j+1)%3 (t = 1):
 *   face 0: (r,s) = (t, -1),  face 1: (r,s) = (-t, t),  face 2: (r,s) = (-1, -t).
 *
 * Reference tetrahedron: v0 = (-1,-1,-1), v1 = (1,-1,-1), v2 = (-1,1,-1),
 * v3 = (-1,-1,1), volume 4/3 (H&W's). Faces, each with its vertices in order
 * (w0, w1, w2) (H&W's face numbering):
 *   face 0: (v0, v1, v2), t = -1        face 1: (v0, v1, v3), s = -1
 *   face 2: (v1, v2, v3), r + s + t = -1    face 3: (v0, v2, v3), r = -1
 * A face is parameterised by the reference triangle, (a, b) -> the point
 *   x = -(a+b)/2 w0 + (1+a)/2 w1 + (1+b)/2 w2,
 * so (a, b) = (-1,-1), (1,-1), (-1,1) are w0, w1, w2:
 *   face 0: (a, b, -1),  face 1: (a, -1, b),  face 2: (-1-a-b, a, b),
 *   face 3: (-1, a, b).
 * The triangle's faces follow the same rule in one dimension less:
 * x = (1-t)/2 w0 + (1+t)/2 w1 with (w0, w1) = (v_j, v_(j+1)%3).
 * Outward normals of the tetrahedron: face 0 (0,0,-1), face 1 (0,-1,0),
 * face 2 (1,1,1)/sqrt3, face 3 (-1,0,0). Vertex orders of the faces, seen
 * from outside: faces 1 and 2 counter-clockwise, faces 0 and 3 clockwise.
 *
 * Node ordering (the equispaced lattice, hdg_equi_lattice): triangle, for
 * j = 0..N (rows of constant s), for i = 0..N-j (r increasing); tetrahedron,
 * for k = 0..N (layers of constant t), then the triangle's order in (r, s)
 * on the triangle of degree N-k. Dubiner modes psi_m in H&W order: triangle,
 * for i = 0..N, for j = 0..N-i; tetrahedron, for i, for j <= N-i, for
 * k <= N-i-j.
 *
 * Face nodes: the nodes of face f, in the order of the face's own lattice
 * (the order above in one dimension less, in the face coordinates t or
 * (a, b)). On a triangle they sit at the Gauss-Lobatto points; on a
 * tetrahedron at the 2D warp-and-blend nodes with the tetrahedron's alpha,
 * made exactly symmetric (the same set on every face).
 *
 * Orientations: two elements sharing a face may list its vertices in
 * different orders. With A's order (a_0..a_(dim-1)) and B's
 * (b_0..b_(dim-1)) (global vertex numbers), b_k = a_(pi(k)) for one of the
 * dim! permutations pi, numbered o = 0..Norient-1 (hdg_face_orient_perm):
 * dim 2: o = 0 (0,1), 1 (1,0); dim 3: rotations o = 0 (0,1,2), 1 (1,2,0),
 * 2 (2,0,1), reflections o = 3 (0,2,1), 4 (2,1,0), 5 (1,0,2).
 * Face nodes are matched by Fperm (exact, from the lattice). The collapsed
 * face rules (quadrature.h) are not symmetric, so their points have no
 * permutation: B evaluates its face functions at hdg_face_orient_coords of
 * A's points (exact; the map keeps the face measure), which is what an HDG
 * trace basis on a shared face needs.
 *
 * Conditioning: cond_2(V) of the orthonormal basis at these nodes, measured
 * (tests/test_refel.c, test_refel_tet.c): triangle, N = 1..12: 2.0 .. 36.1;
 * tetrahedron, N = 1..12: 2.24, 6.00, 10.5, 15.8, 19.0, 26.3, 37.2, 56.3,
 * 88.3, 145, 244, 421 (equispaced nodes: 1065 at N = 12). Nodal DG on the
 * tetrahedron is well conditioned to N = 12, HDG_REFEL_MAX_DEGREE: the limit
 * here for both elements (the face trace spaces of HDG, Legendre and
 * Dubiner, are modal and need no nodes).
 *
 * All matrices are row-major, A[i*ncols + j]. */
#ifndef HDG_REFEL_H
#define HDG_REFEL_H

#include "hdg.h"

#define HDG_REFEL_MAX_DEGREE 12

typedef struct hdg_refel {
    int dim;            /* 2: triangle, 3: tetrahedron */
    int N, Np, Nfp;     /* degree, nodes ((N+1)(N+2)/2 or (N+1)(N+2)(N+3)/6), nodes per face */
    int Nv, Nfaces;     /* dim+1 vertices, dim+1 faces */
    int Norient;        /* face orientations: 2 (dim 2) or 6 (dim 3) */
    union {             /* Np node coordinates: x[d], d < dim (t is NULL for a triangle) */
        struct {
            double *r, *s, *t;
        };
        double *x[3];
    };
    double *V, *Vinv;   /* Np x Np, V[i*Np+j] = psi_j(node i) */
    union {             /* Np x Np nodal derivative matrices: (Dr u)_i = du/dr(node i) */
        struct {
            double *Dr, *Ds, *Dt;
        };
        double *D[3];
    };
    double *M;          /* reference mass matrix (V V^T)^-1, M_ij = int l_i l_j */
    double *Minv;       /* V V^T */
    int *Fmask;         /* Nfaces x Nfp: Fmask[f*Nfp+i] = node index of the i-th node of face f
                         * (the face lattice order, see above); for N = 0 all are 0 */
    union {             /* Nfp face node coordinates in the face space, the same on every face:
                         * triangle: tface, the Gauss-Lobatto points ascending ({0} for N = 0);
                         * tetrahedron: (tface, sface) = (a, b) on the reference triangle */
        struct {
            double *tface, *sface;
        };
        double *xface[2];
    };
    double *Mface;      /* Nfp x Nfp mass matrix of the face Lagrange basis in the face
                         * coordinates (interval length 2, triangle area 2) */
    double *LIFT;       /* Np x Nfaces*Nfp: M^-1 E, E[Fmask[f*Nfp+i]][f*Nfp+k] = Mface[i][k];
                         * in the face-coordinate measure */
    int *Fperm;         /* Norient x Nfp: Fperm[o*Nfp+i] = the face node of B at face node i of
                         * A, for two elements whose face vertex orders differ by o */
    double cond_V;      /* 2-norm condition number of V */
} hdg_refel;

/* Builds the reference simplex of dimension dim (2 or 3) and degree N
 * (0..HDG_REFEL_MAX_DEGREE; else HDG_EINPUT). On failure *re is left empty
 * (safe to free).
 *
 * LIFT and physical elements: on an affine simplex K with Jacobian
 * determinant J = |K| / |K_ref| (|K_ref| = 2 or 4/3; mass M_K = J M) and a
 * face of measure |f| (sJ = |f| / |f_ref|, |f_ref| = 2 for both the interval
 * and the reference triangle, so ds = sJ dxface), the lift of face data g is
 *   M_K^-1 int_f l_i g ds = (sJ/J) * LIFT g,
 * i.e. the runtime multiplies LIFT by Fscale = sJ/J per face. On the
 * reference triangle itself J = 1 and sJ = 1 on faces 0 and 2 but sqrt(2) on
 * face 1; on the reference tetrahedron sJ = sqrt(3) on face 2: LIFT alone
 * integrates in the face coordinates, not in arclength or area. */
hdg_status hdg_refel_init(hdg_refel *re, int dim, int N, hdg_error *err);
void hdg_refel_free(hdg_refel *re);

/* Dubiner basis on the reference triangle: P[p*Np+m] = psi_m(r_p, s_p), and
 * the r/s derivatives in Pr, Ps (which may be NULL). Orthonormal in L2 of the
 * reference triangle. Points must lie in the closed triangle (or the formula's
 * polynomial extension near it). */
void hdg_dubiner_eval(int N, int npts, const double *r, const double *s, double *P,
                      double *Pr, double *Ps);

/* The orthonormal basis of the reference simplex of dimension dim (2: the
 * Dubiner basis above; 3: the PKD basis, H&W Simplex3DP/GradSimplex3DP) at
 * npts points x[d][p]: P[p*Np+m] = psi_m, dP[d][p*Np+m] = d psi_m / dx_d
 * (dP or any dP[d] may be NULL). Points must lie in the closed simplex. */
void hdg_simplex_eval(int dim, int N, int npts, const double *const *x, double *P,
                      double *const *dP);

/* Interpolation matrix I (npts x Np): (I u)_p = value at (r_p, s_p) of the
 * degree-N polynomial with nodal values u (a triangle's refel). */
void hdg_refel_interp(const hdg_refel *re, int npts, const double *r, const double *s,
                      double *I);

/* The same for any dimension: points x[d][p], d < re->dim. */
void hdg_refel_interp_x(const hdg_refel *re, int npts, const double *const *x, double *I);

/* Equispaced lattice of degree p: for j = 0..p, for i = 0..p-j:
 * r = -1 + 2i/p, s = -1 + 2j/p (p = 0: the centroid). Returns (p+1)(p+2)/2;
 * r, s may be NULL to get only the count. */
int hdg_equi_lattice(int p, double *r, double *s);

/* Number of lattice points of degree N on the simplex of dimension dim
 * (0..3): 1, N+1, (N+1)(N+2)/2, (N+1)(N+2)(N+3)/6. */
int hdg_simplex_count(int dim, int N);

/* Orthonormal Legendre basis on [-1,1] (JacobiP with alpha = beta = 0):
 * P[p*(N+1)+k] = P_k(x_p), k = 0..N; dP likewise (may be NULL). */
void hdg_legendre_eval(int N, int npts, const double *x, double *P, double *dP);

/* The HDG trace basis of degree N on the face of a simplex of dimension dim, at npts face
 * points x[d][p] (d < dim-1): the orthonormal Legendre basis on an edge (dim 2), the
 * orthonormal Dubiner basis on a triangle (dim 3); P is npts x C(N+dim-1, dim-1). */
void hdg_face_basis_eval(int dim, int N, int npts, const double *const *x, double *P);

/* The vertices of face f of the reference simplex, in the face's order
 * (the table above): dim entries. dim 2 or 3, f < dim+1. */
const int *hdg_simplex_face_vertices(int dim, int f);

/* The permutation pi of orientation o (dim entries, see above). */
const int *hdg_face_orient_perm(int dim, int o);

/* The orientation o with b[k] = a[pi(k)] for k < dim, or -1 if b is not a
 * permutation of a (or a has repeated entries). */
int hdg_face_orientation(int dim, const int *a, const int *b);

/* Face coordinates under orientation o: the point with coordinates xa
 * (dim-1 of them: t, or (a, b)) in A's face parameterisation has
 * coordinates xb in B's. Exact (integer-coefficient affine maps). For
 * quadrature rules that are not symmetric (the collapsed rules): evaluate
 * B's face functions at the mapped points. */
void hdg_face_orient_coords(int dim, int o, const double *xa, double *xb);

/* For a point set on the face space that is invariant under the
 * orientations (face nodes, symmetric rules): perm[i] = the point of the set
 * at the image of point i under orientation o, matched to tol. HDG_EINPUT
 * naming the first point whose image is not in the set. x[d][i], d < dim-1. */
hdg_status hdg_face_point_perm(int dim, int o, int npts, const double *const *x, double tol,
                               int *perm, hdg_error *err);

#endif
