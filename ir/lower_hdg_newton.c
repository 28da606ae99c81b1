/* lower_hdg_newton.c — what the HDG lowering adds for nonlinear problems (Newton,
 * issue 41; lower.h says what the kernels compute and docs/ir.md the slots).
 *
 * Write the residual R(s) = L s + N(s) - f (L the linear atoms, N the residual
 * terms of the equations, hdg_residual, f the sources). Newton's next iterate s'
 * solves J(s) s' = f + N'(s) s - N(s), J = L + N'(s): the ordinary local system
 * whose matrix atoms are the linear atoms plus every residual's Jacobian atoms
 * (their coefficients read the state) and whose source gains, per residual,
 * integral((sum_j jac_j.coef STATE_j - coef) test). So the local (condensing)
 * and recovery kernels give s' once they read the state (inputs state_l, state_t),
 * and the residual kernel is R = J(s) s - F(s) with the same blocks.
 *
 * The state at the quadrature points: every state leaf the residuals read
 * (unknown, component, value or d/dx_d) is evaluated once per kernel at every
 * volume point and every face point (sv, sf), element unknowns from their modal
 * dofs with the element basis (and Ginv), trace unknowns from the face's trace
 * dofs with the face basis, in the element's orientation (as uhat).
 *
 * Quadrature: the residuals' coefficients are polynomials of degree s in the
 * state (or not polynomials at all: exp, sin, division by the state), so an
 * integrand of a residual or of its Jacobian atoms has degree up to (s + 1) k
 * with data of modest degree on top. Nonlinear problems raise the degree of the
 * volume rule (2k+4) and of the face rule (2k+5) by (s - 1) k for a polynomial
 * of degree s >= 1 in the state, and by 2k + 3 where a coefficient is not a
 * polynomial in the state (docs/language.md, "Nonlinear terms"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "support/util.h"

/* ---------------------------------------------------------------- leaves */

#define NONPOLY (-1)

/* The polynomial degree of e in the state leaves (NONPOLY: not a polynomial in
 * them); vdeg[v]: the degree of the coordinate v (a func's argument bound to an
 * expression of the state). */
static int state_degree(const hdg_problem *p, const hdg_expr *e, const int *vdeg)
{
    int a = e->nkids > 0 ? state_degree(p, e->kid[0], vdeg) : 0;
    int b = e->nkids > 1 && e->kind != HDG_EX_CALL ? state_degree(p, e->kid[1], vdeg) : 0;
    int np = a == NONPOLY || b == NONPOLY;
    switch (e->kind) {
    case HDG_EX_STATE: return 1;
    case HDG_EX_COORD: return vdeg ? vdeg[e->index] : 0;
    case HDG_EX_NEG: return a;
    case HDG_EX_ADD: case HDG_EX_SUB: return np ? NONPOLY : a > b ? a : b;
    case HDG_EX_MUL: return np ? NONPOLY : a + b;
    case HDG_EX_DIV: return np || b ? NONPOLY : a;
    case HDG_EX_POW: {
        if (np || b) return NONPOLY;
        const hdg_expr *x = e->kid[1];
        if (!a) return 0;
        if (x->kind != HDG_EX_NUM || x->num < 0 || x->num != floor(x->num) || x->num > 16) return NONPOLY;
        return a * (int)x->num;
    }
    case HDG_EX_CALL: {
        const hdg_func *f = &p->funcs[e->index];
        int d[HDG_NVARS] = {0}, any = 0;
        for (int i = 0; i < e->nkids && i < f->nargs; i++) {
            d[f->args[i]] = state_degree(p, e->kid[i], vdeg);
            if (d[f->args[i]] == NONPOLY) return NONPOLY;
            any |= d[f->args[i]] != 0;
        }
        return any ? state_degree(p, f->body[e->comp], d) : 0;
    }
    case HDG_EX_BUILTIN: return a ? NONPOLY : 0;
    case HDG_EX_CMP: case HDG_EX_IF: {
        int m = a;
        for (int i = 1; i < e->nkids; i++) {
            int x = state_degree(p, e->kid[i], vdeg);
            if (x == NONPOLY) return NONPOLY;
            m = x > m ? x : m;
        }
        return e->kind == HDG_EX_CMP ? (m ? NONPOLY : 0) : (a ? NONPOLY : m);
    }
    default: return 0;
    }
}

static void add_leaf(lower *c, int u, int comp, int op)
{
    for (int i = 0; i < c->ns; i++)
        if (c->sl_u[i] == u && c->sl_c[i] == comp && c->sl_op[i] == op) return;
    if (c->ns < 64) c->sl_u[c->ns] = u, c->sl_c[c->ns] = comp, c->sl_op[c->ns++] = op;
}

