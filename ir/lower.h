/* lower.h — lowering of a checked problem (frontend/frontend.h) into the
 * element-batch IR (ir/ir.h).
 *
 * HDG problems become one module with these kernels:
 *   <name>_local    per element: local matrices by quadrature of every atom,
 *                   static condensation K_e = D - C A^-1 B, F_e = F_t - C A^-1 F_l
 *   <name>_recover  per element: element unknowns from the element's trace values,
 *                   x = A^-1 (F_l - B uhat_e), by block elimination over the
 *                   components of the element unknowns when A's block
 *                   structure (known from the atoms) makes that cheaper
 *   <name>_errors   per element: squared L2 errors of every element unknown
 *                   component against its exact solution
 *   <name>_estimate per element (with a post-processed unknown): the squared
 *                   error estimate ||u* - u||^2 of the unknown whose mean u*
 *                   keeps (docs/method.md), summed over its components
 *   <name>_dirichlet_<i>  per listed face: L2 projection of the i-th Dirichlet
 *                   condition's data onto the face basis
 *   <name>_rhs, <name>_initial  (transient HDG only) per element: F_e at the
 *                   step's time and history; the initial state's projection
 *   <name>_residual, <name>_initial  (nonlinear HDG, Newton) per element: the
 *                   residual at a state; the first guess's projection (the
 *                   local and recover kernels read the state: hdg_lowered)
 *   <name>_jinv_local, <name>_jinv_recover  (nonlinear HDG) per element: the
 *                   Jacobian's condensation and recovery for a load given as
 *                   input (SNES's exact inverse: hdg_lowered)
 *
 * Bases: element unknowns use the orthonormal Dubiner/PKD basis of degree k
 * (modal) on the reference simplex of the problem's dimension (refel.h), trace
 * unknowns an orthonormal modal basis on each face in the face coordinates of
 * the element's own local face (refel.h: from vertex j to vertex j+1 on a
 * triangle; the face's vertices (w0, w1, w2) on a tetrahedron): Legendre in t
 * on the edges of triangles, the Dubiner basis of the reference triangle in
 * (a, b) on the faces of tetrahedra. An element that sees a face in
 * orientation o (mesh.h eforient) has the trace coefficients S_o u of the
 * canonical ones u, S_o orthogonal (drivers/run_hdg_common.h
 * hdg_hdg_face_maps): on triangles S_1 = diag((-1)^a) (the "flip" vector).
 *
 * Element geometry (the kernels' geom slot), the offsets below as functions
 * of the dimension d (2D: the HDG_G_* names): the d+1 vertices (d coordinates
 * each), J, the inverse factors Ginv[k][x] = dr_k/dx (k, x < d; 2D: rx ry sx
 * sy), per local face j (d+1 of them) the outward normal (d values) and sJ;
 * then one flag per (marker set, local face): 1 when the face carries a
 * marker of that set (boundary atoms restricted to markers, e.g. Neumann
 * data), at hdg_g_fixed(d) + (d+1) set + j. */
#ifndef HDG_LOWER_H
#define HDG_LOWER_H

#include "frontend/frontend.h"
#include "hdg.h"
#include "ir/ir.h"

enum {
    HDG_G_X0 = 0, HDG_G_Y0, HDG_G_X1, HDG_G_Y1, HDG_G_X2, HDG_G_Y2,   /* vertices, CCW */
    HDG_G_J, HDG_G_RX, HDG_G_RY, HDG_G_SX, HDG_G_SY,                 /* affine map */
    HDG_G_FACE0,                 /* per local face j: nx, ny, sJ at HDG_G_FACE0 + 3j */
    HDG_G_FIXED = HDG_G_FACE0 + 9 /* marker-set flags start here: + 3*set + j */
};

/* The layout for dimension d (2D: the names above). */
static inline int hdg_g_vertex(int d, int v, int x) { return v * d + x; }
static inline int hdg_g_J(int d) { return (d + 1) * d; }
static inline int hdg_g_ginv(int d, int k, int x) { return hdg_g_J(d) + 1 + k * d + x; }
static inline int hdg_g_face(int d, int j) { return hdg_g_J(d) + 1 + d * d + (d + 1) * j; }
static inline int hdg_g_fixed(int d) { return hdg_g_face(d, d + 1); }

/* Per-face geometry of the Dirichlet kernels: the face's d vertices in its
 * canonical order (mesh.h fv), d coordinates each; in 3D then the outward
 * normal (d values; in 2D the kernel finds it from the endpoints). */
enum { HDG_GF_XA = 0, HDG_GF_YA, HDG_GF_XB, HDG_GF_YB, HDG_GF_SIZE };
static inline int hdg_gf_normal(int d) { return d * d; }
static inline int hdg_gf_size(int d) { return d == 2 ? HDG_GF_SIZE : d * d + d; }

#define HDG_LOWER_MAX_BC 16

