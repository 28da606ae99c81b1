/* mesh_periodic.c — periodic meshes: two boundary groups whose faces match by a
 * translation are identified (mesh.h: vtop, ftv), the spec option ",periodic=A:B,C:D". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh/mesh.h"
#include "support/util.h"

#define MATCH_TOL 1e-10   /* midpoints and ends match within this times the mesh diameter */

int hdg_mesh_face_periodic(const hdg_mesh *m, int f)
{
    int e = m->fe[2 * f + 1];
    return e >= 0 && m->ev[3 * e + m->flf[2 * f + 1]] != m->fv[2 * f + 1];
}

void hdg_mesh_face_shift(const hdg_mesh *m, int f, double *dx, double *dy)
{
    *dx = *dy = 0;
    if (!hdg_mesh_face_periodic(m, f)) return;
    int e = m->fe[2 * f + 1], b = m->ev[3 * e + m->flf[2 * f + 1]];   /* the second copy of fv[2f+1] */
    *dx = m->vx[m->fv[2 * f + 1]] - m->vx[b];
    *dy = m->vy[m->fv[2 * f + 1]] - m->vy[b];
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

typedef struct mid { double x, y; int f; } mid;

static int cmp_mid(const void *a, const void *b)
{
    const mid *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    return p->f - q->f;
}

/* The boundary faces carrying marker id, their midpoints, and the box of their ends. */
static int group_faces(const hdg_mesh *m, int id, mid *out, double box[4])
{
    int n = 0;
    box[0] = box[2] = INFINITY, box[1] = box[3] = -INFINITY;
    for (int f = 0; f < m->nf; f++) {
        if (m->fe[2 * f + 1] >= 0 || m->fmark[f] != id) continue;
        int a = m->fv[2 * f], b = m->fv[2 * f + 1];
        out[n++] = (mid){0.5 * (m->vx[a] + m->vx[b]), 0.5 * (m->vy[a] + m->vy[b]), f};
        box[0] = fmin(box[0], fmin(m->vx[a], m->vx[b])), box[1] = fmax(box[1], fmax(m->vx[a], m->vx[b]));
        box[2] = fmin(box[2], fmin(m->vy[a], m->vy[b])), box[3] = fmax(box[3], fmax(m->vy[a], m->vy[b]));
    }
    return n;
}

/* "path:LINE: " of the line element that tagged face f, or "". */
static const char *face_loc(const hdg_mesh *m, int f, char *buf, size_t n)
{
    buf[0] = '\0';
    int a = m->fv[2 * f], b = m->fv[2 * f + 1];
    for (int t = 0; m->source && t < m->ntag; t++) {
        const int *g = m->tag + 4 * t;
        if (g[3] > 0 && ((g[0] == a && g[1] == b) || (g[0] == b && g[1] == a))) {
            snprintf(buf, n, "%s:%d: ", m->source, g[3]);
            break;
        }
    }
    return buf;
}

static hdg_status no_partner(const hdg_mesh *m, int f, const char *na, const char *nb, double tx, double ty,
                             const char *why, hdg_error *err)
{
    char loc[1200];
    int a = m->fv[2 * f], b = m->fv[2 * f + 1];
    return hdg_fail(err, HDG_EINPUT,
                    "%speriodic=%s:%s: face %d (element %d, from (%.17g, %.17g) to (%.17g, %.17g)) of '%s' %s "
                    "on '%s' (translation (%.17g, %.17g) between the groups' bounding boxes; tolerance %g of the "
                    "mesh size)",
                    face_loc(m, f, loc, sizeof loc), na, nb, f, m->fe[2 * f], m->vx[a], m->vy[a], m->vx[b], m->vy[b],
                    na, why, nb, tx, ty, MATCH_TOL);
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

static int near(double x, double y, double px, double py, double tol)
{
    return fabs(x - px) <= tol && fabs(y - py) <= tol;
}

/* Matches every face of group ia to one of group ib; identifies their ends in parent. */
static hdg_status match_pair(const hdg_mesh *m, int ia, int ib, double tol, int *parent, int *npaired,
                             hdg_error *err)
{
    const char *na = m->marker_names[ia], *nb = m->marker_names[ib];
    mid *A = hdg_xmalloc(sizeof(mid) * (size_t)m->nbf), *B = hdg_xmalloc(sizeof(mid) * (size_t)m->nbf);
    unsigned char *used = NULL;
    int swapped = 0;
    double ba[4], bb[4];
    int na_f = group_faces(m, ia, A, ba), nb_f = group_faces(m, ib, B, bb);
    double tx = 0.5 * (bb[0] + bb[1] - ba[0] - ba[1]), ty = 0.5 * (bb[2] + bb[3] - ba[2] - ba[3]);
    hdg_status st = HDG_OK;
    if (hypot(tx, ty) <= tol) {
        st = hdg_fail(err, HDG_EINPUT, "periodic=%s:%s: the two groups lie at the same place (no translation "
                      "between them)", na, nb);
        goto done;
    }
    if (bb[1] - bb[0] < bb[3] - bb[2]) {   /* sort along the group's longer extent: a short window */
        for (int i = 0; i < na_f; i++) A[i] = (mid){A[i].y, A[i].x, A[i].f};
        for (int j = 0; j < nb_f; j++) B[j] = (mid){B[j].y, B[j].x, B[j].f};
        swapped = 1;
    }
    double kx = swapped ? ty : tx, ky = swapped ? tx : ty;   /* the translation in the sort keys */
    qsort(B, (size_t)nb_f, sizeof *B, cmp_mid);
    used = hdg_xcalloc((size_t)nb_f + 1, 1);
    for (int i = 0; i < na_f; i++) {
        double px = A[i].x + kx, py = A[i].y + ky;
        int lo = 0, hi = nb_f;   /* first B with x >= px - tol */
        while (lo < hi) {
            int md = lo + (hi - lo) / 2;
            if (B[md].x < px - tol) lo = md + 1;
            else hi = md;
        }
        int j = lo;
        while (j < nb_f && B[j].x <= px + tol && (used[j] || !near(B[j].x, B[j].y, px, py, tol))) j++;
        if (j >= nb_f || B[j].x > px + tol) {
            char why[200];
            snprintf(why, sizeof why, "has no partner: no face has its midpoint at (%.17g, %.17g)", swapped ? py : px,
                     swapped ? px : py);
            st = no_partner(m, A[i].f, na, nb, tx, ty, why, err);
            goto done;
        }
        used[j] = 1;
        int f = A[i].f, g = B[j].f;
        int a0 = m->fv[2 * f], a1 = m->fv[2 * f + 1], b0 = m->fv[2 * g], b1 = m->fv[2 * g + 1];
        /* both traversed counter-clockwise by their elements: a0 + t = b1, a1 + t = b0 */
        if (!near(m->vx[b1], m->vy[b1], m->vx[a0] + tx, m->vy[a0] + ty, tol) ||
            !near(m->vx[b0], m->vy[b0], m->vx[a1] + tx, m->vy[a1] + ty, tol)) {
            char why[300];
            snprintf(why, sizeof why, "meets face %d (from (%.17g, %.17g) to (%.17g, %.17g)) at its midpoint but "
                     "not at its ends", g, m->vx[b0], m->vy[b0], m->vx[b1], m->vy[b1]);
            st = no_partner(m, f, na, nb, tx, ty, why, err);
            goto done;
        }
        uf_union(parent, a0, b1), uf_union(parent, a1, b0);
        ++*npaired;
    }
    for (int j = 0; j < nb_f; j++)
        if (!used[j]) {
            st = no_partner(m, B[j].f, nb, na, -tx, -ty, "has no partner (the groups have different faces)", err);
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

/* Drops the tagged edges of the paired groups (they are interior now). */
static void drop_tags(hdg_mesh *m, int ids[][2], int npairs)
{
    int kept = 0;
    for (int t = 0; t < m->ntag; t++) {
        int id = m->tag[4 * t + 2], drop = 0;
        for (int k = 0; k < npairs; k++) drop |= id == ids[k][0] || id == ids[k][1];
        if (!drop) memmove(m->tag + 4 * kept++, m->tag + 4 * t, 4 * sizeof(int));
    }
    m->ntag = kept;
}

hdg_status hdg_mesh_make_periodic(hdg_mesh *m, const char *pairs, hdg_error *err)
{
    if (!m->fv) return hdg_fail(err, HDG_EINTERNAL, "periodic: the mesh has no topology yet");
    if (hdg_mesh_dim(m) != 2) return hdg_fail(err, HDG_EINPUT, "periodic: tetrahedral meshes are not paired yet");
    int ids[8][2], npairs = parse_pairs(m, pairs, ids, err);
    if (npairs < 0) return HDG_EINPUT;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int v = 0; v < m->nv; v++)
        x0 = fmin(x0, m->vx[v]), x1 = fmax(x1, m->vx[v]), y0 = fmin(y0, m->vy[v]), y1 = fmax(y1, m->vy[v]);
    double tol = MATCH_TOL * hypot(x1 - x0, y1 - y0);
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
