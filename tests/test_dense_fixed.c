/* test_dense_fixed.c — the C emitter's dense helpers for sizes known at
 * compile time (backends/c/emit_dense.c, the default of hdg_emit_c) against
 * its generic ones (hdg_emit_c_options.fixed_size_helpers = -1): both
 * modules compiled by the in-process JIT, run on the same block-sparse random
 * matrices (zero blocks, zero rows, a forced row swap), and every result
 * compared for equality: LU factors, A^-1 B, D - C A^-1 B and A^T B. The
 * fixed-size helpers promise the generic ones' operations in the same order,
 * so the values are equal, not merely close. Both tile widths (HDG_TW 8 and
 * 16) run; sizes cover whole tiles, remainders of rows (4) and columns, one
 * row, one column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"
#include "backends/c/jit.h"
#include "ir/ir.h"
#include "test.h"

typedef struct { int n, m, q; } dims;
static const dims cases[] = {
    {1, 1, 1}, {3, 5, 2}, {7, 16, 4}, {10, 1, 3}, {17, 13, 12}, {30, 13, 12}, {33, 40, 9}, {84, 22, 21},
};
enum { NCASES = (int)(sizeof cases / sizeof *cases), NE = 3 };

/* kernel dense<i>: in A[n][n], B[n][m], C[q][n], D[q][m];
 * out LU[n][n], X = A^-1 B, S = D - C X, R = A^T B */
static void add_kernel(hdg_ir_module *mod, int c)
{
    int n = cases[c].n, m = cases[c].m, q = cases[c].q;
    char name[32];
    snprintf(name, sizeof name, "dense%d", c);
    hdg_ir_kernel *k = hdg_ir_kernel_new(mod, name, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *A = hdg_ir_input(k, "A", HDG_SHAPE(n, n), "");
    hdg_ir_tensor *B = hdg_ir_input(k, "B", HDG_SHAPE(n, m), "");
    hdg_ir_tensor *C = hdg_ir_input(k, "C", HDG_SHAPE(q, n), "");
    hdg_ir_tensor *D = hdg_ir_input(k, "D", HDG_SHAPE(q, m), "");
    hdg_ir_tensor *LU = hdg_ir_output(k, "LU", HDG_SHAPE(n, n), "");
    hdg_ir_tensor *X = hdg_ir_output(k, "X", HDG_SHAPE(n, m), "");
    hdg_ir_tensor *S = hdg_ir_output(k, "S", HDG_SHAPE(q, m), "");
    hdg_ir_tensor *R = hdg_ir_output(k, "R", HDG_SHAPE(n, m), "");
    hdg_ir_tensor *Al = hdg_ir_local(k, "Al", HDG_IR_DOUBLE, HDG_SHAPE(n, n));
    hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(n));
    hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(n, m));
    hdg_ir_tensor *Sl = hdg_ir_local(k, "Sl", HDG_IR_DOUBLE, HDG_SHAPE(q, m));
    hdg_ir_copy(k, Al, A);
    hdg_ir_lu(k, Al, piv);
    hdg_ir_copy(k, LU, Al);
    hdg_ir_copy(k, W, B);
    hdg_ir_lu_solve(k, Al, piv, W);
    hdg_ir_copy(k, X, W);
    hdg_ir_copy(k, Sl, D);
    hdg_ir_matmul(k, Sl, -1.0, C, 0, W, 0, 1.0);
    hdg_ir_copy(k, S, Sl);
    hdg_ir_matmul(k, R, 1.0, A, 1, B, 0, 0.0);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)   /* uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Random entries with zero blocks (as the local matrices have) and zero rows. */
static void fill(double *x, int rows, int cols, int diag)
{
    int bs = rows > 6 ? rows / 3 : 1;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int zero = bs > 1 && (i / bs + 2 * (j / bs)) % 3 == 1 && i != j;
            x[i * cols + j] = zero ? 0.0 : urand() + (diag && i == j ? 1.5 : 0.0);
        }
    if (rows > 4 && !diag)
        for (int j = 0; j < cols; j++) x[2 * cols + j] = 0.0;
    if (diag) x[0] = 1e-3;   /* a row swap at the first step */
}