typedef struct hdg_lowered {
    hdg_ir_module *mod;
    int k;                 /* polynomial degree */
    int dim;               /* 2 (triangles) or 3 (tetrahedra) */
    int nfe;               /* faces per element: dim + 1 */
    int np;                /* element modes per component: C(k+dim, dim) */
    int nk;                /* face modes per trace component: C(k+dim-1, dim-1) */
    int nl;                /* element dofs: sum of ncomp * np over element unknowns */
    int m;                 /* trace dofs per face: nk * sum of trace components */
    int nt;                /* nfe m */
    int ngeom;             /* element geometry values per element */
    int nsets;             /* marker sets (flags in the geometry) */
    const hdg_markers *sets[16];
    int uoff[32];          /* element unknown u (problem index): first dof; -1 for trace unknowns */
    int toff[32];          /* trace unknown u: first dof inside a face's m dofs; -1 otherwise */
    int kpost;             /* degree of the (first) post-processed unknown (its space's degree) */
    int npp;               /* its modes per component: C(kpost+dim, dim) */
    int post_unknown;      /* the first post-processed unknown (problem index), -1: none */
    /* every post-processed unknown i: its problem index, degree, modes per component and
     * offset in the element's row of post-processed dofs (npost_dofs per element; the
     * first at offset 0); the post kernel solves them one after the other */
    int npost, posts[HDG_MAX_POST], pdeg[HDG_MAX_POST], pnp[HDG_MAX_POST], poff[HDG_MAX_POST];
    int npost_dofs;
    char post[64];         /* post-processing kernel name ("" when none) */
    char estimate[64];     /* error estimate kernel name ("" when no post-processed unknown) */
    int nerr;              /* squared-error outputs per element (one per component with an exact) */
    int err_unknown[64], err_comp[64];
    int ndir;              /* Dirichlet conditions */
    int dir_bc[HDG_LOWER_MAX_BC];   /* index into problem->bcs */
    char local[64], recover[64], errors[64];
    /* transient HDG (dt() terms): the time atoms (c dt(u), w) read sigma c (u, w) in
     * the local, rhs and recovery kernels (sigma: params[p_sigma], after the
     * problem's params) and - c (h, w) with h the input "hist" (nl per element)
     * in the rhs (in[0]) and recovery (in[1]) kernels */
    int transient, p_sigma;
    /* nonlinear problems (hdg_problem.nonlinear; Newton, drivers/run_hdg_newton.c): the local and
     * recover kernels read the state s = (s_l, s_t) from two more inputs, "state_l" (nl element
     * dofs, modal) and "state_t" (nt: the trace dofs of the element's faces, element orientation,
     * as the recover kernel's uhat): local in[0], in[1]; recover in[recover_state],
     * in[recover_state + 1] (after uhat). With s, they build Newton's linear system
     * J(s) s' = F(s) (the linear atoms plus the residuals' Jacobian atoms; the sources plus
     * sum_j jac_j.coef STATE_j - coef per residual), so K_e, F_e condense it and recover gives
     * the element part of s'. <name>_residual: in[0], in[1] the state; out R_l (nl), R_t (nt;
     * the element's share of the trace rows, summed over a face's two elements as K_e is
     * assembled), M_l, M_t (the sums of the absolute values of the terms of R_l, R_t) with
     * R = J(s) s - F(s) = L s + N(s) - f. The initial kernel projects the first guess.
     * Nonlinear and transient (Newton at every stage of the time scheme): the local and
     * residual kernels read "hist" too (in[2], after the state), their time atoms as the
     * linear path's (sigma c (u, w) in A, c (h, w) in the source column), so F_e and R are
     * the stage's; no rhs kernel (the local kernel gives F_e at every Newton step). */
    int nonlinear, recover_state;
    char residual[64];
    /* ... and J(s)^-1 applied to any b = (b_l, b_t) by static condensation (Newton through PETSc's
     * SNES, drivers/run_hdg_snes.c): <name>_jinv_local, in[0], in[1] the state, in[2] b_l (nl): out
     * Fe (nt) = -C A^-1 b_l, the element's share of the condensed trace load (K_e is the local
     * kernel's at the same state); <name>_jinv_recover, in[0] uhat (the trace solution y_t, element
     * view), in[1], in[2] the state, in[3] b_l: out x = A^-1 (b_l - B uhat). A, B, C at s as in the
     * local kernel (the sources left out: the load is b). Then K y_t = b_t + sum_e Fe, y_l = x. */
    char jinv_local[64], jinv_recover[64];
    int jinv_kernel0, jinv_table0;   /* the module's kernels and tables before them */
    char rhs[64];          /* <name>_rhs: F_e only, per step */
    char initial[64];      /* <name>_initial: projection of the initial state (transient; Newton's first guess) */
    char dirichlet[HDG_LOWER_MAX_BC][64];
} hdg_lowered;

/* The index i of post-processed unknown u in L->posts, -1 when u is not one. */
static inline int hdg_lowered_post_index(const hdg_lowered *L, int u)
{
    for (int i = 0; i < L->npost; i++)
        if (L->posts[i] == u) return i;
    return -1;
}

/* Problems with terms nonlinear in the unknowns (hdg_problem.nonlinear, issue 41) are checked by the
 * frontend (hdgc check shows the residual terms and their Jacobians); HDG ones are solved by Newton
 * (drivers/run_hdg_newton.c), DG ones are not lowered nor solved yet: HDG_EINPUT naming the problem.
 * Called at the top of hdg_lower_hdg and hdg_lower_dg, and where a run begins (drivers/run.c). */
static inline hdg_status hdg_lower_nonlinear_check(const hdg_problem *p, hdg_error *err)
{
    /* HDG: Newton (drivers/run_hdg_newton.c); explicit DG: ir/lower_dg_nonlinear.c */
    if (!p->nonlinear || p->method == HDG_METHOD_HDG || p->method == HDG_METHOD_DG) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "%s: nonlinear problems are checked (hdgc check) but the %s solver is "
                    "not available yet", p->name, p->method == HDG_METHOD_DG ? "nonlinear DG" : "Newton");
}

/* Lowers an HDG problem at its degree. Unsupported features give HDG_EINPUT
 * with the location of the construct. */
hdg_status hdg_lower_hdg(const hdg_problem *p, hdg_lowered *out, hdg_error *err);
void hdg_lowered_free(hdg_lowered *l);
/* A run that does not go through SNES compiles no jinv kernels: the module as it was before
 * them (its source, and so the kernel cache's key, the same as without them). */
void hdg_lowered_drop_jinv(hdg_lowered *l);

#endif
