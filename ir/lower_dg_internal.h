/* lower_dg_internal.h — what the stages of the explicit DG lowering share
 * (ir/lower_dg*.c): the lowering context, the coefficient environment, the
 * expression lowering, the tables, the products and the kernel builders.
 * Not a public header: ir/lower_dg.h is the interface. */
#ifndef HDG_LOWER_DG_INTERNAL_H
#define HDG_LOWER_DG_INTERNAL_H

#include "ir/lower_dg.h"

#include "runtime/fem/refel.h"

/* Doubles per SIMD register (AVX2): row strides of the scratch tensors the
 * products accumulate into are multiples of it, so rows never overlap
 * within a vector and the C compiler's dependence check lets the loops
 * vectorise at full width. */
enum { DG_PAD = 4 };

typedef struct dgc {
    const hdg_problem *p;
    hdg_dg_lowered *L;
    hdg_refel re;
    int dim, nfe;                   /* the problem's dimension, faces per element (dim + 1) */
    int F, Np, Nfp;
    int Npp;                        /* Np rounded up to DG_PAD: row length of scratch and tables */
    int field_of[64][3];            /* [unknown][comp] -> field, -1 */
    int *rowf;                      /* [equation*3 + test_comp] -> field */
    const hdg_atom *tatom[HDG_DG_MAX_FIELDS];
    int needs_ext[HDG_DG_MAX_FIELDS];
    /* tables (see make_tables); per reference direction k < dim: */
    hdg_ir_tensor *DrsT, *SrsT, *LIFTT, *MT, *Fm, *FmR;
    hdg_ir_tensor *xn[3], *xf[3];   /* node coordinates r, s, t; face node coordinates */
    hdg_ir_tensor *DT[3];           /* Dr^T, Ds^T, Dt^T alone (rows padded): combined rows, see count_volume */
    hdg_ir_tensor *Iq, *wq, *xq[3];
    int nq;
    /* nonlinear problems (residual terms, lower_dg_nonlinear.c): the volume rule (nqv points,
     * exact to degree 2N) and the face rule (nqf points a face, exact to 2N + 1) */
    int nonlinear, nl_value;        /* residuals; some volume residual without a test derivative */
    int nqv, nqvp, nqf;             /* nqvp: nqv rounded up to DG_PAD */
    hdg_ir_tensor *IvT, *SvT, *xv[3];
    /* the face rule in nqfr frames per face (face_frame in lower_dg_nonlinear.c): tables
     * by row (f nqfr + frame) nqf + q; QfFrame: the frame of the exterior node table's row */
    int nqfr;
    hdg_ir_tensor *IfQ, *LIFTqT, *xfq[3], *QfFrame;
    int wavespeed;                  /* some face residual reads 'wavespeed' (lower_dg_wavespeed.c) */
} dgc;

/* Variables visible to a coefficient: NULL where undefined. */
typedef struct xenv {
    hdg_ir_expr *x, *y, *z, *t, *nx, *ny, *nz;
    /* nonlinear problems: the state at the point by field, interior [0] and exterior [1]
     * (NULL where undefined), and the field of (unknown, component) */
    hdg_ir_expr *const *st[2];
    const int (*field_of)[3];
    hdg_ir_expr *wavespeed;         /* 'wavespeed' at a face point (NULL elsewhere) */
} xenv;

/* lower_dg.c: errors at a term's file position; names and fields of atoms */
hdg_status dg_fail_at(const dgc *c, hdg_loc loc, const char *what, hdg_error *err);
const char *dg_field_name(const dgc *c, int f);
int dg_atom_field(const dgc *c, const hdg_atom *a);
int dg_row_field(const dgc *c, int eq, const hdg_atom *a);
const hdg_ext_rule *dg_find_rule(const dgc *c, const hdg_bc *bc, int f);

/* lower_dg_expr.c: expressions, points, products */
hdg_ir_expr *dg_lx(hdg_ir_kernel *k, const hdg_problem *p, const hdg_expr *e, const xenv *v);
hdg_ir_expr *dg_gi(hdg_ir_kernel *k, hdg_ir_tensor *G, int idx);
xenv dg_point_env(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_tensor *const *T, hdg_ir_expr *a,
                  hdg_ir_expr *b, hdg_ir_expr *t);
hdg_ir_expr *dg_add_term(hdg_ir_kernel *k, hdg_ir_expr *sum, hdg_ir_expr *t);
void dg_product(hdg_ir_kernel *k, hdg_ir_tensor *C, const int *crow, hdg_ir_tensor *A, const int *arow,
                int n, hdg_ir_tensor *T, int accumulate);
void dg_product_part(hdg_ir_kernel *k, hdg_ir_tensor *C, const int *crow, hdg_ir_tensor *A, hdg_ir_expr *aoff,
                     const int *arow, int n, hdg_ir_tensor *T, hdg_ir_expr *toff, int K, int accumulate);

/* lower_dg_tables.c */
int dg_strong(const dgc *c, const hdg_atom *a);
void dg_count_volume(const dgc *c, int *nweak, int *deriv, int *comb);
void dg_make_tables(dgc *c, hdg_error *err);

/* lower_dg_volume.c, lower_dg_surface.c: into R (fields x Npp) */
void dg_build_volume(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *R);
void dg_build_surface(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *M,
                      hdg_ir_tensor *R);

/* lower_dg_nonlinear.c: the residual terms (nonlinear problems) by quadrature, added to R */
hdg_status dg_analyze_residuals(dgc *c, hdg_error *err);
void dg_nonlinear_tables(dgc *c, hdg_error *err);
void dg_build_volume_nl(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *R);
void dg_build_surface_nl(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *M,
                         hdg_ir_tensor *R);
/* lower_dg_wavespeed.c: 'wavespeed' in face residuals (needs every field's exterior), and its value at
 * a face point from the interior and exterior states by field */
hdg_status dg_analyze_wavespeed(dgc *c, hdg_error *err);
hdg_ir_expr *dg_wavespeed(dgc *c, hdg_ir_kernel *k, const xenv *v, hdg_ir_expr *const *uin,
                          hdg_ir_expr *const *uex);
/* lower_dg_surface.c, shared with the nonlinear faces */
int dg_set_index(dgc *c, const hdg_markers *m, hdg_error *err, hdg_loc loc);
hdg_ir_expr *dg_boundary_value(dgc *c, hdg_ir_kernel *k, int f, hdg_ir_expr *bc, hdg_ir_expr *const *uin,
                               const xenv *v);
hdg_ir_expr *dg_marker_guard(dgc *c, hdg_ir_kernel *k, const hdg_markers *mk, hdg_ir_tensor *M, hdg_ir_expr *f,
                             hdg_ir_expr *term);
typedef struct face_vals { hdg_ir_expr *n[3], *fs, *nbr, *nlf, *bc; } face_vals;
face_vals dg_face_lets(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_tensor *M, hdg_ir_expr *f);

/* lower_dg_kernels.c: the kernels of lower_dg.h */
typedef enum rhs_kind { RHS_VOLUME, RHS_SURFACE, RHS_FULL, RHS_STEP } rhs_kind;
void dg_build_rhs(dgc *c, const char *suffix, rhs_kind kind, char *name_out);
void dg_build_update(dgc *c);
void dg_build_initial(dgc *c);
void dg_build_energy(dgc *c);
void dg_build_errors(dgc *c);

#endif
