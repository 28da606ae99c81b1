/* mesh_dist.c — partitioning a mesh and sending each rank its piece
 * (mesh_dist.h). */
#include "runtime/parallel/mesh_dist.h"

#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/refel.h"
#include "runtime/parallel/comm.h"
#include "support/util.h"

#define TAG_PIECE 11
#define TAG_FACE_SUM 12

/* The element graph in CSR: elements sharing a face. */
static void element_graph(const hdg_mesh *m, int **xadj, int **adj)
{
    int *x = hdg_xcalloc((size_t)m->ne + 1, sizeof(int));
    for (int f = 0; f < m->nf; f++)
        if (m->fe[2 * f + 1] >= 0) x[m->fe[2 * f] + 1]++, x[m->fe[2 * f + 1] + 1]++;
    for (int e = 0; e < m->ne; e++) x[e + 1] += x[e];
    int *a = hdg_xmalloc(sizeof(int) * ((size_t)x[m->ne] + 1)), *fill = hdg_xcalloc((size_t)m->ne, sizeof(int));
    for (int f = 0; f < m->nf; f++) {
        int e0 = m->fe[2 * f], e1 = m->fe[2 * f + 1];
        if (e1 < 0) continue;
        a[x[e0] + fill[e0]++] = e1;
        a[x[e1] + fill[e1]++] = e0;
    }
    free(fill);
    *xadj = x, *adj = a;
}

hdg_status hdg_mesh_partition(const hdg_mesh *m, int nparts, int *part, hdg_error *err)
{
    if (nparts <= 1 || m->ne <= nparts) {   /* one part, or an element each (and empty parts) */
        for (int e = 0; e < m->ne; e++) part[e] = nparts <= 1 ? 0 : e;
        return HDG_OK;
    }
    int *xadj, *adj;
    element_graph(m, &xadj, &adj);
    idx_t n = m->ne, ncon = 1, np = nparts, cut = 0, opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 20261127;   /* the same partition on every run and machine */
    int rc = METIS_PartGraphKway(&n, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, opt, &cut, part);
    free(xadj), free(adj);
    if (rc == METIS_OK) return HDG_OK;
    return hdg_fail(err, rc == METIS_ERROR_MEMORY ? HDG_ENOMEM : HDG_EINTERNAL,
                    "partitioning the mesh into %d parts: METIS failed (code %d)", nparts, rc);
}

void hdg_mesh_partition_stats(const hdg_mesh *m, int nparts, const int *part, int *nelem, int *nhalo,
                              int *nnbr)
{
    if (nelem) memset(nelem, 0, sizeof(int) * (size_t)nparts);
    if (nhalo) memset(nhalo, 0, sizeof(int) * (size_t)nparts);
    if (nnbr) memset(nnbr, 0, sizeof(int) * (size_t)nparts);
    for (int e = 0; e < m->ne; e++)
        if (nelem) nelem[part[e]]++;
    int *seen = nnbr ? hdg_xmalloc(sizeof(int) * (size_t)nparts) : NULL;
    for (int f = 0; f < m->nf && nhalo; f++) {
        int e0 = m->fe[2 * f], e1 = m->fe[2 * f + 1];
        if (e1 >= 0 && part[e0] != part[e1]) nhalo[part[e0]]++, nhalo[part[e1]]++;
    }
    if (!nnbr) return;
    /* neighbour parts: for each part, the distinct parts across its faces */
    int *xadj, *adj;
    element_graph(m, &xadj, &adj);
    int *order = hdg_xmalloc(sizeof(int) * ((size_t)m->ne + 1)), *start = hdg_xcalloc((size_t)nparts + 1, sizeof(int));
    for (int e = 0; e < m->ne; e++) start[part[e] + 1]++;
    for (int p = 0; p < nparts; p++) start[p + 1] += start[p];
    int *fill = hdg_xcalloc((size_t)nparts, sizeof(int));
    for (int e = 0; e < m->ne; e++) order[start[part[e]] + fill[part[e]]++] = e;
    for (int p = 0; p < nparts; p++) seen[p] = -1;
    for (int p = 0; p < nparts; p++)
        for (int i = start[p]; i < start[p + 1]; i++)
            for (int k = xadj[order[i]]; k < xadj[order[i] + 1]; k++) {
                int q = part[adj[k]];
                if (q != p && seen[q] != p) seen[q] = p, nnbr[p]++;
            }
    free(order), free(start), free(fill), free(seen), free(xadj), free(adj);
}

