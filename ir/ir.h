/* ir.h — the element-batch IR: kernels over a range of items (elements or
 * faces) built from small dense tensors with compile-time shapes, scalar
 * expressions, static-bound loops and a few dense operations. Every backend
 * (C now, CUDA later) prints the same IR; every kernel has the one ABI of
 * include/hdg_kernel.h. See docs/ir.md for a tour with printed examples.
 *
 * Ownership: a module owns everything (kernels, tensors, expressions,
 * statements, strings) in one arena; hdg_ir_module_free releases it all.
 * Expressions are immutable and may be shared freely inside a module.
 *
 * Building: kernels are built through a cursor. hdg_ir_for opens a loop and
 * returns its index, hdg_ir_end closes it; statements go to the innermost
 * open loop (or the kernel body). Builder misuse (wrong index count, type
 * mismatch, too many slots, ...) never crashes: the first such error is kept
 * in the kernel and reported by hdg_ir_verify (called by the passes and the
 * emitters), so a lowering can build a whole kernel and check once.
 *
 * Names given to tensors, loops and lets are sanitised to C identifiers and
 * made unique (a suffix 2, 3, ... is added; _2, _3 after a digit) against
 * C/CUDA keywords, libm names, the emitters' own names (a, e, begin, end, t,
 * hdg_*, ...) and each other, so backends print them unchanged. Kernel names
 * and tables are unique in the module; tensors and variables in their kernel
 * (and never equal to a table or kernel name). */
#ifndef HDG_IR_H
#define HDG_IR_H

#include "hdg.h"
#include "hdg_kernel.h"
#include "support/util.h"

typedef struct hdg_ir_module hdg_ir_module;
typedef struct hdg_ir_kernel hdg_ir_kernel;
typedef struct hdg_ir_tensor hdg_ir_tensor;
typedef struct hdg_ir_var hdg_ir_var;
typedef struct hdg_ir_expr hdg_ir_expr;
typedef struct hdg_ir_stmt hdg_ir_stmt;

/* ---------------------------------------------------------------- types */

typedef enum hdg_ir_type { HDG_IR_DOUBLE, HDG_IR_INT } hdg_ir_type;

/* `rank, shape` argument pairs: HDG_SHAPE(3, 4) or HDG_SCALAR. */
#define HDG_SHAPE(...) (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}
#define HDG_SCALAR 0, (const int *)0

typedef enum hdg_ir_tkind {
    HDG_IR_TABLE,   /* constant data of the module (double or int), e.g. basis at quadrature points */
    HDG_IR_LOCAL,   /* per-item scratch (double or int) */
    HDG_IR_IN,      /* a->in[slot], read-only, per item (or at explicit rows) */
    HDG_IR_OUT,     /* a->out[slot], written at the item only */
    HDG_IR_GEOM,    /* a->geom, read-only, per item; at most one per kernel */
    HDG_IR_IMAP     /* a->imap[slot], int, read-only, per item (or at explicit rows) */
} hdg_ir_tkind;

struct hdg_ir_tensor {
    int id;                  /* unique in the module */
    const char *name;        /* a C identifier, unique in its scope */
    hdg_ir_tkind kind;
    hdg_ir_type type;        /* element type */
    int rank;                /* 0..3 */
    int shape[3];
    int size;                /* product of the shape (1 for rank 0); the slot stride */
    int slot;                /* IN/OUT/IMAP: index into a->in/out/imap; else -1 */
    const char *doc;         /* slot meaning (for hdg_kernel_info), may be "" */
    const double *data;      /* TABLE of doubles: size values, row-major */
    const int *idata;        /* TABLE of ints */
    hdg_ir_kernel *kernel;   /* owner; NULL for module tables */
};

/* Loop indices and let temporaries. Integer variables carry a value range
 * (used to prove indices in bounds and to decide what may be evaluated
 * speculatively). */
