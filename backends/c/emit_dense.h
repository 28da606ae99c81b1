/* emit_dense.h — texts of the C emitter's dense helpers for sizes known at
 * compile time (see emit_dense.c); NULL where the generic text is used. */
#ifndef HDG_EMIT_DENSE_H
#define HDG_EMIT_DENSE_H

/* Pieces of LU text the generic helper (emit.c, H_LU) and the fixed-size one (emit_dense.c)
 * share, so that both decide singularity and pivots by one rule: the scale of the matrix
 * (tiny = 1e-14 x the largest |entry|: a smaller pivot becomes NaN) and step k's pivot search,
 * row swap and NaN marking, ending with the pivot in d. (The CUDA block-per-item LU,
 * backends/cuda/emit_block.c, applies the same rule with its threads.) */
#define HDG_EMIT_LU_SCALE \
"    double t0 = 0.0, t1 = 0.0;   /* two partial maxima: shorter dependence chains */\n" \
"    for (int i = 0; i + 1 < n * n; i += 2) {\n" \
"        t0 = fabs(A[i]) > t0 ? fabs(A[i]) : t0;\n" \
"        t1 = fabs(A[i + 1]) > t1 ? fabs(A[i + 1]) : t1;\n" \
"    }\n" \
"    if ((n * n) & 1) t0 = fabs(A[n * n - 1]) > t0 ? fabs(A[n * n - 1]) : t0;\n" \
"    double tiny = (t1 > t0 ? t1 : t0) * 1e-14;\n"
#define HDG_EMIT_LU_PIVOT \
"        int p = k;\n" \
"        double big = fabs(A[k * n + k]);\n" \
"        for (int i = k + 1; i < n; ++i)\n" \
"            if (fabs(A[i * n + k]) > big) {\n" \
"                big = fabs(A[i * n + k]);\n" \
"                p = i;\n" \
"            }\n" \
"        piv[k] = p;\n" \
"        if (p != k)\n" \
"            for (int j = 0; j < n; ++j) {\n" \
"                double t = A[k * n + j];\n" \
"                A[k * n + j] = A[p * n + j];\n" \
"                A[p * n + j] = t;\n" \
"            }\n" \
"        if (!(big > tiny)) A[k * n + k] = NAN;\n" \
"        double d = A[k * n + k];\n"
/* The row interchanges of hdg_lu's pivots applied to B (the start of both hdg_lu_solve). */
#define HDG_EMIT_LU_PERMUTE \
"    for (int k = 0; k < n; ++k) {\n" \
"        int p = piv[k];\n" \
"        if (p != k)\n" \
"            for (int j = 0; j < m; ++j) {\n" \
"                double t = B[k * m + j];\n" \
"                B[k * m + j] = B[p * m + j];\n" \
"                B[p * m + j] = t;\n" \
"            }\n" \
"    }\n"

/* HDG_UNROLL: full unrolling of the loop it precedes (clang's own pragma: its `#pragma GCC
 * unroll N` does not unroll a loop of fewer than N trips fully; gcc's). hdg_emit_c defines it
 * at the top of every host C module; the fixed-size and vector helpers repeat the guarded
 * definition so that their text stands alone. */
#define HDG_EMIT_UNROLL_DEF \
"#ifndef HDG_UNROLL\n" \
"#ifdef __clang__\n" \
"#define HDG_UNROLL _Pragma(\"clang loop unroll(full)\")\n" \
"#else\n" \
"#define HDG_UNROLL _Pragma(\"GCC unroll 16\")\n" \
"#endif\n" \
"#endif\n"

#define HDG_EMIT_C_NFIXED 3
extern const char *const hdg_emit_c_fixed_text[HDG_EMIT_C_NFIXED];

#endif
