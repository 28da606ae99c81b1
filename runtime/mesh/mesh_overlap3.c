/* mesh_overlap3.c — tetrahedra that overlap without sharing a face (pieces laid over
 * each other, a fold that meets only at edges or vertices) pass the face pairing.
 * As in 2D (mesh.c), the number of tetrahedra covering a point is the winding number
 * of the geometric boundary surface about it (interior faces cancel in pairs), and a
 * point just inside each boundary face (its centroid moved 1e-6 of the way to the
 * element's opposite vertex) must be covered once: a ray from it crosses the
 * boundary triangles, each counted +1 leaving (outward normal along the ray) and -1
 * entering. The ray runs along x' of a fixed generic rotation of the coordinates (so
 * that no mesh plane or edge is aligned with it), the triangles sit in a uniform grid
 * over (y', z'), and a point found covered twice is checked again with a second
 * rotation before the mesh is refused (a ray grazing an edge cannot refuse a valid
 * mesh). Unlike 2D, boundary triangles that cross each other are not searched for:
 * an overlap that holds no point near a boundary face's centroid passes. */
#include "runtime/mesh/mesh_overlap3.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/util.h"

typedef struct rgrid {
    double R[3][3];       /* rotation: x' = R x */
    double *X;            /* 3 nv rotated coordinates */
    double u0, v0, c;     /* grid over (y', z'): lower corner and cell size */
    int nu, nv;
    int *start, *item;    /* CSR: cell -> boundary faces */
} rgrid;

static void rotation(double R[3][3], double a, double b, double g)
{
    double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cg = cos(g), sg = sin(g);
    double M[3][3] = {{ca * cb, ca * sb * sg - sa * cg, ca * sb * cg + sa * sg},
                      {sa * cb, sa * sb * sg + ca * cg, sa * sb * cg - ca * sg},
                      {-sb, cb * sg, cb * cg}};
    memcpy(R, M, sizeof M);
}

static void rotate(const rgrid *g, const double *x, double *y)
{
    for (int i = 0; i < 3; i++) y[i] = g->R[i][0] * x[0] + g->R[i][1] * x[1] + g->R[i][2] * x[2];
}

static int cell(const rgrid *g, double t, int axis)
{
    double i = floor((t - (axis ? g->v0 : g->u0)) / g->c);
    int n = axis ? g->nv : g->nu;
    return !(i >= 0) ? 0 : i >= n ? n - 1 : (int)i;
}

/* Cells of face i's projected bounding box: count (fill NULL) or fill. */
static void grid_pass(rgrid *g, int nb, const int *bf, int *count, int *fill)
{
    for (int i = 0; i < nb; i++) {
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 2; a++) {
                double t = g->X[3 * bf[5 * i + k] + 1 + a];
                lo[a] = fmin(lo[a], t), hi[a] = fmax(hi[a], t);
            }
        for (int iv = cell(g, lo[1], 1); iv <= cell(g, hi[1], 1); iv++)
            for (int iu = cell(g, lo[0], 0); iu <= cell(g, hi[0], 0); iu++) {
                size_t c = (size_t)iv * g->nu + iu;
                if (fill) g->item[fill[c]++] = i;
                else count[c + 1]++;
            }
    }
}

static void grid_build(rgrid *g, const hdg_mesh *m, int nb, const int *bf, double a, double b, double c)
{
    rotation(g->R, a, b, c);
    g->X = hdg_xmalloc(sizeof(double) * 3 * (size_t)m->nv);
    for (int v = 0; v < m->nv; v++) {
        double x[3] = {m->vx[v], m->vy[v], m->vz[v]};
        rotate(g, x, g->X + 3 * v);
    }
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i < 3 * nb; i++) {
        int v = bf[5 * (i / 3) + i % 3];
        for (int k = 0; k < 2; k++) lo[k] = fmin(lo[k], g->X[3 * v + 1 + k]), hi[k] = fmax(hi[k], g->X[3 * v + 1 + k]);
    }
    double w = hi[0] - lo[0], h = hi[1] - lo[1], n = (double)nb + 1;
    g->c = sqrt(w * h / n);
    if (!(g->c > 0) || !isfinite(g->c)) g->c = fmax(fmax(w, h) / n, DBL_MIN);
    g->u0 = lo[0], g->v0 = lo[1];
    g->nu = w / g->c < 2 * n ? (int)(w / g->c) + 1 : 1;
    g->nv = h / g->c < 2 * n && (double)g->nu * (h / g->c + 1) <= 4 * n + 16 ? (int)(h / g->c) + 1 : 1;
    size_t ncell = (size_t)g->nu * g->nv;
    g->start = hdg_xcalloc(ncell + 1, sizeof(int));
    grid_pass(g, nb, bf, g->start, NULL);
    for (size_t i = 0; i < ncell; i++) g->start[i + 1] += g->start[i];
    g->item = hdg_xmalloc(sizeof(int) * ((size_t)g->start[ncell] + 1));
    int *fill = hdg_xmalloc(sizeof(int) * (ncell + 1));
    memcpy(fill, g->start, sizeof(int) * ncell);
    grid_pass(g, nb, bf, NULL, fill);
    free(fill);
}

static void grid_free(rgrid *g) { free(g->X), free(g->start), free(g->item); }