struct hdg_ir_var {
    int id;                  /* unique in the module */
    const char *name;
    hdg_ir_type type;
    int is_loop;             /* loop index in [0, extent) */
    int extent;
    int known;               /* int range [lo, hi] known */
    long long lo, hi;
};

/* ---------------------------------------------------------- expressions */

typedef enum hdg_ir_op {
    /* leaves */
    HDG_E_NUM,      /* double constant: num */
    HDG_E_INT,      /* int constant: ival */
    HDG_E_VAR,      /* loop index or let temporary: var */
    HDG_E_ITEM,     /* the current item's index (int: meshes have fewer than 2^31 items) */
    HDG_E_TIME,     /* a->t */
    HDG_E_PARAM,    /* a->params[ival] (name: for printing, may be NULL) */
    HDG_E_LOAD,     /* t[a[0]]..[a[rank-1]]; row != NULL: IN/IMAP at that row */
    /* unary */
    HDG_E_NEG, HDG_E_NOT, HDG_E_TODBL,
    HDG_E_POWI,     /* a[0] ^ ival, ival a compile-time integer */
    HDG_E_CALL,     /* ival = hdg_ir_fn, n = its arity */
    /* binary */
    HDG_E_ADD, HDG_E_SUB, HDG_E_MUL, HDG_E_DIV,
    HDG_E_MOD,      /* int only */
    HDG_E_POW, HDG_E_MIN, HDG_E_MAX,
    HDG_E_LT, HDG_E_LE, HDG_E_GT, HDG_E_GE, HDG_E_EQ, HDG_E_NE,   /* give int 0/1 */
    HDG_E_AND, HDG_E_OR,                                            /* int, 0/1 */
    /* ternary */
    HDG_E_SELECT,   /* a[0] ? a[1] : a[2] (only the chosen arm is evaluated) */
    HDG_E_NOPS
} hdg_ir_op;

typedef enum hdg_ir_fn {
    HDG_FN_SIN, HDG_FN_COS, HDG_FN_TAN, HDG_FN_ASIN, HDG_FN_ACOS, HDG_FN_ATAN,
    HDG_FN_SINH, HDG_FN_COSH, HDG_FN_TANH, HDG_FN_EXP, HDG_FN_LOG, HDG_FN_SQRT,
    HDG_FN_ABS, HDG_FN_FLOOR, HDG_FN_CEIL, HDG_FN_ATAN2,
    HDG_FN_COUNT
} hdg_ir_fn;

struct hdg_ir_expr {
    hdg_ir_op op;
    hdg_ir_type type;
    int n;                   /* operands in a[] (LOAD: rank indices) */
    hdg_ir_expr *a[3];
    double num;              /* NUM */
    long long ival;          /* INT value, POWI exponent, CALL fn, PARAM index */
    hdg_ir_var *var;         /* VAR */
    hdg_ir_tensor *t;        /* LOAD */
    hdg_ir_expr *row;        /* LOAD at an explicit row (IN/IMAP only), else NULL */
    const char *name;        /* PARAM name, may be NULL */
};

/* ----------------------------------------------------------- statements */

typedef enum hdg_ir_skind {
    HDG_S_FOR,        /* for var in [0, var->extent) body */
    HDG_S_LET,        /* const var = value (visible to the rest of the block) */
    HDG_S_STORE,      /* dst = value, or dst += value (accumulate); dst is a LOAD */
    HDG_S_MATMUL,     /* C = alpha op(A) op(B) + beta C  (op = transpose if transa/transb) */
    HDG_S_LU,         /* A = P L U in place (partial pivoting), row swaps in piv */
    HDG_S_LU_SOLVE,   /* B = A^-1 B using the LU factors in A and piv */
    HDG_S_CHOL,       /* A = L D L^T (A symmetric): unit L below the diagonal, 1 / D_j on it, scratch above */
    HDG_S_CHOL_SOLVE  /* B = A^-1 B using the factors of HDG_S_CHOL in A */
} hdg_ir_skind;

