/* cuda_linalg.h — the runtime's own GPU linear algebra: vector operations
 * (an hdg_vecops table over device memory, so hdg_pcg / hdg_gmres run on the
 * GPU unchanged), the dense-block trace matrix of seed 000 with its SpMV,
 * Jacobi and face-block Jacobi preconditioners, a CSR SpMV (the multigrid
 * transfers of --precond mg, runtime/solve/mg.h), a host operator on device
 * vectors (its coarse solve), and a copy kernel as the bandwidth reference.
 *
 * The kernels are CUDA source text (hdg_cuda_linalg_source), compiled at run
 * time like the generated ones (compiler/pipeline_cuda.h:
 * hdg_cuda_linalg_open does source -> NVRTC -> cache -> module -> init), so
 * the build needs no nvcc. The face block size m and the blocks per row na
 * are compile-time constants of that source: one module per (m, na).
 *
 * Device layout of the block matrix (seed 000, coalesced): with rows = nf*m
 * and t = l*m + i the output row of face l, entry (i, j) of block b of face
 * row l lives at Ad[(b*m + j)*rows + t]; thread t computes
 *     y[t] = sum_b sum_j Ad[(b*m + j)*rows + t] * x[nbr[l*na + b]*m + j],
 * so for fixed (b, j) a warp reads 32 consecutive doubles of Ad and writes 32
 * consecutive y; x is read through the read-only cache (the m threads of a
 * face row read the same x values).
 *
 * Reductions (dot, norm) use a fixed grid and a fixed tree, so results are
 * deterministic (a solve repeats bit for bit on the same GPU model).
 * hdg_vecops cannot return errors: the first device error is kept (sticky),
 * later operations do nothing, dot/norm return NaN (which stops the Krylov
 * solvers at once), and hdg_cuda_linalg_check reports it. */
#ifndef HDG_CUDA_LINALG_H
#define HDG_CUDA_LINALG_H

#include "hdg.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/solve/krylov.h"
#include "support/util.h"

enum { HDG_CUDA_RT_BLOCK = 256 };

typedef struct hdg_cuda_linalg {
    hdg_cuda_device *dev;
    hdg_cuda_module *mod;       /* owned */
    int m, na;                  /* the block shape the module was compiled for */
    hdg_cuda_func *copy, *axpy, *xpay, *scal, *set, *dot, *reduce, *spmv, *diag, *block;
    hdg_cuda_func *jinit, *binit;                                /* preconditioner set-up */
    hdg_cuda_func *csr;                                          /* CSR SpMV (multigrid transfers) */
    hdg_cuda_func *kstats, *assemble, *dirichlet, *scatter;     /* cuda_trace.h */
    int nparts;                 /* blocks of the dot kernel: 4 per SM, at most 1024 */
    hdg_cuptr partial;          /* nparts doubles */
    hdg_cuptr result;           /* 1 double */
    hdg_vecops ops;             /* ctx = this struct */
    int failed;
    hdg_error sticky;
} hdg_cuda_linalg;

/* The CUDA source of the runtime kernels for face blocks of m x m, na per row. */
void hdg_cuda_linalg_source(int m, int na, hdg_str *out);

/* Takes ownership of mod (a module built from hdg_cuda_linalg_source(m, na)),
 * looks the kernels up and allocates the reduction scratch. On failure mod
 * is unloaded. */
hdg_status hdg_cuda_linalg_init(hdg_cuda_linalg *L, hdg_cuda_device *dev, hdg_cuda_module *mod,
                                int m, int na, hdg_error *err);
void hdg_cuda_linalg_free(hdg_cuda_linalg *L);
/* The first error of the vector operations since init (HDG_OK if none). */
hdg_status hdg_cuda_linalg_check(const hdg_cuda_linalg *L, hdg_error *err);

/* Launches f with one thread per item i < n (kernels that return for i >= n). */
hdg_status hdg_cuda_linalg_launch(hdg_cuda_linalg *L, hdg_cuda_func *f, const char *what, long long n,
                                  void **params, hdg_error *err);

/* Vectors (device arrays of doubles). */
hdg_status hdg_cuda_vec_upload(hdg_cuda_linalg *L, const double *host, long long n, hdg_cuptr *dev,
                               hdg_error *err);
/* y = x on the device by the copy kernel (the bandwidth reference). */
hdg_status hdg_cuda_vec_copy(hdg_cuda_linalg *L, long long n, hdg_cuptr x, hdg_cuptr y, hdg_error *err);

