/* lower_dg.c — explicit nodal DG: checked problem -> volume, surface, fused
 * right-hand side, fused LSERK4 stage, stage update, initial condition, error
 * and energy kernels (see lower_dg.h for the discretisation, the data layout
 * and the slots); the kernels' per-element geometry, face maps and element
 * order for a mesh.
 * Nothing here knows a problem by name: fields, terms, fluxes and boundary
 * states all come from the atoms of the checked problem. */
#include "ir/lower_dg.h"
#include "ir/lower.h"   /* hdg_lower_nonlinear_check */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct dgc {
    const hdg_problem *p;
    hdg_dg_lowered *L;
    hdg_refel re;
    int dim, nfe;                   /* the problem's dimension, faces per element (dim + 1) */
    int F, Np, Nfp;
    int Npp;                        /* Np rounded up to DG_PAD: row length of scratch and tables */
    int field_of[64][3];            /* [unknown][comp] -> field, -1 */
    int *rowf;                      /* [equation*3 + test_comp] -> field */
    const hdg_atom *tatom[HDG_DG_MAX_FIELDS];
    int needs_ext[HDG_DG_MAX_FIELDS];
    /* tables (see make_tables); per reference direction k < dim: */
    hdg_ir_tensor *DrsT, *SrsT, *LIFTT, *MT, *Fm, *FmR;
    hdg_ir_tensor *xn[3], *xf[3];   /* node coordinates r, s, t; face node coordinates */
    hdg_ir_tensor *DT[3];           /* Dr^T, Ds^T, Dt^T alone (rows padded): combined rows, see count_volume */
    hdg_ir_tensor *Iq, *wq, *xq[3];
    int nq;
} dgc;

/* Variables visible to a coefficient: NULL where undefined. */
typedef struct xenv { hdg_ir_expr *x, *y, *z, *t, *nx, *ny, *nz; } xenv;

static hdg_status fail_at(const dgc *c, hdg_loc loc, const char *what, hdg_error *err)
{
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: %s", c->p->file ? c->p->file : "<input>", loc.line,
                    loc.col, what);
}

/* ------------------------------------------------------------ expressions */

static hdg_ir_expr *lx(hdg_ir_kernel *k, const hdg_problem *p, const hdg_expr *e, const xenv *v);

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
        hdg_ir_expr *a = lx(k, p, e->kid[i], v);
        if (fn->args[i] == HDG_VAR_X) inner.x = a;
        else if (fn->args[i] == HDG_VAR_Y) inner.y = a;
        else if (fn->args[i] == HDG_VAR_T) inner.t = a;
        else inner.z = a;
    }
    return lx(k, p, fn->body[e->comp], &inner);
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

static hdg_ir_expr *lx(hdg_ir_kernel *k, const hdg_problem *p, const hdg_expr *e, const xenv *v)
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
    case HDG_EX_NEG: return hdg_ir_neg(k, lx(k, p, e->kid[0], v));
    case HDG_EX_ADD: return hdg_ir_add(k, lx(k, p, e->kid[0], v), lx(k, p, e->kid[1], v));
    case HDG_EX_SUB: return hdg_ir_sub(k, lx(k, p, e->kid[0], v), lx(k, p, e->kid[1], v));
    case HDG_EX_MUL: return hdg_ir_mul(k, lx(k, p, e->kid[0], v), lx(k, p, e->kid[1], v));
    case HDG_EX_DIV: return hdg_ir_div(k, lx(k, p, e->kid[0], v), lx(k, p, e->kid[1], v));
    case HDG_EX_POW:
        a = lx(k, p, e->kid[0], v);
        if (e->kid[1]->kind == HDG_EX_NUM && e->kid[1]->num == floor(e->kid[1]->num) &&
            fabs(e->kid[1]->num) <= 64)
            return hdg_ir_powi(k, a, (int)e->kid[1]->num);
        return hdg_ir_pow(k, a, lx(k, p, e->kid[1], v));
    case HDG_EX_CALL: return lx_call(k, p, e, v);
    case HDG_EX_BUILTIN: return lx_builtin(k, e->index, lx(k, p, e->kid[0], v));
    case HDG_EX_CMP:
        if (e->index < 0 || e->index > 5) return undefined(k, "comparison");
        return hdg_ir_cmp(k, cmp[e->index], lx(k, p, e->kid[0], v), lx(k, p, e->kid[1], v));
    case HDG_EX_IF:
        a = lx(k, p, e->kid[0], v);
        if (a->type == HDG_IR_DOUBLE) a = hdg_ir_cmp(k, HDG_E_NE, a, hdg_ir_num(k, 0));
        b = lx(k, p, e->kid[1], v);
        return hdg_ir_select(k, a, b, lx(k, p, e->kid[2], v));
    case HDG_EX_STATE: break;   /* nonlinear problems: refused before lowering (hdg_lower_nonlinear_check) */
    }
    return undefined(k, "expression");
}

/* ---------------------------------------------------------------- analysis */

static const char *field_name(const dgc *c, int f) { return c->L->field_name[f]; }

static int atom_field(const dgc *c, const hdg_atom *a)
{
    return a->trial >= 0 ? c->field_of[a->trial][a->trial_comp] : -1;
}

static int row_field(const dgc *c, int eq, const hdg_atom *a) { return c->rowf[eq * 3 + a->test_comp]; }

static int set_index(dgc *c, const hdg_markers *m, hdg_error *err, hdg_loc loc)
{
    if (!m) return -1;
    for (int s = 0; s < c->L->nsets; s++)
        if (c->L->sets[s] == m) return s;
    if (c->L->nsets == HDG_DG_MAX_SETS) {
        fail_at(c, loc, "too many distinct marker sets in boundary terms", err);
        return -2;
    }
    c->L->sets[c->L->nsets] = m;
    return c->L->nsets++;
}

