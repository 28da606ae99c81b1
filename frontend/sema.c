/* sema.c — semantic analysis: from the parser's declarations to a checked
 * hdg_problem. Resolves names (one global scope plus the equation's test
 * function), applies --order and --set, evaluates params, builds funcs, decides
 * the method family (HDG: trace unknowns; DG: dt() terms), expands and
 * classifies every equation (expand.c does the algebra), pairs equations with
 * unknowns, and checks boundary conditions, exact solutions, initial conditions
 * and time settings. Reports every error it can find in one run. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/sema.h"
#include "support/util.h"

/* ---------------------------------------------------------------- errors, symbols */

void sema_error(sema *S, hdg_loc loc, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (int i = 0; i < S->d->count; i++) {   /* a flux used twice reports once */
        const hdg_diag *g = &S->d->items[i];
        if (g->loc.line == loc.line && g->loc.col == loc.col && !strcmp(g->msg, msg)) return;
    }
    hdg_diag_add(S->d, HDG_DIAG_ERROR, loc, "%s", msg);
}

static unsigned long long name_hash(const char *s) { return hdg_hash64(s, strlen(s), 0); }

symbol *sema_lookup(sema *S, const char *name)
{
    if (!S->cap) return NULL;
    unsigned mask = (unsigned)S->cap - 1;
    for (unsigned i = (unsigned)name_hash(name) & mask;; i = (i + 1) & mask) {
        if (!S->table[i]) return NULL;
        if (!strcmp(S->table[i]->name, name)) return S->table[i];
    }
}

static void table_put(sema *S, symbol *s)
{
    if (2 * (S->count + 1) > S->cap) {
        symbol **old = S->table;
        int oldcap = S->cap;
        S->cap = S->cap ? 2 * S->cap : 256;
        S->table = hdg_arena_alloc(S->tmp, (size_t)S->cap * sizeof(symbol *));
        S->count = 0;
        for (int i = 0; i < oldcap; i++)
            if (old[i]) table_put(S, old[i]);
    }
    unsigned mask = (unsigned)S->cap - 1;
    unsigned i = (unsigned)name_hash(s->name) & mask;
    while (S->table[i]) i = (i + 1) & mask;
    S->table[i] = s;
    S->count++;
}

/* The builtins that are part of the language's structure (func arguments, the time
 * derivative that decides the method, the exterior state of a boundary condition):
 * never the name of anything else. Every other builtin yields to a name of the file. */
static bool reserved(const char *name)
{
    static const char *core[] = {"x", "y", "t", "dt", "ext", "z"};   /* z: defined in 3D files only */
    for (size_t i = 0; i < sizeof core / sizeof *core; i++)
        if (!strcmp(core[i], name)) return true;
    return false;
}

/* A name of the file that is also a builtin's hides the builtin in this file, with a
 * warning (so that a builtin added later never breaks a file that worked); false (and an
 * error) for a reserved one. */
static bool shadow_builtin(sema *S, const symbol *old, hdg_loc loc, const char *what)
{
    if (reserved(old->name)) {
        sema_error(S, loc, "'%s' is a builtin name and cannot be %s", old->name, what);
        return false;
    }
    hdg_diag_add(S->d, HDG_DIAG_WARNING, loc, "'%s' is also the name of a builtin %s; this file's definition "
                 "hides the builtin here", old->name, old->kind == SYM_FN || old->kind == SYM_OP ? "function"
                 : old->kind == SYM_PI ? "constant" : "value (the normal)");
    return true;
}

/* Puts s in the slot of the symbol old (a builtin it hides). */
static void table_replace(sema *S, const symbol *old, symbol *s)
{
    for (int i = 0; i < S->cap; i++)
        if (S->table[i] == old) S->table[i] = s;
}

/* Defines a name; NULL (and an error) when it is taken. */
static symbol *define(sema *S, const char *name, sym_kind kind, int index, hdg_loc loc)
{
    symbol *old = sema_lookup(S, name);
    if (old && old->loc.line != 0) {
        sema_error(S, loc, "duplicate definition of '%s' (first defined at %d:%d)", name, old->loc.line, old->loc.col);
        return NULL;
    }
    if (old && !shadow_builtin(S, old, loc, "redefined")) return NULL;
    symbol *s = hdg_arena_alloc(S->tmp, sizeof *s);
    *s = (symbol){name, kind, index, loc, true, false};
    if (old) table_replace(S, old, s);
    else table_put(S, s);
    return s;
}

static bool callable(sym_kind k) { return k == SYM_FN || k == SYM_OP || k == SYM_FUNC; }

const char *sema_suggest(sema *S, const char *name, const char *test, sugg_kind want)
{
    const char **names = hdg_arena_alloc(S->tmp, (size_t)(S->count + 1) * sizeof(char *));
    int n = 0;
    for (int i = 0; i < S->cap; i++) {
        const symbol *s = S->table[i];
        if (!s) continue;
        if ((want == SUGGEST_VALUE && s->kind == SYM_SPACE) || (want == SUGGEST_CALL && !callable(s->kind)) ||
            (want == SUGGEST_SPACE && s->kind != SYM_SPACE) || (want == SUGGEST_UNKNOWN && s->kind != SYM_UNKNOWN))
            continue;
        if (want == SUGGEST_VALUE && (s->kind == SYM_OP || s->kind == SYM_FN)) continue;   /* not values */
        names[n++] = s->name;
    }
    if (test) names[n++] = test;
    return hdg_closest_name(name, names, n);
}

/* The builtins of a file of dimension S->p->dim: 'z', 'nz', 'dz', 'curl' and 'cross' exist only in
 * 3D files (a 2D file may name its own things so, as its test function 'z'). */
static void define_builtins(sema *S)
{
    static const char *fns[] = {"sin", "cos", "exp", "log", "sqrt", "tanh", "abs"};
    static const char *ops[OP_COUNT] = {"grad", "div", "dx", "dy", "dot", "dt", "jump", "avg", "ext",
                                        "transpose", "inv", "det", "trace", "outer", "dz", "curl", "cross"};
    hdg_loc none = {0, 0};
    bool d3 = S->p->dim == 3;
    define(S, "pi", SYM_PI, 0, none);
    define(S, "x", SYM_COORD, HDG_VAR_X, none);
    define(S, "y", SYM_COORD, HDG_VAR_Y, none);
    if (d3) define(S, "z", SYM_COORD, HDG_VAR_Z, none);
    define(S, "t", SYM_COORD, HDG_VAR_T, none);
    define(S, "nx", SYM_NORMAL, 0, none);
    define(S, "ny", SYM_NORMAL, 1, none);
    if (d3) define(S, "nz", SYM_NORMAL, 2, none);
    define(S, "n", SYM_VNORMAL, 0, none);
    for (int i = 0; i < 7; i++) define(S, fns[i], SYM_FN, i, none);
    for (int i = 0; i < (d3 ? OP_COUNT : OP_COUNT_2D); i++) define(S, ops[i], SYM_OP, i, none);
}

