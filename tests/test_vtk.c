/* test_vtk.c — the .vtu / .pvd / .pvtu writers: writes a known field on a
 * 2-element mesh for p = 0..10 in both modes as ASCII, parses the files back
 * and checks counts, cell types, offsets, that every stored value matches the
 * field at the stored point, VTK's Lagrange point order, the subdivision, and
 * the errors; vector and tensor fields as 3- and 9-component arrays (z = 0).
 * Leaves its files, and a binary twin of each ASCII file (*_bin.vtu, which
 * this reader cannot read), in the working directory for check_vtu.py. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/output/vtk.h"
#include "support/util.h"
#include "test.h"

#define NE 2
#define PMAX 10
#define NLAT_MAX ((PMAX + 1) * (PMAX + 2) / 2)

/* Two CCW triangles sharing the edge (2,0.5)-(0.3,1.7). */
static const double VXY[NE * 6] = {
    0.0, 0.0, 2.0, 0.5, 0.3, 1.7,
    2.0, 0.5, 2.2, 2.0, 0.3, 1.7,
};

static double field_f(double x, double y) { return x * x + 3 * x * y; }
/* Discontinuous: tells which element a value came from. */
static double field_g(double x, double y, int e) { return 10.0 * e + x - y; }

static int nlat_of(int p) { return (p + 1) * (p + 2) / 2; }

/* Samples f and g on the lattice of degree p, computed here from vtk.h's
 * definition (not with the library). */
static void sample(int p, double *f, double *g)
{
    for (int e = 0, k = 0; e < NE; e++) {
        const double *v = VXY + 6 * e;
        for (int j = 0; j <= p; j++)
            for (int i = 0; i <= p - j; i++, k++) {
                double r = p ? -1.0 + 2.0 * i / p : -1.0 / 3, s = p ? -1.0 + 2.0 * j / p : -1.0 / 3;
                double x = -(r + s) / 2 * v[0] + (1 + r) / 2 * v[2] + (1 + s) / 2 * v[4];
                double y = -(r + s) / 2 * v[1] + (1 + r) / 2 * v[3] + (1 + s) / 2 * v[5];
                f[k] = field_f(x, y);
                g[k] = field_g(x, y, e);
            }
    }
}

/* hdg_vtk_write_cells as ASCII (the reader below reads that only). */
static hdg_status write_ascii(const char *path, int ne, const double *vxy, int p, int nfields, const char *const *names,
                              const double *const *values, const hdg_vtk_cells *cells, int mode, hdg_error *err)
{
    hdg_vtk_data D = {.ne = ne, .vxy = vxy, .p = p, .nfields = nfields, .names = names, .values = values,
                      .cells = cells, .mode = mode, .format = HDG_VTK_ASCII};
    return hdg_vtk_write_data(path, &D, err);
}

/* ---- a minimal reader for the files we write ---------------------------- */

static long long attr_ll(const char *xml, const char *attr)
{
    const char *at = strstr(xml, attr);
    return at ? strtoll(at + strlen(attr), NULL, 10) : -1;
}

/* The numbers of the DataArray whose tag contains key (e.g. Name="f"). */
static int read_array(const char *xml, const char *key, double **out)
{
    const char *at = strstr(xml, key);
    *out = NULL;
    if (!at) return -1;
    const char *s = strchr(at, '>') + 1;
    int n = 0, cap = 0;
    for (;;) {
        while (*s == ' ' || *s == '\n' || *s == '\t') s++;
        if (*s == '<' || !*s) break;
        char *end;
        double v = strtod(s, &end);
        if (end == s) return -1;
        if (n == cap) *out = hdg_xrealloc(*out, (cap = cap ? 2 * cap : 64) * sizeof **out);
        (*out)[n++] = v;
        s = end;
    }
    return n;
}

typedef struct vtu_file {
    char *xml;
    long long npts, ncells;
    int npts3, nconn, noffs, ntypes, nf, ng;
    double *pts, *conn, *offs, *types, *f, *g;
} vtu_file;

