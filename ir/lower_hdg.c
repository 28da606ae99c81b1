/* lower_hdg.c — HDG problems -> IR kernels (see lower.h for the kernels, the
 * bases and the geometry layout).
 *
 * Every atom of every equation (frontend.h: coef * trial * test over the
 * element or its boundary) becomes one quadrature loop that adds into one of
 * the local blocks, chosen by the kinds of its test and trial:
 *
 *                      trial element    trial trace    source
 *     element test     A                B              Fl
 *     trace test       C                D              Ft
 *
 * B and D carry Fl and Ft as an extra last column, so one Schur complement
 * gives [K_e | F_e] = [D | Ft] - C A^-1 [B | Fl]. The recovery kernel rebuilds
 * A and Fl - B uhat_e from the same atoms (the trace atoms applied to uhat_e
 * as they are integrated, B never stored) and solves A x = Fl - B uhat_e. The block
 * elimination both use is in lower_hdg_elim.c (lower_hdg_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* reference vertices of the simplex (refel.h): v0 = (-1,...,-1), v_k = v0 + 2 e_(k-1) */
static const double VREF[4][3] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};


/* ---------------------------------------------------------------- tables */

/* The barycentric coordinates of reference point x (dim + 1 of them). */
static void barycentric(int dim, const double *x, double *lam)
{
    if (dim == 2) {
        lam[0] = -(x[0] + x[1]) / 2;
        lam[1] = (1 + x[0]) / 2;
        lam[2] = (1 + x[1]) / 2;
        return;
    }
    lam[0] = -(1 + x[0] + x[1] + x[2]) / 2;
    for (int d = 0; d < 3; d++) lam[d + 1] = (1 + x[d]) / 2;
}

/* The element basis of degree N at n points x[d][i]: P (n x C(N+dim,dim)) and,
 * when dP is non-NULL, the derivatives dP[d]. */
static void elem_eval(int dim, int N, int n, double *const *x, double *P, double *const *dP)
{
    hdg_simplex_eval(dim, N, n, (const double *const *)x, P, dP);
}

/* The face rule exact to degree deg on the reference face (n points xf[d],
 * weights w): Gauss-Legendre on [-1,1], the collapsed rule on the triangle. */
static hdg_status face_rule(lower *c, int deg, int *n, double **xf, double **w)
{
    if (c->dim == 2) {
        int q = deg / 2 + 1;
        xf[0] = hdg_xmalloc(sizeof(double) * (size_t)q), *w = hdg_xmalloc(sizeof(double) * (size_t)q);
        xf[1] = NULL;
        *n = q;
        return hdg_gauss_legendre(q, xf[0], *w, c->err);
    }
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, 2, deg, c->err);
    if (st) return st;
    *n = q.n;
    for (int d = 0; d < 2; d++) {
        xf[d] = hdg_xmalloc(sizeof(double) * (size_t)q.n);
        memcpy(xf[d], q.x[d], sizeof(double) * (size_t)q.n);
    }
    *w = hdg_xmalloc(sizeof(double) * (size_t)q.n);
    memcpy(*w, q.w, sizeof(double) * (size_t)q.n);
    hdg_quad_free(&q);
    return HDG_OK;
}

/* Reference point x (dim values) of face point xi (dim-1 face coordinates) on
 * local face j: x = sum_k phi_k(xi) w_k over the face's vertices w_k (refel.h). */
static void face_point(int dim, int j, const double *xi, double *x)
{
    double phi[3];
    if (dim == 2) phi[0] = (1 - xi[0]) / 2, phi[1] = (1 + xi[0]) / 2;
    else phi[0] = -(xi[0] + xi[1]) / 2, phi[1] = (1 + xi[0]) / 2, phi[2] = (1 + xi[1]) / 2;
    const int *w = hdg_simplex_face_vertices(dim, j);
    for (int d = 0; d < dim; d++) {
        x[d] = phi[0] * VREF[w[0]][d] + phi[1] * VREF[w[1]][d];
        if (dim == 3) x[d] += phi[2] * VREF[w[2]][d];
    }
}

static const char *DNAME[3] = {"Pr", "Ps", "Pt"};

/* Volume rule of degree deg, with basis tables named by prefix (dP NULL: no
 * derivative tables). */
static hdg_status volume_tables(lower *c, int deg, const char *pre, int *nq, hdg_ir_tensor **w,
                                hdg_ir_tensor **lam, hdg_ir_tensor **P, hdg_ir_tensor **dP, int N)
{
    int dim = c->dim, nv = dim + 1;
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, dim, deg, c->err);
    if (st) return st;
    int np = hdg_simplex_count(dim, N);
    double *l = hdg_xmalloc(sizeof(double) * nv * (size_t)q.n);
    double *B = hdg_xmalloc(sizeof(double) * (size_t)(q.n * np)), *dB[3];
    for (int d = 0; d < dim; d++) dB[d] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * np));
    for (int i = 0; i < q.n; i++) {
        double x[3] = {q.x[0][i], q.x[1][i], dim == 3 ? q.x[2][i] : 0};
        barycentric(dim, x, l + nv * i);
    }
    elem_eval(dim, N, q.n, q.x, B, dB);
    char name[64];
    snprintf(name, sizeof name, "%s_w", pre);
    *w = hdg_ir_table(c->m, name, HDG_SHAPE(q.n), q.w);
    snprintf(name, sizeof name, "%s_lam", pre);
    *lam = hdg_ir_table(c->m, name, HDG_SHAPE(q.n, nv), l);
    snprintf(name, sizeof name, "%s_P", pre);
    *P = hdg_ir_table(c->m, name, HDG_SHAPE(q.n, np), B);
    for (int d = 0; dP && d < dim; d++) {
        snprintf(name, sizeof name, "%s_%s", pre, DNAME[d]);
        dP[d] = hdg_ir_table(c->m, name, HDG_SHAPE(q.n, np), dB[d]);
    }
    *nq = q.n;
    free(l), free(B);
    for (int d = 0; d < dim; d++) free(dB[d]);
    hdg_quad_free(&q);
    return HDG_OK;
}

/* The face rule (exact to degree 2k+5); per local face j the reference points
 * of its points, their barycentric coordinates and the element basis there;
 * the trace basis at the face points. */
static hdg_status face_tables(lower *c)
{
    int dim = c->dim, nfe = c->nfe, nv = dim + 1, np = c->np, nk = c->nk, n;
    double *xf[2] = {NULL, NULL}, *w = NULL;
    hdg_status st = face_rule(c, 2 * c->k + 5, &n, xf, &w);
    if (st) { free(xf[0]), free(xf[1]), free(w); return st; }
    double *Lg = hdg_xmalloc(sizeof(double) * (size_t)(n * nk));
    hdg_face_basis_eval(dim, c->k, n, (const double *const *)xf, Lg);
    double *x[3], *lam = hdg_xmalloc(sizeof(double) * (size_t)(nfe * n * nv));
    for (int d = 0; d < 3; d++) x[d] = hdg_xmalloc(sizeof(double) * (size_t)(nfe * n));
    for (int j = 0; j < nfe; j++)
        for (int q = 0; q < n; q++) {
            int i = j * n + q;
            double xi[2] = {xf[0][q], dim == 3 ? xf[1][q] : 0}, r[3] = {0, 0, 0};
            face_point(dim, j, xi, r);
            for (int d = 0; d < 3; d++) x[d][i] = r[d];
            barycentric(dim, r, lam + nv * i);
        }
    double *P = hdg_xmalloc(sizeof(double) * (size_t)(nfe * n * np)), *dP[3];
    for (int d = 0; d < dim; d++) dP[d] = hdg_xmalloc(sizeof(double) * (size_t)(nfe * n * np));
    elem_eval(dim, c->k, nfe * n, x, P, dP);
    c->nfq = n;
    c->fwh = hdg_xmalloc(sizeof(double) * (size_t)n);
    memcpy(c->fwh, w, sizeof(double) * (size_t)n);
    c->fLh = hdg_xmalloc(sizeof(double) * (size_t)(n * nk));
    memcpy(c->fLh, Lg, sizeof(double) * (size_t)(n * nk));
    c->fb[0] = P;
    for (int d = 0; d < dim; d++) c->fb[d + 1] = dP[d];
    c->fw = hdg_ir_table(c->m, "face_w", HDG_SHAPE(n), w);
    c->fL = hdg_ir_table(c->m, "face_L", HDG_SHAPE(n, nk), Lg);
    c->flam = hdg_ir_table(c->m, "face_lam", HDG_SHAPE(nfe, n, nv), lam);
    c->fP = hdg_ir_table(c->m, "face_P", HDG_SHAPE(nfe, n, np), P);
    for (int d = 0; d < dim; d++) {
        char name[32];
        snprintf(name, sizeof name, "face_%s", DNAME[d]);
        c->fdP[d] = hdg_ir_table(c->m, name, HDG_SHAPE(nfe, n, np), dP[d]);
    }
    free(xf[0]), free(xf[1]), free(w), free(Lg), free(lam);
    for (int d = 0; d < 3; d++) free(x[d]);
    return HDG_OK;
}

/* Host basis values at the main volume rule (for the reference tensors). */
static hdg_status volume_host(lower *c, int deg)
{
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, c->dim, deg, c->err);
    if (st) return st;
    c->vwh = hdg_xmalloc(sizeof(double) * (size_t)q.n);
    memcpy(c->vwh, q.w, sizeof(double) * (size_t)q.n);
    for (int i = 0; i <= c->dim; i++) c->vb[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * c->np));
    elem_eval(c->dim, c->k, q.n, q.x, c->vb[0], c->vb + 1);
    hdg_quad_free(&q);
    return HDG_OK;
}

static void host_free(lower *c)
{
    free(c->vwh), free(c->fwh), free(c->fLh);
    for (int i = 0; i < 4; i++) free(c->vb[i]), free(c->fb[i]);
}

/* ---------------------------------------------------------------- helpers */


/* physical coordinate v (0: x, 1: y, 2: z) from the barycentric loads l[0..dim] */
static hdg_ir_expr *coord(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_expr *const *l, int v)
{
    hdg_ir_expr *x = hdg_ir_mul(k, l[0], Gc(k, g, hdg_g_vertex(dim, 0, v)));
    for (int a = 1; a <= dim; a++) x = hdg_ir_add(k, x, hdg_ir_mul(k, l[a], Gc(k, g, hdg_g_vertex(dim, a, v))));
    return x;
}

/* The physical direction of a derivative op (HDG_OP_DX..DZ: 0..2). */
static int op_dir(hdg_op op) { return op == HDG_OP_DX ? 0 : op == HDG_OP_DY ? 1 : 2; }

/* Element basis function i (an index expression) with op, at volume point q
 * (face < 0) or at face point q of local face `face`: d/dx_x = sum_k dr_k/dx_x d/dr_k. */
static hdg_ir_expr *basis_op(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_op op, hdg_ir_tensor *P,
                             hdg_ir_tensor *const *dP, hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i)
{
#define AT(T) (face ? hdg_ir_ld3(k, T, face, q, i) : hdg_ir_ld2(k, T, q, i))
    if (op == HDG_OP_VALUE) return AT(P);
    hdg_ir_expr *v = NULL;
    for (int r = 0; r < dim; r++) {
        hdg_ir_expr *t = hdg_ir_mul(k, Gc(k, g, hdg_g_ginv(dim, r, op_dir(op))), AT(dP[r]));
        v = v ? hdg_ir_add(k, v, t) : t;
    }
    return v;
#undef AT
}

static hdg_ir_expr *elem_basis(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_op op,
                               hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i)
{
    if (face) return basis_op(k, g, c->dim, op, c->fP, c->fdP, face, q, i);
    return basis_op(k, g, c->dim, op, c->vP, c->vdP, NULL, q, i);
}


/* ---------------------------------------------------------------- atoms */

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


side hdg_lh_test_side(const lower *c, const hdg_equation *eq, const hdg_atom *a)
{
    const hdg_unknown *u = unk(c, eq->unknown);
    side s = {eq->trace, 0, eq->trace ? c->nk : c->np, a->test_op};
    s.base = eq->trace ? c->L->toff[eq->unknown] + a->test_comp * c->nk
                       : c->L->uoff[eq->unknown] + a->test_comp * c->np;
    (void)u;
    return s;
}

