/* emit_dense.c — the dense helpers of the C emitter for sizes the compiler
 * knows (hdg_emit_c_options.fixed_size_helpers): same names, signatures and
 * rounding as the generic texts in emit.c (every entry of a result takes its
 * operations in the same order), but always inlined at the kernels' calls,
 * which pass constant sizes, and written as loops over tiles of constant size
 * that the compiler unrolls (HDG_UNROLL below; the JIT does no other
 * unrolling), so a tile of the result is summed in
 * registers instead of being loaded and stored at every step.
 *
 * Tile width HDG_TW: 16 doubles (two 512-bit registers) with AVX-512, else 8,
 * so that 4 rows of accumulators fit the register file. */
#include "backends/c/emit_dense.h"

#include <stddef.h>

/* The tile width, and full unrolling of the loops over a tile (HDG_UNROLL,
 * emit_dense.h). A source may define HDG_TW first (tests/test_dense_fixed.c
 * runs both widths). */
#define PRELUDE                                                      \
    "#if !defined(HDG_TW) && defined(__AVX512F__)\n"                 \
    "#define HDG_TW 16\n"                                            \
    "#elif !defined(HDG_TW)\n"                                       \
    "#define HDG_TW 8\n"                                             \
    "#endif\n"                                                       \
    HDG_EMIT_UNROLL_DEF

