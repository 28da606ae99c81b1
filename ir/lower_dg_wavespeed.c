/* lower_dg_wavespeed.c — the builtin 'wavespeed' of explicit DG face terms
 * (frontend.h HDG_EX_WAVESPEED; docs/language.md, docs/method.md section 6):
 * at a face quadrature point, the largest over both sides of the spectral
 * radius of the normal flux Jacobian
 *
 *     A_n(U) = sum_d n_d A_d(U),  A_d = dF_d/dU divided by the row's dt() coefficient,
 *
 * where F is the flux the volume terms define: the Jacobian atoms of the
 * volume residuals (c(U), dx_d v) give A_d -= dc/dU, the linear volume atoms
 * (u, dx_d v) and (dx_d u, v) give -c and +c (as drivers/dg_speed.c reads
 * them for the time step). A_n is evaluated at the point from the interior
 * state and again from the exterior one (the neighbour's, or the boundary
 * condition's exterior rule), and its spectral radius taken by
 *
 *   1. the characteristic polynomial p(x) = det(x I - A_n) (Faddeev-LeVerrier
 *      on scalar lets, the entries that are zero whatever the state skipped:
 *      F - 2 matrix products and one column);
 *   2. its largest root, and the largest root of (-1)^F p(-x) (minus the
 *      smallest root of p), by LAGUERRE_STEPS steps of Laguerre's method from
 *      min(R, |m| -+ sqrt((F - 1) s2)) (R = max_i sum_j |a_ij| >= rho; m and s2
 *      the roots' mean tr(A)/F and variance tr(A^2)/F - m^2: for real roots
 *      Samuelson's inequality puts every root within m -+ sqrt((F - 1) s2)).
 *      When every root is real (a hyperbolic system) Laguerre's iterates from
 *      the right of the roots decrease monotonically to the largest root and
 *      never pass it (cubic convergence at a simple root), so each is an upper
 *      bound: the result is rho itself to rounding, never below it by more
 *      than that. The four chains of a face point (two sides, two ends) are
 *      emitted step by step, interleaved: independent, the processor overlaps them;
 *   3. a guard for spectra that are not real (a system that is not
 *      hyperbolic, where Laguerre may stop at a smaller real root): when
 *      s2 < 0 (never for real roots), when a step's discriminant
 *      (n-1)^2 p'^2 - n(n-1) p p'' is negative (never for a polynomial with
 *      real roots: Laguerre's inequality), or when sqrt(|tr(A_n^2)| / F) (a
 *      lower bound of rho for any spectrum) exceeds the result, the result is
 *      R: a safe over-estimate.
 * Two fields: the roots m -+ sqrt(s2) in closed form, |m| + sqrt(s2), or for a
 * complex pair its modulus sqrt(det A_n). The divisions in A_n's entries (the
 * derived Jacobian divides by rho, rho^2, ...) become products with one
 * reciprocal per distinct denominator.
 * One field: |a_11| exactly. */
#include "ir/lower_dg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

/* Laguerre's steps per root: cubic convergence from the Samuelson bound, which for
 * Euler is v.n + 1.22 c (2D), v.n + 1.26 c (3D) against rho = v.n + c: the excess
 * falls 0.22 c -> 6e-4 c -> 2e-11 c -> rounding (docs/performance.md, "The wave speed"). */
#define LAGUERRE_STEPS 3

/* ---------------------------------------------------------------- analysis */

hdg_status dg_analyze_wavespeed(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].nresiduals; i++) {
            const hdg_residual *r = &p->equations[e].residuals[i];
            if (!hdg_expr_has_wavespeed(r->coef)) continue;
            if (r->domain != HDG_BOUNDARY)
                return dg_fail_at(c, r->loc, "'wavespeed' is defined on faces only", err);
            c->wavespeed = 1;
        }
    if (c->wavespeed)   /* both sides' Jacobians: every field's exterior state */
        for (int f = 0; f < c->F; f++) c->needs_ext[f] = 1;
    return HDG_OK;
}

/* ---------------------------------------------------------------- A_n */

/* The direction of a derivative operator (0, 1, 2), -1 for a value. */
static int op_dir(hdg_op op) { return op == HDG_OP_DX ? 0 : op == HDG_OP_DY ? 1 : op == HDG_OP_DZ ? 2 : -1; }