side hdg_lh_trial_side(const lower *c, const hdg_atom *a)
{
    side s = {0, c->L->nt, 1, a->trial_op};   /* a source: the last column */
    if (a->trial < 0) return s;
    const hdg_unknown *u = unk(c, a->trial);
    s.trace = u->trace;
    s.n = u->trace ? c->nk : c->np;
    s.base = u->trace ? c->L->toff[a->trial] + a->trial_comp * c->nk
                      : c->L->uoff[a->trial] + a->trial_comp * c->np;
    return s;
}

static int marker_set(lower *c, const hdg_markers *mk)
{
    for (int i = 0; i < c->L->nsets; i++)
        if (c->L->sets[i] == mk) return i;
    return -1;
}

/* Index of a row/column: element dofs base + i; trace dofs face*m + base + i;
 * the source column is the constant base. */
hdg_ir_expr *hdg_lh_dof(lower *c, hdg_ir_kernel *k, const side *s, int source, hdg_ir_expr *face,
                        hdg_ir_expr *i)
{
    if (source) return I(k, s->base);
    hdg_ir_expr *x = hdg_ir_add(k, I(k, s->base), i);
    if (s->trace) x = hdg_ir_add(k, hdg_ir_mul(k, face, I(k, c->L->m)), x);
    return x;
}

/* Value of a basis function of a side at the current point. */
static hdg_ir_expr *basis(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const side *s, int source,
                          hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i)
{
    if (source) return NULL;
    if (s->trace) return hdg_ir_ld2(k, c->fL, q, i);
    return elem_basis(c, k, g, s->op, face, q, i);
}

static void set_origin(lower *c, hdg_ir_kernel *k, const hdg_atom *a)
{
    char *text = hdg_atom_str(c->p, a);
    hdg_ir_set_origin(k, c->p->file, a->loc.line, a->loc.col, text);
    free(text);
}

/* Opens the loop over the local faces for a boundary atom: binds the normal
 * in env and returns the face index; *scale = sJ of the face, times the
 * marker-set flag when the atom is restricted to markers. */
hdg_ir_expr *hdg_lh_open_faces(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const hdg_atom *a,
                               hdg_lower_env *env, hdg_ir_expr **scale)
{
    int dim = c->dim;
    hdg_ir_expr *face = hdg_ir_for(k, "f", c->nfe);
    hdg_ir_expr *fb = hdg_ir_add(k, I(k, hdg_g_face(dim, 0)), hdg_ir_mul(k, face, I(k, dim + 1)));
    static const char *NN[3] = {"nx", "ny", "nz"};
    for (int d = 0; d < dim; d++)
        hdg_lower_env_normal(env, d, hdg_ir_let(k, NN[d], d ? G(k, g, hdg_ir_add(k, fb, I(k, d))) : G(k, g, fb)));
    *scale = G(k, g, hdg_ir_add(k, fb, I(k, dim)));
    if (a->markers) {
        hdg_ir_expr *fl = hdg_ir_add(k, I(k, hdg_g_fixed(dim) + c->nfe * marker_set(c, a->markers)), face);
        *scale = hdg_ir_mul(k, *scale, G(k, g, fl));
    }
    return face;
}

/* Binds x, y (, z) in env at the point with barycentric coordinates l[0..dim]. */
static void bind_xy(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_expr *const *l, hdg_lower_env *env)
{
    static const char *XN[3] = {"x", "y", "z"};
    for (int d = 0; d < dim; d++) hdg_lower_env_coord(env, d, hdg_ir_let(k, XN[d], coord(k, g, dim, l, d)));
}

/* Opens the loop over the points of a volume rule (weights w, barycentric
 * coordinates lam) and binds the coordinates; returns the point index. */
static hdg_ir_expr *open_points(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_tensor *lam, int nq,
                                hdg_lower_env *env)
{
    hdg_ir_expr *q = hdg_ir_for(k, "q", nq), *l[4];
    for (int v = 0; v <= dim; v++) l[v] = hdg_ir_ld2(k, lam, q, I(k, v));
    bind_xy(k, g, dim, l, env);
    return q;
}

/* ------------------------------------------------ reference-tensor path
 * An atom whose coefficient does not depend on x or y (constant, params, t,
 * or on faces the normal, which is constant per face of an affine element)
 * needs no quadrature loop per element: its integral is
 *     scale * coef * sum_ab g_a g_b T_ab[i][j]
 * with T_ab the integrals of products of reference basis values or reference
 * derivatives, computed once at compile time (module tables), and g_a the
 * affine factors (1, or rx, sx for d/dx, ry, sy for d/dy; in 3D dr_k/dx_d, k < 3). */


int hdg_lh_side_terms(const lower *c, hdg_op op, bterm *t)
{
    if (op == HDG_OP_VALUE) { t[0] = (bterm){0, -1}; return 1; }
    for (int r = 0; r < c->dim; r++) t[r] = (bterm){1 + r, hdg_g_ginv(c->dim, r, op_dir(op))};
    return c->dim;
}

static const char *KIND[4] = {"P", "Pr", "Ps", "Pt"};

/* sum_q w[q] X[q][i] Y[q][j] for nb blocks (faces) */
double *hdg_lh_integrate(int nb, int nq, const double *w, const double *X, int nx, const double *Y, int ny)
{
    double *T = hdg_xcalloc((size_t)nb * nx * (ny ? ny : 1), sizeof(double));
    for (int b = 0; b < nb; b++)
        for (int q = 0; q < nq; q++)
            for (int i = 0; i < nx; i++) {
                double xi = w[q] * X[((size_t)b * nq + q) * nx + i];
                if (!ny) { T[(size_t)b * nx + i] += xi; continue; }
                for (int j = 0; j < ny; j++)
                    T[((size_t)b * nx + i) * ny + j] += xi * Y[((size_t)b * nq + q) * ny + j];
            }
    return T;
}

static hdg_ir_tensor *table_vv(lower *c, int a, int b)
{
    if (!c->Tvv[a][b]) {
        char name[32];
        snprintf(name, sizeof name, "T_%s_%s", KIND[a], KIND[b]);
        double *T = hdg_lh_integrate(1, c->nvq, c->vwh, c->vb[a], c->np, c->vb[b], c->np);
        c->Tvv[a][b] = hdg_ir_table(c->m, name, HDG_SHAPE(c->np, c->np), T);
        free(T);
    }
    return c->Tvv[a][b];
}

static hdg_ir_tensor *table_v(lower *c, int a)
{
    if (!c->Tv[a]) {
        char name[32];
        snprintf(name, sizeof name, "T_%s", KIND[a]);
        double *T = hdg_lh_integrate(1, c->nvq, c->vwh, c->vb[a], c->np, NULL, 0);
        c->Tv[a] = hdg_ir_table(c->m, name, HDG_SHAPE(c->np), T);
        free(T);
    }
    return c->Tv[a];
}

static hdg_ir_tensor *table_ff(lower *c, int a, int b)
{
    if (!c->Tff[a][b]) {
        char name[32];
        snprintf(name, sizeof name, "TF_%s_%s", KIND[a], KIND[b]);
        double *T = hdg_lh_integrate(c->nfe, c->nfq, c->fwh, c->fb[a], c->np, c->fb[b], c->np);
        c->Tff[a][b] = hdg_ir_table(c->m, name, HDG_SHAPE(c->nfe, c->np, c->np), T);
        free(T);
    }
    return c->Tff[a][b];
}

/* element basis (kind a) x face basis, per face: the face rule's L repeated per face */
static hdg_ir_tensor *table_fl(lower *c, int a)
{
    if (!c->Tfl[a]) {
        char name[32];
        snprintf(name, sizeof name, "TF_%s_L", KIND[a]);
        int n = c->nfq, nk = c->nk, nfe = c->nfe;
        double *L3 = hdg_xmalloc(sizeof(double) * nfe * (size_t)(n * nk));
        for (int f = 0; f < nfe; f++) memcpy(L3 + (size_t)f * n * nk, c->fLh, sizeof(double) * (size_t)(n * nk));
        double *T = hdg_lh_integrate(nfe, n, c->fwh, c->fb[a], c->np, L3, nk);
        c->Tfl[a] = hdg_ir_table(c->m, name, HDG_SHAPE(nfe, c->np, nk), T);
        free(T), free(L3);
    }
    return c->Tfl[a];
}

static hdg_ir_tensor *table_f(lower *c, int a)
{
    if (!c->Tf[a]) {
        char name[32];
        snprintf(name, sizeof name, "TF_%s", KIND[a]);
        double *T = hdg_lh_integrate(c->nfe, c->nfq, c->fwh, c->fb[a], c->np, NULL, 0);
        c->Tf[a] = hdg_ir_table(c->m, name, HDG_SHAPE(c->nfe, c->np), T);
        free(T);
    }
    return c->Tf[a];
}

static hdg_ir_tensor *table_ll(lower *c)
{
    if (!c->Tll) {
        double *T = hdg_lh_integrate(1, c->nfq, c->fwh, c->fLh, c->nk, c->fLh, c->nk);
        c->Tll = hdg_ir_table(c->m, "TF_L_L", HDG_SHAPE(c->nk, c->nk), T);
        free(T);
    }
    return c->Tll;
}

static hdg_ir_tensor *table_l(lower *c)
{
    if (!c->Tl) {
        double *T = hdg_lh_integrate(1, c->nfq, c->fwh, c->fLh, c->nk, NULL, 0);
        c->Tl = hdg_ir_table(c->m, "TF_L", HDG_SHAPE(c->nk), T);
        free(T);
    }
    return c->Tl;
}

static hdg_ir_expr *gfac(hdg_ir_kernel *k, hdg_ir_tensor *g, const bterm *t, hdg_ir_expr *v)
{
    return t->g < 0 ? v : hdg_ir_mul(k, Gc(k, g, t->g), v);
}

/* g_a g_b v, the product of the geometric factors first (loop-invariant: the
 * passes hoist it out of the i, j loops) */
hdg_ir_expr *hdg_lh_gfac2(hdg_ir_kernel *k, hdg_ir_tensor *g, const bterm *a, const bterm *b, hdg_ir_expr *v)
{
    if (a->g < 0) return gfac(k, g, b, v);
    if (b->g < 0) return gfac(k, g, a, v);
    return hdg_ir_mul(k, hdg_ir_mul(k, Gc(k, g, a->g), Gc(k, g, b->g)), v);
}

/* The reference-tensor value of test mode i against trial mode j (or the
 * source integral when rs is NULL). */
static hdg_ir_expr *ref_value(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const side *ts,
                              const side *rs, hdg_ir_expr *f, hdg_ir_expr *i, hdg_ir_expr *j)
{
    bterm ta[3], ra[3];
    int nta = ts->trace ? 1 : hdg_lh_side_terms(c, ts->op, ta), nra = !rs || rs->trace ? 1 : hdg_lh_side_terms(c, rs->op, ra);
    if (ts->trace) ta[0] = (bterm){0, -1};
    if (!rs || rs->trace) ra[0] = (bterm){0, -1};
    hdg_ir_expr *sum = NULL;
    for (int x = 0; x < nta; x++)
        for (int y = 0; y < nra; y++) {
            hdg_ir_expr *v;
            if (!rs) {
                if (ts->trace) v = hdg_ir_ld1(k, table_l(c), i);
                else v = f ? hdg_ir_ld2(k, table_f(c, ta[x].kind), f, i) : hdg_ir_ld1(k, table_v(c, ta[x].kind), i);
            } else if (!ts->trace && !rs->trace) {
                v = f ? hdg_ir_ld3(k, table_ff(c, ta[x].kind, ra[y].kind), f, i, j)
                      : hdg_ir_ld2(k, table_vv(c, ta[x].kind, ra[y].kind), i, j);
            } else if (!ts->trace) {
                v = hdg_ir_ld3(k, table_fl(c, ta[x].kind), f, i, j);
            } else if (!rs->trace) {
                v = hdg_ir_ld3(k, table_fl(c, ra[y].kind), f, j, i);
            } else {
                v = hdg_ir_ld2(k, table_ll(c), i, j);
            }
            v = hdg_lh_gfac2(k, g, &ta[x], &ra[y], v);
            sum = sum ? hdg_ir_add(k, sum, v) : v;
        }
    return sum;
}

int hdg_lh_coef_is_constant(const hdg_atom *a)
{
    return !hdg_expr_depends(a->coef, HDG_VAR_X) && !hdg_expr_depends(a->coef, HDG_VAR_Y) &&
           !hdg_lh_depends_z(a->coef);
}