/* ---------------------------------------------------------------- pieces */

/* A growing byte buffer. */
typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *x, size_t bytes)
{
    if (b->n + bytes > b->cap) {
        b->cap = 2 * (b->n + bytes) + 256;
        b->p = hdg_xrealloc(b->p, b->cap);
    }
    if (bytes) memcpy(b->p + b->n, x, bytes);
    b->n += bytes;
}

static const char *get(const char **at, size_t bytes)
{
    const char *p = *at;
    *at += bytes;
    return p;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The piece of rank r: its elements (own, then ghosts by owner and id),
 * their vertices, global face ids, owners, tagged boundary and interface
 * faces, the marker names and the face ranges; the dimension as data (nfe =
 * dim+1 faces and vertices per element, dim coordinates per vertex). */
static void pack_piece(const hdg_mesh *M, const int *part, const long long *gid, const long long *fstart,
                       const long long *vnum, const long long *vstart, int P, int r, int ghosts, buf *b)
{
    int ne = M->ne, dim = hdg_mesh_dim(M), nfe = dim + 1;
    long long *key = hdg_xmalloc(sizeof(long long) * ((size_t)ne + 1));
    int nown = 0, nghost = 0;
    for (int e = 0; e < ne; e++)
        if (part[e] == r) key[nown++] = e;
    unsigned char *in = hdg_xcalloc((size_t)ne, 1);
    for (int i = 0; i < nown; i++) in[key[i]] = 1;
    if (ghosts) {   /* face neighbours of own elements in other parts, sorted by (owner, id) */
        long long *g = key + nown;
        for (int i = 0; i < nown; i++)
            for (int j = 0; j < nfe; j++) {
                int f = M->ef[nfe * key[i] + j], o = M->fe[2 * f] == key[i] ? M->fe[2 * f + 1] : M->fe[2 * f];
                if (o >= 0 && !in[o]) in[o] = 2, g[nghost++] = (long long)part[o] * ne + o;
            }
        qsort(g, (size_t)nghost, sizeof *g, cmp_ll);
        for (int i = 0; i < nghost; i++) g[i] %= ne;
    }
    int n = nown + nghost;
    int *vloc = hdg_xmalloc(sizeof(int) * ((size_t)M->nv + 1));
    for (int v = 0; v < M->nv; v++) vloc[v] = -1;
    int nv = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nfe; j++)
            if (vloc[M->ev[nfe * key[i] + j]] < 0) vloc[M->ev[nfe * key[i] + j]] = nv++;
    int hdr[6] = {n, nown, nv, 0, M->nmarkers, dim};
    long long glob[4] = {M->ne, M->nf, M->nv, M->nbf};
    /* tags (dim+2 ints): domain boundary faces, and faces to elements outside the piece */
    buf tags = {0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nfe; j++) {
            int e = (int)key[i], f = M->ef[nfe * e + j];
            int o = M->fe[2 * f] == e ? M->fe[2 * f + 1] : M->fe[2 * f];
            const int *w = hdg_simplex_face_vertices(dim, j);
            int t[5] = {0, 0, 0, 0, 0};
            for (int k = 0; k < dim; k++) t[k] = vloc[M->ev[nfe * e + w[k]]];
            if (o < 0) t[dim] = M->fmark[f];
            else if (!in[o]) t[dim] = M->nmarkers + 1;   /* the partition marker */
            if (t[dim] > 0) put(&tags, t, sizeof(int) * (size_t)(dim + 2)), hdr[3]++;
        }
    put(b, hdr, sizeof hdr);
    put(b, glob, sizeof glob);
    put(b, fstart, sizeof(long long) * ((size_t)P + 1));
    put(b, vstart, sizeof(long long) * ((size_t)P + 1));
    put(b, key, sizeof(long long) * (size_t)n);
    for (int i = 0; i < n; i++) put(b, &part[key[i]], sizeof(int));
    long long *vg = hdg_xmalloc(sizeof(long long) * ((size_t)nv + 1));
    for (int v = 0; v < M->nv; v++)
        if (vloc[v] >= 0) vg[vloc[v]] = vnum[M->vtop ? M->vtop[v] : v];
    put(b, vg, sizeof(long long) * (size_t)nv);
    free(vg);
    double *xy = hdg_xmalloc(sizeof(double) * (size_t)dim * ((size_t)nv + 1));
    for (int v = 0; v < M->nv; v++)
        if (vloc[v] >= 0) {
            xy[dim * vloc[v]] = M->vx[v], xy[dim * vloc[v] + 1] = M->vy[v];
            if (dim == 3) xy[dim * vloc[v] + 2] = M->vz[v];
        }
    put(b, xy, sizeof(double) * (size_t)dim * (size_t)nv);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nfe; j++) {
            int v = vloc[M->ev[nfe * key[i] + j]];
            put(b, &v, sizeof v);
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nfe; j++) put(b, &gid[M->ef[nfe * key[i] + j]], sizeof(long long));
    for (int i = 0; i < n; i++) put(b, &M->eforient[nfe * key[i]], (size_t)nfe * sizeof(int));
    for (int i = 0; i < n; i++)   /* the rank across each face that leaves the piece, else -1 */
        for (int j = 0; j < nfe; j++) {
            int e = (int)key[i], f = M->ef[nfe * e + j];
            int o = M->fe[2 * f] == e ? M->fe[2 * f + 1] : M->fe[2 * f], q = o >= 0 && !in[o] ? part[o] : -1;
            put(b, &q, sizeof q);
        }
    int periodic = M->vtop != NULL;   /* the topological vertex of each local vertex */
    put(b, &periodic, sizeof periodic);
    for (int v = 0; v < M->nv && periodic; v++)
        if (vloc[v] >= 0) {
            int pair[2] = {vloc[v], M->vtop[v]};
            put(b, pair, sizeof pair);
        }
    put(b, tags.p, tags.n);
    for (int id = 1; id <= M->nmarkers; id++) {
        const char *s = M->marker_names[id] ? M->marker_names[id] : "";
        put(b, s, strlen(s) + 1);
    }
    const char *src = M->source ? M->source : "", *per = M->periodic ? M->periodic : "";
    put(b, src, strlen(src) + 1);
    put(b, per, strlen(per) + 1);
    free(tags.p), free(xy), free(vloc), free(in), free(key);
}