static void collect(lower *c, const hdg_expr *e)
{
    if (e->kind == HDG_EX_STATE) add_leaf(c, e->index, e->comp, e->op);
    for (int i = 0; i < e->nkids; i++) collect(c, e->kid[i]);
}

hdg_status hdg_lh_state_leaves(lower *c)
{
    const hdg_problem *p = c->p;
    int smax = 1, nonpoly = 0;
    c->ns = 0;
    for (int e = 0; e < p->nequations; e++)
        for (int r = 0; r < p->equations[e].nresiduals; r++) {
            const hdg_residual *res = &p->equations[e].residuals[r];
            collect(c, res->coef);
            for (int j = 0; j < res->njac; j++) {
                const hdg_atom *a = &res->jac[j];
                collect(c, a->coef);
                add_leaf(c, a->trial, a->trial_comp, a->trial_op);
            }
            int d = state_degree(p, res->coef, NULL);
            if (d == NONPOLY) nonpoly = 1;
            else smax = d > smax ? d : smax;
        }
    if (c->ns >= 64)
        return hdg_fail(c->err, HDG_EINPUT, "%s: the nonlinear terms read more than 63 values of the unknowns",
                        p->file);
    for (int i = 0; i < c->ns; i++) {
        const hdg_unknown *u = unk(c, c->sl_u[i]);
        if (u->trace && c->sl_op[i] != HDG_OP_VALUE)
            return hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: a derivative of the trace unknown '%s' in a nonlinear "
                            "term: only its value lives on the faces", p->file, u->loc.line, u->loc.col, u->name);
    }
    c->qextra = (smax - 1) * c->k;
    if (nonpoly && 2 * c->k + 3 > c->qextra) c->qextra = 2 * c->k + 3;
    return HDG_OK;
}

/* ---------------------------------------------------------------- the state */

static hdg_ir_expr *state_hook(void *ctx, hdg_ir_kernel *k, int u, int comp, int op, int side)
{
    lower *c = ctx;
    (void)side;
    int s = -1;
    for (int i = 0; i < c->ns; i++)
        if (c->sl_u[i] == u && c->sl_c[i] == comp && c->sl_op[i] == op) s = i;
    if (s < 0 || !c->sq) return NULL;
    if (c->sface) return hdg_ir_ld3(k, c->sf, I(k, s), c->sface, c->sq);
    if (unk(c, u)->trace) return NULL;   /* a trace unknown inside the element */
    return hdg_ir_ld2(k, c->sv, I(k, s), c->sq);
}

void hdg_lh_env_state(lower *c, hdg_lower_env *env)
{
    if (!c->sv) return;
    env->state = state_hook;
    env->state_ctx = c;
}

