/* lower_dg.c — explicit nodal DG: checked problem -> volume, surface, fused
 * right-hand side, fused LSERK4 stage, stage update, initial condition, error
 * and energy kernels (see lower_dg.h for the discretisation, the data layout
 * and the slots); the kernels' per-element geometry, face maps and element
 * order for a mesh.
 * Nothing here knows a problem by name: fields, terms, fluxes and boundary
 * states all come from the atoms of the checked problem. */
#include "ir/lower_dg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

hdg_status dg_fail_at(const dgc *c, hdg_loc loc, const char *what, hdg_error *err)
{
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: %s", c->p->file ? c->p->file : "<input>", loc.line,
                    loc.col, what);
}

/* ---------------------------------------------------------------- analysis */

const char *dg_field_name(const dgc *c, int f) { return c->L->field_name[f]; }

int dg_atom_field(const dgc *c, const hdg_atom *a)
{
    return a->trial >= 0 ? c->field_of[a->trial][a->trial_comp] : -1;
}

int dg_row_field(const dgc *c, int eq, const hdg_atom *a) { return c->rowf[eq * 3 + a->test_comp]; }

int dg_set_index(dgc *c, const hdg_markers *m, hdg_error *err, hdg_loc loc)
{
    if (!m) return -1;
    for (int s = 0; s < c->L->nsets; s++)
        if (c->L->sets[s] == m) return s;
    if (c->L->nsets == HDG_DG_MAX_SETS) {
        dg_fail_at(c, loc, "too many distinct marker sets in boundary terms", err);
        return -2;
    }
    c->L->sets[c->L->nsets] = m;
    return c->L->nsets++;
}

static hdg_status analyze_fields(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    hdg_dg_lowered *L = c->L;
    if (p->method != HDG_METHOD_DG)
        return hdg_fail(err, HDG_EINPUT, "problem '%s' is not a DG problem (no dt() terms)", p->name);
    if (p->nunknowns > 64) return hdg_fail(err, HDG_EINPUT, "too many unknowns");
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *U = &p->unknowns[u];
        c->field_of[u][0] = c->field_of[u][1] = c->field_of[u][2] = -1;
        if (U->trace)
            return dg_fail_at(c, U->loc, "trace unknowns have no place in an explicit DG problem", err);
        for (int comp = 0; comp < U->ncomp; comp++) {
            if (L->nfields == HDG_DG_MAX_FIELDS) return dg_fail_at(c, U->loc, "too many fields", err);
            int f = L->nfields++;
            c->field_of[u][comp] = f;
            L->field_unknown[f] = u;
            L->field_comp[f] = comp;
            if (U->ncomp == 1) snprintf(L->field_name[f], sizeof L->field_name[f], "%s", U->name);
            else snprintf(L->field_name[f], sizeof L->field_name[f], "%s.%c", U->name, "xyz"[comp]);
        }
    }
    c->F = L->nfields;
    if (c->F == 0) return hdg_fail(err, HDG_EINPUT, "problem '%s' has no unknowns", p->name);
    return HDG_OK;
}

/* Every equation row (test component) needs exactly one dt() term, on a field of
 * its own: the mass matrix is diagonal in the fields. */
static hdg_status analyze_rows(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    char msg[512];
    c->rowf = hdg_xmalloc(sizeof(int) * 3 * (size_t)(p->nequations + 1));
    for (int i = 0; i < 3 * p->nequations; i++) c->rowf[i] = -1;
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *q = &p->equations[e];
        for (int i = 0; i < q->natoms; i++) {
            const hdg_atom *a = &q->atoms[i];
            if (a->role != HDG_ROLE_TIME) continue;
            if (a->trial < 0 || a->test_op != HDG_OP_VALUE || a->trial_op != HDG_OP_VALUE ||
                a->domain != HDG_VOLUME)
                return dg_fail_at(c, a->loc, "a dt() term must be (c*dt(U), v) over the element", err);
            int f = dg_atom_field(c, a);
            if (c->rowf[e * 3 + a->test_comp] >= 0) {
                snprintf(msg, sizeof msg,
                         "more than one dt() term for one test function component: the explicit DG "
                         "lowering needs a mass matrix that is diagonal in the fields (%s and %s)",
                         dg_field_name(c, c->rowf[e * 3 + a->test_comp]), dg_field_name(c, f));
                return dg_fail_at(c, a->loc, msg, err);
            }
            if (c->tatom[f]) {
                snprintf(msg, sizeof msg, "dt(%s) appears in two equation rows", dg_field_name(c, f));
                return dg_fail_at(c, a->loc, msg, err);
            }
            c->rowf[e * 3 + a->test_comp] = f;
            c->tatom[f] = a;
        }
        int ncomp = p->tests[q->test].ncomp;
        for (int comp = 0; comp < ncomp; comp++)
            if (c->rowf[e * 3 + comp] < 0) {
                snprintf(msg, sizeof msg, "equation %d has no dt() term for test component %d", e + 1, comp);
                return dg_fail_at(c, q->loc, msg, err);
            }
    }
    for (int f = 0; f < c->F; f++)
        if (!c->tatom[f]) {
            snprintf(msg, sizeof msg, "no equation has a dt(%s) term", dg_field_name(c, f));
            return dg_fail_at(c, p->unknowns[c->L->field_unknown[f]].loc, msg, err);
        }
    return HDG_OK;
}

