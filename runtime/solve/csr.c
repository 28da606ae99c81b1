/* csr.c — CSR built from the dense block matrix, and its threaded SpMV. */
#include "runtime/solve/csr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/parallel.h"
#include "support/util.h"

/* Real blocks of row l sorted by neighbour face (insertion sort, na is tiny). */
static int sorted_blocks(const hdg_blockmat *B, int l, int *order)
{
    const int *row = B->nbr + (size_t)l * B->na;
    int n = 0;
    for (int a = 0; a < B->na; a++) {
        if (row[a] < 0) continue;
        int i = n++;
        while (i > 0 && row[order[i - 1]] > row[a]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = a;
    }
    return n;
}

typedef struct fill_job {
    hdg_csr *C;
    const hdg_blockmat *B;
} fill_job;

static void fill_rows(long long l0, long long l1, void *vctx)
{
    fill_job *j = vctx;
    const hdg_blockmat *B = j->B;
    hdg_csr *C = j->C;
    int m = B->m;
    int *order = hdg_xmalloc(sizeof(int) * (size_t)B->na);
    for (long long l = l0; l < l1; l++) {
        int nb = sorted_blocks(B, (int)l, order);
        for (int p = 0; p < m; p++) {
            int k = C->rowptr[l * m + p];
            for (int b = 0; b < nb; b++) {
                int g = B->nbr[l * B->na + order[b]];
                const double *blk = hdg_blockmat_block(B, (int)l, order[b]) + p * m;
                for (int q = 0; q < m; q++, k++) {
                    C->col[k] = g * m + q;
                    C->val[k] = blk[q];
                }
            }
        }
    }
    free(order);
}

hdg_status hdg_csr_from_blockmat(hdg_csr *C, const hdg_blockmat *B, hdg_error *err)
{
    memset(C, 0, sizeof *C);
    long long n = (long long)B->nf * B->m;
    long long nnz = hdg_blockmat_nblocks(B) * B->m * B->m;
    if (n > INT_MAX || nnz > INT_MAX)
        return hdg_fail(err, HDG_EINPUT, "CSR: %lld rows, %lld values exceed the int index range", n, nnz);
    C->n = C->ncol = (int)n;
    C->nnz = (int)nnz;
    C->rowptr = hdg_xmalloc(sizeof(int) * (size_t)(n + 1));
    C->col = hdg_xmalloc(sizeof(int) * (size_t)(nnz ? nnz : 1));
    C->val = hdg_xmalloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    C->rowptr[0] = 0;
    for (int l = 0; l < B->nf; l++) {
        int nb = 0;
        for (int a = 0; a < B->na; a++) nb += B->nbr[(size_t)l * B->na + a] >= 0;
        for (int p = 0; p < B->m; p++) {
            size_t i = (size_t)l * B->m + p;
            C->rowptr[i + 1] = C->rowptr[i] + nb * B->m;
        }
    }
    fill_job j = {C, B};
    hdg_parallel_for_grain(B->nf, 64, fill_rows, &j);
    return HDG_OK;
}

void hdg_csr_free(hdg_csr *C)
{
    if (!C) return;
    free(C->rowptr);
    free(C->col);
    free(C->val);
    memset(C, 0, sizeof *C);
}

typedef struct spmv_job {
    const hdg_csr *C;
    const double *x;
    double *y;
} spmv_job;

static void spmv_rows(long long i0, long long i1, void *vctx)
{
    const spmv_job *j = vctx;
    const int *restrict rowptr = j->C->rowptr, *restrict col = j->C->col;
    const double *restrict val = j->C->val, *restrict x = j->x;
    double *restrict y = j->y;
    for (long long i = i0; i < i1; i++) {
        double s = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * x[col[k]];
        y[i] = s;
    }
}

/* Each thread gets at least this many bytes of values and columns (see
 * SPMV_MIN_CHUNK_BYTES in blockmat.c). */
#define SPMV_MIN_CHUNK_BYTES (128 << 10)

void hdg_csr_spmv(const hdg_csr *C, const double *x, double *y)
{
    spmv_job j = {C, x, y};
    long long row_bytes = C->n > 0 ? 12LL * C->nnz / C->n + 1 : 1;
    long long grain = SPMV_MIN_CHUNK_BYTES / row_bytes;
    hdg_parallel_for_grain(C->n, grain > 256 ? grain : 256, spmv_rows, &j);
}

double hdg_csr_spmv_bytes(const hdg_csr *C)
{
    return 12.0 * C->nnz + 16.0 * C->n + 4.0 * C->n;
}

double hdg_csr_spmv_flops(const hdg_csr *C)
{
    return 2.0 * C->nnz;
}
