/* bench_kernels_cuda.c — one kernel of `hdgc bench kernels --backend cuda`
 * (bench_kernels_cuda.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_kernels_cuda.h"
#include "support/util.h"

#define PTR(p) ((void *)(uintptr_t)(p))

/* Device buffers of one comparison: 0 geom, 1 params, 2..5 imaps, then the
 * inputs, then the outputs of each version. */
enum { B_GEOM = 0, B_PARAMS, B_IMAP, B_IN = B_IMAP + HDG_KMAX_IMAP, B_GEN = B_IN + HDG_KMAX_IN,
       B_HW = B_GEN + HDG_KMAX_OUT, B_N = B_HW + HDG_KMAX_OUT };

static hdg_status put(hdg_cuda_device *dev, const void *h, size_t bytes, hdg_cuptr *p, hdg_error *err)
{
    if (!h || !bytes) return HDG_OK;
    hdg_status st = hdg_cuda_alloc(dev, bytes, p, err);
    return st ? st : hdg_cuda_upload(dev, *p, h, bytes, err);
}

/* Uploads what kernel info reads and the outputs of both versions; da, ha:
 * the device arguments of each. */
static hdg_status upload(hdg_cuda_device *dev, const hdg_kernel_info *info, const hdg_kargs *host, hdg_cuptr *b,
                         hdg_kargs *da, hdg_kargs *ha, hdg_error *err)
{
    long long ne = host->nitems;
    size_t nd = sizeof(double);
    hdg_status st = put(dev, host->geom, nd * (size_t)(ne * info->ngeom), &b[B_GEOM], err);
    if (!st) st = put(dev, host->params, nd * (size_t)(info->nparams > 0 ? info->nparams : 0), &b[B_PARAMS], err);
    memset(da, 0, sizeof *da);
    da->nitems = ne, da->t = host->t, da->geom = PTR(b[B_GEOM]), da->params = PTR(b[B_PARAMS]);
    for (int s = 0; !st && s < info->nimap; s++) {
        st = put(dev, host->imap[s], sizeof(int) * (size_t)(ne * info->imap[s].stride), &b[B_IMAP + s], err);
        da->imap[s] = PTR(b[B_IMAP + s]);
    }
    for (int s = 0; !st && s < info->nin; s++) {
        st = put(dev, host->in[s], nd * (size_t)(ne * info->in[s].stride), &b[B_IN + s], err);
        da->in[s] = PTR(b[B_IN + s]);
    }
    *ha = *da;
    for (int s = 0; !st && s < info->nout; s++) {
        long long n = ne * info->out[s].stride;
        if (!n) continue;
        double *init = hdg_hw_random(n, 77 + (unsigned)s);
        if (!(info->out[s].flags & HDG_KSLOT_READS)) memset(init, 0, nd * (size_t)n);
        st = put(dev, init, nd * (size_t)n, &b[B_GEN + s], err);
        if (!st) st = put(dev, init, nd * (size_t)n, &b[B_HW + s], err);
        free(init);
        da->out[s] = PTR(b[B_GEN + s]), ha->out[s] = PTR(b[B_HW + s]);
    }
    return st;
}

/* Both outputs on the host, compared. */
static hdg_status compare(hdg_cuda_device *dev, const hdg_kernel_info *info, long long ne, const hdg_cuptr *b,
                          hdg_hw_diff *d, hdg_error *err)
{
    double *g[HDG_KMAX_OUT] = {0}, *h[HDG_KMAX_OUT] = {0};
    hdg_status st = HDG_OK;
    for (int s = 0; s < info->nout; s++) {
        size_t bytes = sizeof(double) * (size_t)(ne * info->out[s].stride);
        if (!bytes) continue;
        g[s] = hdg_xmalloc(bytes), h[s] = hdg_xmalloc(bytes);
        if (!st) st = hdg_cuda_download(dev, g[s], b[B_GEN + s], bytes, err);
        if (!st) st = hdg_cuda_download(dev, h[s], b[B_HW + s], bytes, err);
    }
    if (!st) hdg_hw_compare_outputs(info, ne, g, h, d);
    for (int s = 0; s < HDG_KMAX_OUT; s++) free(g[s]), free(h[s]);
    return st;
}

static hdg_status timed(hdg_cuda_device *dev, const hdg_cuda_compiled *c, int i, const hdg_kargs *a, double *sec,
                        hdg_error *err)
{
    hdg_cuda_timer t;
    hdg_status st = hdg_cuda_timer_start(dev, &t, err);
    if (!st) st = hdg_launch_cuda(c, i, a->nitems, a, err);
    double s = INFINITY;
    if (!st) st = hdg_cuda_timer_stop(dev, &t, &s, err);
    *sec = fmin(*sec, s);
    return st;
}

hdg_status hdg_bench_kernel_cuda(hdg_cuda_device *dev, const hdg_cuda_compiled *g, const hdg_cuda_compiled *h, int i,
                                 const hdg_kargs *host, int reps, double *sec_gen, double *sec_hw, hdg_hw_diff *d,
                                 hdg_error *err)
{
    const hdg_kernel_info *info = &g->info[i];
    hdg_cuptr b[B_N] = {0};
    hdg_kargs da, ha;
    hdg_status st = upload(dev, info, host, b, &da, &ha, err);
    if (!st) st = hdg_launch_cuda(g, i, host->nitems, &da, err);
    if (!st) st = hdg_launch_cuda(h, i, host->nitems, &ha, err);
    if (!st) st = hdg_cuda_sync(dev, err);
    if (!st) st = compare(dev, info, host->nitems, b, d, err);
    *sec_gen = *sec_hw = INFINITY;
    for (int r = 0; !st && r < reps; r++) {   /* the comparison runs warmed both up */
        st = timed(dev, g, i, &da, sec_gen, err);
        if (!st) st = timed(dev, h, i, &ha, sec_hw, err);
    }
    for (int k = 0; k < B_N; k++)
        if (b[k]) hdg_cuda_free(dev, b[k]);
    return st;
}
