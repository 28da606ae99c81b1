/* sema_decl.c — semantic analysis of the declarations before the equations: the header
 * (problem, mesh, degree), spaces and unknowns, params and funcs (with --set), the method
 * family (HDG: trace unknowns; DG: dt() terms) and the spaces' degrees. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sema.h"
#include "support/util.h"

/* ---------------------------------------------------------------- header declarations */

void sema_header(sema *S, decl *ds, const hdg_frontend_options *opt)
{
    hdg_problem *p = S->p;
    decl *first[3] = {NULL, NULL, NULL};
    static const char *what[3] = {"problem", "mesh", "degree"};
    for (decl *d = ds; d; d = d->next) {
        int k = d->kind == D_PROBLEM ? 0 : d->kind == D_MESH ? 1 : d->kind == D_DEGREE ? 2 : -1;
        if (k < 0) continue;
        if (first[k]) {
            sema_error(S, d->loc, "duplicate '%s' declaration (first at %s)", what[k], sema_fmt_loc(S, first[k]->loc));
            continue;
        }
        first[k] = d;
        if (k == 0) {
            p->name = d->name;
            p->loc = d->loc;
        } else if (k == 1) {
            p->mesh = d->name;
            p->mesh_loc = d->name_loc;
            if (strcmp(d->name, "triangle") && strcmp(d->name, "tetrahedron"))
                sema_error(S, d->name_loc, "unsupported mesh '%s': the elements are 'triangle' (2D, the "
                           "default) and 'tetrahedron' (3D)", d->name);
        } else {
            p->degree_name = d->name;
            if (!d->num_is_int || d->num < 1 || d->num > 20)
                sema_error(S, d->num_loc, "the degree must be an integer between 1 and 20");
            else
                p->degree = (int)d->num;
            p->degree_loc = d->num_loc;
            sema_define(S, d->name, SYM_DEGREE, 0, d->name_loc);
        }
    }
    if (!p->mesh) p->mesh = "triangle";
    if (!first[0]) sema_error(S, (hdg_loc){1, 1}, "missing 'problem NAME' declaration");
    if (opt && opt->order) {
        if (opt->order < 1 || opt->order > 20)
            sema_error(S, (hdg_loc){0, 0}, "--order %d: the degree must be between 1 and 20", opt->order);
        else
            p->degree = opt->order, p->degree_loc = (hdg_loc){0, 0};
    }
    if (!first[2] && !(opt && opt->order))
        sema_error(S, first[0] ? first[0]->loc : (hdg_loc){1, 1}, "missing 'degree k = N' declaration");
    if (!p->degree_name) {   /* none declared (an error unless --order): 'k' still names it */
        p->degree_name = "k";
        if (!sema_lookup(S, "k")) sema_define(S, "k", SYM_DEGREE, 0, (hdg_loc){1, 1});
    }
    if (!p->degree) p->degree = 1;
}

