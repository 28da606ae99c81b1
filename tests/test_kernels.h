/* test_kernels.h — representative IR kernels for the emitter tests (C in
 * test_ir_emit.c, CUDA in test_cuda_*.c), built with the IR API the way a
 * lowering would:
 *   mass     quadrature loops, a geometric factor, a local copied to an output
 *   schur    static condensation: LU, LU solve, Schur complement, Cholesky,
 *            transposed matmuls (dense ops as device helpers)
 *   jump     a face kernel: gathers at explicit rows from an imap, a table
 *            indexed per item (placed in __device__ const), a guarded select
 *   misc     params, time, calls (sin exp atan2 pow sqrt), x^n, int % min max,
 *            comparisons, a table with NaN and infinities
 * Sizes: NE items for schur etc.; the reference values are computed by the
 * tests (from the C backend). */
#ifndef TEST_KERNELS_H
#define TEST_KERNELS_H

#include <math.h>

#include "ir/ir.h"

enum { TK_NA = 6, TK_NB = 4, TK_NP = 5 };

static const double TK_PHI[3][3] = { { 2. / 3, 1. / 6, 1. / 6 }, { 1. / 6, 2. / 3, 1. / 6 }, { 1. / 6, 1. / 6, 2. / 3 } };
static const double TK_W[3] = { 1. / 6, 1. / 6, 1. / 6 };

static inline void tk_mass(hdg_ir_module *m, const char *name, hdg_ir_tensor *phi, hdg_ir_tensor *w)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, name, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *J = hdg_ir_geom(k, "J", HDG_SHAPE(1), "|det Jacobian|");
    hdg_ir_tensor *M = hdg_ir_output(k, "M", HDG_SHAPE(3, 3), "element mass matrix");
    hdg_ir_tensor *Ml = hdg_ir_local(k, "Ml", HDG_IR_DOUBLE, HDG_SHAPE(3, 3));
    hdg_ir_fill(k, Ml, hdg_ir_num(k, 0));
    hdg_ir_set_origin(k, "mass.hdg", 3, 1, "(u, v)");
    hdg_ir_expr *q = hdg_ir_for(k, "q", 3);
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3);
    hdg_ir_expr *j = hdg_ir_for(k, "j", 3);
    hdg_ir_expr *v = hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_ld1(k, J, hdg_ir_int(k, 0)), hdg_ir_ld1(k, w, q)),
                                              hdg_ir_ld2(k, phi, q, i)),
                                hdg_ir_ld2(k, phi, q, j));
    hdg_ir_accum(k, hdg_ir_ld2(k, Ml, i, j), v);
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_set_origin(k, NULL, 0, 0, NULL);
    hdg_ir_copy(k, M, Ml);
}

