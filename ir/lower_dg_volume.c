/* lower_dg_volume.c — explicit DG lowering: the volume part of the
 * right-hand side. */
#include "ir/lower_dg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- volume */

/* R = the volume part of the right-hand side (every row assigned). Strong
 * terms take reference derivatives only of the fields they differentiate,
 * D = [U Dr^T | U Ds^T (| U Dt^T)] in one product per element; weak terms
 * form W = c U at the nodes and take [W Sr^T | W Ss^T (| W St^T)]. Then one
 * pass over the nodes combines them with the geometric factors and the
 * coefficients. */

/* The direction l of a derivative operator (DX 0, DY 1, DZ 2). */
static int op_dir(int op) { return op == HDG_OP_DX ? 0 : op == HDG_OP_DY ? 1 : 2; }

/* dr_k/dx_l of the element, loaded once per kernel position. */
static void ginv_loads(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_expr *gv[3][3])
{
    for (int kk = 0; kk < c->dim; kk++)
        for (int l = 0; l < c->dim; l++) gv[kk][l] = dg_gi(k, G, hdg_dg_g_ginv(c->dim, kk, l));
}

/* sum_k dr_k/dx_l T[row][k Npp + i]: the physical derivative in direction l
 * from reference derivatives stored side by side. */
static hdg_ir_expr *phys_deriv(const dgc *c, hdg_ir_kernel *k, hdg_ir_expr *gv[3][3], int l, hdg_ir_tensor *T,
                               hdg_ir_expr *row, hdg_ir_expr *i)
{
    hdg_ir_expr *sum = NULL;
    for (int kk = 0; kk < c->dim; kk++) {
        hdg_ir_expr *ik = kk ? hdg_ir_add(k, i, hdg_ir_int(k, kk * c->Npp)) : i;
        sum = dg_add_term(k, sum, hdg_ir_mul(k, gv[kk][l], hdg_ir_ld2(k, T, row, ik)));
    }
    return sum;
}

/* The combined rows of count_volume: V = [sum_a c_a dr/dx_a U_a ; sum_a c_a
 * ds/dx_a U_a (; dt/dx_a)] (rows k ncomb + crow[r]) at the nodes, then Cc =
 * [V_r Dr^T ; V_s Ds^T (; V_t Dt^T)]; the row's strong part is the sum of
 * Cc[k ncomb + crow] over k. */
static hdg_ir_tensor *combined(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, const int *crow,
                               int ncomb)
{
    const hdg_problem *p = c->p;
    int dim = c->dim;
    hdg_ir_tensor *V = hdg_ir_local(k, "V", HDG_IR_DOUBLE, HDG_SHAPE(dim * ncomb, c->Npp));
    hdg_ir_tensor *Cc = hdg_ir_local(k, "Cc", HDG_IR_DOUBLE, HDG_SHAPE(dim * ncomb, c->Npp));
    hdg_ir_expr *j = hdg_ir_for(k, "j", c->Np), *sum[3 * HDG_DG_MAX_FIELDS] = {0};
    xenv v = dg_point_env(c, k, G, c->xn, j, NULL, hdg_ir_time(k));
    for (int e = 0; e < p->nequations; e++)
        for (int n = 0; n < p->equations[e].natoms; n++) {
            const hdg_atom *a = &p->equations[e].atoms[n];
            int r = dg_strong(c, a) ? dg_row_field(c, e, a) : -1;
            if (r < 0 || crow[r] < 0) continue;
            int l = op_dir(a->trial_op);
            hdg_ir_expr *cu = hdg_ir_mul(k, dg_lx(k, p, a->coef, &v), hdg_ir_ld2(k, U, hdg_ir_int(k, dg_atom_field(c, a)), j));
            for (int kk = 0; kk < dim; kk++)
                sum[kk * ncomb + crow[r]] = dg_add_term(k, sum[kk * ncomb + crow[r]],
                                                     hdg_ir_mul(k, dg_gi(k, G, hdg_dg_g_ginv(dim, kk, l)), cu));
        }
    for (int q = 0; q < dim * ncomb; q++) hdg_ir_assign(k, hdg_ir_ld2(k, V, hdg_ir_int(k, q), j), sum[q]);
    hdg_ir_end(k);
    int rr[HDG_DG_MAX_FIELDS];
    for (int kk = 0; kk < dim; kk++) {
        for (int q = 0; q < ncomb; q++) rr[q] = kk * ncomb + q;
        dg_product(k, Cc, rr, V, rr, ncomb, c->DT[kk], 0);
    }
    return Cc;
}

/* W = c U at the nodes for the weak-form terms (c U, dv/dx_l), then Wd =
 * [W Sr^T | W Ss^T (| W St^T)]. */
