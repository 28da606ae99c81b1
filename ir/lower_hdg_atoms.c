/* lower_hdg_atoms.c — every atom of an equation integrated into the local
 * blocks (lower_hdg.c's header says which): by quadrature, or by reference
 * tensors made at compile time when the coefficient does not depend on x;
 * hdg_lh_emit_system does every atom of the system (lower_hdg_internal.h). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* ---------------------------------------------------------------- atoms */

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

int hdg_lh_marker_set(lower *c, const hdg_markers *mk)
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
    return hdg_lh_elem_basis(c, k, g, s->op, face, q, i);
}

void hdg_lh_set_origin(lower *c, hdg_ir_kernel *k, const hdg_atom *a)
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
        hdg_ir_expr *fl = hdg_ir_add(k, I(k, hdg_g_fixed(dim) + c->nfe * hdg_lh_marker_set(c, a->markers)), face);
        *scale = hdg_ir_mul(k, *scale, G(k, g, fl));
    }
    return face;
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
    for (int r = 0; r < c->dim; r++) t[r] = (bterm){1 + r, hdg_g_ginv(c->dim, r, hdg_lh_op_dir(op))};
    return c->dim;
}

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
        snprintf(name, sizeof name, "T_%s_%s", hdg_lh_kind(a), hdg_lh_kind(b));
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
        snprintf(name, sizeof name, "T_%s", hdg_lh_kind(a));
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
        snprintf(name, sizeof name, "TF_%s_%s", hdg_lh_kind(a), hdg_lh_kind(b));
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
        snprintf(name, sizeof name, "TF_%s_L", hdg_lh_kind(a));
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
        snprintf(name, sizeof name, "TF_%s", hdg_lh_kind(a));
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
           !hdg_lh_depends_z(a->coef) && !hdg_expr_has_state(a->coef);
}

/* The coefficient of an atom; a time atom's matrix part takes sigma. */
hdg_ir_expr *hdg_lh_atom_coef(lower *c, hdg_ir_kernel *k, hdg_lower_env *env, const hdg_atom *a, int hist)
{
    hdg_ir_expr *coef = c->res_src ? hdg_lh_residual_coef(c, k, env, c->res_src) : hdg_lower_expr(k, env, a->coef);
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
int hdg_lh_calls_function(const hdg_ir_expr *e)
{
    if (!e) return 0;
    if (e->op == HDG_E_CALL || e->op == HDG_E_POW) return 1;
    for (int i = 0; i < e->n && i < 3; i++)
        if (hdg_lh_calls_function(e->a[i])) return 1;
    return e->row && hdg_lh_calls_function(e->row);
}

/* Adds one atom's integral to the right block. Returns 0 if the atom does not
 * belong to the blocks given (e.g. trace rows in the recovery kernel). */
static int emit_atom(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const blocks *bk,
                     const hdg_equation *eq, const hdg_atom *a, int hist)
{
    side ts = hdg_lh_test_side(c, eq, a), rs = hdg_lh_trial_side(c, a);
    int source = a->trial < 0;
    if (c->rhs_only && !source && rs.trace) return 0;
    if (c->no_source && source) return 0;
    int tcol = source || rs.trace || hist;   /* B or D */
    dest d = {!ts.trace ? (tcol ? bk->B : bk->A) : (tcol ? bk->D : bk->C), ts.trace ? bk->tr_row : 0,
              tcol ? bk->tr_col : 0};
    const dest *dst = &d;
    if (!d.t) return 0;
    hdg_lh_set_origin(c, k, a);
    if (c->ref_tensors && hdg_lh_coef_is_constant(a)) {
        emit_atom_ref(c, k, g, dst, &ts, &rs, a, hist);
        hdg_ir_set_origin(k, NULL, 0, 0, NULL);
        return 1;
    }
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_lh_env_state(c, &env);
    hdg_ir_expr *face = NULL, *scale, *q;
    int boundary = a->domain == HDG_BOUNDARY;
    if (boundary) {
        face = hdg_lh_open_faces(c, k, g, a, &env, &scale);
        scale = hdg_ir_let(k, "sJ", scale);
        q = hdg_ir_for(k, "q", c->nfq);
        hdg_ir_expr *l[4];
        for (int v = 0; v <= c->dim; v++) l[v] = hdg_ir_ld3(k, c->flam, face, q, I(k, v));
        hdg_lh_bind_xy(k, g, c->dim, l, &env);
        scale = hdg_ir_mul(k, hdg_ir_ld1(k, c->fw, q), scale);
    } else {
        q = hdg_lh_open_points(k, g, c->dim, c->vlam, c->nvq, &env);
        scale = hdg_ir_mul(k, hdg_ir_ld1(k, c->vw, q), Gc(k, g, hdg_g_J(c->dim)));
    }
    c->sq = q, c->sface = face;   /* where the state hook reads */
    hdg_ir_expr *coef = hdg_lh_atom_coef(c, k, &env, a, hist);
    c->sq = c->sface = NULL;
    hdg_ir_expr *cw;
    if (c->split_coef && !boundary && hdg_lh_calls_function(coef)) {
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

/* Newton (a kernel that reads the state, lower_hdg_newton.c): a residual's Jacobian atoms into
 * the matrix blocks, and its source integral((sum_j jac_j.coef STATE_j - coef) test) into the
 * source column. */
static void emit_residual(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const blocks *bk, const hdg_equation *eq,
                          const hdg_residual *r)
{
    for (int j = 0; j < r->njac; j++) emit_atom(c, k, g, bk, eq, &r->jac[j], 0);
    hdg_atom src = {.domain = r->domain, .markers = r->markers, .test = r->test, .test_comp = r->test_comp,
                    .test_op = r->test_op, .trial = -1, .side = HDG_SIDE_NONE, .coef = r->coef,
                    .role = HDG_ROLE_SOURCE, .loc = r->loc};
    c->res_src = r;
    emit_atom(c, k, g, bk, eq, &src, 0);
    c->res_src = NULL;
}

void hdg_lh_emit_system(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const blocks *bk)
{
    for (int e = 0; e < c->p->nequations; e++) {
        const hdg_equation *eq = &c->p->equations[e];
        if (eq->post) continue;
        for (int t = 0; t < eq->natoms; t++) {
            emit_atom(c, k, g, bk, eq, &eq->atoms[t], 0);
            if (eq->atoms[t].dt && c->hist) emit_atom(c, k, g, bk, eq, &eq->atoms[t], 1);
        }
        for (int r = 0; c->sv && r < eq->nresiduals; r++)
            emit_residual(c, k, g, bk, eq, &eq->residuals[r]);
    }
}
