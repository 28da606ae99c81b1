/* geometry.c — affine geometric factors, face normals and element sizes (see geometry.h). */
#include "runtime/fem/geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

void hdg_geom_free(hdg_geom *g)
{
    if (!g) return;
    double **arrs[] = {&g->xr, &g->xs, &g->yr, &g->ys, &g->J, &g->rx, &g->ry, &g->sx, &g->sy,
                       &g->nx, &g->ny, &g->sJ, &g->Fscale, &g->rin, &g->h};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(*arrs[i]);
    memset(g, 0, sizeof *g);
}

static double *vec(int n) { return hdg_xmalloc((size_t)(n ? n : 1) * sizeof(double)); }

hdg_status hdg_geom_init(hdg_geom *g, const hdg_mesh *m, hdg_error *err)
{
    int ne = m->ne;
    memset(g, 0, sizeof *g);
    g->ne = ne;
    g->xr = vec(ne), g->xs = vec(ne), g->yr = vec(ne), g->ys = vec(ne), g->J = vec(ne);
    g->rx = vec(ne), g->ry = vec(ne), g->sx = vec(ne), g->sy = vec(ne);
    g->rin = vec(ne), g->h = vec(ne);
    g->nx = vec(3 * ne), g->ny = vec(3 * ne), g->sJ = vec(3 * ne), g->Fscale = vec(3 * ne);
    for (int e = 0; e < ne; e++) {
        const int *v = m->ev + 3 * e;
        double x[3], y[3];
        for (int k = 0; k < 3; k++) x[k] = m->vx[v[k]], y[k] = m->vy[v[k]];
        double xr = (x[1] - x[0]) / 2, xs = (x[2] - x[0]) / 2;
        double yr = (y[1] - y[0]) / 2, ys = (y[2] - y[0]) / 2;
        double J = xr * ys - xs * yr;
        if (!(J > 0)) {
            hdg_geom_free(g);
            return hdg_fail(err, HDG_EINPUT, "element %d has Jacobian %g (not counter-clockwise or degenerate)", e, J);
        }
        g->xr[e] = xr, g->xs[e] = xs, g->yr[e] = yr, g->ys[e] = ys, g->J[e] = J;
        g->rx[e] = ys / J, g->ry[e] = -xs / J, g->sx[e] = -yr / J, g->sy[e] = xr / J;
        double perim = 0, h = 0;
        for (int j = 0; j < 3; j++) {
            double dx = x[(j + 1) % 3] - x[j], dy = y[(j + 1) % 3] - y[j];
            double len = sqrt(dx * dx + dy * dy);
            int k = 3 * e + j;
            g->nx[k] = dy / len, g->ny[k] = -dx / len; /* right of v_j -> v_j+1: outward for CCW */
            g->sJ[k] = len / 2;
            g->Fscale[k] = g->sJ[k] / J;
            perim += len;
            if (len > h) h = len;
        }
        g->h[e] = h;
        g->rin[e] = 4 * J / perim; /* 2 * area / perimeter, area = 2 J */
    }
    return HDG_OK;
}

void hdg_geom_map(const hdg_mesh *m, int e, double r, double s, double *x, double *y)
{
    const int *v = m->ev + 3 * e;
    double l0 = -(r + s) / 2, l1 = (1 + r) / 2, l2 = (1 + s) / 2;
    *x = l0 * m->vx[v[0]] + l1 * m->vx[v[1]] + l2 * m->vx[v[2]];
    *y = l0 * m->vy[v[0]] + l1 * m->vy[v[1]] + l2 * m->vy[v[2]];
}
