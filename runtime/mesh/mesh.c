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

#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh_internal.h"
#include "runtime/mesh/mesh_overlap3.h"
#include "support/util.h"

#define MAX_ELEMENTS (INT_MAX / 16) /* na nf and (d+1) ne stay far below INT_MAX (nf < 2 ne in 3D) */
#define DEGENERATE_TOL 1e-14 /* |area| <= tol h^2 (|volume| <= tol h^3) is a degenerate element */

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

static const char *enames(const hdg_mesh *m) { return hdg_mesh_dim(m) == 3 ? "tetrahedra" : "triangles"; }

/* "(x, y)" or "(x, y, z)" of vertex v, %.17g. */
static const char *vpoint(const hdg_mesh *m, int v, char *buf, size_t n)
{
    if (hdg_mesh_dim(m) == 3) snprintf(buf, n, "(%.17g, %.17g, %.17g)", m->vx[v], m->vy[v], m->vz[v]);
    else snprintf(buf, n, "(%.17g, %.17g)", m->vx[v], m->vy[v]);
    return buf;
}

/* Distance between vertices a and b (hypot in 2D, as before). */
static double vdist(const hdg_mesh *m, int a, int b)
{
    double d = hypot(m->vx[b] - m->vx[a], m->vy[b] - m->vy[a]);
    return hdg_mesh_dim(m) == 3 ? hypot(d, m->vz[b] - m->vz[a]) : d;
}

double hdg_mesh_signed_area2(const hdg_mesh *m, const int *v)
{
    double ax = m->vx[v[0]], ay = m->vy[v[0]];
    return (m->vx[v[1]] - ax) * (m->vy[v[2]] - ay) - (m->vy[v[1]] - ay) * (m->vx[v[2]] - ax);
}

