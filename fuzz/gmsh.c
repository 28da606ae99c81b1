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

#include "fuzz/mesh_check.h"
#include "runtime/mesh/mesh.h"

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