static void space_decl(sema *S, decl *d)
{
    hdg_problem *p = S->p;
    hdg_space *sp = &p->spaces[p->nspaces];
    *sp = (hdg_space){.name = d->name, .kind = HDG_SPACE_L2, .degree = p->degree, .loc = d->name_loc,
                      .degree_loc = d->deg_loc};
    bool ok = true;
    if (!strcmp(d->space_kind, "trace")) sp->kind = HDG_SPACE_TRACE;
    else if (strcmp(d->space_kind, "L2")) {
        const char *kinds[] = {"L2", "trace"};
        const char *near = hdg_closest_name(d->space_kind, kinds, 2);
        if (near)
            sema_error(S, d->space_kind_loc, "unknown space kind '%s'; did you mean '%s'? (use L2(P k) or "
                       "trace(P k))", d->space_kind, near);
        else
            sema_error(S, d->space_kind_loc, "unknown space kind '%s': use L2(P k) or trace(P k)", d->space_kind);
        ok = false;
    }
    if (strcmp(d->poly, "P")) {
        sema_error(S, d->poly_loc, "unknown polynomial space '%s': use P, as in L2(P k)", d->poly);
        ok = false;
    }
    if (d->deg_name) {
        symbol *s = sema_lookup(S, d->deg_name);
        if (!s || s->kind != SYM_DEGREE) {
            sema_error(S, d->deg_loc, "'%s' is not the degree; the degree is '%s'", d->deg_name, p->degree_name);
            ok = false;
        } else if (d->deg_offset < 0 || d->deg_offset > 4) {
            sema_error(S, d->deg_offset_loc, "in P %s+N, N must be an integer between 1 and 4", d->deg_name);
            ok = false;
        } else {
            sp->degree_offset = d->deg_offset;
            sp->degree = p->degree + d->deg_offset;
        }
    } else if (d->num < 1 || d->num > 20) {
        sema_error(S, d->deg_loc, "a space degree must be an integer between 1 and 20");
        ok = false;
    } else {
        sp->degree = (int)d->num;
        sp->degree_fixed = true;
    }
    symbol *s = sema_define(S, d->name, SYM_SPACE, p->nspaces, d->name_loc);
    if (s && !ok) s->failed = true;
    p->nspaces++;
}

int sema_space_ref(sema *S, const char *name, hdg_loc loc)
{
    symbol *s = sema_lookup(S, name);
    if (s && s->failed) return -1;
    if (!s) {
        const char *near = sema_suggest(S, name, NULL, SUGGEST_SPACE);
        if (near) sema_error(S, loc, "undefined space '%s'; did you mean '%s'?", name, near);
        else sema_error(S, loc, "undefined space '%s'", name);
        return -1;
    }
    if (s->kind != SYM_SPACE) {
        sema_error(S, loc, "'%s' is not a space", name);
        return -1;
    }
    return s->index;
}

/* The shapes of a file of dimension 2: V, V^2, V^(2x2); of dimension 3: V, V^3, V^(3x3). */
bool sema_power_ok(sema *S, const item *it)
{
    int d = S->p->dim;
    if (it->tensor ? it->power == d * d : it->power == 1 || it->power == d) return true;
    bool other = it->tensor ? it->power == 4 || it->power == 9 : it->power == 2 || it->power == 3;
    if (other && d == 2)
        sema_error(S, it->power_loc, "%s^%s needs 'mesh tetrahedron': this file is two-dimensional (mesh "
                   "triangle), its vectors are %s^2 and its tensors %s^(2x2)", it->space,
                   it->tensor ? "(3x3)" : "3", it->space, it->space);
    else if (other)
        sema_error(S, it->power_loc, "%s^%s is two-dimensional: in a file with 'mesh tetrahedron' a vector "
                   "has 3 components (%s^3) and a tensor 3x3 (%s^(3x3))", it->space, it->tensor ? "(2x2)" : "2",
                   it->space, it->space);
    else if (it->tensor)
        sema_error(S, it->power_loc, "only %dx%d tensors are supported (%s^(%dx%d))", d, d, it->space, d, d);
    else
        sema_error(S, it->power_loc, "only scalars, %d-vectors and %dx%d tensors are supported (%s^N with N = 1 "
                   "or %d, or %s^(%dx%d))", d, d, d, it->space, d, it->space, d, d);
    return false;
}

