/* lower_dg_expr.c — explicit DG lowering: coefficient expressions to IR, the
 * physical point of a reference point, and the table products. */
#include "ir/lower_dg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ expressions */

static hdg_ir_expr *undefined(hdg_ir_kernel *k, const char *what)
{
    hdg_ir_builder_error(k, "'%s' is not defined here", what);
    return hdg_ir_num(k, 0);
}

static hdg_ir_expr *lx_call(hdg_ir_kernel *k, const hdg_problem *p, const hdg_expr *e, const xenv *v)
{
    const hdg_func *fn = &p->funcs[e->index];
    xenv inner = *v;
    for (int i = 0; i < fn->nargs && i < e->nkids; i++) {
        hdg_ir_expr *a = dg_lx(k, p, e->kid[i], v);
        if (fn->args[i] == HDG_VAR_X) inner.x = a;
        else if (fn->args[i] == HDG_VAR_Y) inner.y = a;
        else if (fn->args[i] == HDG_VAR_T) inner.t = a;
        else inner.z = a;
    }
    return dg_lx(k, p, fn->body[e->comp], &inner);
}

static hdg_ir_expr *lx_builtin(hdg_ir_kernel *k, int b, hdg_ir_expr *a)
{
    static const hdg_ir_fn map[] = {
        [HDG_BUILTIN_SIN] = HDG_FN_SIN,   [HDG_BUILTIN_COS] = HDG_FN_COS,
        [HDG_BUILTIN_EXP] = HDG_FN_EXP,   [HDG_BUILTIN_LOG] = HDG_FN_LOG,
        [HDG_BUILTIN_SQRT] = HDG_FN_SQRT, [HDG_BUILTIN_TANH] = HDG_FN_TANH,
        [HDG_BUILTIN_ABS] = HDG_FN_ABS,
    };
    if (b < 0 || b >= (int)(sizeof map / sizeof map[0])) return undefined(k, "builtin");
    return hdg_ir_call(k, map[b], a);
}

hdg_ir_expr *dg_lx(hdg_ir_kernel *k, const hdg_problem *p, const hdg_expr *e, const xenv *v)
{
    static const hdg_ir_op cmp[] = { HDG_E_LT, HDG_E_LE, HDG_E_GT, HDG_E_GE, HDG_E_EQ, HDG_E_NE };
    hdg_ir_expr *a, *b, *x;
    switch (e->kind) {
    case HDG_EX_NUM: return hdg_ir_num(k, e->num);
    case HDG_EX_PI: return hdg_ir_num(k, M_PI);
    case HDG_EX_PARAM: return hdg_ir_param(k, e->index, p->params[e->index].name);
    case HDG_EX_COORD:
        x = e->index == HDG_VAR_X ? v->x : e->index == HDG_VAR_Y ? v->y : e->index == HDG_VAR_T ? v->t : v->z;
        return x ? x : undefined(k, hdg_var_name((hdg_var)e->index));
    case HDG_EX_NORMAL:
        x = e->index == 0 ? v->nx : e->index == 1 ? v->ny : v->nz;
        return x ? x : undefined(k, e->index == 0 ? "nx" : e->index == 1 ? "ny" : "nz");
    case HDG_EX_NEG: return hdg_ir_neg(k, dg_lx(k, p, e->kid[0], v));
    case HDG_EX_ADD: return hdg_ir_add(k, dg_lx(k, p, e->kid[0], v), dg_lx(k, p, e->kid[1], v));
    case HDG_EX_SUB: return hdg_ir_sub(k, dg_lx(k, p, e->kid[0], v), dg_lx(k, p, e->kid[1], v));
    case HDG_EX_MUL: return hdg_ir_mul(k, dg_lx(k, p, e->kid[0], v), dg_lx(k, p, e->kid[1], v));
    case HDG_EX_DIV: return hdg_ir_div(k, dg_lx(k, p, e->kid[0], v), dg_lx(k, p, e->kid[1], v));
    case HDG_EX_POW:
        a = dg_lx(k, p, e->kid[0], v);
        if (e->kid[1]->kind == HDG_EX_NUM && e->kid[1]->num == floor(e->kid[1]->num) &&
            fabs(e->kid[1]->num) <= 64)
            return hdg_ir_powi(k, a, (int)e->kid[1]->num);
        return hdg_ir_pow(k, a, dg_lx(k, p, e->kid[1], v));
    case HDG_EX_CALL: return lx_call(k, p, e, v);
    case HDG_EX_BUILTIN: return lx_builtin(k, e->index, dg_lx(k, p, e->kid[0], v));
    case HDG_EX_CMP:
        if (e->index < 0 || e->index > 5) return undefined(k, "comparison");
        return hdg_ir_cmp(k, cmp[e->index], dg_lx(k, p, e->kid[0], v), dg_lx(k, p, e->kid[1], v));
    case HDG_EX_IF:
        a = dg_lx(k, p, e->kid[0], v);
        if (a->type == HDG_IR_DOUBLE) a = hdg_ir_cmp(k, HDG_E_NE, a, hdg_ir_num(k, 0));
        b = dg_lx(k, p, e->kid[1], v);
        return hdg_ir_select(k, a, b, dg_lx(k, p, e->kid[2], v));
    case HDG_EX_WAVESPEED: return v->wavespeed ? v->wavespeed : undefined(k, "wavespeed");
    case HDG_EX_STATE: {   /* nonlinear problems: the state at the point (values only: dg_analyze_residuals) */
        hdg_ir_expr *const *st = v->st[e->side == HDG_SIDE_EXTERIOR];
        int f = v->field_of && e->index >= 0 && e->index < 64 && e->comp >= 0 && e->comp < 3
                    ? v->field_of[e->index][e->comp] : -1;
        return st && f >= 0 && st[f] ? st[f] : undefined(k, e->side == HDG_SIDE_EXTERIOR ? "ext(state)" : "state");
    }
    }
    return undefined(k, "expression");
}