static int load(const char *path, vtu_file *v)
{
    hdg_error err;
    size_t len;
    memset(v, 0, sizeof *v);
    if (hdg_read_file(path, &v->xml, &len, &err)) return 0;
    v->npts = attr_ll(v->xml, "NumberOfPoints=\"");
    v->ncells = attr_ll(v->xml, "NumberOfCells=\"");
    v->npts3 = read_array(v->xml, "Name=\"Points\"", &v->pts);
    v->nconn = read_array(v->xml, "Name=\"connectivity\"", &v->conn);
    v->noffs = read_array(v->xml, "Name=\"offsets\"", &v->offs);
    v->ntypes = read_array(v->xml, "Name=\"types\"", &v->types);
    v->nf = read_array(v->xml, "Name=\"f\"", &v->f);
    v->ng = read_array(v->xml, "Name=\"g\"", &v->g);
    return 1;
}

static void unload(vtu_file *v)
{
    free(v->xml);
    free(v->pts);
    free(v->conn);
    free(v->offs);
    free(v->types);
    free(v->f);
    free(v->g);
}

/* ---- checks on one written file ------------------------------------------ */

/* The lattice coordinates (i, j) of point X in the triangle V (6 doubles);
 * returns 0 if X is not on the lattice of degree p. */
static int lattice_of(const double *V, int p, double x, double y, int *i, int *j)
{
    double ax = V[2] - V[0], ay = V[3] - V[1], bx = V[4] - V[0], by = V[5] - V[1];
    double det = ax * by - ay * bx, dx = x - V[0], dy = y - V[1];
    double l1 = (dx * by - dy * bx) / det * p, l2 = (ax * dy - ay * dx) / det * p;
    *i = (int)lround(l1);
    *j = (int)lround(l2);
    return fabs(l1 - *i) < 1e-9 && fabs(l2 - *j) < 1e-9;
}

/* VTK's Lagrange triangle order, written out as rings: corners, then the
 * edges v0->v1, v1->v2, v2->v0, then the triangle of order q-3 inside. */
static int ring_order(int p, int *oi, int *oj)
{
    int n = 0;
    for (int m = 0;; m++) {
        int q = p - 3 * m;
        if (q < 0) break;
        if (q == 0) {
            oi[n] = oj[n] = m, n++;
            break;
        }
        int ci[3] = {m, m + q, m}, cj[3] = {m, m, m + q};
        for (int c = 0; c < 3; c++) oi[n] = ci[c], oj[n] = cj[c], n++;
        for (int c = 0; c < 3; c++) {
            int d = (c + 1) % 3;
            for (int t = 1; t < q; t++) {
                oi[n] = ci[c] + t * (ci[d] - ci[c]) / q;
                oj[n] = cj[c] + t * (cj[d] - cj[c]) / q;
                n++;
            }
        }
    }
    return n;
}

static double tri_area(const double *P, long long a, long long b, long long c)
{
    return 0.5 * ((P[3 * b] - P[3 * a]) * (P[3 * c + 1] - P[3 * a + 1]) -
                  (P[3 * c] - P[3 * a]) * (P[3 * b + 1] - P[3 * a + 1]));
}

static void check_values(const vtu_file *v, int p, int npe, const char *path)
{
    if (p == 0) {   /* cell data at the centroid of each cell */
        CHECK(strstr(v->xml, "<CellData") && !strstr(v->xml, "<PointData"), "%s: cell data", path);
        for (int c = 0; c < NE && c < v->nf && c < v->ng; c++) {
            double x = 0, y = 0;
            for (int k = 0; k < 3; k++) {
                long long q = (long long)v->conn[3 * c + k];
                x += v->pts[3 * q] / 3;
                y += v->pts[3 * q + 1] / 3;
            }
            CHECK_NEAR(v->f[c], field_f(x, y), 1e-12, path);
            CHECK_NEAR(v->g[c], field_g(x, y, c), 1e-12, path);
        }
        return;
    }
    CHECK(strstr(v->xml, "<PointData") && !strstr(v->xml, "<CellData"), "%s: point data", path);
    for (long long q = 0; q < v->npts && q < v->nf && q < v->ng; q++) {
        double x = v->pts[3 * q], y = v->pts[3 * q + 1];
        CHECK_NEAR(v->f[q], field_f(x, y), 1e-12, path);
        CHECK_NEAR(v->g[q], field_g(x, y, (int)(q / npe)), 1e-12, path);
        CHECK(v->pts[3 * q + 2] == 0, "%s: z = %g", path, v->pts[3 * q + 2]);
    }
}

