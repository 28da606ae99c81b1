/* lower_hdg_post.c — the post-processing kernel (u* of degree k+1 per element)
 * and the error estimate ||u* - u|| (lower_hdg_internal.h). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* ------------------------------------------------ post-processing
 * Per element, the post unknown (degree k+1, npp modes per component) from its
 * volume equation with the main system's element unknowns as data; the
 * equation's row of the constant mode (Dubiner mode 0) is replaced, per
 * component, by the mean constraint: with orthonormal modes
 * (v, 1)_K = J sqrt(2) v_0, so the constraint is ustar_0 = u_0.
 *
 * An atom whose coefficient does not depend on x, y takes the reference-tensor
 * path, as in the local kernel: its integral is J coef sum_ab g_a g_b T_ab with
 * T_ab integrals of reference basis values/derivatives made at compile time
 * (post basis x post basis for the matrix, post basis x element basis for the
 * known fields, post basis alone for sources). Other atoms are integrated by
 * quadrature per element. */

typedef struct post {
    hdg_ir_kernel *k;
    hdg_ir_tensor *g, *x, *A, *r, *val;
    int N, nq;
    /* quadrature path (made on first use) */
    hdg_ir_tensor *w, *lam, *P1, *dP1[3], *P0, *dP0[3];
    /* reference-tensor path: host values of the post basis (b1) and of the
     * element basis (b0) on a rule exact for their products */
    int hq;
    double *hw, *b1[4], *b0[4];
    hdg_ir_tensor *T11[4][4], *T10[4][4], *T1[4];
    struct psum { int known, n, a[4], b[4]; hdg_ir_tensor *T; } sums[16];   /* post_table_sum */
    int nsums;
} post;
typedef struct psum psum;

static hdg_status post_quad_tables(lower *c, post *ps)
{
    if (ps->w) return HDG_OK;
    hdg_ir_tensor *w0, *lam0;
    int deg = 2 * c->L->kpost + 6;
    hdg_status st = hdg_lh_volume_tables(c, deg, "post", &ps->nq, &ps->w, &ps->lam, &ps->P1, ps->dP1, c->L->kpost);
    if (!st) st = hdg_lh_volume_tables(c, deg, "postk", &ps->nq, &w0, &lam0, &ps->P0, ps->dP0, c->k);
    return st;
}

static hdg_status post_host(lower *c, post *ps)
{
    if (ps->hw) return HDG_OK;
    hdg_quad q;
    hdg_status st = hdg_quad_simplex(&q, c->dim, 2 * c->L->kpost, c->err);
    if (st) return st;
    ps->hq = q.n;
    ps->hw = hdg_xmalloc(sizeof(double) * (size_t)q.n);
    memcpy(ps->hw, q.w, sizeof(double) * (size_t)q.n);
    for (int i = 0; i <= c->dim; i++) {
        ps->b1[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * c->L->npp));
        ps->b0[i] = hdg_xmalloc(sizeof(double) * (size_t)(q.n * c->np));
    }
    hdg_lh_elem_eval(c->dim, c->L->kpost, q.n, q.x, ps->b1[0], ps->b1 + 1);
    hdg_lh_elem_eval(c->dim, c->k, q.n, q.x, ps->b0[0], ps->b0 + 1);
    hdg_quad_free(&q);
    return HDG_OK;
}

static void post_free(post *ps)
{
    free(ps->hw);
    for (int i = 0; i < 4; i++) free(ps->b1[i]), free(ps->b0[i]);
}

/* The table of test kind a against trial kind b (trial: b < 0 none; known:
 * the element basis; else the post basis). */
static hdg_ir_tensor *post_table(lower *c, post *ps, int a, int b, int known)
{
    hdg_ir_tensor **slot = b < 0 ? &ps->T1[a] : known ? &ps->T10[a][b] : &ps->T11[a][b];
    if (*slot) return *slot;
    int npp = c->L->npp, nj = b < 0 ? 0 : known ? c->np : npp;
    double *T = hdg_lh_integrate(1, ps->hq, ps->hw, ps->b1[a], npp, b < 0 ? NULL : known ? ps->b0[b] : ps->b1[b], nj);
    char name[32];
    if (b < 0) snprintf(name, sizeof name, "TP_%s", hdg_lh_kind(a));
    else snprintf(name, sizeof name, "%s_%s_%s", known ? "TPK" : "TP", hdg_lh_kind(a), hdg_lh_kind(b));
    *slot = nj ? hdg_ir_table(c->m, name, HDG_SHAPE(npp, nj), T) : hdg_ir_table(c->m, name, HDG_SHAPE(npp), T);
    free(T);
    return *slot;
}