/* dst (an ld of the point's entry) = sum_i x_i phi_i for leaf s at point q (of face f, or the volume). */
static void leaf_value(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, int s, hdg_ir_expr *dst, hdg_ir_expr *f,
                       hdg_ir_expr *q)
{
    const hdg_unknown *u = unk(c, c->sl_u[s]);
    hdg_lowered *L = c->L;
    hdg_ir_assign(k, dst, hdg_ir_num(k, 0));
    if (u->trace) {
        hdg_ir_expr *a = hdg_ir_for(k, "a", c->nk);
        hdg_ir_expr *at = hdg_ir_add(k, hdg_ir_mul(k, f, I(k, L->m)),
                                     hdg_ir_add(k, I(k, L->toff[c->sl_u[s]] + c->sl_c[s] * c->nk), a));
        hdg_ir_accum(k, dst, hdg_ir_mul(k, hdg_ir_ld1(k, c->state_t, at), hdg_ir_ld2(k, c->fL, q, a)));
        hdg_ir_end(k);
        return;
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", c->np);
    hdg_ir_expr *at = hdg_ir_add(k, I(k, L->uoff[c->sl_u[s]] + c->sl_c[s] * c->np), i);
    hdg_ir_accum(k, dst, hdg_ir_mul(k, hdg_ir_ld1(k, c->state_l, at),
                                    hdg_lh_elem_basis(c, k, g, (hdg_op)c->sl_op[s], f, q, i)));
    hdg_ir_end(k);
}

void hdg_lh_state_inputs(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g)
{
    hdg_lowered *L = c->L;
    c->state_l = hdg_ir_input(k, "state_l", HDG_SHAPE(L->nl), "Newton: the state's element dofs (modal)");
    c->state_t = hdg_ir_input(k, "state_t", HDG_SHAPE(L->nt),
                              "Newton: the state's trace dofs of the element's faces, element orientation");
    int ns = c->ns > 0 ? c->ns : 1;
    c->sv = hdg_ir_local(k, "sv", HDG_IR_DOUBLE, HDG_SHAPE(ns, c->nvq));
    c->sf = hdg_ir_local(k, "sf", HDG_IR_DOUBLE, HDG_SHAPE(ns, c->nfe, c->nfq));
    hdg_ir_set_origin(k, c->p->file, 0, 0, "Newton: the state at the quadrature points");
    hdg_ir_expr *q = hdg_ir_for(k, "q", c->nvq);
    for (int s = 0; s < c->ns; s++)
        if (!unk(c, c->sl_u[s])->trace) leaf_value(c, k, g, s, hdg_ir_ld2(k, c->sv, I(k, s), q), NULL, q);
    hdg_ir_end(k);
    hdg_ir_expr *f = hdg_ir_for(k, "f", c->nfe);
    q = hdg_ir_for(k, "q", c->nfq);
    for (int s = 0; s < c->ns; s++) leaf_value(c, k, g, s, hdg_ir_ld3(k, c->sf, I(k, s), f, q), f, q);
    hdg_ir_end(k), hdg_ir_end(k);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
}

/* Newton's source coefficient of a residual: sum_j jac_j.coef STATE_j - coef. */
hdg_ir_expr *hdg_lh_residual_coef(lower *c, hdg_ir_kernel *k, hdg_lower_env *env, const hdg_residual *r)
{
    hdg_ir_expr *v = hdg_lower_expr(k, env, r->coef);
    v = hdg_ir_neg(k, v ? v : hdg_ir_num(k, 0));
    for (int j = 0; j < r->njac; j++) {
        const hdg_atom *a = &r->jac[j];
        hdg_ir_expr *cj = hdg_lower_expr(k, env, a->coef);
        hdg_ir_expr *sj = state_hook(c, k, a->trial, a->trial_comp, a->trial_op, a->side);
        if (!cj || !sj) continue;   /* the builder error is reported by verify */
        v = hdg_ir_add(k, v, hdg_ir_mul(k, cj, sj));
    }
    return v;
}

void hdg_lh_state_done(lower *c)
{
    c->state_l = c->state_t = c->sv = c->sf = NULL;
    c->sq = c->sface = NULL;
}

/* ---------------------------------------------------------------- residual */

/* <name>_residual: R = J(s) s - F(s) per element, from the blocks of the local
 * system at the state: R_l = A s_l + B s_t - F_l, R_t = C s_l + D s_t - F_t (the
 * element's share of the trace residual, element orientation); and the sums of
 * the absolute values of the terms (M_l, M_t), whose norm scales the roundoff
 * floor of |R| (drivers/run_hdg_newton.c). */
void hdg_lh_residual_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->residual, sizeof L->residual, "%s_residual", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->residual, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_lh_state_inputs(c, k, g);
    if (L->transient) c->hist = hdg_lh_hist_input(c, k);   /* in[2]: the time scheme's history */
    hdg_ir_tensor *out[4] = {
        hdg_ir_output(k, "R_l", HDG_SHAPE(L->nl), "Newton residual, element rows"),
        hdg_ir_output(k, "R_t", HDG_SHAPE(L->nt), "Newton residual, the element's share of the trace rows"),
        hdg_ir_output(k, "M_l", HDG_SHAPE(L->nl), "sum of |terms| of R_l"),
        hdg_ir_output(k, "M_t", HDG_SHAPE(L->nt), "sum of |terms| of R_t")};
    blocks bk = hdg_lh_system_blocks(k, L, 1);
    hdg_lh_emit_system(c, k, g, &bk);
    hdg_ir_set_origin(k, c->p->file, 0, 0, "Newton residual R = J(s) s - F(s)");
    for (int t = 0; t < 2; t++) {
        int n = t ? L->nt : L->nl;
        hdg_ir_tensor *X = t ? bk.C : bk.A, *Y = t ? bk.D : bk.B;
        hdg_ir_tensor *r = hdg_ir_local(k, t ? "rt" : "rl", HDG_IR_DOUBLE, HDG_SHAPE(n));
        hdg_ir_tensor *m = hdg_ir_local(k, t ? "mt" : "ml", HDG_IR_DOUBLE, HDG_SHAPE(n));
        hdg_ir_expr *i = hdg_ir_for(k, "i", n);
        hdg_ir_expr *f = hdg_ir_ld2(k, Y, i, I(k, L->nt));
        hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_neg(k, f));
        hdg_ir_assign(k, hdg_ir_ld1(k, m, i), hdg_ir_call(k, HDG_FN_ABS, f));
        for (int b = 0; b < 2; b++) {
            hdg_ir_expr *j = hdg_ir_for(k, "j", b ? L->nt : L->nl);
            hdg_ir_expr *v = hdg_ir_let(k, "v", hdg_ir_mul(k, hdg_ir_ld2(k, b ? Y : X, i, j),
                                                            hdg_ir_ld1(k, b ? c->state_t : c->state_l, j)));
            hdg_ir_accum(k, hdg_ir_ld1(k, r, i), v);
            hdg_ir_accum(k, hdg_ir_ld1(k, m, i), hdg_ir_call(k, HDG_FN_ABS, v));
            hdg_ir_end(k);
        }
        hdg_ir_end(k);
        hdg_ir_copy(k, out[t], r);
        hdg_ir_copy(k, out[2 + t], m);
    }
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    hdg_lh_state_done(c);
    c->hist = NULL;
}

