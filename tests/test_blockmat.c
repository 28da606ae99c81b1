/* test_blockmat.c — dense block trace matrix: neighbour lists, per-face-row
 * assembly against a plain dense global assembly, CSR copy, both SpMVs,
 * symmetry, Dirichlet elimination, performance formulas, input errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/refel.h"
#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/solve/krylov.h"
#include "runtime/solve/mg.h"
#include "runtime/parallel/parallel.h"
#include "solver_mesh.h"
#include "test.h"

/* Dense global assembly of sum_e S^T K_e S, the reference. */
static double *dense_assembly(const test_topo *t, int m, const double *K, const double *F,
                              const double *flip, double *rhs)
{
    int n = t->nf * m, ld = 3 * m;
    double *G = calloc((size_t)n * n, sizeof(double));
    memset(rhs, 0, sizeof(double) * n);
    for (int e = 0; e < t->ne; e++)
        for (int j = 0; j < 3; j++) {
            int f = t->ef[3 * e + j];
            for (int p = 0; p < m; p++) {
                double sp = t->eforient[3 * e + j] ? flip[p] : 1.0;
                rhs[f * m + p] += sp * F[e * ld + j * m + p];
                for (int i = 0; i < 3; i++) {
                    int g = t->ef[3 * e + i];
                    for (int q = 0; q < m; q++) {
                        double sq = t->eforient[3 * e + i] ? flip[q] : 1.0;
                        G[(size_t)(f * m + p) * n + g * m + q] +=
                            sp * K[(size_t)e * ld * ld + (j * m + p) * ld + i * m + q] * sq;
                    }
                }
            }
        }
    return G;
}

/* The block matrix written out densely; also checks that padding blocks are zero. */
static double *dense_of_blockmat(const hdg_blockmat *B)
{
    int n = B->nf * B->m, m = B->m;
    double *D = calloc((size_t)n * n, sizeof(double));
    int padding_nonzero = 0;
    for (int l = 0; l < B->nf; l++)
        for (int a = 0; a < B->na; a++) {
            int g = B->nbr[l * B->na + a];
            const double *blk = hdg_blockmat_block(B, l, a);
            for (int p = 0; p < m; p++)
                for (int q = 0; q < m; q++) {
                    if (g < 0) padding_nonzero |= blk[p * m + q] != 0;
                    else D[(size_t)(l * m + p) * n + g * m + q] = blk[p * m + q];
                }
        }
    CHECK(!padding_nonzero, "padding blocks must stay zero");
    return D;
}

static double *dense_of_csr(const hdg_csr *C, int *sorted)
{
    double *D = calloc((size_t)C->n * C->n, sizeof(double));
    *sorted = 1;
    for (int i = 0; i < C->n; i++)
        for (int k = C->rowptr[i]; k < C->rowptr[i + 1]; k++) {
            D[(size_t)i * C->n + C->col[k]] = C->val[k];
            if (k > C->rowptr[i] && C->col[k] <= C->col[k - 1]) *sorted = 0;
        }
    return D;
}

static double max_abs(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
    return s;
}

static double asymmetry(const double *D, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) s = fmax(s, fabs(D[(size_t)i * n + j] - D[(size_t)j * n + i]));
    return s;
}

/* Dense solve with partial pivoting (A destroyed); the reference for Dirichlet. */
static void dense_solve(double *A, double *b, int n)
{
    for (int k = 0; k < n; k++) {
        int r = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[(size_t)i * n + k]) > fabs(A[(size_t)r * n + k])) r = i;
        for (int c = 0; c < n; c++) {
            double t = A[(size_t)k * n + c];
            A[(size_t)k * n + c] = A[(size_t)r * n + c];
            A[(size_t)r * n + c] = t;
        }
        double t = b[k];
        b[k] = b[r];
        b[r] = t;
        for (int i = k + 1; i < n; i++) {
            double f = A[(size_t)i * n + k] / A[(size_t)k * n + k];
            for (int c = k; c < n; c++) A[(size_t)i * n + c] -= f * A[(size_t)k * n + c];
            b[i] -= f * b[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int c = i + 1; c < n; c++) s -= A[(size_t)i * n + c] * b[c];
        b[i] = s / A[(size_t)i * n + i];
    }
}