/* (b - a) x (p - a) in the (y', z') plane. */
static double orient2(const double *a, const double *b, const double *p)
{
    return (b[1] - a[1]) * (p[2] - a[2]) - (b[2] - a[2]) * (p[1] - a[1]);
}

/* Winding number of the boundary about the rotated point p (a ray along +x'). */
static int winding(const rgrid *g, const int *bf, const double *p)
{
    size_t c = (size_t)cell(g, p[2], 1) * g->nu + cell(g, p[1], 0);
    int w = 0;
    for (int t = g->start[c]; t < g->start[c + 1]; t++) {
        const int *f = bf + 5 * g->item[t];
        const double *a = g->X + 3 * f[0], *b = g->X + 3 * f[1], *q = g->X + 3 * f[2];
        double area = orient2(a, b, q);
        if (area == 0) continue; /* seen edge-on: the ray runs beside it */
        double la = orient2(b, q, p) / area, lb = orient2(q, a, p) / area, lc = orient2(a, b, p) / area;
        if (!(la > 0 && lb > 0 && lc > 0)) continue;
        if (la * a[0] + lb * b[0] + lc * q[0] > p[0]) w += area > 0 ? 1 : -1;
    }
    return w;
}

/* The point just inside boundary face i, rotated. */
static void inside_point(const rgrid *g, const hdg_mesh *m, const int *f, double *p)
{
    double x[3], o[3] = {m->vx[f[4]], m->vy[f[4]], m->vz[f[4]]};
    for (int k = 0; k < 3; k++) {
        double c = 0;
        for (int i = 0; i < 3; i++) c += k == 0 ? m->vx[f[i]] : k == 1 ? m->vy[f[i]] : m->vz[f[i]];
        c /= 3;
        x[k] = c + 1e-6 * (o[k] - c);
    }
    rotate(g, x, p);
}

/* Some element other than e holding x (a linear search, for the message); -1 if none. */
static int other_cover(const hdg_mesh *m, int e, const double *x)
{
    for (int f = 0; f < m->ne; f++) {
        if (f == e) continue;
        const int *v = m->ev + 4 * f;
        double J[3][3], r[3] = {x[0] - m->vx[v[0]], x[1] - m->vy[v[0]], x[2] - m->vz[v[0]]};
        for (int k = 0; k < 3; k++)
            J[0][k] = m->vx[v[k + 1]] - m->vx[v[0]], J[1][k] = m->vy[v[k + 1]] - m->vy[v[0]],
            J[2][k] = m->vz[v[k + 1]] - m->vz[v[0]];
        double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                     J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
        double l[3];
        for (int k = 0; k < 3; k++) { /* Cramer */
            double A[3][3];
            memcpy(A, J, sizeof A);
            for (int i = 0; i < 3; i++) A[i][k] = r[i];
            l[k] = (A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                    A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0])) / det;
        }
        if (l[0] > 0 && l[1] > 0 && l[2] > 0 && l[0] + l[1] + l[2] < 1) return f;
    }
    return -1;
}

static hdg_status overlap_fail(const hdg_mesh *m, const int *f, hdg_error *err)
{
    int e = f[3];
    double x[3];
    for (int k = 0; k < 3; k++) {
        double c = 0, o = k == 0 ? m->vx[f[4]] : k == 1 ? m->vy[f[4]] : m->vz[f[4]];
        for (int i = 0; i < 3; i++) c += k == 0 ? m->vx[f[i]] : k == 1 ? m->vy[f[i]] : m->vz[f[i]];
        c /= 3;
        x[k] = c + 1e-6 * (o - c);
    }
    int g = other_cover(m, e, x);
    char loc[1200] = "", other[48] = "another element", lines[64] = "";
    if (m->eline && m->source) snprintf(loc, sizeof loc, "%s:%d: ", m->source, m->eline[e]);
    if (g >= 0) snprintf(other, sizeof other, "element %d", g);
    if (g >= 0 && m->eline && m->source) snprintf(lines, sizeof lines, " (lines %d and %d)", m->eline[e], m->eline[g]);
    return hdg_fail(err, HDG_EINPUT,
                    "%soverlapping tetrahedra: element %d and %s%s cover a common volume near (%.6g, %.6g, %.6g) "
                    "without sharing a face (pieces laid over each other, or a folded mesh)",
                    loc, e, other, lines, x[0], x[1], x[2]);
}

hdg_status hdg_mesh_overlap3(const hdg_mesh *m, int nb, const int *bf, hdg_error *err)
{
    if (nb == 0) return HDG_OK;
    rgrid g1, g2;
    int have2 = 0;
    hdg_status st = HDG_OK;
    grid_build(&g1, m, nb, bf, 0.3141592653589793, 0.2718281828459045, 0.1414213562373095);
    for (int i = 0; i < nb && !st; i++) {
        double p[3];
        inside_point(&g1, m, bf + 5 * i, p);
        if (winding(&g1, bf, p) == 1) continue;
        if (!have2) grid_build(&g2, m, nb, bf, -0.5772156649015329, 0.6931471805599453, -0.3819660112501051), have2 = 1;
        inside_point(&g2, m, bf + 5 * i, p);
        if (winding(&g2, bf, p) != 1) st = overlap_fail(m, bf + 5 * i, err);
    }
    grid_free(&g1);
    if (have2) grid_free(&g2);
    return st;
}