/* The coefficient of an atom; a time atom's matrix part takes sigma. */
hdg_ir_expr *hdg_lh_atom_coef(lower *c, hdg_ir_kernel *k, hdg_lower_env *env, const hdg_atom *a, int hist)
{
    hdg_ir_expr *coef = hdg_lower_expr(k, env, a->coef);
    if (!coef) coef = hdg_ir_num(k, 0);   /* the builder error is reported by verify */
    if (a->dt && !hist) coef = hdg_ir_mul(k, hdg_ir_param(k, c->L->p_sigma, "sigma"), coef);
    return coef;
}

/* A boundary atom's weight on each of the faces (sJ times the marker flag
 * times the coefficient, with the face's normal), in a local w[nfe]: the loop over
 * faces is closed again, so that a block whose entries do not depend on the
 * face can sum over the faces innermost, in one pass over its entries instead
 * of one per face (each entry gets the same terms in the same order). */
hdg_ir_tensor *hdg_lh_face_weights(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const hdg_atom *a)
{
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *scale;
    hdg_ir_tensor *w = hdg_ir_local(k, "cf", HDG_IR_DOUBLE, HDG_SHAPE(c->nfe));
    hdg_ir_expr *f = hdg_lh_open_faces(c, k, g, a, &env, &scale);
    hdg_ir_assign(k, hdg_ir_ld1(k, w, f), hdg_ir_mul(k, scale, hdg_lh_atom_coef(c, k, &env, a, 0)));
    hdg_ir_end(k);
    return w;
}

/* Where an atom's entries go: the block, and the offsets of its rows and of
 * its columns in it (non-zero when the blocks are views of one M). */
typedef struct dest {
    hdg_ir_tensor *t;
    int ro, co;
} dest;

/* dst[row][col] for a block row/column index */
static hdg_ir_expr *dest_at(hdg_ir_kernel *k, const dest *d, hdg_ir_expr *row, hdg_ir_expr *col)
{
    if (d->ro) row = hdg_ir_add(k, I(k, d->ro), row);
    if (d->co) col = hdg_ir_add(k, I(k, d->co), col);
    return hdg_ir_ld2(k, d->t, row, col);
}

/* Adds v into dst[row][col]; with hist (a time atom's history part) v h[col]
 * into the source column; for a trace trial in the recovery kernel -v uhat[col]
 * there too (r = F - B uhat without B). */
static void accum_trial(lower *c, hdg_ir_kernel *k, const dest *dst, hdg_ir_expr *row, hdg_ir_expr *col,
                        hdg_ir_expr *v, int hist, int trace)
{
    hdg_ir_expr *src = dest_at(k, dst, row, I(k, c->L->nt));
    if (hist) hdg_ir_accum(k, src, hdg_ir_mul(k, v, hdg_ir_ld1(k, c->hist, col)));
    else if (trace && c->uhat) hdg_ir_accum(k, src, hdg_ir_neg(k, hdg_ir_mul(k, v, hdg_ir_ld1(k, c->uhat, col))));
    else hdg_ir_accum(k, dest_at(k, dst, row, col), v);
}

/* A boundary atom of an element-element block (or of an element row's source):
 * its entries do not depend on the face, so the faces are summed innermost. */
static void emit_atom_ref_faces_inside(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const dest *dst,
                                       const side *ts, const side *rs, const hdg_atom *a)
{
    hdg_ir_tensor *w = hdg_lh_face_weights(c, k, g, a);
    hdg_ir_expr *i = hdg_ir_for(k, "i", ts->n);
    hdg_ir_expr *row = hdg_lh_dof(c, k, ts, 0, NULL, i), *j = NULL, *col = I(k, c->L->nt);
    if (a->trial >= 0) {
        j = hdg_ir_for(k, "j", rs->n);
        col = hdg_lh_dof(c, k, rs, 0, NULL, j);
    }
    hdg_ir_expr *f = hdg_ir_for(k, "f", c->nfe);
    hdg_ir_accum(k, dest_at(k, dst, row, col),
                 hdg_ir_mul(k, hdg_ir_ld1(k, w, f), ref_value(c, k, g, ts, a->trial >= 0 ? rs : NULL, f, i, j)));
    hdg_ir_end(k);
    if (j) hdg_ir_end(k);
    hdg_ir_end(k);
}

static void emit_atom_ref(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const dest *dst,
                          const side *ts, const side *rs, const hdg_atom *a, int hist)
{
    if (a->domain == HDG_BOUNDARY && !hist && !ts->trace && (a->trial < 0 || !rs->trace)) {
        emit_atom_ref_faces_inside(c, k, g, dst, ts, rs, a);
        return;
    }
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *scale = Gc(k, g, hdg_g_J(c->dim));
    int boundary = a->domain == HDG_BOUNDARY;
    hdg_ir_expr *face = boundary ? hdg_lh_open_faces(c, k, g, a, &env, &scale) : NULL;
    hdg_ir_expr *coef = hdg_lh_atom_coef(c, k, &env, a, hist);
    hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, scale, coef));
    hdg_ir_expr *i = hdg_ir_for(k, "i", ts->n);
    hdg_ir_expr *row = hdg_lh_dof(c, k, ts, 0, face, i);
    if (a->trial < 0) {
        hdg_ir_accum(k, dest_at(k, dst, row, I(k, c->L->nt)),
                     hdg_ir_mul(k, cw, ref_value(c, k, g, ts, NULL, face, i, NULL)));
    } else {
        hdg_ir_expr *j = hdg_ir_for(k, "j", rs->n);
        accum_trial(c, k, dst, row, hdg_lh_dof(c, k, rs, 0, face, j), hdg_ir_mul(k, cw, ref_value(c, k, g, ts, rs, face, i, j)),
                    hist, rs->trace);
        hdg_ir_end(k);
    }
    hdg_ir_end(k);
    if (boundary) hdg_ir_end(k);
}

/* e calls a function (exp, sin, ..., or pow for a power that is not a constant integer). */
static int calls_function(const hdg_ir_expr *e)
{
    if (!e) return 0;
    if (e->op == HDG_E_CALL || e->op == HDG_E_POW) return 1;
    for (int i = 0; i < e->n && i < 3; i++)
        if (calls_function(e->a[i])) return 1;
    return e->row && calls_function(e->row);
}

/* Adds one atom's integral to the right block. Returns 0 if the atom does not
 * belong to the blocks given (e.g. trace rows in the recovery kernel). */
static int emit_atom(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const blocks *bk,
                     const hdg_equation *eq, const hdg_atom *a, int hist)
{
    side ts = hdg_lh_test_side(c, eq, a), rs = hdg_lh_trial_side(c, a);
    int source = a->trial < 0;
    if (c->rhs_only && !source && rs.trace) return 0;
    int tcol = source || rs.trace || hist;   /* B or D */
    dest d = {!ts.trace ? (tcol ? bk->B : bk->A) : (tcol ? bk->D : bk->C), ts.trace ? bk->tr_row : 0,
              tcol ? bk->tr_col : 0};
    const dest *dst = &d;
    if (!d.t) return 0;
    set_origin(c, k, a);
    if (c->ref_tensors && hdg_lh_coef_is_constant(a)) {
        emit_atom_ref(c, k, g, dst, &ts, &rs, a, hist);
        hdg_ir_set_origin(k, NULL, 0, 0, NULL);
        return 1;
    }
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *face = NULL, *scale, *q;
    int boundary = a->domain == HDG_BOUNDARY;
    if (boundary) {
        face = hdg_lh_open_faces(c, k, g, a, &env, &scale);
        scale = hdg_ir_let(k, "sJ", scale);
        q = hdg_ir_for(k, "q", c->nfq);
        hdg_ir_expr *l[4];
        for (int v = 0; v <= c->dim; v++) l[v] = hdg_ir_ld3(k, c->flam, face, q, I(k, v));
        bind_xy(k, g, c->dim, l, &env);
        scale = hdg_ir_mul(k, hdg_ir_ld1(k, c->fw, q), scale);
    } else {
        q = open_points(k, g, c->dim, c->vlam, c->nvq, &env);
        scale = hdg_ir_mul(k, hdg_ir_ld1(k, c->vw, q), Gc(k, g, hdg_g_J(c->dim)));
    }
    hdg_ir_expr *coef = hdg_lh_atom_coef(c, k, &env, a, hist);
    hdg_ir_expr *cw;
    if (c->split_coef && !boundary && calls_function(coef)) {
        /* A coefficient with exp, sin... : its weighted values at all points first, in a loop of
         * its own that the C backend vectorises (the calls 4 at a time, libmvec), then the
         * products with the basis. */
        hdg_ir_tensor *cq = hdg_ir_local(k, "cq", HDG_IR_DOUBLE, HDG_SHAPE(c->nvq));
        hdg_ir_assign(k, hdg_ir_ld1(k, cq, q), hdg_ir_mul(k, scale, coef));
        hdg_ir_end(k);   /* q */
        q = hdg_ir_for(k, "q", c->nvq);
        cw = hdg_ir_let(k, "c", hdg_ir_ld1(k, cq, q));
    } else {
        cw = hdg_ir_let(k, "c", hdg_ir_mul(k, scale, coef));
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", ts.n);
    hdg_ir_expr *ti = hdg_ir_let(k, "ti", hdg_ir_mul(k, cw, basis(c, k, g, &ts, 0, face, q, i)));
    hdg_ir_expr *row = hdg_lh_dof(c, k, &ts, 0, face, i);
    if (source) {
        hdg_ir_accum(k, dest_at(k, dst, row, I(k, c->L->nt)), ti);
    } else {
        hdg_ir_expr *jj = hdg_ir_for(k, "j", rs.n);
        hdg_ir_expr *col = hdg_lh_dof(c, k, &rs, 0, face, jj);
        accum_trial(c, k, dst, row, col, hdg_ir_mul(k, ti, basis(c, k, g, &rs, 0, face, q, jj)), hist, rs.trace);
        hdg_ir_end(k);
    }
    hdg_ir_end(k);   /* i */
    hdg_ir_end(k);   /* q */
    if (boundary) hdg_ir_end(k);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    return 1;
}

static void emit_system(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const blocks *bk)
{
    for (int e = 0; e < c->p->nequations; e++) {
        const hdg_equation *eq = &c->p->equations[e];
        if (eq->post) continue;
        for (int t = 0; t < eq->natoms; t++) {
            emit_atom(c, k, g, bk, eq, &eq->atoms[t], 0);
            if (eq->atoms[t].dt && c->hist) emit_atom(c, k, g, bk, eq, &eq->atoms[t], 1);
        }
    }
}

/* ---------------------------------------------------------------- kernels */

static hdg_ir_tensor *elem_geom(lower *c, hdg_ir_kernel *k)
{
    return hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom),
                       c->dim == 2 ? "vertices, J, rx ry sx sy, per face nx ny sJ, marker-set flags"
                                   : "vertices, J, dr_k/dx_d (3x3), per face nx ny nz sJ, marker-set flags");
}

/* The constant trace: when a constant value of a trace component on the
 * faces (three, on tetrahedra four) makes the element's u constant and q
 * zero (a local problem that reproduces constants: no zeroth-order term), the constant vector c of
 * that component (1 on its faces' P0 modes) is a null vector of K_e on both
 * sides. In floating point K_e c is ~1e-15 max|K_e| instead of 0, and on a
 * mesh of like elements that defect acts as a spurious reaction term: at
 * k = 7, 8 it bounded the errors of poisson (the hand-written kernels, whose
 * K_e is a difference of two larger matrices, lost 1-2.5 digits to it;
 * backends/handwritten/poisson.c). Where max|K_e c| (or max|c^T K_e|) is at most
 * HDG_NULL_TOL max|K_e|, below anything double precision resolves in K_e,
 * it is taken as rounding and closed exactly: the P0 columns and rows
 * go onto the grid ulp(8 max|K_e|) by (x + 8m) - 8m, on which sums of a few
 * entries are exact; then in every row the last P0 column is set to minus
 * the sum of the others (K c = 0), and in every column the last P0 row
 * likewise (c^T K = 0; the closed last row keeps K c = 0, its entries being
 * sums of rows that have it). The stored K_e then has K_e c = 0 exactly, and
 * so has the assembled K (the sum of two entries on such grids is exact):
 * what rounding is left annihilates constants, like a perturbed coefficient,
 * instead of acting like a reaction term. A projection K_e <- P K_e P with
 * P = I - c c^T/3 (session 7) left K_e c at rounding level with one sign over
 * a uniform mesh: u* 9.1e-12 on square:256 at k = 3 (poisson_exp), 6.7e-14
 * when closed. A symmetric K_e stays exactly symmetric. A real zeroth-order
 * term (reaction, Robin faces) gives K_e c far above the tolerance. */
