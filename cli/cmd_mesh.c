/* cmd_mesh.c — `hdgc mesh SPEC [--info]`: builds or reads a mesh, validates it,
 * and prints its statistics. A client of the public API (hdgc_mesh_load, hdgc_mesh_info). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "hdgc.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc mesh SPEC [--info]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Builds or reads a triangle or tetrahedral mesh, validates it (degenerate,\n"
           "inverted, duplicate or overlapping elements, non-manifold edges or faces)\n"
           "and prints its statistics.\n"
           "\n"
           "SPEC is one of\n"
           "  square:N[,perturb=p][,domain=[a,b]^2 | ,domain=[a,b]x[c,d]][,periodic=x|y|xy]\n"
           "      N x N squares, each cut by its diagonal into 2 triangles (2N^2 triangles,\n"
           "      1 <= N <= 8000) on [0,1]^2 or the given domain. perturb=p moves interior\n"
           "      vertices by a fixed pseudo-random offset of up to p*h per coordinate\n"
           "      (0 <= p < 0.5; p <= 0.25 always gives valid triangles).\n"
           "      Boundary markers: 1 bottom, 2 right, 3 top, 4 left. About 360 bytes per\n"
           "      triangle (square:8000: 44 GiB); a mesh that needs more memory than is\n"
           "      available (MemAvailable, or $HDGC_MEMORY_LIMIT bytes) is refused.\n"
           "  cube:N[,perturb=p][,domain=[a,b]^3 | ,domain=[a,b]x[c,d]x[e,f]][,periodic=xyz]\n"
           "      N^3 cubes, each cut into 6 tetrahedra along its main diagonal (the Kuhn\n"
           "      split: 6N^3 tetrahedra, 1 <= N <= 280) on [0,1]^3 or the given domain;\n"
           "      perturb=p as for square:N (p < 1/6 always gives valid tetrahedra).\n"
           "      Boundary markers: 1 left (x = min), 2 right, 3 front (y = min), 4 back,\n"
           "      5 bottom (z = min), 6 top.\n"
           "      About 640 bytes per tetrahedron (cube:280: 78 GiB), refused likewise\n"
           "      when it does not fit.\n"
           "  PATH.msh\n"
           "      a Gmsh mesh, format 2.2 or 4.1 ASCII (binary is not supported), with\n"
           "      3-node triangles; 2-node lines carry boundary markers (their physical\n"
           "      tag, named by $PhysicalNames); points are ignored; z must be constant.\n"
           "      Boundary faces on no physical line get the marker \"boundary\".\n"
           "      Clockwise triangles are reoriented. A file with 4-node tetrahedra is\n"
           "      a 3D mesh: 3-node triangles carry its markers (physical surfaces).\n"
           "  PATH.msh,periodic=A:B[,C:D]\n"
           "      the Gmsh mesh with boundary groups A and B identified (and C and D): names\n"
           "      or integer physical tags; each face of A must match a face of B translated\n"
           "      by the vector between the groups' bounding-box centres (within 1e-10 of the\n"
           "      mesh size), else the face without a partner is named with its coordinates.\n"
           "  periodic=x|y|xy on square:N (N >= 3) pairs left:right, bottom:top, or both;\n"
           "      on cube:N any of x (left:right), y (front:back), z (bottom:top) once.\n"
           "      Periodic faces are interior faces (two elements; coordinates stay per\n"
           "      element); the paired markers are gone and need no boundary condition.\n"
           "  SPEC,refine=L (last)\n"
           "      any of the above with every triangle cut into four (tetrahedron into\n"
           "      eight), L times (0..10);\n"
           "      markers and periodicity are kept.\n"
           "\n"
           "options:\n"
           "  --info     print the statistics (the default): counts, markers, the bounding\n"
           "             box [x0, x1] x [y0, y1] (x [z0, z1] in 3D), element sizes and\n"
           "             inscribed radii\n"
           "  --help     this text\n"
           "\n"
           "Errors go to stderr as 'hdgc: error: ...' with exit code 1; bad usage exits 2.\n");
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
    hdgc_mesh *m;
    hdg_error err = {0};
    if (hdgc_mesh_load(spec, HDGC_MESH_GEOMETRY, &m, &err)) {   /* memory estimated before allocating */
        fprintf(stderr, "hdgc: error: %s\n", err.msg);
        return 1;
    }
    fputs(hdgc_mesh_info(m), stdout);
    hdgc_mesh_free(m);
    return 0;
}