/* An empty piece (a rank without elements): arrays of one entry, nothing in them. */
static void empty_piece(hdg_mesh *m)
{
    size_t nfe = (size_t)hdg_mesh_nfe(m), nvf = (size_t)hdg_mesh_nvf(m), na = (size_t)hdg_mesh_na(m);
    m->ef = hdg_xcalloc(nfe, sizeof(int)), m->eforient = hdg_xcalloc(nfe, sizeof(int));
    m->fv = hdg_xcalloc(nvf, sizeof(int)), m->fe = hdg_xcalloc(2, sizeof(int)), m->flf = hdg_xcalloc(2, sizeof(int));
    m->fmark = hdg_xcalloc(1, sizeof(int)), m->ftv = hdg_xcalloc(nvf, sizeof(int));
    m->fnbr = hdg_xcalloc(na, sizeof(int)), m->fnbr_elem = hdg_xcalloc(na, sizeof(int));
    m->fnbr_lf = hdg_xcalloc(na, sizeof(int));
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[1] != y[1] ? (x[1] > y[1]) - (x[1] < y[1]) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* A periodic mesh's identification within the piece: pairs (local vertex,
 * topological vertex of the whole mesh); each local vertex maps to the
 * smallest local vertex with its topological vertex. */
static void piece_vtop(hdg_mesh *m, const int *pairs)
{
    int nv = m->nv, *p = hdg_xmalloc(sizeof(int) * 2 * ((size_t)nv + 1));
    memcpy(p, pairs, sizeof(int) * 2 * (size_t)nv);
    qsort(p, (size_t)nv, 2 * sizeof(int), cmp_pair);
    m->vtop = hdg_xmalloc(sizeof(int) * ((size_t)nv + 1));
    for (int i = 0, first = 0; i < nv; i++) {
        if (i > 0 && p[2 * i + 1] != p[2 * i - 1]) first = p[2 * i];
        if (i == 0) first = p[0];
        m->vtop[p[2 * i]] = first;
    }
    free(p);
}

