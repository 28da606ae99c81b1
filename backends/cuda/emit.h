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
 *   HDG_CUDA_ITEM_PER_THREAD  one thread per item, grid-stride loop over
 *                             [begin, end); locals live in registers or
 *                             local memory (the stack of each thread).
 *   HDG_CUDA_BLOCK_PER_ITEM   one thread block per item, grid-stride loop by
 *                             block; the item's locals in dynamic shared
 *                             memory (extern __shared__, one offset per tensor,
 *                             8-byte aligned; tensors whose lifetimes do not
 *                             overlap share bytes, and a copy into a fresh
 *                             tensor of one that dies there is done in place),
 *                             and the work of each top-level statement spread
 *                             over the block's threads:
 *       let                  every thread (pure, uniform per item);
 *       loop nest of stores  the outermost loop whose index v appears, in one
 *                            dimension of every store destination and of every
 *                            load of a tensor the nest writes, as the same
 *                            `v + c` with c free of the nest's variables (so
 *                            distinct v never touch the same entry), plus the
 *                            loop right inside it when that one qualifies too
 *                            and nothing but lets stands between them
 *                            (collapsed pair); the other loops run whole in
 *                            each thread. No such loop (a reduction into one
 *                            entry, a recurrence): thread 0 runs the nest;
 *       dense ops            block-cooperative helpers (hdg_blk_*): LU with the
 *                            pivot search by thread 0 (the host's pivots: the
 *                            first largest |a|), row swap and trailing update
 *                            over the threads; LU / Cholesky solve with one
 *                            thread per right-hand side column (each column's
 *                            substitutions in the host helper's order); matmul
 *                            with one thread per output entry; Cholesky by
 *                            thread 0;
 *       a lone store         thread 0.
 *                            __syncthreads() goes wherever a statement reads
 *                            what an earlier one wrote, or writes what an
 *                            earlier one read or wrote, since the last barrier
 *                            (shared bytes by range, outputs by tensor; not
 *                            between statements of thread 0 alone), and at
 *                            the end of every item.
 * In both mappings tables go to __constant__ memory when every warp reads
 * them at a uniform index and they fit, else __device__ const (read-only
 * cache).
 *
 * choose_mapping() in emit.c picks, per kernel: item-per-thread when the
 * locals take at most HDG_CUDA_BLOCK_MIN_LOCALS bytes (or the device's
 * thread_locals_max), else block-per-item
 * with its locals in shared memory when they fit the device's opt-in
 * maximum (max_shared), else block-per-item with the locals in a global
 * scratch buffer (one slice per block, L2-resident; the reason is in the
 * kernel's comment) — a thread per item would need them all as stack. Threads per block: the largest distributed extent rounded up to
 * a multiple of 32, between 32 and 256. hdg_emit_cuda_options.mapping (or,
 * when that is AUTO, $HDGC_CUDA_MAPPING = auto | thread | block) forces one
 * mapping for experiments (block where it fits). Every size stays a
 * compile-time constant.
 *
 * The per-kernel launch shape (threads per block, items per block, dynamic
 * shared memory) is returned with the source, so launchers never guess; a
 * kernel with more than 48 KiB of dynamic shared memory must be allowed it
 * (hdg_cuda_func_set_max_shared, runtime/cuda/cuda_driver.h) before its launch. */
#ifndef HDG_EMIT_CUDA_H
#define HDG_EMIT_CUDA_H

#include "hdg.h"
#include "ir/ir.h"
#include "support/util.h"

typedef enum hdg_cuda_mapping {
    HDG_CUDA_ITEM_PER_THREAD = 0,
    HDG_CUDA_BLOCK_PER_ITEM = 1
} hdg_cuda_mapping;

/* Values of hdg_emit_cuda_options.mapping (and hdg_cuda_compile_options.mapping). */
enum { HDG_CUDA_MAPPING_AUTO = 0, HDG_CUDA_MAPPING_THREAD = 1, HDG_CUDA_MAPPING_BLOCK = 2 };

/* Locals above this many bytes per item make AUTO choose a block per item: the
 * most local memory a thread may have on sm_90 (512 KiB). A device lowers it
 * (hdg_emit_cuda_options.thread_locals_max, hdg_cuda_thread_locals_limit). On an
 * H200 a thread per element beat a block per element in poisson's local and
 * recovery kernels at every k measured: 1.4-3.4x at k = 2..6 on square:256
 * (session 12; their locals live in L1/L2-cached local memory) and 7-9x at
 * k = 7, 8 on square:128 (178 KB and 263 KB of locals; session 19),
 * docs/performance.md. */
#define HDG_CUDA_BLOCK_MIN_LOCALS 524288
/* The most locals a thread per item may have on a device: the driver gives
 * every resident thread (SMs x threads per SM) the stack of the largest,
 * which may take at most half the memory; at most HDG_CUDA_BLOCK_MIN_LOCALS.
 * An H200 (139.8 GiB, 132 x 2048) allows 272 KiB, an 80 GB H100 154 KiB. */
long long hdg_cuda_thread_locals_limit(size_t total_mem, int sm_count, int threads_per_sm);
/* Dynamic shared memory per block of sm_90 with the opt-in attribute (227 KiB). */
#define HDG_CUDA_SHARED_OPTIN_SM90 232448
/* Dynamic shared memory a launch gets without the opt-in attribute. */
#define HDG_CUDA_SHARED_DEFAULT 49152

/* How to launch one kernel: grid = ceil(items / items_per_block) blocks of
 * `block` threads with `shared_bytes` of dynamic shared memory (a grid-stride
 * kernel also accepts a smaller grid). */
typedef struct hdg_cuda_shape {
    hdg_cuda_mapping mapping;
    int block;              /* threads per block */
    int items_per_block;
    int shared_bytes;       /* dynamic shared memory */
    long long scratch_bytes;/* BLOCK_PER_ITEM whose locals do not fit shared memory: global
                               memory per block, passed as a 4th kernel argument
                               `double *hdg_scratch` (block b uses scratch_bytes at
                               b * scratch_bytes); the grid is then capped by the launcher */
} hdg_cuda_shape;

typedef struct hdg_emit_cuda_options {
    int line_directives;     /* as hdg_emit_c_options */
    const char *file_name;   /* generated file name (default "<module>.cu") */
    int block;               /* threads per block for ITEM_PER_THREAD (default 128) */
    int constant_bytes;      /* budget for __constant__ tables (default 49152; -1: none) */
    int mapping;             /* HDG_CUDA_MAPPING_*: 0 auto ($HDGC_CUDA_MAPPING may override) */
    int max_shared;          /* dynamic shared memory a block may have (0: HDG_CUDA_SHARED_OPTIN_SM90) */
    long long thread_locals_max; /* AUTO: a thread per item up to this many bytes of locals
                                    (0: HDG_CUDA_BLOCK_MIN_LOCALS; a device lowers it:
                                    hdg_cuda_thread_locals_limit) */
} hdg_emit_cuda_options;

/* The whole .cu source. Verifies the module first (an invalid module is
 * HDG_EINTERNAL; a bad $HDGC_CUDA_MAPPING is HDG_EINPUT). shapes (may be
 * NULL) gets m->nkernels entries, in module order. opt may be NULL. */
hdg_status hdg_emit_cuda(const hdg_ir_module *m, hdg_str *out, const hdg_emit_cuda_options *opt,
                         hdg_cuda_shape *shapes, hdg_error *err);

/* The preamble pasted before the tables: the ABI header (when not already
 * included) and definitions NVRTC lacks without headers (NAN, HUGE_VAL). */
const char *hdg_emit_cuda_prelude(void);

#endif
