/* test_krylov.c — PCG and GMRES on assembled trace systems: convergence with
 * every preconditioner (residual checked independently through CSR),
 * agreement of the solutions, iteration counts, restarts, the error paths
 * (no convergence, not SPD, NaN, singular preconditioner), b = 0, the
 * monitor, and bitwise repeatability across thread counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/solve/blockmat.h"
#include "runtime/solve/csr.h"
#include "runtime/solve/krylov.h"
#include "runtime/parallel/parallel.h"
#include "solver_mesh.h"
#include "test.h"

typedef struct system {
    test_topo t;
    int m, n;
    hdg_blockmat B;
    hdg_csr C;
    double *b;
} system_t;

/* Assembles sum_e S^T K_e S (+ skew * (T_e - T_e^T) when skew != 0) on an
 * N x N mesh with Dirichlet boundary faces. Face dofs get very different
 * scales per face (as a modal basis has), which point Jacobi handles and
 * the intra-face coupling that only block Jacobi handles. */
static void build_system(system_t *s, int N, int m, double skew)
{
    hdg_error err;
    test_topo_build(&s->t, N);
    s->m = m;
    s->n = s->t.nf * m;
    int ld = 3 * m;
    double *K = test_element_matrices(s->t.ne, m, 0.05);
    /* strong coupling inside each face block: add c_j (w w^T) per local face */
    for (int e = 0; e < s->t.ne; e++)
        for (int j = 0; j < 3; j++) {
            double w[64];
            for (int p = 0; p < m; p++) w[p] = test_rand();
            for (int p = 0; p < m; p++)
                for (int q = 0; q < m; q++) K[(size_t)e * ld * ld + (j * m + p) * ld + j * m + q] += 20 * w[p] * w[q];
        }
    if (skew != 0)
        for (int e = 0; e < s->t.ne; e++) {
            double *Ke = K + (size_t)e * ld * ld;
            for (int i = 0; i < ld; i++)
                for (int j = 0; j < i; j++) {
                    double r = skew * test_rand();
                    Ke[i * ld + j] += r;
                    Ke[j * ld + i] -= r;
                }
        }
    double *F = test_random_vector((long long)s->t.ne * ld);
    double flip[64];
    test_legendre_flip(flip, m);
    int *nbr = malloc(sizeof(int) * 5 * s->t.nf);
    CHECK(hdg_blockmat_neighbours(s->t.nf, s->t.ne, s->t.ef, s->t.fe, s->t.flf, nbr, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_blockmat_init(&s->B, s->t.nf, m, 5, nbr, &err) == HDG_OK, "%s", err.msg);
    s->b = malloc(sizeof(double) * s->n);
    CHECK(hdg_blockmat_assemble(&s->B, s->b, s->t.ne, K, F, s->t.ef, s->t.eforient, s->t.fe, s->t.flf, flip,
                                &err) == HDG_OK,
          "%s", err.msg);
    unsigned char *isd = calloc(s->t.nf, 1);
    double *xD = test_random_vector(s->n);
    for (int f = 0; f < s->t.nf; f++) isd[f] = test_topo_is_boundary(&s->t, f);
    hdg_blockmat_apply_dirichlet(&s->B, s->b, isd, xD);
    CHECK(hdg_csr_from_blockmat(&s->C, &s->B, &err) == HDG_OK, "%s", err.msg);
    free(isd);
    free(xD);
    free(nbr);
    free(F);
    free(K);
}

static void free_system(system_t *s)
{
    hdg_blockmat_free(&s->B);
    hdg_csr_free(&s->C);
    free(s->b);
    test_topo_free(&s->t);
}

/* ||b - A x|| / ||b|| through the CSR copy and serial sums. */
static double true_residual(const system_t *s, const double *x)
{
    double *r = malloc(sizeof(double) * s->n), rr = 0, bb = 0;
    hdg_csr_spmv(&s->C, x, r);
    for (int i = 0; i < s->n; i++) {
        rr += (s->b[i] - r[i]) * (s->b[i] - r[i]);
        bb += s->b[i] * s->b[i];
    }
    free(r);
    return sqrt(rr / bb);
}

static double rel_diff(const double *x, const double *y, int n)
{
    double d = 0, s = 0;
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        s = fmax(s, fabs(y[i]));
    }
    return d / s;
}