#define HDG_NULL_TOL 1e-13
static void null_close(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *S)
{
    hdg_lowered *L = c->L;
    int nt = L->nt;
    hdg_ir_tensor *v = hdg_ir_local(k, "nv", HDG_IR_DOUBLE, HDG_SHAPE(nt));
    hdg_ir_tensor *w = hdg_ir_local(k, "nw", HDG_IR_DOUBLE, HDG_SHAPE(nt));
    hdg_ir_tensor *s = hdg_ir_local(k, "ns", HDG_IR_DOUBLE, HDG_SHAPE(3));   /* max|K|, max|Kc|, max|c^T K| */
    hdg_ir_set_origin(k, c->p->file, 0, 0, "constant trace: K_e c = 0 made exact");
    /* max|K| by columns first: nt independent chains instead of one of nt^2 maxima (a max
     * is the same in any order) */
    hdg_ir_tensor *cm = hdg_ir_local(k, "nm", HDG_IR_DOUBLE, HDG_SHAPE(nt));
    hdg_ir_fill(k, cm, hdg_ir_num(k, 0));
    hdg_ir_expr *i = hdg_ir_for(k, "i", nt), *j = hdg_ir_for(k, "j", nt);
    hdg_ir_assign(k, hdg_ir_ld1(k, cm, j),
                  hdg_ir_max(k, hdg_ir_ld1(k, cm, j), hdg_ir_call(k, HDG_FN_ABS, hdg_ir_ld2(k, S, i, j))));
    hdg_ir_end(k), hdg_ir_end(k);
    hdg_ir_assign(k, hdg_ir_ld1(k, s, I(k, 0)), hdg_ir_num(k, 0));
    j = hdg_ir_for(k, "j", nt);
    hdg_ir_assign(k, hdg_ir_ld1(k, s, I(k, 0)), hdg_ir_max(k, hdg_ir_ld1(k, s, I(k, 0)), hdg_ir_ld1(k, cm, j)));
    hdg_ir_end(k);
    hdg_ir_expr *tol = hdg_ir_let(k, "ntol", hdg_ir_mul(k, hdg_ir_num(k, HDG_NULL_TOL), hdg_ir_ld1(k, s, I(k, 0))));
    for (int u = 0; u < c->p->nunknowns; u++)
        for (int comp = 0; L->toff[u] >= 0 && comp < c->p->unknowns[u].ncomp; comp++) {
            int at[4], nfe = c->nfe, last = nfe - 1;
            for (int f = 0; f < nfe; f++) at[f] = f * L->m + L->toff[u] + comp * c->nk;
            hdg_ir_assign(k, hdg_ir_ld1(k, s, I(k, 1)), hdg_ir_num(k, 0));
            hdg_ir_assign(k, hdg_ir_ld1(k, s, I(k, 2)), hdg_ir_num(k, 0));
            i = hdg_ir_for(k, "i", nt);
            hdg_ir_expr *sv = NULL, *sw = NULL;
            for (int f = 0; f < nfe; f++) {
                hdg_ir_expr *a = hdg_ir_ld2(k, S, i, I(k, at[f])), *b = hdg_ir_ld2(k, S, I(k, at[f]), i);
                sv = sv ? hdg_ir_add(k, sv, a) : a, sw = sw ? hdg_ir_add(k, sw, b) : b;
            }
            hdg_ir_assign(k, hdg_ir_ld1(k, v, i), sv);
            hdg_ir_assign(k, hdg_ir_ld1(k, w, i), sw);
            hdg_ir_assign(k, hdg_ir_ld1(k, s, I(k, 1)),
                          hdg_ir_max(k, hdg_ir_ld1(k, s, I(k, 1)), hdg_ir_call(k, HDG_FN_ABS, hdg_ir_ld1(k, v, i))));
            hdg_ir_assign(k, hdg_ir_ld1(k, s, I(k, 2)),
                          hdg_ir_max(k, hdg_ir_ld1(k, s, I(k, 2)), hdg_ir_call(k, HDG_FN_ABS, hdg_ir_ld1(k, w, i))));
            hdg_ir_end(k);
            hdg_ir_expr *right = hdg_ir_let(k, "nr", hdg_ir_cmp(k, HDG_E_LE, hdg_ir_ld1(k, s, I(k, 1)), tol));
            hdg_ir_expr *left = hdg_ir_let(k, "nl", hdg_ir_cmp(k, HDG_E_LE, hdg_ir_ld1(k, s, I(k, 2)), tol));
            hdg_ir_expr *any = hdg_ir_let(k, "na", hdg_ir_op_new(k, HDG_E_OR, 2, (hdg_ir_expr *[]){right, left}, 0));
            hdg_ir_expr *sh = hdg_ir_let(k, "nq", hdg_ir_select(k, any, hdg_ir_mul(k, hdg_ir_num(k, 8), hdg_ir_ld1(k, s, I(k, 0))),
                                                                 hdg_ir_num(k, 0)));
            i = hdg_ir_for(k, "i", nt);   /* the nfe columns and rows onto the grid ulp(8 max|K_e|) */
            for (int f = 0; f < nfe; f++) {
                hdg_ir_expr *col = hdg_ir_ld2(k, S, i, I(k, at[f])), *row = hdg_ir_ld2(k, S, I(k, at[f]), i);
                hdg_ir_assign(k, col, hdg_ir_sub(k, hdg_ir_let(k, "nt", hdg_ir_add(k, col, sh)), sh));
                hdg_ir_assign(k, row, hdg_ir_sub(k, hdg_ir_let(k, "nt", hdg_ir_add(k, row, sh)), sh));
            }
            hdg_ir_end(k);
            i = hdg_ir_for(k, "i", nt);   /* K c = 0: the last column closes each row */
            hdg_ir_expr *sc = hdg_ir_ld2(k, S, i, I(k, at[0]));
            for (int f = 1; f < last; f++) sc = hdg_ir_add(k, sc, hdg_ir_ld2(k, S, i, I(k, at[f])));
            hdg_ir_assign(k, hdg_ir_ld2(k, S, i, I(k, at[last])),
                          hdg_ir_select(k, right, hdg_ir_neg(k, sc), hdg_ir_ld2(k, S, i, I(k, at[last]))));
            hdg_ir_end(k);
            i = hdg_ir_for(k, "i", nt);   /* c^T K = 0: the last row closes each column */
            hdg_ir_expr *sr = hdg_ir_ld2(k, S, I(k, at[0]), i);
            for (int f = 1; f < last; f++) sr = hdg_ir_add(k, sr, hdg_ir_ld2(k, S, I(k, at[f]), i));
            hdg_ir_assign(k, hdg_ir_ld2(k, S, I(k, at[last]), i),
                          hdg_ir_select(k, left, hdg_ir_neg(k, sr), hdg_ir_ld2(k, S, I(k, at[last]), i)));
            hdg_ir_end(k);
        }
}

/* The local system's blocks, zeroed: A, B (with the source column) and, with
 * trace rows, C and D (with theirs). */
static blocks system_blocks(hdg_ir_kernel *k, const hdg_lowered *L, int trace_rows)
{
    blocks bk = {hdg_ir_local(k, "A", HDG_IR_DOUBLE, HDG_SHAPE(L->nl, L->nl)),
                 hdg_ir_local(k, "B", HDG_IR_DOUBLE, HDG_SHAPE(L->nl, L->nt + 1)),
                 trace_rows ? hdg_ir_local(k, "C", HDG_IR_DOUBLE, HDG_SHAPE(L->nt, L->nl)) : NULL,
                 trace_rows ? hdg_ir_local(k, "D", HDG_IR_DOUBLE, HDG_SHAPE(L->nt, L->nt + 1)) : NULL, 0, 0};
    hdg_ir_fill(k, bk.A, hdg_ir_num(k, 0));
    hdg_ir_fill(k, bk.B, hdg_ir_num(k, 0));
    if (trace_rows) hdg_ir_fill(k, bk.C, hdg_ir_num(k, 0)), hdg_ir_fill(k, bk.D, hdg_ir_num(k, 0));
    return bk;
}

static void local_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->local, sizeof L->local, "%s_local", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->local, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = elem_geom(c, k);
    hdg_ir_tensor *Ke = hdg_ir_output(k, "Ke", HDG_SHAPE(L->nt, L->nt), "element trace matrix K_e");
    hdg_ir_tensor *Fe = hdg_ir_output(k, "Fe", HDG_SHAPE(L->nt), "element trace load F_e");
    elim_plan P;
    hdg_ir_tensor *S;
    if (hdg_lh_elim_plan_make(c, L->nt, L->nt + 1, LOCAL_KEEP, &P)) {
        /* M = [A B; C D], assembled in place (the blocks are views of it) and
         * eliminated component by component (1.5-2.1x faster than the dense
         * LU for poisson at k = 3..8); as accurate as the dense LU once
         * null_close removes the rounding in K_e c (see the block elimination
         * notes) */
        int nl = L->nl, nt = L->nt;
        hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(nl + nt, nl + nt + 1)), *Wg[ELIM_MAX];
        hdg_ir_fill(k, M, hdg_ir_num(k, 0));
        blocks bk = {M, M, M, M, nl, nl};
        emit_system(c, k, g, &bk);
        hdg_lh_elim_origin(c, k, &P);
        S = hdg_lh_elim_emit(c, k, g, &P, M, nt, nt + 1, Wg);
    } else {
        blocks bk = system_blocks(k, L, 1);
        hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(L->nl));
        hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(L->nl, L->nt + 1));
        emit_system(c, k, g, &bk);
        hdg_ir_set_origin(k, c->p->file, 0, 0, "dense LU of A (partial pivoting over all of A)");
        hdg_ir_schur(k, bk.D, bk.A, piv, bk.B, bk.C, bk.D, W);
        S = bk.D;
    }
    null_close(c, k, S);
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nt);
    hdg_ir_expr *j = hdg_ir_for(k, "j", L->nt);
    hdg_ir_assign(k, hdg_ir_ld2(k, Ke, i, j), hdg_ir_ld2(k, S, i, j));
    hdg_ir_end(k);
    hdg_ir_assign(k, hdg_ir_ld1(k, Fe, i), hdg_ir_ld2(k, S, i, I(k, L->nt)));
    hdg_ir_end(k);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
}

/* x = A^-1 r by the plan P, on M whose first nl columns are A and column nl
 * is r (further columns are ignored); M is overwritten. */
static void elim_solve(lower *c, hdg_ir_kernel *k, const elim_plan *P, hdg_ir_tensor *M, hdg_ir_tensor *x)
{
    hdg_ir_tensor *Wg[ELIM_MAX], *X = hdg_ir_local(k, "X", HDG_IR_DOUBLE, HDG_SHAPE(c->L->nl, 1));
    hdg_lh_elim_origin(c, k, P);
    hdg_lh_elim_emit(c, k, NULL, P, M, 0, 1, Wg);
    hdg_lh_elim_back(c, k, P, Wg, X, 1);
    hdg_ir_copy(k, x, X);
}

/* Solves A x = r in place (A destroyed), by blocks where the plan pays. */
static void solve_local(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *r)
{
    hdg_lowered *L = c->L;
    elim_plan P;
    if (hdg_lh_elim_plan_make(c, 0, 1, RECOVER_KEEP, &P)) {   /* M = [A | r], component by component */
        hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(L->nl, L->nl + 1));
        hdg_lh_copy_block(k, M, 0, 0, A, 0, 0, L->nl, L->nl, 0);
        hdg_ir_expr *ii = hdg_ir_for(k, "i", L->nl);
        hdg_ir_assign(k, hdg_ir_ld2(k, M, ii, I(k, L->nl)), hdg_ir_ld1(k, r, ii));
        hdg_ir_end(k);
        elim_solve(c, k, &P, M, r);
    } else {
        hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(L->nl));
        hdg_ir_set_origin(k, c->p->file, 0, 0, "dense LU of A");
        hdg_ir_lu(k, A, piv);
        hdg_ir_lu_solve(k, A, piv, r);
    }
}

/* The transient kernels' history input (docs/ir.md): h per element dof. */
static hdg_ir_tensor *hist_input(lower *c, hdg_ir_kernel *k)
{
    return hdg_ir_input(k, "hist", HDG_SHAPE(c->L->nl),
                        "time scheme history h (modal): (c dt(u), w) = sigma c (u, w) - c (h, w)");
}

