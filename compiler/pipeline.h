/* pipeline.h — the compiler driver: a checked problem's IR module -> kernels
 * the runtime can call.
 *
 *   hdg_compile_c:  optimize every kernel (ir/), emit one C11 translation unit
 *                   (backends/c/emit.h), compile it in-process (backends/c/jit.h,
 *                   with the on-disk cache), look every kernel up by name.
 *   hdg_launch:     runs one kernel over [0, nitems) split across the thread
 *                   pool (runtime/parallel/parallel.h); outputs are written per item
 *                   only, so any split is race-free.
 *
 * The runtime never sees this header: it receives hdg_kernel_fn pointers and
 * hdg_kernel_info (include/hdg_kernel.h). */
#ifndef HDG_PIPELINE_H
#define HDG_PIPELINE_H

#include "backends/c/jit.h"
#include "hdg.h"
#include "hdg_kernel.h"
#include "ir/ir.h"

typedef struct hdg_compile_options {
    unsigned ir_flags;        /* hdg_ir_optimize flags; 0 means hdg_ir_host_flags() */
    int no_optimize;          /* 1: skip the IR passes (debugging) */
    int opt_level;            /* Clang -O level, default 3 */
    int use_cache;            /* default 1 (HDGC_CACHE=off also disables it) */
    int line_directives;      /* emit #line into the .hdg file (see emit.h) */
    const char *source_file;  /* shown in origins, e.g. "poisson.hdg" */
} hdg_compile_options;

#define HDG_COMPILE_OPTIONS_DEFAULT {0, 0, 3, 1, 0, NULL}

typedef struct hdg_compiled {
    int nkernels;                 /* = module->nkernels, same order */
    int batch, nbatched;          /* items per batch (0: none), kernels batched (emit_batch.c) */
    int *lanes;                   /* per kernel: items per call of its body (1: one at a time) */
    hdg_kernel_fn *fn;
    hdg_kernel_info *info;
    hdg_jit *jit;
    hdg_jit_stats stats;          /* cache_hit, compile_seconds, load_seconds, warning */
    double t_optimize, t_emit, t_compile;   /* seconds */
    size_t source_bytes;
} hdg_compiled;

/* The IR passes of the C backend: HDG_IR_OPT_HOST (loop fusion and zero-fill
 * removal included); without fusion with HDGC_NO_FUSE=1, without the fill
 * removal with HDGC_NO_UNFILL=1 (to compare). */
unsigned hdg_ir_host_flags(void);

/* Items per batch of the C backend's kernels (hdg_emit_c_options.batch):
 * 8 by default on a host with AVX-512 (F and VL), else 4; HDGC_BATCH=2, 4 or 8;
 * HDGC_BATCH=1 turns batching off (0).
 * hdg_batch_check_env refuses any other value (hdgc_check_environment calls it). */
int hdg_batch_width(void);
hdg_status hdg_batch_check_env(hdg_error *err);

/* Optimizes the module's kernels in place, emits C and compiles it. */
hdg_status hdg_compile_c(hdg_ir_module *m, const hdg_compile_options *opt, hdg_compiled *out,
                         hdg_error *err);
/* The kernel called `name`, or NULL; *info (if info != NULL) gets its metadata. */
hdg_kernel_fn hdg_compiled_find(const hdg_compiled *c, const char *name,
                                const hdg_kernel_info **info);
void hdg_compiled_free(hdg_compiled *c);

/* The kernel whose generated text contains line `line` of src ("" when none):
 * compile errors in generated code (a compiler bug) name the kernel with it. */
void hdg_kernel_at_line(const char *src, long line, char *name, size_t n);

/* Runs fn(begin, end, a) over [0, nitems) on the thread pool. */
void hdg_launch(hdg_kernel_fn fn, long long nitems, const hdg_kargs *a);
/* The same over the items [begin, end) only (a->nitems stays the whole count). */
void hdg_launch_range(hdg_kernel_fn fn, long long begin, long long end, const hdg_kargs *a);

#endif
