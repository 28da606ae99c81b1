/* solver_mesh.h — test-only triangle topology and element matrices for the
 * trace-system tests (test_blockmat.c, test_krylov.c), built by hand so the
 * solver tests do not depend on the mesh module.
 *
 * An N x N grid of squares on (N+1)^2 vertices, each square cut into two
 * counter-clockwise triangles whose local vertex order is randomly rotated.
 * Local face j of an element is the edge (v[j], v[j+1 mod 3]); the face's
 * canonical direction runs from the lower to the higher vertex number, so
 * eforient = 1 where the element walks the edge the other way (on an interior
 * face exactly one of the two elements is reversed). Faces are numbered in a
 * random order, and the element sides k = 0, 1 of a face are randomly swapped
 * (a boundary face may have its element in slot 1). */
#ifndef SOLVER_MESH_H
#define SOLVER_MESH_H

#include <stdlib.h>
#include <string.h>

typedef struct test_topo {
    int ne, nf, nv;
    int *ef, *eforient, *fe, *flf;
    int *fv; /* the two vertices of each face, lower number first */
} test_topo;

static unsigned long long test_rng_state = 88172645463325252ULL;

static double test_rand(void) /* uniform in [-1, 1) */
{
    test_rng_state ^= test_rng_state << 13;
    test_rng_state ^= test_rng_state >> 7;
    test_rng_state ^= test_rng_state << 17;
    return (double)(test_rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int test_randint(int n) { return (int)((test_rand() + 1.0) * 0.5 * n) % n; }

static void test_topo_build(test_topo *t, int N)
{
    int nv = (N + 1) * (N + 1);
    t->nv = nv;
    t->ne = 2 * N * N;
    int *tri = malloc(sizeof(int) * 3 * t->ne);
    for (int j = 0, e = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            int v00 = i + j * (N + 1), v10 = v00 + 1, v01 = v00 + N + 1, v11 = v01 + 1;
            int a[2][3] = {{v00, v10, v11}, {v00, v11, v01}};
            for (int h = 0; h < 2; h++, e++) {
                int r = test_randint(3);
                for (int c = 0; c < 3; c++) tri[3 * e + c] = a[h][(c + r) % 3];
            }
        }
    int *edge = malloc(sizeof(int) * nv * nv); /* (lo, hi) -> face, -1 */
    for (int i = 0; i < nv * nv; i++) edge[i] = -1;
    t->ef = malloc(sizeof(int) * 3 * t->ne);
    t->eforient = malloc(sizeof(int) * 3 * t->ne);
    t->nf = 0;
    for (int e = 0; e < t->ne; e++)
        for (int j = 0; j < 3; j++) {
            int a = tri[3 * e + j], b = tri[3 * e + (j + 1) % 3];
            int lo = a < b ? a : b, hi = a < b ? b : a;
            if (edge[lo * nv + hi] < 0) edge[lo * nv + hi] = t->nf++;
            t->ef[3 * e + j] = edge[lo * nv + hi];
            t->eforient[3 * e + j] = a > b;
        }
    /* random face numbering */
    int *perm = malloc(sizeof(int) * t->nf);
    for (int f = 0; f < t->nf; f++) perm[f] = f;
    for (int f = t->nf - 1; f > 0; f--) {
        int g = test_randint(f + 1), s = perm[f];
        perm[f] = perm[g];
        perm[g] = s;
    }
    for (int i = 0; i < 3 * t->ne; i++) t->ef[i] = perm[t->ef[i]];
    t->fv = malloc(sizeof(int) * 2 * t->nf);
    for (int lo = 0; lo < nv; lo++)
        for (int hi = lo + 1; hi < nv; hi++)
            if (edge[lo * nv + hi] >= 0) t->fv[2 * perm[edge[lo * nv + hi]]] = lo, t->fv[2 * perm[edge[lo * nv + hi]] + 1] = hi;
    t->fe = malloc(sizeof(int) * 2 * t->nf);
    t->flf = malloc(sizeof(int) * 2 * t->nf);
    for (int i = 0; i < 2 * t->nf; i++) t->fe[i] = t->flf[i] = -1;
    for (int e = 0; e < t->ne; e++)
        for (int j = 0; j < 3; j++) {
            int f = t->ef[3 * e + j], k = t->fe[2 * f] < 0 ? 0 : 1;
            t->fe[2 * f + k] = e;
            t->flf[2 * f + k] = j;
        }
    for (int f = 0; f < t->nf; f++)
        if (test_rand() < 0) { /* swap the sides (boundary: element moves to slot 1) */
            int e = t->fe[2 * f], j = t->flf[2 * f];
            t->fe[2 * f] = t->fe[2 * f + 1];
            t->flf[2 * f] = t->flf[2 * f + 1];
            t->fe[2 * f + 1] = e;
            t->flf[2 * f + 1] = j;
        }
    free(perm);
    free(edge);
    free(tri);
}

static void test_topo_free(test_topo *t)
{
    free(t->ef);
    free(t->eforient);
    free(t->fe);
    free(t->flf);
    free(t->fv);
}

static int test_topo_is_boundary(const test_topo *t, int f)
{
    return t->fe[2 * f] < 0 || t->fe[2 * f + 1] < 0;
}

/* ne element matrices (3m x 3m) R^T R + shift I with R random: SPD, and
 * exactly symmetric in floating point. */
static double *test_element_matrices(int ne, int m, double shift)
{
    int n = 3 * m;
    double *K = malloc(sizeof(double) * (size_t)ne * n * n), *R = malloc(sizeof(double) * n * n);
    for (int e = 0; e < ne; e++) {
        for (int i = 0; i < n * n; i++) R[i] = test_rand();
        double *Ke = K + (size_t)e * n * n;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++) s += R[k * n + i] * R[k * n + j];
                Ke[i * n + j] = s + (i == j ? shift : 0.0);
            }
    }
    free(R);
    return K;
}

static double *test_random_vector(long long n)
{
    double *x = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (long long i = 0; i < n; i++) x[i] = test_rand();
    return x;
}

/* The Legendre flip (-1)^i. */
static void test_legendre_flip(double *flip, int m)
{
    for (int i = 0; i < m; i++) flip[i] = i % 2 ? -1.0 : 1.0;
}

#endif
