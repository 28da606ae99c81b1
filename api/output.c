/* output.c — hdgc_vtk_write and hdgc_png_write: lattice fields (a result's, or the caller's)
 * to the .vtu and the PNG of hdgc run --vtk / --png, through the same writers
 * (runtime/output/vtk.h; drivers/run_png.h over runtime/output/png.h and png3d.h), on
 * triangles and tetrahedra alike (include/hdgc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "drivers/run_png.h"
#include "runtime/fem/refel.h"
#include "runtime/output/vtk.h"
#include "runtime/solve/dense.h"
#include "support/util.h"

/* The checks both writers make; *ncv: the component arrays the fields take. */
static hdg_status check_fields(const char *what, const char *path, const hdgc_lattice_fields *f, int *ncv,
                               hdg_error *err)
{
    if (!path || !f) return hdg_fail(err, HDG_EINPUT, "%s: no path or no fields", what);
    if (f->dim != 2 && f->dim != 3)
        return hdg_fail(err, HDG_EINPUT, "%s %s: dimension %d (2: triangles, 3: tetrahedra)", what, path, f->dim);
    if (f->ne < 1 || !f->vertices)
        return hdg_fail(err, HDG_EINPUT, "%s %s: %d elements%s", what, path, f->ne, f->vertices ? "" : " and no vertices");
    if (f->degree < 0 || f->degree > HDG_VTK_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "%s %s: degree %d is not in 0..%d", what, path, f->degree, HDG_VTK_MAX_DEGREE);
    if (f->nfields < 0 || f->ncells < 0 || (f->nfields && (!f->names || !f->values)) ||
        (f->ncells && (!f->cell_names || !f->cell_values)))
        return hdg_fail(err, HDG_EINPUT, "%s %s: %d fields and %d cell fields without their arrays", what, path,
                        f->nfields, f->ncells);
    int n = 0;
    for (int i = 0; i < f->nfields; i++) {
        int c = f->ncomp ? f->ncomp[i] : 1;
        if (!f->names[i] || !f->names[i][0])
            return hdg_fail(err, HDG_EINPUT, "%s %s: field %d has no name", what, path, i);
        if (c != 1 && c != f->dim && c != f->dim * f->dim)
            return hdg_fail(err, HDG_EINPUT, "%s %s: field %s has %d components (1, %d or %d in %dD)", what, path,
                            f->names[i], c, f->dim, f->dim * f->dim, f->dim);
        for (int k = 0; k < c; k++)
            if (!f->values[n + k])
                return hdg_fail(err, HDG_EINPUT, "%s %s: field %s: component %d has no values", what, path, f->names[i], k);
        n += c;
    }
    for (int i = 0; i < f->ncells; i++)
        if (!f->cell_names[i] || !f->cell_names[i][0] || !f->cell_values[i])
            return hdg_fail(err, HDG_EINPUT, "%s %s: cell field %d has no name or no values", what, path, i);
    *ncv = n;
    return HDG_OK;
}

hdg_status hdgc_vtk_write(const char *path, const hdgc_lattice_fields *f, const char *format, hdg_error *err)
{
    int ncv;
    hdg_status st = check_fields("hdgc_vtk_write", path, f, &ncv, err);
    if (st) return st;
    if (format && strcmp(format, "binary") && strcmp(format, "ascii"))
        return hdg_fail(err, HDG_EINPUT, "hdgc_vtk_write %s: format '%s': expected 'binary' or 'ascii'", path, format);
    if (f->nfields + f->ncells < 1) return hdg_fail(err, HDG_EINPUT, "hdgc_vtk_write %s: no fields to write", path);
    hdg_vtk_cells cells = {f->ncells, f->cell_names, f->cell_values};
    hdg_vtk_data D = {.ne = f->ne, .vxy = f->vertices, .p = f->degree, .nfields = f->nfields, .names = f->names,
                      .ncomp = f->ncomp, .values = f->values, .cells = &cells, .mode = HDG_VTK_LAGRANGE,
                      .format = format && !strcmp(format, "ascii") ? HDG_VTK_ASCII : HDG_VTK_BINARY, .dim = f->dim};
    return hdg_vtk_write_data(path, &D, err);
}

/* The modal coefficients (the orthonormal basis of hdg_simplex_eval) of the degree-p
 * polynomials with the lattice values u (ne*n, n lattice points an element): V^-1 u. */
