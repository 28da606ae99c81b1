/* overlay_cuda.c — putting a set's hand-written CUDA kernels in place of the
 * generated ones of a compiled module (hdg_hw_cuda_overlay, handwritten.h). */
#include <stdio.h>
#include <string.h>

#include "backends/cuda/emu.h"
#include "backends/handwritten/handwritten.h"
#include "compiler/pipeline_cuda.h"
#include "support/util.h"

/* The module image of the set's source: the source text itself on the
 * emulated device (compiled for the host at load, as compiler/pipeline_cuda.c
 * does), else NVRTC (cached) for the compiled module's architecture. */
static hdg_status image(const hdg_hw_set *set, int k, const hdg_hw_cuda *hw, const hdg_cuda_compiled *cc,
                        hdg_cuda_image *img, hdg_error *err)
{
    memset(img, 0, sizeof *img);
    if (cc->dev && hdg_cuda_device_props(cc->dev)->emulated) {
        hdg_cuda_emu_use_jit();
        img->out.image = hdg_xstrdup(hw->source);
        img->out.image_size = strlen(hw->source) + 1;
        img->out.log = hdg_xstrdup("");
        return HDG_OK;
    }
    char file[128];
    snprintf(file, sizeof file, "%s_handwritten_k%d.cu", set->module, k);
    hdg_nvrtc_options no = {0};
    no.arch = cc->arch ? cc->arch : hdg_cuda_target_arch(cc->dev);
    no.ptx_only = cc->image.out.is_ptx;   /* as the generated module (a GPU newer than NVRTC knows) */
    return hdg_cuda_build(hw->source, file, &no, 1, img, err);
}

/* Kernel i of hw (module mod) in place of the generated kernel of its name:
 * its function, launch shape and ptxas statistics (without a device, mod
 * NULL: the shape and statistics only). */
static hdg_status replace(hdg_cuda_compiled *cc, const hdg_hw_cuda *hw, int i, hdg_cuda_module *mod,
                          const hdg_cuda_image *img, hdg_error *err)
{
    int g = hdg_cuda_compiled_find(cc, hw->name[i]);
    if (g < 0) return HDG_OK;   /* the generated module has no such kernel: nothing to replace */
    hdg_cuda_func *fn = NULL;
    hdg_status st = mod ? hdg_cuda_module_function(mod, hw->name[i], &fn, err) : HDG_OK;
    if (!st && mod && hw->shared_bytes[i] > HDG_CUDA_SHARED_DEFAULT)
        st = hdg_cuda_func_set_max_shared(cc->dev, fn, hw->name[i], hw->shared_bytes[i], err);
    if (st) return st;
    if (mod) cc->fn[g] = fn;
    hdg_cuda_shape s = {HDG_CUDA_BLOCK_PER_ITEM, hw->block[i], hw->items_per_block[i], hw->shared_bytes[i], 0};
    cc->shape[g] = s;
    const hdg_nvrtc_stats *ps = hdg_nvrtc_find_stats(&img->out, hw->name[i]);
    if (ps) cc->stats[g] = *ps;
    else cc->stats[g].registers = -1;
    return HDG_OK;
}

hdg_status hdg_hw_cuda_overlay(const hdg_hw_set *set, int k, hdg_cuda_compiled *cc, hdg_error *err)
{
    if (!set->cuda)
        return hdg_fail(err, HDG_EINPUT, "--kernels handwritten: %s has hand-written C kernels only, no CUDA ones: "
                        "use --backend c (or the generated kernels on the device)", set->module);
    if (cc->mod2) return hdg_fail(err, HDG_EINTERNAL, "hand-written CUDA kernels already put in place");
    hdg_hw_cuda hw;
    hdg_status st = set->cuda(k, &hw, err);
    if (st) return st;
    hdg_cuda_image img;
    st = image(set, k, &hw, cc, &img, err);
    hdg_cuda_module *mod = NULL;
    if (!st && cc->dev) st = hdg_cuda_module_load(cc->dev, img.out.image, &mod, err);
    /* all kernels are looked up before any is replaced: a failure leaves cc as it was */
    hdg_cuda_func *keep_fn[HDG_HW_MAX];
    hdg_cuda_shape keep_shape[HDG_HW_MAX];
    hdg_nvrtc_stats keep_stats[HDG_HW_MAX];
    int idx[HDG_HW_MAX];
    for (int i = 0; i < hw.n; i++) {
        idx[i] = hdg_cuda_compiled_find(cc, hw.name[i]);
        if (idx[i] >= 0) keep_fn[i] = cc->fn[idx[i]], keep_shape[i] = cc->shape[idx[i]], keep_stats[i] = cc->stats[idx[i]];
    }
    for (int i = 0; i < hw.n && !st; i++) st = replace(cc, &hw, i, mod, &img, err);
    if (st) {
        for (int i = 0; i < hw.n; i++)
            if (idx[i] >= 0) cc->fn[idx[i]] = keep_fn[i], cc->shape[idx[i]] = keep_shape[i], cc->stats[idx[i]] = keep_stats[i];
        hdg_cuda_module_unload(mod);
        mod = NULL;
    }
    cc->mod2 = mod;
    hdg_cuda_image_free(&img);
    hdg_hw_cuda_free(&hw);
    return st;
}
