/* test_mesh_common.c — invariants every valid hdg_mesh + hdg_geom must satisfy.
 * #included by test_mesh.c and test_mesh_gmsh.c (not compiled on its own: the
 * counters of test.h are per program). */
#ifndef HDG_TEST_MESH_COMMON
#define HDG_TEST_MESH_COMMON

#include <math.h>
#include <stdlib.h>

#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"
#include "test.h"

/* Reference coordinates of the point at parameter t on local face j (v_j -> v_j+1). */
static void face_point(int j, double t, double *r, double *s)
{
    static const double v[3][2] = {{-1, -1}, {1, -1}, {-1, 1}};
    const double *a = v[j], *b = v[(j + 1) % 3];
    *r = (1 - t) * a[0] + t * b[0];
    *s = (1 - t) * a[1] + t * b[1];
}

/* Checks topology and geometry; area = expected domain area, scale = domain size
 * (tolerances are 1e-14 * scale), euler = expected nv - nf + ne (1 for a disc). */
static void check_mesh(const hdg_mesh *m, double area, double scale, int euler, const char *name)
{
    hdg_geom g;
    hdg_error err;
    CHECK(hdg_geom_init(&g, m, &err) == HDG_OK, "%s: geom_init: %s", name, err.msg);
    if (g.ne != m->ne) return;
    double tol = 1e-14 * scale;
    CHECK(m->nv - m->nf + m->ne == euler, "%s: Euler characteristic %d", name, m->nv - m->nf + m->ne);

    /* elements: CCW, J > 0, inverse Jacobian, map of the vertices */
    double total = 0;
    int bad_j = 0, bad_inv = 0, bad_map = 0, bad_size = 0;
    for (int e = 0; e < m->ne; e++) {
        bad_j += !(g.J[e] > 0);
        total += 2 * g.J[e];
        bad_inv += fabs(g.rx[e] * g.xr[e] + g.ry[e] * g.yr[e] - 1) > 1e-12 ||
                   fabs(g.rx[e] * g.xs[e] + g.ry[e] * g.ys[e]) > 1e-12 ||
                   fabs(g.sx[e] * g.xr[e] + g.sy[e] * g.yr[e]) > 1e-12 ||
                   fabs(g.sx[e] * g.xs[e] + g.sy[e] * g.ys[e] - 1) > 1e-12;
        static const double rv[3][2] = {{-1, -1}, {1, -1}, {-1, 1}};
        for (int k = 0; k < 3; k++) {
            double x, y;
            hdg_geom_map(m, e, rv[k][0], rv[k][1], &x, &y);
            int v = m->ev[3 * e + k];
            bad_map += fabs(x - m->vx[v]) > tol || fabs(y - m->vy[v]) > tol;
        }
        bad_size += !(g.rin[e] > 0 && g.rin[e] < g.h[e] / 2);
    }
    CHECK(bad_j == 0, "%s: %d elements with J <= 0", name, bad_j);
    CHECK(bad_inv == 0, "%s: %d elements with a wrong inverse Jacobian", name, bad_inv);
    CHECK(bad_map == 0, "%s: %d vertices not reproduced by hdg_geom_map", name, bad_map);
    CHECK(bad_size == 0, "%s: %d elements with inconsistent rin/h", name, bad_size);
    CHECK_NEAR(total, area, 1e-13 * area, "sum of element areas");

    /* element -> face links */
    int bad_link = 0, bad_canon = 0;
    for (int e = 0; e < m->ne; e++)
        for (int j = 0; j < 3; j++) {
            int f = m->ef[3 * e + j], o = m->eforient[3 * e + j];
            if (f < 0 || f >= m->nf || (o != 0 && o != 1)) {
                bad_link++;
                continue;
            }
            bad_link += m->fe[2 * f + o] != e || m->flf[2 * f + o] != j;
            int a = m->ev[3 * e + j], b = m->ev[3 * e + (j + 1) % 3];
            bad_canon += o == 0 ? (m->fv[2 * f] != a || m->fv[2 * f + 1] != b)
                                : (m->fv[2 * f] != b || m->fv[2 * f + 1] != a);
        }
    CHECK(bad_link == 0, "%s: %d bad element->face links", name, bad_link);
    CHECK(bad_canon == 0, "%s: %d faces not in canonical direction", name, bad_canon);

    /* faces: both sides agree on points, normals, sJ; boundary counts and markers */
    int nb = 0, bad_pts = 0, bad_n = 0, bad_out = 0, bad_mark = 0, bad_order = 0, bad_nbr = 0;
    double elen = 0, sjsum = 0;
    for (int f = 0; f < m->nf; f++) {
        int e0 = m->fe[2 * f], j0 = m->flf[2 * f], e1 = m->fe[2 * f + 1], j1 = m->flf[2 * f + 1];
        int a = m->fv[2 * f], b = m->fv[2 * f + 1];
        elen += hypot(m->vx[b] - m->vx[a], m->vy[b] - m->vy[a]);
        sjsum += 2 * g.sJ[3 * e0 + j0];
        bad_order += e1 >= 0 && e1 <= e0;
        /* outward, unit normal on the first side */
        double mx = (m->vx[a] + m->vx[b]) / 2, my = (m->vy[a] + m->vy[b]) / 2;
        for (int side = 0; side < (e1 >= 0 ? 2 : 1); side++) {
            int e = side ? e1 : e0, k = 3 * e + (side ? j1 : j0);
            const int *v = m->ev + 3 * e;
            double cx = (m->vx[v[0]] + m->vx[v[1]] + m->vx[v[2]]) / 3;
            double cy = (m->vy[v[0]] + m->vy[v[1]] + m->vy[v[2]]) / 3;
            bad_out += !(g.nx[k] * (mx - cx) + g.ny[k] * (my - cy) > 0);
            bad_n += fabs(hypot(g.nx[k], g.ny[k]) - 1) > 1e-14;
            bad_n += fabs(g.Fscale[k] - g.sJ[k] / g.J[e]) > 1e-14 * g.Fscale[k];
        }
        if (e1 < 0) {
            nb++;
            bad_mark += !(m->fmark[f] > 0 && m->fmark[f] <= m->nmarkers && m->marker_names[m->fmark[f]]);
            bad_mark += j1 != -1;
        } else {
            bad_mark += m->fmark[f] != 0;
            int k0 = 3 * e0 + j0, k1 = 3 * e1 + j1;
            bad_n += fabs(g.nx[k0] + g.nx[k1]) > 1e-14 || fabs(g.ny[k0] + g.ny[k1]) > 1e-14;
            bad_n += fabs(g.sJ[k0] - g.sJ[k1]) > tol;
            bad_canon += m->eforient[k0] != 0 || m->eforient[k1] != 1;
            bad_canon += m->ev[k0] != a || m->ev[3 * e1 + (j1 + 1) % 3] != a;
            /* the same physical point: t on side 0, 1 - t on side 1 */
            for (int q = 0; q <= 4; q++) {
                double t = q / 4.0 + (q == 1 ? 0.0123 : 0), r, s, x0, y0, x1, y1;
                face_point(j0, t, &r, &s);
                hdg_geom_map(m, e0, r, s, &x0, &y0);
                face_point(j1, 1 - t, &r, &s);
                hdg_geom_map(m, e1, r, s, &x1, &y1);
                bad_pts += fabs(x0 - x1) > tol || fabs(y0 - y1) > tol;
            }
        }
        /* coupling list */
        const int *nbr = m->fnbr + 5 * f, *ne = m->fnbr_elem + 5 * f, *nl = m->fnbr_lf + 5 * f;
        int valid = 0;
        for (int q = 0; q < 5; q++) {
            if (nbr[q] < 0) {
                bad_nbr += ne[q] != -1 || nl[q] != -1;
                continue;
            }
            valid++;
            bad_nbr += m->ef[3 * ne[q] + nl[q]] != nbr[q];
            bad_nbr += ne[q] != (q < 3 ? e0 : e1);
            for (int p = 0; p < q; p++) bad_nbr += nbr[p] == nbr[q];
        }
        bad_nbr += nbr[0] != f || valid != (e1 < 0 ? 3 : 5);
        if (e1 < 0) bad_nbr += nbr[3] != -1 || nbr[4] != -1;
    }
    CHECK(nb == m->nbf, "%s: %d boundary faces found, nbf = %d", name, nb, m->nbf);
    CHECK(bad_pts == 0, "%s: %d face points differ between the two sides", name, bad_pts);
    CHECK(bad_n == 0, "%s: %d normal / sJ / Fscale mismatches", name, bad_n);
    CHECK(bad_out == 0, "%s: %d normals not outward", name, bad_out);
    CHECK(bad_mark == 0, "%s: %d bad boundary markers", name, bad_mark);
    CHECK(bad_order == 0, "%s: %d faces with fe[2f+1] <= fe[2f]", name, bad_order);
    CHECK(bad_nbr == 0, "%s: %d bad coupling-list entries", name, bad_nbr);
    CHECK(bad_canon == 0, "%s: %d interior faces with wrong orientation", name, bad_canon);
    CHECK_NEAR(sjsum, elen, 1e-13 * elen, "sum of 2 sJ = total edge length");
    int sum = 0;
    for (int id = 1; id <= m->nmarkers; id++) sum += hdg_mesh_marker_count(m, id);
    CHECK(sum == m->nbf, "%s: marker counts add up to %d, nbf = %d", name, sum, m->nbf);
    hdg_geom_free(&g);
}

#endif