/* The sum of the tables T_{a[m] b[m]}, m < n (cached): terms whose geometric
 * factors have one product share it. */
static hdg_ir_tensor *post_table_sum(lower *c, post *ps, int n, const int *a, const int *b, int known)
{
    for (int s = 0; s < ps->nsums; s++)
        if (ps->sums[s].known == known && ps->sums[s].n == n && !memcmp(ps->sums[s].a, a, sizeof(int) * (size_t)n) &&
            !memcmp(ps->sums[s].b, b, sizeof(int) * (size_t)n))
            return ps->sums[s].T;
    hdg_ir_tensor *P = post_table(c, ps, a[0], b[0], known);
    double *T = hdg_xcalloc((size_t)P->size, sizeof(double));
    char name[64];
    snprintf(name, sizeof name, "%s_sum", known ? "TPK" : "TP");
    for (int m = 0; m < n; m++) {
        const hdg_ir_tensor *Q = post_table(c, ps, a[m], b[m], known);
        for (int e = 0; e < P->size; e++) T[e] += Q->data[e];
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, "_%s_%s", hdg_lh_kind(a[m]), hdg_lh_kind(b[m]));
    }
    hdg_ir_tensor *S = hdg_ir_table(c->m, name, P->rank, P->shape, T);
    free(T);
    if (ps->nsums < (int)(sizeof ps->sums / sizeof ps->sums[0]))
        ps->sums[ps->nsums++] = (psum){known, n, {a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, S};
    return S;
}

/* sum_ab g_a g_b T_ab[i][j] (j NULL: sum_a g_a T_a[i]); the terms of one product of
 * geometric factors (g_r g_s T_rs + g_s g_r T_sr) as one table, the product first
 * (a loop invariant) */
static hdg_ir_expr *post_ref_value(lower *c, post *ps, const hdg_atom *a, int known, hdg_ir_expr *i,
                                   hdg_ir_expr *j)
{
    hdg_ir_kernel *k = ps->k;
    bterm ta[3], ra[3] = {{0, -1}};
    int nta = hdg_lh_side_terms(c, a->test_op, ta), nra = a->trial < 0 ? 1 : hdg_lh_side_terms(c, a->trial_op, ra);
    struct { int g[2], n, a[4], b[4]; } grp[9];
    int ngrp = 0;
    for (int x = 0; x < nta; x++)
        for (int y = 0; y < nra; y++) {
            int g0 = ta[x].g < ra[y].g ? ta[x].g : ra[y].g, g1 = ta[x].g < ra[y].g ? ra[y].g : ta[x].g, q = 0;
            while (q < ngrp && (grp[q].g[0] != g0 || grp[q].g[1] != g1)) q++;
            if (q == ngrp) grp[ngrp++].n = 0, grp[q].g[0] = g0, grp[q].g[1] = g1;
            grp[q].a[grp[q].n] = ta[x].kind, grp[q].b[grp[q].n++] = a->trial < 0 ? -1 : ra[y].kind;
        }
    hdg_ir_expr *sum = NULL;
    for (int q = 0; q < ngrp; q++) {
        hdg_ir_tensor *T = grp[q].n == 1 ? post_table(c, ps, grp[q].a[0], grp[q].b[0], known)
                                         : post_table_sum(c, ps, grp[q].n, grp[q].a, grp[q].b, known);
        hdg_ir_expr *v = j ? hdg_ir_ld2(k, T, i, j) : hdg_ir_ld1(k, T, i), *coef = NULL;
        for (int f = 0; f < 2; f++)
            if (grp[q].g[f] >= 0) coef = coef ? hdg_ir_mul(k, coef, Gc(k, ps->g, grp[q].g[f])) : Gc(k, ps->g, grp[q].g[f]);
        v = coef ? hdg_ir_mul(k, coef, v) : v;
        sum = sum ? hdg_ir_add(k, sum, v) : v;
    }
    return sum;
}

