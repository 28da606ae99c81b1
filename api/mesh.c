/* mesh.c — meshes of the API: hdgc_problem_set_mesh (a mesh from the caller's arrays, checked
 * here, then the runtime's topology checks) and hdgc_mesh (a mesh by spec: square:N or a
 * .msh file, its statistics as `hdgc mesh` prints them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh_size.h"
#include "support/util.h"

#define HDG_API_MAX_MARKERS 100000   /* marker ids are a table: refuse absurd ones before allocating */

static hdg_status check_arrays(int nv, const double *xy, int ne, const int *tri, int nb, const int *edges,
                               const int *markers, int nmarkers, hdg_error *err)
{
    if (nv < 3 || ne < 1 || !xy || !tri)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d vertices and %d triangles (at least 3 and 1, with "
                        "their arrays)", nv, ne);
    if (nb < 0 || (nb > 0 && (!edges || !markers)))
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d boundary edges without their vertex and marker arrays", nb);
    if (nmarkers < 0 || nmarkers > HDG_API_MAX_MARKERS)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d markers (0 to %d)", nmarkers, HDG_API_MAX_MARKERS);
    for (int v = 0; v < nv; v++)
        if (!isfinite(xy[2 * v]) || !isfinite(xy[2 * v + 1]))
            return hdg_fail(err, HDG_EINPUT, "mesh arrays: vertex %d has a coordinate that is not finite", v);
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < 3; k++)
            if (tri[3 * e + k] < 0 || tri[3 * e + k] >= nv)
                return hdg_fail(err, HDG_EINPUT, "mesh arrays: triangle %d names vertex %d (vertices are 0..%d)",
                                e, tri[3 * e + k], nv - 1);
    for (int b = 0; b < nb; b++) {
        if (edges[2 * b] < 0 || edges[2 * b] >= nv || edges[2 * b + 1] < 0 || edges[2 * b + 1] >= nv)
            return hdg_fail(err, HDG_EINPUT, "mesh arrays: boundary edge %d names vertex %d (vertices are 0..%d)",
                            b, edges[2 * b] < 0 || edges[2 * b] >= nv ? edges[2 * b] : edges[2 * b + 1], nv - 1);
        if (markers[b] < 1 || markers[b] > nmarkers)
            return hdg_fail(err, HDG_EINPUT, "mesh arrays: boundary edge %d has marker %d (markers are 1..%d)", b,
                            markers[b], nmarkers);
    }
    return HDG_OK;
}

/* Every tagged edge became a boundary face with its marker: none interior, none twice. */
static hdg_status check_tags(const hdg_mesh *m, int nb, hdg_error *err)
{
    int tagged = 0;
    for (int f = 0; f < m->nf; f++) tagged += m->fmark[f] > 0 && m->fmark[f] != m->untagged_marker;
    if (tagged != nb)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d of the %d boundary edges are not boundary edges of the "
                        "triangles (interior edges, or listed twice)", nb - tagged, nb);
    return HDG_OK;
}

hdg_status hdgc_problem_set_mesh(hdgc_problem *p, int nv, const double *xy, int ne, const int *tri, int nb,
                                 const int *edges, const int *markers, int nmarkers,
                                 const char *const *marker_names, hdg_error *err)
{
    if (!p) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_set_mesh: no problem");
    if (hdg_api_idle(p, "hdgc_problem_set_mesh", err)) return HDG_EINPUT;
    hdg_status st = check_arrays(nv, xy, ne, tri, nb, edges, markers, nmarkers, err);
    if (st) return st;
    hdg_mesh m;
    memset(&m, 0, sizeof m);
    m.nv = nv, m.ne = ne, m.ntag = nb;
    m.vx = hdg_xmalloc(sizeof(double) * (size_t)nv);
    m.vy = hdg_xmalloc(sizeof(double) * (size_t)nv);
    for (int v = 0; v < nv; v++) m.vx[v] = xy[2 * v], m.vy[v] = xy[2 * v + 1];
    m.ev = hdg_xmalloc(sizeof(int) * 3 * (size_t)ne);
    memcpy(m.ev, tri, sizeof(int) * 3 * (size_t)ne);
    m.tag = hdg_xmalloc(sizeof(int) * 4 * (size_t)(nb + 1));
    for (int b = 0; b < nb; b++) {
        int *g = m.tag + 4 * b;
        g[0] = edges[2 * b], g[1] = edges[2 * b + 1], g[2] = markers[b], g[3] = 0;
    }
    for (int id = 1; id <= nmarkers; id++) {
        char num[16];
        snprintf(num, sizeof num, "%d", id);
        const char *name = marker_names && marker_names[id - 1] ? marker_names[id - 1] : num;
        hdg_mesh_set_marker_name(&m, id, name);
    }
    m.source = hdg_xstrdup("arrays");
    st = hdg_mesh_build_topology(&m, err);
    if (!st) st = check_tags(&m, nb, err);
    if (st) {
        hdg_mesh_free(&m);
        return st;
    }
    hdg_mesh_free(&p->mesh);
    p->mesh = m;
    p->has_mesh = 1;
    return HDG_OK;
}

/* ------------------------------------------------------------------ hdgc_mesh: a mesh by spec */

static void range(const double *a, int n, double *lo, double *hi)
{
    *lo = *hi = a[0];
    for (int i = 1; i < n; i++) {
        if (a[i] < *lo) *lo = a[i];
        if (a[i] > *hi) *hi = a[i];
    }
}