/* Where a statement comes from, for the generated code's comments. */
typedef struct hdg_ir_origin {
    const char *file;        /* e.g. "poisson.hdg" (may be NULL) */
    int line, col;           /* 0 = unknown */
    const char *text;        /* short text, e.g. the term "(q/kappa, r)" (may be NULL) */
} hdg_ir_origin;

typedef struct hdg_ir_block { hdg_ir_stmt *first, *last; } hdg_ir_block;

struct hdg_ir_stmt {
    hdg_ir_skind kind;
    hdg_ir_stmt *next;
    const hdg_ir_origin *origin;   /* NULL when unknown */
    hdg_ir_var *var;               /* FOR index / LET temporary */
    hdg_ir_block body;             /* FOR */
    hdg_ir_expr *value;            /* LET, STORE */
    hdg_ir_expr *dst;              /* STORE: LOAD of a LOCAL or OUT tensor, no row */
    int accumulate;                /* STORE: += */
    /* dense ops: matrices are rank 2 (row-major) or rank 1 (a column n x 1) */
    hdg_ir_tensor *A, *B, *C, *piv;
    double alpha, beta;            /* MATMUL */
    int transa, transb;            /* MATMUL */
};

/* ------------------------------------------------------ module, kernels */

struct hdg_ir_kernel {
    hdg_ir_module *m;
    const char *name;
    int item;                      /* HDG_KITEM_ELEMENT or HDG_KITEM_FACE */
    hdg_ir_tensor **tensors;       /* locals and slots, in creation order */
    int ntensors, cap_tensors;
    hdg_ir_tensor *geom;           /* or NULL */
    int nin, nout, nimap;          /* slots handed out so far */
    hdg_ir_block body;
    /* builder state */
    hdg_ir_block *open[32];        /* open[depth-1]: where statements go */
    int depth;
    const hdg_ir_origin *origin;   /* given to new statements */
    char *error;                   /* first builder error, or NULL */
    struct hdg_ir_names *names;    /* identifiers in use in this kernel */
};

struct hdg_ir_module {
    const char *name;
    hdg_ir_kernel **kernels;
    int nkernels, cap_kernels;
    hdg_ir_tensor **tables;
    int ntables, cap_tables;
    int next_tensor_id, next_var_id;
    struct hdg_ir_arena *arena;
    struct hdg_ir_names *names;    /* kernel and table names */
};

hdg_ir_module *hdg_ir_module_new(const char *name);
void hdg_ir_module_free(hdg_ir_module *m);
/* Arena allocation (zeroed), freed with the module. */
void *hdg_ir_alloc(hdg_ir_module *m, size_t n);
const char *hdg_ir_strdup(hdg_ir_module *m, const char *s);

hdg_ir_kernel *hdg_ir_kernel_new(hdg_ir_module *m, const char *name, int item);
/* The module as it was when it had nkernels kernels and ntables tables: the later ones dropped
 * (the module then emits as it did before they were made). */
void hdg_ir_module_truncate(hdg_ir_module *m, int nkernels, int ntables);

/* ---------------------------------------------------------------- tensors */

/* Tables belong to the module (shared by its kernels); data is copied. */
hdg_ir_tensor *hdg_ir_table(hdg_ir_module *m, const char *name, int rank, const int *shape,
                            const double *data);
hdg_ir_tensor *hdg_ir_table_int(hdg_ir_module *m, const char *name, int rank, const int *shape,
                                const int *data);
hdg_ir_tensor *hdg_ir_local(hdg_ir_kernel *k, const char *name, hdg_ir_type type, int rank,
                            const int *shape);
/* Slots are numbered in creation order: the first input is in[0], ... */
hdg_ir_tensor *hdg_ir_input(hdg_ir_kernel *k, const char *name, int rank, const int *shape,
                            const char *doc);
hdg_ir_tensor *hdg_ir_output(hdg_ir_kernel *k, const char *name, int rank, const int *shape,
                             const char *doc);
