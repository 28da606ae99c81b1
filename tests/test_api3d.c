/* test_api3d.c — the public C API on tetrahedra (issue 39.8): maxwell3d's fields at the
 * returned (x, y, z) nodes against the exact cavity mode, the lattice's vertex nodes on the
 * mesh of hdgc_result_mesh_simplices, and that mesh given back as arrays
 * (hdgc_problem_set_mesh_simplices, dim 3) giving cube:2's errors; the same for HDG
 * (examples/poisson3d.hdg: u and ustar at the nodes); hdgc_vtk_write and hdgc_png_write of
 * its fields against hdgc run's --vtk and --png files. Includes hdgc.h only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdgc.h"
#include "test.h"

#define T_FINAL 0.2

/* Ex of examples/maxwell3d.hdg at time t */
static double ex_exact(double x, double y, double z, double t)
{
    double pi = acos(-1.0), omega = pi * sqrt(3.0);
    return cos(pi * x) * sin(pi * y) * sin(pi * z) * cos(omega * t);
}

static hdgc_problem *maxwell3d(void)
{
    hdgc_problem *p = NULL;
    hdg_error err;
    CHECK(hdgc_problem_load(HDG_EXAMPLES "/maxwell3d.hdg", &p, &err) == HDG_OK, "load: %s", err.msg);
    if (!p) return NULL;
    CHECK(hdgc_problem_set_option(p, "mesh", "cube:2", &err) == HDG_OK, "mesh: %s", err.msg);
    CHECK(hdgc_problem_set_option(p, "order", "2", &err) == HDG_OK, "order: %s", err.msg);
    CHECK(hdgc_problem_set_option(p, "final-time", "0.2", &err) == HDG_OK, "final-time: %s", err.msg);
    return p;
}

/* The first field whose name starts with E and ends with x ("E_x", "Ex", ...). */
static const hdgc_field *field_ex(const hdgc_result *r)
{
    for (int i = 0; i < hdgc_result_nfields(r); i++) {
        const hdgc_field *f = hdgc_result_field(r, i);
        size_t n = strlen(f->name);
        if (f->name[0] == 'E' && f->name[n - 1] == 'x') return f;
    }
    return NULL;
}

/* Ex at the nodes against the exact field; the lattice's vertex nodes on the mesh. */
static void fields(const hdgc_result *r)
{
    const hdgc_field *f = field_ex(r);
    CHECK(f != NULL, "no field Ex among %d", hdgc_result_nfields(r));
    if (!f) return;
    CHECK(f->ne == 48 && f->degree == 2 && f->npe == 10 && f->z != NULL, "ne %d degree %d npe %d z %p", f->ne,
          f->degree, f->npe, (const void *)f->z);
    if (!f->z) return;
    /* the root mean square over the nodes (equal weights: every element has volume 1/48) */
    double err = 0, ref = 0, swapped = 0;   /* swapped: x and z exchanged, the nodes' test failing */
    long n = (long)f->ne * f->npe;
    for (long i = 0; i < n; i++) {
        double ex = ex_exact(f->x[i], f->y[i], f->z[i], T_FINAL), es = ex_exact(f->z[i], f->y[i], f->x[i], T_FINAL);
        err += (f->values[i] - ex) * (f->values[i] - ex), ref = fmax(ref, fabs(ex));
        swapped += (f->values[i] - es) * (f->values[i] - es);
    }
    err = sqrt(err / (double)n), swapped = sqrt(swapped / (double)n);
    CHECK(swapped > 3 * err, "x and z exchanged: %g, against %g", swapped, err);
    double eE = hdgc_result_error(r, "E");
    CHECK(ref > 0.4 && err > 0.1 * eE && err < 2 * eE, "rms |Ex - exact| at the nodes %g (L2 error of E %g)", err,
          eE);
    int dim = 0, nv = 0;
    const double *xyz = NULL;
    const int *cells = NULL;
    int ne = hdgc_result_mesh_simplices(r, &dim, &nv, &xyz, &cells);
    CHECK(ne == 48 && dim == 3 && nv == 27 && xyz && cells, "mesh %d cells, dim %d, %d vertices", ne, dim, nv);
    CHECK(hdgc_result_mesh(r, NULL, NULL, NULL) == 0, "hdgc_result_mesh gives triangles only");
    if (ne != f->ne || !cells) return;
    /* the vertices: nodes 0, degree, the last of the layer k = 0, npe-1 */
    int p = f->degree, corner[4] = {0, p, (p + 1) * (p + 2) / 2 - 1, f->npe - 1};
    double d = 0;
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < 4; k++) {
            int v = cells[4 * e + k], i = e * f->npe + corner[k];
            d = fmax(d, fabs(f->x[i] - xyz[3 * v]) + fabs(f->y[i] - xyz[3 * v + 1]) + fabs(f->z[i] - xyz[3 * v + 2]));
        }
    CHECK(d < 1e-15, "field nodes against the mesh's vertices: %g", d);
}

