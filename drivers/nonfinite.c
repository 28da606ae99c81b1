/* nonfinite.c — names the data that made an element's kernel output NaN or
 * Inf (see nonfinite.h). */
#include "drivers/nonfinite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mesh_data.h"
#include "runtime/fem/quadrature.h"
#include "support/util.h"

#define MAXPTS 512

/* The points of element e: volume rule first (nvol), then k+3 Gauss points
 * per face with the outward normal; face[i] is the local face (-1: volume). */
typedef struct points {
    int n, nvol;
    double x[MAXPTS], y[MAXPTS], nx[MAXPTS], ny[MAXPTS];
    int face[MAXPTS];
} points;

static void add_point(points *P, double x, double y, double nx, double ny, int face)
{
    if (P->n >= MAXPTS) return;
    P->x[P->n] = x, P->y[P->n] = y, P->nx[P->n] = nx, P->ny[P->n] = ny, P->face[P->n] = face;
    P->n++;
}

static void element_points(const hdg_problem *p, const hdg_mesh *M, int e, points *P)
{
    double vx[3], vy[3];
    for (int i = 0; i < 3; i++) vx[i] = M->vx[M->ev[3 * e + i]], vy[i] = M->vy[M->ev[3 * e + i]];
    P->n = 0;
    hdg_error err;
    hdg_quad2d q;
    if (!hdg_quad_triangle(&q, 2 * p->degree + 4, &err)) {
        for (int i = 0; i < q.n; i++) {
            double l0 = -(q.r[i] + q.s[i]) / 2, l1 = (1 + q.r[i]) / 2, l2 = (1 + q.s[i]) / 2;
            add_point(P, l0 * vx[0] + l1 * vx[1] + l2 * vx[2], l0 * vy[0] + l1 * vy[1] + l2 * vy[2], 0, 0, -1);
        }
        hdg_quad2d_free(&q);
    }
    P->nvol = P->n;
    int ng = p->degree + 3;
    double t[64], w[64];
    if (ng > 64 || hdg_gauss_legendre(ng, t, w, &err)) return;
    for (int j = 0; j < 3; j++) {
        double dx = vx[(j + 1) % 3] - vx[j], dy = vy[(j + 1) % 3] - vy[j], len = hypot(dx, dy);
        for (int i = 0; i < ng; i++) {
            double a = (1 + t[i]) / 2;
            add_point(P, vx[j] + a * dx, vy[j] + a * dy, dy / len, -dx / len, j);
        }
    }
}

static hdg_eval_env env_at(const hdg_problem *p, const points *P, int i, double t)
{
    hdg_eval_env v = {.x = P->x[i], .y = P->y[i], .t = t, .nx = P->nx[i], .ny = P->ny[i], .problem = p};
    return v;
}

/* The innermost func call of e that is not finite at env (its arguments in
 * *at), or NULL. */
static const hdg_expr *bad_call(const hdg_problem *p, const hdg_expr *e, const hdg_eval_env *env,
                                hdg_eval_env *at)
{
    if (!e) return NULL;
    for (int k = 0; k < e->nkids; k++) {
        const hdg_expr *r = bad_call(p, e->kid[k], env, at);
        if (r) return r;
    }
    if (e->kind != HDG_EX_CALL || isfinite(hdg_expr_eval(e, env))) return NULL;
    const hdg_func *f = &p->funcs[e->index];
    hdg_eval_env in = *env;
    for (int k = 0; k < f->nargs && k < e->nkids; k++) {
        double v = hdg_expr_eval(e->kid[k], env);
        if (f->args[k] == HDG_VAR_X) in.x = v;
        else if (f->args[k] == HDG_VAR_Y) in.y = v;
        else in.t = v;
    }
    const hdg_expr *r = bad_call(p, f->body[e->comp], &in, at);
    if (r) return r;
    *at = in;
    return e;
}

typedef struct finder {
    const hdg_problem *p;
    const hdg_mesh *M;
    int e;
    double t;
    const points *P;
    char *msg;
    size_t n;
} finder;

static const char *nonfinite_word(double v) { return isnan(v) ? "NaN" : "Inf"; }

/* Checks expression x at the points of the given kind (volume, faces of
 * markers mk, or every face); what names it ("the Neumann data at 3:5"). */
