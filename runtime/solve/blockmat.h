/* blockmat.h — the HDG trace matrix in dense block format (seed 000).
 *
 * Face l owns one row of na face blocks, each m x m (m = dofs per face):
 *     y_l = sum_a A[l][a] x_{nbr[l][a]},    a = 0..na-1,
 * with nbr[l][0] = l (the diagonal block) and nbr = -1 for padding (boundary
 * faces have 3 real blocks out of 5 on triangles, 4 out of 7 on tetrahedra). Block (l, a) is stored
 * row-major at A + ((size_t)l*na + a)*m*m, so the blocks of a row are
 * contiguous. Faces: l = 0..nf-1; vectors are face-major, x[g*m + q].
 *
 * Assembly gathers each face row from its one or two elements (parallel over
 * rows, no atomics). Element conventions, shared with the kernels:
 *  - Ke: ne matrices of (3m) x (3m), row-major; row/column index j*m + p is
 *    dof p of element-local face j (j = 0, 1, 2);
 *  - Fe: ne vectors of 3m entries, same ordering (may be NULL);
 *  - ef[3e+j]: face of element e's local face j;
 *  - fe[2f+k], flf[2f+k] (k = 0, 1): the elements of face f and f's local index
 *    in them; fe = -1 for none (a boundary face has one element);
 *  - eforient[3e+j]: 0 when the element's parametrisation of local face j is
 *    the face's canonical one, 1 when reversed (NULL: all 0);
 *  - flip[m]: the diagonal of the map from canonical to reversed face dofs,
 *    e.g. (-1)^i for an orthonormal Legendre modal basis (NULL allowed only
 *    when no face is reversed). Element e then adds S_j Ke[j,i] S_i to the
 *    block coupling face ef[3e+j] (row) to face ef[3e+i] (column), with
 *    S = diag(flip) on reversed faces and I otherwise, and S_j Fe[j] to the
 *    right-hand side of face ef[3e+j].
 * The *_n / *_maps versions take any number nfe of faces per element (3
 * triangles, 4 tetrahedra: Ke of (nfe m)^2, ef and eforient nfe per element,
 * na = 2 nfe - 1) and the orientation maps as hdg_face_maps: element e's view
 * of the dofs of its local face j is S_o x_f (o = eforient[nfe e + j]; S_0 = I),
 * so element e adds S_j^T Ke[j,i] S_i to the block (ef[nfe e+j], ef[nfe e+i])
 * and S_j^T Fe[j] to the rhs of face ef[nfe e+j]. The flip versions above are
 * these with nfe = 3 and S_1 = diag(flip): the same arithmetic. */
#ifndef HDG_BLOCKMAT_H
#define HDG_BLOCKMAT_H

#include "hdg.h"

typedef struct hdg_blockmat {
    int nf;     /* faces = block rows */
    int m;      /* dofs per face (block size) */
    int na;     /* blocks per row (5 on triangles) */
    int *nbr;   /* nf*na face indices, -1 = padding; nbr[l*na] == l */
    double *A;  /* nf*na*m*m values */
} hdg_blockmat;

/* The orientation maps of the face dofs (row-major m x m each, orthogonal). When
 * every S_o is diagonal (triangles: S_1 = diag((-1)^i) per trace component) diag
 * holds their diagonals, norient * m, and the products are the sign products of
 * the flip vector; else diag is NULL and S holds norient * m * m. */
typedef struct hdg_face_maps {
    int nfe;              /* faces per element */
    int norient;          /* orientations: eforient in 0..norient-1 */
    int m;                /* dofs per face */
    const double *diag;   /* norient * m, or NULL */
    const double *S;      /* norient * m * m (when diag is NULL) */
} hdg_face_maps;

/* Fills nbr (nf*5 ints) for a triangle mesh: row l lists l, then the other two
 * faces of its element fe[2l] in local order (flf+1, flf+2 mod 3), then those
 * of fe[2l+1], -1 where there is no second element (or a face repeats). */
hdg_status hdg_blockmat_neighbours(int nf, int ne, const int *ef, const int *fe,
                                   const int *flf, int *nbr, hdg_error *err);
/* Any nfe: nbr (nf * (2 nfe - 1) ints), row l: l, the other nfe-1 faces of fe[2l]
 * (local faces flf+1.. mod nfe), then those of fe[2l+1] (mesh.h's fnbr). */
