/* mesh_data.c — kernel inputs from a mesh, in the lowerings' layouts (mesh_data.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mesh_data.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

int hdg_face_on_markers(const hdg_mesh *m, int f, const hdg_markers *mk)
{
    int id = m->fmark[f];
    if (id <= 0 || id == m->partition_marker) return 0;   /* interior, or a partition interface */
    const char *name = id <= m->nmarkers ? m->marker_names[id] : NULL;
    return hdg_markers_match(mk, name, id);
}

/* ---------------------------------------------------------------- HDG */

void hdg_hdg_fill_geom(const hdg_lowered *L, const hdg_mesh *m, const hdg_geom *g, double *geom)
{
    int ng = L->ngeom, d = hdg_mesh_dim(m), nfe = d + 1;
    const double *X[3] = {m->vx, m->vy, m->vz};
    for (int e = 0; e < m->ne; e++) {
        double *G = geom + (size_t)e * ng;
        for (int v = 0; v < nfe; v++)
            for (int x = 0; x < d; x++) G[hdg_g_vertex(d, v, x)] = X[x][m->ev[nfe * e + v]];
        G[hdg_g_J(d)] = g->J[e];
        for (int k = 0; k < d; k++)
            for (int x = 0; x < d; x++) G[hdg_g_ginv(d, k, x)] = g->Ginv[k][x][e];
        for (int j = 0; j < nfe; j++) {
            int fj = hdg_g_face(d, j);
            for (int x = 0; x < d; x++) G[fj + x] = g->n[x][nfe * e + j];
            G[fj + d] = g->sJ[nfe * e + j];
            for (int s = 0; s < L->nsets; s++)
                G[hdg_g_fixed(d) + nfe * s + j] = hdg_face_on_markers(m, m->ef[nfe * e + j], L->sets[s]);
        }
    }
}

/* ---------------------------------------------------------------- DG */

/* The row of the exterior node table for local face j of element e, whose
 * neighbour o sees the face as its local face jo (lower_dg.h, DG_M_NLF): in
 * 2D jo (the neighbour runs the face the other way); in 3D jo * 6 + the
 * orientation of o's vertex order of the face against e's, compared on the
 * topological vertices (vtop: a periodic face's two copies are translates);
 * -1 when the two vertex lists are not one face's. */
static int exterior_row(const hdg_mesh *m, int e, int j, int o, int jo)
{
    int dim = hdg_mesh_dim(m), nfe = dim + 1;
    if (dim == 2) return jo;
    int a[3], b[3];
    const int *wa = hdg_simplex_face_vertices(dim, j), *wb = hdg_simplex_face_vertices(dim, jo);
    for (int k = 0; k < dim; k++) {
        a[k] = m->ev[nfe * e + wa[k]], b[k] = m->ev[nfe * o + wb[k]];
        if (m->vtop) a[k] = m->vtop[a[k]], b[k] = m->vtop[b[k]];
    }
    int ori = hdg_face_orientation(dim, a, b);
    return ori < 0 ? -1 : jo * 6 + ori;
}

/* Element e's row of the geometry: vertices, J, dr_k/dx_l, per face n and Fscale. */
static void dg_geom_row(int dim, const hdg_mesh *m, const hdg_geom *g, int e, double *G)
{
    const double *c[3] = { m->vx, m->vy, m->vz };
    int nfe = dim + 1;
    for (int v = 0; v < nfe; v++)
        for (int d = 0; d < dim; d++) G[hdg_dg_g_x(dim, v, d)] = c[d][m->ev[nfe * e + v]];
    G[hdg_dg_g_j(dim)] = g->J[e];
    for (int k = 0; k < dim; k++)
        for (int l = 0; l < dim; l++) G[hdg_dg_g_ginv(dim, k, l)] = g->Ginv[k][l][e];
    for (int j = 0; j < nfe; j++) {
        double *F = G + hdg_dg_g_face(dim, j);
        for (int d = 0; d < dim; d++) F[d] = g->n[d][nfe * e + j];
        F[dim] = g->Fscale[nfe * e + j];
    }
}

