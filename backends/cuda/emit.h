/* emit.h — the CUDA emitter: one IR module -> one self-contained CUDA C++
 * source (.cu) that compiles alone with NVRTC (-default-device) or with
 * `nvcc -ptx -arch=sm_90`. It prints the same IR as the C emitter, reusing
 * its statement printer (backends/c/emit.h: hdg_emit_c_helpers/item with
 * CUDA qualifiers); only the tables and the kernel wrappers are CUDA's own.
 *
 * Every kernel keeps the ABI of include/hdg_kernel.h, with the arguments
 * passed by value (a kernel cannot take a host pointer):
 *
 *   extern "C" __global__ void NAME(long long begin, long long end, hdg_kargs a);
 *
 * Mapping of items to threads (hdg_cuda_mapping, chosen per kernel):
 *   HDG_CUDA_ITEM_PER_THREAD  baseline: one thread per item, grid-stride loop
 *                             over [begin, end); locals live in registers or
 *                             local memory; tables in __constant__ memory when
 *                             every warp reads them at a uniform index and they
 *                             fit, else __device__ const (read-only cache).
 * The per-kernel launch shape (threads per block, items per block, dynamic
 * shared memory) is returned with the source, so launchers never guess; the
 * later variants (a thread block per item with one thread per output dof and
 * the reused operands in shared memory, seeds 000/003/004) slot into
 * choose_mapping() and emit_kernel() of emit.c and only change that shape. */
#ifndef HDG_EMIT_CUDA_H
#define HDG_EMIT_CUDA_H

#include "hdg.h"
#include "ir/ir.h"
#include "support/util.h"

typedef enum hdg_cuda_mapping {
    HDG_CUDA_ITEM_PER_THREAD = 0
} hdg_cuda_mapping;

/* How to launch one kernel: grid = ceil(items / items_per_block) blocks of
 * `block` threads with `shared_bytes` of dynamic shared memory (a grid-stride
 * kernel also accepts a smaller grid). */
typedef struct hdg_cuda_shape {
    hdg_cuda_mapping mapping;
    int block;              /* threads per block */
    int items_per_block;
    int shared_bytes;       /* dynamic shared memory */
} hdg_cuda_shape;

typedef struct hdg_emit_cuda_options {
    int line_directives;     /* as hdg_emit_c_options */
    const char *file_name;   /* generated file name (default "<module>.cu") */
    int block;               /* threads per block for ITEM_PER_THREAD (default 128) */
    int constant_bytes;      /* budget for __constant__ tables (default 49152; -1: none) */
} hdg_emit_cuda_options;

/* The whole .cu source. Verifies the module first (an invalid module is
 * HDG_EINTERNAL). shapes (may be NULL) gets m->nkernels entries, in module
 * order. opt may be NULL. */
hdg_status hdg_emit_cuda(const hdg_ir_module *m, hdg_str *out, const hdg_emit_cuda_options *opt,
                         hdg_cuda_shape *shapes, hdg_error *err);

/* The preamble pasted before the tables: the ABI header (when not already
 * included) and definitions NVRTC lacks without headers (NAN, HUGE_VAL). */
const char *hdg_emit_cuda_prelude(void);

#endif