static void recover_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->recover, sizeof L->recover, "%s_recover", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->recover, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = elem_geom(c, k);
    hdg_ir_tensor *uh = hdg_ir_input(k, "uhat", HDG_SHAPE(L->nt),
                                     "trace dofs of the element's faces, element orientation");
    c->hist = L->transient ? hist_input(c, k) : NULL;
    hdg_ir_tensor *x = hdg_ir_output(k, "x", HDG_SHAPE(L->nl), "element dofs (modal)");
    elim_plan P;
    if (hdg_lh_elim_plan_make(c, 0, 1, RECOVER_KEEP, &P)) {
        /* M = [A | r], assembled in place, r = F - B uhat in column nl (the trace atoms
         * applied to uhat as they are integrated), then eliminated component by
         * component as in solve_local */
        int nl = L->nl, nt = L->nt;
        hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(nl, nl + 1));
        hdg_ir_fill(k, M, hdg_ir_num(k, 0));
        blocks bk = {M, M, NULL, NULL, 0, nl - nt};   /* the source column nt lands on nl */
        c->uhat = uh;
        emit_system(c, k, g, &bk);
        c->hist = NULL, c->uhat = NULL;
        elim_solve(c, k, &P, M, x);
        hdg_ir_set_origin(k, NULL, 0, 0, NULL);
        return;
    }
    blocks bk = system_blocks(k, L, 0);   /* B's trace columns stay unused (r = F - B uhat in its last) */
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    c->uhat = uh;
    emit_system(c, k, g, &bk);
    c->hist = NULL, c->uhat = NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nl);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_ld2(k, bk.B, i, I(k, L->nt)));
    hdg_ir_end(k);
    solve_local(c, k, bk.A, r);
    hdg_ir_copy(k, x, r);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
}

/* Transient HDG, every step: the element trace load F_e = F_t - C A^-1 F_l
 * at the step's time and history, K_e being unchanged (assembled once). */
static void rhs_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->rhs, sizeof L->rhs, "%s_rhs", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->rhs, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = elem_geom(c, k);
    c->hist = hist_input(c, k);
    hdg_ir_tensor *Fe = hdg_ir_output(k, "Fe", HDG_SHAPE(L->nt), "element trace load F_e");
    blocks bk = system_blocks(k, L, 1);
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    c->rhs_only = 1;
    emit_system(c, k, g, &bk);
    c->rhs_only = 0, c->hist = NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nl);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_ld2(k, bk.B, i, I(k, L->nt)));
    hdg_ir_end(k);
    solve_local(c, k, bk.A, r);
    i = hdg_ir_for(k, "i", L->nt);
    hdg_ir_assign(k, hdg_ir_ld1(k, Fe, i), hdg_ir_ld2(k, bk.D, i, I(k, L->nt)));
    hdg_ir_expr *j = hdg_ir_for(k, "j", L->nl);
    hdg_ir_accum(k, hdg_ir_ld1(k, Fe, i), hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld2(k, bk.C, i, j), hdg_ir_ld1(k, r, j))));
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
}

/* Transient HDG: the L2 projection of the initial state of the unknowns under
 * dt() (the modes are orthonormal on the reference simplex, so the
 * mass matrix of an affine element is J I: x_i = sum_q w_q u0(x_q) P_i(q)). */
static hdg_status initial_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->initial, sizeof L->initial, "%s_initial", c->m->name);
    int nq;
    hdg_ir_tensor *w, *lam, *P;
    hdg_status st = volume_tables(c, 2 * c->k + 6, "ini", &nq, &w, &lam, &P, NULL, c->k);
    if (st) return st;
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->initial, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_output(k, "x0", HDG_SHAPE(L->nl), "initial element dofs (modal; 0 where no dt())");
    hdg_ir_tensor *acc = hdg_ir_local(k, "acc", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    hdg_ir_fill(k, acc, hdg_ir_num(k, 0));
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *q = open_points(k, g, c->dim, lam, nq, &env);
    for (int u = 0; u < c->p->nunknowns; u++)
        for (int cp = 0; L->uoff[u] >= 0 && cp < unk(c, u)->ncomp; cp++) {
            if (!unk(c, u)->initial[cp]) continue;
            hdg_ir_expr *v = hdg_lower_expr(k, &env, unk(c, u)->initial[cp]);
            if (!v) v = hdg_ir_num(k, 0);
            hdg_ir_expr *wv = hdg_ir_let(k, "wv", hdg_ir_mul(k, hdg_ir_ld1(k, w, q), v));
            hdg_ir_expr *i = hdg_ir_for(k, "i", c->np);
            hdg_ir_accum(k, hdg_ir_ld1(k, acc, hdg_ir_add(k, I(k, L->uoff[u] + cp * c->np), i)),
                         hdg_ir_mul(k, wv, hdg_ir_ld2(k, P, q, i)));
            hdg_ir_end(k);
        }
    hdg_ir_end(k);
    hdg_ir_copy(k, x, acc);
    return HDG_OK;
}

/* Squared L2 errors of every component with an exact solution, on a rule of
 * degree 2k+6 (the errors of post-processed unknowns use their own basis). */
static hdg_status errors_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->errors, sizeof L->errors, "%s_errors", c->m->name);
    int nq, kp = c->k;
    for (int i = 0; i < L->npost; i++) kp = L->pdeg[i] > kp ? L->pdeg[i] : kp;
    hdg_ir_tensor *w, *lam, *P, *Pp[HDG_MAX_POST] = {NULL};
    hdg_status st = volume_tables(c, 2 * kp + 6, "err", &nq, &w, &lam, &P, NULL, c->k);
    if (st) return st;
    for (int i = 0; i < L->npost; i++) {   /* each post unknown's basis on the same rule */
        hdg_ir_tensor *w2, *lam2;
        st = volume_tables(c, 2 * kp + 6, "errp", &nq, &w2, &lam2, &Pp[i], NULL, L->pdeg[i]);
        if (st) return st;
    }
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->errors, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_input(k, "x", HDG_SHAPE(L->nl), "element dofs (modal)");
    hdg_ir_tensor *xp = L->npost > 0
        ? hdg_ir_input(k, "xpost", HDG_SHAPE(L->npost_dofs), "post-processed dofs (modal)")
        : NULL;
    int ne = L->nerr > 0 ? L->nerr : 1;
    hdg_ir_tensor *out = hdg_ir_output(k, "err2", HDG_SHAPE(ne), "squared L2 errors per component");
    hdg_ir_tensor *acc = hdg_ir_local(k, "acc", HDG_IR_DOUBLE, HDG_SHAPE(ne));
    hdg_ir_tensor *val = hdg_ir_local(k, "val", HDG_IR_DOUBLE, HDG_SHAPE(ne));
    hdg_ir_fill(k, acc, hdg_ir_num(k, 0));
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    /* exact values that call functions (exp, sin...): at all points first, in a loop of their
     * own that the C backend vectorises (as a coefficient's in emit_atom) */
    hdg_ir_tensor *exq = NULL;
    if (c->split_coef && L->nerr > 0) {
        hdg_ir_expr *q0 = open_points(k, g, c->dim, lam, nq, &env), *ex[64];   /* err_unknown[64] */
        int calls = 0;
        for (int t = 0; t < L->nerr; t++) {
            ex[t] = hdg_lower_expr(k, &env, unk(c, L->err_unknown[t])->exact[L->err_comp[t]]);
            calls |= calls_function(ex[t]);
        }
        if (calls) {
            exq = hdg_ir_local(k, "exq", HDG_IR_DOUBLE, HDG_SHAPE(L->nerr, nq));
            for (int t = 0; t < L->nerr; t++)
                hdg_ir_assign(k, hdg_ir_ld2(k, exq, I(k, t), q0), ex[t] ? ex[t] : hdg_ir_num(k, 0));
        }
        hdg_ir_end(k);   /* without calls the loop holds only lets, which DCE removes */
    }
    hdg_ir_expr *q = open_points(k, g, c->dim, lam, nq, &env);
    hdg_ir_expr *wj = hdg_ir_let(k, "wJ", hdg_ir_mul(k, hdg_ir_ld1(k, w, q), Gc(k, g, hdg_g_J(c->dim))));
    hdg_ir_fill(k, val, hdg_ir_num(k, 0));
    for (int t = 0; t < L->nerr; t++) {
        int u = L->err_unknown[t], pi = -1;
        for (int i = 0; i < L->npost; i++)
            if (L->posts[i] == u) pi = i;
        int post = pi >= 0;
        hdg_ir_tensor *src = post ? xp : x, *B = post ? Pp[pi] : P;
        int n = post ? L->pnp[pi] : c->np;
        int base = post ? L->poff[pi] + L->err_comp[t] * L->pnp[pi] : L->uoff[u] + L->err_comp[t] * c->np;
        hdg_ir_expr *i = hdg_ir_for(k, "i", n);
        hdg_ir_accum(k, hdg_ir_ld1(k, val, I(k, t)),
                     hdg_ir_mul(k, hdg_ir_ld1(k, src, hdg_ir_add(k, I(k, base), i)),
                                hdg_ir_ld2(k, B, q, i)));
        hdg_ir_end(k);
        hdg_ir_expr *ex = exq ? hdg_ir_ld2(k, exq, I(k, t), q) : hdg_lower_expr(k, &env, unk(c, u)->exact[L->err_comp[t]]);
        if (!ex) ex = hdg_ir_num(k, 0);
        hdg_ir_expr *d = hdg_ir_let(k, "d", hdg_ir_sub(k, hdg_ir_ld1(k, val, I(k, t)), ex));
        hdg_ir_accum(k, hdg_ir_ld1(k, acc, I(k, t)), hdg_ir_mul(k, wj, hdg_ir_mul(k, d, d)));
    }
    hdg_ir_end(k);
    hdg_ir_copy(k, out, acc);
    return HDG_OK;
}

/* ------------------------------------------------ post-processing
 * Per element, the post unknown (degree k+1, npp modes per component) from its
 * volume equation with the main system's element unknowns as data; the
 * equation's row of the constant mode (Dubiner mode 0) is replaced, per
 * component, by the mean constraint: with orthonormal modes
 * (v, 1)_K = J sqrt(2) v_0, so the constraint is ustar_0 = u_0.
 *
 * An atom whose coefficient does not depend on x, y takes the reference-tensor
 * path, as in the local kernel: its integral is J coef sum_ab g_a g_b T_ab with
 * T_ab integrals of reference basis values/derivatives made at compile time
 * (post basis x post basis for the matrix, post basis x element basis for the
 * known fields, post basis alone for sources). Other atoms are integrated by
 * quadrature per element. */

typedef struct post {
    hdg_ir_kernel *k;
    hdg_ir_tensor *g, *x, *A, *r, *val;
    int N, nq;
    /* quadrature path (made on first use) */
    hdg_ir_tensor *w, *lam, *P1, *dP1[3], *P0, *dP0[3];
    /* reference-tensor path: host values of the post basis (b1) and of the
     * element basis (b0) on a rule exact for their products */
    int hq;
    double *hw, *b1[4], *b0[4];
    hdg_ir_tensor *T11[4][4], *T10[4][4], *T1[4];
    struct psum { int known, n, a[4], b[4]; hdg_ir_tensor *T; } sums[16];   /* post_table_sum */
    int nsums;
} post;
typedef struct psum psum;

static hdg_status post_quad_tables(lower *c, post *ps)
{
    if (ps->w) return HDG_OK;
    hdg_ir_tensor *w0, *lam0;
    int deg = 2 * c->L->kpost + 6;
    hdg_status st = volume_tables(c, deg, "post", &ps->nq, &ps->w, &ps->lam, &ps->P1, ps->dP1, c->L->kpost);
    if (!st) st = volume_tables(c, deg, "postk", &ps->nq, &w0, &lam0, &ps->P0, ps->dP0, c->k);
    return st;
}

static hdg_status post_host(lower *c, post *ps)
{
    if (ps->hw) return HDG_OK;
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, c->dim, 2 * c->L->kpost, c->err);
    if (st) return st;
    ps->hq = q.n;
    ps->hw = hdg_xmalloc(sizeof(double) * (size_t)q.n);
    memcpy(ps->hw, q.w, sizeof(double) * (size_t)q.n);
    for (int i = 0; i <= c->dim; i++) {
        ps->b1[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * c->L->npp));
        ps->b0[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * c->np));
    }
    elem_eval(c->dim, c->L->kpost, q.n, q.x, ps->b1[0], ps->b1 + 1);
    elem_eval(c->dim, c->k, q.n, q.x, ps->b0[0], ps->b0 + 1);
    hdg_quad_free(&q);
    return HDG_OK;
}