static const char matmul_text[] =
    PRELUDE
    "/* rows [i0, i0 + h) x columns [j0, j0 + w) of C (h <= 4, w <= HDG_TW) */\n"
    "static inline __attribute__((always_inline)) void hdg_matmul_tile(int h, int w, int i0, int j0,\n"
    "    int n, int k, double alpha, const double *@R A, int sa0, int sa1, const double *@R B,\n"
    "    int sb0, int sb1, double beta, double *@R C)\n"
    "{\n"
    "    double s[4][HDG_TW];\n"
    "HDG_UNROLL\n"
    "    for (int i = 0; i < h; ++i)\n"
    "HDG_UNROLL\n"
    "        for (int j = 0; j < w; ++j) s[i][j] = 0.0;\n"
    "    for (int p = 0; p < k; ++p)\n"
    "HDG_UNROLL\n"
    "        for (int i = 0; i < h; ++i) {\n"
    "            double aip = A[(i0 + i) * sa0 + p * sa1];\n"
    "HDG_UNROLL\n"
    "            for (int j = 0; j < w; ++j) s[i][j] += aip * B[p * sb0 + (j0 + j) * sb1];\n"
    "        }\n"
    "HDG_UNROLL\n"
    "    for (int i = 0; i < h; ++i)\n"
    "HDG_UNROLL\n"
    "        for (int j = 0; j < w; ++j) {\n"
    "            double t = alpha != 1.0 ? s[i][j] * alpha : s[i][j];\n"
    "            double *@R c = C + (i0 + i) * n + j0 + j;\n"
    "            *c = beta == 0.0 ? t : beta == 1.0 ? *c + t : t + beta * *c;\n"
    "        }\n"
    "}\n"
    "static inline __attribute__((always_inline)) void hdg_matmul(int m, int n, int k, double alpha,\n"
    "    const double *@R A, int sa0, int sa1, const double *@R B, int sb0, int sb1, double beta,\n"
    "    double *@R C)\n"
    "{\n"
    "    /* full tiles, then the last rows and columns as tiles of their own size */\n"
    "    int mf = m / 4 * 4, nf = n / HDG_TW * HDG_TW;\n"
    "    for (int i0 = 0; i0 < mf; i0 += 4) {\n"
    "        for (int j0 = 0; j0 < nf; j0 += HDG_TW)\n"
    "            hdg_matmul_tile(4, HDG_TW, i0, j0, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "        if (nf < n) hdg_matmul_tile(4, n - nf, i0, nf, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "    }\n"
    "    if (mf < m) {\n"
    "        for (int j0 = 0; j0 < nf; j0 += HDG_TW)\n"
    "            hdg_matmul_tile(m - mf, HDG_TW, mf, j0, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "        if (nf < n) hdg_matmul_tile(m - mf, n - nf, mf, nf, n, k, alpha, A, sa0, sa1, B, sb0, sb1, beta, C);\n"
    "    }\n"
    "}\n";

static const char lu_text[] =
    "/* A = P L U in place, partial pivoting (piv[k] = row swapped with k), two\n"
    "   pivots per sweep of the trailing rows: step k computes its multipliers\n"
    "   and updates column k + 1 only, step k + 1 pivots on it, then one pass\n"
    "   gives every row both updates, a - l0 u0 - l1 u1 in that order (the\n"
    "   generic helper's operations, the same rounding, half the loads and\n"
    "   stores of the trailing rows). A rounding-level pivot becomes NaN. */\n"
    "static inline __attribute__((always_inline)) void hdg_lu(int n, double *@R A, int *@R piv)\n"
    "{\n"
    HDG_EMIT_LU_SCALE
    "    for (int k = 0; k < n; k += 2) {\n"
    HDG_EMIT_LU_PIVOT
    "        if (k + 1 == n) break;\n"
    "        /* step k: the multipliers, and column k + 1 only; the rest of each row\n"
    "           waits (skip[i]: the generic helper would not update row i) */\n"
    "        const int k1 = k + 1;\n"
    "        unsigned char skip[n];\n"
    "        for (int i = k1; i < n; ++i) {\n"
    "            double aik = A[i * n + k], l = aik / d;\n"
    "            A[i * n + k] = l;\n"
    "            skip[i] = aik == 0.0 || l == 0.0;\n"
    "            if (!skip[i]) A[i * n + k1] -= l * A[k * n + k1];\n"
    "        }\n"
    "        /* step k + 1: pivot on the updated column k + 1 */\n"
    "        p = k1;\n"
    "        big = fabs(A[k1 * n + k1]);\n"
    "        for (int i = k1 + 1; i < n; ++i)\n"
    "            if (fabs(A[i * n + k1]) > big) {\n"
    "                big = fabs(A[i * n + k1]);\n"
    "                p = i;\n"
    "            }\n"
    "        piv[k1] = p;\n"
    "        if (p != k1) {\n"
    "            for (int j = 0; j < n; ++j) {\n"
    "                double t = A[k1 * n + j];\n"
    "                A[k1 * n + j] = A[p * n + j];\n"
    "                A[p * n + j] = t;\n"
    "            }\n"
    "            unsigned char s = skip[k1];\n"
    "            skip[k1] = skip[p];\n"
    "            skip[p] = s;\n"
    "        }\n"
    "        /* the pivot row k + 1 takes its step-k update */\n"
    "        if (!skip[k1]) {\n"
    "            double l = A[k1 * n + k];\n"
    "            for (int j = k1 + 1; j < n; ++j) A[k1 * n + j] -= l * A[k * n + j];\n"
    "        }\n"
    "        if (!(big > tiny)) A[k1 * n + k1] = NAN;\n"
    "        double d1 = A[k1 * n + k1];\n"
    "        for (int i = k1 + 1; i < n; ++i) {\n"
    "            double *@R a = A + i * n;\n"
    "            const double *@R u0 = A + k * n, *@R u1 = A + k1 * n;\n"
    "            double l0 = a[k], ai1 = a[k1], l1 = ai1 / d1;\n"
    "            a[k1] = l1;\n"
    "            int s1 = ai1 == 0.0 || l1 == 0.0;\n"
    "            if (!skip[i] && !s1)\n"
    "                for (int j = k1 + 1; j < n; ++j) a[j] = a[j] - l0 * u0[j] - l1 * u1[j];\n"
    "            else if (!skip[i])\n"
    "                for (int j = k1 + 1; j < n; ++j) a[j] -= l0 * u0[j];\n"
    "            else if (!s1)\n"
    "                for (int j = k1 + 1; j < n; ++j) a[j] -= l1 * u1[j];\n"
    "        }\n"
    "    }\n"
    "}\n";

static const char lu_solve_text[] =
    PRELUDE
    "/* forward substitution (unit L) of rows [i0, i0 + h), columns [j0, j0 + w)\n"
    "   (h <= 4, w <= HDG_TW): the rows before i0 are final; every row takes its\n"
    "   updates in the order k = 0, 1, ..., i - 1 (the generic helper's rounding;\n"
    "   a zero multiplier changes nothing, so it is not skipped) */\n"
    "static inline __attribute__((always_inline)) void hdg_lu_fwd_tile(int h, int w, int i0, int j0,\n"
    "    int n, int m, const double *@R A, double *@R B)\n"
    "{\n"
    "    double acc[4][HDG_TW];\n"
    "HDG_UNROLL\n"
    "    for (int r = 0; r < h; ++r)\n"
    "HDG_UNROLL\n"
    "        for (int j = 0; j < w; ++j) acc[r][j] = B[(i0 + r) * m + j0 + j];\n"
    "    for (int k = 0; k < i0; ++k)\n"
    "HDG_UNROLL\n"
    "        for (int r = 0; r < h; ++r) {\n"
    "            double l = A[(i0 + r) * n + k];\n"
    "HDG_UNROLL\n"
    "            for (int j = 0; j < w; ++j) acc[r][j] -= l * B[k * m + j0 + j];\n"
    "        }\n"
    "HDG_UNROLL\n"
    "    for (int r = 1; r < h; ++r)\n"
    "HDG_UNROLL\n"
    "        for (int q = 0; q < r; ++q) {\n"
    "            double l = A[(i0 + r) * n + i0 + q];\n"
    "HDG_UNROLL\n"
    "            for (int j = 0; j < w; ++j) acc[r][j] -= l * acc[q][j];\n"
    "        }\n"
    "HDG_UNROLL\n"
    "    for (int r = 0; r < h; ++r)\n"
    "HDG_UNROLL\n"
    "        for (int j = 0; j < w; ++j) B[(i0 + r) * m + j0 + j] = acc[r][j];\n"
    "}\n"
    "/* backward substitution of row i, columns [j0, j0 + w): the updates in the\n"
    "   order k = i + 1, ..., n - 1, then the division (the generic rounding) */\n"
    "static inline __attribute__((always_inline)) void hdg_lu_bwd_row(int w, int i, int j0, int n,\n"
    "    int m, const double *@R A, double *@R B)\n"
    "{\n"
    "    double acc[HDG_TW];\n"
    "HDG_UNROLL\n"
    "    for (int j = 0; j < w; ++j) acc[j] = B[i * m + j0 + j];\n"
    "    for (int k = i + 1; k < n; ++k) {\n"
    "        double u = A[i * n + k];\n"
    "HDG_UNROLL\n"
    "        for (int j = 0; j < w; ++j) acc[j] -= u * B[k * m + j0 + j];\n"
    "    }\n"
    "    double d = A[i * n + i];\n"
    "HDG_UNROLL\n"
    "    for (int j = 0; j < w; ++j) B[i * m + j0 + j] = acc[j] / d;\n"
    "}\n"
    "static inline __attribute__((always_inline)) void hdg_lu_solve(int n, int m, const double *@R A,\n"
    "    const int *@R piv, double *@R B)\n"
    "{\n"
    HDG_EMIT_LU_PERMUTE
    "    int nf = n / 4 * 4, mf = m / HDG_TW * HDG_TW;\n"
    "    for (int i0 = 0; i0 < nf; i0 += 4) {\n"
    "        for (int j0 = 0; j0 < mf; j0 += HDG_TW) hdg_lu_fwd_tile(4, HDG_TW, i0, j0, n, m, A, B);\n"
    "        if (mf < m) hdg_lu_fwd_tile(4, m - mf, i0, mf, n, m, A, B);\n"
    "    }\n"
    "    if (nf < n) {\n"
    "        for (int j0 = 0; j0 < mf; j0 += HDG_TW) hdg_lu_fwd_tile(n - nf, HDG_TW, nf, j0, n, m, A, B);\n"
    "        if (mf < m) hdg_lu_fwd_tile(n - nf, m - mf, nf, mf, n, m, A, B);\n"
    "    }\n"
    "    for (int i = n - 1; i >= 0; --i) {\n"
    "        for (int j0 = 0; j0 < mf; j0 += HDG_TW) hdg_lu_bwd_row(HDG_TW, i, j0, n, m, A, B);\n"
    "        if (mf < m) hdg_lu_bwd_row(m - mf, i, mf, n, m, A, B);\n"
    "    }\n"
    "}\n";

/* Indexed as emit.c's helper_text (bit i of its H_* flags). */
const char *const hdg_emit_c_fixed_text[HDG_EMIT_C_NFIXED] = {
    matmul_text,     /* H_MATMUL */
    lu_text,         /* H_LU */
    lu_solve_text,   /* H_LU_SOLVE */
};
