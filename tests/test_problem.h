/* test_problem.h — loading a .hdg file in a test: the diagnostics go to
 * stderr and a failed load is a failed check (needs test.h first). */
#ifndef HDG_TEST_PROBLEM_H
#define HDG_TEST_PROBLEM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

/* A loaded/parsed problem, or NULL with the diagnostics on stderr; frees d. */
static inline hdg_problem *test_problem_checked(hdg_problem *p, hdg_diags *d, const char *what)
{
    if (!p) {
        char *t = hdg_diags_render(d);
        fprintf(stderr, "%s", t);
        free(t);
    }
    CHECK(p != NULL, "loading %s", what);
    hdg_diags_free(d);
    return p;
}

static inline hdg_problem *test_load_problem(const char *path, int order, const hdg_setting *sets, int nsets)
{
    hdg_frontend_options fo = { order, sets, nsets };
    hdg_diags d;
    hdg_diags_init(&d);
    return test_problem_checked(hdg_problem_load(path, &fo, &d), &d, path);
}

/* The problem of the source text src (file name "s.hdg" in diagnostics). */
static inline hdg_problem *test_parse_problem(const char *src)
{
    hdg_diags d;
    hdg_diags_init(&d);
    return test_problem_checked(hdg_problem_parse("s.hdg", src, strlen(src), NULL, &d), &d, src);
}

/* ||a - b|| / ||b|| (2-norms) of two element fields of n values; INFINITY when
 * either is missing. */
static inline double test_fields_l2diff(const double *a, const double *b, long long n)
{
    if (!a || !b) return INFINITY;
    double d = 0, s = 0;
    for (long long i = 0; i < n; i++) d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

/* max |a - b| / max |b| over n values. */
static inline double test_fields_maxdiff(const double *a, const double *b, long long n)
{
    double d = 0, s = 0;
    for (long long i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
    return s > 0 ? d / s : d;
}

#endif
