/* lower_dg_nonlinear.c — explicit DG lowering of the residual terms of a
 * nonlinear problem (issue 41; frontend.h, hdg_residual): terms whose
 * coefficient reads the state (fluxes F(U), numerical fluxes Fhat(U-, U+),
 * sources g(U)) are integrated by quadrature, never at the nodes, so the
 * products of nodal polynomials are not aliased (over-integration):
 *
 *   volume  rule exact to degree 2N (hdg_quad_simplex), U interpolated to its
 *           points (Iv); a residual (c(U), dv/dx_l) adds
 *               R -= sum_k Sv_k (sum_l dr_k/dx_l c_l(U(x_q)))
 *           with Sv_k = M^-1 Dv_k^T W (Dv_k = d phi / dr_k at the points,
 *           W the weights), and (c(U), v) adds R -= Sv_v c(U(x_q)) with
 *           Sv_v = M^-1 Iv^T W;
 *   faces   on every local face a rule exact to degree 2N + 1 (Gauss-Legendre
 *           with N + 1 points on an edge; hdg_quad_simplex on a triangle),
 *           the interior and exterior traces interpolated from the face nodes
 *           (the neighbour's through the same node pairing as the linear
 *           fluxes; on a boundary face the exterior rule of its condition at
 *           the point); a residual <c(U-, U+), v> adds
 *               R -= Fscale LIFTq c
 *           with LIFTq[i][(f, q)] = sum_m M^-1[i][Fmask[f][m]] w_q If[(f, q)][m].
 *
 * R then goes through the row's dt() coefficient and the LSERK4 stage as the
 * linear terms do (lower_dg_kernels.c). The linear atoms of a nonlinear
 * problem keep the nodal path; a linear problem never comes here, so its
 * kernels are those it always had. */
#include "ir/lower_dg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/quadrature.h"
#include "support/util.h"

/* ---------------------------------------------------------------- analysis */

/* The state a residual reads, from its Jacobian atoms (one per state leaf of
 * its coefficient): values only, the exterior on faces only; exterior values
 * need a rule in every boundary condition (checked with the linear fluxes'). */
static hdg_status residual_leaves(dgc *c, const hdg_residual *r, hdg_error *err)
{
    for (int j = 0; j < r->njac; j++) {
        const hdg_atom *a = &r->jac[j];
        if (a->trial_op != HDG_OP_VALUE)
            return dg_fail_at(c, r->loc, "explicit DG evaluates nonlinear terms from the state's values: a "
                                         "derivative of an unknown inside a nonlinear term is not supported", err);
        if (a->side == HDG_SIDE_EXTERIOR && r->domain != HDG_BOUNDARY)
            return dg_fail_at(c, r->loc, "ext() is only defined on faces", err);
        if (a->side == HDG_SIDE_EXTERIOR) c->needs_ext[dg_atom_field(c, a)] = 1;
    }
    return HDG_OK;
}

hdg_status dg_analyze_residuals(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].nresiduals; i++) {
            const hdg_residual *r = &p->equations[e].residuals[i];
            c->nonlinear = 1;
            if (c->rowf[e * 3 + r->test_comp] < 0)
                return dg_fail_at(c, r->loc, "this nonlinear term's equation row has no dt() term", err);
            if (r->domain == HDG_BOUNDARY && r->test_op != HDG_OP_VALUE)
                return dg_fail_at(c, r->loc, "derivatives of the test function on faces are not supported", err);
            if (r->domain == HDG_VOLUME && r->test_op == HDG_OP_VALUE) c->nl_value = 1;
            if (r->domain == HDG_BOUNDARY && dg_set_index(c, r->markers, err, r->loc) == -2) return HDG_EINPUT;
            hdg_status st = residual_leaves(c, r, err);
            if (st) return st;
        }
    return dg_analyze_wavespeed(c, err);
}

/* ---------------------------------------------------------------- tables */

/* The volume rule: Iv^T (Np x nqvp, the interpolation to the points,
 * columns padded), Sv^T ((dim [+1]) nqv x Npp: rows k nqv + q hold
 * Sv_k[.][q], the value block last when some residual needs it) and the
 * points' reference coordinates. */
