/* mesh_refine.c — uniform (red) refinement: every triangle into four through its edge
 * midpoints, boundary markers kept on both halves of a boundary edge, periodicity kept (a
 * periodic face gets a midpoint on each of its two copies, identified); the spec suffix
 * ",refine=L" of hdg_mesh_load (a sequence of meshes for convergence studies from any
 * mesh, a Gmsh file included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh/mesh.h"
#include "support/util.h"

hdg_status hdg_mesh_refine(const hdg_mesh *in, hdg_mesh *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if (hdg_mesh_dim(in) != 2) return hdg_fail(err, HDG_EINPUT, "refine: tetrahedral meshes are not refined yet");
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
    for (int id = 1; id <= in->nmarkers; id++)
        if (in->marker_names[id]) hdg_mesh_set_marker_name(out, id, in->marker_names[id]);
    free(mid2);
    if (in->periodic) out->periodic = hdg_xstrdup(in->periodic);
    char *src = hdg_xmalloc(strlen(in->source ? in->source : "mesh") + 16);
    sprintf(src, "%s (refined)", in->source ? in->source : "mesh");
    out->source = src;
    hdg_status st = hdg_mesh_build_topology(out, err);
    if (st) hdg_mesh_free(out);
    return st;
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