static hdg_status analyze_fields(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    hdg_dg_lowered *L = c->L;
    if (p->method != HDG_METHOD_DG)
        return hdg_fail(err, HDG_EINPUT, "problem '%s' is not a DG problem (no dt() terms)", p->name);
    if (p->nunknowns > 64) return hdg_fail(err, HDG_EINPUT, "too many unknowns");
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *U = &p->unknowns[u];
        c->field_of[u][0] = c->field_of[u][1] = c->field_of[u][2] = -1;
        if (U->trace)
            return fail_at(c, U->loc, "trace unknowns have no place in an explicit DG problem", err);
        for (int comp = 0; comp < U->ncomp; comp++) {
            if (L->nfields == HDG_DG_MAX_FIELDS) return fail_at(c, U->loc, "too many fields", err);
            int f = L->nfields++;
            c->field_of[u][comp] = f;
            L->field_unknown[f] = u;
            L->field_comp[f] = comp;
            if (U->ncomp == 1) snprintf(L->field_name[f], sizeof L->field_name[f], "%s", U->name);
            else snprintf(L->field_name[f], sizeof L->field_name[f], "%s.%c", U->name, "xyz"[comp]);
        }
    }
    c->F = L->nfields;
    if (c->F == 0) return hdg_fail(err, HDG_EINPUT, "problem '%s' has no unknowns", p->name);
    return HDG_OK;
}

/* Every equation row (test component) needs exactly one dt() term, on a field of
 * its own: the mass matrix is diagonal in the fields. */
static hdg_status analyze_rows(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    char msg[512];
    c->rowf = hdg_xmalloc(sizeof(int) * 3 * (size_t)(p->nequations + 1));
    for (int i = 0; i < 3 * p->nequations; i++) c->rowf[i] = -1;
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *q = &p->equations[e];
        for (int i = 0; i < q->natoms; i++) {
            const hdg_atom *a = &q->atoms[i];
            if (a->role != HDG_ROLE_TIME) continue;
            if (a->trial < 0 || a->test_op != HDG_OP_VALUE || a->trial_op != HDG_OP_VALUE ||
                a->domain != HDG_VOLUME)
                return fail_at(c, a->loc, "a dt() term must be (c*dt(U), v) over the element", err);
            int f = atom_field(c, a);
            if (c->rowf[e * 3 + a->test_comp] >= 0) {
                snprintf(msg, sizeof msg,
                         "more than one dt() term for one test function component: the explicit DG "
                         "lowering needs a mass matrix that is diagonal in the fields (%s and %s)",
                         field_name(c, c->rowf[e * 3 + a->test_comp]), field_name(c, f));
                return fail_at(c, a->loc, msg, err);
            }
            if (c->tatom[f]) {
                snprintf(msg, sizeof msg, "dt(%s) appears in two equation rows", field_name(c, f));
                return fail_at(c, a->loc, msg, err);
            }
            c->rowf[e * 3 + a->test_comp] = f;
            c->tatom[f] = a;
        }
        int ncomp = p->tests[q->test].ncomp;
        for (int comp = 0; comp < ncomp; comp++)
            if (c->rowf[e * 3 + comp] < 0) {
                snprintf(msg, sizeof msg, "equation %d has no dt() term for test component %d", e + 1, comp);
                return fail_at(c, q->loc, msg, err);
            }
    }
    for (int f = 0; f < c->F; f++)
        if (!c->tatom[f]) {
            snprintf(msg, sizeof msg, "no equation has a dt(%s) term", field_name(c, f));
            return fail_at(c, p->unknowns[c->L->field_unknown[f]].loc, msg, err);
        }
    return HDG_OK;
}

static const hdg_ext_rule *find_rule(const dgc *c, const hdg_bc *bc, int f)
{
    for (int r = 0; r < bc->nrules; r++)
        if (c->field_of[bc->rules[r].unknown][bc->rules[r].comp] == f) return &bc->rules[r];
    return NULL;
}

static hdg_status analyze_atoms(dgc *c, hdg_error *err)
{
    const hdg_problem *p = c->p;
    for (int e = 0; e < p->nequations; e++) {
        const hdg_equation *q = &p->equations[e];
        for (int i = 0; i < q->natoms; i++) {
            const hdg_atom *a = &q->atoms[i];
            switch (a->role) {
            case HDG_ROLE_TIME: break;
            case HDG_ROLE_VOLUME:
                if (a->trial_op != HDG_OP_VALUE && a->test_op != HDG_OP_VALUE)
                    return fail_at(c, a->loc, "a volume term with derivatives on both the unknown and "
                                              "the test function (second order) is not supported by "
                                              "explicit DG", err);
                if (a->side == HDG_SIDE_EXTERIOR)
                    return fail_at(c, a->loc, "ext() is only defined on faces", err);
                break;
            case HDG_ROLE_SOURCE:
                if (a->domain == HDG_BOUNDARY && a->test_op != HDG_OP_VALUE)
                    return fail_at(c, a->loc, "derivatives of the test function on faces are not supported", err);
                if (a->domain == HDG_BOUNDARY && set_index(c, a->markers, err, a->loc) == -2) return HDG_EINPUT;
                break;
            case HDG_ROLE_FLUX:
                if (a->trial_op != HDG_OP_VALUE || a->test_op != HDG_OP_VALUE)
                    return fail_at(c, a->loc, "derivatives inside a face term are not supported by "
                                              "explicit DG (only values and jumps)", err);
                if (a->side == HDG_SIDE_EXTERIOR) c->needs_ext[atom_field(c, a)] = 1;
                if (set_index(c, a->markers, err, a->loc) == -2) return HDG_EINPUT;
                break;
            default:
                return fail_at(c, a->loc, "this term belongs to an HDG problem, not to explicit DG", err);
            }
        }
    }
    for (int b = 0; b < p->nbcs; b++) {
        const hdg_bc *bc = &p->bcs[b];
        if (bc->kind != HDG_BC_EXTERIOR)
            return fail_at(c, bc->loc, "explicit DG takes boundary conditions as exterior states "
                                       "(ext(U) = ...)", err);
        for (int f = 0; f < c->F; f++)
            if (c->needs_ext[f] && !find_rule(c, bc, f)) {
                char msg[400];
                snprintf(msg, sizeof msg, "boundary condition '%s' gives no exterior value for %s, "
                                          "which a flux uses", bc->label, field_name(c, f));
                return fail_at(c, bc->loc, msg, err);
            }
    }
    return HDG_OK;
}

/* ---------------------------------------------------------------- tables */

/* A strong-form term: a volume term with a derivative on an unknown. */
static int strong(const dgc *c, const hdg_atom *a)
{
    return a->domain == HDG_VOLUME && a->role != HDG_ROLE_TIME && a->test_op == HDG_OP_VALUE &&
           a->trial_op != HDG_OP_VALUE && atom_field(c, a) >= 0;
}