static void volume_tables(dgc *c, hdg_error *err)
{
    hdg_refel *re = &c->re;
    hdg_ir_module *m = c->L->mod;
    int Np = re->Np, Npp = c->Npp, dim = c->dim;
    hdg_quad q = {0};
    if (hdg_quad_simplex(&q, dim, 2 * re->N, err)) return;
    int nq = q.n, nqp = (nq + DG_PAD - 1) / DG_PAD * DG_PAD, nb = dim + c->nl_value;
    double *I = hdg_xmalloc(sizeof(double) * (size_t)nq * Np);          /* nq x Np */
    double *IT = hdg_xcalloc((size_t)Np * nqp, sizeof(double));
    double *DI = hdg_xmalloc(sizeof(double) * (size_t)nq * Np);         /* Iv D_k */
    double *ST = hdg_xcalloc((size_t)nb * nq * Npp, sizeof(double));
    hdg_refel_interp_x(re, nq, (const double *const *)q.x, I);
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < Np; j++) IT[j * nqp + i] = I[i * Np + j];
    for (int b = 0; b < nb; b++) {
        const double *V = I;   /* the value block */
        if (b < dim) {
            for (int i = 0; i < nq; i++)
                for (int j = 0; j < Np; j++) {
                    double s = 0;
                    for (int l = 0; l < Np; l++) s += I[i * Np + l] * re->D[b][l * Np + j];
                    DI[i * Np + j] = s;
                }
            V = DI;
        }
        for (int i = 0; i < Np; i++)   /* Sv_b[i][qq] = sum_j Minv[i][j] V[qq][j] w_qq */
            for (int qq = 0; qq < nq; qq++) {
                double s = 0;
                for (int j = 0; j < Np; j++) s += re->Minv[i * Np + j] * V[qq * Np + j];
                ST[((size_t)b * nq + qq) * Npp + i] = s * q.w[qq];
            }
    }
    c->nqv = nq, c->nqvp = nqp;
    c->IvT = hdg_ir_table(m, "IvT", HDG_SHAPE(Np, nqp), IT);
    c->SvT = hdg_ir_table(m, "SvT", HDG_SHAPE(nb * nq, Npp), ST);
    static const char *const xname[3] = { "rv", "sv", "tv" };
    for (int d = 0; d < dim; d++) c->xv[d] = hdg_ir_table(m, xname[d], HDG_SHAPE(nq), q.x[d]);
    free(I), free(IT), free(DI), free(ST);
    hdg_quad_free(&q);
}

/* The face rule on the reference face (measure 2, as the LIFT's face mass):
 * nqf points xi[d][q] (d < dim - 1) and weights. */
static int face_rule(const dgc *c, double **xi, double **w, hdg_error *err)
{
    int N = c->re.N;
    if (c->dim == 2) {
        *xi = hdg_xmalloc(sizeof(double) * (size_t)(N + 1));
        *w = hdg_xmalloc(sizeof(double) * (size_t)(N + 1));
        if (hdg_gauss_legendre(N + 1, *xi, *w, err)) return -1;
        return N + 1;
    }
    hdg_quad q = {0};
    if (hdg_quad_simplex(&q, 2, 2 * N + 1, err)) return -1;
    *xi = hdg_xmalloc(sizeof(double) * 2 * (size_t)q.n);
    *w = hdg_xmalloc(sizeof(double) * (size_t)q.n);
    memcpy(*xi, q.x[0], sizeof(double) * q.n);
    memcpy(*xi + q.n, q.x[1], sizeof(double) * q.n);
    memcpy(*w, q.w, sizeof(double) * q.n);
    int n = q.n;
    hdg_quad_free(&q);
    return n;
}