bool sema_3d_only(sema *S, const char *name, hdg_loc loc)
{
    static const char *names[] = {"z", "nz", "dz", "curl", "cross"};
    if (S->p->dim == 3) return false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(names[i], name)) {
            sema_error(S, loc, "'%s' needs 'mesh tetrahedron': this file is two-dimensional (mesh triangle)",
                       name);
            return true;
        }
    return false;
}

unsigned sema_all_coords(const sema *S)
{
    unsigned xyt = 1u << HDG_VAR_X | 1u << HDG_VAR_Y | 1u << HDG_VAR_T;
    return S->p->dim == 3 ? xyt | 1u << HDG_VAR_Z : xyt;
}

/* The dimension the file's first 'mesh' line states (2 without one, or for an unknown element:
 * header() reports it). */
static int file_dim(const decl *ds)
{
    for (const decl *d = ds; d; d = d->next)
        if (d->kind == D_MESH) return !strcmp(d->name, "tetrahedron") ? 3 : 2;
    return 2;
}

static const char *fmt_loc(sema *S, hdg_loc l)
{
    char *s = hdg_arena_alloc(S->tmp, 32);
    snprintf(s, 32, "%d:%d", l.line, l.col);
    return s;
}

const char *sema_space_str(sema *S, int space, int ncomp)
{
    const char *name = space >= 0 ? S->p->spaces[space].name : "?";
    if (ncomp == 1) return name;
    char *s = hdg_arena_alloc(S->tmp, strlen(name) + 8);
    if (ncomp == 4) sprintf(s, "%s^(2x2)", name);
    else if (ncomp == 9) sprintf(s, "%s^(3x3)", name);
    else sprintf(s, "%s^%d", name, ncomp);
    return s;
}

static const char *space_str(sema *S, int space, int ncomp) { return sema_space_str(S, space, ncomp); }

static ectx data_ctx(const char *where, unsigned coords, bool normals)
{
    ectx cx = {0};
    cx.mode = X_DATA;
    cx.coords = coords;
    cx.normals = normals;
    cx.where = where;
    cx.test_id = -1;
    cx.eq = -1;
    return cx;
}


/* Expands a data expression (no unknowns, no tests) of ncomp components
 * (0: any shape); NULL on errors. out[] gets the components (room for want of them,
 * HDG_MAX_COMP when want is 0). */
static bool data_expr(sema *S, const ectx *cx, const ast *a, int want, int *ncomp,
                      const hdg_expr **out, const char *what)
{
    val v = expand(S, cx, a);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_FORM) {
        sema_error(S, a->loc, "integrals (a, b) and <a, b> can only appear in equations");
        return false;
    }
    if (want && v.ncomp != want) {
        sema_error(S, a->loc, "%s is a %s, but a %s is expected", what, shape_noun(v.ncomp),
                   shape_noun(want));
        return false;
    }
    for (int c = 0; c < v.ncomp; c++) {
        out[c] = val_data(S, &v, c);
        if (ex_too_big(out[c])) {
            sema_error(S, a->loc, "%s is too large when expanded (more than %d nodes or %d levels)", what,
                       HDG_EXPR_MAX_SIZE, HDG_EXPR_MAX_DEPTH);
            return false;
        }
    }
    if (ncomp) *ncomp = v.ncomp;
    return true;
}

/* ---------------------------------------------------------------- header declarations */

static void header(sema *S, decl *ds, const hdg_frontend_options *opt)
{
    hdg_problem *p = S->p;
    decl *first[3] = {NULL, NULL, NULL};
    static const char *what[3] = {"problem", "mesh", "degree"};
    for (decl *d = ds; d; d = d->next) {
        int k = d->kind == D_PROBLEM ? 0 : d->kind == D_MESH ? 1 : d->kind == D_DEGREE ? 2 : -1;
        if (k < 0) continue;
        if (first[k]) {
            sema_error(S, d->loc, "duplicate '%s' declaration (first at %s)", what[k], fmt_loc(S, first[k]->loc));
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
            define(S, d->name, SYM_DEGREE, 0, d->name_loc);
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
        if (!sema_lookup(S, "k")) define(S, "k", SYM_DEGREE, 0, (hdg_loc){1, 1});
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
    symbol *s = define(S, d->name, SYM_SPACE, p->nspaces, d->name_loc);
    if (s && !ok) s->failed = true;
    p->nspaces++;
}

static int space_ref(sema *S, const char *name, hdg_loc loc)
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
static bool power_ok(sema *S, const item *it)
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
        symbol *s = define(S, it->name, SYM_UNKNOWN, id, it->loc);
        int sp = space_ref(S, it->space, it->space_loc);
        bool ok = sp >= 0 && power_ok(S, it);
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
    ectx cx = data_ctx(hdg_arena_strdup(S->tmp, where), 0, false);
    const hdg_expr *e[HDG_MAX_COMP];
    int nc = 1;
    if (!data_expr(S, &cx, d->expr, 0, &nc, e, "a param")) {
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
            if (d3)
                sema_error(S, it->loc, "func arguments must be x, y, z or t (funcs are functions of the "
                           "coordinates)");
            else
                sema_error(S, it->loc, "func arguments must be x, y or t (funcs are functions of the "
                           "coordinates)%s", !strcmp(it->name, "z") ? ": 'z' needs 'mesh tetrahedron'" : "");
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
    ectx cx = data_ctx(hdg_arena_strdup(S->tmp, where), mask, false);
    const hdg_expr *e[HDG_MAX_COMP] = {NULL};
    if (!ok || !data_expr(S, &cx, d->expr, 0, &f->ncomp, e, "the func")) {
        s->failed = true;
        return;
    }
    for (int c = 0; c < f->ncomp; c++) f->body[c] = e[c];
    s->ready = true;
}

/* Registers params, funcs, fluxes and unknowns, then builds params and funcs in
 * file order (a param or func may use only those defined above it). */
static void definitions(sema *S, decl *ds, const hdg_frontend_options *opt, bool *ufailed)
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
            symbol *s = define(S, d->name, par ? SYM_PARAM : SYM_FUNC, idx, d->name_loc);
            if (s) s->ready = false;
            syms[par ? idx : p->nparams + idx] = s;
        } else if (d->kind == D_FLUX) {
            flux_def *fl = &S->fluxes[S->nfluxes];
            *fl = (flux_def){d->name, d->expr, d->name_loc, 0, 0, -1, 0};
            p->flux_names[S->nfluxes] = d->name;
            define(S, d->name, SYM_FLUX, S->nfluxes++, d->name_loc);
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
static bool decide_method(sema *S, decl *ds)
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
static void space_degrees(sema *S)
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

/* ---------------------------------------------------------------- equations */

typedef struct pairing {
    bool *failed;        /* per unknown: its declaration had errors */
    bool *reported;      /* per unknown: already named in a wrong-space error */
    bool eq_failed;      /* some equation had errors (its unknown is unknown) */
} pairing;

static bool test_decl(sema *S, decl *d, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    item *t = &d->test;
    hdg_test *tt = &p->tests[ei];
    *tt = (hdg_test){t->name, 1, -1, t->loc};
    symbol *clash = sema_lookup(S, t->name);
    if (clash && clash->loc.line != 0) {
        sema_error(S, t->loc, "duplicate definition of '%s' (first defined at %d:%d)", t->name, clash->loc.line,
                   clash->loc.col);
        return false;
    }
    if (clash && !shadow_builtin(S, clash, t->loc, "a test function")) return false;   /* its equation's name */
    int sp = space_ref(S, t->space, t->space_loc);
    if (sp < 0 || !power_ok(S, t)) return false;
    tt->space = sp;
    tt->ncomp = t->power;
    (void)pr;
    return true;
}

/* Pairs an HDG equation with the first unknown of its test's space and shape. */
static void pair_hdg(sema *S, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    const hdg_test *t = &p->tests[ei];
    int left = -1;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->equation >= 0 || pr->failed[u] || x->post) continue;
        if (x->space == t->space && x->ncomp == t->ncomp) {
            p->unknowns[u].equation = ei;
            p->equations[ei].unknown = u;
            return;
        }
        if (left < 0 && !pr->reported[u]) left = u;
    }
    if (left >= 0) {
        const hdg_unknown *x = &p->unknowns[left];
        sema_error(S, t->loc, "test function '%s' is in %s, but the unknown left without an equation, "
                   "'%s', is in %s", t->name, space_str(S, t->space, t->ncomp), x->name,
                   space_str(S, x->space, x->ncomp));
        pr->reported[left] = true;
    } else {
        sema_error(S, t->loc, "test function '%s' : %s matches no unknown without an equation",
                   t->name, space_str(S, t->space, t->ncomp));
    }
}

