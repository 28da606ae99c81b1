/* nonfinite.h — when a kernel's output on an element holds NaN or Inf, which
 * piece of the problem produced it. The problem's data (the coefficients of
 * its atoms, its boundary data and exact solutions, then every func) are
 * evaluated on the host (hdg_expr_eval) at the points where the kernels
 * evaluate them: the volume rule of degree 2k+4 and k+3 Gauss points per face
 * (ir/lower_hdg.c). The first non-finite value is named with its place in the
 * file and the point; inside an expression, the innermost func call that is
 * not finite is the one named. For HDG (run_hdg*.c) and DG (the blow-up check
 * of run_dg*.c may call it with the time of the stage). */
#ifndef HDG_NONFINITE_H
#define HDG_NONFINITE_H

#include <stddef.h>

#include "frontend/frontend.h"
#include "runtime/mesh/mesh.h"

/* What to look at: the coefficients of the atoms with an unknown (a matrix),
 * of the source atoms with the Neumann and DG exterior data (a right-hand
 * side), the Dirichlet data, the exact solutions and initial values, every
 * func (last, at the volume points). */
enum { HDG_NF_TERMS = 1, HDG_NF_SOURCES = 2, HDG_NF_DIRICHLET = 4, HDG_NF_SOLUTIONS = 8, HDG_NF_FUNCS = 16,
       HDG_NF_ALL = 31 };

/* Looks on mesh element e (DG: the state row r holds the mesh element e with
 * pos[e] == r, hdg_dg_order_elements) at time t at what (HDG_NF_*; DG:
 * HDG_NF_ALL); returns 1 and writes a
 * sentence into msg ("func 'f' (poisson.hdg:8:7) is NaN at (x, y) = (0.25,
 * 0.125), in the coefficient of the term at poisson.hdg:21:36") when
 * something is not finite there, 0 when all is finite. */
int hdg_nonfinite_source(const hdg_problem *p, const hdg_mesh *M, int e, double t, unsigned what, char *msg,
                         size_t n);

/* The first element (0-based) whose n values at x + e * stride are not all
 * finite, or -1. */
int hdg_nonfinite_first(const double *x, long long ne, long long n, long long stride);

#endif