static inline hdg_ir_kernel *tk_schur(hdg_ir_module *m)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "schur", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *A = hdg_ir_input(k, "A", HDG_SHAPE(TK_NA, TK_NA), "");
    hdg_ir_tensor *B = hdg_ir_input(k, "B", HDG_SHAPE(TK_NA, TK_NB), "");
    hdg_ir_tensor *C = hdg_ir_input(k, "C", HDG_SHAPE(TK_NB, TK_NA), "");
    hdg_ir_tensor *D = hdg_ir_input(k, "D", HDG_SHAPE(TK_NB, TK_NB), "");
    hdg_ir_tensor *P = hdg_ir_input(k, "P", HDG_SHAPE(TK_NP, TK_NP), "SPD");
    hdg_ir_tensor *b = hdg_ir_input(k, "b", HDG_SHAPE(TK_NP), "");
    hdg_ir_tensor *Fl = hdg_ir_input(k, "Fl", HDG_SHAPE(TK_NA), "");
    hdg_ir_tensor *Ft = hdg_ir_input(k, "Ft", HDG_SHAPE(TK_NB), "");
    hdg_ir_tensor *S = hdg_ir_output(k, "S", HDG_SHAPE(TK_NB, TK_NB), "D - C A^-1 B");
    hdg_ir_tensor *X = hdg_ir_output(k, "X", HDG_SHAPE(TK_NA, TK_NB), "A^-1 B");
    hdg_ir_tensor *y = hdg_ir_output(k, "y", HDG_SHAPE(TK_NP), "P^-1 b");
    hdg_ir_tensor *R1 = hdg_ir_output(k, "R1", HDG_SHAPE(TK_NA, TK_NA), "0.5 A^T A");
    hdg_ir_tensor *R2 = hdg_ir_output(k, "R2", HDG_SHAPE(TK_NA, TK_NB), "A^T C^T");
    hdg_ir_tensor *R3 = hdg_ir_output(k, "R3", HDG_SHAPE(TK_NB, TK_NA), "3 C A - C A^T");
    hdg_ir_tensor *Fe = hdg_ir_output(k, "Fe", HDG_SHAPE(TK_NB), "Ft - C A^-1 Fl");
    hdg_ir_tensor *Wf = hdg_ir_local(k, "Wf", HDG_IR_DOUBLE, HDG_SHAPE(TK_NA));
    hdg_ir_tensor *Al = hdg_ir_local(k, "Al", HDG_IR_DOUBLE, HDG_SHAPE(TK_NA, TK_NA));
    hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(TK_NA));
    hdg_ir_tensor *Wl = hdg_ir_local(k, "Wl", HDG_IR_DOUBLE, HDG_SHAPE(TK_NA, TK_NB));
    hdg_ir_tensor *Sl = hdg_ir_local(k, "Sl", HDG_IR_DOUBLE, HDG_SHAPE(TK_NB, TK_NB));
    hdg_ir_tensor *Pl = hdg_ir_local(k, "Pl", HDG_IR_DOUBLE, HDG_SHAPE(TK_NP, TK_NP));
    hdg_ir_tensor *yl = hdg_ir_local(k, "yl", HDG_IR_DOUBLE, HDG_SHAPE(TK_NP));
    hdg_ir_tensor *Tl = hdg_ir_local(k, "Tl", HDG_IR_DOUBLE, HDG_SHAPE(TK_NB, TK_NA));
    hdg_ir_set_origin(k, "poisson.hdg", 20, 1, "static condensation");
    hdg_ir_copy(k, Al, A);
    hdg_ir_schur(k, Sl, Al, piv, B, C, D, Wl);
    hdg_ir_copy(k, S, Sl);
    hdg_ir_copy(k, X, Wl);
    hdg_ir_schur_factored(k, Fe, Al, piv, Fl, C, Ft, Wf);
    hdg_ir_copy(k, Pl, P);
    hdg_ir_chol(k, Pl);
    hdg_ir_copy(k, yl, b);
    hdg_ir_chol_solve(k, Pl, yl);
    hdg_ir_copy(k, y, yl);
    hdg_ir_matmul(k, R1, 0.5, A, 1, A, 0, 0.0);
    hdg_ir_matmul(k, R2, 1.0, A, 1, C, 1, 0.0);
    hdg_ir_matmul(k, Tl, 1.0, C, 0, A, 0, 0.0);
    hdg_ir_matmul(k, Tl, -1.0, C, 0, A, 1, 3.0);
    hdg_ir_copy(k, R3, Tl);
    return k;
}

static const int TK_FMASK[3][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 } };

static inline hdg_ir_kernel *tk_jump(hdg_ir_module *m, hdg_ir_tensor *fm)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "jump", HDG_KITEM_FACE);
    hdg_ir_tensor *u = hdg_ir_input(k, "u", HDG_SHAPE(3), "nodal values per element");
    hdg_ir_tensor *f2e = hdg_ir_imap(k, "f2e", 4, "element, local face (x2), -1 on the boundary");
    hdg_ir_tensor *jmp = hdg_ir_output(k, "jmp", HDG_SHAPE(2), "u(interior) - u(exterior)");
    hdg_ir_expr *e0 = hdg_ir_ld1(k, f2e, hdg_ir_int(k, 0)), *l0 = hdg_ir_ld1(k, f2e, hdg_ir_int(k, 1));
    hdg_ir_expr *e1 = hdg_ir_ld1(k, f2e, hdg_ir_int(k, 2)), *l1 = hdg_ir_ld1(k, f2e, hdg_ir_int(k, 3));
    hdg_ir_expr *j = hdg_ir_for(k, "j", 2);
    hdg_ir_expr *in = hdg_ir_load_row(k, u, e0, 1, (hdg_ir_expr *[]){ hdg_ir_ld2(k, fm, l0, j) });
    hdg_ir_expr *jr = hdg_ir_sub(k, hdg_ir_int(k, 1), j);
    hdg_ir_expr *ex = hdg_ir_load_row(k, u, e1, 1, (hdg_ir_expr *[]){ hdg_ir_ld2(k, fm, l1, jr) });
    hdg_ir_expr *bnd = hdg_ir_cmp(k, HDG_E_LT, e1, hdg_ir_int(k, 0));
    hdg_ir_assign(k, hdg_ir_ld1(k, jmp, j), hdg_ir_sub(k, in, hdg_ir_select(k, bnd, hdg_ir_num(k, 0), ex)));
    hdg_ir_end(k);
    return k;
}

