/* lower_hdg_internal.h — what the stages of the HDG lowering share:
 * lower_hdg.c (layout, the driver), lower_hdg_tables.c (rules and basis tables),
 * lower_hdg_atoms.c (atoms into the local blocks), lower_hdg_kernels.c (local,
 * recover, rhs, initial, errors, Dirichlet), lower_hdg_post.c (post-processing,
 * estimate) and lower_hdg_elim.c (the block elimination of A and its product
 * tables). Not part of any API. */
#ifndef HDG_LOWER_HDG_INTERNAL_H
#define HDG_LOWER_HDG_INTERNAL_H

#include "ir/lower.h"
#include "ir/lower_expr.h"

typedef struct lower {
    const hdg_problem *p;
    hdg_lowered *L;
    hdg_ir_module *m;
    int k, np, nk;          /* degree, element modes, face modes per trace component */
    int dim, nfe;           /* dimension, faces per element (dim + 1) */
    /* volume rule and the element basis at its points (dP[d]: d/dr_d) */
    int nvq;
    hdg_ir_tensor *vw, *vlam, *vP, *vdP[3];
    /* face rule: weights, face basis values, per local face the element basis */
    int nfq;
    hdg_ir_tensor *fw, *fL, *flam, *fP, *fdP[3];
    /* host copies of the main rules' basis values, for the reference tensors:
     * vb[0..dim] = P, d/dr, d/ds (, d/dt) at the volume points (nvq x np); fb[] at
     * the face points (nfe x nfq x np); fLh (nfq x nk) */
    double *vwh, *vb[4], *fwh, *fb[4], *fLh;
    /* reference tensors made so far (NULL until needed), see ref_tables() */
    hdg_ir_tensor *Tvv[4][4], *Tv[4], *Tff[4][4], *Tfl[4], *Tll, *Tl, *Tf[4];
    int ref_tensors;        /* use them for atoms with x,y-independent coefficients */
    int split_coef;   /* coefficients with function calls evaluated in a point loop of their own */
    int post_chol;    /* post systems proved symmetric positive definite by Cholesky (HDGC_NO_CHOL=1: LU) */
    /* transient HDG: the time atoms (c dt(u), w) add sigma c (u, w) to A (sigma:
     * the parameter after the problem's own) and, where hist is set (the rhs
     * and recovery kernels' input), c (h, w) to the source column */
    hdg_ir_tensor *hist;
    /* the recovery kernel's trace input: atoms of trace trials add -v uhat[col] to the
     * source column instead of v to a trace column (no B block built to be applied) */
    hdg_ir_tensor *uhat;
    int rhs_only;           /* the rhs kernel: atoms of trace trials skipped */
    int no_source;          /* the jinv kernels (lower_hdg_newton.c): source atoms (and residuals'
                               Newton sources) skipped, the element rows' load comes from an input */
    int nproduct;           /* product tables made so far (their names: TP0, TP1, ...) */
    /* nonlinear problems (lower_hdg_newton.c): the state leaves the residuals read (unknown,
     * component, op), the extra quadrature degree; in a kernel that reads the state, its inputs
     * and the leaves' values at the volume points sv[ns][nvq] and the face points sf[ns][nfe][nfq];
     * sq, sface: the point (and face) the state hook reads at; res_src: emit the Newton source of
     * this residual (sum_j jac_j.coef STATE_j - coef) instead of the atom's coefficient */
    int ns, sl_u[64], sl_c[64], sl_op[64];
    int qextra;
    hdg_ir_tensor *state_l, *state_t, *sv, *sf;
    hdg_ir_expr *sq, *sface;
    const hdg_residual *res_src;
    hdg_error *err;
} lower;

/* A row or column space of an atom: its test or trial side. */
typedef struct side {
    int trace;       /* 1: trace space (face modes), 0: element (Dubiner modes) */
    int base;        /* first dof (element) or offset inside the face's m (trace) */
    int n;           /* modes */
    hdg_op op;
} side;

/* A reference-tensor term: kind 0 value, 1 + d the derivative d/dr_d; g geom index or -1. */
typedef struct bterm { int kind, g; } bterm;

static inline hdg_ir_expr *I(hdg_ir_kernel *k, long long v) { return hdg_ir_int(k, v); }