static void post_free(post *ps)
{
    free(ps->hw);
    for (int i = 0; i < 4; i++) free(ps->b1[i]), free(ps->b0[i]);
}

/* The table of test kind a against trial kind b (trial: b < 0 none; known:
 * the element basis; else the post basis). */
static hdg_ir_tensor *post_table(lower *c, post *ps, int a, int b, int known)
{
    hdg_ir_tensor **slot = b < 0 ? &ps->T1[a] : known ? &ps->T10[a][b] : &ps->T11[a][b];
    if (*slot) return *slot;
    int npp = c->L->npp, nj = b < 0 ? 0 : known ? c->np : npp;
    double *T = hdg_lh_integrate(1, ps->hq, ps->hw, ps->b1[a], npp, b < 0 ? NULL : known ? ps->b0[b] : ps->b1[b], nj);
    char name[32];
    if (b < 0) snprintf(name, sizeof name, "TP_%s", KIND[a]);
    else snprintf(name, sizeof name, "%s_%s_%s", known ? "TPK" : "TP", KIND[a], KIND[b]);
    *slot = nj ? hdg_ir_table(c->m, name, HDG_SHAPE(npp, nj), T) : hdg_ir_table(c->m, name, HDG_SHAPE(npp), T);
    free(T);
    return *slot;
}

/* The sum of the tables T_{a[m] b[m]}, m < n (cached): terms whose geometric
 * factors have one product share it. */
static hdg_ir_tensor *post_table_sum(lower *c, post *ps, int n, const int *a, const int *b, int known)
{
    for (int s = 0; s < ps->nsums; s++)
        if (ps->sums[s].known == known && ps->sums[s].n == n && !memcmp(ps->sums[s].a, a, sizeof(int) * (size_t)n) &&
            !memcmp(ps->sums[s].b, b, sizeof(int) * (size_t)n))
            return ps->sums[s].T;
    hdg_ir_tensor *P = post_table(c, ps, a[0], b[0], known);
    double *T = hdg_xcalloc((size_t)P->size, sizeof(double));
    char name[64];
    snprintf(name, sizeof name, "%s_sum", known ? "TPK" : "TP");
    for (int m = 0; m < n; m++) {
        const hdg_ir_tensor *Q = post_table(c, ps, a[m], b[m], known);
        for (int e = 0; e < P->size; e++) T[e] += Q->data[e];
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, "_%s_%s", KIND[a[m]], KIND[b[m]]);
    }
    hdg_ir_tensor *S = hdg_ir_table(c->m, name, P->rank, P->shape, T);
    free(T);
    if (ps->nsums < (int)(sizeof ps->sums / sizeof ps->sums[0]))
        ps->sums[ps->nsums++] = (psum){known, n, {a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, S};
    return S;
}

/* sum_ab g_a g_b T_ab[i][j] (j NULL: sum_a g_a T_a[i]); the terms of one product of
 * geometric factors (g_r g_s T_rs + g_s g_r T_sr) as one table, the product first
 * (a loop invariant) */
static hdg_ir_expr *post_ref_value(lower *c, post *ps, const hdg_atom *a, int known, hdg_ir_expr *i,
                                   hdg_ir_expr *j)
{
    hdg_ir_kernel *k = ps->k;
    bterm ta[3], ra[3] = {{0, -1}};
    int nta = hdg_lh_side_terms(c, a->test_op, ta), nra = a->trial < 0 ? 1 : hdg_lh_side_terms(c, a->trial_op, ra);
    struct { int g[2], n, a[4], b[4]; } grp[9];
    int ngrp = 0;
    for (int x = 0; x < nta; x++)
        for (int y = 0; y < nra; y++) {
            int g0 = ta[x].g < ra[y].g ? ta[x].g : ra[y].g, g1 = ta[x].g < ra[y].g ? ra[y].g : ta[x].g, q = 0;
            while (q < ngrp && (grp[q].g[0] != g0 || grp[q].g[1] != g1)) q++;
            if (q == ngrp) grp[ngrp++].n = 0, grp[q].g[0] = g0, grp[q].g[1] = g1;
            grp[q].a[grp[q].n] = ta[x].kind, grp[q].b[grp[q].n++] = a->trial < 0 ? -1 : ra[y].kind;
        }
    hdg_ir_expr *sum = NULL;
    for (int q = 0; q < ngrp; q++) {
        hdg_ir_tensor *T = grp[q].n == 1 ? post_table(c, ps, grp[q].a[0], grp[q].b[0], known)
                                         : post_table_sum(c, ps, grp[q].n, grp[q].a, grp[q].b, known);
        hdg_ir_expr *v = j ? hdg_ir_ld2(k, T, i, j) : hdg_ir_ld1(k, T, i), *coef = NULL;
        for (int f = 0; f < 2; f++)
            if (grp[q].g[f] >= 0) coef = coef ? hdg_ir_mul(k, coef, Gc(k, ps->g, grp[q].g[f])) : Gc(k, ps->g, grp[q].g[f]);
        v = coef ? hdg_ir_mul(k, coef, v) : v;
        sum = sum ? hdg_ir_add(k, sum, v) : v;
    }
    return sum;
}

/* A source atom or one of a known unknown (the post unknown's own atoms go to
 * post_block_ref), on the reference-tensor path. */
static hdg_status post_atom_ref(lower *c, post *ps, const hdg_atom *a)
{
    hdg_status st = post_host(c, ps);
    if (st) return st;
    hdg_ir_kernel *k = ps->k;
    hdg_lowered *L = c->L;
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *coef = hdg_lower_expr(k, &env, a->coef);
    if (!coef) coef = hdg_ir_num(k, 0);
    hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, Gc(k, ps->g, hdg_g_J(c->dim)), coef));
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->npp);
    hdg_ir_expr *row = hdg_ir_add(k, I(k, a->test_comp * L->npp), i);
    if (a->trial < 0) {
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), hdg_ir_mul(k, cw, post_ref_value(c, ps, a, 0, i, NULL)));
    } else {   /* a known unknown: r[i] -= c sum_j T[i][j] x[j] */
        int base = L->uoff[a->trial] + a->trial_comp * c->np;
        hdg_ir_assign(k, hdg_ir_ld0(k, ps->val), hdg_ir_num(k, 0));
        hdg_ir_expr *j = hdg_ir_for(k, "j", c->np);
        hdg_ir_accum(k, hdg_ir_ld0(k, ps->val),
                     hdg_ir_mul(k, post_ref_value(c, ps, a, 1, i, j),
                                hdg_ir_ld1(k, ps->x, hdg_ir_add(k, I(k, base), j))));
        hdg_ir_end(k);
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), hdg_ir_neg(k, hdg_ir_mul(k, cw, hdg_ir_ld0(k, ps->val))));
    }
    hdg_ir_end(k);
    return HDG_OK;
}

/* Atoms n of the post system's block (test comp, trial comp) with x,y-independent
 * coefficients, in one pass: A[i][j] += sum_T C_T T[i][j] over the tables T, where
 * C_T = sum over the atoms' terms on T of c_atom g_a g_b (a loop invariant); tables
 * whose coefficients are the same expression are summed (dx dx + dy dy: the
 * rs and sr tables). */
static hdg_status post_block_ref(lower *c, post *ps, const hdg_atom *const *at, int n)
{
    hdg_status st = post_host(c, ps);
    if (st) return st;
    hdg_ir_kernel *k = ps->k;
    hdg_lowered *L = c->L;
    enum { MAXT = 16 };
    struct ptab { int a[4], b[4], n; hdg_ir_expr *C; } tab[MAXT];
    int ntab = 0;
    for (int m = 0; m < n; m++) {
        const hdg_atom *a = at[m];
        set_origin(c, k, a);
        hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
        hdg_ir_expr *coef = hdg_lower_expr(k, &env, a->coef);
        hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, Gc(k, ps->g, hdg_g_J(c->dim)), coef ? coef : hdg_ir_num(k, 0)));
        bterm ta[3], ra[3];
        int nta = hdg_lh_side_terms(c, a->test_op, ta), nra = hdg_lh_side_terms(c, a->trial_op, ra);
        for (int x = 0; x < nta; x++)
            for (int y = 0; y < nra; y++) {
                int g0 = ta[x].g < ra[y].g ? ta[x].g : ra[y].g, g1 = ta[x].g < ra[y].g ? ra[y].g : ta[x].g;
                hdg_ir_expr *e = cw;
                if (g0 >= 0) e = hdg_ir_mul(k, e, Gc(k, ps->g, g0));
                if (g1 >= 0) e = hdg_ir_mul(k, e, Gc(k, ps->g, g1));
                int q = 0;
                while (q < ntab && (tab[q].a[0] != ta[x].kind || tab[q].b[0] != ra[y].kind)) q++;
                if (q == ntab) tab[ntab++] = (struct ptab){{ta[x].kind}, {ra[y].kind}, 1, NULL};
                tab[q].C = tab[q].C ? hdg_ir_add(k, tab[q].C, e) : e;
            }
    }
    for (int q = 0; q < ntab; q++)   /* equal coefficients: one table, the sum */
        for (int r = q + 1; r < ntab; r++)
            if (tab[r].n && tab[q].n < 4 && hdg_ir_expr_equal(tab[q].C, tab[r].C)) {
                tab[q].a[tab[q].n] = tab[r].a[0], tab[q].b[tab[q].n++] = tab[r].b[0];
                tab[r].n = 0;
            }
    hdg_ir_set_origin(k, c->p->file, at[0]->loc.line, at[0]->loc.col, "post block: its atoms by table");
    hdg_ir_expr *C[MAXT];
    for (int q = 0; q < ntab; q++) C[q] = tab[q].n ? hdg_ir_let(k, "cT", tab[q].C) : NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->npp), *j = hdg_ir_for(k, "j", L->npp), *sum = NULL;
    for (int q = 0; q < ntab; q++) {
        if (!tab[q].n) continue;
        hdg_ir_tensor *T = tab[q].n == 1 ? post_table(c, ps, tab[q].a[0], tab[q].b[0], 0)
                                         : post_table_sum(c, ps, tab[q].n, tab[q].a, tab[q].b, 0);
        hdg_ir_expr *v = hdg_ir_mul(k, C[q], hdg_ir_ld2(k, T, i, j));
        sum = sum ? hdg_ir_add(k, sum, v) : v;
    }
    hdg_ir_accum(k, hdg_ir_ld2(k, ps->A, hdg_ir_add(k, I(k, at[0]->test_comp * L->npp), i),
                               hdg_ir_add(k, I(k, at[0]->trial_comp * L->npp), j)),
                 sum);
    hdg_ir_end(k);
    hdg_ir_end(k);
    return HDG_OK;
}

static hdg_status post_atom_quad(lower *c, post *ps, const hdg_atom *a, int known)
{
    hdg_status st = post_quad_tables(c, ps);
    if (st) return st;
    hdg_ir_kernel *k = ps->k;
    hdg_ir_tensor *g = ps->g;
    hdg_lowered *L = c->L;
    int npp = L->npp;
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *q = open_points(k, g, c->dim, ps->lam, ps->nq, &env);
    hdg_ir_expr *coef = hdg_lower_expr(k, &env, a->coef);
    if (!coef) coef = hdg_ir_num(k, 0);
    hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_ld1(k, ps->w, q),
                                                                    Gc(k, g, hdg_g_J(c->dim))), coef));
    if (known) {   /* the value of the known field (or its derivative) at q */
        int base = L->uoff[a->trial] + a->trial_comp * c->np;
        hdg_ir_assign(k, hdg_ir_ld0(k, ps->val), hdg_ir_num(k, 0));
        hdg_ir_expr *j = hdg_ir_for(k, "j", c->np);
        hdg_ir_accum(k, hdg_ir_ld0(k, ps->val),
                     hdg_ir_mul(k, hdg_ir_ld1(k, ps->x, hdg_ir_add(k, I(k, base), j)),
                                basis_op(k, g, c->dim, a->trial_op, ps->P0, ps->dP0, NULL, q, j)));
        hdg_ir_end(k);
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", npp);
    hdg_ir_expr *row = hdg_ir_add(k, I(k, a->test_comp * npp), i);
    hdg_ir_expr *ti = hdg_ir_let(k, "ti", hdg_ir_mul(k, cw, basis_op(k, g, c->dim, a->test_op, ps->P1, ps->dP1,
                                                                     NULL, q, i)));
    if (a->trial < 0) {
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), ti);
    } else if (known) {
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), hdg_ir_neg(k, hdg_ir_mul(k, ti, hdg_ir_ld0(k, ps->val))));
    } else {
        hdg_ir_expr *j = hdg_ir_for(k, "j", npp);
        hdg_ir_accum(k, hdg_ir_ld2(k, ps->A, row, hdg_ir_add(k, I(k, a->trial_comp * npp), j)),
                     hdg_ir_mul(k, ti, basis_op(k, g, c->dim, a->trial_op, ps->P1, ps->dP1, NULL, q, j)));
        hdg_ir_end(k);
    }
    hdg_ir_end(k);
    hdg_ir_end(k);
    return HDG_OK;
}

