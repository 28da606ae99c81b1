/* expand.h — what the files of the expansion (expand.c, expand_poly.c, expand_val.c,
 * expand_call.c, expand_ext.c) share and nobody else sees; the expansion's entry points
 * for the semantic analysis are in sema.h. Internal to the frontend. */
#ifndef HDG_FRONTEND_EXPAND_H
#define HDG_FRONTEND_EXPAND_H

#include "frontend/sema.h"

static const fac NOFAC = {-1, 0, HDG_OP_VALUE, HDG_SIDE_NONE, false};

/* ---------------------------------------------------------------- expand_poly.c: polynomials */

poly poly_new(sema *S, int cap);
void poly_put(sema *S, poly *r, mono m);
poly poly_compact(poly r);
poly poly_add(sema *S, poly a, poly b, int sign);
poly poly_scale(sema *S, poly a, const hdg_expr *c);
poly poly_divide(sema *S, poly a, const hdg_expr *c);
poly poly_data(sema *S, const hdg_expr *e);
const mono *poly_first_trial(poly a);
const mono *poly_first_test(poly a);
const char *expand_test_label(const ectx *cx);
/* nonlinear terms: monomials whose unknown factors become STATE leaves */
bool poly_has_trial(poly a);
bool poly_has_state(poly a);
bool expand_state_mono(sema *S, mono *m, hdg_loc at);
bool poly_stateify(sema *S, poly *a, hdg_loc at);
bool poly_mul(sema *S, const ectx *cx, poly a, poly b, poly *out, hdg_loc at);

/* ---------------------------------------------------------------- expand_val.c: values */

val val_err(void);
val val_field1(poly a);
val val_field4(poly xx, poly xy, poly yx, poly yy);
val val_fieldn(int n, const poly *c);
bool shape_is_vec(int ncomp);
bool shape_is_mat(int ncomp);
int shape_dim(int ncomp);   /* the length of a vector, the rows of a matrix: 2 or 3 (1 for a scalar) */
val val_data1(sema *S, const hdg_expr *e);
bool val_need_field(sema *S, const val *v, hdg_loc at, const char *where);
bool val_need_data(sema *S, const ectx *cx, val *v, hdg_loc at, const char *what);
val val_neg(sema *S, val v);
val val_add(sema *S, val a, val b, int sign, hdg_loc at);
bool poly_dotn(sema *S, const ectx *cx, int d, const poly *a, int sa, const poly *b, int sb, poly *out,
               hdg_loc at);
val val_mul(sema *S, const ectx *cx, val a, val b, hdg_loc at);
val val_div(sema *S, const ectx *cx, val a, val b, hdg_loc at);
val val_pow(sema *S, const ectx *cx, val a, val b, hdg_loc at);

/* ---------------------------------------------------------------- expand.c: names, derivatives */

bool expand_state_diff_ok(sema *S, const ectx *cx, const hdg_expr *e, hdg_var var, hdg_loc at);
val val_diff(sema *S, const ectx *cx, val a, hdg_var var, hdg_loc at);
bool expand_ready(sema *S, const symbol *s, const char *kind, hdg_loc at);
val expand_func_value(sema *S, const ectx *cx, int fi, const hdg_expr *const *args);

/* ---------------------------------------------------------------- expand_call.c, expand_ext.c */

bool expand_arity(sema *S, const ast *a, int n);
val expand_call(sema *S, const ectx *cx, const ast *a);
val expand_op_ext(sema *S, const ectx *cx, const ast *a, int op);   /* ext(), jump(), avg() */
val expand_op_dt(sema *S, const ectx *cx, const ast *a);

#endif
