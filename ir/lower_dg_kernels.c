/* lower_dg_kernels.c — explicit DG lowering: the kernels (right-hand side,
 * LSERK4 stage, update, initial condition, energy, errors). */
#include "ir/lower_dg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- kernels */

static const char *kernel_name(hdg_ir_kernel *k, char *dst) { snprintf(dst, 64, "%s", k->name); return dst; }

void dg_build_rhs(dgc *c, const char *suffix, rhs_kind kind, char *name_out)
{
    const hdg_problem *p = c->p;
    char name[128];
    snprintf(name, sizeof name, "%s_%s", p->name, suffix);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    int F = c->F, Np = c->Np, vol = kind != RHS_SURFACE, surf = kind != RHS_VOLUME;
    hdg_ir_tensor *U = hdg_ir_input(k, "U", HDG_SHAPE(F, Np), "state: fields x nodes");
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom),
                                   c->dim == 2 ? "vertices, J, rx ry sx sy, (nx ny Fscale) x 3"
                                               : "vertices, J, dr_k/dx_l, (nx ny nz Fscale) x 4");
    hdg_ir_tensor *M = surf ? hdg_ir_imap(k, "fmap", c->L->nimap, "neighbour, its local face, bc, marker flags")
                            : NULL;
    hdg_ir_tensor *out, *res = NULL;
    if (kind == RHS_STEP) {
        out = hdg_ir_output(k, "Unew", HDG_SHAPE(F, Np), "state after the stage: U + b res");
        res = hdg_ir_output(k, "res", HDG_SHAPE(F, Np), "LSERK4 residual, updated in place: a res + dt rhs");
    } else {
        out = hdg_ir_output(k, "rhs", HDG_SHAPE(F, Np), "dU/dt: fields x nodes");
    }
    hdg_ir_tensor *R = hdg_ir_local(k, "R", HDG_IR_DOUBLE, HDG_SHAPE(F, c->Npp));
    if (vol) dg_build_volume(c, k, U, G, R);
    else hdg_ir_fill(k, R, hdg_ir_num(k, 0));
    if (vol && c->nonlinear) dg_build_volume_nl(c, k, U, G, R);
    if (surf) dg_build_surface(c, k, U, G, M, R);
    if (surf && c->nonlinear) dg_build_surface_nl(c, k, U, G, M, R);
    hdg_ir_expr *ra = NULL, *rb = NULL, *dt = NULL;
    if (kind == RHS_STEP) {
        ra = hdg_ir_param(k, c->L->p_rka, "rk_a");
        rb = hdg_ir_param(k, c->L->p_rkb, "rk_b");
        dt = hdg_ir_param(k, c->L->p_dt, "dt");
    }
    for (int f = 0; f < F; f++) {   /* one loop per field: one contiguous stream per tensor */
        hdg_ir_expr *fi = hdg_ir_int(k, f), *i = hdg_ir_for(k, "i", Np), *val = hdg_ir_ld2(k, R, fi, i);
        if (!hdg_expr_is_num(c->tatom[f]->coef, 1.0)) {
            xenv v = dg_point_env(c, k, G, c->xn, i, NULL, hdg_ir_time(k));
            val = hdg_ir_div(k, val, dg_lx(k, p, c->tatom[f]->coef, &v));
        }
        if (kind == RHS_STEP) {   /* res = a res + dt rhs; U + b res, as the update kernel does */
            hdg_ir_expr *r = hdg_ir_let(k, "r", hdg_ir_add(k, hdg_ir_mul(k, ra, hdg_ir_ld2(k, res, fi, i)),
                                                           hdg_ir_mul(k, dt, val)));
            hdg_ir_assign(k, hdg_ir_ld2(k, res, fi, i), r);
            hdg_ir_assign(k, hdg_ir_ld2(k, out, fi, i), hdg_ir_add(k, hdg_ir_ld2(k, U, fi, i), hdg_ir_mul(k, rb, r)));
        } else if (vol) {
            hdg_ir_assign(k, hdg_ir_ld2(k, out, fi, i), val);
        } else {
            hdg_ir_accum(k, hdg_ir_ld2(k, out, fi, i), val);
        }
        hdg_ir_end(k);
    }
    kernel_name(k, name_out);
}

void dg_build_update(dgc *c)
{
    char name[128];
    snprintf(name, sizeof name, "%s_update", c->p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    int n = c->F * c->Np;
    hdg_ir_tensor *rhs = hdg_ir_input(k, "rhs", HDG_SHAPE(n), "dU/dt");
    hdg_ir_tensor *U = hdg_ir_output(k, "U", HDG_SHAPE(n), "state, updated in place");
    hdg_ir_tensor *res = hdg_ir_output(k, "res", HDG_SHAPE(n), "LSERK4 residual, updated in place");
    hdg_ir_expr *a = hdg_ir_param(k, c->L->p_rka, "rk_a"), *b = hdg_ir_param(k, c->L->p_rkb, "rk_b");
    hdg_ir_expr *dt = hdg_ir_param(k, c->L->p_dt, "dt");
    hdg_ir_expr *i = hdg_ir_for(k, "i", n);
    hdg_ir_expr *r = hdg_ir_let(k, "r", hdg_ir_add(k, hdg_ir_mul(k, a, hdg_ir_ld1(k, res, i)),
                                                   hdg_ir_mul(k, dt, hdg_ir_ld1(k, rhs, i))));
    hdg_ir_assign(k, hdg_ir_ld1(k, res, i), r);
    hdg_ir_accum(k, hdg_ir_ld1(k, U, i), hdg_ir_mul(k, b, r));
    hdg_ir_end(k);
    kernel_name(k, c->L->update);
}

void dg_build_initial(dgc *c)
{
    const hdg_problem *p = c->p;
    char name[128];
    snprintf(name, sizeof name, "%s_initial", p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom), "element geometry");
    hdg_ir_tensor *U = hdg_ir_output(k, "U", HDG_SHAPE(c->F, c->Np), "initial state");
    hdg_ir_expr *i = hdg_ir_for(k, "i", c->Np);
    xenv v = dg_point_env(c, k, G, c->xn, i, NULL, hdg_ir_time(k));
    for (int f = 0; f < c->F; f++) {
        const hdg_expr *e = p->unknowns[c->L->field_unknown[f]].initial[c->L->field_comp[f]];
        hdg_ir_assign(k, hdg_ir_ld2(k, U, hdg_ir_int(k, f), i), e ? dg_lx(k, p, e, &v) : hdg_ir_num(k, 0));
    }
    hdg_ir_end(k);
    kernel_name(k, c->L->initial);
}