/* A DG equation determines the unknown under dt(). */
static void pair_dg_(sema *S, int ei, pairing *pr);
static void pair_dg(sema *S, int ei, pairing *pr)
{
    int before = S->d->nerrors;
    pair_dg_(S, ei, pr);
    if (S->d->nerrors != before && S->p->equations[ei].unknown < 0) pr->eq_failed = true;
}

static void pair_dg_(sema *S, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    hdg_equation *e = &p->equations[ei];
    const hdg_test *t = &p->tests[ei];
    int u = -1;
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        if (!a->dt) continue;
        if (u >= 0 && a->trial != u) {
            sema_error(S, a->loc, "dt() of two unknowns in one equation ('%s' and '%s')",
                       p->unknowns[u].name, p->unknowns[a->trial].name);
            return;
        }
        u = a->trial;
    }
    if (u < 0) {
        sema_error(S, e->loc, "equation has no dt() term: in a DG problem each equation advances one "
                              "unknown in time, as in (dt(u), v) = ...");
        return;
    }
    hdg_unknown *x = &p->unknowns[u];
    if (x->equation >= 0) {
        sema_error(S, e->loc, "unknown '%s' is advanced by two equations (at %s and here)", x->name,
                   fmt_loc(S, p->equations[x->equation].loc));
        return;
    }
    if (x->space != t->space || x->ncomp != t->ncomp) {
        sema_error(S, t->loc, "test function '%s' is in %s, but the equation advances '%s', which is in %s",
                   t->name, space_str(S, t->space, t->ncomp), x->name, space_str(S, x->space, x->ncomp));
        x->equation = ei;   /* reported: no "has no equation" as well */
        e->unknown = u;
        return;
    }
    x->equation = ei;
    e->unknown = u;
}

static hdg_role role_of(const hdg_problem *p, const hdg_equation *e, const hdg_atom *a)
{
    if (a->trial < 0) return HDG_ROLE_SOURCE;
    if (e->post) return p->unknowns[a->trial].post ? HDG_ROLE_POST : HDG_ROLE_POST_SOURCE;
    if (p->method == HDG_METHOD_DG)
        return a->dt ? HDG_ROLE_TIME : a->domain == HDG_VOLUME ? HDG_ROLE_VOLUME : HDG_ROLE_FLUX;
    if (a->dt) return HDG_ROLE_TIME;
    bool tr = p->unknowns[a->trial].trace;
    if (e->trace) return tr ? HDG_ROLE_TRACE_TRACE : HDG_ROLE_TRACE_LOCAL;
    return tr ? HDG_ROLE_LOCAL_TRACE : HDG_ROLE_LOCAL_LOCAL;
}

/* Adds a side's atoms: trial atoms go left (sign), sources right (-sign). */
static bool same_coupling(const hdg_atom *a, const hdg_atom *b)
{
    return a->domain == b->domain && a->markers == b->markers && a->test_comp == b->test_comp &&
           a->test_op == b->test_op && a->trial == b->trial && a->trial_comp == b->trial_comp &&
           a->trial_op == b->trial_op && a->side == b->side && a->dt == b->dt && a->role == b->role;
}

static const hdg_expr *balanced_sum(hdg_problem *p, const hdg_expr **c, int n)
{
    if (n == 1) return c[0];
    int h = (n + 1) / 2;
    return ex_add(p, balanced_sum(p, c, h), balanced_sum(p, c + h, n - h));
}

/* Atoms of one coupling (same test, trial, operators, side, domain, role) are one
 * integral of the sum of their coefficients: merged, in the order of their first
 * appearance, so the kernels have as many terms as the problem has couplings however
 * many integrals the equation writes (5000 copies of (c*u, w) would be 5000 loops for
 * the C compiler, whose time grows faster than linearly with them). */
static void merge_atoms(sema *S, hdg_equation *e)
{
    int n = e->natoms, out = 0;
    const hdg_expr **c = hdg_xmalloc((size_t)(n + 1) * sizeof *c);
    bool *done = hdg_xcalloc((size_t)n + 1, sizeof *done);
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        int m = 0;
        for (int j = i; j < n; j++)
            if (!done[j] && same_coupling(&e->atoms[i], &e->atoms[j])) {
                c[m++] = e->atoms[j].coef;
                done[j] = true;
            }
        hdg_atom a = e->atoms[i];
        if (m > 1) a.coef = balanced_sum(S->p, c, m);
        if (hdg_expr_is_num(a.coef, 0)) continue;
        if (ex_too_big(a.coef)) {
            sema_error(S, a.loc, "the terms of this coupling are too large when summed (more than %d nodes "
                       "or %d levels)", HDG_EXPR_MAX_SIZE, HDG_EXPR_MAX_DEPTH);
            continue;
        }
        e->atoms[out++] = a;
    }
    e->natoms = out;
    free(c);
    free(done);
}

