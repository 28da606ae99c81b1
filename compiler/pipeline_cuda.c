/* pipeline_cuda.c — IR module -> CUDA source -> NVRTC (cached) -> module ->
 * kernels, and the launch helper (see pipeline_cuda.h). */
#include "compiler/pipeline_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/emu.h"
#include "support/cache.h"
#include "support/util.h"

/* ------------------------------------------------------- build with cache */

/* Cache payload: 8-byte log length, 8-byte image length, 8-byte is_ptx, log, image. */
static void pack(const hdg_nvrtc_output *o, hdg_str *buf)
{
    unsigned long long h[3] = { strlen(o->log), o->image_size, (unsigned long long)o->is_ptx };
    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 8; b++) hdg_str_putc(buf, (char)(h[i] >> (8 * b)));
    for (size_t i = 0; i < h[0]; i++) hdg_str_putc(buf, o->log[i]);
    for (size_t i = 0; i < h[1]; i++) hdg_str_putc(buf, ((const char *)o->image)[i]);
}

static int unpack(const unsigned char *p, size_t n, hdg_nvrtc_output *o)
{
    if (n < 24) return 0;
    unsigned long long h[3] = { 0, 0, 0 };
    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 8; b++) h[i] |= (unsigned long long)p[8 * i + b] << (8 * b);
    if (h[0] > n || h[1] > n || 24 + h[0] + h[1] != n || h[1] == 0) return 0;
    memset(o, 0, sizeof *o);
    o->log = hdg_xcalloc(h[0] + 1, 1);
    memcpy(o->log, p + 24, h[0]);
    o->image = hdg_xmalloc(h[1]);
    memcpy(o->image, p + 24 + h[0], h[1]);
    o->image_size = h[1];
    o->is_ptx = (int)h[2];
    o->nstats = hdg_nvrtc_parse_stats(o->log, &o->stats);
    return 1;
}

hdg_status hdg_cuda_build(const char *source, const char *file_name, const hdg_nvrtc_options *opt,
                          int use_cache, hdg_cuda_image *img, hdg_error *err)
{
    memset(img, 0, sizeof *img);
    char version[32];
    hdg_status st = hdg_nvrtc_load(version, sizeof version, err);
    if (st) return st;
    hdg_nvrtc_options o = {0};
    if (opt) o = *opt;
    char flags[1024], nvrtc[64];
    hdg_nvrtc_flags_string(&o, flags, sizeof flags);
    snprintf(nvrtc, sizeof nvrtc, "nvrtc %s hdgc %s", version, HDG_VERSION);
    const char *parts[] = { source, nvrtc, flags };
    unsigned long long key = hdg_cache_key(parts, 3);
    const char *kind = o.ptx_only ? "ptx" : "cubin";
    char dir[4096] = "";
    if (use_cache) {
        hdg_error cerr;
        if (hdg_cache_dir(NULL, dir, sizeof dir, &cerr)) {
            snprintf(img->warning, sizeof img->warning, "%.500s", cerr.msg);
            dir[0] = 0;
        }
    }
    double t0 = hdg_wtime();
    void *data = NULL;
    size_t n = 0;
    if (dir[0] && hdg_cache_get_warn(dir, kind, key, &data, &n, img->warning, sizeof img->warning)) {
        int ok = unpack(data, n, &img->out);
        free(data);
        if (ok) {
            img->cache_hit = 1;
            sscanf(flags, "%31s", img->out.arch_flag);
            img->seconds = hdg_wtime() - t0;
            return HDG_OK;
        }
    }
    st = hdg_nvrtc_compile(source, file_name, &o, &img->out, err);
    img->seconds = hdg_wtime() - t0;
    if (st) return st;
    if (dir[0]) {
        hdg_str buf;
        hdg_str_init(&buf);
        pack(&img->out, &buf);
        if (hdg_cache_put(dir, kind, key, buf.s, buf.len, img->warning, sizeof img->warning))
            img->cache_hit = 0;
        hdg_str_free(&buf);
    }
    return HDG_OK;
}

void hdg_cuda_image_free(hdg_cuda_image *img)
{
    if (!img) return;
    hdg_nvrtc_output_free(&img->out);
    memset(img, 0, sizeof *img);
}

/* On the emulator (runtime/cuda/cuda_emu.h) the module image is the source text
 * itself, compiled for the host at load by the JIT loader registered here;
 * no NVRTC, no ptxas statistics. */
static int emulated(hdg_cuda_device *dev) { return dev && hdg_cuda_device_props(dev)->emulated; }

