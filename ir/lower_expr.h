/* lower_expr.h — expressions of the language (frontend/frontend.h hdg_expr)
 * as IR expressions, shared by the HDG and DG lowerings.
 *
 * The caller says what x, y, t, nx, ny are at the point of evaluation (IR
 * expressions, e.g. loads of the quadrature point's coordinates); params
 * become a->params[index] reads; user funcs are expanded in place with their
 * arguments bound (CSE removes the repetitions). */
#ifndef HDG_LOWER_EXPR_H
#define HDG_LOWER_EXPR_H

#include "frontend/frontend.h"
#include "ir/ir.h"

typedef struct hdg_lower_env {
    const hdg_problem *p;
    hdg_ir_expr *coord[4];    /* by hdg_var: x, y, t, z (NULL: use of it is an error) */
    hdg_ir_expr *normal[3];   /* nx, ny, nz (NULL: not available here) */
    /* HDG_EX_STATE leaves (nonlinear problems, issue 41): the IR value of STATE(unknown, comp, op,
     * side) at the point (op: hdg_op, value or a derivative; side: hdg_side), built by the lowering
     * that knows where the state lives (a kernel input and the basis tables); NULL, or a NULL
     * result: the use is a builder error. Shared by the HDG and DG lowerings. */
    hdg_ir_expr *(*state)(void *ctx, hdg_ir_kernel *k, int unknown, int comp, int op, int side);
    void *state_ctx;
} hdg_lower_env;

/* NULL (with a builder error recorded in k) when the expression uses something
 * the environment does not provide. */
hdg_ir_expr *hdg_lower_expr(hdg_ir_kernel *k, const hdg_lower_env *env, const hdg_expr *e);

#endif