/* sum[row][col] += sign * coef * n_dir */
static void add_entry(hdg_ir_kernel *k, hdg_ir_expr **sum, int F, int row, int col, double sign,
                      hdg_ir_expr *coef, hdg_ir_expr *n)
{
    hdg_ir_expr *t = hdg_ir_mul(k, coef, n);
    sum[row * F + col] = dg_add_term(k, sum[row * F + col], sign < 0 ? hdg_ir_neg(k, t) : t);
}

/* Reciprocals of A_n's denominators: each distinct one divided once (the derived Jacobian
 * divides by rho, rho^2, ... in most entries: ~20 divisions a side for Euler, now 2). */
typedef struct recips {
    int n;
    hdg_ir_expr *den[16], *inv[16];
} recips;

/* e with every a / b (b not a constant) as a * (1 / b), 1 / b a let shared by equal b. Only
 * A_n's entries are rewritten: they feed the spectral radius alone, where a rounding
 * difference of 1 ulp in an entry moves rho by as little. */
static hdg_ir_expr *by_recips(hdg_ir_kernel *k, hdg_ir_expr *e, recips *rc)
{
    if (e->op < HDG_E_NEG) return e;   /* leaves and loads */
    hdg_ir_expr *a[3];
    int changed = 0;
    for (int i = 0; i < e->n; i++) a[i] = by_recips(k, e->a[i], rc), changed |= a[i] != e->a[i];
    if (e->op == HDG_E_DIV && e->a[1]->op != HDG_E_NUM && e->type == HDG_IR_DOUBLE) {
        int j = 0;
        while (j < rc->n && !hdg_ir_expr_equal(rc->den[j], a[1])) j++;
        if (j == rc->n) {
            if (j == 16) return changed ? hdg_ir_op_new(k, e->op, e->n, a, e->ival) : e;
            rc->den[j] = a[1];
            rc->inv[j] = hdg_ir_let(k, "wrcp", hdg_ir_div(k, hdg_ir_num(k, 1), a[1]));
            rc->n++;
        }
        return hdg_ir_mul(k, a[0], rc->inv[j]);
    }
    return changed ? hdg_ir_op_new(k, e->op, e->n, a, e->ival) : e;
}

/* A_n at the state of v (its interior slots hold the side's state) into A[F * F]: one let per
 * entry, NULL where the entry is zero whatever the state (no term reaches it), so that the products
 * below skip it. */
static void fill_an(dgc *c, hdg_ir_kernel *k, const xenv *v, hdg_ir_expr **A)
{
    const hdg_problem *p = c->p;
    int F = c->F;
    hdg_ir_expr **sum = hdg_xcalloc((size_t)F * F, sizeof *sum), *nv[3] = { v->nx, v->ny, v->nz };
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *q = &p->equations[e];
        for (int i = 0; i < q->natoms; i++) {   /* linear: (dx u, v) adds c, (u, dx v) adds -c */
            const hdg_atom *a = &q->atoms[i];
            if (a->role != HDG_ROLE_VOLUME || a->trial < 0) continue;
            int d = op_dir(a->trial_op), sign = 1;
            if (d < 0) d = op_dir(a->test_op), sign = -1;
            if (d < 0 || (a->trial_op != HDG_OP_VALUE && a->test_op != HDG_OP_VALUE)) continue;
            add_entry(k, sum, F, dg_row_field(c, e, a), dg_atom_field(c, a), sign, dg_lx(k, p, a->coef, v), nv[d]);
        }
        for (int r = 0; r < q->nresiduals; r++) {   /* nonlinear: (c(U), dx v) adds -dc/dU */
            const hdg_residual *res = &q->residuals[r];
            int d = op_dir(res->test_op);
            if (res->domain != HDG_VOLUME || d < 0) continue;
            for (int j = 0; j < res->njac; j++) {
                const hdg_atom *a = &res->jac[j];
                if (a->trial < 0) continue;
                add_entry(k, sum, F, c->rowf[e * 3 + res->test_comp], dg_atom_field(c, a), -1,
                          dg_lx(k, p, a->coef, v), nv[d]);
            }
        }
    }
    recips rc = { 0 };
    for (int row = 0; row < F; row++) {
        const hdg_expr *ct = c->tatom[row]->coef;
        hdg_ir_expr *inv = hdg_expr_is_num(ct, 1.0) ? NULL : hdg_ir_let(k, "ws_ct", dg_lx(k, p, ct, v));
        for (int col = 0; col < F; col++) {
            hdg_ir_expr *s = sum[row * F + col];
            A[row * F + col] = s ? hdg_ir_let(k, "wa", by_recips(k, inv ? hdg_ir_div(k, s, inv) : s, &rc)) : NULL;
        }
    }
    free(sum);
}