static double *modal(int dim, int p, int ne, const double *u, hdg_error *err)
{
    int n = hdg_vtk_lattice_count(dim, p);
    double *lat = hdg_xmalloc(sizeof(double) * 3 * (size_t)n), *V = hdg_xmalloc(sizeof(double) * (size_t)n * n);
    double *x[3] = {lat, lat + n, lat + 2 * n};
    hdg_vtk_lattice_points(dim, p, x);
    hdg_simplex_eval(dim, p, n, (const double *const *)x, V, NULL);
    double *c = NULL;
    if (hdg_invert(n, V)) {
        hdg_fail(err, HDG_EINTERNAL, "the lattice of degree %d is not unisolvent", p);
    } else {
        c = hdg_xmalloc(sizeof(double) * (size_t)ne * n);
        for (long long e = 0; e < ne; e++)
            for (int m = 0; m < n; m++) {
                double s = 0;
                for (int q = 0; q < n; q++) s += V[(size_t)m * n + q] * u[e * n + q];
                c[e * n + m] = s;
            }
    }
    free(lat), free(V);
    return c;
}

hdg_status hdgc_png_write(const char *path, const hdgc_lattice_fields *f, int field, const hdgc_png_options *po,
                          hdg_error *err)
{
    int ncv;
    hdg_status st = check_fields("hdgc_png_write", path, f, &ncv, err);
    if (st) return st;
    if (field < 0 || field >= f->nfields)
        return hdg_fail(err, HDG_EINPUT, "hdgc_png_write %s: field %d of %d", path, field, f->nfields);
    int comp = 0;
    for (int i = 0; i < field; i++) comp += f->ncomp ? f->ncomp[i] : 1;
    if (f->ncomp && f->ncomp[field] != 1)
        return hdg_fail(err, HDG_EINPUT, "hdgc_png_write %s: field %s has %d components: give one of them as a "
                        "scalar field", path, f->names[field], f->ncomp[field]);
    hdg_run_options o;
    hdg_run_options_default(&o);
    o.png = path;
    hdgc_png_options none = {0};
    if (!po) po = &none;
    if ((po->width && (po->width < 200 || po->width > 8192)) || (po->height && (po->height < 200 || po->height > 8192)))
        return hdg_fail(err, HDG_EINPUT, "hdgc_png_write %s: size %dx%d: each between 200 and 8192 pixels", path,
                        po->width, po->height);
    o.png_width = po->width, o.png_height = po->height, o.png_edges = po->edges;
    if (po->slice && !hdg_api_slice_value(po->slice, &o))
        return hdg_fail(err, HDG_EINPUT, "hdgc_png_write %s: slice %s: expected x=C, y=C or z=C (C a decimal number)",
                        path, po->slice);
    if ((st = hdg_png_check_slice(&o, f->dim, err))) return st;
    int dim = f->dim, nv = dim + 1, n = hdg_vtk_lattice_count(dim, f->degree);
    double *c = modal(dim, f->degree, f->ne, f->values[comp], err);
    if (!c) return HDG_EINTERNAL;
    hdg_mesh m;   /* the elements as separate simplices, in the fields' vertex order */
    memset(&m, 0, sizeof m);
    size_t nvx = (size_t)nv * f->ne;
    m.dim = dim, m.ne = f->ne, m.nv = (int)nvx;
    m.vx = hdg_xmalloc(sizeof(double) * nvx), m.vy = hdg_xmalloc(sizeof(double) * nvx);
    m.vz = dim == 3 ? hdg_xmalloc(sizeof(double) * nvx) : NULL;
    m.ev = hdg_xmalloc(sizeof(int) * nvx);
    for (size_t v = 0; v < nvx; v++) {
        m.vx[v] = f->vertices[dim * v], m.vy[v] = f->vertices[dim * v + 1], m.ev[v] = (int)v;
        if (dim == 3) m.vz[v] = f->vertices[dim * v + 2];
    }
    hdg_png_field pf = {.deg = f->degree, .n = n, .stride = n, .base = 0, .x = c, .name = f->names[field]};
    st = hdg_png_draw(&m, &pf, &o, po->caption, NULL, err);
    free(m.vx), free(m.vy), free(m.vz), free(m.ev), free(c);
    return st;
}