static void emulator_image(const char *source, hdg_cuda_image *img)
{
    memset(img, 0, sizeof *img);
    hdg_cuda_emu_use_jit();
    img->out.image = hdg_xstrdup(source);
    img->out.image_size = strlen(source) + 1;
    img->out.log = hdg_xstrdup("");
}

/* ------------------------------------------------------------ IR modules */

int hdg_cuda_target_arch(hdg_cuda_device *dev)
{
    if (!dev) return 90;
    const hdg_cuda_props *p = hdg_cuda_device_props(dev);
    int want = p->cc_major * 10 + p->cc_minor, best = hdg_nvrtc_best_arch(want);
    return best ? best : want;
}

static hdg_status optimize_all(hdg_ir_module *m, const hdg_cuda_compile_options *o, hdg_error *err)
{
    for (int i = 0; i < m->nkernels; i++) {
        hdg_status st = o->no_optimize ? hdg_ir_verify(m->kernels[i], err)
                                       : hdg_ir_optimize(m->kernels[i], o->ir_flags ? o->ir_flags : HDG_IR_OPT_DEFAULT, err);
        if (st) return st;
    }
    return HDG_OK;
}

/* The global scratch of kernel i (locals too big for shared memory): two
 * blocks per multiprocessor, each with its slice; launches cap the grid there
 * (the kernels loop over the other items). */
static hdg_status alloc_scratch(hdg_cuda_compiled *out, int i, hdg_error *err)
{
    int sms = hdg_cuda_device_props(out->dev)->sm_count;
    out->scratch_grid[i] = 2 * (sms > 0 ? sms : 1);
    return hdg_cuda_alloc(out->dev, (size_t)out->scratch_grid[i] * (size_t)out->shape[i].scratch_bytes, &out->scratch[i], err);
}

hdg_status hdg_compile_cuda(hdg_ir_module *m, const hdg_cuda_compile_options *opt, hdg_cuda_device *dev,
                            hdg_cuda_compiled *out, hdg_error *err)
{
    hdg_cuda_compile_options o = HDG_CUDA_COMPILE_OPTIONS_DEFAULT;
    if (opt) o = *opt;
    memset(out, 0, sizeof *out);
    out->dev = dev;
    double t0 = hdg_wtime();
    hdg_status st = optimize_all(m, &o, err);
    if (st) return st;
    double t1 = hdg_wtime();
    int nk = m->nkernels;
    out->nkernels = nk;
    out->info = hdg_xcalloc((size_t)nk + 1, sizeof *out->info);
    out->shape = hdg_xcalloc((size_t)nk + 1, sizeof *out->shape);
    out->stats = hdg_xcalloc((size_t)nk + 1, sizeof *out->stats);
    out->fn = hdg_xcalloc((size_t)nk + 1, sizeof *out->fn);
    out->scratch = hdg_xcalloc((size_t)nk + 1, sizeof *out->scratch);
    out->scratch_grid = hdg_xcalloc((size_t)nk + 1, sizeof *out->scratch_grid);
    char file[256];
    snprintf(file, sizeof file, "%s.cu", m->name);
    hdg_emit_cuda_options eo = {0};
    eo.line_directives = o.line_directives;
    eo.file_name = file;
    eo.block = o.block;
    eo.mapping = o.mapping;
    if (dev) {
        const hdg_cuda_props *d = hdg_cuda_device_props(dev);
        eo.max_shared = d->max_shared_per_block;
        eo.thread_locals_max = hdg_cuda_thread_locals_limit(d->total_mem, d->sm_count, d->max_threads_per_sm);
    }
    if (o.max_shared > 0) eo.max_shared = o.max_shared;
    hdg_str src;
    hdg_str_init(&src);
    st = hdg_emit_cuda(m, &src, &eo, out->shape, err);
    out->source = hdg_str_take(&src);
    double t2 = hdg_wtime();
    if (st) {
        hdg_cuda_compiled_free(out);
        return st;
    }
    out->arch = o.arch ? o.arch : hdg_cuda_target_arch(dev);
    hdg_nvrtc_options no = {0};
    no.arch = out->arch;
    no.ptx_only = o.ptx_only;
    no.line_info = o.line_info;
    if (emulated(dev)) emulator_image(out->source, &out->image);
    else st = hdg_cuda_build(out->source, file, &no, o.use_cache, &out->image, err);
    double t3 = hdg_wtime();
    for (int i = 0; i < nk && !st; i++) {
        hdg_ir_kernel_info(m->kernels[i], &out->info[i]);
        const hdg_nvrtc_stats *s = hdg_nvrtc_find_stats(&out->image.out, m->kernels[i]->name);
        if (s) out->stats[i] = *s;
        else {
            snprintf(out->stats[i].name, sizeof out->stats[i].name, "%s", m->kernels[i]->name);
            out->stats[i].registers = -1;
        }
    }
    if (!st && dev) st = hdg_cuda_module_load(dev, out->image.out.image, &out->mod, err);
    for (int i = 0; i < nk && !st && dev; i++) {
        st = hdg_cuda_module_function(out->mod, out->info[i].name, &out->fn[i], err);
        if (!st && out->shape[i].shared_bytes > HDG_CUDA_SHARED_DEFAULT)
            st = hdg_cuda_func_set_max_shared(dev, out->fn[i], out->info[i].name, out->shape[i].shared_bytes, err);
        if (!st && out->shape[i].scratch_bytes) st = alloc_scratch(out, i, err);
    }
    if (st) {
        hdg_cuda_compiled_free(out);
        return st;
    }
    out->t_optimize = t1 - t0;
    out->t_emit = t2 - t1;
    out->t_compile = t3 - t2;
    out->t_load = hdg_wtime() - t3;
    return HDG_OK;
}