/* ---------------------------------------------------------------- spectral radius */

/* a + b with NULL for an exact zero */
static hdg_ir_expr *add0(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b) { return a ? (b ? hdg_ir_add(k, a, b) : a) : b; }

/* sum_l a_l b_l over the pairs where neither is an exact zero (NULL), in the order of l; NULL when none */
static hdg_ir_expr *dot0(hdg_ir_kernel *k, int n, hdg_ir_expr *const *a, int sa, hdg_ir_expr *const *b, int sb)
{
    hdg_ir_expr *s = NULL;
    for (int l = 0; l < n; l++)
        if (a[l * sa] && b[l * sb]) s = add0(k, s, hdg_ir_mul(k, a[l * sa], b[l * sb]));
    return s;
}

/* The characteristic polynomial p(x) = sum_i cp[i] x^i (cp[F] = 1) by Faddeev-LeVerrier on the
 * scalar entries (zeros skipped): M_1 = I, c_(F-1) = -tr(A); M_j = A M_(j-1) + c_(F-j+1) I,
 * c_(F-j) = -tr(A M_j) / j (A M_1 = A; of M_F only column 0: c_0 = -(A M_F)_00): F - 2 products. */
static void leverrier(hdg_ir_kernel *k, int F, hdg_ir_expr *const *A, hdg_ir_expr **cp)
{
    hdg_ir_expr **M = hdg_xcalloc((size_t)F * F, sizeof *M), **T = hdg_xcalloc((size_t)F * F, sizeof *T);
    cp[F] = hdg_ir_num(k, 1);
    for (int j = 1; j <= F; j++) {
        hdg_ir_expr *tr = NULL;
        if (j == 1) {
            for (int d = 0; d < F; d++) tr = add0(k, tr, A[d * F + d]);
        } else {
            int nq = j == F ? 1 : F;   /* M_F: column 0 only (below) */
            for (int r = 0; r < F; r++)   /* T = A M_(j-1) (= A for j = 2); M_j = T + c_(F-j+1) I */
                for (int q = 0; q < nq; q++)
                    T[r * F + q] = j == 2 ? A[r * F + q] : dot0(k, F, A + r * F, 1, M + q, F);
            for (int r = 0; r < F; r++)
                for (int q = 0; q < nq; q++) {
                    hdg_ir_expr *m = r == q ? add0(k, T[r * F + q], cp[F - j + 1]) : T[r * F + q];
                    M[r * F + q] = m ? hdg_ir_let(k, "wm", m) : NULL;
                }
            if (j < F) {
                for (int r = 0; r < F; r++) tr = add0(k, tr, dot0(k, F, A + r * F, 1, M + r, F));
            } else {   /* A M_F = -c_0 I (Cayley-Hamilton): c_0 = -(A M_F)_00, F^2 products instead of F^3 */
                hdg_ir_expr *d = dot0(k, F, A, 1, M, F);
                cp[0] = hdg_ir_let(k, "wc", d ? hdg_ir_neg(k, d) : hdg_ir_num(k, 0));
                break;
            }
        }
        cp[F - j] = hdg_ir_let(k, "wc", tr ? hdg_ir_mul(k, hdg_ir_num(k, -1.0 / j), tr) : hdg_ir_num(k, 0));
    }
    free(M), free(T);
}

/* One root's Laguerre iteration: x, and whether a step's discriminant was negative. */
typedef struct lchain { hdg_ir_expr *x, *bad; int flip; } lchain;

/* One Laguerre step of ch on sgn_i cp[i] x^i (sgn_i = (-1)^(F-i) when ch->flip: the polynomial
 * of -A); ch->bad |= a negative discriminant (never for real roots). */
