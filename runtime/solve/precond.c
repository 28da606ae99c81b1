/* precond.c — the trace matrices as operators, and the Jacobi / face-block
 * Jacobi preconditioners of the trace system (runtime/solve/krylov.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/solve/krylov.h"
#include "runtime/parallel/parallel.h"
#include "support/util.h"

#define VEC_GRAIN 8192 /* vector entries per chunk, at least (as krylov.c's vector operations) */

/* ==== matrices as operators ==== */

static void blockmat_apply(void *ctx, const double *x, double *y) { hdg_blockmat_spmv(ctx, x, y); }
static void csr_apply(void *ctx, const double *x, double *y) { hdg_csr_spmv(ctx, x, y); }

hdg_linop hdg_blockmat_op(const hdg_blockmat *B)
{
    hdg_linop op = {(void *)B, (long long)B->nf * B->m, blockmat_apply};
    return op;
}

hdg_linop hdg_csr_op(const hdg_csr *C)
{
    hdg_linop op = {(void *)C, C->n, csr_apply};
    return op;
}

/* ==== preconditioners ==== */

typedef struct precond {
    int nf, m;
    double *inv;          /* Jacobi: nf*m; block: nf*m*m (row-major inverses) */
    atomic_int bad;       /* first face whose block is singular (block init) */
} precond;

static precond *precond_new(const hdg_blockmat *B, size_t nvals)
{
    precond *P = hdg_xcalloc(1, sizeof *P);
    P->nf = B->nf;
    P->m = B->m;
    P->inv = hdg_xmalloc(sizeof(double) * (nvals ? nvals : 1));
    atomic_init(&P->bad, -1);
    return P;
}

typedef struct apply_job {
    const precond *P;
    const double *x;
    double *y;
} apply_job;

static void jacobi_apply_range(long long b, long long e, void *vctx)
{
    const apply_job *j = vctx;
    for (long long i = b; i < e; i++) j->y[i] = j->P->inv[i] * j->x[i];
}

static void jacobi_apply(void *ctx, const double *x, double *y)
{
    const precond *P = ctx;
    apply_job j = {P, x, y};
    hdg_parallel_for_grain((long long)P->nf * P->m, VEC_GRAIN, jacobi_apply_range, &j);
}

hdg_status hdg_precond_jacobi_init(hdg_linop *M, const hdg_blockmat *B, hdg_error *err)
{
    memset(M, 0, sizeof *M);
    int m = B->m;
    precond *P = precond_new(B, (size_t)B->nf * m);
    for (int l = 0; l < B->nf; l++) {
        const double *D = hdg_blockmat_block(B, l, 0);
        for (int p = 0; p < m; p++) {
            double d = D[p * m + p];
            if (d == 0 || !isfinite(d)) {
                free(P->inv);
                free(P);
                return hdg_fail(err, HDG_EINPUT,
                                "Jacobi preconditioner: diagonal entry %g at face %d dof %d (row %lld)",
                                d, l, p, (long long)l * m + p);
            }
            P->inv[(size_t)l * m + p] = 1.0 / d;
        }
    }
    M->ctx = P;
    M->n = (long long)B->nf * m;
    M->apply = jacobi_apply;
    return HDG_OK;
}

/* Inverse of the m x m row-major matrix A (destroyed) into Ainv, by LU with
 * partial pivoting; returns 0 when singular. Inlined with a constant m where
 * block_init_range can (m <= 12): the same arithmetic, 2-3x faster. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int invert_block(double *A, double *Ainv, int *piv, int m)
{
    for (int k = 0; k < m; k++) {
        int r = k;
        for (int i = k + 1; i < m; i++)
            if (fabs(A[i * m + k]) > fabs(A[r * m + k])) r = i;
        if (!(fabs(A[r * m + k]) > 0) || !isfinite(A[r * m + k])) return 0;
        piv[k] = r;
        if (r != k)
            for (int c = 0; c < m; c++) {
                double t = A[k * m + c];
                A[k * m + c] = A[r * m + c];
                A[r * m + c] = t;
            }
        for (int i = k + 1; i < m; i++) {
            double f = A[i * m + k] /= A[k * m + k];
            for (int c = k + 1; c < m; c++) A[i * m + c] -= f * A[k * m + c];
        }
    }
    /* Solve L U X = P I: start from I with the row swaps applied... */
    for (int i = 0; i < m * m; i++) Ainv[i] = i % (m + 1) == 0;
    for (int k = 0; k < m; k++)
        if (piv[k] != k)
            for (int c = 0; c < m; c++) {
                double t = Ainv[k * m + c];
                Ainv[k * m + c] = Ainv[piv[k] * m + c];
                Ainv[piv[k] * m + c] = t;
            }
    /* ...then forward (unit L) and back (U) substitution, column by column. */
    for (int c = 0; c < m; c++) {
        for (int i = 1; i < m; i++)
            for (int k = 0; k < i; k++) Ainv[i * m + c] -= A[i * m + k] * Ainv[k * m + c];
        for (int i = m - 1; i >= 0; i--) {
            for (int k = i + 1; k < m; k++) Ainv[i * m + c] -= A[i * m + k] * Ainv[k * m + c];
            Ainv[i * m + c] /= A[i * m + i];
        }
    }
    for (int i = 0; i < m * m; i++)
        if (!isfinite(Ainv[i])) return 0;
    return 1;
}

