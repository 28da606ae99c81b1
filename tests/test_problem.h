/* test_problem.h — loading a .hdg file in a test: the diagnostics go to
 * stderr and a failed load is a failed check (needs test.h first). */
#ifndef HDG_TEST_PROBLEM_H
#define HDG_TEST_PROBLEM_H

#include <stdio.h>
#include <stdlib.h>

#include "frontend/frontend.h"

static inline hdg_problem *test_load_problem(const char *path, int order, const hdg_setting *sets, int nsets)
{
    hdg_frontend_options fo = { order, sets, nsets };
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, &fo, &d);
    if (!p) {
        char *t = hdg_diags_render(&d);
        fprintf(stderr, "%s", t);
        free(t);
    }
    CHECK(p != NULL, "loading %s", path);
    hdg_diags_free(&d);
    return p;
}

#endif