static int element_constant(const hdg_expr *e)
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
static void count_volume(const dgc *c, int *nweak, int *deriv, int *comb)
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
            if (!strong(c, a)) continue;
            int r = row_field(c, e, a);
            used[atom_field(c, a)] |= 1ULL << r;
            if (!element_constant(a->coef)) constant[r] = 0;
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

static void make_tables(dgc *c, hdg_error *err)
{
    hdg_refel *re = &c->re;
    hdg_ir_module *m = c->L->mod;
    int Np = re->Np, Npp = c->Npp, Nfp = re->Nfp, dim = c->dim, nfe = c->nfe, nweak;
    int deriv[HDG_DG_MAX_FIELDS], comb[HDG_DG_MAX_FIELDS], nderiv = 0, ncomb = 0;
    char name[32];
    count_volume(c, &nweak, deriv, comb);
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

/* ---------------------------------------------------------------- helpers */

static hdg_ir_expr *gv(hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_expr *idx) { return hdg_ir_ld1(k, G, idx); }
static hdg_ir_expr *gi(hdg_ir_kernel *k, hdg_ir_tensor *G, int idx) { return hdg_ir_ld1(k, G, hdg_ir_int(k, idx)); }

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
        hdg_ir_expr *sum = hdg_ir_mul(k, l[0], gi(k, G, hdg_dg_g_x(dim, 0, d)));
        for (int v = 1; v <= dim; v++) sum = hdg_ir_add(k, sum, hdg_ir_mul(k, l[v], gi(k, G, hdg_dg_g_x(dim, v, d))));
        x[d] = sum;
    }
    for (int d = 0; d < dim; d++) x[d] = hdg_ir_let(k, xname[d], x[d]);
}

/* The coefficient environment at the reference point of the coordinate
 * tables T[d] (d < dim) at row a (1D tables; b NULL) or (a, b). */
static xenv point_env(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_tensor *const *T, hdg_ir_expr *a,
                      hdg_ir_expr *b, hdg_ir_expr *t)
{
    hdg_ir_expr *r[3] = {0}, *x[3] = {0};
    for (int d = 0; d < c->dim; d++) r[d] = b ? hdg_ir_ld2(k, T[d], a, b) : hdg_ir_ld1(k, T[d], a);
    map_point(c, k, G, r, x);
    return (xenv){ .x = x[0], .y = x[1], .z = x[2], .t = t };
}

static hdg_ir_expr *add_term(hdg_ir_kernel *k, hdg_ir_expr *sum, hdg_ir_expr *t)
{
    return sum ? hdg_ir_add(k, sum, t) : t;
}

/* ---------------------------------------------------------------- products */

/* Table rows per pass of a product's inner loop: the accumulator rows are
 * loaded and stored once per JUNROLL table rows (the emitted C is compiled
 * without loop unrolling, so this is the only unrolling there is). 4 was
 * fastest of 1, 2, 3, 4, 6, 8 for maxwell2d, N = 1..8, on znver3. */
enum { JUNROLL = 4 };

/* Doubles per SIMD register (AVX2): row strides of the scratch tensors the
 * products accumulate into are multiples of it, so rows never overlap
 * within a vector and the C compiler's dependence check lets the loops
 * vectorise at full width. */
enum { DG_PAD = 4 };

/* C[crow[g]][i] (+)= sum_j A[arow[g]][j] T[j][i] for g < n, j < K (the rows
 * of the table T, K x w), i < w. The sum over j is outermost and the loop
 * over i innermost, running along rows of T and C with a constant trip
 * count, so the C compiler vectorises it; one pass over i serves all n rows
 * and JUNROLL values of j. accumulate = 0 overwrites C. */
static void product(hdg_ir_kernel *k, hdg_ir_tensor *C, const int *crow, hdg_ir_tensor *A, const int *arow,
                    int n, hdg_ir_tensor *T, int accumulate)
{
    int K = T->shape[0], w = T->shape[1];
    hdg_ir_expr *a[HDG_DG_MAX_FIELDS][JUNROLL], *row[JUNROLL];
    for (int j0 = 0; j0 < K;) {
        /* JUNROLL rows per pass (the first pass alone when it assigns), then the rest */
        int u = K - j0 >= JUNROLL ? JUNROLL : K - j0;
        int nb = u == JUNROLL && (accumulate || j0 > 0) ? (K - j0) / JUNROLL : 1;
        hdg_ir_expr *jb = nb > 1 ? hdg_ir_for(k, "jb", nb) : hdg_ir_int(k, 0);
        for (int q = 0; q < u; q++) {
            row[q] = hdg_ir_add(k, hdg_ir_int(k, j0 + q), hdg_ir_mul(k, jb, hdg_ir_int(k, u)));
            for (int g = 0; g < n; g++)
                a[g][q] = hdg_ir_let(k, "a", hdg_ir_ld2(k, A, hdg_ir_int(k, arow[g]), row[q]));
        }
        hdg_ir_expr *i = hdg_ir_for(k, "i", w);
        for (int g = 0; g < n; g++) {
            hdg_ir_expr *sum = NULL;
            for (int q = 0; q < u; q++)
                sum = add_term(k, sum, hdg_ir_mul(k, a[g][q], hdg_ir_ld2(k, T, row[q], i)));
            hdg_ir_expr *dst = hdg_ir_ld2(k, C, hdg_ir_int(k, crow[g]), i);
            if (accumulate || j0 > 0) hdg_ir_accum(k, dst, sum);
            else hdg_ir_assign(k, dst, sum);
        }
        hdg_ir_end(k);
        if (nb > 1) hdg_ir_end(k);
        j0 += nb * u;
    }
}

/* ---------------------------------------------------------------- volume */

/* R = the volume part of the right-hand side (every row assigned). Strong
 * terms take reference derivatives only of the fields they differentiate,
 * D = [U Dr^T | U Ds^T (| U Dt^T)] in one product per element; weak terms
 * form W = c U at the nodes and take [W Sr^T | W Ss^T (| W St^T)]. Then one
 * pass over the nodes combines them with the geometric factors and the
 * coefficients. */