static void check_neighbours(const test_topo *t, const int *nbr)
{
    int bad = 0;
    for (int l = 0; l < t->nf; l++) {
        int count = 0;
        for (int a = 0; a < 5; a++) count += nbr[5 * l + a] >= 0;
        bad |= nbr[5 * l] != l || count != (test_topo_is_boundary(t, l) ? 3 : 5);
        for (int k = 0; k < 2; k++) /* slots 1+2k, 2+2k hold element k's other faces */
            for (int s = 0; s < 2; s++) {
                int e = t->fe[2 * l + k];
                int want = e < 0 ? -1 : t->ef[3 * e + (t->flf[2 * l + k] + 1 + s) % 3];
                bad |= nbr[5 * l + 1 + 2 * k + s] != want;
            }
    }
    CHECK(!bad, "neighbour lists: diagonal first, 5 blocks inside, 3 on the boundary");
}

static double rel_diff(const double *a, const double *b, int n)
{
    double d = 0, s = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
    return s > 0 ? d / s : d;
}

static double *rounded(const double *x, size_t n)
{
    double *y = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) y[i] = (float)x[i];
    return y;
}

/* The passes on single-precision copies (hdg_blockmat_lo) are the double
 * passes on the matrix and Di rounded to float: the same to rounding of the
 * double arithmetic, and about 1e-7 away from the passes on B itself. */
static void test_fused_single(const hdg_blockmat *B, const double *Di)
{
    char what[128];
    int n = B->nf * B->m;
    size_t nd = (size_t)B->nf * B->m * B->m;
    hdg_blockmat_lo L;
    CHECK(hdg_blockmat_lo_init(&L, B, Di) == 1 && L.A && L.Di, "m=%d: single-precision copies made", B->m);
    hdg_blockmat Br = *B;
    Br.A = rounded(B->A, nd * B->na);
    double *Dir = rounded(Di, nd);
    double *x = test_random_vector(n), *d = test_random_vector(n);
    double *r[3], *z[3], *dn[3];
    for (int v = 0; v < 3; v++) {   /* v = 0: lo on B, 1: double on the rounded copy, 2: double on B */
        const hdg_blockmat *M = v == 1 ? &Br : B;
        const double *D = v == 1 ? Dir : Di;
        const hdg_blockmat_lo *Lv = v == 0 ? &L : NULL;
        r[v] = malloc(sizeof(double) * n), z[v] = malloc(sizeof(double) * n), dn[v] = malloc(sizeof(double) * n);
        memcpy(r[v], x, sizeof(double) * n);
        hdg_blockmat_smooth_start(M, D, Lv, 0.6, r[v], dn[v], z[v], 1);
        hdg_blockmat_smooth_step(M, D, Lv, 0.37, 1.9, d, r[v], dn[v], z[v]);
        hdg_blockmat_residual_update(M, Lv, dn[v], r[v]);
        hdg_blockmat_jacobi_product(M, D, Lv, r[v], dn[v]);
    }
    double same = rel_diff(r[0], r[1], n) + rel_diff(z[0], z[1], n) + rel_diff(dn[0], dn[1], n);
    double off = rel_diff(r[0], r[2], n) + rel_diff(z[0], z[2], n) + rel_diff(dn[0], dn[2], n);
    snprintf(what, sizeof what, "m=%d: single-precision passes = double passes on the rounded matrix", B->m);
    CHECK_NEAR(same, 0, 1e-14, what);
    CHECK(off > 1e-10 && off < 1e-5, "m=%d: single-precision passes differ from double by %.2e (want 1e-10..1e-5)",
          B->m, off);
    for (int v = 0; v < 3; v++) free(r[v]), free(z[v]), free(dn[v]);
    /* values outside float's normal range: no copy (the passes stay in double) */
    for (int sc = 0; sc < 2; sc++) {
        double f = sc ? 1e-40 : 1e40;
        for (size_t i = 0; i < nd * B->na; i++) Br.A[i] = B->A[i] * f;
        hdg_blockmat_lo Ls;
        CHECK(hdg_blockmat_lo_init(&Ls, &Br, Dir) == 0 && !Ls.A && !Ls.Di,
              "m=%d: a matrix scaled by %g gets no single-precision copy", B->m, f);
    }
    free(x), free(d), free(Br.A), free(Dir);
    hdg_blockmat_lo_free(&L);
}

