/* plot.c — hdgc_plot_*: the log-log line plots of hdgc convergence (runtime/output/plot.c) for
 * the caller's series, and the least-squares rate they show (include/hdgc.h). */
#include <stdlib.h>

#include "api/api.h"
#include "runtime/output/plot.h"
#include "support/util.h"

int hdgc_plot_fit(int n, const double *x, const double *y, double *slope, double *icept)
{
    if (n < 0 || (n > 0 && (!x || !y))) n = 0;
    return hdg_plot_fit(n, x, y, slope, icept);
}

int hdgc_plot_format(const char *path)
{
    return path ? hdg_plot_format(path) : 0;
}

hdg_status hdgc_plot_write(const char *path, const hdgc_plot *pl, hdg_error *err)
{
    if (!path || !pl) return hdg_fail(err, HDG_EINPUT, "hdgc_plot_write: no path or no plot");
    if (pl->nseries < 0 || (pl->nseries > 0 && !pl->series))
        return hdg_fail(err, HDG_EINPUT, "hdgc_plot_write: %d series without their array", pl->nseries);
    hdg_plot_series *s = hdg_xcalloc((size_t)pl->nseries + 1, sizeof *s);   /* the runtime's own types */
    for (int i = 0; i < pl->nseries; i++) {
        const hdgc_plot_series *a = &pl->series[i];
        if (a->n > 0 && (!a->x || !a->y)) {
            free(s);
            return hdg_fail(err, HDG_EINPUT, "hdgc_plot_write: series %d has %d points without their arrays", i, a->n);
        }
        s[i] = (hdg_plot_series){a->label, a->n, a->x, a->y, a->colour, a->marker};
    }
    hdg_plot p = {pl->width, pl->height, pl->title, pl->xlabel, pl->ylabel, pl->nseries, s, pl->fits};
    hdg_status st = hdg_plot_write(path, &p, err);
    free(s);
    return st;
}
