/* mesh.c — the structured generator square:N, the mesh spec parser, and the
 * topology builder + validator shared by every mesh source (see mesh.h). */
#include "runtime/mesh/mesh.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/util.h"

#define MAX_ELEMENTS (INT_MAX / 16) /* 5 nf and 3 ne stay far below INT_MAX */
#define SQUARE_MAX_N 8000           /* 2N^2 <= MAX_ELEMENTS */
#define DEGENERATE_TOL 1e-14 /* |area| <= tol * h^2 is a degenerate triangle */

/* ---------------------------------------------------------------- helpers */

void hdg_mesh_free(hdg_mesh *m)
{
    if (!m) return;
    free(m->vx), free(m->vy), free(m->vz), free(m->ev), free(m->ef), free(m->eforient);
    free(m->fv), free(m->fe), free(m->flf), free(m->fmark);
    free(m->fnbr), free(m->fnbr_elem), free(m->fnbr_lf);
    if (m->marker_names)
        for (int i = 0; i <= m->nmarkers; i++) free(m->marker_names[i]);
    free(m->marker_names), free(m->source);
    free(m->vtag), free(m->eline), free(m->tag);
    free(m->vtop), free(m->ftv), free(m->periodic);
    memset(m, 0, sizeof *m);
}

void hdg_mesh_set_marker_name(hdg_mesh *m, int id, const char *name)
{
    if (id > m->nmarkers || !m->marker_names) {
        int old = m->marker_names ? m->nmarkers + 1 : 0;
        int n = id > m->nmarkers ? id : m->nmarkers;
        m->marker_names = hdg_xrealloc(m->marker_names, (size_t)(n + 1) * sizeof(char *));
        for (int i = old; i <= n; i++) m->marker_names[i] = NULL;
        m->nmarkers = n;
    }
    free(m->marker_names[id]);
    m->marker_names[id] = hdg_xstrdup(name);
}

int hdg_mesh_marker_id(const hdg_mesh *m, const char *name)
{
    for (int i = 1; m->marker_names && i <= m->nmarkers; i++)
        if (m->marker_names[i] && !strcmp(m->marker_names[i], name)) return i;
    return -1;
}

int hdg_mesh_marker_count(const hdg_mesh *m, int id)
{
    int n = 0;
    for (int f = 0; f < m->nf; f++) n += m->fmark[f] == id;
    return n;
}

/* "vertex 7" for generated meshes, "node 12" (the Gmsh tag) for files. */
static const char *vname(const hdg_mesh *m, int v, char *buf, size_t n)
{
    if (m->vtag) snprintf(buf, n, "node %lld", m->vtag[v]);
    else snprintf(buf, n, "vertex %d", v);
    return buf;
}

/* "path:LINE: " when the element came from a file line, else "". */
static const char *eloc(const hdg_mesh *m, int e, char *buf, size_t n)
{
    if (m->eline && m->source) snprintf(buf, n, "%s:%d: ", m->source, m->eline[e]);
    else buf[0] = '\0';
    return buf;
}

/* --------------------------------------------------- element validation */

static double signed_area2(const hdg_mesh *m, const int *v)
{
    double ax = m->vx[v[0]], ay = m->vy[v[0]];
    return (m->vx[v[1]] - ax) * (m->vy[v[2]] - ay) - (m->vy[v[1]] - ay) * (m->vx[v[2]] - ax);
}

static double longest_edge2(const hdg_mesh *m, const int *v)
{
    double h2 = 0;
    for (int j = 0; j < 3; j++) {
        double dx = m->vx[v[(j + 1) % 3]] - m->vx[v[j]], dy = m->vy[v[(j + 1) % 3]] - m->vy[v[j]];
        if (dx * dx + dy * dy > h2) h2 = dx * dx + dy * dy;
    }
    return h2;
}

/* Checks vertex indices, coordinates and area; flips clockwise triangles. */
static hdg_status check_elements(hdg_mesh *m, hdg_error *err)
{
    char loc[1200];
    if (m->ne <= 0) return hdg_fail(err, HDG_EINPUT, "%s: mesh has no triangles", m->source ? m->source : "mesh");
    for (int i = 0; i < m->nv; i++)
        if (!isfinite(m->vx[i]) || !isfinite(m->vy[i]))
            return hdg_fail(err, HDG_EINPUT, "vertex %d has a non-finite coordinate", i);
    m->nreoriented = 0;
    for (int e = 0; e < m->ne; e++) {
        int *v = m->ev + 3 * e;
        for (int j = 0; j < 3; j++)
            if (v[j] < 0 || v[j] >= m->nv)
                return hdg_fail(err, HDG_EINTERNAL, "element %d: vertex index %d out of range", e, v[j]);
        double a2 = signed_area2(m, v), h2 = longest_edge2(m, v);
        if (!isfinite(a2) || !isfinite(h2)) /* else NaN passes both tests below */
            return hdg_fail(err, HDG_EINPUT,
                            "%selement %d: coordinates too large (its area or edge length overflows a double)",
                            eloc(m, e, loc, sizeof loc), e);
        if (fabs(a2 / 2) <= DEGENERATE_TOL * h2) {
            char b0[32], b1[32], b2[32];
            return hdg_fail(err, HDG_EINPUT,
                            "%sdegenerate triangle: element %d (%s, %s, %s) has area %.3g "
                            "(longest edge %.3g)",
                            eloc(m, e, loc, sizeof loc), e, vname(m, v[0], b0, sizeof b0),
                            vname(m, v[1], b1, sizeof b1), vname(m, v[2], b2, sizeof b2),
                            fabs(a2 / 2), sqrt(h2));
        }
        if (fabs(a2) < DBL_MIN) /* subnormal: geometry and kernels would lose every digit */
            return hdg_fail(err, HDG_EINPUT,
                            "%selement %d: coordinates too small (its area %.3g underflows a double)",
                            eloc(m, e, loc, sizeof loc), e, fabs(a2 / 2));
        if (a2 < 0) {
            int t = v[1];
            v[1] = v[2], v[2] = t;
            m->nreoriented++;
        }
    }
    return HDG_OK;
}