const hdg_ext_rule *dg_find_rule(const dgc *c, const hdg_bc *bc, int f)
{
    for (int r = 0; r < bc->nrules; r++)
        if (c->field_of[bc->rules[r].unknown][bc->rules[r].comp] == f) return &bc->rules[r];
    return NULL;
}

static hdg_status analyze_atoms(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *q = &p->equations[e];
        for (int i = 0; i < q->natoms; i++) {
            const hdg_atom *a = &q->atoms[i];
            switch (a->role) {
            case HDG_ROLE_TIME: break;
            case HDG_ROLE_VOLUME:
                if (a->trial_op != HDG_OP_VALUE && a->test_op != HDG_OP_VALUE)
                    return dg_fail_at(c, a->loc, "a volume term with derivatives on both the unknown and "
                                              "the test function (second order) is not supported by "
                                              "explicit DG", err);
                if (a->side == HDG_SIDE_EXTERIOR)
                    return dg_fail_at(c, a->loc, "ext() is only defined on faces", err);
                break;
            case HDG_ROLE_SOURCE:
                if (a->domain == HDG_BOUNDARY && a->test_op != HDG_OP_VALUE)
                    return dg_fail_at(c, a->loc, "derivatives of the test function on faces are not supported", err);
                if (a->domain == HDG_BOUNDARY && dg_set_index(c, a->markers, err, a->loc) == -2) return HDG_EINPUT;
                break;
            case HDG_ROLE_FLUX:
                if (a->trial_op != HDG_OP_VALUE || a->test_op != HDG_OP_VALUE)
                    return dg_fail_at(c, a->loc, "derivatives inside a face term are not supported by "
                                              "explicit DG (only values and jumps)", err);
                if (a->side == HDG_SIDE_EXTERIOR) c->needs_ext[dg_atom_field(c, a)] = 1;
                if (dg_set_index(c, a->markers, err, a->loc) == -2) return HDG_EINPUT;
                break;
            default:
                return dg_fail_at(c, a->loc, "this term belongs to an HDG problem, not to explicit DG", err);
            }
        }
    }
    for (int b = 0; b < p->nbcs; b++) {
        const hdg_bc *bc = &p->bcs[b];
        if (bc->kind != HDG_BC_EXTERIOR)
            return dg_fail_at(c, bc->loc, "explicit DG takes boundary conditions as exterior states "
                                       "(ext(U) = ...)", err);
        for (int f = 0; f < c->F; f++)
            if (c->needs_ext[f] && !dg_find_rule(c, bc, f)) {
                char msg[400];
                snprintf(msg, sizeof msg, "boundary condition '%s' gives no exterior value for %s, "
                                          "which a flux uses", bc->label, dg_field_name(c, f));
                return dg_fail_at(c, bc->loc, msg, err);
            }
    }
    return HDG_OK;
}

/* ---------------------------------------------------------------- entry */

hdg_status hdg_lower_dg(const hdg_problem *p, hdg_dg_lowered *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    dgc c = {0};
    c.p = p;
    c.L = out;
    hdg_status st = analyze_fields(&c, err);
    if (!st) st = analyze_rows(&c, err);
    if (!st) st = dg_analyze_residuals(&c, err);
    if (!st) st = analyze_atoms(&c, err);
    c.dim = p->dim == 3 ? 3 : 2;
    c.nfe = c.dim + 1;
    if (!st) st = hdg_refel_init(&c.re, c.dim, p->degree, err);
    if (st) {
        free(c.rowf);
        hdg_refel_free(&c.re);
        return st;
    }
    out->dim = c.dim;
    out->N = p->degree;
    out->Np = c.Np = c.re.Np;
    out->Nfp = c.Nfp = c.re.Nfp;
    c.Npp = (c.Np + DG_PAD - 1) / DG_PAD * DG_PAD;
    out->ngeom = hdg_dg_g_size(c.dim);
    out->nimap = (3 + out->nsets) * c.nfe;
    out->nparams = p->nparams + 3;
    out->p_rka = p->nparams;
    out->p_rkb = p->nparams + 1;
    out->p_dt = p->nparams + 2;
    memcpy(out->needs_ext, c.needs_ext, sizeof c.needs_ext);
    for (int f = 0; f < c.F; f++)
        if (p->unknowns[out->field_unknown[f]].exact[out->field_comp[f]]) out->err_field[out->nerr++] = f;
    out->mod = hdg_ir_module_new(p->name);
    dg_make_tables(&c, err);
    if (c.nonlinear) dg_nonlinear_tables(&c, err);
    if (!c.Iq || !c.LIFTT) st = HDG_EINTERNAL;
    if (!st) {
        dg_build_rhs(&c, "volume", RHS_VOLUME, out->volume);
        dg_build_rhs(&c, "surface", RHS_SURFACE, out->surface);
        dg_build_rhs(&c, "rhs", RHS_FULL, out->rhs);
        dg_build_rhs(&c, "step", RHS_STEP, out->step);
        dg_build_update(&c);
        dg_build_initial(&c);
        dg_build_errors(&c);
        dg_build_energy(&c);
        st = hdg_ir_verify_module(out->mod, err);
    }
    free(c.rowf);
    hdg_refel_free(&c.re);
    if (st) hdg_dg_lowered_free(out);
    return st;
}

void hdg_dg_lowered_free(hdg_dg_lowered *l)
{
    if (!l) return;
    hdg_ir_module_free(l->mod);
    l->mod = NULL;
}

