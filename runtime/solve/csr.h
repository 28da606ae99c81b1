/* csr.h — compressed sparse row copy of the trace matrix, the general-purpose
 * format the dense block format is measured against (seed 000). */
#ifndef HDG_CSR_H
#define HDG_CSR_H

#include "hdg.h"
#include "runtime/solve/blockmat.h"

typedef struct hdg_csr {
    int n;          /* rows (nf*m for the trace matrix) */
    int ncol;       /* columns (= n for the trace matrix; the multigrid transfers are rectangular) */
    int nnz;        /* stored values */
    int *rowptr;    /* n+1 */
    int *col;       /* nnz, ascending within a row */
    double *val;    /* nnz */
} hdg_csr;

/* Copies every non-padding block of B, value for value (zeros inside blocks
 * included; nothing is dropped). Columns of a row ascend. Fails when nnz
 * does not fit an int. */
hdg_status hdg_csr_from_blockmat(hdg_csr *C, const hdg_blockmat *B, hdg_error *err);
void hdg_csr_free(hdg_csr *C);

/* y = C x, threaded over rows (x and y must not alias). */
void hdg_csr_spmv(const hdg_csr *C, const double *x, double *y);

/* Performance arithmetic (docs/method.md): bytes one SpMV moves, 12 nnz + 16 n + 4 n,
 * and its flops, 2 nnz. */
double hdg_csr_spmv_bytes(const hdg_csr *C);
double hdg_csr_spmv_flops(const hdg_csr *C);

#endif