static int check(const finder *F, const hdg_expr *x, int on_faces, const hdg_markers *mk, const char *what)
{
    if (!x) return 0;
    const points *P = F->P;
    for (int i = on_faces ? P->nvol : 0; i < (on_faces ? P->n : P->nvol); i++) {
        if (on_faces && mk && !hdg_face_on_markers(F->M, F->M->ef[3 * F->e + P->face[i]], mk)) continue;
        hdg_eval_env env = env_at(F->p, P, i, F->t);
        double v = hdg_expr_eval(x, &env);
        if (isfinite(v)) continue;
        hdg_eval_env at = env;
        const hdg_expr *c = bad_call(F->p, x, &env, &at);
        if (c) {
            const hdg_func *f = &F->p->funcs[c->index];
            snprintf(F->msg, F->n, "func '%s' (%s:%d:%d) is %s at (x, y) = (%.6g, %.6g), in %s", f->name,
                     F->p->file, f->loc.line, f->loc.col, nonfinite_word(hdg_expr_eval(c, &env)), at.x, at.y,
                     what);
        } else {
            char *s = hdg_expr_str(F->p, x);
            snprintf(F->msg, F->n, "%s, %s, is %s at (x, y) = (%.6g, %.6g)", what, s ? s : "?", nonfinite_word(v),
                     env.x, env.y);
            free(s);
        }
        return 1;
    }
    return 0;
}

static int check_atoms(const finder *F, int sources)
{
    const hdg_problem *p = F->p;
    char what[160];
    for (int q = 0; q < p->nequations; q++)
        for (int a = 0; a < p->equations[q].natoms; a++) {
            const hdg_atom *A = &p->equations[q].atoms[a];
            if ((A->trial < 0) != sources) continue;
            snprintf(what, sizeof what, "the coefficient of the term at %s:%d:%d", p->file, A->loc.line, A->loc.col);
            if (check(F, A->coef, A->domain == HDG_BOUNDARY, A->markers, what)) return 1;
        }
    return 0;
}

static int check_bcs(const finder *F, int dirichlet)
{
    const hdg_problem *p = F->p;
    char what[160];
    for (int b = 0; b < p->nbcs; b++) {
        const hdg_bc *B = &p->bcs[b];
        if ((B->kind == HDG_BC_DIRICHLET) != dirichlet) continue;
        snprintf(what, sizeof what, "the %s data at %s:%d:%d", B->label, p->file, B->loc.line, B->loc.col);
        for (int c = 0; c < 2; c++)
            if (check(F, B->value[c], 1, &B->markers, what)) return 1;
        for (int r = 0; r < B->nrules; r++) {
            if (check(F, B->rules[r].data, 1, &B->markers, what)) return 1;
            for (int k = 0; k < B->rules[r].nterms; k++)
                if (check(F, B->rules[r].terms[k].coef, 1, &B->markers, what)) return 1;
        }
    }
    return 0;
}

static int check_solutions(const finder *F)
{
    const hdg_problem *p = F->p;
    char what[160];
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        snprintf(what, sizeof what, "the exact solution of '%s'", x->name);
        for (int c = 0; c < x->ncomp; c++)
            if (check(F, x->exact[c], 0, NULL, what)) return 1;
        snprintf(what, sizeof what, "the initial value of '%s'", x->name);
        for (int c = 0; c < x->ncomp; c++)
            if (x->initial_given && check(F, x->initial[c], 0, NULL, what)) return 1;
    }
    return 0;
}

/* Every func at the volume points (whatever uses it). */
static int check_funcs(const finder *F)
{
    const hdg_problem *p = F->p;
    const points *P = F->P;
    for (int k = 0; k < p->nfuncs; k++) {
        const hdg_func *f = &p->funcs[k];
        for (int c = 0; c < f->ncomp; c++)
            for (int i = 0; i < P->nvol; i++) {
                hdg_eval_env env = env_at(p, P, i, F->t);
                double v = hdg_expr_eval(f->body[c], &env);
                if (isfinite(v)) continue;
                snprintf(F->msg, F->n, "func '%s' (%s:%d:%d) is %s at (x, y) = (%.6g, %.6g)", f->name, p->file,
                         f->loc.line, f->loc.col, nonfinite_word(v), env.x, env.y);
                return 1;
            }
    }
    return 0;
}

int hdg_nonfinite_source(const hdg_problem *p, const hdg_mesh *M, int e, double t, unsigned what, char *msg,
                         size_t n)
{
    if (e < 0 || e >= M->ne || !n) return 0;
    points *P = hdg_xmalloc(sizeof *P);
    element_points(p, M, e, P);
    finder F = {p, M, e, t, P, msg, n};
    int found = ((what & HDG_NF_TERMS) && check_atoms(&F, 0)) ||
                ((what & HDG_NF_SOURCES) && (check_atoms(&F, 1) || check_bcs(&F, 0))) ||
                ((what & HDG_NF_DIRICHLET) && check_bcs(&F, 1)) || ((what & HDG_NF_SOLUTIONS) && check_solutions(&F)) ||
                ((what & HDG_NF_FUNCS) && check_funcs(&F));
    free(P);
    return found;
}

int hdg_nonfinite_first(const double *x, long long ne, long long n, long long stride)
{
    for (long long e = 0; e < ne; e++)
        for (long long i = 0; i < n; i++)
            if (!isfinite(x[e * stride + i])) return (int)e;
    return -1;
}
