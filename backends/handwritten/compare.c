/* compare.c — comparing hand-written kernels with the generated ones, and
 * putting the hand-written C kernels in place of the generated ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/handwritten.h"
#include "compiler/pipeline.h"
#include "compiler/pipeline_cuda.h"
#include "support/util.h"

/* Items compared before a run uses the hand-written kernels. */
#define PROBE_ITEMS 64

double *hdg_hw_random(long long n, unsigned long long seed)
{
    double *d = hdg_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    unsigned long long s = seed * 2862933555777941757ULL + 3037000493ULL;
    for (long long i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        d[i] = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
    }
    return d;
}

/* Output buffers of info for nitems rows: zero, or random where the kernel
 * reads them (the same values for both versions). */
static void outputs(const hdg_kernel_info *info, long long nitems, hdg_kargs *a)
{
    for (int s = 0; s < info->nout; s++) {
        long long n = nitems * info->out[s].stride;
        if (!info->out[s].stride) a->out[s] = NULL;
        else if (info->out[s].flags & HDG_KSLOT_READS) a->out[s] = hdg_hw_random(n, 77 + (unsigned)s);
        else a->out[s] = hdg_xcalloc((size_t)(n > 0 ? n : 1), sizeof(double));
    }
}

static void free_outputs(const hdg_kernel_info *info, hdg_kargs *a)
{
    for (int s = 0; s < info->nout; s++) free(a->out[s]);
}

/* max |x - y| / max |y| over n values; where it is largest in *at. */
static double rel_diff(const double *x, const double *y, long long n, long long *at)
{
    double dmax = 0, ymax = 0;
    *at = 0;
    for (long long i = 0; i < n; i++) {
        double d = fabs(x[i] - y[i]);
        if (!isfinite(x[i]) || !isfinite(y[i])) d = INFINITY;
        if (d > dmax) dmax = d, *at = i;
        if (isfinite(y[i])) ymax = fmax(ymax, fabs(y[i]));
    }
    if (dmax == 0) return 0;
    return ymax > 0 ? dmax / ymax : dmax;
}

void hdg_hw_compare_outputs(const hdg_kernel_info *info, long long nrun, double *const *gen, double *const *hw,
                            hdg_hw_diff *d)
{
    memset(d, 0, sizeof *d);
    d->rel = -1;
    for (int s = 0; s < info->nout; s++) {
        int w = info->out[s].stride;
        if (!w) continue;
        long long at;
        double r = rel_diff(hw[s], gen[s], nrun * w, &at);
        if (r > d->rel) d->rel = r, d->slot = s, d->item = at / w, d->index = (int)(at % w);
    }
    if (d->rel < 0) d->rel = 0;
}

hdg_status hdg_hw_compare(hdg_kernel_fn gen, hdg_kernel_fn hw, const hdg_kernel_info *info, const hdg_kargs *a,
                          long long nrun, hdg_hw_diff *d, hdg_error *err)
{
    memset(d, 0, sizeof *d);
    if (nrun > a->nitems) nrun = a->nitems;
    hdg_kargs g = *a, h = *a;
    outputs(info, a->nitems, &g);
    outputs(info, a->nitems, &h);
    gen(0, nrun, &g);
    hw(0, nrun, &h);
    hdg_hw_compare_outputs(info, nrun, g.out, h.out, d);
    free_outputs(info, &g);
    free_outputs(info, &h);
    (void)err;
    return HDG_OK;
}

static int find(const hdg_compiled *cc, const char *name)
{
    for (int i = 0; i < cc->nkernels; i++)
        if (!strcmp(cc->info[i].name, name)) return i;
    return -1;
}

static void set_names(char *list, size_t n)
{
    const hdg_hw_set *const *sets = hdg_hw_sets();
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; sets[i] && len < n; i++)
        len += (size_t)snprintf(list + len, n - len, "%s%s (%s)", i ? ", " : "", sets[i]->module, sets[i]->file);
}

