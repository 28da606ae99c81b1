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
 * Volume atoms with trial_op DX/DY on U are taken in strong form at the nodes
 * (d/dx = rx Dr + sx Ds); atoms with test_op DX/DY (weak form, trial by value)
 * use Sr = M^-1 Dr^T M, Ss = M^-1 Ds^T M. Coefficients are evaluated at the
 * nodes (collocation, exact for constant coefficients). Face integrals are
 * evaluated at the Nfp face nodes and lifted with LIFT (Np x 3Nfp) and
 * Fscale = sJ/J. Exterior values come from the neighbour element (its face
 * runs the other way: node Nfp-1-i of its local face) or, on boundary faces,
 * from the EXTERIOR rule of the boundary condition covering the face.
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

enum {
    DG_G_X0 = 0, DG_G_Y0, DG_G_X1, DG_G_Y1, DG_G_X2, DG_G_Y2,   /* vertices, CCW */
    DG_G_J, DG_G_RX, DG_G_RY, DG_G_SX, DG_G_SY,                 /* affine map */
    DG_G_FACE0,               /* per local face j: nx, ny, Fscale at DG_G_FACE0 + 3j */
    DG_G_SIZE = DG_G_FACE0 + 9
};

/* Face map per element (ints): neighbour element of local face j (the element
 * itself on a boundary face), the neighbour's local face (j itself on a
 * boundary), the boundary condition (index into problem->bcs, -1 on interior
 * faces), then one flag per (marker set, face): 1 when face j carries a marker
 * of the set. Width DG_M_SETS + 3 * nsets. */
enum { DG_M_NBR = 0, DG_M_NLF = 3, DG_M_BC = 6, DG_M_SETS = 9 };

#define HDG_DG_MAX_FIELDS 32
#define HDG_DG_MAX_SETS 8

typedef struct hdg_dg_lowered {
    hdg_ir_module *mod;
    int N, Np, Nfp;
    int nfields;
    int field_unknown[HDG_DG_MAX_FIELDS], field_comp[HDG_DG_MAX_FIELDS];
    char field_name[HDG_DG_MAX_FIELDS][64];    /* "Ez", "u.x" */
    int nsets;                                 /* marker sets of boundary atoms */
    const hdg_markers *sets[HDG_DG_MAX_SETS];
    int ngeom, nimap;                          /* DG_G_SIZE, DG_M_SETS + 3 nsets */
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


#endif