/* A source atom or one of a known unknown (the post unknown's own atoms go to
 * post_block_ref), on the reference-tensor path. */
static hdg_status post_atom_ref(lower *c, post *ps, const hdg_atom *a)
{
    hdg_status st = post_host(c, ps);
    if (st) return st;
    hdg_ir_kernel *k = ps->k;
    hdg_lowered *L = c->L;
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *coef = hdg_lower_expr(k, &env, a->coef);
    if (!coef) coef = hdg_ir_num(k, 0);
    hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, Gc(k, ps->g, hdg_g_J(c->dim)), coef));
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->npp);
    hdg_ir_expr *row = hdg_ir_add(k, I(k, a->test_comp * L->npp), i);
    if (a->trial < 0) {
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), hdg_ir_mul(k, cw, post_ref_value(c, ps, a, 0, i, NULL)));
    } else {   /* a known unknown: r[i] -= c sum_j T[i][j] x[j] */
        int base = L->uoff[a->trial] + a->trial_comp * c->np;
        hdg_ir_assign(k, hdg_ir_ld0(k, ps->val), hdg_ir_num(k, 0));
        hdg_ir_expr *j = hdg_ir_for(k, "j", c->np);
        hdg_ir_accum(k, hdg_ir_ld0(k, ps->val),
                     hdg_ir_mul(k, post_ref_value(c, ps, a, 1, i, j),
                                hdg_ir_ld1(k, ps->x, hdg_ir_add(k, I(k, base), j))));
        hdg_ir_end(k);
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), hdg_ir_neg(k, hdg_ir_mul(k, cw, hdg_ir_ld0(k, ps->val))));
    }
    hdg_ir_end(k);
    return HDG_OK;
}

/* Atoms n of the post system's block (test comp, trial comp) with x,y-independent
 * coefficients, in one pass: A[i][j] += sum_T C_T T[i][j] over the tables T, where
 * C_T = sum over the atoms' terms on T of c_atom g_a g_b (a loop invariant); tables
 * whose coefficients are the same expression are summed (dx dx + dy dy: the
 * rs and sr tables). */
