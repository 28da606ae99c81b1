/* problem.c — the frontend's entry points: load/parse a problem (file -> text
 * -> declarations -> checked problem), free it, check its boundary conditions
 * against a mesh's markers, and print it (the `hdgc check` summary). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/internal.h"
#include "support/util.h"

hdg_problem *hdg_problem_parse(const char *file, const char *src, size_t len,
                               const hdg_frontend_options *opt, hdg_diags *d)
{
    hdg_diags_set_source(d, file, src, len);
    int before = d->nerrors;
    parse_ctx pc = {0};
    pc.arena = hdg_arena_new();
    pc.diags = d;
    if (!hdg_parse_text(&pc, src, len)) {
        if (d->nerrors == before) hdg_diag_add(d, HDG_DIAG_ERROR, (hdg_loc){pc.line, pc.col}, "syntax error");
        hdg_arena_free(pc.arena);
        return NULL;
    }
    return hdg_sema(file, pc.head, opt, d, pc.arena);
}

hdg_problem *hdg_problem_load(const char *path, const hdg_frontend_options *opt, hdg_diags *d)
{
    char *text;
    size_t len;
    hdg_error err;
    hdg_error_clear(&err);
    if (hdg_read_file(path, &text, &len, &err) != HDG_OK) {
        hdg_diags_set_source(d, path, NULL, 0);
        hdg_diag_add(d, HDG_DIAG_ERROR, (hdg_loc){0, 0}, "%s", err.msg);
        return NULL;
    }
    hdg_problem *p = hdg_problem_parse(path, text, len, opt, d);
    free(text);
    return p;
}

void hdg_problem_free(hdg_problem *p)
{
    if (!p) return;
    hdg_arena_free(p->arena);
    free(p);
}

static int find(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (names[i] && !strcmp(names[i], name)) return i;
    return -1;
}

int hdg_problem_param(const hdg_problem *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (!strcmp(p->params[i].name, name)) return i;
    return -1;
}

int hdg_problem_func(const hdg_problem *p, const char *name)
{
    for (int i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].name, name)) return i;
    return -1;
}

int hdg_problem_unknown(const hdg_problem *p, const char *name)
{
    for (int i = 0; i < p->nunknowns; i++)
        if (!strcmp(p->unknowns[i].name, name)) return i;
    return -1;
}

/* ---------------------------------------------------------------- markers of a mesh */

/* An integer tag written in the file ("on 2, 3"): its value, else -1. */
static long marker_tag(const char *s)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9) return -1;
    return strtol(s, NULL, 10);
}

bool hdg_markers_match(const hdg_markers *m, const char *name, int id)
{
    if (m->all) return true;
    for (int k = 0; k < m->n; k++) {
        if (name && !strcmp(m->names[k], name)) return true;
        if (id > 0 && marker_tag(m->names[k]) == id) return true;
    }
    return false;
}

static bool bc_covers(const hdg_bc *b, int u, const char *marker, int id)
{
    if (!hdg_markers_match(&b->markers, marker, id)) return false;
    if (b->kind != HDG_BC_EXTERIOR) return b->unknown == u;
    for (int i = 0; i < b->nrules; i++)
        if (b->rules[i].unknown == u) return true;
    return false;
}

static bool needs_condition(const hdg_problem *p, const hdg_unknown *u)
{
    return p->method == HDG_METHOD_HDG ? u->trace : u->needs_exterior;
}

/* Is the file's marker in the mesh? by_id: names[i] is the name of marker id i. */
static bool marker_exists(const char *name, const char *const *names, int n, bool by_id)
{
    if (find(name, names, n) >= 0) return true;
    long tag = marker_tag(name);
    return by_id && tag > 0 && tag < n && names[tag];
}