/* Frames: both elements of a face must integrate its numerical flux at the
 * same physical points, or the two sides' integrals of a flux that is not a
 * polynomial of degree <= 2N + 1 (|u|, max, sqrt in a Rusanov flux) differ
 * and the scheme loses conservation at the size of the quadrature error
 * (Burgers on cube:3, N = 2: 1.6e-7 of the total in 4 steps). Each element
 * places the rule on its face in a frame: frame r puts the rule's vertex k
 * at the face's vertex (k + r) mod dim (face_points). On an edge one frame
 * serves: Gauss-Legendre is symmetric, and the neighbour runs the edge the
 * other way. On a triangle the collapsed rule is symmetric in its two base
 * vertices (Gauss-Legendre in the collapsed direction), so its point set
 * is fixed by the face vertex at its apex (rule vertex 2): 3 frames, and
 * the element that sees its neighbour's vertex order as the permutation pi
 * (hdg_face_orient_perm: b_k = a_pi(k)) puts the apex at a position p with
 * p(o) = pi_o(p(o^-1)), which makes both sides' apex one vertex: a fixed
 * point of pi where pi has one (the last: the identity keeps frame 0), and
 * for the two rotations position dim - 1 on the side that sees o = 1 and
 * pi_2(dim - 1) on the side that sees its inverse o = 2. */
static int face_frames(int dim) { return dim == 2 ? 1 : dim; }

static int face_frame(int dim, int o)
{
    if (face_frames(dim) == 1) return 0;
    const int *pi = hdg_face_orient_perm(dim, o);
    int p = -1;
    for (int k = 0; k < dim; k++)
        if (pi[k] == k) p = k;
    if (p < 0) p = o == 1 ? dim - 1 : pi[dim - 1];
    return (p + 1) % dim;   /* the apex (rule vertex dim - 1) at (dim - 1 + r) mod dim */
}

/* The face points in the element's reference coordinates, by frame: point q
 * of face f in frame r at rule barycentric (l0, l1 [, l2]) (l_a = (1 +
 * xi_(a-1))/2, l0 = 1 - the others) of the face's vertex (a + r) mod dim;
 * reference vertex v has coordinate d equal to 1 when v == d + 1, else -1.
 * X[d][(f nfr + r) nqf + q]. */
static void face_points(const dgc *c, int nqf, int nfr, const double *xi, double *const *X)
{
    int dim = c->dim, nfe = c->nfe;
    for (int f = 0; f < nfe; f++) {
        const int *fv = hdg_simplex_face_vertices(dim, f);
        for (int r = 0; r < nfr; r++)
            for (int q = 0; q < nqf; q++) {
                double l[3], l0 = 1;
                for (int a = 1; a < dim; a++) l[a] = 0.5 * (1 + xi[(a - 1) * nqf + q]), l0 -= l[a];
                l[0] = l0;
                for (int d = 0; d < dim; d++) {
                    double s = 0;
                    for (int a = 0; a < dim; a++) s += l[a] * (fv[(a + r) % dim] == d + 1 ? 1.0 : -1.0);
                    X[d][(f * nfr + r) * nqf + q] = s;
                }
            }
    }
}

/* If (nfe nfr nqf x Nfp): the face nodes' interpolation to the face points
 * (the element's, restricted to the face's nodes); LIFTqT (nfe nfr nqf x
 * Npp); QfFrame: the frame of each row of the exterior node table FmR (its
 * orientation's, face_frame). */