static void unknown_decl(sema *S, decl *d, bool *failed)
{
    hdg_problem *p = S->p;
    bool trace = d->kind == D_TRACE, post = d->kind == D_POST;
    for (item *it = d->items.head; it; it = it->next) {
        int id = p->nunknowns++;
        hdg_unknown *u = &p->unknowns[id];
        *u = (hdg_unknown){.name = it->name, .ncomp = 1, .space = -1, .trace = trace, .post = post,
                           .equation = -1, .mean = -1, .loc = it->loc};
        u->index = trace ? p->ntrace++ : post ? p->npost++ : p->nelement++;
        symbol *s = sema_define(S, it->name, SYM_UNKNOWN, id, it->loc);
        int sp = sema_space_ref(S, it->space, it->space_loc);
        bool ok = sp >= 0 && sema_power_ok(S, it);
        if (sp >= 0 && p->spaces[sp].kind == HDG_SPACE_TRACE && !trace) {
            if (post)
                sema_error(S, it->space_loc, "post-processed unknown '%s' needs an L2 space, but '%s' is a "
                           "trace space", it->name, it->space);
            else
                sema_error(S, it->space_loc, "element unknown '%s' needs an L2 space, but '%s' is a trace "
                           "space (declare it with 'trace %s : %s')", it->name, it->space, it->name, it->space);
            ok = false;
        }
        if (sp >= 0 && p->spaces[sp].kind == HDG_SPACE_L2 && trace) {
            sema_error(S, it->space_loc, "trace unknown '%s' needs a trace space, but '%s' is an L2 space",
                       it->name, it->space);
            ok = false;
        }
        if (ok) {
            u->space = sp;
            u->ncomp = it->power;
        }
        failed[id] = !ok || !s;
        if (s && !ok) s->failed = true;
    }
}

/* ---------------------------------------------------------------- params, funcs */

static void apply_sets(sema *S, const hdg_frontend_options *opt, const double **override)
{
    for (int i = 0; opt && i < opt->nsets; i++) {
        const char *name = opt->sets[i].name;
        symbol *s = sema_lookup(S, name);
        if (s && s->kind == SYM_PARAM) {
            override[s->index] = &opt->sets[i].value;
            continue;
        }
        if (s) {
            sema_error(S, (hdg_loc){0, 0}, "--set %s: '%s' is not a param", name, name);
            continue;
        }
        const char **names = hdg_arena_alloc(S->tmp, (size_t)(S->p->nparams + 1) * sizeof(char *));
        for (int k = 0; k < S->p->nparams; k++) names[k] = S->p->params[k].name;
        const char *near = hdg_closest_name(name, names, S->p->nparams);
        if (near) sema_error(S, (hdg_loc){0, 0}, "--set %s: no param named '%s'; did you mean '%s'?", name, name, near);
        else sema_error(S, (hdg_loc){0, 0}, "--set %s: no param named '%s'", name, name);
    }
}

static void param_decl(sema *S, decl *d, symbol *s, const double *override)
{
    hdg_problem *p = S->p;
    hdg_param *pa = &p->params[s->index];
    char where[300];
    snprintf(where, sizeof where, "param '%s'", d->name);
    ectx cx = sema_data_ctx(hdg_arena_strdup(S->tmp, where), 0, false);
    const hdg_expr *e[HDG_MAX_COMP];
    int nc = 1;
    if (!sema_data_expr(S, &cx, d->expr, 0, &nc, e, "a param")) {
        s->failed = true;
        return;
    }
    if (nc != 1) {
        sema_error(S, d->expr->loc, "param '%s' is a %s, but a param is a number (a constant %s is a func "
                   "without arguments: 'func %s() = ...')", d->name, shape_noun(nc), shape_noun(nc), d->name);
        s->failed = true;
        return;
    }
    pa->expr = e[0];
    hdg_eval_env env = {.problem = p};
    pa->value = override ? *override : hdg_expr_eval(e[0], &env);
    pa->overridden = override != NULL;
    if (!isfinite(pa->value)) {
        sema_error(S, d->name_loc, "param '%s' is not a finite number", d->name);
        s->failed = true;
        return;
    }
    s->ready = true;
}

