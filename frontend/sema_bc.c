/* sema_bc.c — semantic analysis of the boundary conditions: markers, dirichlet, neumann
 * and exterior-state conditions, overlaps, the coverage of the boundary, the marker list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sema.h"
#include "support/util.h"

/* ---------------------------------------------------------------- boundary conditions */

static bool markers_decl(sema *S, decl *d, hdg_markers *m)
{
    m->names = hdg_arena_alloc(S->p->arena, (size_t)d->markers.n * sizeof(char *));
    m->locs = hdg_arena_alloc(S->p->arena, (size_t)d->markers.n * sizeof(hdg_loc));
    bool ok = true;
    for (item *it = d->markers.head; it; it = it->next) {
        if (!it->name) {
            sema_error(S, it->loc, "a boundary marker is a name or an integer tag");
            ok = false;
            continue;
        }
        if (!strcmp(it->name, "all")) {
            if (d->markers.n > 1) {
                sema_error(S, it->loc, "'all' cannot be combined with other markers");
                ok = false;
            }
            m->all = true;
            continue;
        }
        for (int k = 0; k < m->n; k++)
            if (!strcmp(m->names[k], it->name)) {
                sema_error(S, it->loc, "boundary marker '%s' appears twice", it->name);
                ok = false;
            }
        m->names[m->n] = hdg_arena_strdup(S->p->arena, it->name);
        m->locs[m->n++] = it->loc;
    }
    return ok;
}

static bool bc_covers_unknown(const hdg_bc *b, int u)
{
    if (b->kind != HDG_BC_EXTERIOR) return b->unknown == u;
    for (int i = 0; i < b->nrules; i++)
        if (b->rules[i].unknown == u) return true;
    return false;
}

/* Two conditions for one unknown on one marker. */
static void check_overlap(sema *S, int bi)
{
    hdg_problem *p = S->p;
    const hdg_bc *b = &p->bcs[bi];
    for (int u = 0; u < p->nunknowns; u++) {
        if (!bc_covers_unknown(b, u)) continue;
        for (int j = 0; j < bi; j++) {
            const hdg_bc *a = &p->bcs[j];
            if (!bc_covers_unknown(a, u) || hdg_bcs_share(a, b)) continue;
            if (a->markers.all || b->markers.all) {
                sema_error(S, b->loc, "this boundary condition for '%s' overlaps the one at %s (on '%s')",
                           p->unknowns[u].name, sema_fmt_loc(S, a->loc),
                           a->markers.all ? "all" : a->markers.names[0]);
                return;
            }
            for (int k = 0; k < b->markers.n; k++)
                for (int l = 0; l < a->markers.n; l++)
                    if (!strcmp(b->markers.names[k], a->markers.names[l])) {
                        sema_error(S, b->markers.locs[k], "boundary marker '%s' already has a condition "
                                   "for '%s' (at %s)", b->markers.names[k], p->unknowns[u].name,
                                   sema_fmt_loc(S, a->loc));
                        return;
                    }
        }
    }
}

/* The component of 'boundary dirichlet uhat[c] = g' (or uhat.x, uhat.xy): -1 after an error. */
static int bc_component(sema *S, const decl *d, const hdg_unknown *u)
{
    if (u->ncomp == 1) {
        sema_error(S, d->comp_loc, "'%s' is a scalar: it has no components", u->name);
        return -1;
    }
    if (d->comp_name) {
        for (int c = 0; c < u->ncomp; c++)
            if (!strcmp(d->comp_name, hdg_comp_suffix(u->ncomp, c) + 1)) return c;
        static const char *names[] = {[2] = "x or y", [3] = "x, y or z", [4] = "xx, xy, yx or yy",
                                      [9] = "xx, xy, xz, yx, yy, yz, zx, zy or zz"};
        sema_error(S, d->comp_loc, "'%s' has no component '%s' (%s)", u->name, d->comp_name, names[u->ncomp]);
        return -1;
    }
    const ast *a = d->comp;
    if (a->kind != AST_NUM || a->num != (int)a->num || a->num < 0 || a->num >= u->ncomp) {
        sema_error(S, d->comp_loc, "the component of '%s' is a number from 0 to %d", u->name, u->ncomp - 1);
        return -1;
    }
    return (int)a->num;
}