typedef hdg_status (*solver_fn)(const hdg_linop *, const hdg_linop *, const double *, double *,
                                const hdg_solve_opts *, const hdg_vecops *, hdg_solve_info *, hdg_error *);

/* Solves from x = 0 and checks convergence; returns x (caller frees). */
static double *solve(const char *what, solver_fn fn, const system_t *s, const hdg_linop *M,
                     const hdg_solve_opts *o, hdg_solve_info *info)
{
    hdg_error err;
    hdg_linop A = hdg_blockmat_op(&s->B);
    double *x = calloc(s->n, sizeof(double));
    hdg_status st = fn(&A, M, s->b, x, o, NULL, info, &err);
    double res = true_residual(s, x);
    CHECK(st == HDG_OK && info->converged, "%s: status %d: %s", what, st, st ? err.msg : "");
    CHECK(res <= o->rtol * 1.0001, "%s: independent residual %.3g > rtol %.3g", what, res, o->rtol);
    CHECK_NEAR(info->residual, res, 1e-3 * o->rtol, what);
    CHECK(info->iterations > 0 && info->seconds >= 0, "%s: %d iterations", what, info->iterations);
    return x;
}

/* ---- linops for the error paths ---- */

static void negate_apply(void *ctx, const double *x, double *y)
{
    const hdg_blockmat *B = ctx;
    hdg_blockmat_spmv(B, x, y);
    for (long long i = 0; i < (long long)B->nf * B->m; i++) y[i] = -y[i];
}

static void nan_apply(void *ctx, const double *x, double *y)
{
    const hdg_blockmat *B = ctx;
    hdg_blockmat_spmv(B, x, y);
    y[B->nf * B->m / 2] = NAN;
}

typedef struct mon {
    int calls, last_it;
    double first, last;
} mon;

static void monitor(void *ctx, int it, double relres)
{
    mon *m = ctx;
    if (!m->calls++) m->first = relres;
    m->last_it = it;
    m->last = relres;
}

