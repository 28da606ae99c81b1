/* lower_hdg_elim.c — the block elimination of A in the HDG element kernels
 * (local and recovery), with the product tables of the local kernel's
 * diagonal steps; lower_hdg.c builds the systems it eliminates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower_hdg_internal.h"
#include "support/util.h"

/* ------------------------------------------------ block elimination of A
 * A is made of np x np blocks, one per (test component, trial component) of
 * the element unknowns; the atoms say at compile time which blocks are
 * structurally nonzero. The element unknowns are eliminated one component
 * (np dofs) at a time, the cheapest first (fewest coupled rows and columns),
 * with the fill-in tracked here: each step factors only its np x np diagonal
 * block (pivoting inside it) and updates only the blocks it couples. Where no
 * remaining component has a structurally nonzero diagonal block the rest goes
 * in one dense group. A component whose diagonal block is a multiple of the
 * orthonormal mass matrix (elim_diagonal) and has taken no fill-in is
 * eliminated by scaling its rows: no LU. When the plan saves less than a fifth of the flops of
 * the dense LU of all of A (or HDGC_NO_BLOCK_ELIM is set) the dense path
 * stays. The extra rows and columns (xr, xc) are the right-hand side in the
 * recovery (no rows, one column), or in the opt-in local kernel the trace
 * rows of C, D and the trace columns plus source of B, D.
 *
 * The recovery uses it, and so does the local kernel: with the order fixed
 * (the mass blocks of q pivot before u, where partial pivoting over all of A
 * picks rows of the u equation) K_e matches the dense one to 1e-15 element by
 * element. Its global solution of poisson at k = 8..10 used to come out
 * 10-50x less accurate (6.8e-12 instead of 1.2e-13 on square:32, k = 8): not
 * the elimination order but the constant null vector of K_e, which the block
 * path's rounding broke more (a difference of larger terms); null_close
 * makes K_e c = 0 exact on both paths, and both then reach ~3e-14 at k = 8. */


/* 1 when atom a of equation eq adds into A, the block (element component *i,
 * component *j); 0 for the trace rows, trace or source columns, post-processing. */
static int a_block(const lower *c, const hdg_equation *eq, const hdg_atom *a, int *i, int *j)
{
    if (eq->post || eq->trace || a->trial < 0 || unk(c, a->trial)->trace) return 0;
    *i = c->L->uoff[eq->unknown] / c->np + a->test_comp;
    *j = c->L->uoff[a->trial] / c->np + a->trial_comp;
    return 1;
}

/* nz[i][j]: some atom adds into the block (element component i, component j). */
static void elim_structure(const lower *c, unsigned char nz[ELIM_MAX][ELIM_MAX])
{
    memset(nz, 0, sizeof(unsigned char) * ELIM_MAX * ELIM_MAX);
    for (int e = 0; e < c->p->nequations; e++)
        for (int t = 0, i, j; t < c->p->equations[e].natoms; t++)
            if (a_block(c, &c->p->equations[e], &c->p->equations[e].atoms[t], &i, &j)) nz[i][j] = 1;
}

/* diag[e]: the block (e, e) is diagonal: every atom adding into it is a
 * volume integral of value times value with a coefficient independent of x
 * and y, i.e. a multiple of the mass matrix of the orthonormal basis, whose
 * off-diagonal entries are rounding (checked on the volume rule). */
static void elim_diagonal(const lower *c, int *diag)
{
    int np = c->np, nc = c->L->nl / np, any[ELIM_MAX] = {0};
    for (int e = 0; e < nc; e++) diag[e] = 1;
    double *T = hdg_lh_integrate(1, c->nvq, c->vwh, c->vb[0], np, c->vb[0], np), off = 0, dmin = 1;
    for (int i = 0; i < np; i++)
        for (int j = 0; j < np; j++) {
            double v = fabs(T[i * np + j]);
            if (i == j) dmin = v < dmin ? v : dmin;
            else off = v > off ? v : off;
        }
    free(T);
    int mass_diagonal = off <= 1e-13 * dmin;
    for (int e = 0; e < c->p->nequations; e++) {
        const hdg_equation *eq = &c->p->equations[e];
        for (int t = 0, i, j; t < eq->natoms; t++) {
            const hdg_atom *a = &eq->atoms[t];
            if (!a_block(c, eq, a, &i, &j) || i != j) continue;
            any[i] = 1;
            if (!mass_diagonal || a->domain != HDG_VOLUME || a->test_op != HDG_OP_VALUE ||
                a->trial_op != HDG_OP_VALUE || !hdg_lh_coef_is_constant(a))
                diag[i] = 0;
        }
    }
    for (int e = 0; e < nc; e++) diag[e] &= any[e];
}