hdg_ir_tensor *hdg_ir_geom(hdg_ir_kernel *k, const char *name, int rank, const int *shape,
                           const char *doc);
hdg_ir_tensor *hdg_ir_imap(hdg_ir_kernel *k, const char *name, int width, const char *doc);

/* ------------------------------------------------------------ expressions
 * Mixed int/double arithmetic converts the int operand to double. Int DIV
 * and MOD need a positive constant divisor (C semantics: truncation).
 * Comparisons, AND, OR, NOT give int 0/1. Calls take doubles. */

hdg_ir_expr *hdg_ir_num(hdg_ir_kernel *k, double v);
hdg_ir_expr *hdg_ir_int(hdg_ir_kernel *k, long long v);
hdg_ir_expr *hdg_ir_item(hdg_ir_kernel *k);
hdg_ir_expr *hdg_ir_time(hdg_ir_kernel *k);
hdg_ir_expr *hdg_ir_param(hdg_ir_kernel *k, int index, const char *name);
hdg_ir_expr *hdg_ir_var_ref(hdg_ir_kernel *k, hdg_ir_var *v);

hdg_ir_expr *hdg_ir_load(hdg_ir_kernel *k, hdg_ir_tensor *t, int n, hdg_ir_expr *const *idx);
hdg_ir_expr *hdg_ir_load_row(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *row, int n,
                             hdg_ir_expr *const *idx);
hdg_ir_expr *hdg_ir_ld0(hdg_ir_kernel *k, hdg_ir_tensor *t);
hdg_ir_expr *hdg_ir_ld1(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *i);
hdg_ir_expr *hdg_ir_ld2(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *i, hdg_ir_expr *j);
hdg_ir_expr *hdg_ir_ld3(hdg_ir_kernel *k, hdg_ir_tensor *t, hdg_ir_expr *i, hdg_ir_expr *j,
                        hdg_ir_expr *l);