static inline hdg_ir_expr *G(hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_ir_expr *idx)
{
    return hdg_ir_ld1(k, g, idx);
}

static inline hdg_ir_expr *Gc(hdg_ir_kernel *k, hdg_ir_tensor *g, int idx) { return G(k, g, I(k, idx)); }

static inline const hdg_unknown *unk(const lower *c, int u) { return &c->p->unknowns[u]; }

/* The coordinate x_d (d = 0, 1, 2: x, y, z) and the normal's component d of
 * an environment. */
static inline void hdg_lower_env_coord(hdg_lower_env *env, int d, hdg_ir_expr *v)
{
    env->coord[d == 2 ? HDG_VAR_Z : d] = v;
}
static inline void hdg_lower_env_normal(hdg_lower_env *env, int d, hdg_ir_expr *v) { env->normal[d] = v; }
/* e depends on z. */
static inline int hdg_lh_depends_z(const hdg_expr *e) { return hdg_expr_depends(e, HDG_VAR_Z); }

/* The blocks of a local system under construction. They may all be one
 * tensor M = [A B; C D]: then the trace rows (C, D) start at row tr_row and
 * the trace and source columns (B, D) at column tr_col (both 0 otherwise).
 * In the recovery kernel (lower.uhat set) only the source column tr_col + nt
 * is written, and tr_col = nl - nt puts it at column nl (negative when there
 * are more trace than element dofs). */
typedef struct blocks {
    hdg_ir_tensor *A, *B, *C, *D;   /* D and C may be NULL (recovery kernel) */
    int tr_row, tr_col;
} blocks;

/* The name of a reference-tensor kind (bterm.kind): the value or d/dr_d. */
static inline const char *hdg_lh_kind(int a)
{
    static const char *const KIND[4] = {"P", "Pr", "Ps", "Pt"};
    return KIND[a];
}

/* ---- lower_hdg_tables.c: rules, basis tables, points */
void hdg_lh_barycentric(int dim, const double *x, double *lam);
void hdg_lh_elem_eval(int dim, int N, int n, double *const *x, double *P, double *const *dP);
hdg_status hdg_lh_face_rule(lower *c, int deg, int *n, double **xf, double **w);
hdg_status hdg_lh_volume_tables(lower *c, int deg, const char *pre, int *nq, hdg_ir_tensor **w,
                                hdg_ir_tensor **lam, hdg_ir_tensor **P, hdg_ir_tensor **dP, int N);
hdg_status hdg_lh_face_tables(lower *c);
hdg_status hdg_lh_volume_host(lower *c, int deg);
void hdg_lh_host_free(lower *c);
hdg_ir_expr *hdg_lh_coord(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_expr *const *l, int v);
int hdg_lh_op_dir(hdg_op op);
hdg_ir_expr *hdg_lh_basis_op(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_op op, hdg_ir_tensor *P,
                             hdg_ir_tensor *const *dP, hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i);
hdg_ir_expr *hdg_lh_elem_basis(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_op op,
                               hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i);
void hdg_lh_bind_xy(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_expr *const *l, hdg_lower_env *env);
hdg_ir_expr *hdg_lh_open_points(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_tensor *lam, int nq,
                                hdg_lower_env *env);
hdg_ir_tensor *hdg_lh_elem_geom(lower *c, hdg_ir_kernel *k);

/* ---- lower_hdg_atoms.c, for the kernels and the elimination */
side hdg_lh_test_side(const lower *c, const hdg_equation *eq, const hdg_atom *a);
side hdg_lh_trial_side(const lower *c, const hdg_atom *a);
hdg_ir_expr *hdg_lh_dof(lower *c, hdg_ir_kernel *k, const side *s, int source, hdg_ir_expr *face, hdg_ir_expr *i);
hdg_ir_expr *hdg_lh_open_faces(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const hdg_atom *a, hdg_lower_env *env, hdg_ir_expr **scale);
int hdg_lh_side_terms(const lower *c, hdg_op op, bterm *t);   /* t: at least 3 terms */
double *hdg_lh_integrate(int nb, int nq, const double *w, const double *X, int nx, const double *Y, int ny);
hdg_ir_expr *hdg_lh_gfac2(hdg_ir_kernel *k, hdg_ir_tensor *g, const bterm *a, const bterm *b, hdg_ir_expr *v);
int hdg_lh_coef_is_constant(const hdg_atom *a);
hdg_ir_expr *hdg_lh_atom_coef(lower *c, hdg_ir_kernel *k, hdg_lower_env *env, const hdg_atom *a, int hist);
hdg_ir_tensor *hdg_lh_face_weights(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const hdg_atom *a);
int hdg_lh_marker_set(lower *c, const hdg_markers *mk);
void hdg_lh_set_origin(lower *c, hdg_ir_kernel *k, const hdg_atom *a);
int hdg_lh_calls_function(const hdg_ir_expr *e);
void hdg_lh_emit_system(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const blocks *bk);
blocks hdg_lh_system_blocks(hdg_ir_kernel *k, const hdg_lowered *L, int trace_rows);