hdg_status hdg_blockmat_neighbours_n(int nfe, int nf, int ne, const int *ef, const int *fe,
                                     const int *flf, int *nbr, hdg_error *err);

/* Allocates a zero matrix with the given neighbour lists (nbr is copied;
 * checked: 0 <= entries < nf or -1, nbr[l*na] == l, no repeated face in a row). */
hdg_status hdg_blockmat_init(hdg_blockmat *B, int nf, int m, int na, const int *nbr,
                             hdg_error *err);
void hdg_blockmat_free(hdg_blockmat *B);

/* Overwrites every block (and rhs when both rhs and Fe are given) by gathering
 * the element matrices; see the conventions above. The topology is checked
 * first (ef/fe/flf consistent, every coupled face present in the row). */
hdg_status hdg_blockmat_assemble(hdg_blockmat *B, double *rhs, int ne, const double *Ke,
                                 const double *Fe, const int *ef, const int *eforient,
                                 const int *fe, const int *flf, const double *flip,
                                 hdg_error *err);
hdg_status hdg_blockmat_assemble_maps(hdg_blockmat *B, double *rhs, int ne, const double *Ke,
                                      const double *Fe, const int *ef, const int *eforient,
                                      const int *fe, const int *flf, const hdg_face_maps *S,
                                      hdg_error *err);

/* For every (face l, element side k, element-local face i), the block a of
 * row l that receives the contribution: slot[(l*2+k)*3+i] (-1 where face l
 * has no element k). Fails on a coupled face missing from the row. */
hdg_status hdg_blockmat_slots(int nf, int na, const int *nbr, const int *ef, const int *fe, const int *flf,
                              int *slot, hdg_error *err);
/* Any nfe: slot[(l*2+k)*nfe+i]. */
hdg_status hdg_blockmat_slots_n(int nfe, int nf, int na, const int *nbr, const int *ef, const int *fe,
                                const int *flf, int *slot, hdg_error *err);

/* The transpose of the element gather of assembly: for every element, its
 * three faces' values of a face vector x (nf*m, canonical orientation) in the
 * element's own orientation (S_j x_{ef[3e+j]}, same S and flip as above), as
 * ne vectors of 3m entries (out, ordered like Fe). Threaded over elements. */
void hdg_blockmat_scatter_to_elements(int ne, int m, const int *ef, const int *eforient,
                                      const double *flip, const double *x, double *out);
/* Any nfe, with the maps: out (ne * nfe * m), face j of element e: S_o x_{ef[nfe e+j]}. */
void hdg_blockmat_scatter_maps(int ne, const int *ef, const int *eforient, const hdg_face_maps *S,
                               const double *x, double *out);

/* Symmetric Dirichlet elimination. For faces with is_dirichlet[f] != 0 the
 * value x_D = xD[f*m .. f*m+m-1] is known (entries of other faces ignored):
 * rhs_l -= A[l][a] x_D for every Dirichlet neighbour of a free row l, then
 * Dirichlet rows and columns become identity (diagonal block I, other blocks
 * zeroed) and rhs = x_D on Dirichlet faces. Symmetric input stays symmetric. */
void hdg_blockmat_apply_dirichlet(hdg_blockmat *B, double *rhs,
                                  const unsigned char *is_dirichlet, const double *xD);
/* The same dof by dof: dof p of face f is Dirichlet when is_dirichlet[f] and
 * dof_dirichlet[f*m + p] (NULL: all dofs of such a face), e.g. one component of
 * a vector trace (a roller). Still symmetric. The Dirichlet rows become diag I
 * and their rhs diag x_D: with diag of the free rows' scale (a power of two,
 * hdg_hdg_dirichlet_diag) the solution is the same, but a relative residual
 * is no longer dominated by the Dirichlet rows when the operator is far from
 * 1 in size (kappa = 1e-9: the free rows were left unsolved). */
void hdg_blockmat_apply_dirichlet_dofs(hdg_blockmat *B, double *rhs, const unsigned char *is_dirichlet,
                                       const unsigned char *dof_dirichlet, const double *xD, double diag);
/* The right-hand side part alone, with B the matrix BEFORE elimination (kept
 * for it): what apply_dirichlet_dofs does to rhs, B unchanged (time stepping:
 * the eliminated matrix is reused with new Dirichlet data every step). */
