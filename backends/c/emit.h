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
} hdg_emit_c_options;

/* The whole translation unit. Verifies the module first (an invalid module is
 * HDG_EINTERNAL with the verifier's message). opt may be NULL. */
hdg_status hdg_emit_c(const hdg_ir_module *m, hdg_str *out, const hdg_emit_c_options *opt,
                      hdg_error *err);

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

#endif
