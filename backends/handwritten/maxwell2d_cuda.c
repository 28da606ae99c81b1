/* maxwell2d_cuda.c — the hand-written CUDA kernels of examples/maxwell2d.hdg
 * (maxwell2d.cu, embedded at build time as hdg_hw_maxwell2d_cu) for one
 * order N: the sizes and the nodal reference tables of runtime/fem/refel.h
 * (the same warp-blend element the lowering uses, ir/lower_dg.c), printed
 * in front of the body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"
#include "backends/cuda/emit.h"
#include "backends/handwritten/sets.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

extern const char hdg_hw_maxwell2d_cu[];

#define NMIN 1
#define NMAX 8
/* The problem's layout: 4 parameters (alpha mx my omega) then the stage
 * values a, b, dt the lowering appends (hdg_dg_lowered.p_rka...); no marker
 * sets in the face map (DG_M_SETS ints per element). */
#define MX_P_RKA 4
#define MX_FMAP_STRIDE 9

static void put_table(hdg_str *s, const char *type, const char *name, const double *v, const int *iv, int n)
{
    hdg_str_printf(s, "__device__ const %s %s[%d] = {", type, name, n);
    for (int i = 0; i < n; i++) {
        hdg_str_puts(s, i ? (i % 4 ? ", " : ",\n    ") : "\n    ");
        if (v) hdg_str_printf(s, "%.17g", v[i]);
        else hdg_str_printf(s, "%d", iv[i]);
    }
    hdg_str_puts(s, "};\n");
}

/* A (r x c) transposed into T (c x r) */
static void transpose(const double *A, int r, int c, double *T)
{
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) T[j * r + i] = A[i * c + j];
}

hdg_status hdg_hw_maxwell2d_cuda(int N, hdg_hw_cuda *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    if (N < NMIN || N > NMAX)
        return hdg_fail(err, HDG_EINPUT, "hand-written CUDA maxwell2d kernels cover N = %d..%d, not %d", NMIN, NMAX, N);
    hdg_refel re;
    hdg_status st = hdg_refel_init(&re, 2, N, err);
    if (st) return st;
    int np = re.Np, nfp = re.Nfp, epb = 128 / np > 1 ? 128 / np : 1, nt = epb * np;
    double *T = hdg_xmalloc(sizeof(double) * (size_t)(np * 3 * nfp > np * np ? np * 3 * nfp : np * np));
    hdg_str s;
    hdg_str_init(&s);
    hdg_str_printf(&s, "/* hand-written maxwell2d kernels (backends/handwritten/maxwell2d.cu), order N = %d */\n", N);
    hdg_str_puts(&s, hdg_emit_c_abi_header());
    hdg_str_puts(&s, hdg_emit_cuda_prelude());
    hdg_str_printf(&s, "#define N %d\n#define NP %d\n#define NFP %d\n#define EPB %d\n#define NT %d\n"
                       "#define FMAP_STRIDE %d\n#define P_RKA %d\n#define P_RKB %d\n#define P_DT %d\n",
                   N, np, nfp, epb, nt, MX_FMAP_STRIDE, MX_P_RKA, MX_P_RKA + 1, MX_P_RKA + 2);
    transpose(re.Dr, np, np, T);
    put_table(&s, "double", "DrT", T, NULL, np * np);
    transpose(re.Ds, np, np, T);
    put_table(&s, "double", "DsT", T, NULL, np * np);
    transpose(re.LIFT, np, 3 * nfp, T);
    put_table(&s, "double", "LIFTT", T, NULL, 3 * nfp * np);
    put_table(&s, "int", "Fmask", NULL, re.Fmask, 3 * nfp);
    hdg_str_puts(&s, hdg_hw_maxwell2d_cu);
    free(T);
    hdg_refel_free(&re);
    out->source = hdg_str_take(&s);
    static const char *names[2] = {"maxwell2d_rhs", "maxwell2d_step"};
    out->n = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(out->name[i], sizeof out->name[i], "%s", names[i]);
        out->block[i] = nt;
        out->items_per_block[i] = epb;
        out->shared_bytes[i] = 0;   /* static __shared__ only */
    }
    return HDG_OK;
}