typedef struct block_init_job {
    precond *P;
    const hdg_blockmat *B;
} block_init_job;

/* Blocks [l0, l1) of face rows, inverted with m = M (a constant when inlined). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void block_init_rows(block_init_job *j, long long l0, long long l1, double *work, int *piv, const int m)
{
    for (long long l = l0; l < l1; l++) {
        memcpy(work, hdg_blockmat_block(j->B, (int)l, 0), sizeof(double) * m * m);
        if (!invert_block(work, j->P->inv + (size_t)l * m * m, piv, m)) {
            int cur = atomic_load(&j->P->bad);
            while ((cur < 0 || l < cur) && !atomic_compare_exchange_weak(&j->P->bad, &cur, (int)l)) {
            }
        }
    }
}

static void block_init_range(long long l0, long long l1, void *vctx)
{
    block_init_job *j = vctx;
    int m = j->P->m;
    double *work = hdg_xmalloc(sizeof(double) * (size_t)m * m);
    int *piv = hdg_xmalloc(sizeof(int) * (size_t)m);
    switch (m) {
#define CASE(M) case M: block_init_rows(j, l0, l1, work, piv, M); break;
    CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6)
    CASE(7) CASE(8) CASE(9) CASE(10) CASE(11) CASE(12)
#undef CASE
    default: block_init_rows(j, l0, l1, work, piv, m);
    }
    free(work);
    free(piv);
}

static void block_apply_range(long long l0, long long l1, void *vctx)
{
    const apply_job *j = vctx;
    int m = j->P->m;
    for (long long l = l0; l < l1; l++) {
        const double *Ai = j->P->inv + (size_t)l * m * m, *xl = j->x + l * m;
        double *yl = j->y + l * m;
        for (int p = 0; p < m; p++) {
            double s = 0.0;
            for (int q = 0; q < m; q++) s += Ai[p * m + q] * xl[q];
            yl[p] = s;
        }
    }
}

static void block_apply(void *ctx, const double *x, double *y)
{
    const precond *P = ctx;
    apply_job j = {P, x, y};
    hdg_parallel_for_grain(P->nf, 256, block_apply_range, &j);
}

hdg_status hdg_precond_block_init(hdg_linop *M, const hdg_blockmat *B, hdg_error *err)
{
    memset(M, 0, sizeof *M);
    int m = B->m;
    precond *P = precond_new(B, (size_t)B->nf * m * m);
    block_init_job j = {P, B};
    hdg_parallel_for_grain(B->nf, 64, block_init_range, &j);
    int bad = atomic_load(&P->bad);
    if (bad >= 0) {
        free(P->inv);
        free(P);
        return hdg_fail(err, HDG_EINPUT, "block Jacobi preconditioner: diagonal block of face %d is singular",
                        bad);
    }
    M->ctx = P;
    M->n = (long long)B->nf * m;
    M->apply = block_apply;
    return HDG_OK;
}

const double *hdg_precond_block_inverse(const hdg_linop *M)
{
    return M && M->apply == block_apply ? ((const precond *)M->ctx)->inv : NULL;
}

void hdg_precond_free(hdg_linop *M)
{
    if (!M) return;
    precond *P = M->ctx;
    if (P) {
        free(P->inv);
        free(P);
    }
    memset(M, 0, sizeof *M);
}
