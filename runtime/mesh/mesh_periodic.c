/* mesh_periodic.c — periodic meshes: two boundary groups whose faces match by a
 * translation are identified (mesh.h: vtop, ftv), the spec option ",periodic=A:B,C:D". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh.h"
#include "support/util.h"

#define MATCH_TOL 1e-10   /* midpoints and ends match within this times the mesh diameter */

/* The coordinates of vertex v (dim of them). */
static void coords(const hdg_mesh *m, int v, double *x)
{
    x[0] = m->vx[v], x[1] = m->vy[v];
    if (hdg_mesh_dim(m) == 3) x[2] = m->vz[v];
}

int hdg_mesh_face_periodic(const hdg_mesh *m, int f)
{
    int d = hdg_mesh_dim(m), e = m->fe[2 * f + 1];
    if (e < 0) return 0;
    int b = m->ev[(d + 1) * e + hdg_simplex_face_vertices(d, m->flf[2 * f + 1])[0]];
    for (int k = 0; k < d; k++)
        if (m->fv[d * f + k] == b) return 0;
    return 1;
}

void hdg_mesh_face_translation(const hdg_mesh *m, int f, double *t)
{
    int d = hdg_mesh_dim(m);
    for (int c = 0; c < d; c++) t[c] = 0;
    if (!hdg_mesh_face_periodic(m, f)) return;
    int e = m->fe[2 * f + 1], j = m->flf[2 * f + 1];
    int b = m->ev[(d + 1) * e + hdg_simplex_face_vertices(d, j)[0]];   /* the second copy of its vertex 0 */
    int a = m->fv[d * f + hdg_face_orient_perm(d, m->eforient[(d + 1) * e + j])[0]];
    double xa[3], xb[3];
    coords(m, a, xa), coords(m, b, xb);
    for (int c = 0; c < d; c++) t[c] = xa[c] - xb[c];
}

void hdg_mesh_face_shift(const hdg_mesh *m, int f, double *dx, double *dy)
{
    double t[3];
    hdg_mesh_face_translation(m, f, t);
    *dx = t[0], *dy = t[1];
}

long hdg_mesh_spec_periodic(const char *spec, size_t len)
{
    static const char key[] = ",periodic=";
    size_t k = sizeof key - 1;
    for (size_t i = 0; i + k <= len; i++)
        if (!memcmp(spec + i, key, k)) return (long)i;
    return -1;
}

/* ------------------------------------------------------------ one pair of groups */

/* A face's centroid in sort-key order (k[0] along the group's longest extent). */
typedef struct mid { double k[3]; int f; } mid;

static int cmp_mid(const void *a, const void *b)
{
    const mid *p = a, *q = b;
    for (int c = 0; c < 3; c++)
        if (p->k[c] != q->k[c]) return p->k[c] < q->k[c] ? -1 : 1;
    return p->f - q->f;
}

/* The boundary faces carrying marker id, their centroids (coordinates in axis
 * order; k[2] = 0 in 2D), and the box of their vertices (box[2c], box[2c+1]). */
static int group_faces(const hdg_mesh *m, int id, mid *out, double box[6])
{
    int n = 0, d = hdg_mesh_dim(m);
    for (int c = 0; c < 3; c++) box[2 * c] = c < d ? INFINITY : 0, box[2 * c + 1] = c < d ? -INFINITY : 0;
    for (int f = 0; f < m->nf; f++) {
        if (m->fe[2 * f + 1] >= 0 || m->fmark[f] != id) continue;
        mid c = {{0, 0, 0}, f};
        for (int i = 0; i < d; i++) {
            double x[3];
            coords(m, m->fv[d * f + i], x);
            for (int a = 0; a < d; a++) {
                c.k[a] += x[a];
                box[2 * a] = fmin(box[2 * a], x[a]), box[2 * a + 1] = fmax(box[2 * a + 1], x[a]);
            }
        }
        for (int a = 0; a < d; a++) c.k[a] = d == 2 ? 0.5 * c.k[a] : c.k[a] / 3;
        out[n++] = c;
    }
    return n;
}

/* "path:LINE: " of the boundary element that tagged face f, or "". */
static const char *face_loc(const hdg_mesh *m, int f, char *buf, size_t n)
{
    int d = hdg_mesh_dim(m);
    buf[0] = '\0';
    for (int t = 0; m->source && t < m->ntag; t++) {
        const int *g = m->tag + (d + 2) * t;
        int hit = 0;
        for (int i = 0; i < d; i++)
            for (int k = 0; k < d; k++) hit += g[i] == m->fv[d * f + k];
        if (g[d + 1] > 0 && hit == d) {
            snprintf(buf, n, "%s:%d: ", m->source, g[d + 1]);
            break;
        }
    }
    return buf;
}