/* The element size and inscribed radius ranges of the geometry. */
static hdg_status measure(hdgc_mesh *m, hdg_error *err)
{
    hdg_geom g;
    hdg_status st = hdg_geom_init(&g, &m->mesh, err);
    if (st) return st;
    range(g.h, m->mesh.ne, &m->hmin, &m->hmax);
    range(g.rin, m->mesh.ne, &m->rmin, &m->rmax);
    hdg_geom_free(&g);
    m->geometry = 1;
    return HDG_OK;
}

hdg_status hdgc_mesh_load(const char *spec, int flags, hdgc_mesh **out, hdg_error *err)
{
    if (!out) return hdg_fail(err, HDG_EINPUT, "hdgc_mesh_load: out is NULL");
    *out = NULL;
    if (!spec) return hdg_fail(err, HDG_EINPUT, "hdgc_mesh_load: no mesh spec");
    if (flags & ~HDGC_MESH_GEOMETRY) return hdg_fail(err, HDG_EINPUT, "hdgc_mesh_load: unknown flags %#x", flags);
    int geometry = (flags & HDGC_MESH_GEOMETRY) != 0;
    hdg_mesh_size size;
    int dim = hdg_mesh_spec_size(spec, &size) ? size.dim : 2;
    hdg_status st = hdg_mesh_spec_memory_check(spec, geometry ? hdg_geom_bytes(dim, 1) : 0, err);   /* a figure, before allocating */
    if (st) return st;
    hdgc_mesh *m = hdg_xcalloc(1, sizeof *m);
    if ((st = hdg_mesh_load(&m->mesh, spec, err))) {   /* a failed load keeps nothing */
        free(m);
        return st;
    }
    if (geometry && (st = measure(m, err))) {
        hdg_mesh_free(&m->mesh);
        free(m);
        return st;
    }
    m->spec = hdg_xstrdup(spec);
    *out = m;
    return HDG_OK;
}

void hdgc_mesh_free(hdgc_mesh *m)
{
    if (!m) return;
    hdg_mesh_free(&m->mesh);
    free(m->spec), free(m->info);
    free(m);
}

int hdgc_mesh_size(const hdgc_mesh *m, int *nv, int *nf, int *nbf)
{
    if (nv) *nv = m ? m->mesh.nv : 0;
    if (nf) *nf = m ? m->mesh.nf : 0;
    if (nbf) *nbf = m ? m->mesh.nbf : 0;
    return m ? m->mesh.ne : 0;
}

hdg_status hdgc_mesh_h(const hdgc_mesh *m, double *hmin, double *hmax, hdg_error *err)
{
    if (!m) return hdg_fail(err, HDG_EINPUT, "hdgc_mesh_h: no mesh");
    if (!m->geometry) return hdg_fail(err, HDG_EINPUT, "hdgc_mesh_h: the mesh was loaded without HDGC_MESH_GEOMETRY");
    if (hmin) *hmin = m->hmin;
    if (hmax) *hmax = m->hmax;
    return HDG_OK;
}

const char *hdgc_mesh_info(const hdgc_mesh *m)
{
    if (!m) return "";
    if (m->info) return m->info;
    const hdg_mesh *g = &m->mesh;
    hdg_str s;
    hdg_str_init(&s);
    hdg_str_printf(&s, "mesh: %s\n%selements: %d\nvertices: %d\nfaces: %d\nboundary faces: %d\nmarkers:", m->spec,
                   hdg_mesh_dim(g) == 3 ? "dimension: 3 (tetrahedra)\n" : "", g->ne, g->nv, g->nf, g->nbf);
    for (int id = 1; id <= g->nmarkers; id++)
        if (g->marker_names[id]) hdg_str_printf(&s, " %s(%d)", g->marker_names[id], hdg_mesh_marker_count(g, id));
    hdg_str_printf(&s, "\n");
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, z0 = INFINITY, z1 = -INFINITY;
    for (int v = 0; v < g->nv; v++) {
        x0 = fmin(x0, g->vx[v]), x1 = fmax(x1, g->vx[v]), y0 = fmin(y0, g->vy[v]), y1 = fmax(y1, g->vy[v]);
        if (g->vz) z0 = fmin(z0, g->vz[v]), z1 = fmax(z1, g->vz[v]);
    }
    if (g->nv > 0) hdg_str_printf(&s, "bounding box: [%.6g, %.6g] x [%.6g, %.6g]", x0, x1, y0, y1);
    if (g->nv > 0 && g->vz) hdg_str_printf(&s, " x [%.6g, %.6g]", z0, z1);
    if (g->nv > 0) hdg_str_printf(&s, "\n");
    if (m->geometry)
        hdg_str_printf(&s, "element size: min %.6g max %.6g\ninscribed radius: min %.6g max %.6g\n", m->hmin, m->hmax,
                       m->rmin, m->rmax);
    if (g->periodic) hdg_str_printf(&s, "periodic: %s (%d periodic faces)\n", g->periodic, g->nperiodic);
    if (g->nreoriented)
        hdg_str_printf(&s, "reoriented: %d %s\n", g->nreoriented,
                       hdg_mesh_dim(g) == 3 ? "inverted tetrahedra" : "clockwise triangles");
    if (g->nuntagged) hdg_str_printf(&s, "untagged boundary faces: %d\n", g->nuntagged);
    ((hdgc_mesh *)m)->info = hdg_str_take(&s);   /* made once, kept with the mesh */
    return m->info;
}
