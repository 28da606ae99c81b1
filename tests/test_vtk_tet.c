/* test_vtk_tet.c — the .vtu writer on tetrahedra (dim 3): the lattice, VTK's
 * Lagrange-tetrahedron point order against tables worked out by hand from
 * VTK's rules (vtkHigherOrderTetra: vertices, edges 01 12 20 03 13 23, the
 * faces' interiors, the interior), the p^3 sub-tetrahedra, the errors; and
 * files of a unit cube cut into 6 tetrahedra (mapped affinely) with a scalar,
 * a discontinuous scalar, a vector (3 components) and a tensor (9), for
 * p = 0..6, Lagrange cells and subdivided, ASCII and binary. The files are
 * left in the working directory for tests/check_vtu_tet.py, which reads them
 * independently (xml.etree, zlib) and checks their structure and values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/output/vtk.h"
#include "support/util.h"
#include "test.h"

#define NE 6
#define PMAX 6

/* The unit cube's 6 Kuhn tetrahedra (0, e_a, e_a + e_b, (1,1,1)) mapped by
 * x -> A x + b (det A > 0), positively oriented. */
static double VXYZ[NE * 12];

static void map_point(const double u[3], double *x)
{
    static const double A[3][3] = {{1.0, 0.2, 0.1}, {-0.1, 0.9, 0.3}, {0.05, -0.2, 1.1}}, b[3] = {0.3, -0.2, 0.5};
    for (int d = 0; d < 3; d++) x[d] = A[d][0] * u[0] + A[d][1] * u[1] + A[d][2] * u[2] + b[d];
}