/* "(x, y)" or "(x, y, z)" of a point, %.17g. */
static const char *pt(int d, const double *x, char *buf, size_t n)
{
    if (d == 3) snprintf(buf, n, "(%.17g, %.17g, %.17g)", x[0], x[1], x[2]);
    else snprintf(buf, n, "(%.17g, %.17g)", x[0], x[1]);
    return buf;
}

/* "from (..) to (..)" (an edge) or "with vertices (..), (..), (..)" (a triangle). */
static const char *face_where(const hdg_mesh *m, int f, char *buf, size_t n)
{
    int d = hdg_mesh_dim(m);
    char p[3][80];
    for (int i = 0; i < d; i++) {
        double x[3];
        coords(m, m->fv[d * f + i], x);
        pt(d, x, p[i], sizeof p[i]);
    }
    if (d == 3) snprintf(buf, n, "with vertices %s, %s, %s", p[0], p[1], p[2]);
    else snprintf(buf, n, "from %s to %s", p[0], p[1]);
    return buf;
}

static hdg_status no_partner(const hdg_mesh *m, int f, const char *na, const char *nb, const double *t,
                             const char *why, hdg_error *err)
{
    char loc[1200], where[400], tr[120];
    return hdg_fail(err, HDG_EINPUT,
                    "%speriodic=%s:%s: face %d (element %d, %s) of '%s' %s "
                    "on '%s' (translation %s between the groups' bounding boxes; tolerance %g of the "
                    "mesh size)",
                    face_loc(m, f, loc, sizeof loc), na, nb, f, m->fe[2 * f], face_where(m, f, where, sizeof where),
                    na, why, nb, pt(hdg_mesh_dim(m), t, tr, sizeof tr), MATCH_TOL);
}

