/* test_batch.c — kernels batched across SIMD lanes (backends/c/emit_batch.c)
 * against the same kernels one item at a time: both modules compiled by the
 * in-process JIT and run on the same items, every output compared for
 * equality (each lane does the scalar kernel's operations in the same order).
 *
 * - dense: LU with pivots that differ between items (a forced swap in some,
 *   none in others), a singular item (its NaN must stay in its own lane),
 *   solves, Schur products, Cholesky; block-sparse matrices with zero rows.
 * - expr: per-item choices: comparisons, && || !, ?: with item-dependent and
 *   uniform conditions, fmin/fmax, fabs, exp/cos/atan2/pow, integer powers,
 *   a truth value converted to double, stores of uniform values.
 * - item counts 1..9 and ranges not starting at 0: the last batch's spare
 *   lanes must not write past the range.
 * - kernels that cannot be batched (an integer map, the item's index) stay
 *   scalar, and the emitted source says why. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"
#include "backends/c/jit.h"
#include "ir/ir.h"
#include "test.h"

enum { N = 9, NMAT = 12, NB = 5, NQ = 4 };

static void dense_kernel(hdg_ir_module *mod)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(mod, "dense", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *A = hdg_ir_input(k, "A", HDG_SHAPE(NMAT, NMAT), "");
    hdg_ir_tensor *B = hdg_ir_input(k, "B", HDG_SHAPE(NMAT, NB), "");
    hdg_ir_tensor *C = hdg_ir_input(k, "C", HDG_SHAPE(NQ, NMAT), "");
    hdg_ir_tensor *LU = hdg_ir_output(k, "LU", HDG_SHAPE(NMAT, NMAT), "");
    hdg_ir_tensor *X = hdg_ir_output(k, "X", HDG_SHAPE(NMAT, NB), "");
    hdg_ir_tensor *S = hdg_ir_output(k, "S", HDG_SHAPE(NQ, NB), "");
    hdg_ir_tensor *L = hdg_ir_output(k, "L", HDG_SHAPE(NMAT, NMAT), "");
    hdg_ir_tensor *Y = hdg_ir_output(k, "Y", HDG_SHAPE(NMAT, NB), "");
    hdg_ir_tensor *Al = hdg_ir_local(k, "Al", HDG_IR_DOUBLE, HDG_SHAPE(NMAT, NMAT));
    hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(NMAT));
    hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(NMAT, NB));
    hdg_ir_tensor *G = hdg_ir_local(k, "G", HDG_IR_DOUBLE, HDG_SHAPE(NMAT, NMAT));
    hdg_ir_copy(k, Al, A);
    hdg_ir_lu(k, Al, piv);
    hdg_ir_copy(k, LU, Al);
    hdg_ir_copy(k, W, B);
    hdg_ir_lu_solve(k, Al, piv, W);
    hdg_ir_copy(k, X, W);
    hdg_ir_matmul(k, S, -1.0, C, 0, W, 0, 0.0);
    /* G = A^T A + I (positive definite), then its Cholesky factor and a solve */
    hdg_ir_matmul(k, G, 1.0, A, 1, A, 0, 0.0);
    hdg_ir_expr *i = hdg_ir_for(k, "i", NMAT);
    hdg_ir_accum(k, hdg_ir_ld2(k, G, i, i), hdg_ir_num(k, 1.0));
    hdg_ir_end(k);
    hdg_ir_chol(k, G);
    hdg_ir_copy(k, L, G);
    hdg_ir_copy(k, W, B);
    hdg_ir_chol_solve(k, G, W);
    hdg_ir_copy(k, Y, W);
}