static void face_quad_tables(dgc *c, hdg_error *err)
{
    hdg_refel *re = &c->re;
    hdg_ir_module *m = c->L->mod;
    int Np = re->Np, Nfp = re->Nfp, Npp = c->Npp, dim = c->dim, nfe = c->nfe, nfr = face_frames(dim);
    int no = dim == 2 ? 1 : re->Norient;   /* rows of FmR per face (lower_dg_tables.c) */
    double *xi = NULL, *w = NULL;
    int nqf = face_rule(c, &xi, &w, err);
    if (nqf < 0) { free(xi), free(w); return; }
    int n = nfe * nfr * nqf;
    double *X[3] = {0};
    for (int d = 0; d < dim; d++) X[d] = hdg_xmalloc(sizeof(double) * (size_t)n);
    face_points(c, nqf, nfr, xi, X);
    double *Ie = hdg_xmalloc(sizeof(double) * (size_t)n * Np);
    hdg_refel_interp_x(re, n, (const double *const *)X, Ie);
    double *If = hdg_xmalloc(sizeof(double) * (size_t)n * Nfp), *LT = hdg_xcalloc((size_t)n * Npp, sizeof(double));
    for (int f = 0; f < nfe; f++)
        for (int fq = f * nfr * nqf; fq < (f + 1) * nfr * nqf; fq++) {
            for (int mm = 0; mm < Nfp; mm++) If[fq * Nfp + mm] = Ie[(size_t)fq * Np + re->Fmask[f * Nfp + mm]];
            for (int i = 0; i < Np; i++) {
                double s = 0;
                for (int mm = 0; mm < Nfp; mm++) s += re->Minv[i * Np + re->Fmask[f * Nfp + mm]] * If[fq * Nfp + mm];
                LT[(size_t)fq * Npp + i] = s * w[fq % nqf];
            }
        }
    c->nqf = nqf, c->nqfr = nfr;
    c->IfQ = hdg_ir_table(m, "IfQ", HDG_SHAPE(n, Nfp), If);
    c->LIFTqT = hdg_ir_table(m, "LIFTqT", HDG_SHAPE(n, Npp), LT);
    static const char *const xname[3] = { "rfq", "sfq", "tfq" };
    for (int d = 0; d < dim; d++) c->xfq[d] = hdg_ir_table(m, xname[d], HDG_SHAPE(n), X[d]);
    if (nfr > 1) {
        int *fr = hdg_xmalloc(sizeof(int) * (size_t)nfe * no);
        for (int row = 0; row < nfe * no; row++) fr[row] = face_frame(dim, row % no);
        c->QfFrame = hdg_ir_table_int(m, "QfFrame", HDG_SHAPE(nfe * no), fr);
        free(fr);
    }
    for (int d = 0; d < dim; d++) free(X[d]);
    free(Ie), free(If), free(LT), free(xi), free(w);
}

void dg_nonlinear_tables(dgc *c, hdg_error *err)
{
    volume_tables(c, err);
    face_quad_tables(c, err);
}

/* ---------------------------------------------------------------- volume */

/* The block of a volume residual in Sv: its test direction, or the value
 * block (dim). */
static int test_block(const dgc *c, hdg_op op)
{
    return op == HDG_OP_DX ? 0 : op == HDG_OP_DY ? 1 : op == HDG_OP_DZ ? 2 : c->dim;
}

void dg_build_volume_nl(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *R)
{
    const hdg_problem *p = c->p;
    int F = c->F, dim = c->dim, nq = c->nqv, nb = dim + c->nl_value, rows[HDG_DG_MAX_FIELDS], nrows = 0;
    int used[HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].nresiduals; i++) {
            const hdg_residual *r = &p->equations[e].residuals[i];
            if (r->domain == HDG_VOLUME) used[c->rowf[e * 3 + r->test_comp]] = 1;
        }
    for (int f = 0; f < F; f++)
        if (used[f]) rows[nrows++] = f;
    if (!nrows) return;
    int all[HDG_DG_MAX_FIELDS];
    for (int f = 0; f < F; f++) all[f] = f;
    hdg_ir_tensor *Uq = hdg_ir_local(k, "Uq", HDG_IR_DOUBLE, HDG_SHAPE(F, c->nqvp));
    hdg_ir_tensor *Cq = hdg_ir_local(k, "Cq", HDG_IR_DOUBLE, HDG_SHAPE(F, nb * nq));
    dg_product(k, Uq, all, U, all, F, c->IvT, 0);   /* the state at the points */
    hdg_ir_expr *q = hdg_ir_for(k, "q", nq);
    xenv v = dg_point_env(c, k, G, c->xv, q, NULL, hdg_ir_time(k));
    hdg_ir_expr *st[HDG_DG_MAX_FIELDS];
    char name[80];
    for (int f = 0; f < F; f++) {
        snprintf(name, sizeof name, "%s_q", dg_field_name(c, f));
        st[f] = hdg_ir_let(k, name, hdg_ir_ld2(k, Uq, hdg_ir_int(k, f), q));
    }
    v.st[0] = st;
    v.field_of = (const int (*)[3])c->field_of;
    hdg_ir_expr *sum[HDG_DG_MAX_FIELDS][4] = {{0}};   /* [row][direction l, or dim: value] */
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].nresiduals; i++) {
            const hdg_residual *r = &p->equations[e].residuals[i];
            if (r->domain != HDG_VOLUME) continue;
            hdg_ir_set_origin(k, p->file, r->loc.line, r->loc.col, NULL);
            int fr = c->rowf[e * 3 + r->test_comp], b = test_block(c, r->test_op);
            sum[fr][b] = dg_add_term(k, sum[fr][b], dg_lx(k, p, r->coef, &v));
        }
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    for (int g = 0; g < nrows; g++) {   /* Cq[row][k nq + q] = -(sum_l dr_k/dx_l c_l), then the value block */
        int fr = rows[g];
        for (int kk = 0; kk < nb; kk++) {
            hdg_ir_expr *val = NULL;
            if (kk < dim) {
                for (int l = 0; l < dim; l++)
                    if (sum[fr][l])
                        val = dg_add_term(k, val, hdg_ir_mul(k, dg_gi(k, G, hdg_dg_g_ginv(dim, kk, l)), sum[fr][l]));
            } else {
                val = sum[fr][dim];
            }
            hdg_ir_expr *col = hdg_ir_add(k, hdg_ir_int(k, kk * nq), q);
            hdg_ir_assign(k, hdg_ir_ld2(k, Cq, hdg_ir_int(k, fr), col), val ? hdg_ir_neg(k, val) : hdg_ir_num(k, 0));
        }
    }
    hdg_ir_end(k);
    dg_product(k, R, rows, Cq, rows, nrows, c->SvT, 1);
}