/* The fused smoother passes (runtime/solve/mg.c's Chebyshev steps) against the
 * same steps done by SpMV, the block-Jacobi operator and vector updates. */
static void test_fused(const hdg_blockmat *B)
{
    char what[128];
    int n = B->nf * B->m;
    hdg_error err;
    hdg_linop Dop;
    CHECK(hdg_blockmat_fused_ok(B) == (B->m <= 12), "fused passes for m = %d", B->m);
    if (!hdg_blockmat_fused_ok(B)) return;
    CHECK(hdg_precond_block_init(&Dop, B, &err) == HDG_OK, "%s", err.msg);
    const double *Di = hdg_precond_block_inverse(&Dop);
    CHECK(Di != NULL, "the block-Jacobi operator hands out its inverse blocks");
    double *r = test_random_vector(n), *d = test_random_vector(n), *z = test_random_vector(n);
    double *r2 = malloc(sizeof(double) * n), *d2 = malloc(sizeof(double) * n), *z2 = malloc(sizeof(double) * n);
    double *dn = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    memcpy(r2, r, sizeof(double) * n), memcpy(z2, z, sizeof(double) * n);
    const double c1 = 0.37, c2 = 1.9;
    /* step: r -= A d; dn = c1 d + c2 D r; z += dn */
    hdg_blockmat_smooth_step(B, Di, NULL, c1, c2, d, r, dn, z);
    hdg_blockmat_spmv(B, d, t);
    for (int i = 0; i < n; i++) r2[i] -= t[i];
    Dop.apply(Dop.ctx, r2, w);
    for (int i = 0; i < n; i++) d2[i] = c1 * d[i], d2[i] += c2 * w[i], z2[i] += d2[i];
    snprintf(what, sizeof what, "m=%d: fused step r, dn, z", B->m);
    CHECK_NEAR(rel_diff(r, r2, n) + rel_diff(dn, d2, n) + rel_diff(z, z2, n), 0, 1e-15, what);
    /* start: d = s D r; z = d, then z += d */
    hdg_blockmat_smooth_start(B, Di, NULL, 0.6, r, dn, z, 1);
    Dop.apply(Dop.ctx, r, w);
    for (int i = 0; i < n; i++) d2[i] = 0.6 * w[i];
    snprintf(what, sizeof what, "m=%d: fused start d, z = d", B->m);
    CHECK_NEAR(rel_diff(dn, d2, n) + rel_diff(z, d2, n), 0, 1e-15, what);
    hdg_blockmat_smooth_start(B, Di, NULL, 0.6, r, dn, z, 0);
    for (int i = 0; i < n; i++) z2[i] = d2[i] + d2[i];
    snprintf(what, sizeof what, "m=%d: fused start z += d", B->m);
    CHECK_NEAR(rel_diff(z, z2, n), 0, 1e-15, what);
    /* residual: r -= A d; jacobi: y = D A x */
    memcpy(r2, r, sizeof(double) * n);
    hdg_blockmat_residual_update(B, NULL, d, r);
    for (int i = 0; i < n; i++) r2[i] -= t[i];
    snprintf(what, sizeof what, "m=%d: fused residual", B->m);
    CHECK_NEAR(rel_diff(r, r2, n), 0, 1e-15, what);
    hdg_blockmat_jacobi_product(B, Di, NULL, d, dn);
    Dop.apply(Dop.ctx, t, w);
    snprintf(what, sizeof what, "m=%d: fused D A x", B->m);
    CHECK_NEAR(rel_diff(dn, w, n), 0, 1e-15, what);
    test_fused_single(B, Di);
    hdg_precond_free(&Dop);
    free(r), free(d), free(z), free(r2), free(d2), free(z2), free(dn), free(t), free(w);
}

