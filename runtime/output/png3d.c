/* png3d.c — flat triangles of a field on tetrahedra for png.c: a plane
 * section and the boundary surface seen from an angle (png3d.h). Every
 * triangle is known by the barycentric weights of its corners in its
 * tetrahedron, so the sub-triangles' centroids are sampled at exact
 * reference coordinates. */
#include "runtime/output/png3d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/output/png.h"
#include "support/util.h"

#define PNG3D_PI 3.14159265358979323846

void hdg_png_flat_free(hdg_png_flat *f)
{
    free(f->vxy), free(f->vals), free(f->elem);
    memset(f, 0, sizeof *f);
}

/* ---- flat triangles, built one by one --------------------------------------------- */

typedef struct builder {
    const hdg_png_tets *T;
    hdg_png_flat *out;
    int cap;
    double *cr, *cs;            /* the m^2 centroids on the reference triangle */
    double *x[3];               /* their reference coordinates in the tetrahedron */
} builder;

static void builder_init(builder *b, const hdg_png_tets *T, int m, hdg_png_flat *out)
{
    memset(out, 0, sizeof *out);
    memset(b, 0, sizeof *b);
    b->T = T, b->out = out;
    out->m = m;
    int n = m * m;
    b->cr = hdg_xmalloc(sizeof(double) * 2 * (size_t)n), b->cs = b->cr + n;
    hdg_png_centroids(m, b->cr, b->cs);
    b->x[0] = hdg_xmalloc(sizeof(double) * 3 * (size_t)n), b->x[1] = b->x[0] + n, b->x[2] = b->x[0] + 2 * n;
}

static void builder_free(builder *b)
{
    free(b->cr), free(b->x[0]);
}

/* A triangle of element e with corners at the barycentric weights lam[3][4]
 * and plane coordinates xy[3][2]: its corners and its samples appended. */
static void add_triangle(builder *b, int e, const double lam[3][4], const double xy[3][2])
{
    hdg_png_flat *o = b->out;
    int n = o->m * o->m;
    if (o->ne == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        o->vxy = hdg_xrealloc(o->vxy, sizeof(double) * 6 * (size_t)b->cap);
        o->vals = hdg_xrealloc(o->vals, sizeof(double) * (size_t)n * b->cap);
        o->elem = hdg_xrealloc(o->elem, sizeof(int) * (size_t)b->cap);
    }
    for (int q = 0; q < n; q++) {   /* png.h: x = -(r+s)/2 x0 + (1+r)/2 x1 + (1+s)/2 x2 */
        double w[3] = {-(b->cr[q] + b->cs[q]) / 2, (1 + b->cr[q]) / 2, (1 + b->cs[q]) / 2};
        for (int d = 0; d < 3; d++)
            b->x[d][q] = 2 * (w[0] * lam[0][d + 1] + w[1] * lam[1][d + 1] + w[2] * lam[2][d + 1]) - 1;
    }
    b->T->sample(b->T->ctx, e, n, (const double *const *)b->x, o->vals + (size_t)o->ne * n);
    for (int k = 0; k < 3; k++) o->vxy[6 * o->ne + 2 * k] = xy[k][0], o->vxy[6 * o->ne + 2 * k + 1] = xy[k][1];
    o->elem[o->ne++] = e;
}

static hdg_status check_tets(const hdg_png_tets *T, int m, hdg_error *err)
{
    if (T->ne < 1 || !T->vxyz || !T->sample) return hdg_fail(err, HDG_EINPUT, "png: no tetrahedra or no sampler");
    if (m < 1) return hdg_fail(err, HDG_EINPUT, "png: %d sub-triangles a side (at least 1)", m);
    for (long long k = 0; k < 12LL * T->ne; k++)
        if (!isfinite(T->vxyz[k])) return hdg_fail(err, HDG_EINPUT, "png: element %lld: non-finite vertex", k / 12);
    return HDG_OK;
}

/* ---- the plane section ------------------------------------------------------------ */

/* The cut of tetrahedron v (12 coordinates) by x_axis = at: up to 4 points,
 * as barycentric weights lam and points p; returns how many. */