static hdg_ir_tensor *weak_part(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, int nweak,
                                hdg_ir_expr *t)
{
    const hdg_problem *p = c->p;
    hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(nweak, c->Npp));
    hdg_ir_tensor *Wd = hdg_ir_local(k, "Wd", HDG_IR_DOUBLE, HDG_SHAPE(nweak, c->dim * c->Npp));
    hdg_ir_expr *j = hdg_ir_for(k, "j", c->Np);
    xenv v = dg_point_env(c, k, G, c->xn, j, NULL, t);
    int w = 0, rows[HDG_DG_MAX_FIELDS * 8];
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->domain != HDG_VOLUME || a->role == HDG_ROLE_TIME || a->test_op == HDG_OP_VALUE) continue;
            hdg_ir_expr *val = dg_lx(k, p, a->coef, &v);
            if (a->trial >= 0) val = hdg_ir_mul(k, val, hdg_ir_ld2(k, U, hdg_ir_int(k, dg_atom_field(c, a)), j));
            hdg_ir_assign(k, hdg_ir_ld2(k, W, hdg_ir_int(k, w++), j), val);
        }
    hdg_ir_end(k);
    for (int w2 = 0; w2 < nweak; w2++) rows[w2] = w2;
    dg_product(k, Wd, rows, W, rows, nweak, c->SrsT, 0);
    return Wd;
}

void dg_build_volume(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *R)
{
    const hdg_problem *p = c->p;
    int F = c->F, Np = c->Np, Npp = c->Npp, nweak, deriv[HDG_DG_MAX_FIELDS], drow[HDG_DG_MAX_FIELDS], nd = 0;
    int rows[HDG_DG_MAX_FIELDS], fields[HDG_DG_MAX_FIELDS], comb[HDG_DG_MAX_FIELDS], crow[HDG_DG_MAX_FIELDS];
    int ncomb = 0;
    dg_count_volume(c, &nweak, deriv, comb);
    for (int f = 0; f < F; f++) drow[f] = deriv[f] ? nd++ : -1, crow[f] = comb[f] ? ncomb++ : -1;
    hdg_ir_tensor *D = NULL, *Wd = NULL, *Cc = ncomb ? combined(c, k, U, G, crow, ncomb) : NULL;
    hdg_ir_expr *t = hdg_ir_time(k);
    if (nd) {
        D = hdg_ir_local(k, "D", HDG_IR_DOUBLE, HDG_SHAPE(nd, c->dim * Npp));
        for (int f = 0; f < F; f++)
            if (deriv[f]) rows[drow[f]] = drow[f], fields[drow[f]] = f;
        dg_product(k, D, rows, U, fields, nd, c->DrsT, 0);
    }
    if (nweak) Wd = weak_part(c, k, U, G, nweak, t);
    hdg_ir_expr *i = hdg_ir_for(k, "i", Np);
    xenv v = dg_point_env(c, k, G, c->xn, i, NULL, t);
    hdg_ir_expr *gv[3][3];
    ginv_loads(c, k, G, gv);
    hdg_ir_expr *sum[HDG_DG_MAX_FIELDS] = {0};
    int w = 0;
    for (int e = 0; e < p->nequations; e++)
        for (int n = 0; n < p->equations[e].natoms; n++) {
            const hdg_atom *a = &p->equations[e].atoms[n];
            if (a->domain != HDG_VOLUME || a->role == HDG_ROLE_TIME) continue;
            int fr = dg_row_field(c, e, a), fu = dg_atom_field(c, a);
            if (dg_strong(c, a) && comb[fr]) continue;   /* in Cc */
            hdg_ir_expr *term;
            hdg_ir_set_origin(k, p->file, a->loc.line, a->loc.col, NULL);
            if (a->test_op != HDG_OP_VALUE) {
                term = phys_deriv(c, k, gv, op_dir(a->test_op), Wd, hdg_ir_int(k, w++), i);
            } else {
                term = dg_lx(k, p, a->coef, &v);
                if (fu >= 0) {
                    hdg_ir_expr *val;
                    if (a->trial_op == HDG_OP_VALUE) val = hdg_ir_ld2(k, U, hdg_ir_int(k, fu), i);
                    else val = phys_deriv(c, k, gv, op_dir(a->trial_op), D, hdg_ir_int(k, drow[fu]), i);
                    term = hdg_ir_mul(k, term, val);
                }
            }
            /* unknown terms move to the right-hand side */
            sum[fr] = fu >= 0 ? (sum[fr] ? hdg_ir_sub(k, sum[fr], term) : hdg_ir_neg(k, term)) : dg_add_term(k, sum[fr], term);
        }
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    for (int f = 0; f < F; f++) {
        if (!comb[f]) continue;   /* unknown terms move to the right-hand side */
        hdg_ir_expr *cc = NULL;
        for (int kk = 0; kk < c->dim; kk++)
            cc = dg_add_term(k, cc, hdg_ir_ld2(k, Cc, hdg_ir_int(k, kk * ncomb + crow[f]), i));
        sum[f] = sum[f] ? hdg_ir_sub(k, sum[f], cc) : hdg_ir_neg(k, cc);
    }
    for (int f = 0; f < F; f++)
        hdg_ir_assign(k, hdg_ir_ld2(k, R, hdg_ir_int(k, f), i), sum[f] ? sum[f] : hdg_ir_num(k, 0));
    hdg_ir_end(k);
    if (Npp > Np) {   /* the padding of R, which the lift runs over */
        hdg_ir_expr *f = hdg_ir_for(k, "f", F), *ip = hdg_ir_for(k, "i", Npp - Np);
        hdg_ir_assign(k, hdg_ir_ld2(k, R, f, hdg_ir_add(k, ip, hdg_ir_int(k, Np))), hdg_ir_num(k, 0));
        hdg_ir_end(k);
        hdg_ir_end(k);
    }
}