/* ------------------------------------------------------------- topology */

/* Half-edges k = 3e+j grouped by their smaller vertex (CSR: start[a]..start[a+1]). */
typedef struct edge_index {
    int *start; /* nv+1 */
    int *half;  /* 3ne half-edge ids */
} edge_index;

static int gv(const hdg_mesh *m, int k, int end) /* geometric vertex `end` (0/1) of half-edge k */
{
    int e = k / 3, j = k % 3;
    return m->ev[3 * e + (j + end) % 3];
}

static int topv(const hdg_mesh *m, int v) { return m->vtop ? m->vtop[v] : v; }

/* Topological vertex `end` of half-edge k: edges are paired on these. */
static int hv(const hdg_mesh *m, int k, int end) { return topv(m, gv(m, k, end)); }

static int lo(const hdg_mesh *m, int k) { int a = hv(m, k, 0), b = hv(m, k, 1); return a < b ? a : b; }
static int hi(const hdg_mesh *m, int k) { int a = hv(m, k, 0), b = hv(m, k, 1); return a > b ? a : b; }

typedef struct hi_half { int hi, k; } hi_half;

static int cmp_hi_half(const void *a, const void *b)
{
    const hi_half *x = a, *y = b;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static void edge_index_build(edge_index *x, const hdg_mesh *m)
{
    int nh = 3 * m->ne, big = 1;
    x->start = hdg_xcalloc((size_t)m->nv + 1, sizeof(int));
    x->half = hdg_xmalloc((size_t)nh * sizeof(int));
    for (int k = 0; k < nh; k++) x->start[lo(m, k) + 1]++;
    for (int a = 0; a < m->nv; a++) {
        if (x->start[a + 1] > big) big = x->start[a + 1];
        x->start[a + 1] += x->start[a];
    }
    int *fill = hdg_xmalloc((size_t)m->nv * sizeof(int));
    memcpy(fill, x->start, (size_t)m->nv * sizeof(int));
    for (int k = 0; k < nh; k++) x->half[fill[lo(m, k)]++] = k; /* ascending k per bucket */
    free(fill);
    /* order each bucket by the other vertex, then k (qsort: a vertex may have any
     * number of triangles; a fan of 10^5 made an insertion sort hang) */
    hi_half *t = hdg_xmalloc((size_t)big * sizeof *t);
    for (int a = 0; a < m->nv; a++) {
        int n = x->start[a + 1] - x->start[a], *h = x->half + x->start[a];
        if (n < 2) continue;
        for (int i = 0; i < n; i++) t[i] = (hi_half){hi(m, h[i]), h[i]};
        qsort(t, (size_t)n, sizeof *t, cmp_hi_half);
        for (int i = 0; i < n; i++) h[i] = t[i].k;
    }
    free(t);
}

static void edge_index_free(edge_index *x) { free(x->start), free(x->half); }

/* Two half-edges paired through vtop: the same edge, or copies of one edge translated
 * (both ends by the same vector). Anything else is an identification that folds the
 * mesh (too few elements across a periodic direction). */
static hdg_status check_translation(const hdg_mesh *m, int k, int k2, hdg_error *err)
{
    int a0 = gv(m, k, 0), a1 = gv(m, k, 1), b0 = gv(m, k2, 1), b1 = gv(m, k2, 0);
    if (a0 == b0 && a1 == b1) return HDG_OK;
    double t0x = m->vx[a0] - m->vx[b0], t0y = m->vy[a0] - m->vy[b0];
    double t1x = m->vx[a1] - m->vx[b1], t1y = m->vy[a1] - m->vy[b1];
    double len = hypot(m->vx[a1] - m->vx[a0], m->vy[a1] - m->vy[a0]);
    double tol = 1e-8 * fmax(len, hypot(t0x, t0y));
    if (a0 != b0 && a1 != b1 && fabs(t0x - t1x) <= tol && fabs(t0y - t1y) <= tol) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT,
                    "periodic identification folds the mesh: the edge (%.17g, %.17g)-(%.17g, %.17g) of element %d "
                    "and the edge (%.17g, %.17g)-(%.17g, %.17g) of element %d join the same identified vertices "
                    "but are not translated copies (too few elements across a periodic direction? at least 3 are "
                    "needed)",
                    m->vx[a0], m->vy[a0], m->vx[a1], m->vy[a1], k / 3, m->vx[b0], m->vy[b0], m->vx[b1], m->vy[b1],
                    k2 / 3);
}

/* No element may have two vertices identified with each other. */
static hdg_status check_identified(const hdg_mesh *m, hdg_error *err)
{
    for (int e = 0; m->vtop && e < m->ne; e++) {
        const int *v = m->ev + 3 * e;
        for (int j = 0; j < 3; j++) {
            int a = v[j], b = v[(j + 1) % 3];
            if (m->vtop[a] == m->vtop[b])
                return hdg_fail(err, HDG_EINPUT,
                                "periodic identification folds element %d: its vertices (%.17g, %.17g) and "
                                "(%.17g, %.17g) are identified (at least 3 elements are needed across a "
                                "periodic direction)",
                                e, m->vx[a], m->vy[a], m->vx[b], m->vy[b]);
        }
    }
    return HDG_OK;
}