/* out[j] for j < 12: per-item arithmetic and choices on x = in[0..3] */
static void expr_kernel(hdg_ir_module *mod)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(mod, "expr", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *in = hdg_ir_input(k, "x", HDG_SHAPE(4), "");
    hdg_ir_tensor *out = hdg_ir_output(k, "y", HDG_SHAPE(12), "");
    hdg_ir_tensor *loc = hdg_ir_local(k, "t", HDG_IR_DOUBLE, HDG_SHAPE(3));
    hdg_ir_expr *x0 = hdg_ir_ld1(k, in, hdg_ir_int(k, 0)), *x1 = hdg_ir_ld1(k, in, hdg_ir_int(k, 1));
    hdg_ir_expr *x2 = hdg_ir_ld1(k, in, hdg_ir_int(k, 2)), *x3 = hdg_ir_ld1(k, in, hdg_ir_int(k, 3));
    hdg_ir_expr *p = hdg_ir_param(k, 0, "p");
    hdg_ir_expr *lt = hdg_ir_let(k, "lt", hdg_ir_cmp(k, HDG_E_LT, x0, x1));
    hdg_ir_expr *ge = hdg_ir_let(k, "ge", hdg_ir_cmp(k, HDG_E_GE, x2, p));
    hdg_ir_expr *both = hdg_ir_op_new(k, HDG_E_AND, 2, (hdg_ir_expr *[]){lt, ge}, HDG_IR_INT);
    hdg_ir_expr *either = hdg_ir_op_new(k, HDG_E_OR, 2, (hdg_ir_expr *[]){hdg_ir_not(k, lt), ge}, HDG_IR_INT);
    hdg_ir_expr *y[12];
    y[0] = hdg_ir_select(k, lt, hdg_ir_mul(k, x0, x2), hdg_ir_num(k, -1.5));
    y[1] = hdg_ir_select(k, both, x3, hdg_ir_neg(k, x3));
    y[2] = hdg_ir_todbl(k, either);
    y[3] = hdg_ir_max(k, hdg_ir_call(k, HDG_FN_ABS, x1), p);
    y[4] = hdg_ir_min(k, x0, hdg_ir_div(k, x1, x2));
    y[5] = hdg_ir_add(k, hdg_ir_call(k, HDG_FN_EXP, x0), hdg_ir_call(k, HDG_FN_COS, hdg_ir_mul(k, p, x1)));
    y[6] = hdg_ir_call2(k, HDG_FN_ATAN2, x2, p);
    y[7] = hdg_ir_pow(k, hdg_ir_call(k, HDG_FN_ABS, x3), hdg_ir_num(k, 1.0 / 3.0));
    y[8] = hdg_ir_add(k, hdg_ir_powi(k, x1, 3), hdg_ir_powi(k, hdg_ir_add(k, x0, x2), 5));
    y[9] = hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_GT, p, hdg_ir_num(k, 0.0)), x1, p);   /* uniform choice */
    y[10] = hdg_ir_num(k, -0.0);                                                      /* uniform store */
    y[11] = hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_call(k, HDG_FN_ABS, hdg_ir_sub(k, x0, x3)));
    for (int j = 0; j < 12; j++) hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_int(k, j)), y[j]);
    /* a local accumulated in a loop, then added to an output */
    hdg_ir_fill(k, loc, hdg_ir_num(k, 0.0));
    hdg_ir_expr *q = hdg_ir_for(k, "q", 3);
    hdg_ir_accum(k, hdg_ir_ld1(k, loc, q), hdg_ir_mul(k, hdg_ir_todbl(k, q), x1));
    hdg_ir_accum(k, hdg_ir_ld1(k, out, hdg_ir_int(k, 4)), hdg_ir_ld1(k, loc, q));
    hdg_ir_end(k);
}

/* not batchable: reads the item's index; reads through an integer map */
static void scalar_kernels(hdg_ir_module *mod)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(mod, "by_item", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *out = hdg_ir_output(k, "y", HDG_SHAPE(1), "");
    hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_int(k, 0)), hdg_ir_todbl(k, hdg_ir_item(k)));
    k = hdg_ir_kernel_new(mod, "by_map", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *map = hdg_ir_imap(k, "nb", 1, "");
    hdg_ir_tensor *in = hdg_ir_input(k, "x", HDG_SHAPE(4), "");
    out = hdg_ir_output(k, "y", HDG_SHAPE(1), "");
    hdg_ir_expr *row = hdg_ir_ld1(k, map, hdg_ir_int(k, 0));
    hdg_ir_expr *idx[1] = {hdg_ir_int(k, 1)};
    hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_int(k, 0)), hdg_ir_load_row(k, in, row, 1, idx));
}