/* LU of g, solve for ncl columns, update of nr x ncl */
static double elim_flops(double g, double nr, double ncl)
{
    return 2.0 / 3.0 * g * g * g + 2.0 * g * g * ncl + 2.0 * nr * g * ncl;
}

/* Returns 1 when the block plan is worth it: it needs less than `keep` of
 * the dense LU's flops. The local kernel used to ask for more (it measured
 * no faster where it saved under 45% of the flops, one element at a time:
 * poisson k = 1: 35%, 1.06x; k = 2: 42%, 0.92x). Batched across SIMD lanes
 * (backends/c/emit_batch.c) it is 1.24x faster at k = 2 and 8% slower at
 * k = 1 (local stage, square:64, 3 alternating rounds), and its diagonal steps make the local solve independent of the
 * problem's units: the dense LU's pivot test (1e-14 of the largest entry)
 * took kappa = tau = 1e-9 at k <= 2 for a singular matrix. So the local
 * kernel takes the plan whenever it saves flops (LOCAL_KEEP 1). */
int hdg_lh_elim_plan_make(const lower *c, int xr, int xc, double keep, elim_plan *P)
{
    /* Nonlinear problems: the plan's block structure comes from the linear atoms, and the Jacobian
     * atoms couple further blocks: the dense LU (lower_hdg_newton.c) */
    if (c->p->nonlinear) return 0;
    int np = c->np, nc = c->L->nl / np;
    unsigned char nz[ELIM_MAX][ELIM_MAX];
    int done[ELIM_MAX] = {0}, diag[ELIM_MAX];
    memset(P, 0, sizeof *P);
    P->nc = nc;
    P->dense = elim_flops(c->L->nl, xr, xc);
    if (nc < 2 || nc > ELIM_MAX || hdg_env_flag("HDGC_NO_BLOCK_ELIM")) return 0;
    elim_structure(c, nz);
    elim_diagonal(c, diag);
    for (int left = nc; left > 0;) {
        int s = P->nstep++, in[ELIM_MAX] = {0};
        double best = -1;
        int pick = -1;
        for (int e = 0; e < nc; e++) {
            if (done[e] || !nz[e][e]) continue;
            int rr = 0, cc = 0;
            for (int o = 0; o < nc; o++)
                if (!done[o] && o != e) rr += nz[o][e], cc += nz[e][o];
            double f = diag[e] ? 2.0 * ((double)rr * np + xr) * np * ((double)cc * np + xc)
                               : elim_flops(np, (double)rr * np + xr, (double)cc * np + xc);
            if (pick < 0 || f < best) pick = e, best = f;
        }
        for (int e = 0; e < nc; e++)   /* the group: the pick, or all that is left */
            if (!done[e] && (pick < 0 || e == pick)) in[e] = 1, P->g[s][P->ng[s]++] = e;
        for (int o = 0; o < nc; o++) {
            if (done[o] || in[o]) continue;
            int rz = 0, cz = 0;
            for (int x = 0; x < P->ng[s]; x++) rz |= nz[o][P->g[s][x]], cz |= nz[P->g[s][x]][o];
            if (rz) P->r[s][P->nr[s]++] = o;
            if (cz) P->cl[s][P->ncl[s]++] = o;
        }
        for (int a = 0; a < P->nr[s]; a++)   /* fill-in */
            for (int b = 0; b < P->ncl[s]; b++) {
                nz[P->r[s][a]][P->cl[s][b]] = 1;
                if (P->r[s][a] == P->cl[s][b]) diag[P->r[s][a]] = 0;
            }
        P->diag[s] = pick >= 0 && diag[pick];
        double nr = (double)np * P->nr[s] + xr, ncl = (double)np * P->ncl[s] + xc;
        P->flops += P->diag[s] ? np * ncl + 2.0 * nr * np * ncl : elim_flops((double)np * P->ng[s], nr, ncl);
        for (int x = 0; x < P->ng[s]; x++) done[P->g[s][x]] = 1;
        left -= P->ng[s];
    }
    return P->nstep > 1 && P->flops < keep * P->dense;
}

