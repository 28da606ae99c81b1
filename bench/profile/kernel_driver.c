/* kernel_driver.c — runs one generated HDG element kernel over a uniform square:N mesh and
 * prints its best time per element (bench/profile/kernel.sh builds it with the kernel's C;
 * see bench/README.md, "Profiling one generated kernel").
 *
 * Build: cc -O2 -I. -Iinclude -DKFN=name bench/profile/kernel_driver.c kernel.o -lm -lmvec
 * Run:   ./driver STRIDE [REPS] [N] [SLOT]   (STRIDE: geometry values per element; SLOT: the
 *        largest stride of an input or output slot; both from the kernel's source)
 *
 * Geometry rows as hdg_hdg_fill_geom writes them (drivers/mesh_data.c): vertices, J,
 * rx ry sx sy, per face nx ny sJ, marker flags 0. Parameters are all 1; every input slot
 * holds sin(0.37 i), so LU pivots and Cholesky pivots see matrices of a real mesh and
 * arbitrary (finite) data. The output checksum guards against dead code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hdg_kernel.h"   /* include/: the kernels' ABI (hdg_kargs) */
#include "ir/lower.h"    /* HDG_G_*: the layout of a geometry row */


void KFN(long long begin, long long end, const hdg_kargs *a);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void element(double *G, const double x[3], const double y[3])
{
    for (int v = 0; v < 3; v++) G[HDG_G_X0 + 2 * v] = x[v], G[HDG_G_Y0 + 2 * v] = y[v];
    double xr = (x[1] - x[0]) / 2, xs = (x[2] - x[0]) / 2, yr = (y[1] - y[0]) / 2, ys = (y[2] - y[0]) / 2;
    double J = xr * ys - xs * yr;   /* as runtime/fem/geometry.c */
    G[HDG_G_J] = J, G[HDG_G_RX] = ys / J, G[HDG_G_RY] = -xs / J, G[HDG_G_SX] = -yr / J, G[HDG_G_SY] = xr / J;
    for (int f = 0; f < 3; f++) {
        double dx = x[(f + 1) % 3] - x[f], dy = y[(f + 1) % 3] - y[f], len = sqrt(dx * dx + dy * dy);
        double *F = G + HDG_G_FACE0 + 3 * f;
        F[0] = dy / len, F[1] = -dx / len, F[2] = len / 2;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDE [REPS] [N] [SLOT]\n", argv[0]);
        return 2;
    }
    int S = atoi(argv[1]), reps = argc > 2 ? atoi(argv[2]) : 200, N = argc > 3 ? atoi(argv[3]) : 64;
    long long slot = argc > 4 ? atoll(argv[4]) : 1024;   /* doubles per item in every in/out slot */
    if (S < HDG_G_FIXED || reps < 1 || N < 1 || slot < 1) {
        fprintf(stderr, "%s: STRIDE >= %d, REPS >= 1, N >= 1, SLOT >= 1\n", argv[0], HDG_G_FIXED);
        return 2;
    }
    long long n = 2LL * N * N, e = 0;
    double *g = calloc((size_t)(n * S), sizeof *g), p[16];
    for (int i = 0; i < 16; i++) p[i] = 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double h = 1.0 / N, x0 = i * h, y0 = j * h;
            double xa[3] = {x0, x0 + h, x0 + h}, ya[3] = {y0, y0, y0 + h};
            double xb[3] = {x0, x0 + h, x0}, yb[3] = {y0, y0 + h, y0 + h};
            element(g + S * e++, xa, ya);
            element(g + S * e++, xb, yb);
        }
    hdg_kargs a = {.nitems = n, .geom = g, .params = p};
    for (int s = 0; s < HDG_KMAX_IN && s < HDG_KMAX_OUT; s++) {
        double *b = malloc((size_t)(n * slot) * sizeof *b);
        for (long long i = 0; i < n * slot; i++) b[i] = sin(0.37 * (double)i);
        a.in[s] = b;
        a.out[s] = calloc((size_t)(n * slot), sizeof(double));
    }
    double best = 1e30, start = now();
    int r = 0;
    for (; r < reps && (r < 3 || now() - start < 5); r++) {   /* at most about 5 s after 3 runs */
        double t = now();
        KFN(0, n, &a);
        t = now() - t;
        if (t < best) best = t;
    }
    reps = r;
    double sum = 0;
    for (long long i = 0; i < n * 8; i++) sum += a.out[0][i];
    printf("%.4f us per element (best of %d over %lld elements)  checksum %.6g\n", best / n * 1e6, reps, n, sum);
    return 0;
}