static int uf_find(int *parent, int v)
{
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

static void uf_union(int *parent, int a, int b)
{
    a = uf_find(parent, a), b = uf_find(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

static int near(const double *x, const double *p, double tol)
{
    return fabs(x[0] - p[0]) <= tol && fabs(x[1] - p[1]) <= tol && fabs(x[2] - p[2]) <= tol;
}

/* The sort-key order of the axes: the longest extent of box first (the ties and the
 * rest in axis order), so the window of candidates stays short. */
static void key_axes(int d, const double *box, int *ax)
{
    int first = 0;
    for (int a = 1; a < d; a++)
        if (box[2 * a + 1] - box[2 * a] > box[2 * first + 1] - box[2 * first]) first = a;
    ax[0] = first;
    for (int a = 0, n = 1; a < 3; a++)
        if (a != first) ax[n++] = a;
}

static void to_keys(mid *M, int n, const int *ax)
{
    for (int i = 0; i < n; i++) {
        double k[3] = {M[i].k[ax[0]], M[i].k[ax[1]], M[i].k[ax[2]]};
        memcpy(M[i].k, k, sizeof k);
    }
}

/* Identifies the vertices of face f with those of face g at x + t; 0 if one has no match. */
static int join_ends(const hdg_mesh *m, int f, int g, const double *t, double tol, int *parent)
{
    int d = hdg_mesh_dim(m), match[3];
    for (int i = 0; i < d; i++) {
        double xa[3] = {0, 0, 0}, xb[3] = {0, 0, 0};
        coords(m, m->fv[d * f + i], xa);
        for (int c = 0; c < d; c++) xa[c] += t[c];
        match[i] = -1;
        for (int j = 0; j < d && match[i] < 0; j++) {
            coords(m, m->fv[d * g + j], xb);
            if (near(xa, xb, tol)) match[i] = m->fv[d * g + j];
        }
        if (match[i] < 0) return 0;
    }
    for (int i = 0; i < d; i++) uf_union(parent, m->fv[d * f + i], match[i]);
    return 1;
}

/* Matches every face of group ia to one of group ib; identifies their vertices in parent. */
static hdg_status match_pair(const hdg_mesh *m, int ia, int ib, double tol, int *parent, int *npaired,
                             hdg_error *err)
{
    const char *na = m->marker_names[ia], *nb = m->marker_names[ib];
    int d = hdg_mesh_dim(m), ax[3];
    mid *A = hdg_xmalloc(sizeof(mid) * (size_t)m->nbf), *B = hdg_xmalloc(sizeof(mid) * (size_t)m->nbf);
    unsigned char *used = NULL;
    double ba[6], bb[6], t[3] = {0, 0, 0}, tk[3], back[3];
    int na_f = group_faces(m, ia, A, ba), nb_f = group_faces(m, ib, B, bb);
    for (int c = 0; c < d; c++) t[c] = 0.5 * (bb[2 * c] + bb[2 * c + 1] - ba[2 * c] - ba[2 * c + 1]);
    hdg_status st = HDG_OK;
    if (hypot(hypot(t[0], t[1]), t[2]) <= tol) {
        st = hdg_fail(err, HDG_EINPUT, "periodic=%s:%s: the two groups lie at the same place (no translation "
                      "between them)", na, nb);
        goto done;
    }
    key_axes(d, bb, ax);   /* sort along the group's longer extent: a short window */
    to_keys(A, na_f, ax), to_keys(B, nb_f, ax);
    for (int c = 0; c < 3; c++) tk[c] = t[ax[c]], back[c] = -t[c];   /* the translation in the sort keys */
    qsort(B, (size_t)nb_f, sizeof *B, cmp_mid);
    used = hdg_xcalloc((size_t)nb_f + 1, 1);
    for (int i = 0; i < na_f; i++) {
        double p[3] = {A[i].k[0] + tk[0], A[i].k[1] + tk[1], A[i].k[2] + tk[2]};
        int lo = 0, hi = nb_f;   /* first B with k[0] >= p[0] - tol */
        while (lo < hi) {
            int md = lo + (hi - lo) / 2;
            if (B[md].k[0] < p[0] - tol) lo = md + 1;
            else hi = md;
        }
        int j = lo;
        while (j < nb_f && B[j].k[0] <= p[0] + tol && (used[j] || !near(B[j].k, p, tol))) j++;
        if (j >= nb_f || B[j].k[0] > p[0] + tol) {
            char why[200], at[120];
            double x[3];
            for (int c = 0; c < 3; c++) x[ax[c]] = p[c];
            snprintf(why, sizeof why, "has no partner: no face has its %s at %s", d == 3 ? "centroid" : "midpoint",
                     pt(d, x, at, sizeof at));
            st = no_partner(m, A[i].f, na, nb, t, why, err);
            goto done;
        }
        used[j] = 1;
        int f = A[i].f, g = B[j].f;
        if (!join_ends(m, f, g, t, tol, parent)) {
            char why[400], where[300];
            snprintf(why, sizeof why, "meets face %d (%s) at its %s but not at its %s", g,
                     face_where(m, g, where, sizeof where), d == 3 ? "centroid" : "midpoint",
                     d == 3 ? "vertices" : "ends");
            st = no_partner(m, f, na, nb, t, why, err);
            goto done;
        }
        ++*npaired;
    }
    for (int j = 0; j < nb_f; j++)
        if (!used[j]) {
            st = no_partner(m, B[j].f, nb, na, back, "has no partner (the groups have different faces)", err);
            goto done;
        }
done:
    free(A), free(B), free(used);
    return st;
}

/* ------------------------------------------------------------ the pairs */

/* Faces per marker id (nmarkers + 1 entries, [0]: interior faces). */
static int *marker_counts(const hdg_mesh *m)
{
    int *count = hdg_xcalloc((size_t)m->nmarkers + 1, sizeof(int));
    for (int f = 0; f < m->nf; f++) count[m->fmark[f]]++;
    return count;
}

/* Marker id of a group given by name or integer id; 0 (with err set) if none has faces. */
static int group_id(const hdg_mesh *m, const char *name, const char *pairs, hdg_error *err)
{
    int id = hdg_mesh_marker_id(m, name);
    long t;
    if (id < 0 && hdg_parse_long(name, 1, m->nmarkers, &t) && m->marker_names[t]) id = (int)t;
    if (id > 0 && hdg_mesh_marker_count(m, id) > 0) return id;
    hdg_str list;
    hdg_str_init(&list);
    int *count = marker_counts(m);
    for (int i = 1; i <= m->nmarkers; i++)
        if (m->marker_names[i] && count[i] > 0)
            hdg_str_printf(&list, "%s%s (%d)", list.len ? ", " : "", m->marker_names[i], i);
    free(count);
    hdg_fail(err, HDG_EINPUT, "periodic=%s: the mesh %s has no boundary group '%s' (its groups: %s)", pairs,
             m->source ? m->source : "", name, list.len ? list.s : "none");
    hdg_str_free(&list);
    return 0;
}

/* Splits "A:B,C:D" into marker ids (at most 8 pairs). Returns the number of pairs, or -1. */
static int parse_pairs(const hdg_mesh *m, const char *pairs, int ids[][2], hdg_error *err)
{
    int n = 0;
    for (const char *p = pairs;;) {
        const char *c = strchr(p, ','), *end = c ? c : p + strlen(p);
        const char *colon = memchr(p, ':', (size_t)(end - p));
        if (!colon || colon == p || colon + 1 == end || memchr(colon + 1, ':', (size_t)(end - colon - 1))) {
            hdg_fail(err, HDG_EINPUT, "periodic=%s: expected pairs of boundary groups A:B[,C:D] (names or "
                     "integer tags), found '%.*s'", pairs, (int)(end - p), p);
            return -1;
        }
        if (n == 8) {
            hdg_fail(err, HDG_EINPUT, "periodic=%s: at most 8 pairs", pairs);
            return -1;
        }
        char name[2][256];
        int len[2] = {(int)(colon - p), (int)(end - colon - 1)};
        for (int s = 0; s < 2; s++) {
            if (len[s] >= (int)sizeof name[s]) {
                hdg_fail(err, HDG_EINPUT, "periodic=%s: a group name is too long", pairs);
                return -1;
            }
            memcpy(name[s], s ? colon + 1 : p, (size_t)len[s]), name[s][len[s]] = '\0';
            if (!(ids[n][s] = group_id(m, name[s], pairs, err))) return -1;
        }
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < 2 * n + s; i++)
                if (ids[i / 2][i % 2] == ids[n][s]) {
                    hdg_fail(err, HDG_EINPUT, "periodic=%s: the group '%s' is paired twice", pairs,
                             m->marker_names[ids[n][s]]);
                    return -1;
                }
        n++;
        if (!c) return n;
        p = c + 1;
    }
}

/* Drops the tagged faces of the paired groups (they are interior now). */
static void drop_tags(hdg_mesh *m, int ids[][2], int npairs)
{
    int kept = 0, w = hdg_mesh_dim(m) + 2;
    for (int t = 0; t < m->ntag; t++) {
        int id = m->tag[w * t + w - 2], drop = 0;
        for (int k = 0; k < npairs; k++) drop |= id == ids[k][0] || id == ids[k][1];
        if (!drop) memmove(m->tag + w * kept++, m->tag + w * t, (size_t)w * sizeof(int));
    }
    m->ntag = kept;
}

hdg_status hdg_mesh_make_periodic(hdg_mesh *m, const char *pairs, hdg_error *err)
{
    if (!m->fv) return hdg_fail(err, HDG_EINTERNAL, "periodic: the mesh has no topology yet");
    int ids[8][2], npairs = parse_pairs(m, pairs, ids, err);
    if (npairs < 0) return HDG_EINPUT;
    int d = hdg_mesh_dim(m);
    double lo[3] = {INFINITY, INFINITY, 0}, hi[3] = {-INFINITY, -INFINITY, 0};
    if (d == 3) lo[2] = INFINITY, hi[2] = -INFINITY;
    for (int v = 0; v < m->nv; v++) {
        double x[3];
        coords(m, v, x);
        for (int c = 0; c < d; c++) lo[c] = fmin(lo[c], x[c]), hi[c] = fmax(hi[c], x[c]);
    }
    double tol = MATCH_TOL * hypot(hypot(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    int *parent = hdg_xmalloc(sizeof(int) * (size_t)m->nv);
    for (int v = 0; v < m->nv; v++) parent[v] = m->vtop ? m->vtop[v] : v;
    int npaired = 0, before = m->nperiodic;
    hdg_status st = HDG_OK;
    for (int k = 0; k < npairs && !st; k++) st = match_pair(m, ids[k][0], ids[k][1], tol, parent, &npaired, err);
    if (st) {
        free(parent);
        return st;
    }
    int nmarkers0 = m->nmarkers, *count = marker_counts(m);
    for (int v = 0; v < m->nv; v++) parent[v] = uf_find(parent, v);   /* the smallest of each class */
    free(m->vtop);
    m->vtop = parent;
    drop_tags(m, ids, npairs);
    st = hdg_mesh_build_topology(m, err);
    if (!st && m->nperiodic != before + npaired)
        st = hdg_fail(err, HDG_EINPUT, "periodic=%s: %d faces were paired but %d became periodic faces (the "
                      "identification folds the mesh)", pairs, npaired, m->nperiodic - before);
    if (!st) {
        int *after = marker_counts(m);
        for (int id = 1; id <= m->nmarkers && id < nmarkers0 + 1; id++)   /* a group that lost all its faces is gone */
            if (count[id] > 0 && after[id] == 0) {
                free(m->marker_names[id]);
                m->marker_names[id] = NULL;
            }
        free(after);
        size_t old = m->periodic ? strlen(m->periodic) : 0;
        m->periodic = hdg_xrealloc(m->periodic, old + strlen(pairs) + 2);
        if (old) m->periodic[old++] = ',';
        strcpy(m->periodic + old, pairs);
    }
    free(count);
    return st;
}