/* Lagrange cells: vertices first, exactly; then every point where the ring
 * order puts it. */
static void check_lagrange_order(const vtu_file *v, int p, int npe, const char *path)
{
    int oi[NLAT_MAX], oj[NLAT_MAX];
    int n = ring_order(p, oi, oj);
    CHECK(n == npe, "%s: ring order has %d points, want %d", path, n, npe);
    for (int c = 0; c < NE; c++) {
        const double *V = VXY + 6 * c;
        const double *conn = v->conn + (size_t)c * npe;
        for (int k = 0; k < 3; k++) {
            long long q = (long long)conn[k];
            CHECK(v->pts[3 * q] == V[2 * k] && v->pts[3 * q + 1] == V[2 * k + 1],
                  "%s: cell %d point %d is not vertex %d", path, c, k, k);
        }
        int bad = 0;
        for (int k = 0; k < npe; k++) {
            long long q = (long long)conn[k];
            int i, j;
            if (!lattice_of(V, p, v->pts[3 * q], v->pts[3 * q + 1], &i, &j) || i != oi[k] ||
                j != oj[k])
                bad++;
        }
        CHECK(bad == 0, "%s: cell %d: %d points out of VTK order", path, c, bad);
    }
}

/* Subdivided: p^2 CCW triangles of area |T|/p^2 per element, each using
 * only its element's points. */
static void check_subdivision(const vtu_file *v, int p, int npe, const char *path)
{
    for (int e = 0; e < NE; e++) {
        const double *V = VXY + 6 * e;
        double area = 0.5 * ((V[2] - V[0]) * (V[5] - V[1]) - (V[4] - V[0]) * (V[3] - V[1]));
        double sum = 0;
        int bad = 0;
        for (int c = e * p * p; c < (e + 1) * p * p; c++) {
            long long a = (long long)v->conn[3 * c], b = (long long)v->conn[3 * c + 1],
                      d = (long long)v->conn[3 * c + 2];
            for (int k = 0; k < 3; k++) {
                long long q = (long long)v->conn[3 * c + k];
                if (q < (long long)e * npe || q >= (long long)(e + 1) * npe) bad++;
            }
            double ar = tri_area(v->pts, a, b, d);
            if (fabs(ar - area / (p * p)) > 1e-12 * area) bad++;
            sum += ar;
        }
        CHECK(bad == 0, "%s: element %d: %d bad sub-triangles", path, e, bad);
        CHECK_NEAR(sum, area, 1e-12 * area, path);
    }
}

static void write_and_check(int p, int mode)
{
    char path[64];
    hdg_error err;
    int nl = nlat_of(p);
    double f[NE * NLAT_MAX], g[NE * NLAT_MAX];
    const char *names[2] = {"f", "g"};
    const double *values[2] = {f, g};
    snprintf(path, sizeof path, "out_vtk_%s_p%d_bin.vtu", mode == HDG_VTK_LAGRANGE ? "lagrange" : "subdivide", p);
    sample(p, f, g);
    hdg_status st = hdg_vtk_write(path, NE, VXY, p, 2, names, values, mode, &err);   /* binary */
    CHECK(st == HDG_OK, "%s: %s", path, err.msg);
    snprintf(path, sizeof path, "out_vtk_%s_p%d.vtu", mode == HDG_VTK_LAGRANGE ? "lagrange" : "subdivide", p);
    if (!st) st = write_ascii(path, NE, VXY, p, 2, names, values, NULL, mode, &err);
    CHECK(st == HDG_OK, "%s: %s", path, err.msg);
    if (st) return;

    int npe = p ? nl : 3;
    int sub = mode == HDG_VTK_SUBDIVIDE && p > 0;
    long long ncells = sub ? (long long)NE * p * p : NE;
    int per_cell = sub || p <= 1 ? 3 : nl;
    int type = per_cell == 3 ? 5 : 69;
    int nval = p ? NE * npe : NE;

    vtu_file v;
    CHECK(load(path, &v), "%s: cannot read back", path);
    CHECK(v.npts == NE * npe, "%s: NumberOfPoints %lld", path, v.npts);
    CHECK(v.ncells == ncells, "%s: NumberOfCells %lld, want %lld", path, v.ncells, ncells);
    CHECK(v.npts3 == 3 * v.npts, "%s: %d coordinates", path, v.npts3);
    CHECK(v.nf == nval && v.ng == nval, "%s: %d, %d values, want %d", path, v.nf, v.ng, nval);
    CHECK(v.nconn == ncells * per_cell, "%s: connectivity length %d", path, v.nconn);
    CHECK(v.noffs == ncells && v.ntypes == ncells, "%s: %d offsets, %d types", path, v.noffs, v.ntypes);
    int ok = v.npts3 == 3 * v.npts && v.nf == nval && v.ng == nval &&
             v.nconn == ncells * per_cell && v.noffs == ncells && v.ntypes == ncells;
    if (ok) {
        int bad = 0;
        for (long long c = 0; c < ncells; c++)
            bad += v.offs[c] != (c + 1) * per_cell || v.types[c] != type;
        for (int k = 0; k < v.nconn; k++) bad += v.conn[k] < 0 || v.conn[k] >= v.npts;
        CHECK(bad == 0, "%s: %d bad offsets, types or point ids (want type %d)", path, bad, type);
        check_values(&v, p, npe, path);
        if (sub && p > 1) check_subdivision(&v, p, npe, path);
        else if (p > 0) check_lagrange_order(&v, p, npe, path);
    }
    unload(&v);
}