/* "q.x" for element component comp */
static void comp_name(const lower *c, int comp, char *buf, size_t n)
{
    for (int u = 0; u < c->p->nunknowns; u++) {
        const hdg_unknown *x = unk(c, u);
        int o = c->L->uoff[u];
        if (o < 0 || comp < o / c->np || comp >= o / c->np + x->ncomp) continue;
        if (x->ncomp == 1) snprintf(buf, n, "%s", x->name);
        else snprintf(buf, n, "%s%s", x->name, hdg_comp_suffix(x->ncomp, comp - o / c->np));
        return;
    }
    snprintf(buf, n, "?");
}

void hdg_lh_elim_origin(lower *c, hdg_ir_kernel *k, const elim_plan *P)
{
    hdg_str s;
    hdg_str_init(&s);
    hdg_str_printf(&s, "block elimination of A (%d x %d) by components:", c->L->nl, c->L->nl);
    for (int st = 0; st < P->nstep; st++) {
        if (st) hdg_str_puts(&s, ",");
        for (int x = 0; x < P->ng[st]; x++) {
            char name[80];
            comp_name(c, P->g[st][x], name, sizeof name);
            hdg_str_printf(&s, "%s%s%s", x ? "+" : " ", name, P->diag[st] ? " (diagonal)" : "");
        }
    }
    hdg_str_printf(&s, " (%.3g Mflop instead of %.3g)", P->flops / 1e6, P->dense / 1e6);
    hdg_ir_set_origin(k, c->p->file, 0, 0, s.s);
    hdg_str_free(&s);
}

/* dst[dr + i][dc + j] (+)= src[sr + i][sc + j] */
void hdg_lh_copy_block(hdg_ir_kernel *k, hdg_ir_tensor *dst, int dr, int dc, hdg_ir_tensor *src,
                       int sr, int sc, int nr, int ncl, int acc)
{
    if (nr <= 0 || ncl <= 0) return;
    hdg_ir_expr *i = hdg_ir_for(k, "i", nr), *j = hdg_ir_for(k, "j", ncl);
    hdg_ir_expr *d = hdg_ir_ld2(k, dst, hdg_ir_add(k, I(k, dr), i), hdg_ir_add(k, I(k, dc), j));
    hdg_ir_expr *v = hdg_ir_ld2(k, src, hdg_ir_add(k, I(k, sr), i), hdg_ir_add(k, I(k, sc), j));
    if (acc) hdg_ir_accum(k, d, v);
    else hdg_ir_assign(k, d, v);
    hdg_ir_end(k);
    hdg_ir_end(k);
}

/* ---- product tables for a diagonal step (local kernel)
 * When the pivot block of step s is diagonal (a multiple of the mass matrix)
 * and the blocks it couples are still what the atoms put there (no earlier
 * step touched them: the component was coupled to none of the components
 * eliminated before), and every one of those atoms takes the reference-tensor
 * path, the update -L D^-1 W is a sum over pairs of atoms (a1 into (R, g),
 * a2 into (g, C)) of per-element factors times products of reference tables,
 * sum_p T1[i][p] T2[p][j] / m_pp, which are made here at compile time. Only
 * the source column (quadrature) is updated from M. */

/* element component of an atom's test (test = 1) or trial side; -1 trace or source */
static int atom_comp(const lower *c, const hdg_equation *eq, const hdg_atom *a, int test)
{
    if (test) return eq->trace ? -1 : c->L->uoff[eq->unknown] / c->np + a->test_comp;
    if (a->trial < 0 || unk(c, a->trial)->trace) return -1;
    return c->L->uoff[a->trial] / c->np + a->trial_comp;
}

static int in_list(const int *l, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (l[i] == x) return 1;
    return 0;
}

/* Does atom a of eq add into a block that step s updates through g = P->g[s][0]:
 * 1 as a row atom (R, g), 2 as a column atom (g, C), 0 neither. */