/* ---- lower_hdg_newton.c: nonlinear problems (Newton) */
hdg_status hdg_lh_state_leaves(lower *c);   /* c->ns, sl_*, qextra from the residuals */
void hdg_lh_state_inputs(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g);   /* inputs state_l, state_t; sv, sf */
void hdg_lh_env_state(lower *c, hdg_lower_env *env);   /* the STATE hook, when the kernel reads the state */
hdg_ir_expr *hdg_lh_residual_coef(lower *c, hdg_ir_kernel *k, hdg_lower_env *env, const hdg_residual *r);
void hdg_lh_state_done(lower *c);   /* the kernel is done with the state */
void hdg_lh_residual_kernel(lower *c);
void hdg_lh_jinv_kernels(lower *c);   /* <name>_jinv_local, <name>_jinv_recover (SNES's exact J^-1) */

/* ---- lower_hdg_kernels.c and lower_hdg_post.c: the kernels */
void hdg_lh_local_kernel(lower *c);
void hdg_lh_recover_kernel(lower *c);
void hdg_lh_rhs_kernel(lower *c);
hdg_ir_tensor *hdg_lh_hist_input(lower *c, hdg_ir_kernel *k);   /* the input "hist" (transient) */
/* Solves A x = r in place (A destroyed), by blocks where the plan pays (recover, rhs, jinv kernels). */
void hdg_lh_solve_local(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *r);
hdg_status hdg_lh_initial_kernel(lower *c);
hdg_status hdg_lh_errors_kernel(lower *c);
hdg_status hdg_lh_dirichlet_kernel(lower *c, int ib, int bc);
hdg_status hdg_lh_post_kernel(lower *c);
hdg_status hdg_lh_estimate_kernel(lower *c);

/* ---- lower_hdg_elim.c: the plan of the block elimination of A (see there) */
#define ELIM_MAX 64   /* element components: at most 32 unknowns of 2 components */

typedef struct elim_plan {
    int nc, nstep;                  /* components, steps */
    int ng[ELIM_MAX], g[ELIM_MAX][ELIM_MAX];       /* step s eliminates g[s][0..ng) */
    int nr[ELIM_MAX], r[ELIM_MAX][ELIM_MAX];       /* remaining components it updates (rows) */
    int ncl[ELIM_MAX], cl[ELIM_MAX][ELIM_MAX];     /* ... (columns) */
    int diag[ELIM_MAX];             /* step s: one component whose block is diagonal */
    double flops, dense;
} elim_plan;

/* keep: the share of the dense LU's flops under which a block plan is taken
 * (hdg_lh_elim_plan_make's comment says why the local kernel takes it whenever
 * it saves flops) */
#define RECOVER_KEEP 0.8
#define LOCAL_KEEP 1.0
int hdg_lh_elim_plan_make(const lower *c, int xr, int xc, double keep, elim_plan *P);
void hdg_lh_elim_origin(lower *c, hdg_ir_kernel *k, const elim_plan *P);
void hdg_lh_copy_block(hdg_ir_kernel *k, hdg_ir_tensor *dst, int dr, int dc, hdg_ir_tensor *src, int sr, int sc, int nr, int ncl, int acc);
hdg_ir_tensor *hdg_lh_elim_emit(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *geom, const elim_plan *P, hdg_ir_tensor *M, int xr, int xc, hdg_ir_tensor **W);
void hdg_lh_elim_back(lower *c, hdg_ir_kernel *k, const elim_plan *P, hdg_ir_tensor *const *W, hdg_ir_tensor *X, int xc);

#endif