/* ---------------------------------------------------------------- nonlinear terms */

/* Every distinct STATE leaf of e, appended to leaves[0..*n) (at most cap). */
static void state_leaves(const hdg_expr *e, const hdg_expr **leaves, int *n, int cap)
{
    if (e->kind == HDG_EX_STATE) {
        for (int i = 0; i < *n; i++)
            if (leaves[i]->index == e->index && leaves[i]->comp == e->comp && leaves[i]->op == e->op &&
                leaves[i]->side == e->side)
                return;
        if (*n < cap) leaves[(*n)++] = e;
        return;
    }
    for (int i = 0; i < e->nkids; i++) state_leaves(e->kid[i], leaves, n, cap);
}

/* A residual term: coef (moved to the left-hand side) times the test; merged with an earlier one of the
 * same domain and test component/operator. */
static void put_residual(sema *S, hdg_equation *e, const fatom *f, const hdg_expr *coef)
{
    hdg_problem *p = S->p;
    for (int u = 0; u < p->nunknowns; u++)
        if (p->unknowns[u].post && ex_mentions_unknown(coef, u)) {
            sema_error(S, f->loc, "nonlinear term in the post-processed unknown '%s': post-processing is "
                       "linear in it", p->unknowns[u].name);
            return;
        }
    for (int i = 0; i < e->nresiduals; i++) {
        hdg_residual *r = &e->residuals[i];
        if (r->domain == f->domain && r->test_comp == f->m.test.comp && r->test_op == f->m.test.op) {
            r->coef = ex_add(p, r->coef, coef);
            return;
        }
    }
    e->residuals[e->nresiduals++] = (hdg_residual){.domain = f->domain, .test = e->test,
                                                   .test_comp = f->m.test.comp, .test_op = f->m.test.op,
                                                   .coef = coef, .loc = f->loc};
}

#define HDG_MAX_STATE_LEAVES 64

/* The Jacobian atoms of a residual term: d coef / d STATE(u, c, op, side) for each leaf it reads. */
static void residual_jacobian(sema *S, const hdg_equation *e, hdg_residual *r)
{
    hdg_problem *p = S->p;
    const hdg_expr *leaves[HDG_MAX_STATE_LEAVES];
    int n = 0;
    state_leaves(r->coef, leaves, &n, HDG_MAX_STATE_LEAVES);
    if (n == HDG_MAX_STATE_LEAVES) {
        sema_error(S, r->loc, "this nonlinear term reads more than %d values of the unknowns",
                   HDG_MAX_STATE_LEAVES - 1);
        return;
    }
    r->jac = hdg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof(hdg_atom));
    for (int i = 0; i < n; i++) {
        const hdg_expr *s = leaves[i];
        const hdg_expr *d = hdg_expr_diff_state(p, r->coef, s->index, s->comp, s->op, s->side);
        if (!d) {
            sema_error(S, r->loc, "this nonlinear term is too large to differentiate");
            return;
        }
        if (hdg_expr_is_num(d, 0)) continue;
        hdg_atom *a = &r->jac[r->njac++];
        *a = (hdg_atom){.domain = r->domain, .markers = r->markers, .test = r->test, .test_comp = r->test_comp,
                        .test_op = r->test_op, .trial = s->index, .trial_comp = s->comp,
                        .trial_op = (hdg_op)s->op, .side = (hdg_side)s->side, .coef = d, .loc = r->loc};
        a->role = role_of(p, e, a);
    }
}

static void residual_jacobians(sema *S, hdg_equation *e)
{
    int k = 0;
    for (int i = 0; i < e->nresiduals; i++)   /* terms that cancelled: none */
        if (!hdg_expr_is_num(e->residuals[i].coef, 0)) e->residuals[k++] = e->residuals[i];
    e->nresiduals = k;
    if (k && e->post) {
        sema_error(S, e->residuals[0].loc, "nonlinear term in the post-processing equation for '%s': "
                   "post-processing equations are linear", e->unknown >= 0 ? S->p->unknowns[e->unknown].name : "?");
        return;
    }
    for (int i = 0; i < k; i++) residual_jacobian(S, e, &e->residuals[i]);
    if (k) S->p->nonlinear = true;
}

static void put_atoms(sema *S, hdg_equation *e, const val *v, int sign)
{
    hdg_problem *p = S->p;
    for (int i = 0; i < v->natoms; i++) {
        const fatom *f = &v->atoms[i];
        bool src = f->m.trial.id < 0;
        if (src && hdg_expr_has_state(f->m.coef)) {
            put_residual(S, e, f, sign > 0 ? f->m.coef : ex_neg(p, f->m.coef));
            continue;
        }
        const hdg_expr *c = (sign > 0) != src ? f->m.coef : ex_neg(p, f->m.coef);
        if (hdg_expr_is_num(c, 0)) continue;
        if (ex_too_big(c)) {
            sema_error(S, f->loc, "term too large when expanded (more than %d nodes or %d levels)",
                       HDG_EXPR_MAX_SIZE, HDG_EXPR_MAX_DEPTH);
            continue;
        }
        hdg_atom *a = &e->atoms[e->natoms++];
        *a = (hdg_atom){.domain = f->domain, .markers = NULL, .test = e->test,
                        .test_comp = f->m.test.comp, .test_op = f->m.test.op,
                        .trial = f->m.trial.id, .trial_comp = src ? 0 : f->m.trial.comp,
                        .trial_op = f->m.trial.op, .side = f->m.trial.side, .dt = f->m.trial.dt,
                        .coef = c, .loc = f->loc};
        a->role = role_of(p, e, a);
    }
}

/* HDG: the post-processed unknown an equation's terms use (-1: none); false
 * when they use two. */
static bool find_post(sema *S, const val *l, const val *r, int *pu)
{
    const val *sides[2] = {l, r};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < sides[k]->natoms; i++) {
            const fatom *f = &sides[k]->atoms[i];
            int u = f->m.trial.id;
            if (u < 0 || !S->p->unknowns[u].post || u == *pu) continue;
            if (*pu >= 0) {
                sema_error(S, f->loc, "two post-processed unknowns in one equation ('%s' and '%s'): each "
                           "post-processing equation determines one", S->p->unknowns[*pu].name,
                           S->p->unknowns[u].name);
                return false;
            }
            *pu = u;
        }
    return true;
}

/* A post-processing equation: volume integrals, element unknowns of the main
 * system as data, its test in the space of the post-processed unknown pu. */
