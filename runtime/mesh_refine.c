/* mesh_refine.c — uniform (red) refinement: every triangle into four through its edge
 * midpoints, boundary markers kept on both halves of a boundary edge; the spec suffix
 * ",refine=L" of hdg_mesh_load (a sequence of meshes for convergence studies from any
 * mesh, a Gmsh file included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh.h"
#include "support/util.h"

hdg_status hdg_mesh_refine(const hdg_mesh *in, hdg_mesh *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if ((double)in->ne * 4 > 2e9 || (double)in->nv + in->nf > 2e9)
        return hdg_fail(err, HDG_EINPUT, "refining %s: %d elements would become more than 2e9", in->source ? in->source : "the mesh", in->ne);
    int nv = in->nv + in->nf, ne = 4 * in->ne;
    out->nv = nv, out->ne = ne;
    out->vx = hdg_xmalloc(sizeof(double) * (size_t)nv);
    out->vy = hdg_xmalloc(sizeof(double) * (size_t)nv);
    memcpy(out->vx, in->vx, sizeof(double) * (size_t)in->nv);
    memcpy(out->vy, in->vy, sizeof(double) * (size_t)in->nv);
    for (int f = 0; f < in->nf; f++) {   /* midpoint of face f: vertex nv_in + f */
        int a = in->fv[2 * f], b = in->fv[2 * f + 1];
        out->vx[in->nv + f] = 0.5 * (in->vx[a] + in->vx[b]);
        out->vy[in->nv + f] = 0.5 * (in->vy[a] + in->vy[b]);
    }
    out->ev = hdg_xmalloc(sizeof(int) * 3 * (size_t)ne);
    for (int e = 0; e < in->ne; e++) {   /* local face j joins vertex j to j+1 */
        const int *v = in->ev + 3 * e;
        int m0 = in->nv + in->ef[3 * e], m1 = in->nv + in->ef[3 * e + 1], m2 = in->nv + in->ef[3 * e + 2];
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
