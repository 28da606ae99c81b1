/* run_hdg_null_rigid.c — free rotations (the rigid motions of a displacement trace with a
 * symmetric-gradient form and no displacement given) fixed by 'rigid u = g': the unknown
 * the rotation moves, the moments int u.r of the element field and of g, the refusal
 * when only 'mean u' is given (see run_hdg_null.h). */
#include "drivers/run_hdg_null.h"
#include "drivers/run_hdg_null_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/comm.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "runtime/solve/mg.h"
#include "support/util.h"

/* The components (a, b) rotation j moves: r_a = -x_b, r_b = x_a (2D: j = 0, (-y, x);
 * 3D: (-y, x, 0), (-z, 0, x), (0, -z, y)), as the candidates' vectors are built. */
static const int rot_comps[3][2] = {{0, 1}, {0, 2}, {1, 2}};

/* Does equation q have trace unknown t as a trial? */
static int couples(const hdg_equation *E, int t)
{
    for (int a = 0; a < E->natoms; a++)
        if (E->atoms[a].trial == t) return 1;
    return 0;
}

hdg_status hdg_hdg_rigid_unknown(const hdg_problem *p, const hdg_hdg_null *N, hdg_hdg_null_cand c, int *u,
                                 hdg_error *err)
{
    const hdg_unknown *T = &p->unknowns[c.t];
    int meaned = -1, any = -1;
    for (int x = 0; x < p->nunknowns; x++) {
        const hdg_unknown *X = &p->unknowns[x];
        if (X->trace || X->post || X->ncomp != T->ncomp) continue;
        int shares = 0;
        for (int q = 0; q < p->nequations && !shares; q++)
            shares = !p->equations[q].post && couples(&p->equations[q], c.t) && couples(&p->equations[q], x);
        if (!shares) continue;
        if (X->mean_value[0] && X->rigid) {
            *u = x;
            return HDG_OK;
        }
        if (X->mean_value[0] && meaned < 0) meaned = x;
        if (any < 0) any = x;
    }
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    const char *name = meaned >= 0 ? p->unknowns[meaned].name : any >= 0 ? p->unknowns[any].name : "u";
    hdg_loc at = meaned >= 0 ? p->unknowns[meaned].mean_loc : p->boundary_loc.line ? p->boundary_loc : p->loc;
    const char *rigid = N->dim == (p->dim == 3 ? 6 : 3) ? ": the rigid motions" : "";
    if (meaned >= 0)
        return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is not unique: the trace matrix has a null space of "
                        "dimension %d (%s%s), found on the assembled matrix; 'mean %s' fixes the translations, not "
                        "a rotation: write 'rigid %s = g' instead (e.g. the exact solution), which makes the L2 "
                        "projections of '%s' and g on the rigid motions agree", p->file, at.line, at.col, N->dim,
                        what, rigid, name, name, name);
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is not unique: the trace matrix has a null space of "
                    "dimension %d (%s%s), found on the assembled matrix (no displacement is given); add a condition "
                    "'rigid %s = g' (e.g. the exact solution), which makes the L2 projections of '%s' and g on the "
                    "rigid motions agree, or give Dirichlet conditions that fix them", p->file, at.line, at.col, N->dim,
                    what, rigid, name, name);
}

/* int over the domain of f(x) . r_j(x) divided by its measure, f given per element at the
 * points of rule q (values[i * nc + c]) by fill(). */
typedef void (*fill_fn)(const void *ctx, const hdg_mesh *M, int e, const hdg_quad *q, double *vals);