hdg_status hdg_dg_fill_maps(const hdg_dg_lowered *L, const hdg_problem *p, const hdg_mesh *m,
                            const hdg_geom *g, double *geom, int *fmap, hdg_error *err)
{
    int any_ext = 0, dim = hdg_mesh_dim(m), nfe = dim + 1;
    if (dim != L->dim)
        return hdg_fail(err, HDG_EINPUT, "DG problem '%s' is %dD but the mesh '%s' is %dD", p->name, L->dim,
                        m->source ? m->source : "?", dim);
    for (int f = 0; f < L->nfields; f++) any_ext |= L->needs_ext[f];
    for (int e = 0; e < m->ne; e++) {
        int *M = fmap + (size_t)e * L->nimap;
        dg_geom_row(dim, m, g, e, geom + (size_t)e * L->ngeom);
        for (int j = 0; j < nfe; j++) {
            int f = m->ef[nfe * e + j];
            int side = (m->fe[2 * f] == e && m->flf[2 * f] == j) ? 0 : 1;
            int other = m->fe[2 * f + 1 - side];
            for (int s = 0; s < L->nsets; s++) M[(3 + s) * nfe + j] = 0;
            if (other >= 0) {
                M[j] = other;
                M[nfe + j] = exterior_row(m, e, j, other, m->flf[2 * f + 1 - side]);
                M[2 * nfe + j] = -1;
                if (M[nfe + j] < 0)
                    return hdg_fail(err, HDG_EINTERNAL, "face %d: elements %d and %d do not share its vertices "
                                                        "(mesh topology)", f, e, other);
                continue;
            }
            const char *name = m->fmark[f] > 0 && m->fmark[f] <= m->nmarkers ? m->marker_names[m->fmark[f]] : NULL;
            M[j] = e;
            M[nfe + j] = dim == 2 ? j : j * 6;
            M[2 * nfe + j] = -1;
            for (int b = 0; b < p->nbcs; b++)
                if (p->bcs[b].kind == HDG_BC_EXTERIOR && hdg_face_on_markers(m, f, &p->bcs[b].markers)) {
                    M[2 * nfe + j] = b;
                    break;
                }
            /* a partition interface (a ghost's outer face under mpirun): no condition; the
             * element is a ghost, whose state its owner computes */
            if (M[2 * nfe + j] < 0 && any_ext && m->fmark[f] != m->partition_marker)
                return hdg_fail(err, HDG_EINPUT, "boundary face %d of element %d has marker '%s' but no boundary "
                                                 "condition gives exterior values there", f, e, name ? name : "?");
            for (int s = 0; s < L->nsets; s++) M[(3 + s) * nfe + j] = hdg_face_on_markers(m, f, L->sets[s]);
        }
    }
    return HDG_OK;
}

/* ---------------------------------------------------------------- element order */

typedef struct { int cls; unsigned long long key; int e; } zkey;

static int zkey_cmp(const void *a, const void *b)
{
    const zkey *x = a, *y = b;
    if (x->cls != y->cls) return x->cls - y->cls;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : x->e - y->e;
}

static unsigned long long spread16(unsigned long long v)   /* bits b -> 2b */
{
    v &= 0xffff;
    v = (v | v << 8) & 0x00ff00ff;
    v = (v | v << 4) & 0x0f0f0f0f;
    v = (v | v << 2) & 0x33333333;
    return (v | v << 1) & 0x55555555;
}

static unsigned long long spread21(unsigned long long v)   /* bits b -> 3b */
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    return (v | v << 2) & 0x1249249249249249ULL;
}

/* The Morton key of element e's centroid: 16 bits a coordinate in 2D (as
 * always), 21 in 3D, scaled to the bounding box lo..hi. */
static unsigned long long morton_key(const hdg_mesh *m, int e, const double *lo, const double *hi)
{
    int dim = hdg_mesh_dim(m), nv = dim + 1;
    const double *c[3] = { m->vx, m->vy, m->vz };
    const int *v = m->ev + nv * e;
    unsigned long long key = 0;
    for (int d = 0; d < dim; d++) {
        double x = dim == 2 ? (c[d][v[0]] + c[d][v[1]] + c[d][v[2]]) / 3
                            : (c[d][v[0]] + c[d][v[1]] + c[d][v[2]] + c[d][v[3]]) / 4;
        double scale = (dim == 2 ? 65535 : 2097151) / fmax(hi[d] - lo[d], 1e-300);
        unsigned long long q = (unsigned long long)((x - lo[d]) * scale);
        key |= (dim == 2 ? spread16(q) : spread21(q)) << d;
    }
    return key;
}

void hdg_dg_order_elements(const hdg_dg_lowered *L, const hdg_mesh *m, double *geom, int *fmap, int *pos)
{
    hdg_dg_order_elements_classed(L, m, NULL, geom, fmap, pos);
}

void hdg_dg_order_elements_classed(const hdg_dg_lowered *L, const hdg_mesh *m, const int *cls, double *geom,
                                   int *fmap, int *pos)
{
    int ne = m->ne, ng = L->ngeom, nm = L->nimap, dim = hdg_mesh_dim(m), nfe = dim + 1;
    const double *c[3] = { m->vx, m->vy, m->vz };
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (int d = 0; d < dim; d++)
        for (int v = 0; v < m->nv; v++) lo[d] = fmin(lo[d], c[d][v]), hi[d] = fmax(hi[d], c[d][v]);
    zkey *z = hdg_xmalloc(sizeof(zkey) * (size_t)ne);
    for (int e = 0; e < ne; e++) {
        z[e].key = morton_key(m, e, lo, hi);
        z[e].e = e;
        z[e].cls = cls ? cls[e] : 0;
    }
    qsort(z, (size_t)ne, sizeof z[0], zkey_cmp);
    double *g2 = hdg_xmalloc(sizeof(double) * (size_t)ne * ng);
    int *f2 = hdg_xmalloc(sizeof(int) * (size_t)ne * nm);
    for (int k = 0; k < ne; k++) pos[z[k].e] = k;
    for (int k = 0; k < ne; k++) {
        memcpy(g2 + (size_t)k * ng, geom + (size_t)z[k].e * ng, sizeof(double) * ng);
        int *M = f2 + (size_t)k * nm;
        memcpy(M, fmap + (size_t)z[k].e * nm, sizeof(int) * nm);
        for (int j = 0; j < nfe; j++) M[j] = pos[M[j]];
    }
    memcpy(geom, g2, sizeof(double) * (size_t)ne * ng);
    memcpy(fmap, f2, sizeof(int) * (size_t)ne * nm);
    free(g2);
    free(f2);
    free(z);
}