/* Pairs up half-edges: partner[k] = the other half-edge of the same edge, -1 on
 * the boundary. Fails on overlapping triangles and non-manifold edges. */
static hdg_status pair_half_edges(hdg_mesh *m, const edge_index *x, int *partner, hdg_error *err)
{
    char loc[1200], ba[32], bb[32];
    hdg_status st;
    for (int a = 0; a < m->nv; a++) {
        for (int i = x->start[a]; i < x->start[a + 1];) {
            int n = 1, k = x->half[i];
            while (i + n < x->start[a + 1] && hi(m, x->half[i + n]) == hi(m, k)) n++;
            const int *run = x->half + i;
            if (n == 1) partner[k] = -1;
            if (n == 2) {
                int k2 = run[1];
                if (hv(m, k, 0) == hv(m, k2, 0))
                    return hdg_fail(err, HDG_EINPUT,
                                    "%soverlapping triangles: elements %d and %d lie on the same side "
                                    "of the edge between %s and %s (duplicate or folded triangles)",
                                    eloc(m, k2 / 3, loc, sizeof loc), k / 3, k2 / 3,
                                    vname(m, a, ba, sizeof ba), vname(m, hi(m, k), bb, sizeof bb));
                if (m->vtop && (st = check_translation(m, k, k2, err))) return st;
                partner[k] = k2, partner[k2] = k;
            }
            if (n > 2) {
                hdg_str s;
                hdg_str_init(&s);
                for (int t = 0; t < n; t++) hdg_str_printf(&s, "%s%d", t ? ", " : "", run[t] / 3);
                hdg_fail(err, HDG_EINPUT, "%snon-manifold edge between %s and %s (elements %s)%s",
                         eloc(m, run[n - 1] / 3, loc, sizeof loc), vname(m, a, ba, sizeof ba),
                         vname(m, hi(m, k), bb, sizeof bb), s.s,
                         m->vtop ? " after the periodic identification (too few elements across a periodic "
                                   "direction? at least 3 are needed)" : "");
                hdg_str_free(&s);
                return HDG_EINPUT;
            }
            i += n;
        }
    }
    return HDG_OK;
}

/* Numbers faces in order of first appearance and fills ef, eforient, fv, fe, flf. */
static void number_faces(hdg_mesh *m, const int *partner)
{
    int nh = 3 * m->ne;
    m->ef = hdg_xmalloc((size_t)nh * sizeof(int));
    m->eforient = hdg_xmalloc((size_t)nh * sizeof(int));
    for (int k = 0; k < nh; k++) m->ef[k] = -1;
    int nf = 0;
    for (int k = 0; k < nh; k++) nf += partner[k] < 0 || partner[k] > k;
    m->nf = nf;
    m->fv = hdg_xmalloc((size_t)2 * nf * sizeof(int));
    m->ftv = hdg_xmalloc((size_t)2 * nf * sizeof(int));
    m->fe = hdg_xmalloc((size_t)2 * nf * sizeof(int));
    m->flf = hdg_xmalloc((size_t)2 * nf * sizeof(int));
    m->nbf = 0, m->nperiodic = 0;
    for (int k = 0, f = 0; k < nh; k++) {
        if (m->ef[k] >= 0) continue;
        int p = partner[k];
        m->ef[k] = f, m->eforient[k] = 0;
        m->fv[2 * f] = gv(m, k, 0), m->fv[2 * f + 1] = gv(m, k, 1);
        m->ftv[2 * f] = hv(m, k, 0), m->ftv[2 * f + 1] = hv(m, k, 1);
        m->nperiodic += p >= 0 && gv(m, p, 1) != gv(m, k, 0);
        m->fe[2 * f] = k / 3, m->flf[2 * f] = k % 3;
        m->fe[2 * f + 1] = p < 0 ? -1 : p / 3, m->flf[2 * f + 1] = p < 0 ? -1 : p % 3;
        if (p >= 0) m->ef[p] = f, m->eforient[p] = 1;
        else m->nbf++;
        f++;
    }
}

static void build_coupling(hdg_mesh *m)
{
    size_t n5 = (size_t)5 * m->nf;
    m->fnbr = hdg_xmalloc(n5 * sizeof(int));
    m->fnbr_elem = hdg_xmalloc(n5 * sizeof(int));
    m->fnbr_lf = hdg_xmalloc(n5 * sizeof(int));
    for (int f = 0; f < m->nf; f++) {
        int *nb = m->fnbr + 5 * f, *ne = m->fnbr_elem + 5 * f, *nl = m->fnbr_lf + 5 * f;
        nb[0] = f, ne[0] = m->fe[2 * f], nl[0] = m->flf[2 * f];
        for (int s = 0; s < 2; s++) {
            int e = m->fe[2 * f + s], j = m->flf[2 * f + s];
            for (int t = 1; t <= 2; t++) {
                int a = 1 + 2 * s + (t - 1);
                nb[a] = e < 0 ? -1 : m->ef[3 * e + (j + t) % 3];
                ne[a] = e;
                nl[a] = e < 0 ? -1 : (j + t) % 3;
            }
        }
    }
}

/* Face with vertices {a, b}, or -1. */
static int find_face(const hdg_mesh *m, const edge_index *x, int a, int b)
{
    int l = a < b ? a : b, h = a < b ? b : a;
    int lo_i = x->start[l], hi_i = x->start[l + 1]; /* bucket sorted by hi: bisect */
    while (lo_i < hi_i) {
        int mid = lo_i + (hi_i - lo_i) / 2;
        if (hi(m, x->half[mid]) < h) lo_i = mid + 1;
        else hi_i = mid;
    }
    return lo_i < x->start[l + 1] && hi(m, x->half[lo_i]) == h ? m->ef[x->half[lo_i]] : -1;
}

