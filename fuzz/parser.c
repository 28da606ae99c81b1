/* parser.c — libFuzzer entry point over the whole frontend (make fuzz):
 * parse + check arbitrary bytes, render the diagnostics, and exercise what the
 * rest of the compiler does with a checked problem (summary, marker check,
 * evaluation, inlining and derivatives of every expression). Built only with
 * -DHDG_FUZZ=ON and clang (fuzz/CMakeLists.txt). */
#include <stdint.h>
#include <stdlib.h>

#include "frontend/frontend.h"

static void exercise(hdg_problem *p, const hdg_expr *e)
{
    if (!e) return;
    hdg_eval_env env = {.x = 0.25, .y = 0.5, .t = 0.125, .nx = 0.6, .ny = 0.8, .problem = p};
    (void)hdg_expr_eval(e, &env);
    free(hdg_expr_str(p, e));
    const hdg_expr *in = hdg_expr_inline(p, e);
    if (in) (void)hdg_expr_eval(in, &env);
    const hdg_expr *dx = hdg_expr_diff(p, e, HDG_VAR_X);
    if (dx) (void)hdg_expr_eval(dx, &env);
    (void)hdg_expr_at_time(p, e, 0.5);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_setting sets[1] = {{"tau", 2}};
    hdg_frontend_options opt = {0, sets, (size & 1) ? 1 : 0};
    if (size & 2) opt.order = 2;
    hdg_problem *p = hdg_problem_parse("fuzz.hdg", (const char *)data, size, &opt, &d);
    free(hdg_diags_render(&d));
    if (p) {
        free(hdg_problem_summary(p));
        const char *markers[] = {"bottom", "right", "top", "left"};
        hdg_diags m;
        hdg_diags_init(&m);
        hdg_problem_check_markers(p, markers, 4, &m);
        free(hdg_diags_render(&m));
        hdg_diags_free(&m);
        for (int i = 0; i < p->nequations; i++)
            for (int k = 0; k < p->equations[i].natoms; k++) exercise(p, p->equations[i].atoms[k].coef);
        for (int u = 0; u < p->nunknowns; u++)
            for (int c = 0; c < p->unknowns[u].ncomp; c++) {
                exercise(p, p->unknowns[u].exact[c]);
                exercise(p, p->unknowns[u].initial[c]);
            }
        for (int b = 0; b < p->nbcs; b++)
            for (int c = 0; c < 2; c++) exercise(p, p->bcs[b].value[c]);
    }
    hdg_problem_free(p);
    hdg_diags_free(&d);
    return 0;
}