static void dirichlet(sema *S, decl *d, hdg_bc *b)
{
    hdg_problem *p = S->p;
    symbol *s = sema_lookup(S, d->name);
    if (s && s->failed) return;
    if (!s || s->kind != SYM_UNKNOWN || !p->unknowns[s->index].trace) {
        if (s && s->kind == SYM_UNKNOWN)
            sema_error(S, d->name_loc, "dirichlet condition on '%s', which is not a trace unknown: in HDG "
                       "the boundary data goes on the trace unknown", d->name);
        else if (!s)
            sema_error(S, d->name_loc, "undefined name '%s'", d->name);
        else
            sema_error(S, d->name_loc, "dirichlet condition on '%s', which is %s, not a trace unknown",
                       d->name, s->kind == SYM_FLUX ? "a flux" : "not an unknown");
        return;
    }
    const hdg_unknown *u = &p->unknowns[s->index];
    ectx cx = sema_data_ctx("boundary data", sema_all_coords(S), true);
    if (d->comp || d->comp_name) {   /* one component: uhat[0] = g, uhat.x = g */
        if ((b->comp = bc_component(S, d, u)) < 0) return;
        const hdg_expr *one[2] = {NULL, NULL};
        if (!sema_data_expr(S, &cx, d->expr, 1, NULL, one, "the dirichlet data of one component")) return;
        for (int c = 0; c < u->ncomp; c++) b->value[c] = c == b->comp ? one[0] : ex_num(p, 0);
    } else if (!sema_data_expr(S, &cx, d->expr, u->ncomp, NULL, b->value, "the dirichlet data")) return;
    b->unknown = s->index;
}

/* The neumann data: per flux component, the part free of unknowns (value) and
 * the terms linear in trace unknowns (robin); element unknowns, products and
 * functions of unknowns are refused by the expansion at their place. */
static bool neumann_data(sema *S, decl *d, hdg_bc *b, int nc)
{
    hdg_problem *p = S->p;
    ectx cx = sema_data_ctx("the neumann data", sema_all_coords(S), true);
    cx.bc_trace = true;
    val v = expand(S, &cx, d->expr);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_FORM) {
        sema_error(S, d->expr->loc, "integrals (a, b) and <a, b> can only appear in equations");
        return false;
    }
    if (v.ncomp != nc) {
        sema_error(S, d->expr->loc, "the neumann data is a %s, but a %s is expected",
                   shape_noun(v.ncomp), shape_noun(nc));
        return false;
    }
    for (int c = 0; c < nc; c++) {
        b->value[c] = ex_num(p, 0);
        b->robin[c] = hdg_arena_alloc(p->arena, (size_t)(v.c[c].n + 1) * sizeof(hdg_ext_term));
        for (int i = 0; i < v.c[c].n; i++) {
            const mono *m = &v.c[c].m[i];
            if (m->trial.id < 0) b->value[c] = ex_add(p, b->value[c], m->coef);
            else b->robin[c][b->nrobin[c]++] = (hdg_ext_term){m->trial.id, m->trial.comp, m->coef};
        }
        bool big = ex_too_big(b->value[c]);
        for (int k = 0; k < b->nrobin[c]; k++) big |= ex_too_big(b->robin[c][k].coef);
        if (big) {
            sema_error(S, d->expr->loc, "the neumann data is too large when expanded (more than %d nodes "
                       "or %d levels)", HDG_EXPR_MAX_SIZE, HDG_EXPR_MAX_DEPTH);
            return false;
        }
    }
    return true;
}