/* An atom of the post system's own matrix on the reference-tensor path. */
static int post_block_atom(const lower *c, const hdg_atom *a)
{
    return a->domain == HDG_VOLUME && a->trial >= 0 && a->trial == c->L->post_unknown && c->ref_tensors &&
           hdg_lh_coef_is_constant(a);
}

static hdg_status post_atoms(lower *c, post *ps, const hdg_equation *eq)
{
    const hdg_problem *p = c->p;
    char *done = hdg_xcalloc((size_t)eq->natoms + 1, 1);
    const hdg_atom **grp = hdg_xmalloc(sizeof *grp * ((size_t)eq->natoms + 1));
    hdg_status st = HDG_OK;
    for (int t = 0; t < eq->natoms && !st; t++) {
        const hdg_atom *a = &eq->atoms[t];
        if (done[t]) continue;
        if (a->domain != HDG_VOLUME) {
            st = hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: post-processing equations take volume "
                          "integrals only", p->file, a->loc.line, a->loc.col);
            break;
        }
        if (post_block_atom(c, a)) {   /* with the later atoms of its block */
            int n = 0;
            for (int u = t; u < eq->natoms; u++) {
                const hdg_atom *b = &eq->atoms[u];
                if (!done[u] && post_block_atom(c, b) && b->test_comp == a->test_comp && b->trial_comp == a->trial_comp)
                    grp[n++] = b, done[u] = 1;
            }
            st = post_block_ref(c, ps, grp, n);
            continue;
        }
        set_origin(c, ps->k, a);
        int known = a->trial >= 0 && a->trial != c->L->post_unknown;
        st = c->ref_tensors && hdg_lh_coef_is_constant(a) ? post_atom_ref(c, ps, a)
                                                          : post_atom_quad(c, ps, a, known);
    }
    free(done);
    free(grp);
    return st;
}

/* Whether the post system of eq is symmetric positive definite once every mean
 * constraint has replaced its row and column: each atom on the post unknown has
 * the same operator and component on both sides and a positive number as
 * coefficient (a sum of Gram matrices), and each component has a value atom or
 * both derivatives (then only its constant mode, which the constraint fixes,
 * is in the kernel). Such a system is solved by Cholesky without pivoting
 * (HDGC_NO_CHOL=1: by the pivoted LU, as every other post system). */
static int post_spd(const lower *c, const hdg_equation *eq, int nc)
{
    unsigned ops[HDG_MAX_COMP] = {0};
    if (nc > HDG_MAX_COMP || !c->post_chol) return 0;
    for (int t = 0; t < eq->natoms; t++) {
        const hdg_atom *a = &eq->atoms[t];
        if (a->trial != c->L->post_unknown) continue;
        if (a->test_op != a->trial_op || a->test_comp != a->trial_comp || a->test_comp >= nc || !a->coef ||
            a->coef->kind != HDG_EX_NUM || !(a->coef->num > 0))
            return 0;
        ops[a->test_comp] |= 1u << a->test_op;
    }
    unsigned grad = 1u << HDG_OP_DX | 1u << HDG_OP_DY | (c->dim == 3 ? 1u << HDG_OP_DZ : 0u);
    for (int cp = 0; cp < nc; cp++)
        if (!(ops[cp] & 1u << HDG_OP_VALUE) && (ops[cp] & grad) != grad) return 0;
    return 1;
}

/* The mean constraints of the post system (A, r) of N modes, nc components of npp:
 * row cp npp becomes ustar_0 = u_0 of component cp. With spd its column goes to the
 * right-hand side too, so that A stays symmetric. */
static void post_constrain(lower *c, hdg_ir_kernel *k, post *ps, const hdg_unknown *U, int npp, int spd)
{
    int nc = U->ncomp, N = ps->N;
    for (int cp = 0; cp < nc; cp++) {
        int row = cp * npp;
        hdg_ir_expr *j = hdg_ir_for(k, "j", N);
        hdg_ir_assign(k, hdg_ir_ld2(k, ps->A, I(k, row), j), hdg_ir_num(k, 0));
        hdg_ir_end(k);
        hdg_ir_assign(k, hdg_ir_ld1(k, ps->r, I(k, row)),
                      hdg_ir_ld1(k, ps->x, I(k, c->L->uoff[U->mean] + cp * c->np)));
    }
    /* the constrained rows are zero now, their own column entries too: r[row] stays */
    for (int cp = 0; cp < nc && spd; cp++) {
        int row = cp * npp;
        hdg_ir_expr *i = hdg_ir_for(k, "i", N);
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, i),
                     hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld2(k, ps->A, i, I(k, row)), hdg_ir_ld1(k, ps->r, I(k, row)))));
        hdg_ir_assign(k, hdg_ir_ld2(k, ps->A, i, I(k, row)), hdg_ir_num(k, 0));
        hdg_ir_end(k);
    }
    for (int cp = 0; cp < nc; cp++)
        hdg_ir_assign(k, hdg_ir_ld2(k, ps->A, I(k, cp * npp), I(k, cp * npp)), hdg_ir_num(k, 1));
}

/* Post-processed unknown i of the kernel k: its system, written at its offset
 * of the element's row xpost. L->post_unknown, kpost and npp name unknown i
 * while its atoms are lowered (the post helpers read them). */
static hdg_status post_one(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_ir_tensor *x, hdg_ir_tensor *out, int pi)
{
    hdg_lowered *L = c->L;
    const hdg_problem *p = c->p;
    L->post_unknown = L->posts[pi], L->kpost = L->pdeg[pi], L->npp = L->pnp[pi];
    const hdg_unknown *U = unk(c, L->post_unknown);
    const hdg_equation *eq = &p->equations[U->equation];
    int nc = U->ncomp, npp = L->npp, N = nc * npp;
    post ps = {.k = k, .N = N};
    ps.g = g;
    ps.x = x;
    ps.A = hdg_ir_local(k, "A", HDG_IR_DOUBLE, HDG_SHAPE(N, N));
    ps.r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(N));
    ps.val = hdg_ir_local(k, "val", HDG_IR_DOUBLE, HDG_SCALAR);
    hdg_ir_fill(k, ps.A, hdg_ir_num(k, 0));
    hdg_ir_fill(k, ps.r, hdg_ir_num(k, 0));
    hdg_status st = post_atoms(c, &ps, eq);
    post_free(&ps);
    if (st) return st;
    hdg_ir_set_origin(k, p->file, eq->loc.line, eq->loc.col, "mean constraint");
    int spd = post_spd(c, eq, nc);
    post_constrain(c, k, &ps, U, npp, spd);
    if (spd) {
        hdg_ir_set_origin(k, p->file, eq->loc.line, eq->loc.col, "symmetric positive definite: Cholesky");
        hdg_ir_chol(k, ps.A);
        hdg_ir_chol_solve(k, ps.A, ps.r);
    } else {
        hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(N));
        hdg_ir_lu(k, ps.A, piv);
        hdg_ir_lu_solve(k, ps.A, piv, ps.r);
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", N);
    hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_add(k, I(k, L->poff[pi]), i)), hdg_ir_ld1(k, ps.r, i));
    hdg_ir_end(k);
    return HDG_OK;
}

/* Every post-processed unknown, one after the other, into one row xpost per element. */
static hdg_status post_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->post, sizeof L->post, "%s_post", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->post, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_input(k, "x", HDG_SHAPE(L->nl), "element dofs (modal)");
    hdg_ir_tensor *out = hdg_ir_output(k, "xpost", HDG_SHAPE(L->npost_dofs), "post-processed dofs (modal)");
    hdg_status st = HDG_OK;
    for (int i = 0; i < L->npost && !st; i++) st = post_one(c, k, g, x, out, i);
    L->post_unknown = L->posts[0], L->kpost = L->pdeg[0], L->npp = L->pnp[0];
    return st;
}

/* The error estimate (docs/method.md, "Error estimate from post-processing"): per
 * element eta_K^2 = ||u* - u||^2_{L2(K)} for the element unknown u whose mean
 * the post-processed u* keeps, summed over the components, each field in its
 * own Dubiner basis (degrees kpost and k) on a rule exact for the squared
 * difference (degree 2 max(kpost, k); the map is affine). */
static hdg_status estimate_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    const hdg_unknown *U = unk(c, L->post_unknown);
    int kp = L->kpost > c->k ? L->kpost : c->k, nq, nq2;
    hdg_ir_tensor *w, *lam, *P, *w2, *lam2, *Pp;
    hdg_status st = volume_tables(c, 2 * kp, "est", &nq, &w, &lam, &P, NULL, c->k);
    if (!st) st = volume_tables(c, 2 * kp, "estp", &nq2, &w2, &lam2, &Pp, NULL, L->kpost);
    if (st) return st;
    snprintf(L->estimate, sizeof L->estimate, "%s_estimate", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->estimate, HDG_KITEM_ELEMENT);
    hdg_ir_set_origin(k, c->p->file, U->loc.line, U->loc.col, "error estimate ||u* - u||");
    hdg_ir_tensor *g = elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_input(k, "x", HDG_SHAPE(L->nl), "element dofs (modal)");
    hdg_ir_tensor *xp = hdg_ir_input(k, "xpost", HDG_SHAPE(L->npost_dofs), "post-processed dofs (modal)");
    hdg_ir_tensor *out = hdg_ir_output(k, "eta2", HDG_SHAPE(1), "squared estimate ||u* - u||^2 on the element");
    hdg_ir_tensor *acc = hdg_ir_local(k, "acc", HDG_IR_DOUBLE, HDG_SHAPE(1));
    hdg_ir_tensor *d = hdg_ir_local(k, "d", HDG_IR_DOUBLE, HDG_SCALAR);
    hdg_ir_fill(k, acc, hdg_ir_num(k, 0));
    hdg_ir_expr *q = hdg_ir_for(k, "q", nq);
    hdg_ir_expr *wj = hdg_ir_let(k, "wJ", hdg_ir_mul(k, hdg_ir_ld1(k, w, q), Gc(k, g, hdg_g_J(c->dim))));
    for (int cp = 0; cp < U->ncomp; cp++) {
        int base = L->uoff[U->mean] + cp * c->np;
        hdg_ir_assign(k, hdg_ir_ld0(k, d), hdg_ir_num(k, 0));
        hdg_ir_expr *i = hdg_ir_for(k, "i", L->npp);
        hdg_ir_accum(k, hdg_ir_ld0(k, d), hdg_ir_mul(k, hdg_ir_ld1(k, xp, hdg_ir_add(k, I(k, cp * L->npp), i)),
                                                    hdg_ir_ld2(k, Pp, q, i)));
        hdg_ir_end(k);
        hdg_ir_expr *j = hdg_ir_for(k, "j", c->np);
        hdg_ir_accum(k, hdg_ir_ld0(k, d), hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld1(k, x, hdg_ir_add(k, I(k, base), j)),
                                                                  hdg_ir_ld2(k, P, q, j))));
        hdg_ir_end(k);
        hdg_ir_accum(k, hdg_ir_ld1(k, acc, I(k, 0)), hdg_ir_mul(k, wj, hdg_ir_mul(k, hdg_ir_ld0(k, d),
                                                                                  hdg_ir_ld0(k, d))));
    }
    hdg_ir_end(k);
    hdg_ir_copy(k, out, acc);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    return HDG_OK;
}

/* The point of face coordinate(s) q of the face rule tables xt in the Dirichlet
 * kernel's face (vertices in g): x_d = sum_k phi_k X_k,d, and the normal. 2D:
 * the endpoints A, B; x = A + s (B - A), s = (1+t)/2, n = (dy, -dx)/len. 3D: the
 * three vertices, phi = (-(a+b)/2, (1+a)/2, (1+b)/2); n from the geometry.
 * Opens the loop over the n points and returns its index. */