/* Applies the constructor's tagged edges; untagged boundary faces get "boundary". */
static hdg_status assign_markers(hdg_mesh *m, const edge_index *x, hdg_error *err)
{
    m->fmark = hdg_xcalloc((size_t)m->nf, sizeof(int));
    for (int t = 0; t < m->ntag; t++) {
        const int *g = m->tag + 4 * t;
        if (g[0] < 0 || g[0] >= m->nv || g[1] < 0 || g[1] >= m->nv || g[2] <= 0)
            return hdg_fail(err, HDG_EINTERNAL, "tagged edge %d is malformed", t);
        int f = topv(m, g[0]) == topv(m, g[1]) ? -1 : find_face(m, x, topv(m, g[0]), topv(m, g[1]));
        if (f < 0) {
            char ba[32], bb[32];
            if (g[3] > 0 && m->source)
                return hdg_fail(err, HDG_EINPUT,
                                "%s:%d: boundary line element joins %s and %s, which is not an edge "
                                "of any triangle",
                                m->source, g[3], vname(m, g[0], ba, sizeof ba), vname(m, g[1], bb, sizeof bb));
            return hdg_fail(err, HDG_EINPUT, "tagged edge between %s and %s is not an edge of any triangle",
                            vname(m, g[0], ba, sizeof ba), vname(m, g[1], bb, sizeof bb));
        }
        if (m->fe[2 * f + 1] < 0 && m->fmark[f] == 0) m->fmark[f] = g[2];
    }
    for (int f = 0; f < m->nf; f++) /* every used id has a name */
        if (m->fmark[f] > 0 && (m->fmark[f] > m->nmarkers || !m->marker_names[m->fmark[f]])) {
            char num[16];
            snprintf(num, sizeof num, "%d", m->fmark[f]);
            hdg_mesh_set_marker_name(m, m->fmark[f], num);
        }
    m->nuntagged = 0;
    for (int f = 0; f < m->nf; f++) m->nuntagged += m->fe[2 * f + 1] < 0 && m->fmark[f] == 0;
    if (m->nuntagged && !m->untagged_marker) { /* kept when the topology is rebuilt */
        const char *name = hdg_mesh_marker_id(m, "boundary") < 0 ? "boundary" : "boundary_untagged";
        m->untagged_marker = m->nmarkers + 1;
        hdg_mesh_set_marker_name(m, m->untagged_marker, name);
    }
    if (m->nuntagged) {
        int id = m->untagged_marker;
        for (int f = 0; f < m->nf; f++)
            if (m->fe[2 * f + 1] < 0 && m->fmark[f] == 0) m->fmark[f] = id;
    }
    return HDG_OK;
}

/* ------------------------------------------------------------- overlap */

/* Triangles that cover a common area without sharing an edge (pieces laid
 * over each other, a fold whose triangles meet only at vertices) pass the
 * edge pairing; they are found from the mesh's geometric boundary, the
 * half-edges not paired with their reverse (domain boundary, and the
 * periodic sides, whose copies lie elsewhere). The number of triangles
 * covering a point, mu, is the winding number of that boundary about it
 * (the interior edges cancel in pairs), so the mesh covers no point twice
 * when (1) no two boundary edges cross (a crossing leaves mu = 2 left of
 * both), and (2) just inside each boundary edge (a point of its triangle
 * 1e-6 of the way to the opposite vertex) mu = 1: with no crossing every
 * region of the plane minus the boundary is bounded by boundary edges, mu
 * changes by one across each, and a region of mu >= 2 makes mu >= 2 left of
 * one of its edges. The edges go into a uniform grid (about one cell per
 * edge, rows rasterised); crossings are tested in shared cells, mu by a ray
 * to +x along the point's row. About nb^1.5 for nb boundary edges. */

typedef struct bgrid {
    double x0, y0, c;      /* lower corner, cell size (half coordinates: see cell_of) */
    int nx, ny;
    int nb, *edge;         /* nb boundary half-edges k = 3e+j */
    int *start, *item;     /* CSR: cell -> indices into edge */
} bgrid;

static double orient(const hdg_mesh *m, int a, int b, double px, double py)
{
    return (m->vx[b] - m->vx[a]) * (py - m->vy[a]) - (m->vy[b] - m->vy[a]) * (px - m->vx[a]);
}

/* Half coordinates, so that a mesh spanning nearly the whole double range has
 * a finite width; clamped to the grid. */
static int cell_of(const bgrid *g, double x, int axis)
{
    double i = floor((x / 2 - (axis ? g->y0 : g->x0)) / g->c);
    int n = axis ? g->ny : g->nx;
    return !(i >= 0) ? 0 : i >= n ? n - 1 : (int)i;
}

static int geometric_boundary(const hdg_mesh *m, const int *partner, int k)
{
    return partner[k] < 0 || gv(m, partner[k], 1) != gv(m, k, 0);
}