/* ---- the library's lattice helpers -------------------------------------- */

static void test_lattice_helpers(void)
{
    CHECK(hdg_vtk_lattice_size(0) == 1 && hdg_vtk_lattice_size(3) == 10 &&
          hdg_vtk_lattice_size(-1) == 0, "lattice sizes");
    for (int p = 0; p <= PMAX; p++) {
        int n = nlat_of(p), lat[NLAT_MAX], seen[NLAT_MAX];
        double r[NLAT_MAX], s[NLAT_MAX];
        hdg_vtk_lattice(p, r, s);
        for (int j = 0, k = 0; j <= p; j++)
            for (int i = 0; i <= p - j; i++, k++) {
                CHECK_NEAR(r[k], p ? -1.0 + 2.0 * i / p : -1.0 / 3, 1e-15, "lattice r");
                CHECK_NEAR(s[k], p ? -1.0 + 2.0 * j / p : -1.0 / 3, 1e-15, "lattice s");
            }
        hdg_vtk_lagrange_order(p, lat);
        memset(seen, 0, sizeof seen);
        int bad = 0;
        for (int k = 0; k < n; k++) {
            if (lat[k] < 0 || lat[k] >= n || seen[lat[k]]) bad++;
            else seen[lat[k]] = 1;
        }
        CHECK(bad == 0, "p=%d: the Lagrange order is not a permutation", p);
    }
    /* p = 2 must be VTK_QUADRATIC_TRIANGLE's order: vertices, then the
     * midpoints of 01, 12, 20. Lattice order: (0,0) (1,0) (2,0) (0,1) (1,1) (0,2). */
    int lat2[6], want2[6] = {0, 2, 5, 1, 4, 3};
    hdg_vtk_lagrange_order(2, lat2);
    CHECK(memcmp(lat2, want2, sizeof want2) == 0, "p=2 order %d %d %d %d %d %d", lat2[0],
          lat2[1], lat2[2], lat2[3], lat2[4], lat2[5]);
}

/* ---- errors ------------------------------------------------------------- */

static int exists(const char *path) { return access(path, F_OK) == 0; }

