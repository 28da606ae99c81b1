/* handwritten.h — hand-written reference kernels for named problems, to
 * compare the generated kernels with (`hdgc bench kernels`) and to run whole
 * problems on (`hdgc run --kernels handwritten`).
 *
 * A set covers one problem file (examples/poisson.hdg, examples/maxwell2d.hdg),
 * found by the problem's module name. Every kernel of a set stands for the
 * generated kernel of the same name: the same ABI (include/hdg_kernel.h),
 * slots, strides and data layout (ir/lower.h, ir/lower_dg.h), so the runtime
 * runs either. Kernels are written once for every order kmin..kmax; the
 * reference tables (quadrature, bases, derivative and lift matrices) come from
 * the runtime (runtime/fem/refel.h, runtime/fem/quadrature.h) and are built by
 * c_kernels(k) on first use.
 *
 * A name match is not proof that the problem is the one the kernels were
 * written for (a user may edit f in a copy of poisson.hdg and keep the name):
 * the callers compare both on sample inputs before using the hand-written ones
 * (hdg_hw_compare). */
#ifndef HDG_HANDWRITTEN_H
#define HDG_HANDWRITTEN_H

#include "hdg.h"
#include "hdg_kernel.h"

#define HDG_HW_MAX 8   /* kernels per set */

typedef struct hdg_hw_kernel {
    const char *name;       /* the generated kernel it stands for, e.g. "poisson_local" */
    hdg_kernel_fn fn;       /* C version of order k */
} hdg_hw_kernel;

/* A set's CUDA version of one order: one source whose __global__ kernels
 * are named as the generated ones and take the generated kernels' arguments
 *     extern "C" __global__ void NAME(long long begin, long long end, hdg_kargs a,
 *                                     double *scratch)
 * (backends/cuda/emit.h; scratch is NULL for hand-written kernels), with each
 * kernel's launch shape. hdg_hw_cuda_free releases it. */
typedef struct hdg_hw_cuda {
    char *source;                          /* hdg_xmalloc'd CUDA C++ text */
    int n;                                 /* kernels */
    char name[HDG_HW_MAX][64];
    int block[HDG_HW_MAX];                 /* threads per block */
    int items_per_block[HDG_HW_MAX];       /* items one block handles per grid step */
    int shared_bytes[HDG_HW_MAX];          /* dynamic shared memory per block */
} hdg_hw_cuda;
void hdg_hw_cuda_free(hdg_hw_cuda *c);

typedef struct hdg_hw_set {
    const char *module;     /* the problem's module name ("poisson") */
    const char *file;       /* the problem file it was written for ("examples/poisson.hdg") */
    int kmin, kmax;         /* orders the C kernels cover */
    /* The C kernels of order k into out[HDG_HW_MAX]: their count, or -1 with
     * err (order out of range, table set-up failed). Builds the order's
     * tables on the first call; not thread-safe: call it before launching. */
    int (*c_kernels)(int k, hdg_hw_kernel *out, hdg_error *err);
    /* The CUDA version of order k (NULL member: none): see hdg_hw_cuda. */
    hdg_status (*cuda)(int k, struct hdg_hw_cuda *out, hdg_error *err);
} hdg_hw_set;

/* The set for module `name`, or NULL. */
const hdg_hw_set *hdg_hw_find(const char *module);
/* All sets, NULL-terminated. */
const hdg_hw_set *const *hdg_hw_sets(void);

/* ------------------------------------------------ comparing and using them */

struct hdg_compiled;

/* Outputs agree when max |hw - gen| / max |gen| over the compared items is at
 * most this, for every output slot (issue 14's bar). */
#define HDG_HW_RTOL 1e-12

/* The largest difference of one comparison. */
typedef struct hdg_hw_diff {
    double rel;          /* max |hw - gen| / max |gen| of the worst output slot (inf: NaN/Inf) */
    int slot;            /* that output slot */
    long long item;      /* the item of the largest |hw - gen| there */
    int index;           /* its value inside the item's row */
} hdg_hw_diff;

/* n values uniform in [-1, 1) from seed (hdg_xmalloc'd): the inputs both
 * versions are fed in comparisons. */
double *hdg_hw_random(long long n, unsigned long long seed);

/* Runs gen and hw (kernels of the same info) over items [0, nrun) of a on
 * this thread, each into fresh output buffers (a's out[] are ignored; outputs
 * the kernel also reads start from the same random values), and compares
 * them. a->in[] must hold every input the kernel reads (a->nitems rows). */
hdg_status hdg_hw_compare(hdg_kernel_fn gen, hdg_kernel_fn hw, const hdg_kernel_info *info, const hdg_kargs *a,
                          long long nrun, hdg_hw_diff *d, hdg_error *err);

/* The comparison of hdg_hw_compare on outputs already computed: gen[s] and
 * hw[s] hold nrun rows of output slot s. */
void hdg_hw_compare_outputs(const hdg_kernel_info *info, long long nrun, double *const *gen, double *const *hw,
                            hdg_hw_diff *d);

/* Replaces in cc (the generated C kernels of the problem with module name
 * `module`, order k) every kernel the module's set has a hand-written C
 * version of. Each is first compared with the generated one on the first
 * items of a (geometry, maps and parameters as the run passes them, random
 * inputs): a difference over HDG_HW_RTOL fails (HDG_EINPUT) naming the kernel
 * and the difference, and so does a module with no set, an order outside the
 * set's, or a hand-written kernel the module does not have. The names of the
 * kernels replaced, comma-separated, go to used[n]. */
hdg_status hdg_hw_use_c(const char *module, int k, struct hdg_compiled *cc, const hdg_kargs *a, char *used,
                        size_t n, hdg_error *err);

/* Puts the hand-written CUDA kernels of `set` (order k) in place of the
 * generated kernels of the same names in cc (compiler/pipeline_cuda.h): builds
 * the set's source (NVRTC, cached; on the emulated device the source is the
 * image), loads it as a second module on cc->dev (kept in cc->mod2 until
 * hdg_cuda_compiled_free) and replaces cc->fn, cc->shape and cc->stats of
 * every kernel it has; the generated others stay. Without a device
 * (cc->dev NULL) it compiles only (errors reported; shapes and statistics
 * replaced, fn stays NULL). On failure cc is left as it was. */
struct hdg_cuda_compiled;
hdg_status hdg_hw_cuda_overlay(const hdg_hw_set *set, int k, struct hdg_cuda_compiled *cc, hdg_error *err);

/* hdg_hw_use_c's probe for a device run, then the overlay: the set's C
 * kernels are compared with the generated C kernels of m (the module the
 * device kernels in cc were compiled from; compiled here, cached) on host
 * data a (the set computes this problem, or HDG_EINPUT as hdg_hw_use_c), then
 * its CUDA kernels replace the generated ones in cc. Their names go to used. */
struct hdg_ir_module;
hdg_status hdg_hw_use_cuda(const char *module, int k, struct hdg_ir_module *m, struct hdg_cuda_compiled *cc,
                           const hdg_kargs *a, char *used, size_t n, hdg_error *err);

#endif