/* A partition interface is traversed in the piece as the whole mesh does
 * (the element on the other rank may be its first element there): both
 * ranks then see the trace dofs of the face in one order. The piece's only
 * element e sees the face in its order b = fv; the whole mesh's orientation
 * o says b_k = a_pi(k) for the whole mesh's order a, which becomes fv. */
static void interface_orientation(hdg_mesh *m, const int *gorient)
{
    int d = hdg_mesh_dim(m), nfe = d + 1;
    for (int f = 0; f < m->nf; f++) {
        int e = m->fe[2 * f], j = m->flf[2 * f];
        if (m->fe[2 * f + 1] >= 0 || m->fmark[f] != m->partition_marker || gorient[nfe * e + j] == m->eforient[nfe * e + j])
            continue;
        int o = gorient[nfe * e + j], b[3], bt[3];
        const int *pi = hdg_face_orient_perm(d, o);
        m->eforient[nfe * e + j] = o;
        memcpy(b, m->fv + d * f, sizeof(int) * (size_t)d), memcpy(bt, m->ftv + d * f, sizeof(int) * (size_t)d);
        for (int k = 0; k < d; k++) m->fv[d * f + pi[k]] = b[k], m->ftv[d * f + pi[k]] = bt[k];
    }
}

static int cmp_share(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The partition faces by neighbour rank (eother: the rank across each element face,
 * -1 inside the piece or on the domain's boundary), in global id order. */
static void face_shares(const hdg_mesh *m, hdg_mesh_dist *d, const int *eother)
{
    int nfe = hdg_mesh_nfe(m), n = 0;
    long long *k = hdg_xmalloc(sizeof(long long) * 3 * ((size_t)m->nf + 1));
    for (int f = 0; f < m->nf; f++) {
        int q = m->fe[2 * f + 1] < 0 ? eother[nfe * m->fe[2 * f] + m->flf[2 * f]] : -1;
        if (q >= 0) k[3 * n] = q, k[3 * n + 1] = d->fgid[f], k[3 * n + 2] = f, n++;
    }
    qsort(k, (size_t)n, 3 * sizeof(long long), cmp_share);
    d->fnbr = hdg_xmalloc(sizeof(int) * ((size_t)n + 1));
    d->fshare_off = hdg_xcalloc((size_t)n + 2, sizeof(int));
    d->fshare = hdg_xmalloc(sizeof(int) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
        if (i == 0 || k[3 * i] != k[3 * i - 3]) d->fshare_off[d->nfnbr] = i, d->fnbr[d->nfnbr++] = (int)k[3 * i];
        d->fshare[i] = (int)k[3 * i + 2];
    }
    d->fshare_off[d->nfnbr] = n;
    free(k);
}

void hdg_mesh_dist_face_sum(const hdg_mesh_dist *d, int m, double *v)
{
    if (!d || d->nfnbr == 0) return;
    int nn = d->nfnbr, tot = d->fshare_off[nn];
    double *sb = hdg_xmalloc(sizeof(double) * (size_t)m * ((size_t)tot + 1));
    double *rb = hdg_xmalloc(sizeof(double) * (size_t)m * ((size_t)tot + 1));
    void **sp = hdg_xmalloc(sizeof(void *) * 2 * (size_t)nn), **rp = sp + nn;
    size_t *bytes = hdg_xmalloc(sizeof(size_t) * (size_t)nn);
    for (int i = 0; i < tot; i++) memcpy(sb + (size_t)i * m, v + (size_t)d->fshare[i] * m, sizeof(double) * (size_t)m);
    for (int k = 0; k < nn; k++) {
        sp[k] = sb + (size_t)d->fshare_off[k] * m, rp[k] = rb + (size_t)d->fshare_off[k] * m;
        bytes[k] = sizeof(double) * (size_t)m * (size_t)(d->fshare_off[k + 1] - d->fshare_off[k]);
    }
    hdg_comm_exchange_end(hdg_comm_exchange_begin(nn, d->fnbr, sp, bytes, rp, bytes, TAG_FACE_SUM));
    for (int i = 0; i < tot; i++)
        for (int c = 0; c < m; c++) v[(size_t)d->fshare[i] * m + c] += rb[(size_t)i * m + c];
    free(sb), free(rb), free(sp), free(bytes);
}

static hdg_status unpack_piece(const char *at, hdg_mesh *m, hdg_mesh_dist *d, int P, int ghosts, hdg_error *err)
{
    int hdr[6];
    long long glob[4];
    memcpy(hdr, get(&at, sizeof hdr), sizeof hdr);
    memcpy(glob, get(&at, sizeof glob), sizeof glob);
    int n = hdr[0], nv = hdr[2], ntag = hdr[3], nmk = hdr[4], dim = hdr[5], nfe = dim + 1;
    m->dim = dim;
    d->ne_owned = hdr[1];
    d->ne_global = glob[0], d->nf_global = glob[1], d->nv_global = glob[2], d->nbf_global = glob[3];
    d->fstart = hdg_xmalloc(sizeof(long long) * ((size_t)P + 1));
    memcpy(d->fstart, get(&at, sizeof(long long) * ((size_t)P + 1)), sizeof(long long) * ((size_t)P + 1));
    d->vstart = hdg_xmalloc(sizeof(long long) * ((size_t)P + 1));
    memcpy(d->vstart, get(&at, sizeof(long long) * ((size_t)P + 1)), sizeof(long long) * ((size_t)P + 1));
    d->egid = hdg_xmalloc(sizeof(long long) * ((size_t)n + 1));
    memcpy(d->egid, get(&at, sizeof(long long) * (size_t)n), sizeof(long long) * (size_t)n);
    int *eowner = hdg_xmalloc(sizeof(int) * ((size_t)n + 1));
    memcpy(eowner, get(&at, sizeof(int) * (size_t)n), sizeof(int) * (size_t)n);
    m->nv = nv, m->ne = n;
    d->vgid = hdg_xmalloc(sizeof(long long) * ((size_t)nv + 1));
    memcpy(d->vgid, get(&at, sizeof(long long) * (size_t)nv), sizeof(long long) * (size_t)nv);
    m->vx = hdg_xmalloc(sizeof(double) * ((size_t)nv + 1));
    m->vy = hdg_xmalloc(sizeof(double) * ((size_t)nv + 1));
    if (dim == 3) m->vz = hdg_xmalloc(sizeof(double) * ((size_t)nv + 1));
    const double *xy = (const double *)get(&at, sizeof(double) * (size_t)dim * (size_t)nv);
    for (int v = 0; v < nv; v++) {
        memcpy(&m->vx[v], xy + dim * v, sizeof(double)), memcpy(&m->vy[v], xy + dim * v + 1, sizeof(double));
        if (dim == 3) memcpy(&m->vz[v], xy + dim * v + 2, sizeof(double));
    }
    size_t nn = (size_t)nfe * (size_t)n;
    m->ev = hdg_xmalloc(sizeof(int) * (nn + 1));
    memcpy(m->ev, get(&at, sizeof(int) * nn), sizeof(int) * nn);
    long long *egf = hdg_xmalloc(sizeof(long long) * (nn + 1));
    memcpy(egf, get(&at, sizeof(long long) * nn), sizeof(long long) * nn);
    int *gorient = hdg_xmalloc(sizeof(int) * (nn + 1));
    memcpy(gorient, get(&at, sizeof(int) * nn), sizeof(int) * nn);
    int *eother = hdg_xmalloc(sizeof(int) * (nn + 1));
    memcpy(eother, get(&at, sizeof(int) * nn), sizeof(int) * nn);
    int periodic;
    memcpy(&periodic, get(&at, sizeof periodic), sizeof periodic);
    if (periodic) piece_vtop(m, (const int *)get(&at, sizeof(int) * 2 * (size_t)nv));
    m->ntag = ntag;
    size_t wt = (size_t)(dim + 2) * (size_t)ntag;
    m->tag = hdg_xmalloc(sizeof(int) * (wt + 1));
    memcpy(m->tag, get(&at, sizeof(int) * wt), sizeof(int) * wt);
    for (int id = 1; id <= nmk; id++) {
        const char *s = get(&at, 0);
        at += strlen(s) + 1;
        if (*s) hdg_mesh_set_marker_name(m, id, s);
    }
    m->partition_marker = nmk + 1;
    hdg_mesh_set_marker_name(m, m->partition_marker, "(partition)");
    m->source = hdg_xstrdup(at);
    at += strlen(at) + 1;
    if (*at) m->periodic = hdg_xstrdup(at);
    hdg_status st = HDG_OK;
    if (n > 0) st = hdg_mesh_build_topology(m, err);
    else empty_piece(m);
    if (!st) interface_orientation(m, gorient);
    if (!st) {
        d->fgid = hdg_xmalloc(sizeof(long long) * ((size_t)m->nf + 1));
        d->fowner = hdg_xmalloc(sizeof(int) * ((size_t)m->nf + 1));
        d->nf_owned = 0;
        for (int f = 0; f < m->nf; f++) {
            long long g = egf[nfe * m->fe[2 * f] + m->flf[2 * f]];
            int o = 0;
            while (o + 1 < P && d->fstart[o + 1] <= g) o++;
            d->fgid[f] = g, d->fowner[f] = o;
            d->nf_owned += o == d->rank;
        }
        if (!ghosts) face_shares(m, d, eother);   /* (with ghosts a partition face has one rank) */
    }
    if (!st) {   /* ghost exchange: the ghosts of each owner are contiguous */
        d->nbr = hdg_xmalloc(sizeof(int) * ((size_t)P + 1));
        d->recv_off = hdg_xcalloc((size_t)P + 2, sizeof(int));
        d->send_off = hdg_xcalloc((size_t)P + 2, sizeof(int));
        for (int i = d->ne_owned; i < n; i++)
            if (d->nnbr == 0 || d->nbr[d->nnbr - 1] != eowner[i]) {
                d->nbr[d->nnbr] = eowner[i];
                d->recv_off[d->nnbr] = i - d->ne_owned;
                d->nnbr++;
            }
        d->recv_off[d->nnbr] = n - d->ne_owned;
        /* own elements next to a ghost of owner q are q's ghosts (in id order on both sides) */
        long long *lst = hdg_xmalloc(sizeof(long long) * ((size_t)nfe * d->ne_owned + 1));
        int *send = hdg_xmalloc(sizeof(int) * ((size_t)nfe * d->ne_owned * ((size_t)d->nnbr) + 1)), ns = 0;
        for (int k = 0; k < d->nnbr; k++) {
            int c = 0;
            for (int f = 0; f < m->nf; f++) {
                int e0 = m->fe[2 * f], e1 = m->fe[2 * f + 1];
                if (e1 < 0) continue;
                int own = e0 < d->ne_owned ? e0 : e1, gh = e0 < d->ne_owned ? e1 : e0;
                if (own < d->ne_owned && gh >= d->ne_owned && eowner[gh] == d->nbr[k]) lst[c++] = own;
            }
            qsort(lst, (size_t)c, sizeof *lst, cmp_ll);   /* piece order = global id order */
            d->send_off[k] = ns;
            for (int i = 0; i < c; i++)
                if (i == 0 || lst[i] != lst[i - 1]) send[ns++] = (int)lst[i];
        }
        d->send_off[d->nnbr] = ns;
        d->send_elem = send;
        free(lst);
    }
    free(eowner), free(egf), free(gorient), free(eother);
    return st;
}

/* Global vertex numbers, owner by owner (the part of the first element that
 * has the vertex; topological vertices on a periodic mesh): vnum[v] for
 * every vertex (identified ones share it), *vstart the ranges (P + 1). */
static long long *number_vertices(const hdg_mesh *M, const int *part, int P, long long **vstart)
{
    int *owner = hdg_xmalloc(sizeof(int) * ((size_t)M->nv + 1));
    for (int v = 0; v < M->nv; v++) owner[v] = -1;
    int nfe = hdg_mesh_nfe(M);
    for (int e = 0; e < M->ne; e++)
        for (int j = 0; j < nfe; j++) {
            int v = M->ev[nfe * e + j], t = M->vtop ? M->vtop[v] : v;
            if (owner[t] < 0) owner[t] = part[e];
        }
    long long *start = hdg_xcalloc((size_t)P + 1, sizeof(long long)), *num = hdg_xmalloc(sizeof(long long) * ((size_t)M->nv + 1));
    for (int v = 0; v < M->nv; v++)
        if (owner[v] >= 0) start[owner[v] + 1]++;
    for (int q = 0; q < P; q++) start[q + 1] += start[q];
    long long *next = hdg_xmalloc(sizeof(long long) * (size_t)P);
    memcpy(next, start, sizeof(long long) * (size_t)P);
    for (int v = 0; v < M->nv; v++) num[v] = owner[v] >= 0 ? next[owner[v]]++ : -1;
    for (int v = 0; v < M->nv; v++)   /* identified vertices: their topological vertex's */
        if (M->vtop) num[v] = num[M->vtop[v]];
    free(owner), free(next);
    *vstart = start;
    return num;
}

hdg_status hdg_mesh_distribute(const hdg_mesh *whole, int ghosts, hdg_mesh *piece, hdg_mesh_dist *d,
                               hdg_error *err)
{
    memset(piece, 0, sizeof *piece);
    memset(d, 0, sizeof *d);
    int P = hdg_comm_size(), r = hdg_comm_rank();
    d->rank = r, d->size = P;
    hdg_status st = HDG_OK;
    int *part = NULL;
    if (r == 0) {
        part = hdg_xmalloc(sizeof(int) * ((size_t)whole->ne + 1));
        st = hdg_mesh_partition(whole, P, part, err);
    }
    if ((st = hdg_comm_agree(st, err))) {
        free(part);
        return st;
    }
    buf mine = {0};
    if (r == 0) {   /* faces numbered owner by owner, then a piece to each rank */
        const hdg_mesh *M = whole;
        long long *fstart = hdg_xcalloc((size_t)P + 1, sizeof(long long)), *gid = hdg_xmalloc(sizeof(long long) * ((size_t)M->nf + 1));
        for (int f = 0; f < M->nf; f++) fstart[part[M->fe[2 * f]] + 1]++;
        for (int p = 0; p < P; p++) fstart[p + 1] += fstart[p];
        long long *next = hdg_xmalloc(sizeof(long long) * (size_t)P);
        memcpy(next, fstart, sizeof(long long) * (size_t)P);
        for (int f = 0; f < M->nf; f++) gid[f] = next[part[M->fe[2 * f]]]++;
        long long *vstart, *vnum = number_vertices(M, part, P, &vstart);
        for (int q = P - 1; q >= 0; q--) {
            buf b = {0};
            pack_piece(M, part, gid, fstart, vnum, vstart, P, q, ghosts, &b);
            if (q == 0) mine = b;
            else {
                unsigned long long len = b.n;
                hdg_comm_send(&len, sizeof len, q, TAG_PIECE);
                hdg_comm_send(b.p, b.n, q, TAG_PIECE);
                free(b.p);
            }
        }
        free(fstart), free(gid), free(next), free(part), free(vnum), free(vstart);
    } else {
        unsigned long long len;
        hdg_comm_recv(&len, sizeof len, 0, TAG_PIECE);
        mine.p = hdg_xmalloc(len + 1);
        mine.n = len;
        hdg_comm_recv(mine.p, len, 0, TAG_PIECE);
    }
    st = unpack_piece(mine.p, piece, d, P, ghosts, err);
    free(mine.p);
    return hdg_comm_agree(st, err);
}

void hdg_mesh_dist_free(hdg_mesh_dist *d)
{
    free(d->egid), free(d->fgid), free(d->fowner), free(d->fstart), free(d->vgid), free(d->vstart);
    free(d->nbr), free(d->send_off), free(d->send_elem), free(d->recv_off);
    free(d->fnbr), free(d->fshare_off), free(d->fshare);
    memset(d, 0, sizeof *d);
}