static void pair_post(sema *S, int ei, int pu, pairing *pr)
{
    hdg_problem *p = S->p;
    hdg_equation *e = &p->equations[ei];
    const hdg_test *t = &p->tests[ei];
    hdg_unknown *x = &p->unknowns[pu];
    if (t->space != x->space || t->ncomp != x->ncomp) {   /* most likely a main equation using ustar */
        hdg_loc at = e->loc;
        for (int i = e->natoms - 1; i >= 0; i--)
            if (e->atoms[i].trial == pu) at = e->atoms[i].loc;
        sema_error(S, at, "post-processed unknown '%s' in an equation tested in %s: it is computed after the "
                   "solve and appears only in its own post-processing equation, tested in %s", x->name,
                   space_str(S, t->space, t->ncomp), space_str(S, x->space, x->ncomp));
        pr->eq_failed = true;
        return;
    }
    int before = S->d->nerrors;
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        if (a->trial >= 0 && p->unknowns[a->trial].trace)
            sema_error(S, a->loc, "trace unknown '%s' in the post-processing equation for '%s': "
                       "post-processing uses only element unknowns", p->unknowns[a->trial].name, x->name);
        else if (a->domain == HDG_BOUNDARY)
            sema_error(S, a->loc, "boundary integral in the post-processing equation for '%s': "
                       "post-processing equations have volume integrals (a, b) only", x->name);
    }
    if (x->equation >= 0)
        sema_error(S, e->loc, "post-processed unknown '%s' has two equations (at %s and here)", x->name,
                   fmt_loc(S, p->equations[x->equation].loc));
    else
        x->equation = ei;
    e->unknown = pu;
    if (S->d->nerrors != before) pr->eq_failed = true;
}

static bool side_ok(sema *S, const val *v, const ast *a)
{
    if (v->kind == V_ERR) return false;
    if (v->kind == V_FORM || val_is_zero(v)) return true;
    sema_error(S, a->loc, "each side of an equation must be a sum of integrals (a, b) and <a, b>, or 0");
    return false;
}

/* Transient HDG: dt() applies to an element unknown of the main system, in an
 * element equation (expand.c refuses it in trace equations and on trace
 * unknowns); the post-processing runs at the end on the final state. */
static bool transient_atoms(sema *S, const hdg_equation *e)
{
    for (int i = 0; i < e->natoms; i++) {
        const hdg_atom *a = &e->atoms[i];
        if (!a->dt) continue;
        if (e->post) {
            sema_error(S, a->loc, "dt() in a post-processing equation: post-processing runs once, on the "
                                  "final state");
            return false;
        }
        if (a->domain != HDG_VOLUME) {
            sema_error(S, a->loc, "dt() in a boundary integral: the time derivative term is (dt(u), v)");
            return false;
        }
    }
    return true;
}

static void equation_decl(sema *S, decl *d, int ei, pairing *pr)
{
    hdg_problem *p = S->p;
    hdg_equation *e = &p->equations[ei];
    *e = (hdg_equation){.test = ei, .unknown = -1, .loc = d->loc};
    if (!test_decl(S, d, ei, pr)) {
        pr->eq_failed = true;
        return;
    }
    const hdg_test *t = &p->tests[ei];
    e->trace = p->spaces[t->space].kind == HDG_SPACE_TRACE;
    if (e->trace && p->method == HDG_METHOD_DG) {
        sema_error(S, t->loc, "test function '%s' is in the trace space %s, but a DG problem has no trace "
                   "unknowns", t->name, p->spaces[t->space].name);
        return;
    }
    ectx cx = {0};
    cx.mode = X_EQUATION;
    cx.coords = sema_all_coords(S);
    cx.where = "an equation";
    cx.test = t->name;
    cx.test_id = ei;
    cx.test_ncomp = t->ncomp;
    cx.test_trace = e->trace;
    cx.eq = ei;
    cx.hdg = p->method == HDG_METHOD_HDG;
    val l = expand(S, &cx, d->lhs);
    val r = expand(S, &cx, d->expr);
    bool ok = side_ok(S, &l, d->lhs);
    ok = side_ok(S, &r, d->expr) && ok;
    if (!ok) {
        pr->eq_failed = true;
        return;
    }
    int pu = -1;
    if (p->method == HDG_METHOD_HDG && !find_post(S, &l, &r, &pu)) {
        pr->eq_failed = true;
        return;
    }
    e->post = pu >= 0;
    e->atoms = hdg_arena_alloc(p->arena, (size_t)(l.natoms + r.natoms + 1) * sizeof(hdg_atom));
    e->residuals = hdg_arena_alloc(p->arena, (size_t)(l.natoms + r.natoms + 1) * sizeof(hdg_residual));
    put_atoms(S, e, &l, 1);
    put_atoms(S, e, &r, -1);
    merge_atoms(S, e);
    if (p->transient && !transient_atoms(S, e)) {
        pr->eq_failed = true;
        return;
    }
    if (p->method == HDG_METHOD_DG) pair_dg(S, ei, pr);
    else if (e->post) pair_post(S, ei, pu, pr);
    else pair_hdg(S, ei, pr);
    residual_jacobians(S, e);
}

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
                           p->unknowns[u].name, fmt_loc(S, a->loc),
                           a->markers.all ? "all" : a->markers.names[0]);
                return;
            }
            for (int k = 0; k < b->markers.n; k++)
                for (int l = 0; l < a->markers.n; l++)
                    if (!strcmp(b->markers.names[k], a->markers.names[l])) {
                        sema_error(S, b->markers.locs[k], "boundary marker '%s' already has a condition "
                                   "for '%s' (at %s)", b->markers.names[k], p->unknowns[u].name,
                                   fmt_loc(S, a->loc));
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
    ectx cx = data_ctx("boundary data", sema_all_coords(S), true);
    if (d->comp || d->comp_name) {   /* one component: uhat[0] = g, uhat.x = g */
        if ((b->comp = bc_component(S, d, u)) < 0) return;
        const hdg_expr *one[2] = {NULL, NULL};
        if (!data_expr(S, &cx, d->expr, 1, NULL, one, "the dirichlet data of one component")) return;
        for (int c = 0; c < u->ncomp; c++) b->value[c] = c == b->comp ? one[0] : ex_num(p, 0);
    } else if (!data_expr(S, &cx, d->expr, u->ncomp, NULL, b->value, "the dirichlet data")) return;
    b->unknown = s->index;
}

/* The neumann data: per flux component, the part free of unknowns (value) and
 * the terms linear in trace unknowns (robin); element unknowns, products and
 * functions of unknowns are refused by the expansion at their place. */