static int pair_role(const lower *c, const elim_plan *P, int s, const hdg_equation *eq, const hdg_atom *a)
{
    if (eq->post || a->trial < 0) return 0;
    int gc = P->g[s][0], tc = atom_comp(c, eq, a, 1), rc = atom_comp(c, eq, a, 0);
    int rtrace = unk(c, a->trial)->trace;
    if (rc == gc && tc != gc && (eq->trace || in_list(P->r[s], P->nr[s], tc))) return 1;
    if (tc == gc && rc != gc && (rtrace || in_list(P->cl[s], P->ncl[s], rc))) return 2;
    return 0;
}

static int product_step_ok(const lower *c, const elim_plan *P, int s)
{
    if (!P->diag[s] || P->ng[s] != 1 || !c->ref_tensors || c->hist || hdg_env_flag("HDGC_NO_PRODUCT_TABLES")) return 0;
    for (int t = 0; t < s; t++)   /* untouched by earlier steps */
        if (in_list(P->r[t], P->nr[t], P->g[s][0]) || in_list(P->cl[t], P->ncl[t], P->g[s][0])) return 0;
    for (int e = 0; e < c->p->nequations; e++)
        for (int t = 0; t < c->p->equations[e].natoms; t++) {
            const hdg_atom *a = &c->p->equations[e].atoms[t];
            if (pair_role(c, P, s, &c->p->equations[e], a) && !hdg_lh_coef_is_constant(a)) return 0;
        }
    return 1;
}

/* Host table of one atom term: [nb][n1][n2], test side kind x, trial side kind y */
static double *side_table(const lower *c, int boundary, const side *ts, int x, const side *rs, int y, int *n1,
                          int *n2)
{
    int np = c->np, nk = c->nk, n = c->nfq;
    *n1 = ts->trace ? nk : np, *n2 = rs->trace ? nk : np;
    if (!boundary) return hdg_lh_integrate(1, c->nvq, c->vwh, c->vb[x], np, c->vb[y], np);
    double *L3 = hdg_xmalloc(sizeof(double) * c->nfe * (size_t)(n * nk));
    for (int f = 0; f < c->nfe; f++) memcpy(L3 + (size_t)f * n * nk, c->fLh, sizeof(double) * (size_t)(n * nk));
    double *T = hdg_lh_integrate(c->nfe, n, c->fwh, ts->trace ? L3 : c->fb[x], *n1, rs->trace ? L3 : c->fb[y], *n2);
    free(L3);
    return T;
}

/* Product tables summed by their coefficient: the geometric factors' indices,
 * sorted (-1: none), and the table summed so far. */
typedef struct pgroup { int g[4], ng; double *T; } pgroup;

static pgroup *pgroup_of(pgroup *grp, int *ngrp, const int *gi, size_t size)
{
    pgroup key = { { 0 }, 0, NULL };
    for (int f = 0; f < 4; f++) {
        if (gi[f] < 0) continue;
        int at = key.ng++;
        while (at > 0 && key.g[at - 1] > gi[f]) key.g[at] = key.g[at - 1], at--;
        key.g[at] = gi[f];
    }
    for (int q = 0; q < *ngrp; q++)
        if (grp[q].ng == key.ng && !memcmp(grp[q].g, key.g, sizeof key.g)) return &grp[q];
    key.T = hdg_xcalloc(size, sizeof(double));
    grp[*ngrp] = key;
    return &grp[(*ngrp)++];
}