static hdg_status post_block_ref(lower *c, post *ps, const hdg_atom *const *at, int n)
{
    hdg_status st = post_host(c, ps);
    if (st) return st;
    hdg_ir_kernel *k = ps->k;
    hdg_lowered *L = c->L;
    enum { MAXT = 16 };
    struct ptab { int a[4], b[4], n; hdg_ir_expr *C; } tab[MAXT];
    int ntab = 0;
    for (int m = 0; m < n; m++) {
        const hdg_atom *a = at[m];
        hdg_lh_set_origin(c, k, a);
        hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
        hdg_ir_expr *coef = hdg_lower_expr(k, &env, a->coef);
        hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, Gc(k, ps->g, hdg_g_J(c->dim)), coef ? coef : hdg_ir_num(k, 0)));
        bterm ta[3], ra[3];
        int nta = hdg_lh_side_terms(c, a->test_op, ta), nra = hdg_lh_side_terms(c, a->trial_op, ra);
        for (int x = 0; x < nta; x++)
            for (int y = 0; y < nra; y++) {
                int g0 = ta[x].g < ra[y].g ? ta[x].g : ra[y].g, g1 = ta[x].g < ra[y].g ? ra[y].g : ta[x].g;
                hdg_ir_expr *e = cw;
                if (g0 >= 0) e = hdg_ir_mul(k, e, Gc(k, ps->g, g0));
                if (g1 >= 0) e = hdg_ir_mul(k, e, Gc(k, ps->g, g1));
                int q = 0;
                while (q < ntab && (tab[q].a[0] != ta[x].kind || tab[q].b[0] != ra[y].kind)) q++;
                if (q == ntab) tab[ntab++] = (struct ptab){{ta[x].kind}, {ra[y].kind}, 1, NULL};
                tab[q].C = tab[q].C ? hdg_ir_add(k, tab[q].C, e) : e;
            }
    }
    for (int q = 0; q < ntab; q++)   /* equal coefficients: one table, the sum */
        for (int r = q + 1; r < ntab; r++)
            if (tab[r].n && tab[q].n < 4 && hdg_ir_expr_equal(tab[q].C, tab[r].C)) {
                tab[q].a[tab[q].n] = tab[r].a[0], tab[q].b[tab[q].n++] = tab[r].b[0];
                tab[r].n = 0;
            }
    hdg_ir_set_origin(k, c->p->file, at[0]->loc.line, at[0]->loc.col, "post block: its atoms by table");
    hdg_ir_expr *C[MAXT];
    for (int q = 0; q < ntab; q++) C[q] = tab[q].n ? hdg_ir_let(k, "cT", tab[q].C) : NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", L->npp), *j = hdg_ir_for(k, "j", L->npp), *sum = NULL;
    for (int q = 0; q < ntab; q++) {
        if (!tab[q].n) continue;
        hdg_ir_tensor *T = tab[q].n == 1 ? post_table(c, ps, tab[q].a[0], tab[q].b[0], 0)
                                         : post_table_sum(c, ps, tab[q].n, tab[q].a, tab[q].b, 0);
        hdg_ir_expr *v = hdg_ir_mul(k, C[q], hdg_ir_ld2(k, T, i, j));
        sum = sum ? hdg_ir_add(k, sum, v) : v;
    }
    hdg_ir_accum(k, hdg_ir_ld2(k, ps->A, hdg_ir_add(k, I(k, at[0]->test_comp * L->npp), i),
                               hdg_ir_add(k, I(k, at[0]->trial_comp * L->npp), j)),
                 sum);
    hdg_ir_end(k);
    hdg_ir_end(k);
    return HDG_OK;
}

static hdg_status post_atom_quad(lower *c, post *ps, const hdg_atom *a, int known)
{
    hdg_status st = post_quad_tables(c, ps);
    if (st) return st;
    hdg_ir_kernel *k = ps->k;
    hdg_ir_tensor *g = ps->g;
    hdg_lowered *L = c->L;
    int npp = L->npp;
    hdg_lower_env env = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_expr *q = hdg_lh_open_points(k, g, c->dim, ps->lam, ps->nq, &env);
    hdg_ir_expr *coef = hdg_lower_expr(k, &env, a->coef);
    if (!coef) coef = hdg_ir_num(k, 0);
    hdg_ir_expr *cw = hdg_ir_let(k, "c", hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_ld1(k, ps->w, q),
                                                                    Gc(k, g, hdg_g_J(c->dim))), coef));
    if (known) {   /* the value of the known field (or its derivative) at q */
        int base = L->uoff[a->trial] + a->trial_comp * c->np;
        hdg_ir_assign(k, hdg_ir_ld0(k, ps->val), hdg_ir_num(k, 0));
        hdg_ir_expr *j = hdg_ir_for(k, "j", c->np);
        hdg_ir_accum(k, hdg_ir_ld0(k, ps->val),
                     hdg_ir_mul(k, hdg_ir_ld1(k, ps->x, hdg_ir_add(k, I(k, base), j)),
                                hdg_lh_basis_op(k, g, c->dim, a->trial_op, ps->P0, ps->dP0, NULL, q, j)));
        hdg_ir_end(k);
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", npp);
    hdg_ir_expr *row = hdg_ir_add(k, I(k, a->test_comp * npp), i);
    hdg_ir_expr *ti = hdg_ir_let(k, "ti", hdg_ir_mul(k, cw, hdg_lh_basis_op(k, g, c->dim, a->test_op, ps->P1, ps->dP1,
                                                                     NULL, q, i)));
    if (a->trial < 0) {
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), ti);
    } else if (known) {
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, row), hdg_ir_neg(k, hdg_ir_mul(k, ti, hdg_ir_ld0(k, ps->val))));
    } else {
        hdg_ir_expr *j = hdg_ir_for(k, "j", npp);
        hdg_ir_accum(k, hdg_ir_ld2(k, ps->A, row, hdg_ir_add(k, I(k, a->trial_comp * npp), j)),
                     hdg_ir_mul(k, ti, hdg_lh_basis_op(k, g, c->dim, a->trial_op, ps->P1, ps->dP1, NULL, q, j)));
        hdg_ir_end(k);
    }
    hdg_ir_end(k);
    hdg_ir_end(k);
    return HDG_OK;
}