static bool neumann_data(sema *S, decl *d, hdg_bc *b, int nc)
{
    hdg_problem *p = S->p;
    ectx cx = data_ctx("the neumann data", sema_all_coords(S), true);
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
        ectx cx = data_ctx("an exterior state", sema_all_coords(S), true);
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

static void boundary_decls(sema *S, decl *ds)
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

static void marker_list(sema *S)
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

/* Every trace unknown (HDG) / every unknown a flux needs outside (DG) has a condition. */
static void coverage(sema *S, const pairing *pr)
{
    hdg_problem *p = S->p;
    if (S->bc_failed) return;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (pr->failed[u]) continue;
        bool need = p->method == HDG_METHOD_HDG ? x->trace : x->needs_exterior;
        if (!need) continue;
        bool have = false;
        for (int i = 0; i < p->nbcs && !have; i++) have = bc_covers_unknown(&p->bcs[i], u);
        if (have) continue;
        if (x->trace)   /* a warning: a mesh without boundary faces (periodic=xy) needs none; on any
                           other mesh the run's marker check refuses the faces left without one */
            hdg_diag_add(S->d, HDG_DIAG_WARNING, x->loc, "trace unknown '%s' has no boundary condition: only a "
                         "mesh without boundary faces (square:N,periodic=xy) can do without one (e.g. 'boundary "
                         "dirichlet %s = 0 on all')", x->name, x->name);
        else   /* a warning too: on a torus no face takes ext() from a condition */
            hdg_diag_add(S->d, HDG_DIAG_WARNING, x->loc, "no boundary condition defines ext(%s), which a flux "
                         "uses: only a mesh without boundary faces (square:N,periodic=xy) can do without one "
                         "(e.g. 'boundary wall on all: ext(%s) = %s')", x->name, x->name, x->name);
    }
}

/* ---------------------------------------------------------------- post-processing */

/* 'mean u = g' on an element unknown of the main system: the domain mean of
 * u is that of g (data in x, y); it fixes the constant of a pure Neumann
 * problem (the driver refuses such a problem without it). */
static void mean_value_decl(sema *S, decl *d, const pairing *pr, decl **first, hdg_unknown *u, int ui)
{
    if (pr->failed[ui]) return;
    if (first[ui]) {
        sema_error(S, d->loc, "duplicate mean condition for '%s' (first at %s)", u->name, fmt_loc(S, first[ui]->loc));
        return;
    }
    first[ui] = d;
    ectx cx = data_ctx("a mean condition", sema_all_coords(S) & ~(1u << HDG_VAR_T), false);   /* x, y (z) */
    const hdg_expr *e[HDG_MAX_COMP] = {NULL};
    if (!data_expr(S, &cx, d->expr, u->ncomp, NULL, e, "the mean value")) return;
    for (int c = 0; c < u->ncomp; c++) u->mean_value[c] = e[c];
    u->mean_loc = d->loc;
}

/* 'mean ustar = u': the post-processed unknown takes the element mean of u. */
static void mean_decl(sema *S, decl *d, const pairing *pr, decl **first)
{
    hdg_problem *p = S->p;
    symbol *s = sema_lookup(S, d->name);
    if (s && s->failed) return;
    symbol *v = d->label ? sema_lookup(S, d->label) : NULL;   /* 'mean x = u': post-processing */
    if (s && s->kind == SYM_UNKNOWN && !p->unknowns[s->index].post && !p->unknowns[s->index].trace &&
        !(v && v->kind == SYM_UNKNOWN)) {
        mean_value_decl(S, d, pr, first, &p->unknowns[s->index], s->index);
        return;
    }
    if (!s || s->kind != SYM_UNKNOWN || !p->unknowns[s->index].post) {
        sema_error(S, d->name_loc, "mean constraint for '%s', which is not a post-processed unknown "
                   "(declare it with 'postprocess %s : W')", d->name, d->name);
        return;
    }
    hdg_unknown *x = &p->unknowns[s->index];
    if (pr->failed[s->index]) return;
    if (first[s->index]) {
        sema_error(S, d->loc, "duplicate mean constraint for '%s' (first at %s)", x->name,
                   fmt_loc(S, first[s->index]->loc));
        return;
    }
    first[s->index] = d;
    if (!d->label) {
        sema_error(S, d->expr->loc, "the mean of post-processed '%s' is that of an element unknown: "
                   "'mean %s = u'", x->name, x->name);
        return;
    }
    symbol *m = sema_lookup(S, d->label);
    if (m && m->failed) return;
    if (!m) {
        const char *near = sema_suggest(S, d->label, NULL, SUGGEST_UNKNOWN);
        if (near) sema_error(S, d->label_loc, "undefined name '%s'; did you mean '%s'?", d->label, near);
        else sema_error(S, d->label_loc, "undefined name '%s'", d->label);
        return;
    }
    const hdg_unknown *u = m->kind == SYM_UNKNOWN ? &p->unknowns[m->index] : NULL;
    if (!u || u->trace || u->post) {
        sema_error(S, d->label_loc, "the mean of '%s' must be that of an element unknown of the main "
                   "system, and '%s' is %s", x->name, d->label,
                   !u ? "not an unknown" : u->trace ? "a trace unknown" : "a post-processed unknown");
        return;
    }
    if (u->ncomp != x->ncomp) {
        sema_error(S, d->label_loc, "'%s' is a %s but '%s' is a %s: a mean constraint needs the same shape",
                   x->name, shape_noun(x->ncomp), u->name, shape_noun(u->ncomp));
        return;
    }
    x->mean = m->index;
}

static void postprocessing(sema *S, decl *ds, pairing *pr)
{
    hdg_problem *p = S->p;
    decl **first = hdg_arena_alloc(S->tmp, (size_t)(p->nunknowns + 1) * sizeof(decl *));
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_MEAN) mean_decl(S, d, pr, first);
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (!x->post || pr->failed[u] || first[u]) continue;
        sema_error(S, x->loc, "post-processed unknown '%s' has no mean constraint: add 'mean %s = u' "
                   "with u the element unknown whose element means it keeps", x->name, x->name);
    }
    int n = 0;   /* the lowering solves them one after the other, per element */
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->post && ++n == HDG_MAX_POST + 1)
            sema_error(S, x->loc, "postprocess unknown '%s': at most %d are supported", x->name, HDG_MAX_POST);
    }
}

/* DG problems have no post-processing step. */
static void no_post(sema *S, decl *ds, pairing *pr)
{
    hdg_problem *p = S->p;
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_POST)
            sema_error(S, d->loc, "postprocess is for HDG problems (a local step after the trace solve); "
                       "this problem is DG");
        else if (d->kind == D_MEAN)
            sema_error(S, d->loc, "mean conditions are for HDG problems; this problem is DG");
    for (int u = 0; u < p->nunknowns; u++) {
        if (p->unknowns[u].post) pr->failed[u] = true;
        int nc = p->unknowns[u].ncomp;
        if ((nc == 4 || nc == 9) && !p->unknowns[u].post) {   /* the DG lowering has scalars and vectors */
            sema_error(S, p->unknowns[u].loc, "tensor unknown '%s': V^(%s) unknowns are for HDG "
                       "problems; this problem is DG", p->unknowns[u].name, nc == 4 ? "2x2" : "3x3");
            pr->failed[u] = true;
            symbol *s = sema_lookup(S, p->unknowns[u].name);
            if (s && s->kind == SYM_UNKNOWN) s->failed = true;   /* its uses stay silent */
        }
    }
}

