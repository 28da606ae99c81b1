/* lower_hdg_kernels.c — the HDG kernels built from the local system: local
 * (K_e, F_e by static condensation), recover, rhs and initial (transient), errors,
 * and the Dirichlet projections (lower.h lists them; lower_hdg_internal.h). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

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
blocks hdg_lh_system_blocks(hdg_ir_kernel *k, const hdg_lowered *L, int trace_rows)
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

void hdg_lh_local_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->local, sizeof L->local, "%s_local", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->local, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    if (L->nonlinear) hdg_lh_state_inputs(c, k, g);   /* in[0], in[1]: Newton's state */
    if (L->nonlinear && L->transient) c->hist = hdg_lh_hist_input(c, k);   /* in[2]: F_e with the history */
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
        hdg_lh_emit_system(c, k, g, &bk);
        hdg_lh_elim_origin(c, k, &P);
        S = hdg_lh_elim_emit(c, k, g, &P, M, nt, nt + 1, Wg);
    } else {
        blocks bk = hdg_lh_system_blocks(k, L, 1);
        hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(L->nl));
        hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(L->nl, L->nt + 1));
        hdg_lh_emit_system(c, k, g, &bk);
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
    hdg_lh_state_done(c);
    c->hist = NULL;
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
void hdg_lh_solve_local(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *r)
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
hdg_ir_tensor *hdg_lh_hist_input(lower *c, hdg_ir_kernel *k)
{
    return hdg_ir_input(k, "hist", HDG_SHAPE(c->L->nl),
                        "time scheme history h (modal): (c dt(u), w) = sigma c (u, w) - c (h, w)");
}

void hdg_lh_recover_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->recover, sizeof L->recover, "%s_recover", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->recover, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_ir_tensor *uh = hdg_ir_input(k, "uhat", HDG_SHAPE(L->nt),
                                     "trace dofs of the element's faces, element orientation");
    c->hist = L->transient ? hdg_lh_hist_input(c, k) : NULL;
    if (L->nonlinear) {   /* Newton's state after uhat (and hist) */
        L->recover_state = c->hist ? 2 : 1;
        hdg_lh_state_inputs(c, k, g);
    }
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
        hdg_lh_emit_system(c, k, g, &bk);
        c->hist = NULL, c->uhat = NULL;
        elim_solve(c, k, &P, M, x);
        hdg_ir_set_origin(k, NULL, 0, 0, NULL);
        hdg_lh_state_done(c);
        return;
    }
    blocks bk = hdg_lh_system_blocks(k, L, 0);   /* B's trace columns stay unused (r = F - B uhat in its last) */
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    c->uhat = uh;
    hdg_lh_emit_system(c, k, g, &bk);
    c->hist = NULL, c->uhat = NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nl);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_ld2(k, bk.B, i, I(k, L->nt)));
    hdg_ir_end(k);
    hdg_lh_solve_local(c, k, bk.A, r);
    hdg_ir_copy(k, x, r);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    hdg_lh_state_done(c);
}

/* Transient HDG, every step: the element trace load F_e = F_t - C A^-1 F_l
 * at the step's time and history, K_e being unchanged (assembled once). */
void hdg_lh_rhs_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->rhs, sizeof L->rhs, "%s_rhs", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->rhs, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    c->hist = hdg_lh_hist_input(c, k);
    hdg_ir_tensor *Fe = hdg_ir_output(k, "Fe", HDG_SHAPE(L->nt), "element trace load F_e");
    blocks bk = hdg_lh_system_blocks(k, L, 1);
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    c->rhs_only = 1;
    hdg_lh_emit_system(c, k, g, &bk);
    c->rhs_only = 0, c->hist = NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->nl);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i), hdg_ir_ld2(k, bk.B, i, I(k, L->nt)));
    hdg_ir_end(k);
    hdg_lh_solve_local(c, k, bk.A, r);
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
hdg_status hdg_lh_initial_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->initial, sizeof L->initial, "%s_initial", c->m->name);
    int nq;
    hdg_ir_tensor *w, *lam, *P;
    hdg_status st = hdg_lh_volume_tables(c, 2 * c->k + 6, "ini", &nq, &w, &lam, &P, NULL, c->k);
    if (st) return st;
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->initial, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_output(k, "x0", HDG_SHAPE(L->nl), "initial element dofs (modal; 0 where no dt())");
    hdg_ir_tensor *acc = hdg_ir_local(k, "acc", HDG_IR_DOUBLE, HDG_SHAPE(L->nl));
    hdg_ir_fill(k, acc, hdg_ir_num(k, 0));
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *q = hdg_lh_open_points(k, g, c->dim, lam, nq, &env);
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
hdg_status hdg_lh_errors_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->errors, sizeof L->errors, "%s_errors", c->m->name);
    int nq, kp = c->k;
    for (int i = 0; i < L->npost; i++) kp = L->pdeg[i] > kp ? L->pdeg[i] : kp;
    hdg_ir_tensor *w, *lam, *P, *Pp[HDG_MAX_POST] = {NULL};
    hdg_status st = hdg_lh_volume_tables(c, 2 * kp + 6, "err", &nq, &w, &lam, &P, NULL, c->k);
    if (st) return st;
    for (int i = 0; i < L->npost; i++) {   /* each post unknown's basis on the same rule */
        hdg_ir_tensor *w2, *lam2;
        st = hdg_lh_volume_tables(c, 2 * kp + 6, "errp", &nq, &w2, &lam2, &Pp[i], NULL, L->pdeg[i]);
        if (st) return st;
    }
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->errors, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
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
        hdg_ir_expr *q0 = hdg_lh_open_points(k, g, c->dim, lam, nq, &env), *ex[64];   /* err_unknown[64] */
        int calls = 0;
        for (int t = 0; t < L->nerr; t++) {
            ex[t] = hdg_lower_expr(k, &env, unk(c, L->err_unknown[t])->exact[L->err_comp[t]]);
            calls |= hdg_lh_calls_function(ex[t]);
        }
        if (calls) {
            exq = hdg_ir_local(k, "exq", HDG_IR_DOUBLE, HDG_SHAPE(L->nerr, nq));
            for (int t = 0; t < L->nerr; t++)
                hdg_ir_assign(k, hdg_ir_ld2(k, exq, I(k, t), q0), ex[t] ? ex[t] : hdg_ir_num(k, 0));
        }
        hdg_ir_end(k);   /* without calls the loop holds only lets, which DCE removes */
    }
    hdg_ir_expr *q = hdg_lh_open_points(k, g, c->dim, lam, nq, &env);
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
hdg_status hdg_lh_dirichlet_kernel(lower *c, int ib, int bc)
{
    hdg_lowered *L = c->L;
    const hdg_bc *b = &c->p->bcs[bc];
    const hdg_unknown *u = unk(c, b->unknown);
    snprintf(L->dirichlet[ib], sizeof L->dirichlet[ib], "%s_dirichlet_%d", c->m->name, ib);
    int n, nk = c->nk, dim = c->dim;
    double *xf[2] = {NULL, NULL}, *w = NULL;
    hdg_status st = hdg_lh_face_rule(c, 2 * c->k + 7, &n, xf, &w);
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