/* ---------------------------------------------------------------- faces */

/* The first table row of face f's points in the frame of its exterior node
 * table row nlf: (f nqfr + QfFrame[nlf]) nqf; NULL with one frame (rows f nqf + q). */
static hdg_ir_expr *frame_base(const dgc *c, hdg_ir_kernel *k, hdg_ir_expr *f, hdg_ir_expr *nlf)
{
    if (c->nqfr == 1) return NULL;
    hdg_ir_expr *fr = hdg_ir_add(k, hdg_ir_mul(k, f, hdg_ir_int(k, c->nqfr)), hdg_ir_ld1(k, c->QfFrame, nlf));
    return hdg_ir_let(k, "fqb", hdg_ir_mul(k, fr, hdg_ir_int(k, c->nqf)));
}

void dg_build_surface_nl(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *M,
                         hdg_ir_tensor *R)
{
    const hdg_problem *p = c->p;
    int F = c->F, Nfp = c->Nfp, nqf = c->nqf, rows[HDG_DG_MAX_FIELDS], nrows = 0;
    int used[HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].nresiduals; i++) {
            const hdg_residual *r = &p->equations[e].residuals[i];
            if (r->domain == HDG_BOUNDARY) used[c->rowf[e * 3 + r->test_comp]] = 1;
        }
    for (int f = 0; f < F; f++)
        if (used[f]) rows[nrows++] = f;
    if (!nrows) return;
    hdg_ir_tensor *Gq = hdg_ir_local(k, "fluxq", HDG_IR_DOUBLE, HDG_SHAPE(F, c->nfe * nqf));
    hdg_ir_tensor *T = hdg_ir_local(k, "tr", HDG_IR_DOUBLE, HDG_SHAPE(2, F));   /* traces at the point */
    hdg_ir_expr *t = hdg_ir_time(k);
    hdg_ir_expr *f = hdg_ir_for(k, "f", c->nfe);
    face_vals fv = dg_face_lets(c, k, G, M, f);
    hdg_ir_expr *fb = frame_base(c, k, f, fv.nlf);
    hdg_ir_expr *q = hdg_ir_for(k, "q", nqf);
    hdg_ir_expr *fq = hdg_ir_let(k, "fq", hdg_ir_add(k, hdg_ir_mul(k, f, hdg_ir_int(k, nqf)), q));
    hdg_ir_expr *tq = fb ? hdg_ir_let(k, "tq", hdg_ir_add(k, fb, q)) : fq;   /* the point's table row */
    hdg_ir_fill(k, T, hdg_ir_num(k, 0));
    hdg_ir_expr *mm = hdg_ir_for(k, "m", Nfp);
    hdg_ir_expr *w = hdg_ir_let(k, "w", hdg_ir_ld2(k, c->IfQ, tq, mm));
    hdg_ir_expr *node = hdg_ir_let(k, "node", hdg_ir_ld2(k, c->Fm, f, mm));
    hdg_ir_expr *enode = hdg_ir_let(k, "enode", hdg_ir_ld2(k, c->FmR, fv.nlf, mm));
    for (int g = 0; g < F; g++) {
        hdg_ir_expr *gi = hdg_ir_int(k, g);
        hdg_ir_accum(k, hdg_ir_ld2(k, T, hdg_ir_int(k, 0), gi), hdg_ir_mul(k, w, hdg_ir_ld2(k, U, gi, node)));
        if (c->needs_ext[g])
            hdg_ir_accum(k, hdg_ir_ld2(k, T, hdg_ir_int(k, 1), gi),
                         hdg_ir_mul(k, w, hdg_ir_load_row(k, U, fv.nbr, 2, (hdg_ir_expr *[]){ gi, enode })));
    }
    hdg_ir_end(k);
    xenv v = dg_point_env(c, k, G, c->xfq, tq, NULL, t);
    v.nx = fv.n[0], v.ny = fv.n[1], v.nz = fv.n[2];
    hdg_ir_expr *uin[HDG_DG_MAX_FIELDS], *uex[HDG_DG_MAX_FIELDS] = {0};
    char name[80];
    for (int g = 0; g < F; g++) {
        snprintf(name, sizeof name, "%s_in", dg_field_name(c, g));
        uin[g] = hdg_ir_let(k, name, hdg_ir_ld2(k, T, hdg_ir_int(k, 0), hdg_ir_int(k, g)));
    }
    hdg_ir_expr *interior = hdg_ir_cmp(k, HDG_E_LT, fv.bc, hdg_ir_int(k, 0));
    for (int g = 0; g < F; g++) {
        if (!c->needs_ext[g]) continue;
        hdg_ir_expr *nbv = hdg_ir_ld2(k, T, hdg_ir_int(k, 1), hdg_ir_int(k, g));
        snprintf(name, sizeof name, "%s_ex", dg_field_name(c, g));
        uex[g] = hdg_ir_let(k, name, hdg_ir_select(k, interior, nbv, dg_boundary_value(c, k, g, fv.bc, uin, &v)));
    }
    v.field_of = (const int (*)[3])c->field_of;
    if (c->wavespeed) v.wavespeed = dg_wavespeed(c, k, &v, uin, uex);
    v.st[0] = uin, v.st[1] = uex;
    hdg_ir_expr *sum[HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].nresiduals; i++) {
            const hdg_residual *r = &p->equations[e].residuals[i];
            if (r->domain != HDG_BOUNDARY) continue;
            hdg_ir_set_origin(k, p->file, r->loc.line, r->loc.col, NULL);
            int fr = c->rowf[e * 3 + r->test_comp];
            sum[fr] = dg_add_term(k, sum[fr], dg_marker_guard(c, k, r->markers, M, f, dg_lx(k, p, r->coef, &v)));
        }
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    for (int g = 0; g < nrows; g++)   /* the residual moves to the right-hand side */
        hdg_ir_assign(k, hdg_ir_ld2(k, Gq, hdg_ir_int(k, rows[g]), fq),
                      hdg_ir_neg(k, hdg_ir_mul(k, fv.fs, sum[rows[g]])));
    hdg_ir_end(k);
    hdg_ir_end(k);
    if (!fb) {   /* one frame: one product over all faces' points */
        dg_product(k, R, rows, Gq, rows, nrows, c->LIFTqT, 1);
        return;
    }
    f = hdg_ir_for(k, "f", c->nfe);   /* each face's points through the rows of its frame */
    fb = frame_base(c, k, f, hdg_ir_let(k, "nlf", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, c->nfe), f))));
    dg_product_part(k, R, rows, Gq, hdg_ir_mul(k, f, hdg_ir_int(k, nqf)), rows, nrows, c->LIFTqT, fb, nqf, 1);
    hdg_ir_end(k);
}