/* ---------------------------------------------------------------- J^-1 b */

/* The exact inverse of Newton's Jacobian J(s) on any b = (b_l, b_t) (the preconditioner of
 * Newton through PETSc's SNES, drivers/run_hdg_snes.c): the element rows A y_l + B y_t = b_l,
 * the assembled trace rows sum_e (C y_l + D y_t) = b_t give K y_t = b_t - sum_e C A^-1 b_l with
 * the local kernel's K_e at s, then y_l = A^-1 (b_l - B y_t). The two kernels build A, B, C at s
 * as the local and recover kernels do, with the sources left out (c->no_source) and b_l in the
 * source column instead. Only nonlinear problems have them, after every other kernel. */
static hdg_ir_tensor *jinv_load(lower *c, hdg_ir_kernel *k)
{
    return hdg_ir_input(k, "b_l", HDG_SHAPE(c->L->nl), "J^-1 b: the element rows' load b_l (modal)");
}

static void jinv_local_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->jinv_local, sizeof L->jinv_local, "%s_jinv_local", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->jinv_local, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_lh_state_inputs(c, k, g);   /* in[0], in[1] */
    hdg_ir_tensor *b = jinv_load(c, k);   /* in[2] */
    hdg_ir_tensor *Fe = hdg_ir_output(k, "Fe", HDG_SHAPE(L->nt), "-C A^-1 b_l: the element's share of the load");
    blocks bk = hdg_lh_system_blocks(k, L, 1);
    c->rhs_only = 1, c->no_source = 1;   /* A and C only */
    hdg_lh_emit_system(c, k, g, &bk);
    c->rhs_only = 0, c->no_source = 0;
    hdg_ir_set_origin(k, c->p->file, 0, 0, "J^-1 b: -C A^-1 b_l");
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nl);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_ld1(k, b, i));
    hdg_ir_end(k);
    hdg_lh_solve_local(c, k, bk.A, r);
    i = hdg_ir_for(k, "i", L->nt);
    hdg_ir_assign(k, hdg_ir_ld1(k, Fe, i), hdg_ir_num(k, 0));
    hdg_ir_expr *j = hdg_ir_for(k, "j", L->nl);
    hdg_ir_accum(k, hdg_ir_ld1(k, Fe, i), hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld2(k, bk.C, i, j), hdg_ir_ld1(k, r, j))));
    hdg_ir_end(k), hdg_ir_end(k);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    hdg_lh_state_done(c);
}

static void jinv_recover_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->jinv_recover, sizeof L->jinv_recover, "%s_jinv_recover", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->jinv_recover, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_ir_tensor *uh = hdg_ir_input(k, "uhat", HDG_SHAPE(L->nt),
                                     "J^-1 b: the trace part y_t of the element's faces, element orientation");
    hdg_lh_state_inputs(c, k, g);   /* in[1], in[2] */
    hdg_ir_tensor *b = jinv_load(c, k);   /* in[3] */
    hdg_ir_tensor *x = hdg_ir_output(k, "x", HDG_SHAPE(L->nl), "J^-1 b: the element part y_l (modal)");
    blocks bk = hdg_lh_system_blocks(k, L, 0);   /* the source column gets -B uhat */
    c->uhat = uh, c->no_source = 1;
    hdg_lh_emit_system(c, k, g, &bk);
    c->uhat = NULL, c->no_source = 0;
    hdg_ir_set_origin(k, c->p->file, 0, 0, "J^-1 b: A^-1 (b_l - B y_t)");
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nl);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_add(k, hdg_ir_ld1(k, b, i), hdg_ir_ld2(k, bk.B, i, I(k, L->nt))));
    hdg_ir_end(k);
    hdg_lh_solve_local(c, k, bk.A, r);
    hdg_ir_copy(k, x, r);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    hdg_lh_state_done(c);
}

void hdg_lh_jinv_kernels(lower *c)
{
    jinv_local_kernel(c);
    jinv_recover_kernel(c);
}
