/* mesh_data.c — kernel inputs from a mesh, in the lowerings' layouts (mesh_data.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mesh_data.h"
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

hdg_status hdg_dg_fill_maps(const hdg_dg_lowered *L, const hdg_problem *p, const hdg_mesh *m,
                            const hdg_geom *g, double *geom, int *fmap, hdg_error *err)
{
    int any_ext = 0;
    for (int f = 0; f < L->nfields; f++) any_ext |= L->needs_ext[f];
    for (int e = 0; e < m->ne; e++) {
        double *G = geom + (size_t)e * L->ngeom;
        int *M = fmap + (size_t)e * L->nimap;
        for (int v = 0; v < 3; v++) {
            G[DG_G_X0 + 2 * v] = m->vx[m->ev[3 * e + v]];
            G[DG_G_Y0 + 2 * v] = m->vy[m->ev[3 * e + v]];
        }
        G[DG_G_J] = g->J[e];
        G[DG_G_RX] = g->rx[e];
        G[DG_G_RY] = g->ry[e];
        G[DG_G_SX] = g->sx[e];
        G[DG_G_SY] = g->sy[e];
        for (int j = 0; j < 3; j++) {
            G[DG_G_FACE0 + 3 * j] = g->nx[3 * e + j];
            G[DG_G_FACE0 + 3 * j + 1] = g->ny[3 * e + j];
            G[DG_G_FACE0 + 3 * j + 2] = g->Fscale[3 * e + j];
            int f = m->ef[3 * e + j];
            int side = (m->fe[2 * f] == e && m->flf[2 * f] == j) ? 0 : 1;
            int other = m->fe[2 * f + 1 - side];
            for (int s = 0; s < L->nsets; s++) M[DG_M_SETS + 3 * s + j] = 0;
            if (other >= 0) {
                M[DG_M_NBR + j] = other;
                M[DG_M_NLF + j] = m->flf[2 * f + 1 - side];
                M[DG_M_BC + j] = -1;
                continue;
            }
            const char *name = m->fmark[f] > 0 && m->fmark[f] <= m->nmarkers ? m->marker_names[m->fmark[f]] : NULL;
            M[DG_M_NBR + j] = e;
            M[DG_M_NLF + j] = j;
            M[DG_M_BC + j] = -1;
            for (int b = 0; b < p->nbcs; b++)
                if (p->bcs[b].kind == HDG_BC_EXTERIOR && hdg_face_on_markers(m, f, &p->bcs[b].markers)) {
                    M[DG_M_BC + j] = b;
                    break;
                }
            /* a partition interface (a ghost's outer face under mpirun): no condition; the
             * element is a ghost, whose state its owner computes */
            if (M[DG_M_BC + j] < 0 && any_ext && m->fmark[f] != m->partition_marker)
                return hdg_fail(err, HDG_EINPUT, "boundary face %d of element %d has marker '%s' but no boundary "
                                                 "condition gives exterior values there", f, e, name ? name : "?");
            for (int s = 0; s < L->nsets; s++) M[DG_M_SETS + 3 * s + j] = hdg_face_on_markers(m, f, L->sets[s]);
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

void hdg_dg_order_elements(const hdg_dg_lowered *L, const hdg_mesh *m, double *geom, int *fmap, int *pos)
{
    hdg_dg_order_elements_classed(L, m, NULL, geom, fmap, pos);
}

void hdg_dg_order_elements_classed(const hdg_dg_lowered *L, const hdg_mesh *m, const int *cls, double *geom,
                                   int *fmap, int *pos)
{
    int ne = m->ne, ng = L->ngeom, nm = L->nimap;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int v = 0; v < m->nv; v++)
        x0 = fmin(x0, m->vx[v]), x1 = fmax(x1, m->vx[v]), y0 = fmin(y0, m->vy[v]), y1 = fmax(y1, m->vy[v]);
    double sx = 65535 / fmax(x1 - x0, 1e-300), sy = 65535 / fmax(y1 - y0, 1e-300);
    zkey *z = hdg_xmalloc(sizeof(zkey) * (size_t)ne);
    for (int e = 0; e < ne; e++) {
        const int *v = m->ev + 3 * e;
        double cx = (m->vx[v[0]] + m->vx[v[1]] + m->vx[v[2]]) / 3, cy = (m->vy[v[0]] + m->vy[v[1]] + m->vy[v[2]]) / 3;
        z[e].key = spread16((unsigned long long)((cx - x0) * sx)) | spread16((unsigned long long)((cy - y0) * sy)) << 1;
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
        for (int j = 0; j < 3; j++) M[DG_M_NBR + j] = pos[M[DG_M_NBR + j]];
    }
    memcpy(geom, g2, sizeof(double) * (size_t)ne * ng);
    memcpy(fmap, f2, sizeof(int) * (size_t)ne * nm);
    free(g2);
    free(f2);
    free(z);
}
