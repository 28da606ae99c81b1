/* dg_energy.c — the energy class of an explicit DG problem (hdg_dg_energy_bounded, see
 * dg_speed.h): whether the form shows that the semi-discrete energy can only decrease, read
 * from its atoms (volume terms antisymmetric, face terms dissipative or conservative). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/dg_speed_internal.h"
#include "runtime/solve/dense.h"
#include "support/util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ energy class */

static int why_at(char *why, size_t n, const hdg_problem *p, hdg_loc loc, const char *what)
{
    snprintf(why, n, "%s:%d:%d: %s", hdg_dgs_fname(p), loc.line, loc.col, what);
    return 0;
}

static int sources_free(const hdg_problem *p, char *why, size_t n)
{
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->role == HDG_ROLE_SOURCE && !hdg_expr_is_num(a->coef, 0))
                return why_at(why, n, p, a->loc, "a source term");
        }
    return 1;
}

static int ext_data_free(const hdg_problem *p, const hdg_dg_lowered *L, char *why, size_t n)
{
    for (int b = 0; b < p->nbcs; b++)
        for (int r = 0; r < p->bcs[b].nrules; r++) {
            const hdg_ext_rule *x = &p->bcs[b].rules[r];
            int f = 0;
            while (f < L->nfields && !(L->field_unknown[f] == x->unknown && L->field_comp[f] == x->comp)) f++;
            if (f < L->nfields && L->needs_ext[f] && x->data && !hdg_expr_is_num(x->data, 0)) {
                char msg[200];
                snprintf(msg, sizeof msg, "boundary '%s' gives exterior data for %s", p->bcs[b].label,
                         L->field_name[f]);
                return why_at(why, n, p, x->loc, msg);
            }
        }
    return 1;
}

/* ------------------------------------------------------------ faces */

/* The face terms of a row field's equation, per normal: Fi (x interior
 * values), Fe (x exterior values), over c (the common dt() coefficient). */
typedef struct faces {
    const hdg_problem *p;
    const hdg_dg_lowered *L;
    int field_of[64][3];
    double c;
} faces;

static int row_of(const faces *fc, const hdg_equation *q, int test_comp)
{
    for (int i = 0; i < q->natoms; i++)
        if (q->atoms[i].role == HDG_ROLE_TIME && q->atoms[i].test_comp == test_comp)
            return fc->field_of[q->atoms[i].trial][q->atoms[i].trial_comp];
    return -1;
}

static void face_mats(const faces *fc, const double *nv, double *Fi, double *Fe)
{
    const hdg_problem *p = fc->p;
    int F = fc->L->nfields;
    const double x0[3] = { 0, 0, 0 };
    hdg_eval_env env = hdg_dgs_env_at(p, fc->L->dim, x0, 0, nv);
    memset(Fi, 0, sizeof(double) * F * F);
    memset(Fe, 0, sizeof(double) * F * F);
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->role != HDG_ROLE_FLUX) continue;
            int r = row_of(fc, &p->equations[e], a->test_comp), col = fc->field_of[a->trial][a->trial_comp];
            double *M = a->side == HDG_SIDE_EXTERIOR ? Fe : Fi;
            M[r * F + col] += hdg_expr_eval(a->coef, &env) / fc->c;
        }
}

/* ext = M u on the faces of condition b */
static void ext_mat(const faces *fc, const hdg_bc *bc, const double *nv, double *M)
{
    int F = fc->L->nfields;
    const double x0[3] = { 0, 0, 0 };
    hdg_eval_env env = hdg_dgs_env_at(fc->p, fc->L->dim, x0, 0, nv);
    memset(M, 0, sizeof(double) * F * F);
    for (int r = 0; r < bc->nrules; r++) {
        int f = fc->field_of[bc->rules[r].unknown][bc->rules[r].comp];
        for (int j = 0; j < bc->rules[r].nterms; j++) {
            const hdg_ext_term *t = &bc->rules[r].terms[j];
            M[f * F + fc->field_of[t->unknown][t->comp]] += hdg_expr_eval(t->coef, &env);
        }
    }
}

/* The smallest eigenvalue of the symmetric part of the n x n matrix K, relative to its size. */
static double min_sym_eig(int n, const double *K)
{
    double *S = hdg_xmalloc(sizeof(double) * n * n), *ev = hdg_xmalloc(sizeof(double) * n), scale = hdg_dgs_max_abs(n, K);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) S[i * n + j] = 0.5 * (K[i * n + j] + K[j * n + i]);
    double r = hdg_sym_eig(n, S, ev) ? -1 : scale > 0 ? ev[0] / scale : 0;
    free(S);
    free(ev);
    return r;
}

