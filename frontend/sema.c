/* sema.c — semantic analysis: from the parser's declarations to a checked
 * hdg_problem. Resolves names (one global scope plus the equation's test
 * function), applies --order and --set, evaluates params, builds funcs, decides
 * the method family (HDG: trace unknowns; DG: dt() terms), expands and
 * classifies every equation (expand.c does the algebra), pairs equations with
 * unknowns, and checks boundary conditions, exact solutions, initial conditions
 * and time settings. Reports every error it can find in one run.
 * This file holds the symbol table, the helpers the stages share and the driver
 * (hdg_sema); the stages are sema_decl.c (header, spaces, unknowns, params, funcs,
 * method family), sema_eq.c (equations), sema_bc.c (boundary conditions),
 * sema_post.c (post-processing, mean conditions) and sema_time.c (exact and
 * initial solutions, time settings). */
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
bool sema_shadow_builtin(sema *S, const symbol *old, hdg_loc loc, const char *what)
{
    if (reserved(old->name)) {
        sema_error(S, loc, "'%s' is a builtin name and cannot be %s", old->name, what);
        return false;
    }
    hdg_diag_add(S->d, HDG_DIAG_WARNING, loc, "'%s' is also the name of a builtin %s; this file's definition "
                 "hides the builtin here", old->name, old->kind == SYM_FN || old->kind == SYM_OP ? "function"
                 : old->kind == SYM_PI ? "constant" : old->kind == SYM_WAVESPEED ? "value (the wave speed)"
                 : "value (the normal)");
    return true;
}

/* Puts s in the slot of the symbol old (a builtin it hides). */
static void table_replace(sema *S, const symbol *old, symbol *s)
{
    for (int i = 0; i < S->cap; i++)
        if (S->table[i] == old) S->table[i] = s;
}

/* Defines a name; NULL (and an error) when it is taken. */
symbol *sema_define(sema *S, const char *name, sym_kind kind, int index, hdg_loc loc)
{
    symbol *old = sema_lookup(S, name);
    if (old && old->loc.line != 0) {
        sema_error(S, loc, "duplicate definition of '%s' (first defined at %d:%d)", name, old->loc.line, old->loc.col);
        return NULL;
    }
    if (old && !sema_shadow_builtin(S, old, loc, "redefined")) return NULL;
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
    sema_define(S, "pi", SYM_PI, 0, none);
    sema_define(S, "x", SYM_COORD, HDG_VAR_X, none);
    sema_define(S, "y", SYM_COORD, HDG_VAR_Y, none);
    if (d3) sema_define(S, "z", SYM_COORD, HDG_VAR_Z, none);
    sema_define(S, "t", SYM_COORD, HDG_VAR_T, none);
    sema_define(S, "nx", SYM_NORMAL, 0, none);
    sema_define(S, "ny", SYM_NORMAL, 1, none);
    if (d3) sema_define(S, "nz", SYM_NORMAL, 2, none);
    sema_define(S, "n", SYM_VNORMAL, 0, none);
    sema_define(S, "wavespeed", SYM_WAVESPEED, 0, none);
    for (int i = 0; i < 7; i++) sema_define(S, fns[i], SYM_FN, i, none);
    for (int i = 0; i < (d3 ? OP_COUNT : OP_COUNT_2D); i++) sema_define(S, ops[i], SYM_OP, i, none);
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
 * sema_header() reports it). */
static int file_dim(const decl *ds)
{
    for (const decl *d = ds; d; d = d->next)
        if (d->kind == D_MESH) return !strcmp(d->name, "tetrahedron") ? 3 : 2;
    return 2;
}

const char *sema_fmt_loc(sema *S, hdg_loc l)
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

ectx sema_data_ctx(const char *where, unsigned coords, bool normals)
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
bool sema_data_expr(sema *S, const ectx *cx, const ast *a, int want, int *ncomp,
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
        sema_header(&S, ds, opt);
        int nu = 0;
        for (decl *x = ds; x; x = x->next)
            if (x->kind == D_UNKNOWN || x->kind == D_TRACE || x->kind == D_POST) nu += x->items.n;
        pairing pr = {hdg_arena_alloc(S.tmp, (size_t)(nu + 1) * sizeof(bool)),
                      hdg_arena_alloc(S.tmp, (size_t)(nu + 1) * sizeof(bool)), false};
        sema_definitions(&S, ds, opt, pr.failed);
        if (p->nunknowns == 0) sema_error(&S, p->loc.line ? p->loc : (hdg_loc){1, 1}, "the problem declares no unknowns");
        else if (p->nequations == 0) sema_error(&S, p->loc.line ? p->loc : (hdg_loc){1, 1}, "the problem has no equations");
        if (sema_decide_method(&S, ds)) {
            sema_space_degrees(&S);
            if (p->method == HDG_METHOD_DG) sema_no_post(&S, ds, &pr);
            sema_equations(&S, ds, &pr);
            sema_postprocessing(&S, ds, &pr);
            sema_boundary_decls(&S, ds);
            sema_coverage(&S, &pr);
            for (decl *x = ds; x; x = x->next)
                if (x->kind == D_EXACT || x->kind == D_INITIAL) sema_solutions(&S, x, &pr);
            sema_default_initial(&S);
            for (decl *x = ds; x; x = x->next)
                if (x->kind == D_TIME) sema_time_decl(&S, x);
            if (p->method == HDG_METHOD_DG && !p->time.given)
                sema_error(&S, p->loc, "a DG problem needs time settings, e.g. 'time lserk4, final = 1, "
                                       "cfl = 0.75'");
            if (p->transient && !p->time.given)
                sema_error(&S, p->loc, "an HDG problem with dt() terms needs time settings, e.g. 'time bdf2, "
                                       "final = 1, dt = 0.01'");
            sema_marker_list(&S);
        }
    }
    hdg_arena_free(S.tmp);
    if (d->nerrors != errors_before) {
        hdg_problem_free(p);
        return NULL;
    }
    return p;
}