static void unknown_marker(const hdg_markers *m, int k, const char *const *names, int n, bool by_id,
                           hdg_diags *d)
{
    const char *near = hdg_closest_name(m->names[k], names, n);
    if (near && marker_tag(m->names[k]) < 0) {
        hdg_diag_add(d, HDG_DIAG_ERROR, m->locs[k], "boundary marker '%s' is not in the mesh; did you mean '%s'?",
                     m->names[k], near);
        return;
    }
    hdg_str list;
    hdg_str_init(&list);
    for (int i = 0; i < n; i++) {
        if (!names[i]) continue;
        hdg_str_printf(&list, "%s%s", list.len ? ", " : "", names[i]);
        if (by_id) hdg_str_printf(&list, " (%d)", i);
    }
    hdg_diag_add(d, HDG_DIAG_ERROR, m->locs[k], "boundary marker '%s' is not in the mesh (its markers: %s)",
                 m->names[k], list.len ? list.s : "none");
    hdg_str_free(&list);
}

bool hdg_bcs_share(const hdg_bc *a, const hdg_bc *b)
{
    bool ca = a->kind == HDG_BC_DIRICHLET && a->comp >= 0, cb = b->kind == HDG_BC_DIRICHLET && b->comp >= 0;
    if (ca && cb) return a->comp != b->comp;
    return (ca && b->kind == HDG_BC_NEUMANN) || (cb && a->kind == HDG_BC_NEUMANN);
}

static int check_markers(const hdg_problem *p, const char *const *names, int n, bool by_id, hdg_diags *d)
{
    int before = d->nerrors;
    for (int b = 0; b < p->nbcs; b++) {
        const hdg_markers *m = &p->bcs[b].markers;
        for (int k = 0; k < m->n; k++)
            if (!marker_exists(m->names[k], names, n, by_id)) unknown_marker(m, k, names, n, by_id, d);
    }
    int nneed = 0;
    for (int u = 0; u < p->nunknowns; u++) nneed += needs_condition(p, &p->unknowns[u]);
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    for (int i = 0; i < n; i++) {
        if (!names[i] || find(names[i], names, i) >= 0) continue;
        for (int u = 0; u < p->nunknowns; u++) {
            if (!needs_condition(p, &p->unknowns[u])) continue;
            int first = -1, twice = -1;
            for (int b = 0; b < p->nbcs && twice < 0; b++) {
                if (!bc_covers(&p->bcs[b], u, names[i], by_id ? i : 0)) continue;
                for (int a = first; a >= 0 && a < b && twice < 0; a++)
                    if (bc_covers(&p->bcs[a], u, names[i], by_id ? i : 0) && !hdg_bcs_share(&p->bcs[a], &p->bcs[b]))
                        twice = b, first = a;
                if (first < 0) first = b;
            }
            if (twice >= 0) {   /* by name and by tag */
                hdg_diag_add(d, HDG_DIAG_ERROR, p->bcs[twice].loc, "boundary marker '%s' has two conditions "
                             "for '%s' (this one and the one at %d:%d)", names[i], p->unknowns[u].name,
                             p->bcs[first].loc.line, p->bcs[first].loc.col);
                continue;
            }
            if (first >= 0) continue;
            if (nneed == 1)
                hdg_diag_add(d, HDG_DIAG_ERROR, at, "boundary marker '%s' has no boundary condition", names[i]);
            else
                hdg_diag_add(d, HDG_DIAG_ERROR, at, "boundary marker '%s' has no boundary condition for '%s'",
                             names[i], p->unknowns[u].name);
        }
    }
    for (int u = 0; d->nerrors > before && u < p->nunknowns; u++)
        if (p->unknowns[u].no_condition)   /* the file may be meant for a torus */
            hdg_diag_add(d, HDG_DIAG_NOTE, p->unknowns[u].loc, "no boundary condition gives %s%s%s at all: a mesh "
                         "without boundary faces (square:N,periodic=xy) needs none", p->unknowns[u].trace ? "'" : "ext(",
                         p->unknowns[u].name, p->unknowns[u].trace ? "'" : ")");
    return d->nerrors - before;
}

int hdg_problem_check_markers(const hdg_problem *p, const char *const *names, int n, hdg_diags *d)
{
    return check_markers(p, names, n, false, d);
}

int hdg_problem_check_mesh_markers(const hdg_problem *p, const char *const *names_by_id, int nids, hdg_diags *d)
{
    return check_markers(p, names_by_id, nids, true, d);
}

/* ---------------------------------------------------------------- printing */

