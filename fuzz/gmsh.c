/* gmsh.c — libFuzzer entry point over the Gmsh reader (runtime/mesh/gmsh.c, 2.2 and
 * 4.1 ASCII, the refusal of binary files) and the topology built and validated
 * from what it read (runtime/mesh/mesh.c), then periodic=1:2 when the mesh has both
 * groups (runtime/mesh/mesh_periodic.c). Every input must either fail with a
 * printable message or give a mesh that keeps the invariants of mesh.h; a
 * broken invariant aborts, so the fuzzer reports it like a crash. Built only
 * with -DHDG_FUZZ=ON and clang (fuzz/CMakeLists.txt). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"

static void require(int ok, const char *what, int i)
{
    if (ok) return;
    fprintf(stderr, "fuzz_gmsh: broken invariant: %s (%d)\n", what, i);
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

/* An input starting with byte 0xff is a mesh in bytes, written out as Gmsh 2.2
 * text, so that the fuzzer reaches the topology with many small meshes (random
 * text rarely gets past the reader): byte 1 = number of nodes - 3 (mod 16), then
 * a byte per node (x = low 3 bits, y = next 3, on a grid: duplicate, collinear
 * and overlapping triangles are frequent), then groups of 4 bytes = an element:
 * a triangle (3 nodes) when the first byte is even, else a line (2 nodes) whose
 * physical tag is the third byte mod 4 (0: none). */
static char *mesh_from_bytes(const uint8_t *d, size_t n, size_t *len)
{
    size_t nn = 3 + (n > 1 ? d[1] % 16 : 0), p = 2, ne = n > 2 + nn ? (n - 2 - nn) / 4 : 0;
    size_t cap = 128 + 32 * nn + 48 * ne, k = 0;
    char *t = malloc(cap);
    k += (size_t)snprintf(t + k, cap - k, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%zu\n", nn);
    for (size_t i = 0; i < nn; i++, p++) {
        int b = p < n ? d[p] : (int)i;
        k += (size_t)snprintf(t + k, cap - k, "%zu %d %d 0\n", i + 1, b & 7, (b >> 3) & 7);
    }
    k += (size_t)snprintf(t + k, cap - k, "$EndNodes\n$Elements\n%zu\n", ne);
    for (size_t e = 0; e < ne; e++, p += 4) {
        const uint8_t *q = d + p;
        if (q[0] % 2 == 0)
            k += (size_t)snprintf(t + k, cap - k, "%zu 2 2 0 1 %zu %zu %zu\n", e + 1, 1 + q[1] % nn,
                                  1 + q[2] % nn, 1 + q[3] % nn);
        else
            k += (size_t)snprintf(t + k, cap - k, "%zu 1 2 %d 1 %zu %zu\n", e + 1, q[3] % 4, 1 + q[1] % nn,
                                  1 + q[2] % nn);
    }
    k += (size_t)snprintf(t + k, cap - k, "$EndElements\n");
    *len = k;
    return t;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hdg_mesh m;
    hdg_error err;
    hdg_error_clear(&err);
    char *text = NULL;
    if (size > 0 && data[0] == 0xff) text = mesh_from_bytes(data, size, &size);
    hdg_status st = hdg_mesh_read_gmsh_buffer(&m, "fuzz.msh", text ? text : (const char *)data, size, &err);
    free(text);
    if (st) {
        require(err.msg[0] != '\0' && !strncmp(err.msg, "fuzz.msh", 8), "a failure names the file", st);
        require(m.ne == 0 && m.ev == NULL && m.ef == NULL, "a failed read leaves an empty mesh", st);
        return 0;
    }
    check_elements(&m);
    check_faces(&m);
    check_geometry(&m);
    require(hdg_mesh_build_topology(&m, &err) == HDG_OK, "the topology rebuilds", 0);
    check_faces(&m);
    static const char *pairs[][3] = {{"1:3", "1", "3"}, {"2:4", "2", "4"}, {"1:2", "1", "2"}};
    for (int k = 0; k < 3; k++) { /* bottom:top, left:right of the usual tags, then anything */
        if (hdg_mesh_marker_count(&m, atoi(pairs[k][1])) == 0 || hdg_mesh_marker_count(&m, atoi(pairs[k][2])) == 0)
            continue;
        int nf = m.nf, nper = m.nperiodic;
        if (hdg_mesh_make_periodic(&m, pairs[k][0], &err) != HDG_OK) {
            require(err.msg[0] != '\0', "a refused pairing says why", k);
            break;   /* the topology is gone */
        }
        require(m.vtop != NULL && m.nperiodic > nper && m.nf == nf - (m.nperiodic - nper), "periodic faces counted",
                m.nf);
        check_elements(&m);
        check_faces(&m);
        check_geometry(&m);
    }
    hdg_mesh_free(&m);
    return 0;
}