/* The direction l of a derivative operator (DX 0, DY 1, DZ 2). */
static int op_dir(int op) { return op == HDG_OP_DX ? 0 : op == HDG_OP_DY ? 1 : 2; }

/* dr_k/dx_l of the element, loaded once per kernel position. */
static void ginv_loads(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_expr *gv[3][3])
{
    for (int kk = 0; kk < c->dim; kk++)
        for (int l = 0; l < c->dim; l++) gv[kk][l] = gi(k, G, hdg_dg_g_ginv(c->dim, kk, l));
}

/* sum_k dr_k/dx_l T[row][k Npp + i]: the physical derivative in direction l
 * from reference derivatives stored side by side. */
static hdg_ir_expr *phys_deriv(const dgc *c, hdg_ir_kernel *k, hdg_ir_expr *gv[3][3], int l, hdg_ir_tensor *T,
                               hdg_ir_expr *row, hdg_ir_expr *i)
{
    hdg_ir_expr *sum = NULL;
    for (int kk = 0; kk < c->dim; kk++) {
        hdg_ir_expr *ik = kk ? hdg_ir_add(k, i, hdg_ir_int(k, kk * c->Npp)) : i;
        sum = add_term(k, sum, hdg_ir_mul(k, gv[kk][l], hdg_ir_ld2(k, T, row, ik)));
    }
    return sum;
}

/* The combined rows of count_volume: V = [sum_a c_a dr/dx_a U_a ; sum_a c_a
 * ds/dx_a U_a (; dt/dx_a)] (rows k ncomb + crow[r]) at the nodes, then Cc =
 * [V_r Dr^T ; V_s Ds^T (; V_t Dt^T)]; the row's strong part is the sum of
 * Cc[k ncomb + crow] over k. */
static hdg_ir_tensor *combined(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, const int *crow,
                               int ncomb)
{
    const hdg_problem *p = c->p;
    int dim = c->dim;
    hdg_ir_tensor *V = hdg_ir_local(k, "V", HDG_IR_DOUBLE, HDG_SHAPE(dim * ncomb, c->Npp));
    hdg_ir_tensor *Cc = hdg_ir_local(k, "Cc", HDG_IR_DOUBLE, HDG_SHAPE(dim * ncomb, c->Npp));
    hdg_ir_expr *j = hdg_ir_for(k, "j", c->Np), *sum[3 * HDG_DG_MAX_FIELDS] = {0};
    xenv v = point_env(c, k, G, c->xn, j, NULL, hdg_ir_time(k));
    for (int e = 0; e < p->nequations; e++)
        for (int n = 0; n < p->equations[e].natoms; n++) {
            const hdg_atom *a = &p->equations[e].atoms[n];
            int r = strong(c, a) ? row_field(c, e, a) : -1;
            if (r < 0 || crow[r] < 0) continue;
            int l = op_dir(a->trial_op);
            hdg_ir_expr *cu = hdg_ir_mul(k, lx(k, p, a->coef, &v), hdg_ir_ld2(k, U, hdg_ir_int(k, atom_field(c, a)), j));
            for (int kk = 0; kk < dim; kk++)
                sum[kk * ncomb + crow[r]] = add_term(k, sum[kk * ncomb + crow[r]],
                                                     hdg_ir_mul(k, gi(k, G, hdg_dg_g_ginv(dim, kk, l)), cu));
        }
    for (int q = 0; q < dim * ncomb; q++) hdg_ir_assign(k, hdg_ir_ld2(k, V, hdg_ir_int(k, q), j), sum[q]);
    hdg_ir_end(k);
    int rr[HDG_DG_MAX_FIELDS];
    for (int kk = 0; kk < dim; kk++) {
        for (int q = 0; q < ncomb; q++) rr[q] = kk * ncomb + q;
        product(k, Cc, rr, V, rr, ncomb, c->DT[kk], 0);
    }
    return Cc;
}

/* W = c U at the nodes for the weak-form terms (c U, dv/dx_l), then Wd =
 * [W Sr^T | W Ss^T (| W St^T)]. */
static hdg_ir_tensor *weak_part(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, int nweak,
                                hdg_ir_expr *t)
{
    const hdg_problem *p = c->p;
    hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(nweak, c->Npp));
    hdg_ir_tensor *Wd = hdg_ir_local(k, "Wd", HDG_IR_DOUBLE, HDG_SHAPE(nweak, c->dim * c->Npp));
    hdg_ir_expr *j = hdg_ir_for(k, "j", c->Np);
    xenv v = point_env(c, k, G, c->xn, j, NULL, t);
    int w = 0, rows[HDG_DG_MAX_FIELDS * 8];
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->domain != HDG_VOLUME || a->role == HDG_ROLE_TIME || a->test_op == HDG_OP_VALUE) continue;
            hdg_ir_expr *val = lx(k, p, a->coef, &v);
            if (a->trial >= 0) val = hdg_ir_mul(k, val, hdg_ir_ld2(k, U, hdg_ir_int(k, atom_field(c, a)), j));
            hdg_ir_assign(k, hdg_ir_ld2(k, W, hdg_ir_int(k, w++), j), val);
        }
    hdg_ir_end(k);
    for (int w2 = 0; w2 < nweak; w2++) rows[w2] = w2;
    product(k, Wd, rows, W, rows, nweak, c->SrsT, 0);
    return Wd;
}

