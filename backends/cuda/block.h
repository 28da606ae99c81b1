/* block.h — the block-per-item mapping of the CUDA emitter, private to
 * backends/cuda: block_plan.c decides, for a kernel, how each top-level
 * statement runs on a thread block (spread over the threads, thread 0 alone,
 * or a block-cooperative dense op) and where each local lives in shared
 * memory; emit_block.c prints the kernel from that plan. emit.c chooses the
 * mapping (docs/ir.md, "The CUDA emitter"). */
#ifndef HDG_CUDA_BLOCK_H
#define HDG_CUDA_BLOCK_H

#include "backends/c/emit.h"
#include "backends/cuda/emit.h"
#include "ir/ir.h"
#include "support/util.h"

static inline int hdg_cuda_tensor_bytes(const hdg_ir_tensor *t) { return t->size * (t->type == HDG_IR_INT ? 4 : 8); }
static inline long long hdg_cuda_padded(const hdg_ir_tensor *t) { return ((long long)hdg_cuda_tensor_bytes(t) + 7) & ~7LL; }

/* What a statement (its loops included) does to the LOCAL and OUT tensors,
 * by tensor id: the only memory a block's threads share. */
enum { A_READ = 1, A_WRITE = 2 };
void hdg_cuda_block_access(const hdg_ir_stmt *s, unsigned char *acc);

/* How a top-level statement of a block-per-item kernel runs on the block. */
enum { RUN_SKIP, RUN_ALL, RUN_ONE, RUN_LOOP, RUN_PAIR, RUN_DENSE };

typedef struct splan {
    int run;
    const hdg_ir_stmt *loop;    /* RUN_LOOP, RUN_PAIR: the loop spread over the threads */
    const hdg_ir_stmt *inner;   /* RUN_PAIR: the loop right inside it, collapsed with it */
    int extent;                 /* iterations (work items) spread over the threads */
} splan;

typedef struct bplan {
    int n;                 /* top-level statements */
    splan *st;             /* by statement */
    long long *offset;     /* by index in k->tensors: byte offset of a used local, -1 otherwise */
    long long locals;      /* bytes of the used locals, each 8-byte aligned */
    long long shared;      /* bytes of shared memory after sharing between lifetimes */
    int block;             /* threads per block */
} bplan;

/* The plan of kernel k (block_plan.c). */
void hdg_cuda_block_plan(const hdg_ir_kernel *k, bplan *pl);
void hdg_cuda_block_plan_free(bplan *pl);

/* The block-cooperative dense helpers the block-per-item kernels of m use
 * (shapes by kernel), and one such kernel (emit_block.c). */
void hdg_cuda_emit_block_helpers(const hdg_ir_module *m, const hdg_cuda_shape *shapes, hdg_str *out);
void hdg_cuda_emit_block_kernel(const hdg_ir_kernel *k, const hdg_cuda_shape *sh, const bplan *pl,
                                const hdg_emit_c_options *co, hdg_str *out);

#endif