static void emit_pair(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, hdg_ir_tensor *M, hdg_ir_expr *invD,
                      const double *mdiag, const hdg_equation *eq1, const hdg_atom *a1, const hdg_equation *eq2,
                      const hdg_atom *a2)
{
    int nl = c->L->nl, np = c->np;
    side ts = hdg_lh_test_side(c, eq1, a1), g1 = hdg_lh_trial_side(c, a1), g2 = hdg_lh_test_side(c, eq2, a2), rs = hdg_lh_trial_side(c, a2);
    int b1 = a1->domain == HDG_BOUNDARY, b2 = a2->domain == HDG_BOUNDARY, nb1 = b1 ? c->nfe : 1, nb2 = b2 ? c->nfe : 1;
    bterm t1[3], u1[3], t2[3], u2[3];
    int nt1 = ts.trace ? 1 : hdg_lh_side_terms(c, ts.op, t1), nu1 = hdg_lh_side_terms(c, g1.op, u1);
    int nt2 = hdg_lh_side_terms(c, g2.op, t2), nu2 = rs.trace ? 1 : hdg_lh_side_terms(c, rs.op, u2);
    if (ts.trace) t1[0] = (bterm){0, -1};
    if (rs.trace) u2[0] = (bterm){0, -1};
    /* The pair's weight for each pair of faces, cp[f1 nb2 + f2] = -(w1 w2) / D; then the
       entries, with a face loop outside i, j where the rows (f1) or columns (f2) depend
       on the face (trace), inside them where they do not: there the faces are summed in
       one pass over the block, each entry getting the same terms in the same order. */
    hdg_lower_env e1 = {.p = c->p, .coord = {NULL, NULL, hdg_ir_time(k)}};
    hdg_ir_tensor *W1 = b1 ? hdg_lh_face_weights(c, k, g, a1) : NULL, *W2 = b2 ? hdg_lh_face_weights(c, k, g, a2) : NULL;
    hdg_ir_expr *w1 = b1 ? NULL : hdg_ir_let(k, "c", hdg_ir_mul(k, Gc(k, g, hdg_g_J(c->dim)), hdg_lh_atom_coef(c, k, &e1, a1, 0)));
    hdg_ir_expr *w2 = b2 ? NULL : hdg_ir_let(k, "c", hdg_ir_mul(k, Gc(k, g, hdg_g_J(c->dim)), hdg_lh_atom_coef(c, k, &e1, a2, 0)));
    hdg_ir_tensor *CP = hdg_ir_local(k, "cpf", HDG_IR_DOUBLE, HDG_SHAPE(nb1 * nb2));
    hdg_ir_expr *p1 = b1 ? hdg_ir_for(k, "f", c->nfe) : I(k, 0), *p2 = b2 ? hdg_ir_for(k, "f", c->nfe) : I(k, 0);
    hdg_ir_expr *v1 = b1 ? hdg_ir_ld1(k, W1, p1) : w1, *v2 = b2 ? hdg_ir_ld1(k, W2, p2) : w2;
    hdg_ir_assign(k, hdg_ir_ld1(k, CP, hdg_ir_add(k, hdg_ir_mul(k, p1, I(k, nb2)), p2)),
                  hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_mul(k, v1, v2), invD)));
    if (b2) hdg_ir_end(k);
    if (b1) hdg_ir_end(k);
    int out1 = b1 && ts.trace, out2 = b2 && rs.trace;
    hdg_ir_expr *f1 = out1 ? hdg_ir_for(k, "f", c->nfe) : NULL, *f2 = out2 ? hdg_ir_for(k, "f", c->nfe) : NULL;
    hdg_ir_expr *i = hdg_ir_for(k, "i", ts.n), *j = hdg_ir_for(k, "j", rs.n);
    if (b1 && !out1) f1 = hdg_ir_for(k, "f", c->nfe);
    if (b2 && !out2) f2 = hdg_ir_for(k, "f", c->nfe);
    hdg_ir_expr *fb = I(k, 0);
    if (b1) fb = hdg_ir_mul(k, f1, I(k, nb2));
    if (b2) fb = hdg_ir_add(k, fb, f2);
    hdg_ir_expr *trow = hdg_ir_add(k, hdg_ir_mul(k, fb, I(k, ts.n)), i), *sum = NULL;
    /* one product table per distinct product of geometric factors (rx sx and sx rx are
       one), its coefficient a loop invariant the passes hoist */
    pgroup grp[81];   /* at most 3 x 3 x 3 x 3 terms (bterm t1[3], ...), so 81 groups */
    int ngrp = 0, n1 = 0, n2 = 0;
    for (int x = 0; x < nt1; x++)
        for (int y = 0; y < nu1; y++)
            for (int x2 = 0; x2 < nt2; x2++)
                for (int y2 = 0; y2 < nu2; y2++) {
                    int m1, m2;
                    double *T1 = side_table(c, b1, &ts, t1[x].kind, &g1, u1[y].kind, &n1, &m1);
                    double *T2 = side_table(c, b2, &g2, t2[x2].kind, &rs, u2[y2].kind, &m2, &n2);
                    pgroup *G = pgroup_of(grp, &ngrp, (int[4]){t1[x].g, u1[y].g, t2[x2].g, u2[y2].g},
                                          (size_t)nb1 * nb2 * n1 * n2);
                    for (int a = 0; a < nb1; a++)
                        for (int b = 0; b < nb2; b++)
                            for (int r = 0; r < n1; r++)
                                for (int p = 0; p < np; p++) {
                                    double v = T1[((size_t)a * n1 + r) * np + p] / mdiag[p];
                                    for (int q = 0; q < n2; q++)
                                        G->T[(((size_t)a * nb2 + b) * n1 + r) * n2 + q] += v * T2[((size_t)b * np + p) * n2 + q];
                                }
                    free(T1), free(T2);
                }
    for (int q = 0; q < ngrp; q++) {
        char name[48];
        snprintf(name, sizeof name, "TP%d", c->nproduct++);
        hdg_ir_tensor *tab = hdg_ir_table(c->m, name, HDG_SHAPE(nb1 * nb2 * n1, n2), grp[q].T);
        free(grp[q].T);
        hdg_ir_expr *v = hdg_ir_ld2(k, tab, trow, j), *coef = NULL;
        for (int f = 0; f < grp[q].ng; f++) coef = coef ? hdg_ir_mul(k, coef, Gc(k, g, grp[q].g[f])) : Gc(k, g, grp[q].g[f]);
        v = coef ? hdg_ir_mul(k, coef, v) : v;
        sum = sum ? hdg_ir_add(k, sum, v) : v;
    }
    hdg_ir_expr *row = hdg_lh_dof(c, k, &ts, 0, f1, i), *col = hdg_lh_dof(c, k, &rs, 0, f2, j);
    if (ts.trace) row = hdg_ir_add(k, I(k, nl), row);
    if (rs.trace) col = hdg_ir_add(k, I(k, nl), col);
    hdg_ir_accum(k, hdg_ir_ld2(k, M, row, col), hdg_ir_mul(k, hdg_ir_ld1(k, CP, fb), sum));
    if (b2 && !out2) hdg_ir_end(k);
    if (b1 && !out1) hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_end(k);
    if (out2) hdg_ir_end(k);
    if (out1) hdg_ir_end(k);
}

