/* mesh_size.c — see mesh_size.h. */
#include "runtime/mesh/mesh_size.h"
#include "runtime/mesh/mesh.h"

#include <string.h>
#include <sys/stat.h>

#include "support/util.h"

/* Sizes after L uniform refinements (mesh_refine.c). */
static void refined(hdg_mesh_size *s, int L)
{
    for (int l = 0; l < L; l++) {
        double nv = s->nv + s->nf, nf = 2 * s->nf + 3 * s->ne;
        s->nv = nv, s->nf = nf, s->ne *= 4, s->nbf *= 2;
    }
}

int hdg_mesh_spec_size(const char *spec, hdg_mesh_size *s)
{
    memset(s, 0, sizeof *s);
    if (!spec || strncmp(spec, "square:", 7)) return 0;
    size_t len;
    int L = hdg_mesh_spec_refine(spec, &len);
    if (L < -1) return 0;   /* refused by the loader */
    const char *p = spec + 7;
    long N = 0;
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9' && n < 9) N = 10 * N + (p[n] - '0'), n++;
    if (!n || (p[n] && p[n] != ',') || N < 1) return 0;
    double d = (double)N;
    s->nv = (d + 1) * (d + 1);
    s->ne = 2 * d * d;
    s->nf = 3 * d * d + 2 * d;
    s->nbf = 4 * d;
    refined(s, L > 0 ? L : 0);
    return 1;
}

double hdg_mesh_kept_bytes(const hdg_mesh_size *s)
{
    double I = sizeof(int), D = sizeof(double);
    return (2 * D + I) * s->nv                /* vx, vy, vtop (periodic) */
           + 9 * I * s->ne                    /* ev, ef, eforient */
           + (2 + 2 + 2 + 2 + 1 + 15) * I * s->nf /* fv, ftv, fe, flf, fmark, fnbr, fnbr_elem, fnbr_lf */
           + 4 * I * s->nbf;                  /* tagged boundary edges */
}

double hdg_mesh_build_bytes(const hdg_mesh_size *s)
{
    double I = sizeof(int);
    /* partner 3ne, edge index: start and fill nv each, half 3ne, (hi, k) pairs 6ne */
    return hdg_mesh_kept_bytes(s) + 12 * I * s->ne + 2 * I * s->nv;
}

double hdg_geom_bytes(double ne) { return 23 * sizeof(double) * ne; }

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
    double kept = hdg_mesh_kept_bytes(&s) + extra_per_element * s.ne, build = hdg_mesh_build_bytes(&s);
    return hdg_memory_check(spec, kept > build ? kept : build, err);
}