/* ---------------------------------------------------------------- helpers */

hdg_ir_expr *dg_gi(hdg_ir_kernel *k, hdg_ir_tensor *G, int idx) { return hdg_ir_ld1(k, G, hdg_ir_int(k, idx)); }

/* Physical point x[0..dim-1] of reference point r[0..dim-1]:
 * x = l0 X0 + sum_k l_(k+1) X_(k+1), l_(k+1) = (1 + r_k)/2, l0 = 1 - sum
 * (-(r+s)/2 on the triangle, -(1+r+s+t)/2 on the tetrahedron). */
static void map_point(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_expr *const *r, hdg_ir_expr **x)
{
    static const char *const lname[4] = { "l0", "l1", "l2", "l3" }, *const xname[3] = { "x", "y", "z" };
    int dim = c->dim;
    hdg_ir_expr *half = hdg_ir_num(k, 0.5), *one = hdg_ir_num(k, 1), *l[4];
    hdg_ir_expr *rs = hdg_ir_add(k, r[0], r[1]);
    if (dim == 3) rs = hdg_ir_add(k, hdg_ir_add(k, rs, r[2]), one);
    l[0] = hdg_ir_let(k, lname[0], hdg_ir_mul(k, hdg_ir_neg(k, half), rs));
    for (int v = 1; v <= dim; v++) l[v] = hdg_ir_let(k, lname[v], hdg_ir_mul(k, half, hdg_ir_add(k, one, r[v - 1])));
    for (int d = 0; d < dim; d++) {
        hdg_ir_expr *sum = hdg_ir_mul(k, l[0], dg_gi(k, G, hdg_dg_g_x(dim, 0, d)));
        for (int v = 1; v <= dim; v++) sum = hdg_ir_add(k, sum, hdg_ir_mul(k, l[v], dg_gi(k, G, hdg_dg_g_x(dim, v, d))));
        x[d] = sum;
    }
    for (int d = 0; d < dim; d++) x[d] = hdg_ir_let(k, xname[d], x[d]);
}

/* The coefficient environment at the reference point of the coordinate
 * tables T[d] (d < dim) at row a (1D tables; b NULL) or (a, b). */