static void test_errors(void)
{
    hdg_error err;
    double f[NE * 10], g[NE * 10];
    const char *names[2] = {"f", "g"};
    const double *values[2] = {f, g};
    sample(3, f, g);

    /* a NaN in g at element 1, lattice point 4: refused, no file */
    remove("out_bad.vtu");
    g[10 + 4] = NAN;
    hdg_status st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, names, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT, "NaN: status %d", st);
    CHECK(strstr(err.msg, "field 'g' is not finite at element 1") && strstr(err.msg, "point 4"),
          "NaN message: %s", err.msg);
    CHECK(!exists("out_bad.vtu"), "a file was written despite the NaN");
    sample(3, f, g);
    f[7] = -INFINITY;
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, names, values, HDG_VTK_SUBDIVIDE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "field 'f' is not finite at element 0"),
          "Inf message: %s", err.msg);
    sample(3, f, g);
    double vbad[NE * 6];
    memcpy(vbad, VXY, sizeof vbad);
    vbad[6 + 3] = NAN;
    st = hdg_vtk_write("out_bad.vtu", NE, vbad, 3, 2, names, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "element 1"), "NaN vertex: %s", err.msg);
    CHECK(!exists("out_bad.vtu"), "a file was written despite bad input");

    /* unwritable paths */
    st = hdg_vtk_write("no-such-dir/x.vtu", NE, VXY, 3, 2, names, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EIO && strstr(err.msg, "no-such-dir/x.vtu") && strstr(err.msg, strerror(ENOENT)),
          "missing dir: %d %s", st, err.msg);
    st = hdg_vtk_write(".", NE, VXY, 3, 2, names, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EIO && strstr(err.msg, strerror(EISDIR)), "directory: %d %s", st, err.msg);
    const char *one[1] = {"a.vtu"};
    st = hdg_pvd_write("no-such-dir/s.pvd", 1, one, NULL, &err);
    CHECK(st == HDG_EIO && strstr(err.msg, "no-such-dir/s.pvd"), "pvd missing dir: %s", err.msg);

    /* bad arguments */
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, names, values, 7, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "mode"), "mode: %s", err.msg);
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, -1, 2, names, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "degree -1"), "degree: %s", err.msg);
    const char *dup[2] = {"u", "u"}, *empty[2] = {"f", ""}, *nul[2] = {NULL, "g"};
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, dup, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "'u' given twice"), "duplicate: %s", err.msg);
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, empty, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "no name"), "empty name: %s", err.msg);
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, nul, values, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "no name"), "NULL name: %s", err.msg);
    const double *novals[2] = {f, NULL};
    st = hdg_vtk_write("out_bad.vtu", NE, VXY, 3, 2, names, novals, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "'g' has no values"), "no values: %s", err.msg);
    double tbad[2] = {0, NAN};
    const char *two[2] = {"a.vtu", "b.vtu"};
    st = hdg_pvd_write("out_bad.pvd", 2, two, tbad, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "'b.vtu'"), "pvd NaN time: %s", err.msg);
    CHECK(!exists("out_bad.vtu") && !exists("out_bad.pvd"), "files written despite bad input");
}

/* A field name that needs XML escaping, and no fields at all. */
static void test_odd_names(void)
{
    hdg_error err;
    double f[NE * 3], g[NE * 3];
    const char *names[2] = {"f", "a<b & \"c\" 'd'>"};
    const double *values[2] = {f, g};
    sample(1, f, g);
    hdg_status st = write_ascii("out_vtk_names.vtu", NE, VXY, 1, 2, names, values, NULL, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_OK, "escaped name: %s", err.msg);
    char *xml;
    size_t len;
    if (hdg_read_file("out_vtk_names.vtu", &xml, &len, &err) == HDG_OK) {
        CHECK(strstr(xml, "Name=\"a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\""), "escaping");
        free(xml);
    }
    st = hdg_vtk_write("out_vtk_nofields.vtu", NE, VXY, 4, 0, NULL, NULL, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_OK, "no fields: %s", err.msg);
    st = hdg_vtk_write("out_vtk_empty.vtu", 0, NULL, 2, 0, NULL, NULL, HDG_VTK_SUBDIVIDE, &err);
    CHECK(st == HDG_OK, "no elements: %s", err.msg);
}

/* Cell fields (one value per element, e.g. an error indicator): after the point
 * data, each element's value on each of its cells (p^2 when subdivided); at
 * p = 0 in the one CellData section with the fields; without lattice fields;
 * refused when a name clashes or a value is not finite. */