static hdg_jit *compile(const hdg_ir_module *mod, int batch, const char *name, hdg_str *src)
{
    hdg_emit_c_options eo = {0};
    eo.batch = batch;
    hdg_error err;
    hdg_str_init(src);
    CHECK(hdg_emit_c(mod, src, &eo, &err) == HDG_OK, "emit: %s", err.msg);
    hdg_jit_options jo = HDG_JIT_OPTIONS_DEFAULT;
    jo.use_cache = 0;
    hdg_jit *jit = NULL;
    CHECK(hdg_jit_compile(src->s, name, &jo, &jit, NULL, &err) == HDG_OK, "jit: %s", err.msg);
    return jit;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)   /* uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

static void run(hdg_jit *jit, const char *name, hdg_kargs *a, long long begin, long long end)
{
    void *p = hdg_jit_lookup(jit, name);
    CHECK(p != NULL, "%s missing", name);
    if (!p) return;
    hdg_kernel_fn fn;
    memcpy(&fn, &p, sizeof fn);
    fn(begin, end, a);
}

/* Runs kernel `name` of both modules over [begin, end) of N items; outputs
 * are prefilled with a marker, so writes outside the range show. */
static void compare(hdg_jit *scalar, hdg_jit *batched, const char *name, int nin, const int *insz, int nout,
                    const int *outsz, long long begin, long long end, double *const *in)
{
    double *out[2][8];
    double param = 0.25;
    for (int v = 0; v < 2; v++) {
        hdg_kargs a;
        memset(&a, 0, sizeof a);
        a.nitems = N;
        a.params = &param;
        for (int s = 0; s < nin; s++) a.in[s] = in[s];
        for (int s = 0; s < nout; s++) {
            out[v][s] = malloc(sizeof(double) * (size_t)(N * outsz[s]));
            for (int i = 0; i < N * outsz[s]; i++) out[v][s][i] = 12345.0;
            a.out[s] = out[v][s];
        }
        run(v ? batched : scalar, name, &a, begin, end);
    }
    (void)insz;
    for (int s = 0; s < nout; s++) {
        int bad = -1, marks = 0;
        for (int i = 0; i < N * outsz[s]; i++) {
            if (bad < 0 && !same(out[0][s][i], out[1][s][i])) bad = i;
            long long e = i / outsz[s];
            marks += (e < begin || e >= end) && out[1][s][i] == 12345.0;
        }
        CHECK(bad < 0, "%s [%lld, %lld): output %d differs at %d (item %d): %.17g scalar, %.17g batched", name,
              begin, end, s, bad, bad / outsz[s], bad < 0 ? 0.0 : out[0][s][bad], bad < 0 ? 0.0 : out[1][s][bad]);
        CHECK(marks == (int)(N - (end - begin)) * outsz[s], "%s [%lld, %lld): output %d written outside the range",
              name, begin, end, s);
        free(out[0][s]);
        free(out[1][s]);
    }
}

static void fill_dense(double *A, double *B, double *C)
{
    for (int e = 0; e < N; e++) {
        double *a = A + e * NMAT * NMAT;
        for (int i = 0; i < NMAT; i++)
            for (int j = 0; j < NMAT; j++) {
                int zero = (i / 4 + 2 * (j / 4)) % 3 == 1 && i != j;   /* zero blocks */
                a[i * NMAT + j] = zero ? 0.0 : urand() + (i == j ? 2.0 : 0.0);
            }
        if (e % 3 == 1) a[0] = 1e-3;                          /* a swap at step 0 in some items only */
        if (e % 4 == 2) a[5 * NMAT + 4] = 40.0;               /* a swap at step 4 in others */
        if (e == 6)                                           /* singular: two equal rows */
            memcpy(a + 3 * NMAT, a + 7 * NMAT, sizeof(double) * NMAT);
        for (int i = 0; i < NMAT * NB; i++) B[e * NMAT * NB + i] = i % 7 == 3 ? 0.0 : urand();
        for (int i = 0; i < NQ * NMAT; i++) C[e * NQ * NMAT + i] = urand();
    }
}