/* An atom of the post system's own matrix on the reference-tensor path. */
static int post_block_atom(const lower *c, const hdg_atom *a)
{
    return a->domain == HDG_VOLUME && a->trial >= 0 && a->trial == c->L->post_unknown && c->ref_tensors &&
           hdg_lh_coef_is_constant(a);
}

static hdg_status post_atoms(lower *c, post *ps, const hdg_equation *eq)
{
    const hdg_problem *p = c->p;
    char *done = hdg_xcalloc((size_t)eq->natoms + 1, 1);
    const hdg_atom **grp = hdg_xmalloc(sizeof *grp * ((size_t)eq->natoms + 1));
    hdg_status st = HDG_OK;
    for (int t = 0; t < eq->natoms && !st; t++) {
        const hdg_atom *a = &eq->atoms[t];
        if (done[t]) continue;
        if (a->domain != HDG_VOLUME) {
            st = hdg_fail(c->err, HDG_EINPUT, "%s:%d:%d: post-processing equations take volume "
                          "integrals only", p->file, a->loc.line, a->loc.col);
            break;
        }
        if (post_block_atom(c, a)) {   /* with the later atoms of its block */
            int n = 0;
            for (int u = t; u < eq->natoms; u++) {
                const hdg_atom *b = &eq->atoms[u];
                if (!done[u] && post_block_atom(c, b) && b->test_comp == a->test_comp && b->trial_comp == a->trial_comp)
                    grp[n++] = b, done[u] = 1;
            }
            st = post_block_ref(c, ps, grp, n);
            continue;
        }
        hdg_lh_set_origin(c, ps->k, a);
        int known = a->trial >= 0 && a->trial != c->L->post_unknown;
        st = c->ref_tensors && hdg_lh_coef_is_constant(a) ? post_atom_ref(c, ps, a)
                                                          : post_atom_quad(c, ps, a, known);
    }
    free(done);
    free(grp);
    return st;
}

/* Whether the post system of eq is symmetric positive definite once every mean
 * constraint has replaced its row and column: each atom on the post unknown has
 * the same operator and component on both sides and a positive number as
 * coefficient (a sum of Gram matrices), and each component has a value atom or
 * both derivatives (then only its constant mode, which the constraint fixes,
 * is in the kernel). Such a system is solved by Cholesky without pivoting
 * (HDGC_NO_CHOL=1: by the pivoted LU, as every other post system). */
static int post_spd(const lower *c, const hdg_equation *eq, int nc)
{
    unsigned ops[HDG_MAX_COMP] = {0};
    if (nc > HDG_MAX_COMP || !c->post_chol) return 0;
    for (int t = 0; t < eq->natoms; t++) {
        const hdg_atom *a = &eq->atoms[t];
        if (a->trial != c->L->post_unknown) continue;
        if (a->test_op != a->trial_op || a->test_comp != a->trial_comp || a->test_comp >= nc || !a->coef ||
            a->coef->kind != HDG_EX_NUM || !(a->coef->num > 0))
            return 0;
        ops[a->test_comp] |= 1u << a->test_op;
    }
    unsigned grad = 1u << HDG_OP_DX | 1u << HDG_OP_DY | (c->dim == 3 ? 1u << HDG_OP_DZ : 0u);
    for (int cp = 0; cp < nc; cp++)
        if (!(ops[cp] & 1u << HDG_OP_VALUE) && (ops[cp] & grad) != grad) return 0;
    return 1;
}

/* The mean constraints of the post system (A, r) of N modes, nc components of npp:
 * row cp npp becomes ustar_0 = u_0 of component cp. With spd its column goes to the
 * right-hand side too, so that A stays symmetric. */