static double moment(const hdg_mesh *M, int rot, int k, fill_fn fill, const void *ctx)
{
    hdg_error err;
    hdg_quad q;
    int dim = hdg_mesh_dim(M), a = rot_comps[rot][0], b = rot_comps[rot][1];
    if (hdg_quad_simplex(&q, dim, 2 * k + 4, &err)) return NAN;
    double *vals = hdg_xmalloc(sizeof(double) * (size_t)q.n * (size_t)dim), sum = 0, tot = 0, ws = 0;
    for (int i = 0; i < q.n; i++) ws += q.w[i];
    for (int e = 0; e < M->ne; e++) {
        double vol = hdg_hdg_element_volume(M, e), s = 0;
        fill(ctx, M, e, &q, vals);
        for (int i = 0; i < q.n; i++) {
            hdg_eval_env env = {0};
            hdg_hdg_element_point(M, e, &q, i, &env);
            double x[3] = {env.x, env.y, env.z};
            s += q.w[i] * (-x[b] * vals[(size_t)i * dim + a] + x[a] * vals[(size_t)i * dim + b]);
        }
        sum += s / ws * vol;
        tot += vol;
    }
    free(vals);
    hdg_quad_free(&q);
    double st[2] = {sum, tot};
    hdg_comm_sum(st, 2);   /* under mpirun: over every rank's elements */
    return st[0] / st[1];
}

/* The element field: component c of unknown u from its np modes at the rule's points. */
typedef struct field_ctx {
    const hdg_lowered *L;
    int u;
    const double *xe;
    double *P;   /* q.n x np basis values */
} field_ctx;

static void fill_field(const void *ctx, const hdg_mesh *M, int e, const hdg_quad *q, double *vals)
{
    const field_ctx *c = ctx;
    const hdg_lowered *L = c->L;
    int dim = hdg_mesh_dim(M);
    for (int i = 0; i < q->n; i++)
        for (int comp = 0; comp < dim; comp++) {
            const double *x = c->xe + (size_t)e * L->nl + L->uoff[c->u] + (size_t)comp * L->np, *P = c->P + (size_t)i * L->np;
            double v = 0;
            for (int j = 0; j < L->np; j++) v += x[j] * P[j];
            vals[(size_t)i * dim + comp] = v;
        }
}

double hdg_hdg_rigid_moment(const hdg_lowered *L, const hdg_mesh *M, int u, int rot, const double *xe)
{
    hdg_error err;
    hdg_quad q;
    int dim = hdg_mesh_dim(M);
    if (hdg_quad_simplex(&q, dim, 2 * L->k + 4, &err)) return NAN;   /* the rule moment() takes */
    field_ctx c = {L, u, xe, hdg_xmalloc(sizeof(double) * (size_t)q.n * (size_t)L->np)};
    hdg_simplex_eval(dim, L->k, q.n, (const double *const *)q.x, c.P, NULL);
    hdg_quad_free(&q);
    double v = moment(M, rot, L->k, fill_field, &c);
    free(c.P);
    return v;
}

/* The condition's g at the rule's points. */
typedef struct data_ctx {
    const hdg_problem *p;
    int u;
} data_ctx;

static void fill_data(const void *ctx, const hdg_mesh *M, int e, const hdg_quad *q, double *vals)
{
    const data_ctx *c = ctx;
    int dim = hdg_mesh_dim(M);
    for (int i = 0; i < q->n; i++) {
        hdg_eval_env env = {.problem = c->p};
        hdg_hdg_element_point(M, e, q, i, &env);
        for (int comp = 0; comp < dim; comp++)
            vals[(size_t)i * dim + comp] = hdg_expr_eval(c->p->unknowns[c->u].mean_value[comp], &env);
    }
}

double hdg_hdg_rigid_target(const hdg_problem *p, const hdg_mesh *M, int u, int rot)
{
    data_ctx c = {p, u};
    return moment(M, rot, p->degree, fill_data, &c);
}

unsigned hdg_hdg_null_mask(const hdg_problem *p, const hdg_hdg_null_fixes *F)
{
    unsigned mask = 0;
    for (int j = 0; j < F->dim; j++) {
        const hdg_hdg_null_fix *f = &F->fix[j];
        if (f->c.comp >= 0) mask |= 1u << (f->g - 1);
        else mask |= HDG_MG_NULL_ROTATIONS | ((1u << p->unknowns[f->c.t].ncomp) - 1) << (f->g - 1);
    }
    return mask;
}