/* ---------------------------------------------------------------- exact, initial, time */

/* Does some atom of the main system take dt() of unknown u? */
static bool under_dt(const hdg_problem *p, int u)
{
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++)
            if (p->equations[e].atoms[i].dt && p->equations[e].atoms[i].trial == u) return true;
    return false;
}

static void solutions(sema *S, decl *d, const pairing *pr)
{
    hdg_problem *p = S->p;
    bool initial = d->kind == D_INITIAL;
    if (initial && p->method != HDG_METHOD_DG && !p->transient && !p->nonlinear) {
        if (pr->eq_failed) return;   /* a failed equation may be the nonlinear one */
        sema_error(S, d->loc, "initial conditions are for time-dependent problems (with dt() terms) and "
                              "the first guess of nonlinear ones");
        return;
    }
    for (item *it = d->items.head; it; it = it->next) {
        symbol *s = sema_lookup(S, it->name);
        if (s && s->failed) continue;
        if (!s || s->kind != SYM_UNKNOWN) {
            sema_error(S, it->loc, "%s for '%s', which is not an unknown",
                       initial ? "initial condition" : "exact solution", it->name);
            continue;
        }
        hdg_unknown *u = &p->unknowns[s->index];
        if (pr->failed[s->index]) continue;
        if (initial && u->post) {
            sema_error(S, it->loc, "initial guess for the post-processed unknown '%s': it is computed from "
                                   "the solution", it->name);
            continue;
        }
        if (initial && p->transient && !under_dt(p, s->index)) {
            sema_error(S, it->loc, "initial condition for '%s', which has no dt() term: in HDG only the "
                                   "unknowns under dt() start from an initial state", it->name);
            continue;
        }
        const hdg_expr **slot = initial ? u->initial : u->exact;
        if (slot[0]) {
            sema_error(S, it->loc, "duplicate %s for '%s'", initial ? "initial condition" : "exact solution",
                       it->name);
            continue;
        }
        ectx cx = data_ctx(initial ? "an initial condition" : "an exact solution", sema_all_coords(S), false);
        const hdg_expr *e[HDG_MAX_COMP] = {NULL};
        if (!data_expr(S, &cx, it->expr, u->ncomp, NULL, e,
                       initial ? "the initial condition" : "the exact solution"))
            continue;
        for (int c = 0; c < u->ncomp; c++) slot[c] = initial ? hdg_expr_at_time(p, e[c], 0) : e[c];
        if (initial) u->initial_given = true;
    }
}

static void default_initial(sema *S)
{
    hdg_problem *p = S->p;
    bool steady_guess = p->nonlinear && p->method == HDG_METHOD_HDG && !p->transient;   /* Newton: 0 */
    if (p->method != HDG_METHOD_DG && !p->transient && !steady_guess) return;
    for (int u = 0; u < p->nunknowns; u++) {
        hdg_unknown *x = &p->unknowns[u];
        if (steady_guess) {
            for (int c = 0; c < x->ncomp && !x->initial_given && !x->post; c++) x->initial[c] = ex_num(p, 0);
            continue;
        }
        if (x->initial_given || (p->transient && !under_dt(p, u))) continue;
        for (int c = 0; c < x->ncomp; c++)
            x->initial[c] = x->exact[c] ? hdg_expr_at_time(p, x->exact[c], 0) : ex_num(p, 0);
    }
}

/* DG: the explicit lserk4; HDG with dt() terms: the implicit BDF1-3 and
 * SDIRK2-3 (drivers/run_hdg_time.c). */
static void time_method(sema *S, decl *d)
{
    static const char *implicit[] = {"bdf1", "bdf2", "bdf3", "sdirk2", "sdirk3"};
    bool is_implicit = false;
    for (int i = 0; i < 5; i++) is_implicit |= !strcmp(d->name, implicit[i]);
    if (S->p->transient) {
        if (is_implicit) return;
        if (!strcmp(d->name, "lserk4"))
            sema_error(S, d->name_loc, "'lserk4' is explicit, for DG problems: an HDG problem with dt() "
                                       "terms takes an implicit scheme: bdf1, bdf2, bdf3, sdirk2 or sdirk3");
        else
            sema_error(S, d->name_loc, "unknown time-stepping method '%s': an HDG problem takes bdf1, bdf2, "
                                       "bdf3, sdirk2 or sdirk3", d->name);
    } else if (strcmp(d->name, "lserk4")) {
        if (is_implicit)
            sema_error(S, d->name_loc, "'%s' is implicit, for HDG problems (trace unknowns and dt() terms): "
                                       "a DG problem takes 'lserk4'", d->name);
        else
            sema_error(S, d->name_loc, "unknown time-stepping method '%s': the supported one is 'lserk4'",
                       d->name);
    }
}

static void time_decl(sema *S, decl *d)
{
    hdg_problem *p = S->p;
    hdg_time *tm = &p->time;
    if (tm->given) {
        sema_error(S, d->loc, "duplicate 'time' declaration (first at %s)", fmt_loc(S, tm->loc));
        return;
    }
    *tm = (hdg_time){true, d->name, 0, p->transient ? 0 : 1, 0, d->loc};
    if (p->method != HDG_METHOD_DG && !p->transient) {
        sema_error(S, d->loc, "time settings are for time-dependent problems, with dt() terms");
        return;
    }
    time_method(S, d);
    static const char *keys[] = {"final", "cfl", "dt"};
    bool seen[3] = {false, false, false};
    for (item *it = d->items.head; it; it = it->next) {
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(it->name, keys[i])) k = i;
        if (k < 0) {
            const char *near = hdg_closest_name(it->name, keys, 3);
            if (near) sema_error(S, it->loc, "unknown time setting '%s'; did you mean '%s'?", it->name, near);
            else sema_error(S, it->loc, "unknown time setting '%s' (use final, cfl, dt)", it->name);
            continue;
        }
        if (seen[k]) {
            sema_error(S, it->loc, "duplicate time setting '%s'", it->name);
            continue;
        }
        seen[k] = true;
        ectx cx = data_ctx("the time settings", 0, false);
        const hdg_expr *e[2];
        if (!data_expr(S, &cx, it->expr, 1, NULL, e, "a time setting")) continue;
        hdg_eval_env env = {.problem = p};
        double v = hdg_expr_eval(e[0], &env);
        if (!(v > 0) || !isfinite(v)) {
            sema_error(S, it->expr->loc, "time setting '%s' must be a positive number", it->name);
            continue;
        }
        if (k == 1 && p->transient) {
            sema_error(S, it->loc, "'cfl' is for explicit DG time stepping: an implicit HDG scheme takes a "
                                   "fixed step, 'dt = D'");
            continue;
        }
        if (k == 0) tm->final = v;
        else if (k == 1) tm->cfl = v;
        else tm->dt = v;
    }
    if (!seen[0]) sema_error(S, d->loc, "the time settings need 'final = T'");
    else if (p->transient && !seen[2])
        sema_error(S, d->loc, "the time settings of an HDG problem need a step, 'dt = D' (e.g. 'time %s, "
                              "final = 1, dt = 0.01')", tm->method);
}