/* Step s by product tables (product_step_ok): the source column from M, the
 * rest pair by pair. */
static void product_step(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *g, const elim_plan *P, int s, hdg_ir_tensor *M,
                         int xr)
{
    int np = c->np, nl = c->L->nl, pg = P->g[s][0] * np, src = nl + c->L->nt;
    double *mass = hdg_lh_integrate(1, c->nvq, c->vwh, c->vb[0], np, c->vb[0], np), *md = hdg_xmalloc(sizeof(double) * np);
    for (int p = 0; p < np; p++) md[p] = mass[p * np + p];
    hdg_ir_set_origin(k, c->p->file, 0, 0, "diagonal step by product tables");
    hdg_ir_tensor *ws = hdg_ir_local(k, "ws", HDG_IR_DOUBLE, HDG_SHAPE(np));
    hdg_ir_expr *p = hdg_ir_for(k, "p", np), *rp = hdg_ir_add(k, I(k, pg), p);
    hdg_ir_assign(k, hdg_ir_ld1(k, ws, p), hdg_ir_div(k, hdg_ir_ld2(k, M, rp, I(k, src)), hdg_ir_ld2(k, M, rp, rp)));
    hdg_ir_end(k);
    for (int a = -1; a < P->nr[s]; a++) {   /* rows: the trace rows, the coupled components */
        int r0 = a < 0 ? nl : P->r[s][a] * np, nr = a < 0 ? xr : np;
        hdg_ir_expr *i = hdg_ir_for(k, "i", nr), *row = hdg_ir_add(k, I(k, r0), i);
        hdg_ir_expr *q = hdg_ir_for(k, "p", np);
        hdg_ir_accum(k, hdg_ir_ld2(k, M, row, I(k, src)),
                     hdg_ir_neg(k, hdg_ir_mul(k, hdg_ir_ld2(k, M, row, hdg_ir_add(k, I(k, pg), q)), hdg_ir_ld1(k, ws, q))));
        hdg_ir_end(k);
        hdg_ir_end(k);
    }
    hdg_ir_expr *invD = hdg_ir_let(k, "invD", hdg_ir_div(k, hdg_ir_num(k, md[0]), hdg_ir_ld2(k, M, I(k, pg), I(k, pg))));
    for (int e1 = 0; e1 < c->p->nequations; e1++)
        for (int t1 = 0; t1 < c->p->equations[e1].natoms; t1++) {
            const hdg_equation *q1 = &c->p->equations[e1];
            if (pair_role(c, P, s, q1, &q1->atoms[t1]) != 1) continue;
            for (int e2 = 0; e2 < c->p->nequations; e2++)
                for (int t2 = 0; t2 < c->p->equations[e2].natoms; t2++) {
                    const hdg_equation *q2 = &c->p->equations[e2];
                    if (pair_role(c, P, s, q2, &q2->atoms[t2]) == 2)
                        emit_pair(c, k, g, M, invD, md, q1, &q1->atoms[t1], q2, &q2->atoms[t2]);
                }
        }
    free(mass), free(md);
}