static int cut_points(const double *v, int axis, double at, double lam[4][4], double p[4][3])
{
    static const int EDGE[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    double s[4];
    int n = 0;
    for (int i = 0; i < 4; i++) s[i] = v[3 * i + axis] - at;
    for (int i = 0; i < 4; i++)
        if (s[i] == 0) {
            memset(lam[n], 0, sizeof lam[n]);
            lam[n][i] = 1;
            memcpy(p[n++], v + 3 * i, 3 * sizeof(double));
        }
    for (int k = 0; k < 6; k++) {
        int a = EDGE[k][0], b = EDGE[k][1];
        if (!((s[a] < 0 && s[b] > 0) || (s[a] > 0 && s[b] < 0))) continue;
        double t = s[a] / (s[a] - s[b]);
        memset(lam[n], 0, sizeof lam[n]);
        lam[n][a] = 1 - t, lam[n][b] = t;
        for (int d = 0; d < 3; d++) p[n][d] = (1 - t) * v[3 * a + d] + t * v[3 * b + d];
        p[n++][axis] = at;
    }
    return n;
}

/* The plane coordinates of the section x_axis = const. */
static void plane_xy(int axis, const double *p, double xy[2])
{
    xy[0] = p[axis == 0 ? 1 : 0];
    xy[1] = p[axis == 2 ? 1 : 2];
}

/* A quadrilateral's 4 points in order around it (by angle about their mean). */
static void order_around(double xy[4][2], int idx[4])
{
    double cx = 0, cy = 0, ang[4];
    for (int k = 0; k < 4; k++) cx += xy[k][0] / 4, cy += xy[k][1] / 4;
    for (int k = 0; k < 4; k++) idx[k] = k, ang[k] = atan2(xy[k][1] - cy, xy[k][0] - cx);
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && ang[idx[j]] < ang[idx[j - 1]]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
}

static void add_polygon(builder *b, int e, int n, double lam[4][4], double p[4][3], int axis)
{
    double xy[4][2], L[3][4], X[3][2];
    int idx[4] = {0, 1, 2, 3};
    for (int k = 0; k < n; k++) plane_xy(axis, p[k], xy[k]);
    if (n == 4) order_around(xy, idx);
    for (int t = 0; t + 2 < n; t++) {   /* the fan (0, t+1, t+2) */
        int c[3] = {idx[0], idx[t + 1], idx[t + 2]};
        for (int k = 0; k < 3; k++) memcpy(L[k], lam[c[k]], sizeof L[k]), memcpy(X[k], xy[c[k]], sizeof X[k]);
        add_triangle(b, e, (const double(*)[4])L, (const double(*)[2])X);
    }
}

hdg_status hdg_png_slice(const hdg_png_tets *T, int axis, double at, int m, hdg_png_flat *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    hdg_status st = check_tets(T, m, err);
    if (st) return st;
    if (axis < 0 || axis > 2 || !isfinite(at))
        return hdg_fail(err, HDG_EINPUT, "png: no plane to cut (axis %d at %g)", axis, at);
    builder b;
    builder_init(&b, T, m, out);
    double lo = INFINITY, hi = -INFINITY;
    for (int e = 0; e < T->ne; e++) {
        const double *v = T->vxyz + 12 * (size_t)e;
        double lam[4][4], p[4][3];
        for (int i = 0; i < 4; i++) lo = fmin(lo, v[3 * i + axis]), hi = fmax(hi, v[3 * i + axis]);
        int n = cut_points(v, axis, at, lam, p);
        if (n >= 3) add_polygon(&b, e, n, lam, p, axis);
    }
    builder_free(&b);
    if (out->ne == 0) {
        hdg_png_flat_free(out);
        return hdg_fail(err, HDG_EINPUT, "png: the plane %c = %g does not cut the mesh (%c from %g to %g)", "xyz"[axis],
                        at, "xyz"[axis], lo, hi);
    }
    return HDG_OK;
}

/* ---- the boundary surface ---------------------------------------------------------- */

void hdg_png_view_point(double azimuth, double elevation, const double p[3], double *right, double *up,
                        double *depth)
{
    double az = azimuth * PNG3D_PI / 180, el = elevation * PNG3D_PI / 180;
    double d[3] = {cos(el) * sin(az), -cos(el) * cos(az), sin(el)};
    double r[3] = {cos(az), sin(az), 0}, u[3] = {-sin(el) * sin(az), sin(el) * cos(az), cos(el)};
    *right = r[0] * p[0] + r[1] * p[1] + r[2] * p[2];
    *up = u[0] * p[0] + u[1] * p[1] + u[2] * p[2];
    *depth = d[0] * p[0] + d[1] * p[1] + d[2] * p[2];
}

/* A face of a tetrahedron: element e, opposite vertex j, its three vertices'
 * coordinates sorted (the key two tetrahedra sharing it agree on). */
typedef struct face_key {
    double c[9];
    int e, j;
} face_key;

static int cmp_point(const double *a, const double *b)
{
    for (int d = 0; d < 3; d++)
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    return 0;
}

static int cmp_key(const void *pa, const void *pb)
{
    const face_key *a = pa, *b = pb;
    for (int k = 0; k < 3; k++) {
        int c = cmp_point(a->c + 3 * k, b->c + 3 * k);
        if (c) return c;
    }
    return a->e != b->e ? (a->e < b->e ? -1 : 1) : a->j - b->j;
}

static void make_key(const double *v, int e, int j, face_key *f)
{
    const double *p[3];
    for (int i = 0, n = 0; i < 4; i++)
        if (i != j) p[n++] = v + 3 * i;
    for (int i = 1; i < 3; i++)   /* sort the 3 points */
        for (int k = i; k > 0 && cmp_point(p[k], p[k - 1]) < 0; k--) {
            const double *t = p[k];
            p[k] = p[k - 1], p[k - 1] = t;
        }
    for (int i = 0; i < 3; i++) memcpy(f->c + 3 * i, p[i], 3 * sizeof(double));
    f->e = e, f->j = j;
}

static int same_face(const face_key *a, const face_key *b)
{
    for (int k = 0; k < 9; k++)
        if (a->c[k] != b->c[k]) return 0;
    return 1;
}

/* A visible boundary face, with its depth for the painter. */
typedef struct shown {
    double depth;
    int e, j;
} shown;

static int cmp_shown(const void *pa, const void *pb)
{
    const shown *a = pa, *b = pb;
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return a->e != b->e ? (a->e < b->e ? -1 : 1) : a->j - b->j;
}

/* Whether face j of tetrahedron v (opposite vertex j) faces the viewer; its
 * centroid's depth. */
static int faces_viewer(const double *v, int j, const double d[3], double *depth)
{
    int w[3];
    for (int i = 0, n = 0; i < 4; i++)
        if (i != j) w[n++] = i;
    double a[3], b[3], o[3], nrm[3], c[3];
    for (int k = 0; k < 3; k++) {
        a[k] = v[3 * w[1] + k] - v[3 * w[0] + k], b[k] = v[3 * w[2] + k] - v[3 * w[0] + k];
        o[k] = v[3 * j + k] - v[3 * w[0] + k];
        c[k] = (v[3 * w[0] + k] + v[3 * w[1] + k] + v[3 * w[2] + k]) / 3;
    }
    nrm[0] = a[1] * b[2] - a[2] * b[1], nrm[1] = a[2] * b[0] - a[0] * b[2], nrm[2] = a[0] * b[1] - a[1] * b[0];
    double out = nrm[0] * o[0] + nrm[1] * o[1] + nrm[2] * o[2];   /* > 0: nrm points inward */
    double toward = (nrm[0] * d[0] + nrm[1] * d[1] + nrm[2] * d[2]) * (out > 0 ? -1 : 1);
    *depth = d[0] * c[0] + d[1] * c[1] + d[2] * c[2];
    return toward > 0;
}

/* The boundary faces that face the viewer, far to near; returns how many. */
static int visible_faces(const hdg_png_tets *T, const double d[3], shown **list)
{
    size_t nf = 4 * (size_t)T->ne;
    face_key *key = hdg_xmalloc(sizeof *key * nf);
    for (int e = 0; e < T->ne; e++)
        for (int j = 0; j < 4; j++) make_key(T->vxyz + 12 * (size_t)e, e, j, &key[4 * (size_t)e + j]);
    qsort(key, nf, sizeof *key, cmp_key);
    shown *s = hdg_xmalloc(sizeof *s * nf);
    int n = 0;
    for (size_t i = 0; i < nf;) {
        size_t k = i + 1;
        while (k < nf && same_face(&key[i], &key[k])) k++;
        double depth;
        if (k == i + 1 && faces_viewer(T->vxyz + 12 * (size_t)key[i].e, key[i].j, d, &depth))
            s[n++] = (shown){depth, key[i].e, key[i].j};
        i = k;
    }
    free(key);
    qsort(s, (size_t)n, sizeof *s, cmp_shown);
    *list = s;
    return n;
}

hdg_status hdg_png_surface(const hdg_png_tets *T, double azimuth, double elevation, int m, hdg_png_flat *out,
                           hdg_error *err)
{
    memset(out, 0, sizeof *out);
    hdg_status st = check_tets(T, m, err);
    if (st) return st;
    if (!isfinite(azimuth) || !isfinite(elevation))
        return hdg_fail(err, HDG_EINPUT, "png: view direction not finite");
    double az = azimuth * PNG3D_PI / 180, el = elevation * PNG3D_PI / 180;
    double d[3] = {cos(el) * sin(az), -cos(el) * cos(az), sin(el)};
    shown *list;
    int n = visible_faces(T, d, &list);
    builder b;
    builder_init(&b, T, m, out);
    for (int f = 0; f < n; f++) {
        const double *v = T->vxyz + 12 * (size_t)list[f].e;
        double L[3][4], X[3][2];
        for (int i = 0, k = 0; i < 4; i++) {
            if (i == list[f].j) continue;
            double depth;
            memset(L[k], 0, sizeof L[k]);
            L[k][i] = 1;
            hdg_png_view_point(azimuth, elevation, v + 3 * i, &X[k][0], &X[k][1], &depth);
            k++;
        }
        add_triangle(&b, list[f].e, (const double(*)[4])L, (const double(*)[2])X);
    }
    builder_free(&b);
    free(list);
    if (out->ne == 0) {
        hdg_png_flat_free(out);
        return hdg_fail(err, HDG_EINPUT, "png: no boundary face faces the viewer");
    }
    return HDG_OK;
}