static void bgrid_cells(bgrid *g, const hdg_mesh *m)
{
    double xmin = INFINITY, ymin = INFINITY, xmax = -INFINITY, ymax = -INFINITY;
    for (int i = 0; i < g->nb; i++)
        for (int end = 0; end < 2; end++) {
            int v = gv(m, g->edge[i], end);
            xmin = fmin(xmin, m->vx[v]), xmax = fmax(xmax, m->vx[v]);
            ymin = fmin(ymin, m->vy[v]), ymax = fmax(ymax, m->vy[v]);
        }
    double w = xmax / 2 - xmin / 2, h = ymax / 2 - ymin / 2, n = (double)g->nb + 1;
    double c = sqrt(w * h / n);
    if (!(c > 0) || !isfinite(c)) c = fmax(fmax(w, h) / n, DBL_MIN);
    for (int it = 0; it < 4000 && (w / c + 1) * (h / c + 1) > 2 * n + 16; it++) c *= 1.5;
    g->x0 = xmin / 2, g->y0 = ymin / 2, g->c = c;
    g->nx = w / c < 2 * n ? (int)(w / c) + 1 : 1;
    g->ny = h / c < 2 * n && (double)g->nx * (h / c + 1) <= 2 * n + 16 ? (int)(h / c) + 1 : 1;
}

/* The columns of row iy that edge k may cross (one more each side: the
 * crossings computed later round the same way). */
static void row_span(const bgrid *g, const hdg_mesh *m, int k, int iy, int *ix0, int *ix1)
{
    int a = gv(m, k, 0), b = gv(m, k, 1);
    double ya = m->vy[a], yb = m->vy[b], xa = m->vx[a], xb = m->vx[b];
    double lo = 2 * (g->y0 + iy * g->c), hi = 2 * (g->y0 + (iy + 1) * g->c);
    double x0 = fmin(xa, xb), x1 = fmax(xa, xb);
    if (ya != yb) { /* the segment's x at the row's clipped ends */
        double ylo = fmin(ya, yb), yhi = fmax(ya, yb);
        if (iy > 0) ylo = fmax(ylo, lo); /* the first and last rows hold what cell_of clamps into them */
        if (iy < g->ny - 1) yhi = fmin(yhi, hi);
        double t0 = fmin(fmax((ylo - ya) / (yb - ya), 0), 1), t1 = fmin(fmax((yhi - ya) / (yb - ya), 0), 1);
        double u0 = xa + t0 * (xb - xa), u1 = xa + t1 * (xb - xa);
        x0 = fmax(x0, fmin(u0, u1)), x1 = fmin(x1, fmax(u0, u1));
    }
    *ix0 = cell_of(g, x0, 0) - 1, *ix1 = cell_of(g, x1, 0) + 1;
    if (*ix0 < 0) *ix0 = 0;
    if (*ix1 > g->nx - 1) *ix1 = g->nx - 1;
}

/* Visits the cells of every boundary edge: count (fill NULL) or fill. */
static void bgrid_pass(const bgrid *g, const hdg_mesh *m, int *count, int *fill)
{
    for (int i = 0; i < g->nb; i++) {
        int k = g->edge[i], a = gv(m, k, 0), b = gv(m, k, 1);
        int r0 = cell_of(g, fmin(m->vy[a], m->vy[b]), 1), r1 = cell_of(g, fmax(m->vy[a], m->vy[b]), 1);
        for (int iy = r0; iy <= r1; iy++) {
            int c0, c1;
            row_span(g, m, k, iy, &c0, &c1);
            for (int ix = c0; ix <= c1; ix++) {
                size_t cell = (size_t)iy * g->nx + ix;
                if (fill) g->item[fill[cell]++] = i;
                else count[cell + 1]++;
            }
        }
    }
}

static void bgrid_build(bgrid *g, const hdg_mesh *m, const int *partner)
{
    memset(g, 0, sizeof *g);
    for (int k = 0; k < 3 * m->ne; k++) g->nb += geometric_boundary(m, partner, k);
    g->edge = hdg_xmalloc(sizeof(int) * ((size_t)g->nb + 1));
    g->nb = 0;
    for (int k = 0; k < 3 * m->ne; k++)
        if (geometric_boundary(m, partner, k)) g->edge[g->nb++] = k;
    bgrid_cells(g, m);
    size_t ncell = (size_t)g->nx * (size_t)g->ny;
    g->start = hdg_xcalloc(ncell + 1, sizeof(int));
    bgrid_pass(g, m, g->start, NULL);
    for (size_t i = 0; i < ncell; i++) g->start[i + 1] += g->start[i];
    g->item = hdg_xmalloc(sizeof(int) * ((size_t)g->start[ncell] + 1));
    int *fill = hdg_xmalloc(sizeof(int) * (ncell + 1));
    memcpy(fill, g->start, sizeof(int) * ncell);
    bgrid_pass(g, m, NULL, fill);
    free(fill);
}

static void bgrid_free(bgrid *g) { free(g->edge), free(g->start), free(g->item); }

/* Boundary half-edges k and l cross: each one's ends strictly on both sides of
 * the other's line (a shared vertex, touching or collinear pieces do not). */
static int edges_cross(const hdg_mesh *m, int k, int l)
{
    int a = gv(m, k, 0), b = gv(m, k, 1), c = gv(m, l, 0), d = gv(m, l, 1);
    if (a == c || a == d || b == c || b == d) return 0;
    double lk = hypot(m->vx[b] - m->vx[a], m->vy[b] - m->vy[a]), ll = hypot(m->vx[d] - m->vx[c], m->vy[d] - m->vy[c]);
    double tol = 1e-10 * lk * ll;
    double oc = orient(m, a, b, m->vx[c], m->vy[c]), od = orient(m, a, b, m->vx[d], m->vy[d]);
    double oa = orient(m, c, d, m->vx[a], m->vy[a]), ob = orient(m, c, d, m->vx[b], m->vy[b]);
    return ((oc > tol && od < -tol) || (oc < -tol && od > tol)) && ((oa > tol && ob < -tol) || (oa < -tol && ob > tol));
}