xenv dg_point_env(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_tensor *const *T, hdg_ir_expr *a,
                      hdg_ir_expr *b, hdg_ir_expr *t)
{
    hdg_ir_expr *r[3] = {0}, *x[3] = {0};
    for (int d = 0; d < c->dim; d++) r[d] = b ? hdg_ir_ld2(k, T[d], a, b) : hdg_ir_ld1(k, T[d], a);
    map_point(c, k, G, r, x);
    return (xenv){ .x = x[0], .y = x[1], .z = x[2], .t = t };
}

hdg_ir_expr *dg_add_term(hdg_ir_kernel *k, hdg_ir_expr *sum, hdg_ir_expr *t)
{
    return sum ? hdg_ir_add(k, sum, t) : t;
}

/* ---------------------------------------------------------------- products */

/* Table rows per pass of a product's inner loop: the accumulator rows are
 * loaded and stored once per JUNROLL table rows (the emitted C is compiled
 * without loop unrolling, so this is the only unrolling there is). 4 was
 * fastest of 1, 2, 3, 4, 6, 8 for maxwell2d, N = 1..8, on znver3. */
enum { JUNROLL = 4 };


/* C[crow[g]][i] (+)= sum_j A[arow[g]][j] T[j][i] for g < n, j < K (the rows
 * of the table T, K x w), i < w. The sum over j is outermost and the loop
 * over i innermost, running along rows of T and C with a constant trip
 * count, so the C compiler vectorises it; one pass over i serves all n rows
 * and JUNROLL values of j. accumulate = 0 overwrites C. */
void dg_product(hdg_ir_kernel *k, hdg_ir_tensor *C, const int *crow, hdg_ir_tensor *A, const int *arow,
                    int n, hdg_ir_tensor *T, int accumulate)
{
    dg_product_part(k, C, crow, A, NULL, arow, n, T, NULL, T->shape[0], accumulate);
}

/* dg_product over K rows of T from row toff on, with A's columns from aoff
 * on (NULL: 0): C[crow[g]][i] (+)= sum_(j < K) A[arow[g]][aoff + j] T[toff + j][i]. */
void dg_product_part(hdg_ir_kernel *k, hdg_ir_tensor *C, const int *crow, hdg_ir_tensor *A, hdg_ir_expr *aoff,
                     const int *arow, int n, hdg_ir_tensor *T, hdg_ir_expr *toff, int K, int accumulate)
{
    int w = T->shape[1];
    hdg_ir_expr *a[HDG_DG_MAX_FIELDS][JUNROLL], *row[JUNROLL];
    for (int j0 = 0; j0 < K;) {
        /* JUNROLL rows per pass (the first pass alone when it assigns), then the rest */
        int u = K - j0 >= JUNROLL ? JUNROLL : K - j0;
        int nb = u == JUNROLL && (accumulate || j0 > 0) ? (K - j0) / JUNROLL : 1;
        hdg_ir_expr *jb = nb > 1 ? hdg_ir_for(k, "jb", nb) : hdg_ir_int(k, 0);
        for (int q = 0; q < u; q++) {
            row[q] = hdg_ir_add(k, hdg_ir_int(k, j0 + q), hdg_ir_mul(k, jb, hdg_ir_int(k, u)));
            hdg_ir_expr *col = aoff ? hdg_ir_add(k, aoff, row[q]) : row[q];
            for (int g = 0; g < n; g++)
                a[g][q] = hdg_ir_let(k, "a", hdg_ir_ld2(k, A, hdg_ir_int(k, arow[g]), col));
        }
        hdg_ir_expr *i = hdg_ir_for(k, "i", w);
        for (int g = 0; g < n; g++) {
            hdg_ir_expr *sum = NULL;
            for (int q = 0; q < u; q++) {
                hdg_ir_expr *tr = toff ? hdg_ir_add(k, toff, row[q]) : row[q];
                sum = dg_add_term(k, sum, hdg_ir_mul(k, a[g][q], hdg_ir_ld2(k, T, tr, i)));
            }
            hdg_ir_expr *dst = hdg_ir_ld2(k, C, hdg_ir_int(k, crow[g]), i);
            if (accumulate || j0 > 0) hdg_ir_accum(k, dst, sum);
            else hdg_ir_assign(k, dst, sum);
        }
        hdg_ir_end(k);
        if (nb > 1) hdg_ir_end(k);
        j0 += nb * u;
    }
}