static void build_volume(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *R)
{
    const hdg_problem *p = c->p;
    int F = c->F, Np = c->Np, Npp = c->Npp, nweak, deriv[HDG_DG_MAX_FIELDS], drow[HDG_DG_MAX_FIELDS], nd = 0;
    int rows[HDG_DG_MAX_FIELDS], fields[HDG_DG_MAX_FIELDS], comb[HDG_DG_MAX_FIELDS], crow[HDG_DG_MAX_FIELDS];
    int ncomb = 0;
    count_volume(c, &nweak, deriv, comb);
    for (int f = 0; f < F; f++) drow[f] = deriv[f] ? nd++ : -1, crow[f] = comb[f] ? ncomb++ : -1;
    hdg_ir_tensor *D = NULL, *Wd = NULL, *Cc = ncomb ? combined(c, k, U, G, crow, ncomb) : NULL;
    hdg_ir_expr *t = hdg_ir_time(k);
    if (nd) {
        D = hdg_ir_local(k, "D", HDG_IR_DOUBLE, HDG_SHAPE(nd, c->dim * Npp));
        for (int f = 0; f < F; f++)
            if (deriv[f]) rows[drow[f]] = drow[f], fields[drow[f]] = f;
        product(k, D, rows, U, fields, nd, c->DrsT, 0);
    }
    if (nweak) Wd = weak_part(c, k, U, G, nweak, t);
    hdg_ir_expr *i = hdg_ir_for(k, "i", Np);
    xenv v = point_env(c, k, G, c->xn, i, NULL, t);
    hdg_ir_expr *gv[3][3];
    ginv_loads(c, k, G, gv);
    hdg_ir_expr *sum[HDG_DG_MAX_FIELDS] = {0};
    int w = 0;
    for (int e = 0; e < p->nequations; e++)
        for (int n = 0; n < p->equations[e].natoms; n++) {
            const hdg_atom *a = &p->equations[e].atoms[n];
            if (a->domain != HDG_VOLUME || a->role == HDG_ROLE_TIME) continue;
            int fr = row_field(c, e, a), fu = atom_field(c, a);
            if (strong(c, a) && comb[fr]) continue;   /* in Cc */
            hdg_ir_expr *term;
            hdg_ir_set_origin(k, p->file, a->loc.line, a->loc.col, NULL);
            if (a->test_op != HDG_OP_VALUE) {
                term = phys_deriv(c, k, gv, op_dir(a->test_op), Wd, hdg_ir_int(k, w++), i);
            } else {
                term = lx(k, p, a->coef, &v);
                if (fu >= 0) {
                    hdg_ir_expr *val;
                    if (a->trial_op == HDG_OP_VALUE) val = hdg_ir_ld2(k, U, hdg_ir_int(k, fu), i);
                    else val = phys_deriv(c, k, gv, op_dir(a->trial_op), D, hdg_ir_int(k, drow[fu]), i);
                    term = hdg_ir_mul(k, term, val);
                }
            }
            /* unknown terms move to the right-hand side */
            sum[fr] = fu >= 0 ? (sum[fr] ? hdg_ir_sub(k, sum[fr], term) : hdg_ir_neg(k, term)) : add_term(k, sum[fr], term);
        }
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    for (int f = 0; f < F; f++) {
        if (!comb[f]) continue;   /* unknown terms move to the right-hand side */
        hdg_ir_expr *cc = NULL;
        for (int kk = 0; kk < c->dim; kk++)
            cc = add_term(k, cc, hdg_ir_ld2(k, Cc, hdg_ir_int(k, kk * ncomb + crow[f]), i));
        sum[f] = sum[f] ? hdg_ir_sub(k, sum[f], cc) : hdg_ir_neg(k, cc);
    }
    for (int f = 0; f < F; f++)
        hdg_ir_assign(k, hdg_ir_ld2(k, R, hdg_ir_int(k, f), i), sum[f] ? sum[f] : hdg_ir_num(k, 0));
    hdg_ir_end(k);
    if (Npp > Np) {   /* the padding of R, which the lift runs over */
        hdg_ir_expr *f = hdg_ir_for(k, "f", F), *ip = hdg_ir_for(k, "i", Npp - Np);
        hdg_ir_assign(k, hdg_ir_ld2(k, R, f, hdg_ir_add(k, ip, hdg_ir_int(k, Np))), hdg_ir_num(k, 0));
        hdg_ir_end(k);
        hdg_ir_end(k);
    }
}

/* ---------------------------------------------------------------- surface */

/* The exterior value of field f on a boundary face: the rule of the condition
 * the face carries (selected by its index bc), in terms of interior values. */
static hdg_ir_expr *boundary_value(dgc *c, hdg_ir_kernel *k, int f, hdg_ir_expr *bc, hdg_ir_expr *const *uin,
                                   const xenv *v)
{
    const hdg_problem *p = c->p;
    hdg_ir_expr *val = NULL;
    for (int b = p->nbcs - 1; b >= 0; b--) {
        const hdg_ext_rule *r = find_rule(c, &p->bcs[b], f);
        hdg_ir_expr *rv = NULL;
        for (int j = 0; j < r->nterms; j++) {
            int g = c->field_of[r->terms[j].unknown][r->terms[j].comp];
            rv = add_term(k, rv, hdg_ir_mul(k, lx(k, p, r->terms[j].coef, v), uin[g]));
        }
        if (r->data) rv = add_term(k, rv, lx(k, p, r->data, v));
        if (!rv) rv = hdg_ir_num(k, 0);
        val = val ? hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_EQ, bc, hdg_ir_int(k, b)), rv, val) : rv;
    }
    return val ? val : hdg_ir_num(k, 0);
}

static hdg_ir_expr *marker_guard(dgc *c, hdg_ir_kernel *k, const hdg_atom *a, hdg_ir_tensor *M, hdg_ir_expr *f,
                                 hdg_ir_expr *term)
{
    if (!a->markers) return term;
    int s = 0;
    while (c->L->sets[s] != a->markers) s++;
    hdg_ir_expr *flag = hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, (3 + s) * c->nfe), f));
    return hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_NE, flag, hdg_ir_int(k, 0)), term, hdg_ir_num(k, 0));
}

/* Per local face f: its normal, Fscale, neighbour, the neighbour's exterior
 * node row and the boundary condition index, as lets. */
typedef struct face_vals { hdg_ir_expr *n[3], *fs, *nbr, *nlf, *bc; } face_vals;

static face_vals face_lets(const dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *G, hdg_ir_tensor *M, hdg_ir_expr *f)
{
    static const char *const nname[3] = { "nx", "ny", "nz" };
    int dim = c->dim, nfe = c->nfe;
    face_vals v = {0};
    hdg_ir_expr *g0 = hdg_ir_add(k, hdg_ir_int(k, hdg_dg_g_face(dim, 0)), hdg_ir_mul(k, hdg_ir_int(k, dim + 1), f));
    v.n[0] = hdg_ir_let(k, nname[0], gv(k, G, g0));
    for (int d = 1; d < dim; d++) v.n[d] = hdg_ir_let(k, nname[d], gv(k, G, hdg_ir_add(k, g0, hdg_ir_int(k, d))));
    v.fs = hdg_ir_let(k, "fscale", gv(k, G, hdg_ir_add(k, g0, hdg_ir_int(k, dim))));
    v.nbr = hdg_ir_let(k, "nbr", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, 0), f)));
    v.nlf = hdg_ir_let(k, "nlf", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, nfe), f)));
    v.bc = hdg_ir_let(k, "bc", hdg_ir_ld1(k, M, hdg_ir_add(k, hdg_ir_int(k, 2 * nfe), f)));
    return v;
}