/* Winding number of the boundary about (px, py): a ray to +x along its row,
 * each edge counted in the cell of its crossing only. */
static int winding(const bgrid *g, const hdg_mesh *m, double px, double py)
{
    int iy = cell_of(g, py, 1), w = 0;
    for (int ix = cell_of(g, px, 0); ix < g->nx; ix++) {
        size_t cell = (size_t)iy * g->nx + ix;
        for (int t = g->start[cell]; t < g->start[cell + 1]; t++) {
            int k = g->edge[g->item[t]], a = gv(m, k, 0), b = gv(m, k, 1);
            double ya = m->vy[a], yb = m->vy[b];
            int up = ya <= py && yb > py, down = yb <= py && ya > py;
            if (!up && !down) continue;
            double xc = m->vx[a] + (py - ya) / (yb - ya) * (m->vx[b] - m->vx[a]);
            if (cell_of(g, xc, 0) != ix) continue;
            double o = orient(m, a, b, px, py);
            if (up && o > 0) w++;
            if (down && o < 0) w--;
        }
    }
    return w;
}

/* Some element other than e whose interior holds (px, py) (a linear search:
 * only to name it in the message); -1 if none. */
static int other_cover(const hdg_mesh *m, int e, double px, double py)
{
    for (int f = 0; f < m->ne; f++) {
        const int *v = m->ev + 3 * f;
        if (f != e && orient(m, v[0], v[1], px, py) > 0 && orient(m, v[1], v[2], px, py) > 0 &&
            orient(m, v[2], v[0], px, py) > 0)
            return f;
    }
    return -1;
}

static hdg_status overlap_fail(const hdg_mesh *m, int e, int f, double px, double py, hdg_error *err)
{
    char loc[1200], lines[64] = "", other[48] = "another element";
    if (f >= 0) snprintf(other, sizeof other, "element %d", f);
    if (f >= 0 && m->eline && m->source) snprintf(lines, sizeof lines, " (lines %d and %d)", m->eline[e], m->eline[f]);
    return hdg_fail(err, HDG_EINPUT,
                    "%soverlapping triangles: element %d and %s%s cover a common area near (%.6g, %.6g) without "
                    "sharing an edge (pieces laid over each other, or a folded mesh)",
                    eloc(m, e, loc, sizeof loc), e, other, lines, px, py);
}

static hdg_status check_overlaps(const hdg_mesh *m, const int *partner, hdg_error *err)
{
    bgrid g;
    bgrid_build(&g, m, partner);
    hdg_status st = HDG_OK;
    size_t ncell = (size_t)g.nx * (size_t)g.ny;
    for (size_t cell = 0; cell < ncell && !st; cell++) /* (1) crossings */
        for (int i = g.start[cell]; i < g.start[cell + 1] && !st; i++)
            for (int j = i + 1; j < g.start[cell + 1] && !st; j++) {
                int k = g.edge[g.item[i]], l = g.edge[g.item[j]];
                if (!edges_cross(m, k, l)) continue;
                int a = gv(m, k, 0), b = gv(m, k, 1), c = gv(m, l, 0), d = gv(m, l, 1);
                double s = orient(m, c, d, m->vx[a], m->vy[a]);
                s /= s - orient(m, c, d, m->vx[b], m->vy[b]);
                st = overlap_fail(m, k / 3 < l / 3 ? k / 3 : l / 3, k / 3 < l / 3 ? l / 3 : k / 3,
                                  m->vx[a] + s * (m->vx[b] - m->vx[a]), m->vy[a] + s * (m->vy[b] - m->vy[a]), err);
            }
    for (int i = 0; i < g.nb && !st; i++) { /* (2) covered once just inside every boundary edge */
        int k = g.edge[i], e = k / 3, a = gv(m, k, 0), b = gv(m, k, 1), o = m->ev[3 * e + (k % 3 + 2) % 3];
        double mx = 0.5 * (m->vx[a] + m->vx[b]), my = 0.5 * (m->vy[a] + m->vy[b]);
        double px = mx + 1e-6 * (m->vx[o] - mx), py = my + 1e-6 * (m->vy[o] - my);
        if (winding(&g, m, px, py) != 1) st = overlap_fail(m, e, other_cover(m, e, px, py), px, py, err);
    }
    bgrid_free(&g);
    return st;
}

static void drop_topology(hdg_mesh *m)
{
    free(m->ef), free(m->eforient), free(m->fv), free(m->fe), free(m->flf);
    free(m->fmark), free(m->fnbr), free(m->fnbr_elem), free(m->fnbr_lf), free(m->ftv);
    m->ef = m->eforient = m->fv = m->fe = m->flf = m->fmark = NULL;
    m->fnbr = m->fnbr_elem = m->fnbr_lf = m->ftv = NULL;
    m->nf = m->nbf = m->nperiodic = 0;
}

hdg_status hdg_mesh_build_topology(hdg_mesh *m, hdg_error *err)
{
    drop_topology(m);
    if (!m->dim) m->dim = 2;
    hdg_status st = check_elements(m, err);
    if (!st) st = check_identified(m, err);
    if (st) return st;
    if (m->ne > MAX_ELEMENTS)
        return hdg_fail(err, HDG_EINPUT, "mesh too large: %d triangles (at most %d)", m->ne, MAX_ELEMENTS);
    edge_index x;
    edge_index_build(&x, m);
    int *partner = hdg_xmalloc((size_t)3 * m->ne * sizeof(int));
    st = pair_half_edges(m, &x, partner, err);
    if (!st) st = check_overlaps(m, partner, err);
    if (!st) {
        number_faces(m, partner);
        build_coupling(m);
        st = assign_markers(m, &x, err);
    }
    free(partner);
    edge_index_free(&x);
    if (st) drop_topology(m);
    return st;
}