static void test_spd(void)
{
    system_t s;
    build_system(&s, 10, 4, 0);
    hdg_error err;
    hdg_linop J, BJ;
    CHECK(hdg_precond_jacobi_init(&J, &s.B, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_precond_block_init(&BJ, &s.B, &err) == HDG_OK, "%s", err.msg);
    hdg_solve_opts o = hdg_solve_opts_default();
    o.rtol = 1e-12;
    o.maxit = 2000;
    hdg_solve_info i0, i1, i2, i3, i4;
    double *x0 = solve("CG none", hdg_pcg, &s, NULL, &o, &i0);
    double *x1 = solve("CG Jacobi", hdg_pcg, &s, &J, &o, &i1);
    double *x2 = solve("CG block Jacobi", hdg_pcg, &s, &BJ, &o, &i2);
    printf("CG iterations: none %d, Jacobi %d, block Jacobi %d (n = %d)\n", i0.iterations, i1.iterations,
           i2.iterations, s.n);
    CHECK(i2.iterations <= i1.iterations, "block Jacobi %d iterations > Jacobi %d", i2.iterations, i1.iterations);
    CHECK(i1.iterations < i0.iterations, "Jacobi %d iterations >= none %d", i1.iterations, i0.iterations);
    CHECK_NEAR(rel_diff(x1, x0, s.n), 0, 1e-9, "CG: Jacobi vs none");
    CHECK_NEAR(rel_diff(x2, x0, s.n), 0, 1e-9, "CG: block Jacobi vs none");

    o.restart = 40;
    double *x3 = solve("GMRES(40) block Jacobi, SPD", hdg_gmres, &s, &BJ, &o, &i3);
    CHECK_NEAR(rel_diff(x3, x0, s.n), 0, 1e-9, "GMRES vs CG on the SPD system");
    o.restart = 10;
    double *x4 = solve("GMRES(10) none, SPD", hdg_gmres, &s, NULL, &o, &i4);
    CHECK(i4.iterations > 10, "GMRES(10) restarted (%d iterations)", i4.iterations);
    CHECK_NEAR(rel_diff(x4, x0, s.n), 0, 1e-9, "restarted GMRES vs CG");

    /* bitwise repeatability across thread counts */
    hdg_linop A = hdg_blockmat_op(&s.B);
    double *xa = calloc(s.n, sizeof(double)), *xb = calloc(s.n, sizeof(double));
    hdg_solve_info ia, ib;
    hdg_parallel_set_threads(1);
    hdg_pcg(&A, &BJ, s.b, xa, &o, NULL, &ia, &err);
    hdg_parallel_set_threads(4);
    hdg_pcg(&A, &BJ, s.b, xb, &o, NULL, &ib, &err);
    hdg_parallel_set_threads(0);
    CHECK(ia.iterations == ib.iterations && !memcmp(xa, xb, sizeof(double) * s.n),
          "CG with 1 and 4 threads: identical iterations and bits");

    /* monitor */
    mon mm = {0};
    o.verbose_every = 5;
    o.monitor = monitor;
    o.monitor_ctx = &mm;
    memset(xa, 0, sizeof(double) * s.n);
    hdg_pcg(&A, &J, s.b, xa, &o, NULL, &ia, &err);
    CHECK(mm.calls == ia.iterations / 5 && mm.last_it == 5 * mm.calls, "monitor: %d calls, last %d, %d iterations",
          mm.calls, mm.last_it, ia.iterations);
    CHECK(mm.last < 1e-3 * mm.first, "monitor sees the residual fall (%g -> %g)", mm.first, mm.last);
    o = hdg_solve_opts_default();
    o.rtol = 1e-12;

    /* no convergence within maxit */
    o.maxit = 3;
    memset(xa, 0, sizeof(double) * s.n);
    hdg_status st = hdg_pcg(&A, &J, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "CG did not converge") && strstr(err.msg, "3 iterations") &&
              strstr(err.msg, "rtol 1e-12"),
          "CG maxit 3: %s", err.msg);
    CHECK(ia.iterations == 3 && !ia.converged && ia.residual > 1e-12, "CG maxit info");
    CHECK_NEAR(ia.residual, true_residual(&s, xa), 1e-12, "CG maxit: info residual is the true one");
    memset(xa, 0, sizeof(double) * s.n);
    st = hdg_gmres(&A, NULL, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "GMRES(30) did not converge") && strstr(err.msg, "3 iterations"),
          "GMRES maxit 3: %s", err.msg);
    CHECK(ia.iterations == 3 && !ia.converged, "GMRES maxit info");
    o.maxit = 1000;

    /* b = 0 gives x = 0 */
    double *zero = calloc(s.n, sizeof(double));
    for (int i = 0; i < s.n; i++) xa[i] = 1.0;
    st = hdg_pcg(&A, &BJ, zero, xa, &o, NULL, &ia, &err);
    int all0 = 1;
    for (int i = 0; i < s.n; i++) all0 &= xa[i] == 0;
    CHECK(st == HDG_OK && ia.converged && ia.iterations == 0 && all0, "CG with b = 0");
    for (int i = 0; i < s.n; i++) xa[i] = 1.0;
    st = hdg_gmres(&A, NULL, zero, xa, &o, NULL, &ia, &err);
    all0 = 1;
    for (int i = 0; i < s.n; i++) all0 &= xa[i] == 0;
    CHECK(st == HDG_OK && ia.converged && ia.iterations == 0 && all0, "GMRES with b = 0");

    /* already converged initial guess: 0 iterations */
    memcpy(xa, x0, sizeof(double) * s.n);
    st = hdg_pcg(&A, NULL, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_OK && ia.iterations == 0, "CG from the solution: %d iterations", ia.iterations);

    /* NaN in b, in x0, in the operator: errors, not hangs */
    double *bn = malloc(sizeof(double) * s.n);
    memcpy(bn, s.b, sizeof(double) * s.n);
    bn[7] = NAN;
    memset(xa, 0, sizeof(double) * s.n);
    st = hdg_pcg(&A, &J, bn, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "NaN"), "CG with NaN in b: %s", err.msg);
    st = hdg_gmres(&A, &J, bn, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "NaN"), "GMRES with NaN in b: %s", err.msg);
    xa[3] = NAN;
    st = hdg_pcg(&A, &J, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "NaN"), "CG with NaN in x0: %s", err.msg);
    hdg_linop An = {&s.B, s.n, nan_apply};
    memset(xa, 0, sizeof(double) * s.n);
    st = hdg_pcg(&An, NULL, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "NaN"), "CG with a NaN operator: %s", err.msg);
    memset(xa, 0, sizeof(double) * s.n);
    st = hdg_gmres(&An, NULL, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "NaN"), "GMRES with a NaN operator: %s", err.msg);

    /* not SPD */
    hdg_linop Aneg = {&s.B, s.n, negate_apply};
    memset(xa, 0, sizeof(double) * s.n);
    st = hdg_pcg(&Aneg, NULL, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_ESOLVER && strstr(err.msg, "not SPD: indefinite") && strstr(err.msg, "--solver gmres") &&
          !ia.converged, "CG on -A: %s", err.msg);
    memset(xa, 0, sizeof(double) * s.n);
    st = hdg_gmres(&Aneg, NULL, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_OK, "GMRES on -A: %s", err.msg);
    CHECK_NEAR(true_residual(&s, xa), 2.0, 1e-6, "GMRES solves -A x = b, so ||b - A x|| = 2 ||b||");

    /* size mismatch */
    hdg_linop small = {J.ctx, 5, J.apply};
    st = hdg_pcg(&A, &small, s.b, xa, &o, NULL, &ia, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "size"), "preconditioner size mismatch: %s", err.msg);

    /* preconditioners refuse zero diagonals / singular blocks */
    double *d0 = hdg_blockmat_block(&s.B, 4, 0);
    double save[16];
    memcpy(save, d0, sizeof save);
    d0[1 * 4 + 1] = 0;
    hdg_linop P;
    st = hdg_precond_jacobi_init(&P, &s.B, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "face 4 dof 1"), "Jacobi with a zero diagonal: %s", err.msg);
    hdg_precond_free(&P);
    for (int q = 0; q < 4; q++) d0[2 * 4 + q] = 0;
    st = hdg_precond_block_init(&P, &s.B, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "face 4") && strstr(err.msg, "singular"),
          "block Jacobi with a singular block: %s", err.msg);
    hdg_precond_free(&P);
    memcpy(d0, save, sizeof save);

    /* block Jacobi inverse: M (D x) == x on a diagonal block */
    hdg_linop P2;
    CHECK(hdg_precond_block_init(&P2, &s.B, &err) == HDG_OK, "%s", err.msg);
    double *u = test_random_vector(s.n), *Du = malloc(sizeof(double) * s.n), *MDu = malloc(sizeof(double) * s.n);
    for (int l = 0; l < s.t.nf; l++)
        for (int p = 0; p < 4; p++) {
            double acc = 0;
            for (int q = 0; q < 4; q++) acc += hdg_blockmat_block(&s.B, l, 0)[p * 4 + q] * u[l * 4 + q];
            Du[l * 4 + p] = acc;
        }
    P2.apply(P2.ctx, Du, MDu);
    CHECK_NEAR(rel_diff(MDu, u, s.n), 0, 1e-12, "block inverse times diagonal block is the identity");
    hdg_precond_free(&P2);
    free(u);
    free(Du);
    free(MDu);

    free(bn);
    free(zero);
    free(xa);
    free(xb);
    free(x0);
    free(x1);
    free(x2);
    free(x3);
    free(x4);
    hdg_precond_free(&J);
    hdg_precond_free(&BJ);
    free_system(&s);
}