/* Runs the plan on M (rows: the element components then xr rows; columns:
 * the components then xc columns) in place: each step adds its update into
 * the rows and columns of M that are left, at their places (the eliminated
 * ones are not read again). Returns the final xr x xc matrix, copied out of
 * M's corner (NULL when xr = 0); W[s] gets step s's A_gg^-1 [A_g,cols | extra
 * columns]. */
hdg_ir_tensor *hdg_lh_elim_emit(lower *c, hdg_ir_kernel *k, hdg_ir_tensor *geom, const elim_plan *P,
                                hdg_ir_tensor *M, int xr, int xc, hdg_ir_tensor **W)
{
    int np = c->np, nc = P->nc, X = nc * np;
    for (int s = 0; s < P->nstep; s++) {
        int g = np * P->ng[s], nr = np * P->nr[s] + xr, ncl = np * P->ncl[s] + xc;
        if (xr > 0 && geom && product_step_ok(c, P, s)) {   /* local kernel: W is not needed */
            W[s] = NULL;
            product_step(c, k, geom, P, s, M, xr);
            continue;
        }
        hdg_ir_tensor *Wg = W[s] = hdg_ir_local(k, "Wg", HDG_IR_DOUBLE, HDG_SHAPE(g, ncl));
        if (P->diag[s]) {   /* Wg = rows of M times the diagonal's reciprocals (one division a row) */
            int pa = P->g[s][0] * np;
            hdg_ir_tensor *Dr = hdg_ir_local(k, "Dr", HDG_IR_DOUBLE, HDG_SHAPE(np));
            hdg_ir_expr *i = hdg_ir_for(k, "i", np), *ri = hdg_ir_add(k, I(k, pa), i);
            hdg_ir_assign(k, hdg_ir_ld1(k, Dr, i), hdg_ir_div(k, hdg_ir_num(k, 1.0), hdg_ir_ld2(k, M, ri, ri)));
            hdg_ir_end(k);
            for (int b = -1; b < P->ncl[s]; b++) {
                int cb = b < 0 ? xc : np, wb = b < 0 ? ncl - xc : b * np;
                int mb = b < 0 ? X : P->cl[s][b] * np;
                hdg_ir_expr *j;
                i = hdg_ir_for(k, "i", np), j = hdg_ir_for(k, "j", cb);
                ri = hdg_ir_add(k, I(k, pa), i);
                hdg_ir_assign(k, hdg_ir_ld2(k, Wg, i, hdg_ir_add(k, I(k, wb), j)),
                              hdg_ir_mul(k, hdg_ir_ld2(k, M, ri, hdg_ir_add(k, I(k, mb), j)),
                                         hdg_ir_ld1(k, Dr, i)));
                hdg_ir_end(k);
                hdg_ir_end(k);
            }
        } else {
            hdg_ir_tensor *A = hdg_ir_local(k, "Ag", HDG_IR_DOUBLE, HDG_SHAPE(g, g));
            hdg_ir_tensor *piv = hdg_ir_local(k, "pivg", HDG_IR_INT, HDG_SHAPE(g));
            for (int a = 0; a < P->ng[s]; a++) {
                int pa = P->g[s][a] * np;
                for (int b = 0; b < P->ng[s]; b++)
                    hdg_lh_copy_block(k, A, a * np, b * np, M, pa, P->g[s][b] * np, np, np, 0);
                for (int b = 0; b < P->ncl[s]; b++)
                    hdg_lh_copy_block(k, Wg, a * np, b * np, M, pa, P->cl[s][b] * np, np, np, 0);
                hdg_lh_copy_block(k, Wg, a * np, ncl - xc, M, pa, X, np, xc, 0);
            }
            hdg_ir_lu(k, A, piv);
            hdg_ir_lu_solve(k, A, piv, Wg);
        }
        if (nr == 0) continue;
        hdg_ir_tensor *Lg = hdg_ir_local(k, "Lg", HDG_IR_DOUBLE, HDG_SHAPE(nr, g));
        hdg_ir_tensor *U = hdg_ir_local(k, "Ug", HDG_IR_DOUBLE, HDG_SHAPE(nr, ncl));
        for (int b = 0; b < P->ng[s]; b++) {
            int pb = P->g[s][b] * np;
            for (int a = 0; a < P->nr[s]; a++) hdg_lh_copy_block(k, Lg, a * np, b * np, M, P->r[s][a] * np, pb, np, np, 0);
            hdg_lh_copy_block(k, Lg, nr - xr, b * np, M, X, pb, xr, np, 0);
        }
        hdg_ir_matmul(k, U, -1.0, Lg, 0, Wg, 0, 0.0);
        for (int a = -1; a < P->nr[s]; a++) {   /* M += U where it lands */
            int ra = a < 0 ? xr : np, ua = a < 0 ? nr - xr : a * np, ma = a < 0 ? X : P->r[s][a] * np;
            for (int b = -1; b < P->ncl[s]; b++) {
                int cb = b < 0 ? xc : np, ub = b < 0 ? ncl - xc : b * np, mb = b < 0 ? X : P->cl[s][b] * np;
                hdg_lh_copy_block(k, M, ma, mb, U, ua, ub, ra, cb, 1);
            }
        }
    }
    if (xr == 0) return NULL;
    hdg_ir_tensor *S = hdg_ir_local(k, "S", HDG_IR_DOUBLE, HDG_SHAPE(xr, xc));
    hdg_lh_copy_block(k, S, 0, 0, M, X, X, xr, xc, 0);
    return S;
}