/* ---------------------------------------------------------- square:N */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in the open interval (-1, 1): (2k+1)/2^53 - 1 never reaches +-1, so
 * p = 0.25 can never flatten a triangle exactly. */
static double open_unit(uint64_t *s)
{
    uint64_t k = splitmix64(s) >> 11;
    return (double)(2 * k + 1) / 9007199254740992.0 - 1.0;
}

hdg_status hdg_mesh_square(hdg_mesh *m, int N, double perturb, double x0, double x1,
                           double y0, double y1, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    if (N < 1 || N > SQUARE_MAX_N)
        return hdg_fail(err, HDG_EINPUT, "square:N needs 1 <= N <= %d (got %d)", SQUARE_MAX_N, N);
    if (!(perturb >= 0 && perturb < 0.5))
        return hdg_fail(err, HDG_EINPUT, "perturb must be in [0, 0.5) (got %g; 0.25 or less is always valid)",
                        perturb);
    if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1) || !(x0 < x1) || !(y0 < y1))
        return hdg_fail(err, HDG_EINPUT, "domain [%g,%g]x[%g,%g] is empty or not finite", x0, x1, y0, y1);
    int n1 = N + 1;
    m->nv = n1 * n1, m->ne = 2 * N * N;
    m->vx = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->vy = hdg_xmalloc((size_t)m->nv * sizeof(double));
    double hx = (x1 - x0) / N, hy = (y1 - y0) / N;
    uint64_t seed = 0x5EEDC0DEULL;
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N; i++) {
            int v = j * n1 + i;
            m->vx[v] = i == N ? x1 : x0 + i * hx; /* exact end points */
            m->vy[v] = j == N ? y1 : y0 + j * hy;
            if (perturb > 0 && i > 0 && i < N && j > 0 && j < N) {
                double du = open_unit(&seed), dv = open_unit(&seed);
                m->vx[v] += perturb * hx * du, m->vy[v] += perturb * hy * dv;
            }
        }
    m->ev = hdg_xmalloc((size_t)3 * m->ne * sizeof(int));
    for (int j = 0, e = 0; j < N; j++)
        for (int i = 0; i < N; i++, e += 2) {
            int a = j * n1 + i, b = a + 1, c = a + n1 + 1, d = a + n1;
            int *t = m->ev + 3 * e;
            t[0] = a, t[1] = b, t[2] = c; /* lower right triangle */
            t[3] = a, t[4] = c, t[5] = d; /* upper left triangle */
        }
    hdg_str src;
    hdg_str_init(&src);
    hdg_str_printf(&src, "square:%d", N);
    if (perturb > 0) hdg_str_printf(&src, ",perturb=%g", perturb);
    if (x0 != 0 || x1 != 1 || y0 != 0 || y1 != 1)
        hdg_str_printf(&src, ",domain=[%g,%g]x[%g,%g]", x0, x1, y0, y1);
    m->source = hdg_str_take(&src);
    for (int e = 0; e < m->ne; e++) /* a perturbation may only shear, never flip */
        if (signed_area2(m, m->ev + 3 * e) <= 0) {
            hdg_fail(err, HDG_EINPUT,
                     "%s: element %d is inverted after perturbation (perturb <= 0.25 is always valid)",
                     m->source, e);
            hdg_mesh_free(m);
            return HDG_EINPUT;
        }
    /* boundary edges: both ends on the same side of the grid */
    m->ntag = 4 * N;
    m->tag = hdg_xmalloc((size_t)4 * m->ntag * sizeof(int));
    for (int i = 0, t = 0; i < N; i++) {
        int g[4][3] = {{i, i + 1, 1},                     /* bottom: j = 0 */
                       {i * n1 + N, (i + 1) * n1 + N, 2}, /* right:  i = N */
                       {N * n1 + i, N * n1 + i + 1, 3},   /* top:    j = N */
                       {i * n1, (i + 1) * n1, 4}};        /* left:   i = 0 */
        for (int s = 0; s < 4; s++, t++) {
            int *tg = m->tag + 4 * t;
            tg[0] = g[s][0], tg[1] = g[s][1], tg[2] = g[s][2], tg[3] = 0;
        }
    }
    static const char *names[] = {"bottom", "right", "top", "left"};
    for (int s = 0; s < 4; s++) hdg_mesh_set_marker_name(m, s + 1, names[s]);
    hdg_status st = hdg_mesh_build_topology(m, err);
    if (st) hdg_mesh_free(m);
    return st;
}

/* ---------------------------------------------------------- spec parsing */

/* A decimal number (no hex, inf or nan: support/util.h). */
static int spec_number(const char **p, double *x)
{
    size_t n = hdg_decimal_span(*p);
    if (!n) return 0;
    *x = strtod(*p, NULL);
    if (!isfinite(*x)) return 0;
    *p += n;
    return 1;
}

/* "[a,b]" */
static int spec_interval(const char **p, double *a, double *b)
{
    if (**p != '[') return 0;
    ++*p;
    if (!spec_number(p, a) || **p != ',') return 0;
    ++*p;
    if (!spec_number(p, b) || **p != ']') return 0;
    ++*p;
    return 1;
}

