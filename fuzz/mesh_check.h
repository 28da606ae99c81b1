/* mesh_check.h — the invariants of runtime/mesh.h that a mesh the runtime accepted must keep,
 * checked by the fuzz harnesses that build meshes (gmsh.c: Gmsh files, spec.c: mesh specs). A
 * broken invariant aborts, so that libFuzzer reports it like a crash. */
#ifndef HDG_FUZZ_MESH_CHECK_H
#define HDG_FUZZ_MESH_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"

static void require(int ok, const char *what, int i)
{
    if (ok) return;
    fprintf(stderr, "fuzz: broken invariant: %s (%d)\n", what, i);
    abort();
}

static void check_elements(const hdg_mesh *m)
{
    require(m->ne > 0 && m->nv > 0 && m->source != NULL, "ne, nv > 0 and a source", m->ne);
    for (int e = 0; e < m->ne; e++) {
        const int *v = m->ev + 3 * e;
        for (int j = 0; j < 3; j++) require(v[j] >= 0 && v[j] < m->nv, "ev in range", e);
        double a2 = (m->vx[v[1]] - m->vx[v[0]]) * (m->vy[v[2]] - m->vy[v[0]]) -
                    (m->vy[v[1]] - m->vy[v[0]]) * (m->vx[v[2]] - m->vx[v[0]]);
        require(a2 > 0, "counter-clockwise triangle with positive area", e);
        for (int j = 0; j < 3; j++) {
            int f = m->ef[3 * e + j], s = m->eforient[3 * e + j];
            require(f >= 0 && f < m->nf && (s == 0 || s == 1), "ef, eforient in range", e);
            require(m->fe[2 * f + s] == e && m->flf[2 * f + s] == j, "fe/flf agree with ef/eforient", e);
            int a = v[j], b = v[(j + 1) % 3];
            if (m->vtop) { /* periodic: the second element's copy may be translated */
                int ta = m->vtop[a], tb = m->vtop[b];
                require(s ? m->ftv[2 * f] == tb && m->ftv[2 * f + 1] == ta
                          : m->fv[2 * f] == a && m->fv[2 * f + 1] == b && m->ftv[2 * f] == ta && m->ftv[2 * f + 1] == tb,
                        "ftv in the traversal direction", e);
                continue;
            }
            require(s ? m->fv[2 * f] == b && m->fv[2 * f + 1] == a : m->fv[2 * f] == a && m->fv[2 * f + 1] == b,
                    "fv in the traversal direction", e);
        }
    }
}

static void check_faces(const hdg_mesh *m)
{
    int nbf = 0;
    for (int f = 0; f < m->nf; f++) {
        int e0 = m->fe[2 * f], e1 = m->fe[2 * f + 1], mk = m->fmark[f];
        require(e0 >= 0 && e0 < m->ne && e1 < m->ne && (e1 < 0 || e1 > e0), "fe ordered", f);
        nbf += e1 < 0;
        require(e1 < 0 ? mk > 0 && mk <= m->nmarkers : mk == 0, "marker on boundary faces only", f);
        if (mk > 0) require(m->marker_names[mk] != NULL && hdg_mesh_marker_id(m, m->marker_names[mk]) > 0,
                            "every used marker has a name", f);
        require(m->fnbr[5 * f] == f, "fnbr[5f] == f", f);
        for (int a = 0; a < 5; a++) {
            int g = m->fnbr[5 * f + a];
            require(g >= -1 && g < m->nf && (g < 0) == (a >= 3 && e1 < 0), "fnbr padding", f);
        }
    }
    require(nbf == m->nbf && (nbf > 0 || m->vtop), "nbf counts the boundary faces", nbf);
    require(3 * m->ne == 2 * m->nf - m->nbf, "3 ne = 2 nf - nbf", m->nf);
}

/* What the runtime computes next from an accepted mesh must be finite. */
static void check_geometry(const hdg_mesh *m)
{
    hdg_geom g;
    hdg_error err;
    require(hdg_geom_init(&g, m, &err) == HDG_OK, "the geometry of an accepted mesh builds", 0);
    for (int e = 0; e < m->ne; e++) {
        require(g.J[e] > 0 && isfinite(g.rx[e] + g.ry[e] + g.sx[e] + g.sy[e]) && g.rin[e] > 0,
                "finite metric, J > 0", e);
        for (int j = 0; j < 3; j++)
            require(isfinite(g.nx[3 * e + j] + g.ny[3 * e + j] + g.Fscale[3 * e + j]) && g.sJ[3 * e + j] > 0,
                    "finite normals and face scales", e);
    }
    hdg_geom_free(&g);
}

#endif