/* tw: the tile width of the fixed-size helpers, 0 for the generic ones */
static hdg_jit *compile(const hdg_ir_module *mod, int tw)
{
    int fixed = tw > 0;
    hdg_emit_c_options eo = {0};
    eo.fixed_size_helpers = fixed ? 1 : -1;
    hdg_str src;
    hdg_error err;
    hdg_str_init(&src);
    if (fixed) hdg_str_printf(&src, "#define HDG_TW %d\n", tw);
    CHECK(hdg_emit_c(mod, &src, &eo, &err) == HDG_OK, "emit: %s", err.msg);
    CHECK((strstr(src.s, "hdg_lu_fwd_tile") != NULL) == fixed, "fixed-size helpers %s", fixed ? "missing" : "present");
    hdg_jit_options jo = HDG_JIT_OPTIONS_DEFAULT;
    jo.use_cache = 0;
    hdg_jit *jit = NULL;
    hdg_status st = hdg_jit_compile(src.s, fixed ? "dense_fixed" : "dense_generic", &jo, &jit, NULL, &err);
    CHECK(st == HDG_OK, "jit: %s", err.msg);
    free(src.s);
    return st == HDG_OK ? jit : NULL;
}

static int same(double a, double b) { return a == b || (a != a && b != b); }

static void run_case(int c, int tw, hdg_jit *fixed, hdg_jit *generic)
{
    int n = cases[c].n, m = cases[c].m, q = cases[c].q;
    int insz[4] = {n * n, n * m, q * n, q * m}, outsz[4] = {n * n, n * m, q * m, n * m};
    double *in[4], *out[2][4];
    for (int s = 0; s < 4; s++) {
        in[s] = malloc(sizeof(double) * (size_t)(NE * insz[s]));
        for (int v = 0; v < 2; v++) out[v][s] = calloc((size_t)(NE * outsz[s]), sizeof(double));
    }
    for (int e = 0; e < NE; e++) {
        fill(in[0] + e * insz[0], n, n, 1);
        fill(in[1] + e * insz[1], n, m, 0);
        fill(in[2] + e * insz[2], q, n, 0);
        fill(in[3] + e * insz[3], q, m, 0);
    }
    char name[32];
    snprintf(name, sizeof name, "dense%d", c);
    for (int v = 0; v < 2; v++) {
        hdg_kernel_fn fn = NULL;
        void *p = hdg_jit_lookup(v ? generic : fixed, name);
        CHECK(p != NULL, "%s missing", name);
        if (!p) return;
        memcpy(&fn, &p, sizeof fn);
        hdg_kargs a;
        memset(&a, 0, sizeof a);
        a.nitems = NE;
        for (int s = 0; s < 4; s++) a.in[s] = in[s], a.out[s] = out[v][s];
        fn(0, NE, &a);
    }
    static const char *what[4] = {"LU", "A^-1 B", "D - C A^-1 B", "A^T B"};
    for (int s = 0; s < 4; s++) {
        int bad = -1;
        for (int i = 0; i < NE * outsz[s] && bad < 0; i++)
            if (!same(out[0][s][i], out[1][s][i])) bad = i;
        CHECK(bad < 0, "HDG_TW %d, n %d m %d q %d: %s differs at %d: %.17g (fixed) vs %.17g (generic)", tw, n, m,
              q, what[s], bad, bad < 0 ? 0.0 : out[0][s][bad], bad < 0 ? 0.0 : out[1][s][bad]);
        int finite = 1;
        for (int i = 0; i < NE * outsz[s]; i++) finite &= out[0][s][i] - out[0][s][i] == 0.0;
        CHECK(finite, "n %d: %s not finite", n, what[s]);
    }
    for (int s = 0; s < 4; s++) {
        free(in[s]);
        for (int v = 0; v < 2; v++) free(out[v][s]);
    }
}

int main(void)
{
    hdg_ir_module *mod = hdg_ir_module_new("dense_fixed");
    for (int c = 0; c < NCASES; c++) add_kernel(mod, c);
    hdg_jit *generic = compile(mod, 0);
    for (int tw = 8; tw <= 16; tw += 8) {
        hdg_jit *fixed = compile(mod, tw);
        if (fixed && generic)
            for (int c = 0; c < NCASES; c++) run_case(c, tw, fixed, generic);
        hdg_jit_free(fixed);
    }
    hdg_jit_free(generic);
    hdg_ir_module_free(mod);
    return test_summary("dense_fixed");
}
