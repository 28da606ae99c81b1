/* dense.h — small dense linear algebra for reference-element tables and
 * element-local systems: LU with partial pivoting, inverse, matrix product,
 * Cholesky, symmetric eigenvalues (cyclic Jacobi) and the 2-norm condition
 * number (one-sided Jacobi SVD).
 *
 * Every matrix is row-major: A[i*ncols + j]. Sizes are small (n up to a few
 * hundred); nothing here is blocked or threaded. */
#ifndef HDG_DENSE_H
#define HDG_DENSE_H

/* LU factorization with partial pivoting, in place: A = P L U with unit lower
 * L below the diagonal and U on and above it. piv[k] (0-based) is the row
 * swapped with row k at step k. Returns 0, or the 1-based index of the first
 * exactly zero pivot (the factorization stops there). */
int hdg_lu_factor(int n, double *A, int *piv);

/* Solves A X = B with the factors of hdg_lu_factor. B is n x nrhs row-major,
 * overwritten with X. */
void hdg_lu_solve(int n, const double *LU, const int *piv, int nrhs, double *B);

/* Inverts A in place (LU with partial pivoting). Returns nonzero (and leaves
 * A unchanged) when A is singular. */
int hdg_invert(int n, double *A);

/* C = alpha A B + beta C with A m x k, B k x n, C m x n. When beta == 0, C is
 * not read (it may hold garbage). C must not alias A or B. */
void hdg_matmul(int m, int n, int k, double alpha, const double *A, const double *B,
                double beta, double *C);

/* Cholesky A = L L^T in place: L is written to the lower triangle and the
 * strict upper triangle is set to zero. Returns 0, or the 1-based index of the
 * first non-positive pivot (A is not symmetric positive definite). Only the
 * lower triangle of A is read. */
int hdg_cholesky(int n, double *A);

/* Eigenvalues of the symmetric matrix A (cyclic Jacobi rotations), ascending,
 * into eval[n]. A is destroyed. Returns 0, or nonzero if the sweeps did not
 * converge (never observed for symmetric input). */
int hdg_sym_eig(int n, double *A, double *eval);

/* Singular values of A (m x n, any shape), descending, into sval[min(m,n)]
 * (one-sided Jacobi on the rows, i.e. implicit Jacobi on A A^T, so small
 * singular values keep their relative accuracy). Returns 0 or nonzero if not
 * converged. */
int hdg_svd_values(int m, int n, const double *A, double *sval);

/* 2-norm condition number sigma_max / sigma_min of the n x n matrix A, i.e.
 * sqrt(lambda_max / lambda_min) of A^T A, computed by hdg_svd_values.
 * Returns INFINITY for a singular matrix. */
double hdg_cond2(int n, const double *A);

#endif