static void test_nonsymmetric(void)
{
    system_t s;
    build_system(&s, 8, 3, 2.0);
    hdg_error err;
    double asym = 0;
    for (int l = 0; l < s.B.nf && asym == 0; l++) {
        const double *D = hdg_blockmat_block(&s.B, l, 0);
        asym = fabs(D[1] - D[3]);
    }
    CHECK(asym > 1e-3, "the skew part makes the matrix nonsymmetric");
    hdg_linop J, BJ;
    CHECK(hdg_precond_jacobi_init(&J, &s.B, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdg_precond_block_init(&BJ, &s.B, &err) == HDG_OK, "%s", err.msg);
    hdg_solve_opts o = hdg_solve_opts_default();
    o.rtol = 1e-11;
    o.maxit = 3000;
    o.restart = 30;
    hdg_solve_info i0, i1, i2;
    double *x0 = solve("GMRES none, nonsymmetric", hdg_gmres, &s, NULL, &o, &i0);
    double *x1 = solve("GMRES Jacobi, nonsymmetric", hdg_gmres, &s, &J, &o, &i1);
    double *x2 = solve("GMRES block Jacobi, nonsymmetric", hdg_gmres, &s, &BJ, &o, &i2);
    printf("GMRES(30) iterations: none %d, Jacobi %d, block Jacobi %d (n = %d)\n", i0.iterations, i1.iterations,
           i2.iterations, s.n);
    CHECK_NEAR(rel_diff(x1, x0, s.n), 0, 1e-8, "GMRES: Jacobi vs none");
    CHECK_NEAR(rel_diff(x2, x0, s.n), 0, 1e-8, "GMRES: block Jacobi vs none");
    free(x0);
    free(x1);
    free(x2);
    hdg_precond_free(&J);
    hdg_precond_free(&BJ);
    free_system(&s);
}

static void identity_apply(void *ctx, const double *x, double *y)
{
    (void)ctx;
    memcpy(y, x, sizeof(double) * 400000);
}

/* A tolerance below what double precision reaches: both solvers say
 * "stagnated at relative residual X" (X near rounding level, the true
 * residual) instead of a breakdown or a run to maxit; a restart longer
 * than the unknowns is clamped (no huge workspace). */
static void test_stagnation(void)
{
    system_t s;
    build_system(&s, 6, 3, 0);
    hdg_error err;
    hdg_linop A = hdg_blockmat_op(&s.B), BJ;
    CHECK(hdg_precond_block_init(&BJ, &s.B, &err) == HDG_OK, "%s", err.msg);
    solver_fn fns[2] = {hdg_pcg, hdg_gmres};
    const char *names[2] = {"CG", "GMRES"};
    double tols[2] = {1e-300, 1e-17};
    for (int f = 0; f < 2; f++)
        for (int t = 0; t < 2; t++) {
            hdg_solve_opts o = hdg_solve_opts_default();
            o.rtol = tols[t];
            o.maxit = 20 * s.n;
            o.restart = 50;
            hdg_solve_info info;
            double *x = calloc(s.n, sizeof(double));
            hdg_status st = fns[f](&A, &BJ, s.b, x, &o, NULL, &info, &err);
            double res = true_residual(&s, x);
            CHECK(st == HDG_ESOLVER && strstr(err.msg, "stagnated at relative residual"),
                  "%s rtol %g: status %d: %s", names[f], tols[t], st, err.msg);
            CHECK(info.residual < 1e-12 && res < 1e-12 && !info.converged, "%s rtol %g: residual %.3g (true %.3g)",
                  names[f], tols[t], info.residual, res);
            CHECK(info.iterations < o.maxit / 4, "%s rtol %g: stagnation seen after %d iterations (maxit %d)",
                  names[f], tols[t], info.iterations, o.maxit);
            /* the solver's estimate of the floor, eps ||A|| ||x|| / ||b||, is near where it stopped */
            CHECK(info.floor > 0 && info.residual > 0.05 * info.floor && info.residual < 10 * info.floor &&
                  strstr(err.msg, "the rounding floor eps ||A|| ||x|| / ||b|| is"),
                  "%s rtol %g: residual %.3g, floor %.3g: %s", names[f], tols[t], info.residual, info.floor, err.msg);
            printf("%s rtol %g: %s\n", names[f], tols[t], err.msg);
            /* the default rule (attainable > 0): stagnation within 10x the floor is convergence, however
             * small the fixed relative bound */
            int strict_its = info.iterations;
            o.attainable = 1e-300;
            memset(x, 0, sizeof(double) * s.n);
            st = fns[f](&A, &BJ, s.b, x, &o, NULL, &info, &err);
            CHECK(st == HDG_OK && info.converged && info.stagnated && info.residual <= 10 * info.floor,
                  "%s rtol %g, attainable at the floor: status %d, residual %.3g, floor %.3g", names[f], tols[t],
                  st, info.residual, info.floor);
            /* ... and ends at the first restart that finds the true residual there, not after the two
             * restarts without progress that an explicit rtol waits for (CG at 1e-300 never restarts:
             * its recursion underflows into a breakdown first) */
            CHECK(info.iterations < strict_its || (f == 0 && t == 0), "%s rtol %g: %d iterations at the floor, %d to prove stagnation",
                  names[f], tols[t], info.iterations, strict_its);
            free(x);
        }
    /* restart 10^9 > n: clamped to n (the 8 GB x n workspace is never asked for) */
    hdg_solve_opts o = hdg_solve_opts_default();
    o.restart = 1000000000;
    hdg_solve_info info;
    double *x = calloc(s.n, sizeof(double));
    hdg_status st = hdg_gmres(&A, &BJ, s.b, x, &o, NULL, &info, &err);
    CHECK(st == HDG_OK && info.converged, "GMRES restart 1e9: %s", st ? err.msg : "");
    free(x);
    hdg_precond_free(&BJ);
    free_system(&s);
    /* restart = n = 4e5: 2.6 TB of basis vectors and Hessenberg matrix, refused with the figure before allocating */
    long long n = 400000;
    hdg_linop I = {NULL, n, identity_apply};
    double *bb = malloc(sizeof(double) * n), *xx = calloc(n, sizeof(double));
    for (long long i = 0; i < n; i++) bb[i] = 1;
    o.restart = (int)n;
    st = hdg_gmres(&I, NULL, bb, xx, &o, NULL, &info, &err);
    CHECK(st == HDG_ENOMEM && strstr(err.msg, "2560025600032 bytes") && strstr(err.msg, "GB) of workspace"),
          "GMRES(4e5) on 4e5 unknowns: %s", err.msg);
    printf("%s\n", err.msg);
    free(bb);
    free(xx);
}

/* The Krylov estimates of the extreme eigenvalues (CG: Lanczos) and singular
 * values (GMRES: Hessenberg) on a diagonal operator with known spectrum, and a
 * near-singular one whose smallest estimate falls to rounding level. */
typedef struct diag_op {
    const double *d;
} diag_op;

static void diag_apply(void *ctx, const double *x, double *y)
{
    const diag_op *o = ctx;
    for (int i = 0; i < 200; i++) y[i] = o->d[i] * x[i];
}

static void test_extremes(void)
{
    enum { N = 200 };
    double d[N], b[N], x[N];
    hdg_error err;
    for (int i = 0; i < N; i++) d[i] = pow(10.0, 3.0 * i / (N - 1)), b[i] = 1 + 0.5 * sin(i);
    diag_op o = {d};
    hdg_linop A = {&o, N, diag_apply};
    hdg_solve_opts so = hdg_solve_opts_default();
    so.rtol = 1e-12, so.restart = N;
    hdg_solve_info info;
    memset(x, 0, sizeof x);
    CHECK(hdg_pcg(&A, NULL, b, x, &so, NULL, &info, &err) == HDG_OK, "%s", err.msg);
    CHECK(fabs(info.sv_min - 1) < 1e-3 && fabs(info.sv_max - 1000) < 1e-3, "CG extremes %g %g (1, 1000)",
          info.sv_min, info.sv_max);
    memset(x, 0, sizeof x);
    CHECK(hdg_gmres(&A, NULL, b, x, &so, NULL, &info, &err) == HDG_OK, "%s", err.msg);
    CHECK(fabs(info.sv_min - 1) < 1e-3 && fabs(info.sv_max - 1000) < 1, "GMRES extremes %g %g (1, 1000)",
          info.sv_min, info.sv_max);
    d[0] = 1e-14;   /* near singular: the estimate follows it */
    b[0] = 1;   /* a part of the data along it: the solution 1e14 times larger */
    memset(x, 0, sizeof x);
    CHECK(hdg_pcg(&A, NULL, b, x, &so, NULL, &info, &err) == HDG_OK, "%s", err.msg);
    CHECK(info.sv_min < 1e-12 * info.sv_max, "CG near singular: extremes %g %g", info.sv_min, info.sv_max);
}

int main(void)
{
    test_spd();
    test_nonsymmetric();
    test_stagnation();
    test_extremes();
    return test_summary("krylov");
}
