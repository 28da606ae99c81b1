/* spec.c — libFuzzer entry point over the mesh specs: "square:N[,perturb=p][,domain=...]
 * [,periodic=x|y|xy][,refine=L]" (runtime/mesh/mesh.c, mesh_refine.c, mesh_periodic.c) and
 * the sizes and memory predicted from a spec before anything is built (runtime/mesh/mesh_size.c).
 * The bytes are the spec (cut at a NUL); one that does not start with "square" is a file
 * path, of which only the string helpers run (nothing is read). Every spec must either be
 * refused with a message or give a mesh that keeps the invariants of mesh.h, of the size
 * mesh_size.c predicted (the memory check relies on it). HDGC_MEMORY_LIMIT keeps the meshes
 * small: a larger one is refused by the memory check, as hdgc_mesh_load does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/mesh_check.h"
#include "runtime/mesh/mesh.h"
#include "runtime/mesh/mesh_size.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    setenv("HDGC_MEMORY_LIMIT", "64000000", 0);   /* square:N up to N of a few hundred */
    return 0;
}

/* The string helpers on any spec: offsets inside it. */
static void check_helpers(const char *spec, size_t len)
{
    size_t base = (size_t)-1;
    int L = hdg_mesh_spec_refine(spec, &base);
    require(L >= -3 && L <= 10, "refine=L in -3..10", L);
    if (L >= -1) require(base <= len, "the base of a refine= spec inside it", (int)base);
    long at = hdg_mesh_spec_periodic(spec, len);
    require(at >= -1 && at < (long)len && (at < 0 || !strncmp(spec + at, ",periodic=", 10)),
            "periodic= found at a comma", (int)at);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    memcpy(spec, data, size);
    spec[size] = '\0';
    size_t len = strlen(spec);
    check_helpers(spec, len);
    hdg_error err;
    hdg_error_clear(&err);
    hdg_mesh_size want;
    int sized = hdg_mesh_spec_size(spec, &want);
    if (strncmp(spec, "square", 6) || hdg_mesh_spec_memory_check(spec, hdg_geom_bytes(2, 1), &err)) {
        free(spec);   /* a file (not read here), or too large for the limit */
        return 0;
    }
    hdg_mesh m;
    hdg_status st = hdg_mesh_load(&m, spec, &err);
    if (st) {
        require(err.msg[0] != '\0' && m.ne == 0 && m.ev == NULL, "a refused spec says why and keeps nothing", st);
        free(spec);
        return 0;
    }
    require(sized, "a spec that loads was sized before (the memory check)", m.ne);
    require(m.ne == (int)want.ne, "ne as predicted", m.ne);
    if (!m.vtop)
        require(m.nv == (int)want.nv && m.nf == (int)want.nf && m.nbf == (int)want.nbf, "nv, nf, nbf as predicted",
                m.nf);
    else
        require(m.nf <= (int)want.nf && m.nbf <= (int)want.nbf, "a periodic mesh has fewer faces", m.nf);
    check_elements(&m);
    check_faces(&m);
    check_geometry(&m);
    hdg_mesh_free(&m);
    free(spec);
    return 0;
}
