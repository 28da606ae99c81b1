/* cmd_mesh.c — `hdgc mesh SPEC [--info]`: builds or reads a mesh, validates it,
 * and prints its statistics. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "runtime/geometry.h"
#include "runtime/mesh.h"
#include "runtime/mesh_size.h"
#include "support/util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc mesh SPEC [--info]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Builds or reads a triangle mesh, validates it (degenerate, inverted or\n"
           "overlapping triangles, non-manifold edges) and prints its statistics.\n"
           "\n"
           "SPEC is one of\n"
           "  square:N[,perturb=p][,domain=[a,b]^2 | ,domain=[a,b]x[c,d]]\n"
           "      N x N squares, each cut by its diagonal into 2 triangles (2N^2 triangles,\n"
           "      1 <= N <= 8000) on [0,1]^2 or the given domain. perturb=p moves interior\n"
           "      vertices by a fixed pseudo-random offset of up to p*h per coordinate\n"
           "      (0 <= p < 0.5; p <= 0.25 always gives valid triangles).\n"
           "      Boundary markers: 1 bottom, 2 right, 3 top, 4 left. About 360 bytes per\n"
           "      triangle (square:8000: 44 GiB); a mesh that needs more memory than is\n"
           "      available (MemAvailable, or $HDGC_MEMORY_LIMIT bytes) is refused.\n"
           "  PATH.msh\n"
           "      a Gmsh mesh, format 2.2 or 4.1 ASCII (binary is not supported), with\n"
           "      3-node triangles; 2-node lines carry boundary markers (their physical\n"
           "      tag, named by $PhysicalNames); points are ignored; z must be constant.\n"
           "      Boundary faces on no physical line get the marker \"boundary\".\n"
           "      Clockwise triangles are reoriented.\n"
           "\n"
           "options:\n"
           "  --info     print the statistics (the default)\n"
           "  --help     this text\n"
           "\n"
           "Errors go to stderr as 'hdgc: error: ...' with exit code 1; bad usage exits 2.\n");
}

static void minmax(const double *a, int n, double *lo, double *hi)
{
    *lo = *hi = a[0];
    for (int i = 1; i < n; i++) {
        if (a[i] < *lo) *lo = a[i];
        if (a[i] > *hi) *hi = a[i];
    }
}

static void print_info(const char *spec, const hdg_mesh *m, const hdg_geom *g)
{
    printf("mesh: %s\n", spec);
    printf("elements: %d\n", m->ne);
    printf("vertices: %d\n", m->nv);
    printf("faces: %d\n", m->nf);
    printf("boundary faces: %d\n", m->nbf);
    printf("markers:");
    for (int id = 1; id <= m->nmarkers; id++)
        if (m->marker_names[id]) printf(" %s(%d)", m->marker_names[id], hdg_mesh_marker_count(m, id));
    printf("\n");
    double lo, hi;
    minmax(g->h, m->ne, &lo, &hi);
    printf("element size: min %.6g max %.6g\n", lo, hi);
    minmax(g->rin, m->ne, &lo, &hi);
    printf("inscribed radius: min %.6g max %.6g\n", lo, hi);
    if (m->nreoriented) printf("reoriented: %d clockwise triangles\n", m->nreoriented);
    if (m->nuntagged) printf("untagged boundary faces: %d\n", m->nuntagged);
}

int hdg_cmd_mesh(int argc, char **argv)
{
    const char *spec = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        }
        if (!strcmp(a, "--info")) continue;
        if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "hdgc mesh: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (spec) {
            fprintf(stderr, "hdgc mesh: more than one mesh given ('%s' and '%s')\n", spec, a);
            usage(stderr);
            return 2;
        }
        spec = a;
    }
    if (!spec) {
        fprintf(stderr, "hdgc mesh: no mesh given\n");
        usage(stderr);
        return 2;
    }
    hdg_mesh m;
    hdg_geom g;
    hdg_error err;
    hdg_error_clear(&err);
    if (hdg_mesh_spec_memory_check(spec, hdg_geom_bytes(1), &err)) {   /* a figure, before allocating */
        fprintf(stderr, "hdgc: error: %s\n", err.msg);
        return 1;
    }
    if (hdg_mesh_load(&m, spec, &err)) {
        fprintf(stderr, "hdgc: error: %s\n", err.msg);
        return 1;
    }
    if (hdg_geom_init(&g, &m, &err)) {
        fprintf(stderr, "hdgc: error: %s\n", err.msg);
        hdg_mesh_free(&m);
        return 1;
    }
    print_info(spec, &m, &g);
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
    return 0;
}