static inline void tk_misc(hdg_ir_module *m)
{
    double odd[4] = { 1.5, -0.25, HUGE_VAL, NAN };
    hdg_ir_tensor *tab = hdg_ir_table(m, "odd", HDG_SHAPE(4), odd);
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "misc", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *u = hdg_ir_input(k, "u", HDG_SHAPE(2), "");
    hdg_ir_tensor *r = hdg_ir_output(k, "r", HDG_SHAPE(6), "");
    hdg_ir_expr *u0 = hdg_ir_ld1(k, u, hdg_ir_int(k, 0)), *u1 = hdg_ir_ld1(k, u, hdg_ir_int(k, 1));
    hdg_ir_expr *kap = hdg_ir_param(k, 0, "kappa"), *tt = hdg_ir_time(k);
    hdg_ir_set_origin(k, "misc.hdg", 5, 7, "sin(x)*exp(y) + atan2(y, x)");
    hdg_ir_assign(k, hdg_ir_ld1(k, r, hdg_ir_int(k, 0)),
                  hdg_ir_add(k, hdg_ir_mul(k, hdg_ir_call(k, HDG_FN_SIN, u0), hdg_ir_call(k, HDG_FN_EXP, u1)),
                             hdg_ir_call2(k, HDG_FN_ATAN2, u1, u0)));
    hdg_ir_assign(k, hdg_ir_ld1(k, r, hdg_ir_int(k, 1)),
                  hdg_ir_add(k, hdg_ir_mul(k, kap, hdg_ir_powi(k, u0, 5)),
                             hdg_ir_mul(k, tt, hdg_ir_pow(k, hdg_ir_call(k, HDG_FN_ABS, u1), hdg_ir_num(k, 0.5)))));
    hdg_ir_expr *it = hdg_ir_item(k);
    hdg_ir_expr *im = hdg_ir_mod(k, it, hdg_ir_int(k, 3));
    hdg_ir_expr *mm = hdg_ir_max(k, hdg_ir_min(k, im, hdg_ir_int(k, 1)), hdg_ir_int(k, 0));
    hdg_ir_assign(k, hdg_ir_ld1(k, r, hdg_ir_int(k, 2)),
                  hdg_ir_mul(k, hdg_ir_todbl(k, hdg_ir_add(k, im, mm)), hdg_ir_ld1(k, tab, hdg_ir_int(k, 0))));
    hdg_ir_expr *i = hdg_ir_for(k, "i", 2);
    hdg_ir_expr *c = hdg_ir_cmp(k, HDG_E_GT, hdg_ir_ld1(k, u, i), hdg_ir_num(k, 0));
    hdg_ir_assign(k, hdg_ir_ld1(k, r, hdg_ir_add(k, i, hdg_ir_int(k, 3))),
                  hdg_ir_select(k, c, hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_ld1(k, u, i)), hdg_ir_ld1(k, tab, i)));
    hdg_ir_end(k);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, hdg_ir_int(k, 5)),
                  hdg_ir_add(k, hdg_ir_ld1(k, tab, hdg_ir_int(k, 2)), hdg_ir_ld1(k, tab, hdg_ir_int(k, 3))));
}

/* The whole module: mass, schur, jump, misc (unoptimized; the pipelines optimize). */
static inline hdg_ir_module *tk_module(const char *name)
{
    hdg_ir_module *m = hdg_ir_module_new(name);
    hdg_ir_tensor *phi = hdg_ir_table(m, "phi", HDG_SHAPE(3, 3), &TK_PHI[0][0]);
    hdg_ir_tensor *w = hdg_ir_table(m, "w", HDG_SHAPE(3), TK_W);
    hdg_ir_tensor *fm = hdg_ir_table_int(m, "fmask", HDG_SHAPE(3, 2), &TK_FMASK[0][0]);
    tk_mass(m, "mass", phi, w);
    tk_schur(m);
    tk_jump(m, fm);
    tk_misc(m);
    return m;
}

#endif
