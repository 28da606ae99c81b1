/* test_hdg_run.h — one HDG run on the host or the device for the tests that
 * compare the two (test_hdg_cuda.c, test_hdg_cuda_mg.c; needs test.h first). */
#ifndef HDG_TEST_HDG_RUN_H
#define HDG_TEST_HDG_RUN_H

#include <stdio.h>

#include "drivers/run.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/mesh/mesh.h"
#include "runtime/output/report.h"

/* Runs p on mesh_spec with o, on dev when it is not NULL, else on the host;
 * *rep is the run's report (the caller frees it; NULL when the mesh did not
 * load, a failed check then), msg the error text of a failed run. */
static inline hdg_status test_run_hdg_on(const hdg_problem *p, const char *mesh_spec, const hdg_run_options *o,
                                         hdg_cuda_device *dev, hdg_report **rep, char *msg, size_t nmsg)
{
    hdg_mesh mesh;
    hdg_error err = {0};
    *rep = NULL;
    if (hdg_mesh_load(&mesh, mesh_spec, &err)) {
        CHECK(0, "mesh %s: %s", mesh_spec, err.msg);
        snprintf(msg, nmsg, "%s", err.msg);
        return HDG_EINPUT;
    }
    *rep = hdg_report_new();
    hdg_status st = dev ? hdg_run_hdg_cuda(p, &mesh, o, dev, *rep, &err) : hdg_run_hdg(p, &mesh, o, *rep, &err);
    if (st) snprintf(msg, nmsg, "%s", err.msg);
    hdg_mesh_free(&mesh);
    return st;
}

/* errors.<unknown> of the unknowns that have one, in order: their values in
 * e (and names, when not NULL), at most max; returns how many. */
static inline int test_run_errors(const hdg_problem *p, const hdg_report *rep, double *e, char (*names)[64], int max)
{
    int n = 0, found;
    for (int u = 0; u < p->nunknowns && n < max; u++) {
        char path[128];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        double v = hdg_report_get_number(rep, path, &found);
        if (!found) continue;
        if (names) snprintf(names[n], 64, "%s", p->unknowns[u].name);
        e[n++] = v;
    }
    return n;
}

#endif
