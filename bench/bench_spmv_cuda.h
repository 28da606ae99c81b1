/* bench_spmv_cuda.h — the device half of `hdgc bench spmv --backend cuda`
 * (issue 7): the trace matrix the host benchmark builds goes to the GPU,
 * where the dense-block SpMV (runtime/cuda/cuda_linalg.h, coalesced layout) is
 * timed against the copy kernel on an array of the matrix's size (the
 * bandwidth reference) and against cuSPARSE CSR SpMV on the same matrix
 * (bench/cusparse.h), and the products are checked against the host's.
 *
 * Timing: CUDA events on the default stream; each sample is one batch of
 * calls that lasts at least HDG_SPMV_CUDA_MIN_SAMPLE_S on the device (the
 * batch size is found by a calibration that also warms up); the samples of
 * the three kernels are interleaved (block, copy, cuSPARSE, block, ...).
 *
 * On the CUDA emulator (props.emulated) cuSPARSE is not loaded: its column
 * is skipped with a note, as it is when libcusparse cannot be loaded. The
 * library part never prints: the CLI prints the text formatted here. */
#ifndef HDG_BENCH_SPMV_CUDA_H
#define HDG_BENCH_SPMV_CUDA_H

#include "hdg.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/output/report.h"
#include "support/util.h"

#define HDG_SPMV_CUDA_TOL 1e-13            /* max|y_dev - y_host| / max|y_host| */
#define HDG_SPMV_CUDA_MIN_SAMPLE_S 0.02    /* one sample lasts at least this long */

typedef struct hdg_spmv_cuda hdg_spmv_cuda;   /* device + cuSPARSE state */

/* One measured order. Times are seconds per call; calls = calls per sample. */
typedef struct hdg_spmv_cuda_result {
    int k, m, nf;
    long long nnz;
    double flops, block_bytes, copy_bytes, csr_bytes;
    double block_best, block_median, copy_best, copy_median, csr_best, csr_median;
    int block_calls, copy_calls, csr_calls;
    int has_csr;                      /* 0: cuSPARSE skipped (csr_* unset) */
    double block_reldiff, csr_reldiff;
    int copy_exact;                   /* the copy reproduced its source bit for bit */
} hdg_spmv_cuda_result;

/* Opens GPU 0 (HDG_EDEVICE with the driver's message when none opens) and
 * loads cuSPARSE unless the device is emulated; a missing cuSPARSE is a note
 * (hdg_spmv_cuda_describe), not an error. */
hdg_status hdg_spmv_cuda_open(hdg_spmv_cuda **S, hdg_error *err);
void hdg_spmv_cuda_close(hdg_spmv_cuda *S);
/* 1 when cuSPARSE will be measured. */
int hdg_spmv_cuda_has_cusparse(const hdg_spmv_cuda *S);

/* Uploads B (and C for cuSPARSE) and x, times the three kernels with reps
 * samples each, and compares the device products with y_host = B x (and the
 * copy with its source). Disagreement is reported in r, not as an error. */
hdg_status hdg_spmv_cuda_measure(hdg_spmv_cuda *S, const hdg_blockmat *B, const hdg_csr *C, const double *x,
                                 const double *y_host, int reps, hdg_spmv_cuda_result *r, hdg_error *err);
/* The products agree within HDG_SPMV_CUDA_TOL and the copy is exact. */
int hdg_spmv_cuda_agrees(const hdg_spmv_cuda_result *r);

/* Text for the CLI: the "device:" and "cuSPARSE:" lines; one order in
 * detail; a sweep as one table. */
void hdg_spmv_cuda_describe(const hdg_spmv_cuda *S, hdg_str *out);
void hdg_spmv_cuda_format_single(const hdg_spmv_cuda_result *r, hdg_str *out);
void hdg_spmv_cuda_format_sweep(const hdg_spmv_cuda_result *r, int n, hdg_str *out);

/* JSON: the device and cuSPARSE fields, and the figures of one order. */
void hdg_spmv_cuda_report(const hdg_spmv_cuda *S, hdg_report *j);
void hdg_spmv_cuda_report_result(hdg_report *j, const hdg_spmv_cuda_result *r);

#endif
