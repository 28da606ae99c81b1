/* mesh_refine.c — uniform (red) refinement: every triangle into four through its edge
 * midpoints, boundary markers kept on both halves of a boundary edge, periodicity kept (a
 * periodic face gets a midpoint on each of its two copies, identified); every tetrahedron
 * into eight (refine3 below); the spec suffix ",refine=L" of hdg_mesh_load (a sequence of
 * meshes for convergence studies from any mesh, a Gmsh file included). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh/mesh.h"
#include "support/util.h"

/* ---------------------------------------------------------------- tetrahedra */

/* The geometric edges of a tetrahedral mesh, sorted (a < b), unique; with periodicity the
 * copies of an edge are distinct edges whose midpoints are identified. */
typedef struct edge { int a, b; } edge;

static int cmp_edge(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

static int collect_edges(const hdg_mesh *in, edge **out)
{
    size_t n = (size_t)6 * in->ne;
    edge *E = hdg_xmalloc(sizeof *E * (n + 1));
    for (int e = 0, k = 0; e < in->ne; e++)
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++, k++) {
                int a = in->ev[4 * e + i], b = in->ev[4 * e + j];
                E[k] = (edge){a < b ? a : b, a < b ? b : a};
            }
    qsort(E, n, sizeof *E, cmp_edge);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (!u || cmp_edge(&E[u - 1], &E[k])) E[u++] = E[k];
    *out = E;
    return (int)u;
}

