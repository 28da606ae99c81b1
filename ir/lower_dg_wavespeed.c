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
 *   1. the characteristic polynomial p(x) = det(x I - A_n) (Faddeev-LeVerrier:
 *      F - 1 matrix products);
 *   2. its largest root, and the largest root of (-1)^F p(-x) (minus the
 *      smallest root of p), by LAGUERRE_STEPS steps of Laguerre's method from
 *      R = max_i sum_j |a_ij| (the infinity norm, >= rho). When every root is
 *      real (a hyperbolic system) Laguerre's iterates from the right of the
 *      roots decrease monotonically to the largest root and never pass it
 *      (cubic convergence at a simple root), so each is an upper bound: the
 *      result is rho itself to rounding, never below it by more than that;
 *   3. a guard for spectra that are not real (a system that is not
 *      hyperbolic, where Laguerre may stop at a smaller real root): when a
 *      step's discriminant (n-1)^2 p'^2 - n(n-1) p p'' is negative (never for a
 *      polynomial with real roots: Laguerre's inequality), or when
 *      sqrt(|tr(A_n^2)| / F) (a lower bound of rho for any spectrum) exceeds
 *      the result, the result is R: a safe over-estimate.
 * One field: |a_11| exactly. */
#include "ir/lower_dg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

/* Laguerre's steps per root: cubic convergence from R, which is within a
 * small factor of rho for the flux Jacobians met (Euler: R/rho < 5). */
#define LAGUERRE_STEPS 5

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

/* A_n at the state of v (its interior slots hold the side's state) into An. */
static void fill_an(dgc *c, hdg_ir_kernel *k, const xenv *v, hdg_ir_tensor *An)
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
    hdg_ir_fill(k, An, hdg_ir_num(k, 0));
    for (int row = 0; row < F; row++) {
        const hdg_expr *ct = c->tatom[row]->coef;
        hdg_ir_expr *inv = hdg_expr_is_num(ct, 1.0) ? NULL : hdg_ir_let(k, "ws_ct", dg_lx(k, p, ct, v));
        for (int col = 0; col < F; col++) {
            hdg_ir_expr *s = sum[row * F + col];
            if (s) hdg_ir_assign(k, hdg_ir_ld2(k, An, hdg_ir_int(k, row), hdg_ir_int(k, col)),
                                 inv ? hdg_ir_div(k, s, inv) : s);
        }
    }
    free(sum);
}

/* ---------------------------------------------------------------- spectral radius */

typedef struct wsbuf {
    hdg_ir_tensor *An, *M, *T;   /* F x F */
    hdg_ir_tensor *cp;           /* F + 1: p's coefficients, cp[i] of x^i (cp[F] = 1) */
    hdg_ir_tensor *s;            /* scalars: 0 R, 1 x, 2 bad, 3 trace, 4..5 the two roots */
} wsbuf;

static hdg_ir_expr *ld(hdg_ir_kernel *k, hdg_ir_tensor *t, int i) { return hdg_ir_ld1(k, t, hdg_ir_int(k, i)); }

/* The characteristic polynomial by Faddeev-LeVerrier: M_1 = I, c_(F-1) = -tr(A);
 * M_j = A M_(j-1) + c_(F-j+1) I, c_(F-j) = -tr(A M_j) / j. */
