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
 * the runtime (runtime/refel.h, runtime/quadrature.h) and are built by
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

#endif