static void func_decl(sema *S, decl *d, symbol *s)
{
    hdg_problem *p = S->p;
    hdg_func *f = &p->funcs[s->index];
    unsigned mask = 0;
    bool ok = true;
    bool d3 = p->dim == 3;
    for (item *it = d->items.head; it; it = it->next) {
        int v = !strcmp(it->name, "x") ? HDG_VAR_X : !strcmp(it->name, "y") ? HDG_VAR_Y
              : !strcmp(it->name, "t") ? HDG_VAR_T : d3 && !strcmp(it->name, "z") ? HDG_VAR_Z : -1;
        if (v < 0) {
            /* kappa(s) or kappa(u) for a coefficient of the unknown: say how that is written */
            const char *hint = ": a func of an unknown is written in x and called with it "
                               "('func kappa(x) = 1 + x^2', then kappa(u))";
            if (d3)
                sema_error(S, it->loc, "func arguments must be x, y, z or t (funcs are functions of the "
                           "coordinates)%s", hint);
            else
                sema_error(S, it->loc, "func arguments must be x, y or t (funcs are functions of the "
                           "coordinates)%s", !strcmp(it->name, "z") ? ": 'z' needs 'mesh tetrahedron'" : hint);
            ok = false;
        } else if (mask & (1u << v)) {
            sema_error(S, it->loc, "argument '%s' appears twice", it->name);
            ok = false;
        } else {
            mask |= 1u << v;
            f->args[f->nargs++] = (hdg_var)v;
        }
    }
    char where[300];
    snprintf(where, sizeof where, "func '%s'", d->name);
    ectx cx = sema_data_ctx(hdg_arena_strdup(S->tmp, where), mask, false);
    const hdg_expr *e[HDG_MAX_COMP] = {NULL};
    if (!ok || !sema_data_expr(S, &cx, d->expr, 0, &f->ncomp, e, "the func")) {
        s->failed = true;
        return;
    }
    for (int c = 0; c < f->ncomp; c++) f->body[c] = e[c];
    s->ready = true;
}

/* Registers params, funcs, fluxes and unknowns, then builds params and funcs in
 * file order (a param or func may use only those defined above it). */
void sema_definitions(sema *S, decl *ds, const hdg_frontend_options *opt, bool *ufailed)
{
    hdg_problem *p = S->p;
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_SPACE) space_decl(S, d);
    symbol **syms = hdg_arena_alloc(S->tmp, (size_t)(p->nparams + p->nfuncs + 1) * sizeof(symbol *));
    int np = 0, nf = 0;
    for (decl *d = ds; d; d = d->next) {
        if (d->kind == D_PARAM || d->kind == D_FUNC) {
            bool par = d->kind == D_PARAM;
            int idx = par ? np++ : nf++;
            if (par) p->params[idx] = (hdg_param){d->name, 0, NULL, false, d->name_loc};
            else p->funcs[idx] = (hdg_func){.name = d->name, .ncomp = 1, .loc = d->name_loc};
            symbol *s = sema_define(S, d->name, par ? SYM_PARAM : SYM_FUNC, idx, d->name_loc);
            if (s) s->ready = false;
            syms[par ? idx : p->nparams + idx] = s;
        } else if (d->kind == D_FLUX) {
            flux_def *fl = &S->fluxes[S->nfluxes];
            *fl = (flux_def){d->name, d->expr, d->name_loc, 0, 0, -1, 0};
            p->flux_names[S->nfluxes] = d->name;
            sema_define(S, d->name, SYM_FLUX, S->nfluxes++, d->name_loc);
        } else if (d->kind == D_UNKNOWN || d->kind == D_TRACE || d->kind == D_POST) {
            unknown_decl(S, d, ufailed);
        }
    }
    p->nfluxes = S->nfluxes;
    const double **override = hdg_arena_alloc(S->tmp, (size_t)(p->nparams + 1) * sizeof(double *));
    apply_sets(S, opt, override);
    np = nf = 0;
    for (decl *d = ds; d; d = d->next) {
        if (d->kind == D_PARAM) {
            int idx = np++;
            if (syms[idx]) param_decl(S, d, syms[idx], override[idx]);
            else p->params[idx].expr = ex_num(p, 0);
        } else if (d->kind == D_FUNC) {
            int idx = nf++;
            if (syms[p->nparams + idx]) func_decl(S, d, syms[p->nparams + idx]);
            if (!p->funcs[idx].body[0]) p->funcs[idx].body[0] = ex_num(p, 0);
            for (int c = 1; c < p->funcs[idx].ncomp; c++)
                if (!p->funcs[idx].body[c]) p->funcs[idx].body[c] = ex_num(p, 0);
        }
    }
}