void hdg_blockmat_dirichlet_rhs(const hdg_blockmat *B, double *rhs, const unsigned char *is_dirichlet,
                                const unsigned char *dof_dirichlet, const double *xD, double diag);
/* The right-hand side alone (rhs of nf faces of m dofs), gathered from Fe as
 * hdg_blockmat_assemble does. */
void hdg_blockmat_assemble_rhs(int nf, int m, double *rhs, const double *Fe, const int *ef, const int *eforient,
                               const int *fe, const int *flf, const double *flip);
void hdg_blockmat_assemble_rhs_maps(int nf, double *rhs, const double *Fe, const int *ef, const int *eforient,
                                    const int *fe, const int *flf, const hdg_face_maps *S);

/* y = B x (threaded over face rows; x and y must not alias). */
void hdg_blockmat_spmv(const hdg_blockmat *B, const double *x, double *y);

/* Fused passes of the Chebyshev smoother (runtime/solve/mg.c), one sweep over the
 * rows each instead of several vector operations; Di: the nf inverse
 * diagonal blocks (m x m, row-major), threaded like the SpMV. Only for
 * m <= 12 (hdg_blockmat_fused_ok); d and dn must not alias.
 *   start:    d = s Di r;  z = d (z_zero) or z += d
 *   step:     r -= A d;  dn = c1 d + c2 Di r (the updated r);  z += dn
 *   residual: r -= A d
 *   jacobi:   y = Di (A x) (x and y must not alias) */
int hdg_blockmat_fused_ok(const hdg_blockmat *B);

/* Single-precision copies of B's values and of Di for those passes (mixed
 * precision): the passes then read half the bytes and still compute in
 * double. The smoother is then a fixed linear operator built from the rounded
 * matrix; the Krylov solver's own products stay in double, so the solution's
 * accuracy is unchanged. L == NULL or L->A == NULL: double. */
typedef struct hdg_blockmat_lo {
    float *A;    /* nf*na*m*m, each m x m block by columns */
    float *Di;   /* nf*m*m, by columns */
    int vec;     /* the passes use the x86-64-v3 (AVX2) version: the same results, faster */
} hdg_blockmat_lo;
/* Returns 0 (L zeroed: the passes stay in double) when a value is not finite
 * or outside float's normal range (a problem scaled far from 1: kappa = 1e-42
 * gave a NaN eigenvalue estimate in single precision). */
int hdg_blockmat_lo_init(hdg_blockmat_lo *L, const hdg_blockmat *B, const double *Di);
void hdg_blockmat_lo_free(hdg_blockmat_lo *L);
/* 1 when this build and host have the x86-64-v3 version of the passes
 * (GCC on x86-64, an AVX2 host): hdg_blockmat_lo_init sets L->vec from it. */
int hdg_blockmat_lo_vec_available(void);

void hdg_blockmat_smooth_start(const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L, double s,
                               const double *r, double *d, double *z, int z_zero);
void hdg_blockmat_smooth_step(const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L, double c1,
                              double c2, const double *d, double *r, double *dn, double *z);
void hdg_blockmat_residual_update(const hdg_blockmat *B, const hdg_blockmat_lo *L, const double *d, double *r);
void hdg_blockmat_jacobi_product(const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L,
                                 const double *x, double *y);

/* Block (l, a) and its values. */
static inline double *hdg_blockmat_block(const hdg_blockmat *B, int l, int a)
{
    return B->A + ((size_t)l * B->na + a) * B->m * B->m;
}

/* Performance arithmetic (docs/method.md): bytes one SpMV moves,
 * 8 (nf na m^2 + 2 nf m) + 4 nf na, and its flops, 2 m^2 per non-padding block. */
double hdg_blockmat_spmv_bytes(const hdg_blockmat *B);
double hdg_blockmat_spmv_flops(const hdg_blockmat *B);
/* Bytes of one middle Chebyshev step of the smoother (hdg_blockmat_smooth_step)
 * on the single-precision copies: 4 (nf na m^2 + nf m^2) + 8 * 6 nf m + 4 nf na
 * (A and Di; d, dn once, r and z twice; the neighbour indices). */
double hdg_blockmat_smooth_bytes(const hdg_blockmat *B);
/* Number of non-padding blocks. */
long long hdg_blockmat_nblocks(const hdg_blockmat *B);

#endif
