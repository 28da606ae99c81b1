/* lower_dg_tables.c — explicit DG lowering: which volume terms need which
 * reference derivatives, and the constant tables of the kernels. */
#include "ir/lower_dg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/quadrature.h"
#include "support/util.h"

/* ---------------------------------------------------------------- tables */

/* A strong-form term: a volume term with a derivative on an unknown. */
int dg_strong(const dgc *c, const hdg_atom *a)
{
    return a->domain == HDG_VOLUME && a->role != HDG_ROLE_TIME && a->test_op == HDG_OP_VALUE &&
           a->trial_op != HDG_OP_VALUE && dg_atom_field(c, a) >= 0;
}

static int dg_element_constant(const hdg_expr *e)
{
    return !hdg_expr_depends(e, HDG_VAR_X) && !hdg_expr_depends(e, HDG_VAR_Y) && !hdg_expr_depends(e, HDG_VAR_Z) &&
           !hdg_expr_depends(e, HDG_VAR_T) && !hdg_expr_has_normal(e);
}

/* Volume terms of the problem: weak-form ones (derivative on the test
 * function) and strong-form ones (derivative on the unknown); deriv[f] = 1
 * when a strong-form term differentiates field f on its own.
 *
 * comb[r] = 1 for a row r whose strong-form terms are combined before the
 * derivative: with element-constant coefficients c_a,
 *     sum_a c_a d(U_a)/dx_a = Dr (sum_a c_a r_a U_a) + Ds (sum_a c_a s_a U_a)
 * (r_a, s_a the geometric factors rx|ry, sx|sy of the term's direction), two
 * products for the row instead of two per field. A row is combined when at
 * least two of the fields it differentiates are differentiated by no other
 * row (so their own derivatives are not needed): Maxwell's curl row (dx(Hy)
 * - dy(Hx)) or acoustics' divergence row, 4 products instead of 6. */
void dg_count_volume(const dgc *c, int *nweak, int *deriv, int *comb)
{
    const hdg_problem *p = c->p;
    unsigned long long used[HDG_DG_MAX_FIELDS] = {0};   /* used[f]: rows differentiating f */
    int constant[HDG_DG_MAX_FIELDS];
    *nweak = 0;
    for (int f = 0; f < c->F; f++) deriv[f] = comb[f] = 0, constant[f] = 1;
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->domain != HDG_VOLUME || a->role == HDG_ROLE_TIME) continue;
            if (a->test_op != HDG_OP_VALUE) (*nweak)++;
            if (!dg_strong(c, a)) continue;
            int r = dg_row_field(c, e, a);
            used[dg_atom_field(c, a)] |= 1ULL << r;
            if (!dg_element_constant(a->coef)) constant[r] = 0;
        }
    for (int r = 0; r < c->F; r++) {
        int own = 0;
        for (int f = 0; f < c->F; f++) own += used[f] == 1ULL << r;
        comb[r] = constant[r] && own >= 2;
    }
    for (int f = 0; f < c->F; f++)
        for (int r = 0; r < c->F; r++)
            if ((used[f] >> r & 1) && !comb[r]) deriv[f] = 1;
}

/* T = [A_0^T 0 | A_1^T 0 | ...] (n x nm npad) for nm n x n matrices: row j
 * holds column j of each A_k, each padded with zeros to npad, so products
 * over j run along contiguous rows whose parts start on a SIMD boundary. */
static double *tuple_transposed(const double *const *A, int nm, int n, int npad)
{
    double *T = hdg_xcalloc((size_t)nm * n * npad, sizeof(double));
    for (int j = 0; j < n; j++)
        for (int k = 0; k < nm; k++)
            for (int i = 0; i < n; i++) T[(j * nm + k) * npad + i] = A[k][i * n + j];
    return T;
}

/* The weak derivative matrices S_k = M^-1 D_k^T M, k < dim, one block each. */
static double *weak_derivatives(const hdg_refel *re)
{
    int Np = re->Np, dim = re->dim;
    double *S = hdg_xcalloc((size_t)Np * Np * dim, sizeof(double));
    double *T = hdg_xmalloc(sizeof(double) * (size_t)Np * Np);   /* D^T M */
    for (int d = 0; d < dim; d++) {
        const double *D = re->D[d];
        memset(T, 0, sizeof(double) * (size_t)Np * Np);
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++)
                for (int l = 0; l < Np; l++) T[i * Np + j] += D[l * Np + i] * re->M[l * Np + j];
        for (int i = 0; i < Np; i++)
            for (int j = 0; j < Np; j++)
                for (int l = 0; l < Np; l++) S[d * Np * Np + i * Np + j] += re->Minv[i * Np + l] * T[l * Np + j];
    }
    free(T);
    return S;
}

static const char *const dir_name[3] = { "r", "s", "t" };

int hdg_dg_exterior_node(const hdg_refel *re, int row, int i)
{
    int Nfp = re->Nfp;
    if (re->dim == 2) return re->Fmask[row * Nfp + Nfp - 1 - i];
    int f = row / re->Norient, o = row % re->Norient;
    return re->Fmask[f * Nfp + re->Fperm[o * Nfp + i]];
}

/* The face node tables: Fmask (nfe x Nfp), the exterior node table FmR and
 * the face nodes' reference coordinates (nfe x Nfp each). FmR's row for
 * face map entry DG_M_NLF (lower_dg.h): in 2D row nlf = the neighbour's face
 * read backwards, Fmask[nlf][Nfp-1-i]; in 3D row nlf * Norient + o =
 * Fmask[nlf][Fperm[o][i]], the neighbour's node at this element's face node
 * i when the neighbour's vertex order of the face is this element's under
 * orientation o. */