static void test_cell_fields(void)
{
    hdg_error err;
    double f[NE * NLAT_MAX], g[NE * NLAT_MAX], eta[NE] = {0.25, 1e-7};
    const char *names[2] = {"f", "g"}, *cn[1] = {"eta"};
    const double *values[2] = {f, g}, *cv[1] = {eta};
    hdg_vtk_cells cells = {1, cn, cv};
    struct { const char *path; int p, mode, nf, per; } cases[] = {
        {"out_vtk_cells_p3.vtu", 3, HDG_VTK_LAGRANGE, 2, 1},
        {"out_vtk_cells_sub3.vtu", 3, HDG_VTK_SUBDIVIDE, 2, 9},
        {"out_vtk_cells_p0.vtu", 0, HDG_VTK_LAGRANGE, 2, 1},
        {"out_vtk_cells_only.vtu", 2, HDG_VTK_LAGRANGE, 0, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sample(cases[c].p, f, g);
        hdg_status st = write_ascii(cases[c].path, NE, VXY, cases[c].p, cases[c].nf, names, values, &cells,
                                    cases[c].mode, &err);
        CHECK(st == HDG_OK, "%s: %s", cases[c].path, err.msg);
        char *xml;
        size_t len;
        if (st || hdg_read_file(cases[c].path, &xml, &len, &err)) continue;
        double *v;
        int n = read_array(xml, "Name=\"eta\"", &v);
        CHECK(n == NE * cases[c].per, "%s: %d cell values, want %d", cases[c].path, n, NE * cases[c].per);
        for (int i = 0; i < n; i++)
            CHECK(v[i] == eta[i / cases[c].per], "%s: cell %d has %.17g", cases[c].path, i, v[i]);
        const char *cd = strstr(xml, "<CellData"), *eta_at = strstr(xml, "Name=\"eta\"");
        CHECK(cd && eta_at > cd && !strstr(cd + 1, "<CellData"), "%s: one CellData section holding eta",
              cases[c].path);
        free(v);
        free(xml);
    }
    const char *clash[1] = {"g"};
    hdg_vtk_cells bad = {1, clash, cv};
    sample(1, f, g);
    hdg_status st = hdg_vtk_write_cells("out_bad.vtu", NE, VXY, 1, 2, names, values, &bad, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "cell field name 'g' is also a field's"), "clash: %s", err.msg);
    double nan_eta[NE] = {1, NAN};
    const double *nv[1] = {nan_eta};
    hdg_vtk_cells nanc = {1, cn, nv};
    st = hdg_vtk_write_cells("out_bad.vtu", NE, VXY, 1, 2, names, values, &nanc, HDG_VTK_LAGRANGE, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "cell field 'eta' is not finite at element 1"), "NaN: %s", err.msg);
    CHECK(!exists("out_bad.vtu"), "a file written despite bad cell fields");
}

/* ---- collections --------------------------------------------------------- */

static void test_pvd(void)
{
    hdg_error err;
    char cwd[4096], abs_path[4300], *xml;
    size_t len;
    double f[NE * 3], g[NE * 3];
    const char *names[2] = {"f", "g"};
    const double *values[2] = {f, g};
    sample(1, f, g);

    mkdir("out_pvd", 0777);
    mkdir("out_pvd/run", 0777);
    mkdir("out_pvd/run/x", 0777);   /* the OS resolves x/.. only if x exists */
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    snprintf(abs_path, sizeof abs_path, "%s/out_pvd/run/x/../s2.vtu", cwd);
    const char *files[3] = {"out_pvd/run/s0.vtu", "./out_pvd/s1.vtu", abs_path};
    for (int k = 0; k < 3; k++)
        CHECK(hdg_vtk_write(files[k], NE, VXY, 1, 2, names, values, HDG_VTK_LAGRANGE, &err) == HDG_OK,
              "%s: %s", files[k], err.msg);
    double times[3] = {0, 0.1, 2.5e-3};
    CHECK(hdg_pvd_write("out_pvd/run/series.pvd", 3, files, times, &err) == HDG_OK, "%s", err.msg);
    if (hdg_read_file("out_pvd/run/series.pvd", &xml, &len, &err) == HDG_OK) {
        CHECK(strstr(xml, "<VTKFile type=\"Collection\""), "pvd header");
        const char *a = strstr(xml, "<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"s0.vtu\"/>");
        const char *b = strstr(xml, "<DataSet timestep=\"0.1\" group=\"\" part=\"0\" file=\"../s1.vtu\"/>");
        const char *c = strstr(xml, "<DataSet timestep=\"0.0025\" group=\"\" part=\"0\" file=\"s2.vtu\"/>");
        CHECK(a && b && c && a < b && b < c, "pvd data sets:\n%s", xml);
        free(xml);
    }

    /* times default to 0, 1, 2...; files in the current directory */
    const char *here[2] = {"out_vtk_lagrange_p3.vtu", "out_vtk_subdivide_p3.vtu"};
    CHECK(hdg_pvd_write("out_series.pvd", 2, here, NULL, &err) == HDG_OK, "%s", err.msg);
    if (hdg_read_file("out_series.pvd", &xml, &len, &err) == HDG_OK) {
        CHECK(strstr(xml, "timestep=\"0\" group=\"\" part=\"0\" file=\"out_vtk_lagrange_p3.vtu\"") &&
              strstr(xml, "timestep=\"1\" group=\"\" part=\"0\" file=\"out_vtk_subdivide_p3.vtu\""),
              "pvd in cwd:\n%s", xml);
        free(xml);
    }
}

