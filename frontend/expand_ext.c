/* expand_ext.c — the operators between the sides of a face and in time: ext(), jump(),
 * avg() (DG) and dt(). */
#include <stdio.h>
#include <string.h>

#include "frontend/expand.h"

/* ext() of a nonlinear term: its STATE leaves on the exterior side. */
static bool ext_state(sema *S, mono *m, const char *op, hdg_loc at)
{
    for (int u = 0; u < S->p->nunknowns; u++)
        if (S->p->unknowns[u].trace && ex_mentions_unknown(m->coef, u)) {
            sema_error(S, at, "%s() of the trace unknown '%s': trace unknowns are single-valued on faces", op,
                       S->p->unknowns[u].name);
            return false;
        }
    const hdg_expr *e = ex_state_exterior(S->p, m->coef);
    if (!e) {
        sema_error(S, at, "%s() must apply to unknowns directly (not to ext, dt or derivatives)", op);
        return false;
    }
    m->coef = e;
    return true;
}

/* ext() of every monomial: the exterior trace of the unknowns (in a nonlinear term, of its
 * state), other data unchanged. */
static bool ext_poly(sema *S, const ectx *cx, poly a, poly *out, const char *op, hdg_loc at)
{
    poly r = poly_new(S, a.n);
    for (int i = 0; i < a.n; i++) {
        mono m = a.m[i];
        if (m.test.id >= 0) {
            sema_error(S, at, "the test function '%s' cannot be inside %s()", expand_test_label(cx), op);
            return false;
        }
        if (m.trial.id >= 0) {
            if (S->p->unknowns[m.trial.id].trace) {
                sema_error(S, at, "%s() of the trace unknown '%s': trace unknowns are single-valued on faces",
                           op, S->p->unknowns[m.trial.id].name);
                return false;
            }
            if (m.trial.side == HDG_SIDE_EXTERIOR || m.trial.dt || m.trial.op != HDG_OP_VALUE) {
                sema_error(S, at, "%s() must apply to unknowns directly (not to ext, dt or derivatives)", op);
                return false;
            }
            m.trial.side = HDG_SIDE_EXTERIOR;
        }
        if (hdg_expr_has_state(m.coef) && !ext_state(S, &m, op, at)) return false;
        poly_put(S, &r, m);
    }
    *out = poly_compact(r);
    return true;
}

val expand_op_ext(sema *S, const ectx *cx, const ast *a, int op)
{
    static const char *names[] = {[OP_JUMP] = "jump", [OP_AVG] = "avg", [OP_EXT] = "ext"};
    const char *name = names[op];
    if (!expand_arity(S, a, 1)) return val_err();
    if (cx->mode != X_EQUATION) {
        sema_error(S, a->loc, "%s() can only be used in the boundary integrals of equations", name);
        return val_err();
    }
    if (cx->hdg) {
        sema_error(S, a->loc, "%s() in an HDG problem: HDG elements couple only through trace unknowns",
                   name);
        return val_err();
    }
    if (cx->integral != 2) {
        sema_error(S, a->loc, "%s() can only be used in boundary integrals <a, b>", name);
        return val_err();
    }
    val v = expand(S, cx, a->args[0]);
    if (!val_need_field(S, &v, a->loc, "inside ext(), jump() or avg()")) return val_err();
    val e = v;
    for (int c = 0; c < v.ncomp; c++)
        if (!ext_poly(S, cx, v.c[c], &e.c[c], name, a->loc)) return val_err();
    if (op == OP_EXT) return e;
    val r = v;
    for (int c = 0; c < v.ncomp; c++) {
        r.c[c] = poly_add(S, v.c[c], e.c[c], op == OP_JUMP ? -1 : 1);
        if (op == OP_AVG) r.c[c] = poly_scale(S, r.c[c], ex_num(S->p, 0.5));
    }
    return r;
}

val expand_op_dt(sema *S, const ectx *cx, const ast *a)
{
    if (!expand_arity(S, a, 1)) return val_err();
    if (cx->mode == X_EQUATION && cx->hdg && cx->test_trace) {
        sema_error(S, a->loc, "dt() in the equation of a trace test function ('%s'): in HDG only element "
                              "unknowns have a time derivative, in their element equations", expand_test_label(cx));
        return val_err();
    }
    val v = expand(S, cx, a->args[0]);
    if (!val_need_field(S, &v, a->loc, "inside dt()")) return val_err();
    for (int c = 0; c < v.ncomp; c++) {
        poly r = poly_new(S, v.c[c].n);
        for (int i = 0; i < v.c[c].n; i++) {
            mono m = v.c[c].m[i];
            if (m.test.id >= 0) {
                sema_error(S, a->loc, "the test function '%s' cannot be inside dt()", expand_test_label(cx));
                return val_err();
            }
            if (m.trial.id < 0) {   /* data: the derivative in t, symbolically */
                if (!expand_state_diff_ok(S, cx, m.coef, HDG_VAR_T, a->loc)) return val_err();
                const hdg_expr *dc = hdg_expr_diff(S->p, m.coef, HDG_VAR_T);
                if (!dc) {
                    sema_error(S, a->loc, "expression too large to differentiate");
                    return val_err();
                }
                if (!hdg_expr_is_num(dc, 0)) r.m[r.n++] = (mono){dc, m.trial, m.test};
                continue;
            }
            if (m.trial.dt || m.trial.op != HDG_OP_VALUE || m.trial.side == HDG_SIDE_EXTERIOR) {
                sema_error(S, a->loc, "dt() must apply to unknowns directly (not to derivatives or ext)");
                return val_err();
            }
            const hdg_unknown *x = &S->p->unknowns[m.trial.id];
            if (x->trace || x->post) {
                sema_error(S, a->loc, "dt() of the %s unknown '%s': only element unknowns have a time "
                                      "derivative", x->trace ? "trace" : "post-processed", x->name);
                return val_err();
            }
            if (hdg_expr_depends(m.coef, HDG_VAR_T)) {
                sema_error(S, a->loc, "dt() of a time-dependent coefficient is not supported");
                return val_err();
            }
            m.trial.dt = true;
            r.m[r.n++] = m;
        }
        v.c[c] = r;
    }
    return v;
}
