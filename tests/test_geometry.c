/* test_geometry.c — runtime/fem/geometry with the dimension as data
 * (hdg_simplex_geometry): the triangle mesh's factors from hdg_geom_init
 * equal to the bit to what the 2D-only code produced (FNV-1a checksum
 * captured before the change; x86-64); on tetrahedra G Ginv = I,
 * J = volume / (4/3), outward unit normals orthogonal to the face, sJ =
 * area / 2, Fscale = sJ / J, rin = 3 |K| / sum |f|, h the longest edge, for
 * either orientation; the reference tetrahedron's own factors (J = 1,
 * sJ = sqrt3 on face 2, the normals refel.h states). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "runtime/fem/geometry.h"
#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh.h"
#include "test.h"

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;

static double urand01(void)                /* xorshift64, uniform in [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

static void test_geometry(void)
{
    hdg_error err;
    hdg_mesh m;
    hdg_geom g;
    CHECK(hdg_mesh_square(&m, 7, 0.2, 0.0, 1.3, -0.5, 1.0, &err) == HDG_OK, "square: %s", err.msg);
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "geom: %s", err.msg);
    size_t ne = g.ne;
    uint64_t h = 14695981039346656037ULL;
    double *a[] = {g.xr, g.xs, g.yr, g.ys, g.J, g.rx, g.ry, g.sx, g.sy, g.rin, g.h};
    double *b[] = {g.nx, g.ny, g.sJ, g.Fscale};
    for (int i = 0; i < 11; i++) h = fnv(h, a[i], ne * 8);
    for (int i = 0; i < 4; i++) h = fnv(h, b[i], 3 * ne * 8);
#if defined(__x86_64__)
    CHECK(h == 0x4c864bc7b2ca9e9aULL, "triangle geometry differs from the 2D-only code's: %016llx",
          (unsigned long long)h);
#endif
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
    /* the reference tetrahedron maps onto itself: J = 1, G = I */
    const double ref[12] = {-1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, 1};
    const double nref[4][3] = {{0, 0, -1}, {0, -1, 0}, {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)}, {-1, 0, 0}};
    hdg_simplex_geom s;
    hdg_simplex_geometry(3, ref, &s);
    CHECK(s.J == 1.0 && s.G[0][0] == 1.0 && s.G[1][2] == 0.0 && s.Ginv[2][2] == 1.0, "reference tet J, G");
    int ok = 1;
    for (int f = 0; f < 4; f++) {
        ok &= fabs(s.sJ[f] - (f == 2 ? sqrt(3.0) : 1.0)) <= 1e-15;
        for (int d = 0; d < 3; d++) ok &= fabs(s.n[f][d] - nref[f][d]) <= 1e-15;
    }
    CHECK(ok, "reference tet: sJ or normals differ from refel.h");
    /* random tetrahedra, either orientation */
    for (int trial = 0; trial < 20; trial++) {
        double X[12];
        for (int i = 0; i < 12; i++) X[i] = 2.0 * urand01() - 1.0;
        hdg_simplex_geometry(3, X, &s);
        double u[3][3], c[3];                 /* edges from vertex 0 */
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++) u[k][d] = X[(k + 1) * 3 + d] - X[d];
        c[0] = u[0][1] * u[1][2] - u[0][2] * u[1][1];
        c[1] = u[0][2] * u[1][0] - u[0][0] * u[1][2];
        c[2] = u[0][0] * u[1][1] - u[0][1] * u[1][0];
        double vol6 = c[0] * u[2][0] + c[1] * u[2][1] + c[2] * u[2][2];
        CHECK(fabs(s.J - vol6 / 6 / (4.0 / 3.0)) <= 1e-14, "trial %d: J %.17g vs %.17g", trial, s.J, vol6 / 8);
        double e = 0.0, S = 0.0, hmax = 0.0;
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) {
                double sum = 0.0;
                for (int d = 0; d < 3; d++) sum += s.G[k][d] * s.Ginv[d][l];
                e = fmax(e, fabs(sum - (k == l)));
            }
        CHECK(e <= 1e-10 * fmax(1.0, 1.0 / fabs(s.J)), "trial %d: G Ginv - I = %.3g", trial, e);
        double cen[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++)
            for (int d = 0; d < 3; d++) cen[d] += X[k * 3 + d] / 4;
        int good = 1;
        for (int f = 0; f < 4; f++) {
            const int *w = hdg_simplex_face_vertices(3, f);
            double fc[3], nn = 0.0, out = 0.0, t1 = 0.0, t2 = 0.0, p[3], q[3];
            for (int d = 0; d < 3; d++) {
                fc[d] = (X[w[0] * 3 + d] + X[w[1] * 3 + d] + X[w[2] * 3 + d]) / 3;
                p[d] = X[w[1] * 3 + d] - X[w[0] * 3 + d], q[d] = X[w[2] * 3 + d] - X[w[0] * 3 + d];
                nn += s.n[f][d] * s.n[f][d], out += s.n[f][d] * (fc[d] - cen[d]);
                t1 += s.n[f][d] * p[d], t2 += s.n[f][d] * q[d];
            }
            double cx = p[1] * q[2] - p[2] * q[1], cy = p[2] * q[0] - p[0] * q[2], cz = p[0] * q[1] - p[1] * q[0];
            double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
            S += area;
            good &= fabs(nn - 1) <= 1e-14 && out > 0 && fabs(t1) <= 1e-13 && fabs(t2) <= 1e-13 &&
                    fabs(s.sJ[f] - area / 2) <= 1e-15 && fabs(s.Fscale[f] - s.sJ[f] / s.J) <= 1e-12 * fabs(s.Fscale[f]);
        }
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
                hmax = fmax(hmax, hypot(hypot(X[3 * i] - X[3 * j], X[3 * i + 1] - X[3 * j + 1]), X[3 * i + 2] - X[3 * j + 2]));
        CHECK(good, "trial %d (J %.3g): a face normal not outward/unit/normal or sJ wrong", trial, s.J);
        CHECK(fabs(s.rin - 3 * fabs(vol6) / 6 / S) <= 1e-14 && fabs(s.h - hmax) <= 1e-15 * hmax, "trial %d: rin %.17g vs %.17g, h", trial,
              s.rin, 3 * fabs(vol6) / 6 / S);
    }
}

int main(void)
{
    test_geometry();
    return test_summary("geometry");
}