/* 6 times the signed volume of tetrahedron v: det(v1-v0, v2-v0, v3-v0). */
double hdg_mesh_signed_volume6(const hdg_mesh *m, const int *v)
{
    double a[3][3];
    for (int i = 0; i < 3; i++) {
        a[i][0] = m->vx[v[i + 1]] - m->vx[v[0]];
        a[i][1] = m->vy[v[i + 1]] - m->vy[v[0]];
        a[i][2] = m->vz[v[i + 1]] - m->vz[v[0]];
    }
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

/* Twice the area (2D) or 6 times the volume (3D) of element vertices v, signed. */
static double signed_measure(const hdg_mesh *m, const int *v)
{
    return hdg_mesh_dim(m) == 3 ? hdg_mesh_signed_volume6(m, v) : hdg_mesh_signed_area2(m, v);
}

static double longest_edge2(const hdg_mesh *m, const int *v)
{
    double h2 = 0;
    int n = hdg_mesh_nfe(m);
    for (int s = 1; s <= n / 2; s++) /* 2D: the edges (j, j+1); 3D: also the diagonals (j, j+2) */
        for (int j = 0; j < n; j++) {
            int a = v[j], b = v[(j + s) % n];
            double dx = m->vx[b] - m->vx[a], dy = m->vy[b] - m->vy[a];
            double d2 = dx * dx + dy * dy;
            if (m->vz && hdg_mesh_dim(m) == 3) d2 += (m->vz[b] - m->vz[a]) * (m->vz[b] - m->vz[a]);
            if (d2 > h2) h2 = d2;
        }
    return h2;
}

static hdg_status degenerate_fail(const hdg_mesh *m, int e, double meas, double h2, hdg_error *err)
{
    char loc[1200], b[4][32];
    const int *v = m->ev + hdg_mesh_nfe(m) * e;
    if (hdg_mesh_dim(m) == 3)
        return hdg_fail(err, HDG_EINPUT,
                        "%sdegenerate tetrahedron: element %d (%s, %s, %s, %s) has volume %.3g "
                        "(longest edge %.3g)",
                        eloc(m, e, loc, sizeof loc), e, vname(m, v[0], b[0], 32), vname(m, v[1], b[1], 32),
                        vname(m, v[2], b[2], 32), vname(m, v[3], b[3], 32), meas, sqrt(h2));
    return hdg_fail(err, HDG_EINPUT,
                    "%sdegenerate triangle: element %d (%s, %s, %s) has area %.3g "
                    "(longest edge %.3g)",
                    eloc(m, e, loc, sizeof loc), e, vname(m, v[0], b[0], 32), vname(m, v[1], b[1], 32),
                    vname(m, v[2], b[2], 32), meas, sqrt(h2));
}

/* Checks vertex indices, coordinates and size; flips negatively oriented elements
 * (clockwise triangles, inverted tetrahedra) by swapping their vertices 1 and 2. */
static hdg_status check_elements(hdg_mesh *m, hdg_error *err)
{
    char loc[1200];
    int d = hdg_mesh_dim(m), n = d + 1;
    if (d == 3 && !m->vz) return hdg_fail(err, HDG_EINTERNAL, "tetrahedral mesh without z coordinates");
    if (m->ne <= 0)
        return hdg_fail(err, HDG_EINPUT, "%s: mesh has no %s", m->source ? m->source : "mesh", enames(m));
    for (int i = 0; i < m->nv; i++)
        if (!isfinite(m->vx[i]) || !isfinite(m->vy[i]) || (d == 3 && !isfinite(m->vz[i])))
            return hdg_fail(err, HDG_EINPUT, "vertex %d has a non-finite coordinate", i);
    m->nreoriented = 0;
    for (int e = 0; e < m->ne; e++) {
        int *v = m->ev + n * e;
        for (int j = 0; j < n; j++)
            if (v[j] < 0 || v[j] >= m->nv)
                return hdg_fail(err, HDG_EINTERNAL, "element %d: vertex index %d out of range", e, v[j]);
        double a2 = signed_measure(m, v), h2 = longest_edge2(m, v);
        double meas = fabs(a2) / (d == 3 ? 6 : 2), hd = d == 3 ? h2 * sqrt(h2) : h2;
        if (!isfinite(a2) || !isfinite(h2)) /* else NaN passes both tests below */
            return hdg_fail(err, HDG_EINPUT,
                            "%selement %d: coordinates too large (its %s or edge length overflows a double)",
                            eloc(m, e, loc, sizeof loc), e, d == 3 ? "volume" : "area");
        if (meas <= DEGENERATE_TOL * hd) return degenerate_fail(m, e, meas, h2, err);
        if (fabs(a2) < DBL_MIN) /* subnormal: geometry and kernels would lose every digit */
            return hdg_fail(err, HDG_EINPUT,
                            "%selement %d: coordinates too small (its %s %.3g underflows a double)",
                            eloc(m, e, loc, sizeof loc), e, d == 3 ? "volume" : "area", meas);
        if (a2 < 0) {
            int t = v[1];
            v[1] = v[2], v[2] = t;
            m->nreoriented++;
        }
    }
    return HDG_OK;
}

/* ------------------------------------------------------------- topology */

/* Half-faces k = (d+1)e + j (local face j of element e), grouped by the smallest
 * topological vertex of their sorted vertex tuple (CSR: start[a]..start[a+1]), each
 * group ordered by the rest of the tuple, then k. In 2D a half-face is a half-edge. */
typedef struct face_index {
    int *start; /* nv+1 */
    int *half;  /* (d+1)ne half-face ids */
} face_index;

static int gv(const hdg_mesh *m, int k, int i) /* geometric vertex i (< d) of half-face k */
{
    int n = hdg_mesh_nfe(m), e = k / n, j = k % n;
    return m->ev[n * e + hdg_simplex_face_vertices(n - 1, j)[i]];
}

static int topv(const hdg_mesh *m, int v) { return m->vtop ? m->vtop[v] : v; }

/* Topological vertex i of half-face k: faces are paired on these. */
static int hv(const hdg_mesh *m, int k, int i) { return topv(m, gv(m, k, i)); }

/* The sorted topological vertices of half-face k (d entries; key[2] = 0 in 2D). */
static void hkey(const hdg_mesh *m, int k, int key[3])
{
    int d = hdg_mesh_dim(m);
    key[2] = 0;
    for (int i = 0; i < d; i++) {
        int v = hv(m, k, i), p = i;
        while (p > 0 && key[p - 1] > v) key[p] = key[p - 1], p--;
        key[p] = v;
    }
}

static int lo(const hdg_mesh *m, int k) { int key[3]; hkey(m, k, key); return key[0]; }

typedef struct rest_half { int r0, r1, k; } rest_half; /* key[1], key[2], half-face */

static int cmp_rest_half(const void *a, const void *b)
{
    const rest_half *x = a, *y = b;
    if (x->r0 != y->r0) return x->r0 < y->r0 ? -1 : 1;
    if (x->r1 != y->r1) return x->r1 < y->r1 ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Do half-faces k and l have the same topological vertices? */
static int same_face(const hdg_mesh *m, int k, int l)
{
    int a[3], b[3];
    hkey(m, k, a), hkey(m, l, b);
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static void face_index_build(face_index *x, const hdg_mesh *m)
{
    int nh = hdg_mesh_nfe(m) * m->ne, big = 1;
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
    /* order each bucket by the other vertices, then k (qsort: a vertex may have any
     * number of elements; a fan of 10^5 made an insertion sort hang) */
    rest_half *t = hdg_xmalloc((size_t)big * sizeof *t);
    for (int a = 0; a < m->nv; a++) {
        int n = x->start[a + 1] - x->start[a], *h = x->half + x->start[a];
        if (n < 2) continue;
        for (int i = 0; i < n; i++) {
            int key[3];
            hkey(m, h[i], key);
            t[i] = (rest_half){key[1], key[2], h[i]};
        }
        qsort(t, (size_t)n, sizeof *t, cmp_rest_half);
        for (int i = 0; i < n; i++) h[i] = t[i].k;
    }
    free(t);
}

static void face_index_free(face_index *x) { free(x->start), free(x->half); }

/* "edge between A and B" (2D) or "face of A, B and C" (3D), from the sorted key. */
static const char *face_desc(const hdg_mesh *m, const int key[3], char *buf, size_t n)
{
    char a[32], b[32], c[32];
    if (hdg_mesh_dim(m) == 3)
        snprintf(buf, n, "face of %s, %s and %s", vname(m, key[0], a, sizeof a), vname(m, key[1], b, sizeof b),
                 vname(m, key[2], c, sizeof c));
    else snprintf(buf, n, "edge between %s and %s", vname(m, key[0], a, sizeof a), vname(m, key[1], b, sizeof b));
    return buf;
}

/* The topological vertices of half-face k in its element's order. */
static void horder(const hdg_mesh *m, int k, int *t)
{
    for (int i = 0; i < hdg_mesh_dim(m); i++) t[i] = hv(m, k, i);
}

/* Orientation of half-face l against half-face k (same topological vertices). */
static int face_orient(const hdg_mesh *m, int k, int l)
{
    int a[3], b[3];
    horder(m, k, a), horder(m, l, b);
    return hdg_face_orientation(hdg_mesh_dim(m), a, b);
}

/* Sign of a permutation of 0..n-1. */
int hdg_mesh_perm_sign(const int *p, int n)
{
    int s = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (p[i] > p[j]) s = -s;
    return s;
}

/* +1 when the opposite vertex of local face j lies on the positive side of the face
 * in its listed order (left of an edge in 2D; on the side of (b-a)x(c-a) in 3D) for a
 * positively oriented element: the sign of the permutation (face vertices, opposite). */
static int face_side(int d, int j)
{
    const int *w = hdg_simplex_face_vertices(d, j);
    int p[4], used = 0;
    for (int i = 0; i < d; i++) p[i] = w[i], used |= 1 << w[i];
    for (int v = 0; v <= d; v++)
        if (!(used & 1 << v)) p[d] = v;
    return hdg_mesh_perm_sign(p, d + 1);
}

/* Do the elements of half-faces k and l lie on the same side of their common face? */
static int same_side(const hdg_mesh *m, int k, int l)
{
    int d = hdg_mesh_dim(m), n = d + 1, o = face_orient(m, k, l);
    int s = face_side(d, k % n) * face_side(d, l % n) * hdg_mesh_perm_sign(hdg_face_orient_perm(d, o), d);
    return s > 0;
}

/* Position in half-face l of the vertex matching vertex i of half-face k. */
static int matching(const hdg_mesh *m, int k, int l, int i)
{
    const int *pi = hdg_face_orient_perm(hdg_mesh_dim(m), face_orient(m, k, l));
    int p = 0;
    while (pi[p] != i) p++;
    return p;
}

/* Two half-faces paired through vtop: the same face, or copies of one face translated
 * (every vertex by the same vector). Anything else is an identification that folds the
 * mesh (too few elements across a periodic direction). */
static hdg_status check_translation(const hdg_mesh *m, int k, int k2, hdg_error *err)
{
    int d = hdg_mesh_dim(m), a[3], b[3], same = 1, moved = 1;
    for (int i = 0; i < d; i++) {
        a[i] = gv(m, k, i), b[i] = gv(m, k2, matching(m, k, k2, i));
        same &= a[i] == b[i], moved &= a[i] != b[i];
    }
    if (same) return HDG_OK;
    double t0[3] = {m->vx[a[0]] - m->vx[b[0]], m->vy[a[0]] - m->vy[b[0]], d == 3 ? m->vz[a[0]] - m->vz[b[0]] : 0};
    double len = 0;
    for (int i = 1; i < d; i++) len = fmax(len, vdist(m, a[0], a[i]));
    double tol = 1e-8 * fmax(len, d == 3 ? hypot(hypot(t0[0], t0[1]), t0[2]) : hypot(t0[0], t0[1]));
    int ok = moved;
    for (int i = 1; i < d && ok; i++) {
        double t[3] = {m->vx[a[i]] - m->vx[b[i]], m->vy[a[i]] - m->vy[b[i]], d == 3 ? m->vz[a[i]] - m->vz[b[i]] : 0};
        for (int c = 0; c < d; c++) ok &= fabs(t0[c] - t[c]) <= tol;
    }
    if (ok) return HDG_OK;
    char pa[3][80], pb[3][80];
    for (int i = 0; i < d; i++) vpoint(m, a[i], pa[i], 80), vpoint(m, b[i], pb[i], 80);
    return hdg_fail(err, HDG_EINPUT,
                    "periodic identification folds the mesh: the %s %s-%s%s%s of element %d "
                    "and the %s %s-%s%s%s of element %d join the same identified vertices "
                    "but are not translated copies (too few elements across a periodic direction? at least 3 are "
                    "needed)",
                    d == 3 ? "face" : "edge", pa[0], pa[1], d == 3 ? "-" : "", d == 3 ? pa[2] : "",
                    k / (d + 1), d == 3 ? "face" : "edge", pb[0], pb[1], d == 3 ? "-" : "", d == 3 ? pb[2] : "",
                    k2 / (d + 1));
}

/* No element may have two vertices identified with each other. */
static hdg_status check_identified(const hdg_mesh *m, hdg_error *err)
{
    int n = hdg_mesh_nfe(m);
    for (int e = 0; m->vtop && e < m->ne; e++) {
        const int *v = m->ev + n * e;
        for (int s = 1; s <= n / 2; s++) /* every pair of vertices (2D: the edges) */
            for (int j = 0; j < n; j++) {
                int a = v[j], b = v[(j + s) % n];
                char pa[80], pb[80];
                if (m->vtop[a] == m->vtop[b])
                    return hdg_fail(err, HDG_EINPUT,
                                    "periodic identification folds element %d: its vertices %s and "
                                    "%s are identified (at least 3 elements are needed across a "
                                    "periodic direction)",
                                    e, vpoint(m, a, pa, sizeof pa), vpoint(m, b, pb, sizeof pb));
            }
    }
    return HDG_OK;
}

static hdg_status nonmanifold_fail(const hdg_mesh *m, const int *run, int n, hdg_error *err)
{
    char loc[1200], desc[128];
    int key[3], nfe = hdg_mesh_nfe(m);
    hkey(m, run[0], key);
    hdg_str s;
    hdg_str_init(&s);
    for (int t = 0; t < n; t++) hdg_str_printf(&s, "%s%d", t ? ", " : "", run[t] / nfe);
    hdg_fail(err, HDG_EINPUT, "%snon-manifold %s (elements %s)%s", eloc(m, run[n - 1] / nfe, loc, sizeof loc),
             face_desc(m, key, desc, sizeof desc), s.s,
             m->vtop ? " after the periodic identification (too few elements across a periodic "
                       "direction? at least 3 are needed)" : "");
    hdg_str_free(&s);
    return HDG_EINPUT;
}

/* Pairs up half-faces: partner[k] = the other half-face of the same face, -1 on
 * the boundary. Fails on overlapping elements and non-manifold faces. */
static hdg_status pair_half_faces(hdg_mesh *m, const face_index *x, int *partner, hdg_error *err)
{
    char loc[1200], desc[128];
    int nfe = hdg_mesh_nfe(m);
    hdg_status st;
    for (int a = 0; a < m->nv; a++) {
        for (int i = x->start[a]; i < x->start[a + 1];) {
            int n = 1, k = x->half[i];
            while (i + n < x->start[a + 1] && same_face(m, x->half[i + n], k)) n++;
            const int *run = x->half + i;
            if (n == 1) partner[k] = -1;
            if (n == 2) {
                int k2 = run[1], key[3];
                hkey(m, k, key);
                if (same_side(m, k, k2))
                    return hdg_fail(err, HDG_EINPUT,
                                    "%soverlapping %s: elements %d and %d lie on the same side "
                                    "of the %s (duplicate or folded %s)",
                                    eloc(m, k2 / nfe, loc, sizeof loc), enames(m), k / nfe, k2 / nfe,
                                    face_desc(m, key, desc, sizeof desc), enames(m));
                if (m->vtop && (st = check_translation(m, k, k2, err))) return st;
                partner[k] = k2, partner[k2] = k;
            }
            if (n > 2) return nonmanifold_fail(m, run, n, err);
            i += n;
        }
    }
    return HDG_OK;
}

/* Numbers faces in order of first appearance and fills ef, eforient, fv, fe, flf. */
static void number_faces(hdg_mesh *m, const int *partner)
{
    int d = hdg_mesh_dim(m), nfe = d + 1, nh = nfe * m->ne;
    m->ef = hdg_xmalloc((size_t)nh * sizeof(int));
    m->eforient = hdg_xmalloc((size_t)nh * sizeof(int));
    for (int k = 0; k < nh; k++) m->ef[k] = -1;
    int nf = 0;
    for (int k = 0; k < nh; k++) nf += partner[k] < 0 || partner[k] > k;
    m->nf = nf;
    m->fv = hdg_xmalloc((size_t)d * nf * sizeof(int));
    m->ftv = hdg_xmalloc((size_t)d * nf * sizeof(int));
    m->fe = hdg_xmalloc((size_t)2 * nf * sizeof(int));
    m->flf = hdg_xmalloc((size_t)2 * nf * sizeof(int));
    m->nbf = 0, m->nperiodic = 0;
    for (int k = 0, f = 0; k < nh; k++) {
        if (m->ef[k] >= 0) continue;
        int p = partner[k];
        m->ef[k] = f, m->eforient[k] = 0;
        for (int i = 0; i < d; i++) m->fv[d * f + i] = gv(m, k, i), m->ftv[d * f + i] = hv(m, k, i);
        m->nperiodic += p >= 0 && gv(m, p, matching(m, k, p, 0)) != gv(m, k, 0);
        m->fe[2 * f] = k / nfe, m->flf[2 * f] = k % nfe;
        m->fe[2 * f + 1] = p < 0 ? -1 : p / nfe, m->flf[2 * f + 1] = p < 0 ? -1 : p % nfe;
        if (p >= 0) m->ef[p] = f, m->eforient[p] = face_orient(m, k, p);
        else m->nbf++;
        f++;
    }
}

static void build_coupling(hdg_mesh *m)
{
    int d = hdg_mesh_dim(m), nfe = d + 1, na = hdg_mesh_na(m);
    size_t nn = (size_t)na * m->nf;
    m->fnbr = hdg_xmalloc(nn * sizeof(int));
    m->fnbr_elem = hdg_xmalloc(nn * sizeof(int));
    m->fnbr_lf = hdg_xmalloc(nn * sizeof(int));
    for (int f = 0; f < m->nf; f++) {
        int *nb = m->fnbr + na * f, *ne = m->fnbr_elem + na * f, *nl = m->fnbr_lf + na * f;
        nb[0] = f, ne[0] = m->fe[2 * f], nl[0] = m->flf[2 * f];
        for (int s = 0; s < 2; s++) {
            int e = m->fe[2 * f + s], j = m->flf[2 * f + s];
            for (int t = 1; t <= d; t++) {
                int a = 1 + d * s + (t - 1);
                nb[a] = e < 0 ? -1 : m->ef[nfe * e + (j + t) % nfe];
                ne[a] = e;
                nl[a] = e < 0 ? -1 : (j + t) % nfe;
            }
        }
    }
}

/* Face with topological vertices v[0..d-1] (any order), or -1. */
static int find_face(const hdg_mesh *m, const face_index *x, const int *v)
{
    int d = hdg_mesh_dim(m), key[3] = {0, 0, 0};
    for (int i = 0; i < d; i++) {
        int p = i;
        while (p > 0 && key[p - 1] > v[i]) key[p] = key[p - 1], p--;
        key[p] = v[i];
    }
    for (int i = 1; i < d; i++)
        if (key[i] == key[i - 1]) return -1;
    int lo_i = x->start[key[0]], hi_i = x->start[key[0] + 1]; /* bucket sorted by the rest: bisect */
    while (lo_i < hi_i) {
        int mid = lo_i + (hi_i - lo_i) / 2, k[3];
        hkey(m, x->half[mid], k);
        if (k[1] < key[1] || (k[1] == key[1] && k[2] < key[2])) lo_i = mid + 1;
        else hi_i = mid;
    }
    if (lo_i >= x->start[key[0] + 1]) return -1;
    int k[3];
    hkey(m, x->half[lo_i], k);
    return k[1] == key[1] && k[2] == key[2] ? m->ef[x->half[lo_i]] : -1;
}

static hdg_status tag_not_face(const hdg_mesh *m, const int *g, hdg_error *err)
{
    int d = hdg_mesh_dim(m);
    char b[3][32];
    for (int i = 0; i < d; i++) vname(m, g[i], b[i], sizeof b[i]);
    if (d == 3) {
        if (g[d + 1] > 0 && m->source)
            return hdg_fail(err, HDG_EINPUT,
                            "%s:%d: boundary triangle element on %s, %s and %s is not a face of any "
                            "tetrahedron",
                            m->source, g[d + 1], b[0], b[1], b[2]);
        return hdg_fail(err, HDG_EINPUT, "tagged face of %s, %s and %s is not a face of any tetrahedron", b[0],
                        b[1], b[2]);
    }
    if (g[d + 1] > 0 && m->source)
        return hdg_fail(err, HDG_EINPUT,
                        "%s:%d: boundary line element joins %s and %s, which is not an edge "
                        "of any triangle",
                        m->source, g[d + 1], b[0], b[1]);
    return hdg_fail(err, HDG_EINPUT, "tagged edge between %s and %s is not an edge of any triangle", b[0], b[1]);
}

/* Applies the constructor's tagged faces; untagged boundary faces get "boundary". */
static hdg_status assign_markers(hdg_mesh *m, const face_index *x, hdg_error *err)
{
    int d = hdg_mesh_dim(m);
    m->fmark = hdg_xcalloc((size_t)m->nf, sizeof(int));
    for (int t = 0; t < m->ntag; t++) {
        const int *g = m->tag + (d + 2) * t;
        int bad = g[d] <= 0, tv[3];
        for (int i = 0; i < d; i++) bad |= g[i] < 0 || g[i] >= m->nv;
        if (bad) return hdg_fail(err, HDG_EINTERNAL, "tagged %s %d is malformed", d == 3 ? "face" : "edge", t);
        for (int i = 0; i < d; i++) tv[i] = topv(m, g[i]);
        int f = find_face(m, x, tv);
        if (f < 0) return tag_not_face(m, g, err);
        if (m->fe[2 * f + 1] < 0 && m->fmark[f] == 0) m->fmark[f] = g[d];
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

/* Tetrahedra: the geometric boundary faces (unpaired, or paired with a translated
 * copy), outward, for mesh_overlap3.c. */
static hdg_status check_overlaps3(const hdg_mesh *m, const int *partner, hdg_error *err)
{
    int nh = 4 * m->ne, nb = 0;
    int *bf = hdg_xmalloc(sizeof(int) * 5 * ((size_t)nh + 1));
    for (int k = 0; k < nh; k++) {
        int p = partner[k];
        if (p >= 0 && gv(m, p, matching(m, k, p, 0)) == gv(m, k, 0)) continue;
        int *f = bf + 5 * nb++, e = k / 4, j = k % 4, out = face_side(3, j) < 0;
        f[0] = gv(m, k, 0), f[1] = gv(m, k, out ? 1 : 2), f[2] = gv(m, k, out ? 2 : 1), f[3] = e;
        f[4] = m->ev[4 * e + (6 - hdg_simplex_face_vertices(3, j)[0] - hdg_simplex_face_vertices(3, j)[1] -
                              hdg_simplex_face_vertices(3, j)[2])];
    }
    hdg_status st = hdg_mesh_overlap3(m, nb, bf, err);
    free(bf);
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
    if (m->dim != 2 && m->dim != 3) return hdg_fail(err, HDG_EINTERNAL, "mesh dimension %d (2 or 3)", m->dim);
    hdg_status st = check_elements(m, err);
    if (!st) st = check_identified(m, err);
    if (st) return st;
    if (m->ne > MAX_ELEMENTS)
        return hdg_fail(err, HDG_EINPUT, "mesh too large: %d %s (at most %d)", m->ne, enames(m), MAX_ELEMENTS);
    face_index x;
    face_index_build(&x, m);
    int *partner = hdg_xmalloc((size_t)hdg_mesh_nfe(m) * m->ne * sizeof(int));
    st = pair_half_faces(m, &x, partner, err);
    if (!st) st = m->dim == 2 ? check_overlaps(m, partner, err) : check_overlaps3(m, partner, err);
    if (!st) {
        number_faces(m, partner);
        build_coupling(m);
        st = assign_markers(m, &x, err);
    }
    free(partner);
    face_index_free(&x);
    if (st) drop_topology(m);
    return st;
}