static double uex(double x, double y, double z) { return exp(x) * cos(2 * y) + x * x * y * z; }

/* The root mean square of field f - uex over its nodes (every element of cube:N has one volume). */
static double rms_uex(const hdgc_field *f)
{
    double s = 0;
    long n = (long)f->ne * f->npe;
    for (long i = 0; i < n; i++) s += pow(f->values[i] - uex(f->x[i], f->y[i], f->z[i]), 2);
    return sqrt(s / (double)n);
}

/* HDG on tetrahedra: poisson3d's u and ustar at the nodes (degree k+1 = 3), on cube:2 and
 * cube:4 (the nodes' error falls at the rates k+1 and k+2), and cube:2 as arrays. */
static void hdg_fields(void)
{
    hdgc_problem *p = NULL;
    hdg_error err;
    CHECK(hdgc_problem_load(HDG_EXAMPLES "/poisson3d.hdg", &p, &err) == HDG_OK, "load: %s", err.msg);
    if (!p) return;
    double ru[2] = {0}, rs[2] = {0};
    hdgc_result *r[2] = {NULL, NULL}, *ra = NULL;
    CHECK(hdgc_problem_set_option(p, "order", "2", &err) == HDG_OK, "order: %s", err.msg);
    for (int i = 0; i < 2; i++) {
        CHECK(hdgc_problem_set_option(p, "mesh", i ? "cube:4" : "cube:2", &err) == HDG_OK, "mesh: %s", err.msg);
        CHECK(hdgc_solve(p, &r[i], &err) == HDG_OK, "solve: %s", err.msg);
        const hdgc_field *u = hdgc_result_field_named(r[i], "u"), *us = hdgc_result_field_named(r[i], "ustar");
        CHECK(u && us && u->z && us->z && u->degree == 3 && u->npe == 20 && u->ne == (i ? 384 : 48),
              "HDG fields u, ustar with z");
        if (!u || !us || !u->z || !us->z) continue;
        ru[i] = rms_uex(u), rs[i] = rms_uex(us);
        double eu = hdgc_result_error(r[i], "u"), es = hdgc_result_error(r[i], "ustar");
        CHECK(ru[i] > eu && ru[i] < 5 * eu && rs[i] > es && rs[i] < 5 * es,
              "cube:%d: rms at the nodes u %g ustar %g, L2 errors %g %g", i ? 4 : 2, ru[i], rs[i], eu, es);
    }
    CHECK(ru[0] > 6 * ru[1] && rs[0] > 12 * rs[1], "rates at the nodes: u %g -> %g, ustar %g -> %g", ru[0], ru[1],
          rs[0], rs[1]);
    int dim = 0, nv = 0;
    const double *xyz = NULL;
    const int *cells = NULL;
    int ne = hdgc_result_mesh_simplices(r[0], &dim, &nv, &xyz, &cells);
    CHECK(ne == 48 && dim == 3 && nv == 27, "HDG mesh %d cells, dim %d, %d vertices", ne, dim, nv);
    const hdgc_field *u = hdgc_result_field_named(r[0], "u");
    if (u && u->z && ne == u->ne) {
        int q = u->degree, corner[4] = {0, q, (q + 1) * (q + 2) / 2 - 1, u->npe - 1};
        double d = 0;
        for (int e = 0; e < ne; e++)
            for (int k = 0; k < 4; k++) {
                int v = cells[4 * e + k], i = e * u->npe + corner[k];
                d = fmax(d, fabs(u->x[i] - xyz[3 * v]) + fabs(u->y[i] - xyz[3 * v + 1]) +
                                fabs(u->z[i] - xyz[3 * v + 2]));
            }
        CHECK(d < 1e-15, "HDG field nodes against the mesh's vertices: %g", d);
    }
    CHECK(hdgc_problem_set_mesh_simplices(p, 3, nv, xyz, ne, cells, 0, NULL, NULL, 0, NULL, &err) == HDG_OK,
          "arrays: %s", err.msg);
    CHECK(hdgc_solve(p, &ra, &err) == HDG_OK, "solve arrays: %s", err.msg);
    const char *names[] = {"u", "q", "ustar"};
    for (int i = 0; i < 3; i++) {
        double a = hdgc_result_error(r[0], names[i]), b = hdgc_result_error(ra, names[i]);
        CHECK(a > 0 && fabs(a - b) <= 1e-9 * a, "HDG %s: cube:2 %.15g, arrays %.15g", names[i], a, b);
    }
    hdgc_result_free(r[0]), hdgc_result_free(r[1]), hdgc_result_free(ra);
    hdgc_problem_free(p);
}