static void neumann(sema *S, decl *d, hdg_bc *b)
{
    hdg_problem *p = S->p;
    if (d->comp || d->comp_name) {
        sema_error(S, d->comp_loc, "a neumann condition gives the whole flux: to fix one component, give "
                                   "a dirichlet condition on that component of the trace ('boundary dirichlet "
                                   "uhat[0] = g on M'), which overrides the flux data there");
        return;
    }
    symbol *s = sema_lookup(S, d->name);
    if (!s || s->kind != SYM_FLUX) {
        sema_error(S, d->name_loc, "a neumann condition names a flux: 'boundary neumann qn = g on M' "
                   "with 'flux qn = ...' used as <qn, mu> in a trace equation");
        return;
    }
    const flux_def *fl = &S->fluxes[s->index];
    if (fl->trace_eq < 0) {
        sema_error(S, d->name_loc, "flux '%s' appears in no boundary integral of a trace equation, "
                   "so a neumann condition cannot use it", fl->name);
        return;
    }
    if (fl->trace_eqs > 1) {
        sema_error(S, d->name_loc, "flux '%s' appears in several trace equations: the neumann condition "
                   "is ambiguous", fl->name);
        return;
    }
    hdg_equation *e = &p->equations[fl->trace_eq];
    if (!e->atoms || e->unknown < 0) return;   /* the trace equation had errors (reported) */
    int nc = p->tests[e->test].ncomp;
    if (!neumann_data(S, d, b, nc)) return;
    b->flux = s->index;
    b->equation = fl->trace_eq;
    b->unknown = e->unknown;
    int nnew = nc;
    for (int c = 0; c < nc; c++) nnew += b->nrobin[c];
    hdg_atom *atoms = hdg_arena_alloc(p->arena, (size_t)(e->natoms + nnew) * sizeof(hdg_atom));
    if (e->natoms) memcpy(atoms, e->atoms, (size_t)e->natoms * sizeof(hdg_atom));
    for (int c = 0; c < nc; c++) {
        /* <g, mu> on the markers, on the right-hand side */
        atoms[e->natoms++] = (hdg_atom){.domain = HDG_BOUNDARY, .markers = &b->markers, .test = e->test,
                                        .test_comp = c, .trial = -1, .coef = b->value[c],
                                        .role = HDG_ROLE_SOURCE, .loc = d->loc};
        /* <beta uhat, mu> on the markers moves to the left: trace-trace, coefficient -beta */
        for (int k = 0; k < b->nrobin[c]; k++) {
            const hdg_ext_term *t = &b->robin[c][k];
            atoms[e->natoms++] = (hdg_atom){.domain = HDG_BOUNDARY, .markers = &b->markers,
                                            .test = e->test, .test_comp = c, .trial = t->unknown,
                                            .trial_comp = t->comp, .coef = ex_neg(p, t->coef),
                                            .role = HDG_ROLE_TRACE_TRACE, .loc = d->loc};
        }
    }
    e->atoms = atoms;
}

static void exterior(sema *S, decl *d, hdg_bc *b)
{
    hdg_problem *p = S->p;
    b->rules = hdg_arena_alloc(p->arena, (size_t)(HDG_MAX_COMP * d->items.n) * sizeof(hdg_ext_rule));
    int *seen = hdg_arena_alloc(S->tmp, (size_t)(p->nunknowns + 1) * sizeof(int));
    for (item *it = d->items.head; it; it = it->next) {
        const ast *l = it->lhs;
        symbol *s = NULL;
        if (l->kind == AST_CALL && !strcmp(l->name, "ext") && l->nargs == 1 && l->args[0]->kind == AST_NAME)
            s = sema_lookup(S, l->args[0]->name);
        if (s && s->failed) continue;
        if (!s || s->kind != SYM_UNKNOWN || p->unknowns[s->index].trace) {
            sema_error(S, l->loc, "expected ext(u) = ..., with u an element unknown, on the left of '='");
            continue;
        }
        int u = s->index;
        if (seen[u]) {
            sema_error(S, l->loc, "ext(%s) is defined twice in this boundary condition", s->name);
            continue;
        }
        seen[u] = 1;
        ectx cx = sema_data_ctx("an exterior state", sema_all_coords(S), true);
        cx.mode = X_EXT;
        val v = expand(S, &cx, it->expr);
        if (v.kind == V_ERR) continue;
        if (v.kind == V_FORM) {
            sema_error(S, it->expr->loc, "integrals (a, b) and <a, b> can only appear in equations");
            continue;
        }
        const hdg_unknown *x = &p->unknowns[u];
        if (v.ncomp != x->ncomp) {
            sema_error(S, it->expr->loc, "ext(%s) is a %s, but this is a %s", x->name,
                       shape_noun(x->ncomp), shape_noun(v.ncomp));
            continue;
        }
        for (int c = 0; c < x->ncomp; c++) {
            hdg_ext_rule *r = &b->rules[b->nrules++];
            *r = (hdg_ext_rule){.unknown = u, .comp = c, .loc = l->loc};
            r->terms = hdg_arena_alloc(p->arena, (size_t)(v.c[c].n + 1) * sizeof(hdg_ext_term));
            r->data = ex_num(p, 0);
            for (int i = 0; i < v.c[c].n; i++) {
                const mono *m = &v.c[c].m[i];
                if (m->trial.id < 0) r->data = ex_add(p, r->data, m->coef);
                else r->terms[r->nterms++] = (hdg_ext_term){m->trial.id, m->trial.comp, m->coef};
            }
        }
    }
    for (int u = 0; u < p->nunknowns; u++)
        if (p->unknowns[u].needs_exterior && !seen[u])
            sema_error(S, d->loc, "boundary condition '%s' does not define ext(%s), which a flux uses",
                       d->label, p->unknowns[u].name);
}

