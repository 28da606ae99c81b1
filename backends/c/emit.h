/* emit.h — the C emitter: one IR module -> one self-contained C11
 * translation unit (the ABI header pasted in, <math.h>, the tables as
 * `static const double`, the dense-op helpers as static inline functions,
 * and one exported function per kernel with the hdg_kernel_fn signature).
 *
 * The pieces are public too, so another C-like backend (CUDA) can reuse the
 * statement printer and wrap kernels its own way: with the options below a
 * CUDA emitter sets helper_qualifier = "static __device__ __forceinline__",
 * table_qualifier = "static __device__ const", restrict_kw = "__restrict__",
 * prints the tables and helpers, then around hdg_emit_c_item() declares
 * `long long e` (the item) and `const hdg_kargs *a` itself. */
#ifndef HDG_EMIT_C_H
#define HDG_EMIT_C_H

#include "hdg.h"
#include "ir/ir.h"
#include "support/util.h"

typedef struct hdg_emit_c_options {
    /* How statement origins are printed: 0 (default) as a comment line
     * holding `poisson.hdg:14:5: (q/kappa, r)`, so compile errors point into
     * the generated file; 1 as `#line 14 "poisson.hdg"` (and a #line back
     * into the generated file after the statement), so they point into the
     * .hdg source. */
    int line_directives;
    const char *file_name;          /* the generated file's name for #line (default "hdgc_kernels.c") */
    int no_header;                  /* 1: do not paste hdg_kernel.h (the caller provides it) */
    const char *helper_qualifier;   /* default "static inline" */
    const char *table_qualifier;    /* default "static const" */
    const char *restrict_kw;        /* default "restrict" */
    /* A line printed before every loop of at least loop_pragma_min iterations,
     * and before every loop of the dense-op helpers (e.g. "#pragma unroll 1" for
     * NVRTC, which otherwise unrolls every constant-trip loop: 35 s of PTX
     * generation for poisson at k = 8). NULL: none. */
    const char *loop_pragma;
    int loop_pragma_min;
    /* Name prefix of the dense-op helpers the statements call (default
     * "hdg_": hdg_lu, hdg_matmul, ...). A backend with its own versions of
     * the same signatures (CUDA's block-cooperative hdg_blk_lu, ...) sets it. */
    const char *dense_prefix;
    /* 1: the dense helpers hdg_matmul and hdg_lu_solve are written for sizes
     * the compiler knows (always inlined at calls with constant sizes, loops
     * over constant tiles it unrolls: a few rows of the result summed in
     * registers), with the generic ones' rounding (each entry's operations in
     * the same order). hdg_emit_c sets it unless it is -1 (the generic ones,
     * for comparisons); 0 (the CUDA emitter's helpers for one thread per
     * item): the plain loops. Above 0 it also marks host C: HDG_UNROLL is defined
     * at the top of the module and the kernels' short innermost loops get it
     * (hdg_emit_c_short_loop); NVRTC unrolls constant-trip loops by itself. */
    int fixed_size_helpers;
    /* W > 1: kernels that can be are batched W items wide, one item per lane
     * of a W-wide vector (see emit_batch.c); the others stay scalar. 0 or 1: none. */
    int batch;
} hdg_emit_c_options;

/* The whole translation unit. Verifies the module first (an invalid module is
 * HDG_EINTERNAL with the verifier's message). opt may be NULL. */
hdg_status hdg_emit_c(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *opt,
                      hdg_error *err);

/* A kernel whose locals take more than this many bytes in all keeps its large
 * locals (4 KiB or more each) in one block it mallocs per call instead of on the
 * stack, so high degrees do not overflow a thread's stack (see emit.c). */
#define HDG_EMIT_C_STACK_MAX (256 * 1024)
/* Batched kernels keep their locals on the stack while they take at most this many bytes
 * times max(W, 4) / 4 (the L2 cache of one core of the znver3 machines measured; 8 wide, on a
 * Xeon with 2 MiB of L2, poisson's local and recovery kernels at k = 5, 6 (0.5-0.9 MiB) ran
 * 1.3-1.6x faster than 4 wide, session 19); larger ones in one 64-byte aligned block the
 * kernel mallocs per call, as the scalar kernels past HDG_EMIT_C_STACK_MAX do (emit_batch.c). */
#define HDG_EMIT_C_BATCH_STACK_MAX (512 * 1024)
/* A kernel is batched only while its locals, W items wide, take at most this many bytes times
 * max(W, 4) / 4 (16 MiB 8 wide). On a Zen 4 core (1 MiB of L2, 8 wide) batching gained
 * 1.65-2.15x with 1.3-7.7 MiB of locals (poisson3d's local and recovery kernels at k = 3..5,
 * poisson's at k = 7, 8 in 2D) and 1.2-1.3x with 12-16 MiB (poisson3d at k = 6), far past L2,
 * for no longer compile (docs/performance.md, session 24). */
#define HDG_EMIT_C_BATCH_MAX (8192 * 1024)
/* Bytes of a local tensor (its shape times its element size). */
long long hdg_emit_c_local_bytes(const hdg_ir_tensor *t);