/* A snapshot to x.pvd is a one-entry collection with x_00000.vtu beside it;
 * a .vtu write that fails half-way (file size limit) keeps the previous file
 * and leaves no temporary. */
static void test_snapshot_and_atomic(void)
{
    const char *names[2] = {"f", "g"};
    double f[NE * 28], g[NE * 28];   /* p = 6: 28 lattice points */
    const double *values[2] = {f, g};
    hdg_error err;
    char *xml;
    size_t len;
    sample(1, f, g);
    remove("out_snap_00000.vtu");
    CHECK(hdg_vtk_write_snapshot("out_snap.pvd", NE, VXY, 1, 2, names, values, HDG_VTK_LAGRANGE, &err) == HDG_OK,
          "snapshot: %s", err.msg);
    if (hdg_read_file("out_snap.pvd", &xml, &len, &err) == HDG_OK) {
        CHECK(strstr(xml, "<VTKFile type=\"Collection\"") &&
                  strstr(xml, "timestep=\"0\" group=\"\" part=\"0\" file=\"out_snap_00000.vtu\""),
              "one-entry pvd:\n%s", xml);
        free(xml);
    }
    CHECK(hdg_read_file("out_snap_00000.vtu", &xml, &len, &err) == HDG_OK && strstr(xml, "UnstructuredGrid"),
          "the .vtu beside it");
    free(xml);

    CHECK(hdg_vtk_write("out_atomic.vtu", NE, VXY, 1, 2, names, values, HDG_VTK_LAGRANGE, &err) == HDG_OK, "%s",
          err.msg);
    char *before = NULL;
    size_t nbefore = 0;
    hdg_read_file("out_atomic.vtu", &before, &nbefore, &err);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 1024;   /* smaller than the p = 6 file */
    sample(6, f, g);
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &lim);
    hdg_status st = write_ascii("out_atomic.vtu", NE, VXY, 6, 2, names, values, NULL, HDG_VTK_SUBDIVIDE, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(st == HDG_EIO && strstr(err.msg, "write error") && strstr(err.msg, "unchanged"), "failed write: %s",
          err.msg);
    CHECK(hdg_read_file("out_atomic.vtu", &xml, &len, &err) == HDG_OK && before && len == nbefore &&
              !memcmp(xml, before, len), "the previous .vtu is intact");
    free(xml);
    free(before);
}

/* ---- vectors and tensors ------------------------------------------------ */

/* v = (f, g) and T = (f, g; -f, 2g) at p = 2, as arrays of 3 and 9 components
 * with zeros in the z parts, in ASCII (read here) and binary (for check_vtu.py);
 * the .pvtu declares them alike; 3 components are refused. */
