/* mesh_size.c — see mesh_size.h. */
#include "runtime/mesh/mesh_size.h"
#include "runtime/mesh/mesh.h"

#include <string.h>
#include <sys/stat.h>

#include "support/util.h"

/* Sizes after L uniform refinements (mesh_refine.c). A triangle gets a vertex per
 * edge (= face) and 3 inner faces; a tetrahedron a vertex per edge (nv + nf - ne - 1
 * edges on a mesh of a ball, Euler) and 8 inner faces, each face 4 children. */
static void refined(hdg_mesh_size *s, int L)
{
    for (int l = 0; l < L; l++) {
        if (s->dim == 3) {
            double nv = s->nv + (s->nv + s->nf - s->ne - 1), nf = 4 * s->nf + 8 * s->ne;
            s->nv = nv, s->nf = nf, s->ne *= 8, s->nbf *= 4;
            continue;
        }
        double nv = s->nv + s->nf, nf = 2 * s->nf + 3 * s->ne;
        s->nv = nv, s->nf = nf, s->ne *= 4, s->nbf *= 2;
    }
}

int hdg_mesh_spec_size(const char *spec, hdg_mesh_size *s)
{
    memset(s, 0, sizeof *s);
    int cube = spec && !strncmp(spec, "cube:", 5);
    if (!spec || (strncmp(spec, "square:", 7) && !cube)) return 0;
    size_t len;
    int L = hdg_mesh_spec_refine(spec, &len);
    if (L < -1) return 0;   /* refused by the loader */
    const char *p = spec + (cube ? 5 : 7);
    long N = 0;
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9' && n < 9) N = 10 * N + (p[n] - '0'), n++;
    if (!n || (p[n] && p[n] != ',') || N < 1) return 0;
    double d = (double)N;
    s->dim = cube ? 3 : 2;
    if (cube) {
        s->nv = (d + 1) * (d + 1) * (d + 1);
        s->ne = 6 * d * d * d;
        s->nf = 12 * d * d * d + 6 * d * d;
        s->nbf = 12 * d * d;
    } else {
        s->nv = (d + 1) * (d + 1);
        s->ne = 2 * d * d;
        s->nf = 3 * d * d + 2 * d;
        s->nbf = 4 * d;
    }
    refined(s, L > 0 ? L : 0);
    return 1;
}

double hdg_mesh_kept_bytes(const hdg_mesh_size *s)
{
    double I = sizeof(int), D = sizeof(double), d = s->dim == 3 ? 3 : 2;
    return (d * D + I) * s->nv                           /* vx, vy (vz), vtop (periodic) */
           + 3 * (d + 1) * I * s->ne                     /* ev, ef, eforient */
           + (d + d + 2 + 2 + 1 + 3 * (2 * d + 1)) * I * s->nf /* fv, ftv, fe, flf, fmark, fnbr, fnbr_elem, fnbr_lf */
           + (d + 2) * I * s->nbf;                       /* tagged boundary faces */
}

double hdg_mesh_build_bytes(const hdg_mesh_size *s)
{
    double I = sizeof(int), d = s->dim == 3 ? 3 : 2;
    /* partner (d+1)ne, face index: start and fill nv each, half (d+1)ne, (rest, k) triples 3(d+1)ne */
    return hdg_mesh_kept_bytes(s) + 5 * (d + 1) * I * s->ne + 2 * I * s->nv;
}

/* hdg_geom: G and Ginv (d^2 each) and J per element; n (d), sJ, Fscale per local face
 * (d+1 of them); rin and h. 23 doubles a triangle, 41 a tetrahedron. */
double hdg_geom_bytes(int dim, double ne)
{
    double d = dim == 3 ? 3 : 2;
    return (2 * d * d + 1 + (d + 1) * (d + 2) + 2) * sizeof(double) * ne;
}

hdg_status hdg_mesh_spec_memory_check(const char *spec, double extra_per_element, hdg_error *err)
{
    hdg_mesh_size s;
    struct stat st;
    if (!hdg_mesh_spec_size(spec, &s)) {
        /* a mesh file: its text (at most 1 GiB) and about 16 bytes of mesh per
         * byte of it (a triangle line of ~30 bytes becomes ~360 bytes built) */
        size_t len;
        int L = spec ? hdg_mesh_spec_refine(spec, &len) : -1;
        char path[4096];
        if (!spec || L < -1 || len >= sizeof path) return HDG_OK;   /* the loader says why it refuses it */
        long at = hdg_mesh_spec_periodic(spec, len);   /* PATH,periodic=A:B */
        if (at >= 0) len = (size_t)at;
        memcpy(path, spec, len);
        path[len] = '\0';
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1LL << 30)) return HDG_OK;
        return hdg_memory_check(spec, 17.0 * (double)st.st_size * (double)(1LL << (2 * (L > 0 ? L : 0))), err);
    }
    double kept = hdg_mesh_kept_bytes(&s) + extra_per_element * s.ne;
    double build = hdg_mesh_build_bytes(&s);
    return hdg_memory_check(spec, kept > build ? kept : build, err);
}