/* Batching (emit_batch.c): why kernel k cannot be batched W items wide, or
 * NULL when it can (why, if not NULL, gets the reason in words, "" if none);
 * the batched kernel (opt as resolved by hdg_emit_c); the vector types and
 * helpers batched kernels use, for W lanes. A kernel whose locals would take
 * more than HDG_EMIT_C_BATCH_MAX bytes 4 items wide stays scalar (on znver3, 4 wide,
 * poisson's local and recovery kernels gained 1.1-1.4x at k = 5, 6 with 270-460 KiB of
 * locals, nothing measurable at k = 7 with 690-750 KiB; on Zen 4, 8 wide, 1.7-2x at k = 7, 8). */
const char *hdg_emit_c_batchable(const hdg_ir_kernel *k, int W, char *why, size_t size);
/* A batched kernel whose size with every loop unrolled (hdg_emit_c_unrolled_size: its
 * statements times their loops' trips, dense operations by their multiply-adds) is at
 * most this has every loop unrolled by pragma. Its local matrices, indexed by constants
 * then, become values the compiler keeps in registers and spills once, instead of one
 * load and store per term and entry. poisson's kernels at k = 1 (sizes 310-2284) ran
 * 1.2-1.7x faster so for no measurable compile time. Larger kernels gain less per
 * second of compile: at k = 2 local (5836) ran 1.3x faster for 1.3 s more compile,
 * at k = 3 local (13270) 5% faster for 4 s more (docs/performance.md). */
#define HDG_EMIT_C_UNROLL_MAX 2500
/* An innermost loop of at most this many trips is unrolled (host C kernels, batched or
 * not; hdg_emit_c_short_loop): its overhead is most of its cost, and unrolled, its loads
 * that do not depend on its index (a face's weight in the sums over faces of
 * ir/lower_hdg_atoms.c, the entry a sum adds into) leave the loops around it, and the loop
 * around it becomes the innermost one the vectoriser works on. */
#define HDG_EMIT_C_UNROLL_TRIPS 4
int hdg_emit_c_short_loop(const hdg_ir_stmt *loop);
long long hdg_emit_c_unrolled_size(const hdg_ir_kernel *k);
void hdg_emit_c_batch_kernel(const hdg_ir_kernel *k, hdg_str *out, const hdg_emit_c_options *opt, int W);
void hdg_emit_c_batch_helpers(hdg_str *out, int W);

/* The text of include/hdg_kernel.h, as pasted into generated sources. */
const char *hdg_emit_c_abi_header(void);

/* Pieces (the module must verify; opt may be NULL): */
void hdg_emit_c_tables(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *opt);
/* The braced initializer of a table ({..} nested by rank; doubles as exact
 * hexadecimal constants), starting at the current column `indent`. */
void hdg_emit_c_table_init(const hdg_ir_tensor *t, int indent, hdg_str *out);
void hdg_emit_c_helpers(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *opt);
/* The statements for one item: declarations of the item's slot pointers and
 * locals, then the body, each line indented by `indent` spaces. Expects
 * `long long e` (the item) and `const hdg_kargs *a` in scope. */
void hdg_emit_c_item(const hdg_ir_kernel *k, hdg_str *out, int indent, const hdg_emit_c_options *opt);

/* The same printer, statement by statement, for a backend that arranges an
 * item's statements itself (CUDA's block-per-item mapping: loops spread over
 * a thread block, locals in shared memory). hdg_emit_c_item is
 * decls(indent, 1) + block(body). */
typedef struct hdg_emit_c_printer hdg_emit_c_printer;
hdg_emit_c_printer *hdg_emit_c_printer_new(const hdg_ir_kernel *k, hdg_str *out, const hdg_emit_c_options *opt);
void hdg_emit_c_printer_free(hdg_emit_c_printer *p);
/* 1 when the item's code uses t: a local referenced anywhere, or a slot
 * read or written at the item (so its pointer is declared). */
int hdg_emit_c_uses(const hdg_emit_c_printer *p, const hdg_ir_tensor *t);
/* 1 when the let binding v is printed (its value is needed). */
int hdg_emit_c_live(const hdg_emit_c_printer *p, const hdg_ir_var *v);
/* Declarations of the slot pointers the item uses, then (locals != 0) of its locals as arrays. */
void hdg_emit_c_decls(hdg_emit_c_printer *p, int indent, int locals);
/* One statement (a loop with its body; nothing for an unused let), preceded
 * by its origin when that changes; the statements of a block; an expression. */
void hdg_emit_c_stmt(hdg_emit_c_printer *p, const hdg_ir_stmt *s, int indent);
void hdg_emit_c_block(hdg_emit_c_printer *p, const hdg_ir_stmt *first, int indent);
void hdg_emit_c_expr(hdg_emit_c_printer *p, const hdg_ir_expr *e);
/* The origin of s (comment or #line) when due, as hdg_emit_c_stmt prints it;
 * returns 1 when a #line back into the generated file must follow the next
 * line printed (hdg_emit_c_line_back). */
int hdg_emit_c_origin(hdg_emit_c_printer *p, const hdg_ir_stmt *s, int indent);
void hdg_emit_c_line_back(hdg_emit_c_printer *p);

#endif