/* The k-th of the normals the face check samples: 64 on the circle in 2D;
 * in 3D a 9 x 16 grid of polar and azimuthal angles over the sphere (144,
 * the poles included). */
static int check_normals(int dim) { return dim == 2 ? 64 : 9 * 16; }

static void check_normal(int dim, int k, double *nv)
{
    if (dim == 2) {
        nv[0] = cos(M_PI * k / 32), nv[1] = sin(M_PI * k / 32), nv[2] = 0;
        return;
    }
    hdg_dgs_sphere_dir(M_PI * (k / 16) / 8, 2 * M_PI * (k % 16) / 16, nv);
}

/* The face terms cannot feed energy: with V(n) = (A_weak - A_strong) n / 2
 * the volume terms' share of the faces, every interior face (u, w: the two
 * sides) and every boundary face (w = M u) adds a quadratic form >= 0 to
 * -dE/dt. Checked at the normals of check_normal; coefficients must not
 * vary in space or time. Vd[d] (d < dim): the share's matrix of direction d. */
/* V(n) entry ij: Vx nx + Vy ny (+ Vz nz). */
static double vshare(double (*Vd)[MAXF * MAXF], int dim, const double *nv, int ij)
{
    double V = Vd[0][ij] * nv[0] + Vd[1][ij] * nv[1];
    return dim == 2 ? V : V + Vd[2][ij] * nv[2];
}

static int faces_dissipate(const faces *fc, double (*Vd)[MAXF * MAXF], char *why, size_t n)
{
    const hdg_problem *p = fc->p;
    int F = fc->L->nfields, F2 = 2 * F;
    for (int e = 0; e < p->nequations; e++)
        for (int i = 0; i < p->equations[e].natoms; i++) {
            const hdg_atom *a = &p->equations[e].atoms[i];
            if (a->role == HDG_ROLE_FLUX && (a->markers || hdg_dgs_depends_xy(a->coef) || hdg_expr_depends(a->coef, HDG_VAR_T)))
                return why_at(why, n, p, a->loc, "a face term varies in space or time or sits on some markers only");
        }
    for (int b = 0; b < p->nbcs; b++)
        for (int r = 0; r < p->bcs[b].nrules; r++)
            for (int j = 0; j < p->bcs[b].rules[r].nterms; j++) {
                const hdg_expr *c = p->bcs[b].rules[r].terms[j].coef;
                if (hdg_dgs_depends_xy(c) || hdg_expr_depends(c, HDG_VAR_T))
                    return why_at(why, n, p, p->bcs[b].rules[r].loc, "an exterior state varies in space or time");
            }
    double *Fi = hdg_xmalloc(sizeof(double) * 4 * F * F), *Fe = Fi + F * F, *Gi = Fe + F * F, *Ge = Gi + F * F;
    double *K = hdg_xmalloc(sizeof(double) * F2 * F2), *M = hdg_xmalloc(sizeof(double) * F * F);
    int ok = 1, dim = fc->L->dim;
    for (int k = 0; k < check_normals(dim) && ok; k++) {
        double nv[3], mv[3];
        check_normal(dim, k, nv);
        for (int d = 0; d < 3; d++) mv[d] = -nv[d];
        face_mats(fc, nv, Fi, Fe);
        face_mats(fc, mv, Gi, Ge);
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) {
                double V = vshare(Vd, dim, nv, i * F + j);
                K[i * F2 + j] = Fi[i * F + j] - V;
                K[i * F2 + F + j] = Fe[i * F + j];
                K[(F + i) * F2 + j] = Ge[i * F + j];
                K[(F + i) * F2 + F + j] = Gi[i * F + j] + V;
            }
        if (min_sym_eig(F2, K) < -1e-12) ok = why_at(why, n, p, p->loc, "the face terms can feed energy (a flux "
                                                                          "that is neither upwind nor central)");
        for (int b = 0; b < p->nbcs && ok; b++) {
            ext_mat(fc, &p->bcs[b], nv, M);
            for (int i = 0; i < F; i++)
                for (int j = 0; j < F; j++) {
                    double s = Fi[i * F + j] - vshare(Vd, dim, nv, i * F + j);
                    for (int l = 0; l < F; l++) s += Fe[i * F + l] * M[l * F + j];
                    K[i * F + j] = s;
                }
            if (min_sym_eig(F, K) < -1e-12)
                ok = why_at(why, n, p, p->bcs[b].loc, "this boundary condition can feed energy");
        }
    }
    free(Fi);
    free(K);
    free(M);
    return ok;
}