/* After elim_emit with no extra rows: back substitution in reverse order,
 * X (nl x xc) = A^-1 times the xc extra columns. */
void hdg_lh_elim_back(lower *c, hdg_ir_kernel *k, const elim_plan *P, hdg_ir_tensor *const *W,
                      hdg_ir_tensor *X, int xc)
{
    int np = c->np;
    for (int s = P->nstep - 1; s >= 0; s--) {
        int x0 = np * P->ncl[s];
        for (int a = 0; a < P->ng[s]; a++) {
            hdg_ir_expr *i = hdg_ir_for(k, "i", np), *col = hdg_ir_for(k, "col", xc);
            hdg_ir_expr *row = hdg_ir_add(k, I(k, a * np), i);
            hdg_ir_expr *dst = hdg_ir_ld2(k, X, hdg_ir_add(k, I(k, P->g[s][a] * np), i), col);
            hdg_ir_assign(k, dst, hdg_ir_ld2(k, W[s], row, hdg_ir_add(k, I(k, x0), col)));
            for (int b = 0; b < P->ncl[s]; b++) {
                hdg_ir_expr *j = hdg_ir_for(k, "j", np);
                hdg_ir_expr *w = hdg_ir_ld2(k, W[s], row, hdg_ir_add(k, I(k, b * np), j));
                hdg_ir_expr *v = hdg_ir_ld2(k, X, hdg_ir_add(k, I(k, P->cl[s][b] * np), j), col);
                hdg_ir_accum(k, dst, hdg_ir_neg(k, hdg_ir_mul(k, w, v)));
                hdg_ir_end(k);
            }
            hdg_ir_end(k);
            hdg_ir_end(k);
        }
    }
}
