/* lower_hdg.c — HDG problems -> IR kernels (see lower.h for the kernels, the
 * bases and the geometry layout).
 *
 * Every atom of every equation (frontend.h: coef * trial * test over the
 * element or its boundary) becomes one quadrature loop that adds into one of
 * the local blocks, chosen by the kinds of its test and trial:
 *
 *                      trial element    trial trace    source
 *     element test     A                B              Fl
 *     trace test       C                D              Ft
 *
 * B and D carry Fl and Ft as an extra last column, so one Schur complement
 * gives [K_e | F_e] = [D | Ft] - C A^-1 [B | Fl]. The recovery kernel rebuilds
 * A and Fl - B uhat_e from the same atoms (the trace atoms applied to uhat_e
 * as they are integrated, B never stored) and solves A x = Fl - B uhat_e. The block
 * elimination both use is in lower_hdg_elim.c (lower_hdg_internal.h).
 *
 * The stages: lower_hdg_tables.c (rules, basis tables), lower_hdg_atoms.c (the
 * atoms into the blocks), lower_hdg_kernels.c (local, recover, rhs, initial,
 * errors, Dirichlet), lower_hdg_post.c (post-processing, estimate), lower_hdg_elim.c;
 * this file: the layout of the dofs and the driver of the stages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* ---------------------------------------------------------------- layout */

static hdg_status layout(lower *c)
{
    const hdg_problem *p = c->p;
    hdg_lowered *L = c->L;
    if (p->nunknowns > 32) return hdg_fail(c->err, HDG_EINPUT, "%s: more than 32 unknowns", p->file);
    L->transient = p->transient;
    L->p_sigma = p->nparams;
    int nl = 0, tr = 0;
    L->post_unknown = -1;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        L->uoff[u] = L->toff[u] = -1;
        if (x->post) {
            if (L->npost == HDG_MAX_POST)
                return hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: more than %d postprocess unknowns", p->file,
                                x->loc.line, x->loc.col, HDG_MAX_POST);
            if (x->mean < 0 || p->unknowns[x->mean].ncomp != x->ncomp)
                return hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: '%s' needs a 'mean' constraint with "
                                "an element unknown of the same shape", p->file, x->loc.line,
                                x->loc.col, x->name);
            int i = L->npost++, d = p->spaces[x->space].degree;
            L->posts[i] = u, L->pdeg[i] = d, L->pnp[i] = hdg_simplex_count(c->dim, d);
            L->poff[i] = L->npost_dofs;
            L->npost_dofs += L->pnp[i] * x->ncomp;
            if (i == 0) L->post_unknown = u, L->kpost = d, L->npp = L->pnp[0];
            continue;
        }
        if (x->trace) { L->toff[u] = tr; tr += x->ncomp * c->nk; }
        else { L->uoff[u] = nl; nl += x->ncomp * c->np; }
    }
    if (!tr) return hdg_fail(c->err, HDG_EINPUT, "%s: an HDG problem needs a trace unknown", p->file);
    L->nl = nl, L->m = tr, L->nt = c->nfe * tr;
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *eq = &p->equations[e];
        const hdg_unknown *u = &p->unknowns[eq->unknown];
        if (eq->post) continue;
        if (p->tests[eq->test].ncomp != u->ncomp)
            return hdg_fail(c->err, HDG_EINPUT,
                            "%s:%d:%d: the test function of this equation has %d component(s) but "
                            "the unknown it determines ('%s') has %d",
                            p->file, eq->loc.line, eq->loc.col, p->tests[eq->test].ncomp, u->name,
                            u->ncomp);
        for (int t = 0; t < eq->natoms; t++) {
            const hdg_markers *mk = eq->atoms[t].markers;
            if (!mk || eq->atoms[t].domain != HDG_BOUNDARY || hdg_lh_marker_set(c, mk) >= 0) continue;
            if (L->nsets == 16)
                return hdg_fail(c->err, HDG_EINPUT, "%s: more than 16 boundary marker sets", p->file);
            L->sets[L->nsets++] = mk;
        }
    }
    L->ngeom = hdg_g_fixed(c->dim) + c->nfe * L->nsets;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->trace) continue;
        for (int cp = 0; cp < x->ncomp; cp++)
            if (x->exact[cp] && L->nerr < 64) {
                L->err_unknown[L->nerr] = u;
                L->err_comp[L->nerr++] = cp;
            }
    }
    for (int b = 0; b < p->nbcs; b++)
        if (p->bcs[b].kind == HDG_BC_DIRICHLET) {
            if (L->ndir == HDG_LOWER_MAX_BC)
                return hdg_fail(c->err, HDG_EINPUT, "%s: more than %d Dirichlet conditions", p->file,
                                HDG_LOWER_MAX_BC);
            L->dir_bc[L->ndir++] = b;
        }
    return HDG_OK;
}