static void test_one(int N, int m)
{
    char what[128];
    test_topo t;
    test_topo_build(&t, N);
    int n = t.nf * m;
    double flip[64];
    test_legendre_flip(flip, m);
    double *K = test_element_matrices(t.ne, m, 0.5);
    double *F = test_random_vector((long long)t.ne * 3 * m);
    int *nbr = malloc(sizeof(int) * 5 * t.nf);
    hdg_error err;
    CHECK(hdg_blockmat_neighbours(t.nf, t.ne, t.ef, t.fe, t.flf, nbr, &err) == HDG_OK, "%s", err.msg);
    check_neighbours(&t, nbr);
    int reversed = 0;
    for (int i = 0; i < 3 * t.ne; i++) reversed += t.eforient[i];
    CHECK(reversed > 0 && reversed < 3 * t.ne, "mesh has both orientations (%d reversed)", reversed);

    hdg_blockmat B;
    CHECK(hdg_blockmat_init(&B, t.nf, m, 5, nbr, &err) == HDG_OK, "%s", err.msg);
    double *rhs = malloc(sizeof(double) * n), *rhs_ref = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) rhs[i] = 1e300; /* must be overwritten */
    CHECK(hdg_blockmat_assemble(&B, rhs, t.ne, K, F, t.ef, t.eforient, t.fe, t.flf, flip, &err) == HDG_OK,
          "%s", err.msg);

    double *G = dense_assembly(&t, m, K, F, flip, rhs_ref);
    double *D = dense_of_blockmat(&B);
    double scale = max_abs(G, (size_t)n * n), diff = 0, rdiff = 0;
    for (size_t i = 0; i < (size_t)n * n; i++) diff = fmax(diff, fabs(D[i] - G[i]));
    for (int i = 0; i < n; i++) rdiff = fmax(rdiff, fabs(rhs[i] - rhs_ref[i]));
    snprintf(what, sizeof what, "N=%d m=%d: block assembly vs dense assembly", N, m);
    CHECK_NEAR(diff / scale, 0, 1e-14, what);
    snprintf(what, sizeof what, "N=%d m=%d: rhs vs dense", N, m);
    CHECK_NEAR(rdiff / max_abs(rhs_ref, n), 0, 1e-14, what);
    snprintf(what, sizeof what, "N=%d m=%d: symmetry", N, m);
    CHECK_NEAR(asymmetry(D, n) / scale, 0, 1e-12, what);

    /* CSR: the same values exactly, sorted columns */
    hdg_csr C;
    CHECK(hdg_csr_from_blockmat(&C, &B, &err) == HDG_OK, "%s", err.msg);
    long long nblocks = hdg_blockmat_nblocks(&B);
    CHECK(C.nnz == nblocks * m * m && C.n == n, "CSR size: nnz %d, blocks %lld", C.nnz, nblocks);
    int sorted;
    double *DC = dense_of_csr(&C, &sorted);
    CHECK(sorted, "CSR columns ascend within a row");
    CHECK(!memcmp(DC, D, sizeof(double) * (size_t)n * n), "CSR holds exactly the block values");

    /* SpMV: block vs CSR vs dense, threaded vs serial */
    double *x = test_random_vector(n), *y1 = malloc(sizeof(double) * n), *y2 = malloc(sizeof(double) * n);
    double *y3 = malloc(sizeof(double) * n), *y4 = malloc(sizeof(double) * n);
    hdg_parallel_set_threads(3);
    hdg_blockmat_spmv(&B, x, y1);
    hdg_csr_spmv(&C, x, y2);
    hdg_parallel_set_threads(1);
    hdg_blockmat_spmv(&B, x, y4);
    hdg_parallel_set_threads(0);
    double e12 = 0, e13 = 0;
    for (int i = 0; i < n; i++) {
        double s = 0, absax = 0;
        for (int j = 0; j < n; j++) {
            s += G[(size_t)i * n + j] * x[j];
            absax += fabs(G[(size_t)i * n + j] * x[j]);
        }
        y3[i] = s;
        e12 = fmax(e12, fabs(y1[i] - y2[i]) / absax);
        e13 = fmax(e13, fabs(y1[i] - y3[i]) / absax);
    }
    snprintf(what, sizeof what, "N=%d m=%d: block SpMV vs CSR SpMV", N, m);
    CHECK_NEAR(e12, 0, 1e-14, what);

    /* scatter to elements is the transpose of the element gather of assembly:
     * x . (B x) = sum_e (S x)_e . K_e (S x)_e */
    double *xe = malloc(sizeof(double) * (size_t)t.ne * 3 * m), xBx = 0, sum = 0, absum = 0;
    hdg_blockmat_scatter_to_elements(t.ne, m, t.ef, t.eforient, flip, x, xe);
    for (int i = 0; i < n; i++) xBx += x[i] * y1[i];
    for (int e = 0; e < t.ne; e++) {
        const double *Ke = K + (size_t)e * 9 * m * m, *v = xe + (size_t)e * 3 * m;
        for (int i = 0; i < 3 * m; i++)
            for (int j = 0; j < 3 * m; j++) {
                sum += v[i] * Ke[i * 3 * m + j] * v[j];
                absum += fabs(v[i] * Ke[i * 3 * m + j] * v[j]);
            }
    }
    free(xe);
    snprintf(what, sizeof what, "N=%d m=%d: scatter_to_elements is the transpose of assembly", N, m);
    CHECK_NEAR((xBx - sum) / absum, 0, 1e-14, what);
    snprintf(what, sizeof what, "N=%d m=%d: block SpMV vs dense product", N, m);
    CHECK_NEAR(e13, 0, 1e-14, what);
    CHECK(!memcmp(y1, y4, sizeof(double) * n), "m=%d: SpMV with 3 threads equals 1 thread bitwise", m);

    /* performance formulas */
    CHECK_NEAR(hdg_blockmat_spmv_bytes(&B), 8.0 * (t.nf * 5.0 * m * m + 2.0 * t.nf * m) + 4.0 * t.nf * 5, 0,
               "block SpMV bytes");
    CHECK_NEAR(hdg_csr_spmv_bytes(&C), 12.0 * C.nnz + 20.0 * n, 0, "CSR SpMV bytes");
    CHECK_NEAR(hdg_blockmat_spmv_flops(&B), hdg_csr_spmv_flops(&C), 0, "same flops");

    /* Dirichlet on the boundary faces: rows dg I (odd m: the identity), rhs dg x_D */
    unsigned char *isd = calloc(t.nf, 1);
    double *xD = test_random_vector(n), dg = m % 2 ? 1.0 : 0.25;
    for (int f = 0; f < t.nf; f++) isd[f] = test_topo_is_boundary(&t, f);
    if (m % 2) hdg_blockmat_apply_dirichlet(&B, rhs, isd, xD);
    else hdg_blockmat_apply_dirichlet_dofs(&B, rhs, isd, NULL, xD, dg);
    free(D);
    D = dense_of_blockmat(&B);
    snprintf(what, sizeof what, "N=%d m=%d: symmetry after Dirichlet", N, m);
    CHECK_NEAR(asymmetry(D, n) / scale, 0, 1e-12, what);
    int rows_ok = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (isd[i / m] || isd[j / m]) rows_ok &= D[(size_t)i * n + j] == (i == j ? dg : 0.0);
    CHECK(rows_ok, "m=%d: Dirichlet rows and columns are %g times the identity", m, dg);
    int rhs_ok = 1;
    for (int i = 0; i < n; i++) rhs_ok &= !isd[i / m] || rhs[i] == dg * xD[i];
    CHECK(rhs_ok, "m=%d: Dirichlet rhs = %g x_D", m, dg);
    /* the eliminated system's solution: x = xD on Dirichlet faces and the
     * original equations hold on free faces */
    double *sol = malloc(sizeof(double) * n);
    memcpy(sol, rhs, sizeof(double) * n);
    dense_solve(D, sol, n);
    double eD = 0, eF = 0;
    for (int i = 0; i < n; i++) {
        if (isd[i / m]) {
            eD = fmax(eD, fabs(sol[i] - xD[i]));
            continue;
        }
        double s = 0;
        for (int j = 0; j < n; j++) s += G[(size_t)i * n + j] * sol[j];
        eF = fmax(eF, fabs(s - rhs_ref[i]));
    }
    snprintf(what, sizeof what, "N=%d m=%d: solution equals x_D on Dirichlet faces", N, m);
    CHECK_NEAR(eD, 0, 1e-12, what);
    snprintf(what, sizeof what, "N=%d m=%d: free rows of the original system hold", N, m);
    CHECK_NEAR(eF / scale, 0, 1e-10, what);

    test_fused(&B);
    free(sol);
    free(isd);
    free(xD);
    free(x);
    free(y1);
    free(y2);
    free(y3);
    free(y4);
    free(DC);
    hdg_csr_free(&C);
    free(D);
    free(G);
    free(rhs);
    free(rhs_ref);
    hdg_blockmat_free(&B);
    free(nbr);
    free(F);
    free(K);
    test_topo_free(&t);
}

