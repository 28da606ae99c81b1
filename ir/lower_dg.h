/* lower_dg.h — lowering of an explicit DG problem (dt() terms, numerical
 * fluxes) into element-batch IR kernels (nodal DG, Hesthaven & Warburton).
 *
 * State: every scalar field (one per component of each element unknown, in
 * declaration order) is stored at the Np warp-blend nodes of the reference
 * element of degree N; the state array holds per element [nfields][Np].
 *
 * The semi-discrete system comes from the atoms alone (frontend.h: unknown
 * terms on the left, sources on the right). For the equation row of field f
 * with its TIME atom coefficient c_T:
 *     c_T dU_f/dt = - sum VOLUME atoms  - LIFT(Fscale * sum FLUX atoms)
 *                   + volume sources    + LIFT(Fscale * boundary sources)
 * The reference element is the triangle (mesh triangle) or the tetrahedron
 * (mesh tetrahedron) of runtime/fem/refel.h: the dimension d = p->dim is
 * data, and everything below runs over d directions and d+1 faces.
 * Volume atoms with trial_op DX/DY/DZ on U are taken in strong form at the
 * nodes (d/dx_l = sum_k dr_k/dx_l D_k, D_k = Dr, Ds, Dt); atoms with test_op
 * DX/DY/DZ (weak form, trial by value) use S_k = M^-1 D_k^T M. Coefficients
 * are evaluated at the nodes (collocation, exact for constant coefficients).
 * Face integrals are evaluated at the Nfp face nodes and lifted with LIFT
 * (Np x (d+1) Nfp) and Fscale = sJ/J. Exterior values come from the
 * neighbour element (its node at the same point: in 2D node Nfp-1-i of its
 * local face, in 3D through the face node permutation Fperm of the
 * orientation the face map carries) or, on boundary faces, from the
 * EXTERIOR rule of the boundary condition covering the face.
 *
 * Kernels (all per element):
 *   <name>_volume   out rhs = volume part / c_T
 *   <name>_surface  out rhs += surface part / c_T   (rhs is read: HDG_KSLOT_READS)
 *   <name>_rhs      volume + surface fused
 *   <name>_step     one LSERK4 stage fused with the right-hand side (what the
 *                   driver runs): res = a res + dt rhs(U); Unew = U + b res,
 *                   with rhs never stored (a, b, dt are the parameters p_rka,
 *                   p_rkb, p_dt); U and Unew are distinct buffers, since
 *                   neighbours read U
 *   <name>_update   the stage update alone: res = a res + dt rhs; U += b res
 *   <name>_initial  U at the nodes from the initial conditions (at a->t)
 *   <name>_errors   per element: squared L2 errors of the fields with an exact
 *                   solution (nerr values), then int U_f^2 for every field
 *                   (nfields values), then int exact_f^2 of the fields with
 *                   an exact solution (nerr values), by a rule of degree 2N+2
 *   <name>_energy   per element: 1/2 sum_f U_f^T M U_f J (the discrete energy)
 *
 * The dense parts (reference derivatives of the fields the volume terms
 * differentiate, the lift, M U) are products with the sum over the table row
 * outermost and a contiguous, constant-trip inner loop over the nodes, on
 * scratch rows padded to the SIMD width, so the C compiler vectorises them.
 *
 * Slots: in[0] = U (or rhs for update), geom = DG_G_* below, imap[0] = the
 * face map DG_M_* below (rhs/surface/step kernels), out[0] = rhs / Unew / U /
 * errors / energy, out[1] = res (step, update). */
#ifndef HDG_LOWER_DG_H
#define HDG_LOWER_DG_H

#include "frontend/frontend.h"
#include "hdg.h"
#include "ir/ir.h"

/* Element geometry (the kernels' geom slot), the dimension d as data:
 *   vertices X[v*d + k] (v = 0..d, k < d), J, then dr_k/dx_l at
 *   hdg_dg_g_ginv(d, k, l), then per local face j (d+1 of them) the outward
 *   normal n_0..n_(d-1) and Fscale at hdg_dg_g_face(d, j) + 0..d.
 * In 2D the layout is the DG_G_* below (x0 y0 x1 y1 x2 y2 J rx ry sx sy,
 * then nx ny Fscale per face: 20 values); in 3D 12 + 1 + 9 + 16 = 38. */