/* R += LIFT (Fscale * flux): per face node, the interior values, the
 * exterior values (neighbour, or the boundary rule of the face's condition)
 * and the flux of every field into the local flux (fields x (dim+1) Nfp); then one
 * product lifts all fields that have a flux. (Gathering all face values
 * first, in a loop of their own, and evaluating the fluxes in a second,
 * vectorised loop measured 15% slower for N <= 3 and at best 5% faster at
 * N = 8 on square:128, so the single loop stays.) */
static void build_surface(dgc *c, hdg_ir_kernel *k, hdg_ir_tensor *U, hdg_ir_tensor *G, hdg_ir_tensor *M,
                          hdg_ir_tensor *R)
{
    const hdg_problem *p = c->p;
    int F = c->F, Nfp = c->Nfp;
    hdg_ir_tensor *Gf = hdg_ir_local(k, "flux", HDG_IR_DOUBLE, HDG_SHAPE(F, c->nfe * Nfp));
    hdg_ir_expr *t = hdg_ir_time(k);
    hdg_ir_expr *f = hdg_ir_for(k, "f", c->nfe);
    face_vals fv = face_lets(c, k, G, M, f);
    hdg_ir_expr *i = hdg_ir_for(k, "i", Nfp);
    xenv v = point_env(c, k, G, c->xf, f, i, t);
    v.nx = fv.n[0], v.ny = fv.n[1], v.nz = fv.n[2];
    hdg_ir_expr *node = hdg_ir_let(k, "node", hdg_ir_ld2(k, c->Fm, f, i));
    hdg_ir_expr *enode = hdg_ir_let(k, "enode", hdg_ir_ld2(k, c->FmR, fv.nlf, i));
    hdg_ir_expr *uin[HDG_DG_MAX_FIELDS], *uex[HDG_DG_MAX_FIELDS] = {0};
    char name[80];
    for (int g = 0; g < F; g++) {
        snprintf(name, sizeof name, "%s_in", field_name(c, g));
        uin[g] = hdg_ir_let(k, name, hdg_ir_ld2(k, U, hdg_ir_int(k, g), node));
    }
    hdg_ir_expr *interior = hdg_ir_cmp(k, HDG_E_LT, fv.bc, hdg_ir_int(k, 0));
    for (int g = 0; g < F; g++) {
        if (!c->needs_ext[g]) continue;
        hdg_ir_expr *nbv = hdg_ir_load_row(k, U, fv.nbr, 2, (hdg_ir_expr *[]){ hdg_ir_int(k, g), enode });
        snprintf(name, sizeof name, "%s_ex", field_name(c, g));
        uex[g] = hdg_ir_let(k, name, hdg_ir_select(k, interior, nbv, boundary_value(c, k, g, fv.bc, uin, &v)));
    }
    hdg_ir_expr *sum[HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < p->nequations; e++)
        for (int n = 0; n < p->equations[e].natoms; n++) {
            const hdg_atom *a = &p->equations[e].atoms[n];
            if (a->domain != HDG_BOUNDARY) continue;
            int fr = row_field(c, e, a), fu = atom_field(c, a);
            hdg_ir_expr *term = lx(k, p, a->coef, &v);
            if (fu >= 0) term = hdg_ir_mul(k, term, a->side == HDG_SIDE_EXTERIOR ? uex[fu] : uin[fu]);
            term = marker_guard(c, k, a, M, f, term);
            sum[fr] = fu >= 0 ? (sum[fr] ? hdg_ir_sub(k, sum[fr], term) : hdg_ir_neg(k, term)) : add_term(k, sum[fr], term);
        }
    hdg_ir_expr *fi = hdg_ir_add(k, hdg_ir_mul(k, f, hdg_ir_int(k, Nfp)), i);
    int rows[HDG_DG_MAX_FIELDS], nrows = 0;
    for (int g = 0; g < F; g++)
        if (sum[g]) {
            hdg_ir_assign(k, hdg_ir_ld2(k, Gf, hdg_ir_int(k, g), fi), hdg_ir_mul(k, fv.fs, sum[g]));
            rows[nrows++] = g;
        }
    hdg_ir_end(k);
    hdg_ir_end(k);
    /* lift the fields that have a flux: R += flux LIFT^T, one product over the (dim+1) Nfp face nodes */
    if (nrows) product(k, R, rows, Gf, rows, nrows, c->LIFTT, 1);
}

/* ---------------------------------------------------------------- kernels */

static const char *kernel_name(hdg_ir_kernel *k, char *dst) { snprintf(dst, 64, "%s", k->name); return dst; }

/* What a right-hand-side kernel computes: the volume part, the surface part
 * accumulated into rhs, both, or both followed by the LSERK4 stage. */
typedef enum rhs_kind { RHS_VOLUME, RHS_SURFACE, RHS_FULL, RHS_STEP } rhs_kind;