static void post_constrain(lower *c, hdg_ir_kernel *k, post *ps, const hdg_unknown *U, int npp, int spd)
{
    int nc = U->ncomp, N = ps->N;
    for (int cp = 0; cp < nc; cp++) {
        int row = cp * npp;
        hdg_ir_expr *j = hdg_ir_for(k, "j", N);
        hdg_ir_assign(k, hdg_ir_ld2(k, ps->A, I(k, row), j), hdg_ir_num(k, 0));
        hdg_ir_end(k);
        hdg_ir_assign(k, hdg_ir_ld1(k, ps->r, I(k, row)),
                      hdg_ir_ld1(k, ps->x, I(k, c->L->uoff[U->mean] + cp * c->np)));
    }
    /* the constrained rows are zero now, their own column entries too: r[row] stays */
    for (int cp = 0; cp < nc && spd; cp++) {
        int row = cp * npp;
        hdg_ir_expr *i = hdg_ir_for(k, "i", N);
        hdg_ir_accum(k, hdg_ir_ld1(k, ps->r, i),
                     hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld2(k, ps->A, i, I(k, row)), hdg_ir_ld1(k, ps->r, I(k, row)))));
        hdg_ir_assign(k, hdg_ir_ld2(k, ps->A, i, I(k, row)), hdg_ir_num(k, 0));
        hdg_ir_end(k);
    }
    for (int cp = 0; cp < nc; cp++)
        hdg_ir_assign(k, hdg_ir_ld2(k, ps->A, I(k, cp * npp), I(k, cp * npp)), hdg_ir_num(k, 1));
}

/* Post-processed unknown i of the kernel k: its system, written at its offset
 * of the element's row xpost. L->post_unknown, kpost and npp name unknown i
 * while its atoms are lowered (the post helpers read them). */
static hdg_status post_one(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_ir_tensor *x, hdg_ir_tensor *out, int pi)
{
    hdg_lowered *L = c->L;
    const hdg_problem *p = c->p;
    L->post_unknown = L->posts[pi], L->kpost = L->pdeg[pi], L->npp = L->pnp[pi];
    const hdg_unknown *U = unk(c, L->post_unknown);
    const hdg_equation *eq = &p->equations[U->equation];
    int nc = U->ncomp, npp = L->npp, N = nc * npp;
    post ps = {.k = k, .N = N};
    ps.g = g;
    ps.x = x;
    ps.A = hdg_ir_local(k, "A", HDG_IR_DOUBLE, HDG_SHAPE(N, N));
    ps.r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(N));
    ps.val = hdg_ir_local(k, "val", HDG_IR_DOUBLE, HDG_SCALAR);
    hdg_ir_fill(k, ps.A, hdg_ir_num(k, 0));
    hdg_ir_fill(k, ps.r, hdg_ir_num(k, 0));
    hdg_status st = post_atoms(c, &ps, eq);
    post_free(&ps);
    if (st) return st;
    hdg_ir_set_origin(k, p->file, eq->loc.line, eq->loc.col, "mean constraint");
    int spd = post_spd(c, eq, nc);
    post_constrain(c, k, &ps, U, npp, spd);
    if (spd) {
        hdg_ir_set_origin(k, p->file, eq->loc.line, eq->loc.col, "symmetric positive definite: Cholesky");
        hdg_ir_chol(k, ps.A);
        hdg_ir_chol_solve(k, ps.A, ps.r);
    } else {
        hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(N));
        hdg_ir_lu(k, ps.A, piv);
        hdg_ir_lu_solve(k, ps.A, piv, ps.r);
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", N);
    hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_add(k, I(k, L->poff[pi]), i)), hdg_ir_ld1(k, ps.r, i));
    hdg_ir_end(k);
    return HDG_OK;
}

/* Every post-processed unknown, one after the other, into one row xpost per element. */
hdg_status hdg_lh_post_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    snprintf(L->post, sizeof L->post, "%s_post", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->post, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_input(k, "x", HDG_SHAPE(L->nl), "element dofs (modal)");
    hdg_ir_tensor *out = hdg_ir_output(k, "xpost", HDG_SHAPE(L->npost_dofs), "post-processed dofs (modal)");
    hdg_status st = HDG_OK;
    for (int i = 0; i < L->npost && !st; i++) st = post_one(c, k, g, x, out, i);
    L->post_unknown = L->posts[0], L->kpost = L->pdeg[0], L->npp = L->pnp[0];
    return st;
}