enum {
    DG_G_X0 = 0, DG_G_Y0, DG_G_X1, DG_G_Y1, DG_G_X2, DG_G_Y2,   /* vertices, CCW */
    DG_G_J, DG_G_RX, DG_G_RY, DG_G_SX, DG_G_SY,                 /* affine map */
    DG_G_FACE0,               /* per local face j: nx, ny, Fscale at DG_G_FACE0 + 3j */
    DG_G_SIZE = DG_G_FACE0 + 9
};

static inline int hdg_dg_g_x(int d, int v, int k) { return v * d + k; }
static inline int hdg_dg_g_j(int d) { return d * (d + 1); }
static inline int hdg_dg_g_ginv(int d, int k, int l) { return d * (d + 1) + 1 + k * d + l; }
static inline int hdg_dg_g_face(int d, int j) { return d * (d + 1) + 1 + d * d + j * (d + 1); }
static inline int hdg_dg_g_size(int d) { return hdg_dg_g_face(d, d + 1); }

/* Face map per element (ints), with nfe = d+1 local faces: the neighbour
 * element of local face j at j (the element itself on a boundary face), the
 * exterior node row of face j at nfe + j (on an interior face, in 2D the
 * neighbour's local face, whose nodes run the other way; in 3D nlf * 6 + o
 * with o the orientation of the neighbour's vertex order of the face against
 * this element's, refel.h; on a boundary face the row of face j itself),
 * the boundary condition at 2 nfe + j (index into problem->bcs, -1 on
 * interior faces), then one flag per (marker set, face) at 3 nfe + nfe s + j:
 * 1 when face j carries a marker of set s. Width (3 + nsets) nfe. In 2D the
 * offsets are the DG_M_* below. */
enum { DG_M_NBR = 0, DG_M_NLF = 3, DG_M_BC = 6, DG_M_SETS = 9 };

#define HDG_DG_MAX_FIELDS 32
#define HDG_DG_MAX_SETS 8

typedef struct hdg_dg_lowered {
    hdg_ir_module *mod;
    int dim;                                   /* 2 or 3: the problem's */
    int N, Np, Nfp;
    int nfields;
    int field_unknown[HDG_DG_MAX_FIELDS], field_comp[HDG_DG_MAX_FIELDS];
    char field_name[HDG_DG_MAX_FIELDS][64];    /* "Ez", "u.x" */
    int nsets;                                 /* marker sets of boundary atoms */
    const hdg_markers *sets[HDG_DG_MAX_SETS];
    int ngeom, nimap;                          /* hdg_dg_g_size(dim), (3 + nsets)(dim + 1) */
    int nparams;                               /* problem params + 3 */
    int p_rka, p_rkb, p_dt;                    /* parameter indices of the stage values */
    int needs_ext[HDG_DG_MAX_FIELDS];          /* some flux uses ext(field) */
    int nerr;                                  /* fields with an exact solution */
    int err_field[HDG_DG_MAX_FIELDS];
    char volume[64], surface[64], rhs[64], step[64], update[64], initial[64], errors[64], energy[64];
} hdg_dg_lowered;

/* Lowers a DG problem at p->degree. Unsupported forms (coupled mass terms,
 * derivatives in fluxes, missing exterior rules, ...) give HDG_EINPUT naming
 * the file position of the term. */
hdg_status hdg_lower_dg(const hdg_problem *p, hdg_dg_lowered *out, hdg_error *err);
void hdg_dg_lowered_free(hdg_dg_lowered *l);

struct hdg_refel;
/* The neighbour's node at face node i of a face whose exterior node row
 * (face map entry nfe + j) is row, on the reference element re: in 2D
 * Fmask[row][Nfp-1-i], in 3D Fmask[row / 6][Fperm[row % 6][i]]. The
 * kernels read it from the table FmaskRev (2D) or FmaskExt (3D). */
int hdg_dg_exterior_node(const struct hdg_refel *re, int row, int i);


#endif