hdg_status hdg_lower_hdg(const hdg_problem *p, hdg_lowered *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if (p->method != HDG_METHOD_HDG)
        return hdg_fail(err, HDG_EINPUT, "%s: not an HDG problem", p->file);
    hdg_status nst = hdg_lower_nonlinear_check(p, err);   /* issue 41 */
    if (nst) return nst;
    lower c = {.p = p, .L = out, .err = err, .k = p->degree, .dim = p->dim == 3 ? 3 : 2};
    c.nfe = c.dim + 1;
    c.np = hdg_simplex_count(c.dim, c.k);
    c.nk = hdg_simplex_count(c.dim - 1, c.k);
    out->k = c.k, out->dim = c.dim, out->nfe = c.nfe;
    out->np = c.np, out->nk = c.nk;
    hdg_status st = layout(&c);
    if (st) return st;
    if (p->nonlinear) {   /* Newton (lower_hdg_newton.c); with dt() terms at every stage of the time scheme */
        out->nonlinear = 1;
        if ((st = hdg_lh_state_leaves(&c))) return st;
    }
    c.m = out->mod = hdg_ir_module_new(p->name);
    int deg = 2 * c.k + 4 + c.qextra;   /* qextra: over-integration of nonlinear terms (0 when linear) */
    c.ref_tensors = !hdg_env_flag("HDGC_NO_REF_TENSORS");
    c.split_coef = !hdg_env_flag("HDGC_NO_COEF_SPLIT");
    c.post_chol = !hdg_env_flag("HDGC_NO_CHOL");
    if ((st = hdg_lh_volume_tables(&c, deg, "vol", &c.nvq, &c.vw, &c.vlam, &c.vP, c.vdP, c.k)) ||
        (st = hdg_lh_volume_host(&c, deg)) || (st = hdg_lh_face_tables(&c)))
        goto fail;
    hdg_lh_local_kernel(&c);
    hdg_lh_recover_kernel(&c);
    if (out->transient && !out->nonlinear) hdg_lh_rhs_kernel(&c);   /* Newton's local kernel gives F_e */
    if (out->nonlinear) hdg_lh_residual_kernel(&c);
    if ((out->transient || out->nonlinear) && (st = hdg_lh_initial_kernel(&c))) goto fail;
    if (out->post_unknown >= 0 && (st = hdg_lh_post_kernel(&c))) goto fail;
    if ((st = hdg_lh_errors_kernel(&c))) goto fail;
    if (out->post_unknown >= 0 && (st = hdg_lh_estimate_kernel(&c))) goto fail;
    for (int i = 0; i < out->ndir; i++)
        if ((st = hdg_lh_dirichlet_kernel(&c, i, out->dir_bc[i]))) goto fail;
    out->jinv_kernel0 = out->mod->nkernels, out->jinv_table0 = out->mod->ntables;
    if (out->nonlinear) hdg_lh_jinv_kernels(&c);   /* last: every other kernel stays as it was */
    if ((st = hdg_ir_verify_module(out->mod, err))) goto fail;
    hdg_lh_host_free(&c);
    return HDG_OK;
fail:
    hdg_lh_host_free(&c);
    hdg_lowered_free(out);
    return st;
}

void hdg_lowered_drop_jinv(hdg_lowered *l)
{
    if (!l->mod || !l->jinv_local[0]) return;
    hdg_ir_module_truncate(l->mod, l->jinv_kernel0, l->jinv_table0);
    l->jinv_local[0] = l->jinv_recover[0] = '\0';
}

void hdg_lowered_free(hdg_lowered *l)
{
    if (!l) return;
    hdg_ir_module_free(l->mod);
    l->mod = NULL;
}
