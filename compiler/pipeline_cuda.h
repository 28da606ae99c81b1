/* pipeline_cuda.h — the CUDA side of the compiler driver: an IR module ->
 * optimized kernels -> one .cu source (backends/cuda/emit.h) -> NVRTC (CUBIN
 * for the device's sm_XX, or PTX) with an on-disk cache (support/cache.h) ->
 * cuModuleLoadData -> one CUfunction per kernel, launched by hdg_launch_cuda.
 *
 * Kernels mapped a thread block per item (backends/cuda/emit.h) with more
 * than 48 KiB of dynamic shared memory are allowed it right after the
 * module loads (hdg_cuda_func_set_max_shared); the shared memory a block
 * may have is the device's (227 KiB on sm_90 without a device).
 *
 * Without a device (dev = NULL) it stops after NVRTC: the kernels are
 * compiled and their register/stack/spill counts known (CI checks them).
 * On the emulated device (hdg_cuda_props.emulated, runtime/cuda/cuda_emu.h) NVRTC
 * is skipped: the source text is the image, compiled for the host when the
 * module loads (backends/cuda/emu.h), and the stats say registers -1.
 * The runtime's own kernels (runtime/cuda/cuda_linalg.h) go through the same
 * build path (hdg_cuda_build) and are opened by hdg_cuda_linalg_open. */
#ifndef HDG_PIPELINE_CUDA_H
#define HDG_PIPELINE_CUDA_H

#include "backends/cuda/emit.h"
#include "backends/cuda/nvrtc.h"
#include "hdg.h"
#include "hdg_kernel.h"
#include "ir/ir.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_linalg.h"

typedef struct hdg_cuda_compile_options {
    unsigned ir_flags;        /* hdg_ir_optimize flags; 0 means HDG_IR_OPT_DEFAULT */
    int no_optimize;          /* 1: skip the IR passes */
    int use_cache;            /* default 1 (HDGC_CACHE=off also disables it) */
    int line_directives;      /* #line into the .hdg file (see backends/c/emit.h) */
    int arch;                 /* 0: the device's (sm_90 without a device); else e.g. 90 */
    int ptx_only;             /* 1: compute_XX PTX, JIT-compiled by the driver at load */
    int block;                /* threads per block, 0: the emitter's default (128) */
    int line_info;            /* -lineinfo for profilers */
    int mapping;              /* HDG_CUDA_MAPPING_* (backends/cuda/emit.h): 0 auto (or $HDGC_CUDA_MAPPING),
                                 1 item per thread, 2 block per item */
    int max_shared;           /* shared memory a block may use, 0: the device's (experiments,
                                 tests: less moves big locals to global scratch) */
} hdg_cuda_compile_options;

#define HDG_CUDA_COMPILE_OPTIONS_DEFAULT {0, 0, 1, 0, 0, 0, 0, 0, 0, 0}

/* An NVRTC result with its cache status: out.image, out.log, out.stats. */
typedef struct hdg_cuda_image {
    hdg_nvrtc_output out;
    int cache_hit;
    char warning[512];        /* non-fatal (e.g. cache not writable) */
    double seconds;           /* compile, or cache read */
} hdg_cuda_image;

/* source -> NVRTC (or the cache; key: source, NVRTC version, flags, hdgc
 * version). On a cache hit the ptxas log comes from the cache too, so the
 * stats are always there for CUBIN builds. */
hdg_status hdg_cuda_build(const char *source, const char *file_name, const hdg_nvrtc_options *o,
                          int use_cache, hdg_cuda_image *img, hdg_error *err);
void hdg_cuda_image_free(hdg_cuda_image *img);

typedef struct hdg_cuda_compiled {
    int nkernels;                 /* = module->nkernels, same order */
    hdg_kernel_info *info;
    hdg_cuda_shape *shape;        /* launch shape per kernel */
    hdg_nvrtc_stats *stats;       /* registers/stack/spills per kernel (registers -1 for PTX) */
    hdg_cuda_func **fn;           /* NULL without a device */
    hdg_cuda_module *mod;         /* NULL without a device */
    hdg_cuda_module *mod2;        /* a second module whose kernels replace some of mod's
                                     (backends/handwritten: hdg_hw_cuda_overlay); unloaded by
                                     hdg_cuda_compiled_free, NULL when none */
    hdg_cuda_device *dev;         /* not owned */
    hdg_cuptr *scratch;           /* per kernel: global scratch of a block-per-item kernel whose
                                     locals do not fit shared memory (0 otherwise) */
    int *scratch_grid;            /* ... and the blocks it has room for (the launch grid cap) */
    int arch;                     /* 90 for sm_90 */
    hdg_cuda_image image;
    char *source;                 /* the .cu text */
    double t_optimize, t_emit, t_compile, t_load;
} hdg_cuda_compiled;

/* The architecture to compile for: the device's compute capability, limited
 * to what NVRTC knows (newer GPUs run the newest known sm via PTX JIT only if
 * ptx_only); 90 without a device. */
int hdg_cuda_target_arch(hdg_cuda_device *dev);

/* Optimizes the module's kernels in place, emits CUDA, compiles, and with a
 * device loads the module and looks every kernel up. */
hdg_status hdg_compile_cuda(hdg_ir_module *m, const hdg_cuda_compile_options *opt, hdg_cuda_device *dev,
                            hdg_cuda_compiled *out, hdg_error *err);
void hdg_cuda_compiled_free(hdg_cuda_compiled *c);
/* Index of the kernel called name, or -1. */
int hdg_cuda_compiled_find(const hdg_cuda_compiled *c, const char *name);

/* Runs kernel `k` over items [0, nitems) on the device: a holds device
 * pointers (in/out/geom/imap/params) and is passed by value. Asynchronous:
 * hdg_cuda_sync or a download waits. */
hdg_status hdg_launch_cuda(const hdg_cuda_compiled *c, int k, long long nitems, const hdg_kargs *a,
                           hdg_error *err);

/* Compiles (cached) and loads the runtime kernels for m x m blocks, na per
 * row, and initialises L. */
hdg_status hdg_cuda_linalg_open(hdg_cuda_device *dev, int m, int na, int use_cache, hdg_cuda_linalg *L,
                                hdg_error *err);

#endif