static void laguerre_step(hdg_ir_kernel *k, int F, hdg_ir_expr *const *cp, lchain *ch)
{
    double n = F;
    hdg_ir_expr *x = ch->x, *pv = cp[F], *d1 = NULL, *d2 = NULL;   /* d2 = p''/2 */
    for (int i = F - 1; i >= 0; i--) {
        hdg_ir_expr *ci = cp[i];
        if (ch->flip && (F - i) % 2) ci = hdg_ir_neg(k, ci);
        if (d1) d2 = hdg_ir_let(k, "wd2", d2 ? hdg_ir_add(k, hdg_ir_mul(k, d2, x), d1) : d1);
        d1 = hdg_ir_let(k, "wd1", d1 ? hdg_ir_add(k, hdg_ir_mul(k, d1, x), pv) : pv);
        pv = hdg_ir_let(k, "wp", hdg_ir_add(k, hdg_ir_mul(k, pv, x), ci));
    }
    hdg_ir_expr *a = hdg_ir_let(k, "wa2", hdg_ir_mul(k, hdg_ir_num(k, (n - 1) * (n - 1)), hdg_ir_mul(k, d1, d1)));
    hdg_ir_expr *bb = hdg_ir_let(k, "wb2", hdg_ir_mul(k, hdg_ir_num(k, 2 * n * (n - 1)), hdg_ir_mul(k, pv, d2)));
    hdg_ir_expr *disc = hdg_ir_let(k, "wdisc", hdg_ir_sub(k, a, bb));
    hdg_ir_expr *tol = hdg_ir_mul(k, hdg_ir_num(k, -1e-12), hdg_ir_add(k, a, hdg_ir_call(k, HDG_FN_ABS, bb)));
    hdg_ir_expr *neg = hdg_ir_cmp(k, HDG_E_LT, disc, tol);
    ch->bad = hdg_ir_let(k, "wbad", ch->bad ? hdg_ir_cmp(k, HDG_E_OR, ch->bad, neg) : neg);
    hdg_ir_expr *den = hdg_ir_let(k, "wden", hdg_ir_add(k, d1, hdg_ir_call(k, HDG_FN_SQRT,
                                                                         hdg_ir_max(k, disc, hdg_ir_num(k, 0)))));
    hdg_ir_expr *step = hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_GT, den, hdg_ir_num(k, 0)),
                                      hdg_ir_div(k, hdg_ir_mul(k, hdg_ir_num(k, n), pv), den), hdg_ir_num(k, 0));
    ch->x = hdg_ir_let(k, "wx", hdg_ir_sub(k, x, step));
}

/* R = max_i sum_j |a_ij| (>= rho for any spectrum) */
static hdg_ir_expr *row_norm(hdg_ir_kernel *k, int F, hdg_ir_expr *const *A)
{
    hdg_ir_expr *R = hdg_ir_num(k, 0);
    for (int r = 0; r < F; r++) {
        hdg_ir_expr *s = NULL;
        for (int q = 0; q < F; q++)
            if (A[r * F + q]) s = add0(k, s, hdg_ir_call(k, HDG_FN_ABS, A[r * F + q]));
        if (s) R = hdg_ir_max(k, R, s);
    }
    return hdg_ir_let(k, "wR", R);
}

/* The spectral radius of each side's A (see the head of the file), the Laguerre chains of all
 * sides interleaved step by step (independent: the processor overlaps them). */