/* Index of edge {a, b} in the sorted list (it is there). */
static int edge_id(const edge *E, int n, int a, int b)
{
    edge key = {a < b ? a : b, a < b ? b : a};
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cmp_edge(&E[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

typedef struct tedge { int a, b, k; } tedge; /* topological ends of edge k */

static int cmp_tedge(const void *x, const void *y)
{
    const tedge *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return (p->k > q->k) - (p->k < q->k);
}

/* Periodic meshes: the vertices keep their vtop; the midpoint of edge k is identified
 * with the midpoint of the lowest edge with the same topological ends. */
static void midpoint_vtop(const hdg_mesh *in, hdg_mesh *out, const edge *E, int n)
{
    out->vtop = hdg_xmalloc(sizeof(int) * (size_t)out->nv);
    memcpy(out->vtop, in->vtop, sizeof(int) * (size_t)in->nv);
    tedge *T = hdg_xmalloc(sizeof *T * ((size_t)n + 1));
    for (int k = 0; k < n; k++) {
        int a = in->vtop[E[k].a], b = in->vtop[E[k].b];
        T[k] = (tedge){a < b ? a : b, a < b ? b : a, k};
    }
    qsort(T, (size_t)n, sizeof *T, cmp_tedge);
    for (int k = 0, first = 0; k < n; k++) {
        if (k && (T[k].a != T[k - 1].a || T[k].b != T[k - 1].b)) first = k;
        out->vtop[in->nv + T[k].k] = in->nv + T[first].k;
    }
    free(T);
}

/* 6 times the signed volume of (a, b, c, d). */
static double vol6(const hdg_mesh *m, int a, int b, int c, int d)
{
    double u[3] = {m->vx[b] - m->vx[a], m->vy[b] - m->vy[a], m->vz[b] - m->vz[a]};
    double w[3] = {m->vx[c] - m->vx[a], m->vy[c] - m->vy[a], m->vz[c] - m->vz[a]};
    double t[3] = {m->vx[d] - m->vx[a], m->vy[d] - m->vy[a], m->vz[d] - m->vz[a]};
    return u[0] * (w[1] * t[2] - w[2] * t[1]) - u[1] * (w[0] * t[2] - w[2] * t[0]) + u[2] * (w[0] * t[1] - w[1] * t[0]);
}

static const int diag[3][2][2] = {{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}, {{0, 3}, {1, 2}}};
static const int ring[3][4][2] = {{{0, 2}, {1, 2}, {1, 3}, {0, 3}},
                                  {{0, 1}, {1, 2}, {2, 3}, {0, 3}},
                                  {{0, 1}, {1, 3}, {2, 3}, {0, 2}}};

/* A scale-free shape measure of (a, b, c, d): |6 volume| / (sum of squared edge
 * lengths)^(3/2); 0 for a flat tetrahedron, largest for the regular one. */
static double shape(const hdg_mesh *m, const int *k)
{
    double s2 = 0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            double dx = m->vx[k[j]] - m->vx[k[i]], dy = m->vy[k[j]] - m->vy[k[i]], dz = m->vz[k[j]] - m->vz[k[i]];
            s2 += dx * dx + dy * dy + dz * dz;
        }
    return fabs(vol6(m, k[0], k[1], k[2], k[3])) / (s2 * sqrt(s2));
}

/* The 4 tetrahedra of the inner octahedron cut along diagonal d (midpoints M). */
static void octahedron(const int M[4][4], int d, int kids[4][4])
{
    int p = M[diag[d][0][0]][diag[d][0][1]], q = M[diag[d][1][0]][diag[d][1][1]];
    for (int i = 0; i < 4; i++) {
        const int *c0 = ring[d][i], *c1 = ring[d][(i + 1) % 4];
        kids[i][0] = p, kids[i][1] = q, kids[i][2] = M[c0[0]][c0[1]], kids[i][3] = M[c1[0]][c1[1]];
    }
}

/* The inner octahedron has three diagonals, joining the midpoints of opposite edges
 * (01, 23), (02, 13), (03, 12). The one whose 4 tetrahedra have the best worst shape
 * is taken (the first on a tie): a rule of the geometry alone, not of the vertex
 * order, so the shapes do not degrade (Kuhn tetrahedra have Kuhn children). */
static int best_diagonal(const hdg_mesh *out, const int M[4][4])
{
    int best = 0;
    double qbest = -1;
    for (int d = 0; d < 3; d++) {
        int kids[4][4];
        octahedron(M, d, kids);
        double q = INFINITY;
        for (int i = 0; i < 4; i++) q = fmin(q, shape(out, kids[i]));
        if (q > qbest * (1 + 1e-12)) qbest = q, best = d;
    }
    return best;
}

/* The 8 children of element e: 4 corners and the inner octahedron cut along the
 * diagonal, listed positively (vertices 1 and 2 swapped where needed). */
static void children(const hdg_mesh *in, hdg_mesh *out, int e, const edge *E, int n)
{
    const int *v = in->ev + 4 * e;
    int M[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) M[i][j] = i == j ? v[i] : in->nv + edge_id(E, n, v[i], v[j]);
    int kids[8][4] = {{v[0], M[0][1], M[0][2], M[0][3]}, {M[0][1], v[1], M[1][2], M[1][3]},
                      {M[0][2], M[1][2], v[2], M[2][3]}, {M[0][3], M[1][3], M[2][3], v[3]}};
    octahedron(M, best_diagonal(out, M), kids + 4); /* the midpoints' coordinates are in out */
    for (int c = 0; c < 8; c++) {
        int *k = kids[c];
        if (vol6(out, k[0], k[1], k[2], k[3]) < 0) {
            int t = k[1];
            k[1] = k[2], k[2] = t;
        }
        memcpy(out->ev + 4 * (8 * (size_t)e + c), k, sizeof kids[c]);
    }
}

/* Each boundary triangle (a, b, c) into 4, with its marker. */
static void child_tags(const hdg_mesh *in, hdg_mesh *out, const edge *E, int n)
{
    out->ntag = 4 * in->nbf;
    out->tag = hdg_xmalloc(sizeof(int) * 5 * (size_t)(out->ntag + 1));
    int t = 0;
    for (int f = 0; f < in->nf; f++) {
        if (in->fe[2 * f + 1] >= 0) continue;
        const int *w = in->fv + 3 * f;
        int id = in->fmark[f], mab = in->nv + edge_id(E, n, w[0], w[1]);
        int mbc = in->nv + edge_id(E, n, w[1], w[2]), mca = in->nv + edge_id(E, n, w[2], w[0]);
        int q[4][5] = {{w[0], mab, mca, id, 0}, {mab, w[1], mbc, id, 0}, {mca, mbc, w[2], id, 0}, {mab, mbc, mca, id, 0}};
        memcpy(out->tag + 5 * (size_t)t, q, sizeof q);
        t += 4;
    }
}

/* Every tetrahedron into 8 through its edge midpoints (vertex nv + k is the midpoint of
 * the k-th geometric edge in (a, b) order; element e's children are 8e..8e+7). */
static hdg_status refine3(const hdg_mesh *in, hdg_mesh *out, hdg_error *err)
{
    edge *E;
    int n = collect_edges(in, &E);
    if ((double)in->ne * 8 > 2e9 || (double)in->nv + n > 2e9) {
        free(E);
        return hdg_fail(err, HDG_EINPUT, "refining %s: %d elements would become more than 2e9",
                        in->source ? in->source : "the mesh", in->ne);
    }
    out->dim = 3, out->nv = in->nv + n, out->ne = 8 * in->ne;
    double **x[3] = {&out->vx, &out->vy, &out->vz};
    const double *xi[3] = {in->vx, in->vy, in->vz};
    for (int a = 0; a < 3; a++) {
        *x[a] = hdg_xmalloc(sizeof(double) * (size_t)out->nv);
        memcpy(*x[a], xi[a], sizeof(double) * (size_t)in->nv);
        for (int k = 0; k < n; k++) (*x[a])[in->nv + k] = 0.5 * (xi[a][E[k].a] + xi[a][E[k].b]);
    }
    if (in->vtop) midpoint_vtop(in, out, E, n);
    out->ev = hdg_xmalloc(sizeof(int) * 4 * (size_t)out->ne);
    for (int e = 0; e < in->ne; e++) children(in, out, e, E, n);
    child_tags(in, out, E, n);
    free(E);
    return HDG_OK;
}

/* Marker names, periodicity, source; then the topology. */
static hdg_status finish(const hdg_mesh *in, hdg_mesh *out, hdg_error *err)
{
    for (int id = 1; id <= in->nmarkers; id++)
        if (in->marker_names[id]) hdg_mesh_set_marker_name(out, id, in->marker_names[id]);
    if (in->periodic) out->periodic = hdg_xstrdup(in->periodic);
    char *src = hdg_xmalloc(strlen(in->source ? in->source : "mesh") + 16);
    sprintf(src, "%s (refined)", in->source ? in->source : "mesh");
    out->source = src;
    hdg_status st = hdg_mesh_build_topology(out, err);
    if (st) hdg_mesh_free(out);
    return st;
}

/* ---------------------------------------------------------------- triangles */

hdg_status hdg_mesh_refine(const hdg_mesh *in, hdg_mesh *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if (hdg_mesh_dim(in) == 3) {
        hdg_status st = refine3(in, out, err);
        if (st) hdg_mesh_free(out);
        return st ? st : finish(in, out, err);
    }
    if ((double)in->ne * 4 > 2e9 || (double)in->nv + in->nf > 2e9)
        return hdg_fail(err, HDG_EINPUT, "refining %s: %d elements would become more than 2e9", in->source ? in->source : "the mesh", in->ne);
    int nv = in->nv + in->nf + in->nperiodic, ne = 4 * in->ne;
    out->nv = nv, out->ne = ne;
    out->vx = hdg_xmalloc(sizeof(double) * (size_t)nv);
    out->vy = hdg_xmalloc(sizeof(double) * (size_t)nv);
    int *mid2 = in->nperiodic ? hdg_xmalloc(sizeof(int) * (size_t)in->nf) : NULL;   /* second copy's midpoint */
    if (in->vtop) {
        out->vtop = hdg_xmalloc(sizeof(int) * (size_t)nv);
        memcpy(out->vtop, in->vtop, sizeof(int) * (size_t)in->nv);
        for (int v = in->nv; v < nv; v++) out->vtop[v] = v;
    }
    memcpy(out->vx, in->vx, sizeof(double) * (size_t)in->nv);
    memcpy(out->vy, in->vy, sizeof(double) * (size_t)in->nv);
    for (int f = 0; f < in->nf; f++) {   /* midpoint of face f: vertex nv_in + f */
        int a = in->fv[2 * f], b = in->fv[2 * f + 1];
        out->vx[in->nv + f] = 0.5 * (in->vx[a] + in->vx[b]);
        out->vy[in->nv + f] = 0.5 * (in->vy[a] + in->vy[b]);
    }
    for (int f = 0, v = in->nv + in->nf; mid2 && f < in->nf; f++) {
        mid2[f] = in->nv + f;
        if (!hdg_mesh_face_periodic(in, f)) continue;
        int e = in->fe[2 * f + 1], j = in->flf[2 * f + 1], a = in->ev[3 * e + j], b = in->ev[3 * e + (j + 1) % 3];
        out->vx[v] = 0.5 * (in->vx[a] + in->vx[b]), out->vy[v] = 0.5 * (in->vy[a] + in->vy[b]);
        if (out->vtop) out->vtop[v] = in->nv + f;
        mid2[f] = v++;
    }
    out->ev = hdg_xmalloc(sizeof(int) * 3 * (size_t)ne);
    for (int e = 0; e < in->ne; e++) {   /* local face j joins vertex j to j+1 */
        const int *v = in->ev + 3 * e;
        int m[3];
        for (int j = 0; j < 3; j++) {
            int f = in->ef[3 * e + j];
            m[j] = mid2 && !(in->fe[2 * f] == e && in->flf[2 * f] == j) ? mid2[f] : in->nv + f;
        }
        int m0 = m[0], m1 = m[1], m2 = m[2];
        int kids[4][3] = {{v[0], m0, m2}, {m0, v[1], m1}, {m2, m1, v[2]}, {m0, m1, m2}};
        memcpy(out->ev + 12 * (size_t)e, kids, sizeof kids);
    }
    out->ntag = 2 * in->nbf;
    out->tag = hdg_xmalloc(sizeof(int) * 4 * (size_t)(out->ntag + 1));
    int t = 0;
    for (int f = 0; f < in->nf; f++) {
        if (in->fe[2 * f + 1] >= 0) continue;
        int a = in->fv[2 * f], b = in->fv[2 * f + 1], m = in->nv + f, id = in->fmark[f];
        int halves[2][4] = {{a, m, id, 0}, {m, b, id, 0}};
        memcpy(out->tag + 4 * (size_t)t, halves, sizeof halves);
        t += 2;
    }
    free(mid2);
    return finish(in, out, err);
}

/* ",refine=L" at the end of spec: L (0..10) and the length of the spec before it;
 * -1 for no suffix, -2 for a bad L, -3 when options follow it. */
int hdg_mesh_spec_refine(const char *spec, size_t *base_len)
{
    const char *r = NULL;
    for (const char *p = spec; (p = strstr(p, ",refine=")) != NULL; p++) r = p;
    *base_len = strlen(spec);
    if (!r) return -1;
    long L;
    *base_len = (size_t)(r - spec);
    if (strchr(r + 8, ',')) return -3;   /* an option after it */
    return hdg_parse_long(r + 8, 0, 10, &L) ? (int)L : -2;
}
