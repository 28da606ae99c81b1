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

static const char *cell_name(int dim) { return dim == 2 ? "triangle" : "tetrahedron"; }
static const char *face_name(int dim) { return dim == 2 ? "boundary edge" : "boundary face"; }

static hdg_status check_sizes(int dim, int nv, const double *xyz, int ne, const int *cells, int nb, const int *faces,
                              const int *markers, int nmarkers, hdg_error *err)
{
    if (dim != 2 && dim != 3)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: dimension %d (2: triangles, 3: tetrahedra)", dim);
    if (nv < dim + 1 || ne < 1 || !xyz || !cells)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d vertices and %d %ss (at least %d and 1, with "
                        "their arrays)", nv, ne, cell_name(dim), dim + 1);
    if (nb < 0 || (nb > 0 && (!faces || !markers)))
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d %ss without their vertex and marker arrays", nb,
                        face_name(dim));
    if (nmarkers < 0 || nmarkers > HDG_API_MAX_MARKERS)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d markers (0 to %d)", nmarkers, HDG_API_MAX_MARKERS);
    return HDG_OK;
}

static hdg_status check_arrays(int dim, int nv, const double *xyz, int ne, const int *cells, int nb,
                               const int *faces, const int *markers, int nmarkers, hdg_error *err)
{
    hdg_status st = check_sizes(dim, nv, xyz, ne, cells, nb, faces, markers, nmarkers, err);
    if (st) return st;
    for (long long i = 0; i < (long long)dim * nv; i++)
        if (!isfinite(xyz[i]))
            return hdg_fail(err, HDG_EINPUT, "mesh arrays: vertex %lld has a coordinate that is not finite", i / dim);
    for (long long i = 0; i < (long long)(dim + 1) * ne; i++)
        if (cells[i] < 0 || cells[i] >= nv)
            return hdg_fail(err, HDG_EINPUT, "mesh arrays: %s %lld names vertex %d (vertices are 0..%d)",
                            cell_name(dim), i / (dim + 1), cells[i], nv - 1);
    for (int b = 0; b < nb; b++) {
        for (int k = 0; k < dim; k++)
            if (faces[dim * b + k] < 0 || faces[dim * b + k] >= nv)
                return hdg_fail(err, HDG_EINPUT, "mesh arrays: %s %d names vertex %d (vertices are 0..%d)",
                                face_name(dim), b, faces[dim * b + k], nv - 1);
        if (markers[b] < 1 || markers[b] > nmarkers)
            return hdg_fail(err, HDG_EINPUT, "mesh arrays: %s %d has marker %d (markers are 1..%d)",
                            face_name(dim), b, markers[b], nmarkers);
    }
    return HDG_OK;
}

/* Every tagged face became a boundary face with its marker: none interior, none twice. */
static hdg_status check_tags(const hdg_mesh *m, int nb, hdg_error *err)
{
    int tagged = 0, dim = hdg_mesh_dim(m);
    for (int f = 0; f < m->nf; f++) tagged += m->fmark[f] > 0 && m->fmark[f] != m->untagged_marker;
    if (tagged != nb)
        return hdg_fail(err, HDG_EINPUT, "mesh arrays: %d of the %d %ss are not boundary %s of the "
                        "%ss (interior ones, or listed twice)", nb - tagged, nb, face_name(dim),
                        dim == 2 ? "edges" : "faces", cell_name(dim));
    return HDG_OK;
}

/* The mesh struct from checked arrays, before its topology. */
static void mesh_from_arrays(hdg_mesh *m, int dim, int nv, const double *xyz, int ne, const int *cells, int nb,
                             const int *faces, const int *markers)
{
    memset(m, 0, sizeof *m);
    m->dim = dim, m->nv = nv, m->ne = ne, m->ntag = nb;
    double **c[3] = {&m->vx, &m->vy, &m->vz};
    for (int d = 0; d < dim; d++) {
        *c[d] = hdg_xmalloc(sizeof(double) * (size_t)nv);
        for (int v = 0; v < nv; v++) (*c[d])[v] = xyz[(size_t)dim * v + d];
    }
    m->ev = hdg_xmalloc(sizeof(int) * (size_t)(dim + 1) * ne);
    memcpy(m->ev, cells, sizeof(int) * (size_t)(dim + 1) * ne);
    int ts = dim + 2;                  /* a tag: dim vertices, marker, file line */
    m->tag = hdg_xmalloc(sizeof(int) * (size_t)ts * (size_t)(nb + 1));
    for (int b = 0; b < nb; b++) {
        int *g = m->tag + (size_t)ts * b;
        for (int k = 0; k < dim; k++) g[k] = faces[dim * b + k];
        g[dim] = markers[b], g[dim + 1] = 0;
    }
}

hdg_status hdgc_problem_set_mesh_simplices(hdgc_problem *p, int dim, int nv, const double *xyz, int ne,
                                           const int *cells, int nb, const int *faces, const int *markers,
                                           int nmarkers, const char *const *marker_names, hdg_error *err)
{
    if (!p) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_set_mesh: no problem");
    if (hdg_api_idle(p, "hdgc_problem_set_mesh", err)) return HDG_EINPUT;
    hdg_status st = check_arrays(dim, nv, xyz, ne, cells, nb, faces, markers, nmarkers, err);
    if (st) return st;
    hdg_mesh m;
    mesh_from_arrays(&m, dim, nv, xyz, ne, cells, nb, faces, markers);
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

hdg_status hdgc_problem_set_mesh(hdgc_problem *p, int nv, const double *xy, int ne, const int *tri, int nb,
                                 const int *edges, const int *markers, int nmarkers,
                                 const char *const *marker_names, hdg_error *err)
{
    return hdgc_problem_set_mesh_simplices(p, 2, nv, xy, ne, tri, nb, edges, markers, nmarkers, marker_names, err);
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
    hdg_status st = hdg_mesh_spec_memory_check(spec, geometry ? hdg_geom_bytes(1) : 0, err);   /* a figure, before allocating */
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