static void leverrier(dgc *c, hdg_ir_kernel *k, const wsbuf *b)
{
    int F = c->F;
    hdg_ir_assign(k, ld(k, b->cp, F), hdg_ir_num(k, 1));
    hdg_ir_fill(k, b->M, hdg_ir_num(k, 0));
    hdg_ir_expr *i = hdg_ir_for(k, "wi", F);
    hdg_ir_assign(k, hdg_ir_ld2(k, b->M, i, i), hdg_ir_num(k, 1));
    hdg_ir_end(k);
    for (int j = 1; j <= F; j++) {
        if (j > 1) {   /* T = A M; M = T + c_(F-j+1) I */
            hdg_ir_expr *r = hdg_ir_for(k, "wr", F), *q = hdg_ir_for(k, "wq", F);
            hdg_ir_assign(k, hdg_ir_ld2(k, b->T, r, q), hdg_ir_num(k, 0));
            hdg_ir_expr *l = hdg_ir_for(k, "wl", F);
            hdg_ir_accum(k, hdg_ir_ld2(k, b->T, r, q),
                         hdg_ir_mul(k, hdg_ir_ld2(k, b->An, r, l), hdg_ir_ld2(k, b->M, l, q)));
            hdg_ir_end(k);
            hdg_ir_end(k);
            hdg_ir_end(k);
            hdg_ir_copy(k, b->M, b->T);
            hdg_ir_expr *d = hdg_ir_for(k, "wd", F);
            hdg_ir_accum(k, hdg_ir_ld2(k, b->M, d, d), ld(k, b->cp, F - j + 1));
            hdg_ir_end(k);
        }
        hdg_ir_assign(k, ld(k, b->s, 3), hdg_ir_num(k, 0));   /* tr(A M_j) */
        hdg_ir_expr *r = hdg_ir_for(k, "wt", F), *q = hdg_ir_for(k, "wu", F);
        hdg_ir_accum(k, ld(k, b->s, 3), hdg_ir_mul(k, hdg_ir_ld2(k, b->An, r, q), hdg_ir_ld2(k, b->M, q, r)));
        hdg_ir_end(k);
        hdg_ir_end(k);
        hdg_ir_assign(k, ld(k, b->cp, F - j), hdg_ir_mul(k, hdg_ir_num(k, -1.0 / j), ld(k, b->s, 3)));
    }
}

/* R = max_i sum_j |a_ij| into s[0]. */
static void row_norm(dgc *c, hdg_ir_kernel *k, const wsbuf *b)
{
    hdg_ir_assign(k, ld(k, b->s, 0), hdg_ir_num(k, 0));
    hdg_ir_expr *r = hdg_ir_for(k, "wn", c->F);
    hdg_ir_assign(k, ld(k, b->s, 3), hdg_ir_num(k, 0));
    hdg_ir_expr *q = hdg_ir_for(k, "wm", c->F);
    hdg_ir_accum(k, ld(k, b->s, 3), hdg_ir_call(k, HDG_FN_ABS, hdg_ir_ld2(k, b->An, r, q)));
    hdg_ir_end(k);
    hdg_ir_assign(k, ld(k, b->s, 0), hdg_ir_max(k, ld(k, b->s, 0), ld(k, b->s, 3)));
    hdg_ir_end(k);
}

/* The largest root of sgn_i cp[i] x^i (sgn_i = (-1)^(F-i) when flip: the
 * polynomial of -A) by Laguerre from x = R, into s[slot]; s[2] = 1 when a
 * discriminant was negative. */
static void laguerre(dgc *c, hdg_ir_kernel *k, const wsbuf *b, int flip, int slot)
{
    int F = c->F;
    double n = F;
    hdg_ir_assign(k, ld(k, b->s, 1), ld(k, b->s, 0));
    hdg_ir_for(k, "wit", LAGUERRE_STEPS);
    hdg_ir_expr *x = hdg_ir_let(k, "wx", ld(k, b->s, 1));
    hdg_ir_expr *pv = ld(k, b->cp, F), *d1 = hdg_ir_num(k, 0), *d2 = hdg_ir_num(k, 0);   /* d2 = p''/2 */
    for (int i = F - 1; i >= 0; i--) {
        hdg_ir_expr *ci = ld(k, b->cp, i);
        if (flip && (F - i) % 2) ci = hdg_ir_neg(k, ci);
        d2 = hdg_ir_let(k, "wd2", hdg_ir_add(k, hdg_ir_mul(k, d2, x), d1));
        d1 = hdg_ir_let(k, "wd1", hdg_ir_add(k, hdg_ir_mul(k, d1, x), pv));
        pv = hdg_ir_let(k, "wp", hdg_ir_add(k, hdg_ir_mul(k, pv, x), ci));
    }
    hdg_ir_expr *a = hdg_ir_mul(k, hdg_ir_num(k, (n - 1) * (n - 1)), hdg_ir_mul(k, d1, d1));
    hdg_ir_expr *bb = hdg_ir_mul(k, hdg_ir_num(k, 2 * n * (n - 1)), hdg_ir_mul(k, pv, d2));
    hdg_ir_expr *disc = hdg_ir_let(k, "wdisc", hdg_ir_sub(k, a, bb));
    hdg_ir_expr *tol = hdg_ir_mul(k, hdg_ir_num(k, -1e-12), hdg_ir_add(k, a, hdg_ir_call(k, HDG_FN_ABS, bb)));
    hdg_ir_expr *neg = hdg_ir_cmp(k, HDG_E_LT, disc, tol);
    hdg_ir_assign(k, ld(k, b->s, 2), hdg_ir_select(k, neg, hdg_ir_num(k, 1), ld(k, b->s, 2)));
    hdg_ir_expr *den = hdg_ir_let(k, "wden", hdg_ir_add(k, d1, hdg_ir_call(k, HDG_FN_SQRT,
                                                                         hdg_ir_max(k, disc, hdg_ir_num(k, 0)))));
    hdg_ir_expr *step = hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_GT, den, hdg_ir_num(k, 0)),
                                      hdg_ir_div(k, hdg_ir_mul(k, hdg_ir_num(k, n), pv), den), hdg_ir_num(k, 0));
    hdg_ir_assign(k, ld(k, b->s, 1), hdg_ir_sub(k, x, step));
    hdg_ir_end(k);
    hdg_ir_assign(k, ld(k, b->s, slot), ld(k, b->s, 1));
}