/* ---------------------------------------------------------------- method family */

static const ast *find_dt(const ast *a)
{
    if (!a) return NULL;
    if (a->kind == AST_CALL && !strcmp(a->name, "dt")) return a;
    const ast *r;
    if ((r = find_dt(a->a)) || (r = find_dt(a->b)) || (r = find_dt(a->c))) return r;
    for (int i = 0; i < a->nargs; i++)
        if ((r = find_dt(a->args[i]))) return r;
    return NULL;
}

/* true when the equations can be expanded (the family is known). */
bool sema_decide_method(sema *S, decl *ds)
{
    hdg_problem *p = S->p;
    const ast *dt = NULL;
    for (decl *d = ds; d && !dt; d = d->next) {
        if (d->kind == D_EQUATION && !(dt = find_dt(d->lhs))) dt = find_dt(d->expr);
        if (d->kind == D_FLUX) dt = find_dt(d->expr);
    }
    p->transient = dt && p->ntrace > 0;   /* HDG with implicit time stepping */
    if (!dt && p->ntrace == 0) {
        if (p->nequations > 0 && p->nunknowns > 0)
            sema_error(S, p->loc, "cannot tell the method: the problem has no trace unknown (HDG) "
                                  "and no dt() term (DG)");
        return false;
    }
    p->method = dt && !p->transient ? HDG_METHOD_DG : HDG_METHOD_HDG;
    return true;
}

/* The lowerings build every element and trace unknown (and their tests, which share
 * their spaces) on the problem degree; only a post-processed unknown has its own
 * degree. A space of another degree would be shown by 'check' and ignored by 'run':
 * refuse it at its degree. */
void sema_space_degrees(sema *S)
{
    hdg_problem *p = S->p;
    if (p->method == HDG_METHOD_DG && p->degree > HDG_DG_MAX_DEGREE) {
        if (p->degree_loc.line)
            sema_error(S, p->degree_loc, "a DG problem's degree must be between 1 and %d (HDG: up to 20)",
                       HDG_DG_MAX_DEGREE);
        else
            sema_error(S, p->degree_loc, "--order %d: a DG problem's degree must be between 1 and %d (HDG: up "
                       "to 20)", p->degree, HDG_DG_MAX_DEGREE);
    }
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        int s = x->space;
        if (s < 0 || x->post || p->spaces[s].degree == p->degree) continue;
        bool seen = false;
        for (int v = 0; v < u && !seen; v++)
            seen = p->unknowns[v].space == s && !p->unknowns[v].post;
        if (seen) continue;
        const hdg_space *sp = &p->spaces[s];
        const char *k = p->degree_name;
        char deg[64];
        if (sp->degree_fixed) snprintf(deg, sizeof deg, "P %d", sp->degree);
        else snprintf(deg, sizeof deg, "P %s+%d = P %d", k, sp->degree_offset, sp->degree);
        sema_error(S, sp->degree_loc, "space %s is %s but the problem's degree is %s = %d: %s must be P %s "
                   "(only a postprocess space may have another degree); write %s(P %s)", sp->name, deg, k,
                   p->degree, p->method == HDG_METHOD_HDG ? "element and trace spaces" : "element spaces", k,
                   sp->kind == HDG_SPACE_TRACE ? "trace" : "L2", k);
    }
}