static void test_components(void)
{
    enum { P = 2, NL = 6 };
    double f[NE * NL], g[NE * NL], mf[NE * NL], g2[NE * NL];
    sample(P, f, g);
    for (int k = 0; k < NE * NL; k++) mf[k] = -f[k], g2[k] = 2 * g[k];
    const char *names[3] = {"s", "v", "T"};
    const int ncomp[3] = {1, 2, 4};
    const double *values[7] = {f, f, g, f, g, mf, g2};
    hdg_vtk_data D = {.ne = NE, .vxy = VXY, .p = P, .nfields = 3, .names = names, .ncomp = ncomp, .values = values,
                      .mode = HDG_VTK_LAGRANGE, .format = HDG_VTK_ASCII};
    hdg_error err = {0};
    CHECK(hdg_vtk_write_data("out_vtk_comp.vtu", &D, &err) == HDG_OK, "components: %s", err.msg);
    D.format = HDG_VTK_BINARY;
    CHECK(hdg_vtk_write_data("out_vtk_comp_bin.vtu", &D, &err) == HDG_OK, "components, binary: %s", err.msg);
    char *xml = NULL;
    size_t len;
    if (hdg_read_file("out_vtk_comp.vtu", &xml, &len, &err) == HDG_OK) {
        CHECK(strstr(xml, "Name=\"v\" NumberOfComponents=\"3\"") && strstr(xml, "Name=\"T\" NumberOfComponents=\"9\""),
              "3 and 9 components declared");
        CHECK(strstr(xml, "<PointData Scalars=\"s\" Vectors=\"v\" Tensors=\"T\">"), "active attributes");
        double *v = NULL, *t = NULL;
        int nv = read_array(xml, "Name=\"v\"", &v), nt = read_array(xml, "Name=\"T\"", &t);
        CHECK(nv == 3 * NE * NL && nt == 9 * NE * NL, "%d vector and %d tensor values", nv, nt);
        vtu_file pts;
        load("out_vtk_comp.vtu", &pts);   /* the points, in VTK's order: the values follow them */
        int bad = 0;
        for (int k = 0; nv == 3 * NE * NL && nt == 9 * NE * NL && k < NE * NL; k++) {
            double x = pts.pts[3 * k], y = pts.pts[3 * k + 1], F = field_f(x, y), G = field_g(x, y, k / NL);
            double want_v[3] = {F, G, 0}, want_t[9] = {F, G, 0, -F, 2 * G, 0, 0, 0, 0};
            for (int c = 0; c < 3; c++) bad += fabs(v[3 * k + c] - want_v[c]) > 1e-12;
            for (int c = 0; c < 9; c++) bad += fabs(t[9 * k + c] - want_t[c]) > 1e-12;
        }
        CHECK(bad == 0, "%d vector or tensor components differ from (f, g, 0) and (f, g, 0; -f, 2g, 0; 0 0 0)", bad);
        free(v), free(t), free(xml);
        unload(&pts);
    }
    const char *pieces[2] = {"out_vtk_comp.vtu", "out_vtk_comp_bin.vtu"};
    CHECK(hdg_pvtu_write("out_vtk_comp.pvtu", 2, pieces, &D, &err) == HDG_OK, "pvtu: %s", err.msg);
    if (hdg_read_file("out_vtk_comp.pvtu", &xml, &len, &err) == HDG_OK) {
        CHECK(strstr(xml, "<PPointData Scalars=\"s\" Vectors=\"v\" Tensors=\"T\">") &&
                  strstr(xml, "<PDataArray type=\"Float64\" Name=\"v\" NumberOfComponents=\"3\"/>") &&
                  strstr(xml, "<PDataArray type=\"Float64\" Name=\"T\" NumberOfComponents=\"9\"/>"),
              "the .pvtu declares the components:\n%s", xml);
        free(xml);
    }
    const int three[3] = {1, 3, 1};
    D.ncomp = three;
    CHECK(hdg_vtk_write_data("out_bad.vtu", &D, &err) == HDG_EINPUT && strstr(err.msg, "'v' has 3 components"),
          "3 components: %s", err.msg);
    D.ncomp = ncomp, D.format = 2;
    CHECK(hdg_vtk_write_data("out_bad.vtu", &D, &err) == HDG_EINPUT && strstr(err.msg, "format"), "format: %s", err.msg);
    CHECK(!exists("out_bad.vtu"), "a file written despite bad arguments");
}

int main(void)
{
    test_lattice_helpers();
    for (int p = 0; p <= PMAX; p++) {
        write_and_check(p, HDG_VTK_LAGRANGE);
        write_and_check(p, HDG_VTK_SUBDIVIDE);
    }
    test_errors();
    test_odd_names();
    test_cell_fields();
    test_pvd();
    test_snapshot_and_atomic();
    test_components();
    return test_summary("test_vtk");
}
