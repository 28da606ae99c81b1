/* lower_hdg_tables.c — the HDG lowering's quadrature rules and basis tables
 * (volume, faces, host copies for the reference tensors), the element basis and
 * its derivatives at a point, the coordinates of a point, the element geometry
 * input (lower_hdg_internal.h). */

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
void hdg_lh_barycentric(int dim, const double *x, double *lam)
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
void hdg_lh_elem_eval(int dim, int N, int n, double *const *x, double *P, double *const *dP)
{
    hdg_simplex_eval(dim, N, n, (const double *const *)x, P, dP);
}

/* The face rule exact to degree deg on the reference face (n points xf[d],
 * weights w): Gauss-Legendre on [-1,1], the collapsed rule on the triangle. */
hdg_status hdg_lh_face_rule(lower *c, int deg, int *n, double **xf, double **w)
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
hdg_status hdg_lh_volume_tables(lower *c, int deg, const char *pre, int *nq, hdg_ir_tensor **w,
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
        hdg_lh_barycentric(dim, x, l + nv * i);
    }
    hdg_lh_elem_eval(dim, N, q.n, q.x, B, dB);
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

/* The face rule (exact to degree 2k+5, plus c->qextra for nonlinear terms); per local face j the reference points
 * of its points, their barycentric coordinates and the element basis there;
 * the trace basis at the face points. */
hdg_status hdg_lh_face_tables(lower *c)
{
    int dim = c->dim, nfe = c->nfe, nv = dim + 1, np = c->np, nk = c->nk, n;
    double *xf[2] = {NULL, NULL}, *w = NULL;
    hdg_status st = hdg_lh_face_rule(c, 2 * c->k + 5 + c->qextra, &n, xf, &w);
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
            hdg_lh_barycentric(dim, r, lam + nv * i);
        }
    double *P = hdg_xmalloc(sizeof(double) * (size_t)(nfe * n * np)), *dP[3];
    for (int d = 0; d < dim; d++) dP[d] = hdg_xmalloc(sizeof(double) * (size_t)(nfe * n * np));
    hdg_lh_elem_eval(dim, c->k, nfe * n, x, P, dP);
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
hdg_status hdg_lh_volume_host(lower *c, int deg)
{
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, c->dim, deg, c->err);
    if (st) return st;
    c->vwh = hdg_xmalloc(sizeof(double) * (size_t)q.n);
    memcpy(c->vwh, q.w, sizeof(double) * (size_t)q.n);
    for (int i = 0; i <= c->dim; i++) c->vb[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * c->np));
    hdg_lh_elem_eval(c->dim, c->k, q.n, q.x, c->vb[0], c->vb + 1);
    hdg_quad_free(&q);
    return HDG_OK;
}

void hdg_lh_host_free(lower *c)
{
    free(c->vwh), free(c->fwh), free(c->fLh);
    for (int i = 0; i < 4; i++) free(c->vb[i]), free(c->fb[i]);
}

/* ---------------------------------------------------------------- helpers */

/* physical coordinate v (0: x, 1: y, 2: z) from the barycentric loads l[0..dim] */
hdg_ir_expr *hdg_lh_coord(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_expr *const *l, int v)
{
    hdg_ir_expr *x = hdg_ir_mul(k, l[0], Gc(k, g, hdg_g_vertex(dim, 0, v)));
    for (int a = 1; a <= dim; a++) x = hdg_ir_add(k, x, hdg_ir_mul(k, l[a], Gc(k, g, hdg_g_vertex(dim, a, v))));
    return x;
}

/* The physical direction of a derivative op (HDG_OP_DX..DZ: 0..2). */
int hdg_lh_op_dir(hdg_op op) { return op == HDG_OP_DX ? 0 : op == HDG_OP_DY ? 1 : 2; }

/* Element basis function i (an index expression) with op, at volume point q
 * (face < 0) or at face point q of local face `face`: d/dx_x = sum_k dr_k/dx_x d/dr_k. */
hdg_ir_expr *hdg_lh_basis_op(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_op op, hdg_ir_tensor *P,
                             hdg_ir_tensor *const *dP, hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i)
{
#define AT(T) (face ? hdg_ir_ld3(k, T, face, q, i) : hdg_ir_ld2(k, T, q, i))
    if (op == HDG_OP_VALUE) return AT(P);
    hdg_ir_expr *v = NULL;
    for (int r = 0; r < dim; r++) {
        hdg_ir_expr *t = hdg_ir_mul(k, Gc(k, g, hdg_g_ginv(dim, r, hdg_lh_op_dir(op))), AT(dP[r]));
        v = v ? hdg_ir_add(k, v, t) : t;
    }
    return v;
#undef AT
}

hdg_ir_expr *hdg_lh_elem_basis(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_op op,
                               hdg_ir_expr *face, hdg_ir_expr *q, hdg_ir_expr *i)
{
    if (face) return hdg_lh_basis_op(k, g, c->dim, op, c->fP, c->fdP, face, q, i);
    return hdg_lh_basis_op(k, g, c->dim, op, c->vP, c->vdP, NULL, q, i);
}

/* Binds x, y (, z) in env at the point with barycentric coordinates l[0..dim]. */
void hdg_lh_bind_xy(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_expr *const *l, hdg_lower_env *env)
{
    static const char *XN[3] = {"x", "y", "z"};
    for (int d = 0; d < dim; d++) hdg_lower_env_coord(env, d, hdg_ir_let(k, XN[d], hdg_lh_coord(k, g, dim, l, d)));
}

/* Opens the loop over the points of a volume rule (weights w, barycentric
 * coordinates lam) and binds the coordinates; returns the point index. */
hdg_ir_expr *hdg_lh_open_points(hdg_ir_kernel *k, hdg_ir_tensor *g, int dim, hdg_ir_tensor *lam, int nq,
                                hdg_lower_env *env)
{
    hdg_ir_expr *q = hdg_ir_for(k, "q", nq), *l[4];
    for (int v = 0; v <= dim; v++) l[v] = hdg_ir_ld2(k, lam, q, I(k, v));
    hdg_lh_bind_xy(k, g, dim, l, env);
    return q;
}

hdg_ir_tensor *hdg_lh_elem_geom(lower *c, hdg_ir_kernel *k)
{
    return hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom),
                       c->dim == 2 ? "vertices, J, rx ry sx sy, per face nx ny sJ, marker-set flags"
                                   : "vertices, J, dr_k/dx_d (3x3), per face nx ny nz sJ, marker-set flags");
}
