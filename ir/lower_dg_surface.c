/* lower_dg_surface.c — explicit DG lowering: the face fluxes, lifted. */
#include "ir/lower_dg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- surface */

static hdg_ir_expr *gv(hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_expr *idx) { return hdg_ir_ld1(k, G, idx); }

/* The exterior value of field f on a boundary face: the rule of the condition
 * the face carries (selected by its index bc), in terms of interior values. */
hdg_ir_expr *dg_boundary_value(dgc *c, hdg_ir_kernel *k, int f, hdg_ir_expr *bc, hdg_ir_expr *const *uin,
                                   const xenv *v)
{
    const hdg_problem *p = c->p;
    hdg_ir_expr *val = NULL;
    for (int b = p->nbcs - 1; b >= 0; b--) {
        const hdg_ext_rule *r = dg_find_rule(c, &p->bcs[b], f);
        hdg_ir_expr *rv = NULL;
        for (int j = 0; j < r->nterms; j++) {
            int g = c->field_of[r->terms[j].unknown][r->terms[j].comp];
            rv = dg_add_term(k, rv, hdg_ir_mul(k, dg_lx(k, p, r->terms[j].coef, v), uin[g]));
        }
        if (r->data) rv = dg_add_term(k, rv, dg_lx(k, p, r->data, v));
        if (!rv) rv = hdg_ir_num(k, 0);
        val = val ? hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_EQ, bc, hdg_ir_int(k, b)), rv, val) : rv;
    }
    return val ? val : hdg_ir_num(k, 0);
}

hdg_ir_expr *dg_marker_guard(dgc *c, hdg_ir_kernel *k, const hdg_markers *mk, hdg_ir_tensor *M, hdg_ir_expr *f,
                             hdg_ir_expr *term)
{
    if (!mk) return term;
    int s = 0;
    while (c->L->sets[s] != mk) s++;
    hdg_ir_expr *flag = hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, (3 + s) * c->nfe), f));
    return hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_NE, flag, hdg_ir_int(k, 0)), term, hdg_ir_num(k, 0));
}

/* Per local face f: its normal, Fscale, neighbour, the neighbour's exterior
 * node row and the boundary condition index, as lets. */
face_vals dg_face_lets(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_tensor *M, hdg_ir_expr *f)
{
    static const char *const nname[3] = { "nx", "ny", "nz" };
    int dim = c->dim, nfe = c->nfe;
    face_vals v = {0};
    hdg_ir_expr *g0 = hdg_ir_add(k, hdg_ir_int(k, hdg_dg_g_face(dim, 0)), hdg_ir_mul(k, hdg_ir_int(k, dim + 1), f));
    v.n[0] = hdg_ir_let(k, nname[0], gv(k, G, g0));
    for (int d = 1; d < dim; d++) v.n[d] = hdg_ir_let(k, nname[d], gv(k, G, hdg_ir_add(k, g0, hdg_ir_int(k, d))));
    v.fs = hdg_ir_let(k, "fscale", gv(k, G, hdg_ir_add(k, g0, hdg_ir_int(k, dim))));
    v.nbr = hdg_ir_let(k, "nbr", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, 0), f)));
    v.nlf = hdg_ir_let(k, "nlf", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, nfe), f)));
    v.bc = hdg_ir_let(k, "bc", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, 2 * nfe), f)));
    return v;
}

/* R += LIFT (Fscale * flux): per face node, the interior values, the
 * exterior values (neighbour, or the boundary rule of the face's condition)
 * and the flux of every field into the local flux (fields x (dim+1) Nfp); then one
 * product lifts all fields that have a flux. (Gathering all face values
 * first, in a loop of their own, and evaluating the fluxes in a second,
 * vectorised loop measured 15% slower for N <= 3 and at best 5% faster at
 * N = 8 on square:128, so the single loop stays.) */
void dg_build_surface(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *M,
                          hdg_ir_tensor *R)
{
    const hdg_problem *p = c->p;
    int F = c->F, Nfp = c->Nfp;
    hdg_ir_tensor *Gf = hdg_ir_local(k, "flux", HDG_IR_DOUBLE, HDG_SHAPE(F, c->nfe * Nfp));
    hdg_ir_expr *t = hdg_ir_time(k);
    hdg_ir_expr *f = hdg_ir_for(k, "f", c->nfe);
    face_vals fv = dg_face_lets(c, k, G, M, f);
    hdg_ir_expr *i = hdg_ir_for(k, "i", Nfp);
    xenv v = dg_point_env(c, k, G, c->xf, f, i, t);
    v.nx = fv.n[0], v.ny = fv.n[1], v.nz = fv.n[2];
    hdg_ir_expr *node = hdg_ir_let(k, "node", hdg_ir_ld2(k, c->Fm, f, i));
    hdg_ir_expr *enode = hdg_ir_let(k, "enode", hdg_ir_ld2(k, c->FmR, fv.nlf, i));
    hdg_ir_expr *uin[HDG_DG_MAX_FIELDS], *uex[HDG_DG_MAX_FIELDS] = {0};
    char name[80];
    for (int g = 0; g < F; g++) {
        snprintf(name, sizeof name, "%s_in", dg_field_name(c, g));
        uin[g] = hdg_ir_let(k, name, hdg_ir_ld2(k, U, hdg_ir_int(k, g), node));
    }
    hdg_ir_expr *interior = hdg_ir_cmp(k, HDG_E_LT, fv.bc, hdg_ir_int(k, 0));
    for (int g = 0; g < F; g++) {
        if (!c->needs_ext[g]) continue;
        hdg_ir_expr *nbv = hdg_ir_load_row(k, U, fv.nbr, 2, (hdg_ir_expr *[]){ hdg_ir_int(k, g), enode });
        snprintf(name, sizeof name, "%s_ex", dg_field_name(c, g));
        uex[g] = hdg_ir_let(k, name, hdg_ir_select(k, interior, nbv, dg_boundary_value(c, k, g, fv.bc, uin, &v)));
    }
    hdg_ir_expr *sum[HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < p->nequations; e++)
        for (int n = 0; n < p->equations[e].natoms; n++) {
            const hdg_atom *a = &p->equations[e].atoms[n];
            if (a->domain != HDG_BOUNDARY) continue;
            int fr = dg_row_field(c, e, a), fu = dg_atom_field(c, a);
            hdg_ir_expr *term = dg_lx(k, p, a->coef, &v);
            if (fu >= 0) term = hdg_ir_mul(k, term, a->side == HDG_SIDE_EXTERIOR ? uex[fu] : uin[fu]);
            term = dg_marker_guard(c, k, a->markers, M, f, term);
            sum[fr] = fu >= 0 ? (sum[fr] ? hdg_ir_sub(k, sum[fr], term) : hdg_ir_neg(k, term)) : dg_add_term(k, sum[fr], term);
        }
    hdg_ir_expr *fi = hdg_ir_add(k, hdg_ir_mul(k, f, hdg_ir_int(k, Nfp)), i);
    int rows[HDG_DG_MAX_FIELDS], nrows = 0;
    for (int g = 0; g < F; g++)
        if (sum[g]) {
            hdg_ir_assign(k, hdg_ir_ld2(k, Gf, hdg_ir_int(k, g), fi), hdg_ir_mul(k, fv.fs, sum[g]));
            rows[nrows++] = g;
        }
    hdg_ir_end(k);
    hdg_ir_end(k);
    /* lift the fields that have a flux: R += flux LIFT^T, one product over the (dim+1) Nfp face nodes */
    if (nrows) dg_product(k, R, rows, Gf, rows, nrows, c->LIFTT, 1);
}