static void face_tables(dgc *c)
{
    hdg_refel *re = &c->re;
    hdg_ir_module *m = c->L->mod;
    int Nfp = re->Nfp, nfe = c->nfe, no = c->dim == 2 ? 1 : re->Norient;
    int *fm = hdg_xmalloc(sizeof(int) * (size_t)nfe * (1 + no) * Nfp);
    int *fr = fm + nfe * Nfp;
    double *xs = hdg_xmalloc(sizeof(double) * (size_t)c->dim * nfe * Nfp);
    for (int f = 0; f < nfe; f++)
        for (int i = 0; i < Nfp; i++) {
            int n = re->Fmask[f * Nfp + i];
            fm[f * Nfp + i] = n;
            for (int o = 0; o < no; o++) fr[(f * no + o) * Nfp + i] = hdg_dg_exterior_node(re, f * no + o, i);
            for (int d = 0; d < c->dim; d++) xs[(d * nfe + f) * Nfp + i] = re->x[d][n];
        }
    c->Fm = hdg_ir_table_int(m, "Fmask", HDG_SHAPE(nfe, Nfp), fm);
    c->FmR = hdg_ir_table_int(m, c->dim == 2 ? "FmaskRev" : "FmaskExt", HDG_SHAPE(nfe * no, Nfp), fr);
    char name[32];
    for (int d = 0; d < c->dim; d++) {
        snprintf(name, sizeof name, "%sface", dir_name[d]);
        c->xf[d] = hdg_ir_table(m, name, HDG_SHAPE(nfe, Nfp), xs + (size_t)d * nfe * Nfp);
    }
    free(fm);
    free(xs);
}

/* The error rule: degree 2N+2 on the reference simplex, with the
 * interpolation from the nodes. */
static void quadrature_tables(dgc *c, hdg_error *err)
{
    hdg_refel *re = &c->re;
    hdg_ir_module *m = c->L->mod;
    hdg_quad q = {0};
    if (hdg_quad_simplex(&q, c->dim, 2 * re->N + 2, err) == HDG_OK) {
        double *I = hdg_xmalloc(sizeof(double) * (size_t)q.n * re->Np);
        hdg_refel_interp_x(re, q.n, (const double *const *)q.x, I);
        c->nq = q.n;
        c->Iq = hdg_ir_table(m, "Iq", HDG_SHAPE(q.n, re->Np), I);
        c->wq = hdg_ir_table(m, "wq", HDG_SHAPE(q.n), q.w);
        char name[32];
        for (int d = 0; d < c->dim; d++) {
            snprintf(name, sizeof name, "%sq", dir_name[d]);
            c->xq[d] = hdg_ir_table(m, name, HDG_SHAPE(q.n), q.x[d]);
        }
        free(I);
    }
    hdg_quad_free(&q);
}

void dg_make_tables(dgc *c, hdg_error *err)
{
    hdg_refel *re = &c->re;
    hdg_ir_module *m = c->L->mod;
    int Np = re->Np, Npp = c->Npp, Nfp = re->Nfp, dim = c->dim, nfe = c->nfe, nweak;
    int deriv[HDG_DG_MAX_FIELDS], comb[HDG_DG_MAX_FIELDS], nderiv = 0, ncomb = 0;
    char name[32];
    dg_count_volume(c, &nweak, deriv, comb);
    for (int f = 0; f < c->F; f++) nderiv += deriv[f], ncomb += comb[f];
    if (nderiv) {
        double *T = tuple_transposed((const double *const *)re->D, dim, Np, Npp);
        c->DrsT = hdg_ir_table(m, "DrsT", HDG_SHAPE(Np, dim * Npp), T);
        free(T);
    }
    if (ncomb) {   /* Dr^T, Ds^T (, Dt^T), rows padded to Npp */
        double *T = hdg_xcalloc((size_t)Np * Npp, sizeof(double));
        for (int d = 0; d < dim; d++) {
            for (int j = 0; j < Np; j++)
                for (int i = 0; i < Np; i++) T[j * Npp + i] = re->D[d][i * Np + j];
            snprintf(name, sizeof name, "D%sT", dir_name[d]);
            c->DT[d] = hdg_ir_table(m, name, HDG_SHAPE(Np, Npp), T);
        }
        free(T);
    }
    double *LT = hdg_xcalloc((size_t)nfe * Nfp * Npp, sizeof(double));   /* LIFT^T, rows padded */
    for (int i = 0; i < Np; i++)
        for (int k = 0; k < nfe * Nfp; k++) LT[k * Npp + i] = re->LIFT[i * nfe * Nfp + k];
    c->LIFTT = hdg_ir_table(m, "LIFTT", HDG_SHAPE(nfe * Nfp, Npp), LT);
    free(LT);
    double *MT = hdg_xcalloc((size_t)Np * Npp, sizeof(double));   /* M^T = M, rows padded */
    for (int i = 0; i < Np; i++)
        for (int j = 0; j < Np; j++) MT[j * Npp + i] = re->M[i * Np + j];
    c->MT = hdg_ir_table(m, "MT", HDG_SHAPE(Np, Npp), MT);
    free(MT);
    for (int d = 0; d < dim; d++) {
        snprintf(name, sizeof name, "%snode", dir_name[d]);
        c->xn[d] = hdg_ir_table(m, name, HDG_SHAPE(Np), re->x[d]);
    }
    if (nweak) {   /* weak derivatives S_k = M^-1 D_k^T M */
        double *S = weak_derivatives(re);
        const double *Sk[3] = { S, S + Np * Np, S + 2 * Np * Np };
        double *T = tuple_transposed(Sk, dim, Np, Npp);
        c->SrsT = hdg_ir_table(m, "SrsT", HDG_SHAPE(Np, dim * Npp), T);
        free(T);
        free(S);
    }
    face_tables(c);
    quadrature_tables(c, err);
}