void hdg_cuda_compiled_free(hdg_cuda_compiled *c)
{
    if (!c) return;
    for (int i = 0; i < c->nkernels && c->scratch; i++) hdg_cuda_free(c->dev, c->scratch[i]);
    free(c->scratch);
    free(c->scratch_grid);
    hdg_cuda_module_unload(c->mod);
    hdg_cuda_module_unload(c->mod2);
    hdg_cuda_image_free(&c->image);
    free(c->info);
    free(c->shape);
    free(c->stats);
    free(c->fn);
    free(c->source);
    memset(c, 0, sizeof *c);
}

int hdg_cuda_compiled_find(const hdg_cuda_compiled *c, const char *name)
{
    for (int i = 0; i < c->nkernels; i++)
        if (!strcmp(c->info[i].name, name)) return i;
    return -1;
}

hdg_status hdg_launch_cuda(const hdg_cuda_compiled *c, int k, long long nitems, const hdg_kargs *a,
                           hdg_error *err)
{
    if (k < 0 || k >= c->nkernels) return hdg_fail(err, HDG_EINTERNAL, "hdg_launch_cuda: no kernel %d", k);
    if (!c->mod || !c->fn[k])
        return hdg_fail(err, HDG_EDEVICE, "kernel '%s' was compiled without a device: nothing to launch on", c->info[k].name);
    if (nitems <= 0) return HDG_OK;
    const hdg_cuda_shape *s = &c->shape[k];
    long long grid = (nitems + s->items_per_block - 1) / s->items_per_block;
    if (grid > 0x7fffffffLL) grid = 0x7fffffffLL;   /* the kernels loop over the rest */
    long long begin = 0, end = nitems;
    hdg_kargs args = *a;
    args.nitems = nitems;
    hdg_cuptr scratch = c->scratch[k];
    if (s->scratch_bytes && grid > c->scratch_grid[k]) grid = c->scratch_grid[k];
    void *params[] = { &begin, &end, &args, &scratch };
    return hdg_cuda_launch(c->dev, c->fn[k], c->info[k].name, (unsigned)grid, (unsigned)s->block,
                           (unsigned)s->shared_bytes, params, err);
}

/* --------------------------------------------------------- runtime kernels */

hdg_status hdg_cuda_linalg_open(hdg_cuda_device *dev, int m, int na, int use_cache, hdg_cuda_linalg *L,
                                hdg_error *err)
{
    memset(L, 0, sizeof *L);
    hdg_str src;
    hdg_str_init(&src);
    hdg_cuda_linalg_source(m, na, &src);
    char file[64];
    snprintf(file, sizeof file, "hdg_runtime_m%d_na%d.cu", m, na);
    hdg_nvrtc_options no = {0};
    no.arch = hdg_cuda_target_arch(dev);
    hdg_cuda_image img;
    hdg_status st = HDG_OK;
    if (emulated(dev)) emulator_image(src.s, &img);
    else st = hdg_cuda_build(src.s, file, &no, use_cache, &img, err);
    hdg_str_free(&src);
    if (st) return st;
    hdg_cuda_module *mod = NULL;
    st = hdg_cuda_module_load(dev, img.out.image, &mod, err);
    hdg_cuda_image_free(&img);
    if (st) return st;
    return hdg_cuda_linalg_init(L, dev, mod, m, na, err);
}
