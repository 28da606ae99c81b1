/* test_run.h — a whole run of a .hdg file in a test, its report kept for the
 * figures the test reads (needs test.h first). */
#ifndef HDG_TEST_RUN_H
#define HDG_TEST_RUN_H

#include <stdio.h>

#include "drivers/run.h"
#include "test_problem.h"

/* Runs file at order k with the options o; *rep (free with hdg_report_free) holds the
 * report, also of a run that failed (said on stderr). HDG_EINPUT when it does not load. */
static inline hdg_status test_run(const char *file, int k, const hdg_run_options *o, hdg_report **rep)
{
    *rep = hdg_report_new();
    hdg_problem *p = test_load_problem(file, k, NULL, 0);
    if (!p) return HDG_EINPUT;
    hdg_error err = {0};
    hdg_status st = hdg_run_problem(p, o, *rep, &err);
    if (st) fprintf(stderr, "run %s %s k=%d: %s\n", file, o->mesh ? o->mesh : "", k, err.msg);
    hdg_problem_free(p);
    return st;
}

static inline double test_report_number(const hdg_report *rep, const char *path)
{
    int found;
    return hdg_report_get_number(rep, path, &found);
}

#endif