/* Compares hand-written kernel hw with the generated kernel i of cc on the
 * first items of a, with random inputs. */
static hdg_status probe(const hdg_compiled *cc, int i, hdg_kernel_fn hw, const hdg_kargs *a, hdg_error *err)
{
    const hdg_kernel_info *info = &cc->info[i];
    hdg_kargs b = *a;
    for (int s = 0; s < info->nin; s++)
        b.in[s] = info->in[s].stride ? hdg_hw_random(a->nitems * info->in[s].stride, 1000 + (unsigned)s) : NULL;
    hdg_hw_diff d;
    hdg_status st = hdg_hw_compare(cc->fn[i], hw, info, &b, PROBE_ITEMS, &d, err);
    for (int s = 0; s < info->nin; s++) free((void *)b.in[s]);
    if (!st && !(d.rel <= HDG_HW_RTOL))
        st = hdg_fail(err, HDG_EINPUT,
                      "the hand-written %s does not compute what this problem's generated kernel does: "
                      "output %s differs by %.3g (relative) at item %lld, value %d; the hand-written "
                      "kernels are for the problem as written in their file",
                      info->name, info->out[d.slot].name, d.rel, d.item, d.index);
    return st;
}

hdg_status hdg_hw_use_c(const char *module, int k, hdg_compiled *cc, const hdg_kargs *a, char *used, size_t n,
                        hdg_error *err)
{
    const hdg_hw_set *set = hdg_hw_find(module);
    char names[256];
    used[0] = '\0';
    if (!set) {
        set_names(names, sizeof names);
        return hdg_fail(err, HDG_EINPUT, "--kernels handwritten: no hand-written kernels for problem '%s' (there are for %s)",
                        module, names);
    }
    if (k < set->kmin || k > set->kmax)
        return hdg_fail(err, HDG_EINPUT, "--kernels handwritten: the hand-written %s kernels cover orders %d..%d, not %d",
                        module, set->kmin, set->kmax, k);
    hdg_hw_kernel hw[HDG_HW_MAX];
    int nk = set->c_kernels(k, hw, err);
    if (nk < 0) return err->code;
    size_t len = 0;
    for (int j = 0; j < nk; j++) {
        int i = find(cc, hw[j].name);
        if (i < 0)
            return hdg_fail(err, HDG_EINPUT, "--kernels handwritten: this problem has no kernel %s: is it %s?",
                            hw[j].name, set->file);
        hdg_status st = probe(cc, i, hw[j].fn, a, err);
        if (st) return st;
        cc->fn[i] = hw[j].fn;
        if (len < n) len += (size_t)snprintf(used + len, n - len, "%s%s", j ? "," : "", hw[j].name);
    }
    return HDG_OK;
}

hdg_status hdg_hw_use_cuda(const char *module, int k, hdg_ir_module *m, hdg_cuda_compiled *cc, const hdg_kargs *a,
                           char *used, size_t n, hdg_error *err)
{
    hdg_compiled c;
    memset(&c, 0, sizeof c);
    hdg_compile_options co = HDG_COMPILE_OPTIONS_DEFAULT;
    co.no_optimize = 1;   /* m was optimized by the CUDA compile */
    hdg_status st = hdg_compile_c(m, &co, &c, err);
    if (!st) st = hdg_hw_use_c(module, k, &c, a, used, n, err);
    hdg_compiled_free(&c);
    if (st) return st;
    const hdg_hw_set *set = hdg_hw_find(module);
    if ((st = hdg_hw_cuda_overlay(set, k, cc, err))) return st;
    hdg_hw_cuda hw;
    if ((st = set->cuda(k, &hw, err))) return st;
    size_t len = 0;
    used[0] = '\0';
    for (int j = 0; j < hw.n && len < n; j++) len += (size_t)snprintf(used + len, n - len, "%s%s", j ? "," : "", hw.name[j]);
    hdg_hw_cuda_free(&hw);
    return HDG_OK;
}