static void spectral_radii(hdg_ir_kernel *k, int F, hdg_ir_expr *const *const *A, int nside, hdg_ir_expr **out)
{
    hdg_ir_expr *cp[2][HDG_DG_MAX_FIELDS + 1], *R[2], *m[2], *s2[2], *t2[2];
    lchain ch[2][2];
    for (int s = 0; s < nside; s++) {
        if (F == 1) {
            out[s] = A[s][0] ? hdg_ir_call(k, HDG_FN_ABS, A[s][0]) : hdg_ir_num(k, 0);
            continue;
        }
        leverrier(k, F, A[s], cp[s]);
        /* tr(A^2) = c_(F-1)^2 - 2 c_(F-2); the roots' mean m and variance s2 = tr(A^2)/F - m^2 */
        hdg_ir_expr *c1 = cp[s][F - 1], *c2 = cp[s][F - 2];
        t2[s] = hdg_ir_let(k, "wt2", hdg_ir_sub(k, hdg_ir_mul(k, c1, c1), hdg_ir_mul(k, hdg_ir_num(k, 2), c2)));
        m[s] = hdg_ir_let(k, "wmean", hdg_ir_mul(k, hdg_ir_num(k, -1.0 / F), c1));
        s2[s] = hdg_ir_let(k, "wvar", hdg_ir_sub(k, hdg_ir_div(k, t2[s], hdg_ir_num(k, F)), hdg_ir_mul(k, m[s], m[s])));
        if (F == 2) continue;
        R[s] = row_norm(k, F, A[s]);
        /* Samuelson: real roots lie in m -+ sqrt((F - 1) s2); the smaller of that and R is the start */
        hdg_ir_expr *w = hdg_ir_let(k, "wsam", hdg_ir_mul(k, hdg_ir_num(k, sqrt(F - 1.0)), hdg_ir_call(k, HDG_FN_SQRT,
                                                                             hdg_ir_max(k, s2[s], hdg_ir_num(k, 0)))));
        ch[s][0] = (lchain){ hdg_ir_let(k, "wx", hdg_ir_min(k, R[s], hdg_ir_add(k, m[s], w))), NULL, 0 };
        ch[s][1] = (lchain){ hdg_ir_let(k, "wx", hdg_ir_min(k, R[s], hdg_ir_sub(k, w, m[s]))), NULL, 1 };
    }
    if (F > 2)
        for (int it = 0; it < LAGUERRE_STEPS; it++)
            for (int s = 0; s < nside; s++)
                for (int e = 0; e < 2; e++) laguerre_step(k, F, cp[s], &ch[s][e]);
    for (int s = 0; s < nside && F > 1; s++) {
        /* s2 < 0: not a real spectrum (the variance of real roots is >= 0) */
        hdg_ir_expr *tiny = hdg_ir_mul(k, hdg_ir_num(k, -1e-12), hdg_ir_add(k, hdg_ir_div(k, hdg_ir_call(k, HDG_FN_ABS,
                                                                   t2[s]), hdg_ir_num(k, F)), hdg_ir_mul(k, m[s], m[s])));
        hdg_ir_expr *cplx = hdg_ir_cmp(k, HDG_E_LT, s2[s], tiny);
        if (F == 2) {   /* roots m -+ sqrt(s2), or a complex pair of modulus sqrt(det A) = sqrt(c_0) */
            hdg_ir_expr *re = hdg_ir_add(k, hdg_ir_call(k, HDG_FN_ABS, m[s]),
                                         hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_max(k, s2[s], hdg_ir_num(k, 0))));
            out[s] = hdg_ir_let(k, "wrho", hdg_ir_select(k, cplx, hdg_ir_call(k, HDG_FN_SQRT,
                                                                   hdg_ir_call(k, HDG_FN_ABS, cp[s][0])), re));
            continue;
        }
        hdg_ir_expr *rho = hdg_ir_let(k, "wrho", hdg_ir_min(k, R[s], hdg_ir_max(k, ch[s][0].x, ch[s][1].x)));
        /* sqrt(|tr(A^2)| / F) <= rho for any spectrum */
        hdg_ir_expr *low = hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_div(k, hdg_ir_call(k, HDG_FN_ABS, t2[s]), hdg_ir_num(k, F)));
        hdg_ir_expr *over = hdg_ir_cmp(k, HDG_E_GT, low, hdg_ir_mul(k, rho, hdg_ir_num(k, 1 + 1e-8)));
        hdg_ir_expr *bad = hdg_ir_cmp(k, HDG_E_OR, hdg_ir_cmp(k, HDG_E_OR, ch[s][0].bad, ch[s][1].bad),
                                      hdg_ir_cmp(k, HDG_E_OR, over, cplx));
        out[s] = hdg_ir_let(k, "wrho", hdg_ir_select(k, bad, R[s], rho));
    }
}

hdg_ir_expr *dg_wavespeed(dgc *c, hdg_ir_kernel *k, const xenv *v, hdg_ir_expr *const *uin,
                          hdg_ir_expr *const *uex)
{
    int F = c->F;
    hdg_ir_expr **A[2], *rho[2];
    for (int s = 0; s < 2; s++) {   /* the interior state, then the exterior one in the interior's slots */
        xenv w = *v;
        w.st[0] = s ? uex : uin, w.st[1] = NULL, w.wavespeed = NULL;
        A[s] = hdg_xcalloc((size_t)F * F, sizeof *A[s]);
        fill_an(c, k, &w, A[s]);
    }
    spectral_radii(k, F, (hdg_ir_expr *const *const *)A, 2, rho);
    free(A[0]), free(A[1]);
    return hdg_ir_let(k, "wavespeed", hdg_ir_max(k, rho[0], rho[1]));
}