static void test_dense(hdg_jit *scalar, hdg_jit *batched)
{
    static const int insz[3] = {NMAT * NMAT, NMAT * NB, NQ * NMAT};
    static const int outsz[5] = {NMAT * NMAT, NMAT * NB, NQ * NB, NMAT * NMAT, NMAT * NB};
    double *in[3];
    for (int s = 0; s < 3; s++) in[s] = malloc(sizeof(double) * (size_t)(N * insz[s]));
    fill_dense(in[0], in[1], in[2]);
    for (long long end = 1; end <= N; end++) compare(scalar, batched, "dense", 3, insz, 5, outsz, 0, end, in);
    compare(scalar, batched, "dense", 3, insz, 5, outsz, 3, 8, in);
    /* the singular item's NaN stays in its lane: item 6's X is NaN, its batch-mates' are finite */
    double param = 0.25;
    double *out[5];
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    a.params = &param;
    for (int s = 0; s < 3; s++) a.in[s] = in[s];
    for (int s = 0; s < 5; s++) a.out[s] = out[s] = calloc((size_t)(N * outsz[s]), sizeof(double));
    run(batched, "dense", &a, 0, N);
    for (int e = 4; e < 8; e++) {
        int nans = 0;
        for (int i = 0; i < NMAT * NB; i++) nans += out[1][e * NMAT * NB + i] != out[1][e * NMAT * NB + i];
        CHECK(e == 6 ? nans == NMAT * NB : nans == 0, "item %d: %d NaN entries in A^-1 B", e, nans);
    }
    for (int s = 0; s < 5; s++) free(out[s]);
    for (int s = 0; s < 3; s++) free(in[s]);
}

static void test_expr(hdg_jit *scalar, hdg_jit *batched)
{
    static const int insz[1] = {4}, outsz[1] = {12};
    double *x = malloc(sizeof(double) * N * 4);
    for (int i = 0; i < N * 4; i++) x[i] = urand();
    x[4 * 2 + 0] = x[4 * 2 + 1];   /* ties: lt false */
    x[4 * 5 + 2] = 0.25;           /* ge true by equality */
    for (long long end = 1; end <= N; end++) compare(scalar, batched, "expr", 1, insz, 1, outsz, 0, end, &x);
    compare(scalar, batched, "expr", 1, insz, 1, outsz, 2, 7, &x);
    free(x);
}