hdg_ir_expr *hdg_ir_neg(hdg_ir_kernel *k, hdg_ir_expr *a);
hdg_ir_expr *hdg_ir_not(hdg_ir_kernel *k, hdg_ir_expr *a);
hdg_ir_expr *hdg_ir_todbl(hdg_ir_kernel *k, hdg_ir_expr *a);
hdg_ir_expr *hdg_ir_add(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_sub(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_mul(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_div(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_mod(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_powi(hdg_ir_kernel *k, hdg_ir_expr *a, int n);
hdg_ir_expr *hdg_ir_pow(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_min(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_max(hdg_ir_kernel *k, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_call(hdg_ir_kernel *k, hdg_ir_fn fn, hdg_ir_expr *x);   /* arity 1 */
hdg_ir_expr *hdg_ir_call2(hdg_ir_kernel *k, hdg_ir_fn fn, hdg_ir_expr *x, hdg_ir_expr *y);
/* op: HDG_E_LT .. HDG_E_OR */
hdg_ir_expr *hdg_ir_cmp(hdg_ir_kernel *k, hdg_ir_op op, hdg_ir_expr *a, hdg_ir_expr *b);
hdg_ir_expr *hdg_ir_select(hdg_ir_kernel *k, hdg_ir_expr *c, hdg_ir_expr *a, hdg_ir_expr *b);
/* Generic constructor used by passes: op with n operands (n = arity),
 * ival for POWI/CALL/INT. Applies the same typing rules. */
hdg_ir_expr *hdg_ir_op_new(hdg_ir_kernel *k, hdg_ir_op op, int n, hdg_ir_expr *const *a,
                           long long ival);

/* ------------------------------------------------------------- statements */

/* Statements made from now on carry this origin (strings copied); NULL file
 * and text with line 0 clear it. */
void hdg_ir_set_origin(hdg_ir_kernel *k, const char *file, int line, int col, const char *text);

/* Opens `for name in [0, n)` and returns its index (an int expression). */
hdg_ir_expr *hdg_ir_for(hdg_ir_kernel *k, const char *name, int n);
/* Closes the innermost open loop. */
void hdg_ir_end(hdg_ir_kernel *k);
/* Binds a temporary; returns a reference to it. */
hdg_ir_expr *hdg_ir_let(hdg_ir_kernel *k, const char *name, hdg_ir_expr *value);
/* dst is a load of a LOCAL or OUT element (hdg_ir_ld2(k, M, i, j)). */
void hdg_ir_assign(hdg_ir_kernel *k, hdg_ir_expr *dst, hdg_ir_expr *value);
void hdg_ir_accum(hdg_ir_kernel *k, hdg_ir_expr *dst, hdg_ir_expr *value);

/* Dense ops on whole tensors. Sources: any double tensor (table, local, in,
 * out, geom); destinations: LOCAL or OUT, not aliasing a source. */
void hdg_ir_matmul(hdg_ir_kernel *k, hdg_ir_tensor *C, double alpha, hdg_ir_tensor *A, int transa,
                   hdg_ir_tensor *B, int transb, double beta);
void hdg_ir_lu(hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *piv);     /* piv: int local [n] */
void hdg_ir_lu_solve(hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *piv, hdg_ir_tensor *B);
void hdg_ir_chol(hdg_ir_kernel *k, hdg_ir_tensor *A);
void hdg_ir_chol_solve(hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *B);

/* Composites (emit loops and dense ops): */
/* every element of T = value */
void hdg_ir_fill(hdg_ir_kernel *k, hdg_ir_tensor *T, hdg_ir_expr *value);
/* dst = src element by element (same size; shapes may differ, row-major order) */
void hdg_ir_copy(hdg_ir_kernel *k, hdg_ir_tensor *dst, hdg_ir_tensor *src);
/* Static condensation: S = D - C A^-1 B. Factors A in place (LU into A,
 * piv; keep them for the recovery), leaves W = A^-1 B (W has B's shape).
 * S may be D itself (then D is overwritten). B may be a vector (F_e). */
void hdg_ir_schur(hdg_ir_kernel *k, hdg_ir_tensor *S, hdg_ir_tensor *A, hdg_ir_tensor *piv,
                  hdg_ir_tensor *B, hdg_ir_tensor *C, hdg_ir_tensor *D, hdg_ir_tensor *W);
/* The same with A already factored (by hdg_ir_lu or hdg_ir_schur): e.g.
 * F_e = F_t - C A^-1 F_l after K_e, with W = A^-1 F_l. */
void hdg_ir_schur_factored(hdg_ir_kernel *k, hdg_ir_tensor *S, hdg_ir_tensor *A, hdg_ir_tensor *piv,
                           hdg_ir_tensor *B, hdg_ir_tensor *C, hdg_ir_tensor *D, hdg_ir_tensor *W);

/* Checks the kernel: builder errors, open loops, scopes, types, shapes, slot
 * kinds, and every tensor index whose range is known lies in bounds (under
 * the arms of a select an index may be out of range where the select guards
 * it). Backends and passes call it first. */
hdg_status hdg_ir_verify(const hdg_ir_kernel *k, hdg_error *err);
hdg_status hdg_ir_verify_module(const hdg_ir_module *m, hdg_error *err);

/* ----------------------------------------------------------------- passes */

enum {
    HDG_IR_FOLD   = 1,    /* constant folding and IEEE-exact algebraic identities */
    HDG_IR_CSE    = 2,    /* common subexpressions -> let temporaries */
    HDG_IR_LICM   = 4,    /* hoist loop-invariant expressions out of loops */
    HDG_IR_DCE    = 8,    /* drop unused lets, dead local stores, empty loops */
    HDG_IR_FINITE = 16,   /* folding may assume finite values and ignore the sign of
                             zero: x*0 -> 0, x+0 -> x, 0-x -> -x, 0/x -> 0, x-x -> 0 */
    HDG_IR_FUSE   = 32,   /* fuse loops of equal trip count where no result changes */
    HDG_IR_UNFILL = 64,   /* zero fills dropped where the first += can be an = (only the
                             sign of a zero may change) */
    HDG_IR_OPT_DEFAULT = HDG_IR_FOLD | HDG_IR_CSE | HDG_IR_LICM | HDG_IR_DCE,
    /* for a processor running one item per thread (host C): fused passes, no zero fills */
    HDG_IR_OPT_HOST = HDG_IR_OPT_DEFAULT | HDG_IR_FUSE | HDG_IR_UNFILL
};

/* Runs verify, then fold, DCE, fuse, unfill, CSE, LICM, CSE, fold, DCE as selected by flags,
 * then verify again (an error there is an internal error). */
hdg_status hdg_ir_optimize(hdg_ir_kernel *k, unsigned flags, hdg_error *err);
/* The single passes (the kernel must verify). */
void hdg_ir_fold(hdg_ir_kernel *k, unsigned flags);
void hdg_ir_cse(hdg_ir_kernel *k);
void hdg_ir_licm(hdg_ir_kernel *k);
void hdg_ir_dce(hdg_ir_kernel *k);
void hdg_ir_fuse(hdg_ir_kernel *k);
void hdg_ir_unfill(hdg_ir_kernel *k);

/* ---------------------------------------------------- printer, cost model */

/* Cost per item, by walking the IR (loop trip counts times operations):
 *  flops: double + - * /, min, max, comparisons, abs, floor, ceil, sqrt: 1;
 *         the accumulation of `+=`: 1; negation, conversions, int ops: 0;
 *         x^n: the multiplications of binary exponentiation (+1 divide if n < 0);
 *         exp log sin cos tan asin acos atan sinh cosh tanh: 20; atan2, pow: 40;
 *         matmul m x n x k: 2mnk (+mn if alpha != 1, +mn if beta != 0,
 *                           +mn more if beta is not 0 or 1);
 *         LU n: n(n-1)/2 + n(n-1)(2n-1)/3; LU solve: m(2n^2 - n) for m columns;
 *         Cholesky (L D L^T) n: sum_j (2j + 1 + (n-1-j)(2j+1)); its solve: m(2n^2 - n).
 *  bytes_read: the whole stride of every IN, GEOM, IMAP slot read at the item
 *         (8 B per double, 4 B per int), plus every load at an explicit row
 *         (times its trip count), plus OUT slots the kernel reads;
 *  bytes_written: the whole stride of every OUT slot written;
 *  table_bytes: size of the tables referenced (they stay in cache). */
typedef struct hdg_ir_cost {
    long long flops, bytes_read, bytes_written, table_bytes;
} hdg_ir_cost;

hdg_ir_cost hdg_ir_kernel_cost(const hdg_ir_kernel *k);
long long hdg_ir_expr_flops(const hdg_ir_expr *e);
long long hdg_ir_stmt_flops(const hdg_ir_stmt *s);   /* one statement, loops included */
int hdg_ir_fn_flops(hdg_ir_fn fn);
/* Fills the ABI metadata (slots, strides, flags, cost). */
void hdg_ir_kernel_info(const hdg_ir_kernel *k, hdg_kernel_info *info);

/* Human-readable listing of a kernel, headed by its cost line:
 *   kernel mass (per element)  flops 54  read 48 B  write 72 B  tables 72 B */
void hdg_ir_print(const hdg_ir_kernel *k, hdg_str *out);
void hdg_ir_print_module(const hdg_ir_module *m, hdg_str *out);
void hdg_ir_print_expr(const hdg_ir_expr *e, hdg_str *out);
/* x^n by binary exponentiation, exactly as the emitted hdg_powi computes it
 * (r = 1; for each bit of |n| from the lowest: if set r *= b; b *= b; then 1/r if n < 0). */
double hdg_ir_powi_eval(double x, long long n);
/* Shortest "%.Ng" (N = 15..17) that reads back as v exactly; "nan", "inf", "-inf". */
void hdg_ir_num_str(double v, char *buf, size_t n);
/* "file:line:col: text" (unknown parts left out). */
void hdg_ir_origin_str(const hdg_ir_origin *o, hdg_str *out);

/* ------------------------------------------- helpers for passes, backends */

const char *hdg_ir_fn_name(hdg_ir_fn fn);      /* the C name: "sin", "fabs", "atan2" */
int hdg_ir_fn_arity(hdg_ir_fn fn);
const char *hdg_ir_op_name(hdg_ir_op op);      /* "+", "<", "select", ... */
int hdg_ir_is_leaf(const hdg_ir_expr *e);      /* NUM INT VAR ITEM TIME PARAM */
int hdg_ir_expr_equal(const hdg_ir_expr *a, const hdg_ir_expr *b);
unsigned long long hdg_ir_expr_hash(const hdg_ir_expr *e);
/* Value range of an int expression (known = 0 when unbounded / unknown). */
typedef struct hdg_ir_range { long long lo, hi; int known; } hdg_ir_range;
hdg_ir_range hdg_ir_expr_range(const hdg_ir_expr *e);
/* The same with the range of each variable given by var(ctx, v) (a pass that
 * knows more than the variable's own range: a let's value, a fixed index). */
typedef hdg_ir_range (*hdg_ir_var_range_fn)(void *ctx, const hdg_ir_var *v);
hdg_ir_range hdg_ir_expr_range_env(const hdg_ir_expr *e, hdg_ir_var_range_fn var, void *ctx);
/* True when e can be evaluated anywhere without faulting: every load in it
 * has indices provably in bounds and no explicit row. */
int hdg_ir_speculatable(const hdg_ir_expr *e);
/* Tensors a statement (loops included) reads and writes. Returns the count
 * stored (at most max, duplicates removed). */
int hdg_ir_stmt_writes(const hdg_ir_stmt *s, hdg_ir_tensor **out, int max);
int hdg_ir_dense_reads(const hdg_ir_stmt *s, hdg_ir_tensor **out);   /* dense ops; out[4] */
/* Matrix view of a dense-op operand: rows x cols (rank 1: n x 1), after op(). */
void hdg_ir_matrix_dims(const hdg_ir_tensor *t, int trans, int *rows, int *cols);
/* Makes a fresh variable (used by passes for temporaries); the name is made unique. */
hdg_ir_var *hdg_ir_var_new(hdg_ir_kernel *k, const char *name, hdg_ir_type type);
/* A new statement of the given kind (not linked anywhere). */
hdg_ir_stmt *hdg_ir_stmt_new(hdg_ir_kernel *k, hdg_ir_skind kind);
/* A LET statement binding a new variable named `name` to value (range set). */
hdg_ir_stmt *hdg_ir_let_stmt(hdg_ir_kernel *k, const char *name, hdg_ir_expr *value);
/* Records the first builder error of k (reported by hdg_ir_verify). */
void hdg_ir_builder_error(hdg_ir_kernel *k, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Shape and kind rules of a dense-op statement: NULL if fine, else a message in buf. */
const char *hdg_ir_check_dense(const hdg_ir_kernel *k, const hdg_ir_stmt *s, char *buf, size_t n);
/* Precedence of an operator when printed infix (higher binds tighter):
 * select 1, || 2, && 3, == != 4, < <= > >= 5, + - 6, * / % 7, unary 8, ^ 9, atoms 10. */
int hdg_ir_op_prec(const hdg_ir_expr *e);
/* e with every VAR v for which v->id < nmap and map[v->id] != NULL replaced by
 * map[v->id] (map is indexed by variable id); shares unchanged parts. */
hdg_ir_expr *hdg_ir_subst(hdg_ir_kernel *k, hdg_ir_expr *e, hdg_ir_expr *const *map, int nmap);

#endif