static void build_rhs(dgc *c, const char *suffix, rhs_kind kind, char *name_out)
{
    const hdg_problem *p = c->p;
    char name[128];
    snprintf(name, sizeof name, "%s_%s", p->name, suffix);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    int F = c->F, Np = c->Np, vol = kind != RHS_SURFACE, surf = kind != RHS_VOLUME;
    hdg_ir_tensor *U = hdg_ir_input(k, "U", HDG_SHAPE(F, Np), "state: fields x nodes");
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom),
                                   c->dim == 2 ? "vertices, J, rx ry sx sy, (nx ny Fscale) x 3"
                                               : "vertices, J, dr_k/dx_l, (nx ny nz Fscale) x 4");
    hdg_ir_tensor *M = surf ? hdg_ir_imap(k, "fmap", c->L->nimap, "neighbour, its local face, bc, marker flags")
                            : NULL;
    hdg_ir_tensor *out, *res = NULL;
    if (kind == RHS_STEP) {
        out = hdg_ir_output(k, "Unew", HDG_SHAPE(F, Np), "state after the stage: U + b res");
        res = hdg_ir_output(k, "res", HDG_SHAPE(F, Np), "LSERK4 residual, updated in place: a res + dt rhs");
    } else {
        out = hdg_ir_output(k, "rhs", HDG_SHAPE(F, Np), "dU/dt: fields x nodes");
    }
    hdg_ir_tensor *R = hdg_ir_local(k, "R", HDG_IR_DOUBLE, HDG_SHAPE(F, c->Npp));
    if (vol) build_volume(c, k, U, G, R);
    else hdg_ir_fill(k, R, hdg_ir_num(k, 0));
    if (surf) build_surface(c, k, U, G, M, R);
    hdg_ir_expr *ra = NULL, *rb = NULL, *dt = NULL;
    if (kind == RHS_STEP) {
        ra = hdg_ir_param(k, c->L->p_rka, "rk_a");
        rb = hdg_ir_param(k, c->L->p_rkb, "rk_b");
        dt = hdg_ir_param(k, c->L->p_dt, "dt");
    }
    for (int f = 0; f < F; f++) {   /* one loop per field: one contiguous stream per tensor */
        hdg_ir_expr *fi = hdg_ir_int(k, f), *i = hdg_ir_for(k, "i", Np), *val = hdg_ir_ld2(k, R, fi, i);
        if (!hdg_expr_is_num(c->tatom[f]->coef, 1.0)) {
            xenv v = point_env(c, k, G, c->xn, i, NULL, hdg_ir_time(k));
            val = hdg_ir_div(k, val, lx(k, p, c->tatom[f]->coef, &v));
        }
        if (kind == RHS_STEP) {   /* res = a res + dt rhs; U + b res, as the update kernel does */
            hdg_ir_expr *r = hdg_ir_let(k, "r", hdg_ir_add(k, hdg_ir_mul(k, ra, hdg_ir_ld2(k, res, fi, i)),
                                                           hdg_ir_mul(k, dt, val)));
            hdg_ir_assign(k, hdg_ir_ld2(k, res, fi, i), r);
            hdg_ir_assign(k, hdg_ir_ld2(k, out, fi, i), hdg_ir_add(k, hdg_ir_ld2(k, U, fi, i), hdg_ir_mul(k, rb, r)));
        } else if (vol) {
            hdg_ir_assign(k, hdg_ir_ld2(k, out, fi, i), val);
        } else {
            hdg_ir_accum(k, hdg_ir_ld2(k, out, fi, i), val);
        }
        hdg_ir_end(k);
    }
    kernel_name(k, name_out);
}

static void build_update(dgc *c)
{
    char name[128];
    snprintf(name, sizeof name, "%s_update", c->p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    int n = c->F * c->Np;
    hdg_ir_tensor *rhs = hdg_ir_input(k, "rhs", HDG_SHAPE(n), "dU/dt");
    hdg_ir_tensor *U = hdg_ir_output(k, "U", HDG_SHAPE(n), "state, updated in place");
    hdg_ir_tensor *res = hdg_ir_output(k, "res", HDG_SHAPE(n), "LSERK4 residual, updated in place");
    hdg_ir_expr *a = hdg_ir_param(k, c->L->p_rka, "rk_a"), *b = hdg_ir_param(k, c->L->p_rkb, "rk_b");
    hdg_ir_expr *dt = hdg_ir_param(k, c->L->p_dt, "dt");
    hdg_ir_expr *i = hdg_ir_for(k, "i", n);
    hdg_ir_expr *r = hdg_ir_let(k, "r", hdg_ir_add(k, hdg_ir_mul(k, a, hdg_ir_ld1(k, res, i)),
                                                   hdg_ir_mul(k, dt, hdg_ir_ld1(k, rhs, i))));
    hdg_ir_assign(k, hdg_ir_ld1(k, res, i), r);
    hdg_ir_accum(k, hdg_ir_ld1(k, U, i), hdg_ir_mul(k, b, r));
    hdg_ir_end(k);
    kernel_name(k, c->L->update);
}

static void build_initial(dgc *c)
{
    const hdg_problem *p = c->p;
    char name[128];
    snprintf(name, sizeof name, "%s_initial", p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom), "element geometry");
    hdg_ir_tensor *U = hdg_ir_output(k, "U", HDG_SHAPE(c->F, c->Np), "initial state");
    hdg_ir_expr *i = hdg_ir_for(k, "i", c->Np);
    xenv v = point_env(c, k, G, c->xn, i, NULL, hdg_ir_time(k));
    for (int f = 0; f < c->F; f++) {
        const hdg_expr *e = p->unknowns[c->L->field_unknown[f]].initial[c->L->field_comp[f]];
        hdg_ir_assign(k, hdg_ir_ld2(k, U, hdg_ir_int(k, f), i), e ? lx(k, p, e, &v) : hdg_ir_num(k, 0));
    }
    hdg_ir_end(k);
    kernel_name(k, c->L->initial);
}

/* Per element E = 1/2 J sum_f U_f^T M U_f (the discrete energy, exact for
 * the nodal polynomials): M U for all fields in one product, then the dots. */
static void build_energy(dgc *c)
{
    char name[128];
    snprintf(name, sizeof name, "%s_energy", c->p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(c->L->mod, name, HDG_KITEM_ELEMENT);
    int F = c->F, rows[HDG_DG_MAX_FIELDS];
    hdg_ir_tensor *U = hdg_ir_input(k, "U", HDG_SHAPE(F, c->Np), "state");
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom), "element geometry");
    hdg_ir_tensor *E = hdg_ir_output(k, "E", HDG_SHAPE(1), "1/2 int sum_f U_f^2");
    hdg_ir_tensor *MU = hdg_ir_local(k, "MU", HDG_IR_DOUBLE, HDG_SHAPE(F, c->Npp));
    hdg_ir_tensor *S = hdg_ir_local(k, "S", HDG_IR_DOUBLE, HDG_SHAPE(1));
    for (int f = 0; f < F; f++) rows[f] = f;
    product(k, MU, rows, U, rows, F, c->MT, 0);
    hdg_ir_expr *s0 = hdg_ir_ld1(k, S, hdg_ir_int(k, 0));
    hdg_ir_assign(k, s0, hdg_ir_num(k, 0));
    hdg_ir_expr *i = hdg_ir_for(k, "i", c->Np);
    for (int f = 0; f < F; f++) {
        hdg_ir_expr *fi = hdg_ir_int(k, f);
        hdg_ir_accum(k, s0, hdg_ir_mul(k, hdg_ir_ld2(k, U, fi, i), hdg_ir_ld2(k, MU, fi, i)));
    }
    hdg_ir_end(k);
    hdg_ir_assign(k, hdg_ir_ld1(k, E, hdg_ir_int(k, 0)),
                  hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_num(k, 0.5), gi(k, G, hdg_dg_g_j(c->dim))), s0));
    kernel_name(k, c->L->energy);
}