static char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    *n = -1;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)*n + 1);
    if (fread(b, 1, (size_t)*n, f) != (size_t)*n) *n = -1;
    fclose(f);
    return b;
}

static int same_file(const char *a, const char *b)
{
    long na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na > 0 && na == nb && !memcmp(x, y, (size_t)na);
    free(x), free(y);
    return same;
}

/* hdgc_vtk_write of a result's fields (q as one vector of its 3 components, the estimate as
 * a cell field) gives hdgc run --vtk's file byte for byte; hdgc_png_write draws u* on a
 * section and the surface as --png does, and refuses a vector,
 * a plane outside the mesh and a bad slice with their messages. */
static void vtk_png(void)
{
    hdgc_problem *p = NULL;
    hdgc_result *r = NULL;
    hdg_error err;
    CHECK(hdgc_problem_load(HDG_EXAMPLES "/poisson3d.hdg", &p, &err) == HDG_OK, "load: %s", err.msg);
    if (!p) return;
    const char *opts[][2] = {{"order", "2"}, {"mesh", "cube:2"}, {"vtk", "api3d_cli.vtu"}, {"vtk-format", "ascii"},
                             {"png", "api3d_cli.png"}, {"field", "ustar"}, {"slice", "z=0.37"}};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        CHECK(hdgc_problem_set_option(p, opts[i][0], opts[i][1], &err) == HDG_OK, "%s: %s", opts[i][0], err.msg);
    CHECK(hdgc_solve(p, &r, &err) == HDG_OK, "solve: %s", err.msg);
    const char *comp[] = {"q_x", "q_y", "q_z", "u", "ustar"};
    const double *vals[5] = {NULL};
    const hdgc_field *u = NULL;
    for (int i = 0; i < 5; i++) {
        const hdgc_field *f = hdgc_result_field_named(r, comp[i]);
        CHECK(f != NULL, "field %s", comp[i]);
        if (!f) goto done;
        vals[i] = f->values, u = f;
    }
    int ne = u->ne, q = u->degree, corner[4] = {0, q, (q + 1) * (q + 2) / 2 - 1, u->npe - 1};
    double *vx = malloc(sizeof(double) * 12 * (size_t)ne);
    for (int e = 0; e < ne; e++)   /* the vertices: the lattice's corner nodes */
        for (int k = 0; k < 4; k++) {
            int i = e * u->npe + corner[k];
            vx[12 * e + 3 * k] = u->x[i], vx[12 * e + 3 * k + 1] = u->y[i], vx[12 * e + 3 * k + 2] = u->z[i];
        }
    const double *eta = NULL;
    CHECK(hdgc_result_indicators(r, "u", &eta) == ne, "indicators");
    const char *names[] = {"q", "u", "ustar"}, *cname[] = {"estimate_u"};
    int ncomp[] = {3, 1, 1};
    hdgc_lattice_fields F = {3, ne, vx, q, 3, names, ncomp, vals, 1, cname, &eta};
    CHECK(hdgc_vtk_write("api3d_api.vtu", &F, "ascii", &err) == HDG_OK, "hdgc_vtk_write: %s", err.msg);
    CHECK(same_file("api3d_api.vtu", "api3d_cli.vtu"), "hdgc_vtk_write's .vtu is not hdgc run --vtk's");
    CHECK(hdgc_vtk_write("api3d_api.vtu", &F, "xml", &err) == HDG_EINPUT && strstr(err.msg, "expected 'binary' or 'ascii'"),
          "format xml: %s", err.msg);
    hdgc_png_options po = {0, 0, 0, "z=0.37", NULL};
    char caption[256];
    snprintf(caption, sizeof caption, "poisson3d   ustar   k = 2   cube:2   (48 elements)");
    po.caption = caption;
    CHECK(hdgc_png_write("api3d_api.png", &F, 2, &po, &err) == HDG_OK, "hdgc_png_write: %s", err.msg);
    long n;
    char *png = slurp("api3d_api.png", &n);
    CHECK(png && n > 5000 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8), "a PNG of %ld bytes", n);
    free(png);
    /* the same picture but for rounding (u* sampled from its lattice values, not its modes:
     * measured 37 of 640000 pixels differ, by one level of one channel; python/tests/test_3d.py
     * compares the pixels): the compressed sizes agree to 1% */
    long nc;
    free(slurp("api3d_cli.png", &nc));
    CHECK(nc > 0 && labs(n - nc) <= nc / 100, "hdgc_png_write's section %ld bytes, hdgc run --png's %ld", n, nc);
    po.slice = NULL;   /* the boundary surface */
    CHECK(hdgc_png_write("api3d_surface.png", &F, 1, &po, &err) == HDG_OK, "surface: %s", err.msg);
    CHECK(hdgc_png_write("x.png", &F, 0, NULL, &err) == HDG_EINPUT && strstr(err.msg, "field q has 3 components"),
          "a vector: %s", err.msg);
    po.slice = "z=5";
    CHECK(hdgc_png_write("x.png", &F, 1, &po, &err) == HDG_EINPUT && strstr(err.msg, "z"), "z=5: %s", err.msg);
    po.slice = "w=1";
    CHECK(hdgc_png_write("x.png", &F, 1, &po, &err) == HDG_EINPUT && strstr(err.msg, "expected x=C, y=C or z=C"),
          "w=1: %s", err.msg);
    free(vx);