/* Identifies the pairs and says so in m->source (",periodic=" + what the spec said). */
static hdg_status make_periodic(hdg_mesh *m, const char *pairs, const char *said, size_t n, hdg_error *err)
{
    hdg_status st = hdg_mesh_make_periodic(m, pairs, err);
    if (st) {
        hdg_mesh_free(m);
        return st;
    }
    size_t old = strlen(m->source);
    m->source = hdg_xrealloc(m->source, old + n + 11);
    memcpy(m->source + old, ",periodic=", 10);
    memcpy(m->source + old + 10, said, n);
    m->source[old + 10 + n] = '\0';
    return HDG_OK;
}

static hdg_status load_square(hdg_mesh *m, const char *spec, hdg_error *err)
{
    const char *p = spec + strlen("square:");
    char *end;
    long N = strtol(p, &end, 10);
    if (*p < '0' || *p > '9' || (*end && *end != ','))
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': square:N needs an integer N >= 1", spec);
    if (N < 1 || N > SQUARE_MAX_N)
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': N must be between 1 and %d", spec, SQUARE_MAX_N);
    double perturb = 0, x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    const char *periodic = NULL, *said = NULL;
    size_t nsaid = 0;
    p = end;
    while (*p == ',') {
        p++;
        if (!strncmp(p, "perturb=", 8)) {
            p += 8;
            if (!spec_number(&p, &perturb) || (*p && *p != ','))
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': perturb=p needs a number", spec);
        } else if (!strncmp(p, "domain=", 7)) {
            p += 7;
            if (!spec_interval(&p, &x0, &x1)) goto bad_domain;
            if (!strncmp(p, "^2", 2)) {
                p += 2, y0 = x0, y1 = x1;
            } else if (*p == 'x') {
                p++;
                if (!spec_interval(&p, &y0, &y1)) goto bad_domain;
            } else {
                goto bad_domain;
            }
            if (*p && *p != ',') goto bad_domain;
        } else if (!strncmp(p, "periodic=", 9)) {
            p += 9;
            size_t n = strcspn(p, ",");
            periodic = n == 1 && *p == 'x' ? "left:right" : n == 1 && *p == 'y' ? "bottom:top"
                     : n == 2 && (!strncmp(p, "xy", 2) || !strncmp(p, "yx", 2)) ? "left:right,bottom:top" : NULL;
            if (!periodic)
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': periodic= takes x, y or xy on square:N "
                                "(got '%.*s')", spec, (int)n, p);
            if (said)
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': periodic= given twice (write periodic=xy)",
                                spec);
            if (N < 3)
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': a periodic square needs N >= 3 (at least "
                                "3 elements across a periodic direction)", spec);
            said = p, nsaid = n, p += n;
        } else {
            const char *e = strchr(p, '=');
            int n = e ? (int)(e - p) : (int)strlen(p);
            return hdg_fail(err, HDG_EINPUT,
                            "bad mesh spec '%s': unknown option '%.*s' (known: perturb, domain, periodic, refine)",
                            spec, n, p);
        }
    }
    if (*p)
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': unexpected '%s'", spec, p);
    hdg_status st = hdg_mesh_square(m, (int)N, perturb, x0, x1, y0, y1, err);
    if (!st && periodic) st = make_periodic(m, periodic, said, nsaid, err);
    return st;
bad_domain:
    return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': domain must be [a,b]^2 or [a,b]x[c,d]", spec);
}

/* KIND:REST with KIND a bare word (no '/' or '.') and no file of that name: a misspelt
 * square:N ("sqare:4"), not a Gmsh file to look for. */
static hdg_status misspelt_kind(const char *spec, hdg_error *err)
{
    size_t k = strcspn(spec, ":/.");
    if (!k || spec[k] != ':' || access(spec, F_OK) == 0) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': '%.*s' is not a kind of mesh and no file has that "
                    "name; did you mean square:%s? (the specs: square:N[,...] or a Gmsh PATH.msh)", spec, (int)k,
                    spec, spec + k + 1);
}

static hdg_status load_base(hdg_mesh *m, const char *spec, hdg_error *err)
{
    if (!strncmp(spec, "square:", 7)) return load_square(m, spec, err);
    if (!strcmp(spec, "square"))
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec 'square': write square:N (e.g. square:8)");
    long at = hdg_mesh_spec_periodic(spec, strlen(spec));
    hdg_status st = at < 0 ? misspelt_kind(spec, err) : HDG_OK;
    if (st) return st;
    if (at < 0) return hdg_mesh_read_gmsh(m, spec, err);
    char *path = hdg_xmalloc((size_t)at + 1);   /* PATH,periodic=A:B,C:D */
    memcpy(path, spec, (size_t)at);
    path[at] = '\0';
    st = hdg_mesh_read_gmsh(m, path, err);
    free(path);
    if (!st) st = make_periodic(m, spec + at + 10, spec + at + 10, strlen(spec + at + 10), err);
    return st;
}

hdg_status hdg_mesh_load(hdg_mesh *m, const char *spec, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    size_t n;
    int L = hdg_mesh_spec_refine(spec, &n);
    if (L == -2) return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': refine=L needs an integer L from 0 to 10", spec);
    if (L == -3) return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': refine=L must be the last option", spec);
    if (L < 0) return load_base(m, spec, err);
    char *base = hdg_xmalloc(n + 1);
    memcpy(base, spec, n);
    base[n] = '\0';
    hdg_status st = load_base(m, base, err);
    free(base);
    for (int l = 0; l < L && !st; l++) {
        hdg_mesh fine;
        st = hdg_mesh_refine(m, &fine, err);
        hdg_mesh_free(m);
        if (!st) *m = fine;
    }
    if (!st) {
        free(m->source);
        m->source = hdg_xstrdup(spec);
    }
    return st;
}