static void test_source(const char *src)
{
    /* the comment right before each kernel says how it runs: expr is small enough
       to have its loops unrolled (HDG_EMIT_C_UNROLL_MAX), dense is not */
    static const char *const batched[] = {"dense", "expr"}, *const how[] = {"", ", every loop unrolled"};
    for (int i = 0; i < 2; i++) {
        char want[160];
        snprintf(want, sizeof want, "vector lane%s (see emit_batch.c) */\nvoid %s(long long begin", how[i], batched[i]);
        CHECK(strstr(src, want) != NULL, "%s not batched as expected", batched[i]);
    }
    CHECK(strstr(src, "/* one item at a time: it reads the item's index */\n/* kernel by_item ") != NULL,
          "by_item: no reason given");
    CHECK(strstr(src, "/* one item at a time: it reads slot rows of other items */\n/* kernel by_map ") != NULL,
          "by_map: no reason given");
    char why[160];
    hdg_ir_module *mod = hdg_ir_module_new("big");
    hdg_ir_kernel *k = hdg_ir_kernel_new(mod, "big", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *in = hdg_ir_input(k, "x", HDG_SHAPE(1), "");
    hdg_ir_tensor *out = hdg_ir_output(k, "y", HDG_SHAPE(1), "");
    hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(600, 600));   /* 2813 KiB, 11250 KiB 4 wide */
    hdg_ir_fill(k, M, hdg_ir_call(k, HDG_FN_EXP, hdg_ir_ld1(k, in, hdg_ir_int(k, 0))));
    hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_int(k, 0)), hdg_ir_ld2(k, M, hdg_ir_int(k, 1), hdg_ir_int(k, 2)));
    CHECK(hdg_emit_c_unrolled_size(k) == 600 * 600 + 1, "unrolled size %lld", hdg_emit_c_unrolled_size(k));
    CHECK(hdg_emit_c_batchable(k, 4, why, sizeof why) != NULL && strstr(why, "would take 11250 KiB 4 items wide, more than 8192 KiB"),
          "large locals: '%s'", why);
    CHECK(hdg_emit_c_batchable(k, 2, why, sizeof why) == NULL && !why[0], "2 wide: '%s'", why);
    /* 8 wide the bound doubles (it is the bound of 4 items wide): 22500 KiB is still too much,
       and a kernel with 375 KiB of locals 4 wide (750 KiB 8 wide) batches */
    CHECK(hdg_emit_c_batchable(k, 8, why, sizeof why) != NULL && strstr(why, "would take 22500 KiB 8 items wide, more than 16384 KiB"),
          "large locals 8 wide: '%s'", why);
    k = hdg_ir_kernel_new(mod, "mid", HDG_KITEM_ELEMENT);
    in = hdg_ir_input(k, "x", HDG_SHAPE(1), "");
    out = hdg_ir_output(k, "y", HDG_SHAPE(1), "");
    M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(100, 120));   /* 94 KiB, 375 KiB 4 wide, 750 KiB 8 wide */
    hdg_ir_fill(k, M, hdg_ir_call(k, HDG_FN_EXP, hdg_ir_ld1(k, in, hdg_ir_int(k, 0))));
    hdg_ir_assign(k, hdg_ir_ld1(k, out, hdg_ir_int(k, 0)), hdg_ir_ld2(k, M, hdg_ir_int(k, 1), hdg_ir_int(k, 2)));
    CHECK(hdg_emit_c_batchable(k, 4, why, sizeof why) == NULL && hdg_emit_c_batchable(k, 8, why, sizeof why) == NULL,
          "375 KiB 4 wide batches 4 and 8 wide: '%s'", why);
    k = hdg_ir_kernel_new(mod, "stream", HDG_KITEM_ELEMENT);   /* y = 2 x: nothing to gain */
    in = hdg_ir_input(k, "x", HDG_SHAPE(8), "");
    out = hdg_ir_output(k, "y", HDG_SHAPE(8), "");
    hdg_ir_expr *i = hdg_ir_for(k, "i", 8);
    hdg_ir_assign(k, hdg_ir_ld1(k, out, i), hdg_ir_mul(k, hdg_ir_num(k, 2.0), hdg_ir_ld1(k, in, i)));
    hdg_ir_end(k);
    CHECK(hdg_emit_c_batchable(k, 4, why, sizeof why) != NULL && strstr(why, "no dense operation and no function call"),
          "stream: '%s'", why);
    hdg_ir_module_free(mod);
}

int main(void)
{
    setenv("HDGC_NO_MVEC", "1", 1);   /* libmvec's exp, cos differ from libm's in the last bit */
    hdg_ir_module *mod = hdg_ir_module_new("batch");
    dense_kernel(mod);
    expr_kernel(mod);
    scalar_kernels(mod);
    hdg_str s1, s4;
    hdg_jit *scalar = compile(mod, 0, "batch_scalar", &s1);
    hdg_jit *batched = compile(mod, 4, "batch_batched", &s4);
    if (getenv("TEST_BATCH_SOURCE")) fputs(s4.s, stdout);
    CHECK(!strstr(s1.s, "items per call"), "batched without the option");
    test_source(s4.s);
    if (scalar && batched) {
        test_dense(scalar, batched);
        test_expr(scalar, batched);
    }
    hdg_jit_free(scalar);
    hdg_jit_free(batched);
    free(s1.s);
    free(s4.s);
    hdg_ir_module_free(mod);
    return test_summary("batch");
}