/* The error estimate (docs/method.md, "Error estimate from post-processing"): per
 * element eta_K^2 = ||u* - u||^2_{L2(K)} for the element unknown u whose mean
 * the post-processed u* keeps, summed over the components, each field in its
 * own Dubiner basis (degrees kpost and k) on a rule exact for the squared
 * difference (degree 2 max(kpost, k); the map is affine). */
hdg_status hdg_lh_estimate_kernel(lower *c)
{
    hdg_lowered *L = c->L;
    const hdg_unknown *U = unk(c, L->post_unknown);
    int kp = L->kpost > c->k ? L->kpost : c->k, nq, nq2;
    hdg_ir_tensor *w, *lam, *P, *w2, *lam2, *Pp;
    hdg_status st = hdg_lh_volume_tables(c, 2 * kp, "est", &nq, &w, &lam, &P, NULL, c->k);
    if (!st) st = hdg_lh_volume_tables(c, 2 * kp, "estp", &nq2, &w2, &lam2, &Pp, NULL, L->kpost);
    if (st) return st;
    snprintf(L->estimate, sizeof L->estimate, "%s_estimate", c->m->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->m, L->estimate, HDG_KITEM_ELEMENT);
    hdg_ir_set_origin(k, c->p->file, U->loc.line, U->loc.col, "error estimate ||u* - u||");
    hdg_ir_tensor *g = hdg_lh_elem_geom(c, k);
    hdg_ir_tensor *x = hdg_ir_input(k, "x", HDG_SHAPE(L->nl), "element dofs (modal)");
    hdg_ir_tensor *xp = hdg_ir_input(k, "xpost", HDG_SHAPE(L->npost_dofs), "post-processed dofs (modal)");
    hdg_ir_tensor *out = hdg_ir_output(k, "eta2", HDG_SHAPE(1), "squared estimate ||u* - u||^2 on the element");
    hdg_ir_tensor *acc = hdg_ir_local(k, "acc", HDG_IR_DOUBLE, HDG_SHAPE(1));
    hdg_ir_tensor *d = hdg_ir_local(k, "d", HDG_IR_DOUBLE, HDG_SCALAR);
    hdg_ir_fill(k, acc, hdg_ir_num(k, 0));
    hdg_ir_expr *q = hdg_ir_for(k, "q", nq);
    hdg_ir_expr *wj = hdg_ir_let(k, "wJ", hdg_ir_mul(k, hdg_ir_ld1(k, w, q), Gc(k, g, hdg_g_J(c->dim))));
    for (int cp = 0; cp < U->ncomp; cp++) {
        int base = L->uoff[U->mean] + cp * c->np;
        hdg_ir_assign(k, hdg_ir_ld0(k, d), hdg_ir_num(k, 0));
        hdg_ir_expr *i = hdg_ir_for(k, "i", L->npp);
        hdg_ir_accum(k, hdg_ir_ld0(k, d), hdg_ir_mul(k, hdg_ir_ld1(k, xp, hdg_ir_add(k, I(k, cp * L->npp), i)),
                                                    hdg_ir_ld2(k, Pp, q, i)));
        hdg_ir_end(k);
        hdg_ir_expr *j = hdg_ir_for(k, "j", c->np);
        hdg_ir_accum(k, hdg_ir_ld0(k, d), hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld1(k, x, hdg_ir_add(k, I(k, base), j)),
                                                                  hdg_ir_ld2(k, P, q, j))));
        hdg_ir_end(k);
        hdg_ir_accum(k, hdg_ir_ld1(k, acc, I(k, 0)), hdg_ir_mul(k, wj, hdg_ir_mul(k, hdg_ir_ld0(k, d),
                                                                                  hdg_ir_ld0(k, d))));
    }
    hdg_ir_end(k);
    hdg_ir_copy(k, out, acc);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    return HDG_OK;
}