static void test_errors(void)
{
    test_topo t;
    test_topo_build(&t, 2);
    int m = 2;
    double flip[2] = {1, -1};
    double *K = test_element_matrices(t.ne, m, 0.5);
    int *nbr = malloc(sizeof(int) * 5 * t.nf);
    hdg_error err;
    hdg_blockmat B;
    CHECK(hdg_blockmat_neighbours(t.nf, t.ne, t.ef, t.fe, t.flf, nbr, &err) == HDG_OK, "%s", err.msg);

    /* diagonal not first */
    int save = nbr[5 * 3];
    nbr[5 * 3] = nbr[5 * 3 + 1];
    CHECK(hdg_blockmat_init(&B, t.nf, m, 5, nbr, &err) == HDG_EINPUT && strstr(err.msg, "not the diagonal"),
          "init without the diagonal first: %s", err.msg);
    nbr[5 * 3] = save;

    /* a row without a needed neighbour */
    int l = 0;
    while (nbr[5 * l + 1] < 0) l++;
    save = nbr[5 * l + 1];
    nbr[5 * l + 1] = -1;
    CHECK(hdg_blockmat_init(&B, t.nf, m, 5, nbr, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_blockmat_assemble(&B, NULL, t.ne, K, NULL, t.ef, t.eforient, t.fe, t.flf, flip, &err) ==
              HDG_EINPUT && strstr(err.msg, "has no block"),
          "missing neighbour: %s", err.msg);
    hdg_blockmat_free(&B);
    nbr[5 * l + 1] = save;

    CHECK(hdg_blockmat_init(&B, t.nf, m, 5, nbr, &err) == HDG_OK, "%s", err.msg);
    /* reversed faces without a flip vector */
    CHECK(hdg_blockmat_assemble(&B, NULL, t.ne, K, NULL, t.ef, t.eforient, t.fe, t.flf, NULL, &err) ==
              HDG_EINPUT && strstr(err.msg, "flip"),
          "reversed without flip: %s", err.msg);
    /* inconsistent topology */
    int f0 = t.ef[0];
    t.ef[0] = t.ef[1];
    CHECK(hdg_blockmat_assemble(&B, NULL, t.ne, K, NULL, t.ef, t.eforient, t.fe, t.flf, flip, &err) ==
              HDG_EINPUT && strstr(err.msg, "element 0"),
          "inconsistent ef/fe: %s", err.msg);
    t.ef[0] = f0;
    CHECK(hdg_blockmat_assemble(&B, NULL, t.ne, K, NULL, t.ef, t.eforient, t.fe, t.flf, flip, &err) == HDG_OK,
          "restored topology assembles: %s", err.msg);
    hdg_blockmat_free(&B);

    nbr[5 * 2 + 3] = t.nf + 7;
    CHECK(hdg_blockmat_init(&B, t.nf, m, 5, nbr, &err) == HDG_EINPUT && strstr(err.msg, "out of range"),
          "neighbour out of range: %s", err.msg);
    CHECK(hdg_blockmat_init(&B, t.nf, 0, 5, nbr, &err) == HDG_EINPUT, "m = 0 rejected");
    free(nbr);
    free(K);
    test_topo_free(&t);
}

static double *csr_dense(const hdg_csr *C)
{
    double *D = calloc((size_t)C->n * C->ncol + 1, sizeof(double));
    for (int i = 0; i < C->n; i++)
        for (int k = C->rowptr[i]; k < C->rowptr[i + 1]; k++) {
            if (k > C->rowptr[i]) CHECK(C->col[k] > C->col[k - 1], "row %d: columns ascending", i);
            D[(size_t)i * C->ncol + C->col[k]] = C->val[k];
        }
    return D;
}

/* max |A - B| / max |B| of two dense r x c matrices. */
static double dense_rel(const double *A, const double *B, long long n)
{
    double d = 0, s = 0;
    for (long long i = 0; i < n; i++) d = fmax(d, fabs(A[i] - B[i])), s = fmax(s, fabs(B[i]));
    return s > 0 ? d / s : d;
}

/* The coarse space of --precond mg (runtime/solve/mg.c) on a random SPD trace
 * matrix of nk modes and ncomp components a face, with Dirichlet faces (the
 * first component of each boundary face with ncomp = 2) eliminated: B P, the
 * restriction and the Galerkin product against dense products with the
 * prolongation it built; P has no entries on fixed components. */
static void test_coarse(int N, int nk, int ncomp)
{
    test_topo t;
    test_topo_build(&t, N);
    int m = nk * ncomp, n = t.nf * m;
    double flip[64];
    for (int c = 0; c < ncomp; c++) test_legendre_flip(flip + c * nk, nk);
    double *K = test_element_matrices(t.ne, m, 0.5), *F = test_random_vector((long long)t.ne * 3 * m);
    int *nbr = malloc(sizeof(int) * 5 * t.nf);
    hdg_error err;
    hdg_blockmat B;
    CHECK(hdg_blockmat_neighbours(t.nf, t.ne, t.ef, t.fe, t.flf, nbr, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_blockmat_init(&B, t.nf, m, 5, nbr, &err) == HDG_OK, "%s", err.msg);
    double *rhs = malloc(sizeof(double) * n), *xD = calloc((size_t)n, sizeof(double));
    CHECK(hdg_blockmat_assemble(&B, rhs, t.ne, K, F, t.ef, t.eforient, t.fe, t.flf, flip, &err) == HDG_OK, "%s",
          err.msg);
    unsigned char *isd = calloc((size_t)t.nf, 1), *dofd = calloc((size_t)n, 1);
    int nbnd = 0;
    for (int f = 0; f < t.nf; f++)
        if (test_topo_is_boundary(&t, f)) {
            isd[f] = 1, nbnd++;
            for (int p = 0; p < nk; p++) dofd[(size_t)f * m + p] = 1;   /* component 0 */
        }
    hdg_blockmat_apply_dirichlet_dofs(&B, rhs, isd, ncomp > 1 ? dofd : NULL, xD, 1.0);
    hdg_mg_coarse C;
    CHECK(hdg_mg_coarse_build(&C, &B, 2, nk, t.nv, t.fv, 0, &err) == HDG_OK, "%s", err.msg);
    CHECK(C.nfixed == nbnd, "nk=%d ncomp=%d: %d fixed face components, %d boundary faces", nk, ncomp, C.nfixed, nbnd);
    double *Bd = calloc((size_t)n * n, sizeof(double));
    for (int l = 0; l < t.nf; l++)
        for (int a = 0; a < 5; a++) {
            int g = B.nbr[l * 5 + a];
            if (g < 0) continue;
            for (int p = 0; p < m; p++)
                for (int q = 0; q < m; q++) Bd[((size_t)l * m + p) * n + (size_t)g * m + q] = hdg_blockmat_block(&B, l, a)[p * m + q];
        }
    int nc = C.nc, onfixed = 0;
    double *P = csr_dense(&C.P), *R = csr_dense(&C.R), *AP = csr_dense(&C.AP), *Ac = csr_dense(&C.Ac);
    double *BP = calloc((size_t)n * nc + 1, sizeof(double)), *PBP = calloc((size_t)nc * nc + 1, sizeof(double));
    double *PT = calloc((size_t)n * nc + 1, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nc; j++) {
            PT[(size_t)j * n + i] = P[(size_t)i * nc + j];
            onfixed += P[(size_t)i * nc + j] != 0 && isd[i / m] && (ncomp == 1 || i % m < nk);
            for (int k = 0; k < n; k++) BP[(size_t)i * nc + j] += Bd[(size_t)i * n + k] * P[(size_t)k * nc + j];
        }
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < nc; j++)
            for (int k = 0; k < n; k++) PBP[(size_t)i * nc + j] += PT[(size_t)i * n + k] * BP[(size_t)k * nc + j];
    char what[128];
    CHECK(onfixed == 0, "nk=%d ncomp=%d: P has %d entries on fixed components", nk, ncomp, onfixed);
    snprintf(what, sizeof what, "nk=%d ncomp=%d: R = P^T", nk, ncomp);
    CHECK_NEAR(dense_rel(R, PT, (long long)n * nc), 0, 0, what);
    snprintf(what, sizeof what, "nk=%d ncomp=%d: B P", nk, ncomp);
    CHECK_NEAR(dense_rel(AP, BP, (long long)n * nc), 0, 1e-14, what);
    snprintf(what, sizeof what, "nk=%d ncomp=%d: Galerkin P^T B P", nk, ncomp);
    CHECK_NEAR(dense_rel(Ac, PBP, (long long)nc * nc), 0, 1e-13, what);
    CHECK(nc > 0 && nc <= t.nv * ncomp && C.Ac.nnz < nc * 10, "nk=%d ncomp=%d: %d coarse unknowns, %d nonzeros", nk,
          ncomp, nc, C.Ac.nnz);
    hdg_mg_coarse_free(&C);
    hdg_blockmat_free(&B);
    free(P), free(R), free(AP), free(Ac), free(BP), free(PBP), free(PT), free(Bd);
    free(K), free(F), free(nbr), free(rhs), free(xD), free(isd), free(dofd);
    test_topo_free(&t);
}

/* The hats of a triangular face in its trace basis (mg.h): at each face vertex
 * the hat of that vertex is 1 and the others 0, they sum to the constant 1,
 * and only the modes of degree <= 1 are nonzero. */
static void test_hats_triangle(int k)
{
    int nk = (k + 1) * (k + 2) / 2;
    double *H = malloc(sizeof(double) * 3 * nk), *P = malloc(sizeof(double) * 3 * nk);
    hdg_error err;
    CHECK(hdg_mg_hat_coefficients(3, nk, H, &err) == HDG_OK, "%s", err.msg);
    double a[3] = {-1, 1, -1}, b[3] = {-1, -1, 1}, worst = 0;
    hdg_dubiner_eval(k, 3, a, b, P, NULL, NULL);
    for (int w = 0; w < 3; w++)
        for (int v = 0; v < 3; v++) {
            double s = 0;
            for (int i = 0; i < nk; i++) s += H[v * nk + i] * P[w * nk + i];
            worst = fmax(worst, fabs(s - (v == w)));
        }
    int nonzero = 0;
    for (int i = 0; i < 3 * nk; i++) nonzero += H[i] != 0;
    CHECK(worst < 1e-14 && nonzero <= 9, "triangle hats k = %d: vertex values off by %.2e, %d nonzero", k, worst,
          nonzero);
    free(H), free(P);
}

int main(void)
{
    for (int k = 1; k <= 6; k++) test_hats_triangle(k);
    for (int m = 1; m <= 6; m++) test_one(6, m);
    test_one(3, 9);
    test_one(3, 12);
    test_one(2, 13); /* generic SpMV kernel */
    test_errors();
    test_coarse(5, 1, 1);
    test_coarse(5, 4, 1);
    test_coarse(4, 3, 2);

    /* docs/method.md: dense block SpMV moves about 0.7x the bytes of CSR */
    test_topo t;
    test_topo_build(&t, 16);
    int *nbr = malloc(sizeof(int) * 5 * t.nf);
    hdg_error err;
    hdg_blockmat B;
    hdg_csr C;
    hdg_blockmat_neighbours(t.nf, t.ne, t.ef, t.fe, t.flf, nbr, &err);
    CHECK(hdg_blockmat_init(&B, t.nf, 4, 5, nbr, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_csr_from_blockmat(&C, &B, &err) == HDG_OK, "%s", err.msg);
    double ratio = hdg_blockmat_spmv_bytes(&B) / hdg_csr_spmv_bytes(&C);
    CHECK(ratio > 0.65 && ratio < 0.75, "bytes block / CSR = %.3f for m = 4", ratio);
    hdg_csr_free(&C);
    hdg_blockmat_free(&B);
    free(nbr);
    test_topo_free(&t);
    return test_summary("blockmat");
}