/* rho(An) (see the head of the file): s[4], s[5] the two roots, R the fallback; one field: |a_11|. */
static hdg_ir_expr *spectral_radius(dgc *c, hdg_ir_kernel *k, const wsbuf *b)
{
    int F = c->F;
    if (F == 1) return hdg_ir_call(k, HDG_FN_ABS, hdg_ir_ld2(k, b->An, hdg_ir_int(k, 0), hdg_ir_int(k, 0)));
    row_norm(c, k, b);
    leverrier(c, k, b);
    hdg_ir_assign(k, ld(k, b->s, 2), hdg_ir_num(k, 0));
    laguerre(c, k, b, 0, 4);
    laguerre(c, k, b, 1, 5);
    hdg_ir_expr *R = hdg_ir_let(k, "wR", ld(k, b->s, 0));
    hdg_ir_expr *rho = hdg_ir_let(k, "wrho", hdg_ir_min(k, R, hdg_ir_max(k, ld(k, b->s, 4), ld(k, b->s, 5))));
    /* tr(A^2) = c_(F-1)^2 - 2 c_(F-2): sqrt(|tr(A^2)| / F) <= rho for any spectrum */
    hdg_ir_expr *c1 = ld(k, b->cp, F - 1), *c2 = ld(k, b->cp, F - 2);
    hdg_ir_expr *t2 = hdg_ir_sub(k, hdg_ir_mul(k, c1, c1), hdg_ir_mul(k, hdg_ir_num(k, 2), c2));
    hdg_ir_expr *low = hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_div(k, hdg_ir_call(k, HDG_FN_ABS, t2), hdg_ir_num(k, F)));
    hdg_ir_expr *over = hdg_ir_cmp(k, HDG_E_GT, low, hdg_ir_mul(k, rho, hdg_ir_num(k, 1 + 1e-8)));
    hdg_ir_expr *bad = hdg_ir_cmp(k, HDG_E_OR, hdg_ir_cmp(k, HDG_E_NE, ld(k, b->s, 2), hdg_ir_num(k, 0)), over);
    return hdg_ir_select(k, bad, R, rho);
}

hdg_ir_expr *dg_wavespeed(dgc *c, hdg_ir_kernel *k, const xenv *v, hdg_ir_expr *const *uin,
                          hdg_ir_expr *const *uex)
{
    int F = c->F;
    wsbuf b = { hdg_ir_local(k, "wsA", HDG_IR_DOUBLE, HDG_SHAPE(F, F)),
                hdg_ir_local(k, "wsM", HDG_IR_DOUBLE, HDG_SHAPE(F, F)),
                hdg_ir_local(k, "wsT", HDG_IR_DOUBLE, HDG_SHAPE(F, F)),
                hdg_ir_local(k, "wsc", HDG_IR_DOUBLE, HDG_SHAPE(F + 1)),
                hdg_ir_local(k, "wss", HDG_IR_DOUBLE, HDG_SHAPE(6)) };
    hdg_ir_tensor *side = hdg_ir_local(k, "wsside", HDG_IR_DOUBLE, HDG_SHAPE(2));
    for (int s = 0; s < 2; s++) {   /* the interior state, then the exterior one in the interior's slots */
        xenv w = *v;
        w.st[0] = s ? uex : uin, w.st[1] = NULL, w.wavespeed = NULL;
        fill_an(c, k, &w, b.An);
        hdg_ir_assign(k, ld(k, side, s), spectral_radius(c, k, &b));
    }
    return hdg_ir_let(k, "wavespeed", hdg_ir_max(k, ld(k, side, 0), ld(k, side, 1)));
}