/* The block matrix on the device. */
typedef struct hdg_cuda_blockmat {
    hdg_cuda_linalg *L;
    int nf, m, na;
    hdg_cuptr A;                /* nf*na*m*m doubles, coalesced layout (above) */
    hdg_cuptr nbr;              /* nf*na ints */
} hdg_cuda_blockmat;

/* Copies B to the device (B's m and na must be the module's). */
hdg_status hdg_cuda_blockmat_upload(hdg_cuda_linalg *L, const hdg_blockmat *B, hdg_cuda_blockmat *dB,
                                    hdg_error *err);
void hdg_cuda_blockmat_free(hdg_cuda_blockmat *dB);
/* The device matrix back on the host: B allocated (hdg_blockmat_init with
 * the device's neighbour lists) and filled from the coalesced layout, block
 * for block as uploaded (padding blocks as the device holds them). */
hdg_status hdg_cuda_blockmat_download(const hdg_cuda_blockmat *dB, hdg_blockmat *B, hdg_error *err);
/* y = B x (device vectors of nf*m). */
hdg_status hdg_cuda_blockmat_spmv(const hdg_cuda_blockmat *dB, hdg_cuptr x, hdg_cuptr y, hdg_error *err);
/* B as an operator on device vectors (errors go to the sticky error). */
hdg_linop hdg_cuda_blockmat_op(hdg_cuda_blockmat *dB);

/* Preconditioners on the device, built from the device matrix: Jacobi
 * (inverse diagonal) and face-block Jacobi (inverses of the diagonal blocks
 * by LU with partial pivoting, as hdg_invert, in the coalesced layout). They
 * fail on a zero diagonal entry / a singular block, naming the first. */
typedef struct hdg_cuda_precond {
    hdg_cuda_linalg *L;
    int nf, m, kind;            /* 0 Jacobi, 1 block */
    hdg_cuptr d;
} hdg_cuda_precond;
hdg_status hdg_cuda_precond_jacobi(hdg_cuda_blockmat *dB, hdg_cuda_precond *P, hdg_error *err);
hdg_status hdg_cuda_precond_block(hdg_cuda_blockmat *dB, hdg_cuda_precond *P, hdg_error *err);
hdg_linop hdg_cuda_precond_op(hdg_cuda_precond *P);
void hdg_cuda_precond_free(hdg_cuda_precond *P);

/* A compressed-sparse-row matrix on the device (n rows, ncol columns; the
 * multigrid transfers P and R = P^T are rectangular), multiplied by one
 * thread per row summing in stored order (as hdg_csr_spmv). */
typedef struct hdg_cuda_csr {
    hdg_cuda_linalg *L;
    int n, ncol, nnz;
    hdg_cuptr rowptr, col, val;   /* n+1 ints, nnz ints, nnz doubles */
} hdg_cuda_csr;
hdg_status hdg_cuda_csr_upload(hdg_cuda_linalg *L, const hdg_csr *C, hdg_cuda_csr *dC, hdg_error *err);
/* y = C x (x: ncol device doubles, y: n). */
hdg_status hdg_cuda_csr_spmv(const hdg_cuda_csr *dC, hdg_cuptr x, hdg_cuptr y, hdg_error *err);
/* C as an operator on device vectors (n: its rows; errors go to the sticky error). */
hdg_linop hdg_cuda_csr_op(hdg_cuda_csr *dC);
void hdg_cuda_csr_free(hdg_cuda_csr *dC);

/* A host operator (square, on host vectors of host->n) applied to device
 * vectors: x comes down, host->apply runs on host buffers, y goes up. For
 * a small operator on the host inside a device solve (the multigrid coarse
 * solve); copy errors go to the sticky error. */
typedef struct hdg_cuda_host_op {
    hdg_cuda_linalg *L;
    hdg_linop host;
    double *x, *y;                /* host buffers of host.n */
} hdg_cuda_host_op;
void hdg_cuda_host_op_init(hdg_cuda_host_op *H, hdg_cuda_linalg *L, const hdg_linop *host);
hdg_linop hdg_cuda_host_op_op(hdg_cuda_host_op *H);
void hdg_cuda_host_op_free(hdg_cuda_host_op *H);

/* PCG on the device for host vectors: uploads b and the initial x, runs
 * hdg_pcg with the device vector ops, downloads x. M may be NULL. */
hdg_status hdg_cuda_pcg(hdg_cuda_linalg *L, const hdg_linop *A, const hdg_linop *M, const double *b,
                        double *x, const hdg_solve_opts *o, hdg_solve_info *info, hdg_error *err);

#endif