static double volume6(const double *v)
{
    double a[3], b[3], c[3];
    for (int d = 0; d < 3; d++) a[d] = v[3 + d] - v[d], b[d] = v[6 + d] - v[d], c[d] = v[9 + d] - v[d];
    return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

static void build_cube(void)
{
    static const int PERM[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int e = 0; e < NE; e++) {
        double u[3] = {0, 0, 0}, *v = VXYZ + 12 * e;
        map_point(u, v);
        for (int k = 0; k < 3; k++) {
            u[PERM[e][k]] = 1;
            map_point(u, v + 3 * (k + 1));
        }
        if (volume6(v) < 0)
            for (int d = 0; d < 3; d++) {
                double t = v[6 + d];
                v[6 + d] = v[9 + d], v[9 + d] = t;
            }
    }
}

static double field_f(const double *x) { return x[0] * x[0] + 3 * x[0] * x[1] - x[1] * x[2] + 2 * x[2]; }
static double field_g(const double *x, int e) { return 10.0 * e + x[0] - x[1] + x[2]; }

static int count(int p) { return (p + 1) * (p + 2) * (p + 3) / 6; }

/* The lattice of degree p of element e in lattice order, from vtk.h's
 * definition (not with the library): pts[3 k + d]. */
static void lattice_points(int p, int e, double *pts)
{
    const double *v = VXYZ + 12 * e;
    int n = 0;
    for (int k = 0; k <= p; k++)
        for (int j = 0; j <= p - k; j++)
            for (int i = 0; i <= p - k - j; i++, n++) {
                double l1 = p ? (double)i / p : 0.25, l2 = p ? (double)j / p : 0.25, l3 = p ? (double)k / p : 0.25;
                double l0 = 1 - l1 - l2 - l3;
                for (int d = 0; d < 3; d++)
                    pts[3 * n + d] = l0 * v[d] + l1 * v[3 + d] + l2 * v[6 + d] + l3 * v[9 + d];
            }
}

/* ---- VTK's order against hand-made tables -------------------------------- */

/* Lattice coordinates (i, j, k) of VTK's points of degree 3, from VTK's rules:
 * vertices, edges 01 12 20 03 13 23 walked from their first vertex, then the
 * centroids of the faces (0,1,3), (1,2,3), (2,0,3), (0,2,1). */
static const int P3[20][3] = {
    {0, 0, 0}, {3, 0, 0}, {0, 3, 0}, {0, 0, 3},
    {1, 0, 0}, {2, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 2, 0}, {0, 1, 0},
    {0, 0, 1}, {0, 0, 2}, {2, 0, 1}, {1, 0, 2}, {0, 2, 1}, {0, 1, 2},
    {1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {1, 1, 0},
};
/* Degree 4, points 22..34: each face's 3 interior points (a triangle of
 * degree 1 in VTK's triangle order, the face's vertices as vtkHigherOrderTetra
 * lays them: FaceBCoords {0,2,3} {2,0,1} {2,1,3} {1,0,3}, FaceMinCoord 1 3 0 2),
 * then the interior point. */
static const int P4[13][3] = {
    {1, 0, 1}, {2, 0, 1}, {1, 0, 2},
    {1, 2, 1}, {1, 1, 2}, {2, 1, 1},
    {0, 1, 1}, {0, 1, 2}, {0, 2, 1},
    {1, 1, 0}, {1, 2, 0}, {2, 1, 0},
    {1, 1, 1},
};

static int lat_index(int i, int j, int k, int p)
{
    int n = 0;
    for (int kk = 0; kk <= p; kk++)
        for (int jj = 0; jj <= p - kk; jj++)
            for (int ii = 0; ii <= p - kk - jj; ii++, n++)
                if (ii == i && jj == j && kk == k) return n;
    return -1;
}

static void test_order(void)
{
    CHECK(hdg_vtk_lattice_count(3, 0) == 1 && hdg_vtk_lattice_count(3, 3) == 20 && hdg_vtk_lattice_count(3, -1) == 0 &&
              hdg_vtk_lattice_count(2, 3) == 10,
          "lattice counts");
    int lat[400];
    hdg_vtk_lagrange_order_dim(3, 3, lat);
    for (int k = 0; k < 20; k++)
        CHECK(lat[k] == lat_index(P3[k][0], P3[k][1], P3[k][2], 3), "p = 3: VTK point %d is lattice %d, want %d", k,
              lat[k], lat_index(P3[k][0], P3[k][1], P3[k][2], 3));
    hdg_vtk_lagrange_order_dim(3, 4, lat);
    for (int k = 0; k < 13; k++)
        CHECK(lat[22 + k] == lat_index(P4[k][0], P4[k][1], P4[k][2], 4), "p = 4: VTK point %d is lattice %d, want %d",
              22 + k, lat[22 + k], lat_index(P4[k][0], P4[k][1], P4[k][2], 4));
    for (int p = 0; p <= 8; p++) {   /* a permutation, vertices first */
        int n = count(p), seen[200] = {0}, ok = 1;
        hdg_vtk_lagrange_order_dim(3, p, lat);
        for (int k = 0; k < n; k++) ok &= lat[k] >= 0 && lat[k] < n && !seen[lat[k]]++;
        CHECK(ok, "p = %d: VTK's order is no permutation of the lattice", p);
        if (p > 0)
            CHECK(lat[1] == p && lat[2] == lat_index(0, p, 0, p) && lat[3] == n - 1, "p = %d: vertices", p);
    }
    double r[20], s[20], t[20], *x[3] = {r, s, t};
    hdg_vtk_lattice_points(3, 2, x);
    CHECK(r[1] == 0 && s[1] == -1 && t[1] == -1 && r[9] == -1 && s[9] == -1 && t[9] == 1, "lattice points p = 2");
    hdg_vtk_lattice_points(3, 0, x);
    CHECK(r[0] == -0.5 && s[0] == -0.5 && t[0] == -0.5, "p = 0: the centroid");
}

/* ---- files --------------------------------------------------------------- */

typedef struct fields {
    double *col[14];   /* f, g, v (3), T (9) */
} fields;

static void sample(int p, fields *F)
{
    int n = count(p);
    double *pts = hdg_xmalloc(sizeof(double) * 3 * (size_t)n);
    for (int c = 0; c < 14; c++) F->col[c] = hdg_xmalloc(sizeof(double) * (size_t)NE * n);
    for (int e = 0; e < NE; e++) {
        lattice_points(p, e, pts);
        for (int q = 0; q < n; q++) {
            const double *x = pts + 3 * q;
            size_t at = (size_t)e * n + q;
            F->col[0][at] = field_f(x);
            F->col[1][at] = field_g(x, e);
            for (int d = 0; d < 3; d++) F->col[2 + d][at] = x[d];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) F->col[5 + 3 * a + b][at] = (a + 1) * x[b];   /* T_ab = (a+1) x_b */
        }
    }
    free(pts);
}

static void unsample(fields *F)
{
    for (int c = 0; c < 14; c++) free(F->col[c]);
}

static void write_files(void)
{
    const char *names[4] = {"f", "g", "v", "T"};
    const int ncomp[4] = {1, 1, 3, 9};
    for (int p = 0; p <= PMAX; p++) {
        fields F;
        sample(p, &F);
        for (int mode = 0; mode < 2; mode++)
            for (int fmt = 0; fmt < 2; fmt++) {
                char path[128];
                snprintf(path, sizeof path, "out_tet_%s_p%d%s.vtu", mode ? "subdivide" : "lagrange", p, fmt ? "_bin" : "");
                hdg_vtk_data D = {.dim = 3, .ne = NE, .vxy = VXYZ, .p = p, .nfields = 4, .names = names,
                                  .ncomp = ncomp, .values = (const double *const *)F.col,
                                  .mode = mode ? HDG_VTK_SUBDIVIDE : HDG_VTK_LAGRANGE,
                                  .format = fmt ? HDG_VTK_BINARY : HDG_VTK_ASCII};
                hdg_error err = {0};
                CHECK(hdg_vtk_write_data(path, &D, &err) == HDG_OK, "%s: %s", path, err.msg);
            }
        unsample(&F);
    }
}

static void test_errors(void)
{
    fields F;
    sample(2, &F);
    const char *names[2] = {"f", "w"};
    int ncomp[2] = {1, 2};
    hdg_vtk_data D = {.dim = 3, .ne = NE, .vxy = VXYZ, .p = 2, .nfields = 2, .names = names, .ncomp = ncomp,
                      .values = (const double *const *)F.col, .mode = HDG_VTK_LAGRANGE};
    hdg_error err = {0};
    CHECK(hdg_vtk_write_data("out_tet_bad.vtu", &D, &err) == HDG_EINPUT &&
              strstr(err.msg, "field 'w' has 2 components (1, 3 or 9 expected in 3D)"),
          "a 2-vector on tetrahedra: %s", err.msg);
    ncomp[1] = 1;
    D.dim = 4;
    CHECK(hdg_vtk_write_data("out_tet_bad.vtu", &D, &err) == HDG_EINPUT && strstr(err.msg, "dimension 4"),
          "dim 4: %s", err.msg);
    D.dim = 3;
    double bad[NE * 12];
    memcpy(bad, VXYZ, sizeof bad);
    bad[12 * 4 + 11] = NAN;   /* z of v3 of element 4 */
    D.vxy = bad;
    CHECK(hdg_vtk_write_data("out_tet_bad.vtu", &D, &err) == HDG_EINPUT &&
              strstr(err.msg, "vertex coordinates of element 4 are not finite"),
          "NaN z: %s", err.msg);
    D.vxy = VXYZ;
    F.col[1][5 * count(2) + 7] = INFINITY;
    CHECK(hdg_vtk_write_data("out_tet_bad.vtu", &D, &err) == HDG_EINPUT &&
              strstr(err.msg, "field 'w' is not finite at element 5"),
          "inf value: %s", err.msg);
    unsample(&F);
    FILE *f = fopen("out_tet_bad.vtu", "r");
    CHECK(!f, "a refused file was written");
    if (f) fclose(f);
}

/* A .pvtu over two of the pieces: the arrays declared as in them (3 and 9
 * components in 3D), the pieces listed. */
static void test_pvtu(void)
{
    const char *names[4] = {"f", "g", "v", "T"}, *files[2] = {"out_tet_lagrange_p3.vtu", "out_tet_lagrange_p3_bin.vtu"};
    const int ncomp[4] = {1, 1, 3, 9};
    hdg_vtk_data D = {.dim = 3, .p = 3, .nfields = 4, .names = names, .ncomp = ncomp, .mode = HDG_VTK_LAGRANGE};
    hdg_error err = {0};
    CHECK(hdg_pvtu_write("out_tet.pvtu", 2, files, &D, &err) == HDG_OK, "pvtu: %s", err.msg);
    char *xml = NULL;
    size_t len;
    CHECK(hdg_read_file("out_tet.pvtu", &xml, &len, &err) == HDG_OK, "pvtu: %s", err.msg);
    CHECK(xml && strstr(xml, "<PDataArray type=\"Float64\" Name=\"v\" NumberOfComponents=\"3\"/>") &&
              strstr(xml, "<PDataArray type=\"Float64\" Name=\"T\" NumberOfComponents=\"9\"/>") &&
              strstr(xml, "<Piece Source=\"out_tet_lagrange_p3_bin.vtu\"/>"),
          "pvtu: %s", xml ? xml : "(unread)");
    int bad[4] = {1, 1, 2, 9};
    D.ncomp = bad;
    CHECK(hdg_pvtu_write("out_tet_bad.pvtu", 2, files, &D, &err) == HDG_EINPUT && strstr(err.msg, "'v' has 2 components"),
          "pvtu with a 2-vector in 3D: %s", err.msg);
    free(xml);
}

int main(void)
{
    build_cube();
    for (int e = 0; e < NE; e++) CHECK(volume6(VXYZ + 12 * e) > 0, "element %d not positively oriented", e);
    test_order();
    test_errors();
    write_files();
    test_pvtu();
    return test_summary("output_vtk_tet");
}