/* Per element E = 1/2 J sum_f U_f^T M U_f (the discrete energy, exact for
 * the nodal polynomials): M U for all fields in one product, then the dots. */
void dg_build_energy(dgc *c)
{
    char name[128];
    snprintf(name, sizeof name, "%s_energy", c->p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    int F = c->F, rows[HDG_DG_MAX_FIELDS];
    hdg_ir_tensor *U = hdg_ir_input(k, "U", HDG_SHAPE(F, c->Np), "state");
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom), "element geometry");
    hdg_ir_tensor *E = hdg_ir_output(k, "E", HDG_SHAPE(1), "1/2 int sum_f U_f^2");
    hdg_ir_tensor *MU = hdg_ir_local(k, "MU", HDG_IR_DOUBLE, HDG_SHAPE(F, c->Npp));
    hdg_ir_tensor *S = hdg_ir_local(k, "S", HDG_IR_DOUBLE, HDG_SHAPE(1));
    for (int f = 0; f < F; f++) rows[f] = f;
    dg_product(k, MU, rows, U, rows, F, c->MT, 0);
    hdg_ir_expr *s0 = hdg_ir_ld1(k, S, hdg_ir_int(k, 0));
    hdg_ir_assign(k, s0, hdg_ir_num(k, 0));
    hdg_ir_expr *i = hdg_ir_for(k, "i", c->Np);
    for (int f = 0; f < F; f++) {
        hdg_ir_expr *fi = hdg_ir_int(k, f);
        hdg_ir_accum(k, s0, hdg_ir_mul(k, hdg_ir_ld2(k, U, fi, i), hdg_ir_ld2(k, MU, fi, i)));
    }
    hdg_ir_end(k);
    hdg_ir_assign(k, hdg_ir_ld1(k, E, hdg_ir_int(k, 0)),
                  hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_num(k, 0.5), dg_gi(k, G, hdg_dg_g_j(c->dim))), s0));
    kernel_name(k, c->L->energy);
}

void dg_build_errors(dgc *c)
{
    const hdg_problem *p = c->p;
    hdg_dg_lowered *L = c->L;
    char name[128];
    snprintf(name, sizeof name, "%s_errors", p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(L->mod, name, HDG_KITEM_ELEMENT);
    int F = c->F, nout = 2 * L->nerr + F;
    hdg_ir_tensor *U = hdg_ir_input(k, "U", HDG_SHAPE(F, c->Np), "state");
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom), "element geometry");
    hdg_ir_tensor *E = hdg_ir_output(k, "E", HDG_SHAPE(nout), "squared errors, int U_f^2, int exact^2");
    hdg_ir_tensor *Uq = hdg_ir_local(k, "Uq", HDG_IR_DOUBLE, HDG_SHAPE(F, c->nq));
    hdg_ir_tensor *El = hdg_ir_local(k, "El", HDG_IR_DOUBLE, HDG_SHAPE(nout));
    hdg_ir_matmul(k, Uq, 1.0, U, 0, c->Iq, 1, 0.0);
    hdg_ir_fill(k, El, hdg_ir_num(k, 0));
    hdg_ir_expr *q = hdg_ir_for(k, "q", c->nq);
    xenv v = dg_point_env(c, k, G, c->xq, q, NULL, hdg_ir_time(k));
    hdg_ir_expr *wj = hdg_ir_let(k, "wJ", hdg_ir_mul(k, hdg_ir_ld1(k, c->wq, q), dg_gi(k, G, hdg_dg_g_j(c->dim))));
    int n = 0;
    for (int f = 0; f < F; f++) {
        hdg_ir_expr *u = hdg_ir_ld2(k, Uq, hdg_ir_int(k, f), q);
        const hdg_expr *ex = p->unknowns[L->field_unknown[f]].exact[L->field_comp[f]];
        if (ex) {
            hdg_ir_expr *xv = hdg_ir_let(k, "ex", dg_lx(k, p, ex, &v));
            hdg_ir_expr *d = hdg_ir_let(k, "d", hdg_ir_sub(k, u, xv));
            hdg_ir_accum(k, hdg_ir_ld1(k, El, hdg_ir_int(k, n)), hdg_ir_mul(k, wj, hdg_ir_mul(k, d, d)));
            hdg_ir_accum(k, hdg_ir_ld1(k, El, hdg_ir_int(k, L->nerr + F + n)), hdg_ir_mul(k, wj, hdg_ir_mul(k, xv, xv)));
            n++;
        }
        hdg_ir_accum(k, hdg_ir_ld1(k, El, hdg_ir_int(k, L->nerr + f)), hdg_ir_mul(k, wj, hdg_ir_mul(k, u, u)));
    }
    hdg_ir_end(k);
    hdg_ir_copy(k, E, El);
    kernel_name(k, L->errors);
}