static void build_errors(dgc *c)
{
    const hdg_problem *p = c->p;
    hdg_dg_lowered *L = c->L;
    char name[128];
    snprintf(name, sizeof name, "%s_errors", p->name);
    hdg_ir_kernel *k = hdg_ir_kernel_new(L->mod, name, HDG_KITEM_ELEMENT);
    int F = c->F, nout = 2 * L->nerr + F;
    hdg_ir_tensor *U = hdg_ir_input(k, "U", HDG_SHAPE(F, c->Np), "state");
    hdg_ir_tensor *G = hdg_ir_geom(k, "g", HDG_SHAPE(c->L->ngeom), "element geometry");
    hdg_ir_tensor *E = hdg_ir_output(k, "E", HDG_SHAPE(nout), "squared errors, int U_f^2, int exact^2");
    hdg_ir_tensor *Uq = hdg_ir_local(k, "Uq", HDG_IR_DOUBLE, HDG_SHAPE(F, c->nq));
    hdg_ir_tensor *El = hdg_ir_local(k, "El", HDG_IR_DOUBLE, HDG_SHAPE(nout));
    hdg_ir_matmul(k, Uq, 1.0, U, 0, c->Iq, 1, 0.0);
    hdg_ir_fill(k, El, hdg_ir_num(k, 0));
    hdg_ir_expr *q = hdg_ir_for(k, "q", c->nq);
    xenv v = point_env(c, k, G, c->xq, q, NULL, hdg_ir_time(k));
    hdg_ir_expr *wj = hdg_ir_let(k, "wJ", hdg_ir_mul(k, hdg_ir_ld1(k, c->wq, q), gi(k, G, hdg_dg_g_j(c->dim))));
    int n = 0;
    for (int f = 0; f < F; f++) {
        hdg_ir_expr *u = hdg_ir_ld2(k, Uq, hdg_ir_int(k, f), q);
        const hdg_expr *ex = p->unknowns[L->field_unknown[f]].exact[L->field_comp[f]];
        if (ex) {
            hdg_ir_expr *xv = hdg_ir_let(k, "ex", lx(k, p, ex, &v));
            hdg_ir_expr *d = hdg_ir_let(k, "d", hdg_ir_sub(k, u, xv));
            hdg_ir_accum(k, hdg_ir_ld1(k, El, hdg_ir_int(k, n)), hdg_ir_mul(k, wj, hdg_ir_mul(k, d, d)));
            hdg_ir_accum(k, hdg_ir_ld1(k, El, hdg_ir_int(k, L->nerr + F + n)), hdg_ir_mul(k, wj, hdg_ir_mul(k, xv, xv)));
            n++;
        }
        hdg_ir_accum(k, hdg_ir_ld1(k, El, hdg_ir_int(k, L->nerr + f)), hdg_ir_mul(k, wj, hdg_ir_mul(k, u, u)));
    }
    hdg_ir_end(k);
    hdg_ir_copy(k, E, El);
    kernel_name(k, L->errors);
}

/* ---------------------------------------------------------------- entry */

hdg_status hdg_lower_dg(const hdg_problem *p, hdg_dg_lowered *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    hdg_status dst = hdg_lower_nonlinear_check(p, err);   /* issue 41 */
    if (dst) return dst;
    dgc c = {0};
    c.p = p;
    c.L = out;
    hdg_status st = analyze_fields(&c, err);
    if (!st) st = analyze_rows(&c, err);
    if (!st) st = analyze_atoms(&c, err);
    c.dim = p->dim == 3 ? 3 : 2;
    c.nfe = c.dim + 1;
    if (!st) st = hdg_refel_init(&c.re, c.dim, p->degree, err);
    if (st) {
        free(c.rowf);
        hdg_refel_free(&c.re);
        return st;
    }
    out->dim = c.dim;
    out->N = p->degree;
    out->Np = c.Np = c.re.Np;
    out->Nfp = c.Nfp = c.re.Nfp;
    c.Npp = (c.Np + DG_PAD - 1) / DG_PAD * DG_PAD;
    out->ngeom = hdg_dg_g_size(c.dim);
    out->nimap = (3 + out->nsets) * c.nfe;
    out->nparams = p->nparams + 3;
    out->p_rka = p->nparams;
    out->p_rkb = p->nparams + 1;
    out->p_dt = p->nparams + 2;
    memcpy(out->needs_ext, c.needs_ext, sizeof c.needs_ext);
    for (int f = 0; f < c.F; f++)
        if (p->unknowns[out->field_unknown[f]].exact[out->field_comp[f]]) out->err_field[out->nerr++] = f;
    out->mod = hdg_ir_module_new(p->name);
    make_tables(&c, err);
    if (!c.Iq || !c.LIFTT) st = HDG_EINTERNAL;
    if (!st) {
        build_rhs(&c, "volume", RHS_VOLUME, out->volume);
        build_rhs(&c, "surface", RHS_SURFACE, out->surface);
        build_rhs(&c, "rhs", RHS_FULL, out->rhs);
        build_rhs(&c, "step", RHS_STEP, out->step);
        build_update(&c);
        build_initial(&c);
        build_errors(&c);
        build_energy(&c);
        st = hdg_ir_verify_module(out->mod, err);
    }
    free(c.rowf);
    hdg_refel_free(&c.re);
    if (st) hdg_dg_lowered_free(out);
    return st;
}

void hdg_dg_lowered_free(hdg_dg_lowered *l)
{
    if (!l) return;
    hdg_ir_module_free(l->mod);
    l->mod = NULL;
}