/* ---------------------------------------------------------------- driver */

static void count_decls(sema *S, decl *ds)
{
    hdg_problem *p = S->p;
    int np = 0, nf = 0, ns = 0, nu = 0, ne = 0, nfl = 0, nb = 0;
    for (decl *d = ds; d; d = d->next) {
        switch (d->kind) {
        case D_PARAM: np++; break;
        case D_FUNC: nf++; break;
        case D_SPACE: ns++; break;
        case D_UNKNOWN: case D_TRACE: case D_POST: nu += d->items.n; break;
        case D_EQUATION: ne++; break;
        case D_FLUX: nfl++; break;
        case D_BCVALUE: case D_BCEXT: nb++; break;
        default: break;
        }
    }
    hdg_arena *A = p->arena;
    p->params = hdg_arena_alloc(A, (size_t)(np + 1) * sizeof(hdg_param));
    p->funcs = hdg_arena_alloc(A, (size_t)(nf + 1) * sizeof(hdg_func));
    p->spaces = hdg_arena_alloc(A, (size_t)(ns + 1) * sizeof(hdg_space));
    p->unknowns = hdg_arena_alloc(A, (size_t)(nu + 1) * sizeof(hdg_unknown));
    p->tests = hdg_arena_alloc(A, (size_t)(ne + 1) * sizeof(hdg_test));
    p->equations = hdg_arena_alloc(A, (size_t)(ne + 1) * sizeof(hdg_equation));
    p->flux_names = hdg_arena_alloc(A, (size_t)(nfl + 1) * sizeof(char *));
    p->bcs = hdg_arena_alloc(A, (size_t)(nb + 1) * sizeof(hdg_bc));
    S->fluxes = hdg_arena_alloc(S->tmp, (size_t)(nfl + 1) * sizeof(flux_def));
    p->nparams = np;
    p->nfuncs = nf;
    p->nequations = p->ntests = ne;
}

static void equations(sema *S, decl *ds, pairing *pr)
{
    hdg_problem *p = S->p;
    int ei = 0;
    for (decl *d = ds; d; d = d->next)
        if (d->kind == D_EQUATION) equation_decl(S, d, ei++, pr);
    for (int i = 0; i < p->nequations; i++)   /* DG: which unknowns need an exterior state */
        for (int k = 0; k < p->equations[i].natoms; k++) {
            const hdg_atom *a = &p->equations[i].atoms[k];
            if (a->side == HDG_SIDE_EXTERIOR) p->unknowns[a->trial].needs_exterior = true;
        }
    for (int i = 0; i < p->nequations; i++)   /* ... and in nonlinear terms */
        for (int k = 0; k < p->equations[i].nresiduals; k++) {
            const hdg_residual *r = &p->equations[i].residuals[k];
            for (int j = 0; j < r->njac; j++)
                if (r->jac[j].side == HDG_SIDE_EXTERIOR) p->unknowns[r->jac[j].trial].needs_exterior = true;
        }
    for (int u = 0; u < p->nunknowns && !pr->eq_failed && p->nequations > 0; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->equation >= 0 || pr->failed[u] || pr->reported[u]) continue;
        if (x->post)
            sema_error(S, x->loc, "post-processed unknown '%s' has no equation: add one with a test "
                       "function in %s, e.g. 'equation (grad(%s), grad(w)) = ... for w : %s'", x->name,
                       space_str(S, x->space, x->ncomp), x->name, space_str(S, x->space, x->ncomp));
        else
            sema_error(S, x->loc, "unknown '%s' has no equation", x->name);
    }
}

hdg_problem *hdg_sema(const char *file, decl *ds, const hdg_frontend_options *opt, hdg_diags *d,
                      hdg_arena *arena)
{
    int errors_before = d->nerrors;
    hdg_problem *p = hdg_xcalloc(1, sizeof *p);
    p->dim = 2;
    p->arena = arena;
    p->file = hdg_arena_strdup(p->arena, file ? file : "<input>");
    sema S = {.p = p, .d = d, .tmp = hdg_arena_new()};
    if (!ds) {
        sema_error(&S, (hdg_loc){1, 1}, "empty problem: expected 'problem NAME' and its declarations");
    } else {
        count_decls(&S, ds);
        p->dim = file_dim(ds);
        define_builtins(&S);
        header(&S, ds, opt);
        int nu = 0;
        for (decl *x = ds; x; x = x->next)
            if (x->kind == D_UNKNOWN || x->kind == D_TRACE || x->kind == D_POST) nu += x->items.n;
        pairing pr = {hdg_arena_alloc(S.tmp, (size_t)(nu + 1) * sizeof(bool)),
                      hdg_arena_alloc(S.tmp, (size_t)(nu + 1) * sizeof(bool)), false};
        definitions(&S, ds, opt, pr.failed);
        if (p->nunknowns == 0) sema_error(&S, p->loc.line ? p->loc : (hdg_loc){1, 1}, "the problem declares no unknowns");
        else if (p->nequations == 0) sema_error(&S, p->loc.line ? p->loc : (hdg_loc){1, 1}, "the problem has no equations");
        if (decide_method(&S, ds)) {
            space_degrees(&S);
            if (p->method == HDG_METHOD_DG) no_post(&S, ds, &pr);
            equations(&S, ds, &pr);
            postprocessing(&S, ds, &pr);
            boundary_decls(&S, ds);
            coverage(&S, &pr);
            for (decl *x = ds; x; x = x->next)
                if (x->kind == D_EXACT || x->kind == D_INITIAL) solutions(&S, x, &pr);
            default_initial(&S);
            for (decl *x = ds; x; x = x->next)
                if (x->kind == D_TIME) time_decl(&S, x);
            if (p->method == HDG_METHOD_DG && !p->time.given)
                sema_error(&S, p->loc, "a DG problem needs time settings, e.g. 'time lserk4, final = 1, "
                                       "cfl = 0.75'");
            if (p->transient && !p->time.given)
                sema_error(&S, p->loc, "an HDG problem with dt() terms needs time settings, e.g. 'time bdf2, "
                                       "final = 1, dt = 0.01'");
            marker_list(&S);
        }
    }
    hdg_arena_free(S.tmp);
    if (d->nerrors != errors_before) {
        hdg_problem_free(p);
        return NULL;
    }
    return p;
}