/* Vd[d] = (A_weak - A_strong) / 2 for each direction d (constant
 * coefficients, over c): the volume terms' share of the face integrals of
 * dE/dt. 0 when a part is not symmetric (no such identity). */
static int volume_faces(const form *fm, double c, double (*Vd)[MAXF * MAXF])
{
    int F = fm->F;
    double S[3][MAXF * MAXF], W[3][MAXF * MAXF];
    memset(S, 0, sizeof S);
    memset(W, 0, sizeof W);
    const double x0[3] = { 0, 0, 0 };
    hdg_eval_env env = hdg_dgs_env_at(fm->p, fm->dim, x0, 0, NULL);
    for (int i = 0; i < fm->nt; i++) {
        const vterm *v = &fm->t[i];
        if (v->kind == KIND_R) continue;
        double *M = v->sign > 0 ? S[v->kind] : W[v->kind];
        M[v->row * F + v->col] += v->sign * hdg_expr_eval(v->a->coef, &env) / c;
    }
    for (int d = 0; d < fm->dim; d++) {
        double scale = fmax(hdg_dgs_max_abs(F, S[d]), hdg_dgs_max_abs(F, W[d]));
        if (!hdg_dgs_symmetric(F, S[d], 1e-12 * scale) || !hdg_dgs_symmetric(F, W[d], 1e-12 * scale)) return 0;
    }
    for (int d = 0; d < fm->dim; d++)
        for (int i = 0; i < F * F; i++) Vd[d][i] = 0.5 * (W[d][i] - S[d][i]);
    return 1;
}

int hdg_dg_energy_bounded(const hdg_problem *p, const hdg_dg_lowered *L, char *why, size_t n)
{
    if (!sources_free(p, why, n) || !ext_data_free(p, L, why, n)) return 0;
    form fm;
    hdg_dgs_form_build(&fm, p, L);
    int F = fm.F, ok = 1;
    double A[3][MAXF * MAXF], R[MAXF * MAXF], c0 = 0;
    const double x0[3] = { 0, 0, 0 };
    if (fm.dep_xy || fm.dep_t) {
        snprintf(why, n, "coefficients of the volume or dt() terms vary in space or time");
        ok = 0;
    }
    if (ok && hdg_dgs_form_eval(&fm, x0, 0, A, R, why, n)) ok = 0;
    hdg_eval_env env = hdg_dgs_env_at(p, fm.dim, x0, 0, NULL);
    for (int f = 0; ok && f < F; f++) {
        double c = hdg_expr_eval(fm.time[f]->coef, &env);
        if (f == 0) c0 = c;
        if (c != c0) ok = why_at(why, n, p, fm.time[f]->loc, "the dt() coefficients differ between fields");
    }
    double scale = 0;
    int sym = 1;
    for (int d = 0; d < fm.dim; d++) scale = fmax(scale, hdg_dgs_max_abs(F, A[d]));
    for (int d = 0; d < fm.dim; d++) sym = sym && hdg_dgs_symmetric(F, A[d], 1e-12 * scale);
    if (ok && !sym) {
        snprintf(why, n, fm.dim == 2 ? "the flux Jacobians A, B are not symmetric"
                                     : "the flux Jacobians A, B, C are not symmetric");
        ok = 0;
    }
    if (ok && !volume_faces(&fm, c0, A)) {   /* A now holds the Vd */
        snprintf(why, n, fm.dim == 2 ? "the strong- and weak-form parts of A, B are not symmetric each"
                                     : "the strong- and weak-form parts of A, B, C are not symmetric each");
        ok = 0;
    }
    if (ok) {
        faces fc = { p, L, {{0}}, c0 };
        for (int f = 0; f < L->nfields; f++) fc.field_of[L->field_unknown[f]][L->field_comp[f]] = f;
        ok = faces_dissipate(&fc, A, why, n);
    }
    if (ok && hdg_dgs_max_abs(F, R) > 0) {   /* d/dt E gets -U^T R U: R's symmetric part must be >= 0 */
        double S[MAXF * MAXF], ev[MAXF];
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) S[i * F + j] = 0.5 * (R[i * F + j] + R[j * F + i]);
        if (hdg_sym_eig(F, S, ev) || ev[0] < -1e-12 * hdg_dgs_max_abs(F, R)) {
            snprintf(why, n, "the (u, v) terms can feed energy");
            ok = 0;
        }
    }
    free(fm.t);
    return ok;
}