/* One boundary condition; false when it had errors (reported, or silent
 * because a name it uses was already reported). */
static bool boundary_decl(sema *S, decl *d, hdg_bc *b)
{
    hdg_problem *p = S->p;
    int before = S->d->nerrors;
    if (!markers_decl(S, d, &b->markers)) return false;
    bool dir = !strcmp(d->label, "dirichlet"), neu = !strcmp(d->label, "neumann");
    if (d->kind == D_BCVALUE && !dir && !neu) {
        sema_error(S, d->label_loc, "unknown boundary condition '%s': use dirichlet, neumann, or "
                   "'boundary NAME on MARKERS: ext(u) = ...'%s", d->label, strcmp(d->label, "robin") ? "" :
                   " (a Robin condition is a neumann condition linear in the trace unknown: "
                   "'boundary neumann qn = alpha*uhat - g on M')");
        return false;
    }
    if (d->kind == D_BCVALUE && p->method == HDG_METHOD_DG) {
        sema_error(S, d->label_loc, "%s conditions are for HDG problems; a DG problem defines the "
                   "exterior state: 'boundary NAME on MARKERS: ext(u) = ...'", d->label);
        return false;
    }
    if (d->kind == D_BCEXT && p->method == HDG_METHOD_HDG) {
        sema_error(S, d->label_loc, "exterior states ext(u) = ... are for DG problems; an HDG problem "
                   "uses 'boundary dirichlet' or 'boundary neumann'");
        return false;
    }
    b->kind = d->kind == D_BCEXT ? HDG_BC_EXTERIOR : dir ? HDG_BC_DIRICHLET : HDG_BC_NEUMANN;
    if (b->kind == HDG_BC_DIRICHLET) dirichlet(S, d, b);
    else if (b->kind == HDG_BC_NEUMANN) neumann(S, d, b);
    else exterior(S, d, b);
    return S->d->nerrors == before && (b->kind == HDG_BC_EXTERIOR || b->unknown >= 0);
}

void sema_boundary_decls(sema *S, decl *ds)
{
    hdg_problem *p = S->p;
    for (decl *d = ds; d; d = d->next) {
        if (d->kind != D_BCVALUE && d->kind != D_BCEXT) continue;
        if (!p->boundary_loc.line) p->boundary_loc = d->loc;
        hdg_bc *b = &p->bcs[p->nbcs];
        *b = (hdg_bc){.label = d->label, .loc = d->loc, .unknown = -1, .comp = -1, .flux = -1, .equation = -1};
        if (!boundary_decl(S, d, b)) {
            S->bc_failed = true;
            continue;
        }
        check_overlap(S, p->nbcs);
        p->nbcs++;
    }
}

void sema_marker_list(sema *S)
{
    hdg_problem *p = S->p;
    int total = 0;
    for (int i = 0; i < p->nbcs; i++) total += p->bcs[i].markers.n;
    p->markers = hdg_arena_alloc(p->arena, (size_t)(total + 1) * sizeof(char *));
    for (int i = 0; i < p->nbcs; i++) {
        const hdg_markers *m = &p->bcs[i].markers;
        p->markers_all |= m->all;
        for (int k = 0; k < m->n; k++) {
            bool dup = false;
            for (int j = 0; j < p->nmarkers && !dup; j++) dup = !strcmp(p->markers[j], m->names[k]);
            if (!dup) p->markers[p->nmarkers++] = m->names[k];
        }
    }
}

/* Every trace unknown (HDG) / every unknown a flux needs outside (DG) has a condition, or
 * is marked: no warning here, since a mesh without boundary faces (square:N,periodic=xy)
 * needs none and the run's marker check refuses any other mesh's faces left without one
 * (a warning on every run of a file meant for a torus said nothing); `hdgc check` notes it
 * in its summary. */
void sema_coverage(sema *S, const pairing *pr)
{
    hdg_problem *p = S->p;
    if (S->bc_failed) return;
    for (int u = 0; u < p->nunknowns; u++) {
        hdg_unknown *x = &p->unknowns[u];
        if (pr->failed[u]) continue;
        bool need = p->method == HDG_METHOD_HDG ? x->trace : x->needs_exterior;
        if (!need) continue;
        bool have = false;
        for (int i = 0; i < p->nbcs && !have; i++) have = bc_covers_unknown(&p->bcs[i], u);
        x->no_condition = !have;
    }
}