static hdg_ir_expr *dirichlet_point(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_ir_tensor *const *xt, int n,
                                    hdg_lower_env *env)
{
    static const char *XN[3] = {"x", "y", "z"};
    if (c->dim == 2) {
        hdg_ir_expr *dx = hdg_ir_let(k, "dx", hdg_ir_sub(k, Gc(k, g, HDG_GF_XB), Gc(k, g, HDG_GF_XA)));
        hdg_ir_expr *dy = hdg_ir_let(k, "dy", hdg_ir_sub(k, Gc(k, g, HDG_GF_YB), Gc(k, g, HDG_GF_YA)));
        hdg_ir_expr *len = hdg_ir_let(k, "len", hdg_ir_call(k, HDG_FN_SQRT,
                                      hdg_ir_add(k, hdg_ir_mul(k, dx, dx), hdg_ir_mul(k, dy, dy))));
        env->normal[0] = hdg_ir_div(k, dy, len);
        env->normal[1] = hdg_ir_neg(k, hdg_ir_div(k, dx, len));
        hdg_ir_expr *q = hdg_ir_for(k, "q", n);   /* the caller closes it */
        hdg_ir_expr *s = hdg_ir_let(k, "s", hdg_ir_div(k, hdg_ir_add(k, hdg_ir_num(k, 1), hdg_ir_ld1(k, xt[0], q)),
                                                      hdg_ir_num(k, 2)));
        env->coord[0] = hdg_ir_let(k, "x", hdg_ir_add(k, Gc(k, g, HDG_GF_XA), hdg_ir_mul(k, s, dx)));
        env->coord[1] = hdg_ir_let(k, "y", hdg_ir_add(k, Gc(k, g, HDG_GF_YA), hdg_ir_mul(k, s, dy)));
        return q;
    }
    static const char *NN[3] = {"nx", "ny", "nz"};
    for (int d = 0; d < 3; d++) hdg_lower_env_normal(env, d, hdg_ir_let(k, NN[d], Gc(k, g, hdg_gf_normal(3) + d)));
    hdg_ir_expr *q = hdg_ir_for(k, "q", n);
    hdg_ir_expr *a = hdg_ir_ld1(k, xt[0], q), *b = hdg_ir_ld1(k, xt[1], q), *one = hdg_ir_num(k, 1), *two = hdg_ir_num(k, 2);
    hdg_ir_expr *phi[3] = {hdg_ir_let(k, "p0", hdg_ir_neg(k, hdg_ir_div(k, hdg_ir_add(k, a, b), two))),
                           hdg_ir_let(k, "p1", hdg_ir_div(k, hdg_ir_add(k, one, a), two)),
                           hdg_ir_let(k, "p2", hdg_ir_div(k, hdg_ir_add(k, one, b), two))};
    for (int d = 0; d < 3; d++) {
        hdg_ir_expr *x = hdg_ir_mul(k, phi[0], Gc(k, g, d));
        for (int v = 1; v < 3; v++) x = hdg_ir_add(k, x, hdg_ir_mul(k, phi[v], Gc(k, g, 3 * v + d)));
        hdg_lower_env_coord(env, d, hdg_ir_let(k, XN[d], x));
    }
    return q;
}

/* L2 projection of Dirichlet data onto the orthonormal trace basis of a face,
 * in the face's canonical orientation (its vertices in the face geometry). */
static hdg_status dirichlet_kernel(lower *c, int ib, int bc)
{
    hdg_lowered *L = c->L;
    const hdg_bc *b = &c->p->bcs[bc];
    const hdg_unknown *u = unk(c, b->unknown);
    snprintf(L->dirichlet[ib], sizeof L->dirichlet[ib], "%s_dirichlet_%d", c->m->name, ib);
    int n, nk = c->nk, dim = c->dim;
    double *xf[2] = {NULL, NULL}, *w = NULL;
    hdg_status st = face_rule(c, 2 * c->k + 7, &n, xf, &w);
    if (st) { free(xf[0]), free(xf[1]), free(w); return st; }
    double *Lg = hdg_xmalloc(sizeof(double) * (size_t)(n * nk));
    hdg_face_basis_eval(dim, c->k, n, (const double *const *)xf, Lg);
    char name[64];
    hdg_ir_tensor *xt[2] = {NULL, NULL};
    for (int d = 0; d < dim - 1; d++) {
        snprintf(name, sizeof name, d ? "dir%d_s" : "dir%d_t", ib);
        xt[d] = hdg_ir_table(c->m, name, HDG_SHAPE(n), xf[d]);
    }
    snprintf(name, sizeof name, "dir%d_w", ib);
    hdg_ir_tensor *tw = hdg_ir_table(c->m, name, HDG_SHAPE(n), w);
    snprintf(name, sizeof name, "dir%d_L", ib);
    hdg_ir_tensor *tL = hdg_ir_table(c->m, name, HDG_SHAPE(n, nk), Lg);
    free(xf[0]), free(xf[1]), free(w), free(Lg);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->dirichlet[ib], HDG_KITEM_FACE);
    hdg_ir_set_origin(k, c->p->file, b->loc.line, b->loc.col, "boundary condition");
    hdg_ir_tensor *g = hdg_ir_geom(k, "g", HDG_SHAPE(hdg_gf_size(dim)),
                                   dim == 2 ? "face endpoints xa ya xb yb" : "face vertices (canonical order), normal");
    hdg_ir_tensor *out = hdg_ir_output(k, "uD", HDG_SHAPE(u->ncomp * nk),
                                       "projected Dirichlet data, canonical face orientation");
    hdg_ir_tensor *acc = hdg_ir_local(k, "acc", HDG_IR_DOUBLE, HDG_SHAPE(u->ncomp * nk));
    hdg_ir_fill(k, acc, hdg_ir_num(k, 0));
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *q = dirichlet_point(c, k, g, xt, n, &env);
    for (int cp = 0; cp < u->ncomp; cp++) {
        hdg_ir_expr *v = hdg_lower_expr(k, &env, b->value[cp]);
        if (!v) v = hdg_ir_num(k, 0);
        hdg_ir_expr *wv = hdg_ir_let(k, "wv", hdg_ir_mul(k, hdg_ir_ld1(k, tw, q), v));
        hdg_ir_expr *a = hdg_ir_for(k, "a", nk);
        hdg_ir_accum(k, hdg_ir_ld1(k, acc, hdg_ir_add(k, I(k, cp * nk), a)),
                     hdg_ir_mul(k, wv, hdg_ir_ld2(k, tL, q, a)));
        hdg_ir_end(k);
    }
    hdg_ir_end(k);
    hdg_ir_copy(k, out, acc);
    return HDG_OK;
}

/* ---------------------------------------------------------------- layout */

static hdg_status layout(lower *c)
{
    const hdg_problem *p = c->p;
    hdg_lowered *L = c->L;
    if (p->nunknowns > 32) return hdg_fail(c->err, HDG_EINPUT, "%s: more than 32 unknowns", p->file);
    L->transient = p->transient;
    L->p_sigma = p->nparams;
    int nl = 0, tr = 0;
    L->post_unknown = -1;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        L->uoff[u] = L->toff[u] = -1;
        if (x->post) {
            if (L->npost == HDG_MAX_POST)
                return hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: more than %d postprocess unknowns", p->file,
                                x->loc.line, x->loc.col, HDG_MAX_POST);
            if (x->mean < 0 || p->unknowns[x->mean].ncomp != x->ncomp)
                return hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: '%s' needs a 'mean' constraint with "
                                "an element unknown of the same shape", p->file, x->loc.line,
                                x->loc.col, x->name);
            int i = L->npost++, d = p->spaces[x->space].degree;
            L->posts[i] = u, L->pdeg[i] = d, L->pnp[i] = hdg_simplex_count(c->dim, d);
            L->poff[i] = L->npost_dofs;
            L->npost_dofs += L->pnp[i] * x->ncomp;
            if (i == 0) L->post_unknown = u, L->kpost = d, L->npp = L->pnp[0];
            continue;
        }
        if (x->trace) { L->toff[u] = tr; tr += x->ncomp * c->nk; }
        else { L->uoff[u] = nl; nl += x->ncomp * c->np; }
    }
    if (!tr) return hdg_fail(c->err, HDG_EINPUT, "%s: an HDG problem needs a trace unknown", p->file);
    L->nl = nl, L->m = tr, L->nt = c->nfe * tr;
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *eq = &p->equations[e];
        const hdg_unknown *u = &p->unknowns[eq->unknown];
        if (eq->post) continue;
        if (p->tests[eq->test].ncomp != u->ncomp)
            return hdg_fail(c->err, HDG_EINPUT,
                            "%s:%d:%d: the test function of this equation has %d component(s) but "
                            "the unknown it determines ('%s') has %d",
                            p->file, eq->loc.line, eq->loc.col, p->tests[eq->test].ncomp, u->name,
                            u->ncomp);
        for (int t = 0; t < eq->natoms; t++) {
            const hdg_markers *mk = eq->atoms[t].markers;
            if (!mk || eq->atoms[t].domain != HDG_BOUNDARY || marker_set(c, mk) >= 0) continue;
            if (L->nsets == 16)
                return hdg_fail(c->err, HDG_EINPUT, "%s: more than 16 boundary marker sets", p->file);
            L->sets[L->nsets++] = mk;
        }
    }
    L->ngeom = hdg_g_fixed(c->dim) + c->nfe * L->nsets;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->trace) continue;
        for (int cp = 0; cp < x->ncomp; cp++)
            if (x->exact[cp] && L->nerr < 64) {
                L->err_unknown[L->nerr] = u;
                L->err_comp[L->nerr++] = cp;
            }
    }
    for (int b = 0; b < p->nbcs; b++)
        if (p->bcs[b].kind == HDG_BC_DIRICHLET) {
            if (L->ndir == HDG_LOWER_MAX_BC)
                return hdg_fail(c->err, HDG_EINPUT, "%s: more than %d Dirichlet conditions", p->file,
                                HDG_LOWER_MAX_BC);
            L->dir_bc[L->ndir++] = b;
        }
    return HDG_OK;
}

hdg_status hdg_lower_hdg(const hdg_problem *p, hdg_lowered *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if (p->method != HDG_METHOD_HDG)
        return hdg_fail(err, HDG_EINPUT, "%s: not an HDG problem", p->file);
    hdg_status nst = hdg_lower_nonlinear_check(p, err);   /* issue 41 */
    if (nst) return nst;
    lower c = {.p = p, .L = out, .err = err, .k = p->degree, .dim = p->dim == 3 ? 3 : 2};
    c.nfe = c.dim + 1;
    c.np = hdg_simplex_count(c.dim, c.k);
    c.nk = hdg_simplex_count(c.dim - 1, c.k);
    out->k = c.k, out->dim = c.dim, out->nfe = c.nfe;
    out->np = c.np, out->nk = c.nk;
    hdg_status st = layout(&c);
    if (st) return st;
    c.m = out->mod = hdg_ir_module_new(p->name);
    int deg = 2 * c.k + 4;
    c.ref_tensors = !hdg_env_flag("HDGC_NO_REF_TENSORS");
    c.split_coef = !hdg_env_flag("HDGC_NO_COEF_SPLIT");
    c.post_chol = !hdg_env_flag("HDGC_NO_CHOL");
    if ((st = volume_tables(&c, deg, "vol", &c.nvq, &c.vw, &c.vlam, &c.vP, c.vdP, c.k)) ||
        (st = volume_host(&c, deg)) || (st = face_tables(&c)))
        goto fail;
    local_kernel(&c);
    recover_kernel(&c);
    if (out->transient) {
        rhs_kernel(&c);
        if ((st = initial_kernel(&c))) goto fail;
    }
    if (out->post_unknown >= 0 && (st = post_kernel(&c))) goto fail;
    if ((st = errors_kernel(&c))) goto fail;
    if (out->post_unknown >= 0 && (st = estimate_kernel(&c))) goto fail;
    for (int i = 0; i < out->ndir; i++)
        if ((st = dirichlet_kernel(&c, i, out->dir_bc[i]))) goto fail;
    if ((st = hdg_ir_verify_module(out->mod, err))) goto fail;
    host_free(&c);
    return HDG_OK;
fail:
    host_free(&c);
    hdg_lowered_free(out);
    return st;
}

void hdg_lowered_free(hdg_lowered *l)
{
    if (!l) return;
    hdg_ir_module_free(l->mod);
    l->mod = NULL;
}