const char *hdg_role_name(hdg_role r)
{
    static const char *names[] = {"local-local", "local-trace", "trace-local", "trace-trace",
                                  "source", "time", "volume", "flux", "post", "post-source"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

const char *hdg_method_name(hdg_method m) { return m == HDG_METHOD_DG ? "DG" : "HDG"; }

static void put_expr(hdg_str *b, const hdg_problem *p, const hdg_expr *e, int need)
{
    if (e->size > 20000) hdg_str_printf(b, "<expression of %d nodes>", e->size);
    else hdg_expr_print_to(b, p, e, need);
}

int hdg_problem_check_mesh_dim(const hdg_problem *p, int mesh_dim, hdg_diags *d)
{
    if (mesh_dim == p->dim) return 0;
    hdg_loc at = p->mesh_loc.line ? p->mesh_loc : p->loc;
    if (p->dim == 3)
        hdg_diag_add(d, HDG_DIAG_ERROR, at, "the file is three-dimensional (mesh tetrahedron) but the mesh has "
                     "triangles: give a tetrahedral mesh");
    else
        hdg_diag_add(d, HDG_DIAG_ERROR, at, "the file is two-dimensional (mesh triangle%s) but the mesh has "
                     "tetrahedra: give a triangle mesh, or write the file for 'mesh tetrahedron'",
                     p->mesh_loc.line ? "" : ", the default");
    return 1;
}

const char *hdg_comp_suffix(int ncomp, int c)
{
    static const char *vec[] = {".x", ".y", ".z"}, *mat2[] = {".xx", ".xy", ".yx", ".yy"},
                      *mat3[] = {".xx", ".xy", ".xz", ".yx", ".yy", ".yz", ".zx", ".zy", ".zz"};
    if (c < 0 || c >= ncomp) return "";
    if (ncomp == 2 || ncomp == 3) return vec[c];
    if (ncomp == 4) return mat2[c];
    if (ncomp == 9) return mat3[c];
    return "";
}

const char *hdg_comp_field_suffix(int ncomp, int c)
{
    static const char *vec[] = {"_x", "_y", "_z"}, *mat2[] = {"_xx", "_xy", "_yx", "_yy"},
                      *mat3[] = {"_xx", "_xy", "_xz", "_yx", "_yy", "_yz", "_zx", "_zy", "_zz"};
    if (c < 0 || c >= ncomp) return "";
    if (ncomp == 2 || ncomp == 3) return vec[c];
    if (ncomp == 4) return mat2[c];
    if (ncomp == 9) return mat3[c];
    return "";
}

static const char *comp_suffix(int ncomp, int c) { return hdg_comp_suffix(ncomp, c); }

static void put_factor(hdg_str *b, const char *name, int ncomp, int comp, hdg_op op, bool ext, bool dt)
{
    const char *pre = op == HDG_OP_DX ? "dx(" : op == HDG_OP_DY ? "dy(" : op == HDG_OP_DZ ? "dz(" : "";
    hdg_str_printf(b, "%s%s%s%s%s%s%s", pre, dt ? "dt(" : "", ext ? "ext(" : "", name,
                   comp_suffix(ncomp, comp), ext ? ")" : "", dt ? ")" : "");
    if (op != HDG_OP_VALUE) hdg_str_putc(b, ')');
}

static void put_markers(hdg_str *b, const hdg_markers *m)
{
    if (m->all) {
        hdg_str_puts(b, "all");
        return;
    }
    for (int k = 0; k < m->n; k++) hdg_str_printf(b, "%s%s", k ? ", " : "", m->names[k]);
}

static void put_atom(hdg_str *b, const hdg_problem *p, const hdg_atom *a)
{
    size_t start = b->len;
    hdg_str_printf(b, "%-12s ", hdg_role_name(a->role));
    size_t dstart = b->len;
    hdg_str_puts(b, a->domain == HDG_VOLUME ? "volume" : "boundary");
    if (a->markers) {
        hdg_str_putc(b, '(');
        put_markers(b, a->markers);
        hdg_str_putc(b, ')');
    }
    while (b->len < dstart + 9) hdg_str_putc(b, ' ');
    hdg_str_putc(b, ' ');
    (void)start;
    if (hdg_expr_is_num(a->coef, -1)) hdg_str_putc(b, '-');
    else if (!hdg_expr_is_num(a->coef, 1)) {
        put_expr(b, p, a->coef, 2);
        hdg_str_puts(b, " * ");
    }
    if (a->trial >= 0) {
        const hdg_unknown *u = &p->unknowns[a->trial];
        put_factor(b, u->name, u->ncomp, a->trial_comp, a->trial_op, a->side == HDG_SIDE_EXTERIOR, a->dt);
        hdg_str_puts(b, " * ");
    }
    const hdg_test *t = &p->tests[a->test];
    put_factor(b, t->name, t->ncomp, a->test_comp, a->test_op, false, false);
}

char *hdg_atom_str(const hdg_problem *p, const hdg_atom *a)
{
    hdg_str b;
    hdg_str_init(&b);
    put_atom(&b, p, a);
    return hdg_str_take(&b);
}

static void put_num(hdg_str *b, double v)
{
    const hdg_expr e = {.kind = HDG_EX_NUM, .num = v, .depth = 1, .size = 1};
    hdg_expr_print_to(b, NULL, &e, 0);
}

static void put_vec(hdg_str *b, const hdg_problem *p, const hdg_expr *const *e, int ncomp)
{
    if (ncomp == 1) {
        put_expr(b, p, e[0], 0);
        return;
    }
    bool mat = ncomp == 4 || ncomp == 9;
    int d = ncomp == 2 || ncomp == 4 ? 2 : 3;   /* entries per row */
    if (mat) hdg_str_putc(b, '[');
    for (int c = 0; c < ncomp; c++) {
        hdg_str_puts(b, c % d == 0 ? "[" : ", ");
        put_expr(b, p, e[c], 0);
        if (c % d == d - 1) hdg_str_putc(b, ']');
        if (c % d == d - 1 && mat && c < ncomp - 1) hdg_str_puts(b, ", ");
    }
    if (mat) hdg_str_putc(b, ']');
}

static const char *space_text(const hdg_problem *p, int space, int ncomp, char *buf, size_t n)
{
    if (ncomp == 1) snprintf(buf, n, "%s", p->spaces[space].name);
    else if (ncomp == 4) snprintf(buf, n, "%s^(2x2)", p->spaces[space].name);
    else if (ncomp == 9) snprintf(buf, n, "%s^(3x3)", p->spaces[space].name);
    else snprintf(buf, n, "%s^%d", p->spaces[space].name, ncomp);
    return buf;
}

static void summary_header(hdg_str *b, const hdg_problem *p)
{
    hdg_str_printf(b, "problem %s (%s)\n", p->name, p->file);
    if (p->method == HDG_METHOD_HDG && p->transient)
        hdg_str_puts(b, "method: HDG (trace unknowns and dt() terms: implicit time stepping, static "
                        "condensation + global trace system every step)\n");
    else if (p->method == HDG_METHOD_HDG)
        hdg_str_puts(b, "method: HDG (trace unknowns, steady: static condensation + global trace system)\n");
    else
        hdg_str_puts(b, "method: DG (dt() terms: explicit time stepping, numerical fluxes)\n");
    if (p->nonlinear)
        hdg_str_puts(b, p->method == HDG_METHOD_DG
                            ? "nonlinear: terms nonlinear in the unknowns (evaluated at the current state)\n"
                            : "nonlinear: Newton (Jacobian: the linear terms and the derivatives below)\n");
    hdg_str_printf(b, "mesh: %s\ndegree: %s = %d\n", p->mesh, p->degree_name, p->degree);
    if (p->nparams) hdg_str_puts(b, "params:\n");
    for (int i = 0; i < p->nparams; i++) {
        const hdg_param *a = &p->params[i];
        hdg_str_printf(b, "  %s = ", a->name);
        put_num(b, a->value);
        if (a->overridden) hdg_str_puts(b, "  (--set)");
        else if (a->expr && a->expr->kind != HDG_EX_NUM) {
            hdg_str_puts(b, "  (= ");
            put_expr(b, p, a->expr, 0);
            hdg_str_putc(b, ')');
        }
        hdg_str_putc(b, '\n');
    }
    if (p->nfuncs) hdg_str_puts(b, "funcs:\n");
    for (int i = 0; i < p->nfuncs; i++) {
        const hdg_func *f = &p->funcs[i];
        hdg_str_printf(b, "  %s(", f->name);
        for (int k = 0; k < f->nargs; k++) hdg_str_printf(b, "%s%s", k ? ", " : "", hdg_var_name(f->args[k]));
        hdg_str_puts(b, ") = ");
        put_vec(b, p, f->body, f->ncomp);
        hdg_str_putc(b, '\n');
    }
    hdg_str_puts(b, "spaces:\n");
    for (int i = 0; i < p->nspaces; i++)
        hdg_str_printf(b, "  %s = %s(P %d)\n", p->spaces[i].name,
                       p->spaces[i].kind == HDG_SPACE_TRACE ? "trace" : "L2", p->spaces[i].degree);
    hdg_str_puts(b, "unknowns:\n");
    char buf[300];
    for (int i = 0; i < p->nunknowns; i++) {
        const hdg_unknown *u = &p->unknowns[i];
        size_t start = b->len;
        hdg_str_printf(b, "  %s : %s", u->name, space_text(p, u->space, u->ncomp, buf, sizeof buf));
        while (b->len < start + 16) hdg_str_putc(b, ' ');
        hdg_str_printf(b, " %s %d", u->trace ? "trace" : u->post ? "post" : "element", u->index);
        if (u->post && u->mean >= 0) hdg_str_printf(b, ", mean of %s", p->unknowns[u->mean].name);
        hdg_str_putc(b, '\n');
    }
    if (p->nfluxes) {
        hdg_str_puts(b, "fluxes:");
        for (int i = 0; i < p->nfluxes; i++) hdg_str_printf(b, " %s", p->flux_names[i]);
        hdg_str_putc(b, '\n');
    }
}

/* A nonlinear term and, below it, its derivative in each value of the unknowns it reads:
 *   nonlinear    volume    q.x/(1 + u^2) * r.x               @20:10
 *     d/d u: -2*u*q.x/(1 + u^2)^2                            (local-local)            */
static void put_residual(hdg_str *b, const hdg_problem *p, const hdg_residual *r)
{
    size_t start = b->len;
    hdg_str_printf(b, "  %-12s %s", "nonlinear", r->domain == HDG_VOLUME ? "volume  " : "boundary");
    hdg_str_puts(b, "  ");
    put_expr(b, p, r->coef, 2);
    hdg_str_puts(b, " * ");
    const hdg_test *t = &p->tests[r->test];
    put_factor(b, t->name, t->ncomp, r->test_comp, r->test_op, false, false);
    while (b->len < start + 60) hdg_str_putc(b, ' ');
    hdg_str_printf(b, "  @%d:%d\n", r->loc.line, r->loc.col);
    for (int j = 0; j < r->njac; j++) {
        const hdg_atom *a = &r->jac[j];
        const hdg_unknown *u = &p->unknowns[a->trial];
        start = b->len;
        hdg_str_puts(b, "    d/d ");
        put_factor(b, u->name, u->ncomp, a->trial_comp, a->trial_op, a->side == HDG_SIDE_EXTERIOR, false);
        hdg_str_puts(b, ": ");
        put_expr(b, p, a->coef, 0);
        while (b->len < start + 60) hdg_str_putc(b, ' ');
        hdg_str_printf(b, "  (%s)\n", hdg_role_name(a->role));
    }
}

static void summary_equations(hdg_str *b, const hdg_problem *p)
{
    char buf[300];
    for (int i = 0; i < p->nequations; i++) {
        const hdg_equation *e = &p->equations[i];
        const hdg_test *t = &p->tests[e->test];
        hdg_str_printf(b, "equation %d (line %d): test %s : %s, %s equation for %s\n", i + 1, e->loc.line,
                       t->name, space_text(p, t->space, t->ncomp, buf, sizeof buf),
                       p->method == HDG_METHOD_DG ? "evolution" : e->post ? "post-processing"
                       : e->trace ? "trace" : "local",
                       e->unknown >= 0 ? p->unknowns[e->unknown].name : "?");
        for (int k = 0; k < e->natoms; k++) {
            size_t start = b->len;
            hdg_str_puts(b, "  ");
            put_atom(b, p, &e->atoms[k]);
            while (b->len < start + 60) hdg_str_putc(b, ' ');
            hdg_str_printf(b, "  @%d:%d\n", e->atoms[k].loc.line, e->atoms[k].loc.col);
        }
        for (int k = 0; k < e->nresiduals; k++) put_residual(b, p, &e->residuals[k]);
    }
}

/* value + coef*uhat + ... of one component of a Robin condition */
static void put_linear(hdg_str *b, const hdg_problem *p, const hdg_expr *value, const hdg_ext_term *t, int n)
{
    bool data = !hdg_expr_is_num(value, 0) || !n;
    if (data) put_expr(b, p, value, 0);
    for (int k = 0; k < n; k++) {
        const hdg_unknown *u = &p->unknowns[t[k].unknown];
        const hdg_expr *cf = t[k].coef;
        bool neg = cf->kind == HDG_EX_NEG;
        if (neg) cf = cf->kid[0];
        if (data || k) hdg_str_puts(b, neg ? " - " : " + ");
        else if (neg) hdg_str_putc(b, '-');
        if (!hdg_expr_is_num(cf, 1)) {
            put_expr(b, p, cf, 2);
            hdg_str_putc(b, '*');
        }
        hdg_str_printf(b, "%s%s", u->name, comp_suffix(u->ncomp, t[k].comp));
    }
}

static void put_robin(hdg_str *b, const hdg_problem *p, const hdg_bc *c, int nc)
{
    bool vec = nc == 2 || nc == 3;
    if (vec) hdg_str_putc(b, '[');
    for (int k = 0; k < nc; k++) {
        if (k) hdg_str_puts(b, ", ");
        put_linear(b, p, c->value[k], c->robin[k], c->nrobin[k]);
    }
    if (vec) hdg_str_putc(b, ']');
}

/* Does the neumann condition c have Robin terms (trace unknowns) in any of its nc components? */
static bool has_robin(const hdg_bc *c, int nc)
{
    for (int k = 0; k < nc; k++)
        if (c->nrobin[k]) return true;
    return false;
}

/* The unknowns no condition covers (sema_coverage): fine on a mesh without boundary faces. */
static void summary_uncovered(hdg_str *b, const hdg_problem *p)
{
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (!x->no_condition) continue;
        if (x->trace)
            hdg_str_printf(b, "  none for the trace unknown '%s' (%d:%d): only a mesh without boundary faces "
                           "(square:N,periodic=xy) runs it; others need one, e.g. 'boundary dirichlet %s = 0 on all'\n",
                           x->name, x->loc.line, x->loc.col, x->name);
        else
            hdg_str_printf(b, "  none defines ext(%s) (%d:%d), which a flux uses: only a mesh without boundary faces "
                           "(square:N,periodic=xy) runs it; others need one, e.g. 'boundary wall on all: ext(%s) = "
                           "%s'\n", x->name, x->loc.line, x->loc.col, x->name, x->name);
    }
}

static void summary_bcs(hdg_str *b, const hdg_problem *p)
{
    bool none = false;
    for (int u = 0; u < p->nunknowns; u++) none = none || p->unknowns[u].no_condition;
    if (p->nbcs || none) hdg_str_puts(b, "boundary conditions:\n");
    summary_uncovered(b, p);
    for (int i = 0; i < p->nbcs; i++) {
        const hdg_bc *c = &p->bcs[i];
        hdg_str_printf(b, "  %s on ", c->label);
        put_markers(b, &c->markers);
        hdg_str_puts(b, ": ");
        if (c->kind == HDG_BC_DIRICHLET && c->comp >= 0) {
            const hdg_unknown *u = &p->unknowns[c->unknown];
            hdg_str_printf(b, "%s%s = ", u->name, comp_suffix(u->ncomp, c->comp));
            put_expr(b, p, c->value[c->comp], 0);
            hdg_str_puts(b, "  (this component only)");
        } else if (c->kind == HDG_BC_DIRICHLET) {
            hdg_str_printf(b, "%s = ", p->unknowns[c->unknown].name);
            put_vec(b, p, c->value, p->unknowns[c->unknown].ncomp);
        } else if (c->kind == HDG_BC_NEUMANN) {
            hdg_str_printf(b, "%s = ", p->flux_names[c->flux]);
            int nc = p->tests[p->equations[c->equation].test].ncomp;
            if (!has_robin(c, nc)) put_vec(b, p, c->value, nc);
            else put_robin(b, p, c, nc);
            hdg_str_printf(b, "  (%s of equation %d, for %s)", has_robin(c, nc) ?
                           "source and trace-trace atoms" : "source", c->equation + 1,
                           p->unknowns[c->unknown].name);
        } else {
            for (int r = 0; r < c->nrules; r++) {
                const hdg_ext_rule *x = &c->rules[r];
                const hdg_unknown *u = &p->unknowns[x->unknown];
                hdg_str_printf(b, "%sext(%s%s) = ", r ? "; " : "", u->name, comp_suffix(u->ncomp, x->comp));
                bool any = false;
                for (int k = 0; k < x->nterms; k++) {
                    const hdg_ext_term *t = &x->terms[k];
                    const hdg_unknown *v = &p->unknowns[t->unknown];
                    if (any) hdg_str_puts(b, " + ");
                    if (hdg_expr_is_num(t->coef, -1)) hdg_str_putc(b, '-');
                    else if (!hdg_expr_is_num(t->coef, 1)) {
                        put_expr(b, p, t->coef, 2);
                        hdg_str_putc(b, '*');
                    }
                    hdg_str_printf(b, "%s%s", v->name, comp_suffix(v->ncomp, t->comp));
                    any = true;
                }
                if (!any || !hdg_expr_is_num(x->data, 0)) {
                    if (any) hdg_str_puts(b, " + ");
                    put_expr(b, p, x->data, any ? 1 : 0);
                }
            }
        }
        hdg_str_putc(b, '\n');
    }
}

static void summary_solutions(hdg_str *b, const hdg_problem *p)
{
    bool any = false;
    for (int i = 0; i < p->nunknowns; i++) {
        const hdg_unknown *u = &p->unknowns[i];
        if (!u->exact[0]) continue;
        if (!any) hdg_str_puts(b, "exact solutions:\n");
        any = true;
        hdg_str_printf(b, "  %s = ", u->name);
        put_vec(b, p, u->exact, u->ncomp);
        hdg_str_putc(b, '\n');
    }
    if (p->method != HDG_METHOD_DG && !p->transient && !p->nonlinear) return;
    bool guess = p->method == HDG_METHOD_HDG && !p->transient;
    hdg_str_puts(b, guess ? "initial guesses (Newton):\n" : "initial conditions:\n");
    for (int i = 0; i < p->nunknowns; i++) {
        const hdg_unknown *u = &p->unknowns[i];
        if (!u->initial[0]) continue;   /* HDG: only the unknowns under dt() */
        hdg_str_printf(b, "  %s = ", u->name);
        put_vec(b, p, u->initial, u->ncomp);
        hdg_str_puts(b, u->initial_given ? "\n" : u->exact[0] && !guess ? "  (exact at t = 0)\n" : "  (default)\n");
    }
    if (guess) return;
    hdg_str_printf(b, "time: %s, final = ", p->time.method);
    put_num(b, p->time.final);
    if (p->time.cfl > 0) {
        hdg_str_puts(b, ", cfl = ");
        put_num(b, p->time.cfl);
    }
    if (p->time.dt > 0) {
        hdg_str_puts(b, ", dt = ");
        put_num(b, p->time.dt);
    }
    hdg_str_putc(b, '\n');
}

char *hdg_problem_summary(const hdg_problem *p)
{
    hdg_str b;
    hdg_str_init(&b);
    summary_header(&b, p);
    summary_equations(&b, p);
    summary_bcs(&b, p);
    summary_solutions(&b, p);
    hdg_str_puts(&b, "markers:");
    if (p->markers_all) hdg_str_puts(&b, " all");
    for (int i = 0; i < p->nmarkers; i++) hdg_str_printf(&b, " %s", p->markers[i]);
    hdg_str_putc(&b, '\n');
    return hdg_str_take(&b);
}