done:
    hdgc_result_free(r);
    hdgc_problem_free(p);
}

int main(void)
{
    hdg_fields();
    vtk_png();
    hdgc_problem *p = maxwell3d();
    if (!p) return test_summary("test_api3d");
    hdgc_result *r1 = NULL, *r2 = NULL;
    hdg_error err;
    CHECK(hdgc_solve(p, &r1, &err) == HDG_OK, "solve cube:2: %s", err.msg);
    fields(r1);
    /* cube:2's mesh as arrays, boundary faces untagged ("boundary", which `on all` covers) */
    int dim = 0, nv = 0;
    const double *xyz = NULL;
    const int *cells = NULL;
    int ne = hdgc_result_mesh_simplices(r1, &dim, &nv, &xyz, &cells);
    CHECK(hdgc_problem_set_mesh_simplices(p, 3, nv, xyz, ne, cells, 0, NULL, NULL, 0, NULL, &err) == HDG_OK,
          "arrays: %s", err.msg);
    CHECK(hdgc_solve(p, &r2, &err) == HDG_OK, "solve arrays: %s", err.msg);
    const char *names[] = {"E", "H"};
    for (int i = 0; i < 2; i++) {
        double a = hdgc_result_error(r1, names[i]), b = hdgc_result_error(r2, names[i]);
        CHECK(a > 0 && fabs(a - b) <= 1e-12 * a, "%s: cube:2 %.15g, arrays %.15g", names[i], a, b);
    }
    CHECK(strstr(hdgc_result_report(r2), "\"arrays\"") != NULL, "mesh.source is arrays");
    fields(r2);
    hdgc_result_free(r1), hdgc_result_free(r2);
    hdgc_problem_free(p);
    return test_summary("test_api3d");
}
